/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to gdb/server/: the debugged target as GDB sees it, over
 * libptrec's timeline: registers, memory (code from the bundle, and the
 * recorded call stack for the plugin's unwinder), threads, libraries, the
 * auxiliary vector and the fatal signal.  Answers in values, never in
 * packets.
 */
#ifndef PTREC_GDB_TARGET_H
#define PTREC_GDB_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conn.h"
#include "replay.h"

/* The plugin reads the call stack as memory here (target.c). */
#define STACK_ADDR 0xffffffffff000000ull
#define STACK_MAX_FRAMES 512
/*
 * A signal frame in the published stack (its first word has SIGTRAMP_BIT)
 * is GDB's own: the plugin's unwinder leaves it to GDB's sigtramp
 * unwinder, which reads the interrupted frame's registers from a
 * ucontext at the stack pointer the handler's frame unwinds to:
 * SIGCTX_ADDR + SIGCTX_SIZE * k + SIGCTX_AT for the frame k of the
 * published stack, served by target_read() (amd64 Linux: uc_mcontext at
 * 40, its gregs rsp and rip at 160 and 168).  Only the 64 bytes from rsp
 * on are served (GDB reads stack memory in aligned 64-byte lines, and
 * SIGCTX_AT puts rsp at the start of one): the interrupted frame's other
 * registers are not known, and reading them is an error, never a value.
 */
#define SIGTRAMP_BIT (1ull << 63)
/* A frame called before the history started, k frames below its first
 * frame, is named PREHIST_BIT | k (target.c, put_outer_frames()).
 */
#define PREHIST_BIT (1ull << 62)
#define SIGCTX_ADDR (STACK_ADDR + 0x100000)
#define SIGCTX_SIZE 0x400ull
#define SIGCTX_RSP 160
#define SIGCTX_RIP 168
#define SIGCTX_AT 96
/* The plugin's synthetic frame bases: FRAME_BASE - 16 * first position
 * above the real stack, LOW_BASE - 16 * first position below it
 * (frames.c).
 */
#define FRAME_BASE 0x7ff0000000000000ull
#define LOW_BASE 0x0000100000000000ull
/*
 * Per frame k of the published stack, FREGS_WORDS words at FREGS_ADDR +
 * 8 * FREGS_WORDS * k (frames.c): the frame id's stack address, a mask
 * of the known words after it (bit 0: the caller's rsp, bit 1 + i: the
 * i-th of rbx, rbp, r12, r13, r14, r15; FREGS_CFI_OUTER: the frame is
 * the outermost, by its .eh_frame rule, which GDB's DWARF unwinder can
 * apply), then those values.
 */
#define FREGS_CFI_OUTER (1ull << 63)
#define FREGS_ADDR (STACK_ADDR + 0x200000)
#define FREGS_REGS 6
#define FREGS_WORDS (3 + FREGS_REGS)

struct frame_memo;
struct stat;

/* A watchpoint as GDB inserted it, and the process it is for (the
 * selected thread's, as libptrec's timeline takes it).
 */
struct target_wp {
	unsigned int type;
	uint64_t addr, len;
	uint32_t pid;
};

/* Files GDB may hold open at once through Host I/O (hostio.c). */
#define TARGET_MAX_FILES 64

