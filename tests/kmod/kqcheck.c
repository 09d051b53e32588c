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

static const char *kq_name;
static int kq_fails;
static struct kq_msg *kq_msgs;
static size_t kq_nmsgs;
static struct kq_lost kq_losts[KQ_MAX_LOST];
static size_t kq_nlost;
static struct kq_sw *kq_sws;
static size_t kq_nsws;
static struct kq_thread kq_threads[KQ_MAX_THREADS];
static size_t kq_nthreads;
static uint32_t kq_pid;
static uint64_t kq_ptw_after_loss;
static char kq_exec_path[256];
/* PROCESS_EXIT records of the workload's pid (of any pid without a log) */
static int kq_exit_seen, kq_exit_kind, kq_exit_status;
static uint32_t kq_exit_pid[KQ_MAX_THREADS];
static int kq_exit_kinds[KQ_MAX_THREADS], kq_exit_statuses[KQ_MAX_THREADS];
static size_t kq_exit_seq[KQ_MAX_THREADS];
static size_t kq_nexits;
/*
 * --detached, --attached: the process was attached while it ran
 * (PTREC_IOC_ATTACH), and (--detached) detached before its end
 */
static int kq_attached;
/* THREAD_EXIT records: pid and position in the sideband */
static uint32_t kq_texit_pid[KQ_MAX_THREADS], kq_texit_tid[KQ_MAX_THREADS];
static size_t kq_texit_seq[KQ_MAX_THREADS];
/* EXIT_FUTEX records (the exit_mm_release kprobe) and their positions */
static struct ptrec_sb_exit_futex kq_xfs[KQ_MAX_THREADS];
static size_t kq_xf_seq[KQ_MAX_THREADS];
static size_t kq_nxfs;
static size_t kq_ntexits;
static uint32_t kq_start_tids[KQ_MAX_THREADS], kq_start_parent[KQ_MAX_THREADS];
static uint32_t kq_start_pid[KQ_MAX_THREADS];
static size_t kq_nstarts;

struct kq_mmap_rec {
	uint32_t pid;
	uint64_t start, len, pgoff;
	uint32_t prot, mflags;
	char path[256];
	char key[SB_IMAGE_KEY_MAX];
};
static struct kq_mmap_rec kq_mmaps[4096];
static size_t kq_nmmaps;
static struct {
	uint64_t start, len;
} kq_munmaps[4096];
static size_t kq_nmunmaps;
static size_t kq_type_count[PTREC_SB_TYPE_COUNT + 1];
/* CR3 records: the user and the kernel CR3 (0 if version 1) */
static struct {
	uint64_t user, kernel;
} kq_cr3s[256];
static size_t kq_ncr3s;
/* --bundle: the bundle's manifest */
static struct sb_manifest *kq_man;

static void __attribute__((format(printf, 2, 3)))
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

