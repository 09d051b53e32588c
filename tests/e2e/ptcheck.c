// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptcheck: an independent check of recorded bundles, built directly on
 * libipt's instruction decoder (not on ptrec's replay engine).
 *
 *   ptcheck BUNDLE [--thread TID] [--verbose]
 *	Decodes every thread's PT stream and compares the instruction
 *	addresses with the bundle's ground truth, exactly.  Code bytes come
 *	from the bundle's image store, through each process's address space
 *	rebuilt from the sideband: records up to the TSC of a TIP.PGE apply
 *	from that PGE on (address-space changes happen inside system calls,
 *	i.e. while PacketEn is clear).  Then decodes again from each later
 *	PSB, as a replay engine seeking in the stream does, and checks that
 *	each such decode is a run of the ground truth.
 *
 *   ptcheck --raw PT[@SKIP] --elf FILE [--cpu F/M/S] [--mtc-freq N]
 *	     [--nom-freq N] [--cpuid-0x15 EAX/EBX] [--expect N] [--verbose]
 *	Decodes a raw stream recorded on real hardware against an ELF
 *	loaded at its own addresses and prints the instruction count
 *	(exit 1 on decode errors or when it differs from --expect).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sideband.h"

/* ---- files ------------------------------------------------------------ */

struct chk_file {
	const uint8_t *data;
	size_t size;
};

static int chk_map(const char *path, struct chk_file *f)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	f->data = NULL;
	f->size = 0;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	f->size = (size_t)st.st_size;
	if (f->size)
		f->data = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f->data == MAP_FAILED) {
		f->data = NULL;
		return -1;
	}
	return 0;
}

/* ---- address spaces rebuilt from sideband ------------------------------- */

struct chk_map {
	uint64_t start, end, pgoff;
	const struct chk_file *img;	/* NULL: no code bytes */
};

struct chk_as {
	uint32_t pid;
	struct chk_map *v;
	size_t n, cap;
};

struct chk_ctx {
	const char *dir;
	const struct sb_manifest *m;
	struct chk_file *images;	/* parallel to m->images */
	struct ptrec_sb_header **recs;	/* the whole sideband, in order */
	size_t nrecs;
	struct chk_as *as;		/* one per process seen */
	size_t nas;
	size_t next_rec;		/* first record not applied yet */
	uint32_t pid;			/* process being decoded */
	uint64_t reads, misses;
};

static struct chk_as *as_get(struct chk_ctx *c, uint32_t pid)
{
	size_t i;

	for (i = 0; i < c->nas; i++)
		if (c->as[i].pid == pid)
			return &c->as[i];
	c->as = realloc(c->as, (c->nas + 1) * sizeof(*c->as));
	memset(&c->as[c->nas], 0, sizeof(c->as[0]));
	c->as[c->nas].pid = pid;
	return &c->as[c->nas++];
}

/* Removes [start, end) from @as, splitting mappings that straddle it. */
static void as_unmap(struct chk_as *as, uint64_t start, uint64_t end)
{
	size_t i, n = as->n;

	for (i = 0; i < n; i++) {
		struct chk_map *mp = &as->v[i];

		if (mp->end <= start || mp->start >= end)
			continue;
		if (mp->start < start && mp->end > end) {
			struct chk_map tail = *mp;

			tail.pgoff += end - mp->start;
			tail.start = end;
			mp->end = start;
			if (as->n == as->cap) {
				as->cap = as->cap ? 2 * as->cap : 64;
				as->v = realloc(as->v, as->cap * sizeof(*as->v));
				mp = &as->v[i];
			}
			as->v[as->n++] = tail;
		} else if (mp->start < start) {
			mp->end = start;
		} else if (mp->end > end) {
			mp->pgoff += end - mp->start;
			mp->start = end;
		} else {
			mp->start = mp->end = 0;	/* emptied */
		}
	}
}

static void as_map(struct chk_as *as, const struct chk_map *mp)
{
	as_unmap(as, mp->start, mp->end);
	if (as->n == as->cap) {
		as->cap = as->cap ? 2 * as->cap : 64;
		as->v = realloc(as->v, as->cap * sizeof(*as->v));
	}
	as->v[as->n++] = *mp;
}

