// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the semantics' input/output maps (replay/rcv_io.c,
 * docs/values.md "Latency", iomap): for each instruction form a pass
 * meets, from random states, an evaluation done again after random
 * registers of the states around it gained bits must leave what the
 * maps make the engine do (rcv_io_due(): skip, carry the registers
 * across, or run the semantics merging only some registers) exactly as a
 * full evaluation does: every state bit and the conflicts counted.  A map
 * that misses an input (a register the semantics read, one they write)
 * makes a case differ; io_maps_have_teeth checks that this test sees it.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"
#include "replay/rcv_fixture.h"

TestSuite(rcv_io, .init = setup, .fini = teardown);

static const struct {
	const char *b;
	size_t n;
	const char *name;
	uint8_t iclass;
} forms[] = {
	{ "\x48\x8b\x45\xf8", 4, "mov rax,[rbp-0x8]", RP_IC_OTHER },
	{ "\x8b\x45\xfc", 3, "mov eax,[rbp-0x4]", RP_IC_OTHER },
	{ "\x89\x45\xfc", 3, "mov [rbp-0x4],eax", RP_IC_OTHER },
	{ "\x48\x89\x7d\xf8", 4, "mov [rbp-0x8],rdi", RP_IC_OTHER },
	{ "\x48\xc7\x45\xf0\x07\x00\x00\x00", 8, "mov [rbp-0x10],0x7",
	  RP_IC_OTHER },
	{ "\x89\xd8", 2, "mov eax,ebx", RP_IC_OTHER },
	{ "\x48\x89\xd0", 3, "mov rax,rdx", RP_IC_OTHER },
	{ "\xb0\x05", 2, "mov al,0x5", RP_IC_OTHER },
	{ "\x88\xdc", 2, "mov ah,bl", RP_IC_OTHER },
	{ "\xb8\x09\x00\x00\x00", 5, "mov eax,0x9", RP_IC_OTHER },
	{ "\x0f\xb6\x45\xff", 4, "movzx eax,[rbp-0x1]", RP_IC_OTHER },
	{ "\x0f\xb6\xc8", 3, "movzx ecx,al", RP_IC_OTHER },
	{ "\x48\x63\x45\xfc", 4, "movsxd rax,[rbp-0x4]", RP_IC_OTHER },
	{ "\x0f\xbf\xc1", 3, "movsx eax,cx", RP_IC_OTHER },
	{ "\x48\x8d\x45\xf0", 4, "lea rax,[rbp-0x10]", RP_IC_OTHER },
	{ "\x48\x8d\x54\x88\x08", 5, "lea rdx,[rax+rcx*4+0x8]", RP_IC_OTHER },
	{ "\x83\xc0\x01", 3, "add eax,0x1", RP_IC_OTHER },
	{ "\x83\x45\xfc\x01", 4, "add [rbp-0x4],0x1", RP_IC_OTHER },
	{ "\x48\x01\xd0", 3, "add rax,rdx", RP_IC_OTHER },
	{ "\x03\x45\xf8", 3, "add eax,[rbp-0x8]", RP_IC_OTHER },
	{ "\x48\x83\xec\x10", 4, "sub rsp,0x10", RP_IC_OTHER },
	{ "\x29\xc8", 2, "sub eax,ecx", RP_IC_OTHER },
	{ "\x25\xff\x00\x00\x00", 5, "and eax,0xff", RP_IC_OTHER },
	{ "\x09\xd1", 2, "or ecx,edx", RP_IC_OTHER },
	{ "\x31\xc0", 2, "xor eax,eax", RP_IC_OTHER },
	{ "\x31\xd0", 2, "xor eax,edx", RP_IC_OTHER },
	{ "\x83\xf8\x05", 3, "cmp eax,0x5", RP_IC_OTHER },
	{ "\x83\x7d\xfc\x09", 4, "cmp [rbp-0x4],0x9", RP_IC_OTHER },
	{ "\x48\x39\xd0", 3, "cmp rax,rdx", RP_IC_OTHER },
	{ "\x84\xc0", 2, "test al,al", RP_IC_OTHER },
	{ "\x85\xc8", 2, "test eax,ecx", RP_IC_OTHER },
	{ "\xff\xc0", 2, "inc eax", RP_IC_OTHER },
	{ "\xff\xc9", 2, "dec ecx", RP_IC_OTHER },
	{ "\x48\xf7\xd8", 3, "neg rax", RP_IC_OTHER },
	{ "\x48\xf7\xd2", 3, "not rdx", RP_IC_OTHER },
	{ "\xc1\xe0\x02", 3, "shl eax,0x2", RP_IC_OTHER },
	{ "\x48\xc1\xea\x03", 4, "shr rdx,0x3", RP_IC_OTHER },
	{ "\xd3\xf8", 2, "sar eax,cl", RP_IC_OTHER },
	{ "\x0f\xaf\xc1", 3, "imul eax,ecx", RP_IC_OTHER },
	{ "\x6b\x45\xfc\x03", 4, "imul eax,[rbp-0x4],0x3", RP_IC_OTHER },
	{ "\x48\x98", 2, "cdqe", RP_IC_OTHER },
	{ "\x99", 1, "cdq", RP_IC_OTHER },
	{ "\x48\x99", 2, "cqo", RP_IC_OTHER },
	{ "\x98", 1, "cwde", RP_IC_OTHER },
	{ "\x55", 1, "push rbp", RP_IC_OTHER },
	{ "\x50", 1, "push rax", RP_IC_OTHER },
	{ "\x5d", 1, "pop rbp", RP_IC_OTHER },
	{ "\x5a", 1, "pop rdx", RP_IC_OTHER },
	{ "\xe8\x00\x00\x00\x00", 5, "call .+5", RP_IC_CALL },
	{ "\xc3", 1, "ret", RP_IC_RETURN },
	{ "\xc9", 1, "leave", RP_IC_OTHER },
	{ "\xeb\x00", 2, "jmp .+2", RP_IC_JUMP },
	{ "\x74\x10", 2, "je .+0x12", RP_IC_COND },
	{ "\x75\x10", 2, "jne .+0x12", RP_IC_COND },
	{ "\x90", 1, "nop", RP_IC_OTHER },
	{ "\xf3\x0f\x1e\xfa", 4, "endbr64", RP_IC_OTHER },
	{ "\x0f\x94\xc0", 3, "sete al", RP_IC_OTHER },
	{ "\x0f\x45\xc1", 3, "cmovne eax,ecx", RP_IC_OTHER },
	{ "\x48\x0f\x4c\x55\xf8", 5, "cmovl rdx,[rbp-0x8]", RP_IC_OTHER },
};

