/* An assert that fails: SIGABRT from abort(), several calls down. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

char *message;
static int checks;

static void check(const char *s, int want)
{
	int len = (int)strlen(s);

	checks++;
	assert(len == want);
}

int main(void)
{
	message = strdup("twelve chars");
	check(message, 12);
	check(message, 13);
	return 0;
}
