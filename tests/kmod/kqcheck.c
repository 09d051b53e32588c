// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqcheck: host-side checks of what guest/kqtrace left from one traced run
 * of the simulated PT unit.  Prints TAP lines without numbers.
 *
 * kqcheck NAME DIR [--worklog LOG] [--no-loss] [--ring] [--stop]
 *         [--detached] [--attached] [--fork] [--lag] [--exits LOG]
 * kqcheck NAME BUNDLE --bundle [--worklog LOG]
 *
 * - the sideband is a valid sideband stream (sideband/ reader: format,
 *   time order);
 * - per thread, trace message offsets are contiguous except where
 *   PTREC_SB_LOST records of that thread account for every skipped byte;
 *   stats agree with the messages and the LOST records;
 * - every thread's stream decodes with libipt's packet decoder; its PTW
 *   payloads all carry its own tid (tid << 32 | sequence) with consecutive
 *   sequence numbers inside every stretch without loss;
 * - SWITCH_IN/SWITCH_OUT alternate per thread on one CPU, never two traced
 *   threads in on one CPU, and every TSC packet of a thread falls inside
 *   one of its switch-in..switch-out intervals;
 * - with --worklog (guest/kqwork's log): the threads it names have
 *   streams, its mmaps and munmap have matching MMAP/MUNMAP records, and
 *   some thread ran on both CPUs.
 *
 * With --bundle, DIR is a bundle `ptrec record --backend=kmod` wrote: the
 * manifest loads and says backend "kmod", the sideband and every thread's
 * pt/<tid>.pt are checked as above (a stream is split into stretches at
 * its LOST records, whose offsets are byte offsets of the file), every
 * executable file mapping has an image key that the image store holds,
 * and the program's path comes from the manifest (the recorder attaches
 * after the exec, so there is no EXEC record of it).  There is no index
 * or stats file, so the offset and stats checks do not apply.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include "sideband.h"
#include "kqcheck.h"

const char *kq_name;
int kq_fails;
struct kq_msg *kq_msgs;
size_t kq_nmsgs;
struct kq_lost kq_losts[KQ_MAX_LOST];
size_t kq_nlost;
struct kq_sw *kq_sws;
size_t kq_nsws;
struct kq_thread kq_threads[KQ_MAX_THREADS];
size_t kq_nthreads;
uint32_t kq_pid;
uint64_t kq_ptw_after_loss;
char kq_exec_path[256];
/* PROCESS_EXIT records of the workload's pid (of any pid without a log) */
int kq_exit_seen, kq_exit_kind, kq_exit_status;
uint32_t kq_exit_pid[KQ_MAX_THREADS];
int kq_exit_kinds[KQ_MAX_THREADS], kq_exit_statuses[KQ_MAX_THREADS];
size_t kq_exit_seq[KQ_MAX_THREADS];
size_t kq_nexits;
/*
 * --detached, --attached: the process was attached while it ran
 * (PTREC_IOC_ATTACH), and (--detached) detached before its end
 */
int kq_attached;
/* THREAD_EXIT records: pid and position in the sideband */
uint32_t kq_texit_pid[KQ_MAX_THREADS], kq_texit_tid[KQ_MAX_THREADS];
size_t kq_texit_seq[KQ_MAX_THREADS];
/* EXIT_FUTEX records (the exit_mm_release kprobe) and their positions */
struct ptrec_sb_exit_futex kq_xfs[KQ_MAX_THREADS];
size_t kq_xf_seq[KQ_MAX_THREADS];
size_t kq_nxfs;
size_t kq_ntexits;
uint32_t kq_start_tids[KQ_MAX_THREADS], kq_start_parent[KQ_MAX_THREADS];
uint32_t kq_start_pid[KQ_MAX_THREADS];
size_t kq_nstarts;
struct ptrec_sb_regs kq_sregs[KQ_MAX_THREADS];
size_t kq_nsregs;
int kq_main_at_exec, kq_kernel_traced, kq_bundle_run;

struct kq_mmap_rec kq_mmaps[4096];
size_t kq_nmmaps;
struct kq_range kq_munmaps[4096];
size_t kq_nmunmaps;
size_t kq_type_count[PTREC_SB_TYPE_COUNT + 1];
/* CR3 records: the user and the kernel CR3 (0 if version 1) */
struct kq_cr3 kq_cr3s[256];
size_t kq_ncr3s;
/* --bundle: the bundle's manifest */
struct sb_manifest *kq_man;

