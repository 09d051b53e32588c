// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptrec-server: GDB's remote serial protocol over a recorded history, with
 * reverse execution (GDB manual, "Remote Protocol": "Packets", "Stop Reply
 * Packets", "General Query Packets").  rsp.c frames packets; this file
 * gives them meaning.
 *
 * Each thread has a position p in [0, n]: its next instruction is
 * instruction p of the history, and p = n is the end, where the final
 * register snapshot holds.  The PC is the only register known before the
 * end; the others are reported unavailable.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "replay.h"
#include "rsp.h"
#include "sideband.h"

struct sthread {
	uint32_t tid, pid;
	struct rp_cursor *c;
	uint64_t pos;		/* next instruction */
	uint64_t n;		/* instructions in the history */
	struct sb_regs regs;	/* at the end */
	bool have_regs;
	uint64_t first_ip;	/* of instruction 0 (peeking it evicts segments) */
};

struct server {
	const char *dir;
	struct rp_session *s;
	struct rsp rsp;
	struct sthread *t;
	size_t nt;
	size_t cur;		/* Hg: registers, memory, stop replies */
	bool cont_all;		/* Hc -1/0: resume acts on every thread */
	uint64_t *bps;		/* Z0/Z1 breakpoints */
	size_t nbps;
	bool quit;
	uint64_t last_first, last_end;	/* last history range shown */
	struct rp_call *calls;		/* call history of calls_tid */
	size_t ncalls;
	uint32_t calls_tid;
	char out[2 * RSP_MAX_PACKET];
	char text[2 * PATH_MAX + 64];	/* monitor replies */
};

static const char hexd[] = "0123456789abcdef";

#define SB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void hex_bytes(char *out, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hexd[p[i] >> 4];
		out[2 * i + 1] = hexd[p[i] & 15];
	}
	out[2 * n] = '\0';
}

static int reply(struct server *sv, const char *s)
{
	return rsp_send_str(&sv->rsp, s);
}

/* The PC of thread @t at its position. */
static uint64_t pc_of(struct sthread *t)
{
	struct rp_insn insn;

	if (t->pos < t->n && !rp_cursor_peek(t->c, t->pos, &insn))
		return insn.ip;
	if (t->have_regs)
		return t->regs.val[SB_REG_RIP];
	if (t->n && !rp_cursor_peek(t->c, t->n - 1, &insn))
		return insn.ip + insn.size;
	return 0;
}

/* T05 with the thread, and replaylog at the edges of the history. */
static int stop_reply(struct server *sv, const char *edge)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "T05thread:%x;%s%s%s", sv->t[sv->cur].tid,
		 edge ? "replaylog:" : "", edge ? edge : "", edge ? ";" : "");
	return reply(sv, buf);
}

/* ---- registers ---------------------------------------------------------- */

/* Sizes of GDB's amd64 registers in its remote numbering. */
static int reg_size(unsigned int regno)
{
	if (regno <= 16)
		return 8;		/* rax..r15, rip */
	if (regno <= 23)
		return 4;		/* eflags, cs..gs */
	if (regno <= 31)
		return 10;		/* st0..st7 */
	if (regno <= 39)
		return 4;		/* fctrl..fop */
	if (regno <= 55)
		return 16;		/* xmm0..xmm15 */
	if (regno == 56)
		return 4;		/* mxcsr */
	if (regno <= 59)
		return 8;		/* orig_rax, fs_base, gs_base */
	return 0;
}

/* Our snapshot's index of GDB register @regno, or -1. */
static int snap_index(unsigned int regno)
{
	if (regno <= 23)
		return (int)regno;	/* same order: rax..gs */
	if (regno == 57)
		return SB_REG_ORIG_RAX;
	if (regno == 58)
		return SB_REG_FS_BASE;
	if (regno == 59)
		return SB_REG_GS_BASE;
	return -1;
}

/* Appends register @regno's value (or 'x's when unavailable). */
static void put_reg(struct sthread *t, unsigned int regno, char *out)
{
	int size = reg_size(regno), idx = snap_index(regno), i;
	uint64_t v = 0;
	bool known = false;

	if (regno == 16) {
		v = pc_of(t);
		known = true;
	} else if (t->pos == t->n && t->have_regs && idx >= 0 &&
		   (t->regs.valid & (1ull << idx))) {
		v = t->regs.val[idx];
		known = true;
	}
	for (i = 0; i < size; i++) {
		if (known && i < 8) {
			uint8_t b = (uint8_t)(v >> (8 * i));

			out[2 * i] = hexd[b >> 4];
			out[2 * i + 1] = hexd[b & 15];
		} else if (known) {
			out[2 * i] = out[2 * i + 1] = '0';
		} else {
			out[2 * i] = out[2 * i + 1] = 'x';
		}
	}
	out[2 * size] = '\0';
}

static int do_g(struct server *sv)
{
	struct sthread *t = &sv->t[sv->cur];
	char *p = sv->out;
	unsigned int r;

	/* GDB accepts a reply that stops after the registers it has. */
	for (r = 0; r <= 23; r++) {
		put_reg(t, r, p);
		p += strlen(p);
	}
	return reply(sv, sv->out);
}