static const struct chk_file *image_of(struct chk_ctx *c,
				       const struct ptrec_sb_mmap *m)
{
	char key[SB_IMAGE_KEY_MAX + 1];
	size_t i;

	if (!m->key_len || m->key_len > SB_IMAGE_KEY_MAX)
		return NULL;
	memcpy(key, sb_mmap_key(m), m->key_len);
	key[m->key_len] = '\0';
	for (i = 0; i < c->m->nimages; i++)
		if (!strcmp(c->m->images[i].key, key))
			return &c->images[i];
	return NULL;
}

static void apply(struct chk_ctx *c, const struct ptrec_sb_header *h)
{
	switch (h->type) {
	case PTREC_SB_MMAP: {
		const struct ptrec_sb_mmap *m = (const void *)h;
		struct chk_map mp = { m->start, m->start + m->len, m->pgoff,
				      NULL };

		if (m->prot & PROT_EXEC)
			mp.img = image_of(c, m);
		as_map(as_get(c, m->pid), &mp);
		break;
	}
	case PTREC_SB_MUNMAP: {
		const struct ptrec_sb_munmap *m = (const void *)h;

		as_unmap(as_get(c, m->pid), m->start, m->start + m->len);
		break;
	}
	case PTREC_SB_MPROTECT: {
		const struct ptrec_sb_mprotect *m = (const void *)h;
		struct chk_as *as = as_get(c, m->pid);
		size_t i;

		/* Losing PROT_EXEC removes the code; gaining it cannot
		 * happen without a fresh MMAP from the recorder.
		 */
		if (!(m->prot & PROT_EXEC))
			for (i = 0; i < as->n; i++)
				if (as->v[i].start >= m->start &&
				    as->v[i].end <= m->start + m->len)
					as->v[i].img = NULL;
		break;
	}
	case PTREC_SB_EXEC:
		as_get(c, ((const struct ptrec_sb_exec *)h)->pid)->n = 0;
		break;
	case PTREC_SB_THREAD_START: {
		const struct ptrec_sb_thread_start *t = (const void *)h;
		struct chk_as *parent, *child;

		if (t->pid == t->parent_pid)
			break;
		/* fork: the child starts with a copy of the parent's. */
		child = as_get(c, t->pid);
		parent = as_get(c, t->parent_pid);
		child->cap = child->n = parent->n;
		child->v = malloc((parent->n + 1) * sizeof(*child->v));
		memcpy(child->v, parent->v, parent->n * sizeof(*child->v));
		break;
	}
	default:
		break;
	}
}

static void advance(struct chk_ctx *c, uint64_t tsc)
{
	while (c->next_rec < c->nrecs && c->recs[c->next_rec]->time <= tsc)
		apply(c, c->recs[c->next_rec++]);
}

static int read_mem(uint8_t *buf, size_t size, const struct pt_asid *asid,
		    uint64_t ip, void *ctx)
{
	struct chk_ctx *c = ctx;
	struct chk_as *as = as_get(c, c->pid);
	size_t i, n;

	(void)asid;
	c->reads++;
	for (i = as->n; i-- > 0;) {
		const struct chk_map *mp = &as->v[i];
		uint64_t off;

		if (ip < mp->start || ip >= mp->end || !mp->img)
			continue;
		off = mp->pgoff + (ip - mp->start);
		if (off >= mp->img->size)
			break;
		n = size;
		if (n > mp->end - ip)
			n = (size_t)(mp->end - ip);
		if (n > mp->img->size - off)
			n = (size_t)(mp->img->size - off);
		memcpy(buf, mp->img->data + off, n);
		return (int)n;
	}
	c->misses++;
	return -pte_nomap;
}

/* ---- decoding ---------------------------------------------------------- */

struct chk_stats {
	uint64_t insns;
	uint64_t events[32];
};

/* Called for each decoded instruction: returns 0 to go on, CHK_MISMATCH or
 * CHK_STOP to end the decode.
 */
typedef int (*chk_insn_fn)(void *arg, const struct pt_insn_decoder *d,
			   uint64_t index, uint64_t ip);

enum { CHK_MISMATCH = 1, CHK_STOP = 2 };

