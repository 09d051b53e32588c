// SPDX-License-Identifier: GPL-3.0-or-later
/* tests/gdb/values.sh: functions returning each kind of value the System V
 * ABI returns in registers or through memory, for `finish` (#17).  With an
 * argument K the program traps right after the K-th call returns, so its
 * history ends at the return address and a finish from that call stops at
 * the end, where the registers are the snapshot's; without one it makes
 * every call and prints what each returned.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

struct il { long a; double b; };
struct i3 { int a, b, c; };
struct dd { double a, b; };
struct ff { float a, b, c; };
struct ci { char c; int i; short s; };
struct big { long a[5]; };

#define F static __attribute__((noipa))
F int r_int(int x) { return x * 3 + 1; }
F long r_long(long x) { return -(x << 40); }
F char r_char(int x) { return 'a' + x; }
F bool r_bool(int x) { return x > 2; }
F short r_short(int x) { return -x; }
F unsigned char r_uchar(int x) { return 250 + x; }
F int *r_ptr(int *p) { return p + 1; }
F unsigned __int128 r_i128(long x) { return (unsigned __int128)x << 70 | 5; }
F double r_dbl(int x) { return x ? 7.5 : 1; }
F float r_flt(int x) { return x ? 0.75f : 1; }
F struct il r_il(long x) { struct il s = { x + 1, x ? 2.0 : 1 }; return s; }
F struct i3 r_i3(int x) { struct i3 s = { x, x + 1, x + 2 }; return s; }
F struct dd r_dd(int x) { struct dd s = { x ? 3.0 : 1, 6.0 }; return s; }
F struct ff r_ff(int x)
{
	struct ff s = { x ? 2.0f : 1, 4.0f, 8.0f };

	return s;
}
F struct ci r_ci(int x) { struct ci s = { 'a' + x, -x, 7 }; return s; }
F struct big r_big(long x)
{
	struct big b = { { x, x + 1, x + 2, x + 3, x + 4 } };

	return b;
}
F long double r_ld(int x) { return x / 4.0L; }

int g[4];

/* The K-th call: made, then the trap right after its return when K is
 * the one asked for.
 */
#define CALL(k, v, e)						\
	do {							\
		if (stop == (k)) {				\
			e;					\
			__builtin_trap();			\
		}						\
		v = e;						\
	} while (0)

int main(int argc, char **argv)
{
	int stop = argc > 1 ? atoi(argv[1]) : -1;
	int a; long b; char c; bool d; short e; unsigned char u; int *p;
	unsigned __int128 q; double f; float h; struct il s1; struct i3 s2;
	struct dd s3; struct ff s4; struct ci s5; struct big s6;
	long double l;

	CALL(0, a, r_int(13));
	CALL(1, b, r_long(3));
	CALL(2, c, r_char(2));
	CALL(3, d, r_bool(3));
	CALL(4, e, r_short(9));
	CALL(5, u, r_uchar(3));
	CALL(6, p, r_ptr(g));
	CALL(7, q, r_i128(3));
	CALL(8, f, r_dbl(3));
	CALL(9, h, r_flt(3));
	CALL(10, s1, r_il(4));
	CALL(11, s2, r_i3(5));
	CALL(12, s3, r_dd(2));
	CALL(13, s4, r_ff(2));
	CALL(14, s5, r_ci(2));
	CALL(15, s6, r_big(7));
	/* A long double result is popped off the x87 stack right after the
	 * call when unused: the trap must be the return address itself.
	 */
	if (stop == 16)
		__asm__ volatile("mov $3, %%edi\n\tcall r_ld\n\tud2"
				 ::: "memory");
	l = r_ld(3);
	printf("%d %ld %d %d %d %d %p %lu %lu %g %g %ld %g %d %d %d %g %g "
	       "%g %g %g %d %d %d %ld %Lg\n",
	       a, b, c, d, e, u, (void *)p, (unsigned long)(q >> 64),
	       (unsigned long)q, f, h, s1.a, s1.b, s2.a, s2.b, s2.c, s3.a,
	       s3.b, s4.a, s4.b, s4.c, s5.c, s5.i, s5.s, s6.a[4], l);
	return 0;
}
