// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqcheck's checks against the workload's own log (guest/kqwork) and
 * the run's options: the threads and mappings it names, forks, exits and
 * their futex words, ring and stop-on-full, a lagging reader.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include "kqcheck.h"

/* ---- the workload's own log ---------------------------------------------- */

/* PROCESS_EXIT records of @pid, or of every pid when @pid is 0 */
void kq_count_exits(uint32_t pid)
{
	size_t i;

	kq_exit_seen = 0;
	for (i = 0; i < kq_nexits; i++) {
		if (pid && kq_exit_pid[i] != pid)
			continue;
		kq_exit_seen++;
		kq_exit_kind = kq_exit_kinds[i];
		kq_exit_status = kq_exit_statuses[i];
	}
}

/*
 * Following children (PTREC_CFG_FOLLOW_FORK): a THREAD_START with another
 * parent process created the workload's process.
 */
void kq_check_fork(void)
{
	size_t i, forks = 0;

	for (i = 0; i < kq_nstarts; i++)
		if (kq_start_pid[i] == kq_pid &&
		    kq_start_parent[i] != kq_pid)
			forks++;
	kq_result(forks == 1, "FOLLOW_FORK: a THREAD_START record shows the "
		  "fork that created the traced child %u (%zu)", kq_pid,
		  forks);
}

static void kq_check_exit_futex(size_t tids);

void kq_check_worklog(const char *log)
{
	char line[4600], path[4096];
	unsigned long long start, len, pgoff;
	unsigned int prot, flags, tid;
	size_t i, n, tids = 0, traced = 0, mm = 0, mm_ok = 0, mu = 0;
	size_t mu_ok = 0;
	char first_bad[4700] = "";
	FILE *f = fopen(log, "r");

	if (!f) {
		kq_result(0, "the workload wrote its log %s", log);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "pid %u", &tid) == 1) {
			kq_pid = tid;
		} else if (sscanf(line, "tid %u", &tid) == 1) {
			tids++;
			for (i = 0; i < kq_nthreads; i++)
				if (kq_threads[i].tid == tid &&
				    kq_threads[i].ptws)
					traced++;
		} else if (strncmp(line, "mmap ", 5) == 0) {
			path[0] = 0;
			if (sscanf(line, "mmap %llx %llu %u %x %llu %4095s",
				   &start, &len, &prot, &flags, &pgoff,
				   path) < 5)
				continue;
			mm++;
			for (i = 0; i < kq_nmmaps; i++) {
				struct kq_mmap_rec *k = &kq_mmaps[i];

				if (k->pid == kq_pid && k->start == start &&
				    k->len == len && k->pgoff == pgoff &&
				    k->prot == prot &&
				    !strcmp(k->path, path)) {
					mm_ok++;
					break;
				}
			}
			if (i == kq_nmmaps && !first_bad[0])
				snprintf(first_bad, sizeof(first_bad),
					 "no MMAP record for '%s'", line);
		} else if (sscanf(line, "munmap %llx %llu", &start,
				  &len) == 2) {
			mu++;
			for (i = 0; i < kq_nmunmaps; i++)
				if (kq_munmaps[i].start == start &&
				    kq_munmaps[i].len == len)
					break;
			if (i < kq_nmunmaps)
				mu_ok++;
			else if (!first_bad[0])
				snprintf(first_bad, sizeof(first_bad),
					 "no MUNMAP record for '%s'", line);
		}
	}
	fclose(f);
	kq_result(tids == 4 && traced == tids, "all %zu worker threads have "
		  "a stream with PTW packets (%zu do)", tids, traced);
	for (i = 0, n = 0; i < kq_nstarts; i++)
		if (kq_start_parent[i] == kq_pid && kq_start_pid[i] == kq_pid)
			n++;
	kq_result(n == tids, "THREAD_START records name the %zu worker "
		  "threads of pid %u (%zu records)", n, kq_pid, kq_nstarts);
	kq_check_exit_futex(tids);
	kq_count_exits(kq_pid);
	i = strlen(kq_exec_path);
	kq_result(i >= 7 && !strcmp(kq_exec_path + i - 7, "/kqwork"),
		  "%s names the program: '%s'", kq_man ?
		  "the manifest's process entry" : "an EXEC record",
		  kq_exec_path);
	kq_result(kq_exit_seen == 1 && kq_exit_kind == PTREC_SB_EXITED &&
		  kq_exit_status == 0, "one PROCESS_EXIT record says it "
		  "exited with status 0 (%d records, kind %d, status %d)",
		  kq_exit_seen, kq_exit_kind, kq_exit_status);
	kq_result(mm == 3 && mm_ok == mm && mu == 1 && mu_ok == mu,
		  "the workload's %zu mmaps and %zu munmap have matching "
		  "MMAP/MUNMAP records (%zu, %zu)", mm, mu, mm_ok, mu_ok);
	if (first_bad[0]) {
		kq_diag("%s", first_bad);
		for (i = 0; i < kq_nmmaps && i < 40; i++)
			kq_diag("MMAP pid %u 0x%" PRIx64 " len %" PRIu64
				" pgoff %" PRIu64 " prot %u %s",
				kq_mmaps[i].pid, kq_mmaps[i].start,
				kq_mmaps[i].len, kq_mmaps[i].pgoff,
				kq_mmaps[i].prot, kq_mmaps[i].path);
	}
}