/* decode() from the first PSB, not from a given offset. */
#define CHK_SYNC_FORWARD	UINT64_MAX

/* libipt's event names, for --verbose (indexed by enum pt_event_type). */
static const char *const chk_event_names[] = {
	[ptev_enabled] = "enabled", [ptev_disabled] = "disabled",
	[ptev_async_disabled] = "async_disabled",
	[ptev_async_branch] = "async_branch", [ptev_paging] = "paging",
	[ptev_async_paging] = "async_paging", [ptev_overflow] = "overflow",
	[ptev_exec_mode] = "exec_mode", [ptev_tsx] = "tsx",
	[ptev_stop] = "stop", [ptev_vmcs] = "vmcs",
	[ptev_async_vmcs] = "async_vmcs", [ptev_exstop] = "exstop",
	[ptev_mwait] = "mwait", [ptev_pwre] = "pwre", [ptev_pwrx] = "pwrx",
	[ptev_ptwrite] = "ptwrite", [ptev_tick] = "tick", [ptev_cbr] = "cbr",
	[ptev_mnt] = "mnt",
};

static void print_events(const struct chk_stats *st)
{
	unsigned int i;

	printf("  events:");
	for (i = 0; i < 32; i++) {
		if (!st->events[i])
			continue;
		if (i < sizeof(chk_event_names) / sizeof(chk_event_names[0]) &&
		    chk_event_names[i])
			printf(" %s %" PRIu64, chk_event_names[i],
			       st->events[i]);
		else
			printf(" type%u %" PRIu64, i, st->events[i]);
	}
	printf("\n");
}

/*
 * Decodes a stream from its first PSB or from the PSB at @start; calls @fn
 * for each instruction and applies @c's sideband at each enable (and, when
 * starting at @start, up to that PSB's timestamp).  Returns 0 at the clean
 * end or when @fn says CHK_STOP, CHK_MISMATCH when @fn says so, or the first
 * libipt error.
 */
static int decode(struct pt_config *cfg, struct pt_image *image,
		  struct chk_ctx *c, uint64_t start, chk_insn_fn fn, void *arg,
		  struct chk_stats *st, uint64_t *err_offset)
{
	struct pt_insn_decoder *d = pt_insn_alloc_decoder(cfg);
	uint64_t tsc;
	int status, stop;

	if (!d)
		return -pte_nomem;
	pt_insn_set_image(d, image);
	if (start == CHK_SYNC_FORWARD) {
		status = pt_insn_sync_forward(d);
	} else {
		status = pt_insn_sync_set(d, start);
		/* Tracing may be enabled at this PSB, with no enable event to
		 * come: the address space is the one of the PSB's time
		 * (changes happen only while tracing is disabled).
		 */
		if (status >= 0 && c && pt_insn_time(d, &tsc, NULL, NULL) >= 0)
			advance(c, tsc);
	}
	while (status >= 0) {
		struct pt_insn insn;

		while (status & pts_event_pending) {
			struct pt_event ev;

			status = pt_insn_event(d, &ev, sizeof(ev));
			if (status < 0)
				goto out;
			if ((unsigned int)ev.type < 32)
				st->events[ev.type]++;
			if (c && ev.type == ptev_enabled && ev.has_tsc)
				advance(c, ev.tsc);
		}
		if (status & pts_eos)
			break;
		status = pt_insn_next(d, &insn, sizeof(insn));
		if (status < 0)
			break;
		stop = fn ? fn(arg, d, st->insns, insn.ip) : 0;
		if (stop == CHK_MISMATCH)
			goto out_mismatch;
		st->insns++;
		if (stop == CHK_STOP) {
			status = 0;
			break;
		}
	}
out:
	if (status == -pte_eos || (status >= 0 && (status & pts_eos)))
		status = 0;
	pt_insn_get_offset(d, err_offset);
	pt_insn_free_decoder(d);
	return status;
out_mismatch:
	pt_insn_free_decoder(d);
	return CHK_MISMATCH;
}

/*
 * Walks every packet with libipt's packet decoder and collects the offsets
 * of the PSBs in *@psbs (malloc'ed, *@npsbs of them).  Returns the number of
 * packets, or a negative libipt error with its offset in *@err_offset.
 */
