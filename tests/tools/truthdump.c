// SPDX-License-Identifier: GPL-3.0-or-later
/* truthdump FILE: prints a ground-truth file's addresses, one per line, in
 * the format of `ptrec insns --format=addr`, for comparing the two.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "sideband.h"

int main(int argc, char **argv)
{
	struct sb_err err;
	uint64_t *ips;
	size_t n, i;

	if (argc != 2) {
		fprintf(stderr, "usage: truthdump FILE\n");
		return 2;
	}
	if (sb_truth_load(argv[1], &ips, &n, &err)) {
		fprintf(stderr, "truthdump: %s\n", err.msg);
		return 1;
	}
	for (i = 0; i < n; i++)
		printf("0x%" PRIx64 "\n", ips[i]);
	free(ips);
	return 0;
}
