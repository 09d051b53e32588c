// SPDX-License-Identifier: GPL-3.0-or-later
/* Record types: sizes, names and validation of single records. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Fixed sizes are part of the format: a change here is a version bump. */
_Static_assert(sizeof(struct ptrec_sb_file_header) == 32, "file header");
_Static_assert(sizeof(struct ptrec_sb_header) == 16, "record header");
_Static_assert(sizeof(struct ptrec_sb_mmap) == 64, "MMAP");
_Static_assert(sizeof(struct ptrec_sb_munmap) == 40, "MUNMAP");
_Static_assert(sizeof(struct ptrec_sb_mprotect) == 48, "MPROTECT");
_Static_assert(sizeof(struct ptrec_sb_exec) == 32, "EXEC");
_Static_assert(sizeof(struct ptrec_sb_comm) == 40, "COMM");
_Static_assert(sizeof(struct ptrec_sb_cr3) == 40, "CR3");
_Static_assert(sizeof(struct ptrec_sb_switch) == 32, "SWITCH");
_Static_assert(sizeof(struct ptrec_sb_thread_start) == 40, "THREAD_START");
_Static_assert(sizeof(struct ptrec_sb_thread_exit) == 32, "THREAD_EXIT");
_Static_assert(sizeof(struct ptrec_sb_process_exit) == 32, "PROCESS_EXIT");
_Static_assert(sizeof(struct ptrec_sb_lost) == 40, "LOST");
_Static_assert(sizeof(struct ptrec_sb_time) == 48, "TIME");
_Static_assert(sizeof(struct ptrec_sb_signal) == 48, "SIGNAL");
_Static_assert(sizeof(struct ptrec_sb_exit_futex) == 80, "EXIT_FUTEX");
_Static_assert(sizeof(struct ptrec_sb_sigframe) == 40, "SIGFRAME");
_Static_assert(sizeof(struct ptrec_sb_regs) == 256, "REGS");
_Static_assert(sizeof(struct ptrec_sb_untraced) == 48, "UNTRACED");
/* A REGS record's registers are enum sb_reg's, in its order. */
_Static_assert(PTREC_SB_NREGS == SB_REG_COUNT && SB_REG_RIP == 16 &&
	       SB_REG_EFLAGS == 17 && SB_REG_ORIG_RAX == 26, "REGS order");

static const struct sb_type_info types[PTREC_SB_TYPE_COUNT] = {
	[PTREC_SB_MMAP] = { "MMAP", sizeof(struct ptrec_sb_mmap), true },
	[PTREC_SB_MUNMAP] = { "MUNMAP", sizeof(struct ptrec_sb_munmap), false },
	[PTREC_SB_MPROTECT] = { "MPROTECT", sizeof(struct ptrec_sb_mprotect),
				false },
	[PTREC_SB_EXEC] = { "EXEC", sizeof(struct ptrec_sb_exec), true },
	[PTREC_SB_COMM] = { "COMM", sizeof(struct ptrec_sb_comm), false },
	[PTREC_SB_CR3] = { "CR3", sizeof(struct ptrec_sb_cr3), false },
	[PTREC_SB_SWITCH_IN] = { "SWITCH_IN", sizeof(struct ptrec_sb_switch),
				 false },
	[PTREC_SB_SWITCH_OUT] = { "SWITCH_OUT", sizeof(struct ptrec_sb_switch),
				  false },
	[PTREC_SB_THREAD_START] = { "THREAD_START",
				    sizeof(struct ptrec_sb_thread_start),
				    false },
	[PTREC_SB_THREAD_EXIT] = { "THREAD_EXIT",
				   sizeof(struct ptrec_sb_thread_exit), false },
	[PTREC_SB_PROCESS_EXIT] = { "PROCESS_EXIT",
				    sizeof(struct ptrec_sb_process_exit),
				    false },
	[PTREC_SB_LOST] = { "LOST", sizeof(struct ptrec_sb_lost), false },
	[PTREC_SB_TIME] = { "TIME", sizeof(struct ptrec_sb_time), false },
	[PTREC_SB_SIGNAL] = { "SIGNAL", sizeof(struct ptrec_sb_signal), false },
	[PTREC_SB_EXIT_FUTEX] = { "EXIT_FUTEX",
				  sizeof(struct ptrec_sb_exit_futex), false },
	[PTREC_SB_SIGFRAME] = { "SIGFRAME", sizeof(struct ptrec_sb_sigframe),
				false },
	[PTREC_SB_REGS] = { "REGS", sizeof(struct ptrec_sb_regs), false },
	[PTREC_SB_UNTRACED] = { "UNTRACED", sizeof(struct ptrec_sb_untraced),
				false },
};