/*
 * EXIT_FUTEX (the exit_mm_release kprobe): each glibc worker thread,
 * which exits alone, has one before its THREAD_EXIT, with every field
 * known; its clear_child_tid word holds the thread's own tid (glibc's
 * struct pthread tid, which clone3's CLONE_PARENT_SETTID set: the kernel
 * pointed at it) and its robust list is registered and empty (the head's
 * next is the head: glibc's threads hold no robust mutex here).
 */
static void kq_check_exit_futex(size_t tids)
{
	size_t i, j, k, good = 0;
	char first_bad[200] = "";

	for (i = 0; i < kq_nstarts; i++) {
		const struct ptrec_sb_exit_futex *f = NULL;
		size_t seq = 0;
		uint32_t tid = kq_start_tids[i];

		if (kq_start_parent[i] != kq_pid || kq_start_pid[i] != kq_pid)
			continue;
		for (j = 0; j < kq_nxfs; j++)
			if (kq_xfs[j].tid == tid) {
				f = &kq_xfs[j];
				seq = kq_xf_seq[j];
			}
		for (k = 0; k < kq_ntexits; k++)
			if (kq_texit_tid[k] == tid)
				break;
		if (f && k < kq_ntexits && seq < kq_texit_seq[k] &&
		    f->known == PTREC_SB_FUTEX_ALL && f->clear_child_tid &&
		    f->ctid_val == tid && f->robust_list &&
		    f->robust_len == PTREC_SB_ROBUST_HEAD_LEN &&
		    f->robust_next == f->robust_list && !f->list_op_pending)
			good++;
		else if (!first_bad[0])
			snprintf(first_bad, sizeof(first_bad),
				 "thread %u: %s, known %#x ctid %#" PRIx64
				 " value %u robust %#" PRIx64 " next %#"
				 PRIx64, tid, f ? "EXIT_FUTEX" :
				 "no EXIT_FUTEX", f ? f->known : 0,
				 f ? (uint64_t)f->clear_child_tid : 0,
				 f ? f->ctid_val : 0,
				 f ? (uint64_t)f->robust_list : 0,
				 f ? (uint64_t)f->robust_next : 0);
	}
	kq_result(tids > 0 && good == tids, "EXIT_FUTEX: each of the %zu "
		  "worker threads, before its THREAD_EXIT: its "
		  "clear_child_tid word holds its tid, an empty robust list "
		  "(%zu do)", tids, good);
	if (first_bad[0])
		kq_diag("%s", first_bad);
}

