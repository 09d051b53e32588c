// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Monitor commands: GDB's record instruction-history and
 * function-call-history layouts ("ptrec insns", "ptrec calls"), "ptrec goto",
 * "ptrec position" and "ptrec bundle", on the selected thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor.h"

int parse_number(const char **s, unsigned long long *v)
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

/*
 * GDB's history ranges: none (the ten lines up to @cur), "N" (ten around
 * N), "N,M", "+" and "-" (the ten after or before the last shown).  Lines
 * are numbered from 1; the result is [*first, *end) 0-based, within @total.
 */
static int parse_range(struct monitor *m, const char *arg, uint64_t cur,
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
		*first = m->last_end;
		*end = *first + 10;
	} else if (!strcmp(arg, "-")) {
		*end = m->last_first;
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
	m->last_first = *first;
	m->last_end = *end;
	return 0;
}

/* The refusal of a history range, naming it; the plugin raises it. */
static void bad_range(const char *cmd, const char *arg, struct text *out)
{
	int len = (int)strcspn(cmd, " ");

	while (*arg == ' ')
		arg++;
	text_add(out, "ptrec %.*s: '%.100s' is not a range; "
		 "usage: ptrec %s [N|N,M|+|-] (1 <= N <= M)\n", len, cmd,
		 arg, cmd);
}

/* "ptrec insns [/r] [RANGE]": GDB's record instruction-history. */
static void monitor_insns(struct monitor *m, struct target *tg,
			  const char *arg, struct text *out)
{
	size_t cur = rp_timeline_selected(tg->tl);
	struct rp_cursor *c = rp_timeline_cursor(tg->tl, cur);
	uint64_t pos = rp_timeline_pos(tg->tl, cur);
	uint64_t n = rp_timeline_end(tg->tl, cur);
	uint32_t tid = rp_timeline_tid(tg->tl, cur);
	uint64_t first, end, p, ev;
	struct rp_event e;
	struct rp_insn insn;
	char line[1024];
	bool raw = false;
	size_t start = out->n;

	while (*arg == ' ')
		arg++;
	if (*arg == '/') {
		raw = strchr(arg, 'r') != NULL;
		arg += strcspn(arg, " ");
	}
	if (parse_range(m, arg, pos < n ? pos : n - 1, n, &first, &end)) {
		bad_range("instruction-history [/r]", arg, out);
		return;
	}
	ev = rp_thread_event_find(tg->s, tid, first + 1);
	for (p = first; p < end && out->n - start < 63 * 1024; p++) {
		if (rp_cursor_peek(c, p, &insn) ||
		    rp_format_insn(tg->s, &insn, p, raw, p == pos, line,
				   sizeof(line)))
			break;
		text_add(out, "%s\n", line);
		/* The trace's events after it, as GDB shows them inline. */
		for (; !rp_thread_event(tg->s, tid, ev, &e) &&
		       e.before == p + 1; ev++)
			if (e.kind != RP_EV_OVERFLOW &&
			    !rp_format_event(tg->s, tid, &e, &insn, line,
					     sizeof(line)))
				text_add(out, "[%s]\n", line);
	}
	if (out->n == start)
		text_add(out, "no instructions in that range\n");
}

/*
 * "ptrec calls [/cli] [RANGE]": GDB's record function-call-history;
 * "ptrec calls count": how many calls, the current one's number, and the
 * thread's instructions and gaps (GDB's info record line); "ptrec calls
 * gaps": where the gaps inside the history fall among the calls.
 */
