// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Address spaces over time (replay/aspace.c) against a page model: every
 * sequence of MMAP, MUNMAP, MPROTECT, EXEC and fork (THREAD_START with a
 * new pid) is applied both to the engine's mapping lists and to a table
 * that says, page by page, which mapping covers it, with which image and
 * file offset; after every record each page's lookup must agree with the
 * table.  Fixed cases pin the rules one by one (a straddling unmap splits
 * a mapping and the tail keeps its file offset, a fork copies, an exec
 * empties, PROT_EXEC removed takes the code away, code needs PROT_EXEC and
 * a known image key), and time: advance applies records up to a TSC, seek
 * up to a count.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rp_internal.h"

#define PAGE	0x1000ull
#define BASE	0x400000ull
#define NPAGES	48
#define NPIDS	3
#define MAXRECS	512

static struct rp_image images[3] = {
	{ .key = "k0" }, { .key = "k1" }, { .key = "k2" },
};
static struct rp_session s;
static struct ptrec_sb_header *recs[MAXRECS];
static uint64_t now;

static void reset(void)
{
	for (size_t i = 0; i < s.nrecs; i++)
		free(recs[i]);
	memset(&s, 0, sizeof(s));
	s.images = images;
	s.nimages = 3;
	s.recs = recs;
	now = 0;
}

static void *rec(size_t size, uint16_t type)
{
	struct ptrec_sb_header *h;

	size = (size + 7) & ~(size_t)7;
	h = calloc(1, size);
	cr_assert(h && s.nrecs < MAXRECS);
	h->type = type;
	h->size = (uint32_t)size;
	h->time = now += 10;
	recs[s.nrecs++] = h;
	return h;
}

/* An MMAP of @n pages at page @p; @key NULL: anonymous. */
static void mmap_rec(uint32_t pid, int p, int n, uint64_t pgoff, uint32_t prot,
		     const char *key)
{
	size_t klen = key ? strlen(key) : 0;
	struct ptrec_sb_mmap *m = rec(sizeof(*m) + klen, PTREC_SB_MMAP);

	m->pid = m->tid = pid;
	m->start = BASE + (uint64_t)p * PAGE;
	m->len = (uint64_t)n * PAGE;
	m->pgoff = pgoff;
	m->prot = prot;
	m->key_len = (uint16_t)klen;
	if (klen)
		memcpy(m + 1, key, klen);
}

static void munmap_rec(uint32_t pid, int p, int n)
{
	struct ptrec_sb_munmap *m = rec(sizeof(*m), PTREC_SB_MUNMAP);

	m->pid = m->tid = pid;
	m->start = BASE + (uint64_t)p * PAGE;
	m->len = (uint64_t)n * PAGE;
}

static void mprotect_rec(uint32_t pid, int p, int n, uint32_t prot)
{
	struct ptrec_sb_mprotect *m = rec(sizeof(*m), PTREC_SB_MPROTECT);

	m->pid = m->tid = pid;
	m->start = BASE + (uint64_t)p * PAGE;
	m->len = (uint64_t)n * PAGE;
	m->prot = prot;
}

static void exec_rec(uint32_t pid)
{
	struct ptrec_sb_exec *e = rec(sizeof(*e), PTREC_SB_EXEC);

	e->pid = e->tid = pid;
}

static void fork_rec(uint32_t parent, uint32_t child)
{
	struct ptrec_sb_thread_start *t = rec(sizeof(*t),
					      PTREC_SB_THREAD_START);

	t->pid = t->tid = child;
	t->parent_pid = t->parent_tid = parent;
}

/* ---- the page model ------------------------------------------------------ */

struct model {
	int id[NPIDS][NPAGES];		/* mapping covering the page, 0: none */
	int img[NPIDS][NPAGES];		/* image index, -1: no code */
	uint64_t off[NPIDS][NPAGES];	/* file offset of the page */
	int next_id;
};

static void m_unmap(struct model *m, int pid, int p, int n)
{
	for (int q = 0; q < NPAGES; q++) {
		int id = m->id[pid][q], fresh;

		if (!id || q < p + n)
			continue;
		/* A mapping on both sides of the hole becomes two. */
		for (int r = 0; r < p; r++)
			if (m->id[pid][r] == id)
				goto split;
		continue;
split:
		fresh = ++m->next_id;
		for (int r = p + n; r < NPAGES; r++)
			if (m->id[pid][r] == id)
				m->id[pid][r] = fresh;
	}
	for (int q = p; q < p + n && q < NPAGES; q++)
		m->id[pid][q] = 0;
}

