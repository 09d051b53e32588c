// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptrec-server's server: answers GDB's typed requests (conn.h) over the
 * target (target.c), the timeline libptrec keeps (replay.h: positions,
 * breakpoints, the time order across threads) and the monitor commands
 * (monitor.c).  It never sees packet text: conn.c parses and encodes.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "amd64.h"
#include "server.h"

/*
 * The reply to a step or continue (@dir, 0 for a step) that stopped for
 * @why; @was the thread selected before it.
 */
static int stop_reply(struct server *sv, enum rp_stop why, int dir,
		      size_t was)
{
	size_t cur;
	struct stop st = { 0, 0, 5, NULL, NULL, 0 };

	/* Another process's access to shared memory is shown in a thread
	 * of the watchpoint's process, as GDB checks it only there
	 * (target_watch.c), where every thread moved to its moment.  A
	 * step, or a continue of one thread, stays in the thread GDB
	 * resumed.
	 */
	sv->tg.shown.on = false;
	if (why == RP_STOP_WATCH && dir && sv->cont_all)
		target_watch_show(&sv->tg, dir, was);
	cur = rp_timeline_selected(sv->tg.tl);
	st.pid = rp_timeline_pid(sv->tg.tl, cur);
	st.tid = rp_timeline_tid(sv->tg.tl, cur);
	st.signo = target_signo(&sv->tg);
	if (why == RP_STOP_WATCH) {
		static const char *const name[] = { NULL, "watch", "rwatch",
						    "awatch" };
		struct rp_watch_hit h;

		/*
		 * A store whose address is unknown is no watchpoint
		 * trigger GDB could check (it would resume when it cannot
		 * read the value either side): a plain stop (signal 0,
		 * "Thread N stopped."), the plugin prints why (monitor
		 * ptrec watch-last).
		 */
		if (!rp_timeline_watch_hit(sv->tg.tl, &h) &&
		    (h.maybe || (h.type == RP_WATCH_WRITE &&
				 !target_watch_values(&sv->tg, &h)))) {
			/* Nor is a write whose value before or after is
			 * unknown: GDB compares what it last saw with what
			 * it reads now, and would resume where it reads
			 * nothing twice.
			 */
			st.signo = 0;
		} else if (!rp_timeline_watch_hit(sv->tg.tl, &h)) {
			st.watch = name[h.type & 3];
			st.watch_addr = h.acc_addr > h.addr ? h.acc_addr :
							      h.addr;
		}
		return conn_stop(&sv->c, &st);
	}
	/* A crash is a signal at the end, not the end of a replay log. */
	if (why == RP_STOP_BEGIN)
		st.edge = "begin";
	else if (why == RP_STOP_END && st.signo == 5)
		st.edge = "end";
	return conn_stop(&sv->c, &st);
}

/* The stop reply for where the selected thread is, as for "?". */
static int where_reply(struct server *sv)
{
	size_t cur = rp_timeline_selected(sv->tg.tl);
	struct stop st = { rp_timeline_pid(sv->tg.tl, cur),
			   rp_timeline_tid(sv->tg.tl, cur), 5, NULL, NULL, 0 };

	st.signo = target_signo(&sv->tg);
	return conn_stop(&sv->c, &st);
}

/*
 * Makes thread @tid (a tid, THREAD_ANY or THREAD_ALL) of process @pid (0
 * or THREAD_ALL: any) selected; "any thread of process P" keeps the
 * selected thread when it is P's, else selects P's first.  Returns 0, or
 * -1 when there is no such thread.
 */
static int select_thread(struct server *sv, long long pid, long long tid)
{
	struct rp_timeline *tl = sv->tg.tl;
	size_t i, n = rp_timeline_count(tl);
	long k;

	if (tid == THREAD_ANY || tid == THREAD_ALL) {
		if (pid <= 0 ||
		    rp_timeline_pid(tl, rp_timeline_selected(tl)) == pid)
			return 0;
		for (i = 0; i < n; i++)
			if (rp_timeline_pid(tl, i) == pid) {
				rp_timeline_select(tl, i);
				return 0;
			}
		return -1;
	}
	k = rp_timeline_find(tl, (uint32_t)tid);
	if (k < 0 || (pid > 0 && rp_timeline_pid(tl, (size_t)k) != pid))
		return -1;
	rp_timeline_select(tl, (size_t)k);
	return 0;
}

