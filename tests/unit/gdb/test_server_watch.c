// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The GDB server's watchpoints (#18) as GDB's packets arrive, on a
 * recording of tests/gdb/watchval (total goes 1, 4, 13, 40, 121, 364):
 * Z2/Z3/Z4 and z2, the stop reasons (watch:, rwatch:, awatch: with the
 * address), a plain stop (T00) at a store of unknown address with the
 * monitor's "may have written", and "ptrec watch-unknown skip".  And
 * on a recording of tests/gdb/watchvm vfork: another process's writes
 * to shared memory stop in a thread of the watchpoint's process.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "server.h"

static struct server sv;

static void setup(void)
{
	cr_assert_eq(target_open(&sv.tg, WATCH_BUNDLE), 0);
}

static void teardown(void)
{
	monitor_free(&sv.mon);
	target_close(&sv.tg);
}

TestSuite(server_watch, .init = setup, .fini = teardown);

/* Serves @pkts (NULL-terminated payloads) in no-ack mode; the replies'
 * payloads, one per line, hex-decoded when they are console output.
 */
static char *serve(const char *const *pkts)
{
	int in = memfd_create("in", 0), out = memfd_create("out", 0);
	FILE *f = fdopen(dup(in), "w");
	char *raw, *res, *p, *q;
	off_t size;

	cr_assert(in >= 0 && out >= 0 && f);
	fprintf(f, "$QStartNoAckMode#b0+");
	for (; *pkts; pkts++) {
		unsigned int sum = 0;
		const char *c;

		for (c = *pkts; *c; c++)
			sum += (unsigned char)*c;
		fprintf(f, "$%s#%02x", *pkts, sum & 0xff);
	}
	fclose(f);
	lseek(in, 0, SEEK_SET);
	server_start(&sv, in, out);
	server_run(&sv, in, out);
	size = lseek(out, 0, SEEK_END);
	raw = calloc(1, (size_t)size + 1);
	res = calloc(1, 2 * (size_t)size + 1);
	cr_assert(raw && res);
	cr_assert_eq(pread(out, raw, (size_t)size, 0), size);
	q = res;
	for (p = raw; (p = strchr(p, '$'));) {
		char *end = strchr(p, '#');

		cr_assert(end);
		if (p[1] == 'O' && p[2] != 'K') {	/* console: hex */
			char *h;

			for (h = p + 2; h + 1 < end; h += 2) {
				unsigned int b;

				sscanf(h, "%2x", &b);
				*q++ = (char)b;
			}
		} else {
			memcpy(q, p + 1, (size_t)(end - p - 1));
			q += end - p - 1;
			*q++ = '\n';
		}
		p = end;
	}
	free(raw);
	close(in);
	close(out);
	return res;
}

static char *hexcmd(const char *cmd)
{
	char *s = malloc(7 + 2 * strlen(cmd) + 1), *p;

	cr_assert(s);
	p = s + sprintf(s, "qRcmd,");
	for (; *cmd; cmd++)
		p += sprintf(p, "%02x", (unsigned char)*cmd);
	return s;
}

Test(server_watch, watch_stops_and_reasons)
{
	char z2[64], z2r[64], z3[64], z4[64], want[64];
	char *skip = hexcmd("ptrec watch-unknown skip");
	char *last = hexcmd("ptrec watch-last");
	const char *pkts[] = { z2, "bc", last, skip, "bc", "bc", "c", z2r,
			       z3, "bc", z4, "bc", "z4,1,1", "D", NULL };
	char *out;

	snprintf(z2, sizeof(z2), "Z2,%x,8", (unsigned int)WATCH_TOTAL);
	snprintf(z2r, sizeof(z2r), "z2,%x,8", (unsigned int)WATCH_TOTAL);
	snprintf(z3, sizeof(z3), "Z3,%x,4", (unsigned int)WATCH_STEP);
	snprintf(z4, sizeof(z4), "Z4,%x,4", (unsigned int)WATCH_STEP);
	out = serve(pkts);
	/* Z2 accepted; back from the end, the exit path's stores of
	 * unknown address come first: a plain stop, and the monitor says
	 * why.
	 */
	cr_assert(strstr(out, "OK\nOK\nT00thread:"), "%s", out);
	cr_assert(strstr(out, "may have written 8 bytes at"), "%s", out);
	/* In stop mode the advice names both modes that would pass it. */
	cr_assert(strstr(out, "set ptrec watch-unknown stack: stores "),
		  "%s", out);
	cr_assert(strstr(out, "set ptrec watch-unknown skip: only stores"),
		  "%s", out);
	/* Skipped: the last write of total (121 -> 364), values known. */
	snprintf(want, sizeof(want), "watch:%x;", (unsigned int)WATCH_TOTAL);
	cr_assert(strstr(out, want), "%s", out);
	/* rwatch and awatch on step. */
	snprintf(want, sizeof(want), "rwatch:%x;", (unsigned int)WATCH_STEP);
	cr_assert(strstr(out, want), "%s", out);
	snprintf(want, sizeof(want), "awatch:%x;", (unsigned int)WATCH_STEP);
	cr_assert(strstr(out, want), "%s", out);
	free(out);
	free(skip);
	free(last);
}