static int do_p(struct server *sv, const char *arg)
{
	unsigned int regno = (unsigned int)strtoul(arg, NULL, 16);

	if (!reg_size(regno))
		return reply(sv, "E01");
	put_reg(&sv->t[sv->cur], regno, sv->out);
	return reply(sv, sv->out);
}

/* ---- the call stack, for the plugin's unwinder ---------------------------- */

/*
 * GDB crashes when a Python unwinder sends packets, but may read memory.
 * So the call stack of the current thread at its position is served as
 * memory at this reserved (kernel-space, never user) address: 64-bit
 * words "PTRECSTK", the frame count, the position, then per frame (frame 0
 * innermost) the position and address of its first instruction and the
 * address its caller resumes at (0 for the outermost frame).
 */
#define STACK_ADDR 0xffffffffff000000ull
#define STACK_MAX_FRAMES 512

static size_t call_stack(struct server *sv, uint64_t *w, size_t maxw)
{
	struct sthread *t = &sv->t[sv->cur];
	static uint64_t calls[STACK_MAX_FRAMES];
	struct rp_insn insn;
	size_t n = 0, max = (maxw - 3) / 3 - 1;
	int i, found;

	memcpy(&w[0], "PTRECSTK", 8);
	w[2] = t->pos;
	if (max > STACK_MAX_FRAMES - 1)
		max = STACK_MAX_FRAMES - 1;
	/*
	 * Each call not matched by a later return opened one of the frames
	 * we are in; the engine finds them with its index's call depths, so
	 * the cost does not grow with the position.
	 */
	found = rp_cursor_callers(t->c, t->pos, calls, max);
	for (i = 0; i < found; i++) {
		if (rp_cursor_peek(t->c, calls[i], &insn))
			break;
		w[3 + 3 * n] = calls[i] + 1;
		w[4 + 3 * n] = 0;
		w[5 + 3 * n] = insn.ip + insn.size;
		if (calls[i] + 1 < t->n &&
		    !rp_cursor_peek(t->c, calls[i] + 1, &insn))
			w[4 + 3 * n] = insn.ip;
		n++;
	}
	/* The outermost recorded frame. */
	w[3 + 3 * n] = 0;
	w[4 + 3 * n] = t->first_ip;
	w[5 + 3 * n] = 0;
	n++;
	w[1] = n;
	return 3 + 3 * n;
}

/* The call stack of the current thread at its position, computed once per
 * position: GDB reads it several times at every stop.
 */
static const uint64_t *stack_words(struct server *sv, size_t *nwords)
{
	static uint64_t words[3 + 3 * STACK_MAX_FRAMES];
	static size_t n;
	static uint32_t tid;
	static uint64_t pos = UINT64_MAX;
	struct sthread *t = &sv->t[sv->cur];

	if (t->tid != tid || t->pos != pos) {
		n = call_stack(sv, words, SB_ARRAY_SIZE(words));
		tid = t->tid;
		pos = t->pos;
	}
	*nwords = n;
	return words;
}

/* ---- memory ------------------------------------------------------------- */