static uint32_t selected_pid(struct server *sv)
{
	return rp_timeline_pid(sv->tg.tl, rp_timeline_selected(sv->tg.tl));
}

static int read_regs(struct server *sv)
{
	struct regval v[AMD64_G_REGS];
	unsigned int r;

	/* GDB accepts a reply that stops after the registers it has. */
	for (r = 0; r < AMD64_G_REGS; r++)
		target_reg(&sv->tg, r, &v[r]);
	return conn_regs(&sv->c, v, AMD64_G_REGS);
}

static int read_reg(struct server *sv, unsigned int regno)
{
	struct regval v;

	if (target_reg(&sv->tg, regno, &v))
		return conn_error(&sv->c, 1);
	return conn_regs(&sv->c, &v, 1);
}

static int read_mem(struct server *sv, uint64_t addr, uint64_t len)
{
	uint8_t buf[4096];
	size_t n;

	if (len > sizeof(buf))
		len = sizeof(buf);
	n = target_read(&sv->tg, addr, buf, (size_t)len);
	/* Only code is recorded: data memory is unavailable. */
	if (!n)
		return conn_error(&sv->c, 0x14);
	return conn_memory(&sv->c, buf, n);
}

static int xfer(struct server *sv, const struct req *r)
{
	struct text t = { 0 };
	const char *xml;
	size_t len;
	int ret;

	switch (r->object) {
	case XFER_FEATURES:
		xml = amd64_target_xml(target_avx512(&sv->tg), &len);
		return conn_xfer(&sv->c, r, xml, len);
	case XFER_AUXV:
		target_auxv(&sv->tg, &t);
		break;
	case XFER_EXEC_FILE:
		target_exec_file(&sv->tg, (uint32_t)(r->pid > 0 ? r->pid : 0),
				 &t);
		break;
	case XFER_LIBRARIES:
		target_libraries_xml(&sv->tg, &t);
		break;
	case XFER_THREADS:
		target_threads_xml(&sv->tg, &sv->c, &t);
		break;
	case XFER_SIGINFO:
		if (target_siginfo(&sv->tg, &t)) {
			text_free(&t);
			return conn_error(&sv->c, 1);
		}
		break;
	}
	if (t.oom) {
		text_free(&t);
		return conn_error(&sv->c, 12);
	}
	ret = conn_xfer(&sv->c, r, t.p ? t.p : "", t.n);
	text_free(&t);
	return ret;
}

/* Host I/O: GDB reads the program and its libraries (hostio.c). */
static int file_op(struct server *sv, const struct req *r)
{
	static char buf[FILE_DATA_MAX];
	struct stat st;
	long long n;
	int err = 0;

	switch (r->file_op) {
	case FILE_SETFS:
		n = target_file_setfs(&sv->tg, r->pid, &err);
		break;
	case FILE_OPEN:
		n = target_file_open(&sv->tg, r->path, r->flags, &err);
		break;
	case FILE_PREAD:
		n = target_file_pread(&sv->tg, r->fd, buf,
				      r->len < sizeof(buf) ? r->len :
				      sizeof(buf), r->addr, &err);
		if (n >= 0)
			return conn_file_data(&sv->c, buf, (size_t)n);
		break;
	case FILE_CLOSE:
		n = target_file_close(&sv->tg, r->fd, &err);
		break;
	case FILE_FSTAT:
		n = target_file_fstat(&sv->tg, r->fd, &st, &err);
		if (!n)
			return conn_file_stat(&sv->c, &st);
		break;
	case FILE_READLINK:
		n = target_file_readlink(&sv->tg, r->path, buf, sizeof(buf),
					 &err);
		if (n >= 0)
			return conn_file_data(&sv->c, buf, (size_t)n);
		break;
	default:		/* the past's files are read-only */
		n = -1;
		err = FILEIO_EACCES;
		break;
	}
	return conn_file_result(&sv->c, n < 0 ? -1 : n, err);
}