const struct sb_type_info *sb_type_info(uint16_t type)
{
	if (type >= PTREC_SB_TYPE_COUNT || !types[type].name)
		return NULL;
	return &types[type];
}

static int bad(char *why, size_t whysz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(char *why, size_t whysz, const char *fmt, ...)
{
	va_list ap;

	if (why && whysz) {
		va_start(ap, fmt);
		vsnprintf(why, whysz, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

/* Bytes of variable data a known record declares after its fixed part. */
static size_t var_len(const struct ptrec_sb_header *rec)
{
	switch (rec->type) {
	case PTREC_SB_MMAP: {
		const struct ptrec_sb_mmap *m = (const void *)rec;

		return (size_t)m->key_len + m->path_len;
	}
	case PTREC_SB_EXEC:
		return ((const struct ptrec_sb_exec *)rec)->path_len;
	default:
		return 0;
	}
}

/*
 * EXIT_FUTEX's fields against its known bits: a fact the kernel could not
 * hold (a list of another length, a head read with no list) or a field
 * set that is said unknown is damage, not something to act on.
 */
static int check_exit_futex(const struct ptrec_sb_exit_futex *f, char *why,
			    size_t whysz)
{
	if (f->known & ~(uint32_t)PTREC_SB_FUTEX_ALL)
		return bad(why, whysz,
			   "EXIT_FUTEX of thread %u: unknown known-bits %#x (a newer ptrec wrote it?)",
			   f->tid, f->known & ~(uint32_t)PTREC_SB_FUTEX_ALL);
	if (!(f->known & PTREC_SB_FUTEX_CTID) && f->clear_child_tid)
		return bad(why, whysz,
			   "EXIT_FUTEX of thread %u: clear_child_tid %#llx set but not known",
			   f->tid, (unsigned long long)f->clear_child_tid);
	if ((f->known & PTREC_SB_FUTEX_CTID_VAL) ?
	    !(f->known & PTREC_SB_FUTEX_CTID) || !f->clear_child_tid :
	    f->ctid_val != 0)
		return bad(why, whysz,
			   "EXIT_FUTEX of thread %u: a clear_child_tid value without its word",
			   f->tid);
	if (!(f->known & PTREC_SB_FUTEX_ROBUST) &&
	    (f->robust_list || f->robust_len))
		return bad(why, whysz,
			   "EXIT_FUTEX of thread %u: a robust list set but not known",
			   f->tid);
	if (f->robust_list && f->robust_len != PTREC_SB_ROBUST_HEAD_LEN)
		return bad(why, whysz,
			   "EXIT_FUTEX of thread %u: robust list length %llu, the kernel takes only %d",
			   f->tid, (unsigned long long)f->robust_len,
			   PTREC_SB_ROBUST_HEAD_LEN);
	if (!f->robust_list && f->robust_len)
		return bad(why, whysz,
			   "EXIT_FUTEX of thread %u: robust list length %llu without a list",
			   f->tid, (unsigned long long)f->robust_len);
	if ((f->known & PTREC_SB_FUTEX_HEAD) ?
	    !(f->known & PTREC_SB_FUTEX_ROBUST) || !f->robust_list :
	    f->robust_next || f->futex_offset || f->list_op_pending)
		return bad(why, whysz,
			   "EXIT_FUTEX of thread %u: robust list head words without a list",
			   f->tid);
	return 0;
}

/*
 * REGS: a place it does not name, a register past the 27, or a value for
 * a register said not valid is damage (or a newer writer's), never
 * registers to start a history from.
 */
static int check_regs(const struct ptrec_sb_regs *r, char *why, size_t whysz)
{
	unsigned int i;

	if (r->where != PTREC_SB_REGS_START &&
	    r->where != PTREC_SB_REGS_SYSCALL)
		return bad(why, whysz,
			   "REGS of thread %u: unknown place %u (a newer ptrec wrote it?)",
			   r->tid, r->where);
	if (r->valid >> PTREC_SB_NREGS)
		return bad(why, whysz,
			   "REGS of thread %u: valid bits %#llx past its %d registers",
			   r->tid, (unsigned long long)r->valid,
			   PTREC_SB_NREGS);
	for (i = 0; i < PTREC_SB_NREGS; i++)
		if (!(r->valid >> i & 1) && r->regs[i])
			return bad(why, whysz,
				   "REGS of thread %u: register %u set but not valid",
				   r->tid, i);
	return 0;
}

int sb_record_check(const struct ptrec_sb_header *rec, size_t avail,
		    char *why, size_t whysz)
{
	const struct sb_type_info *ti;

	if (avail < sizeof(*rec))
		return bad(why, whysz, "truncated record header (%zu of %zu bytes)",
			   avail, sizeof(*rec));
	if (rec->size < sizeof(*rec))
		return bad(why, whysz, "record size %u is below the %zu-byte header",
			   rec->size, sizeof(*rec));
	if (rec->size % PTREC_SB_ALIGN)
		return bad(why, whysz, "record size %u is not a multiple of %d",
			   rec->size, PTREC_SB_ALIGN);
	if (rec->size > PTREC_SB_RECORD_MAX)
		return bad(why, whysz, "record size %u exceeds the maximum %d",
			   rec->size, PTREC_SB_RECORD_MAX);
	if (rec->size > avail)
		return bad(why, whysz,
			   "record size %u runs past the end (%zu bytes left)",
			   rec->size, avail);
	ti = sb_type_info(rec->type);
	if (!ti)
		return 0;	/* unknown: skippable by size */
	if (rec->size < ti->size)
		return bad(why, whysz, "%s record of %u bytes, needs at least %u",
			   ti->name, rec->size, ti->size);
	if (ti->variable && ti->size + var_len(rec) > rec->size)
		return bad(why, whysz,
			   "%s record of %u bytes cannot hold its %zu bytes of strings",
			   ti->name, rec->size, var_len(rec));
	if (rec->type == PTREC_SB_EXIT_FUTEX)
		return check_exit_futex((const void *)rec, why, whysz);
	if (rec->type == PTREC_SB_REGS)
		return check_regs((const void *)rec, why, whysz);
	return 0;
}

const char *sb_mmap_key(const struct ptrec_sb_mmap *rec)
{
	return (const char *)(rec + 1);
}

const char *sb_mmap_path(const struct ptrec_sb_mmap *rec)
{
	return (const char *)(rec + 1) + rec->key_len;
}

const char *sb_exec_path(const struct ptrec_sb_exec *rec)
{
	return (const char *)(rec + 1);
}

uint64_t sb_time_to_ns(const struct ptrec_sb_time *conv, uint64_t tsc)
{
	uint64_t quot, rem;

	/* Split as perf does so the product cannot overflow 64 bits. */
	if (conv->time_shift >= 64)
		return conv->time_zero;
	quot = tsc >> conv->time_shift;
	rem = tsc & ((1ull << conv->time_shift) - 1);
	return conv->time_zero + quot * conv->time_mult +
	       ((rem * conv->time_mult) >> conv->time_shift);
}
