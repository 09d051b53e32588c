/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to replay/: the engine's data structures. */
#ifndef PTREC_RP_INTERNAL_H
#define PTREC_RP_INTERNAL_H

#include <intel-pt.h>
#include <stdbool.h>
#include <stdint.h>

#include "replay.h"
#include "sideband.h"

#define RP_SEG_CACHE 4		/* materialized segments kept per thread */

/* A mapping in a process's address space. */
struct rp_map {
	uint64_t start, end, pgoff;
	int image;		/* index into session images, -1: no code */
};

struct rp_aspace {
	uint32_t pid;
	struct rp_map *v;
	size_t n, cap;
};

/* A PSB in a thread's stream, from a packet scan. */
struct rp_psb {
	uint64_t offset;
	uint64_t tsc;
	uint64_t fup;		/* IP of its FUP (0: tracing was disabled) */
};

/* The first TIP.PGE after a PSB+ without FUP: its offset (0: not known)
 * and IP.
 */
struct rp_psb_resume {
	uint64_t offset;
	uint64_t ip;
};

/*
 * A place to start decoding a stream that has no PSB there: a TIP.PGE
 * (tracing resumes) while tracing was off, with its full IP recovered
 * from the packets before it (last-IP compression), and the execution
 * mode and timing then.  A decoder cannot start there by itself (libipt
 * syncs at PSBs only), so it is given a made-up PSB+ and this TIP.PGE in
 * full ahead of the bytes that follow (psbscan.h, rp_split_prefix).
 * Saved in the index as it is (in struct rp_ckpt): no padding.
 */
struct rp_split {
	uint64_t offset;	/* of the TIP.PGE */
	uint64_t ip;
	uint64_t tsc;		/* the last TSC before it (0: none) */
	uint16_t ctc, fc;	/* the last TMA before it */
	uint8_t len;		/* the TIP.PGE's bytes (0: no split) */
	uint8_t csl, csd;	/* MODE.Exec then */
	uint8_t has_tma;	/* 0 or 1 */
};

/*
 * A checkpoint: where decoding can restart.  Checkpoint 0 is the start of
 * the stream; the others are the PSBs with FUP, in order, and in a
 * stream with a single PSB the TIP.PGEs the index pass met in its decode
 * (@split: index.c, "cut points").
 */
struct rp_ckpt {
	uint64_t offset;	/* PSB offset (checkpoint 0: the first sync),
				 * or a split's TIP.PGE offset */
	uint64_t insn;		/* instructions before it */
	uint64_t tsc;
	uint64_t sb_next;	/* sideband records applied before it */
	uint64_t gap;		/* gaps before it */
	/*
	 * Call depth (calls minus returns, from the history's start) at it,
	 * and the lowest depth from it to the next checkpoint, both ends
	 * included (RP_DMIN_UNKNOWN: not known).  A search for the call
	 * that opened a frame, or the return that closes it, skips the
	 * segments that never go below the frame's depth.
	 */
	int64_t depth;
	int64_t dmin;
	/* split.len != 0: decoding starts at this TIP.PGE behind a made-up
	 * PSB+ (decode.c, rp_walk_begin_at), not at a PSB, with libipt's
	 * return-compression stack holding the thread's rets[rets_at] ..
	 * rets[rets_at + nrets - 1] (the innermost last, at most
	 * RP_RETSTACK).
	 */
	struct rp_split split;
	uint32_t rets_at, nrets;
};

#define RP_RETSTACK	64	/* libipt's return stack (and a CPU's) */

#define RP_DMIN_UNKNOWN	INT64_MIN

/* Decoded instructions of one segment (checkpoint k to k+1). */
struct rp_seg {
	uint64_t ckpt;		/* checkpoint index, UINT64_MAX: empty slot */
	uint64_t first;		/* position of insns[0] */
	uint64_t n;
	struct rp_insn *insns;
	uint64_t stamp;		/* LRU */
};

/*
 * Time order of instructions across threads (cursor.c's search, the
 * timeline's watchpoints): timestamp, then the thread's order in the
 * bundle.
 */