static void __attribute__((format(printf, 1, 2))) kq_diag(const char *fmt, ...)
{
	va_list ap;

	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static struct kq_thread *kq_thread(uint32_t tid)
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

static void *kq_read_file(const char *path, size_t *len)
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

static uint64_t kq_stat(const char *dir, const char *key)
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

/* ---- decoding ------------------------------------------------------------ */

/* Is @time inside one of @tid's switch-in..switch-out intervals? */
/* Whether a THREAD_START record names @tid (made after tracing began). */
static int kq_started(uint32_t tid)
{
	size_t i;

	for (i = 0; i < kq_nstarts; i++)
		if (kq_start_tids[i] == tid)
			return 1;
	return 0;
}

static int kq_in_interval(uint32_t tid, uint64_t time)
{
	uint64_t in = 0;
	int open = 0;
	size_t i;

	for (i = 0; i < kq_nsws; i++) {
		if (kq_sws[i].tid != tid)
			continue;
		if (kq_sws[i].type == PTREC_SB_SWITCH_IN) {
			in = kq_sws[i].time;
			open = 1;
		} else if (open) {
			if (time >= in && time <= kq_sws[i].time)
				return 1;
			open = 0;
		}
	}
	return open && time >= in;
}

/*
 * The switch-in interval of @tid holding @time: the index of its
 * SWITCH_IN record in kq_sws, or -1.
 */
static long kq_interval_of(uint32_t tid, uint64_t time)
{
	long in = -1;
	size_t i;

	for (i = 0; i < kq_nsws; i++) {
		if (kq_sws[i].tid != tid)
			continue;
		if (kq_sws[i].type == PTREC_SB_SWITCH_IN) {
			in = (long)i;
		} else if (in >= 0) {
			if (time >= kq_sws[in].time && time <= kq_sws[i].time)
				return in;
			in = -1;
		}
	}
	return in >= 0 && time >= kq_sws[in].time ? in : -1;
}

/* Bytes of a PTW packet with an 8-byte payload (SDM Vol. 3C 33.4.2.21). */
#define KQ_PTW_SIZE	10

struct kq_decode {
	uint64_t expect;	/* next sequence number, if known */
	int known;
	uint64_t bad_tid, bad_seq, errors, stretches;
	char first_bad[200];
	/* the thread's last PTW: sequence, stream offset past its end */
	int have_last;
	int unknown;		/* this stretch follows a loss of unknown size */
	uint64_t last_seq, last_end;
	uint64_t gaps, undercounts;
	char first_under[200];
};

/*
 * Across a loss, the PTW packets the program wrote in between (their
 * sequence numbers are missing) lay in the bytes between the last PTW
 * before and the first after, which are the LOST records' bytes plus what
 * the two stretches hold around them: fewer than KQ_PTW_SIZE per missing
 * packet means the module counted less than it lost.
 */
static void kq_check_gap(struct kq_thread *th, struct kq_decode *d,
			 uint64_t seq, uint64_t at)
{
	uint64_t missing, bytes;

	if (!d->have_last || seq <= d->last_seq || at < d->last_end)
		return;
	/* a LOST record of 0 bytes: the unit did not trace, size unknown */
	if (d->unknown)
		return;
	d->gaps++;
	missing = seq - d->last_seq - 1;
	bytes = at - d->last_end;
	if (bytes >= missing * KQ_PTW_SIZE)
		return;
	d->undercounts++;
	if (!d->first_under[0])
		snprintf(d->first_under, sizeof(d->first_under),
			 "tid %u: %" PRIu64 " PTW packets (%" PRIu64 "..%"
			 PRIu64 ") missing in %" PRIu64 " bytes at stream "
			 "offset %" PRIu64, th->tid, missing,
			 d->last_seq + 1, seq - 1, bytes, d->last_end);
}

/*
 * A PIP packet of @th: PIP payloads carry CR3[51:5], and the PCID bits
 * 11:5 are per CPU and not recorded, so compare CR3[51:12].
 */
static void kq_pip(struct kq_thread *th, uint64_t cr3, int in_psb)
{
	const uint64_t m = 0x000ffffffffff000ULL;
	size_t i;

	if (in_psb) {
		th->pip_psb++;
		return;
	}
	for (i = 0; i < kq_ncr3s; i++) {
		if (!((cr3 ^ kq_cr3s[i].user) & m)) {
			th->pip_user++;
			return;
		}
		if (kq_cr3s[i].kernel && !((cr3 ^ kq_cr3s[i].kernel) & m)) {
			th->pip_kernel++;
			return;
		}
	}
	if (!th->pip_bad++)
		th->first_bad_pip = cr3;
}

/*
 * #20.5 (--pip): a --kernel trace under page-table isolation: the PIP of
 * every CR3 write (the return to user mode, the kernel entry) equals the
 * user or the kernel CR3 the sideband recorded for the process, and both
 * kinds occur.  (--cr3filter): with CR3 filtering on the user CR3 every
 * thread's user code was traced.
 */
static void kq_check_cr3(int pip, int filter)
{
	uint64_t user = 0, kernel = 0, bad = 0, psb = 0, first = 0;
	size_t t, untraced = 0;

	for (t = 0; t < kq_nthreads; t++) {
		struct kq_thread *th = &kq_threads[t];

		user += th->pip_user;
		kernel += th->pip_kernel;
		psb += th->pip_psb;
		if (th->pip_bad && !bad)
			first = th->first_bad_pip;
		bad += th->pip_bad;
		if (!th->ptws)
			untraced++;
	}
	if (pip) {
		kq_result(kq_ncr3s > 0 && user > 0 && kernel > 0 && !bad,
			  "CR3 under PTI: every PIP outside PSB+ equals the "
			  "user or the kernel CR3 of the sideband's %zu CR3 "
			  "records (%" PRIu64 " user, %" PRIu64 " kernel, %"
			  PRIu64 " neither, first 0x%" PRIx64 "; %" PRIu64
			  " in PSB+ not judged)", kq_ncr3s, user, kernel, bad,
			  first, psb);
	}
	if (filter)
		kq_result(kq_nthreads > 0 && !untraced,
			  "CR3 filter under PTI: every thread's user code was "
			  "traced (%zu of %zu threads without a PTW packet)",
			  untraced, kq_nthreads);
}

/*
 * Decodes one stretch of a stream that has no loss inside; @base is the
 * stream offset of its first byte.
 */
static void kq_decode_stretch(struct kq_thread *th, uint8_t *buf,
			      size_t len, uint64_t base, struct kq_decode *d,
			      int after_loss)
{
	struct pt_packet_decoder *dec;
	struct pt_config cfg;
	struct pt_packet pkt;
	int rc, first_ptw = 1, in_psb = 0;

	if (!len)
		return;
	d->stretches++;
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		exit(2);
	rc = pt_pkt_sync_forward(dec);
	if (rc < 0) {
		/* A stretch after a loss may hold no PSB at all. */
		if (!after_loss || rc != -pte_eos) {
			d->errors++;
			if (!d->first_bad[0])
				snprintf(d->first_bad, sizeof(d->first_bad),
					 "tid %u: no PSB in %zu bytes: %s",
					 th->tid, len,
					 pt_errstr(pt_errcode(rc)));
		}
		pt_pkt_free_decoder(dec);
		return;
	}
	if (!after_loss) {
		uint64_t sync = 0;

		/* A stream begins with a PSB. */
		pt_pkt_get_sync_offset(dec, &sync);
		if (sync) {
			d->errors++;
			if (!d->first_bad[0])
				snprintf(d->first_bad, sizeof(d->first_bad),
					 "tid %u: first PSB at byte %" PRIu64,
					 th->tid, sync);
		}
	}
	if (after_loss)
		d->known = 0;
	for (;;) {
		uint64_t off = 0, at = 0;

		pt_pkt_get_offset(dec, &at);
		rc = pt_pkt_next(dec, &pkt, sizeof(pkt));
		/* Also a last packet cut where tracing stopped. */
		if (rc == -pte_eos)
			break;
		if (rc < 0) {
			pt_pkt_get_offset(dec, &off);
			d->errors++;
			if (!d->first_bad[0])
				snprintf(d->first_bad, sizeof(d->first_bad),
					 "tid %u: %s at stream byte %" PRIu64
					 " of %zu", th->tid,
					 pt_errstr(pt_errcode(rc)), off, len);
			break;
		}
		if (pkt.type == ppt_pip)
			kq_pip(th, pkt.payload.pip.cr3, in_psb);
		if (pkt.type == ppt_psb)
			in_psb = 1;
		if (pkt.type == ppt_psbend)
			in_psb = 0;
		if (pkt.type == ppt_tsc) {
			long iv = kq_interval_of(th->tid,
						 pkt.payload.tsc.tsc);

			if (iv >= 0 && iv != th->last_iv) {
				th->last_iv = iv;
				th->ivs++;
				if (!in_psb && !th->ivs_nopsb++)
					th->first_nopsb = pkt.payload.tsc.tsc;
			}
			th->tscs++;
			if (!kq_in_interval(th->tid, pkt.payload.tsc.tsc)) {
				if (!th->tsc_outside)
					th->first_bad_tsc = pkt.payload.tsc.tsc;
				th->tsc_outside++;
			}
		}
		if (pkt.type != ppt_ptw)
			continue;
		th->ptws++;
		if (after_loss)
			kq_ptw_after_loss++;
		if ((pkt.payload.ptw.payload >> 32) != th->tid) {
			d->bad_tid++;
			if (!d->first_bad[0])
				snprintf(d->first_bad, sizeof(d->first_bad),
					 "tid %u: PTW payload 0x%" PRIx64
					 " names tid %" PRIu64, th->tid,
					 pkt.payload.ptw.payload,
					 pkt.payload.ptw.payload >> 32);
			continue;
		}
		/* A thread's first packet without loss before it is its
		 * first: sequence 0.  Not so for a thread of an attached
		 * process that ran before the attach (no THREAD_START): its
		 * trace begins where the attach's IPI or its next switch-in
		 * loaded it, and the simulated program counts PTWRITEs from
		 * the moment the module registered the thread, a tick or
		 * so earlier (a CI run saw 106: the first sequence was
		 * judged as a loss).
		 */
		if (!d->known && !after_loss) {
			d->expect = kq_attached && !kq_started(th->tid) ?
				    (pkt.payload.ptw.payload & 0xffffffff) :
				    0;
			d->known = 1;
		}
		if (d->known &&
		    (pkt.payload.ptw.payload & 0xffffffff) != d->expect) {
			d->bad_seq++;
			if (!d->first_bad[0])
				snprintf(d->first_bad, sizeof(d->first_bad),
					 "tid %u: sequence %" PRIu64
					 " where %" PRIu64 " was next",
					 th->tid,
					 pkt.payload.ptw.payload & 0xffffffff,
					 d->expect);
		}
		if (after_loss && first_ptw)
			kq_check_gap(th, d, pkt.payload.ptw.payload &
				     0xffffffff, base + at);
		first_ptw = 0;
		d->have_last = 1;
		d->last_seq = pkt.payload.ptw.payload & 0xffffffff;
		d->last_end = base + at + pkt.size;
		d->expect = (pkt.payload.ptw.payload & 0xffffffff) + 1;
		d->known = 1;
	}
	pt_pkt_free_decoder(dec);
}

/* PTREC_SB_LOST_SIDEBAND records: sideband records were dropped. */
static size_t kq_sideband_losses(void)
{
	size_t i, n = 0;

	for (i = 0; i < kq_nlost; i++)
		if (kq_losts[i].reason == PTREC_SB_LOST_SIDEBAND)
			n++;
	return n;
}

static int kq_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The stream offsets of @th's LOST records of unknown size (0 bytes or
 * UNTRACED: it ran while the unit did not trace it), sorted; marks @th
 * lossy if it has any LOST record.
 */
