// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec import perf`, step 1b: perf_parse() walks the data section's
 * records, checking each size against the section before reading it, and
 * collects AUX data (AUXTRACE chunks joined per buffer), the records that
 * become sideband, and the context switches.
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

/* ---- records ---------------------------------------------------------- */

struct ev *perf_new_ev(struct perf *p, uint16_t type, const struct sid *s)
{
	struct ev *e;

	if (perf_grow(&p->ev, p->nev, &p->capev, sizeof(*p->ev)))
		return NULL;
	e = &p->ev[p->nev++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->seq = p->seq++;
	e->tsc = s ? perf_to_tsc(p, s->time) : 0;
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
	if (perf_grow(&p->sw, p->nsw, cap, sizeof(*p->sw)))
		return -1;
	w = &p->sw[p->nsw++];
	w->tsc = perf_to_tsc(p, s->time);
	w->seq = p->seq++;
	w->cpu = s->cpu;
	w->tid = tid ? tid : NONE;
	return 0;
}

static struct auxbuf *get_buf(struct perf *p, size_t *cap, uint32_t idx)
{
	bool fresh;
	struct auxbuf *b = u32map_find_or_add(&p->ab, &p->nab, cap, sizeof(*p->ab),
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
		return perf_err(p, off, "AUXTRACE_INFO record of %u bytes", size);
	memcpy(&ai, r + 8, sizeof(ai));
	if (ai.type != PF_AUXTRACE_INTEL_PT)
		return perf_err(p, off,
			    "AUXTRACE_INFO says the AUX area holds %s (type %u); only intel_pt is supported",
			    ai.type == PF_AUXTRACE_INTEL_BTS ? "intel_bts" :
			    "another tracer's data", ai.type);
	n = (size - 8 - sizeof(ai)) / 8;
	if (n <= PF_PT_PER_CPU_MMAPS)
		return perf_err(p, off,
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
		return perf_err(p, off, "MMAP%s record of %u bytes, needs %zu",
			    v2 ? "2" : "", size, fixed);
	e = perf_new_ev(p, PTREC_SB_MMAP, s);
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
		return perf_err(p, off, "HEADER_ATTR record of %u bytes", size);
	asz = rd32(r + 8 + 4);
	if (asz < PF_ATTR_SIZE_VER0 || asz > size - 8u)
		return perf_err(p, off, "HEADER_ATTR: attr size %u in a record of %u bytes",
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
	    perf_parse_sid(p, r, h.size, 8, &s))
		return perf_err(p, off,
			    "record type %u of %u bytes is too short for its sample_id trailer",
			    h.type, h.size);
	switch (h.type) {
	case PF_REC_MMAP:
	case PF_REC_MMAP2:
		return parse_mmap(p, r, h.size, &s, off);
	case PF_REC_COMM: {
		struct pf_comm c;

		if (h.size < 8 + sizeof(c))
			return perf_err(p, off, "COMM record of %u bytes", h.size);
		memcpy(&c, r + 8, sizeof(c));
		if (h.misc & PF_MISC_COMM_EXEC) {
			e = perf_new_ev(p, PTREC_SB_EXEC, &s);
			if (!e)
				return -1;
			e->pid = c.pid;
			e->tid = c.tid;
		}
		e = perf_new_ev(p, PTREC_SB_COMM, &s);
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
			return perf_err(p, off, "%s record of %u bytes",
				    h.type == PF_REC_FORK ? "FORK" : "EXIT",
				    h.size);
		memcpy(&f, r + 8, sizeof(f));
		if (!s.have_time)
			s.time = f.time;
		e = perf_new_ev(p, h.type == PF_REC_FORK ? PTREC_SB_THREAD_START :
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
			return perf_err(p, off, "LOST record of %u bytes", h.size);
		lost = rd64(r + 8 + (h.type == PF_REC_LOST ? 8 : 0));
		e = perf_new_ev(p, PTREC_SB_LOST, &s);
		if (!e)
			return -1;
		e->tid = 0;
		e->a = PTREC_SB_LOST_SIDEBAND;
		e->bytes = lost;
		perf_warn(p, "offset %llu: the kernel lost %llu %s",
		     (unsigned long long)off, (unsigned long long)lost,
		     h.type == PF_REC_LOST ? "sideband records" : "samples");
		return 0;
	}
	case PF_REC_AUX:
		if (h.size < 8 + sizeof(struct pf_aux))
			return perf_err(p, off, "AUX record of %u bytes", h.size);
		if (perf_grow(pa, *npa, cappa, sizeof(**pa)))
			return -1;
		(*pa)[*npa].s = s;
		(*pa)[*npa].off = off;
		memcpy(&(*pa)[(*npa)++].a, r + 8, sizeof(struct pf_aux));
		return 0;
	case PF_REC_ITRACE_START: {
		struct pf_itrace_start it;

		if (h.size < 8 + sizeof(it))
			return perf_err(p, off, "ITRACE_START record of %u bytes",
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
				return perf_err(p, off,
					    "SWITCH_CPU_WIDE record of %u bytes",
					    h.size);
			if (out)
				next = rd32(r + 12);
		}
		if (s.tid == NONE)
			return 0;
		if (s.tid) {
			e = perf_new_ev(p, out ? PTREC_SB_SWITCH_OUT :
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
		return perf_parse_build_ids(p, off, off + h.size);
	case PF_REC_HEADER_FEATURE: {
		uint64_t bit;

		if (!p->pipe)
			return 0;
		if (h.size < 16)
			return perf_err(p, off, "HEADER_FEATURE record of %u bytes",
				    h.size);
		bit = rd64(r + 8);
		if (bit > PF_FEAT_LAST_KNOWN) {
			perf_warn(p, "offset %llu: unknown header feature bit %llu (%u bytes): ignored",
			     (unsigned long long)off, (unsigned long long)bit,
			     h.size - 16);
			return 0;
		}
		return perf_parse_feature(p, bit, off + 16, off + h.size);
	}
	case PF_REC_AUXTRACE_ERROR:
		perf_warn(p, "offset %llu: perf recorded an AUXTRACE_ERROR (a decoder or driver error during recording)",
		     (unsigned long long)off);
		return 0;
	case PF_REC_COMPRESSED:
		return perf_err(p, off,
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
		return perf_err(p, off,
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

	if (perf_grow(&p->mk, p->nmk, cap, sizeof(*p->mk)))
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

		perf_sort(b->c, b->nc, sizeof(*b->c), chunk_cmp);
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
				perf_warn(p, "AUX buffer %u: %llu bytes missing before AUX offset %llu",
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
			perf_warn(p, "offset %llu: AUX record (flags 0x%llx) for no AUX buffer of this file: ignored",
			     (unsigned long long)pa[i].off,
			     (unsigned long long)a->flags);
			continue;
		}
		perf_warn(p, "offset %llu: the kernel flagged AUX data at AUX offset %llu as %s: the trace has a gap there",
		     (unsigned long long)pa[i].off,
		     (unsigned long long)(a->aux_offset + a->aux_size),
		     reason == PTREC_SB_LOST_FULL ? "truncated (buffer full)" :
		     reason == PTREC_SB_LOST_WRAP ? "overwritten" : "partial");
		if (add_mark(p, capmk, bi,
			     buf_pos(&p->ab[bi], a->aux_offset + a->aux_size),
			     0, perf_to_tsc(p, pa[i].s.time), reason))
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
			perf_err(p, off, "truncated record header (%llu of 8 bytes)",
			     (unsigned long long)(end - off));
			goto out;
		}
		memcpy(&h, r, sizeof(h));
		if (h.size < sizeof(h)) {
			perf_err(p, off, "record type %u: size %u is below the 8-byte header",
			     h.type, h.size);
			goto out;
		}
		if (h.size > end - off) {
			perf_err(p, off, "record type %u: size %u runs past the data section's end (%llu bytes left)",
			     h.type, h.size, (unsigned long long)(end - off));
			goto out;
		}
		next = off + h.size;
		if (h.type == PF_REC_AUXTRACE) {
			if (h.size < 8 + sizeof(struct pf_auxtrace)) {
				perf_err(p, off, "AUXTRACE record of %u bytes, needs 48",
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
		return perf_err(p, 0, "%zu bytes: too short for a perf.data header; not a perf.data file",
			    p->len);
	magic = rd64(p->buf);
	if (magic == PF_MAGIC_SWAPPED)
		return perf_err(p, 0, "a big-endian perf.data file; only little-endian files are supported");
	if (magic != PF_MAGIC)
		return perf_err(p, 0, "bad magic (not PERFILE2); not a perf.data file");
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
		return perf_err(p, 0, "truncated header (%zu of %zu bytes)",
			    p->len, sizeof(p->h));
	memcpy(&p->h, p->buf, sizeof(p->h));
	if (p->h.size < sizeof(p->h) || p->h.size > p->len)
		return perf_err(p, 8, "header size %llu (expected %zu)",
			    (unsigned long long)p->h.size, sizeof(p->h));
	if (!in_file(p, p->h.data.offset, p->h.data.size))
		return perf_err(p, 40,
			    "data section (offset %llu, %llu bytes) lies beyond the file's %zu bytes (truncated file?)",
			    (unsigned long long)p->h.data.offset,
			    (unsigned long long)p->h.data.size, p->len);
	return 0;
}

/* Parse the whole file into @p.  Returns 0 or -1 (message printed). */
int perf_parse(struct perf *p)
{
	size_t i;

	if (parse_header(p) ||
	    (!p->pipe && (perf_parse_attrs(p) || perf_parse_features(p))) ||
	    parse_data(p))
		return -1;
	if (!p->nattr)
		return perf_err(p, 16, "no HEADER_ATTR record: a pipe-mode file without event attributes");
	if (!p->have_info)
		return perf_err(p, p->h.data.offset,
			    "no AUXTRACE_INFO record: not recorded with the intel_pt PMU (perf record -e intel_pt//)");
	p->pt_attr = -1;
	for (i = 0; i < p->nattr; i++)
		if (p->attr[i].type == p->priv[PF_PT_PMU_TYPE])
			p->pt_attr = (int)i;
	if (p->pt_attr < 0)
		return perf_err(p, p->h.attrs.offset,
			    "none of the %zu events is the intel_pt PMU (type %llu named by AUXTRACE_INFO)",
			    p->nattr,
			    (unsigned long long)p->priv[PF_PT_PMU_TYPE]);
	if (!p->aux_bytes)
		return perf_err(p, p->h.data.offset,
			    "no AUX data (no AUXTRACE record with trace bytes): nothing to import");
	if (!p->have_time)
		perf_warn(p, "no TSC conversion (TIME_CONV, or cap_user_time_zero in AUXTRACE_INFO): sideband times are perf's, not TSC, and may not line up with the trace");
	p->per_cpu = p->priv[PF_PT_PER_CPU_MMAPS] != 0;
	for (i = 0; i < p->nab; i++)
		if (p->ab[i].cpu != NONE && p->ab[i].tid == NONE)
			p->per_cpu = true;
	return 0;
}

