/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What mkperf's parts share (tests/tools/mkperf.c: the options, the file
 * and its AUX data; mkperf_pcpu.c: the per-cpu buffer's PT re-encoding;
 * mkperf_pevent.c: --pevent, a real session's records around a real PT
 * buffer): the output buffer, perf's clock and the kernel records.
 */
#ifndef PTREC_TESTS_MKPERF_H
#define PTREC_TESTS_MKPERF_H

#include <errno.h>
#include <getopt.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_format.h"
#include "sideband.h"

#define PMU_TYPE	8
#define TSHIFT		10
#define TMULT		1000
#define TZERO		5000000ull
#define SAMPLE_TYPE	(PF_SAMPLE_TID | PF_SAMPLE_TIME | PF_SAMPLE_CPU | \
			 PF_SAMPLE_IDENTIFIER)
#define ID_PT		1000
#define ID_DUMMY	2000

struct buf {
	uint8_t *p;
	size_t len, cap;
};

/* Says what failed on stderr and exits 1. */
void die(const char *what);
/* Appends @n bytes of @d to @b. */
void put(struct buf *b, const void *d, size_t n);
/* Pads @b to 8 bytes. */
void pad8(struct buf *b);
/* perf's time of TSC @tsc (the TIME_CONV parameters above). */
uint64_t perf_time(uint64_t tsc);

/* The perf.data being written; --per-cpu. */
extern struct buf out;
extern bool per_cpu;

/* A kernel record: header, @body, @str (NUL-terminated, padded), trailer. */
void rec(uint32_t type, uint16_t misc, const void *body, size_t n,
	 const char *str, uint32_t pid, uint32_t tid, uint64_t tsc,
	 bool snapshot, uint64_t id);

/* An AUXTRACE record for @n bytes of @d (mkperf.c). */
void auxtrace(const uint8_t *d, size_t n, uint64_t aoff, uint32_t idx,
	      uint32_t tid, uint32_t cpu);
/* @path's bytes, or die. */
uint8_t *slurp(const char *path, size_t *len);

/* ---- the per-cpu buffer (mkperf_pcpu.c) ---------------------------------- */

struct seg {
	uint64_t tsc;
	uint32_t tid;
	struct buf b;
};

extern struct seg *segs;
extern size_t nsegs;
/* --psb-at-switch */
extern bool psb_at_switch;

/* Cuts thread @tid's stream into the stretches it ran between switches. */
void segment(uint32_t tid, const uint8_t *data, size_t len);
/* The stretches, in time order, as one CPU's stream into @out_b. */
void recompress(struct buf *out_b, const uint8_t *data, size_t len);
/* qsort order of the stretches: time, then thread. */
int seg_cmp(const void *x, const void *y);

/* ---- --pevent (mkperf_pevent.c) ------------------------------------------ */

#define MAX_PEVENT 8

int pevent_main(const char *const *files, size_t nfiles, const char *pt,
		uint64_t sample_type, const char *outp);

#endif