void __attribute__((format(printf, 2, 3)))
kq_result(int good, const char *fmt, ...)
{
	va_list ap;

	printf("%s - %s: ", good ? "ok" : "not ok", kq_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!good)
		kq_fails++;
}

void __attribute__((format(printf, 1, 2))) kq_diag(const char *fmt, ...)
{
	va_list ap;

	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

struct kq_thread *kq_thread(uint32_t tid)
{
	size_t i;

	for (i = 0; i < kq_nthreads; i++)
		if (kq_threads[i].tid == tid)
			return &kq_threads[i];
	if (kq_nthreads == KQ_MAX_THREADS) {
		fprintf(stderr, "kqcheck: too many threads\n");
		exit(2);
	}
	kq_threads[kq_nthreads].tid = tid;
	return &kq_threads[kq_nthreads++];
}

void *kq_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				exit(2);
		}
		got = fread(buf + n, 1, cap - n, f);
		if (!got)
			break;
		n += got;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* ---- sideband ----------------------------------------------------------- */

static int kq_load_sideband(const char *dir)
{
	const struct ptrec_sb_header *h;
	struct sb_reader *r;
	struct sb_err err = { "" };
	char path[4096];
	size_t n = 0;
	int rc;

	if (kq_man)
		snprintf(path, sizeof(path), "%s/%s", dir, kq_man->sideband);
	else
		snprintf(path, sizeof(path), "%s/sideband", dir);
	rc = sb_reader_open(&r, path, &err);
	if (rc) {
		kq_result(0, "the sideband is a valid stream");
		kq_diag("%s", err.msg);
		return -1;
	}
	while ((rc = sb_reader_next(r, &h, &err)) == 1) {
		n++;
		kq_type_count[h->type < PTREC_SB_TYPE_COUNT ? h->type :
			      PTREC_SB_TYPE_COUNT]++;
		switch (h->type) {
		case PTREC_SB_CR3: {
			const struct ptrec_sb_cr3 *c = (const void *)h;

			if (kq_ncr3s < sizeof(kq_cr3s) / sizeof(kq_cr3s[0])) {
				kq_cr3s[kq_ncr3s].user = c->cr3;
				kq_cr3s[kq_ncr3s].kernel = c->kernel_cr3;
				kq_ncr3s++;
			}
			break;
		}
		case PTREC_SB_LOST: {
			const struct ptrec_sb_lost *l = (const void *)h;

			if (kq_nlost < KQ_MAX_LOST) {
				kq_losts[kq_nlost].tid = l->tid;
				kq_losts[kq_nlost].reason = l->reason;
				kq_losts[kq_nlost].bytes = l->bytes;
				kq_losts[kq_nlost].offset = l->offset;
				kq_nlost++;
			}
			break;
		}
		case PTREC_SB_SWITCH_IN:
		case PTREC_SB_SWITCH_OUT: {
			const struct ptrec_sb_switch *s = (const void *)h;

			if (kq_nsws < KQ_MAX_SW) {
				kq_sws[kq_nsws].tid = s->tid;
				kq_sws[kq_nsws].cpu = s->cpu;
				kq_sws[kq_nsws].type = h->type;
				kq_sws[kq_nsws].time = h->time;
				kq_nsws++;
			}
			break;
		}
		case PTREC_SB_THREAD_EXIT: {
			/*
			 * An exiting thread's last switch is not recorded:
			 * THREAD_EXIT, written while it still runs, closes its
			 * interval.
			 */
			const struct ptrec_sb_thread_exit *x = (const void *)h;

			if (kq_ntexits < KQ_MAX_THREADS) {
				kq_texit_tid[kq_ntexits] = x->tid;
				kq_texit_pid[kq_ntexits] = x->pid;
				kq_texit_seq[kq_ntexits++] = n;
			}
			if (kq_nsws < KQ_MAX_SW) {
				kq_sws[kq_nsws].tid = x->tid;
				kq_sws[kq_nsws].cpu = UINT32_MAX;
				kq_sws[kq_nsws].type = h->type;
				kq_sws[kq_nsws].time = h->time;
				kq_nsws++;
			}
			break;
		}
		case PTREC_SB_MMAP: {
			const struct ptrec_sb_mmap *m = (const void *)h;
			struct kq_mmap_rec *k = &kq_mmaps[kq_nmmaps];
			size_t pl = m->path_len < sizeof(k->path) - 1 ?
				    m->path_len : sizeof(k->path) - 1;

			if (kq_nmmaps == sizeof(kq_mmaps) / sizeof(*k))
				break;
			k->pid = m->pid;
			k->start = m->start;
			k->len = m->len;
			k->pgoff = m->pgoff;
			k->prot = m->prot;
			k->mflags = m->mflags;
			memcpy(k->path, sb_mmap_path(m), pl);
			k->path[pl] = 0;
			pl = m->key_len < sizeof(k->key) - 1 ? m->key_len :
			     sizeof(k->key) - 1;
			memcpy(k->key, sb_mmap_key(m), pl);
			k->key[pl] = 0;
			kq_nmmaps++;
			break;
		}
		case PTREC_SB_EXEC: {
			const struct ptrec_sb_exec *x = (const void *)h;
			size_t pl = x->path_len < sizeof(kq_exec_path) - 1 ?
				    x->path_len : sizeof(kq_exec_path) - 1;

			memcpy(kq_exec_path, sb_exec_path(x), pl);
			kq_exec_path[pl] = 0;
			break;
		}
		case PTREC_SB_PROCESS_EXIT: {
			const struct ptrec_sb_process_exit *x =
				(const void *)h;

			if (kq_nexits < KQ_MAX_THREADS) {
				kq_exit_seq[kq_nexits] = n;
				kq_exit_pid[kq_nexits] = x->pid;
				kq_exit_kinds[kq_nexits] = (int)x->kind;
				kq_exit_statuses[kq_nexits++] = x->status;
			}
			break;
		}
		case PTREC_SB_THREAD_START: {
			const struct ptrec_sb_thread_start *x =
				(const void *)h;

			if (kq_nstarts < KQ_MAX_THREADS) {
				kq_start_tids[kq_nstarts] = x->tid;
				kq_start_pid[kq_nstarts] = x->pid;
				kq_start_parent[kq_nstarts++] = x->parent_pid;
			}
			break;
		}
		case PTREC_SB_REGS:
			if (((const struct ptrec_sb_regs *)h)->where ==
			    PTREC_SB_REGS_START && kq_nsregs < KQ_MAX_THREADS)
				memcpy(&kq_sregs[kq_nsregs++], h,
				       sizeof(kq_sregs[0]));
			break;
		case PTREC_SB_EXIT_FUTEX:
			if (kq_nxfs < KQ_MAX_THREADS) {
				memcpy(&kq_xfs[kq_nxfs], h, sizeof(kq_xfs[0]));
				kq_xf_seq[kq_nxfs++] = n;
			}
			break;
		case PTREC_SB_MUNMAP: {
			const struct ptrec_sb_munmap *m = (const void *)h;

			if (kq_nmunmaps < sizeof(kq_munmaps) /
			    sizeof(*kq_munmaps)) {
				kq_munmaps[kq_nmunmaps].start = m->start;
				kq_munmaps[kq_nmunmaps].len = m->len;
				kq_nmunmaps++;
			}
			break;
		}
		default:
			break;
		}
	}
	sb_reader_close(r);
	if (rc < 0) {
		kq_result(0, "the sideband is a valid stream");
		kq_diag("%s", err.msg);
		return -1;
	}
	kq_result(1, "the sideband is a valid stream (%zu records: %zu "
		  "SWITCH_IN, %zu SWITCH_OUT, %zu MMAP, %zu THREAD_START, %zu "
		  "LOST)", n, kq_type_count[PTREC_SB_SWITCH_IN],
		  kq_type_count[PTREC_SB_SWITCH_OUT],
		  kq_type_count[PTREC_SB_MMAP],
		  kq_type_count[PTREC_SB_THREAD_START],
		  kq_type_count[PTREC_SB_LOST]);
	return 0;
}

