// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The block-cache flow walker (replay/fwalk.c, issue #19's experiment)
 * against libipt's instruction decoder, the history ptrec must match:
 * every instruction's address, the count, the decode errors and every
 * event (kind, position, IPs), on every
 * real hardware trace in shared/testdata/real-pt (libxdc's kAFL traces,
 * DynamoRIO's streams as they are, repeated with a code page withheld,
 * with a byte corrupted, and as one single-PSB stream), and its length
 * decoder (fw_ild.c) on branch encodings (tests/tools/ildcheck compares
 * it with capstone on every instruction of whole programs: make
 * fwalk-test).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fwalk.h"
#include "fw_code.h"

/* The same loop with the walker, up to @cap instructions or a few more. */
static int walk_from(const struct pt_config *cfg, struct code *c,
		     struct hist *h, uint64_t from, uint64_t cap)
{
	struct rp_fwalk *fw = rp_fwalk_new(cfg, code_read, c);
	struct pt_event ev;
	uint64_t n = 0;
	int status;

	cr_assert(fw);
	status = from == UINT64_MAX ? rp_fwalk_sync_forward(fw) :
				      rp_fwalk_sync_set(fw, from);
	while (status != -pte_eos) {
		if (status == -pte_nomem || status == -pte_not_supported)
			break;
		if (status < 0) {
			hist_error(h, status);
			status = rp_fwalk_sync_forward(fw);
			continue;
		}
		while (status & pts_event_pending) {
			status = rp_fwalk_event(fw, &ev);
			if (status < 0)
				break;
			hist_event(h, &ev);
		}
		if (status < 0)
			continue;
		if ((status & pts_eos) || h->n >= cap)
			break;
		status = rp_fwalk_next(fw, &n, hist_add, h);
	}
	rp_fwalk_free(fw);
	cr_assert_eq(n, h->n);
	return status;
}

/* The walker's history equals the plain loop's, address for address. */
static void same_history(const char *name, uint8_t *pt, size_t len,
			 struct code *c, unsigned int model,
			 unsigned int stepping, uint64_t want,
			 uint64_t want_errors)
{
	struct hist base = { 0 }, got = { 0 };
	struct rp_fwalk *fw;
	struct pt_config cfg;
	uint64_t i, count, errors;

	pt_config_init(&cfg);
	cfg.begin = pt;
	cfg.end = pt + len;
	cfg.cpu.vendor = pcv_intel;
	cfg.cpu.family = 6;
	cfg.cpu.model = (uint8_t)model;
	cfg.cpu.stepping = (uint8_t)stepping;
	pt_cpu_errata(&cfg.errata, &cfg.cpu);
	plain_loop(&cfg, c, &base);
	cr_assert_eq(base.n, want, "%s: the plain loop decodes %lu, not %lu",
		     name, (unsigned long)base.n, (unsigned long)want);
	cr_assert_eq(base.errors, want_errors);
	/* rp_fwalk_run(): the count and errors; the loop of its calls
	 * (walk_from()): every address, error and event.
	 */
	fw = rp_fwalk_new(&cfg, code_read, c);
	cr_assert(fw);
	cr_assert_eq(rp_fwalk_run(fw, &count, &errors, NULL, NULL, NULL), 0,
		     "%s: the walker stopped", name);
	rp_fwalk_free(fw);
	cr_assert(count == base.n && errors == base.errors,
		  "%s: rp_fwalk_run() counted %lu instructions, %lu errors",
		  name, (unsigned long)count, (unsigned long)errors);
	walk_from(&cfg, c, &got, UINT64_MAX, UINT64_MAX);
	cr_assert_eq(got.errors, base.errors, "%s: %lu errors, libipt %lu",
		     name, (unsigned long)got.errors,
		     (unsigned long)base.errors);
	cr_assert(got.events == base.events && got.ev_hash == base.ev_hash,
		  "%s: %lu events, libipt %lu, or not the same events or errors",
		  name, (unsigned long)got.events, (unsigned long)base.events);
	cr_assert_gt(base.events, 0);
	for (i = 0; i < base.n && i < got.n; i++)
		if (got.ip[i] != base.ip[i])
			break;
	cr_assert(i == base.n && got.n == base.n,
		  "%s: instruction %lu at 0x%lx, libipt 0x%lx (%lu against %lu)",
		  name, (unsigned long)i,
		  (unsigned long)(i < got.n ? got.ip[i] : 0),
		  (unsigned long)(i < base.n ? base.ip[i] : 0),
		  (unsigned long)got.n, (unsigned long)base.n);
	free(base.ip);
	free(got.ip);
}

