// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The index pass's block source (replay/blksrc.c): the flow walker's
 * units against libipt's block decoder configured as the index pass
 * configures it (blocks end at calls and jumps), the same loop over both:
 * the instruction count, every call and return (where it ends a unit,
 * its address and position: the index's call depth and return-stack
 * model see each) and every event (kind and position) on libxdc's real
 * traces; on a damaged copy, each error returned on its own with the
 * instructions before it delivered, as libipt's instruction decoder's
 * plain loop counts them; and 32-bit code, which the walker refuses and
 * libipt decodes.
 */
#include <criterion/criterion.h>

#include "blksrc.h"
#include "fw_code.h"

struct units {
	uint64_t n, errors, events, calls, hash;
	uint64_t partial;	/* errors returned with instructions */
};

static void fold(struct units *u, uint64_t v)
{
	u->hash = (u->hash ^ v) * 0x100000001b3ull;
}

/* A unit's class: libipt's block cache may leave ptic_error (indirect
 * jumps at least); the bytes then say.
 */
static int unit_class(struct code *c, const struct pt_block *b)
{
	struct rp_fwalk_insn in;
	uint8_t buf[16];
	int n;

	if (b->iclass != ptic_error)
		return b->iclass;
	n = code_read(c, buf, sizeof(buf), b->end_ip);
	if (n <= 0 || rp_fwalk_ild(buf, (size_t)n, &in) < 0)
		return -1;
	return in.iclass;
}

/* The index pass's loop over a block source: resync forward on errors. */
static void run(struct rp_bsrc *bs, struct code *c, struct units *u)
{
	struct pt_block b;
	struct pt_event ev;
	int status = rp_bsrc_sync_forward(bs), cls;

	while (status != -pte_eos) {
		if (status < 0) {
			u->errors++;
			fold(u, u->n << 8 ^ (uint64_t)-status);
			status = rp_bsrc_sync_forward(bs);
			continue;
		}
		while (status & pts_event_pending) {
			status = rp_bsrc_event(bs, &ev);
			if (status < 0)
				break;
			u->events++;
			fold(u, (uint64_t)ev.type << 56 ^ u->n << 1 ^
				ev.status_update);
		}
		if (status < 0)
			continue;
		if (status & pts_eos)
			break;
		memset(&b, 0, sizeof(b));
		status = rp_bsrc_next(bs, &b);
		if (status < 0) {
			u->partial += b.ninsn != 0;
			continue;
		}
		u->n += b.ninsn;
		cls = b.ninsn ? unit_class(c, &b) : ptic_other;
		if (cls == ptic_call || cls == ptic_return) {
			u->calls++;
			fold(u, u->n ^ b.end_ip * 31 ^ (uint64_t)cls);
		}
	}
}

static void config(struct pt_config *cfg, uint8_t *pt, size_t len)
{
	pt_config_init(cfg);
	cfg->begin = pt;
	cfg->end = pt + len;
	cfg->cpu.vendor = pcv_intel;
	cfg->cpu.family = 6;
	cfg->cpu.model = 94;
	cfg->cpu.stepping = 3;
	pt_cpu_errata(&cfg->errata, &cfg->cpu);
	/* As index.c configures libipt's block decoder. */
	cfg->flags.variant.block.end_on_jump = 1;
	cfg->flags.variant.block.end_on_call = 1;
}

/* Returns whether the walker refused (none may, or libipt's may). */
static bool units_of(const struct pt_config *cfg, struct code *c,
		     bool walker, struct units *u)
{
	bool refused;

	struct rp_bsrc *bs = rp_bsrc_new(cfg, walker, code_read, c);

	cr_assert(bs);
	cr_assert_eq(rp_bsrc_is_walker(bs), walker);
	cr_assert_eq(rp_bsrc_set_image(bs, c->image), 0);
	memset(u, 0, sizeof(*u));
	run(bs, c, u);
	refused = rp_bsrc_refused(bs);
	cr_assert(walker || !refused);
	rp_bsrc_free(bs);
	return refused;
}