static int do_m(struct server *sv, const char *arg)
{
	struct sthread *t = &sv->t[sv->cur];
	uint8_t buf[4096];
	uint64_t addr;
	size_t len, done = 0;
	char *end;
	int n;

	addr = strtoull(arg, &end, 16);
	if (*end != ',')
		return reply(sv, "E01");
	len = strtoul(end + 1, NULL, 16);
	if (len > sizeof(buf))
		len = sizeof(buf);
	if (addr >= STACK_ADDR && addr - STACK_ADDR < 65536) {
		size_t nwords;
		const uint64_t *words = stack_words(sv, &nwords);
		size_t bytes = 8 * nwords;
		uint64_t off = addr - STACK_ADDR;

		if (off >= bytes)
			return reply(sv, "E14");
		if (len > bytes - off)
			len = (size_t)(bytes - off);
		hex_bytes(sv->out, (const uint8_t *)words + off, len);
		return reply(sv, sv->out);
	}
	while (done < len) {
		n = rp_read_code(sv->s, t->tid, t->pos, addr + done,
				 buf + done, len - done);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	/* Only code is recorded: data memory is unavailable. */
	if (!done)
		return reply(sv, "E14");
	hex_bytes(sv->out, buf, done);
	return reply(sv, sv->out);
}

/* ---- execution -------------------------------------------------------------- */

static void sort_unique(uint64_t *v, size_t *n)
{
	size_t i, j;

	for (i = 1; i < *n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	for (i = j = 0; i < *n; i++)
		if (!j || v[j - 1] != v[i])
			v[j++] = v[i];
	*n = j;
}

static int do_break(struct server *sv, const char *pkt, bool insert)
{
	uint64_t addr;
	size_t i;

	if ((pkt[1] != '0' && pkt[1] != '1') || pkt[2] != ',')
		return reply(sv, "");	/* watchpoints: not supported */
	addr = strtoull(pkt + 3, NULL, 16);
	if (insert) {
		uint64_t *v = realloc(sv->bps, (sv->nbps + 1) * sizeof(*v));

		if (!v)
			return reply(sv, "E01");
		sv->bps = v;
		sv->bps[sv->nbps++] = addr;
		sort_unique(sv->bps, &sv->nbps);
	} else {
		for (i = 0; i < sv->nbps; i++)
			if (sv->bps[i] == addr) {
				sv->bps[i] = sv->bps[--sv->nbps];
				sort_unique(sv->bps, &sv->nbps);
				break;
			}
	}
	return reply(sv, "OK");
}

static int step(struct server *sv, int dir)
{
	struct sthread *t = &sv->t[sv->cur];

	if (dir < 0) {
		if (!t->pos)
			return stop_reply(sv, "begin");
		t->pos--;
		return stop_reply(sv, t->pos ? NULL : "begin");
	}
	if (t->pos >= t->n)
		return stop_reply(sv, "end");
	t->pos++;
	return stop_reply(sv, t->pos == t->n ? "end" : NULL);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether the instruction at @pos of @t is at a breakpoint. */
static bool bsearch_hit(struct server *sv, struct sthread *t, uint64_t pos)
{
	struct rp_insn insn;

	return sv->nbps && !rp_cursor_peek(t->c, pos, &insn) &&
	       bsearch(&insn.ip, sv->bps, sv->nbps, sizeof(*sv->bps), cmp_u64);
}

/*
 * Moves every thread but @keep to time @tsc: its first instruction after
 * that time (the end when it has none), so that all threads stop together
 * at one moment of the recording.  Positions are ordered by time within a
 * thread, so a binary search finds it.
 */
static void sync_threads(struct server *sv, size_t keep, uint64_t tsc)
{
	struct rp_insn insn;
	size_t i;

	for (i = 0; i < sv->nt; i++) {
		struct sthread *t = &sv->t[i];
		uint64_t lo = 0, hi = t->n;

		if (i == keep)
			continue;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (rp_cursor_peek(t->c, mid, &insn))
				break;
			if (insn.tsc > tsc)
				hi = mid;
			else
				lo = mid + 1;
		}
		t->pos = lo;
	}
}

/*
 * Continue either way to the nearest breakpoint hit in any thread, in time
 * order; without one, to the edge of the current thread's history.
 */
static int cont(struct server *sv, int dir)
{
	struct sthread *t = &sv->t[sv->cur];
	uint32_t tid = t->tid;
	uint64_t pos;
	size_t i;

	if (dir > 0 && t->pos >= t->n)
		return stop_reply(sv, "end");
	if (dir < 0 && !t->pos)
		return stop_reply(sv, "begin");
	/* From the end, the search starts at the last instruction, which
	 * itself may hit a breakpoint going backward.
	 */
	pos = t->pos < t->n ? t->pos : t->n - 1;
	if (dir < 0 && t->pos == t->n &&
	    bsearch_hit(sv, t, pos)) {
		t->pos = pos;
		return stop_reply(sv, NULL);
	}
	/*
	 * "Hc TID" resumes only that thread (GDB does so to step one thread
	 * in replay); "Hc -1" or "Hc 0" lets breakpoints in any thread stop
	 * it, in time order.
	 */
	if (sv->nbps && t->n && !sv->cont_all) {
		if (!rp_cursor_goto(t->c, pos) &&
		    !rp_cursor_search(t->c, dir, sv->bps, sv->nbps)) {
			t->pos = rp_cursor_pos(t->c);
			return stop_reply(sv, NULL);
		}
	} else if (sv->nbps && t->n &&
		   !rp_search_threads(sv->s, dir, &tid, &pos, sv->bps,
				      sv->nbps)) {
		struct rp_insn insn;

		for (i = 0; i < sv->nt; i++)
			if (sv->t[i].tid == tid) {
				sv->cur = i;
				sv->t[i].pos = pos;
			}
		if (!rp_cursor_peek(sv->t[sv->cur].c, pos, &insn))
			sync_threads(sv, sv->cur, insn.tsc);
		return stop_reply(sv, NULL);
	}
	t->pos = dir < 0 ? 0 : t->n;
	return stop_reply(sv, dir < 0 ? "begin" : "end");
}

/* ---- queries ---------------------------------------------------------------- */

/* qXfer reads: "m" + a window of @data, or "l" + the rest. */
static int xfer(struct server *sv, const char *data, size_t size,
		const char *annex_args)
{
	const char *colon = strrchr(annex_args, ':');
	unsigned long off, len;
	char *end;

	if (!colon)
		return reply(sv, "E01");
	off = strtoul(colon + 1, &end, 16);
	if (*end != ',')
		return reply(sv, "E01");
	len = strtoul(end + 1, NULL, 16);
	if (len > RSP_MAX_PACKET - 8)
		len = RSP_MAX_PACKET - 8;
	if (off >= size)
		return reply(sv, "l");
	if (len > size - off)
		len = size - off;
	sv->out[0] = off + len < size ? 'm' : 'l';
	memcpy(sv->out + 1, data + off, len);
	return rsp_send(&sv->rsp, sv->out, len + 1);
}

struct interp_base {
	const char *name;	/* basename of the program's PT_INTERP */
	uint64_t bias;
	bool found;
};

static void find_interp(void *ctx, const char *path, uint64_t bias,
			uint64_t dynamic, bool main)
{
	struct interp_base *ib = ctx;
	const char *slash = strrchr(path, '/');

	(void)dynamic;
	if (!main && !ib->found && !strcmp(slash ? slash + 1 : path, ib->name)) {
		ib->bias = bias;
		ib->found = true;
	}
}

/*
 * An auxiliary vector with the entry point, so GDB relocates a PIE, and
 * the dynamic linker's base (AT_BASE).  Without AT_BASE, and when the
 * library list names the linker by another path than the program's
 * PT_INTERP (/lib64 is a link), GDB guesses the linker's base from the
 * current PC: it then takes the program's own code for the linker's and
 * treats it as resolver code, which made reverse-finish run past callers.
 */
static int xfer_auxv(struct server *sv, const char *args)
{
	uint64_t v[10] = { 0 }, entry, phdr, phnum;
	struct sthread *t = &sv->t[sv->cur];
	char interp[4096];
	size_t n = 6;

	if (rp_process_entry(sv->s, t->pid, &entry, &phdr, &phnum))
		return xfer(sv, (const char *)v, 16, args);	/* AT_NULL */
	v[0] = 3;		/* AT_PHDR */
	v[1] = phdr;
	v[2] = 5;		/* AT_PHNUM */
	v[3] = phnum;
	v[4] = 9;		/* AT_ENTRY */
	v[5] = entry;
	if (!rp_process_interp(sv->s, t->pid, interp, sizeof(interp))) {
		const char *slash = strrchr(interp, '/');
		struct interp_base ib = { slash ? slash + 1 : interp, 0, false };

		rp_libraries(sv->s, t->tid, t->pos, find_interp, &ib);
		if (ib.found) {
			v[n++] = 7;	/* AT_BASE */
			v[n++] = ib.bias;
		}
	}
	return xfer(sv, (const char *)v, (n + 2) * sizeof(v[0]), args);
}

static int xfer_threads(struct server *sv, const char *args)
{
	char xml[8192];
	size_t i, n;

	n = (size_t)snprintf(xml, sizeof(xml), "<threads>\n");
	for (i = 0; i < sv->nt && n < sizeof(xml) - 64; i++)
		n += (size_t)snprintf(xml + n, sizeof(xml) - n,
				      "<thread id=\"%x\" core=\"0\"/>\n",
				      sv->t[i].tid);
	n += (size_t)snprintf(xml + n, sizeof(xml) - n, "</threads>\n");
	return xfer(sv, xml, n, args);
}

struct libxml {
	char *buf;
	size_t n, size;
	int lm;
};

static void add_library(void *ctx, const char *path, uint64_t bias,
			uint64_t dynamic, bool main)
{
	struct libxml *x = ctx;

	/* GDB relocates the main program from the auxiliary vector. */
	if (main || x->n + 512 > x->size)
		return;
	x->n += (size_t)snprintf(x->buf + x->n, x->size - x->n,
				 "<library name=\"%s\" lm=\"0x%x\" lmid=\"0x0\" l_addr=\"0x%"
				 PRIx64 "\" l_ld=\"0x%" PRIx64 "\"/>\n",
				 path, ++x->lm, bias, dynamic);
}

/* Shared libraries at their recorded addresses, as the dynamic linker's
 * list would show them (GDB manual, "Library List Format for SVR4").
 */
static int xfer_libraries(struct server *sv, const char *args)
{
	struct sthread *t = &sv->t[sv->cur];
	static char xml[RSP_MAX_PACKET * 4];
	struct libxml x = { xml, 0, sizeof(xml), 0 };

	x.n = (size_t)snprintf(xml, sizeof(xml),
			       "<library-list-svr4 version=\"1.0\">\n");
	rp_libraries(sv->s, t->tid, t->pos, add_library, &x);
	x.n += (size_t)snprintf(xml + x.n, sizeof(xml) - x.n,
				"</library-list-svr4>\n");
	return xfer(sv, xml, x.n, args);
}

/*
 * The target description: GDB's amd64 Linux register set (GDB manual,
 * "Target Descriptions", "i386 Features"), numbered as do_g()/do_p()
 * number them: rax..gs 0-23, st0-7 24-31, x87 control 32-39, xmm0-15
 * 40-55, mxcsr 56, orig_rax 57, fs_base 58, gs_base 59.
 */
static size_t target_xml(char *xml, size_t size)
{
	static const char *const gp[] = {
		"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};
	static const char *const seg[] = { "cs", "ss", "ds", "es", "fs", "gs" };
	static const char *const x87[] = { "fctrl", "fstat", "ftag", "fiseg",
					   "fioff", "foseg", "fooff", "fop" };
	size_t n = 0;
	int i;

#define ADD(...) (n += (size_t)snprintf(xml + n, size - n, __VA_ARGS__))
	ADD("<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
	    "<target>\n<architecture>i386:x86-64</architecture>\n"
	    "<osabi>GNU/Linux</osabi>\n"
	    "<feature name=\"org.gnu.gdb.i386.core\">\n");
	for (i = 0; i < 16; i++)
		ADD("<reg name=\"%s\" bitsize=\"64\" type=\"%s\"/>\n", gp[i],
		    i == 6 || i == 7 ? "data_ptr" : "int64");
	ADD("<reg name=\"rip\" bitsize=\"64\" type=\"code_ptr\"/>\n"
	    "<reg name=\"eflags\" bitsize=\"32\" type=\"int32\"/>\n");
	for (i = 0; i < 6; i++)
		ADD("<reg name=\"%s\" bitsize=\"32\" type=\"int32\"/>\n",
		    seg[i]);
	for (i = 0; i < 8; i++)
		ADD("<reg name=\"st%d\" bitsize=\"80\" type=\"i387_ext\"/>\n",
		    i);
	for (i = 0; i < 8; i++)
		ADD("<reg name=\"%s\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n",
		    x87[i]);
	ADD("</feature>\n<feature name=\"org.gnu.gdb.i386.sse\">\n");
	for (i = 0; i < 16; i++)
		ADD("<reg name=\"xmm%d\" bitsize=\"128\" type=\"uint128\"/>\n",
		    i);
	ADD("<reg name=\"mxcsr\" bitsize=\"32\" type=\"int\" group=\"vector\"/>\n"
	    "</feature>\n<feature name=\"org.gnu.gdb.i386.linux\">\n"
	    "<reg name=\"orig_rax\" bitsize=\"64\" type=\"int\" regnum=\"57\"/>\n"
	    "</feature>\n<feature name=\"org.gnu.gdb.i386.segments\">\n"
	    "<reg name=\"fs_base\" bitsize=\"64\" type=\"int\"/>\n"
	    "<reg name=\"gs_base\" bitsize=\"64\" type=\"int\"/>\n"
	    "</feature>\n</target>\n");
#undef ADD
	return n;
}

/* Console output for monitor commands, in O packets of bounded size. */
static int console(struct server *sv, const char *text)
{
	size_t len = strlen(text), chunk;

	while (len) {
		chunk = len > 2000 ? 2000 : len;
		sv->out[0] = 'O';
		hex_bytes(sv->out + 1, (const uint8_t *)text, chunk);
		if (reply(sv, sv->out))
			return -1;
		text += chunk;
		len -= chunk;
	}
	return 0;
}

/*
 * GDB's history ranges: none (the ten lines up to @cur), "N" (ten around
 * N), "N,M", "+" and "-" (the ten after or before the last shown).  Lines
 * are numbered from 1; the result is [*first, *end) 0-based, within @total.
 */
/* A decimal number at *@s (digits only, no overflow), skipping spaces
 * around it; *@s moves past it.  Returns 0 or -1.
 */
static int parse_number(const char **s, unsigned long long *v)
{
	const char *p = *s;
	char *end;

	while (*p == ' ')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	*v = strtoull(p, &end, 10);
	if (errno == ERANGE)
		return -1;
	while (*end == ' ')
		end++;
	*s = end;
	return 0;
}

static int parse_range(struct server *sv, const char *arg, uint64_t cur,
		       uint64_t total, uint64_t *first, uint64_t *end)
{
	unsigned long long a, b;
	const char *p = arg;

	while (*arg == ' ')
		arg++;
	if (!*arg) {
		*end = cur + 1 < total ? cur + 1 : total;
		*first = *end > 10 ? *end - 10 : 0;
	} else if (!strcmp(arg, "+")) {
		*first = sv->last_end;
		*end = *first + 10;
	} else if (!strcmp(arg, "-")) {
		*end = sv->last_first;
		*first = *end > 10 ? *end - 10 : 0;
	} else if (!parse_number(&p, &a) && a && !*p) {
		*first = a > 5 ? a - 5 : 0;	/* ten centred on a */
		*end = *first + 10;
	} else if (!parse_number((p = arg, &p), &a) && *p++ == ',' &&
		   !parse_number(&p, &b) && !*p && a && b >= a) {
		*first = a - 1;
		*end = b;
	} else {
		return -1;
	}
	if (*end > total)
		*end = total;
	if (*first > *end)
		*first = *end;
	sv->last_first = *first;
	sv->last_end = *end;
	return 0;
}

/* The refusal of a history range, naming it; the plugin raises it. */
static int bad_range(struct server *sv, const char *cmd, const char *arg)
{
	char msg[512];
	int len = (int)strcspn(cmd, " ");

	while (*arg == ' ')
		arg++;
	snprintf(msg, sizeof(msg), "ptrec %.*s: '%.100s' is not a range; "
		 "usage: ptrec %s [N|N,M|+|-] (1 <= N <= M)\n", len, cmd,
		 arg, cmd);
	return console(sv, msg);
}

/* "ptrec insns [/r] [RANGE]": GDB's record instruction-history. */
static int monitor_insns(struct server *sv, const char *arg)
{
	struct sthread *t = &sv->t[sv->cur];
	static char text[64 * 1024];
	struct rp_insn insn;
	uint64_t first, end, p;
	bool raw = false;
	size_t n = 0;

	while (*arg == ' ')
		arg++;
	if (*arg == '/') {
		raw = strchr(arg, 'r') != NULL;
		arg += strcspn(arg, " ");
	}
	if (parse_range(sv, arg, t->pos < t->n ? t->pos : t->n - 1, t->n,
			&first, &end))
		return bad_range(sv, "instruction-history [/r]", arg);
	for (p = first; p < end && n < sizeof(text) - 1024; p++) {
		if (rp_cursor_peek(t->c, p, &insn) ||
		    rp_format_insn(sv->s, &insn, p, raw, p == t->pos,
				   text + n, sizeof(text) - n - 1))
			break;
		n += strlen(text + n);
		text[n++] = '\n';
	}
	text[n] = '\0';
	return console(sv, n ? text : "no instructions in that range\n");
}

/* "ptrec calls [/cli] [RANGE]": GDB's record function-call-history. */
static int monitor_calls(struct server *sv, const char *arg)
{
	struct sthread *t = &sv->t[sv->cur];
	static char text[64 * 1024];
	bool tree = false, lines = false, range = false;
	uint64_t first, end, cur = 0, i;
	size_t n = 0;

	while (*arg == ' ')
		arg++;
	if (*arg == '/') {
		size_t len = strcspn(arg, " ");

		tree = memchr(arg, 'c', len) != NULL;
		lines = memchr(arg, 'l', len) != NULL;
		range = memchr(arg, 'i', len) != NULL;
		arg += len;
	}
	if (!sv->calls || sv->calls_tid != t->tid) {
		free(sv->calls);
		sv->calls = NULL;
		if (rp_calls_build(sv->s, t->tid, &sv->calls, &sv->ncalls))
			return console(sv, "cannot build the call history\n");
		sv->calls_tid = t->tid;
	}
	for (i = 0; i < sv->ncalls; i++)
		if (sv->calls[i].first <= t->pos)
			cur = i;
	if (parse_range(sv, arg, cur, sv->ncalls, &first, &end))
		return bad_range(sv, "function-call-history [/cli]", arg);
	for (i = first; i < end && n < sizeof(text) - 4096; i++) {
		rp_format_call(&sv->calls[i], i, tree, lines, range, text + n,
			       sizeof(text) - n - 1);
		n += strlen(text + n);
		text[n++] = '\n';
	}
	text[n] = '\0';
	return console(sv, n ? text : "no calls in that range\n");
}

/*
 * "ptrec goto begin|end|N": N is an instruction number, 1 to @n + 1 (the
 * end), in decimal.  Anything else ("", "10x", "abc", "-1", too large)
 * is refused with a message in @err that starts with "ptrec goto:".
 */
static int parse_goto(const char *arg, uint64_t n, uint64_t *to, char *err,
		      size_t errsize)
{
	const char *p;
	char *end;
	unsigned long long v;

	while (*arg == ' ')
		arg++;
	if (!strcmp(arg, "begin")) {
		*to = 1;
		return 0;
	}
	if (!strcmp(arg, "end")) {
		*to = n + 1;
		return 0;
	}
	for (p = arg; *p >= '0' && *p <= '9'; p++)
		;
	while (*p == ' ')
		p++;
	if (!*arg || *p || *arg < '0' || *arg > '9') {
		snprintf(err, errsize, "ptrec goto: '%s' is not begin, end or "
			 "an instruction number (1 to %" PRIu64 ")\n", arg,
			 n + 1);
		return -1;
	}
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno == ERANGE || !v || v > n + 1) {
		snprintf(err, errsize, "ptrec goto: no instruction %.*s: "
			 "the history has 1 to %" PRIu64 " (%" PRIu64
			 " is the end)\n", (int)(end - arg), arg, n, n + 1);
		return -1;
	}
	*to = v;
	return 0;
}

/* qRcmd: "monitor" commands for the plugin; output in O packets. */
static int do_monitor(struct server *sv, const char *hex)
{
	struct sthread *t = &sv->t[sv->cur];
	char cmd[256], out[512];
	size_t i, n = strlen(hex) / 2;

	if (n >= sizeof(cmd))
		return reply(sv, "E01");
	for (i = 0; i < n; i++) {
		unsigned int b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return reply(sv, "E01");
		cmd[i] = (char)b;
	}
	cmd[n] = '\0';
	if (!strncmp(cmd, "ptrec insns", 11)) {
		if (monitor_insns(sv, cmd + 11))
			return -1;
		return reply(sv, "OK");
	}
	if (!strncmp(cmd, "ptrec calls", 11)) {
		if (monitor_calls(sv, cmd + 11))
			return -1;
		return reply(sv, "OK");
	}
	if (!strcmp(cmd, "ptrec bundle")) {
		/* Where the plugin finds the bundle and the ptrec CLI (next
		 * to this server) to run ptrec info and ptrec export on it.
		 */
		char dir[PATH_MAX], self[PATH_MAX];
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

		self[len > 0 ? len : 0] = '\0';
		if (!realpath(sv->dir, dir))
			snprintf(dir, sizeof(dir), "%s", sv->dir);
		snprintf(sv->text, sizeof(sv->text), "bundle %s\nserver %s\n",
			 dir, self);
		if (console(sv, sv->text))
			return -1;
		return reply(sv, "OK");
	}
	if (!strcmp(cmd, "ptrec position")) {
		if (t->pos < t->n)
			snprintf(out, sizeof(out), "thread %u position %" PRIu64
				 " of %" PRIu64 "\n", t->tid, t->pos + 1, t->n);
		else
			snprintf(out, sizeof(out), "thread %u at the end, after %"
				 PRIu64 " instructions\n", t->tid, t->n);
	} else if (!strcmp(cmd, "ptrec goto") ||
		   !strncmp(cmd, "ptrec goto ", 11)) {
		uint64_t to;

		if (parse_goto(cmd + 10, t->n, &to, out, sizeof(out)) == 0) {
			t->pos = to - 1;
			snprintf(out, sizeof(out), "thread %u at %" PRIu64 "\n",
				 t->tid, to);
		}
	} else {
		snprintf(out, sizeof(out), "unknown monitor command '%s'\n",
			 cmd);
	}
	sv->out[0] = 'O';
	hex_bytes(sv->out + 1, (const uint8_t *)out, strlen(out));
	if (reply(sv, sv->out))
		return -1;
	return reply(sv, "OK");
}

/* Selects thread @arg (hex; "-1" and "0" mean any).  Returns 0 or -1. */
static int select_thread_quiet(struct server *sv, const char *arg)
{
	unsigned long tid = strtoul(arg, NULL, 16);
	size_t i;

	if (!strcmp(arg, "-1") || !tid)
		return 0;
	for (i = 0; i < sv->nt; i++)
		if (sv->t[i].tid == tid) {
			sv->cur = i;
			return 0;
		}
	return -1;
}

/* Hg selects the thread for registers and memory; Hc the thread(s) that
 * resume.  Both make the named thread current, as GDB expects.
 */
static int select_thread(struct server *sv, const char *pkt)
{
	const char *arg = pkt + 2;

	if (pkt[1] == 'c')
		sv->cont_all = !strcmp(arg, "-1") || !strcmp(arg, "0");
	return reply(sv, select_thread_quiet(sv, arg) ? "E01" : "OK");
}

static int do_vcont(struct server *sv, const char *args)
{
	const char *a = args;

	if (!strcmp(args, "?"))
		return reply(sv, "vCont;c;C;s;S");
	/* The first action that applies to us: ;s:TID, ;c, ... */
	while (*a == ';') {
		char act = a[1];
		const char *tid = strchr(a, ':');
		const char *next = strchr(a + 1, ';');

		if (tid && (!next || tid < next)) {
			char buf[32];

			snprintf(buf, sizeof(buf), "%.*s",
				 (int)((next ? next : tid + strlen(tid)) - tid - 1),
				 tid + 1);
			select_thread_quiet(sv, buf);
		}
		if (act == 's' || act == 'S')
			return step(sv, 1);
		if (act == 'c' || act == 'C')
			return cont(sv, 1);
		if (!next)
			break;
		a = next;
	}
	return reply(sv, "E01");
}

static int dispatch(struct server *sv, char *pkt)
{
	switch (pkt[0]) {
	case '?':
		return stop_reply(sv, NULL);
	case 'g':
		return do_g(sv);
	case 'p':
		return do_p(sv, pkt + 1);
	case 'm':
		return do_m(sv, pkt + 1);
	case 'G':
	case 'P':
	case 'M':
	case 'X':
		return reply(sv, "E01");	/* the past cannot be changed */
	case 'Z':
	case 'z':
		return do_break(sv, pkt, pkt[0] == 'Z');
	case 's':
		return step(sv, 1);
	case 'c':
		return cont(sv, 1);
	case 'b':
		if (pkt[1] == 's')
			return step(sv, -1);
		if (pkt[1] == 'c')
			return cont(sv, -1);
		return reply(sv, "");
	case 'H':
		return select_thread(sv, pkt);
	case 'T':
		return reply(sv, "OK");	/* every recorded thread is alive */
	case 'k':
		sv->quit = true;
		return 0;
	case 'D':
		sv->quit = true;
		return reply(sv, "OK");
	default:
		break;
	}
	if (!strncmp(pkt, "qSupported", 10))
		return reply(sv, "PacketSize=4000;ReverseStep+;ReverseContinue+;"
			    "QStartNoAckMode+;qXfer:auxv:read+;"
			    "qXfer:libraries-svr4:read+;qXfer:threads:read+;"
			    "qXfer:features:read+;qXfer:exec-file:read+;"
			    "vContSupported+");
	if (!strcmp(pkt, "QStartNoAckMode")) {
		if (reply(sv, "OK"))
			return -1;
		sv->rsp.noack = true;
		return 0;
	}
	if (!strncmp(pkt, "qXfer:auxv:read:", 16))
		return xfer_auxv(sv, pkt + 16);
	if (!strncmp(pkt, "qXfer:features:read:target.xml:", 31)) {
		static char xml[8192];

		return xfer(sv, xml, target_xml(xml, sizeof(xml)), pkt + 31);
	}
	if (!strncmp(pkt, "qXfer:exec-file:read:", 21)) {
		char exe[4096] = "";

		rp_process_exe(sv->s, sv->t[sv->cur].pid, exe, sizeof(exe));
		return xfer(sv, exe, strlen(exe), pkt + 21);
	}
	if (!strncmp(pkt, "qXfer:libraries-svr4:read:", 26))
		return xfer_libraries(sv, pkt + 26);
	if (!strncmp(pkt, "qXfer:threads:read:", 19))
		return xfer_threads(sv, pkt + 19);
	if (!strcmp(pkt, "qC")) {
		snprintf(sv->out, sizeof(sv->out), "QC%x",
			 sv->t[sv->cur].tid);
		return reply(sv, sv->out);
	}
	if (!strcmp(pkt, "qfThreadInfo")) {
		char *p = sv->out;
		size_t i;

		*p++ = 'm';
		for (i = 0; i < sv->nt; i++)
			p += sprintf(p, "%s%x", i ? "," : "", sv->t[i].tid);
		return reply(sv, sv->out);
	}
	if (!strcmp(pkt, "qsThreadInfo"))
		return reply(sv, "l");
	if (!strcmp(pkt, "qAttached"))
		return reply(sv, "1");
	if (!strncmp(pkt, "qRcmd,", 6))
		return do_monitor(sv, pkt + 6);
	if (!strncmp(pkt, "vCont", 5))
		return do_vcont(sv, pkt + 5);
	if (!strncmp(pkt, "vKill", 5)) {
		sv->quit = true;
		return reply(sv, "OK");
	}
	return reply(sv, "");	/* not supported */
}

static int load_threads(struct server *sv)
{
	size_t i, n = rp_thread_count(sv->s);
	uint64_t latest = 0;
	char path[4096];

	sv->t = calloc(n + 1, sizeof(*sv->t));
	if (!sv->t)
		return -1;
	for (i = 0; i < n; i++) {
		struct sthread *t = &sv->t[sv->nt];
		struct rp_thread_info ti;
		struct sb_err err;

		t->tid = rp_thread_tid(sv->s, i);
		rp_thread_info(sv->s, t->tid, &ti);
		if (rp_cursor_new(sv->s, t->tid, &t->c))
			continue;	/* an empty history: no thread to show */
		t->pid = ti.pid;
		t->n = ti.insns;
		t->pos = t->n;		/* replay starts at the end */
		snprintf(path, sizeof(path), "%s/regs/%u.json", sv->dir, t->tid);
		t->have_regs = !sb_regs_load(&t->regs, path, &err);
		/*
		 * A thread that ended inside a system call (exit) was last seen
		 * before it: its registers are the state before the last
		 * instruction, so that is where its history ends.
		 */
		if (t->have_regs && t->n) {
			struct rp_insn last;

			if (!rp_cursor_peek(t->c, t->n - 1, &last) &&
			    last.ip == t->regs.val[SB_REG_RIP])
				t->n--;
			t->pos = t->n;
		}
		{
			struct rp_insn first;

			if (t->n && !rp_cursor_peek(t->c, 0, &first))
				t->first_ip = first.ip;
		}
		/* Start on the thread that ran last: where the program
		 * stopped or crashed.
		 */
		if (!sv->nt || ti.last_tsc > latest) {
			sv->cur = sv->nt;
			latest = ti.last_tsc;
		}
		sv->nt++;
	}
	/* A crash: start on the thread that got the fatal signal. */
	{
		uint32_t tid;

		if (!rp_fatal_thread(sv->s, &tid))
			for (i = 0; i < sv->nt; i++)
				if (sv->t[i].tid == tid)
					sv->cur = i;
	}
	sv->cont_all = true;
	return sv->nt ? 0 : -1;
}

static int serve(struct server *sv, int in, int out)
{
	static char pkt[RSP_MAX_PACKET];
	int n;

	rsp_init(&sv->rsp, in, out);
	while (!sv->quit) {
		n = rsp_recv(&sv->rsp, pkt, sizeof(pkt));
		if (n < 0)
			return 0;	/* GDB went away */
		if (n == 0)
			continue;	/* interrupt: nothing runs */
		if (dispatch(sv, pkt))
			return 1;
	}
	return 0;
}

static int listen_tcp(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), c, one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1)) {
		close(fd);
		return -1;
	}
	fprintf(stderr, "ptrec-server: listening on 127.0.0.1:%d\n", port);
	c = accept(fd, NULL, NULL);
	close(fd);
	return c;
}

