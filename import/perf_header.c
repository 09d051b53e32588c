// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec import perf`, step 1a: the file header, the attrs and their sample
 * ids, the feature sections (cpuid, build ids, cmdline, nr_cpus), the
 * sample_id trailer of every record, and perf time to TSC.
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

#include "perf_internal.h"

/* ---- time ----------------------------------------------------------- */

/*
 * perf's time is tsc_to_perf_time(): zero + floor(tsc * mult / 2^shift)
 * (its quot/rem split computes exactly that, modulo 2^64).  The inverse
 * used here is the smallest TSC whose perf time is at least @t, so an
 * event never moves after the trace that follows it.  Time 0 is perf's
 * "synthesized before recording" and stays 0.
 */
uint64_t perf_to_tsc(const struct perf *p, uint64_t t)
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

static int trailer_size(uint64_t st)
{
	int n = 0;

	n += !!(st & PF_SAMPLE_TID) + !!(st & PF_SAMPLE_TIME) +
	     !!(st & PF_SAMPLE_ID) + !!(st & PF_SAMPLE_STREAM_ID) +
	     !!(st & PF_SAMPLE_CPU) + !!(st & PF_SAMPLE_IDENTIFIER);
	return n * 8;
}

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
int perf_parse_sid(const struct perf *p, const uint8_t *r, size_t size,
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

int perf_parse_build_ids(struct perf *p, uint64_t off, uint64_t end)
{
	size_t cap = 0;

	while (off + sizeof(struct pf_build_id) <= end) {
		struct pf_build_id e;
		struct bid *b;
		size_t nlen;

		memcpy(&e, p->buf + off, sizeof(e));
		if (e.hdr.size < sizeof(e) || e.hdr.size > end - off)
			return perf_err(p, off,
				    "HEADER_BUILD_ID entry of %u bytes does not fit its section",
				    e.hdr.size);
		if (perf_grow(&p->bids, p->nbids, &cap, sizeof(*p->bids)))
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
int perf_parse_feature(struct perf *p, unsigned int bit, uint64_t off,
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
			return perf_err(p, start,
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
		return perf_parse_build_ids(p, off, end);
	default:
		break;
	}
	return 0;
}

int perf_parse_features(struct perf *p)
{
	uint64_t soff = p->h.data.offset + p->h.data.size;
	unsigned int bit;

	for (bit = 0; bit < 256; bit++) {
		struct pf_section s;

		if (!(p->h.features[bit / 64] & (1ull << (bit % 64))))
			continue;
		if (!in_file(p, soff, sizeof(s)))
			return perf_err(p, soff,
				    "truncated feature table (feature bit %u)",
				    bit);
		memcpy(&s, p->buf + soff, sizeof(s));
		soff += sizeof(s);
		if (bit > PF_FEAT_LAST_KNOWN) {
			perf_warn(p, "unknown header feature bit %u (section at offset %llu, %llu bytes): ignored",
			     bit, (unsigned long long)s.offset,
			     (unsigned long long)s.size);
			continue;
		}
		if (!in_file(p, s.offset, s.size))
			return perf_err(p, soff - sizeof(s),
				    "feature %s: section at offset %llu, %llu bytes, lies beyond the file's %zu bytes",
				    feat_names[bit],
				    (unsigned long long)s.offset,
				    (unsigned long long)s.size, p->len);
		if (perf_parse_feature(p, bit, s.offset, s.offset + s.size))
			return -1;
	}
	return 0;
}

int perf_parse_attrs(struct perf *p)
{
	uint64_t n, i, off = p->h.attrs.offset;

	if (p->h.attr_size < PF_ATTR_SIZE_VER0 + sizeof(struct pf_section) ||
	    p->h.attr_size > 4096)
		return perf_err(p, 16, "attr_size %llu is not a perf_event_attr",
			    (unsigned long long)p->h.attr_size);
	if (!in_file(p, p->h.attrs.offset, p->h.attrs.size))
		return perf_err(p, 24,
			    "attrs section (offset %llu, %llu bytes) lies beyond the file's %zu bytes",
			    (unsigned long long)p->h.attrs.offset,
			    (unsigned long long)p->h.attrs.size, p->len);
	n = p->h.attrs.size / p->h.attr_size;
	if (!n)
		return perf_err(p, 24, "no event attributes");
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
			return perf_err(p, off + p->h.attr_size - sizeof(ids),
				    "attr %llu: ids (offset %llu, %llu bytes) lie beyond the file",
				    (unsigned long long)i,
				    (unsigned long long)ids.offset,
				    (unsigned long long)ids.size);
		/* Sections may overlap: bound the copies by the file. */
		if (ids.size > p->len - p->ids_bytes)
			return perf_err(p, off + p->h.attr_size - sizeof(ids),
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

