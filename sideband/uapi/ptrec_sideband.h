/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ptrec sideband record format, shared by the kernel module and user space.
 *
 * A sideband stream is a file header followed by records.  Every record
 * starts with struct ptrec_sb_header {type, flags, size, time}; size covers
 * the whole record including the header and is a multiple of 8, so readers
 * can skip types they do not know.  Records appear in non-decreasing time
 * order; records with equal time are ordered by their position in the
 * stream.  Together that is the total order of all events of a recording.
 *
 * Layout rules: fixed-width types only, natural alignment, explicit
 * reserved fields (written as zero, ignored on read), no implicit padding,
 * little-endian (x86-64 only).  docs/bundle-format.md documents every
 * record; tests/unit/sideband/test_format_doc.c checks the two agree.
 *
 * Any change to this file that changes a layout or adds a type bumps
 * PTREC_SB_VERSION.
 */
#ifndef _UAPI_PTREC_SIDEBAND_H
#define _UAPI_PTREC_SIDEBAND_H

#include <linux/types.h>

#define PTREC_SB_MAGIC		"PTRECSB"	/* 7 chars + NUL = 8 bytes */
#define PTREC_SB_VERSION	6
/*
 * Oldest version readers still accept.  Version 1's CR3 record is 32
 * bytes, without @kernel_cr3 (PTREC_SB_CR3_V1_SIZE).  Versions 1 and 2
 * have no EXIT_FUTEX record (a stream without one says nothing of the
 * kernel's writes at a thread's exit, as a version-3 stream that lacks
 * it for a thread).  Versions 1 to 3 have no SIGFRAME record (nothing
 * says where a handler's frame is: the replay takes the handler's stack
 * pointer from the values engine).  Versions 1 to 4 have no REGS record
 * (nothing says a thread's registers where its history starts: the values
 * engine knows them only from the history and the end).  Versions 1 to 5
 * have no UNTRACED record (every task the recording saw made is in a
 * THREAD_START record; a task a recorder let run untraced left none).
 */
#define PTREC_SB_VERSION_MIN	1

/* Largest record a writer may emit or a reader will accept, in bytes. */
#define PTREC_SB_RECORD_MAX	8192
/* Records are padded to a multiple of this. */
#define PTREC_SB_ALIGN		8

/**
 * struct ptrec_sb_file_header - first bytes of a sideband stream
 * @magic:	PTREC_SB_MAGIC including its terminating NUL.
 * @version:	PTREC_SB_VERSION of the writer.
 * @header_size: sizeof(struct ptrec_sb_file_header); records start here.
 * @reserved:	zero.
 */
struct ptrec_sb_file_header {
	__u8 magic[8];
	__u32 version;
	__u32 header_size;
	__u64 reserved[2];
};

enum ptrec_sb_type {
	PTREC_SB_MMAP		= 1,
	PTREC_SB_MUNMAP		= 2,
	PTREC_SB_MPROTECT	= 3,
	PTREC_SB_EXEC		= 4,
	PTREC_SB_COMM		= 5,
	PTREC_SB_CR3		= 6,
	PTREC_SB_SWITCH_IN	= 7,
	PTREC_SB_SWITCH_OUT	= 8,
	PTREC_SB_THREAD_START	= 9,
	PTREC_SB_THREAD_EXIT	= 10,
	PTREC_SB_PROCESS_EXIT	= 11,
	PTREC_SB_LOST		= 12,
	PTREC_SB_TIME		= 13,
	PTREC_SB_SIGNAL		= 14,
	PTREC_SB_EXIT_FUTEX	= 15,	/* version 3 */
	PTREC_SB_SIGFRAME	= 16,	/* version 4 */
	PTREC_SB_REGS		= 17,	/* version 5 */
	PTREC_SB_UNTRACED	= 18,	/* version 6 */

	PTREC_SB_TYPE_COUNT	/* one past the highest known type */
};