static void monitor_calls(struct monitor *m, struct target *tg,
			  const char *arg, struct text *out)
{
	size_t cur = rp_timeline_selected(tg->tl), start = out->n;
	uint32_t tid = rp_timeline_tid(tg->tl, cur);
	uint64_t pos = rp_timeline_pos(tg->tl, cur);
	bool tree = false, lines = false, range = false;
	uint64_t first, end, at = 0, i;
	char line[4096];

	while (*arg == ' ')
		arg++;
	if (*arg == '/') {
		size_t len = strcspn(arg, " ");

		tree = memchr(arg, 'c', len) != NULL;
		lines = memchr(arg, 'l', len) != NULL;
		range = memchr(arg, 'i', len) != NULL;
		arg += len;
	}
	if (!m->calls || m->calls_tid != tid) {
		free(m->calls);
		m->calls = NULL;
		if (rp_calls_build(tg->s, tid, &m->calls, &m->ncalls)) {
			text_add(out, "cannot build the call history\n");
			return;
		}
		m->calls_tid = tid;
	}
	for (i = 0; i < m->ncalls; i++)
		if (m->calls[i].first <= pos)
			at = i;
	if (!strcmp(arg, "count")) {	/* history ranges, info record */
		struct rp_thread_info ti = { 0 };

		rp_thread_info(tg->s, tid, &ti);
		text_add(out, "%zu calls, the current is %" PRIu64 ", %"
			 PRIu64 " instructions, %" PRIu64 " gaps\n",
			 m->ncalls, at + 1, ti.insns, ti.ngaps);
		return;
	}
	if (!strcmp(arg, "gaps")) {
		/* For the plugin's btrace numbering: "gap CALL TEXT", CALL
		 * the 0-based index of the call segment a gap inside the
		 * history comes before.
		 */
		struct rp_gap g;
		uint64_t k, c = 0;

		for (k = 0; !rp_thread_gap(tg->s, tid, k, &g); k++) {
			while (c < m->ncalls && m->calls[c].first < g.before)
				c++;
			if (!g.before || c >= m->ncalls)
				continue;
			rp_format_gap(&g, line, sizeof(line));
			text_add(out, "gap %" PRIu64 " %s\n", c, line);
		}
		return;
	}
	if (parse_range(m, arg, at, m->ncalls, &first, &end)) {
		bad_range("function-call-history [/cli]", arg, out);
		return;
	}
	for (i = first; i < end && out->n - start < 60 * 1024; i++) {
		rp_format_call(&m->calls[i], i, tree, lines, range, line,
			       sizeof(line));
		text_add(out, "%s\n", line);
	}
	if (out->n == start)
		text_add(out, "no calls in that range\n");
}

/*
 * "ptrec goto begin|end|N": N is an instruction number, 1 to @n + 1 (the
 * end), in decimal.  Anything else ("", "10x", "abc", "-1", too large)
 * is refused with a message that starts with "ptrec goto:".
 */
static int parse_goto(const char *arg, uint64_t n, uint64_t *to,
		      struct text *out)
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
		text_add(out, "ptrec goto: '%s' is not begin, end or "
			 "an instruction number (1 to %" PRIu64 ")\n", arg,
			 n + 1);
		return -1;
	}
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno == ERANGE || !v || v > n + 1) {
		text_add(out, "ptrec goto: no instruction %.*s: "
			 "the history has 1 to %" PRIu64 " (%" PRIu64
			 " is the end)\n", (int)(end - arg), arg, n, n + 1);
		return -1;
	}
	*to = v;
	return 0;
}

static void run(struct monitor *m, struct target *tg, const char *cmd,
		struct text *out);

/*
 * The stop at a thread's lone exit(2) (hit @h, replay/watch_exit.c): the
 * system call after instruction @h->pos (at @h->pos + 1, instruction
 * @h->pos + 2 counted from 1, the one the thread never returned from),
 * where the kernel clears its clear_child_tid word and marks the robust
 * futexes it holds, after the thread's last instruction and before the
 * end snapshot.
 */
/*
 * Where the exit(2) of hit @h is: the system call after its last
 * instruction (@h->pos + 1), or that instruction itself where the
 * history holds the call (a process sharing another's memory whose
 * snapshot was taken after it, replay/watch_exit.c).  Its position into
 * *@at, its instruction into @sys (ip 0 when unknown).
 */