/*
 * Ring mode: when the reader falls behind, data is dropped (overwritten in
 * the buffer, WRAP, or not queued, READER), every drop is recorded, tracing
 * never stops and the stream goes on after the loss.
 */
void kq_check_ring(const char *dir)
{
	size_t j, n = 0, other = 0;

	for (j = 0; j < kq_nlost; j++) {
		if (kq_losts[j].reason == PTREC_SB_LOST_WRAP ||
		    kq_losts[j].reason == PTREC_SB_LOST_READER ||
		    kq_losts[j].reason == PTREC_SB_LOST_UNTRACED)
			n++;
		else if (kq_losts[j].reason != PTREC_SB_LOST_SIDEBAND)
			other++;
	}
	kq_result(n > 0 && !other, "ring mode with a slow reader: %zu LOST "
		  "records of trace, each WRAP, READER or UNTRACED (%zu "
		  "others)", n, other);
	kq_result(kq_stat(dir, "stopped") == 0,
		  "ring mode never stops tracing");
	kq_result(kq_ptw_after_loss > 0, "ring mode: the streams go on after "
		  "the loss (%" PRIu64 " PTW packets after one)",
		  kq_ptw_after_loss);
}

/*
 * guest/kqexit's children: two threads each that exit at once on two
 * CPUs.  Every child has exactly one PROCESS_EXIT, status 0, after both of
 * its THREAD_EXIT records.
 */
void kq_check_exits(const char *log)
{
	size_t children = 0, good = 0, i, nexit, nthr, last_thr, ex_seq;
	unsigned int pid;
	char line[256], first_bad[200] = "";
	FILE *f = fopen(log, "r");

	if (!f) {
		kq_result(0, "the workload wrote its log %s", log);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "child %u", &pid) != 1)
			continue;
		children++;
		nexit = nthr = last_thr = ex_seq = 0;
		for (i = 0; i < kq_nexits; i++) {
			if (kq_exit_pid[i] != pid)
				continue;
			nexit++;
			ex_seq = kq_exit_seq[i];
			if (kq_exit_kinds[i] != PTREC_SB_EXITED ||
			    kq_exit_statuses[i])
				nexit += 100;
		}
		for (i = 0; i < kq_ntexits; i++) {
			if (kq_texit_pid[i] != pid)
				continue;
			nthr++;
			if (kq_texit_seq[i] > last_thr)
				last_thr = kq_texit_seq[i];
		}
		if (nexit == 1 && nthr == 2 && ex_seq > last_thr)
			good++;
		else if (!first_bad[0])
			snprintf(first_bad, sizeof(first_bad), "pid %u: %zu "
				 "PROCESS_EXIT (+100 per wrong status), %zu "
				 "THREAD_EXIT, PROCESS_EXIT %s the last",
				 pid, nexit, nthr, ex_seq > last_thr ?
				 "after" : "before");
	}
	fclose(f);
	kq_result(children > 0 && good == children, "each of %zu processes "
		  "whose two threads exit at once has one PROCESS_EXIT "
		  "(status 0), after both THREAD_EXIT records (%zu do)",
		  children, good);
	if (first_bad[0])
		kq_diag("%s", first_bad);
}

/*
 * A ring-mode reader that read nothing until the process had exited: the
 * queue was full when the threads were freed, so losses were still pending
 * then; each must have its LOST record (the stats check compares the
 * bytes), and dropped sideband is reported too.
 */
