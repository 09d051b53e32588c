// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The target's side of watchpoint stops (#18, docs/gdb.md "Watchpoints"):
 * the watched bytes just before and after the access a stop is at, and
 * the thread a stop is shown in.
 *
 * GDB's watchpoints belong to a process (an inferior: it sends Hg to one
 * of its threads before Z2/Z3/Z4), and GDB checks a watchpoint trigger
 * only in that process: one reported in a thread of another process is
 * passed over (GDB 13's watchpoint_in_thread_scope(): another program
 * space) and the continue goes on.  A process made by clone(2) with
 * CLONE_VM and without CLONE_THREAD (clone(CLONE_VM | SIGCHLD), vfork's
 * child) shares its parent's memory and is still another process; libptrec
 * finds its writes to the parent's watched bytes (its stores, and the
 * kernel's write of its clear_child_tid word at its exit).  Such an
 * access is shown the way a software watchpoint in the parent would
 * notice it: in a thread of the watchpoint's process, at that thread's
 * position at the moment of the access in time order (where the timeline
 * put it), with the watched bytes as they were just before the access
 * (a reverse stop) or just after it (a forward stop).  The plugin's
 * monitor message names the process, the thread and the instruction or
 * exit that made it.  Threads of the same process are not concerned.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"

/*
 * The bytes of [@addr, @addr + @len) a thread's exit (@h->exit: the
 * kernel's write of its clear_child_tid word, of a robust futex word)
 * held before it (@after false: the reverse stop, position @h->pos) or
 * after it (the forward stop, @h->pos + 1), where the sideband and the
 * history show them (replay/watch_exit.c).  Returns the bytes known from
 * @addr on.
 */
size_t target_exit_bytes(const struct rp_watch_hit *h, bool after,
			 uint64_t addr, uint8_t *buf, size_t len)
{
	uint64_t v = after ? h->new_val : h->old_val;
	size_t i;

	if (!h->exit || !(after ? h->new_known : h->old_known))
		return 0;
	for (i = 0; i < len; i++) {
		uint64_t a = addr + i;

		if (a < h->acc_addr || a - h->acc_addr >= h->acc_size ||
		    a - h->acc_addr >= 8)
			break;
		buf[i] = (uint8_t)(v >> (8 * (a - h->acc_addr)));
	}
	return i;
}

/*
 * Memory just after watchpoint hit @h's store (position @h->pos + 1): the
 * bytes it stored (rp_recover_stored(): known across threads, the moment
 * after it), then what the history implies.  Returns the bytes known from
 * @addr on.
 */
size_t target_after_store(struct rp_recover *rc, const struct rp_watch_hit *h,
			  uint64_t addr, uint8_t *buf, size_t len)
{
	size_t done = 0;

	if (h->kind == RP_ACC_WRITE && !h->maybe && !h->syscall && !h->kernel)
		done = rp_recover_stored(rc, h->pos, addr, buf, len);
	if (done < len)
		done += rp_recover_mem(rc, h->pos + 1, addr + done, buf + done,
				       len - done);
	return done;
}

bool target_watch_values(struct target *tg, const struct rp_watch_hit *h)
{
	return target_watch_known(tg, h) == 3;
}

unsigned int target_watch_known(struct target *tg,
				const struct rp_watch_hit *h)
{
	long i = rp_timeline_find(tg->tl, h->tid);
	struct rp_recover *rc;
	uint8_t buf[4096];
	uint64_t len = h->len < sizeof(buf) ? h->len : sizeof(buf);

	if (i < 0 || tg->no_values ||
	    !(rc = rp_timeline_recover(tg->tl, (size_t)i)))
		return 0;
	return (target_exit_bytes(h, false, h->addr, buf, len) == len ||
		rp_recover_mem(rc, h->pos, h->addr, buf, len) == len ? 1 : 0) |
	       (target_exit_bytes(h, true, h->addr, buf, len) == len ||
		target_after_store(rc, h, h->addr, buf, len) == len ? 2 : 0);
}

/* ---- the process each watchpoint is for ------------------------------- */

int target_watch_add(struct target *tg, unsigned int type, uint64_t addr,
		     uint64_t len, uint32_t pid)
{
	size_t i;

	for (i = 0; i < tg->nwps; i++)
		if (tg->wps[i].type == type && tg->wps[i].addr == addr &&
		    tg->wps[i].len == len && tg->wps[i].pid == pid)
			return 0;
	if (tg->nwps == tg->capwps) {
		size_t cap = tg->capwps ? 2 * tg->capwps : 8;
		struct target_wp *v = realloc(tg->wps, cap * sizeof(*v));

		if (!v)
			return -1;
		tg->wps = v;
		tg->capwps = cap;
	}
	tg->wps[tg->nwps++] = (struct target_wp){ type, addr, len, pid };
	return 0;
}

void target_watch_del(struct target *tg, unsigned int type, uint64_t addr,
		      uint64_t len, uint32_t pid)
{
	size_t i;

	for (i = 0; i < tg->nwps; i++)
		if (tg->wps[i].type == type && tg->wps[i].addr == addr &&
		    tg->wps[i].len == len && tg->wps[i].pid == pid) {
			tg->wps[i] = tg->wps[--tg->nwps];
			return;
		}
}

void target_watch_free(struct target *tg)
{
	free(tg->wps);
	tg->wps = NULL;
	tg->nwps = tg->capwps = 0;
}

/* ---- the thread a stop is shown in ------------------------------------ */

/*
 * The process hit @h must be shown in: 0 when a watchpoint of its
 * range is the accessing thread's own process's (or none is known),
 * else the first such watchpoint's process.
 */
