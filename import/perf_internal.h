/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to import/perf*.c: the state of one perf.data import (struct
 * perf) shared by its three steps, which live in their own files:
 * perf_header.c (header, attrs, feature sections, sample ids, time),
 * perf_records.c (the data section's records; perf_parse()),
 * perf_split.c (AUX buffers cut into one PT stream per thread;
 * perf_split()) and perf_write.c (the bundle; perf_write()).  perf.c holds
 * the entry points and the error helpers, u32map.c the map the parse and
 * split steps find buffers and threads with.
 */
#ifndef PTREC_IMPORT_PERF_INTERNAL_H
#define PTREC_IMPORT_PERF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "import.h"
#include "perf_format.h"

#define CMD "ptrec import perf"
#define NONE UINT32_MAX

/* One sideband event, before it is written. */
struct ev {
	uint64_t tsc;
	uint64_t seq;			/* file order, for a stable sort */
	uint16_t type;			/* PTREC_SB_* */
	uint16_t flags;
	uint32_t pid, tid;
	uint32_t a, b;			/* parent pid/tid, cpu, reason */
	uint64_t start, len, pgoff, bytes, offset;
	uint32_t prot, mflags;
	char *str;			/* comm or path (owned) */
	uint8_t bid[20];
	uint8_t bid_len;
};

/* AUX data of one buffer (AUXTRACE idx). */
struct chunk {
	uint64_t foff;			/* file offset of the data */
	uint64_t size, offset;		/* offset: position in the AUX area */
	uint64_t seq;
};

struct auxbuf {
	uint32_t idx, tid, cpu;
	struct chunk *c;
	size_t nc;
	uint8_t *data;			/* the chunks joined */
	size_t len;
	uint64_t first;			/* AUX offset of data[0] */
};

/* A LOST point in an AUX buffer, mapped to a thread after the split. */
struct mark {
	uint32_t buf;			/* auxbuf index */
	uint64_t pos;			/* byte position in its data */
	uint64_t bytes, tsc;
	uint32_t reason;
};

/* From this TSC on, @tid runs on @cpu (NONE: no traced thread). */
struct sw {
	uint64_t tsc, seq;
	uint32_t cpu, tid;
};

struct bid {
	char *path;
	uint8_t id[20];
	uint8_t len;
};

/* A piece of an AUX buffer that belongs to one thread. */
struct piece {
	uint32_t buf, tid;
	uint64_t start, end, tsc, seq;
	bool lost;			/* undecodable: becomes a LOST record */
	bool resync;			/* starts at a re-enable, not a PSB */
	uint64_t last_ip;		/* IP compression state there */
	bool off_end;			/* ends where tracing is off (TIP.PGD) */
};

struct thr {
	uint32_t tid, pid;
	uint8_t *data;
	size_t len, cap;
	bool off_end;			/* the stream ends with tracing off */
};

struct perf {
	const char *name;
	const uint8_t *buf;
	size_t len;
	bool quiet;
	const char *symfs;		/* --symfs: a root for recorded paths */
	bool pipe;			/* pipe mode: attrs and features are records */
	size_t capattr;
	struct pf_header h;
	/* attrs */
	struct pf_attr *attr;
	uint64_t *sample_type;
	uint64_t **ids;
	size_t *nids;
	uint64_t ids_bytes;		/* all attrs' ids, bounded by the file */
	bool reported;			/* perr() said why parsing failed */
	struct u32map *abmap;		/* AUX buffer idx -> index in ab */
	struct u32map *thmap;		/* tid -> index in th */
	struct id_index *ididx;		/* id -> attr, built on first use */
	size_t nattr;
	int pt_attr;			/* index of the intel_pt attr */
	/* AUXTRACE_INFO */
	bool have_info;
	uint64_t priv[PF_PT_PRIV_MAX];
	size_t npriv;
	/* time */
	bool have_time;
	uint64_t time_shift, time_mult, time_zero;
	/* features */
	struct sb_cpu cpu;
	bool have_cpu;
	uint32_t nr_cpus;
	char **cmdline;
	size_t ncmdline;
	struct bid *bids;
	size_t nbids;
	/* collected */
	struct ev *ev;
	size_t nev, capev;
	struct auxbuf *ab;
	size_t nab;
	struct mark *mk;
	size_t nmk;
	struct sw *sw;
	size_t nsw;
	uint64_t seq;
	uint64_t aux_bytes;
	bool per_cpu;
	/* result */
	struct thr *th;
	size_t nth;
	uint32_t features;
};


struct sid {
	uint32_t pid, tid, cpu;
	uint64_t time, id;
	bool have_time;
};

/*
 * The sample ids of all attrs, sorted, so a record's attr is a binary
 * search rather than a scan of every id (a file of many ids and records
 * took quadratic time: review).  Rebuilt when attrs were added since.
 */
struct id_attr {
	uint64_t id;
	size_t attr;
};

struct id_index {
	struct id_attr *v;
	size_t n;
	size_t nattr;		/* attrs it covers */
	bool failed;
};


/*
 * A small open-addressing map from a 32-bit key (AUX buffer idx, tid) to
 * an array index: a hostile file of 100,000 buffers took seconds, and
 * longer the bigger it got, when every lookup scanned the array (review).
 */
struct u32map {
	uint32_t *key;
	size_t *val;		/* index + 1; 0: an empty slot */
	size_t cap, n;		/* cap: a power of two, or 0 */
};

static inline bool in_file(const struct perf *p, uint64_t off, uint64_t size)
{
	return off <= p->len && size <= p->len - off;
}

static inline uint64_t rd64(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return v;
}

static inline uint32_t rd32(const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return v;
}


/* perf.c */
int perf_grow(void *vp, size_t n, size_t *cap, size_t size);
/* Prints "ptrec import perf: FILE: offset OFF: ..."; returns -1. */
int perf_err(struct perf *p, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void perf_warn(struct perf *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* qsort() must not see NULL, even for no elements. */
void perf_sort(void *v, size_t n, size_t size,
	       int (*cmp)(const void *, const void *));

/* perf_header.c */
int perf_parse_attrs(struct perf *p);
int perf_parse_build_ids(struct perf *p, uint64_t off, uint64_t end);
int perf_parse_feature(struct perf *p, unsigned int bit, uint64_t off,
		       uint64_t end);
int perf_parse_features(struct perf *p);
int perf_parse_sid(const struct perf *p, const uint8_t *r, size_t size,
		   size_t fixed, struct sid *s);
uint64_t perf_to_tsc(const struct perf *p, uint64_t t);

/* perf_records.c */
struct ev *perf_new_ev(struct perf *p, uint16_t type, const struct sid *s);
int perf_parse(struct perf *p);

/* perf_split.c */
int perf_split(struct perf *p);

/* perf_write.c */
int perf_finish_events(struct perf *p);
int perf_write(struct perf *p, const char *out, int argc, char **argv);

/* u32map.c */
void *u32map_find_or_add(void *vp, size_t *n, size_t *cap, size_t size,
			 struct u32map *m, uint32_t key, bool *fresh);
void u32map_free(struct u32map *m);

#endif /* PTREC_IMPORT_PERF_INTERNAL_H */