/* ---- trace messages and losses ----------------------------------------- */

static int kq_load_index(const char *dir)
{
	char path[4096];
	unsigned long long off, fileoff, time;
	unsigned int tid, len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/index", dir);
	f = fopen(path, "r");
	if (!f) {
		kq_result(0, "the tracer wrote its index");
		return -1;
	}
	while (fscanf(f, "%u %llu %u %llu %llu", &tid, &off, &len, &fileoff,
		      &time) == 5) {
		if (kq_nmsgs == KQ_MAX_MSGS)
			break;
		kq_msgs[kq_nmsgs].tid = tid;
		kq_msgs[kq_nmsgs].offset = off;
		kq_msgs[kq_nmsgs].len = len;
		kq_msgs[kq_nmsgs].fileoff = fileoff;
		kq_nmsgs++;
		kq_thread(tid);
	}
	fclose(f);
	return 0;
}

uint64_t kq_stat(const char *dir, const char *key)
{
	char path[4096], k[64];
	unsigned long long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stats", dir);
	f = fopen(path, "r");
	if (!f)
		return UINT64_MAX;
	while (fscanf(f, "%63s %llu", k, &v) == 2) {
		if (!strcmp(k, key)) {
			fclose(f);
			return v;
		}
	}
	fclose(f);
	return UINT64_MAX;
}