static int key_image(const char *key)
{
	for (int i = 0; key && i < 3; i++)
		if (!strcmp(images[i].key, key))
			return i;
	return -1;
}

static void m_mmap(struct model *m, int pid, int p, int n, uint64_t pgoff,
		   uint32_t prot, const char *key)
{
	int id = ++m->next_id;

	m_unmap(m, pid, p, n);
	for (int q = p; q < p + n; q++) {
		m->id[pid][q] = id;
		m->img[pid][q] = prot & PROT_EXEC ? key_image(key) : -1;
		m->off[pid][q] = pgoff + (uint64_t)(q - p) * PAGE;
	}
}

static void m_mprotect(struct model *m, int pid, int p, int n, uint32_t prot)
{
	if (prot & PROT_EXEC)
		return;
	/* Only mappings lying wholly inside the range lose their code. */
	for (int q = p; q < p + n; q++) {
		int id = m->id[pid][q];
		bool inside = id != 0;

		for (int r = 0; inside && r < NPAGES; r++)
			if (m->id[pid][r] == id && (r < p || r >= p + n))
				inside = false;
		if (inside)
			for (int r = p; r < p + n; r++)
				if (m->id[pid][r] == id)
					m->img[pid][r] = -1;
	}
}

static void check_model(struct rp_world *w, const struct model *m,
			const char *what)
{
	for (int pid = 0; pid < NPIDS; pid++)
		for (int q = 0; q < NPAGES; q++) {
			uint64_t ip = BASE + (uint64_t)q * PAGE + 0x123;
			const struct rp_map *mp = rp_world_lookup(w, pid, ip);

			if (!m->id[pid][q]) {
				cr_assert_null(mp, "%s: pid %d page %d mapped",
					       what, pid, q);
				continue;
			}
			cr_assert_not_null(mp, "%s: pid %d page %d unmapped",
					   what, pid, q);
			cr_assert(ip >= mp->start && ip < mp->end);
			cr_assert_eq(mp->image, m->img[pid][q],
				     "%s: pid %d page %d image %d, model %d",
				     what, pid, q, mp->image, m->img[pid][q]);
			cr_assert_eq(mp->pgoff + (ip - mp->start),
				     m->off[pid][q] + 0x123,
				     "%s: pid %d page %d file offset", what,
				     pid, q);
		}
}

TestSuite(aspace, .init = reset, .fini = reset);

Test(aspace, straddling_unmap_splits_and_keeps_offsets)
{
	struct rp_world w;
	const struct rp_map *mp;

	mmap_rec(1, 0, 10, 0x5000, PROT_READ | PROT_EXEC, "k1");
	munmap_rec(1, 3, 2);
	rp_world_init(&w, &s);
	cr_assert_eq(rp_world_seek(&w, s.nrecs), 0);
	cr_assert_null(rp_world_lookup(&w, 1, BASE + 3 * PAGE));
	cr_assert_null(rp_world_lookup(&w, 1, BASE + 5 * PAGE - 1));
	mp = rp_world_lookup(&w, 1, BASE + 2 * PAGE);
	cr_assert(mp && mp->start == BASE && mp->end == BASE + 3 * PAGE);
	cr_assert_eq(mp->pgoff, 0x5000);
	mp = rp_world_lookup(&w, 1, BASE + 5 * PAGE);
	cr_assert(mp && mp->start == BASE + 5 * PAGE &&
		  mp->end == BASE + 10 * PAGE);
	cr_assert_eq(mp->pgoff, 0x5000 + 5 * PAGE);
	cr_assert_eq(mp->image, 1);
	rp_world_fini(&w);
}

Test(aspace, code_needs_exec_and_a_known_key)
{
	struct rp_world w;

	mmap_rec(1, 0, 1, 0, PROT_READ, "k0");
	mmap_rec(1, 1, 1, 0, PROT_READ | PROT_EXEC, "nokey");
	mmap_rec(1, 2, 1, 0, PROT_READ | PROT_EXEC, NULL);
	mmap_rec(1, 3, 1, 0, PROT_READ | PROT_EXEC, "k2");
	rp_world_init(&w, &s);
	cr_assert_eq(rp_world_seek(&w, s.nrecs), 0);
	for (int p = 0; p < 3; p++)
		cr_assert_eq(rp_world_lookup(&w, 1, BASE + p * PAGE)->image,
			     -1, "page %d", p);
	cr_assert_eq(rp_world_lookup(&w, 1, BASE + 3 * PAGE)->image, 2);
	rp_world_fini(&w);
}