static uint32_t owner_of(const struct target *tg,
			 const struct rp_watch_hit *h, uint32_t pid)
{
	uint32_t owner = 0;
	size_t i;

	for (i = 0; i < tg->nwps; i++) {
		const struct target_wp *w = &tg->wps[i];

		if (w->type != h->type || w->addr != h->addr ||
		    w->len != h->len)
			continue;
		if (w->pid == pid)
			return 0;
		if (!owner)
			owner = w->pid;
	}
	return owner;
}

void target_watch_show(struct target *tg, int dir, size_t was)
{
	struct rp_timeline *tl = tg->tl;
	size_t k, n = rp_timeline_count(tl), best = n;
	struct rp_watch_hit h;
	int rank = -1;
	uint32_t owner;
	long i;

	tg->shown.on = false;
	if (rp_timeline_watch_hit(tl, &h) ||
	    (i = rp_timeline_find(tl, h.tid)) < 0 ||
	    !(owner = owner_of(tg, &h, rp_timeline_pid(tl, (size_t)i))))
		return;
	/*
	 * A thread of the owner that was running at that moment (started,
	 * not ended), the one GDB had selected first; else one not yet
	 * ended; else any.
	 */
	for (k = 0; k < n; k++) {
		uint64_t pos = rp_timeline_pos(tl, k);
		uint64_t end = rp_timeline_end(tl, k);
		int r;

		if (rp_timeline_pid(tl, k) != owner)
			continue;
		r = (pos && pos < end ? 4 : pos < end ? 2 : 0) + (k == was);
		if (r > rank) {
			rank = r;
			best = k;
		}
	}
	if (best == n)
		return;
	rp_timeline_select(tl, best);
	tg->shown.on = true;
	tg->shown.thread = best;
	tg->shown.pos = rp_timeline_pos(tl, best);
	tg->shown.hit_tid = h.tid;
	tg->shown.hit_pos = h.pos;
	tg->shown.after = dir > 0;
}

bool target_watch_shown(struct target *tg, struct rp_watch_hit *h)
{
	return tg->shown.on && !rp_timeline_watch_hit(tg->tl, h) &&
	       h->tid == tg->shown.hit_tid && h->pos == tg->shown.hit_pos &&
	       rp_timeline_pos(tg->tl, tg->shown.thread) == tg->shown.pos;
}

long target_watch_read(struct target *tg, size_t cur, uint64_t addr,
		       uint8_t *buf, size_t *len)
{
	struct rp_watch_hit h;
	struct rp_recover *rc;
	uint64_t end;
	size_t n;
	long i;

	if (!target_watch_shown(tg, &h) || cur != tg->shown.thread)
		return -1;
	end = h.addr + h.len;
	if (addr < h.addr) {
		/* The bytes before the watched ones: the thread's own. */
		if (*len > h.addr - addr)
			*len = (size_t)(h.addr - addr);
		return -1;
	}
	if (addr >= end)
		return -1;
	n = *len < end - addr ? *len : (size_t)(end - addr);
	/* The watched bytes as the accessing thread saw them the moment
	 * before or after its access (the memory is the same), or unknown.
	 */
	if (tg->no_values ||
	    (i = rp_timeline_find(tg->tl, h.tid)) < 0 ||
	    !(rc = rp_timeline_recover(tg->tl, (size_t)i)))
		return 0;
	if (target_exit_bytes(&h, tg->shown.after, addr, buf, n))
		return (long)target_exit_bytes(&h, tg->shown.after, addr, buf,
					       n);
	if (tg->shown.after)
		return (long)target_after_store(rc, &h, addr, buf, n);
	return (long)rp_recover_mem(rc, h.pos, addr, buf, n);
}

void target_watch_shown_msg(struct target *tg, const struct rp_watch_hit *h,
			    struct text *out)
{
	struct rp_timeline *tl = tg->tl;
	size_t k = tg->shown.thread;
	long i = rp_timeline_find(tl, h->tid);
	uint64_t pos = rp_timeline_pos(tl, k);
	char where[64];
	struct rp_insn in;

	if (i < 0)
		return;
	if (pos < rp_timeline_end(tl, k))
		snprintf(where, sizeof(where), "at position %" PRIu64,
			 pos + 1);
	else
		snprintf(where, sizeof(where), "at its end");
	if (h->exit || h->gap || h->maybe || h->syscall) {
		/* The access itself: the line that follows. */
		text_add(out, "ptrec: process %u (thread %u) shares process "
			 "%u's memory (clone(2) with CLONE_VM, not a "
			 "thread): its access below is shown in thread %u %s, "
			 "where that thread was when it happened\n",
			 rp_timeline_pid(tl, (size_t)i), h->tid,
			 rp_timeline_pid(tl, k), rp_timeline_tid(tl, k),
			 where);
		return;
	}
	if (rp_cursor_peek(rp_timeline_cursor(tl, (size_t)i), h->pos, &in))
		in.ip = 0;
	text_add(out, "ptrec: the %s at %#" PRIx64 " (process %u, thread %u, "
		 "instruction %" PRIu64 ") %s %" PRIu64 " bytes at %#" PRIx64
		 ": process %u shares process %u's memory (clone(2) with "
		 "CLONE_VM, not a thread); shown in thread %u %s, where that "
		 "thread was when it happened\n",
		 h->kind == RP_ACC_READ ? "load" : "store", in.ip,
		 rp_timeline_pid(tl, (size_t)i), h->tid, h->pos + 1,
		 h->kind == RP_ACC_READ ? "read" : "wrote", h->acc_size,
		 h->acc_addr, rp_timeline_pid(tl, (size_t)i),
		 rp_timeline_pid(tl, k), rp_timeline_tid(tl, k), where);
}