int main(int argc, char **argv)
{
	struct server sv = { 0 };
	int port = -1, ret, fd;

	if (argc == 4 && !strcmp(argv[2], "--port")) {
		const char *a = argv[3];
		unsigned long long v;

		if (parse_number(&a, &v) || *a || !v || v > 65535) {
			fprintf(stderr, "ptrec-server: --port: '%s' is not a port number (1 to 65535)\n",
				argv[3]);
			return 2;
		}
		port = (int)v;
	} else if (argc != 2 && !(argc == 3 && !strcmp(argv[2], "--stdio"))) {
		fprintf(stderr, "usage: ptrec-server BUNDLE [--stdio | --port N]\n");
		return 2;
	}
	sv.dir = argv[1];
	ret = rp_session_open(&sv.s, sv.dir);
	if (ret) {
		fprintf(stderr, "ptrec-server: %s: %s\n",
			rp_session_errmsg(sv.s), rp_errstr(ret));
		rp_session_close(sv.s);
		return 1;
	}
	if (load_threads(&sv)) {
		fprintf(stderr, "ptrec-server: %s: no thread has a history\n",
			sv.dir);
		return 1;
	}
	if (port >= 0) {
		fd = listen_tcp(port);
		if (fd < 0) {
			perror("ptrec-server: port");
			return 1;
		}
		ret = serve(&sv, fd, fd);
		close(fd);
	} else {
		ret = serve(&sv, 0, 1);
	}
	for (size_t i = 0; i < sv.nt; i++)
		rp_cursor_free(sv.t[i].c);
	free(sv.t);
	free(sv.bps);
	free(sv.calls);
	rp_session_close(sv.s);
	return ret;
}