static void xdc(const char *name, uint64_t want)
{
	char path[4096];
	struct units blk, fw;
	struct pt_config cfg;
	struct code c;
	uint8_t *pt;
	size_t len;

	snprintf(path, sizeof(path), "%s/libxdc/%s", real_pt(), name);
	code_init(&c);
	code_xdc(&c, path);
	snprintf(path, sizeof(path), "%s/libxdc/%s/trace", real_pt(), name);
	pt = slurp(path, &len);
	config(&cfg, pt, len);
	cr_assert(!units_of(&cfg, &c, false, &blk));
	cr_assert(!units_of(&cfg, &c, true, &fw), "%s: the walker refused",
		  name);
	cr_assert_eq(blk.n, want, "%s: pt_blk decodes %lu", name,
		     (unsigned long)blk.n);
	cr_assert_eq(fw.n, want, "%s: the walker decodes %lu", name,
		     (unsigned long)fw.n);
	cr_assert_gt(fw.calls, 100, "%s: %lu calls and returns", name,
		     (unsigned long)fw.calls);
	cr_assert(fw.calls == blk.calls && fw.events == blk.events &&
		  fw.errors == blk.errors && fw.hash == blk.hash,
		  "%s: walker %lu calls and returns, %lu events; pt_blk %lu, %lu, or not at the same places",
		  name, (unsigned long)fw.calls, (unsigned long)fw.events,
		  (unsigned long)blk.calls, (unsigned long)blk.events);
	free(pt);
	code_fini(&c);
}

Test(blksrc, libxdc_unzip)
{
	xdc("Unzip", 149576);
}

Test(blksrc, libxdc_mruby, .timeout = 60)
{
	xdc("mruby", 6334131);
}

/*
 * Unzip with a byte made 0x02 (8,449: a return compressed against a call
 * before the PSB at 8,384, then resyncs; tests/import/damaged.sh's
 * others): the walker's units count what the plain loop counts, every
 * error alone.  At 8,446 the damage makes a MODE.Exec to 32-bit code,
 * which the walker refuses (the index pass then decodes that range with
 * libipt's block decoder).
 */
Test(blksrc, damaged_errors_alone)
{
	char path[4096];
	struct units fw;
	struct hist base;
	struct pt_config cfg;
	struct code c;
	uint64_t n, errors, total = 0;
	size_t len, k;
	uint8_t *pt;
	static const size_t bytes[] = { 8446, 8449, 15300, 3000, 12000 };

	snprintf(path, sizeof(path), "%s/libxdc/Unzip", real_pt());
	code_init(&c);
	code_xdc(&c, path);
	snprintf(path, sizeof(path), "%s/libxdc/Unzip/trace", real_pt());
	pt = slurp(path, &len);
	for (k = 0; k < sizeof(bytes) / sizeof(bytes[0]); k++) {
		uint8_t keep = pt[bytes[k]];

		pt[bytes[k]] = 0x02;
		config(&cfg, pt, len);
		memset(&base, 0, sizeof(base));
		plain_loop(&cfg, &c, &base);
		n = base.n;
		errors = base.errors;
		free(base.ip);
		cr_assert_eq(units_of(&cfg, &c, true, &fw), bytes[k] == 8446,
			     "byte %zu: refused or not", bytes[k]);
		if (bytes[k] == 8446) {
			pt[bytes[k]] = keep;
			continue;
		}
		cr_assert(fw.n == n && fw.errors == errors,
			  "byte %zu: the walker's units %lu instructions, %lu errors; the plain loop %lu, %lu",
			  bytes[k], (unsigned long)fw.n,
			  (unsigned long)fw.errors, (unsigned long)n,
			  (unsigned long)errors);
		cr_assert_eq(fw.partial, 0, "byte %zu: an error with instructions",
			     bytes[k]);
		total += errors;
		pt[bytes[k]] = keep;
	}
	cr_assert_geq(total, 3, "%lu errors in all", (unsigned long)total);
	free(pt);
	code_fini(&c);
}

/* Code at 0x1000: nop; nop; jmp *%rax (or %eax). */
static const uint8_t tiny_code[] = { 0x90, 0x90, 0xff, 0xe0 };

