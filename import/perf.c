// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec import perf`: a perf.data file recorded with the intel_pt PMU
 * becomes a bundle.
 *
 * The file is read in three steps.  perf_parse() walks the header, the
 * attrs, the feature sections and every record of the data section,
 * checking each size against the section before reading it, and collects
 * AUX data (AUXTRACE records), the records that become sideband, and the
 * context switches.  perf_split() turns the AUX streams into one stream
 * per thread: a per-thread recording already has one; a per-cpu stream is
 * cut at its PSB packets and each piece goes to the thread that ran on
 * that CPU at the piece's TSC (docs/import.md says what that can and
 * cannot do).  perf_write() writes the bundle: streams, images (recorded
 * paths or the build-id cache) and the sideband records sorted by TSC.
 *
 * Memory: everything allocated is bounded by the input's size (records,
 * chunks and switches are at most one per 8 bytes of file, streams at most
 * the AUX bytes present).
 */
#include <errno.h>
#include <fcntl.h>
#include <intel-pt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
};

struct thr {
	uint32_t tid, pid;
	uint8_t *data;
	size_t len, cap;
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

static int perr(struct perf *p, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct perf *p, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	p->reported = true;
	if (p->quiet)
		return -1;
	fprintf(stderr, CMD ": %s: offset %llu: ", p->name,
		(unsigned long long)off);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static void warn(struct perf *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct perf *p, const char *fmt, ...)
{
	va_list ap;

	if (p->quiet)
		return;
	fprintf(stderr, CMD ": %s: ", p->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Grows *v to hold n + 1 elements of @size (doubling). */
static int grow(void *vp, size_t n, size_t *cap, size_t size)
{
	void **v = vp;
	size_t nc;
	void *nv;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 16;
	nv = realloc(*v, nc * size);
	if (!nv)
		return -1;
	*v = nv;
	*cap = nc;
	return 0;
}

/* qsort() must not see NULL, even for no elements. */
static void xsort(void *v, size_t n, size_t size,
		  int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
}

static bool in_file(const struct perf *p, uint64_t off, uint64_t size)
{
	return off <= p->len && size <= p->len - off;
}

/* ---- time ----------------------------------------------------------- */

/*
 * perf's time is tsc_to_perf_time(): zero + floor(tsc * mult / 2^shift)
 * (its quot/rem split computes exactly that, modulo 2^64).  The inverse
 * used here is the smallest TSC whose perf time is at least @t, so an
 * event never moves after the trace that follows it.  Time 0 is perf's
 * "synthesized before recording" and stays 0.
 */
static uint64_t to_tsc(const struct perf *p, uint64_t t)
{
	unsigned __int128 d, r;

	if (!t || !p->have_time)
		return t;
	d = (uint64_t)(t - p->time_zero);
	if ((int64_t)(t - p->time_zero) < 0)
		return 0;
	r = ((d << p->time_shift) + p->time_mult - 1) / p->time_mult;
	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

/* ---- sample_id trailers ---------------------------------------------- */

struct sid {
	uint32_t pid, tid, cpu;
	uint64_t time, id;
	bool have_time;
};

static int trailer_size(uint64_t st)
{
	int n = 0;

	n += !!(st & PF_SAMPLE_TID) + !!(st & PF_SAMPLE_TIME) +
	     !!(st & PF_SAMPLE_ID) + !!(st & PF_SAMPLE_STREAM_ID) +
	     !!(st & PF_SAMPLE_CPU) + !!(st & PF_SAMPLE_IDENTIFIER);
	return n * 8;
}

static uint64_t rd64(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return v;
}

static uint32_t rd32(const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return v;
}

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

static int id_cmp(const void *a, const void *b)
{
	const struct id_attr *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->attr < y->attr ? -1 : x->attr > y->attr;
}

static const struct id_index *id_index_get(const struct perf *p)
{
	struct id_index *x = p->ididx;
	size_t i, j, n = 0;

	if (x->nattr == p->nattr && !x->failed)
		return x;
	for (i = 0; i < p->nattr; i++)
		n += p->nids[i];
	free(x->v);
	x->v = malloc((n + 1) * sizeof(*x->v));
	x->n = 0;
	x->failed = !x->v;
	if (x->failed)
		return x;
	for (i = 0; i < p->nattr; i++)
		for (j = 0; j < p->nids[i]; j++) {
			x->v[x->n].id = p->ids[i][j];
			x->v[x->n++].attr = i;
		}
	/* Equal ids keep the first attr first, as the scan found it. */
	qsort(x->v, x->n, sizeof(*x->v), id_cmp);
	x->nattr = p->nattr;
	return x;
}

/* Which attr a record of @size bytes at @r belongs to. */
static int rec_attr(const struct perf *p, const uint8_t *r, size_t size)
{
	const struct id_index *x;
	size_t lo, hi;
	uint64_t id;
	size_t i;

	if (!p->nattr)
		return -1;
	if (p->nattr == 1)
		return 0;
	for (i = 1; i < p->nattr; i++)
		if (p->sample_type[i] != p->sample_type[0])
			break;
	if (i == p->nattr)
		return 0;
	if (!(p->sample_type[0] & PF_SAMPLE_IDENTIFIER) || size < 16)
		return -1;
	id = rd64(r + size - 8);
	x = id_index_get(p);
	if (x->failed)
		return -1;
	/* The first entry with this id. */
	for (lo = 0, hi = x->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n && x->v[lo].id == id ? (int)x->v[lo].attr : -1;
}

/*
 * The trailer of a kernel record whose fixed part is @fixed bytes.
 * Returns 0 (s filled; fields absent from the trailer are NONE / 0).
 */
static int parse_sid(const struct perf *p, const uint8_t *r, size_t size,
		     size_t fixed, struct sid *s)
{
	const uint8_t *t;
	uint64_t st;
	int a, n;

	memset(s, 0, sizeof(*s));
	s->pid = s->tid = s->cpu = NONE;
	a = rec_attr(p, r, size);
	if (a < 0 || !(p->attr[a].flags & PF_ATTR_SAMPLE_ID_ALL))
		return 0;
	st = p->sample_type[a];
	n = trailer_size(st);
	if (size < fixed + n)
		return -1;
	t = r + size - n;
	if (st & PF_SAMPLE_TID) {
		s->pid = rd32(t);
		s->tid = rd32(t + 4);
		t += 8;
	}
	if (st & PF_SAMPLE_TIME) {
		s->time = rd64(t);
		s->have_time = true;
		t += 8;
	}
	if (st & PF_SAMPLE_ID) {
		s->id = rd64(t);
		t += 8;
	}
	if (st & PF_SAMPLE_STREAM_ID)
		t += 8;
	if (st & PF_SAMPLE_CPU) {
		s->cpu = rd32(t);
		t += 8;
	}
	if (st & PF_SAMPLE_IDENTIFIER)
		s->id = rd64(t);
	return 0;
}

/* ---- header, attrs, features ---------------------------------------- */

static const char *const feat_names[] = {
	"RESERVED", "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE",
	"VERSION", "ARCH", "NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM",
	"CMDLINE", "EVENT_DESC", "CPU_TOPOLOGY", "NUMA_TOPOLOGY",
	"BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE", "STAT",
	"CACHE", "SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID", "DIR_FORMAT",
	"BPF_PROG_INFO", "BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS",
	"CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS",
};

/* A perf_header_string at @off within [off, end): a copy, or NULL. */
static char *fstring(struct perf *p, uint64_t *off, uint64_t end)
{
	uint32_t n;

	if (*off + 4 > end)
		return NULL;
	n = rd32(p->buf + *off);
	if (n > end - *off - 4)
		return NULL;
	*off += 4;
	*off += n;
	return strndup((const char *)p->buf + *off - n, n);
}

static int parse_cpuid(struct perf *p, const char *s)
{
	unsigned int f, m, st = 0;
	char vendor[16];

	/* x86: "GenuineIntel,6,85,4" (vendor, family, model, stepping). */
	if (sscanf(s, "%15[^,],%u,%u,%u", vendor, &f, &m, &st) < 3)
		return 0;
	memset(&p->cpu, 0, sizeof(p->cpu));
	snprintf(p->cpu.vendor, sizeof(p->cpu.vendor), "%s", vendor);
	p->cpu.family = f;
	p->cpu.model = m;
	p->cpu.stepping = st;
	p->have_cpu = true;
	return 0;
}

static int parse_build_ids(struct perf *p, uint64_t off, uint64_t end)
{
	size_t cap = 0;

	while (off + sizeof(struct pf_build_id) <= end) {
		struct pf_build_id e;
		struct bid *b;
		size_t nlen;

		memcpy(&e, p->buf + off, sizeof(e));
		if (e.hdr.size < sizeof(e) || e.hdr.size > end - off)
			return perr(p, off,
				    "HEADER_BUILD_ID entry of %u bytes does not fit its section",
				    e.hdr.size);
		if (grow(&p->bids, p->nbids, &cap, sizeof(*p->bids)))
			return -1;
		b = &p->bids[p->nbids];
		b->len = 20;
		if ((e.hdr.misc & PF_MISC_BUILD_ID_SIZE) && e.build_id[20] &&
		    e.build_id[20] <= 20)
			b->len = e.build_id[20];
		memcpy(b->id, e.build_id, 20);
		nlen = strnlen((const char *)p->buf + off + sizeof(e),
			       e.hdr.size - sizeof(e));
		b->path = strndup((const char *)p->buf + off + sizeof(e), nlen);
		if (!b->path)
			return -1;
		p->nbids++;
		off += e.hdr.size;
	}
	return 0;
}

/* The contents of feature @bit, in [off, end) of the file. */
static int parse_feature(struct perf *p, unsigned int bit, uint64_t off,
			 uint64_t end)
{
	switch (bit) {
	case PF_FEAT_CPUID: {
		char *str = fstring(p, &off, end);

		if (str)
			parse_cpuid(p, str);
		free(str);
		break;
	}
	case PF_FEAT_NRCPUS:
		if (end - off >= 8)
			p->nr_cpus = rd32(p->buf + off);
		break;
	case PF_FEAT_CMDLINE: {
		uint64_t start = off;
		uint32_t n, i;

		if (end - off < 4 || p->cmdline)
			break;
		n = rd32(p->buf + off);
		off += 4;
		if (n > (end - start) / 4)
			return perr(p, start,
				    "CMDLINE: %u strings cannot fit in %llu bytes",
				    n, (unsigned long long)(end - start));
		p->cmdline = calloc(n + 1, sizeof(char *));
		if (!p->cmdline)
			return -1;
		for (i = 0; i < n; i++) {
			char *str = fstring(p, &off, end);

			if (!str)
				break;
			p->cmdline[p->ncmdline++] = str;
		}
		break;
	}
	case PF_FEAT_BUILD_ID:
		return parse_build_ids(p, off, end);
	default:
		break;
	}
	return 0;
}

static int parse_features(struct perf *p)
{
	uint64_t soff = p->h.data.offset + p->h.data.size;
	unsigned int bit;

	for (bit = 0; bit < 256; bit++) {
		struct pf_section s;

		if (!(p->h.features[bit / 64] & (1ull << (bit % 64))))
			continue;
		if (!in_file(p, soff, sizeof(s)))
			return perr(p, soff,
				    "truncated feature table (feature bit %u)",
				    bit);
		memcpy(&s, p->buf + soff, sizeof(s));
		soff += sizeof(s);
		if (bit > PF_FEAT_LAST_KNOWN) {
			warn(p, "unknown header feature bit %u (section at offset %llu, %llu bytes): ignored",
			     bit, (unsigned long long)s.offset,
			     (unsigned long long)s.size);
			continue;
		}
		if (!in_file(p, s.offset, s.size))
			return perr(p, soff - sizeof(s),
				    "feature %s: section at offset %llu, %llu bytes, lies beyond the file's %zu bytes",
				    feat_names[bit],
				    (unsigned long long)s.offset,
				    (unsigned long long)s.size, p->len);
		if (parse_feature(p, bit, s.offset, s.offset + s.size))
			return -1;
	}
	return 0;
}

static int parse_attrs(struct perf *p)
{
	uint64_t n, i, off = p->h.attrs.offset;

	if (p->h.attr_size < PF_ATTR_SIZE_VER0 + sizeof(struct pf_section) ||
	    p->h.attr_size > 4096)
		return perr(p, 16, "attr_size %llu is not a perf_event_attr",
			    (unsigned long long)p->h.attr_size);
	if (!in_file(p, p->h.attrs.offset, p->h.attrs.size))
		return perr(p, 24,
			    "attrs section (offset %llu, %llu bytes) lies beyond the file's %zu bytes",
			    (unsigned long long)p->h.attrs.offset,
			    (unsigned long long)p->h.attrs.size, p->len);
	n = p->h.attrs.size / p->h.attr_size;
	if (!n)
		return perr(p, 24, "no event attributes");
	p->attr = calloc(n, sizeof(*p->attr));
	p->sample_type = calloc(n, sizeof(*p->sample_type));
	p->ids = calloc(n, sizeof(*p->ids));
	p->nids = calloc(n, sizeof(*p->nids));
	if (!p->attr || !p->sample_type || !p->ids || !p->nids)
		return -1;
	p->nattr = n;
	for (i = 0; i < n; i++, off += p->h.attr_size) {
		struct pf_section ids;
		struct pf_attr *a = &p->attr[i];

		memcpy(a, p->buf + off, sizeof(*a));
		memcpy(&ids, p->buf + off + p->h.attr_size - sizeof(ids),
		       sizeof(ids));
		p->sample_type[i] = a->sample_type;
		if (!in_file(p, ids.offset, ids.size) || ids.size % 8)
			return perr(p, off + p->h.attr_size - sizeof(ids),
				    "attr %llu: ids (offset %llu, %llu bytes) lie beyond the file",
				    (unsigned long long)i,
				    (unsigned long long)ids.offset,
				    (unsigned long long)ids.size);
		/* Sections may overlap: bound the copies by the file. */
		if (ids.size > p->len - p->ids_bytes)
			return perr(p, off + p->h.attr_size - sizeof(ids),
				    "attr %llu: the attrs' ids sections add up to more than the file's %llu bytes",
				    (unsigned long long)i,
				    (unsigned long long)p->len);
		p->ids_bytes += ids.size;
		p->nids[i] = ids.size / 8;
		if (p->nids[i]) {
			p->ids[i] = malloc(ids.size);
			if (!p->ids[i])
				return -1;
			memcpy(p->ids[i], p->buf + ids.offset, ids.size);
		}
	}
	return 0;
}

/* ---- records ---------------------------------------------------------- */

static struct ev *new_ev(struct perf *p, uint16_t type, const struct sid *s)
{
	struct ev *e;

	if (grow(&p->ev, p->nev, &p->capev, sizeof(*p->ev)))
		return NULL;
	e = &p->ev[p->nev++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->seq = p->seq++;
	e->tsc = s ? to_tsc(p, s->time) : 0;
	if (s && !s->time)
		e->flags |= PTREC_SB_F_SNAPSHOT;
	e->pid = s ? s->pid : 0;
	e->tid = s ? s->tid : 0;
	return e;
}

static int add_sw(struct perf *p, size_t *cap, const struct sid *s,
		  uint32_t tid)
{
	struct sw *w;

	if (s->cpu == NONE)
		return 0;
	if (grow(&p->sw, p->nsw, cap, sizeof(*p->sw)))
		return -1;
	w = &p->sw[p->nsw++];
	w->tsc = to_tsc(p, s->time);
	w->seq = p->seq++;
	w->cpu = s->cpu;
	w->tid = tid ? tid : NONE;
	return 0;
}

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

static size_t u32map_slot(const struct u32map *m, uint32_t key)
{
	size_t i = ((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 32;

	for (i &= m->cap - 1; m->val[i] && m->key[i] != key;
	     i = (i + 1) & (m->cap - 1))
		;
	return i;
}

/* The index stored for @key, or SIZE_MAX. */
static size_t u32map_get(const struct u32map *m, uint32_t key)
{
	size_t i;

	if (!m->cap)
		return SIZE_MAX;
	i = u32map_slot(m, key);
	return m->val[i] ? m->val[i] - 1 : SIZE_MAX;
}

/* Stores @val for a @key not yet in the map.  Returns 0 or -1 (memory). */
static int u32map_put(struct u32map *m, uint32_t key, size_t val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct u32map big = { 0 };

		big.cap = m->cap ? 2 * m->cap : 64;
		big.key = malloc(big.cap * sizeof(*big.key));
		big.val = calloc(big.cap, sizeof(*big.val));
		if (!big.key || !big.val) {
			free(big.key);
			free(big.val);
			return -1;
		}
		for (i = 0; i < m->cap; i++)
			if (m->val[i]) {
				size_t j = u32map_slot(&big, m->key[i]);

				big.key[j] = m->key[i];
				big.val[j] = m->val[i];
			}
		big.n = m->n;
		free(m->key);
		free(m->val);
		*m = big;
	}
	i = u32map_slot(m, key);
	m->key[i] = key;
	m->val[i] = val + 1;
	m->n++;
	return 0;
}

static void u32map_free(struct u32map *m)
{
	free(m->key);
	free(m->val);
}

/*
 * The element of array *@vp (*@n elements of @size bytes) that @m maps
 * @key to, or a new zeroed one appended and mapped (*@fresh set).  NULL
 * when memory runs out.
 */
static void *find_or_add(void *vp, size_t *n, size_t *cap, size_t size,
			 struct u32map *m, uint32_t key, bool *fresh)
{
	char **v = vp;
	size_t i = u32map_get(m, key);

	*fresh = i == SIZE_MAX;
	if (!*fresh)
		return *v + i * size;
	if (grow(vp, *n, cap, size) || u32map_put(m, key, *n))
		return NULL;
	i = (*n)++;
	memset(*v + i * size, 0, size);
	return *v + i * size;
}

static struct auxbuf *get_buf(struct perf *p, size_t *cap, uint32_t idx)
{
	bool fresh;
	struct auxbuf *b = find_or_add(&p->ab, &p->nab, cap, sizeof(*p->ab),
				       p->abmap, idx, &fresh);

	if (b && fresh)
		b->idx = idx;
	return b;
}

/* An AUX record: the buffer it belongs to (by tid or cpu), or -1. */
static int aux_buf_of(const struct perf *p, const struct sid *s)
{
	size_t i;

	for (i = 0; i < p->nab; i++) {
		const struct auxbuf *b = &p->ab[i];

		if (b->cpu != NONE && b->cpu == s->cpu)
			return (int)i;
		if (b->cpu == NONE && b->tid != NONE && b->tid == s->tid)
			return (int)i;
	}
	return -1;
}

struct pending_aux {
	struct sid s;
	struct pf_aux a;
	uint64_t off;
};

static int parse_info(struct perf *p, const uint8_t *r, uint16_t size,
		      uint64_t off)
{
	struct pf_auxtrace_info ai;
	size_t n, i;

	if (size < 8 + sizeof(ai))
		return perr(p, off, "AUXTRACE_INFO record of %u bytes", size);
	memcpy(&ai, r + 8, sizeof(ai));
	if (ai.type != PF_AUXTRACE_INTEL_PT)
		return perr(p, off,
			    "AUXTRACE_INFO says the AUX area holds %s (type %u); only intel_pt is supported",
			    ai.type == PF_AUXTRACE_INTEL_BTS ? "intel_bts" :
			    "another tracer's data", ai.type);
	n = (size - 8 - sizeof(ai)) / 8;
	if (n <= PF_PT_PER_CPU_MMAPS)
		return perr(p, off,
			    "AUXTRACE_INFO for intel_pt holds %zu values, needs at least %d",
			    n, PF_PT_PER_CPU_MMAPS + 1);
	memset(p->priv, 0, sizeof(p->priv));
	for (i = 0; i < n && i < PF_PT_PRIV_MAX; i++)
		p->priv[i] = rd64(r + 16 + 8 * i);
	p->npriv = i;
	p->have_info = true;
	if (!p->have_time && p->priv[PF_PT_CAP_USER_TIME_ZERO] &&
	    p->priv[PF_PT_TIME_MULT] && p->priv[PF_PT_TIME_SHIFT] < 64) {
		p->time_shift = p->priv[PF_PT_TIME_SHIFT];
		p->time_mult = p->priv[PF_PT_TIME_MULT];
		p->time_zero = p->priv[PF_PT_TIME_ZERO];
		p->have_time = true;
	}
	return 0;
}

/*
 * The records that convert perf time to TSC come first in a perf.data
 * file, but nothing requires it: a first pass finds them.
 */
static int scan_time(struct perf *p)
{
	uint64_t off = p->h.data.offset, end = off + p->h.data.size;

	while (off + 8 <= end) {
		struct pf_rec_header h;
		uint64_t next;

		memcpy(&h, p->buf + off, sizeof(h));
		if (h.size < 8)
			break;
		next = off + h.size;
		if (next > end)
			break;
		if (h.type == PF_REC_TIME_CONV && h.size >= 8 + 24) {
			struct pf_time_conv tc;

			memset(&tc, 0, sizeof(tc));
			memcpy(&tc, p->buf + off + 8,
			       (size_t)h.size - 8 < sizeof(tc) ?
			       (size_t)h.size - 8 : sizeof(tc));
			if (tc.time_mult && tc.time_shift < 64) {
				p->time_shift = tc.time_shift;
				p->time_mult = tc.time_mult;
				p->time_zero = tc.time_zero;
				p->have_time = true;
			}
		} else if (h.type == PF_REC_AUXTRACE && h.size >= 8 + 40) {
			next += rd64(p->buf + off + 8);
			if (next < off)
				break;
		}
		off = next;
	}
	return 0;
}

static const char *str_of(const uint8_t *r, size_t from, size_t to)
{
	static char buf[4096];
	size_t n = to > from ? strnlen((const char *)r + from, to - from) : 0;

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, r + from, n);
	buf[n] = 0;
	return buf;
}

static int parse_mmap(struct perf *p, const uint8_t *r, uint16_t size,
		      const struct sid *s, uint64_t off)
{
	bool v2 = rd32(r) == PF_REC_MMAP2;
	uint16_t misc;
	size_t fixed = 8 + (v2 ? sizeof(struct pf_mmap2) :
			    sizeof(struct pf_mmap));
	struct ev *e;

	memcpy(&misc, r + 4, 2);
	if (size < fixed)
		return perr(p, off, "MMAP%s record of %u bytes, needs %zu",
			    v2 ? "2" : "", size, fixed);
	e = new_ev(p, PTREC_SB_MMAP, s);
	if (!e)
		return -1;
	if (v2) {
		struct pf_mmap2 m;

		memcpy(&m, r + 8, sizeof(m));
		e->pid = m.pid;
		e->tid = m.tid;
		e->start = m.addr;
		e->len = m.len;
		e->pgoff = m.pgoff;
		e->prot = m.prot;
		e->mflags = m.flags;
		if ((misc & PF_MISC_MMAP_BUILD_ID) && m.id[0] &&
		    m.id[0] <= 20) {
			e->bid_len = m.id[0];
			memcpy(e->bid, m.id + 4, e->bid_len);
		}
	} else {
		struct pf_mmap m;

		memcpy(&m, r + 8, sizeof(m));
		e->pid = m.pid;
		e->tid = m.tid;
		e->start = m.addr;
		e->len = m.len;
		e->pgoff = m.pgoff;
		e->prot = (misc & PF_MISC_MMAP_DATA) ?
			  PROT_READ | PROT_WRITE : PROT_READ | PROT_EXEC;
		e->mflags = MAP_PRIVATE;
	}
	e->str = strdup(str_of(r, fixed, size));
	return e->str ? 0 : -1;
}

/* Pipe mode: HEADER_ATTR is a perf_event_attr and the event's u64 ids. */
static int header_attr(struct perf *p, const uint8_t *r, uint16_t size,
		       uint64_t off)
{
	size_t n = p->nattr, cap = p->capattr;
	uint32_t asz;

	if (size < 8 + PF_ATTR_SIZE_VER0)
		return perr(p, off, "HEADER_ATTR record of %u bytes", size);
	asz = rd32(r + 8 + 4);
	if (asz < PF_ATTR_SIZE_VER0 || asz > size - 8u)
		return perr(p, off, "HEADER_ATTR: attr size %u in a record of %u bytes",
			    asz, size);
	if (n == cap) {
		size_t nc = cap ? cap * 2 : 4;
		void *a = realloc(p->attr, nc * sizeof(*p->attr));

		if (a)
			p->attr = a;
		a = a ? realloc(p->sample_type, nc * sizeof(uint64_t)) : NULL;
		if (a)
			p->sample_type = a;
		a = a ? realloc(p->ids, nc * sizeof(*p->ids)) : NULL;
		if (a)
			p->ids = a;
		a = a ? realloc(p->nids, nc * sizeof(size_t)) : NULL;
		if (!a)
			return -1;
		p->nids = a;
		p->capattr = nc;
	}
	memset(&p->attr[n], 0, sizeof(p->attr[n]));
	memcpy(&p->attr[n], r + 8,
	       asz < sizeof(p->attr[n]) ? asz : sizeof(p->attr[n]));
	p->sample_type[n] = p->attr[n].sample_type;
	p->nids[n] = (size - 8 - asz) / 8;
	p->ids[n] = NULL;
	if (p->nids[n]) {
		p->ids[n] = malloc(p->nids[n] * 8);
		if (!p->ids[n])
			return -1;
		memcpy(p->ids[n], r + 8 + asz, p->nids[n] * 8);
	}
	p->nattr++;
	return 0;
}

static int parse_record(struct perf *p, const uint8_t *r, uint64_t off,
			struct pf_rec_header h, size_t *capsw,
			struct pending_aux **pa, size_t *npa, size_t *cappa)
{
	struct sid s;
	struct ev *e;

	if (h.type < PF_REC_HEADER_ATTR && h.type != PF_REC_SAMPLE &&
	    parse_sid(p, r, h.size, 8, &s))
		return perr(p, off,
			    "record type %u of %u bytes is too short for its sample_id trailer",
			    h.type, h.size);
	switch (h.type) {
	case PF_REC_MMAP:
	case PF_REC_MMAP2:
		return parse_mmap(p, r, h.size, &s, off);
	case PF_REC_COMM: {
		struct pf_comm c;

		if (h.size < 8 + sizeof(c))
			return perr(p, off, "COMM record of %u bytes", h.size);
		memcpy(&c, r + 8, sizeof(c));
		if (h.misc & PF_MISC_COMM_EXEC) {
			e = new_ev(p, PTREC_SB_EXEC, &s);
			if (!e)
				return -1;
			e->pid = c.pid;
			e->tid = c.tid;
		}
		e = new_ev(p, PTREC_SB_COMM, &s);
		if (!e)
			return -1;
		e->pid = c.pid;
		e->tid = c.tid;
		e->str = strdup(str_of(r, 16, h.size));
		return e->str ? 0 : -1;
	}
	case PF_REC_FORK:
	case PF_REC_EXIT: {
		struct pf_fork f;

		if (h.size < 8 + sizeof(f))
			return perr(p, off, "%s record of %u bytes",
				    h.type == PF_REC_FORK ? "FORK" : "EXIT",
				    h.size);
		memcpy(&f, r + 8, sizeof(f));
		if (!s.have_time)
			s.time = f.time;
		e = new_ev(p, h.type == PF_REC_FORK ? PTREC_SB_THREAD_START :
			   PTREC_SB_THREAD_EXIT, &s);
		if (!e)
			return -1;
		e->flags &= ~PTREC_SB_F_SNAPSHOT;
		e->pid = f.pid;
		e->tid = f.tid;
		e->a = f.ppid;
		e->b = f.ptid;
		return 0;
	}
	case PF_REC_LOST:
	case PF_REC_LOST_SAMPLES: {
		uint64_t lost;

		if (h.size < (h.type == PF_REC_LOST ? 24 : 16))
			return perr(p, off, "LOST record of %u bytes", h.size);
		lost = rd64(r + 8 + (h.type == PF_REC_LOST ? 8 : 0));
		e = new_ev(p, PTREC_SB_LOST, &s);
		if (!e)
			return -1;
		e->tid = 0;
		e->a = PTREC_SB_LOST_SIDEBAND;
		e->bytes = lost;
		warn(p, "offset %llu: the kernel lost %llu %s",
		     (unsigned long long)off, (unsigned long long)lost,
		     h.type == PF_REC_LOST ? "sideband records" : "samples");
		return 0;
	}
	case PF_REC_AUX:
		if (h.size < 8 + sizeof(struct pf_aux))
			return perr(p, off, "AUX record of %u bytes", h.size);
		if (grow(pa, *npa, cappa, sizeof(**pa)))
			return -1;
		(*pa)[*npa].s = s;
		(*pa)[*npa].off = off;
		memcpy(&(*pa)[(*npa)++].a, r + 8, sizeof(struct pf_aux));
		return 0;
	case PF_REC_ITRACE_START: {
		struct pf_itrace_start it;

		if (h.size < 8 + sizeof(it))
			return perr(p, off, "ITRACE_START record of %u bytes",
				    h.size);
		memcpy(&it, r + 8, sizeof(it));
		return add_sw(p, capsw, &s, it.tid);
	}
	case PF_REC_SWITCH:
	case PF_REC_SWITCH_CPU_WIDE: {
		bool out = h.misc & PF_MISC_SWITCH_OUT;
		uint32_t next = NONE;

		if (h.type == PF_REC_SWITCH_CPU_WIDE) {
			if (h.size < 16)
				return perr(p, off,
					    "SWITCH_CPU_WIDE record of %u bytes",
					    h.size);
			if (out)
				next = rd32(r + 12);
		}
		if (s.tid == NONE)
			return 0;
		if (s.tid) {
			e = new_ev(p, out ? PTREC_SB_SWITCH_OUT :
				   PTREC_SB_SWITCH_IN, &s);
			if (!e)
				return -1;
			e->a = s.cpu == NONE ? 0 : s.cpu;
			if (out && (h.misc & PF_MISC_SWITCH_OUT_PREEMPT))
				e->flags |= PTREC_SB_F_PREEMPT;
		}
		return add_sw(p, capsw, &s, out ? next : s.tid);
	}
	case PF_REC_AUXTRACE_INFO:
		return parse_info(p, r, h.size, off);
	case PF_REC_HEADER_ATTR:
		return p->pipe ? header_attr(p, r, h.size, off) : 0;
	case PF_REC_HEADER_BUILD_ID:
		/* One entry of the BUILD_ID feature, header and all. */
		return parse_build_ids(p, off, off + h.size);
	case PF_REC_HEADER_FEATURE: {
		uint64_t bit;

		if (!p->pipe)
			return 0;
		if (h.size < 16)
			return perr(p, off, "HEADER_FEATURE record of %u bytes",
				    h.size);
		bit = rd64(r + 8);
		if (bit > PF_FEAT_LAST_KNOWN) {
			warn(p, "offset %llu: unknown header feature bit %llu (%u bytes): ignored",
			     (unsigned long long)off, (unsigned long long)bit,
			     h.size - 16);
			return 0;
		}
		return parse_feature(p, bit, off + 16, off + h.size);
	}
	case PF_REC_AUXTRACE_ERROR:
		warn(p, "offset %llu: perf recorded an AUXTRACE_ERROR (a decoder or driver error during recording)",
		     (unsigned long long)off);
		return 0;
	case PF_REC_COMPRESSED:
		return perr(p, off,
			    "compressed records (perf record -z) are not supported; record without -z");
	default:
		return 0;
	}
}

static int add_chunk(struct perf *p, const uint8_t *r, uint64_t off,
		     size_t *capab, uint64_t *next, uint64_t end)
{
	struct pf_auxtrace at;
	struct auxbuf *b;
	size_t cap;

	memcpy(&at, r + 8, sizeof(at));
	if (at.size > end - *next)
		return perr(p, off,
			    "AUXTRACE record's %llu bytes of trace data run past the data section's end (%llu bytes left)",
			    (unsigned long long)at.size,
			    (unsigned long long)(end - *next));
	b = get_buf(p, capab, at.idx);
	if (!b)
		return -1;
	if (!b->nc) {
		b->tid = at.tid == (uint32_t)-1 ? NONE : at.tid;
		b->cpu = at.cpu == (uint32_t)-1 ? NONE : at.cpu;
	}
	cap = b->nc;
	/* Doubling on powers of two: nc is the capacity's witness. */
	if (!(b->nc & (b->nc - 1)) || !b->nc) {
		struct chunk *nc = realloc(b->c, (b->nc ? b->nc * 2 : 1) *
					   sizeof(*nc));

		if (!nc)
			return -1;
		b->c = nc;
	}
	(void)cap;
	b->c[b->nc].foff = *next;
	b->c[b->nc].size = at.size;
	b->c[b->nc].offset = at.offset;
	b->c[b->nc].seq = p->seq++;
	b->nc++;
	p->aux_bytes += at.size;
	*next += at.size;
	return 0;
}

static int chunk_cmp(const void *x, const void *y)
{
	const struct chunk *a = x, *b = y;

	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int add_mark(struct perf *p, size_t *cap, uint32_t buf, uint64_t pos,
		    uint64_t bytes, uint64_t tsc, uint32_t reason)
{
	struct mark *m;

	if (grow(&p->mk, p->nmk, cap, sizeof(*p->mk)))
		return -1;
	m = &p->mk[p->nmk++];
	m->buf = buf;
	m->pos = pos;
	m->bytes = bytes;
	m->tsc = tsc;
	m->reason = reason;
	return 0;
}

/* Joins each buffer's chunks in AUX-offset order; gaps become marks. */
static int join_bufs(struct perf *p, size_t *capmk)
{
	size_t i, j;

	for (i = 0; i < p->nab; i++) {
		struct auxbuf *b = &p->ab[i];
		uint64_t want;

		xsort(b->c, b->nc, sizeof(*b->c), chunk_cmp);
		for (j = 0; j < b->nc; j++)
			b->len += b->c[j].size;
		b->data = malloc(b->len ? b->len : 1);
		if (!b->data)
			return -1;
		b->len = 0;
		b->first = b->nc ? b->c[0].offset : 0;
		want = b->first;
		for (j = 0; j < b->nc; j++) {
			const struct chunk *c = &b->c[j];
			uint64_t skip = 0;

			if (c->offset > want) {
				warn(p, "AUX buffer %u: %llu bytes missing before AUX offset %llu",
				     b->idx,
				     (unsigned long long)(c->offset - want),
				     (unsigned long long)c->offset);
				if (add_mark(p, capmk, i, b->len,
					     c->offset - want, 0,
					     PTREC_SB_LOST_READER))
					return -1;
			} else if (c->offset < want) {
				skip = want - c->offset;
				if (skip > c->size)
					skip = c->size;
			}
			memcpy(b->data + b->len, p->buf + c->foff + skip,
			       c->size - skip);
			b->len += c->size - skip;
			if (c->offset + c->size > want)
				want = c->offset + c->size;
		}
	}
	return 0;
}

/* Position in buffer @b's joined data of AUX offset @aoff. */
static uint64_t buf_pos(const struct auxbuf *b, uint64_t aoff)
{
	uint64_t pos = 0, want = b->first;
	size_t j;

	for (j = 0; j < b->nc; j++) {
		const struct chunk *c = &b->c[j];
		uint64_t s = c->offset < want ? want : c->offset;
		uint64_t e = c->offset + c->size;

		if (e <= want)
			continue;
		if (aoff < s)
			return pos;
		if (aoff < e)
			return pos + (aoff - s);
		pos += e - s;
		want = e;
	}
	return pos;
}

static int apply_aux(struct perf *p, const struct pending_aux *pa, size_t n,
		     size_t *capmk)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct pf_aux *a = &pa[i].a;
		uint32_t reason = 0;
		int bi;

		if (a->flags & PF_AUX_FLAG_TRUNCATED)
			reason = PTREC_SB_LOST_FULL;
		else if (a->flags & PF_AUX_FLAG_PARTIAL)
			reason = PTREC_SB_LOST_TRUNCATED;
		else if (a->flags & PF_AUX_FLAG_OVERWRITE &&
			 !(p->npriv > PF_PT_SNAPSHOT_MODE &&
			   p->priv[PF_PT_SNAPSHOT_MODE]))
			reason = PTREC_SB_LOST_WRAP;
		if (!reason)
			continue;
		bi = aux_buf_of(p, &pa[i].s);
		if (bi < 0) {
			warn(p, "offset %llu: AUX record (flags 0x%llx) for no AUX buffer of this file: ignored",
			     (unsigned long long)pa[i].off,
			     (unsigned long long)a->flags);
			continue;
		}
		warn(p, "offset %llu: the kernel flagged AUX data at AUX offset %llu as %s: the trace has a gap there",
		     (unsigned long long)pa[i].off,
		     (unsigned long long)(a->aux_offset + a->aux_size),
		     reason == PTREC_SB_LOST_FULL ? "truncated (buffer full)" :
		     reason == PTREC_SB_LOST_WRAP ? "overwritten" : "partial");
		if (add_mark(p, capmk, bi,
			     buf_pos(&p->ab[bi], a->aux_offset + a->aux_size),
			     0, to_tsc(p, pa[i].s.time), reason))
			return -1;
	}
	return 0;
}

/* Walks the data section.  Errors name the byte offset. */
static int parse_data(struct perf *p)
{
	uint64_t off = p->h.data.offset, end = off + p->h.data.size;
	size_t capsw = 0, capab = 0, capmk = 0, npa = 0, cappa = 0;
	struct pending_aux *pa = NULL;
	int ret = -1;

	scan_time(p);
	while (off < end) {
		struct pf_rec_header h;
		const uint8_t *r = p->buf + off;
		uint64_t next;

		if (end - off < sizeof(h)) {
			perr(p, off, "truncated record header (%llu of 8 bytes)",
			     (unsigned long long)(end - off));
			goto out;
		}
		memcpy(&h, r, sizeof(h));
		if (h.size < sizeof(h)) {
			perr(p, off, "record type %u: size %u is below the 8-byte header",
			     h.type, h.size);
			goto out;
		}
		if (h.size > end - off) {
			perr(p, off, "record type %u: size %u runs past the data section's end (%llu bytes left)",
			     h.type, h.size, (unsigned long long)(end - off));
			goto out;
		}
		next = off + h.size;
		if (h.type == PF_REC_AUXTRACE) {
			if (h.size < 8 + sizeof(struct pf_auxtrace)) {
				perr(p, off, "AUXTRACE record of %u bytes, needs 48",
				     h.size);
				goto out;
			}
			if (add_chunk(p, r, off, &capab, &next, end))
				goto out;
		} else if (parse_record(p, r, off, h, &capsw, &pa,
					&npa, &cappa)) {
			goto out;
		}
		off = next;
	}
	if (join_bufs(p, &capmk) || apply_aux(p, pa, npa, &capmk))
		goto out;
	ret = 0;
out:
	free(pa);
	return ret;
}

static int parse_header(struct perf *p)
{
	uint64_t magic;

	if (p->len < 8)
		return perr(p, 0, "%zu bytes: too short for a perf.data header; not a perf.data file",
			    p->len);
	magic = rd64(p->buf);
	if (magic == PF_MAGIC_SWAPPED)
		return perr(p, 0, "a big-endian perf.data file; only little-endian files are supported");
	if (magic != PF_MAGIC)
		return perr(p, 0, "bad magic (not PERFILE2); not a perf.data file");
	if (p->len >= 16 && rd64(p->buf + 8) == sizeof(struct pf_pipe_header)) {
		/* Pipe mode: records follow; attrs and features are some. */
		p->pipe = true;
		p->h.magic = magic;
		p->h.size = 16;
		p->h.data.offset = 16;
		p->h.data.size = p->len - 16;
		return 0;
	}
	if (p->len < sizeof(p->h))
		return perr(p, 0, "truncated header (%zu of %zu bytes)",
			    p->len, sizeof(p->h));
	memcpy(&p->h, p->buf, sizeof(p->h));
	if (p->h.size < sizeof(p->h) || p->h.size > p->len)
		return perr(p, 8, "header size %llu (expected %zu)",
			    (unsigned long long)p->h.size, sizeof(p->h));
	if (!in_file(p, p->h.data.offset, p->h.data.size))
		return perr(p, 40,
			    "data section (offset %llu, %llu bytes) lies beyond the file's %zu bytes (truncated file?)",
			    (unsigned long long)p->h.data.offset,
			    (unsigned long long)p->h.data.size, p->len);
	return 0;
}

/* Parse the whole file into @p.  Returns 0 or -1 (message printed). */
static int perf_parse(struct perf *p)
{
	size_t i;

	if (parse_header(p) ||
	    (!p->pipe && (parse_attrs(p) || parse_features(p))) ||
	    parse_data(p))
		return -1;
	if (!p->nattr)
		return perr(p, 16, "no HEADER_ATTR record: a pipe-mode file without event attributes");
	if (!p->have_info)
		return perr(p, p->h.data.offset,
			    "no AUXTRACE_INFO record: not recorded with the intel_pt PMU (perf record -e intel_pt//)");
	p->pt_attr = -1;
	for (i = 0; i < p->nattr; i++)
		if (p->attr[i].type == p->priv[PF_PT_PMU_TYPE])
			p->pt_attr = (int)i;
	if (p->pt_attr < 0)
		return perr(p, p->h.attrs.offset,
			    "none of the %zu events is the intel_pt PMU (type %llu named by AUXTRACE_INFO)",
			    p->nattr,
			    (unsigned long long)p->priv[PF_PT_PMU_TYPE]);
	if (!p->aux_bytes)
		return perr(p, p->h.data.offset,
			    "no AUX data (no AUXTRACE record with trace bytes): nothing to import");
	if (!p->have_time)
		warn(p, "no TSC conversion (TIME_CONV, or cap_user_time_zero in AUXTRACE_INFO): sideband times are perf's, not TSC, and may not line up with the trace");
	p->per_cpu = p->priv[PF_PT_PER_CPU_MMAPS] != 0;
	for (i = 0; i < p->nab; i++)
		if (p->ab[i].cpu != NONE && p->ab[i].tid == NONE)
			p->per_cpu = true;
	return 0;
}

/* ---- splitting AUX buffers into thread streams ------------------------ */

/*
 * A place a piece of a per-cpu buffer can start: a PSB, or (@enable) the
 * first packet after a TIP.PGD, where tracing was off and comes back on
 * with TIP.PGE (Linux stops and starts a per-task trace at every context
 * switch, SDM Vol. 3C 33.2.7.3: no PSB unless the byte count was 0).  A
 * decoder cannot start at the latter: the importer gives it a PSB+ there
 * and the IPs that follow in full, from @last_ip (the IP compression
 * state of the CPU's stream at that point).
 */
struct psb {
	uint64_t off, tsc, last_ip;
	bool have_tsc, enable;
};

static uint64_t ip_update(uint64_t last, const struct pt_packet_ip *ip)
{
	/* SDM Vol. 3C 33.4.2.2: which bytes of the last IP are replaced. */
	switch (ip->ipc) {
	case pt_ipc_update_16:
		return (last & ~0xffffull) | (ip->ip & 0xffff);
	case pt_ipc_update_32:
		return (last & ~0xffffffffull) | (ip->ip & 0xffffffff);
	case pt_ipc_update_48:
		return (last & ~0xffffffffffffull) |
		       (ip->ip & 0xffffffffffffull);
	case pt_ipc_sext_48:
		return (ip->ip & 0x800000000000ull) ?
		       ip->ip | 0xffff000000000000ull :
		       ip->ip & 0xffffffffffffull;
	case pt_ipc_full:
		return ip->ip;
	default:
		return last;
	}
}

static bool is_ip_packet(enum pt_packet_type t)
{
	return t == ppt_fup || t == ppt_tip || t == ppt_tip_pge ||
	       t == ppt_tip_pgd;
}

static int add_cand(struct psb **out, size_t *n, size_t *cap, uint64_t off,
		    uint64_t tsc, bool have, uint64_t last_ip, bool enable)
{
	if (grow(out, *n, cap, sizeof(**out)))
		return -1;
	(*out)[*n].off = off;
	(*out)[*n].tsc = tsc;
	(*out)[*n].have_tsc = have;
	(*out)[*n].last_ip = last_ip;
	(*out)[(*n)++].enable = enable;
	return 0;
}

/*
 * The places a buffer can be cut (struct psb), each with the TSC of its
 * PSB+ or of the re-enable (lacking one, the last TSC before it); @tscs
 * receives every TSC packet.
 */
static int scan_psbs(const uint8_t *buf, size_t len, struct psb **out,
		     size_t *n, struct psb **tscs, size_t *ntscs)
{
	struct pt_packet_decoder *d;
	size_t cap = 0, capt = 0;
	struct pt_config cfg;
	struct pt_packet pkt;
	uint64_t off, last = 0, ip = 0;
	bool have = false, in_psb = false, synced = false;
	bool after_pgd = false, want_tsc = false;
	int ret;

	*out = *tscs = NULL;
	*n = *ntscs = 0;
	if (!len)
		return 0;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d)
		return -1;
	ret = pt_pkt_sync_forward(d);
	while (ret >= 0) {
		pt_pkt_get_offset(d, &off);
		ret = pt_pkt_next(d, &pkt, sizeof(pkt));
		if (ret == -pte_eos)
			break;
		if (ret < 0) {
			/* Lost the packet boundaries: wait for a PSB. */
			in_psb = synced = after_pgd = want_tsc = false;
			ret = pt_pkt_sync_forward(d);
			continue;
		}
		if (pkt.type == ppt_psb) {
			if (add_cand(out, n, &cap, off, last, have, 0, false))
				goto fail;
			in_psb = synced = want_tsc = true;
			after_pgd = false;
			ip = 0;
			continue;
		}
		if (after_pgd && !in_psb && pkt.type != ppt_pad) {
			if (add_cand(out, n, &cap, off, last, have, ip, true))
				goto fail;
			after_pgd = false;
			want_tsc = true;
		}
		if (pkt.type == ppt_psbend) {
			in_psb = false;
		} else if (pkt.type == ppt_tsc) {
			last = pkt.payload.tsc.tsc;
			have = true;
			if (want_tsc && *n) {
				(*out)[*n - 1].tsc = last;
				(*out)[*n - 1].have_tsc = true;
				want_tsc = false;
			}
			if (grow(tscs, *ntscs, &capt, sizeof(**tscs)))
				goto fail;
			(*tscs)[*ntscs].off = off;
			(*tscs)[(*ntscs)++].tsc = last;
		} else if (is_ip_packet(pkt.type)) {
			ip = ip_update(ip, &pkt.payload.ip);
			if (pkt.type == ppt_tip_pgd && synced && !in_psb)
				after_pgd = true;
			if (pkt.type == ppt_tip_pge)
				want_tsc = false;
		}
	}
	pt_pkt_free_decoder(d);
	return 0;
fail:
	pt_pkt_free_decoder(d);
	return -1;
}

static int sw_cmp(const void *x, const void *y)
{
	const struct sw *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->tsc != b->tsc)
		return a->tsc < b->tsc ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Index of the first switch on @cpu with TSC above @tsc (binary search). */
static size_t sw_after(const struct perf *p, uint32_t cpu, uint64_t tsc)
{
	size_t lo = 0, hi = p->nsw;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sw *w = &p->sw[mid];

		if (w->cpu < cpu || (w->cpu == cpu && w->tsc <= tsc))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The thread running on @cpu at @tsc: the last switch at or before it. */
static uint32_t owner_at(const struct perf *p, uint32_t cpu, uint64_t tsc)
{
	size_t i = sw_after(p, cpu, tsc);

	return i && p->sw[i - 1].cpu == cpu ? p->sw[i - 1].tid : NONE;
}

/*
 * The thread a piece starting at @tsc belongs to: the one switched in
 * last; when the last switch took the CPU away from every traced thread,
 * the next one switched in (Linux enables a per-task trace before it
 * writes the SWITCH record of the switch-in).
 */
static uint32_t owner_of_piece(const struct perf *p, uint32_t cpu,
			       uint64_t tsc)
{
	size_t i = sw_after(p, cpu, tsc);

	if (i && p->sw[i - 1].cpu == cpu && p->sw[i - 1].tid != NONE)
		return p->sw[i - 1].tid;
	if (i < p->nsw && p->sw[i].cpu == cpu)
		return p->sw[i].tid;
	return NONE;
}

/* First switch on @cpu after @from and before @to, or NULL. */
static const struct sw *switch_within(const struct perf *p, uint32_t cpu,
				      uint64_t from, uint64_t to)
{
	size_t i = sw_after(p, cpu, from);

	return i < p->nsw && p->sw[i].cpu == cpu && p->sw[i].tsc < to ?
	       &p->sw[i] : NULL;
}

static int add_piece(struct piece **v, size_t *n, size_t *cap, uint32_t buf,
		     uint32_t tid, uint64_t start, uint64_t end, uint64_t tsc,
		     bool lost)
{
	struct piece *pc;

	if (start >= end)
		return 0;
	if (grow(v, *n, cap, sizeof(**v)))
		return -1;
	pc = &(*v)[(*n)++];
	pc->buf = buf;
	pc->tid = tid;
	pc->start = start;
	pc->end = end;
	pc->tsc = tsc;
	pc->seq = *n;
	pc->lost = lost;
	pc->resync = false;
	pc->last_ip = 0;
	return 0;
}

/* The value of the TSC packet at @off (one exists: cuts are made there). */
static uint64_t ts_at(const struct psb *ts, size_t nt, uint64_t off)
{
	size_t i;

	for (i = 0; i < nt; i++)
		if (ts[i].off == off)
			return ts[i].tsc;
	return 0;
}

/*
 * A per-cpu buffer: PSB to PSB pieces, each given to the thread running at
 * the PSB's TSC.  A switch to another thread inside a piece cuts it at the
 * first TSC packet at or after the switch; the rest, up to the next PSB,
 * has no sync point for the new thread and is lost to it.
 */
static int split_cpu(struct perf *p, uint32_t bi, struct piece **v,
		     size_t *n, size_t *cap, uint64_t *dropped)
{
	const struct auxbuf *b = &p->ab[bi];
	struct psb *ps, *ts;
	size_t np, nt, i, k = 0;
	int ret = -1;

	if (scan_psbs(b->data, b->len, &ps, &np, &ts, &nt))
		return -1;
	if (!np) {
		warn(p, "CPU %u: %zu bytes of trace without a PSB packet: dropped",
		     b->cpu, b->len);
		*dropped += b->len;
		ret = 0;
		goto out;
	}
	if (!nt)
		warn(p, "CPU %u: the trace has no TSC packets, so it cannot be split by time; it goes to the first thread switched in",
		     b->cpu);
	*dropped += ps[0].off;
	for (i = 0; i < np; i++) {
		if (!ps[i].have_tsc && i)
			ps[i].tsc = ps[i - 1].tsc;
		uint64_t start = ps[i].off;
		uint64_t end = i + 1 < np ? ps[i + 1].off : b->len;
		uint64_t t0 = ps[i].tsc, t1 = UINT64_MAX, cut = end;
		uint32_t tid = nt ? owner_of_piece(p, b->cpu, t0) :
			       (p->nsw ? owner_at(p, b->cpu, UINT64_MAX) : b->tid);
		const struct sw *w;

		if (!nt && p->nsw) {
			/* No time: the first thread switched in. */
			size_t j;

			for (j = 0; j < p->nsw; j++)
				if (p->sw[j].cpu == b->cpu &&
				    p->sw[j].tid != NONE) {
					tid = p->sw[j].tid;
					break;
				}
		}
		if (i + 1 < np && ps[i + 1].have_tsc)
			t1 = ps[i + 1].tsc;
		w = nt ? switch_within(p, b->cpu, t0, t1) : NULL;
		if (w) {
			/* The first TSC packet of this piece at or after it. */
			while (k < nt && ts[k].off < start)
				k++;
			for (size_t j = k; j < nt && ts[j].off < end; j++)
				if (ts[j].tsc >= w->tsc) {
					cut = ts[j].off;
					break;
				}
		}
		if (tid == NONE) {
			*dropped += cut - start;
		} else if (*n && (*v)[*n - 1].buf == bi &&
			   (*v)[*n - 1].tid == tid && (*v)[*n - 1].end == start &&
			   !(*v)[*n - 1].lost) {
			/* The same thread goes on: one piece. */
			(*v)[*n - 1].end = cut;
		} else {
			if (add_piece(v, n, cap, bi, tid, start, cut, t0, false))
				goto out;
			(*v)[*n - 1].resync = ps[i].enable;
			(*v)[*n - 1].last_ip = ps[i].last_ip;
		}
		if (cut < end) {
			uint32_t who = owner_at(p, b->cpu, ts_at(ts, nt, cut));

			if (who != NONE && who != tid) {
				if (add_piece(v, n, cap, bi, who, cut, end,
					      w->tsc, true))
					goto out;
			} else {
				*dropped += end - cut;
			}
		}
	}
	ret = 0;
out:
	free(ps);
	free(ts);
	return ret;
}

static int piece_cmp(const void *x, const void *y)
{
	const struct piece *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->tsc != b->tsc)
		return a->tsc < b->tsc ? -1 : 1;
	if (a->buf != b->buf)
		return a->buf < b->buf ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

static struct thr *get_thr(struct perf *p, size_t *cap, uint32_t tid)
{
	bool fresh;
	struct thr *t = find_or_add(&p->th, &p->nth, cap, sizeof(*p->th),
				    p->thmap, tid, &fresh);

	if (t && fresh)
		t->tid = t->pid = tid;
	return t;
}

static int lost_ev(struct perf *p, uint32_t tid, uint64_t off, uint64_t bytes,
		   uint64_t tsc, uint32_t reason)
{
	struct ev *e = new_ev(p, PTREC_SB_LOST, NULL);

	if (!e)
		return -1;
	e->tsc = tsc;
	e->tid = tid;
	e->a = reason;
	e->bytes = bytes;
	e->offset = off;
	return 0;
}

static int thr_put(struct thr *t, const uint8_t *d, size_t n)
{
	if (!n)
		return 0;
	if (t->len + n > t->cap) {
		size_t nc = t->cap ? t->cap : 4096;
		uint8_t *nd;

		while (nc < t->len + n)
			nc *= 2;
		nd = realloc(t->data, nc);
		if (!nd)
			return -1;
		t->data = nd;
		t->cap = nc;
	}
	memcpy(t->data + t->len, d, n);
	t->len += n;
	return 0;
}

/*
 * Appends a piece to its thread's stream.  Where the kernel says data was
 * lost inside it, an OVF packet (SDM Vol. 3C 33.4.2.16: packets were
 * lost) goes in first, so the decoder does not join the packets on either
 * side of the hole, and a LOST record names the OVF's stream offset.
 */
static int put_packet(struct thr *t, const struct pt_packet *pkt)
{
	uint8_t tmp[32];
	struct pt_encoder *e;
	struct pt_config cfg;
	int n;

	pt_config_init(&cfg);
	cfg.begin = tmp;
	cfg.end = tmp + sizeof(tmp);
	e = pt_alloc_encoder(&cfg);
	if (!e)
		return -1;
	n = pt_enc_next(e, pkt);
	pt_free_encoder(e);
	return n < 0 ? -1 : thr_put(t, tmp, n);
}

static const uint8_t ovf_bytes[2] = { 0x02, 0xf3 };

/*
 * A piece that starts where tracing was re-enabled: a PSB+ (PSB, TSC,
 * PSBEND, SDM Vol. 3C 33.3.7) gives the decoder a place to start, and
 * every IP packet is re-encoded in full (sign-extended 48 bits or 64),
 * since the decoder restarts IP compression from zero at a PSB.  Marks
 * inside it get their OVF at the packet boundary at or after them.
 */
static int copy_resync(struct perf *p, struct thr *t, const struct piece *pc,
		       const struct auxbuf *b)
{
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet pkt;
	uint64_t off, ip = pc->last_ip;
	size_t j = 0;
	int ret = -1;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_psb;
	if (put_packet(t, &pkt))
		return -1;
	pkt.type = ppt_tsc;
	pkt.payload.tsc.tsc = pc->tsc & ((1ull << 56) - 1);
	if (put_packet(t, &pkt))
		return -1;
	pkt.type = ppt_psbend;
	if (put_packet(t, &pkt))
		return -1;
	pt_config_init(&cfg);
	cfg.begin = b->data;
	cfg.end = b->data + pc->end;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d || pt_pkt_sync_set(d, pc->start) < 0)
		goto out;
	for (off = pc->start; off < pc->end; ) {
		for (; j < p->nmk; j++) {
			const struct mark *m = &p->mk[j];

			if (m->buf != pc->buf || m->pos < pc->start)
				continue;
			if (m->pos > off)
				break;
			if (lost_ev(p, t->tid, t->len, m->bytes, m->tsc,
				    m->reason) ||
			    thr_put(t, ovf_bytes, sizeof(ovf_bytes)))
				goto out;
		}
		if (pt_pkt_next(d, &pkt, sizeof(pkt)) < 0) {
			/* Not a packet: the bytes as they are. */
			if (thr_put(t, b->data + off, pc->end - off))
				goto out;
			break;
		}
		if (pkt.type == ppt_psb)
			ip = 0;
		if (is_ip_packet(pkt.type) &&
		    pkt.payload.ip.ipc != pt_ipc_suppressed) {
			ip = ip_update(ip, &pkt.payload.ip);
			pkt.payload.ip.ip = ip;
			pkt.payload.ip.ipc =
				((int64_t)(ip << 16) >> 16) == (int64_t)ip ?
				pt_ipc_sext_48 : pt_ipc_full;
		}
		if (put_packet(t, &pkt))
			goto out;
		pt_pkt_get_offset(d, &off);
	}
	/* A loss at the very end of the buffer: the end of the history. */
	for (; j < p->nmk && pc->end == b->len; j++) {
		const struct mark *m = &p->mk[j];

		if (m->buf == pc->buf && m->pos == b->len &&
		    lost_ev(p, t->tid, t->len, m->bytes, m->tsc, m->reason))
			goto out;
	}
	ret = 0;
out:
	if (d)
		pt_pkt_free_decoder(d);
	return ret;
}

static int copy_piece(struct perf *p, struct thr *t, const struct piece *pc,
		      const struct auxbuf *b)
{
	uint64_t at = pc->start;
	size_t j;

	if (pc->resync)
		return copy_resync(p, t, pc, b);

	for (j = 0; j < p->nmk; j++) {
		const struct mark *m = &p->mk[j];

		if (m->buf != pc->buf || m->pos < at || m->pos > pc->end ||
		    (m->pos == pc->end && pc->end != b->len))
			continue;
		if (thr_put(t, b->data + at, m->pos - at))
			return -1;
		at = m->pos;
		if (lost_ev(p, t->tid, t->len, m->bytes, m->tsc, m->reason))
			return -1;
		if (m->pos < b->len &&
		    thr_put(t, ovf_bytes, sizeof(ovf_bytes)))
			return -1;
	}
	return thr_put(t, b->data + at, pc->end - at);
}

static int mark_cmp(const void *x, const void *y)
{
	const struct mark *a = x, *b = y;

	if (a->buf != b->buf)
		return a->buf < b->buf ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Builds p->th: one stream per thread, and LOST events. */
static int perf_split(struct perf *p)
{
	struct piece *v = NULL;
	size_t n = 0, cap = 0, capth = 0, i, j;
	uint64_t dropped = 0;
	int ret = -1;

	xsort(p->sw, p->nsw, sizeof(*p->sw), sw_cmp);
	xsort(p->mk, p->nmk, sizeof(*p->mk), mark_cmp);
	for (i = 0; i < p->nab; i++) {
		const struct auxbuf *b = &p->ab[i];

		if (!b->len)
			continue;
		if (p->per_cpu && b->cpu != NONE) {
			if (split_cpu(p, i, &v, &n, &cap, &dropped))
				goto out;
		} else if (b->tid == NONE) {
			warn(p, "AUX buffer %u names neither a thread nor a CPU: its %zu bytes are dropped",
			     b->idx, b->len);
			dropped += b->len;
		} else if (add_piece(&v, &n, &cap, i, b->tid, 0, b->len, 0,
				     false)) {
			goto out;
		}
	}
	if (dropped)
		warn(p, "%llu bytes of AUX data belong to no traced thread (before the first PSB, or while another task ran): dropped",
		     (unsigned long long)dropped);
	xsort(v, n, sizeof(*v), piece_cmp);
	for (i = 0; i < n; i++) {
		const struct piece *pc = &v[i];
		const struct auxbuf *b = &p->ab[pc->buf];
		struct thr *t = get_thr(p, &capth, pc->tid);
		uint64_t sz = pc->end - pc->start;

		if (!t)
			goto out;
		if (pc->lost) {
			if (lost_ev(p, t->tid, t->len, sz, pc->tsc,
				    PTREC_SB_LOST_TRUNCATED))
				goto out;
			continue;
		}
		if (copy_piece(p, t, pc, b))
			goto out;
	}
	/* Each thread's process, from any record naming both. */
	for (i = 0; i < p->nth; i++)
		for (j = 0; j < p->nev; j++)
			if (p->ev[j].tid == p->th[i].tid && p->ev[j].pid &&
			    p->ev[j].pid != NONE &&
			    p->ev[j].type != PTREC_SB_LOST) {
				p->th[i].pid = p->ev[j].pid;
				break;
			}
	ret = 0;
out:
	free(v);
	return ret;
}

/* ---- writing the bundle ----------------------------------------------- */

static int ev_cmp(const void *x, const void *y)
{
	const struct ev *a = x, *b = y;

	if (a->tsc != b->tsc)
		return a->tsc < b->tsc ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

struct imgcache {
	char *path;
	char key[SB_IMAGE_KEY_MAX];
	bool none;
};

static void hex(char *out, const uint8_t *id, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

static const struct bid *bid_of(const struct perf *p, const struct ev *e)
{
	static struct bid tmp;
	size_t i;

	if (e->bid_len) {
		tmp.len = e->bid_len;
		memcpy(tmp.id, e->bid, e->bid_len);
		return &tmp;
	}
	for (i = 0; i < p->nbids; i++)
		if (e->str && !strcmp(p->bids[i].path, e->str))
			return &p->bids[i];
	return NULL;
}

/*
 * The file to store for a mapping: the build-id cache first (what perf
 * itself reads), then the recorded path.  Returns 0 with *key set, 1 when
 * there is no image (a warning was printed), -1 on error.
 */
static int image_for(struct perf *p, struct sb_bundle *b, const struct ev *e,
		     struct imgcache **cache, size_t *ncache, const char **key)
{
	const char *dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char hx[41], path[4200], base[4000], want[SB_IMAGE_KEY_MAX];
	const struct bid *bi = bid_of(p, e);
	struct imgcache *c, *nc;
	struct sb_err err;
	struct stat st;
	size_t i;

	for (i = 0; i < *ncache; i++)
		if (!strcmp((*cache)[i].path, e->str)) {
			*key = (*cache)[i].key;
			return (*cache)[i].none ? 1 : 0;
		}
	nc = realloc(*cache, (*ncache + 1) * sizeof(**cache));
	if (!nc)
		return -1;
	*cache = nc;
	c = &nc[*ncache];
	memset(c, 0, sizeof(*c));
	c->path = strdup(e->str);
	if (!c->path)
		return -1;
	(*ncache)++;
	*key = c->key;
	path[0] = 0;
	if (dir && *dir)
		snprintf(base, sizeof(base), "%s", dir);
	else
		snprintf(base, sizeof(base), "%s/.debug", home ? home : "");
	if (bi) {
		hex(hx, bi->id, bi->len);
		snprintf(want, sizeof(want), "buildid-%s", hx);
		snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/elf", base,
			 hx, hx + 2);
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s",
				 base, hx, hx + 2);
			if (stat(path, &st) || !S_ISREG(st.st_mode))
				path[0] = 0;
		}
	}
	if (!path[0] && p->symfs && e->str[0] == '/') {
		snprintf(path, sizeof(path), "%s%s", p->symfs, e->str);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			path[0] = 0;
	}
	if (!path[0] && e->str[0] == '/' && !stat(e->str, &st) &&
	    S_ISREG(st.st_mode))
		snprintf(path, sizeof(path), "%s", e->str);
	if (!path[0]) {
		c->none = true;
		if (bi)
			warn(p, "%s: no image: neither in the build-id cache (%s/.build-id/%.2s/%s) nor at the recorded path; its code is missing",
			     e->str, base, hx, hx + 2);
		else
			warn(p, "%s: no image at the recorded path and no build-id to look up; its code is missing",
			     e->str);
		return 1;
	}
	if (sb_bundle_add_image_file(b, path, c->key, sizeof(c->key), &err)) {
		warn(p, "%s: %s", e->str, err.msg);
		c->none = true;
		return 1;
	}
	if (bi && strcmp(c->key, want))
		warn(p, "%s: its build-id differs from the recorded %s: a different file (the trace may not match)",
		     path, hx);
	return 0;
}

static int write_ev(struct perf *p, struct sb_bundle *b, struct sb_writer *w,
		    const struct ev *e, struct imgcache **cache,
		    size_t *ncache)
{
	union {
		struct ptrec_sb_header h;
		struct ptrec_sb_mmap mm;
		struct ptrec_sb_exec ex;
		struct ptrec_sb_comm co;
		struct ptrec_sb_switch sw;
		struct ptrec_sb_thread_start ts;
		struct ptrec_sb_thread_exit te;
		struct ptrec_sb_process_exit pe;
		struct ptrec_sb_lost lo;
	} r;
	const char *key = NULL;
	struct sb_err err;
	int ret;

	memset(&r, 0, sizeof(r));
	r.h.type = e->type;
	r.h.flags = e->flags;
	r.h.time = e->tsc;
	switch (e->type) {
	case PTREC_SB_MMAP:
		r.mm.pid = e->pid;
		r.mm.tid = e->tid;
		r.mm.start = e->start;
		r.mm.len = e->len;
		r.mm.pgoff = e->pgoff;
		r.mm.prot = e->prot;
		r.mm.mflags = e->mflags;
		if ((e->prot & PROT_EXEC) && e->str[0] &&
		    strcmp(e->str, "//anon") &&
		    (e->str[0] == '/' || !strcmp(e->str, "[vdso]"))) {
			ret = image_for(p, b, e, cache, ncache, &key);
			if (ret < 0)
				return -1;
			if (ret)
				key = NULL;
		}
		ret = sb_writer_add_mmap(w, &r.mm, key, e->str, &err);
		break;
	case PTREC_SB_EXEC:
		r.ex.pid = e->pid;
		r.ex.tid = e->tid;
		ret = sb_writer_add_exec(w, &r.ex, e->str ? e->str : "", &err);
		break;
	case PTREC_SB_COMM:
		r.co.pid = e->pid;
		r.co.tid = e->tid;
		snprintf((char *)r.co.comm, sizeof(r.co.comm), "%s", e->str);
		ret = sb_writer_add(w, &r.h, &err);
		break;
	case PTREC_SB_SWITCH_IN:
	case PTREC_SB_SWITCH_OUT:
		r.sw.pid = e->pid;
		r.sw.tid = e->tid;
		r.sw.cpu = e->a;
		ret = sb_writer_add(w, &r.h, &err);
		break;
	case PTREC_SB_THREAD_START:
		r.ts.pid = e->pid;
		r.ts.tid = e->tid;
		r.ts.parent_pid = e->a;
		r.ts.parent_tid = e->b;
		ret = sb_writer_add(w, &r.h, &err);
		break;
	case PTREC_SB_THREAD_EXIT:
		r.te.pid = e->pid;
		r.te.tid = e->tid;
		ret = sb_writer_add(w, &r.h, &err);
		break;
	case PTREC_SB_PROCESS_EXIT:
		r.pe.pid = e->pid;
		r.pe.kind = PTREC_SB_EXITED;
		ret = sb_writer_add(w, &r.h, &err);
		break;
	case PTREC_SB_LOST:
		r.lo.tid = e->tid;
		r.lo.reason = e->a;
		r.lo.bytes = e->bytes;
		r.lo.offset = e->offset;
		ret = sb_writer_add(w, &r.h, &err);
		break;
	default:
		return 0;
	}
	if (ret)
		fprintf(stderr, CMD ": %s\n", err.msg);
	return ret ? -1 : 0;
}

struct live {
	uint32_t pid;
	uint32_t n;
};

static struct live *live_of(struct live **v, size_t *n, uint32_t pid)
{
	struct live *nv;
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].pid == pid)
			return &(*v)[i];
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	*v = nv;
	nv[*n].pid = pid;
	nv[*n].n = 1;		/* the leader */
	return &nv[(*n)++];
}

/* PROCESS_EXIT after the exit of the last thread of a process. */
static int count_exits(struct perf *p, size_t n)
{
	struct live *v = NULL, *l;
	size_t nv = 0, i;
	int ret = -1;

	for (i = 0; i < n; i++) {
		const struct ev *e = &p->ev[i];
		struct ev *x;

		if (e->type != PTREC_SB_THREAD_START &&
		    e->type != PTREC_SB_THREAD_EXIT)
			continue;
		l = live_of(&v, &nv, e->pid);
		if (!l)
			goto out;
		if (e->type == PTREC_SB_THREAD_START) {
			if (e->pid == e->a && e->tid != e->pid)
				l->n++;
			continue;
		}
		if (!l->n || --l->n)
			continue;
		x = new_ev(p, PTREC_SB_PROCESS_EXIT, NULL);
		if (!x)
			goto out;
		x->tsc = p->ev[i].tsc;
		x->pid = p->ev[i].pid;
	}
	ret = 0;
out:
	free(v);
	return ret;
}

/*
 * EXEC records take the path of the process's next executable mapping
 * (perf's COMM_EXEC has only the new name); PROCESS_EXIT follows the exit
 * of the last thread perf saw in a process.
 */
/* Events by pid, then by their order in the sorted stream. */
static int pid_order(const void *a, const void *b, void *arg)
{
	const struct ev *v = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (v[x].pid != v[y].pid)
		return v[x].pid < v[y].pid ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int finish_events(struct perf *p)
{
	size_t k, n = p->nev, *ix;
	const char *next = "";

	xsort(p->ev, p->nev, sizeof(*p->ev), ev_cmp);
	/*
	 * An EXEC's path is that of its process's next executable file
	 * mapping.  One backward pass over each process's events finds it
	 * (scanning forward from every EXEC took quadratic time on a file
	 * of many COMM-with-EXEC records: review).
	 */
	ix = malloc((n + 1) * sizeof(*ix));
	if (!ix)
		return -1;
	for (k = 0; k < n; k++)
		ix[k] = k;
	qsort_r(ix, n, sizeof(*ix), pid_order, p->ev);
	for (k = n; k-- > 0;) {
		struct ev *e = &p->ev[ix[k]];

		if (k + 1 == n || p->ev[ix[k + 1]].pid != e->pid)
			next = "";
		if (e->type == PTREC_SB_MMAP && (e->prot & PROT_EXEC) &&
		    e->str && e->str[0] == '/') {
			next = e->str;
		} else if (e->type == PTREC_SB_EXEC) {
			e->str = strdup(next);
			if (!e->str) {
				free(ix);
				return -1;
			}
		}
	}
	free(ix);
	if (count_exits(p, n))
		return -1;
	xsort(p->ev, p->nev, sizeof(*p->ev), ev_cmp);
	return 0;
}

static void set_pt_config(struct perf *p, struct sb_manifest *m)
{
	const struct pf_attr *a = &p->attr[p->pt_attr];
	uint64_t cfg = a->config;
	uint32_t f = 0;
	unsigned int tsc = PF_PT_CFG_TSC, noret = PF_PT_CFG_NORETCOMP;
	unsigned int mtc = PF_PT_CFG_MTC, cyc = PF_PT_CFG_CYC;
	unsigned int mtcp = PF_PT_CFG_MTC_PERIOD;

	if (p->priv[PF_PT_TSC_BIT] && p->priv[PF_PT_TSC_BIT] < 64)
		tsc = p->priv[PF_PT_TSC_BIT];
	if (p->priv[PF_PT_NORETCOMP_BIT] && p->priv[PF_PT_NORETCOMP_BIT] < 64)
		noret = p->priv[PF_PT_NORETCOMP_BIT];
	if (p->npriv > PF_PT_MTC_BIT && p->priv[PF_PT_MTC_BIT] &&
	    p->priv[PF_PT_MTC_BIT] < 64)
		mtc = p->priv[PF_PT_MTC_BIT];
	if (p->npriv > PF_PT_MTC_FREQ_BITS && p->priv[PF_PT_MTC_FREQ_BITS] &&
	    p->priv[PF_PT_MTC_FREQ_BITS] < 61)
		mtcp = p->priv[PF_PT_MTC_FREQ_BITS];
	if (p->npriv > PF_PT_CYC_BIT && p->priv[PF_PT_CYC_BIT] &&
	    p->priv[PF_PT_CYC_BIT] < 64)
		cyc = p->priv[PF_PT_CYC_BIT];
	if (!(a->flags & PF_ATTR_EXCLUDE_USER))
		f |= SB_PT_USER;
	if (!(a->flags & PF_ATTR_EXCLUDE_KERNEL))
		f |= SB_PT_KERNEL;
	/* branch defaults to on; the bit is only ever written as 1. */
	if (cfg & (1ull << PF_PT_CFG_BRANCH) || !(cfg >> 1))
		f |= SB_PT_BRANCH;
	if (cfg & (1ull << tsc))
		f |= SB_PT_TSC;
	if (cfg & (1ull << mtc))
		f |= SB_PT_MTC;
	if (cfg & (1ull << cyc))
		f |= SB_PT_CYC;
	if (!(cfg & (1ull << noret)))
		f |= SB_PT_RET_COMPRESSION;
	if (cfg & (1ull << PF_PT_CFG_PTW))
		f |= SB_PT_PTWRITE;
	if (cfg & (1ull << PF_PT_CFG_PWR_EVT))
		f |= SB_PT_PWR_EVT;
	m->pt.emulated = false;
	m->pt.features = f | p->features;
	m->pt.mtc_freq = (cfg >> mtcp) & 0xf;
	m->pt.cyc_thresh = (cfg >> PF_PT_CFG_CYC_THRESH) & 0xf;
	m->pt.psb_period = 1ull << (((cfg >> PF_PT_CFG_PSB_PERIOD) & 0xf) + 11);
	if (p->npriv > PF_PT_MAX_NONTURBO_RATIO)
		m->pt.nom_freq = p->priv[PF_PT_MAX_NONTURBO_RATIO];
	if (p->npriv > PF_PT_TSC_CTC_D) {
		m->pt.cpuid_15_eax = p->priv[PF_PT_TSC_CTC_D];
		m->pt.cpuid_15_ebx = p->priv[PF_PT_TSC_CTC_N];
	}
}

static int write_stream(struct perf *p, struct sb_bundle *b, struct thr *t)
{
	const struct sb_thread *th;
	struct import_scan scan;
	char dst[4096];
	FILE *f;

	if (sb_bundle_add_thread(b, t->pid, t->tid, false, &th) ||
	    sb_bundle_path(b, th->pt, dst, sizeof(dst)) < 0) {
		fprintf(stderr, CMD ": thread %u: cannot add it to the bundle\n",
			t->tid);
		return -1;
	}
	f = fopen(dst, "wb");
	if (!f || (t->len && fwrite(t->data, 1, t->len, f) != t->len) |
	    fclose(f)) {
		fprintf(stderr, CMD ": %s: %s\n", dst, strerror(errno));
		return -1;
	}
	if (import_stream_scan(t->data, t->len, &scan))
		return -1;
	p->features |= scan.features & (SB_PT_PTWRITE | SB_PT_PWR_EVT);
	if (!scan.npsb)
		warn(p, "thread %u: its %zu bytes of trace hold no PSB packet: nothing of it can be decoded",
		     t->tid, t->len);
	if (scan.cut != UINT64_MAX) {
		warn(p, "thread %u: the trace ends inside a packet at stream offset %llu: its last %llu bytes are lost",
		     t->tid, (unsigned long long)scan.cut,
		     (unsigned long long)(t->len - scan.cut));
		return 1;
	}
	return 0;
}

static int add_processes(struct perf *p, struct sb_manifest *m)
{
	size_t i, j;

	for (i = 0; i < p->nth; i++) {
		uint32_t pid = p->th[i].pid;
		struct sb_process *pr;

		for (j = 0; j < m->nprocs; j++)
			if (m->procs[j].pid == pid)
				break;
		if (j < m->nprocs)
			continue;
		pr = sb_manifest_add_process(m);
		if (!pr)
			return -1;
		pr->pid = pid;
		for (j = 0; j < p->nev; j++) {
			const struct ev *e = &p->ev[j];

			if (e->type == PTREC_SB_THREAD_START && e->tid == pid &&
			    e->a != pid)
				pr->ppid = e->a;
			if (!pr->exe && e->type == PTREC_SB_MMAP &&
			    e->pid == pid && (e->prot & PROT_EXEC) &&
			    e->str[0] == '/') {
				pr->exe = strdup(e->str);
				if (!pr->exe)
					return -1;
			}
		}
	}
	return 0;
}

static int perf_write(struct perf *p, const char *out, int argc, char **argv)
{
	struct imgcache *cache = NULL;
	struct ptrec_sb_time tm;
	struct sb_manifest *m;
	struct sb_bundle *b;
	struct sb_writer *w;
	struct sb_err err;
	size_t ncache = 0, i;
	bool *cut;
	int ret;

	if (sb_bundle_create(&b, out, &err)) {
		fprintf(stderr, CMD ": -o %s: %s\n", out, err.msg);
		return -1;
	}
	ret = -1;
	cut = calloc(p->nth + 1, sizeof(*cut));
	if (!cut)
		goto out;
	if (finish_events(p))
		goto out;
	if (sb_bundle_open_sideband(b, &w, &err)) {
		fprintf(stderr, CMD ": %s\n", err.msg);
		goto out;
	}
	m = sb_bundle_manifest(b);
	memset(&tm, 0, sizeof(tm));
	tm.hdr.type = PTREC_SB_TIME;
	if (p->have_time) {
		tm.time_shift = p->time_shift;
		tm.time_mult = p->time_mult;
		tm.time_zero = p->time_zero;
		tm.tsc_hz = (uint64_t)(((unsigned __int128)1000000000
					<< p->time_shift) / p->time_mult);
		m->time.time_shift = tm.time_shift;
		m->time.time_mult = tm.time_mult;
		m->time.time_zero = tm.time_zero;
		m->time.tsc_hz = tm.tsc_hz;
		if (sb_writer_add(w, &tm.hdr, &err)) {
			fprintf(stderr, CMD ": %s\n", err.msg);
			goto out;
		}
	}
	for (i = 0; i < p->nth; i++) {
		int r = write_stream(p, b, &p->th[i]);

		if (r < 0)
			goto out;
		cut[i] = r;
	}
	for (i = 0; i < p->nev; i++)
		if (write_ev(p, b, w, &p->ev[i], &cache, &ncache))
			goto out;
	/* Streams cut inside a packet: LOST at the end of the history. */
	for (i = 0; i < p->nth; i++) {
		struct import_scan scan;
		struct ptrec_sb_lost lost;

		if (!cut[i] || import_stream_scan(p->th[i].data, p->th[i].len,
						  &scan))
			continue;
		memset(&lost, 0, sizeof(lost));
		lost.hdr.type = PTREC_SB_LOST;
		lost.hdr.time = p->nev ? p->ev[p->nev - 1].tsc : 0;
		if (scan.last_tsc > lost.hdr.time)
			lost.hdr.time = scan.last_tsc;
		lost.tid = p->th[i].tid;
		lost.reason = PTREC_SB_LOST_TRUNCATED;
		lost.bytes = p->th[i].len - scan.cut;
		lost.offset = scan.cut;
		if (sb_writer_add(w, &lost.hdr, &err)) {
			fprintf(stderr, CMD ": %s\n", err.msg);
			goto out;
		}
	}
	if (add_processes(p, m))
		goto out;
	free(m->backend);
	m->backend = strdup("import-perf");
	if (p->have_cpu)
		m->cpu = p->cpu;
	set_pt_config(p, m);
	/* command: the traced program's argv is not in perf.data; the
	 * perf command line (CMDLINE) is, and the import's own.
	 */
	ret = m->backend ? import_set_argv(m, argc, argv) : -ENOMEM;
	if (ret) {
		ret = -1;
		goto out;
	}
	ret = sb_bundle_finish(b, &err);
	if (ret) {
		fprintf(stderr, CMD ": %s\n", err.msg);
		ret = -1;
	}
out:
	for (i = 0; i < ncache; i++)
		free(cache[i].path);
	free(cache);
	free(cut);
	sb_bundle_free(b);
	return ret;
}

/* ---- entry points ------------------------------------------------------ */

static void perf_free(struct perf *p)
{
	size_t i;

	for (i = 0; i < p->nattr; i++)
		free(p->ids[i]);
	free(p->ididx->v);
	u32map_free(p->abmap);
	u32map_free(p->thmap);
	free(p->attr);
	free(p->sample_type);
	free(p->ids);
	free(p->nids);
	for (i = 0; i < p->ncmdline; i++)
		free(p->cmdline[i]);
	free(p->cmdline);
	for (i = 0; i < p->nbids; i++)
		free(p->bids[i].path);
	free(p->bids);
	for (i = 0; i < p->nev; i++)
		free(p->ev[i].str);
	free(p->ev);
	for (i = 0; i < p->nab; i++) {
		free(p->ab[i].c);
		free(p->ab[i].data);
	}
	free(p->ab);
	free(p->mk);
	free(p->sw);
	for (i = 0; i < p->nth; i++)
		free(p->th[i].data);
	free(p->th);
}

int import_perf_parse_mem(const uint8_t *buf, size_t len, bool quiet,
			  size_t *nthreads, size_t *nevents)
{
	struct id_index ididx = { 0 };
	struct u32map abmap = { 0 }, thmap = { 0 };
	struct perf p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.ididx = &ididx;
	p.abmap = &abmap;
	p.thmap = &thmap;
	p.name = "perf.data";
	p.buf = buf;
	p.len = len;
	p.quiet = quiet;
	ret = perf_parse(&p) || perf_split(&p) || finish_events(&p) ? -1 : 0;
	if (nthreads)
		*nthreads = p.nth;
	if (nevents)
		*nevents = p.nev;
	perf_free(&p);
	return ret;
}

int import_perf(const char *out, const char *in, const char *symfs,
		int argc, char **argv)
{
	struct stat st;
	struct id_index ididx = { 0 };
	struct u32map abmap = { 0 }, thmap = { 0 };
	struct perf p;
	void *map = NULL;
	int fd, ret = 1;

	memset(&p, 0, sizeof(p));
	p.ididx = &ididx;
	p.abmap = &abmap;
	p.thmap = &thmap;
	p.name = in;
	p.symfs = symfs;
	fd = open(in, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, CMD ": %s: %s\n", in, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, CMD ": %s: not a regular file\n", in);
		close(fd);
		return 1;
	}
	p.len = st.st_size;
	if (p.len) {
		map = mmap(NULL, p.len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			fprintf(stderr, CMD ": %s: %s\n", in, strerror(errno));
			close(fd);
			return 1;
		}
		p.buf = map;
	} else {
		p.buf = (const uint8_t *)"";
	}
	close(fd);
	if (perf_parse(&p) || perf_split(&p)) {
		/* Every other failure there is an allocation's (review:
		 * it used to end with exit 1 and no word).
		 */
		if (!p.reported)
			fprintf(stderr, CMD ": %s: out of memory\n", in);
	} else {
		if (!p.nth)
			fprintf(stderr, CMD ": %s: no AUX data belongs to a known thread; nothing to import\n",
				in);
		else if (!perf_write(&p, out, argc, argv))
			ret = 0;
	}
	if (!ret)
		fprintf(stderr, CMD ": wrote %s (%zu thread%s, %s)\n", out,
			p.nth, p.nth == 1 ? "" : "s",
			p.per_cpu ? "per-cpu trace split by context switches" :
			"per-thread trace");
	perf_free(&p);
	if (map)
		munmap(map, p.len);
	return ret;
}
