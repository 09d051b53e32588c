// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Address spaces over time: every process's mappings rebuilt by applying
 * the sideband in order, and libipt images made from them with sections
 * from the session's image section cache (so libipt's block cache and
 * section reuse work, which a read-memory callback would disable).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rp_internal.h"

void rp_world_init(struct rp_world *w, struct rp_session *s)
{
	memset(w, 0, sizeof(*w));
	w->s = s;
	w->changed = true;
}

void rp_world_fini(struct rp_world *w)
{
	size_t i;

	for (i = 0; i < w->nas; i++)
		free(w->as[i].v);
	free(w->as);
	memset(w, 0, sizeof(*w));
}

static struct rp_aspace *as_get(struct rp_world *w, uint32_t pid)
{
	struct rp_aspace *as;
	size_t i;

	for (i = 0; i < w->nas; i++)
		if (w->as[i].pid == pid)
			return &w->as[i];
	as = realloc(w->as, (w->nas + 1) * sizeof(*as));
	if (!as)
		return NULL;
	w->as = as;
	as = &w->as[w->nas++];
	memset(as, 0, sizeof(*as));
	as->pid = pid;
	return as;
}

static int as_push(struct rp_aspace *as, const struct rp_map *mp)
{
	if (as->n == as->cap) {
		size_t cap = as->cap ? 2 * as->cap : 64;
		struct rp_map *v = realloc(as->v, cap * sizeof(*v));

		if (!v)
			return -RP_ERR_NOMEM;
		as->v = v;
		as->cap = cap;
	}
	as->v[as->n++] = *mp;
	return 0;
}

/* Removes [start, end), splitting mappings that straddle it. */
static int as_unmap(struct rp_aspace *as, uint64_t start, uint64_t end)
{
	size_t i, j, n = as->n;

	for (i = 0; i < n; i++) {
		struct rp_map *mp = &as->v[i];

		if (mp->end <= start || mp->start >= end)
			continue;
		if (mp->start < start && mp->end > end) {
			struct rp_map tail = *mp;

			tail.pgoff += end - mp->start;
			tail.start = end;
			mp->end = start;
			if (as_push(as, &tail))
				return -RP_ERR_NOMEM;
		} else if (mp->start < start) {
			mp->end = start;
		} else if (mp->end > end) {
			mp->pgoff += end - mp->start;
			mp->start = end;
		} else {
			mp->end = mp->start;	/* fully covered */
		}
	}
	for (i = j = 0; i < as->n; i++)
		if (as->v[i].end > as->v[i].start)
			as->v[j++] = as->v[i];
	as->n = j;
	return 0;
}

static int image_index(struct rp_session *s, const struct ptrec_sb_mmap *m)
{
	size_t i;

	if (!m->key_len || !(m->prot & PROT_EXEC))
		return -1;
	for (i = 0; i < s->nimages; i++)
		if (strlen(s->images[i].key) == m->key_len &&
		    !memcmp(s->images[i].key, sb_mmap_key(m), m->key_len))
			return (int)i;
	return -1;
}

static int apply(struct rp_world *w, const struct ptrec_sb_header *h)
{
	struct rp_aspace *as, *parent;

	switch (h->type) {
	case PTREC_SB_MMAP: {
		const struct ptrec_sb_mmap *m = (const void *)h;
		struct rp_map mp = { m->start, m->start + m->len, m->pgoff,
				     image_index(w->s, m) };

		as = as_get(w, m->pid);
		if (!as || as_unmap(as, mp.start, mp.end))
			return -RP_ERR_NOMEM;
		return as_push(as, &mp);
	}
	case PTREC_SB_MUNMAP: {
		const struct ptrec_sb_munmap *m = (const void *)h;

		as = as_get(w, m->pid);
		return as ? as_unmap(as, m->start, m->start + m->len) :
			    -RP_ERR_NOMEM;
	}
	case PTREC_SB_MPROTECT: {
		const struct ptrec_sb_mprotect *m = (const void *)h;
		size_t i;

		/* Code disappears without PROT_EXEC; the recorder sends a
		 * fresh MMAP when it appears.
		 */
		as = as_get(w, m->pid);
		if (!as)
			return -RP_ERR_NOMEM;
		if (!(m->prot & PROT_EXEC))
			for (i = 0; i < as->n; i++)
				if (as->v[i].start >= m->start &&
				    as->v[i].end <= m->start + m->len)
					as->v[i].image = -1;
		return 0;
	}
	case PTREC_SB_EXEC:
		as = as_get(w, ((const struct ptrec_sb_exec *)h)->pid);
		if (!as)
			return -RP_ERR_NOMEM;
		as->n = 0;
		return 0;
	case PTREC_SB_THREAD_START: {
		const struct ptrec_sb_thread_start *t = (const void *)h;
		size_t i;

		if (t->pid == t->parent_pid)
			return 0;
		/* fork: the child starts with a copy of its parent's. */
		parent = as_get(w, t->parent_pid);
		as = as_get(w, t->pid);
		if (!parent || !as)
			return -RP_ERR_NOMEM;
		parent = as_get(w, t->parent_pid);	/* as_get may move */
		as->n = 0;
		for (i = 0; i < parent->n; i++) {
			struct rp_map mp = parent->v[i];

			if (as_push(as, &mp))
				return -RP_ERR_NOMEM;
			parent = as_get(w, t->parent_pid);
		}
		return 0;
	}
	default:
		return 0;	/* no effect on address spaces */
	}
}