static void exit_sys(struct target *tg, const struct rp_watch_hit *h,
		     uint64_t *at, struct rp_insn *sys)
{
	long i = rp_timeline_find(tg->tl, h->tid);
	struct rp_cursor *c;

	*at = h->pos + 1;
	if (i < 0) {
		sys->ip = 0;
		return;
	}
	c = rp_timeline_cursor(tg->tl, (size_t)i);
	if (!rp_cursor_peek(c, h->pos + 1, sys))
		return;
	*at = h->pos;
	if (rp_cursor_peek(c, h->pos, sys) ||
	    !(rp_insn_is_syscall(sys) || rp_insn_is_int80(sys))) {
		*at = h->pos + 1;
		sys->ip = 0;
	}
}

static void exit_msg(struct target *tg, const struct rp_watch_hit *h,
		     struct text *out)
{
	struct rp_insn sys;
	uint64_t at;

	exit_sys(tg, h, &at, &sys);
	text_add(out, "ptrec: thread %u ended in the exit(2) system call at %#"
		 PRIx64 " (instruction %" PRIu64 "), before the end "
		 "snapshot: ", h->tid, sys.ip, at + 1);
	if (!h->maybe)
		text_add(out, "the kernel wrote %" PRIu64 " bytes at %#" PRIx64
			 " there (%s)\n", h->acc_size, h->acc_addr,
			 h->new_known && !h->new_val ?
			 "its clear_child_tid word, 0 after it" :
			 "a robust futex it held, marked FUTEX_OWNER_DIED");
	else if (h->kind == RP_ACC_WRITE && h->acc_size)
		text_add(out, "the kernel may have written %" PRIu64
			 " bytes at %#" PRIx64 " there (a futex word on its robust list, "
			 "written if the thread still held it: its value is "
			 "not known)\n", h->acc_size, h->acc_addr);
	else
		text_add(out, "the kernel may have %s the watched %" PRIu64
			 " bytes at %#" PRIx64 " there (exit(2) clears the "
			 "thread's clear_child_tid word and marks its robust "
			 "futexes; where they are is not known)\n",
			 h->kind == RP_ACC_READ ? "read" : "written", h->len,
			 h->addr);
}

/* A write the kernel made between two instructions (watch_kern.c). */
static void kernel_msg(const struct rp_watch_hit *h, uint64_t ip,
		       struct text *out)
{
	text_add(out, "ptrec: after the instruction at %#" PRIx64 " (thread "
		 "%u, instruction %" PRIu64 "), ", ip, h->tid, h->pos + 1);
	if (h->kernel == RP_WATCH_KERNEL_RSEQ) {
		text_add(out, "the kernel may have written the watched %" PRIu64
			 " bytes at %#" PRIx64 ": they are in the thread's "
			 "rseq area, which it rewrites (cpu_id_start, cpu_id, "
			 "rseq_cs, node_id, mm_cid) when the thread resumes "
			 "after a preemption or a migration, which the trace "
			 "does not show exactly (set ptrec watch-unknown skip: "
			 "these do not stop)\n", h->len, h->addr);
		return;
	}
	if (h->kernel == RP_WATCH_KERNEL_VSYSCALL) {
		if (!h->maybe)
			text_add(out, "the kernel wrote %" PRIu64 " bytes at %#"
				 PRIx64 " emulating the call into the legacy "
				 "vsyscall page (time, gettimeofday or getcpu: "
				 "its outputs)\n", h->acc_size, h->acc_addr);
		else
			text_add(out, "the kernel emulated the call into the "
				 "legacy vsyscall page (time, gettimeofday or "
				 "getcpu), whose output pointer is not known: it "
				 "may have written the watched %" PRIu64
				 " bytes at %#" PRIx64 " (set ptrec watch-unknown "
				 "skip: writes of unknown address do not stop)\n",
				 h->len, h->addr);
		return;
	}
	if (h->kernel == RP_WATCH_KERNEL_PARTIAL && h->acc_size)
		text_add(out, "a signal's delivery interrupted the next "
			 "instruction (a repeated string store or a scatter), "
			 "which had stored element by element before it: it "
			 "may have written %" PRIu64 " bytes at %#" PRIx64
			 "\n", h->acc_size, h->acc_addr);
	else if (h->kernel == RP_WATCH_KERNEL_PARTIAL)
		text_add(out, "a signal's delivery interrupted the next "
			 "instruction (a repeated string store or a scatter), "
			 "which had stored element by element before it, "
			 "where is not known: it may have written the watched "
			 "%" PRIu64 " bytes at %#" PRIx64 " (set ptrec "
			 "watch-unknown skip: writes of unknown address do "
			 "not stop)\n", h->len, h->addr);
	else if (!h->maybe)
		text_add(out, "the kernel wrote %" PRIu64 " bytes at %#" PRIx64
			 " delivering a signal: the handler's frame (its "
			 "return address, ucontext and siginfo)\n",
			 h->acc_size, h->acc_addr);
	else if (h->acc_size)
		text_add(out, "the kernel may have written %" PRIu64
			 " bytes at %#" PRIx64 " delivering a signal: the "
			 "FPU state of the handler's frame (its xsave area)\n",
			 h->acc_size, h->acc_addr);
	else
		text_add(out, "the kernel wrote a signal frame delivering a "
			 "signal, at the handler's stack pointer, which is not "
			 "known: it may have written the watched %" PRIu64
			 " bytes at %#" PRIx64 " (set ptrec watch-unknown "
			 "skip: writes of unknown address do not stop)\n",
			 h->len, h->addr);
}