#define NFORMS (sizeof(forms) / sizeof(forms[0]))

/*
 * The world the states are drawn from, so that what they know agrees (an
 * evaluation counts a conflict only where it does not): a concrete state
 * before the instruction, the one after it, and memory at 0x7000..0x9000
 * (a function of the address), which the instruction's store changes
 * after it (position 6; it is instruction 5).  Every question noted.
 */
static struct rcv_state world_pre, world_post;
static uint8_t wbytes[16];
static uint64_t waddr;
static unsigned int wsize;
static struct rcv_val rmw_val[2];
static bool asked;

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}

static uint8_t mem_byte(uint64_t i, uint64_t a)
{
	if (i > 5 && a >= waddr && a - waddr < wsize)
		return wbytes[a - waddr];
	return (uint8_t)mix(a);
}

static struct rcv_val mem_cb(void *ctx, uint64_t i, uint64_t addr,
			     unsigned int size)
{
	uint64_t v = 0, m = size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
	unsigned int b;

	(void)ctx;
	asked = true;
	if (addr < 0x7000 || addr >= 0x9000)
		return unknown;
	for (b = 0; b < size && b < 8; b++)
		v |= (uint64_t)mem_byte(i, addr + b) << (8 * b);
	return (struct rcv_val){ v & m, m };
}

static bool own_cb(void *ctx, uint64_t addr, unsigned int size)
{
	(void)ctx;
	(void)size;
	asked = true;
	return addr >= 0x7000 && addr < 0x9000;
}

static void wrote_cb(void *ctx, uint64_t i, int rw, struct rcv_val v)
{
	(void)ctx;
	(void)i;
	asked = true;
	rcv_merge(&rmw_val[!!rw], v, &(uint64_t){ 0 });
}

static struct rcv_val written_cb(void *ctx, const struct rcv_ins *in, int rw)
{
	(void)ctx;
	(void)in;
	asked = true;
	return rmw_val[!!rw];
}

static struct rcv_ctx ctx = { .mem = mem_cb, .own = own_cb,
			      .wrote = wrote_cb, .written = written_cb };

/* Known bits: none, all, the low 32, or random ones. */
static uint64_t some_known(void)
{
	switch (random() % 4) {
	case 0:
		return 0;
	case 1:
		return ~0ull;
	case 2:
		return 0xffffffffull;
	default:
		return rnd();
	}
}

