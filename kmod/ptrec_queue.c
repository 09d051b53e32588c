// SPDX-License-Identifier: GPL-2.0
/*
 * ptrec.ko: the read() queue of a session.  Sideband records and trace
 * chunks go into one byte ring of whole messages per session, stamped with
 * the TSC under its lock so records are in time order; losses that find no
 * room wait (in the thread, or in the session once the thread is freed)
 * and are reported before the next message.  The traced-thread and
 * sideband code write here; /dev/ptrec's read() and poll()
 * (ptrec_main.c) take from here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <asm/tsc.h>

#include "ptrec_internal.h"

/**
 * ptrec_now() - the timestamp of records: the TSC
 *
 * Return: TSC ticks.
 */
u64 ptrec_now(void)
{
	return rdtsc_ordered();
}

/* ---- the message queue ---------------------------------------------- */

#define PTREC_Q_RESERVE 4096	/* kept free of trace data for sideband */
#define PTREC_Q_BUSY	0	/* type of a message still being copied in */

/*
 * Tests only: with the simulated unit, every trace chunk's copy into the
 * queue takes this much longer, so drains on two CPUs and the reader
 * overlap there for sure (tests/kmod, run "contend").
 */
static unsigned int sim_copy_delay_us;
module_param(sim_copy_delay_us, uint, 0644);
MODULE_PARM_DESC(sim_copy_delay_us, "simulated unit only, for tests: microseconds added to each trace chunk's copy into the read() queue");

static u64 q_free(struct ptrec_session *s)
{
	return s->q_size - (s->q_head - s->q_tail);
}

/* Writes @len bytes (zeros if @src is NULL) at ring position @at. */
static void q_write(struct ptrec_session *s, u64 at, const void *src, u32 len)
{
	u64 pos = at & (s->q_size - 1);
	u32 n = min_t(u64, len, s->q_size - pos);

	if (src) {
		memcpy(s->q_buf + pos, src, n);
		memcpy(s->q_buf, (const u8 *)src + n, len - n);
	} else {
		memset(s->q_buf + pos, 0, n);
		memset(s->q_buf, 0, len - n);
	}
}

/*
 * Context: q_lock held.  hwstats keeps the largest copy made under it:
 * records only, never a trace chunk (ptrec_q_trace()).
 */
static void q_put(struct ptrec_session *s, const void *src, u32 len)
{
	long max = atomic_long_read(&ptrec_cnt.qlock_max_copy);

	while (src && len > max &&
	       !atomic_long_try_cmpxchg(&ptrec_cnt.qlock_max_copy, &max, len))
		;
	q_write(s, s->q_head, src, len);
	s->q_head += len;
}

/*
 * The type of the message at @at, read once its writer is done: a trace
 * chunk is reserved under q_lock with type 0 (PTREC_Q_BUSY) and copied
 * after the lock is dropped; its writer then publishes the type with
 * release semantics.  A type is 8-byte aligned, so it never wraps.
 */
static u16 q_type_at(struct ptrec_session *s, u64 at)
{
	/* pairs with ptrec_q_trace()'s release: the data is there */
	return smp_load_acquire((u16 *)(s->q_buf + (at & (s->q_size - 1))));
}

static void q_get(struct ptrec_session *s, u64 at, void *dst, u32 len)
{
	u64 pos = at & (s->q_size - 1);
	u32 n = min_t(u64, len, s->q_size - pos);

	memcpy(dst, s->q_buf + pos, n);
	memcpy((u8 *)dst + n, s->q_buf, len - n);
}

/* Context: q_lock held. */
static void q_put_record(struct ptrec_session *s, void *rec, u32 rec_len,
			 const void *tail, u32 tail_len)
{
	struct ptrec_sb_header *h = rec;
	u32 size = ALIGN(rec_len + tail_len, PTREC_SB_ALIGN);

	h->size = size;
	h->time = ptrec_now();	/* under q_lock: never decreasing */
	q_put(s, rec, rec_len);
	if (tail_len)
		q_put(s, tail, tail_len);
	q_put(s, NULL, size - rec_len - tail_len);
	atomic64_inc(&s->st_records);
}

/*
 * Context: q_lock held.  Pending losses are reported first: those of
 * threads already freed (ptrec_q_release_lost()), then dropped sideband.
 */
