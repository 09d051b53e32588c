/* Sets its state, says it is ready, then spins until killed: for -p. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile long spins;
char *note;
int table[4] = { 3, 1, 4, 1 };

static void spin(void)
{
	for (;;)
		spins++;
}

int main(int argc, char **argv)
{
	note = strdup("attached");
	table[3] = 5;
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");

		fputs("ready\n", f);
		fclose(f);
	}
	spin();
	return 0;
}