struct rp_when {
	uint64_t tsc;
	size_t thread;
};

static inline int rp_when_cmp(struct rp_when a, struct rp_when b)
{
	if (a.tsc != b.tsc)
		return a.tsc < b.tsc ? -1 : 1;
	return a.thread < b.thread ? -1 : a.thread > b.thread;
}

struct rp_thread {
	uint32_t tid, pid;
	const uint8_t *pt;	/* the mapped stream */
	size_t pt_size;
	uint64_t pt_mtime_ns;	/* the stream file's, for the index cache */
	struct rp_psb *psbs;
	size_t npsbs;
	/* Where tracing resumes after each PSB without FUP (the index pass
	 * only; not saved): psbscan.h.
	 */
	struct rp_psb_resume *resume;
	struct rp_ckpt *ckpts;
	size_t nckpts;
	struct rp_gap *gaps;
	size_t ngaps;
	struct rp_event *evs;	/* events.c: in history order */
	size_t nevs;
	uint64_t *rets;		/* the checkpoints' return stacks */
	size_t nrets;
	uint64_t insns;
	uint64_t first_tsc, last_tsc;
	struct rp_seg cache[RP_SEG_CACHE];
	uint64_t clock;
	bool exact;		/* indexed by the instruction decoder */
	bool cached;		/* the index was read from BUNDLE/index */
};

struct sym_module;
struct dis;

struct rp_image {
	char *path;		/* file in the bundle's image store */
	char *key;
	char *origin;		/* path on the recording machine */
	struct sym_module *sym;	/* opened on first use */
	bool sym_failed;
};

struct rp_session {
	char *dir;
	struct sb_manifest *m;
	struct ptrec_sb_header **recs;	/* whole sideband, stream order */
	size_t nrecs;
	struct rp_image *images;
	size_t nimages;
	uint64_t images_key;	/* idxcache.c: hash of the image set */
	bool images_key_set;
	struct pt_image_section_cache *iscache;
	struct rp_thread *threads;
	size_t nthreads;
	struct dis *dis;		/* for rp_format_insn(), made on use */
	/* rcv_order_aio()'s answers by process (with a snapshot or not):
	 * they depend on the history, not on a recovery context, and cost
	 * a walk of every system call of its threads.
	 */
	struct {
		uint32_t pid;
		bool snap;
		uint8_t aio;	/* 1 none, 2 maybe */
	} aio_memo[8];
	size_t naio_memo;
	rp_progress_fn progress;
	void *progress_ctx;
	uint64_t progress_base;	/* bytes of threads already indexed */
	uint64_t progress_total;
	char errmsg[512];
	/* The end-state snapshot, opened on first use by rp_thread_end()
	 * (NULL: none, or not usable).
	 */
	struct rp_snapshot *snap;
	bool snap_tried;
	/* The values engine of the thread whose PTWRITE operands
	 * rp_format_event() last named (made on use).
	 */
	struct rp_recover *ev_rc;
	uint32_t ev_rc_tid;
	/* rcv_xthr.c: each task's writes in time, made once per session
	 * (a values engine of the task each), whichever thread asks.
	 */
	struct rcv_xtask *xtasks;
	size_t nxtasks;
	/* rcv_decode.c: the values engine's decoder, made on first use and
	 * shared by every recovery context of the session (its cache is a
	 * pure function of an instruction's bytes and address: the same
	 * library code run by several threads is decoded once).
	 */
	struct rcv_dec *rcv_dec;
	/* rcv_prot.c: whether no two calls of a process's tasks that may
	 * change a protection overlap, by process (a walk of every task).
	 */
	struct {
		uint32_t pid;
		bool ok;
	} prot_memo[8];
	size_t nprot_memo;
	/* rp_session_set_values_strict(): 0 not set (PTREC_VALUES_STRICT
	 * then), 1 off, 2 on.
	 */
	int values_strict;
};