Test(fwalk, libxdc_traces)
{
	const char *real = real_pt();
	const char *name[] = { "Unzip", "mruby" };
	const uint64_t want[] = { 149576, 6334131 };
	char dir[4096], path[4200];
	struct code c;
	uint8_t *pt;
	size_t len, i;

	for (i = 0; i < 2; i++) {
		snprintf(dir, sizeof(dir), "%s/libxdc/%s", real, name[i]);
		snprintf(path, sizeof(path), "%s/trace", dir);
		code_init(&c);
		code_xdc(&c, dir);
		pt = slurp(path, &len);
		same_history(name[i], pt, len, &c, 94, 3, want[i], 0);
		free(pt);
		code_fini(&c);
	}
}

/* DynamoRIO's streams, as real.sh builds them from simple-glibc. */
Test(fwalk, dynamorio_streams)
{
	const char *real = real_pt();
	char hello[4200], path[4200];
	uint8_t *pt, *one, *many;
	size_t len, i, n, at;
	struct code c;

	snprintf(path, sizeof(path), "%s/dynamorio/simple/pt.bin", real);
	snprintf(hello, sizeof(hello), "%s/dynamorio/simple/hello", real);
	code_init(&c);
	code_add(&c, hello, 4096, 0x27, 0x401000);
	pt = slurp(path, &len);
	same_history("simple", pt, len, &c, 85, 4, 8, 0);
	free(pt);
	code_fini(&c);

	snprintf(path, sizeof(path), "%s/dynamorio/simple-glibc/pt.bin", real);
	snprintf(hello, sizeof(hello), "%s/dynamorio/simple-glibc/hello",
		 real);
	pt = slurp(path, &len);
	one = pt + 8;		/* its header */
	len -= 8;
	code_init(&c);
	code_add(&c, hello, 4096, 0x86fb1, 0x401000);
	same_history("simple-glibc", one, len, &c, 85, 4, 59234, 0);

	/* x30 with the PSB+ (54 bytes) of all but the first taken out. */
	many = malloc(30 * len);
	cr_assert(many);
	memcpy(many, one, len);
	for (i = 1, n = len; i < 30; i++, n += len - 54)
		memcpy(many + n, one + 54, len - 54);
	same_history("simple-glibc x30, one PSB", many, n, &c, 85, 4,
		     30 * 59234, 0);
	code_fini(&c);

	/* x20, the page at 0x440000 withheld: an error in every copy. */
	code_init(&c);
	code_add(&c, hello, 4096, 0x3f000, 0x401000);
	code_add(&c, hello, 0x41000, 0x86fb1 - 0x40000, 0x441000);
	for (i = 0; i < 20; i++)
		memcpy(many + i * len, one, len);
	same_history("simple-glibc x20, a page withheld", many, 20 * len, &c,
		     85, 4, 20 * 47233, 20);
	/* A byte of the eleventh copy, 7,000 bytes in, made 0x02. */
	at = 10 * len + 7000;
	many[at] = 0x02;
	same_history("simple-glibc x20, a byte corrupted", many, 20 * len, &c,
		     85, 4, 20 * 47233 - 5459, 20);
	code_fini(&c);
	free(many);
	free(pt);
}

/*
 * Damaged streams: Unzip and simple-glibc with 1 to 4 bytes changed at
 * random (a fixed seed: the same 400 streams every run), the walker's
 * history the plain loop's, address for address, error for error, event
 * for event; both
 * stop after 2 * 10^6 instructions (code looping without trace) and
 * then agree up to the shorter.
 */
