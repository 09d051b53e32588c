// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * valcheck BUNDLE [STRIDE]: checks every register the recovery engine
 * (rp_recover_regs) says it knows, at every STRIDE-th position of every
 * thread (1: all), against the software recorder's ground truth (version
 * 2: the registers after each instruction).  Prints the share known and
 * the number wrong overall and by distance from the end (10, 100, 10^3,
 * 10^4, 10^5 instructions before it); exits 1 when any value is wrong, 2 on
 * bad input.  Wrong is a bug; unknown is allowed.  VALCHECK_CONFLICTS=0:
 * exits 1 too when the engine counts a conflict (known bits two
 * derivations disagree on: one of them is unsound even where no register
 * compared is wrong).  VALCHECK_BLOCK=N makes the engine's windows N
 * instructions long (chained windows and windows beyond the chain on
 * short histories).  VALCHECK_WHY=N: every
 * register unknown within N of the end classified by rp_recover_why()
 * (its cause and its root cause, per register, and the instructions
 * named), as shares of the registers checked there.
 * VALCHECK_ORACLE=all (or except:IP[,IP...], only:IP[,IP...]): each store
 * of unknown address (all, all but those at the instruction addresses
 * IP, only those) taken to have written where the truth's registers put
 * it (rp_recover_set_oracle(): a measurement of what placing stores
 * would give, docs/values.md "The roots rcv_why names"; the values are
 * the truth's then, so 0 wrong is expected, not proven).
 * VALCHECK_TID=T: thread T alone.  Each thread's registers checked and
 * known within 10^4 of its end are printed with its statistics.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "sideband.h"
#include "truthalign.h"

#define NB 6
static const uint64_t bucket_max[NB] = {
	10, 100, 1000, 10000, 100000, UINT64_MAX
};
static const char *const bucket_name[NB] = {
	"<=10", "<=100", "<=1000", "<=10000", "<=100000", "all"
};

static uint64_t reg_known[SB_TRUTH_NREGS], reg_checked[SB_TRUTH_NREGS];
/* VALCHECK_REGS=N: the share of each register within N of the end (1000
 * when N is not a number); with VALCHECK_REGS_FIRST=1 in the first N
 * positions of each thread's history instead (the start ramp, rcv_sum.c).
 */
static uint64_t regs_dist = 1000;
static bool regs_first;

struct count {
	uint64_t checked, known, wrong;
};

/* VALCHECK_WHY */
static uint64_t why_dist, why_checked;
static bool bits_check;
/* [NC]: set before the history and read by none of it before it is
 * overwritten (rp_why.unread): no engine can know it.
 */
#define NC (RP_WHY_NCAUSE + 1)
#define UNREAD RP_WHY_NCAUSE
static uint64_t why_cause[NC][RP_WHYM_NCAUSE];
static uint64_t why_root[NC][RP_WHYM_NCAUSE];
static uint64_t why_reg[SB_TRUTH_NREGS][NC];

static const char *why_name(unsigned int c)
{
	return c == UNREAD ? "before-unread" : rp_why_name(c);
}
/* Distinct instructions counted; past NWI a new one is dropped (256
 * dropped the demo's largest root, the resolver's sub, which its second
 * thread reaches after 256 others).
 */
#define NWI 4096
static struct {
	unsigned int cause, mem;
	char insn[16], where[64];
	uint64_t ip, n;
} why_insn[NWI];
static size_t n_why_insn;

static void why_count_insn(struct rp_session *s, struct rp_cursor *cur,
			   unsigned int cause, unsigned int mem,
			   const char *insn, uint64_t ip, uint64_t at)
{
	struct rp_sym sym = { 0 };
	struct rp_insn in;
	size_t i;

	for (i = 0; i < n_why_insn; i++)
		if (why_insn[i].cause == cause && why_insn[i].mem == mem &&
		    why_insn[i].ip == ip) {
			why_insn[i].n++;
			return;
		}
	if (n_why_insn == NWI)
		return;
	why_insn[n_why_insn].cause = cause;
	why_insn[n_why_insn].mem = mem;
	snprintf(why_insn[n_why_insn].insn, 16, "%s", insn);
	why_insn[n_why_insn].ip = ip;
	snprintf(why_insn[n_why_insn].where, 64, "%#" PRIx64, ip);
	if (!rp_cursor_peek(cur, at, &in) && !rp_symbolize(s, &in, &sym) &&
	    sym.function)
		snprintf(why_insn[n_why_insn].where, 64, "%s+%" PRIu64,
			 sym.function, sym.offset);
	why_insn[n_why_insn++].n = 1;
}

/* Roots at a register set before the history, by register. */
static uint64_t why_before_reg[SB_TRUTH_NREGS];

static void why_reg_root(int r)
{
	if (r >= 0 && r < SB_TRUTH_NREGS)
		why_before_reg[r]++;
}

static void why_one(struct rp_session *s, struct rp_cursor *cur,
		    struct rp_recover *rc, uint64_t p, unsigned int g)
{
	unsigned int reg = g == 16 ? RP_REG_EFLAGS : g;
	struct rp_why y;

	if (rp_recover_why(rc, p, reg, &y)) {
		why_cause[RP_WHY_KNOWN][0]++;	/* counted as not classified */
		return;
	}
	if (y.cause == RP_WHY_BEFORE && y.unread)
		y.cause = y.root = UNREAD;
	why_cause[y.cause][y.cause == RP_WHY_LOAD_MEM ? y.mem : 0]++;
	why_root[y.root][y.root == RP_WHY_LOAD_MEM ? y.root_mem : 0]++;
	why_reg[g][y.root]++;
	if ((y.root == RP_WHY_BEFORE || y.root == UNREAD) && y.kill_insn[0])
		why_count_insn(s, cur, y.root, 0, y.kill_insn, y.kill_ip,
			       y.kill_at);
	else if (y.root == RP_WHY_BEFORE && y.root_reg >= 0)
		why_reg_root(y.root_reg);
	else if (y.root != RP_WHY_BOUNDARY && y.root != RP_WHY_FAR)
		why_count_insn(s, cur, y.root, y.root == RP_WHY_LOAD_MEM ?
			       y.root_mem : 0, y.root_insn, y.root_ip,
			       y.root_at);
}

static int why_cmp(const void *a, const void *b)
{
	const typeof(why_insn[0]) *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

static void why_print(void)
{
	static const char *const names[SB_TRUTH_NREGS] = {
		"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8",
		"r9", "r10", "r11", "r12", "r13", "r14", "r15", "rflags"
	};
	double d = why_checked ? 100.0 / (double)why_checked : 0;
	unsigned int c, m, g;
	size_t i;

	printf("why: %" PRIu64 " registers checked within %" PRIu64
	       " (shares of them)\n", why_checked, why_dist);
	for (c = 0; c < NC; c++)
		for (m = 0; m < RP_WHYM_NCAUSE; m++)
			if (why_cause[c][m])
				printf("why cause %-16s %-22s %8" PRIu64
				       " %5.2f%%\n", why_name(c),
				       rp_whym_name(m), why_cause[c][m],
				       d * (double)why_cause[c][m]);
	for (c = 0; c < NC; c++)
		for (m = 0; m < RP_WHYM_NCAUSE; m++)
			if (why_root[c][m])
				printf("why root  %-16s %-22s %8" PRIu64
				       " %5.2f%%\n", why_name(c),
				       rp_whym_name(m), why_root[c][m],
				       d * (double)why_root[c][m]);
	for (g = 0; g < SB_TRUTH_NREGS; g++) {
		bool any = false;

		for (c = 1; c < NC; c++)
			if (why_reg[g][c]) {
				if (!any)
					printf("why reg %-6s", names[g]);
				any = true;
				printf(" %s %.2f%%", why_name(c),
				       d * (double)why_reg[g][c]);
			}
		if (any)
			printf("\n");
	}
	for (g = 0; g < SB_TRUTH_NREGS; g++)
		if (why_before_reg[g])
			printf("why before-history through %-6s %8" PRIu64
			       " %5.2f%%\n", names[g], why_before_reg[g],
			       d * (double)why_before_reg[g]);
	qsort(why_insn, n_why_insn, sizeof(why_insn[0]), why_cmp);
	for (i = 0; i < n_why_insn && i < 24; i++) {
		printf("why insn %-16s %-22s %-12s %-32s %8" PRIu64
		       " %5.2f%%\n", why_name(why_insn[i].cause),
		       rp_whym_name(why_insn[i].mem), why_insn[i].insn,
		       why_insn[i].where,
		       why_insn[i].n, d * (double)why_insn[i].n);
	}
}

/*
 * The positions where the thread resumed somewhere else than it stopped
 * (an asynchronous disable or interrupt whose address is not the next
 * instruction's: a signal delivered at a fault or an interruption).  The
 * truth's registers after the instruction before were read at its step's
 * stop, before the kernel built the frame and set the handler's
 * registers, so they are not state p's: not checked (the truth after the
 * handler's first instruction checks what the engine carries from p).
 */
static unsigned char *resumed_elsewhere(struct rp_session *s, uint32_t tid,
					struct rp_cursor *cur, uint64_t end)
{
	unsigned char *v = calloc(end + 1, 1);
	struct rp_event ev;
	struct rp_insn in;
	uint64_t i;

	for (i = 0; v && !rp_thread_event(s, tid, i, &ev); i++)
		if ((ev.kind == RP_EV_ASYNC_DISABLED ||
		     ev.kind == RP_EV_INTERRUPT) && ev.before &&
		    ev.before < end && !rp_cursor_peek(cur, ev.before, &in) &&
		    in.ip != ev.ip)
			v[ev.before] = 1;
	return v;
}

/*
 * --truth N: the ground truth's registers of the first thread before
 * instruction N (1-based, as `ptrec values --at` and GDB's `record goto`
 * count), one "name 0xvalue" per line, for tests that check what a front
 * end shows.
 */
static int print_truth(const char *dir, uint64_t at)
{
	static const char *const names[SB_TRUTH_NREGS] = {
		"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8",
		"r9", "r10", "r11", "r12", "r13", "r14", "r15", "eflags"
	};
	struct sb_truth_rec *recs;
	struct rp_session *s;
	struct sb_err err;
	char path[4096];
	size_t n;
	int g;

	if (rp_session_open(&s, dir) || !rp_thread_count(s)) {
		fprintf(stderr, "valcheck: %s: cannot open\n", dir);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/truth/%u.gt", dir,
		 rp_thread_tid(s, 0));
	rp_session_close(s);
	if (sb_truth_load_recs(path, &recs, &n, &err)) {
		fprintf(stderr, "valcheck: %s\n", err.msg);
		return 2;
	}
	if (at < 2 || at - 2 >= n || !(recs[at - 2].mask & 1)) {
		fprintf(stderr, "valcheck: --truth %" PRIu64 ": no registers "
			"there (2 to %zu)\n", at, n + 1);
		free(recs);
		return 2;
	}
	for (g = 0; g < SB_TRUTH_NREGS; g++)
		printf("%s %#" PRIx64 "\n", names[g], recs[at - 2].regs[g]);
	free(recs);
	return 0;
}

/*
 * VALCHECK_ASSUME=1 (rp_recover_assume(), what the GDB server's frames
 * give): the truth's rsp at the first position where the engine does not
 * know it must be taken, and a false rsp (the truth's + 16) where it does
 * must be refused; the check that follows counts what the true fact
 * taught (never a wrong value).
 */
/* VALCHECK_ORACLE: the truth's registers before each store. */
#define ORACLE_IPS 16
struct oracle {
	const struct sb_truth_rec *recs;
	size_t n;
	const size_t *map;	/* NULL until aligned: no answer */
	uint64_t end;
	bool only;
	size_t nips;
	uint64_t ips[ORACLE_IPS];
};

static int oracle_regs(void *ctx, uint64_t pos, uint64_t ip,
		       uint64_t *regs)
{
	const struct oracle *o = ctx;
	bool listed = false;
	size_t k, t;

	for (k = 0; k < o->nips; k++)
		listed |= o->ips[k] == ip;
	if (!o->map || pos >= o->end || listed != o->only)
		return 1;
	/* The truth's record of instruction pos, and the registers after
	 * the one before it (as the checks below).
	 */
	t = o->map[pos];
	if (t == NONE || !t || t >= o->n || o->recs[t].ip != ip ||
	    (o->recs[t - 1].mask & 0xffff) != 0xffff)
		return 1;
	memcpy(regs, o->recs[t - 1].regs, 16 * sizeof(*regs));
	return 0;
}

/* "all", "except:IP,IP..." or "only:IP,IP..."; exits 2 on anything else. */
static void oracle_parse(struct oracle *o, const char *e)
{
	const char *p;
	char *q;

	memset(o, 0, sizeof(*o));
	if (!strcmp(e, "all"))
		return;
	if (!strncmp(e, "only:", 5)) {
		o->only = true;
		p = e + 5;
	} else if (!strncmp(e, "except:", 7)) {
		p = e + 7;
	} else {
		goto bad;
	}
	for (;;) {
		if (o->nips == ORACLE_IPS)
			goto bad;
		o->ips[o->nips++] = strtoull(p, &q, 0);
		if (q == p || (*q && *q != ','))
			goto bad;
		if (!*q)
			return;
		p = q + 1;
	}
bad:
	fprintf(stderr, "valcheck: VALCHECK_ORACLE=%s: all, except:IP[,IP...] "
		"or only:IP[,IP...] (at most %d)\n", e, ORACLE_IPS);
	exit(2);
}

static void assume(struct rp_recover *rc, uint32_t tid,
		   const struct sb_truth_rec *recs, size_t n,
		   const size_t *map, uint64_t end)
{
	int taken = -1, refused = -1;
	uint64_t p, at = 0, at2 = 0;
	struct rp_regs r;

	for (p = 2; p < end && (taken < 0 || refused < 0); p++) {
		uint64_t rsp;

		if (map[p] == NONE || !map[p] || map[p] > n ||
		    !(recs[map[p] - 1].mask & 1) ||
		    rp_recover_regs(rc, p, &r))
			continue;
		rsp = recs[map[p] - 1].regs[7];
		if (!(r.valid >> RP_REG_RSP & 1) && taken < 0) {
			struct rp_fact f = { p, RP_REG_RSP, rsp };

			taken = rp_recover_assume(rc, &f, 1);
			at = p;
		} else if ((r.valid >> RP_REG_RSP & 1) && refused < 0) {
			struct rp_fact f = { p, RP_REG_RSP, rsp + 16 };

			refused = rp_recover_assume(rc, &f, 1);
			at2 = p;
		}
	}
	printf("thread %u: assumed the true rsp at %" PRIu64 ": %s, a false "
	       "one at %" PRIu64 ": %s\n", tid, at,
	       taken == 1 ? "taken" : "not taken", at2,
	       refused == 0 ? "refused" : "taken");
}

int main(int argc, char **argv)
{
	struct count c[NB] = { { 0 } };
	uint64_t stride = 1, wrong_total = 0, conflicts_total = 0;
	uint64_t ipskip_total = 0;
	struct rp_session *s;
	size_t ti;
	int ret, b;

	if (argc == 4 && !strcmp(argv[2], "--truth"))
		return print_truth(argv[1], strtoull(argv[3], NULL, 0));
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: valcheck BUNDLE [STRIDE]\n"
			"       valcheck BUNDLE --truth N\n");
		return 2;
	}
	if (argc == 3)
		stride = strtoull(argv[2], NULL, 0);
	if (getenv("VALCHECK_REGS") && strtoull(getenv("VALCHECK_REGS"),
						NULL, 0))
		regs_dist = strtoull(getenv("VALCHECK_REGS"), NULL, 0);
	regs_first = getenv("VALCHECK_REGS_FIRST") &&
		     !strcmp(getenv("VALCHECK_REGS_FIRST"), "1");
	if (!stride)
		stride = 1;
	if (getenv("VALCHECK_WHY"))
		why_dist = strtoull(getenv("VALCHECK_WHY"), NULL, 0);
	ret = rp_session_open(&s, argv[1]);
	if (ret) {
		fprintf(stderr, "valcheck: %s: %s\n", rp_session_errmsg(s),
			rp_errstr(ret));
		return 2;
	}
	for (ti = 0; ti < rp_thread_count(s); ti++) {
		uint32_t tid = rp_thread_tid(s, ti);
		struct sb_truth_rec *recs;
		struct rp_recover_stats st;
		struct rp_recover *rc;
		struct rp_cursor *cur;
		struct rp_insn insn;
		struct sb_err err;
		char path[4096];
		uint64_t end, p, ipskip = 0, off = 0, unaligned = 0;
		uint64_t sigskip = 0, tchk = 0, tknown = 0;
		unsigned char *elsewhere;
		struct oracle orc = { .map = NULL };
		size_t n, *map;

		if (getenv("VALCHECK_TID") &&
		    strtoul(getenv("VALCHECK_TID"), NULL, 0) != tid)
			continue;
		snprintf(path, sizeof(path), "%s/truth/%u.gt", argv[1], tid);
		if (sb_truth_load_recs(path, &recs, &n, &err)) {
			fprintf(stderr, "valcheck: %s\n", err.msg);
			continue;
		}
		if (rp_recover_new(s, tid, &rc))
			rc = NULL;
		if (rc && getenv("VALCHECK_ORACLE")) {
			oracle_parse(&orc, getenv("VALCHECK_ORACLE"));
			orc.recs = recs;
			orc.n = n;
			rp_recover_set_oracle(rc, oracle_regs, &orc);
		}
		/* VALCHECK_BLOCK0=N: every window of N instructions asked
		 * first, then the windows changed (nothing of those may
		 * stay: the ramp's summaries are per window).
		 */
		if (rc && getenv("VALCHECK_BLOCK0") &&
		    *getenv("VALCHECK_BLOCK0")) {
			struct rp_regs r0;
			uint64_t q, e0;

			rp_recover_set_block(rc, strtoull(
				getenv("VALCHECK_BLOCK0"), NULL, 0));
			if (!rp_thread_end(s, tid, &e0, NULL))
				for (q = 1; q < e0; q += 64)
					rp_recover_regs(rc, q, &r0);
			rp_recover_set_block(rc, 0);
		}
		if (rc && getenv("VALCHECK_BLOCK"))
			rp_recover_set_block(rc, strtoull(
				getenv("VALCHECK_BLOCK"), NULL, 0));
		if (!rc ||
		    rp_cursor_new(s, tid, &cur) ||
		    rp_thread_end(s, tid, &end, NULL)) {
			fprintf(stderr, "valcheck: thread %u: no history\n",
				tid);
			free(recs);
			continue;
		}
		map = align(s, tid, cur, recs, n, end, &off, &unaligned);
		orc.map = map;
		orc.end = end;
		elsewhere = resumed_elsewhere(s, tid, cur, end);
		if (!map || !elsewhere) {
			fprintf(stderr, "valcheck: thread %u: out of memory\n",
				tid);
			return 2;
		}
		/* The engine's windows from the oldest position to the
		 * newest (what a user who has been through the history
		 * sees after): knowledge found early flows forward into
		 * later windows.  VALCHECK_WARM=first: only the first
		 * position the walk will reach (before the ramp,
		 * rcv_sum.c); VALCHECK_WARM=newest: every window, newest
		 * first (the ramp after the chain); VALCHECK_WARM=prefetch:
		 * what ptrec-server computes in GDB's silences
		 * (rp_recover_prefetch() until it has nothing left: the
		 * chain from the end), then position 1 (which begins the
		 * ramp where it is in it) and the prefetch again (the rest
		 * of the ramp); VALCHECK_COLD=1: each
		 * position as the walk first meets it.
		 */
		if (getenv("VALCHECK_WARM") &&
		    !strcmp(getenv("VALCHECK_WARM"), "prefetch")) {
			struct rp_regs r1;
			int pf;

			while ((pf = rp_recover_prefetch(rc)) == 1)
				;
			if (!pf && end > 1)
				rp_recover_regs(rc, 1, &r1);
			while (!pf && (pf = rp_recover_prefetch(rc)) == 1)
				;
			if (pf < 0)
				fprintf(stderr, "valcheck: prefetch: %s\n",
					rp_errstr(pf));
		} else if (!getenv("VALCHECK_COLD")) {
			const char *wm = getenv("VALCHECK_WARM");
			bool newest = wm && !strcmp(wm, "newest");
			struct rp_regs warm;
			uint64_t q;

			for (q = 1; q < end; q += 64) {
				rp_recover_regs(rc, newest ? end - q : q,
						&warm);
				if (wm && !strcmp(wm, "first"))
					break;
			}
		}
		if (getenv("VALCHECK_ASSUME"))
			assume(rc, tid, recs, n, map, end);
		bits_check = getenv("VALCHECK_BITS") != NULL;
		for (p = end; p-- > 1;) {
			struct rp_regs r;
			const struct sb_truth_rec *t;
			uint64_t dist = end - p;
			unsigned int g;

			if ((end - p) % stride && dist > 100)
				continue;
			/* State p is the registers before instruction p:
			 * the truth's after the instruction before the one
			 * aligned with p (truthalign.c: after a gap the
			 * replay's position is not the truth's record, and
			 * the instruction before p in the replay may be
			 * before the gap).  No truth there: not checked,
			 * counted as a position whose truth ran another
			 * instruction.
			 */
			if (map[p] == NONE || !map[p] || map[p] >= n) {
				ipskip++;
				continue;
			}
			t = &recs[map[p] - 1];
			if (!(t->mask & 1) || rp_cursor_peek(cur, p, &insn))
				continue;
			if (elsewhere[p]) {
				sigskip++;
				continue;
			}
			/* The truth ran another instruction here: nothing
			 * to compare (counted: a trace out of step with
			 * the run hides every value after it).
			 */
			if (insn.ip != recs[map[p]].ip) {
				if (!ipskip && getenv("VALCHECK_IPSKIP"))
					printf("IPSKIP thread %u pos %" PRIu64
					       " (from the end): ip %#" PRIx64
					       ", truth %#" PRIx64 "\n", tid,
					       p, insn.ip, recs[map[p]].ip);
				ipskip++;
				continue;
			}
			if (rp_recover_regs(rc, p, &r))
				continue;
			for (g = 0; g < SB_TRUTH_NREGS; g++) {
				unsigned int reg = g == 16 ? RP_REG_EFLAGS : g;
				bool known = r.valid >> reg & 1;
				bool wrong = known && r.val[reg] != t->regs[g];

				/* VALCHECK_BITS: the bits known of a register
				 * not known whole count too (the alias
				 * argument refutes stores by them).
				 */
				if (!wrong && !known && bits_check) {
					uint64_t bv = 0, bk = 0;

					if (!rp_recover_reg_bits(rc, p, reg, &bv,
								 &bk) &&
					    ((bv ^ t->regs[g]) & bk)) {
						wrong = true;
						if (wrong_total < 20)
							printf("WRONGBITS known %#"
							       PRIx64 " ", bk);
					}
				}
				if (wrong && wrong_total++ < 20)
					printf("WRONG thread %u pos %" PRIu64
					       " (at %#" PRIx64 ") reg %u: %#"
					       PRIx64 ", truth %#" PRIx64 "\n",
					       tid, p, insn.ip, g, r.val[reg],
					       t->regs[g]);
				if (dist <= 10000) {
					tchk++;
					tknown += known;
				}
				if ((regs_first ? p + 1 : dist) <= regs_dist) {
					reg_checked[g]++;
					reg_known[g] += known;
				}
				if (why_dist && dist <= why_dist) {
					why_checked++;
					if (!known)
						why_one(s, cur, rc, p, g);
				}
				for (b = 0; b < NB; b++) {
					if (dist > bucket_max[b])
						continue;
					c[b].checked++;
					c[b].known += known;
					c[b].wrong += wrong;
				}
			}
		}
		if (ipskip)
			printf("IPSKIP thread %u: %" PRIu64 " positions "
			       "whose truth ran another instruction (not "
			       "checked)\n", tid, ipskip);
		ipskip_total += ipskip;
		if (sigskip)
			printf("SIGSKIP thread %u: %" PRIu64 " positions "
			       "where it resumed elsewhere (a handler's "
			       "entry: the truth's registers are before the "
			       "delivery; not checked)\n", tid, sigskip);
		free(elsewhere);
		rp_recover_stats(rc, &st);
		printf("thread %u: %" PRIu64 " instructions, %" PRIu64
		       " windows, %" PRIu64 " passes, %" PRIu64
		       " conflicts, %" PRIu64 " unexplained transfers\n",
		       tid, end, st.windows, st.passes, st.conflicts, st.async);
		if (st.conflicts && getenv("VALCHECK_CONFLICTS")) {
			printf("CONFLICTS thread %u: %" PRIu64 "\n", tid,
			       st.conflicts);
			conflicts_total += st.conflicts;
		}
		printf("thread %u: within 10000 %" PRIu64 " registers checked, "
		       "%" PRIu64 " known\n", tid, tchk, tknown);
		printf("thread %u: knowledge stops at %" PRIu64 " unproven "
		       "branches, %" PRIu64 " stores of unknown address, %"
		       PRIu64 " system calls, %" PRIu64 " undecoded\n", tid,
		       st.unproven, st.st_unknown, st.sys_barrier,
		       st.undecoded);
		rp_cursor_free(cur);
		rp_recover_free(rc);
		free(recs);
		free(map);
	}
	for (b = 0; b < NB; b++)
		printf("distance %-8s registers checked %10" PRIu64
		       "  known %5.1f%%  wrong %" PRIu64 "\n", bucket_name[b],
		       c[b].checked,
		       c[b].checked ? 100.0 * (double)c[b].known /
				      (double)c[b].checked : 0.0,
		       c[b].wrong);
	if (getenv("VALCHECK_REGS"))
		for (b = 0; b < SB_TRUTH_NREGS; b++)
			printf("reg %2d known %5.1f%% %s %" PRIu64 "\n",
			       b, reg_checked[b] ? 100.0 *
			       (double)reg_known[b] / (double)reg_checked[b] :
			       0.0, regs_first ? "in the first" : "within",
			       regs_dist);
	if (why_dist)
		why_print();
	rp_session_close(s);
	/* VALCHECK_IPSKIP=0: a position the truth disagrees on fails. */
	if (getenv("VALCHECK_IPSKIP") &&
	    ipskip_total > strtoull(getenv("VALCHECK_IPSKIP"), NULL, 0))
		return 1;
	return c[NB - 1].wrong || conflicts_total ? 1 : 0;
}