static int64_t check_packets(const struct pt_config *cfg, uint64_t *err_offset,
			     uint64_t **psbs, size_t *npsbs)
{
	struct pt_packet_decoder *d = pt_pkt_alloc_decoder(cfg);
	struct pt_packet pkt;
	uint64_t off = 0;
	int64_t n = 0;
	int ret;

	*psbs = NULL;
	*npsbs = 0;
	if (!d)
		return -pte_nomem;
	ret = pt_pkt_sync_forward(d);
	while (ret >= 0) {
		pt_pkt_get_offset(d, &off);
		ret = pt_pkt_next(d, &pkt, sizeof(pkt));
		if (ret < 0)
			break;
		n++;
		if (pkt.type == ppt_psb) {
			*psbs = realloc(*psbs, (*npsbs + 1) * sizeof(**psbs));
			(*psbs)[(*npsbs)++] = off;
		}
	}
	pt_pkt_get_offset(d, err_offset);
	pt_pkt_free_decoder(d);
	return ret == -pte_eos ? n : ret;
}

/* ---- bundle mode --------------------------------------------------------- */

struct chk_cmp {
	const uint64_t *truth;
	size_t n;
	uint64_t last[5];
	uint64_t bad_index, bad_ip;
};

static int compare(void *arg, const struct pt_insn_decoder *d,
		   uint64_t index, uint64_t ip)
{
	struct chk_cmp *cmp = arg;

	(void)d;
	if (index >= cmp->n || cmp->truth[index] != ip) {
		cmp->bad_index = index;
		cmp->bad_ip = ip;
		return CHK_MISMATCH;
	}
	cmp->last[index % 5] = ip;
	return 0;
}