static bool q_room(struct ptrec_session *s, u64 need)
{
	struct ptrec_sb_lost l = { .hdr.type = PTREC_SB_LOST };
	struct ptrec_lost_orphan *o, *n;

	list_for_each_entry_safe(o, n, &s->lost_orphans, node) {
		while (o->npend) {
			if (q_free(s) < need + sizeof(l))
				return false;
			l.tid = o->tid;
			l.reason = o->pend[o->first].reason;
			l.bytes = o->pend[o->first].bytes;
			l.offset = o->pend[o->first].offset;
			q_put_record(s, &l, sizeof(l), NULL, 0);
			o->first++;
			o->npend--;
		}
		list_del(&o->node);
		ptrec_kfree(o);
	}
	if (s->lost_records) {
		if (q_free(s) < need + sizeof(l))
			return false;
		memset(&l, 0, sizeof(l));
		l.hdr.type = PTREC_SB_LOST;
		l.reason = PTREC_SB_LOST_SIDEBAND;
		l.bytes = s->lost_records;
		s->lost_records = 0;
		q_put_record(s, &l, sizeof(l), NULL, 0);
	}
	return q_free(s) >= need;
}


/**
 * ptrec_q_record() - queue one sideband record for read()
 * @s:		session.
 * @rec:	the record, starting with struct ptrec_sb_header whose type
 *		and flags are set; size and time are filled in here.
 * @rec_len:	bytes of @rec.
 * @tail:	bytes following it (a path), or NULL.
 * @tail_len:	their length.
 *
 * Context: any but NMI.
 * Return: 0, or -ENOSPC when the queue is full (counted, and reported by
 * a PTREC_SB_LOST_SIDEBAND record once there is room).
 */
int ptrec_q_record(struct ptrec_session *s, void *rec, u32 rec_len,
		   const void *tail, u32 tail_len)
{
	u32 size = ALIGN(rec_len + tail_len, PTREC_SB_ALIGN);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&s->q_lock, flags);
	if (!q_room(s, size)) {
		s->lost_records += size;
		atomic64_inc(&s->st_lost_records);
		ret = -ENOSPC;
	} else {
		q_put_record(s, rec, rec_len, tail, tail_len);
	}
	spin_unlock_irqrestore(&s->q_lock, flags);
	irq_work_queue(&s->wake_iw);
	return ret;
}

/**
 * ptrec_q_record_spare() - queue a record the stream may do without
 * @s:		session.
 * @rec:	the record, as for ptrec_q_record().
 * @rec_len:	bytes of @rec.
 *
 * For records written at a high rate that say nothing the replay needs
 * (a system call's result): queued only while a quarter of the queue
 * stays free after it and no loss waits, so that they never crowd out
 * the records that must not be lost.
 * Context: any but NMI.
 * Return: 0, or -ENOSPC: left out, which is not a loss.
 */
int ptrec_q_record_spare(struct ptrec_session *s, void *rec, u32 rec_len)
{
	u32 size = ALIGN(rec_len, PTREC_SB_ALIGN);
	unsigned long flags;
	int ret = -ENOSPC;

	spin_lock_irqsave(&s->q_lock, flags);
	if (!s->lost_records && list_empty(&s->lost_orphans) &&
	    q_free(s) >= size + s->q_size / 4) {
		q_put_record(s, rec, rec_len, NULL, 0);
		ret = 0;
	}
	spin_unlock_irqrestore(&s->q_lock, flags);
	if (!ret)
		irq_work_queue(&s->wake_iw);
	return ret;
}

/* Context: q_lock and t->lock held. */
static bool q_put_lost(struct ptrec_session *s, struct ptrec_thread *t,
		       u32 reason, u64 bytes, u64 offset)
{
	struct ptrec_sb_lost l = {
		.hdr.type = PTREC_SB_LOST,
		.tid = t->tid,
		.reason = reason,
		.bytes = bytes,
		.offset = offset,
	};

	if (!q_room(s, sizeof(l)))
		return false;
	q_put_record(s, &l, sizeof(l), NULL, 0);
	return true;
}