/* Header flags. */
enum ptrec_sb_flag {
	/* State found when recording started (e.g. /proc/PID/maps), not an
	 * event that happened at @time.
	 */
	PTREC_SB_F_SNAPSHOT	= 1 << 0,
	/* SWITCH_OUT: the thread was preempted (still runnable). */
	PTREC_SB_F_PREEMPT	= 1 << 1,
};

/**
 * struct ptrec_sb_header - common record header
 * @type:	enum ptrec_sb_type.
 * @flags:	enum ptrec_sb_flag; unknown bits are ignored by readers.
 * @size:	whole record in bytes, header included, multiple of
 *		PTREC_SB_ALIGN, at most PTREC_SB_RECORD_MAX.
 * @time:	timestamp in TSC ticks (struct ptrec_sb_time converts).
 */
struct ptrec_sb_header {
	__u16 type;
	__u16 flags;
	__u32 size;
	__u64 time;
};

/*
 * PTREC_SB_MMAP: a mapping appeared.  Followed by @key_len bytes of image
 * key (the name of the copy in the bundle's image store, empty when the
 * mapping is not file-backed or not executable) and @path_len bytes of path,
 * neither NUL-terminated, then zero padding to PTREC_SB_ALIGN.
 */
struct ptrec_sb_mmap {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__u64 start;
	__u64 len;
	__u64 pgoff;		/* file offset in bytes */
	__u32 prot;		/* PROT_READ/WRITE/EXEC */
	__u32 mflags;		/* MAP_SHARED/PRIVATE/... */
	__u16 key_len;
	__u16 path_len;
	__u32 reserved;
};

/* PTREC_SB_MUNMAP: [start, start + len) was unmapped. */
struct ptrec_sb_munmap {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__u64 start;
	__u64 len;
};

/* PTREC_SB_MPROTECT: [start, start + len) got protection @prot. */
struct ptrec_sb_mprotect {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__u64 start;
	__u64 len;
	__u32 prot;
	__u32 reserved;
};

/*
 * PTREC_SB_EXEC: @pid replaced its image; every earlier mapping of @pid is
 * gone.  Followed by @path_len bytes of the new program's path and padding.
 */
struct ptrec_sb_exec {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__u16 path_len;
	__u16 reserved0;
	__u32 reserved1;
};

#define PTREC_SB_COMM_LEN	16	/* TASK_COMM_LEN */

/* PTREC_SB_COMM: thread name, NUL-padded. */
struct ptrec_sb_comm {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__u8 comm[PTREC_SB_COMM_LEN];
};

/*
 * PTREC_SB_CR3: the page-table bases of @pid's address space (seen on
 * @tid).  @cr3 is the CR3 its user code runs on, which PIP packets of user
 * code show; @kernel_cr3 the one the kernel runs on in its behalf, which
 * PIP packets of kernel code show.  They differ under page-table isolation
 * (the user CR3 has bit 12 set); PCID bits (11:0) are per CPU and not
 * recorded.  Version 1 records (PTREC_SB_CR3_V1_SIZE bytes) have no
 * @kernel_cr3; the reader (sideband/) returns them as version-2 records
 * with @kernel_cr3 0, unknown.
 */
struct ptrec_sb_cr3 {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__u64 cr3;
	__u64 kernel_cr3;
};

#define PTREC_SB_CR3_V1_SIZE	32

/* PTREC_SB_SWITCH_IN / PTREC_SB_SWITCH_OUT: @tid got or lost @cpu at time. */
struct ptrec_sb_switch {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u32 reserved;
};

/*
 * PTREC_SB_THREAD_START: @parent_tid created @tid.  @pid differs from
 * @parent_pid for fork and equals it for a new thread.
 */
struct ptrec_sb_thread_start {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__u32 parent_pid;
	__u32 parent_tid;
	__u64 clone_flags;
};

/* PTREC_SB_THREAD_EXIT: @tid ended. */
struct ptrec_sb_thread_exit {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__s32 exit_code;
	__u32 reserved;
};