/*
 * Every jump in a thread's message offsets is covered by LOST records of
 * that thread at the jump's start whose bytes add up to the jump.
 */
static void kq_check_offsets(const char *dir)
{
	uint64_t trace_bytes = 0, lost_bytes = 0, unexplained = 0;
	size_t t, i, j, jumps = 0;
	char first_bad[160] = "";

	for (t = 0; t < kq_nthreads; t++) {
		uint32_t tid = kq_threads[t].tid;
		uint64_t next = 0;

		for (i = 0; i < kq_nmsgs; i++) {
			uint64_t covered = 0;

			if (kq_msgs[i].tid != tid)
				continue;
			trace_bytes += kq_msgs[i].len;
			if (kq_msgs[i].offset == next) {
				next += kq_msgs[i].len;
				continue;
			}
			jumps++;
			for (j = 0; j < kq_nlost; j++) {
				if (kq_losts[j].tid != tid ||
				    kq_losts[j].used ||
				    kq_losts[j].offset < next ||
				    kq_losts[j].offset >= kq_msgs[i].offset ||
				    kq_losts[j].reason ==
				    PTREC_SB_LOST_SIDEBAND)
					continue;
				covered += kq_losts[j].bytes;
				kq_losts[j].used = 1;
			}
			if (kq_msgs[i].offset < next ||
			    covered != kq_msgs[i].offset - next) {
				unexplained++;
				if (!first_bad[0])
					snprintf(first_bad, sizeof(first_bad),
						 "tid %u: offset %" PRIu64
						 " after %" PRIu64 ", LOST "
						 "records cover %" PRIu64,
						 tid, kq_msgs[i].offset, next,
						 covered);
			}
			next = kq_msgs[i].offset + kq_msgs[i].len;
		}
	}
	for (j = 0; j < kq_nlost; j++)
		if (kq_losts[j].reason != PTREC_SB_LOST_SIDEBAND)
			lost_bytes += kq_losts[j].bytes;
	/*
	 * #20: waiting losses never merge.  A hole of unknown size (UNTRACED,
	 * FULL) has 0 bytes; before the fix, more than eight waiting losses
	 * of a thread, or those left at its release, were folded into one
	 * UNTRACED record carrying the others' bytes at the first's place.
	 */
	for (i = j = 0; j < kq_nlost; j++)
		if ((kq_losts[j].reason == PTREC_SB_LOST_UNTRACED ||
		     kq_losts[j].reason == PTREC_SB_LOST_FULL) &&
		    kq_losts[j].bytes && !i++)
			snprintf(first_bad, sizeof(first_bad),
				 "tid %u: reason %u, %" PRIu64 " bytes at %"
				 PRIu64, kq_losts[j].tid, kq_losts[j].reason,
				 kq_losts[j].bytes, kq_losts[j].offset);
	kq_result(!i, "no LOST record merges losses: every hole of unknown "
		  "size (UNTRACED, FULL) has 0 bytes (%zu of %zu records do "
		  "not)", i, kq_nlost);
	if (i)
		kq_diag("%s", first_bad);
	first_bad[0] = '\0';
	kq_result(!unexplained, "every jump in a thread's stream offsets is "
		  "accounted for by LOST records (%zu jumps)", jumps);
	if (unexplained)
		kq_diag("%s", first_bad);
	kq_result(kq_stat(dir, "trace_bytes") == trace_bytes &&
		  kq_stat(dir, "lost_bytes") == lost_bytes,
		  "stats count the bytes delivered (%" PRIu64 ") and lost (%"
		  PRIu64 ") as the messages and LOST records do",
		  trace_bytes, lost_bytes);
	if (kq_stat(dir, "trace_bytes") != trace_bytes ||
	    kq_stat(dir, "lost_bytes") != lost_bytes)
		kq_diag("stats: trace_bytes %" PRIu64 ", lost_bytes %" PRIu64,
			kq_stat(dir, "trace_bytes"),
			kq_stat(dir, "lost_bytes"));
}

