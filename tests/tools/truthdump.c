// SPDX-License-Identifier: GPL-3.0-or-later
/* truthdump [--regs] FILE: prints a ground-truth file's addresses, one per
 * line, in the format of `ptrec insns --format=addr`, for comparing the
 * two; with --regs, each line also has the registers recorded after the
 * instruction ("rax=0x... rbx=0x..." in GDB's order, those the record
 * holds).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sideband.h"

static const char *const names[SB_TRUTH_NREGS] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9",
	"r10", "r11", "r12", "r13", "r14", "r15", "eflags",
};

int main(int argc, char **argv)
{
	bool regs = argc == 3 && !strcmp(argv[1], "--regs");
	struct sb_truth_rec *recs;
	struct sb_err err;
	size_t n, i, r;

	if (argc != 2 && !regs) {
		fprintf(stderr, "usage: truthdump [--regs] FILE\n");
		return 2;
	}
	if (sb_truth_load_recs(argv[argc - 1], &recs, &n, &err)) {
		fprintf(stderr, "truthdump: %s\n", err.msg);
		return 1;
	}
	for (i = 0; i < n; i++) {
		printf("0x%" PRIx64, recs[i].ip);
		for (r = 0; regs && r < SB_TRUTH_NREGS; r++)
			if (recs[i].mask & (1ull << r))
				printf(" %s=0x%" PRIx64, names[r],
				       recs[i].regs[r]);
		printf("\n");
	}
	free(recs);
	return 0;
}