/*
 * Watchpoints (#18): "ptrec watch-last" says what the last stop at a
 * watchpoint was (the plugin prints it at each such stop: a store whose
 * address is unknown "may have written", a load "may have read");
 * "ptrec watch-unknown stop|stack|skip" sets what such accesses do (enum
 * rp_watch_unknown).
 */
static void monitor_watch(struct target *tg, const char *arg,
			  struct text *out)
{
	struct rp_watch_hit h;
	struct rp_insn insn;
	unsigned int known;
	uint64_t at;
	long i;

	static const char *const mode[] = {
		[RP_WATCH_UNKNOWN_SKIP] = "skip",
		[RP_WATCH_UNKNOWN_STOP] = "stop",
		[RP_WATCH_UNKNOWN_STACK] = "stack",
	};
	size_t k;

	for (k = 0; k < sizeof(mode) / sizeof(mode[0]); k++)
		if (!strncmp(arg, "unknown ", 8) && !strcmp(arg + 8, mode[k])) {
			rp_timeline_watch_unknown(tg->tl, (int)k);
			return;
		}
	if (!strcmp(arg, "unknown")) {
		text_add(out, "%s\n",
			 mode[rp_timeline_watch_unknown_get(tg->tl)]);
		return;
	}
	if (strcmp(arg, "last")) {
		text_add(out, "unknown monitor command 'ptrec watch-%s'\n",
			 arg);
		return;
	}
	if (rp_timeline_watch_hit(tg->tl, &h))
		return;		/* not at a watchpoint: nothing to say */
	if (target_watch_shown(tg, &h))
		target_watch_shown_msg(tg, &h, out);
	i = rp_timeline_find(tg->tl, h.tid);
	if (i < 0 || rp_cursor_peek(rp_timeline_cursor(tg->tl, (size_t)i),
				    h.pos, &insn))
		insn.ip = 0;
	if (h.kernel) {
		kernel_msg(&h, insn.ip, out);
	} else if (h.exit || (h.gap && h.syscall)) {
		exit_msg(tg, &h, out);
	} else if (h.gap) {
		text_add(out, "ptrec: the trace has a gap after the "
			 "instruction at %#" PRIx64 " (thread %u, instruction %"
			 PRIu64 ")", insn.ip, h.tid, h.pos + 1);
		if (h.gap_bytes)
			text_add(out, ": it lost %" PRIu64 " bytes here",
				 h.gap_bytes);
		text_add(out, ": code that ran there may have %s the watched "
			 "%" PRIu64 " bytes at %#" PRIx64 " (set ptrec "
			 "watch-unknown skip: gaps do not stop)\n",
			 h.kind == RP_ACC_READ ? "read" : "written", h.len,
			 h.addr);
	} else if (h.maybe) {
		const char *what = h.kind == RP_ACC_READ ? "load" : "store";
		bool stack = rp_timeline_watch_unknown_get(tg->tl) ==
			     RP_WATCH_UNKNOWN_STACK;

		/* The advice names the modes that would pass it. */
		text_add(out, "ptrec: the %s at %#" PRIx64 " (thread %u, "
			 "instruction %" PRIu64 ") may have %s %" PRIu64
			 " bytes at %#" PRIx64 ": its address is unknown (",
			 h.syscall ? "system call" : what, insn.ip, h.tid,
			 h.pos + 1, h.kind == RP_ACC_READ ? "read" : "written",
			 h.len, h.addr);
		if (stack)
			text_add(out, "watch-unknown stack passes only %ss "
				 "relative to the stack pointer or fs, and "
				 "this one is not bounded away; ", what);
		else
			text_add(out, "set ptrec watch-unknown stack: %ss "
				 "relative to the stack pointer or fs pass "
				 "where the watched bytes are not there; ",
				 what);
		text_add(out, "set ptrec watch-unknown skip: only %ss of "
			 "known address stop)\n", what);
	} else if (h.syscall && !h.exit)
		text_add(out, "ptrec: the system call at %#" PRIx64
			 " (thread %u, instruction %" PRIu64 ") wrote %"
			 PRIu64 " bytes at %#" PRIx64 "\n", insn.ip, h.tid,
			 h.pos + 1, h.acc_size, h.acc_addr);
	known = h.maybe || h.kernel || h.type != RP_WATCH_WRITE ? 3 :
		target_watch_known(tg, &h);
	at = h.pos;
	if (h.exit)
		exit_sys(tg, &h, &at, &insn);
	if (known != 3)
		text_add(out, "ptrec: the %s at %#" PRIx64 " (thread %u, "
			 "instruction %" PRIu64 ") wrote %" PRIu64 " bytes at %#"
			 PRIx64 "; the watched value %s it is unknown, so GDB "
			 "cannot compare them (docs/values.md)\n",
			 h.exit ? "exit(2) system call" :
			 h.syscall ? "system call" : "store", insn.ip, h.tid,
			 at + 1, h.acc_size, h.acc_addr,
			 known == 2 ? "before" : known == 1 ? "after" :
			 "before and after");
}