/* A concrete world for @in: world_pre, world_post, the store. */
static void world(const struct rcv_ins *in)
{
	struct rcv_state *p = &world_pre, *q = &world_post, a, b;
	uint64_t c = 0, m;
	struct rcv_acc w;
	unsigned int k;
	int g, n;

	wsize = 0;
	memset(rmw_val, 0, sizeof(rmw_val));
	memset(p, 0, sizeof(*p));
	for (g = 0; g < 16; g++)
		p->r[g] = val(rnd());
	p->r[RP_REG_RSP] = val(0x8000 + 8 * (random() % 64));
	p->r[RP_REG_RBP] = val(0x8000 + 8 * (random() % 64));
	p->r[RCV_FLAGS] = val(rnd() & (ARITH_FLAGS | F_DF));
	for (n = 0; n < RCV_NXMM; n++) {
		p->x[n][0] = val(rnd());
		p->x[n][1] = val(rnd());
	}
	p->xk = 0xffff;
	/* What the instruction says of the state before it by itself (a
	 * conditional branch's direction: its flag).
	 */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	rcv_backward(&ctx, 5, in, &a, &b, &c);
	for (g = 0; g < RCV_NREG; g++)
		p->r[g].v = (p->r[g].v & ~a.r[g].k) | a.r[g].v;
	memset(q, 0, sizeof(*q));
	rcv_forward(&ctx, 5, in, p, q, &c);
	cr_assert_eq(c, 0);
	/* Bits it leaves undefined: whatever the processor left. */
	for (g = 0; g < RCV_NREG; g++) {
		q->r[g].v |= rnd() & ~q->r[g].k & ~(g == RCV_FLAGS ? F_RF : 0);
		q->r[g].k = ~0ull;
	}
	for (n = 0; n < RCV_NXMM; n++)
		for (k = 0; k < 2; k++) {
			q->x[n][k].v |= rnd() & ~q->x[n][k].k;
			q->x[n][k].k = ~0ull;
		}
	q->xk = 0xffff;
	/* The store: memory after it (its value known: all these are). */
	rcv_writes(&ctx, in, p, q, &w);
	m = w.size >= 8 ? ~0ull : (1ull << (8 * w.size)) - 1;
	if (w.valid && w.addr_known && w.size && w.size <= 8) {
		cr_assert_eq(w.val.k & m, m, "a store of a value not known");
		waddr = w.addr;
		wsize = w.size;
		for (k = 0; k < wsize; k++)
			wbytes[k] = (uint8_t)(w.val.v >> (8 * k));
	}
}

/* @s knows random bits of @w (@sparse: of a few registers). */
static void rand_state(struct rcv_state *s, const struct rcv_state *w,
		       bool sparse)
{
	int g, n, k;

	memset(s, 0, sizeof(*s));
	for (g = 0; g < RCV_NREG; g++) {
		s->r[g].k = sparse && random() % 4 ? 0 : some_known();
		s->r[g].v = w->r[g].v & s->r[g].k;
	}
	for (n = 0; n < RCV_NXMM; n++)
		for (k = 0; k < 2; k++)
			if (random() % (sparse ? 16 : 4) == 0) {
				s->x[n][k].k = some_known();
				s->x[n][k].v = w->x[n][k].v & s->x[n][k].k;
				if (s->x[n][k].k)
					s->xk |= (uint16_t)(1u << n);
			}
}

/* Register @g (RCV_NREG: an xmm) of @s gains random bits of @w it did
 * not know; returns its bit (RCV_IO_X for an xmm), 0 when none.
 */
static uint32_t grow(struct rcv_state *s, const struct rcv_state *w, int g)
{
	int n = (int)(random() % RCV_NXMM), h = (int)(random() % 2);
	struct rcv_val *r = g < RCV_NREG ? &s->r[g] : &s->x[n][h];
	const struct rcv_val *t = g < RCV_NREG ? &w->r[g] : &w->x[n][h];
	uint64_t add = ~r->k & t->k & (random() % 2 ? ~0ull : rnd());

	if (!add)
		return 0;
	r->v |= t->v & add;
	r->k |= add;
	if (g < RCV_NREG)
		return 1u << g;
	s->xk |= (uint16_t)(1u << n);
	return RCV_IO_X;
}

/* The registers whose known bits differ between @a and @b. */
static uint32_t diff(const struct rcv_state *a, const struct rcv_state *b)
{
	uint32_t m = 0;
	int g;

	for (g = 0; g < RCV_NREG; g++)
		if (a->r[g].k != b->r[g].k)
			m |= 1u << g;
	if (memcmp(a->x, b->x, sizeof(a->x)) || a->xk != b->xk)
		m |= RCV_IO_X;
	return m;
}