/* ---- --bundle: what ptrec record --backend=kmod wrote --------------------- */

static int kq_cmp_lost(const void *a, const void *b)
{
	const struct kq_lost *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int kq_load_bundle(const char *dir)
{
	struct sb_err err = { "" };
	int rc;

	rc = sb_manifest_load(&kq_man, dir, &err);
	kq_result(!rc && !strcmp(kq_man->backend, "kmod"),
		  "the bundle's manifest loads and names backend kmod (%s)",
		  rc ? "no manifest" : kq_man->backend);
	if (rc) {
		kq_diag("%s", err.msg);
		return -1;
	}
	return 0;
}

/*
 * A bundle has no message index: each thread's stream is one run of
 * messages per stretch between its LOST records.  Also checks that LOST
 * offsets lie inside the thread's file and that every executable mapping
 * of a file has an image in the store.
 */
static void kq_bundle_msgs(const char *dir)
{
	size_t i, j, bad_off = 0, exec_maps = 0, keyed = 0;
	char first_bad[300] = "";

	qsort(kq_losts, kq_nlost, sizeof(*kq_losts), kq_cmp_lost);
	for (i = 0; i < kq_man->nthreads; i++) {
		const struct sb_thread *mt = &kq_man->threads[i];
		uint64_t size = 0, pos = 0, lost = 0;
		char path[4096];
		FILE *f;

		kq_thread(mt->tid);
		snprintf(path, sizeof(path), "%s/%s", dir, mt->pt);
		f = fopen(path, "rb");
		if (f) {
			fseek(f, 0, SEEK_END);
			size = (uint64_t)ftell(f);
			fclose(f);
		}
		for (j = 0; j <= kq_nlost && kq_nmsgs < KQ_MAX_MSGS; j++) {
			uint64_t end = size;

			if (j < kq_nlost) {
				if (kq_losts[j].tid != mt->tid ||
				    kq_losts[j].reason ==
				    PTREC_SB_LOST_SIDEBAND)
					continue;
				if (kq_losts[j].offset > size) {
					bad_off++;
					continue;
				}
				end = kq_losts[j].offset;
			}
			if (end > pos) {
				kq_msgs[kq_nmsgs].tid = mt->tid;
				kq_msgs[kq_nmsgs].offset = pos + lost;
				kq_msgs[kq_nmsgs].len = (uint32_t)(end - pos);
				kq_msgs[kq_nmsgs].fileoff = pos;
				kq_nmsgs++;
				pos = end;
			}
			if (j < kq_nlost)
				lost += kq_losts[j].bytes + 1;
		}
	}
	kq_result(!bad_off, "every LOST record's offset lies inside its "
		  "thread's stream file (%zu records)", kq_nlost);
	for (i = 0; i < kq_nmmaps; i++) {
		if (!(kq_mmaps[i].prot & 4) || kq_mmaps[i].path[0] != '/')
			continue;
		exec_maps++;
		if (kq_mmaps[i].key[0] &&
		    sb_manifest_image(kq_man, kq_mmaps[i].key))
			keyed++;
		else if (!first_bad[0])
			snprintf(first_bad, sizeof(first_bad),
				 "%s at 0x%" PRIx64 ": key '%s'",
				 kq_mmaps[i].path, kq_mmaps[i].start,
				 kq_mmaps[i].key);
	}
	kq_result(exec_maps > 0 && keyed == exec_maps, "every executable "
		  "mapping of a file has its image in the store (%zu of %zu)",
		  keyed, exec_maps);
	if (first_bad[0])
		kq_diag("%s", first_bad);
	for (i = 0; i < kq_man->nprocs; i++)
		if (kq_man->procs[i].exe && !kq_exec_path[0])
			snprintf(kq_exec_path, sizeof(kq_exec_path), "%s",
				 kq_man->procs[i].exe);
}

int main(int argc, char **argv)
{
	const char *dir, *worklog = NULL;
	int no_loss = 0, ring = 0, stop = 0, detached = 0, fork = 0, i;
	int bundle = 0, lag = 0, pip = 0, cr3filter = 0;
	const char *exits = NULL;

	if (argc < 3) {
		fprintf(stderr, "usage: kqcheck NAME DIR [--worklog LOG] "
			"[--no-loss] [--ring] [--stop] [--detached] "
			"[--attached] [--fork] [--bundle] [--lag] "
			"[--exits LOG] [--pip] [--cr3filter]\n");
		return 2;
	}
	kq_name = argv[1];
	dir = argv[2];
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--worklog") && i + 1 < argc) {
			worklog = argv[++i];
		} else if (!strcmp(argv[i], "--no-loss")) {
			no_loss = 1;
		} else if (!strcmp(argv[i], "--fork")) {
			fork = 1;
		} else if (!strcmp(argv[i], "--detached")) {
			detached = 1;
			kq_attached = 1;
		} else if (!strcmp(argv[i], "--attached")) {
			kq_attached = 1;
		} else if (!strcmp(argv[i], "--ring")) {
			ring = 1;
		} else if (!strcmp(argv[i], "--stop")) {
			stop = 1;
		} else if (!strcmp(argv[i], "--bundle")) {
			bundle = 1;
		} else if (!strcmp(argv[i], "--lag")) {
			lag = 1;
		} else if (!strcmp(argv[i], "--pip")) {
			pip = 1;
		} else if (!strcmp(argv[i], "--cr3filter")) {
			cr3filter = 1;
		} else if (!strcmp(argv[i], "--exits") && i + 1 < argc) {
			exits = argv[++i];
		} else {
			fprintf(stderr, "kqcheck: unknown option %s\n",
				argv[i]);
			return 2;
		}
	}
	kq_msgs = calloc(KQ_MAX_MSGS, sizeof(*kq_msgs));
	kq_sws = calloc(KQ_MAX_SW, sizeof(*kq_sws));
	if (!kq_msgs || !kq_sws)
		return 2;
	if (bundle) {
		if (kq_load_bundle(dir) || kq_load_sideband(dir))
			return 1;
		kq_bundle_msgs(dir);
	} else {
		if (kq_load_sideband(dir) || kq_load_index(dir))
			return 1;
		kq_check_offsets(dir);
	}
	kq_check_streams(dir);
	kq_check_switches();
	kq_main_at_exec = bundle && !fork;
	kq_bundle_run = bundle;
	kq_kernel_traced = pip;
	if (worklog) {
		kq_check_worklog(worklog);
		kq_check_start_regs(worklog);
	}
	if (no_loss)
		kq_result(!kq_nlost && kq_stat(dir, "lost_bytes") == 0,
			  "a reader that keeps up loses nothing (%zu LOST "
			  "records)", kq_nlost);
	if (fork)
		kq_check_fork();
	if (detached) {
		kq_count_exits(0);
		kq_result(kq_exit_seen == 1 &&
			  kq_exit_kind == PTREC_SB_DETACHED,
			  "DETACH ends the stream with one PROCESS_EXIT of "
			  "kind DETACHED (%d records, kind %d)",
			  kq_exit_seen, kq_exit_kind);
	}
	if (ring)
		kq_check_ring(dir);
	if (stop)
		kq_check_stop(dir);
	if (lag)
		kq_check_lag(dir);
	if (exits)
		kq_check_exits(exits);
	if (pip || cr3filter)
		kq_check_cr3(pip, cr3filter);
	if (kq_kernel_traced)	/* the trace starts in the kernel */
		kq_result(!kq_nsregs, "kernel tracing: no REGS start record "
			  "(%zu)", kq_nsregs);
	return kq_fails ? 1 : 0;
}
