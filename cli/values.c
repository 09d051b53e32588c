// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec values BUNDLE [--thread T] --at N [--mem ADDR --len L]`: what the
 * recovery engine (libptrec's rp_recover_*) knows before instruction N
 * (1-based, as ptrec insns numbers them): every general-purpose register
 * and rflags, whole, in part (the bits known) or unknown, and optionally
 * memory, so that users see why GDB shows a value as unavailable.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "replay.h"
#include "cli.h"
#include "replay_cli.h"

static const char *const names[] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static void print_reg(const char *name, uint64_t v, uint64_t k)
{
	char bits[17];
	int i;

	if (k == ~0ull) {
		printf("%-7s 0x%016" PRIx64 "\n", name, v);
		return;
	}
	if (!k) {
		printf("%-7s unknown\n", name);
		return;
	}
	/* Hex digits known whole, '?' for the others. */
	for (i = 0; i < 16; i++) {
		int sh = 4 * (15 - i);

		bits[i] = (k >> sh & 0xf) == 0xf ?
			  "0123456789abcdef"[v >> sh & 0xf] : '?';
	}
	bits[16] = '\0';
	printf("%-7s 0x%s (partly known)\n", name, bits);
}

static void print_mem(struct rp_recover *rc, uint64_t pos, uint64_t addr,
		      uint64_t len)
{
	uint64_t off;

	for (off = 0; off < len; off += 16) {
		uint64_t i;

		printf("0x%016" PRIx64 ":", addr + off);
		for (i = off; i < off + 16 && i < len; i++) {
			uint8_t b;

			if (rp_recover_mem(rc, pos, addr + i, &b, 1))
				printf(" %02x", b);
			else
				printf(" ??");
		}
		printf("\n");
	}
}

/*
 * --why: for each register not known whole, the instruction (numbered as
 * ptrec insns numbers them) that wrote it or the barrier that cut it,
 * what the engine lacked there, and the root cause that chain leads to.
 */
/* The exit-save rule's part in a memory search (rp_why.ek). */
static void print_why_ek(const struct rp_why *y)
{
	if (y->ek)
		printf(", slot of the push at %" PRIu64 " kept to %" PRIu64
		       " (exit-save)", y->ek_at + 1, y->ek_to + 1);
}

static void print_why(struct rp_recover *rc, uint64_t pos)
{
	unsigned int g;

	for (g = 0; g <= 16; g++) {
		unsigned int reg = g == 16 ? RP_REG_EFLAGS : g;
		struct rp_why y;

		if (rp_recover_why(rc, pos, reg, &y) || !y.cause)
			continue;
		printf("why %-6s %s", g == 16 ? "eflags" : names[g],
		       rp_why_name(y.cause));
		if (y.insn[0])
			printf(" at %" PRIu64 " (%#" PRIx64 " %s)", y.at + 1,
			       y.ip, y.insn);
		if (y.opreg >= 0)
			printf(", operand %s", y.opreg == RP_REG_EFLAGS ?
			       "eflags" : y.opreg < 16 ? names[y.opreg] : "?");
		else if (y.opreg == -2)
			printf(", operand xmm");
		if (y.cause == RP_WHY_LOAD_MEM) {
			printf(", byte %#" PRIx64 ": %s", y.mem_addr,
			       rp_whym_name(y.mem));
			if (y.mem_insn[0])
				printf(" at %" PRIu64 " (%#" PRIx64 " %s)",
				       y.mem_at + 1, y.mem_ip, y.mem_insn);
			print_why_ek(&y);
		}
		if (y.root != y.cause || y.root_at != y.at) {
			printf("; root %s", rp_why_name(y.root));
			if (y.root == RP_WHY_LOAD_MEM)
				printf(" (%s)", rp_whym_name(y.root_mem));
			if (y.root_insn[0])
				printf(" at %" PRIu64 " (%#" PRIx64 " %s)",
				       y.root_at + 1, y.root_ip, y.root_insn);
		}
		if (y.root == RP_WHY_BEFORE && y.kill_insn[0])
			printf("; overwritten at %" PRIu64 " (%#" PRIx64
			       " %s)%s", y.kill_at + 1, y.kill_ip, y.kill_insn,
			       y.unread ? ", never read before: no engine "
			       "can know it" : "");
		printf("\n");
	}
}

/* --why with --mem: why the first byte not known is not. */
static void print_why_mem(struct rp_recover *rc, uint64_t pos, uint64_t addr,
			  uint64_t len)
{
	struct rp_why y;
	uint64_t i;

	for (i = 0; i < len; i++) {
		if (rp_recover_why_mem(rc, pos, addr + i, &y) || !y.cause)
			continue;
		printf("why %#" PRIx64 ": %s", addr + i, rp_whym_name(y.mem));
		if (y.mem_insn[0])
			printf(" at %" PRIu64 " (%#" PRIx64 " %s)",
			       y.mem_at + 1, y.mem_ip, y.mem_insn);
		print_why_ek(&y);
		if (y.root != RP_WHY_LOAD_MEM || y.root_at != y.mem_at)
			printf("; root %s at %" PRIu64 " (%#" PRIx64 " %s)",
			       rp_why_name(y.root), y.root_at + 1, y.root_ip,
			       y.root_insn);
		printf("\n");
		return;
	}
}

int cli_values(int argc, char **argv)
{
	uint64_t at = UINT64_MAX, mem = 0, len = 64, end, pos;
	bool have_mem = false, all = false, why = false;
	struct rp_recover_stats st;
	struct rp_recover *rc;
	struct rp_session *s;
	struct rp_regs r;
	unsigned int g;
	long tid = -1;
	int a, ret;
	const struct cli_opt opts[] = {
		CLI_OPT("thread", 0, CLI_TID, &tid, "TID",
			"the thread (default: the first)"),
		CLI_REQ_OPT("at", 0, CLI_U64, &at, "N",
			    "before instruction N (1-based, as ptrec insns)"),
		CLI_OPT("mem", 0, CLI_U64, &mem, "ADDR",
			"also memory from ADDR (0x... for hexadecimal)"),
		CLI_OPT("len", 0, CLI_U64, &len, "L",
			"bytes of memory with --mem (default 64)"),
		CLI_FLAG_OPT("stats", 0, &all, "also what the engine did"),
		CLI_FLAG_OPT("why", 0, &why,
			     "why each register not known is not"),
		CLI_END,
	};
	const struct cli_cmd cmd = {
		.name = "ptrec values", .synopsis = "BUNDLE --at N",
		.opts = opts,
		.min_args = 1, .max_args = 1,
		.more = "Registers and memory recovered in the past from the "
			"trace and the end snapshot\n(docs/values.md); "
			"'unknown' is what the history does not imply.\n",
	};

	a = cli_parse(&cmd, argc, argv);
	if (a < 0)
		return cli_exit(a);
	if (at == UINT64_MAX) {
		fprintf(stderr, "ptrec values: --at N is required\n");
		cli_usage(&cmd, stderr, false);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--mem", 5))
			have_mem = true;
	if (len > 65536) {
		fprintf(stderr, "ptrec values: --len %" PRIu64
			": at most 65536 bytes\n", len);
		return 2;
	}
	s = cli_session_open("values", argv[a]);
	if (!s)
		return 1;
	if (tid < 0) {
		tid = rp_thread_tid(s, 0);
	} else if (cli_thread_check("ptrec values", s, argv[a], tid)) {
		rp_session_close(s);
		return 1;
	}
	ret = rp_thread_end(s, (uint32_t)tid, &end, NULL);
	if (!ret && (at < 1 || at - 1 > end)) {
		fprintf(stderr, "ptrec values: --at %" PRIu64
			": thread %ld has instructions 1 to %" PRIu64
			" (%" PRIu64 ": its end)\n", at, tid, end, end + 1);
		rp_session_close(s);
		return 1;
	}
	if (!ret)
		ret = rp_recover_new(s, (uint32_t)tid, &rc);
	if (ret) {
		fprintf(stderr, "ptrec values: thread %ld: %s\n", tid,
			rp_errstr(ret));
		rp_session_close(s);
		return 1;
	}
	pos = at - 1;
	/* --why: the windows before first, oldest first, as far as the
	 * chain and the ramp reach (32 windows of 16,384 instructions), so
	 * that what they send forward is there when it is asked why.
	 */
	if (why) {
		uint64_t q = end > 32 * 16384ull ? end - 32 * 16384ull : 1;

		for (; q < pos; q += 16384)
			rp_recover_regs(rc, q, &r);
	}
	printf("thread %ld before instruction %" PRIu64 " (%" PRIu64
	       " before the end)\n", tid, at, end - pos);
	ret = rp_recover_regs(rc, pos, &r);
	if (ret) {
		fprintf(stderr, "ptrec values: %s\n", rp_errstr(ret));
	} else {
		for (g = 0; g < 16; g++) {
			uint64_t v = 0, k = 0;

			if (pos == end || rp_recover_reg_bits(rc, pos, g, &v,
							       &k)) {
				v = r.val[g];
				k = r.valid >> g & 1 ? ~0ull : 0;
			}
			print_reg(names[g], v, k);
		}
		if (r.valid >> RP_REG_RIP & 1)
			print_reg("rip", r.val[RP_REG_RIP], ~0ull);
		{
			uint64_t v = 0, k = 0;

			if (pos == end || rp_recover_reg_bits(rc, pos,
						RP_REG_EFLAGS, &v, &k)) {
				v = r.val[RP_REG_EFLAGS];
				k = r.valid >> RP_REG_EFLAGS & 1 ? ~0ull : 0;
			}
			print_reg("eflags", v, k);
		}
	}
	if (why && !ret)
		print_why(rc, pos);
	if (have_mem)
		print_mem(rc, pos, mem, len);
	if (have_mem && why)
		print_why_mem(rc, pos, mem, len);
	if (all) {
		rp_recover_stats(rc, &st);
		printf("windows %" PRIu64 ", instructions %" PRIu64
		       ", passes %" PRIu64 ", conflicts %" PRIu64
		       ", unexplained transfers %" PRIu64 "\n", st.windows,
		       st.insns, st.passes, st.conflicts, st.async);
		printf("knowledge stops at: %" PRIu64 " unproven branches, %"
		       PRIu64 " stores of unknown address, %" PRIu64
		       " system calls, %" PRIu64 " undecoded instructions\n",
		       st.unproven, st.st_unknown, st.sys_barrier,
		       st.undecoded);
	}
	rp_recover_free(rc);
	rp_session_close(s);
	return ret ? 1 : 0;
}
