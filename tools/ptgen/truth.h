/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The compact ground truth ptgen writes next to a generated bundle
 * (docs/scale.md).  Little-endian, as the x86-64 hosts that read it:
 *
 *   header	struct ptgen_truth_hdr
 *   segments	nsegs x struct ptgen_seg: the history cut at each PSB,
 *		in order; segment 0 starts at instruction 0
 *   samples	nsamples x struct ptgen_sample, by increasing index
 *
 * A segment's hash folds the addresses of its instructions in order:
 * h = 0; for each ip: h = h * PTGEN_HASH_MUL + ip (mod 2^64).
 */
#ifndef PTREC_PTGEN_TRUTH_H
#define PTREC_PTGEN_TRUTH_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTGEN_TRUTH_MAGIC	"PTGENGT"	/* 8 bytes with the NUL */
#define PTGEN_TRUTH_VERSION	1
#define PTGEN_HASH_MUL		0x100000001b3ull
#define PTGEN_NONE		UINT64_MAX

struct ptgen_truth_hdr {
	char magic[8];
	uint32_t version;
	uint32_t tid;
	uint64_t seed;
	uint64_t insns;		/* instructions in the history */
	uint64_t nsegs;
	uint64_t nsamples;
};

struct ptgen_seg {
	uint64_t first;		/* position of its first instruction */
	uint64_t n;		/* instructions */
	uint64_t hash;
};

/*
 * A sampled position, always the first instruction of a basic block.
 * @prev:	the previous position with the same address (PTGEN_NONE:
 *		none), which is where a reverse-continue to a breakpoint at
 *		@ip from @index must stop.
 * @frame_call:	position of the call that entered the function running at
 *		@index (PTGEN_NONE: the outermost function), where
 *		reverse-finish goes.
 * @ret_call:	when the block was entered by a return, the position of the
 *		call it returned from (where reverse-next from @index goes);
 *		PTGEN_NONE otherwise.
 */
struct ptgen_sample {
	uint64_t index;
	uint64_t ip;
	uint64_t prev;
	uint64_t frame_call;
	uint64_t ret_call;
};

struct ptgen_truth {
	struct ptgen_truth_hdr h;
	struct ptgen_seg *segs;
	struct ptgen_sample *samples;
};

static inline void ptgen_truth_free(struct ptgen_truth *t)
{
	free(t->segs);
	free(t->samples);
	t->segs = NULL;
	t->samples = NULL;
}

/* Reads @path.  Returns 0, or a negative errno with a message on stderr
 * naming the file and what is wrong.
 */
static inline int ptgen_truth_load(const char *path, struct ptgen_truth *t)
{
	FILE *f = fopen(path, "rb");
	size_t nseg, nsam;

	memset(t, 0, sizeof(*t));
	if (!f) {
		int ret = -errno;

		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return ret;
	}
	if (fread(&t->h, sizeof(t->h), 1, f) != 1 ||
	    memcmp(t->h.magic, PTGEN_TRUTH_MAGIC, 8) ||
	    t->h.version != PTGEN_TRUTH_VERSION ||
	    t->h.nsegs > (1ull << 32) || t->h.nsamples > (1ull << 32)) {
		fprintf(stderr, "%s: not a ptgen ground-truth file (version %u)\n",
			path, PTGEN_TRUTH_VERSION);
		fclose(f);
		return -EINVAL;
	}
	nseg = (size_t)t->h.nsegs;
	nsam = (size_t)t->h.nsamples;
	t->segs = calloc(nseg + 1, sizeof(*t->segs));
	t->samples = calloc(nsam + 1, sizeof(*t->samples));
	if (!t->segs || !t->samples ||
	    fread(t->segs, sizeof(*t->segs), nseg, f) != nseg ||
	    fread(t->samples, sizeof(*t->samples), nsam, f) != nsam) {
		fprintf(stderr, "%s: truncated (%zu segments, %zu samples)\n",
			path, nseg, nsam);
		fclose(f);
		ptgen_truth_free(t);
		return -EINVAL;
	}
	fclose(f);
	return 0;
}

#endif