struct target {
	const char *dir;
	struct rp_session *s;
	struct rp_timeline *tl;
	struct rp_snapshot *snap;	/* the end state, NULL if none */
	uint32_t *tids;		/* of the timeline's threads, in order */
	uint32_t *pids;		/* their processes */
	/* The call stack served at STACK_ADDR, for (stack_tid, stack_pos). */
	uint64_t stack[3 + 3 * STACK_MAX_FRAMES];
	size_t stack_words;
	uint32_t stack_tid;
	uint64_t stack_pos;
	/* Values in the past (#17): a recovery context per timeline thread,
	 * made on first use, and the registers of (vals_tid, vals_pos).
	 */
	struct rp_recover **rcv;
	bool no_values;		/* PTREC_NO_VALUES: the PC alone, as before */
	bool no_prefetch;	/* PTREC_NO_PREFETCH: windows when asked */
	uint32_t vals_tid;
	uint64_t vals_pos;
	struct rp_regs vals;
	/* Frame ids and caller registers of the published stack (frames.c),
	 * computed on first read; each recorded frame's, once a session.
	 */
	uint64_t fregs[FREGS_WORDS * STACK_MAX_FRAMES];
	bool fregs_done;
	struct frame_memo *memo;
	size_t memo_len, memo_cap;
	bool *end_done;		/* per thread: its end frames decided */
	/* Host I/O: GDB's open files (its fd is the index), and the process
	 * vFile:setfs named (0: the selected one's).
	 */
	struct {
		int fd;
		bool open;
	} files[TARGET_MAX_FILES];
	uint32_t file_pid;
	/* Watchpoints GDB inserted (target_watch.c) and the last stop at
	 * one, when it is shown in thread @thread at @pos of another
	 * process than the accessing one: the hit's @hit_tid and @hit_pos,
	 * reached forward (@after: the bytes after the access) or back.
	 */
	struct target_wp *wps;
	size_t nwps, capwps;
	struct {
		bool on;
		bool after;
		size_t thread;
		uint64_t pos;
		uint32_t hit_tid;
		uint64_t hit_pos;
	} shown;
};

/* Opens the bundle @dir.  Returns 0, or -1 with a message on stderr. */
int target_open(struct target *tg, const char *dir);
void target_close(struct target *tg);

/* The selected thread's register @regno into @v.  Returns 0, or -1 when
 * GDB has no such register.
 */
int target_reg(struct target *tg, unsigned int regno, struct regval *v);
/* Whether the snapshot's XSAVE areas hold AVX-512 state (XCR0 bits 5-7):
 * the target description then has the avx512 feature.
 */
bool target_avx512(struct target *tg);

/* Memory of the selected thread at its position: code, or the call stack
 * at STACK_ADDR.  Returns the bytes read (0: unavailable).
 */
size_t target_read(struct target *tg, uint64_t addr, uint8_t *buf,
		   size_t len);

/*
 * target_watch.c: watchpoint stops.  The bytes of [@addr, @addr + @len)
 * a thread's exit (@h->exit) held before it (@after false) or after it,
 * where known; the bytes just after hit @h's store.  Each returns the
 * bytes known from @addr on.
 */
size_t target_exit_bytes(const struct rp_watch_hit *h, bool after,
			 uint64_t addr, uint8_t *buf, size_t len);
size_t target_after_store(struct rp_recover *rc, const struct rp_watch_hit *h,
			  uint64_t addr, uint8_t *buf, size_t len);

/* Z2/Z3/Z4 and z2/z3/z4: the process watchpoint [@addr, @addr + @len) of
 * @type is for.  Add returns 0 or -1 (no memory).
 */
int target_watch_add(struct target *tg, unsigned int type, uint64_t addr,
		     uint64_t len, uint32_t pid);
void target_watch_del(struct target *tg, unsigned int type, uint64_t addr,
		      uint64_t len, uint32_t pid);
void target_watch_free(struct target *tg);

/*
 * After a continue (@dir < 0: back) that stopped at a watchpoint: when
 * the access was made by a process other than the watchpoint's (one
 * that shares its memory: clone with CLONE_VM, not CLONE_THREAD), selects
 * a thread of the watchpoint's process at its present position, the
 * thread selected before the continue (@was) where it is one of them
 * and was running, and remembers the stop as shown there.
 */
void target_watch_show(struct target *tg, int dir, size_t was);
/* Whether the last watchpoint stop is shown in another process's thread
 * (tg->shown), and nothing moved since; its hit into @h.
 */
bool target_watch_shown(struct target *tg, struct rp_watch_hit *h);
/*
 * Memory of thread @cur at a stop shown there: the watched bytes from
 * @addr on as the accessing thread saw them just before or after its
 * access.  Returns the bytes read (0: unknown), or -1 when @addr is not
 * one of them (*@len then stops at the first watched byte).
 */
long target_watch_read(struct target *tg, size_t cur, uint64_t addr,
		       uint8_t *buf, size_t *len);