void kq_check_lag(const char *dir)
{
	size_t j, trace = 0, sb = 0;

	for (j = 0; j < kq_nlost; j++) {
		if (kq_losts[j].reason == PTREC_SB_LOST_WRAP ||
		    kq_losts[j].reason == PTREC_SB_LOST_READER)
			trace++;
		else if (kq_losts[j].reason == PTREC_SB_LOST_SIDEBAND)
			sb++;
	}
	kq_result(trace > 0 && kq_stat(dir, "lost_bytes") > 0,
		  "a reader that waits for the end loses trace and is told so "
		  "(%zu LOST records of trace)", trace);
	kq_result(sb > 0 && kq_stat(dir, "lost_records") > 0,
		  "dropped sideband records are reported (%zu LOST records "
		  "of sideband, %" PRIu64 " records dropped)", sb,
		  kq_stat(dir, "lost_records"));
}

/*
 * Stop-on-full: a FULL record says where a thread's tracing stopped, the
 * stats say it stopped, and no data of that thread lies beyond that point.
 */
void kq_check_stop(const char *dir)
{
	size_t j, i, n = 0, beyond = 0;

	for (j = 0; j < kq_nlost; j++) {
		if (kq_losts[j].reason != PTREC_SB_LOST_FULL)
			continue;
		n++;
		for (i = 0; i < kq_nmsgs; i++)
			if (kq_msgs[i].tid == kq_losts[j].tid &&
			    kq_msgs[i].offset + kq_msgs[i].len >
			    kq_losts[j].offset)
				beyond++;
	}
	kq_result(n > 0, "stop-on-full with a slow reader: %zu LOST records "
		  "say FULL", n);
	if (!kq_man)	/* a bundle has no stats file */
		kq_result(kq_stat(dir, "stopped") == 1,
			  "stats say stop-on-full stopped tracing");
	kq_result(n > 0 && !beyond, "stop-on-full: no thread has data past "
		  "the point its FULL record names (%zu messages do)", beyond);
}

/* ---- REGS start records against what the workload saw ----------------- */

static const struct ptrec_sb_regs *kq_start_of(uint32_t tid, size_t *n)
{
	const struct ptrec_sb_regs *g = NULL;
	size_t i;

	*n = 0;
	for (i = 0; i < kq_nsregs; i++)
		if (kq_sregs[i].tid == tid) {
			g = g ? g : &kq_sregs[i];
			(*n)++;
		}
	return g;
}

/* @ip lies in an executable mapping of process @pid */
static int kq_in_text(uint32_t pid, uint64_t ip)
{
	size_t i;

	for (i = 0; i < kq_nmmaps; i++)
		if (kq_mmaps[i].pid == pid && (kq_mmaps[i].prot & 4) &&
		    ip - kq_mmaps[i].start < kq_mmaps[i].len)
			return 1;
	return 0;
}

/*
 * Whether a thread without a start record may lack one: it lost trace
 * (ptrec.ko then writes none), or sideband records were dropped.
 */
static int kq_start_excused(uint32_t tid)
{
	size_t i;

	for (i = 0; i < kq_nlost; i++)
		if (kq_losts[i].tid == tid ||
		    kq_losts[i].reason == PTREC_SB_LOST_SIDEBAND)
			return 1;
	return 0;
}

/*
 * ptrec.ko's REGS start records (kmod/ptrec_regs.c), against kqwork's
 * own view: each names a thread's user registers before the first
 * instruction its trace shows.  The simulated unit writes no instruction
 * trace, so the checks use what the program knows: the main thread,
 * launched at its exec (a bundle of ptrec record), starts at the ELF
 * entry (AT_ENTRY) with rsp at argc (argv - 8), every other
 * general-purpose register and fs_base 0 (Linux 6.1 elf_common_init(),
 * execve's result), rflags IF only (start_thread_common(); 0x202, as bit
 * 1 always reads 1), cs 0x33, ss 0x2b; each worker, a clone3 child, at an
 * instruction of kqwork's text with rax 0 (clone3's result in the child)
 * and rsp inside the stack pthread_getattr_np() reports.  A thread that
 * lost trace may have none; one that did not must have one, also in
 * ptrec record's bundles, where ptrec ptrace-attaches each new thread
 * at birth (its first return starts with a stop in get_signal(): the
 * record is taken there and kept across its owner's stop).
 */
