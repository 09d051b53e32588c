/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What kqcheck's files share (kqcheck.c: the loads, the offsets, --bundle
 * and main; kqcheck_trace.c: decoding and context switches;
 * kqcheck_log.c: the workload's log and the run's options): what was
 * read from the guest's files, the results' printers.
 */
#ifndef KQCHECK_H
#define KQCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "sideband.h"

struct kq_range {
	uint64_t start, len;
};

struct kq_cr3 {
	uint64_t user, kernel;
};

#define KQ_MAX_THREADS	256
#define KQ_MAX_MSGS	(1 << 20)
#define KQ_MAX_LOST	65536
#define KQ_MAX_SW	(1 << 20)

struct kq_msg {
	uint32_t tid;
	uint32_t len;
	uint64_t offset;
	uint64_t fileoff;
};

struct kq_lost {
	uint32_t tid;
	uint32_t reason;
	uint64_t bytes;
	uint64_t offset;
	int used;
};

struct kq_sw {
	uint32_t tid;
	uint32_t cpu;
	uint16_t type;
	uint64_t time;
};

struct kq_thread {
	uint32_t tid;
	uint64_t ptws;
	uint64_t tscs;
	uint64_t tsc_outside;
	uint64_t first_bad_tsc;
	int cpus;		/* bit per CPU it switched in on */
	/* switch-in intervals with a TSC, and those whose first is not
	 * inside PSB+ (the unit started without a sync point)
	 */
	long last_iv;
	uint64_t ivs, ivs_nopsb, first_nopsb;
	int lossy;		/* it has LOST records */
	/* PIP packets: inside PSB+ (not judged: at a switch-in the CPU
	 * still runs on the previous task's CR3), and outside it those equal
	 * to a CR3 record's user CR3, its kernel CR3, or neither
	 */
	uint64_t pip_psb, pip_user, pip_kernel, pip_bad, first_bad_pip;
};

extern const char *kq_name;
extern int kq_fails;
extern struct kq_msg *kq_msgs;
extern size_t kq_nmsgs;
extern struct kq_lost kq_losts[KQ_MAX_LOST];
extern size_t kq_nlost;
extern struct kq_sw *kq_sws;
extern size_t kq_nsws;
extern struct kq_thread kq_threads[KQ_MAX_THREADS];
extern size_t kq_nthreads;
extern uint32_t kq_pid;
extern uint64_t kq_ptw_after_loss;
extern char kq_exec_path[256];
/* PROCESS_EXIT records of the workload's pid (of any pid without a log) */
extern int kq_exit_seen, kq_exit_kind, kq_exit_status;
extern uint32_t kq_exit_pid[KQ_MAX_THREADS];
extern int kq_exit_kinds[KQ_MAX_THREADS], kq_exit_statuses[KQ_MAX_THREADS];
extern size_t kq_exit_seq[KQ_MAX_THREADS];
extern size_t kq_nexits;
/*
 * --detached, --attached: the process was attached while it ran
 * (PTREC_IOC_ATTACH), and (--detached) detached before its end
 */
extern int kq_attached;
/* THREAD_EXIT records: pid and position in the sideband */
extern uint32_t kq_texit_pid[KQ_MAX_THREADS], kq_texit_tid[KQ_MAX_THREADS];
extern size_t kq_texit_seq[KQ_MAX_THREADS];
/* EXIT_FUTEX records (the exit_mm_release kprobe) and their positions */
extern struct ptrec_sb_exit_futex kq_xfs[KQ_MAX_THREADS];
extern size_t kq_xf_seq[KQ_MAX_THREADS];
extern size_t kq_nxfs;
extern size_t kq_ntexits;
extern uint32_t kq_start_tids[KQ_MAX_THREADS];
extern uint32_t kq_start_parent[KQ_MAX_THREADS];
extern uint32_t kq_start_pid[KQ_MAX_THREADS];
extern size_t kq_nstarts;
/* REGS records of place PTREC_SB_REGS_START */
extern struct ptrec_sb_regs kq_sregs[KQ_MAX_THREADS];
extern size_t kq_nsregs;
/*
 * What the start records are checked against: the main thread starts at
 * its exec (a launched bundle: its first instruction is the entry point);
 * the trace starts in the kernel (--pip: no start records).
 */
extern int kq_main_at_exec, kq_kernel_traced;
/* a bundle of ptrec record: its threads are ptrace-attached at birth */
extern int kq_bundle_run;

struct kq_mmap_rec {
	uint32_t pid;
	uint64_t start, len, pgoff;
	uint32_t prot, mflags;
	char path[256];
	char key[SB_IMAGE_KEY_MAX];
};

extern struct kq_mmap_rec kq_mmaps[4096];
extern size_t kq_nmmaps;
extern struct kq_range kq_munmaps[4096];
extern size_t kq_nmunmaps;
extern size_t kq_type_count[PTREC_SB_TYPE_COUNT + 1];
/* CR3 records: the user and the kernel CR3 (0 if version 1) */
extern struct kq_cr3 kq_cr3s[256];
extern size_t kq_ncr3s;
/* --bundle: the bundle's manifest */
extern struct sb_manifest *kq_man;

/* kqcheck.c */
void __attribute__((format(printf, 2, 3))) kq_result(int good,
						     const char *fmt, ...);
void __attribute__((format(printf, 1, 2))) kq_diag(const char *fmt, ...);
struct kq_thread *kq_thread(uint32_t tid);
void *kq_read_file(const char *path, size_t *len);
uint64_t kq_stat(const char *dir, const char *key);

/* kqcheck_trace.c: the streams decoded, the context switches */
void kq_check_cr3(int pip, int filter);
void kq_check_streams(const char *dir);
void kq_check_switches(void);

/* kqcheck_log.c: against the workload's own log and the run's options */
void kq_count_exits(uint32_t pid);
void kq_check_fork(void);
void kq_check_worklog(const char *log);
void kq_check_start_regs(const char *log);
void kq_check_ring(const char *dir);
void kq_check_exits(const char *log);
void kq_check_lag(const char *dir);
void kq_check_stop(const char *dir);

#endif