static uint32_t eval(const struct rcv_ins *in, bool fwd, uint32_t m,
		     struct rcv_state *pre, struct rcv_state *post,
		     uint64_t *conf)
{
	return fwd ? rcv_forward_m(&ctx, 5, in, pre, post, m, conf) :
		     rcv_backward_m(&ctx, 5, in, pre, post, m, conf);
}

/*
 * One case: @in from random states evaluated @fwd, then registers of the
 * states around it grown, then evaluated again the way @io says against
 * a full evaluation.  Returns false (and says why in @why) when they
 * differ.
 */
static int one_case(const struct rcv_ins *in, const struct rcv_io *io,
		    bool fwd, char *why, size_t nwhy)
{
	struct rcv_state pre, post, fp, fq, p0, q0;
	uint64_t c0 = 0, cf = 0, ce = 0;
	uint32_t mp, mq, m;
	bool was_asked, sem;
	int k, nch;

	/* States an evaluation each way leaves without a conflict (the
	 * engine evaluates in full again after one).
	 */
	world(in);
	for (k = 0; k < 100; k++) {
		rand_state(&pre, &world_pre, random() % 2);
		rand_state(&post, &world_post, true);
		c0 = 0;
		eval(in, !fwd, RCV_IO_ALL, &pre, &post, &c0);
		asked = false;
		memcpy(&p0, &pre, sizeof(p0));
		memcpy(&q0, &post, sizeof(q0));
		eval(in, fwd, RCV_IO_ALL, &pre, &post, &c0);
		if (!c0)
			break;
	}
	was_asked = asked;
	if (c0)
		return 0;
	/* What that evaluation changed itself counts as changed since it
	 * began (struct redo marks a state after the evaluation's tick).
	 */
	mp = diff(&p0, &pre);
	mq = diff(&q0, &post);
	nch = 1 + (int)(random() % 3);
	for (k = 0; k < nch; k++) {
		int g = (int)(random() % (RCV_NREG + 1));

		if (random() % 2)
			mp |= grow(&pre, &world_pre, g);
		else
			mq |= grow(&post, &world_post, g);
	}
	if (!(mp | mq))
		return 0;
	memcpy(&fp, &pre, sizeof(fp));
	memcpy(&fq, &post, sizeof(fq));
	eval(in, fwd, RCV_IO_ALL, &fp, &fq, &cf);
	m = rcv_io_due(io, fwd, was_asked, mp, mq, &sem);
	if (sem)
		eval(in, fwd, m, &pre, &post, &ce);
	else if (m)
		rcv_io_carry(in, fwd ? &post : &pre, fwd ? &pre : &post, m,
			     fwd, &ce);
	if (!memcmp(&fp, &pre, sizeof(fp)) && !memcmp(&fq, &post, sizeof(fq)) &&
	    cf == ce)
		return 1;
	for (k = 0; k < RCV_NREG; k++)
		if (memcmp(&fp.r[k], &pre.r[k], sizeof(fp.r[k])) ||
		    memcmp(&fq.r[k], &post.r[k], sizeof(fq.r[k])))
			break;
	snprintf(why, nwhy, "%s: changed pre %#x post %#x, %s %#x: register "
		 "%d (%d: xmm), conflicts %lu/%lu", fwd ? "forward" :
		 "backward", mp, mq, sem ? "semantics merging" : "carrying",
		 m, k, RCV_NREG, (unsigned long)cf, (unsigned long)ce);
	return -1;
}

/* The cases of @in (maps @io) that differ, of @n each way; *@ran: those
 * that compared anything.
 */
static int differ(const struct rcv_ins *in, const struct rcv_io *io, int n,
		  int *ran, char *why, size_t nwhy)
{
	int bad = 0, t, r;

	*ran = 0;
	for (t = 0; t < 2 * n; t++) {
		r = one_case(in, io, t & 1, why, nwhy);
		bad += r < 0;
		*ran += r != 0;
	}
	return bad;
}

static struct rcv_ins form(size_t f)
{
	struct rcv_ins in;

	rcv_decode(dec, 0x401000, (const uint8_t *)forms[f].b, forms[f].n,
		   forms[f].iclass, &in);
	in.next = in.ip + in.len;
	return in;
}

Test(rcv_io, every_form_modelled)
{
	size_t f;

	/* Else the test checks nothing of that form. */
	for (f = 0; f < NFORMS; f++) {
		struct rcv_ins in = form(f);

		cr_assert_neq(rcv_io_touch(&in), RCV_IO_ALL, "%s",
			      forms[f].name);
	}
}