Test(fwalk, damaged_streams, .timeout = 120)
{
	const char *real = real_pt();
	char dir[4096], path[4200], hello[4200];
	struct code cx, cg;
	struct pt_config cfg;
	uint8_t *pt[2], *buf;
	size_t len[2], i, k, m;
	uint64_t seed = 19, j, cap = 2000000;
	struct hist a, b;
	int ret, differs = 0;

	snprintf(dir, sizeof(dir), "%s/libxdc/Unzip", real);
	snprintf(path, sizeof(path), "%s/trace", dir);
	code_init(&cx);
	code_xdc(&cx, dir);
	pt[0] = slurp(path, &len[0]);
	snprintf(path, sizeof(path), "%s/dynamorio/simple-glibc/pt.bin", real);
	snprintf(hello, sizeof(hello), "%s/dynamorio/simple-glibc/hello",
		 real);
	code_init(&cg);
	code_add(&cg, hello, 4096, 0x86fb1, 0x401000);
	pt[1] = slurp(path, &len[1]);
	buf = malloc(len[0] > len[1] ? len[0] : len[1]);
	cr_assert(buf);
	for (i = 0; i < 400; i++) {
		k = i & 1;
		memcpy(buf, pt[k], len[k]);
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		for (m = 0; m <= (seed >> 60) % 4; m++) {
			seed = seed * 6364136223846793005ull +
			       1442695040888963407ull;
			buf[8 + (seed >> 33) % (len[k] - 8)] ^=
				(uint8_t)(1u << ((seed >> 20) & 7)) |
				(uint8_t)(seed >> 40);
		}
		pt_config_init(&cfg);
		cfg.begin = buf + (k ? 8 : 0);
		cfg.end = buf + len[k];
		cfg.cpu.vendor = pcv_intel;
		cfg.cpu.family = 6;
		cfg.cpu.model = k ? 85 : 94;
		cfg.cpu.stepping = k ? 4 : 3;
		pt_cpu_errata(&cfg.errata, &cfg.cpu);
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		plain_from(&cfg, k ? &cg : &cx, &a, UINT64_MAX, cap);
		ret = walk_from(&cfg, k ? &cg : &cx, &b, UINT64_MAX, cap);
		/* 16- or 32-bit code (a MODE.Exec changed): its stop. */
		if (ret == -pte_not_supported) {
			cr_assert_leq(b.n, a.n);
			a.n = b.n;
		} else if (a.n >= cap || b.n >= cap) {
			a.n = b.n = a.n < b.n ? a.n : b.n;
		} else {
			cr_assert_eq(b.errors, a.errors,
				     "stream %zu: %lu errors, libipt %lu", i,
				     (unsigned long)b.errors,
				     (unsigned long)a.errors);
			cr_assert(b.events == a.events &&
				  b.ev_hash == a.ev_hash,
				  "stream %zu: %lu events, libipt %lu, or not the same",
				  i, (unsigned long)b.events,
				  (unsigned long)a.events);
		}
		for (j = 0; j < a.n && j < b.n; j++)
			if (a.ip[j] != b.ip[j])
				break;
		if (j != a.n || a.n != b.n) {
			const char *dump = getenv("PTREC_FWALK_DUMP");

			differs++;
			if (dump) {
				FILE *f;

				snprintf(path, sizeof(path), "%s/%zu.pt", dump,
					 i);
				f = fopen(path, "wb");
				if (f) {
					fwrite(buf, 1, len[k], f);
					fclose(f);
				}
			}
			cr_log_error("stream %zu: instruction %lu: 0x%lx, libipt 0x%lx (%lu against %lu)",
				     i, (unsigned long)j,
				     (unsigned long)(j < b.n ? b.ip[j] : 0),
				     (unsigned long)(j < a.n ? a.ip[j] : 0),
				     (unsigned long)b.n, (unsigned long)a.n);
		}
		free(a.ip);
		free(b.ip);
	}
	cr_assert_eq(differs, 0, "%d of 400 damaged streams differ", differs);
	free(buf);
	free(pt[0]);
	free(pt[1]);
	code_fini(&cx);
	code_fini(&cg);
}