Test(aspace, fork_copies_exec_empties_mprotect_takes_code)
{
	struct rp_world w;

	mmap_rec(1, 0, 4, 0, PROT_READ | PROT_EXEC, "k0");
	fork_rec(1, 2);
	exec_rec(1);
	mprotect_rec(2, 0, 4, PROT_READ);
	rp_world_init(&w, &s);
	cr_assert_eq(rp_world_seek(&w, 2), 0);
	cr_assert_eq(rp_world_lookup(&w, 2, BASE)->image, 0,
		     "the child has the parent's code");
	cr_assert_eq(rp_world_seek(&w, 3), 0);
	cr_assert_null(rp_world_lookup(&w, 1, BASE), "exec empties");
	cr_assert_eq(rp_world_lookup(&w, 2, BASE)->image, 0,
		     "the parent's exec leaves the child alone");
	cr_assert_eq(rp_world_seek(&w, 4), 0);
	cr_assert_not_null(rp_world_lookup(&w, 2, BASE));
	cr_assert_eq(rp_world_lookup(&w, 2, BASE)->image, -1,
		     "without PROT_EXEC a mapping holds no code");
	rp_world_fini(&w);
}

Test(aspace, advance_applies_records_up_to_a_time)
{
	struct rp_world w;

	mmap_rec(1, 0, 1, 0, PROT_READ | PROT_EXEC, "k0");	/* time 10 */
	mmap_rec(1, 1, 1, 0, PROT_READ | PROT_EXEC, "k1");	/* time 20 */
	munmap_rec(1, 0, 1);					/* time 30 */
	rp_world_init(&w, &s);
	cr_assert(w.changed);
	cr_assert_eq(rp_world_advance(&w, 9), 0);
	cr_assert_eq(w.next, 0);
	cr_assert_eq(rp_world_advance(&w, 20), 0);
	cr_assert_eq(w.next, 2, "records at or before the time");
	cr_assert_not_null(rp_world_lookup(&w, 1, BASE));
	cr_assert_not_null(rp_world_lookup(&w, 1, BASE + PAGE));
	cr_assert_eq(rp_world_advance(&w, UINT64_MAX), 0);
	cr_assert_eq(w.next, 3);
	cr_assert_null(rp_world_lookup(&w, 1, BASE));
	cr_assert_eq(rp_world_seek(&w, 99), 0, "seek stops at the end");
	cr_assert_eq(w.next, 3);
	rp_world_fini(&w);
}

Test(aspace, image_has_no_section_for_unknown_code)
{
	struct rp_world w;
	struct pt_image *img;

	s.iscache = pt_iscache_alloc(NULL);
	cr_assert_not_null(s.iscache);
	mmap_rec(1, 0, 2, 0, PROT_READ, NULL);
	rp_world_init(&w, &s);
	cr_assert_eq(rp_world_seek(&w, s.nrecs), 0);
	img = rp_world_image(&w, 1);
	cr_assert_not_null(img);
	cr_assert(!w.changed, "building the image clears 'changed'");
	pt_image_free(img);
	rp_world_fini(&w);
	pt_iscache_free(s.iscache);
	s.iscache = NULL;
}

/* Random histories against the page model, checked after every record. */
Test(aspace, random_histories_match_the_page_model)
{
	static const char *const keys[] = { "k0", "k1", "k2", NULL, "x" };
	uint64_t seed;

	for (seed = 1; seed <= 150; seed++) {
		struct model m;
		struct rp_world w;
		uint64_t x = seed * 0x9e3779b97f4a7c15ull;
		bool forked[NPIDS] = { true, true, false };

		reset();
		memset(&m, 0, sizeof(m));
		rp_world_init(&w, &s);
		for (int i = 0; i < 60; i++) {
			int pid, p, n, op;
			char what[64];

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			pid = (int)(x % 2);
			p = (int)((x >> 8) % NPAGES);
			n = 1 + (int)((x >> 16) % 8);
			if (p + n > NPAGES)
				n = NPAGES - p;
			op = (int)((x >> 24) % 10);
			snprintf(what, sizeof(what), "seed %llu record %d op %d",
				 (unsigned long long)seed, i, op);
			if (op < 5) {
				uint32_t prot = PROT_READ |
					((x >> 32) & 1 ? PROT_EXEC : 0);
				const char *key = keys[(x >> 33) % 5];
				uint64_t pgoff = ((x >> 40) % 16) * PAGE;

				mmap_rec(pid, p, n, pgoff, prot, key);
				m_mmap(&m, pid, p, n, pgoff, prot, key);
			} else if (op < 7) {
				munmap_rec(pid, p, n);
				m_unmap(&m, pid, p, n);
			} else if (op < 8) {
				uint32_t prot = (x >> 32) & 1 ? PROT_READ :
						PROT_READ | PROT_EXEC;

				mprotect_rec(pid, p, n, prot);
				m_mprotect(&m, pid, p, n, prot);
			} else if (op < 9 && !forked[2]) {
				fork_rec(pid, 2);
				memcpy(m.id[2], m.id[pid], sizeof(m.id[2]));
				memcpy(m.img[2], m.img[pid], sizeof(m.img[2]));
				memcpy(m.off[2], m.off[pid], sizeof(m.off[2]));
				forked[2] = true;
			} else {
				exec_rec(pid);
				memset(m.id[pid], 0, sizeof(m.id[pid]));
			}
			cr_assert_eq(rp_world_seek(&w, s.nrecs), 0);
			check_model(&w, &m, what);
		}
		rp_world_fini(&w);
	}
}