/*
 * "ptrec thread TID CMD" runs "ptrec CMD" on thread TID (decimal), the
 * thread GDB has selected (the plugin names it: GDB sends Hg only before
 * it reads registers), leaving the selection GDB knows of unchanged.
 */
void monitor_run(struct monitor *m, struct target *tg, const char *cmd,
		 struct text *out)
{
	size_t was = rp_timeline_selected(tg->tl);
	unsigned long long tid;
	const char *p = cmd + 12;
	char sub[512];
	long i;

	if (strncmp(cmd, "ptrec thread", 12)) {
		run(m, tg, cmd, out);
		return;
	}
	if (parse_number(&p, &tid) || tid > UINT32_MAX ||
	    (i = rp_timeline_find(tg->tl, (uint32_t)tid)) < 0) {
		text_add(out, "ptrec: no thread '%.40s' in the recording\n",
			 cmd + 12);
		return;
	}
	snprintf(sub, sizeof(sub), "ptrec %s", p);
	rp_timeline_select(tg->tl, (size_t)i);
	run(m, tg, sub, out);
	rp_timeline_select(tg->tl, was);
}

static void run(struct monitor *m, struct target *tg, const char *cmd,
		struct text *out)
{
	size_t cur = rp_timeline_selected(tg->tl);
	uint32_t tid = rp_timeline_tid(tg->tl, cur);
	uint64_t pos = rp_timeline_pos(tg->tl, cur);
	uint64_t n = rp_timeline_end(tg->tl, cur), to;