/**
 * ptrec_q_lost() - report @bytes of @t's stream lost at @offset
 * @s:		session.
 * @t:		thread.
 * @reason:	enum ptrec_sb_lost_reason.
 * @bytes:	lost bytes.
 * @offset:	logical stream offset of the loss.
 *
 * If even the record does not fit, the loss waits in @t and is reported
 * before @t's next data, or by the reader once it made room.  Waiting
 * losses stay exact for any number (#20): a loss joins the one before it
 * only where they are one loss (same reason, and it starts where that one
 * ends: a lost stretch the drain cut in two, or a second hole where the
 * stream did not move), and a thread with waiting losses is not traced
 * (ptrec_load(), ptrec_rearm_fn()), so at most a few more can come: the
 * bytes the unit wrote before it was stopped (one stretch), its hole
 * (one), a FULL.  PTREC_PEND_MAX leaves room to spare; hwstats'
 * pend_merged counts a loss that found none (0, or a bug).
 * Context: any but NMI; q_lock orders it.
 */
void ptrec_q_lost(struct ptrec_session *s, struct ptrec_thread *t,
		  u32 reason, u64 bytes, u64 offset)
{
	struct ptrec_pend_loss *p;
	unsigned long flags;

	atomic64_add(bytes, &s->st_lost);
	spin_lock_irqsave(&s->q_lock, flags);
	t->nr_losses++;
	if (!t->npend && q_put_lost(s, t, reason, bytes, offset))
		goto out;
	p = t->npend ? &t->pend[t->npend - 1] : NULL;
	if (p && p->reason == reason && p->offset + p->bytes == offset) {
		p->bytes += bytes;	/* one loss, exactly */
	} else if (t->npend < PTREC_PEND_MAX) {
		if (!t->npend)
			list_add_tail(&t->pend_node, &s->pend_threads);
		p = &t->pend[t->npend++];
		p->reason = reason;
		p->bytes = bytes;
		p->offset = offset;
	} else {
		/* cannot happen (above); counted, never silent */
		atomic_long_inc(&ptrec_cnt.pend_merged);
		p->reason = PTREC_SB_LOST_UNTRACED;
		p->bytes += bytes;
	}
out:
	spin_unlock_irqrestore(&s->q_lock, flags);
	irq_work_queue(&s->wake_iw);
}

/* Context: q_lock held.  The pending losses in order, as room allows. */
static bool q_flush_lost(struct ptrec_session *s, struct ptrec_thread *t)
{
	unsigned int n = 0;

	if (!t->npend)
		return true;
	while (n < t->npend && q_put_lost(s, t, t->pend[n].reason,
					  t->pend[n].bytes, t->pend[n].offset))
		n++;
	if (n) {
		memmove(t->pend, t->pend + n, (t->npend - n) * sizeof(*t->pend));
		t->npend -= n;
	}
	if (t->npend)
		return false;
	list_del_init(&t->pend_node);
	return true;
}

/**
 * ptrec_q_flush_thread() - report @t's waiting losses if there is room
 * @s:	session.
 * @t:	thread.
 *
 * Context: any but NMI (the scheduler's switch-in, the rearm IPI).
 * Return: true if none waits any more, so @t may be traced again.
 */
bool ptrec_q_flush_thread(struct ptrec_session *s, struct ptrec_thread *t)
{
	unsigned long flags;
	bool done;

	if (!READ_ONCE(t->npend))
		return true;
	spin_lock_irqsave(&s->q_lock, flags);
	done = q_flush_lost(s, t);
	spin_unlock_irqrestore(&s->q_lock, flags);
	return done;
}

/*
 * Context: q_lock held, by the reader, which just made room.  Threads
 * whose waiting losses are now all reported are kicked, so one that was
 * stopped while loaded is traced again without waiting for its next
 * switch-in.
 */
static void q_flush_threads(struct ptrec_session *s)
{
	struct ptrec_thread *t, *n;

	list_for_each_entry_safe(t, n, &s->pend_threads, pend_node) {
		if (!q_flush_lost(s, t))
			break;	/* the queue is full again */
		ptrec_thread_kick(t);
	}
}

/**
 * ptrec_q_release_lost() - @t goes away: keep its pending losses in @s
 * @s:	session.
 * @t:	thread being freed.
 *
 * Losses that still have no room in the queue move to the session, whose
 * next record, read() or poll() reports them once the reader made room,
 * so every loss gets its own PTREC_SB_LOST record (ptrec.h), in order and
 * as it was, even after the thread is gone.
 * Context: t->lock held.
 */