static int monitor(struct server *sv, const char *cmd)
{
	struct text out = { 0 };
	int ret;

	monitor_run(&sv->mon, &sv->tg, cmd, &out);
	ret = out.oom ? 0 : conn_console(&sv->c, out.p ? out.p : "", out.n);
	text_free(&out);
	return ret ? ret : conn_ok(&sv->c);
}

/*
 * G, P, M, X: the past cannot be changed.  The reply says so in text
 * (E.TEXT, a standard reply), which GDB 13 shows for a register
 * ("Could not write register "rax"; remote failure reply 'E....'"); for
 * memory it says only "Cannot access memory at address", so what was
 * refused is kept for the plugin's set variable (monitor ptrec refused).
 * A write of no bytes changes nothing (GDB probes X with one): OK, as
 * rr answers it.
 */
static int refuse_write(struct server *sv, const struct req *r)
{
	struct monitor *m = &sv->mon;

	if (r->which == 'M' && !r->len)
		return conn_ok(&sv->c);
	if (r->which == 'M')
		snprintf(m->refused, sizeof(m->refused),
			 "memory 0x%" PRIx64 " %" PRIu64, r->addr, r->len);
	else if (r->which == 'P')
		snprintf(m->refused, sizeof(m->refused), "register %u",
			 r->regno);
	else
		snprintf(m->refused, sizeof(m->refused), "registers");
	return conn_error_text(&sv->c, "ptrec: the recorded history cannot "
			       "be changed, its registers and memory are "
			       "read-only");
}