/*
 * The sections of random histories against the page model: mappings that
 * touch in memory and in one file are one section (rp_world_sections(),
 * which rp_world_image() adds), and every code page is in exactly one
 * section that maps it to the page's own image and file offset.
 */
Test(aspace, sections_follow_the_page_model)
{
	static const char *const keys[] = { "k0", "k1", "k2", NULL };
	uint64_t seed;
	int joined = 0;

	for (seed = 1; seed <= 150; seed++) {
		struct model m;
		struct rp_world w;
		struct rp_map *v;
		uint64_t x = seed * 0x9e3779b97f4a7c15ull;
		size_t n, k;
		int i, q;

		reset();
		memset(&m, 0, sizeof(m));
		rp_world_init(&w, &s);
		for (i = 0; i < 24; i++) {
			int p, len;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			p = (int)((x >> 8) % NPAGES);
			len = 1 + (int)((x >> 16) % 8);
			if (p + len > NPAGES)
				len = NPAGES - p;
			if ((x >> 24) % 4) {
				/* Often a page dump's next page. */
				const char *key = keys[(x >> 33) % 4];
				uint64_t pgoff = (x >> 40) % 2 ?
					(uint64_t)p * PAGE :
					((x >> 41) % 16) * PAGE;

				mmap_rec(0, p, len, pgoff,
					 PROT_READ | PROT_EXEC, key);
				m_mmap(&m, 0, p, len, pgoff, PROT_EXEC, key);
			} else {
				munmap_rec(0, p, len);
				m_unmap(&m, 0, p, len);
			}
		}
		cr_assert_eq(rp_world_seek(&w, s.nrecs), 0);
		cr_assert_eq(rp_world_sections(&w, 0, &v, &n), 0);
		for (k = 0; k < n; k++) {
			cr_assert(v[k].image >= 0 && v[k].end > v[k].start);
			/* Sorted, apart, and joined wherever they can be. */
			if (k)
				cr_assert(v[k - 1].end <= v[k].start &&
					  (v[k - 1].end != v[k].start ||
					   v[k - 1].image != v[k].image ||
					   v[k - 1].pgoff + v[k - 1].end -
					   v[k - 1].start != v[k].pgoff),
					  "seed %llu: sections %zu and %zu not joined",
					  (unsigned long long)seed, k - 1, k);
			if (v[k].end - v[k].start > 8 * PAGE)
				joined++;	/* more than one mmap */
		}
		for (q = 0; q < NPAGES; q++) {
			uint64_t ip = BASE + (uint64_t)q * PAGE + 0x123;
			int im = m.id[0][q] ? m.img[0][q] : -1;
			size_t hits = 0, at = 0;

			for (k = 0; k < n; k++)
				if (ip >= v[k].start && ip < v[k].end) {
					hits++;
					at = k;
				}
			cr_assert_eq(hits, im >= 0 ? 1u : 0u,
				     "seed %llu page %d: in %zu sections",
				     (unsigned long long)seed, q, hits);
			if (!hits)
				continue;
			cr_assert_eq(v[at].image, im);
			cr_assert_eq(v[at].pgoff + (ip - v[at].start),
				     m.off[0][q] + 0x123,
				     "seed %llu page %d: file offset",
				     (unsigned long long)seed, q);
		}
		free(v);
		rp_world_fini(&w);
	}
	/* Page-dump-like runs were joined into one section. */
	cr_assert_gt(joined, 0);
}