void ptrec_q_release_lost(struct ptrec_session *s, struct ptrec_thread *t)
{
	struct ptrec_lost_orphan *o = t->orphan;
	unsigned long flags;

	spin_lock_irqsave(&s->q_lock, flags);
	if (!q_flush_lost(s, t)) {
		o->tid = t->tid;
		o->first = 0;
		o->npend = t->npend;
		memcpy(o->pend, t->pend, t->npend * sizeof(*t->pend));
		list_add_tail(&o->node, &s->lost_orphans);
		list_del_init(&t->pend_node);
		t->orphan = NULL;
		t->npend = 0;
	}
	spin_unlock_irqrestore(&s->q_lock, flags);
}

/**
 * ptrec_q_trace() - queue @len bytes of @t's PT stream
 * @s:		session.
 * @t:		thread.
 * @data:	the bytes.
 * @len:	at most PTREC_MSG_TRACE_MAX.
 * @offset:	their logical offset in @t's stream.
 *
 * The chunk's place is reserved, and its header stamped, under q_lock,
 * so messages keep their time order; the data is copied after the lock
 * is dropped, and the message is published by its type (q_type_at()):
 * the read side stops at a message still being copied, and no writer,
 * the scheduler's included, waits for a copy of up to 64 KiB (#20).
 * One drain per thread at a time (drain_mutex) keeps a thread's chunks
 * in order.
 *
 * Context: process, t->drain_mutex held.
 * Return: 0, or -ENOSPC (nothing queued).
 */
int ptrec_q_trace(struct ptrec_session *s, struct ptrec_thread *t,
		  const void *data, u32 len, u64 offset)
{
	struct ptrec_msg_trace m = {
		.type = PTREC_Q_BUSY,
		.pid = t->pid,
		.tid = t->tid,
		.offset = offset,
		.len = len,
	};
	u32 size = ALIGN(sizeof(m) + len, 8);
	unsigned long flags;
	long busy, max;
	u64 at;

	if (irqs_disabled())
		atomic_long_add(len, &ptrec_cnt.irqsoff_copied);
	spin_lock_irqsave(&s->q_lock, flags);
	if (!q_flush_lost(s, t) || !q_room(s, size + PTREC_Q_RESERVE)) {
		spin_unlock_irqrestore(&s->q_lock, flags);
		return -ENOSPC;
	}
	at = s->q_head;
	m.size = size;
	m.time = ptrec_now();	/* under q_lock: never decreasing */
	q_put(s, &m, sizeof(m));
	s->q_head += size - sizeof(m);	/* the data's place */
	spin_unlock_irqrestore(&s->q_lock, flags);

	/* how many chunks are copied in at once (hwstats, for the tests) */
	busy = atomic_long_inc_return(&ptrec_cnt.qcopying);
	max = atomic_long_read(&ptrec_cnt.qcopying_max);
	while (busy > max &&
	       !atomic_long_try_cmpxchg(&ptrec_cnt.qcopying_max, &max, busy))
		;
	q_write(s, at + sizeof(m), data, len);
	q_write(s, at + sizeof(m) + len, NULL, size - sizeof(m) - len);
	if (ptrec_sim_mode && READ_ONCE(sim_copy_delay_us))
		usleep_range(sim_copy_delay_us, sim_copy_delay_us + 100);
	/* publish: the data before the type (q_type_at()'s acquire) */
	smp_store_release((u16 *)(s->q_buf + (at & (s->q_size - 1))),
			  (u16)PTREC_MSG_TRACE);
	atomic_long_dec(&ptrec_cnt.qcopying);
	atomic64_add(len, &s->st_trace);
	irq_work_queue(&s->wake_iw);
	return 0;
}

/**
 * ptrec_q_wake_fn() - wake readers and pollers of a session's queue
 * @iw:	the session's wake_iw.
 */
void ptrec_q_wake_fn(struct irq_work *iw)
{
	struct ptrec_session *s = container_of(iw, struct ptrec_session,
					       wake_iw);

	wake_up_interruptible(&s->wq);
}


/**
 * ptrec_q_init() - give session @s an empty queue
 * @s:		the session.
 * @size:	bytes, a power of two.
 *
 * Return: 0 or -ENOMEM.
 */
