/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to record/: the end-state snapshot both recorders take
 * (snapshot.c), written through the bundle's snapshot part.
 */
#ifndef PTREC_RECORD_SNAPSHOT_H
#define PTREC_RECORD_SNAPSHOT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "sideband.h"

/* The snapshots of one recording. */
struct rec_snap {
	struct sb_bundle *b;
	struct sb_snap_writer *w;	/* opened at the first snapshot */
	bool off;			/* --no-snapshot */
	bool quiet;
	bool stepping;			/* the recorder single-steps */
	uint64_t limit;			/* --snapshot-limit */
	uint64_t used;			/* mapping bytes taken */
	uint64_t left_out;		/* mapping bytes over the limit */
	uint32_t procs;
	uint64_t ns;			/* time spent taking them */
	/* When the recording began (rec_snap_clock()): a mapped file
	 * changed at or after it may have been written during it.
	 */
	uint64_t start_ns;
};

/*
 * CLOCK_REALTIME_COARSE in ns: the clock the kernel stamps file times
 * with (current_time()), so a file changed after this call gets a time
 * at or after its answer (fine-grained CLOCK_REALTIME runs up to a tick
 * ahead of it).  0 when it cannot be read.
 */
uint64_t rec_snap_clock(void);

/* A thread to take; @regs, when not NULL, stands in for the registers of
 * a thread that is not in a ptrace-stop (blocked in a system call).
 */
struct rec_snap_thr {
	pid_t tid;
	const struct user_regs_struct *regs;
	bool entered;	/* @regs even when stopped: at an execve's entry */
};

/*
 * The rseq areas a process's threads registered during the recording
 * (the software recorder: each thread's registration when first traced,
 * and every rseq system call it steps over); @lost when a registration
 * could not be read.
 */
struct rec_snap_rseqs {
	struct sb_snap_rseq *v;
	size_t n, cap;
	bool lost;
};

/* Adds [@addr, +@len) of thread @tid (0 @addr: nothing). */
void rec_snap_rseq_note(struct rec_snap_rseqs *l, uint64_t addr,
			uint32_t len, pid_t tid);
/* Adds ptrace-stopped thread @tid's registration, if any. */
void rec_snap_rseq_query(struct rec_snap_rseqs *l, pid_t tid);
void rec_snap_rseq_free(struct rec_snap_rseqs *l);

struct rec_snap_proc {
	pid_t pid, ppid;
	uint32_t end;			/* enum sb_snap_end */
	int32_t status;			/* exit status or signal */
	uint32_t gen;			/* exec generation (0: first image) */
	const struct rec_snap_thr *threads;
	size_t nthreads;
	pid_t sig_tid;			/* the thread @si hit, for a crash */
	const siginfo_t *si;
	/* Every rseq area of the recording, or NULL: then only those the
	 * threads have registered at the end are listed (not complete).
	 */
	const struct rec_snap_rseqs *rseq;
};

/*
 * rec_snap_take() - snapshot a process whose threads are ptrace-stopped
 *
 * Mappings over @s->limit are listed as left out and said on stderr.
 * Returns 0 (also when the process is gone: nothing is taken) or the
 * error of writing the part (for example -ENOSPC), with a message.
 */
int rec_snap_take(struct rec_snap *s, const struct rec_snap_proc *p,
		  struct sb_err *err);

/*
 * A launched program traced only for its end (the kmod recorder: no
 * single-stepping, tracer.c): PTRACE_O_TRACEEXIT and signal-delivery
 * stops, where its snapshot is taken, with every thread's registers (each
 * thread is traced, PTRACE_O_TRACECLONE, and the others are stopped with a
 * SIGSTOP of their own for it); every other stop just continues.
 *
 * With @execs (rec_launch()'s exec filter in place), the seccomp stop at
 * an execve's entry takes the old image's state as one more exec
 * generation; the program's descendants inherit the filter, so they are
 * traced too (PTRACE_O_TRACEFORK, _VFORK), or their execve would fail with
 * ENOSYS, and every stop of theirs just continues.
 */
#define REC_SNAP_TRACER_MAX 256
#define REC_SNAP_DESC_MAX 256
struct rec_snap_tracer {
	pid_t pid, ppid;
	/* its threads (PTRACE_O_TRACECLONE), the leader first */
	size_t n;
	pid_t tids[REC_SNAP_TRACER_MAX];
	bool stop_due[REC_SNAP_TRACER_MAX];	/* a SIGSTOP to drop */
	int held_sig[REC_SNAP_TRACER_MAX];	/* to deliver on resuming */
	/* the descendants' threads, auto-attached (with @execs) */
	size_t ndesc;
	pid_t desc[REC_SNAP_DESC_MAX];
	bool desc_due[REC_SNAP_DESC_MAX];	/* its first SIGSTOP to come */
	bool traced;
	bool execs;
	/* with @execs, every rseq area of the image's threads (the filter
	 * stops each rseq call), so the snapshot's list is complete
	 */
	struct rec_snap_rseqs rseq;
	bool snapped;
	uint32_t gen;			/* exec generation of the image */
	uint64_t stops;			/* ptrace stops it cost */
	int error;
};

/* Sets the options on a program in its post-exec ptrace stop and lets it
 * run (@execs: its exec filter is in place).  Returns 0 or the negative
 * errno of ptrace().
 */
int rec_snap_tracer_start(struct rec_snap_tracer *tr, pid_t pid, pid_t ppid,
			  bool execs);

/*
 * Handles the stops that happened (@block: waits for the end).  Returns
 * 1 with the wait status in *@status when the program has ended, 0 when it
 * runs on, or a negative errno of waitpid().
 */
int rec_snap_tracer_poll(struct rec_snap *s, struct rec_snap_tracer *tr,
			 bool block, int *status, struct sb_err *err);

/*
 * The descendants' threads still alive (the recording ends): no longer
 * traced once ptrec exits, an execve of theirs then fails with ENOSYS.
 */
size_t rec_snap_tracer_left(struct rec_snap_tracer *tr);

/* Recording stops early: stops the program and takes its snapshot (the
 * caller then kills it).
 */
void rec_snap_tracer_end(struct rec_snap *s, struct rec_snap_tracer *tr,
			 struct sb_err *err);

/*
 * A process the recorder does not trace (the kmod recorder's -p), held
 * for its snapshot where recording detaches: rec_snap_seize() stops every
 * thread it has (PTRACE_SEIZE and PTRACE_INTERRUPT), rec_snap_release()
 * takes the snapshot (@end) and lets them run on, with any signal that
 * arrived meanwhile.  A thread created in between is not in it, nor
 * one that did not stop within a second (@left counts them).
 */
#define REC_SNAP_SEIZE_MAX 256
struct rec_snap_seized {
	pid_t pid, ppid;
	size_t n;
	pid_t tids[REC_SNAP_SEIZE_MAX];
	int sigs[REC_SNAP_SEIZE_MAX];	/* to deliver at the detach */
	size_t left;	/* threads that did not stop in time: left out */
};

void rec_snap_seize(struct rec_snap_seized *sz, pid_t pid);
int rec_snap_release(struct rec_snap *s, struct rec_snap_seized *sz,
		     uint32_t end, struct sb_err *err);

/* The general registers in enum sb_reg order. */
void rec_snap_regs(uint64_t v[27], const struct user_regs_struct *r);

#endif
