// SPDX-License-Identifier: GPL-3.0-or-later
/* tests/gdb/diff: a C++ exception thrown two frames below its catch, and
 * a call that throws and catches inside itself.
 */
#include <stdexcept>

static volatile int sink;

static void __attribute__((noinline)) thrower(int x)
{
	sink = x;
	if (x > 0)
		throw std::runtime_error("x");
	sink = x + 1;
}

static void __attribute__((noinline)) middle(int x)
{
	thrower(x);
	sink = x;
}

static int __attribute__((noinline)) outer(int x)
{
	try {
		middle(x);
	} catch (const std::exception &) {
		sink = 7;
		return 1;
	}
	return 0;
}

static int __attribute__((noinline)) self_contained(int x)
{
	int r = outer(x);

	sink = r;
	return r;
}

int main()
{
	int a = self_contained(1);
	int b = outer(2);

	sink = a + b;
	return 0;
}
