/* A crash through a NULL pointer three calls below main, with locals,
 * arguments, globals and heap data for GDB to print at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct node { int val; struct node *next; char name[16]; };
int global_counter = 42;
static char gbuf[32] = "hello global";
struct node *head;
int depth3(struct node *n, int k)
{
	int local3 = k * 3;
	struct node *bad = n->next;	/* NULL at the end */
	global_counter += local3;
	return bad->val + local3;	/* crash */
}
int depth2(struct node *n, int k)
{
	int local2 = k + 7;
	return depth3(n, local2) + 1;
}
int depth1(struct node *n, int k)
{
	double d = k * 1.5;
	return depth2(n, k + (int)d) + 2;
}
int main(int argc, char **argv)
{
	struct node *a = malloc(sizeof(*a));
	a->val = 1234; a->next = NULL; strcpy(a->name, "first");
	head = a;
	gbuf[0] = 'H';
	printf("%d\n", depth1(a, argc + 4));
	return 0;
}
