/* A normal exit with state worth printing: the end is exit_group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec { long a; double b; char tag[8]; };
struct rec *last;
long sum;

int main(void)
{
	int i;

	for (i = 0; i < 5; i++) {
		struct rec *r = malloc(sizeof(*r));

		r->a = i * 100;
		r->b = i / 4.0;
		strcpy(r->tag, "rec");
		sum += r->a;
		last = r;
	}
	exit(3);
}
