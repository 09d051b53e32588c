// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqgen DIR VARIANT: writes a small tracer directory (as guest/kqtrace
 * leaves it) with libipt's packet encoder and the sideband writer, so the
 * suite can show that kqcheck passes a good trace and catches each defect:
 *
 *   good     two threads, each switched in twice (once per CPU)
 *   foreign  a PTW packet in one thread's stream carries the other's tid
 *   seqgap   one sequence number is missing, no loss recorded
 *   lostgap  a jump in offsets and sequence, covered by a LOST record
 *   offgap   the same jump without the LOST record
 *   tscout   a TSC packet outside its thread's switch intervals
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include "sideband.h"

static const char *kq_variant;
static char kq_dir[3000];

static int kq_is(const char *v)
{
	return !strcmp(kq_variant, v);
}

static void kq_fail(const char *what)
{
	fprintf(stderr, "kqgen: %s\n", what);
	exit(2);
}

/* One switch-in interval of @tid: PSB+, TSC, then @n PTWs from @seq. */
static size_t kq_encode(uint8_t *buf, size_t cap, uint32_t tid, uint64_t tsc,
			uint64_t seq, int n)
{
	struct pt_encoder *enc;
	struct pt_config cfg;
	struct pt_packet p;
	uint64_t off;
	int i;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + cap;
	enc = pt_alloc_encoder(&cfg);
	if (!enc)
		kq_fail("encoder");
	memset(&p, 0, sizeof(p));
	p.type = ppt_psb;
	if (pt_enc_next(enc, &p) < 0)
		kq_fail("psb");
	memset(&p, 0, sizeof(p));
	p.type = ppt_tsc;
	p.payload.tsc.tsc = tsc;
	if (pt_enc_next(enc, &p) < 0)
		kq_fail("tsc");
	memset(&p, 0, sizeof(p));
	p.type = ppt_psbend;
	if (pt_enc_next(enc, &p) < 0)
		kq_fail("psbend");
	for (i = 0; i < n; i++) {
		uint32_t who = tid;
		uint64_t s = seq + (uint64_t)i;

		if (kq_is("foreign") && tid == 102 && i == 7)
			who = 101;
		if (kq_is("seqgap") && tid == 101 && s >= 10)
			s++;
		memset(&p, 0, sizeof(p));
		p.type = ppt_ptw;
		p.payload.ptw.plc = 1;
		p.payload.ptw.payload = (uint64_t)who << 32 | s;
		if (pt_enc_next(enc, &p) < 0)
			kq_fail("ptw");
	}
	pt_enc_get_offset(enc, &off);
	pt_free_encoder(enc);
	return (size_t)off;
}

static FILE *kq_open(const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", kq_dir, name);
	f = fopen(path, "w");
	if (!f)
		kq_fail(path);
	return f;
}

static void kq_switch(struct sb_writer *w, uint16_t type, uint32_t tid,
		      uint32_t cpu, uint64_t time)
{
	struct ptrec_sb_switch s = {
		.hdr = { .type = type, .time = time },
		.pid = 101, .tid = tid, .cpu = cpu,
	};
	struct sb_err err;

	if (sb_writer_add(w, &s.hdr, &err))
		kq_fail(err.msg);
}

int main(int argc, char **argv)
{
	static uint8_t buf[4096];
	uint64_t trace_bytes = 0, lost = 0, jump = 0;
	struct sb_writer *w;
	struct sb_err err;
	char path[4096];
	FILE *idx, *st;
	uint32_t tid;

	if (argc != 3)
		kq_fail("usage: kqgen DIR VARIANT");
	snprintf(kq_dir, sizeof(kq_dir), "%s", argv[1]);
	kq_variant = argv[2];
	if (kq_is("lostgap") || kq_is("offgap"))
		jump = 500;

	snprintf(path, sizeof(path), "%s/sideband", kq_dir);
	if (sb_writer_open(&w, path, &err))
		kq_fail(err.msg);
	/* 101 on CPU 0 then 1, 102 on CPU 1 then 0. */
	kq_switch(w, PTREC_SB_SWITCH_IN, 101, 0, 1000);
	kq_switch(w, PTREC_SB_SWITCH_IN, 102, 1, 1000);
	kq_switch(w, PTREC_SB_SWITCH_OUT, 101, 0, 2000);
	kq_switch(w, PTREC_SB_SWITCH_OUT, 102, 1, 2000);
	if (kq_is("lostgap")) {
		struct ptrec_sb_lost l = {
			.hdr = { .type = PTREC_SB_LOST, .time = 2500 },
			.tid = 101, .reason = PTREC_SB_LOST_WRAP,
			.bytes = jump,
		};

		/* at the end of 101's first stretch */
		l.offset = kq_encode(buf, sizeof(buf), 101, 1010, 0, 50);
		lost = jump;
		if (sb_writer_add(w, &l.hdr, &err))
			kq_fail(err.msg);
	}
	kq_switch(w, PTREC_SB_SWITCH_IN, 101, 1, 3000);
	kq_switch(w, PTREC_SB_SWITCH_IN, 102, 0, 3000);
	kq_switch(w, PTREC_SB_SWITCH_OUT, 101, 1, 4000);
	kq_switch(w, PTREC_SB_SWITCH_OUT, 102, 0, 4000);
	if (sb_writer_close(w, &err))
		kq_fail(err.msg);

	idx = kq_open("index");
	for (tid = 101; tid <= 102; tid++) {
		uint64_t fileoff = 0, offset = 0, seq2 = 50;
		char name[32];
		size_t n;
		FILE *f;

		snprintf(name, sizeof(name), "%u.pt", tid);
		f = kq_open(name);
		n = kq_encode(buf, sizeof(buf), tid, 1010, 0, 50);
		fwrite(buf, 1, n, f);
		fprintf(idx, "%u %llu %zu %llu 2100\n", tid,
			(unsigned long long)offset, n,
			(unsigned long long)fileoff);
		offset += n;
		fileoff += n;
		trace_bytes += n;
		if (tid == 101 && jump) {
			offset += jump;
			seq2 += 30;
		}
		n = kq_encode(buf, sizeof(buf), tid,
			      kq_is("tscout") && tid == 102 ? 2500 : 3010,
			      seq2, 50);
		fwrite(buf, 1, n, f);
		fprintf(idx, "%u %llu %zu %llu 4100\n", tid,
			(unsigned long long)offset, n,
			(unsigned long long)fileoff);
		trace_bytes += n;
		fclose(f);
	}
	fclose(idx);
	st = kq_open("stats");
	fprintf(st, "trace_bytes %llu\nlost_bytes %llu\nstopped 0\n",
		(unsigned long long)trace_bytes, (unsigned long long)lost);
	fclose(st);
	return 0;
}