/*
 * From a PSB (where an index range starts: rp_fwalk_sync_set()), as
 * libipt's pt_insn_sync_set() from there: every PSB of Unzip and every
 * seventh of mruby, 20,000 instructions (and what follows in the same
 * call) each.
 */
Test(fwalk, from_each_psb, .timeout = 120)
{
	static const uint8_t psb[16] = {
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	};
	const char *real = real_pt();
	const char *name[] = { "Unzip", "mruby" };
	char dir[4096], path[4200];
	struct pt_config cfg;
	struct hist a, b;
	struct code c;
	uint8_t *pt;
	size_t len, i, off, npsb, tried;
	uint64_t j;

	for (i = 0; i < 2; i++) {
		snprintf(dir, sizeof(dir), "%s/libxdc/%s", real, name[i]);
		snprintf(path, sizeof(path), "%s/trace", dir);
		code_init(&c);
		code_xdc(&c, dir);
		pt = slurp(path, &len);
		pt_config_init(&cfg);
		cfg.begin = pt;
		cfg.end = pt + len;
		cfg.cpu.vendor = pcv_intel;
		cfg.cpu.family = 6;
		cfg.cpu.model = 94;
		cfg.cpu.stepping = 3;
		pt_cpu_errata(&cfg.errata, &cfg.cpu);
		for (off = 0, npsb = 0, tried = 0; off + 16 <= len; off++) {
			if (memcmp(pt + off, psb, 16))
				continue;
			if (npsb++ % (i ? 7 : 1))
				continue;
			memset(&a, 0, sizeof(a));
			memset(&b, 0, sizeof(b));
			plain_from(&cfg, &c, &a, off, 20000);
			walk_from(&cfg, &c, &b, off, 20000);
			a.n = b.n = a.n < b.n ? a.n : b.n;
			for (j = 0; j < a.n; j++)
				if (a.ip[j] != b.ip[j])
					break;
			cr_assert_eq(j, a.n,
				     "%s, from the PSB at %zu: instruction %lu: 0x%lx, libipt 0x%lx",
				     name[i], off, (unsigned long)j,
				     (unsigned long)b.ip[j],
				     (unsigned long)a.ip[j]);
			cr_assert_gt(a.n, 0);
			free(a.ip);
			free(b.ip);
			tried++;
			off += 15;
		}
		cr_assert_gt(tried, 40, "%s: %zu PSBs", name[i], tried);
		free(pt);
		code_fini(&c);
	}
}

