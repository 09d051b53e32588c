/* MB megabytes of touched heap (argv[1], default 100); with a file name
 * (argv[2]) it writes "ready" there and waits to be attached to, else it
 * exits: the snapshot bench and the killed-while-writing test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 100;
	char *p = malloc(mb << 20);
	size_t i;

	for (i = 0; i < mb << 20; i += 4096)
		p[i] = (char)(i >> 12);
	if (argc > 2) {
		FILE *f = fopen(argv[2], "w");

		fputs("ready\n", f);
		fclose(f);
		for (;;)
			pause();
	}
	return p[4096] == 1 ? 0 : 1;
}