static int load_sideband(struct chk_ctx *c)
{
	const struct ptrec_sb_header *h;
	struct sb_reader *r;
	struct sb_err err;
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", c->dir, c->m->sideband);
	if (sb_reader_open(&r, path, &err)) {
		fprintf(stderr, "ptcheck: %s\n", err.msg);
		return -1;
	}
	while ((ret = sb_reader_next(r, &h, &err)) > 0) {
		c->recs = realloc(c->recs, (c->nrecs + 1) * sizeof(*c->recs));
		c->recs[c->nrecs] = malloc(h->size);
		memcpy(c->recs[c->nrecs++], h, h->size);
	}
	sb_reader_close(r);
	if (ret < 0) {
		fprintf(stderr, "ptcheck: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static void reset_ctx(struct chk_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nas; i++)
		free(c->as[i].v);
	free(c->as);
	c->as = NULL;
	c->nas = 0;
	c->next_rec = 0;
	c->reads = c->misses = 0;	/* --verbose counts per thread */
}

/*
 * Every PSB must be a place where decoding can start (the replay engine
 * indexes streams by PSB): the return-compression stack is empty there, the
 * PSB+ carries the IP and mode.  A decode from a PSB up to the next one must
 * be a run of the ground truth.
 */
struct chk_seg {
	uint64_t next_psb;		/* stop once the decoder passed it */
	uint64_t *ips;
	size_t n, cap, max;
};

static int collect(void *arg, const struct pt_insn_decoder *d,
		   uint64_t index, uint64_t ip)
{
	struct chk_seg *sg = arg;
	uint64_t off;

	(void)index;
	if (sg->n == sg->cap) {
		sg->cap = sg->cap ? 2 * sg->cap : 1024;
		sg->ips = realloc(sg->ips, sg->cap * sizeof(*sg->ips));
	}
	sg->ips[sg->n++] = ip;
	/* The decoder reads ahead, so this may stop a little late; longer
	 * runs only make the check stricter.
	 */
	if (pt_insn_get_offset(d, &off) >= 0 && off > sg->next_psb)
		return CHK_STOP;
	return sg->n > sg->max ? CHK_STOP : 0;
}

/* Finds @s[0..@len) in @truth at or after @from; returns its index or -1. */
static ssize_t find_run(const uint64_t *truth, size_t n, size_t from,
			const uint64_t *s, size_t len)
{
	size_t j;

	for (j = from; j + len <= n; j++)
		if (!memcmp(&truth[j], s, len * sizeof(*s)))
			return (ssize_t)j;
	return -1;
}

/* Returns 0 when the decode from every PSB but the first is in the truth. */
static int check_psbs(struct chk_ctx *c, struct pt_config *cfg,
		      struct pt_image *image, const struct sb_thread *t,
		      const uint64_t *truth, size_t n, const uint64_t *psbs,
		      size_t npsbs, bool verbose)
{
	struct chk_seg sg = { .max = n };
	size_t i, from = 0;
	ssize_t at;
	int ret = 0;

	for (i = 1; i < npsbs && !ret; i++) {
		struct chk_stats st = { 0 };
		uint64_t off = 0;

		reset_ctx(c);
		c->pid = t->pid;
		sg.n = 0;
		sg.next_psb = i + 1 < npsbs ? psbs[i + 1] : UINT64_MAX;
		ret = decode(cfg, image, c, psbs[i], collect, &sg, &st, &off);
		if (ret < 0) {
			printf("thread %u: decode from the PSB at offset "
			       "%" PRIu64 ": error '%s' at offset %" PRIu64 "\n", t->tid,
			       psbs[i], pt_errstr(pt_errcode(ret)), off);
			break;
		}
		at = find_run(truth, n, from, sg.ips, sg.n);
		if (at < 0) {
			printf("thread %u: decode from the PSB at offset "
			       "%" PRIu64 " (%zu instructions from 0x%" PRIx64
			       ") is not a run of the ground truth after "
			       "instruction %zu\n", t->tid, psbs[i], sg.n,
			       sg.n ? sg.ips[0] : 0, from);
			ret = 1;
		} else if (verbose) {
			printf("  PSB at offset %" PRIu64 ": %zu instructions"
			       " from 0x%" PRIx64 " = ground truth [%zd]\n",
			       psbs[i], sg.n, sg.n ? sg.ips[0] : 0, at);
		}
		from = (size_t)at;
	}
	free(sg.ips);
	return ret ? 1 : 0;
}

static int check_thread(struct chk_ctx *c, const struct sb_thread *t,
			bool verbose)
{
	struct chk_cmp cmp = { 0 };
	struct chk_stats st = { 0 };
	struct chk_file pt;
	struct pt_config cfg;
	struct pt_image *image;
	uint64_t *truth = NULL, off = 0, *psbs = NULL, reads, misses;
	size_t npsbs = 0;
	char path[4096];
	struct sb_err err;
	int64_t packets;
	size_t n = 0;
	int ret, i;

	if (!t->truth) {
		printf("thread %u: no ground truth in the bundle\n", t->tid);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", c->dir, t->truth);
	if (sb_truth_load(path, &truth, &n, &err)) {
		printf("thread %u: %s\n", t->tid, err.msg);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", c->dir, t->pt);
	if (chk_map(path, &pt) || !pt.size) {
		printf("thread %u: cannot read %s\n", t->tid, path);
		free(truth);
		return 1;
	}
	reset_ctx(c);
	c->pid = t->pid;
	/* Sideband before the stream's first enable: the snapshot. */
	image = pt_image_alloc(NULL);
	pt_image_set_callback(image, read_mem, c);
	pt_config_init(&cfg);	/* emulated trace: no CPU, no errata */
	cfg.begin = (uint8_t *)pt.data;
	cfg.end = (uint8_t *)pt.data + pt.size;
	cmp.truth = truth;
	cmp.n = n;
	packets = check_packets(&cfg, &off, &psbs, &npsbs);
	if (packets < 0) {
		printf("thread %u: packet decoder error '%s' at offset %" PRIu64
		       "\n", t->tid, pt_errstr(pt_errcode((int)packets)), off);
		ret = 1;
		goto out;
	}
	ret = decode(&cfg, image, c, CHK_SYNC_FORWARD, compare, &cmp, &st,
		     &off);
	reads = c->reads;
	misses = c->misses;
	if (ret == CHK_MISMATCH) {
		if (cmp.bad_index < n)
			printf("thread %u: MISMATCH at instruction %" PRIu64
			       ": expected 0x%" PRIx64 ", decoded 0x%" PRIx64,
			       t->tid, cmp.bad_index, truth[cmp.bad_index],
			       cmp.bad_ip);
		else
			printf("thread %u: MISMATCH at instruction %" PRIu64
			       ": ground truth ended, decoded 0x%" PRIx64,
			       t->tid, cmp.bad_index, cmp.bad_ip);
		printf("; last matching:");
		for (i = 5; i > 0; i--)
			if (cmp.bad_index >= (uint64_t)i)
				printf(" 0x%" PRIx64,
				       cmp.last[(cmp.bad_index - (uint64_t)i) % 5]);
		printf("\n");
	} else if (ret < 0) {
		printf("thread %u: decode error '%s' at stream offset %" PRIu64
		       " after %" PRIu64 " of %zu instructions\n", t->tid,
		       pt_errstr(pt_errcode(ret)), off, st.insns, n);
	} else if (st.insns != n) {
		printf("thread %u: decoded %" PRIu64 " instructions, ground truth has %zu\n",
		       t->tid, st.insns, n);
		ret = 1;
	} else {
		ret = check_psbs(c, &cfg, image, t, truth, n, psbs, npsbs,
				 verbose);
		if (!ret)
			printf("thread %u: %zu instructions match (%" PRId64
			       " packets, %zu PSBs, each a good sync point)\n",
			       t->tid, n, packets, npsbs);
	}
	if (verbose) {
		print_events(&st);
		printf("  memory reads %" PRIu64 ", unmapped %" PRIu64 "\n",
		       reads, misses);
	}
out:
	free(psbs);
	pt_image_free(image);
	munmap((void *)pt.data, pt.size);
	free(truth);
	return ret ? 1 : 0;
}

static int check_bundle(const char *dir, long tid, bool verbose)
{
	struct chk_ctx c = { .dir = dir };
	struct sb_manifest *m;
	struct sb_err err;
	char path[4096];
	size_t i;
	int bad = 0, checked = 0;

	if (sb_manifest_load(&m, dir, &err)) {
		fprintf(stderr, "ptcheck: %s\n", err.msg);
		return 1;
	}
	c.m = m;
	c.images = calloc(m->nimages + 1, sizeof(*c.images));
	for (i = 0; i < m->nimages; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, m->images[i].file);
		if (chk_map(path, &c.images[i]))
			fprintf(stderr, "ptcheck: cannot map %s\n", path);
	}
	if (load_sideband(&c))
		return 1;
	for (i = 0; i < m->nthreads; i++) {
		if (tid >= 0 && m->threads[i].tid != (uint32_t)tid)
			continue;
		bad |= check_thread(&c, &m->threads[i], verbose);
		checked++;
	}
	if (!checked) {
		printf("ptcheck: no thread %ld in %s\n", tid, dir);
		bad = 1;
	}
	reset_ctx(&c);
	for (i = 0; i < c.nrecs; i++)
		free(c.recs[i]);
	free(c.recs);
	for (i = 0; i < m->nimages; i++)
		if (c.images[i].data)
			munmap((void *)c.images[i].data, c.images[i].size);
	free(c.images);
	sb_manifest_free(m);
	return bad;
}

/* ---- raw mode (real hardware traces) ------------------------------------ */

/* Adds every PT_LOAD segment of @path at its own virtual address. */
static int add_elf(struct pt_image *image, const char *path)
{
	GElf_Phdr ph;
	size_t i, n;
	Elf *elf;
	int fd, added = 0;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &n)) {
		close(fd);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) &&
		    pt_image_add_file(image, path, ph.p_offset, ph.p_filesz,
				      NULL, ph.p_vaddr) >= 0)
			added++;
	elf_end(elf);
	close(fd);
	return added ? 0 : -1;
}