enum ptrec_sb_exit_kind {
	PTREC_SB_EXITED		= 0,	/* @status is the exit status */
	PTREC_SB_KILLED		= 1,	/* @status is the signal number */
	PTREC_SB_DUMPED		= 2,	/* killed, and a core was dumped */
	PTREC_SB_DETACHED	= 3,	/* recording stopped, process lives */
};

/* PTREC_SB_PROCESS_EXIT: the last thread of @pid ended. */
struct ptrec_sb_process_exit {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 kind;		/* enum ptrec_sb_exit_kind */
	__s32 status;
	__u32 reserved;
};

enum ptrec_sb_lost_reason {
	PTREC_SB_LOST_OVERFLOW	= 1,	/* PT internal buffer overflow (OVF) */
	PTREC_SB_LOST_FULL	= 2,	/* stop-on-full: output buffer full */
	PTREC_SB_LOST_WRAP	= 3,	/* ring mode overwrote old data */
	PTREC_SB_LOST_READER	= 4,	/* user space drained too slowly */
	PTREC_SB_LOST_TRUNCATED	= 5,	/* importer: truncated input */
	PTREC_SB_LOST_SIDEBAND	= 6,	/* sideband records were dropped */
	PTREC_SB_LOST_UNTRACED	= 7,	/* the thread ran while the unit could
					 * not trace it (stopped at a full
					 * buffer's guard, another PT user,
					 * VMX, a faulting MSR, a unit error):
					 * @bytes is 0, the size is unknown */
};

/*
 * PTREC_SB_LOST: @bytes of @tid's PT stream (or of sideband) were lost;
 * the loss sits at @offset of that thread's PT stream file.
 */
struct ptrec_sb_lost {
	struct ptrec_sb_header hdr;
	__u32 tid;
	__u32 reason;		/* enum ptrec_sb_lost_reason */
	__u64 bytes;
	__u64 offset;
};

/*
 * PTREC_SB_TIME: TSC to nanoseconds, as perf_event_mmap_page does:
 *   ns = time_zero + (tsc >> time_shift) * time_mult
 *        + (((tsc & ((1 << time_shift) - 1)) * time_mult) >> time_shift)
 * @realtime_ns is CLOCK_REALTIME at TSC value hdr.time (0 if unknown).
 */
struct ptrec_sb_time {
	struct ptrec_sb_header hdr;
	__u16 time_shift;
	__u16 reserved0;
	__u32 time_mult;
	__u64 time_zero;
	__u64 tsc_hz;
	__u64 realtime_ns;
};

enum ptrec_sb_signal_flag {
	PTREC_SB_SIG_FATAL	= 1 << 0,	/* default action kills */
	PTREC_SB_SIG_HANDLED	= 1 << 1,	/* a handler runs next */
};

/* PTREC_SB_SIGNAL: @signo was delivered to @tid (si_code, si_addr). */
struct ptrec_sb_signal {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__s32 signo;
	__s32 code;
	__u64 addr;
	__u32 sflags;		/* enum ptrec_sb_signal_flag */
	__u32 reserved;
};

/*
 * PTREC_SB_SIGFRAME (version 4): the kernel built a signal frame for @tid
 * delivering @signo to a handler, which starts with its stack pointer at
 * @sp (the frame: return address, ucontext, siginfo, then the FPU state,
 * from @sp up).  The software recorder writes one after each SIGNAL record
 * with PTREC_SB_SIG_HANDLED, once the thread is at the handler's first
 * instruction.
 */
struct ptrec_sb_sigframe {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__s32 signo;
	__u32 reserved;
	__u64 sp;
};

/*
 * EXIT_FUTEX's known-bits: CTID, @clear_child_tid; CTID_VAL, @ctid_val
 * (needs CTID and a non-zero @clear_child_tid); ROBUST, @robust_list and
 * @robust_len; HEAD, @robust_next, @futex_offset and @list_op_pending
 * (needs ROBUST and a list).
 */
