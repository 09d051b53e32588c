/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * record/: `ptrec record`, the recorders that write trace bundles.
 *
 * The one public header of record/.  Functions return 0 or a negative
 * errno; a struct sb_err (may be NULL) receives a message naming the
 * program, process, file or argument at fault.
 */
#ifndef PTREC_RECORD_H
#define PTREC_RECORD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sideband.h"

/**
 * struct rec_options - what to record and how
 * @argv:	program and arguments to launch (NULL-terminated), or NULL
 *		when attaching.
 * @pid:	process to attach to (all its threads) when @argv is NULL.
 * @out:	bundle directory to create.
 * @start_at:	symbol of the main executable or "0xADDRESS" where recording
 *		starts; NULL: "main" when the executable has it, else the
 *		entry point.  Ignored when attaching.
 * @max_insns:	stop after this many instructions in all threads (0: none).
 * @psb_period: bytes between PSBs in each stream (0: 4096, as hardware's
 *		default PSBFreq).
 * @ground_truth: also write every executed address (truth/<tid>.gt).
 * @long_tnt:	use long TNT packets (47 bits) instead of short (6).
 * @quiet:	no progress or summary on stderr.
 * @counter_clock: timestamps count events instead of nanoseconds, so that
 *		recording the same run twice gives the same bytes (tests).
 * @stop:	set asynchronously (SIGINT) to end recording cleanly.
 */
struct rec_options {
	char *const *argv;
	pid_t pid;
	const char *out;
	const char *start_at;
	uint64_t max_insns;
	uint64_t psb_period;
	bool ground_truth;
	bool long_tnt;
	bool quiet;
	bool counter_clock;
	volatile sig_atomic_t *stop;
};

struct rec_stats {
	uint32_t processes;
	uint32_t threads;
	uint64_t insns;
	uint64_t trace_bytes;
	uint64_t sideband_records;
	uint64_t anomalies;	/* transfers the classifier did not expect */
	uint64_t learned;	/* lengths learned from steps (not decodable) */
	uint64_t skips;		/* steps that retired several instructions */
};

/**
 * rec_emu_record() - record with the software recorder (ptrace + encoder)
 *
 * Returns 0 with a finished bundle in @o->out, or:
 * -ENOENT, -EACCES: the program cannot be executed (message names it);
 * -EPERM, -ESRCH: cannot attach to @o->pid;
 * -EEXIST: @o->out exists and is not empty;
 * -ECHILD: the program ended before reaching the start address;
 * -EINVAL: bad @o->start_at (message names it);
 * -ENOSPC and other write errors: the bundle is left unfinished (no
 *  manifest), which readers report as incomplete.
 */
int rec_emu_record(const struct rec_options *o, struct rec_stats *st,
		   struct sb_err *err);

/* `ptrec record ARGS`: parses arguments, records, prints a summary.
 * Returns the process exit status.
 */
int rec_main(int argc, char **argv);

#endif