	if (!strncmp(cmd, "ptrec insns", 11)) {
		monitor_insns(m, tg, cmd + 11, out);
	} else if (!strncmp(cmd, "ptrec calls", 11)) {
		monitor_calls(m, tg, cmd + 11, out);
	} else if (!strcmp(cmd, "ptrec bundle")) {
		/* Where the plugin finds the bundle and the ptrec CLI (next
		 * to this server) to run ptrec info and ptrec export on it.
		 */
		char dir[PATH_MAX], self[PATH_MAX];
		ssize_t len = readlink("/proc/self/exe", self,
				       sizeof(self) - 1);

		self[len > 0 ? len : 0] = '\0';
		if (!realpath(tg->dir, dir))
			snprintf(dir, sizeof(dir), "%s", tg->dir);
		text_add(out, "bundle %s\nserver %s\n", dir, self);
	} else if (!strcmp(cmd, "ptrec gaps")) {
		/* Where the thread's gaps are, for the plugin's btrace
		 * numbering: "gap BEFORE TEXT", BEFORE the position (0-based)
		 * of the first instruction after it.
		 */
		struct rp_gap g;
		char line[1024];
		uint64_t i;

		for (i = 0; !rp_thread_gap(tg->s, tid, i, &g); i++) {
			rp_format_gap(&g, line, sizeof(line));
			text_add(out, "gap %" PRIu64 " %s\n", g.before, line);
		}
	} else if (!strcmp(cmd, "ptrec exe")) {
		/* The program at the thread's position: the plugin loads it
		 * when GDB's differs (across an execve).
		 */
		char exe[4096];

		if (!rp_process_exe_at(tg->s, tid, pos, exe, sizeof(exe)))
			text_add(out, "exe %s\n", exe);
		else
			text_add(out, "no program\n");
	} else if (!strcmp(cmd, "ptrec refused")) {
		/* The write GDB was last refused (server.c), for the
		 * plugin's set variable: GDB 13 says only "Cannot access
		 * memory" of a memory write.  Asking forgets it.
		 */
		text_add(out, "refused %s\n",
			 m->refused[0] ? m->refused : "nothing");
		m->refused[0] = '\0';
	} else if (!strcmp(cmd, "ptrec position")) {
		if (pos < n)
			text_add(out, "thread %u position %" PRIu64 " of %"
				 PRIu64 "\n", tid, pos + 1, n);
		else
			text_add(out, "thread %u at the end, after %" PRIu64
				 " instructions\n", tid, n);
	} else if (!strcmp(cmd, "ptrec goto") ||
		   !strncmp(cmd, "ptrec goto ", 11)) {
		if (!parse_goto(cmd + 10, n, &to, out)) {
			rp_timeline_goto(tg->tl, cur, to - 1);
			text_add(out, "thread %u at %" PRIu64 "\n", tid, to);
		}
	} else if (!strncmp(cmd, "ptrec watch-", 12)) {
		monitor_watch(tg, cmd + 12, out);
	} else if (!strcmp(cmd, "ptrec values-strict on") ||
		   !strcmp(cmd, "ptrec values-strict off")) {
		/* Strict values (docs/values.md): no rule that rests on the
		 * program being free of a bug; GDB flushes its registers.
		 */
		target_values_strict(tg, !strcmp(cmd + 20, "on"));
	} else if (!strcmp(cmd, "ptrec values-strict")) {
		text_add(out, "%s\n", rp_session_values_strict(tg->s) ?
			 "on" : "off");
	} else if (!strncmp(cmd, "ptrec returns ", 14)) {
		/* What frame K of the published stack returns in rax, for
		 * the plugin's finish: "returns at N rax 0xV", "... rax
		 * unknown", or "no return".
		 */
		const char *q = cmd + 14;
		unsigned long long k;
		uint64_t at, rax;
		int r;

		if (parse_number(&q, &k) || *q) {
			text_add(out, "ptrec returns: not a frame number: "
				 "'%.40s'\n", cmd + 14);
			return;
		}
		r = frames_return(tg, cur, (size_t)k, &at, &rax);
		if (r < 0)
			text_add(out, "no return\n");
		else if (r)
			text_add(out, "returns at %" PRIu64 " rax 0x%" PRIx64
				 "\n", at + 1, rax);
		else
			text_add(out, "returns at %" PRIu64 " rax unknown\n",
				 at + 1);
	} else {
		text_add(out, "unknown monitor command '%s'\n", cmd);
	}
}

void monitor_free(struct monitor *m)
{
	free(m->calls);
	m->calls = NULL;
}