int server_handle(struct server *sv, const struct req *r)
{
	struct rp_timeline *tl = sv->tg.tl;

	switch (r->type) {
	case REQ_UNSUPPORTED:
		return conn_unsupported(&sv->c);
	case REQ_BAD:
		return conn_error(&sv->c, 1);
	case REQ_WRITE:
		return refuse_write(sv, r);
	case REQ_INTERRUPT:
		return 0;	/* nothing runs */
	case REQ_STOP_REASON:
		return where_reply(sv);
	case REQ_READ_REGS:
		return read_regs(sv);
	case REQ_READ_REG:
		return read_reg(sv, r->regno);
	case REQ_READ_MEM:
		return read_mem(sv, r->addr, r->len);
	case REQ_BREAK_INSERT:
		/*
		 * No program maps the first 64 KiB (Linux's default
		 * mmap_min_addr): a breakpoint there is never hit.  The
		 * outermost recorded frame's caller is at 0, and GDB's until
		 * and advance put a breakpoint on the caller of the frame
		 * they start in: accepted, they stop at their location (they
		 * were refused, "Cannot insert breakpoint 0").  finish with
		 * that caller is refused by the plugin (its hook-finish), as
		 * GDB refuses it in the outermost frame.
		 */
		if (r->addr < 0x10000)
			return conn_ok(&sv->c);
		if (rp_timeline_break_insert(tl, r->addr))
			return conn_error(&sv->c, 1);
		return conn_ok(&sv->c);
	case REQ_BREAK_REMOVE:
		rp_timeline_break_remove(tl, r->addr);
		return conn_ok(&sv->c);
	case REQ_WATCH_INSERT:
		/* Any length, any number (docs/gdb.md, "Watchpoints"), for
		 * the selected thread's process (GDB sends Hg first).
		 */
		if (rp_timeline_watch_insert(tl, r->watch, r->addr, r->len))
			return conn_error(&sv->c, 0x16);
		if (target_watch_add(&sv->tg, r->watch, r->addr, r->len,
				     selected_pid(sv))) {
			rp_timeline_watch_remove(tl, r->watch, r->addr, r->len);
			return conn_error(&sv->c, 0x0c);
		}
		return conn_ok(&sv->c);
	case REQ_WATCH_REMOVE:
		rp_timeline_watch_remove(tl, r->watch, r->addr, r->len);
		target_watch_del(&sv->tg, r->watch, r->addr, r->len,
				 selected_pid(sv));
		return conn_ok(&sv->c);
	case REQ_STEP:
		if (r->has_thread)
			select_thread(sv, r->pid, r->thread);
		return stop_reply(sv, rp_timeline_step(tl, r->dir), 0, 0);
	case REQ_CONT: {
		size_t was;

		if (r->has_thread)
			select_thread(sv, r->pid, r->thread);
		was = rp_timeline_selected(tl);
		return stop_reply(sv, rp_timeline_continue(tl, r->dir,
							   sv->cont_all),
				  r->dir < 0 ? -1 : 1, was);
	}
	case REQ_SET_THREAD:
		/*
		 * Hg selects the thread for registers and memory; Hc the
		 * thread(s) that resume ("Hc TID" only that one, as GDB
		 * steps one thread in replay; "Hc -1" or "Hc 0" every
		 * thread, in time order).  Both make the named thread
		 * selected, as GDB expects.
		 */
		if (r->which == 'c')
			sv->cont_all = r->thread == THREAD_ALL ||
				       r->thread == THREAD_ANY;
		if (select_thread(sv, r->pid, r->thread))
			return conn_error(&sv->c, 1);
		return conn_ok(&sv->c);
	case REQ_THREAD_ALIVE:
		return conn_ok(&sv->c);	/* every recorded thread is */
	case REQ_KILL:
		/* vKill;PID and D;PID end one inferior of several: GDB
		 * ends the others, then the connection.
		 */
		sv->quit = r->pid <= 0;
		/* vKill is answered, k is not. */
		return r->which == 'v' ? conn_ok(&sv->c) : 0;
	case REQ_DETACH:
		sv->quit = r->pid <= 0;
		return conn_ok(&sv->c);
	case REQ_SUPPORTED:
		return conn_supported(&sv->c, r);
	case REQ_NOACK:
		return conn_noack(&sv->c);
	case REQ_XFER:
		return xfer(sv, r);
	case REQ_CURRENT_THREAD:
		return conn_current_thread(&sv->c,
			rp_timeline_pid(tl, rp_timeline_selected(tl)),
			rp_timeline_tid(tl, rp_timeline_selected(tl)));
	case REQ_THREADS_FIRST:
	case REQ_THREADS_NEXT:
		return conn_thread_list(&sv->c, sv->tg.pids, sv->tg.tids,
					rp_timeline_count(tl),
					r->type == REQ_THREADS_FIRST);
	case REQ_ATTACHED:
		return conn_attached(&sv->c);
	case REQ_MONITOR:
		return monitor(sv, r->text);
	case REQ_VCONT_QUERY:
		return conn_vcont_actions(&sv->c);
	case REQ_FILE:
		return file_op(sv, r);
	}
	return conn_unsupported(&sv->c);
}

void server_start(struct server *sv, int in, int out)
{
	conn_init(&sv->c, in, out);
	sv->c.rsp.idle_ms = sv->idle_ms;
	sv->quit = false;
	sv->cont_all = true;
}

/*
 * Whether GDB stays silent for @ms milliseconds (nothing read ahead,
 * nothing arriving): GDB waits for its user, or works on its own.
 */
static bool silent(struct server *sv, int ms)
{
	struct pollfd p = { .fd = sv->c.rsp.in, .events = POLLIN };

	return sv->c.rsp.pos >= sv->c.rsp.len && poll(&p, 1, ms) == 0;
}

/* How long GDB must stay silent before idle work starts: less than a
 * person's pause, more than the gap between the packets of one command.
 */
#define IDLE_AFTER_MS 10

int server_run(struct server *sv, int in, int out)
{
	struct req r;
	int ret = 0;

	server_start(sv, in, out);
	while (!sv->quit && !ret) {
		/* Values GDB is likely to ask next, one window at a time,
		 * while it is silent (a packet that comes meanwhile waits
		 * for that window).
		 */
		if (silent(sv, IDLE_AFTER_MS))
			while (target_prefetch(&sv->tg) && silent(sv, 0))
				;
		if (conn_read(&sv->c, &r))
			break;		/* GDB went away */
		if (server_handle(sv, &r))
			ret = 1;
	}
	/* Detach, kill or a lost connection: GDB's files are closed. */
	target_files_close(&sv->tg);
	return ret;
}
