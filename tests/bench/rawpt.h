/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the benchmarks' libipt loops share in reading their input: a file
 * read whole, the PT[@SKIP] and FAMILY/MODEL/STEPPING arguments, ptrec
 * import raw's images list ('PATH ADDRESS [FILE-OFFSET SIZE]' per line)
 * and the PEBS-via-PT packets that libipt 2.0 does not know.  Only libipt
 * and libc: iptraw, the plain loop a new user would write, links nothing
 * of ptrec's.
 */
#ifndef PTREC_BENCH_RAWPT_H
#define PTREC_BENCH_RAWPT_H

#include <intel-pt.h>
#include <stddef.h>
#include <stdint.h>

/* @path's bytes (malloc'd) and their count in *@len, or NULL. */
uint8_t *rawpt_slurp(const char *path, size_t *len);

/* Cuts "@SKIP" off @arg (PT[@SKIP]) and returns SKIP, 0 without one. */
size_t rawpt_skip(char *arg);

/*
 * Reads @path into *@buf and sets @cfg up to decode it from byte @skip:
 * the CPU from @fms ("FAMILY/MODEL/STEPPING", with its errata; none when
 * NULL or not of that form) and rawpt_unknown() for the packets libipt
 * does not know (its context NULL: cfg->decode.context counts them).
 * Returns -1 when the file cannot be read or is shorter than @skip.
 */
int rawpt_config(struct pt_config *cfg, const char *path, size_t skip,
		 const char *fms, uint8_t **buf);

/*
 * PEBS block packets (SDM Vol. 3C, "PEBS via Intel PT": BBP 02 63
 * SZ|TYPE, BIPs of ID << 3 | 100b and 4 or 8 bytes, BEP 02 33 or 02 b3),
 * skipped for libipt's decoders (pt_config's decode.callback).  With a
 * struct rawpt_pebs as the decoder's context, each item counts once,
 * however often the decoders read it.
 */
struct rawpt_pebs {
	uint64_t items;
	const uint8_t *last;
};

int rawpt_unknown(struct pt_packet_unknown *u, const struct pt_config *cfg,
		  const uint8_t *pos, void *ctx);

/* One section of code: FILE's bytes from @off, @size of them, at @addr. */
typedef int (*rawpt_add_fn)(void *ctx, const char *file, uint64_t off,
			    uint64_t size, uint64_t addr);

/*
 * Calls @add for each line of the images list @list (a line without
 * FILE-OFFSET and SIZE: 0 and UINT64_MAX, the whole file).  Returns -1
 * when @list cannot be read or @add fails, 0 otherwise.
 */
int rawpt_load_list(const char *list, rawpt_add_fn add, void *ctx);

#endif
