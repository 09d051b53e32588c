/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libptrec: the replay engine.  The one public header of replay/.
 *
 * Opens a trace bundle, decodes every thread's Intel PT stream with libipt
 * against the address space in force at each point of that thread's
 * history (rebuilt from sideband, code from the bundle's image store), and
 * keeps a compact index (one checkpoint per PSB) instead of every
 * instruction.  Cursors move through one thread's history; segments
 * between checkpoints are decoded on demand and cached.
 *
 * Positions are 0-based instruction numbers within a thread (the CLI and
 * GDB show them 1-based).  Functions return 0 or a negated enum rp_error;
 * rp_errstr() names it, and rp_session_errmsg() says what failed in words
 * (file, offset, thread).
 */
#ifndef PTREC_REPLAY_H
#define PTREC_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rp_error {
	RP_OK = 0,
	RP_ERR_INVAL,		/* bad argument */
	RP_ERR_NOMEM,		/* out of memory */
	RP_ERR_BUNDLE,		/* bundle missing, incomplete or damaged */
	RP_ERR_VERSION,		/* bundle or stream format not supported */
	RP_ERR_NOTHREAD,	/* no such thread in the bundle */
	RP_ERR_RANGE,		/* position outside the history */
	RP_ERR_NOTFOUND,	/* a search found nothing */
	RP_ERR_DECODE,		/* libipt failed outside any gap (a bug) */
	RP_ERR_IO,		/* reading a bundle file failed */
	RP_ERR_COUNT
};

/* A static description of @err (negated or not). */
const char *rp_errstr(int err);

/* ---- sessions ----------------------------------------------------------- */

struct rp_session;

/**
 * rp_session_open() - open a bundle and index every thread
 * @dir:	the bundle directory.
 *
 * Decodes each thread once to build its index.  Returns 0, or
 * -RP_ERR_BUNDLE (unreadable, incomplete or inconsistent bundle),
 * -RP_ERR_VERSION, -RP_ERR_NOMEM, -RP_ERR_IO.  On failure *@s is still set
 * (unless -RP_ERR_NOMEM) so that rp_session_errmsg() can explain; close it.
 */
int rp_session_open(struct rp_session **s, const char *dir);

