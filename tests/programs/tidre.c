// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A tid used twice (tidre.h), for tests/e2e/run.sh tidre: the second
 * thread runs untraced, the bundle is kept.
 */
#include "tidre.h"

int main(void)
{
	return tidre_run();
}