int ptrec_q_init(struct ptrec_session *s, size_t size)
{
	s->q_buf = vzalloc(size);
	if (!s->q_buf)
		return -ENOMEM;
	s->q_size = size;
	atomic_long_add(size >> PAGE_SHIFT, &ptrec_cnt.pages);
	spin_lock_init(&s->q_lock);
	mutex_init(&s->read_lock);
	init_waitqueue_head(&s->wq);
	init_irq_work(&s->wake_iw, ptrec_q_wake_fn);
	INIT_LIST_HEAD(&s->lost_orphans);
	INIT_LIST_HEAD(&s->pend_threads);
	return 0;
}

/**
 * ptrec_q_free() - free the queue of session @s and its waiting losses
 * @s:	the session, unreferenced.
 */
void ptrec_q_free(struct ptrec_session *s)
{
	struct ptrec_lost_orphan *o, *n;

	irq_work_sync(&s->wake_iw);
	list_for_each_entry_safe(o, n, &s->lost_orphans, node)
		ptrec_kfree(o);
	vfree(s->q_buf);
	atomic_long_sub(s->q_size >> PAGE_SHIFT, &ptrec_cnt.pages);
}

/**
 * ptrec_q_empty() - nothing queued, not even a message being copied in?
 * @s:	the session.
 *
 * Return: true if no message is queued or reserved.
 */
bool ptrec_q_empty(struct ptrec_session *s)
{
	return READ_ONCE(s->q_head) == READ_ONCE(s->q_tail);
}

/**
 * ptrec_q_readable() - a whole message waits at the tail?
 * @s:	the session.
 *
 * Return: true if the oldest message is queued and no longer being
 * copied in.
 */
bool ptrec_q_readable(struct ptrec_session *s)
{
	u64 tail = READ_ONCE(s->q_tail);

	return READ_ONCE(s->q_head) != tail &&
	       q_type_at(s, tail) != PTREC_Q_BUSY;
}

/**
 * ptrec_q_report_pending() - queue the losses that wait for room
 * @s:	the session.
 */
void ptrec_q_report_pending(struct ptrec_session *s)
{
	spin_lock_irq(&s->q_lock);
	if (!list_empty(&s->lost_orphans) || s->lost_records)
		q_room(s, 0);
	q_flush_threads(s);
	spin_unlock_irq(&s->q_lock);
}

/**
 * ptrec_q_ready() - bytes of whole messages at the tail that fit @count
 * @s:		the session.
 * @count:	the reader's buffer size.
 *
 * Losses waiting for room the reader made are queued first.
 * Context: s->read_lock held (one reader).
 * Return: bytes, 0 if no message is queued.
 */
u64 ptrec_q_ready(struct ptrec_session *s, size_t count)
{
	struct ptrec_sb_header h;
	u64 tail, avail, n = 0;

	spin_lock_irq(&s->q_lock);
	q_room(s, 0);
	q_flush_threads(s);
	tail = s->q_tail;
	avail = s->q_head - tail;
	while (n < avail) {
		if (q_type_at(s, tail + n) == PTREC_Q_BUSY) {
			/* its writer is still copying */
			atomic_long_inc(&ptrec_cnt.qbusy_reads);
			break;
		}
		q_get(s, tail + n, &h, sizeof(h));
		if (n + h.size > count)
			break;
		n += h.size;
	}
	spin_unlock_irq(&s->q_lock);
	return n;
}

/**
 * ptrec_q_copy_to_user() - hand @n bytes ptrec_q_ready() found to @buf
 * @s:		the session.
 * @buf:	the reader's buffer.
 * @n:		bytes.
 *
 * Writers never touch the whole messages of [tail, head) that
 * ptrec_q_ready() found, so the copy runs without the lock.
 * Context: s->read_lock held.
 * Return: @n, or -EFAULT (nothing consumed).
 */
ssize_t ptrec_q_copy_to_user(struct ptrec_session *s, char __user *buf,
			     u64 n)
{
	u32 pos = s->q_tail & (s->q_size - 1);
	u32 len = min_t(u64, n, s->q_size - pos);

	if (copy_to_user(buf, s->q_buf + pos, len) ||
	    copy_to_user(buf + len, s->q_buf, n - len))
		return -EFAULT;
	spin_lock_irq(&s->q_lock);
	s->q_tail += n;
	spin_unlock_irq(&s->q_lock);
	return n;
}
