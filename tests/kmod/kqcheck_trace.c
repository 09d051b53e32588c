// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqcheck's checks of the trace streams (kqcheck.c says what it checks):
 * every thread's stream decoded with libipt's packet decoder, its PTW
 * payloads, TSCs inside its switch-in intervals, PIPs against the CR3
 * records; and the SWITCH_IN/SWITCH_OUT records' order per CPU.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include "kqcheck.h"

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
void kq_check_cr3(int pip, int filter)
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

void kq_check_streams(const char *dir)
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

void kq_check_switches(void)
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
