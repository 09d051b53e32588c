/* Runs until killed, with an indirect call and a data-dependent branch in
 * every iteration, so its trace grows steadily (the full-disk test).
 */
static volatile unsigned long n;

static void inc(void)
{
	n++;
}

static void dec(void)
{
	n += 3;
}

int main(void)
{
	void (*volatile fn[2])(void) = { inc, dec };

	for (;;)
		fn[(n >> 1) & 1]();
	return 0;
}