void kq_check_start_regs(const char *log)
{
	char line[256], bad[512] = "";
	unsigned long long entry = 0, sp0 = 0, lo, hi;
	const struct ptrec_sb_regs *g;
	unsigned int tid, r;
	size_t n, workers = 0, good = 0, missing = 0, dup = 0, excused = 0;
	FILE *f = fopen(log, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "start %llx %llx", &entry, &sp0) == 2)
			continue;
		if (sscanf(line, "stack %u %llx %llx", &tid, &lo, &hi) != 3)
			continue;
		workers++;
		g = kq_start_of(tid, &n);
		dup += n > 1;
		if (!g) {
			excused += kq_start_excused(tid);
			if (!kq_start_excused(tid)) {
				missing++;
				if (!bad[0])
					snprintf(bad, sizeof(bad), "worker %u "
						 "lost nothing and has no "
						 "REGS start record", tid);
			}
			continue;
		}
		if (g->regs[0] == 0 && g->regs[7] >= lo && g->regs[7] <= hi &&
		    kq_in_text(kq_pid, g->regs[16]) && (g->valid & 0xffff) ==
		    0xffff && (g->valid >> 16 & 1)) {
			good++;
		} else if (!bad[0]) {
			snprintf(bad, sizeof(bad), "worker %u: rax 0x%llx rsp "
				 "0x%llx (stack 0x%llx-0x%llx) rip 0x%llx "
				 "valid 0x%llx", tid,
				 (unsigned long long)g->regs[0],
				 (unsigned long long)g->regs[7], lo, hi,
				 (unsigned long long)g->regs[16],
				 (unsigned long long)g->valid);
		}
	}
	fclose(f);
	kq_result(workers == 4 && !missing && !dup && !bad[0],
		  "each worker that lost no trace has one REGS start record%s:"
		  " rax 0, rsp in its stack, rip in kqwork's text (%zu "
		  "workers, %zu match, %zu missing, %zu twice, %zu without "
		  "one lost trace or sideband)", kq_bundle_run ?
		  " (ptrace-attached at birth by ptrec)" : "", workers, good,
		  missing, dup, excused);
	if (bad[0])
		kq_diag("%s", bad);
	if (!kq_main_at_exec)
		return;
	g = kq_start_of(kq_pid, &n);
	if (!g && kq_start_excused(kq_pid)) {
		kq_result(1, "main thread: lost trace, no REGS start record "
			  "needed");
		return;
	}
	bad[0] = 0;
	for (r = 0; g && r < 16; r++)
		if (r != 7 && g->regs[r] && !bad[0])
			snprintf(bad, sizeof(bad), "register %u is 0x%llx",
				 r, (unsigned long long)g->regs[r]);
	kq_result(g && n == 1 && entry && g->regs[16] == entry &&
		  g->regs[7] == sp0 && g->regs[17] == 0x202 &&
		  g->regs[18] == 0x33 && g->regs[19] == 0x2b &&
		  (g->valid >> 24 & 1) && !g->regs[24] && !bad[0],
		  "the main thread's REGS start record is kqwork's entry "
		  "state: rip 0x%llx = AT_ENTRY 0x%llx, rsp 0x%llx = argv - 8 "
		  "0x%llx, rflags 0x%llx, cs 0x%llx ss 0x%llx, other "
		  "registers 0%s%s (%zu records)",
		  g ? (unsigned long long)g->regs[16] : 0, entry,
		  g ? (unsigned long long)g->regs[7] : 0, sp0,
		  g ? (unsigned long long)g->regs[17] : 0,
		  g ? (unsigned long long)g->regs[18] : 0,
		  g ? (unsigned long long)g->regs[19] : 0,
		  bad[0] ? ": " : "", bad, n);
}