Test(server_watch, bad_and_removed)
{
	char z2[64], z2r[64];
	const char *pkts[] = { "Z2,1000,0", "Z2,1000", z2, z2r, z2r, "bc",
			       "D", NULL };
	char *out;

	snprintf(z2, sizeof(z2), "Z2,%x,8", (unsigned int)WATCH_TOTAL);
	snprintf(z2r, sizeof(z2r), "z2,%x,8", (unsigned int)WATCH_TOTAL);
	out = serve(pkts);
	/* A zero length is refused, a missing one malformed; removing
	 * twice is not an error; nothing watched: to the start.
	 */
	cr_assert(strstr(out, "OK\nE16\nE01\nOK\nOK\nOK\nT05thread:"),
		  "%s", out);
	cr_assert(strstr(out, "replaylog:begin;"), "%s", out);
	free(out);
}

/*
 * Another process sharing the memory (gdb/server/target_watch.c): a
 * recording of tests/gdb/watchvm vfork, main (the first thread) and the
 * child made by clone(CLONE_VM | CLONE_VFORK | CLONE_CHILD_CLEARTID |
 * SIGCHLD), which stores 0x77 to word and exits (0 there).  A watchpoint
 * of main's process: both writes are reported in main's thread, the
 * watched bytes read there are those before (back) or after (forward)
 * the write, and the monitor names the child.  One of the child's own
 * process: reported in the child, as before.
 */
static void vm_setup(void)
{
	cr_assert_eq(target_open(&sv.tg, VM_BUNDLE), 0);
	cr_assert_eq(rp_timeline_count(sv.tg.tl), 2);
	cr_assert_neq(sv.tg.pids[0], sv.tg.pids[1]);
}

TestSuite(server_watchvm, .init = vm_setup, .fini = teardown);

Test(server_watchvm, shown_in_the_watching_process)
{
	char hg[32], z2[64], mem[64], exitw[128], storew[128], who[128];
	char want[512];
	char *skip = hexcmd("ptrec watch-unknown skip");
	char *last = hexcmd("ptrec watch-last");
	const char *pkts[] = { skip, hg, z2, "bc", mem, last, "bc", last,
			       "c", "c", mem, last, "D", NULL };
	uint32_t m = sv.tg.tids[0], c = sv.tg.tids[1];
	char *out, *p;

	snprintf(hg, sizeof(hg), "Hg%x", m);
	snprintf(z2, sizeof(z2), "Z2,%lx,4", (unsigned long)VM_WORD);
	snprintf(mem, sizeof(mem), "m%lx,4", (unsigned long)VM_WORD);
	out = serve(pkts);
	/* Back from the end: the child's exit, in main's thread, with the
	 * word as it was before it (0x77); then the child's store (its
	 * value before is unknown: a plain stop), in main's thread too.
	 */
	snprintf(exitw, sizeof(exitw), "T05thread:%x;watch:%lx;", m,
		 (unsigned long)VM_WORD);
	snprintf(storew, sizeof(storew), "T00thread:%x;", m);
	snprintf(who, sizeof(who), "ptrec: process %u (thread %u) shares "
		 "process %u's memory", c, c, m);
	snprintf(want, sizeof(want), "%s\n77000000\n%s", exitw, who);
	cr_assert(strstr(out, want), "%s", out);
	cr_assert(strstr(out, "ended in the exit(2) system call"), "%s", out);
	p = strstr(out, want) + strlen(want);
	cr_assert(strstr(p, storew), "%s", out);
	snprintf(want, sizeof(want), "(process %u, thread %u, instruction 3) "
		 "wrote 4 bytes at %#lx: process %u shares process %u's "
		 "memory", c, c, (unsigned long)VM_WORD, c, m);
	cr_assert(strstr(p, want), "%s", out);
	/* Forward: the store again, then the exit, the word 0 after it. */
	p = strstr(p, storew) + strlen(storew);
	cr_assert(strstr(p, storew), "%s", out);
	snprintf(want, sizeof(want), "%s\n00000000\n%s", exitw, who);
	cr_assert(strstr(p, want), "%s", out);
	/* Never a stop in the child. */
	snprintf(want, sizeof(want), "thread:%x;", c);
	cr_assert(!strstr(out, want), "%s", out);
	free(out);
	free(skip);
	free(last);
}

Test(server_watchvm, own_process_unchanged)
{
	char hg[32], z2[64], want[128];
	char *skip = hexcmd("ptrec watch-unknown skip");
	char *last = hexcmd("ptrec watch-last");
	const char *pkts[] = { skip, hg, z2, "bc", last, "D", NULL };
	uint32_t c = sv.tg.tids[1];
	char *out;

	/* The child's own watchpoint: its exit, in its thread. */
	snprintf(hg, sizeof(hg), "Hg%x", c);
	snprintf(z2, sizeof(z2), "Z2,%lx,4", (unsigned long)VM_WORD);
	out = serve(pkts);
	snprintf(want, sizeof(want), "T05thread:%x;watch:%lx;", c,
		 (unsigned long)VM_WORD);
	cr_assert(strstr(out, want), "%s", out);
	cr_assert(!strstr(out, "shares process"), "%s", out);
	free(out);
	free(skip);
	free(last);
}