static int tiny_read(void *ctx, uint8_t *buf, size_t size, uint64_t ip)
{
	(void)ctx;
	if (ip < 0x1000 || ip >= 0x1000 + sizeof(tiny_code))
		return -pte_nomap;
	if (size > 0x1000 + sizeof(tiny_code) - ip)
		size = (size_t)(0x1000 + sizeof(tiny_code) - ip);
	memcpy(buf, tiny_code + (ip - 0x1000), size);
	return (int)size;
}

static int tiny_image(uint8_t *buf, size_t size,
		      const struct pt_asid *asid, uint64_t ip, void *ctx)
{
	(void)asid;
	return tiny_read(ctx, buf, size, ip);
}

/* PSB, PSBEND, MODE.Exec, TIP.PGE 0x1000, TIP.PGD 0x2000. */
static size_t tiny_stream(uint8_t *buf, size_t cap, bool bits32)
{
	struct pt_packet p[5];
	struct pt_encoder *e;
	struct pt_config cfg;
	uint64_t off = 0;
	size_t i;

	memset(p, 0, sizeof(p));
	p[0].type = ppt_psb;
	p[1].type = ppt_psbend;
	p[2].type = ppt_mode;
	p[2].payload.mode.leaf = pt_mol_exec;
	p[2].payload.mode.bits.exec.csl = !bits32;
	p[2].payload.mode.bits.exec.csd = bits32;
	p[3].type = ppt_tip_pge;
	p[3].payload.ip.ipc = pt_ipc_sext_48;
	p[3].payload.ip.ip = 0x1000;
	p[4].type = ppt_tip_pgd;
	p[4].payload.ip.ipc = pt_ipc_sext_48;
	p[4].payload.ip.ip = 0x2000;
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + cap;
	e = pt_alloc_encoder(&cfg);
	cr_assert(e);
	for (i = 0; i < 5; i++)
		cr_assert_geq(pt_enc_next(e, &p[i]), 0);
	cr_assert_geq(pt_enc_get_offset(e, &off), 0);
	pt_free_encoder(e);
	return (size_t)off;
}

/* The instructions a block source decodes in the tiny stream. */
static uint64_t tiny_run(const uint8_t *buf, size_t len, bool walker,
			 bool *refused, int *last)
{
	struct pt_image *image = pt_image_alloc(NULL);
	struct pt_config cfg;
	struct rp_bsrc *bs;
	struct pt_block b;
	struct pt_event ev;
	uint64_t n = 0;
	int status;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	cfg.flags.variant.block.end_on_jump = 1;
	cfg.flags.variant.block.end_on_call = 1;
	cr_assert(image && pt_image_set_callback(image, tiny_image, NULL) >= 0);
	bs = rp_bsrc_new(&cfg, walker, tiny_read, NULL);
	cr_assert(bs && rp_bsrc_is_walker(bs) == walker);
	cr_assert_eq(rp_bsrc_set_image(bs, image), 0);
	status = rp_bsrc_sync_forward(bs);
	while (status >= 0 && !(status & pts_eos)) {
		while (status >= 0 && (status & pts_event_pending))
			status = rp_bsrc_event(bs, &ev);
		if (status < 0 || (status & pts_eos))
			break;
		status = rp_bsrc_next(bs, &b);
		if (status >= 0)
			n += b.ninsn;
	}
	*last = status;
	*refused = rp_bsrc_refused(bs);
	rp_bsrc_free(bs);
	pt_image_free(image);
	return n;
}

Test(blksrc, refuses_32bit_code)
{
	uint8_t buf[256];
	bool refused;
	int last;
	size_t len = tiny_stream(buf, sizeof(buf), false);

	/* 64-bit: both decode the three instructions. */
	cr_assert_eq(tiny_run(buf, len, false, &refused, &last), 3);
	cr_assert(!refused);
	cr_assert_eq(tiny_run(buf, len, true, &refused, &last), 3);
	cr_assert(!refused);
	/* 32-bit: libipt decodes them, the walker refuses and says so. */
	len = tiny_stream(buf, sizeof(buf), true);
	cr_assert_eq(tiny_run(buf, len, false, &refused, &last), 3);
	cr_assert(!refused);
	cr_assert_eq(tiny_run(buf, len, true, &refused, &last), 0);
	cr_assert(refused);
	cr_assert_eq(last, -pte_not_supported);
}
