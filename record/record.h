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
 * struct rec_kmod_options - how the kernel-module recorder traces
 * @buf_size:	PT output bytes per thread, a power of two (0: 1 MiB).
 * @nr_regions:	ToPA regions per thread (0: 8 with multi-entry ToPA, else 1).
 * @stop_on_full: stop a thread's tracing when its buffer is full instead
 *		of overwriting the oldest data (ring, the default).
 * @kernel:	trace kernel code too (CPL 0), not only user code.
 * @no_tsc:	no TSC packets.
 * @mtc:	MTC period encoding, or -1 for no MTC packets.
 * @cyc:	CYC threshold encoding, or -1 for no cycle-accurate mode.
 * @ptwrite:	PTWRITE packets (the simulated unit writes its packets only
 *		with this).
 * @follow_fork: trace the children the process forks, too.
 * @no_sysregs:	no REGS records of system calls (PTREC_CFG_NO_SYSREGS).
 * @sim_rate:	simulated unit only: PTW packets per ms (0: module default).
 */
struct rec_kmod_options {
	uint64_t buf_size;
	uint32_t nr_regions;
	bool stop_on_full;
	bool kernel;
	bool no_tsc;
	int mtc;
	int cyc;
	bool ptwrite;
	bool follow_fork;
	bool no_sysregs;
	uint32_t sim_rate;
};

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
 * @no_retcomp: never compress returns (SDM 33.4.2.2): every RET gets a TIP,
 *		as with IA32_RTIT_CTL.DisRETC set.
 * @quiet:	no progress or summary on stderr.
 * @counter_clock: timestamps count events instead of nanoseconds, so that
 *		recording the same run twice gives the same bytes (tests).
 * @stop:	set asynchronously (SIGINT) to end recording cleanly.
 * @no_snapshot: no end-state snapshot (docs/bundle-format.md).
 * @snapshot_limit: bytes of mapping contents the snapshot may hold
 *		(0: SB_SNAP_DEFAULT_LIMIT); larger mappings are listed as
 *		left out.
 * @kmod:	options of the kernel-module recorder (rec_kmod_record()).
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
	bool no_retcomp;
	bool quiet;
	bool counter_clock;
	volatile sig_atomic_t *stop;
	bool no_snapshot;
	uint64_t snapshot_limit;
	struct rec_kmod_options kmod;
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
	uint64_t ptwrites;	/* PTWRITEs emulated (values recorded) */
	/* kmod: */
	uint64_t lost_bytes;	/* PT bytes lost (LOST records) */
	uint64_t lost_records;	/* sideband bytes the module dropped */
	uint64_t unexplained;	/* offset jumps without a LOST record */
	uint64_t switches;	/* switch-ins of traced threads */
	uint64_t pmis;		/* ToPA interrupts */
	/* snapshot: */
	uint32_t snap_procs;	/* processes taken */
	uint64_t snap_bytes;	/* mapping bytes taken */
	uint64_t snap_left_out;	/* mapping bytes over the limit */
	uint64_t snap_ns;	/* time taking them */
	/* the program started (not -p): how it ended, as waitpid says */
	bool main_ended;
	int main_wstatus;
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

struct ptrec_info;

/**
 * rec_kmod_probe() - is /dev/ptrec there and usable by this ptrec?
 * @info:	receives PTREC_IOC_INFO.
 *
 * Returns 0, or with a message saying what to do:
 * -ENOENT: no /dev/ptrec (the module is not loaded);
 * -ENODEV, -ENXIO: a device node without its driver;
 * -EACCES: the node cannot be opened;
 * -EPROTO: the module speaks another interface version;
 * -ENOTTY: /dev/ptrec is not ptrec.ko's;
 * -EOPNOTSUPP: the module reports no PT unit.
 */
int rec_kmod_probe(struct ptrec_info *info, struct sb_err *err);

/* Whether this process has CAP_PERFMON or CAP_SYS_ADMIN, which
 * PTREC_IOC_ATTACH requires.
 */
bool rec_kmod_capable(void);

/**
 * rec_kmod_record() - record with ptrec.ko (docs/kmod.md)
 *
 * Uses @o->argv or @o->pid, @o->out, @o->psb_period, @o->quiet, @o->stop
 * and @o->kmod; the software recorder's other options do not apply.
 * Returns 0 with a finished bundle, the errors of rec_kmod_probe(), or:
 * -EPERM: no CAP_PERFMON, or no right to trace the process;
 * -ESRCH: no such process; -EBUSY: already traced, or PT is in use;
 * -EINVAL, -EOPNOTSUPP: an option the unit or the module refuses;
 * -ENOENT, -EACCES: the program cannot be executed;
 * -EEXIST: @o->out exists and is not empty;
 * write errors such as -ENOSPC (the bundle is left without manifest).
 */
int rec_kmod_record(const struct rec_options *o, struct rec_stats *st,
		    struct sb_err *err);

/**
 * rec_kmod_split() - write a bundle from a captured /dev/ptrec stream
 * @o:		as for rec_kmod_record(); @o->pid, when set, is the traced
 *		process; @o->argv, when set, its command line.
 * @info:	the PTREC_IOC_INFO the stream was recorded with.
 * @exe:	the program of @o->pid (/proc/PID/exe when recording), or NULL.
 * @stream:	whole read() messages, as the device returns them.
 *
 * What rec_kmod_record() does with what it reads, without the device: the
 * tests use it.  Returns 0 with a finished bundle, -EBADMSG for a
 * malformed message (the message names its byte offset), the option and
 * bundle errors of rec_kmod_record().
 */
int rec_kmod_split(const struct rec_options *o, const struct ptrec_info *info,
		   const char *exe, const void *stream, size_t len,
		   struct rec_stats *st, struct sb_err *err);

#endif