/* For monitor ptrec watch-last at a stop shown in another process's
 * thread: who made the access @h and where it is shown; of a load or
 * store (no other line follows), the instruction too.
 */
void target_watch_shown_msg(struct target *tg, const struct rp_watch_hit *h,
			    struct text *out);

/* Whether the bytes watchpoint hit @h watches are known both before and
 * after its access (at most the first 4096), so GDB can compare them.
 */
bool target_watch_values(struct target *tg, const struct rp_watch_hit *h);
/* Which of them are known: 1 before, 2 after (just after the store, its
 * value even where other threads share the memory), 3 both.
 */
unsigned int target_watch_known(struct target *tg,
				const struct rp_watch_hit *h);

/* The call stack of thread @cur at @pos as served at STACK_ADDR, into
 * @w (@maxw words).  Returns the words written.
 */
size_t target_call_stack(struct target *tg, size_t cur, uint64_t pos,
			 uint64_t *w, size_t maxw);

/* Thread @cur's recovery context, or NULL (values off, or it failed). */
struct rp_recover *target_recovery(struct target *tg, size_t cur);

/* Strict values on or off (monitor ptrec values-strict): every context,
 * register and frame computed again on use.
 */
void target_values_strict(struct target *tg, bool on);

/*
 * Idle time (GDB sent nothing): the next window of the selected
 * thread's values, counted back from its end, computed before a stop
 * asks for it (docs/values.md, "Latency").  True when it computed one
 * (more may follow), false when there is nothing left to do, values are
 * off or PTREC_NO_PREFETCH is set.
 */
bool target_prefetch(struct target *tg);

/* frames.c: the FREGS_ADDR words of the published stack tg->stack of
 * thread @cur from @off on.  Returns the bytes read.
 */
size_t frames_read(struct target *tg, size_t cur, uint64_t off,
		   uint8_t *buf, size_t len);
void frames_free(struct target *tg);
/* Where frame @k of thread @cur's published stack returns (*@at, the
 * position after its return) and, when known there, rax (*@rax).
 * Returns 1 (rax known), 0 (not known), or -1 when its return is not in
 * the history.
 */
int frames_return(struct target *tg, size_t cur, size_t k, uint64_t *at,
		  uint64_t *rax);

/* XML documents and binary objects for qXfer reads; @out is appended to.
 * Each returns 0, or -1 when there is nothing to send.
 */
/* The thread list, ids as @c writes them. */
void target_threads_xml(struct target *tg, const struct conn *c,
			struct text *out);
void target_libraries_xml(struct target *tg, struct text *out);
void target_auxv(struct target *tg, struct text *out);
/* The program process @pid runs (0: the selected thread's process), as of
 * its last thread's position: after an exec, the new program.
 */
int target_exec_file(struct target *tg, uint32_t pid, struct text *out);
/* A siginfo_t (x86-64 layout) of the fatal signal, when the selected
 * thread is at it.
 */
int target_siginfo(struct target *tg, struct text *out);

/*
 * hostio.c: Host I/O.  Each returns -1 with a FILEIO_E* number in *@err,
 * or: setfs 0; open GDB's descriptor; pread and readlink the bytes read;
 * fstat and close 0.  Images the recording mapped at @path come from the
 * bundle, other paths from the local filesystem, read-only (@flags must
 * be FILEIO_O_RDONLY), never under /proc, /sys or /dev.
 */
int target_file_setfs(struct target *tg, long long pid, int *err);
int target_file_open(struct target *tg, const char *path, uint64_t flags,
		     int *err);
long long target_file_pread(struct target *tg, int k, void *buf,
			    size_t len, uint64_t off, int *err);
int target_file_fstat(struct target *tg, int k, struct stat *st, int *err);
int target_file_close(struct target *tg, int k, int *err);
long long target_file_readlink(struct target *tg, const char *path,
			       char *buf, size_t size, int *err);
/* Closes every file GDB left open (detach, kill, a lost connection). */
void target_files_close(struct target *tg);

/* The signal GDB should see at the selected thread's position (5, SIGTRAP,
 * unless it is at the fatal signal at the end of its history).
 */
int target_signo(struct target *tg);

#endif