enum ptrec_sb_futex_known {
	PTREC_SB_FUTEX_CTID	= 1 << 0,
	PTREC_SB_FUTEX_CTID_VAL	= 1 << 1,
	PTREC_SB_FUTEX_ROBUST	= 1 << 2,
	PTREC_SB_FUTEX_HEAD	= 1 << 3,
	PTREC_SB_FUTEX_ALL	= 0xf,
};

/* The size of struct robust_list_head (x86-64): set_robust_list(2)
 * refuses any other length, so a registered list has this one.
 */
#define PTREC_SB_ROBUST_HEAD_LEN	24

/*
 * PTREC_SB_EXIT_FUTEX: as thread @tid began to exit (before the kernel's
 * exit_mm_release(), which walks its robust list and then writes 0 to
 * its clear_child_tid word when other users of the memory remain), what
 * the kernel held for it.  @clear_child_tid: the word's address (0:
 * none); @ctid_val its 4 bytes then.  @robust_list: the head
 * set_robust_list(2) registered (0: none), @robust_len its length; and
 * the head's three words then (struct robust_list_head: list.next, whose
 * bit 0 flags a PI futex, futex_offset, list_op_pending).  @known says
 * which fields hold facts (enum ptrec_sb_futex_known); a field not known
 * is 0.  At most one per thread, before its THREAD_EXIT.
 */
struct ptrec_sb_exit_futex {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__u64 clear_child_tid;
	__u64 robust_list;
	__u64 robust_len;
	__u64 robust_next;
	__s64 futex_offset;
	__u64 list_op_pending;
	__u32 ctid_val;
	__u32 known;		/* enum ptrec_sb_futex_known */
};

/* Where a REGS record's registers were taken (enum ptrec_sb_regs_where). */
enum ptrec_sb_regs_where {
	/* Before the first instruction @tid's trace shows: the state its
	 * history starts from.
	 */
	PTREC_SB_REGS_START	= 1,
	/* As a system call instruction of @tid (SYSCALL, int $0x80)
	 * completed at the instruction after it: rax (the call's result),
	 * rcx and r11 (what SYSCALL leaves there) and rip (that address).  A signal delivered then makes the
	 * thread's next instruction the handler's, not rip's.
	 */
	PTREC_SB_REGS_SYSCALL	= 2,
};

/*
 * The registers of a REGS record, in this order (GDB's amd64 order, as
 * the user space enum sb_reg): rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp,
 * r8-r15, rip, rflags, cs, ss, ds, es, fs, gs, fs_base, gs_base,
 * orig_rax.
 */
#define PTREC_SB_NREGS		27

/*
 * PTREC_SB_REGS (version 5): @tid's user registers at the point @where
 * says (enum ptrec_sb_regs_where).  Bit i of @valid is set when @regs[i]
 * holds the register's value there; a register not valid is 0.  rflags is
 * the program's own (a trap flag a stepping recorder sets is not in it).
 */
struct ptrec_sb_regs {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__u32 where;		/* enum ptrec_sb_regs_where */
	__u32 reserved;
	__u64 valid;
	__u64 regs[PTREC_SB_NREGS];
};

/*
 * PTREC_SB_UNTRACED (version 6): @parent_tid created @tid (of process
 * @pid; @clone_flags as in THREAD_START), and the recorder let it run
 * untraced for the reason @reason gives (enum ptrec_sb_untraced_reason):
 * it has no stream, no THREAD_START record, and no later record names
 * it.  It may write any memory it shares, at any time, beside every
 * traced thread, and its own children are not recorded either.
 */
struct ptrec_sb_untraced {
	struct ptrec_sb_header hdr;
	__u32 pid;
	__u32 tid;
	__u32 parent_pid;
	__u32 parent_tid;
	__u64 clone_flags;
	__u32 reason;		/* enum ptrec_sb_untraced_reason */
	__u32 reserved;
};

enum ptrec_sb_untraced_reason {
	/* @tid is the tid of a thread recorded before (clone3's set_tid,
	 * pid wraparound): the bundle names streams and records by tid.
	 */
	PTREC_SB_UNTRACED_TID_REUSED	= 1,
};

#endif /* _UAPI_PTREC_SIDEBAND_H */