/* A read-only descriptor of session image @i (0-based), opened by the
 * bundle rule (sb_bundle_open_file: no symlink, regular, the listed size),
 * or -1.  Every read of image bytes goes through it; libipt's section
 * cache alone opens images by path (checked when the session opened).
 */
int rp_image_open(const struct rp_session *s, size_t i);

/* ---- the index cache (idxcache.c) -------------------------------------- */

/* Loads @t's saved index.  Returns 0, or -1 when there is no usable cache
 * (build the index instead): none, another version, stream or user's key,
 * damaged, or a value that does not fit the stream.
 */
int rp_idx_load(struct rp_session *s, struct rp_thread *t);
/* Saves @t's index; failures only mean no cache. */
void rp_idx_save(struct rp_session *s, const struct rp_thread *t);
/*
 * What rp_idx_save() needs before it can sign, done ahead (thread-safe):
 * the MAC's library, which ptrec loads on first use (ptkit/liblazy.c:
 * 0.57 M instructions).  An index worker out of ranges calls it while the
 * others still decode (index.c), so the saving thread does not.
 */
void rp_idx_warm(void);
/* @t's index came from the cache and disagrees with the stream: deletes
 * the saved file, builds the index again and saves it.  Returns 0, or
 * -RP_ERR_DECODE when the index was not a saved one (a real disagreement),
 * or the index pass's error.
 */
int rp_idx_rebuild(struct rp_session *s, struct rp_thread *t);
/* For the fuzz harness: the checks of rp_idx_load on @len bytes of index
 * (without MAC), and the MAC of @len bytes under this user's key.
 */
int rp_idx_parse(struct rp_session *s, struct rp_thread *t,
		 const uint8_t *data, size_t len);
int rp_idx_sign(const uint8_t *buf, size_t len, uint8_t mac[32]);

/* ---- address spaces (aspace.c) ----------------------------------------- */

/* The address spaces of all processes as of sideband record @upto. */
struct rp_world {
	struct rp_session *s;
	struct rp_aspace *as;
	size_t nas;
	size_t next;		/* next record to apply */
	bool changed;		/* since the last image build */
	/* Where images get their sections: NULL for the session's; the
	 * index pass's own (index.c).
	 */
	struct pt_image_section_cache *iscache;
};

void rp_world_init(struct rp_world *w, struct rp_session *s);
void rp_world_fini(struct rp_world *w);
/* Applies every record with time <= @tsc (all when @tsc is UINT64_MAX). */
int rp_world_advance(struct rp_world *w, uint64_t tsc);
/* Applies records until @next have been applied. */
int rp_world_seek(struct rp_world *w, uint64_t next);
/* A libipt image of @pid's address space.  Returns NULL on failure. */
struct pt_image *rp_world_image(struct rp_world *w, uint32_t pid);
/* @pid's code mappings as rp_world_image() makes them sections, by
 * address, in *@v (free it): those that touch both in memory and in one
 * file joined.  Returns 0 or -RP_ERR_NOMEM.
 */
int rp_world_sections(struct rp_world *w, uint32_t pid, struct rp_map **v,
		      size_t *n);
/* The mapping of @pid holding @ip, or NULL. */
const struct rp_map *rp_world_lookup(struct rp_world *w, uint32_t pid,
				     uint64_t ip);

/* ---- decoding (psbscan.c, decode.c, gaps.c, index.c) ---------------- */

/* Builds the index of a thread. */
int rp_index_thread(struct rp_session *s, struct rp_thread *t);

/*
 * Rebuilds @t's index with the instruction decoder, when the faster block
 * decoder's index turned out not to match it (damaged streams only).
 * Returns 0, or -RP_ERR_DECODE when it already was.
 */
int rp_reindex_exact(struct rp_session *s, struct rp_thread *t);

/* Decodes segment @k of @t into @seg. */
int rp_materialize(struct rp_session *s, struct rp_thread *t, uint64_t k,
		   struct rp_seg *seg);