/* Branch classes and targets, against the SDM's encodings. */
Test(fwalk, branch_classes)
{
	static const struct {
		const char *hex;
		uint8_t size, iclass, flags;
		int32_t disp;
	} t[] = {
		{ "74 10", 2, ptic_cond_jump, RP_FWF_DIRECT, 0x10 },
		{ "0f 85 00 01 00 00", 6, ptic_cond_jump, RP_FWF_DIRECT,
		  0x100 },
		{ "e3 fe", 2, ptic_cond_jump, RP_FWF_DIRECT, -2 },
		{ "e2 f0", 2, ptic_cond_jump, RP_FWF_DIRECT, -16 },
		{ "e8 00 00 00 00", 5, ptic_call, RP_FWF_DIRECT, 0 },
		{ "ff d0", 2, ptic_call, 0, 0 },
		{ "41 ff 14 24", 4, ptic_call, 0, 0 },
		{ "ff 25 00 10 00 00", 6, ptic_jump, 0, 0 },
		{ "eb fe", 2, ptic_jump, RP_FWF_DIRECT, -2 },
		{ "e9 fb ff ff ff", 5, ptic_jump, RP_FWF_DIRECT, -5 },
		{ "f2 e9 00 00 00 00", 6, ptic_jump, RP_FWF_DIRECT, 0 },
		{ "c3", 1, ptic_return, 0, 0 },
		{ "f3 c3", 2, ptic_return, 0, 0 },
		{ "c2 08 00", 3, ptic_return, 0, 0 },
		{ "cb", 1, ptic_far_return, 0, 0 },
		{ "48 cf", 2, ptic_far_return, RP_FWF_CPL, 0 },
		{ "0f 05", 2, ptic_far_call, RP_FWF_CPL, 0 },
		{ "48 0f 07", 3, ptic_far_return, RP_FWF_CPL, 0 },
		{ "cc", 1, ptic_far_call, RP_FWF_CPL, 0 },
		{ "cd 80", 2, ptic_far_call, RP_FWF_CPL, 0 },
		{ "0f 01 c1", 3, ptic_far_call, 0, 0 },
		{ "0f 01 c3", 3, ptic_far_return, RP_FWF_VMLR, 0 },
		{ "0f 22 d8", 3, ptic_other, RP_FWF_CR3, 0 },
		{ "44 0f 22 d8", 4, ptic_other, 0, 0 },	/* CR11 */
		{ "0f c7 30", 3, ptic_other, RP_FWF_VMPTRLD, 0 },
		{ "f3 0f ae e0", 4, ptic_ptwrite, 0, 0 },
		{ "48 b8 01 02 03 04 05 06 07 08", 10, ptic_other, 0, 0 },
		{ "66 b8 01 02", 4, ptic_other, 0, 0 },
		{ "f6 c1 01", 3, ptic_other, 0, 0 },
		{ "f7 c1 01 00 00 00", 6, ptic_other, 0, 0 },
		{ "f7 d1", 2, ptic_other, 0, 0 },
		{ "a1 00 00 00 00 00 00 00 00", 9, ptic_other, 0, 0 },
		{ "67 a1 00 00 00 00", 6, ptic_other, 0, 0 },
		{ "c4 e3 79 0f c1 08", 6, ptic_other, 0, 0 },
		{ "62 f1 7d 48 6f 04 24", 7, ptic_other, 0, 0 },
	};
	struct rp_fwalk_insn in;
	uint8_t b[15];
	size_t i, n;
	unsigned int v;
	const char *h;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		for (n = 0, h = t[i].hex; sscanf(h, "%2x", &v) == 1; n++) {
			b[n] = (uint8_t)v;
			h += 2;
			while (*h == ' ')
				h++;
		}
		in.ip = 0x401000;
		cr_assert_eq(rp_fwalk_ild(b, n, &in), 0, "%s", t[i].hex);
		cr_assert_eq(in.size, t[i].size, "%s: %u bytes", t[i].hex,
			     in.size);
		cr_assert_eq(in.iclass, t[i].iclass, "%s: class %u",
			     t[i].hex, in.iclass);
		cr_assert_eq(in.flags, t[i].flags, "%s: flags %u", t[i].hex,
			     in.flags);
		cr_assert_eq(in.disp, t[i].disp, "%s: disp %d", t[i].hex,
			     in.disp);
		/* Cut short: no instruction. */
		cr_assert_eq(rp_fwalk_ild(b, n - 1, &in), -pte_bad_insn, "%s",
			     t[i].hex);
	}
}

/*
 * A flush (rp_fwalk_flush(), which the index pass calls whenever its
 * world changes: rp_walk_set_image()) at an enable whose IP is where the
 * code read last began: the code there is read again.  The walker kept
 * the read-ahead's start and, with nothing read, took the instruction
 * for unmapped (-pte_nomap): review4.c execmt's decode gap, at the spin
 * loop's head where a switch disabled and re-enabled tracing.  The loop
 * (nop; je .-1) is traced three times, each ended by an asynchronous
 * disable at its head; the walker, flushed after each event, must give
 * libipt's instruction decoder's history, and the same without flushes.
 */
static void enc(struct pt_encoder *e, const struct pt_packet *p)
{
	cr_assert_geq(pt_enc_next(e, p), 0, "packet type %d", p->type);
}

static void enc_ip(struct pt_encoder *e, enum pt_packet_type type,
		   enum pt_ip_compression ipc, uint64_t ip)
{
	struct pt_packet p = { .type = type };