int rp_world_seek(struct rp_world *w, uint64_t next)
{
	int ret;

	while (w->next < next && w->next < w->s->nrecs) {
		ret = apply(w, w->s->recs[w->next++]);
		if (ret)
			return ret;
		w->changed = true;
	}
	return 0;
}

int rp_world_advance(struct rp_world *w, uint64_t tsc)
{
	int ret;

	while (w->next < w->s->nrecs && w->s->recs[w->next]->time <= tsc) {
		ret = apply(w, w->s->recs[w->next++]);
		if (ret)
			return ret;
		w->changed = true;
	}
	return 0;
}

static int map_cmp(const void *a, const void *b)
{
	const struct rp_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The image's sections: mappings of one file that touch both in memory
 * and in the file are one section.  A page dump lists each page on its
 * own (libxdc's kAFL traces: Unzip's 39 and mruby's 182 pages, one text
 * each), and libipt ends a block wherever a section ends and looks up
 * the next one: 262 more blocks and 291 more section lookups in Unzip's
 * index pass, and an image of 39 sections built for every range.  The
 * bytes at every address are the same.
 */
int rp_world_sections(struct rp_world *w, uint32_t pid, struct rp_map **vp,
		      size_t *np)
{
	struct rp_aspace *as = as_get(w, pid);
	struct rp_map *v;
	size_t i, k, n = 0;

	*vp = NULL;
	*np = 0;
	if (!as)
		return -RP_ERR_NOMEM;
	v = malloc((as->n ? as->n : 1) * sizeof(*v));
	if (!v)
		return -RP_ERR_NOMEM;
	for (i = 0; i < as->n; i++)
		if (as->v[i].image >= 0)
			v[n++] = as->v[i];
	qsort(v, n, sizeof(*v), map_cmp);
	for (i = k = 0; i < n; i++) {
		if (k && v[k - 1].end == v[i].start &&
		    v[k - 1].image == v[i].image &&
		    v[k - 1].pgoff + (v[k - 1].end - v[k - 1].start) ==
		    v[i].pgoff)
			v[k - 1].end = v[i].end;
		else
			v[k++] = v[i];
	}
	*vp = v;
	*np = k;
	return 0;
}

struct pt_image *rp_world_image(struct rp_world *w, uint32_t pid)
{
	struct pt_image_section_cache *isc = w->iscache ? w->iscache :
					     w->s->iscache;
	struct pt_image *image = pt_image_alloc(NULL);
	struct rp_map *v;
	size_t i, n;

	if (!image || rp_world_sections(w, pid, &v, &n)) {
		pt_image_free(image);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		/* The cache hands back the same section for the same file
		 * range, so rebuilding an image is cheap.
		 */
		int isid = pt_iscache_add_file(isc,
					       w->s->images[v[i].image].path,
					       v[i].pgoff, v[i].end - v[i].start,
					       v[i].start);

		if (isid < 0)
			continue;	/* beyond the file: no code bytes */
		pt_image_add_cached(image, isc, isid, NULL);
	}
	free(v);
	w->changed = false;
	return image;
}

const struct rp_map *rp_world_lookup(struct rp_world *w, uint32_t pid,
				     uint64_t ip)
{
	struct rp_aspace *as = as_get(w, pid);
	size_t i;

	for (i = 0; as && i < as->n; i++)
		if (ip >= as->v[i].start && ip < as->v[i].end)
			return &as->v[i];
	return NULL;
}