/* Formats a failure into the session's message; returns -@err. */
int rp_fail(struct rp_session *s, enum rp_error err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct rp_thread *rp_find_thread(const struct rp_session *s, uint32_t tid);

/* Names @addr, an operand of @insn, as GDB's print_address does (code or
 * data, same image only).  Returns 0 or -RP_ERR_NOTFOUND.
 */
int rp_name_address(struct rp_session *s, const struct rp_insn *insn,
		    uint64_t addr, const char **name, uint64_t *offset);

/* The source variable (DWARF) that operand register @reg, or memory
 * @base + @disp, of @insn is (DWARF register numbers, -1: none).  Returns
 * 0 or -RP_ERR_NOTFOUND.
 */
int rp_name_variable(struct rp_session *s, const struct rp_insn *insn,
		     int reg, int base, int64_t disp, const char **name);

/* Names the data object (an ELF symbol with a size) runtime address
 * @addr lies inside, in @insn's image, into @out: "arr[3]", "s.x",
 * "arr[2].y" where DWARF types it, else "sym+24".  Returns 0 or
 * -RP_ERR_NOTFOUND.
 */
int rp_name_object(struct rp_session *s, const struct rp_insn *insn,
		   uint64_t addr, char *out, size_t len);

/* ---- watchpoints' scan (rcv_access.c, for watch.c) --------------------- */

/*
 * Calls @fn with rp_recover_accesses() of each instruction from *@pos
 * toward @dir (-1 or 1) within [@lo, @hi) that may access memory of
 * kinds @kinds (RP_ACC_* bits), one window's states after the other;
 * those passed have no such access whatever their registers
 * (rcv_access.c).  Stops where @fn returns nonzero: its position in
 * *@pos, and 0 (@fn returned > 0) or @fn's negative value.
 * -RP_ERR_NOTFOUND when @fn never stopped it.
 */
int rp_recover_scan(struct rp_recover *rc, uint64_t *pos, int dir,
		    uint64_t lo, uint64_t hi, unsigned int kinds,
		    int (*fn)(void *arg, const struct rp_access *acc, int n),
		    void *arg);

/* ---- a stretch of a thread's history as libipt's blocks (cursor.c) ----- */

/*
 * One block of instructions at consecutive addresses: @ninsn of them from
 * @ip, the first at position @pos, the last at @end_ip; their bytes in
 * image section @isid of the session's section cache (rp_session's
 * iscache), the last one's in @raw when @truncated (it crosses into
 * another section); @iclass: libipt's class of the last (enum
 * pt_insn_class; ptic_error: not said).
 */
struct rp_blk {
	uint64_t pos, ip, end_ip;
	int isid;
	uint16_t ninsn;
	int iclass;
	bool truncated;
	uint8_t size;
	uint8_t raw[15];
};

/*
 * Calls @fn with the blocks holding positions [@first, @last) of @c's
 * thread, in order (the first may start before @first, the last end
 * after @last), decoded with libipt's block decoder from the checkpoint
 * before @first on, as the index pass counted them.  Stops where @fn
 * returns nonzero (that value).  -RP_ERR_DECODE where the block decoder
 * cannot reproduce the positions (a gap, a split's checkpoint, a stream
 * the instruction decoder indexed, 16- or 32-bit code): the caller reads
 * those instructions with rp_cursor_peek() instead.
 */
int rp_cursor_blocks(struct rp_cursor *c, uint64_t first, uint64_t last,
		     int (*fn)(void *arg, const struct rp_blk *b), void *arg);

/*
 * The positions resync_after_signal() examined with @c so far, those in
 * stretches it already knew to hold no handler return skipped (cursor.c):
 * a count of a stop's work for the tests.
 */
uint64_t rp_cursor_resync_peeks(const struct rp_cursor *c);

/* Closes the symbol modules of every image (syms.c). */
void rp_syms_close(struct rp_session *s);

/* Frees the session's rcv_xthr.c cache (rp_session_close()). */
void rcv_xthr_session_free(struct rp_session *s);
/* Frees the session's shared decoder (rcv_decode.c), after its contexts. */
void rcv_dec_session_free(struct rp_session *s);

#endif