/* Reports indexing progress: bytes of PT decoded so far, of @total. */
typedef void (*rp_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* rp_session_open() that calls @fn (when not NULL) now and then while
 * indexing, for a progress bar.
 */
int rp_session_open_progress(struct rp_session **s, const char *dir,
			     rp_progress_fn fn, void *ctx);

void rp_session_close(struct rp_session *s);

/* What the last failure was, in words ("" when none). */
const char *rp_session_errmsg(const struct rp_session *s);

/**
 * struct rp_session_info - what the bundle says about its recording
 * @backend:	"emu", "kmod", "import-raw", "import-perf", ...
 * @emulated:	PT emulated by the software recorder, not hardware.
 * @argc, @argv: the recorded command line.
 * @start_ns, @stop_ns: wall clock (CLOCK_REALTIME) of the recording.
 * @tsc_hz:	the TSC frequency, 0 when unknown.
 *
 * Strings live as long as the session.
 */
struct rp_session_info {
	const char *backend;
	bool emulated;
	const char *cpu_vendor;
	unsigned int cpu_family, cpu_model, cpu_stepping;
	size_t argc;
	const char *const *argv;
	uint64_t start_ns, stop_ns;
	uint64_t tsc_hz;
	bool snapshot;		/* the manifest lists an end-state snapshot */
};

void rp_session_info(const struct rp_session *s, struct rp_session_info *info);

/* Number of threads, and the tid of thread @i (0-based, manifest order). */
size_t rp_thread_count(const struct rp_session *s);
uint32_t rp_thread_tid(const struct rp_session *s, size_t i);

enum rp_gap_reason {
	RP_GAP_DECODE,		/* libipt could not decode (corrupt trace) */
	RP_GAP_NOMAP,		/* no code bytes at that address (missing image) */
	RP_GAP_OVERFLOW,	/* the PT unit overflowed: packets were lost */
	RP_GAP_LOST,		/* a LOST sideband record */
	RP_GAP_LOOP,		/* a loop PT cannot count (no conditional
				 * branch): iterations unknown */
};

/**
 * struct rp_gap - a hole in a thread's history
 * @before:	position of the first instruction after the gap.
 * @reason:	enum rp_gap_reason.
 * @ip:		address where decoding stopped (0 if unknown).
 * @offset:	byte offset in the thread's PT stream.
 * @error:	the libipt error text, for RP_GAP_DECODE/NOMAP.
 * @bytes:	trace bytes the gap covers: lost (RP_GAP_LOST), or skipped
 *		from the error to the next PSB (RP_GAP_DECODE); 0 unknown.
 */
struct rp_gap {
	uint64_t before;
	uint32_t reason;
	uint64_t ip;
	uint64_t offset;
	const char *error;
	uint64_t bytes;
};

struct rp_thread_info {
	uint32_t tid;
	uint32_t pid;
	uint64_t insns;		/* instructions in the history */
	uint64_t ngaps;
	uint64_t first_tsc;	/* 0 when the stream has no timing */
	uint64_t last_tsc;
	uint64_t pt_bytes;
	uint64_t checkpoints;
	uint64_t index_bytes;	/* memory the index takes */
	uint64_t nevents;	/* rp_thread_event() */
};

/* Returns 0 or -RP_ERR_NOTHREAD. */
int rp_thread_info(const struct rp_session *s, uint32_t tid,
		   struct rp_thread_info *info);

/* Gap @i of thread @tid.  Returns 0, -RP_ERR_NOTHREAD or -RP_ERR_RANGE. */
int rp_thread_gap(const struct rp_session *s, uint32_t tid, uint64_t i,
		  struct rp_gap *gap);

/* Why a task ran untraced (sideband's enum ptrec_sb_untraced_reason). */
enum rp_untraced_reason {
	RP_UNTRACED_TID_REUSED = 1,	/* the tid of a thread recorded before */
};

/**
 * struct rp_untraced - a task the recorder let run untraced (an UNTRACED
 * record, sideband format 6, docs/bundle-format.md 6.18): it has no
 * history, and may have written any memory it shares at any time.
 * @tid, @pid:	the task and its process.
 * @parent_tid, @parent_pid: the thread that made it, and its process.
 * @clone_flags: CLONE_* of the creating call (0: not known).
 * @reason:	enum rp_untraced_reason (others: a later format's).
 * @tsc:	the record's time (the trace's clock, rp_tsc_to_ns()): when
 *		the recorder saw it made.
 */
struct rp_untraced {
	uint32_t tid, pid;
	uint32_t parent_tid, parent_pid;
	uint64_t clone_flags;
	uint32_t reason;
	uint64_t tsc;
};

/* Number of untraced tasks, and task @i (sideband order): 0 or
 * -RP_ERR_RANGE.
 */
size_t rp_untraced_count(const struct rp_session *s);
int rp_untraced_info(const struct rp_session *s, size_t i,
		     struct rp_untraced *u);

struct rp_insn;

/* ---- events --------------------------------------------------------------- */

/*
 * What the trace says besides the control flow (Intel SDM Vol. 3C, 33.4.1
 * packet summary), as libipt's decoders report it, at its place in the
 * history.  Execution-mode events are kept only where the mode changes.
 */
enum rp_event_kind {
	RP_EV_ENABLED,		/* tracing on (TIP.PGE) at @ip; RP_EVF_RESUMED */
	RP_EV_DISABLED,		/* tracing off (TIP.PGD): a system call, a
				 * filter; @ip: first target not traced */
	RP_EV_ASYNC_DISABLED,	/* off asynchronously before @ip ran (a
				 * signal, a fault, preemption) */
	RP_EV_INTERRUPT,	/* asynchronous branch (interrupt, exception,
				 * signal) from @ip (not executed) to @to */
	RP_EV_PAGING,		/* PIP: CR3 @payload; RP_EVF_NONROOT */
	RP_EV_OVERFLOW,		/* OVF: packets lost; resumes at @ip */
	RP_EV_EXEC_MODE,	/* code size now @payload bits, at @ip */
	RP_EV_TSX,		/* MODE.TSX at @ip: RP_EVF_TSX_SPEC (begin),
				 * RP_EVF_TSX_ABORT (abort), neither (commit) */
	RP_EV_STOP,		/* TraceStop */
	RP_EV_VMCS,		/* VMCS base @payload */
	RP_EV_EXSTOP,		/* execution stopped at @ip */
	RP_EV_MWAIT,		/* MWAIT at @ip: hints @payload & 0xffffffff,
				 * extensions @payload >> 32 */
	RP_EV_PWRE,		/* C-state entry: PWRE's resolved thread
				 * C-state @payload & 0xff, sub-state
				 * @payload >> 8 (raw); RP_EVF_HW */
	RP_EV_PWRX,		/* C-state exit: PWRX's last core C-state
				 * @payload & 0xff, deepest @payload >> 8
				 * (raw); wake flags */
	RP_EV_PTWRITE,		/* PTWRITE of @payload (@size bytes) by the
				 * instruction at @ip, the one before @before */
	RP_EV_CBR,		/* core:bus ratio now @payload */
	RP_EV_MNT,		/* maintenance packet, raw @payload */
	RP_EV_PEBS,		/* PEBS block item (BIP), raw: @payload of
				 * @size bytes, item ID @ip, block type @to */
	RP_EV_KINDS
};

#define RP_EVF_IP_SUPPRESSED	(1u << 0)	/* @ip not known */
#define RP_EVF_RESUMED		(1u << 1)	/* where it was disabled */
#define RP_EVF_ASYNC		(1u << 2)	/* paging/vmcs: at @ip */
#define RP_EVF_NONROOT		(1u << 3)	/* VMX non-root (guest) */
#define RP_EVF_TSX_SPEC		(1u << 4)
#define RP_EVF_TSX_ABORT	(1u << 5)
#define RP_EVF_HW		(1u << 6)	/* PWRE: hardware initiated */
#define RP_EVF_WAKE_INTERRUPT	(1u << 7)	/* PWRX wake reasons */
#define RP_EVF_WAKE_STORE	(1u << 8)
#define RP_EVF_WAKE_AUTONOMOUS	(1u << 9)
#define RP_EVF_TSC		(1u << 10)	/* @tsc is set */

/**
 * struct rp_event - an event of a thread's trace
 * @before:	position of the first instruction after it (the event lies
 *		between instructions @before - 1 and @before).
 * @ip, @to:	addresses, as the kind says.
 * @payload:	the kind's value.
 * @tsc:	its timestamp (with RP_EVF_TSC).
 * @kind:	enum rp_event_kind.
 * @flags:	RP_EVF_*.
 * @size:	RP_EV_PTWRITE: payload bytes (4 or 8).
 */
struct rp_event {
	uint64_t before;
	uint64_t ip;
	uint64_t to;
	uint64_t payload;
	uint64_t tsc;
	uint32_t kind;
	uint16_t flags;
	uint16_t size;
};

/* Event @i of thread @tid (in history order).  Returns 0,
 * -RP_ERR_NOTHREAD or -RP_ERR_RANGE.
 */
int rp_thread_event(const struct rp_session *s, uint32_t tid, uint64_t i,
		    struct rp_event *ev);

/* The index of @tid's first event at or after position @pos (the
 * thread's event count when none; 0 for an unknown thread).
 */
uint64_t rp_thread_event_find(const struct rp_session *s, uint32_t tid,
			      uint64_t pos);

/* Events of @tid per kind into @counts[RP_EV_KINDS].  Returns 0 or
 * -RP_ERR_NOTHREAD.
 */
int rp_thread_event_counts(const struct rp_session *s, uint32_t tid,
			   uint64_t counts[RP_EV_KINDS]);

/* The kind's name ("ptwrite", "interrupt", ...); NULL when out of range. */
const char *rp_event_name(unsigned int kind);

/*
 * @ev as GDB's instruction history shows events, without brackets:
 * "ptwrite: 0x2a", "interrupt: 0x401000 -> 0x401234", "disabled",
 * "overflow: resumed at 0x...".  With @at, the instruction before the
 * event (position @ev->before - 1 of thread @tid), a PTWRITE names the
 * variable its operand reads when that is a fixed location the image's
 * symbols or DWARF name ("ptwrite: 0x2a (counter)"), or an indexed or
 * based memory operand whose registers the values engine knows there and
 * whose address lies in a global object ("(arr[3])", "(obj+8)").  Returns
 * 0 or -RP_ERR_RANGE (@len too small).
 */
int rp_format_event(struct rp_session *s, uint32_t tid,
		    const struct rp_event *ev, const struct rp_insn *at,
		    char *buf, size_t len);

/*
 * Nanoseconds of TSC value @tsc into *@ns: by the sideband's time
 * conversion, else the TSC frequency, else PT's nominal frequency (the
 * TSC ticks at that ratio of the 100 MHz bus clock).  Returns 0, or
 * -RP_ERR_NOTFOUND when the bundle gives none of them.
 */
int rp_tsc_to_ns(const struct rp_session *s, uint64_t tsc, uint64_t *ns);

/* ---- instructions ------------------------------------------------------- */

/* Instruction classes (from libipt's, translated). */
enum rp_iclass {
	RP_IC_OTHER,
	RP_IC_JUMP,		/* near jump, direct or indirect */
	RP_IC_COND,		/* conditional jump */
	RP_IC_CALL,		/* near call */
	RP_IC_RETURN,		/* near return */
	RP_IC_FAR,		/* far call/return/jump, syscall, interrupt */
};

/**
 * struct rp_insn - one executed instruction
 * @image:	1 + index of the image (rp_image_path()) mapped at @ip when
 *		it ran, 0 when unknown.
 * @image_off:	offset of @ip in that image's file.
 */
struct rp_insn {
	uint64_t ip;
	uint8_t size;		/* bytes */
	uint8_t iclass;		/* enum rp_iclass */
	uint8_t raw[15];
	uint8_t bits;		/* code size: 64, 32 or 16 (libipt's exec mode) */
	uint32_t image;
	uint64_t image_off;
	uint64_t tsc;		/* last timestamp at or before it (0: none) */
	uint64_t pkt_end;	/* stream offset of the decoder after it
				 * (rp_insn_cycles()) */
};

/**
 * rp_insn_is_syscall() - is @in a SYSCALL instruction (0f 05)?
 *
 * The 64-bit system call entry; int 0x80 (rp_insn_is_int80()) enters
 * the kernel's 32-bit table with other numbers, and SYSENTER's return
 * is not the next instruction.  One test, so every rule that finds a
 * system call in the history agrees on what one is.
 */
static inline bool rp_insn_is_syscall(const struct rp_insn *in)
{
	return in->size == 2 && in->raw[0] == 0x0f && in->raw[1] == 0x05;
}

/* rp_insn_is_int80() - is @in int 0x80 (cd 80), the 32-bit entry? */
static inline bool rp_insn_is_int80(const struct rp_insn *in)
{
	return in->size == 2 && in->raw[0] == 0xcd && in->raw[1] == 0x80;
}

/**
 * struct rp_cycles - where rp_insn_cycles() is in the stream; zero it
 * before the first call.
 */
struct rp_cycles {
	uint32_t tid;
	bool started;
	bool on;		/* the recording had CYC on (its manifest's
				 * features), or a CYC packet was seen */
	uint64_t off;		/* the next packet's offset */
	uint64_t last_to;	/* the previous call's end */
	uint64_t acc;		/* CYC payloads not yet given out */
};

/**
 * rp_insn_cycles() - core cycles of @insn, from the CYC packets (events.c)
 * @prev:	the instruction before @insn in the history, NULL for none
 * @cycles:	set to the sum of the CYC payloads that come right before
 *		the packets libipt read while at @insn
 *
 * SDM Vol. 3C 33.3.6: a CYC packet counts the core cycles since the last
 * one and goes out with the next other packet; libipt 2.0 folds it into
 * its time and gives no count per instruction, so the count goes to the
 * instruction whose decoding read the packet it precedes.  Computed for
 * the instructions asked for only (nothing at index time); called for
 * consecutive instructions it walks each packet once.
 *
 * Return: 0; -RP_ERR_NOTHREAD for a bad @tid.  @cy->on tells whether the
 * recording had CYC on, so that a front end shows counts, 0 included, for
 * every instruction of it, from wherever it starts.
 */
int rp_insn_cycles(const struct rp_session *s, uint32_t tid,
		   struct rp_cycles *cy, const struct rp_insn *prev,
		   const struct rp_insn *insn, uint64_t *cycles);

/* The bundle's copy of image @image (as in struct rp_insn) and the path it
 * had on the recording machine; NULL when out of range.
 */
const char *rp_image_path(const struct rp_session *s, uint32_t image);
const char *rp_image_origin(const struct rp_session *s, uint32_t image);
/* Opens image @image's bundle copy read-only by the bundle rule
 * (docs/security.md: no symbolic link, a regular file of the listed
 * size).  Returns the descriptor, or a negative errno.
 */
int rp_image_fd(const struct rp_session *s, uint32_t image);

/* ---- symbols ------------------------------------------------------------ */

/**
 * struct rp_sym - what an executed address was, in source terms
 * @module:	the image's soname or file name.
 * @vaddr:	the address in the image's link-time layout.
 * @function:	containing function ("main", "puts@plt"), NULL if unknown.
 * @offset:	@vaddr minus the function's start.
 * @file, @line: source position (NULL, 0 without line information).
 * @inlined:	innermost inlined function at @vaddr, or NULL.
 *
 * Strings live as long as the session.
 */
struct rp_sym {
	const char *module;
	uint64_t vaddr;
	const char *function;
	uint64_t func_vaddr;
	uint64_t offset;
	const char *file;
	int line;
	const char *inlined;
	const char *func_file;	/* the file its function is declared in
				 * (DW_AT_decl_file), as @file names files */
};

/* Symbolizes @insn against the image it ran from.  Returns 0 (fields may be
 * unknown), or -RP_ERR_NOTFOUND when it ran from no known image.
 */
int rp_symbolize(struct rp_session *s, const struct rp_insn *insn,
		 struct rp_sym *out);

/* ---- function-call history ----------------------------------------------- */

/**
 * struct rp_call - one segment of the function-call history, as GDB's
 * "record function-call-history" shows it
 * @first, @last: positions of its first and last instruction.
 * @level:	call depth, 0 the shallowest in the history.
 * @function:	its function ("??" when unknown).
 * @file, @line_min, @line_max: the source lines it executed.
 */
struct rp_call {
	uint64_t first, last;
	int level;
	const char *function;
	const char *file;
	int line_min, line_max;
};

/*
 * Builds the function-call history of thread @tid: a new segment after each
 * call and return, at each gap, and where execution moves to another
 * function otherwise (tail calls, longjmp, signal handlers).  Returns 0,
 * -RP_ERR_NOTHREAD or -RP_ERR_NOMEM.  Free *@calls with free().
 */
int rp_calls_build(struct rp_session *s, uint32_t tid, struct rp_call **calls,
		   size_t *n);

/* ---- exporters (export.c) ------------------------------------------------ */

enum rp_export_format {
	RP_EXPORT_JSONL,	/* one JSON object per instruction */
	RP_EXPORT_CSV,		/* tid,n,ip,tsc,function,offset,file,line */
	RP_EXPORT_PERFETTO,	/* Chrome trace events: a slice per call */
};

/* The format called @name ("jsonl", "csv", "perfetto"), or -RP_ERR_INVAL. */
int rp_export_format_by_name(const char *name);

/**
 * rp_export() - write histories to @f in format @fmt
 * @tid:	one thread, or 0 for every thread in bundle order.
 *
 * Returns 0, -RP_ERR_NOTHREAD (nothing written), -RP_ERR_IO when writing
 * to @f failed (errno, or ferror(@f), says why), -RP_ERR_NOMEM, or the
 * errors of the cursors.
 */
int rp_export(struct rp_session *s, enum rp_export_format fmt, uint32_t tid,
	      FILE *f);

/* ---- text in GDB's layouts ------------------------------------------------ */

/**
 * rp_format_insn() - one line of GDB's "record instruction-history"
 * @pos:	the instruction's position (printed 1-based).
 * @raw:	with its bytes (GDB's /r).
 * @current:	marked "=>" as GDB marks the current instruction.
 *
 * Writes the line without newline into @buf.  Returns 0 or -RP_ERR_NOMEM.
 */
int rp_format_insn(struct rp_session *s, const struct rp_insn *insn,
		   uint64_t pos, bool raw, bool current, char *buf,
		   size_t size);

/**
 * rp_format_gap() - a gap as the CLI's history shows it, without newline:
 * "[REASON at 0xIP, trace offset N: ERROR]".
 */
void rp_format_gap(const struct rp_gap *gap, char *buf, size_t size);

/* One line of GDB's "record function-call-history": @index is printed
 * 1-based; @tree, @lines, @range are GDB's /c, /l, /i.
 */
void rp_format_call(const struct rp_call *call, size_t index, bool tree,
		    bool lines, bool range, char *buf, size_t size);

/* ---- cursors ------------------------------------------------------------ */

struct rp_cursor;

/* A cursor on thread @tid, at the end of its history (the last
 * instruction).  Returns 0, -RP_ERR_NOTHREAD, -RP_ERR_RANGE (empty history),
 * -RP_ERR_NOMEM.
 */
int rp_cursor_new(struct rp_session *s, uint32_t tid, struct rp_cursor **c);
void rp_cursor_free(struct rp_cursor *c);

/* The current position and instruction. */
uint64_t rp_cursor_pos(const struct rp_cursor *c);
int rp_cursor_insn(struct rp_cursor *c, struct rp_insn *insn);

/* Instruction at any position of the cursor's thread, moving nothing.
 * Returns 0 or -RP_ERR_RANGE.
 */
int rp_cursor_peek(struct rp_cursor *c, uint64_t pos, struct rp_insn *insn);

/* Moves to @pos.  Returns 0 or -RP_ERR_RANGE (cursor unchanged). */
int rp_cursor_goto(struct rp_cursor *c, uint64_t pos);

/* One instruction back (@dir < 0) or forward.  -RP_ERR_RANGE at the edges. */
int rp_cursor_step(struct rp_cursor *c, int dir);

/*
 * Steps over calls: like rp_cursor_step(), but a call is stepped over
 * as a whole (forward: to the instruction after its return; backward from
 * after a return: to the call).  -RP_ERR_RANGE at the edges (the cursor
 * goes to the edge).
 */
int rp_cursor_next(struct rp_cursor *c, int dir);

/*
 * Steps out of the current function: backward to the call that entered
 * it, forward to the first instruction after its return.  -RP_ERR_NOTFOUND
 * when the history does not show the call/return (the cursor goes to the
 * edge of the history).
 */
int rp_cursor_finish(struct rp_cursor *c, int dir);

/**
 * rp_cursor_callers() - the calls that opened the frames around a position
 * @pos:	a position of the cursor's thread, or the end (its instruction
 *		count: the frames of the last instruction's successor).
 * @calls:	receives the positions of those call instructions, innermost
 *		first (each is the last call before the one after it that no
 *		return matches).
 * @max:	room in @calls.
 *
 * What a backward scan of the whole history from @pos would find, at the
 * cost of one segment's scan per frame: the checkpoints' call depths skip
 * the segments that cannot hold a frame's call.  Does not move the cursor.
 *
 * Return: the number of frames found (0 at the outermost recorded level),
 * -RP_ERR_RANGE when @pos is outside the history, or the errors of
 * rp_cursor_peek().
 */
int rp_cursor_callers(struct rp_cursor *c, uint64_t pos, uint64_t *calls,
		      size_t max);

/**
 * rp_cursor_frames() - the calls that opened the frames still live at @pos
 *
 * As rp_cursor_callers(), without the frames that a non-local exit
 * abandoned: calls and returns alone keep the frames a longjmp or a C++
 * exception unwound (their calls never see a return).  Where a frame's
 * code is not in the function its call entered, and the function is that
 * of an older caller's call site (the landing of longjmp or of an
 * exception's landing pad), the frames in between are dropped; otherwise
 * (a tail call) the frame stays.
 *
 * Return: the number of frames, or the errors of rp_cursor_callers() and
 * -RP_ERR_NOMEM.
 */
int rp_cursor_frames(struct rp_cursor *c, uint64_t pos, uint64_t *calls,
		     size_t max);

/**
 * rp_cursor_frame_exit() - where the frame entered at @entry is left
 * @c:		a cursor of the thread (not moved).
 * @entry:	the frame's first instruction (a callee's entry, or a signal
 *		handler's).
 *
 * Return: the position of the instruction after the return that leaves
 * the frame (for a signal handler, the first instruction of its
 * restorer, __restore_rt), or UINT64_MAX when the history ends first.
 */
uint64_t rp_cursor_frame_exit(struct rp_cursor *c, uint64_t entry);

/*
 * Moves to the nearest instruction strictly before (@dir < 0) or after the
 * cursor whose address is one of @ips[0..@n).  Returns 0, or
 * -RP_ERR_NOTFOUND (the cursor goes to the edge of the history).
 */
int rp_cursor_search(struct rp_cursor *c, int dir, const uint64_t *ips,
		     size_t n);

/**
 * rp_read_code() - code bytes as mapped in thread @tid's process when
 * instruction @pos ran (@pos may be one past the last instruction)
 *
 * Reads from the bundle's image store only.  Returns the number of bytes
 * read (short at the end of a mapping), or -RP_ERR_NOTFOUND when no code is
 * known at @addr, -RP_ERR_NOTHREAD, -RP_ERR_RANGE.
 */
int rp_read_code(struct rp_session *s, uint32_t tid, uint64_t pos,
		 uint64_t addr, void *buf, size_t len);

/**
 * rp_process_entry() - where process @pid's main program was loaded
 * @entry:	its entry point at run time.
 * @phdr:	run-time address of its program headers.
 * @phnum:	their number.
 *
 * What an auxiliary vector (AT_ENTRY, AT_PHDR, AT_PHNUM) tells a debugger
 * so that it relocates a position-independent executable.  Returns 0 or
 * -RP_ERR_NOTFOUND.
 */
int rp_process_entry(struct rp_session *s, uint32_t pid, uint64_t *entry,
		     uint64_t *phdr, uint64_t *phnum);

/*
 * As rp_process_entry() and rp_process_exe() for the program that thread
 * @tid's process ran when instruction @pos ran: before an execve, the old
 * program (the sideband's exec generations), not the last one.  Returns 0,
 * -RP_ERR_NOTHREAD, -RP_ERR_RANGE or -RP_ERR_NOTFOUND.
 */
int rp_process_entry_at(struct rp_session *s, uint32_t tid, uint64_t pos,
			uint64_t *entry, uint64_t *phdr, uint64_t *phnum);
int rp_process_exe_at(struct rp_session *s, uint32_t tid, uint64_t pos,
		      char *buf, size_t size);

/**
 * rp_libraries() - the ELF images mapped in @tid's process when
 * instruction @pos ran, for a debugger's library list
 * @fn:		called with each image's path on the recording machine, its
 *		load bias, the run-time address of its dynamic section (0 if
 *		none), and whether it is the main program.
 *
 * Returns the number of images, or -RP_ERR_NOTHREAD / -RP_ERR_RANGE.
 */
typedef void (*rp_library_fn)(void *ctx, const char *path, uint64_t bias,
			      uint64_t dynamic, bool main);
int rp_libraries(struct rp_session *s, uint32_t tid, uint64_t pos,
		 rp_library_fn fn, void *ctx);

/* The program file process @pid ran (its path on the recording machine),
 * into @buf.  Returns 0 or -RP_ERR_NOTFOUND.
 */
int rp_process_exe(const struct rp_session *s, uint32_t pid, char *buf,
		   size_t size);

/* The program interpreter (PT_INTERP, the dynamic linker's path as the
 * program names it) of process @pid's main program, into @buf.  Returns 0
 * or -RP_ERR_NOTFOUND (a static program, or its image is not in the bundle).
 */
int rp_process_interp(struct rp_session *s, uint32_t pid, char *buf,
		      size_t size);

/* The thread that received the last fatal signal (the crash), into @tid.
 * Returns 0 or -RP_ERR_NOTFOUND when the program did not die of one.
 */
int rp_fatal_thread(const struct rp_session *s, uint32_t *tid);

/**
 * rp_search_threads() - the nearest breakpoint hit in any thread
 * @dir:	< 0 backward in time, > 0 forward.
 * @tid, @pos:	where the search starts; on success, the hit.
 *
 * Orders instructions of different threads by their timestamps (ties, which
 * only coarse hardware timing produces, by thread order in the bundle);
 * within the starting thread by position.  Returns 0, -RP_ERR_NOTFOUND
 * (nothing changed), -RP_ERR_NOTHREAD or -RP_ERR_RANGE.
 */
int rp_search_threads(struct rp_session *s, int dir, uint32_t *tid,
		      uint64_t *pos, const uint64_t *ips, size_t n);

/* ---- where histories end ------------------------------------------------ */

/* Registers in GDB's amd64 order (as the bundle's register snapshots). */
enum rp_reg {
	RP_REG_RAX, RP_REG_RBX, RP_REG_RCX, RP_REG_RDX,
	RP_REG_RSI, RP_REG_RDI, RP_REG_RBP, RP_REG_RSP,
	RP_REG_R8, RP_REG_R9, RP_REG_R10, RP_REG_R11,
	RP_REG_R12, RP_REG_R13, RP_REG_R14, RP_REG_R15,
	RP_REG_RIP, RP_REG_EFLAGS,
	RP_REG_CS, RP_REG_SS, RP_REG_DS, RP_REG_ES, RP_REG_FS, RP_REG_GS,
	RP_REG_FS_BASE, RP_REG_GS_BASE, RP_REG_ORIG_RAX,
	RP_REG_COUNT
};

/* A thread's registers at the end of its history; bit (1 << reg) of
 * @valid set for each one known.
 */
struct rp_regs {
	uint64_t valid;
	uint64_t val[RP_REG_COUNT];
};

/*
 * The call frame information rule at an executed instruction (.eh_frame
 * of its image): the canonical frame address (CFA) is register @cfa_reg
 * plus @cfa_off before it runs; each register's value in the caller is
 * RP_CFI_SAME (unchanged), RP_CFI_AT (saved at CFA + @off[reg]),
 * RP_CFI_UNDEFINED (DW_CFA_undefined: not recoverable; for rip the mark
 * of the outermost frame, as glibc's thread starts and _start set it,
 * which GDB ends a backtrace at) or RP_CFI_UNKNOWN.  Rules other than
 * these read as unknown.
 */
enum { RP_CFI_UNKNOWN, RP_CFI_SAME, RP_CFI_AT, RP_CFI_UNDEFINED };
struct rp_cfi {
	unsigned int cfa_reg;
	int64_t cfa_off;
	uint8_t how[RP_REG_COUNT];
	int64_t off[RP_REG_COUNT];
};

/* Returns 0, or -RP_ERR_NOTFOUND when the image has no rule there. */
int rp_frame_rule(struct rp_session *s, const struct rp_insn *insn,
		  struct rp_cfi *out);

/**
 * rp_thread_end() - where thread @tid's history ends
 * @end:	receives the position of the thread at the end: its
 *		instruction count, or one less when its final registers show
 *		it still at its last instruction (a system call it never
 *		returned from, as the recorder saw it, or a faulting
 *		instruction).  That instruction ran but never completed: it
 *		is the one the thread is at when the recording ends.
 * @regs:	receives the final registers (valid 0 when the bundle has
 *		none); may be NULL.
 *
 * The one rule every front end uses for the end of a history (ptrec
 * insns lists the last instruction, GDB stops at or after it by this
 * rule).  The final registers are the end-state snapshot's where the
 * bundle has one that holds the thread (what a core file would show: a
 * thread inside a system call is after its syscall instruction), else the
 * thread's register file, found through the manifest.  Returns 0,
 * -RP_ERR_NOTHREAD, or the errors of rp_cursor_peek().
 */
int rp_thread_end(struct rp_session *s, uint32_t tid, uint64_t *end,
		  struct rp_regs *regs);

/**
 * struct rp_signal - the fatal signal a program died of
 * @tid, @pid:	the thread that received it.
 * @signo, @code, @addr: as in its siginfo (si_signo, si_code, si_addr).
 */
struct rp_signal {
	uint32_t tid, pid;
	int32_t signo, code;
	uint64_t addr;
};

/* The last fatal signal in the sideband.  Returns 0 or -RP_ERR_NOTFOUND. */
int rp_fatal_signal(const struct rp_session *s, struct rp_signal *sig);

/* ---- the timeline: moving through a multi-threaded history ---------------- */

/*
 * A timeline owns the rules of moving through every thread's history at
 * once, as a debugger does: each thread's position (0 to its end, see
 * rp_thread_end()), the present moment across threads (the thread whose
 * position last moved; the others wait at their first instruction after
 * it), breakpoints, continuing and stepping either way, the registers
 * known at the end, and code memory read through an address space cached
 * at each thread's position.  Threads are numbered 0..count-1, in the
 * bundle's order, leaving out threads with an empty history.
 */
struct rp_timeline;
struct rp_watch_hit;
struct rp_recover;

/* Why a move stopped. */
enum rp_stop {
	RP_STOP_STEP,		/* a step completed */
	RP_STOP_BREAK,		/* at a breakpoint */
	RP_STOP_BEGIN,		/* at the start of the history */
	RP_STOP_END,		/* at the end of the history */
	RP_STOP_WATCH,		/* at a watchpoint: rp_timeline_watch_hit() */
};

/*
 * A timeline over @s with every thread at its end; the selected thread is
 * the one that got the fatal signal, else the one that ran last.  Returns
 * 0, -RP_ERR_NOMEM or -RP_ERR_NOTHREAD (no thread has a history).
 */
int rp_timeline_new(struct rp_session *s, struct rp_timeline **tl);
void rp_timeline_free(struct rp_timeline *tl);

/* Every thread back at its end, no breakpoints, as rp_timeline_new(). */
void rp_timeline_reset(struct rp_timeline *tl);

size_t rp_timeline_count(const struct rp_timeline *tl);
uint32_t rp_timeline_tid(const struct rp_timeline *tl, size_t i);
uint32_t rp_timeline_pid(const struct rp_timeline *tl, size_t i);
/* The index of thread @tid, or -1. */
long rp_timeline_find(const struct rp_timeline *tl, uint32_t tid);

/* The selected thread (what steps, and whose registers are read). */
size_t rp_timeline_selected(const struct rp_timeline *tl);
void rp_timeline_select(struct rp_timeline *tl, size_t i);

/* Position and end of thread @i; its cursor (for peeks and call stacks,
 * never moved by the timeline's users).
 */
uint64_t rp_timeline_pos(const struct rp_timeline *tl, size_t i);
uint64_t rp_timeline_end(const struct rp_timeline *tl, size_t i);
struct rp_cursor *rp_timeline_cursor(const struct rp_timeline *tl, size_t i);

/* Address of thread @i's first instruction. */
uint64_t rp_timeline_first_ip(const struct rp_timeline *tl, size_t i);

/* Thread @i's PC at its position. */
uint64_t rp_timeline_pc(const struct rp_timeline *tl, size_t i);

/* Register @reg (enum rp_reg) of thread @i at its position: the PC
 * always, the others at the end only.  Returns 0 or -RP_ERR_NOTFOUND.
 */
int rp_timeline_reg(const struct rp_timeline *tl, size_t i, unsigned int reg,
		    uint64_t *val);

/* Moves thread @i to @pos (0 to its end) and makes it the present.
 * Returns 0 or -RP_ERR_RANGE.
 */
int rp_timeline_goto(struct rp_timeline *tl, size_t i, uint64_t pos);

/* Breakpoints at instruction addresses.  Insert returns 0 or
 * -RP_ERR_NOMEM; inserting twice or removing an absent one is not an
 * error.
 */
int rp_timeline_break_insert(struct rp_timeline *tl, uint64_t addr);
void rp_timeline_break_remove(struct rp_timeline *tl, uint64_t addr);

/* One instruction of the selected thread, back (@dir < 0) or forward.
 * Returns RP_STOP_STEP, RP_STOP_WATCH when that instruction touched a
 * watched range (rp_timeline_watch_hit()), or RP_STOP_BEGIN /
 * RP_STOP_END at the edges.
 */
enum rp_stop rp_timeline_step(struct rp_timeline *tl, int dir);

/*
 * Continues back (@dir < 0) or forward to the nearest breakpoint hit: in
 * the selected thread only (@all false), or in any thread in time order
 * from the present (the selected thread may change; the others wait at
 * that moment).  Without a hit, to the start of the whole history (the
 * thread that started first) or the end of every thread.  Returns the
 * enum rp_stop.
 */
enum rp_stop rp_timeline_continue(struct rp_timeline *tl, int dir, bool all);

/*
 * Watchpoints (watch.c) on the selected thread's process: continuing
 * either way also stops at the nearest access to a watched range, in any
 * thread in time order as for breakpoints.  Forward, the thread stops
 * after the accessing instruction; backward, before it (where its effect
 * is undone).  Insert returns 0, -RP_ERR_INVAL or -RP_ERR_NOMEM; remove
 * 0 or -RP_ERR_NOTFOUND.
 */
int rp_timeline_watch_insert(struct rp_timeline *tl, unsigned int type,
			     uint64_t addr, uint64_t len);
int rp_timeline_watch_remove(struct rp_timeline *tl, unsigned int type,
			     uint64_t addr, uint64_t len);
/* What accesses of unknown address do (enum rp_watch_unknown). */
void rp_timeline_watch_unknown(struct rp_timeline *tl, int mode);
int rp_timeline_watch_unknown_get(const struct rp_timeline *tl);
/* The access the last continue stopped at (RP_STOP_WATCH), as long as
 * nothing moved since.  Returns 0 or -RP_ERR_NOTFOUND.
 */
int rp_timeline_watch_hit(const struct rp_timeline *tl,
			  struct rp_watch_hit *hit);

/* Thread @i's recovery context (values in the past), made on first use
 * and owned by the timeline; NULL when it cannot be made.
 */
struct rp_recover *rp_timeline_recover(struct rp_timeline *tl, size_t i);
/* Strict values on or off (rp_session_set_values_strict()): the
 * timeline's recovery contexts are made again on use.
 */
void rp_timeline_values_strict(struct rp_timeline *tl, bool on);

/* The fatal signal, when thread @i is at the end of its history and
 * received it there.  Returns 0 or -RP_ERR_NOTFOUND.
 */
int rp_timeline_signal(const struct rp_timeline *tl, size_t i,
		       struct rp_signal *sig);

/*
 * Code bytes mapped in thread @i's process at its position, from the
 * bundle's image store; the address space is rebuilt only when the
 * position's sideband changes.  Returns the bytes read (short at the end
 * of a mapping) or -RP_ERR_NOTFOUND.
 */
int rp_timeline_read_code(struct rp_timeline *tl, size_t i, uint64_t addr,
			  void *buf, size_t len);

/* ---- the end-state snapshot (snapshot.c) ------------------------------- */

/*
 * The memory and registers of every process where its recording ended
 * (docs/bundle-format.md, "Snapshot").  Valid at the LAST position of each
 * thread only: before the end, memory may have differed.
 */
struct rp_snapshot;

enum rp_snap_content {
	RP_SNAP_DATA,		/* bytes in the snapshot */
	RP_SNAP_IMAGE,		/* read-only file mapping: the image store */
	RP_SNAP_OVER_LIMIT,	/* left out: --snapshot-limit */
	RP_SNAP_UNREADABLE,	/* left out: no access */
};

struct rp_snap_proc_info {
	uint32_t pid, ppid;
	uint32_t gen;		/* exec generation: 0 the first image */
	uint32_t end;		/* 1 exit, 2 signal, 3 stop, 4 detach, 5 exec */
	int32_t status;		/* exit status or signal number */
	const char *end_name;	/* "exit", "signal", ... */
	const char *exe;
	const uint8_t *auxv;
	uint32_t auxv_len;
	size_t nthreads, nmaps;
	uint64_t data_bytes;	/* bytes of RP_SNAP_DATA mappings */
};

/* regs[] in GDB's amd64 order (rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp,
 * r8-r15, rip, eflags, cs, ss, ds, es, fs, gs, fs_base, gs_base, orig_rax).
 */
struct rp_snap_thread_info {
	uint32_t tid, pid;
	uint64_t regs[27];
	const uint8_t *fpregs;	/* FXSAVE area (NT_PRFPREG), or NULL */
	uint32_t fpregs_len;
	const uint8_t *xstate;	/* XSAVE area (NT_X86_XSTATE), or NULL */
	uint32_t xstate_len;
	const uint8_t *siginfo;	/* 128 bytes for the crashing thread, or NULL */
};

struct rp_snap_map_info {
	uint64_t start, end, pgoff;
	uint32_t prot;		/* 1 read, 2 write, 4 exec, 8 shared */
	uint32_t content;	/* enum rp_snap_content */
	const char *path;	/* "" anonymous */
	/* Snapshot 4 (ids): the file's device and inode as the process's
	 * maps showed them (0:0, 0 anonymous); an older snapshot has none.
	 */
	bool ids;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	/* Snapshot 5 (times): the file's last modification and status
	 * change at the end (ns since the epoch; ctime 0: not known) and
	 * its file system's statfs type (0 not known).  @written: the file
	 * may have changed during the recording (rp_snapshot_changed()),
	 * by anyone: the pages the process never wrote followed it, so
	 * before the end they need not be the snapshot's.  @unstamped:
	 * on tmpfs or hugetlbfs and mapped shared by some process at the
	 * end (its stores set no time), written too.  Older snapshots:
	 * times, written and unstamped false.
	 */
	bool times, written, unstamped;
	uint64_t mtime_ns, ctime_ns;
	uint32_t fs_type;
};

/*
 * rp_snapshot_changed() - may a file have changed at or after @start_ns?
 *
 * @mtime_ns and @ctime_ns are its times at the end, @start_ns when the
 * recording began (CLOCK_REALTIME_COARSE, the clock file times come
 * from).  True when a time or @start_ns is not known (0), or when
 * either time is at or after @start_ns rounded down to that time's own
 * granularity (the largest power of ten up to 1 s dividing its
 * nanoseconds, 2 s when they are 0: a file system that truncates times
 * to 1 s, or FAT's 2 s, stamps a change after @start_ns no earlier than
 * that).  Equal counts as changed.
 */
bool rp_snapshot_changed(uint64_t start_ns, uint64_t mtime_ns,
			 uint64_t ctime_ns);

/*
 * Where an XSAVE area in the standard format (NT_X86_XSTATE, as ptrace and
 * core files give it) holds each state component: CPUID.(EAX=0DH,
 * ECX=i).EBX on the processor that saved it (Intel SDM Vol. 1, 13.4.3),
 * which the snapshot does not record.  rp_xsave_layout() tells it from the
 * area's XCR0 (its software-reserved bytes at 464) and length, for the
 * layouts processors with AVX-512 have: Intel's (the opmask at 1088, 2688
 * bytes or more) and AMD's since Zen 4 (no MPX slots: the opmask at 832,
 * 2432 bytes, 2440 with PKRU).  0 offsets: a component not enabled or not
 * known; false when the area is not one of those (its AVX-512 registers
 * are then not known).  The AVX component is at 576 in both.
 */
struct rp_xsave_layout {
	uint64_t xcr0;
	uint32_t avx, opmask, zmm_hi256, hi16_zmm, pkru, len;
};

bool rp_xsave_layout(const uint8_t *xs, size_t len,
		     struct rp_xsave_layout *lay);

/**
 * rp_snapshot_open() - read the snapshot part of bundle @dir
 *
 * Returns 0, or -RP_ERR_NOTFOUND (the bundle has none: recorded with
 * --no-snapshot or before bundle format 2), -RP_ERR_BUNDLE (damaged: the
 * message names the file and offset), -RP_ERR_VERSION, -RP_ERR_NOMEM.  On
 * failure *@sn is still set (unless -RP_ERR_NOMEM) for
 * rp_snapshot_errmsg(); close it.
 */
int rp_snapshot_open(struct rp_snapshot **sn, const char *dir);
void rp_snapshot_close(struct rp_snapshot *sn);
const char *rp_snapshot_errmsg(const struct rp_snapshot *sn);

size_t rp_snapshot_proc_count(const struct rp_snapshot *sn);
/* Process @i (snapshot order).  Returns 0 or -RP_ERR_RANGE. */
int rp_snapshot_proc(const struct rp_snapshot *sn, size_t i,
		     struct rp_snap_proc_info *info);
/* Process @pid (its last image, unless rp_snapshot_pick_exec() picked
 * another).  Returns 0 or -RP_ERR_NOTFOUND.
 */
int rp_snapshot_proc_by_pid(const struct rp_snapshot *sn, uint32_t pid,
			    struct rp_snap_proc_info *info);
/*
 * A process that called execve has a record for each image (exec
 * generation 0, 1, ...; the old one's end is "exec").  From now on the
 * calls that take @pid read generation @gen.  0 or -RP_ERR_NOTFOUND.
 */
int rp_snapshot_pick_exec(struct rp_snapshot *sn, uint32_t pid, uint32_t gen);
/* Thread or mapping @i of process @pid.  0, -RP_ERR_NOTFOUND, -RP_ERR_RANGE. */
int rp_snapshot_proc_thread(const struct rp_snapshot *sn, uint32_t pid,
			    size_t i, struct rp_snap_thread_info *info);
int rp_snapshot_proc_map(const struct rp_snapshot *sn, uint32_t pid,
			 size_t i, struct rp_snap_map_info *info);
/* Thread @tid at its end.  Returns 0 or -RP_ERR_NOTFOUND (not in it). */
int rp_snapshot_thread(const struct rp_snapshot *sn, uint32_t tid,
		       struct rp_snap_thread_info *info);

/* What descriptor @fd of process @pid named at its end (snapshot 3). */
enum rp_snap_fd {
	RP_SNAP_FD_UNKNOWN,	/* no list of its descriptors, or no link */
	RP_SNAP_FD_CLOSED,	/* not open */
	RP_SNAP_FD_OTHER,	/* a file other than a process's memory */
	RP_SNAP_FD_MEM,		/* /proc/PID/mem or /proc/PID/task/TID/mem */
};
enum rp_snap_fd rp_snapshot_proc_fd(const struct rp_snapshot *sn,
				    uint32_t pid, uint32_t fd);
/* How many of its descriptors name (or may name: no link) a memory file;
 * -1 when the snapshot does not list them.
 */
int rp_snapshot_proc_fd_mem(const struct rp_snapshot *sn, uint32_t pid);

/* Descriptor @i of process @pid at its end (in increasing fd order). */
struct rp_snap_fd_info {
	uint32_t fd;
	enum rp_snap_fd kind;	/* OTHER, MEM or UNKNOWN */
	const char *type;	/* "regular", "memfd", "pipe", "socket", "tty",
				 * "chr", "blk", "dir", "anon", "other",
				 * "mem", "unknown"; snapshot 3: "other" */
	/* Snapshot 4 (ids): its file's device and inode; an inode of 0
	 * (kind MEM or UNKNOWN, or snapshot 3) is none.
	 */
	bool ids;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
};
/* 0, -RP_ERR_NOTFOUND (no such process or no list), -RP_ERR_RANGE. */
int rp_snapshot_proc_fd_info(const struct rp_snapshot *sn, uint32_t pid,
			     size_t i, struct rp_snap_fd_info *info);

/*
 * The rseq area @i of process @pid (snapshot 3: one its threads had
 * registered), in *@addr and *@len (as registered).  *@complete: the
 * list holds every area of the recording (else those at the end).
 * Returns 0, -RP_ERR_NOTFOUND (no such process, or no list: *@complete
 * false) or -RP_ERR_RANGE past the last.
 */
int rp_snapshot_proc_rseq(const struct rp_snapshot *sn, uint32_t pid,
			  size_t i, uint64_t *addr, uint32_t *len,
			  bool *complete);
/* The thread that registered that area @i, or 0 (none such). */
uint32_t rp_snapshot_proc_rseq_tid(const struct rp_snapshot *sn,
				   uint32_t pid, size_t i);

/**
 * rp_snapshot_read() - process @pid's memory at its end
 *
 * Copies from @addr on what the snapshot holds (RP_SNAP_DATA) and, with
 * @images, what the image store holds for read-only file mappings.
 * Returns the number of bytes copied from @addr on; it stops at the first
 * byte it does not have.
 */
size_t rp_snapshot_read(struct rp_snapshot *sn, uint32_t pid, uint64_t addr,
			void *buf, size_t len, bool images);

/* ---- values in the past (recover.c) ------------------------------------- */

/*
 * The registers and memory of a thread before the end of its history,
 * recovered from the instructions it executed and the end snapshot
 * (docs/values.md).  A value is known only when the history and the
 * snapshot imply it; everything else is unknown, never guessed.  Work is
 * done on demand, in windows of instructions counted back from the end.
 */
struct rp_recover;

struct rp_recover_stats {
	uint64_t windows;	/* windows computed */
	uint64_t insns;		/* instructions analysed */
	uint64_t passes;	/* backward+forward passes */
	uint64_t conflicts;	/* contradictions found (a bug: 0) */
	uint64_t async;		/* transfers the code does not explain */
	/* Where knowledge stops, in the windows computed (added after
	 * async: fields are only ever appended):
	 */
	uint64_t unproven;	/* branches whose target stays unproven */
	uint64_t st_unknown;	/* stores of unknown address (memory) */
	uint64_t sys_barrier;	/* system calls: registers or memory */
	uint64_t undecoded;	/* instructions the decoder could not read */
};

/* A recovery context for thread @tid of @s (which must outlive it).
 * Returns 0, -RP_ERR_NOTHREAD, -RP_ERR_NOMEM.
 */
int rp_recover_new(struct rp_session *s, uint32_t tid, struct rp_recover **rc);

/*
 * Strict values: rp_recover_new() contexts made after it use no rule that
 * rests on an assumption about the program being free of a bug (pointers
 * into frames that returned, pointer arithmetic out of its object:
 * docs/values.md, "A callee's own stack", "Threads and the stack").
 * Default: the environment's PTREC_VALUES_STRICT (set and not "0").
 * rp_timeline_values_strict() also drops a timeline's contexts.
 */
bool rp_session_values_strict(const struct rp_session *s);
void rp_session_set_values_strict(struct rp_session *s, bool on);
void rp_recover_free(struct rp_recover *rc);

/* Instructions per window (0: the default, 16384); drops what was
 * computed.
 */
void rp_recover_set_block(struct rp_recover *rc, uint64_t block);

/*
 * Computes the next window of the chain counted back from the end (the
 * one nearest the end not computed yet), as a question about a position
 * in it would: for a front end's idle time, so that later questions find
 * it ready; then the rest of the ramp's summaries (docs/values.md), once
 * a question began it.  Returns 1 when it computed a window, 0 when there
 * is nothing left, or a negated enum rp_err.
 */
int rp_recover_prefetch(struct rp_recover *rc);

/*
 * The front end stopped at @pos (where its user is): rp_recover_prefetch()
 * then first computes the window next to it beyond the chain, the way the
 * stops go (back, to the older one, unless the last stop was after the one
 * before it), so that stepping across a window's edge at a person's pace
 * never waits for that window.
 */
void rp_recover_stop(struct rp_recover *rc, uint64_t pos);

/**
 * rp_recover_regs() - the registers known before instruction @pos
 * @pos:	0 to the thread's end (rp_thread_end()); at the end, the final
 *		registers.
 * @regs:	bit (1 << reg) of valid set for each register known whole
 *		(the general-purpose registers, rflags and rip before the end).
 *
 * Returns 0, -RP_ERR_RANGE, -RP_ERR_NOMEM or a cursor's error.
 */
int rp_recover_regs(struct rp_recover *rc, uint64_t pos, struct rp_regs *regs);

/* Register @reg (RP_REG_RAX..RP_REG_R15, RP_REG_EFLAGS) before @pos bit by
 * bit: *@known has a bit set for each bit of *@val known.
 */
int rp_recover_reg_bits(struct rp_recover *rc, uint64_t pos, unsigned int reg,
			uint64_t *val, uint64_t *known);

/* Memory of the thread's process before instruction @pos: copies the
 * bytes known from @addr on into @buf and returns how many (it stops at
 * the first unknown byte).
 */
size_t rp_recover_mem(struct rp_recover *rc, uint64_t pos, uint64_t addr,
		      void *buf, size_t len);

void rp_recover_stats(const struct rp_recover *rc,
		      struct rp_recover_stats *st);

/*
 * Why a register is unknown (rp_recover_why(), docs/values.md "Why a
 * register is unknown"): the cause at the instruction that last wrote it
 * (or the barrier that cut it), and the root cause at the end of the chain
 * of unknown operands that led there.
 */
enum rp_why_cause {
	RP_WHY_KNOWN,		/* it is known */
	RP_WHY_BEFORE,		/* not written in the history before: set
				 * before it began */
	RP_WHY_OPERANDS,	/* written by a modelled instruction whose
				 * register operands are unknown */
	RP_WHY_LOAD_ADDR,	/* loaded from an address not known */
	RP_WHY_LOAD_MEM,	/* loaded from memory of known address whose
				 * bytes are not known (@mem says why) */
	RP_WHY_SYSCALL,		/* written by a system call (its result), or
				 * one whose number is not known */
	RP_WHY_UNMODELLED,	/* an instruction the engine has no semantics
				 * for writes it (@insn) */
	RP_WHY_UNDEFINED,	/* flags the SDM leaves undefined (AF after a
				 * logic instruction) */
	RP_WHY_TRANSFER,	/* a transfer the code does not explain, a
				 * gap, an undecodable instruction */
	RP_WHY_UNPROVEN,	/* an indirect branch not proven */
	RP_WHY_BOUNDARY,	/* known at the end of the window before, not
				 * carried into this one */
	RP_WHY_FAR,		/* set in a window beyond the ramp's reach */
	RP_WHY_ENGINE,		/* its inputs are known: the engine stopped
				 * short (a pass limit) */
	RP_WHY_XMM,		/* (root only) an xmm register operand the
				 * engine does not know */
	RP_WHY_INPUT,		/* what the CPU gives (rdtsc, rdrand, cpuid):
				 * an input, as a system call's result */
	RP_WHY_NCAUSE
};

/* Why memory a load read is unknown (rp_why.mem). */
enum rp_why_mem {
	RP_WHYM_NONE,
	RP_WHYM_STORE_ADDR,	/* a store of unknown address may have
				 * written it (@mem_insn) */
	RP_WHYM_SYSCALL,	/* a system call may have written it */
	RP_WHYM_BARRIER,	/* a transfer, gap, string store, xsave... */
	RP_WHYM_SHARED,		/* another thread or process may write it */
	RP_WHYM_ESCAPED,	/* the thread's stack, after another thread
				 * may have learnt its address */
	RP_WHYM_TLS,		/* around the thread pointer, or another
				 * rseq area the kernel updates */
	RP_WHYM_STORE_VAL,	/* last stored with a value not known, and
				 * overwritten before the end */
	RP_WHYM_BEFORE,		/* written before the history began, and
				 * overwritten before the end */
	RP_WHYM_NOSNAP,		/* not in the snapshot (or no snapshot) */
	RP_WHYM_FAR,		/* in a window beyond the chain: no snapshot,
				 * and the ramp carries no memory */
	RP_WHYM_SCAN,		/* more accesses of the word than a question
				 * looks at */
	RP_WHYM_NCAUSE
};

struct rp_why {
	unsigned int cause;	/* enum rp_why_cause */
	uint64_t at;		/* the instruction it names (position) */
	uint64_t ip;
	char insn[16];		/* its mnemonic */
	int opreg;		/* OPERANDS, LOAD_ADDR: the register operand
				 * unknown (RP_REG_*, RP_REG_EFLAGS), -2 an
				 * xmm register, -1 none */
	unsigned int mem;	/* LOAD_MEM: enum rp_why_mem */
	uint64_t mem_at, mem_ip, mem_addr;
	char mem_insn[16];
	/* The end of the chain of unknown operands (and of the stored
	 * values of RP_WHYM_STORE_VAL), where it stops.
	 */
	unsigned int root, root_mem, depth;
	uint64_t root_at, root_ip;
	char root_insn[16];
	int root_reg;		/* root RP_WHY_BEFORE, _FAR: the register the
				 * chain ends at (0-15 as RP_REG_*, 16 rflags;
				 * -1 none) */
	/* cause RP_WHY_BEFORE: the first instruction at or after the position
	 * that writes the bits unknown (or cuts them), whose value the
	 * snapshot then shows instead: kill_at 0 when none (the end).
	 */
	uint64_t kill_at, kill_ip;
	char kill_insn[16];
	/* RP_WHY_BEFORE of a general-purpose register: no instruction of
	 * the history reads it before kill_at (the value set before the
	 * history leaves no trace in it nor in the snapshot: no engine can
	 * know it).
	 */
	bool unread;
	/* LOAD_MEM: the memory search went on past a store of unknown
	 * address (or took memory others may write as the thread's own)
	 * because the byte lies in the slot of a push never popped that
	 * nothing wrote from it (@ek_at) up to @ek_to (the exit-save rule:
	 * docs/values.md, "Pushes never popped"; not in strict mode).
	 */
	bool ek;
	uint64_t ek_at, ek_to;
};

/**
 * rp_recover_why() - why register @reg is unknown before @pos
 *
 * Follows it back to the instruction that wrote it (or the barrier that
 * cut it) and says what the engine lacked there, then follows the unknown
 * operand back likewise to a root cause.  Computes the windows a question
 * at @pos would, and the windows before (for a register set in them).  A
 * diagnostic: it costs a walk of the history back to the writer.
 * Returns 0, -RP_ERR_INVAL, -RP_ERR_RANGE or the errors of
 * rp_recover_regs().
 */
int rp_recover_why(struct rp_recover *rc, uint64_t pos, unsigned int reg,
		   struct rp_why *why);
/* Why byte @addr before @pos is unknown: @why's mem fields (cause
 * RP_WHY_LOAD_MEM), or cause RP_WHY_KNOWN when it is known.
 */
int rp_recover_why_mem(struct rp_recover *rc, uint64_t pos, uint64_t addr,
		       struct rp_why *why);
/* Short names of the causes, for tables. */
const char *rp_why_name(unsigned int cause);
const char *rp_whym_name(unsigned int mem);

/* A register value known from outside the history (rp_recover_assume()). */
struct rp_fact {
	uint64_t pos;		/* before instruction @pos (0 to end - 1) */
	unsigned int reg;	/* RP_REG_RAX..RP_REG_R15 */
	uint64_t val;
};

/**
 * rp_recover_assume() - register values known from outside the history
 *
 * For a front end that knows what the history alone does not imply: a
 * debugger's unwinder, from the ABI and the .eh_frame rules, the stack
 * pointer at a function's first instruction (gdb/server/frames.c).  The
 * engine takes them as known and carries them as it carries any value,
 * so what it then reports is only as right as the facts.  Facts it
 * already knows count as taken; one that contradicts what it knows is
 * refused, and so is a batch that leads to a contradiction (a batch of
 * up to 8 is then tried one fact at a time).  Returns how many of @n
 * were taken, -RP_ERR_NOMEM or a cursor's error.
 */
int rp_recover_assume(struct rp_recover *rc, const struct rp_fact *f,
		      size_t n);

/*
 * What an oracle knows of the registers before position @pos (instruction
 * address @ip): 0 with the 16 general-purpose registers in @regs
 * (RP_REG_RAX..RP_REG_R15), nonzero where it has none.
 */
typedef int (*rp_oracle_fn)(void *ctx, uint64_t pos, uint64_t ip,
			    uint64_t *regs);

/**
 * rp_recover_set_oracle() - where stores of unknown address wrote, from
 * outside the history (measurements only)
 *
 * For tests that hold the ground truth (valcheck's VALCHECK_ORACLE,
 * docs/values.md "The roots rcv_why names"): with @fn set, a store whose
 * address the engine does not know is taken to have written exactly
 * where @fn's registers before it put its memory operand, so that what
 * placing a store would give can be measured.  What the engine then
 * knows is only as right as @fn: never for users.  Set it before the
 * first question (windows computed before keep what they found); NULL
 * turns it off for windows computed after.
 */
void rp_recover_set_oracle(struct rp_recover *rc, rp_oracle_fn fn,
			   void *ctx);

/* struct rp_access.kind */
enum rp_access_kind { RP_ACC_READ = 1, RP_ACC_WRITE = 2 };

/**
 * struct rp_access - one memory access of an executed instruction
 * @kind:	RP_ACC_READ or RP_ACC_WRITE.
 * @addr_known:	@addr and @size are known; else it may touch any byte.
 * @syscall:	the kernel's, at a system call (by its number and
 *		arguments, the engine's table of system calls).
 * @lo, @hi:	when !@addr_known and @hi > @lo, bytes it may touch lie in
 *		[@lo, @hi): an access relative to the stack pointer (or to
 *		a frame pointer derived from it) lies in the thread's stack
 *		mapping (assumed: the stack pointer stays in it); one
 *		relative to fs, at fs_base as the thread ended plus a known
 *		offset (assumed: fs_base does not change).  docs/gdb.md,
 *		"Watchpoints".  @hi == 0: anywhere.
 * @cond:	with @addr_known, whether it happens is not known (the
 *		kernel's write of a robust futex word at a thread's exit,
 *		made only when the word names the thread: its value there
 *		is not known); a possible hit, as one of unknown address.
 */
struct rp_access {
	uint8_t kind;
	bool addr_known;
	bool syscall;
	bool cond;
	uint64_t addr, size;
	uint64_t lo, hi;
};

/**
 * rp_recover_accesses() - the memory instruction @pos reads and writes
 * @acc:	receives up to @max accesses (4 is always enough).
 *
 * Addresses as recovered before @pos (rp_recover_regs()): a store whose
 * address is not implied by the history is an access with !addr_known, as
 * is any write the engine cannot name (an instruction it does not decode,
 * a string instruction with an unknown count, a system call not in its
 * table).  Returns the number of accesses, -RP_ERR_RANGE (@pos is not an
 * instruction that completed: at or past rp_thread_end()), -RP_ERR_NOMEM
 * or a cursor's error.
 */
int rp_recover_accesses(struct rp_recover *rc, uint64_t pos,
			struct rp_access *acc, size_t max);

/*
 * What store @pos wrote: copies the bytes of [@addr, @addr + @len) it
 * stored, whose value is known, into @buf and returns how many (it stops
 * at the first byte it did not store or whose value is not known; 0 for
 * an instruction that is not one store of known address).  Memory just
 * after the store, whatever other threads did before it: a watchpoint's
 * new value across threads (issue #18).
 */
size_t rp_recover_stored(struct rp_recover *rc, uint64_t pos, uint64_t addr,
			 void *buf, size_t len);

/* ---- watchpoints (watch.c) --------------------------------------------- */

/*
 * Who wrote (or read) these bytes, either way in time (issue #18): a set
 * of watched ranges and a scan of a thread's history for the nearest
 * instruction that touched one, with the addresses the recovery engine
 * implies (rp_recover_accesses()).  A store or load whose address is not
 * known is a possible hit ("may have written", "may have read"), unless
 * the set skips those.
 */
enum rp_watch_type {
	RP_WATCH_WRITE = 1,	/* GDB's watch (Z2) */
	RP_WATCH_READ = 2,	/* rwatch (Z3) */
	RP_WATCH_ACCESS = 3,	/* awatch (Z4) */
};

struct rp_watch;

/**
 * struct rp_watch_hit - an access to a watched range
 * @tid, @pos:	the instruction that made it.
 * @type:	the watchpoint's enum rp_watch_type; @addr, @len its range.
 * @kind:	the access, RP_ACC_READ or RP_ACC_WRITE.
 * @maybe:	an access whose address is unknown: it may have written (or,
 *		@kind RP_ACC_READ, read) there.
 * @syscall:	the kernel's write at a system call.
 * @gap:	a gap in the trace follows @pos (rp_thread_gap()): code that
 *		ran there, unseen, may have accessed the range (@maybe);
 *		@gap_bytes the trace bytes it lost, 0 when unknown.  With
 *		@syscall, the system call after @pos the thread ended in
 *		before the end snapshot (exit(2): the kernel clears its
 *		clear_child_tid word and marks its robust futexes).
 * @acc_addr, @acc_size: the bytes accessed (unknown when @maybe).
 * @exit:	the kernel's access at the thread's exit(2) after @pos (the
 *		system call at @pos + 1, which never returns), with
 *		@syscall: its robust futex words, its clear_child_tid word
 *		(watch_exit.c).
 * @old_known, @old_val, @new_known, @new_val: with @exit, the @acc_size
 *		(4) bytes the write changed, before and after it, where
 *		known (little-endian): the clear_child_tid word's old value
 *		from the sideband's EXIT_FUTEX record and 0 after it.
 * @kernel:	a write the kernel made after @pos and before @pos + 1
 *		with no instruction of the thread's (enum rp_watch_kernel,
 *		watch_kern.c): a signal frame it built there (@maybe: in
 *		its FPU state part, or where the handler's stack pointer is
 *		not known), the thread's rseq area it may have rewritten
 *		there (@maybe), what the instruction the delivery
 *		interrupted wrote before (@maybe; a rep string store, a
 *		scatter: no instruction in the history shows it), what the
 *		kernel wrote emulating a call into the vsyscall page at
 *		@pos (time(), gettimeofday(), getcpu(): their outputs at rdi
 *		and rsi; @maybe where those are not known).
 */
enum rp_watch_kernel {
	RP_WATCH_KERNEL_NONE,
	RP_WATCH_KERNEL_SIGFRAME,	/* a signal's delivery: its frame */
	RP_WATCH_KERNEL_RSEQ,		/* the thread's rseq area, rewritten
					 * when it resumes after a preemption
					 * or a migration */
	RP_WATCH_KERNEL_PARTIAL,	/* what the instruction a delivery
					 * interrupted (a rep string store, a
					 * scatter) may have written before */
	RP_WATCH_KERNEL_VSYSCALL,	/* a call into the vsyscall page the
					 * kernel emulated: time(),
					 * gettimeofday(), getcpu()'s outputs */
};

struct rp_watch_hit {
	uint32_t tid;
	uint64_t pos;
	unsigned int type;
	uint64_t addr, len;
	uint8_t kind;
	bool maybe;
	bool syscall;
	bool gap;
	uint64_t gap_bytes;
	uint64_t acc_addr, acc_size;
	bool exit;
	bool old_known, new_known;
	uint64_t old_val, new_val;
	uint8_t kernel;		/* enum rp_watch_kernel */
};

/* An empty set.  Returns 0 or -RP_ERR_NOMEM. */
int rp_watch_new(struct rp_watch **w);
void rp_watch_free(struct rp_watch *w);

/* Watches [@addr, @addr + @len) of process @pid for @type accesses; any
 * length, any number, overlapping or not.  Inserting one twice is not an
 * error.  Returns 0, -RP_ERR_INVAL (a length of 0 or past the address
 * space) or -RP_ERR_NOMEM.
 */
int rp_watch_insert(struct rp_watch *w, unsigned int type, uint32_t pid,
		    uint64_t addr, uint64_t len);
/* Removes one.  Returns 0 or -RP_ERR_NOTFOUND. */
int rp_watch_remove(struct rp_watch *w, unsigned int type, uint32_t pid,
		    uint64_t addr, uint64_t len);
size_t rp_watch_count(const struct rp_watch *w);
void rp_watch_clear(struct rp_watch *w);

/* What a store or load with an unknown address is (struct rp_access). */
enum rp_watch_unknown {
	RP_WATCH_UNKNOWN_SKIP,	/* nothing: only known addresses hit */
	RP_WATCH_UNKNOWN_STOP,	/* a possible hit, wherever (the default) */
	RP_WATCH_UNKNOWN_STACK,	/* a possible hit unless its bounds (the
				 * stack pointer in its stack, fs_base as
				 * at the end: assumed) keep it away */
};

void rp_watch_set_unknown(struct rp_watch *w, enum rp_watch_unknown mode);
enum rp_watch_unknown rp_watch_get_unknown(const struct rp_watch *w);

/**
 * rp_watch_scan() - the nearest watched access in one thread's history
 * @rc:		the thread's recovery context (rp_recover_new()).
 * @pid:	its process (watchpoints of other processes do not count).
 * @dir:	< 0: from @hi - 1 down to @lo; > 0: from @lo up to @hi - 1.
 *
 * Returns 0 with *@hit filled (@hit->tid is left to the caller),
 * -RP_ERR_NOTFOUND, or the errors of rp_recover_accesses().
 */
int rp_watch_scan(struct rp_watch *w, struct rp_recover *rc, uint32_t pid,
		  int dir, uint64_t lo, uint64_t hi,
		  struct rp_watch_hit *hit);

#ifdef __cplusplus
}
#endif

#endif /* PTREC_REPLAY_H */