/* --addrs FILE: every decoded address, one per line, as `ptrec insns
 * --format=addr` prints them, so an import can be compared with libipt.
 */
static int print_addr(void *arg, const struct pt_insn_decoder *d,
		      uint64_t index, uint64_t ip)
{
	(void)d;
	(void)index;
	fprintf(arg, "0x%" PRIx64 "\n", ip);
	return 0;
}

static int check_raw(int argc, char **argv)
{
	const char *pt = NULL, *elf = NULL, *addrs = NULL;
	FILE *af = NULL;
	struct chk_stats st = { 0 };
	struct chk_file f;
	struct pt_config cfg;
	struct pt_image *image;
	unsigned int fam = 0, mod = 0, step = 0, a, b;
	long long expect = -1;
	bool verbose = false;
	uint64_t off = 0, skip = 0;
	char ptpath[4096], *at;
	int i, ret;

	pt_config_init(&cfg);
	for (i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : "";

		if (!strcmp(argv[i], "--verbose")) {
			verbose = true;
			continue;
		}
		if (!strcmp(argv[i], "--raw"))
			pt = v;
		else if (!strcmp(argv[i], "--elf"))
			elf = v;
		else if (!strcmp(argv[i], "--cpu") &&
			 sscanf(v, "%u/%u/%u", &fam, &mod, &step) >= 2)
			;
		else if (!strcmp(argv[i], "--mtc-freq"))
			cfg.mtc_freq = (uint8_t)atoi(v);
		else if (!strcmp(argv[i], "--nom-freq"))
			cfg.nom_freq = (uint8_t)atoi(v);
		else if (!strcmp(argv[i], "--cpuid-0x15") &&
			 sscanf(v, "%u/%u", &a, &b) == 2) {
			cfg.cpuid_0x15_eax = a;
			cfg.cpuid_0x15_ebx = b;
		} else if (!strcmp(argv[i], "--expect"))
			expect = atoll(v);
		else if (!strcmp(argv[i], "--addrs"))
			addrs = v;
		else
			continue;
		i++;
	}
	if (!pt || !elf) {
		fprintf(stderr, "usage: ptcheck --raw PT[@SKIP] --elf FILE ...\n");
		return 2;
	}
	snprintf(ptpath, sizeof(ptpath), "%s", pt);
	at = strrchr(ptpath, '@');
	if (at) {
		*at = '\0';
		skip = strtoull(at + 1, NULL, 0);
	}
	if (chk_map(ptpath, &f) || skip >= f.size) {
		fprintf(stderr, "ptcheck: cannot read %s\n", ptpath);
		return 1;
	}
	if (fam) {
		cfg.cpu.vendor = pcv_intel;
		cfg.cpu.family = (uint16_t)fam;
		cfg.cpu.model = (uint8_t)mod;
		cfg.cpu.stepping = (uint8_t)step;
		pt_cpu_errata(&cfg.errata, &cfg.cpu);
	}
	cfg.begin = (uint8_t *)f.data + skip;
	cfg.end = (uint8_t *)f.data + f.size;
	image = pt_image_alloc(NULL);
	if (add_elf(image, elf)) {
		fprintf(stderr, "ptcheck: %s: no executable segments\n", elf);
		return 1;
	}
	if (addrs && !(af = fopen(addrs, "w"))) {
		perror(addrs);
		return 1;
	}
	ret = decode(&cfg, image, NULL, CHK_SYNC_FORWARD,
		     af ? print_addr : NULL, af, &st, &off);
	if (af && fclose(af)) {
		perror(addrs);
		return 1;
	}
	printf("%s: %" PRIu64 " instructions", ptpath, st.insns);
	if (ret < 0)
		printf(", decode error '%s' at offset %" PRIu64,
		       pt_errstr(pt_errcode(ret)), off + skip);
	printf("\n");
	if (verbose)
		print_events(&st);
	pt_image_free(image);
	if (ret < 0)
		return 1;
	if (expect >= 0 && (long long)st.insns != expect) {
		printf("%s: expected %lld instructions\n", ptpath, expect);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool verbose = false;
	long tid = -1;
	int i;

	if (argc > 1 && !strcmp(argv[1], "--raw"))
		return check_raw(argc, argv);
	if (argc < 2) {
		fprintf(stderr, "usage: ptcheck BUNDLE [--thread TID] [--verbose]\n"
				"       ptcheck --raw PT[@SKIP] --elf FILE [...]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--verbose"))
			verbose = true;
		else if (!strcmp(argv[i], "--thread") && i + 1 < argc)
			tid = atol(argv[++i]);
	}
	return check_bundle(argv[1], tid, verbose);
}