Test(rcv_io, maps_agree_with_the_semantics)
{
	char why[256];
	size_t f;

	srandom(17);
	for (f = 0; f < NFORMS; f++) {
		struct rcv_ins in = form(f);
		struct rcv_io io;

		int ran;

		rcv_io_map(&in, &io);
		cr_assert_eq(differ(&in, &io, 1000, &ran, why, sizeof(why)),
			     0, "%s: %s", forms[f].name, why);
		/* Not a test that compares nothing. */
		cr_assert_gt(ran, 1000, "%s: %d cases", forms[f].name, ran);
	}
}

/* What the engine does not map it evaluates in full, always. */
Test(rcv_io, unmapped_in_full)
{
	static const char *b[] = { "\x0f\x05", "\x0f\xa2", "\xf3\x48\xab",
				   "\x48\x87\xd8", "\x0f\x28\xc1" };
	static const size_t n[] = { 2, 2, 3, 3, 3 };
	struct rcv_io io;
	size_t i;
	bool sem;

	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		struct rcv_ins in = ins(b[i], n[i]);

		rcv_io_map(&in, &io);
		cr_assert_eq(io.touch, RCV_IO_ALL, "case %zu", i);
		cr_assert_eq(rcv_io_due(&io, i & 1, false, 1, 0, &sem),
			     RCV_IO_ALL);
		cr_assert(sem);
	}
}

/*
 * The test fails when a map misses an input or an output: each map with
 * one register it names taken out in turn makes some form differ.
 */
Test(rcv_io, io_maps_have_teeth)
{
	char why[256];
	int part, g, missed = 0, tried = 0;
	size_t f;

	srandom(18);
	for (part = 0; part < 5; part++) {
		for (g = 0; g <= RCV_NREG; g++) {
			uint32_t bit = 1u << g;
			bool seen = false, found = false;

			for (f = 0; f < NFORMS && !found; f++) {
				struct rcv_ins in = form(f);
				struct rcv_io io;
				uint32_t *m;
				int ran;

				rcv_io_map(&in, &io);
				m = part == 0 ? &io.touch :
				    part == 1 ? &io.fwd_pre :
				    part == 2 ? &io.fwd_post :
				    part == 3 ? &io.back_pre : &io.back_post;
				if (!(*m & bit))
					continue;
				seen = true;
				*m &= ~bit;
				found = differ(&in, &io, 400, &ran, why,
					       sizeof(why)) > 0;
			}
			if (!seen)
				continue;
			tried++;
			if (!found) {
				missed++;
				cr_log_info("map %d without register %d: no "
					    "form differs", part, g);
			}
		}
	}
	cr_log_info("%d of %d maps' registers taken out were seen",
		    tried - missed, tried);
	/* Every register of touch and of the semantic reads, removed,
	 * shows (a few of fwd_post's and back_pre's are only ever read
	 * through memory questions, which always run again).
	 */
	cr_assert_geq(tried - missed, tried * 3 / 4, "%d of %d", tried - missed,
		      tried);
}

/*
 * The memo (rcv_io_map_memo()) gives what rcv_io_map() gives: every form
 * at one address (one entry, taken in turn), each asked twice, also with
 * a flag of the pass's that rcv_io_map() reads (RCV_I_REP: in full) set
 * after its map was kept: a memo by address alone would give the form
 * before's map, or the flagless one.
 */
Test(rcv_io, memo_gives_the_map)
{
	struct rcv_io_memo *m = rcv_io_memo_new();
	struct rcv_io a, b;
	size_t f, k;
	int hits = 0;

	cr_assert_not_null(m);
	for (k = 0; k < 3; k++)
		for (f = 0; f < NFORMS; f++) {
			struct rcv_ins in = form(f);

			if (k == 2)
				in.flags |= RCV_I_REP;
			rcv_io_map(&in, &a);
			rcv_io_map_memo(m, &in, &b);
			cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0, "%s %zu",
				     forms[f].name, k);
			rcv_io_map_memo(m, &in, &b);
			cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0, "%s %zu",
				     forms[f].name, k);
			hits += k == 2 && a.touch == RCV_IO_ALL;
		}
	/* The flag mattered (else the last round tests nothing new). */
	cr_assert_eq(hits, (int)NFORMS);
	rcv_io_memo_free(m);
	rcv_io_map_memo(NULL, &(struct rcv_ins){ 0 }, &a);
	cr_assert_eq(a.touch, rcv_io_touch(&(struct rcv_ins){ 0 }));
}