	p.payload.ip.ipc = ipc;
	p.payload.ip.ip = ip;
	enc(e, &p);
}

static void enc_mode64(struct pt_encoder *e)
{
	struct pt_packet p = { .type = ppt_mode };

	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec.csl = 1;
	enc(e, &p);
}

static int walk_flushing(const struct pt_config *cfg, struct code *c,
			 struct hist *h, bool flush)
{
	struct rp_fwalk *fw = rp_fwalk_new(cfg, code_read, c);
	struct pt_event ev;
	uint64_t n = 0;
	int status;

	cr_assert(fw);
	status = rp_fwalk_sync_forward(fw);
	while (status >= 0 && !(status & pts_eos)) {
		while (status & pts_event_pending) {
			status = rp_fwalk_event(fw, &ev);
			if (status < 0)
				break;
			hist_event(h, &ev);
			if (flush)
				rp_fwalk_flush(fw);
		}
		if (status < 0 || (status & pts_eos))
			break;
		status = rp_fwalk_next(fw, &n, hist_add, h);
	}
	if (status < 0 && status != -pte_eos)
		hist_error(h, status);
	rp_fwalk_free(fw);
	return status;
}

Test(fwalk, flush_at_enable_where_code_was_read)
{
	static const uint8_t loop[] = { 0x90, 0x74, 0xfd };	/* nop; je */
	const uint64_t head = 0x401000;
	char path[] = "/tmp/ptrec-fwalk-XXXXXX";
	struct pt_packet p = { .type = ppt_psb };
	uint8_t pt[256];
	struct pt_config cfg;
	struct pt_encoder *e;
	struct hist base = { 0 }, got = { 0 }, noflush = { 0 };
	struct code c;
	uint64_t len, i;
	int fd, k;

	fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, loop, sizeof(loop)), (ssize_t)sizeof(loop));
	close(fd);
	code_init(&c);
	code_add(&c, path, 0, sizeof(loop), head);	/* read lazily */

	pt_config_init(&cfg);
	cfg.begin = pt;
	cfg.end = pt + sizeof(pt);
	e = pt_alloc_encoder(&cfg);
	cr_assert(e);
	enc(e, &p);
	enc_mode64(e);
	p.type = ppt_psbend;
	enc(e, &p);
	for (k = 0; k < 3; k++) {
		enc_mode64(e);
		enc_ip(e, ppt_tip_pge, pt_ipc_sext_48, head);
		/* 2 + k iterations: je taken each time */
		p.type = ppt_tnt_8;
		p.payload.tnt.bit_size = (uint8_t)(2 + k);
		p.payload.tnt.payload = (1u << (2 + k)) - 1;
		enc(e, &p);
		enc_ip(e, ppt_fup, pt_ipc_sext_48, head);
		enc_ip(e, ppt_tip_pgd, pt_ipc_suppressed, 0);
	}
	pt_enc_get_offset(e, &len);
	pt_free_encoder(e);
	cfg.end = pt + len;

	plain_loop(&cfg, &c, &base);
	cr_assert_eq(base.n, 2 * (2 + 3 + 4), "libipt decodes %lu",
		     (unsigned long)base.n);
	cr_assert_eq(base.errors, 0);
	walk_flushing(&cfg, &c, &noflush, false);
	walk_flushing(&cfg, &c, &got, true);
	for (i = 0; i < base.n && i < got.n; i++)
		if (got.ip[i] != base.ip[i])
			break;
	cr_assert(i == base.n && got.n == base.n && !got.errors,
		  "flushed at each event: %lu instructions, %lu errors (libipt %lu, 0), first difference at %lu",
		  (unsigned long)got.n, (unsigned long)got.errors,
		  (unsigned long)base.n, (unsigned long)i);
	cr_assert(noflush.n == base.n && !noflush.errors &&
		  noflush.ev_hash == base.ev_hash);
	cr_assert_eq(got.ev_hash, base.ev_hash, "not the same events");
	free(base.ip);
	free(got.ip);
	free(noflush.ip);
	code_fini(&c);
	unlink(path);
}