static size_t kq_cuts(struct kq_thread *th, uint64_t *cuts)
{
	size_t j, n = 0;

	for (j = 0; j < kq_nlost; j++) {
		if (kq_losts[j].tid != th->tid ||
		    kq_losts[j].reason == PTREC_SB_LOST_SIDEBAND)
			continue;
		th->lossy = 1;
		if (!kq_losts[j].bytes ||
		    kq_losts[j].reason == PTREC_SB_LOST_UNTRACED)
			cuts[n++] = kq_losts[j].offset;
	}
	qsort(cuts, n, sizeof(*cuts), kq_cmp_u64);
	return n;
}

static void kq_check_streams(const char *dir)
{
	struct kq_decode d;
	uint64_t ptws = 0, tscs = 0, outside = 0, ivs = 0, nopsb = 0;
	size_t t, i, k, ncuts, sb_lost = kq_sideband_losses(), judged = 0;
	char tsc_bad[160] = "", psb_bad[160] = "";
	uint64_t *cuts = calloc(KQ_MAX_LOST, sizeof(*cuts));

	memset(&d, 0, sizeof(d));
	for (t = 0; t < kq_nthreads; t++) {
		struct kq_thread *th = &kq_threads[t];
		char path[4096];
		uint8_t *buf;
		size_t len, start = 0, end = 0;
		uint64_t next = 0, base = 0;
		int after_loss = 0;

		if (kq_man) {
			const struct sb_thread *mt =
				sb_manifest_thread(kq_man, th->tid);

			snprintf(path, sizeof(path), "%s/%s", dir,
				 mt ? mt->pt : "(not in the manifest)");
		} else {
			snprintf(path, sizeof(path), "%s/%u.pt", dir, th->tid);
		}
		buf = kq_read_file(path, &len);
		if (!buf) {
			d.errors++;
			snprintf(d.first_bad, sizeof(d.first_bad),
				 "stream of tid %u missing", th->tid);
			continue;
		}
		d.known = 0;
		d.have_last = 0;
		d.unknown = 0;
		th->last_iv = -1;
		ncuts = kq_cuts(th, cuts);
		k = 0;
		/*
		 * Split the file where the message offsets jump, and where a
		 * LOST record of unknown size (0 bytes) lies.
		 */
		for (i = 0; i < kq_nmsgs; i++) {
			uint64_t mend;

			if (kq_msgs[i].tid != th->tid)
				continue;
			if (kq_msgs[i].offset != next) {
				kq_decode_stretch(th, buf + start,
						  end - start, base, &d,
						  after_loss);
				start = end;
				base = kq_msgs[i].offset;
				after_loss = 1;
				d.unknown = 0;
				/* a loss of unknown size inside the jump */
				for (; k < ncuts &&
				     cuts[k] < kq_msgs[i].offset; k++)
					if (cuts[k] >= next)
						d.unknown = 1;
			}
			mend = kq_msgs[i].offset + kq_msgs[i].len;
			for (; k < ncuts && cuts[k] < mend; k++) {
				uint64_t at;

				if (cuts[k] < kq_msgs[i].offset)
					continue;
				at = kq_msgs[i].fileoff + cuts[k] -
				     kq_msgs[i].offset;
				kq_decode_stretch(th, buf + start, at - start,
						  base, &d, after_loss);
				start = at;
				base = cuts[k];
				after_loss = 1;
				d.unknown = 1;
			}
			end = kq_msgs[i].fileoff + kq_msgs[i].len;
			next = mend;
		}
		if (end > len)
			end = len;
		kq_decode_stretch(th, buf + start, end - start, base, &d,
				  after_loss);
		free(buf);
		ptws += th->ptws;
		tscs += th->tscs;
		outside += th->tsc_outside;
		if (!th->lossy) {
			judged++;
			ivs += th->ivs;
			nopsb += th->ivs_nopsb;
			if (th->ivs_nopsb && !psb_bad[0])
				snprintf(psb_bad, sizeof(psb_bad),
					 "tid %u: %" PRIu64 " of %" PRIu64
					 " switch-ins start without PSB+, "
					 "first TSC %" PRIu64, th->tid,
					 th->ivs_nopsb, th->ivs,
					 th->first_nopsb);
		}
		if (th->tsc_outside && !tsc_bad[0])
			snprintf(tsc_bad, sizeof(tsc_bad),
				 "tid %u: %" PRIu64 " of %" PRIu64 " TSC "
				 "packets outside its switch intervals, "
				 "first %" PRIu64, th->tid, th->tsc_outside,
				 th->tscs, th->first_bad_tsc);
	}
	kq_result(!d.errors && !d.bad_tid && !d.bad_seq && ptws > 0,
		  "%zu threads' streams decode to %" PRIu64 " PTW packets, "
		  "each of its own tid, sequence numbers consecutive in "
		  "every stretch without loss (%" PRIu64 " stretches)",
		  kq_nthreads, ptws, d.stretches);
	if (d.errors || d.bad_tid || d.bad_seq)
		kq_diag("%" PRIu64 " decode errors, %" PRIu64 " foreign tids, "
			"%" PRIu64 " sequence breaks; first: %s", d.errors,
			d.bad_tid, d.bad_seq, d.first_bad);
	if (d.gaps)
		kq_result(!d.undercounts, "every loss covers the PTW packets "
			  "missing across it, %d bytes each (%" PRIu64
			  " losses, %" PRIu64 " too small)", KQ_PTW_SIZE,
			  d.gaps, d.undercounts);
	if (d.undercounts)
		kq_diag("%s", d.first_under);
	/* Dropped switch records leave the intervals unknown. */
	kq_result(tscs > 0 && (!outside || sb_lost), "every TSC packet of a "
		  "thread (%" PRIu64 ") lies between its SWITCH_IN and "
		  "SWITCH_OUT%s", tscs, sb_lost ? " (sideband was dropped, "
		  "so not judged)" : "");
	if (outside)
		kq_diag("%s", tsc_bad);
	/*
	 * SDM Vol. 3C 33.2.7.3: setting TraceEn writes PSB+ only with
	 * PacketByteCnt 0; a switch-in without one leaves the thread's
	 * decoding dependent on what came before its switch-out.
	 */
	if (judged && ivs && !sb_lost)
		kq_result(!nopsb, "every switch-in of a thread "
			  "starts its stream with PSB+: the first TSC packet "
			  "of each of %" PRIu64 " switch-in intervals of %zu "
			  "threads without loss lies inside PSB+", ivs,
			  judged);
	if (nopsb)
		kq_diag("%s", psb_bad);
	free(cuts);
}

/* ---- context switches ---------------------------------------------------- */

static void kq_check_switches(void)
{
	uint32_t on_cpu[64];
	size_t i, t, bad = 0, migrated = 0, sb_lost = kq_sideband_losses();
	char first_bad[160] = "";

	memset(on_cpu, 0, sizeof(on_cpu));
	for (t = 0; t < kq_nthreads; t++)
		kq_threads[t].cpus = -1;
	for (i = 0; i < kq_nsws; i++) {
		struct kq_sw *s = &kq_sws[i];
		struct kq_thread *th = kq_thread(s->tid);
		/* cpus: -1 = never in; else bit 31 = in now, low = cpu mask */
		int in;

		if (th->cpus == -1)
			th->cpus = 0;
		in = !!(th->cpus & (1 << 30));
		if (s->type == PTREC_SB_THREAD_EXIT) {
			if (in)
				on_cpu[(th->cpus >> 20) & 0xff] = 0;
			th->cpus &= ~(1 << 30);
			continue;
		}
		if (s->cpu >= 30) {
			bad++;
			continue;
		}
		if (s->type == PTREC_SB_SWITCH_IN) {
			if (in || on_cpu[s->cpu]) {
				bad++;
				if (!first_bad[0])
					snprintf(first_bad, sizeof(first_bad),
						 "tid %u in on cpu %u while "
						 "%s", s->tid, s->cpu,
						 in ? "already in" :
						 "another traced thread is");
			}
			on_cpu[s->cpu] = s->tid;
			th->cpus |= (1 << 30) | (1 << s->cpu);
			th->cpus &= ~(0xff << 20);
			th->cpus |= (int)s->cpu << 20;
		} else {
			if (!in || ((th->cpus >> 20) & 0xff) != (int)s->cpu ||
			    on_cpu[s->cpu] != s->tid) {
				bad++;
				if (!first_bad[0])
					snprintf(first_bad, sizeof(first_bad),
						 "tid %u out on cpu %u without "
						 "being in there", s->tid,
						 s->cpu);
			}
			on_cpu[s->cpu] = 0;
			th->cpus &= ~(1 << 30);
		}
	}
	for (t = 0; t < kq_nthreads; t++) {
		int mask = kq_threads[t].cpus & 0xfffff;

		if (kq_threads[t].cpus != -1 && (mask & (mask - 1)))
			migrated++;
	}
	/* With sideband records dropped (and said so), pairs may be torn. */
	kq_result((!bad || sb_lost) && kq_nsws > 0, "SWITCH_IN/SWITCH_OUT "
		  "alternate per thread on one CPU (THREAD_EXIT ends the "
		  "last), one traced thread per CPU at a time (%zu records%s)",
		  kq_nsws, sb_lost ? "; sideband was dropped, so not judged" :
		  "");
	if (bad)
		kq_diag("%zu violations; first: %s", bad, first_bad);
	for (t = 0; t < kq_nthreads; t++) {
		if (kq_threads[t].ptws && kq_threads[t].cpus == -1) {
			kq_result(0, "tid %u has trace but no SWITCH_IN",
				  kq_threads[t].tid);
			return;
		}
	}
	kq_result(migrated > 0, "%zu threads ran on more than one CPU",
		  migrated);
}

/* ---- the workload's own log ---------------------------------------------- */

/* PROCESS_EXIT records of @pid, or of every pid when @pid is 0 */
static void kq_count_exits(uint32_t pid)
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
static void kq_check_fork(void)
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

static void kq_check_worklog(const char *log)
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
static void kq_check_ring(const char *dir)
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
static void kq_check_exits(const char *log)
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
static void kq_check_lag(const char *dir)
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
static void kq_check_stop(const char *dir)
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
	if (worklog)
		kq_check_worklog(worklog);
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
	return kq_fails ? 1 : 0;
}
