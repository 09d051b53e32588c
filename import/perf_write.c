// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec import perf`, step 3: perf_write() writes the bundle: the thread
 * streams, the images (recorded paths, --symfs, or the build-id cache) and
 * the sideband records sorted by TSC, with process exits and the PT
 * configuration in the manifest.
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
			perf_warn(p, "%s: no image: neither in the build-id cache (%s/.build-id/%.2s/%s) nor at the recorded path; its code is missing",
			     e->str, base, hx, hx + 2);
		else
			perf_warn(p, "%s: no image at the recorded path and no build-id to look up; its code is missing",
			     e->str);
		return 1;
	}
	if (sb_bundle_add_image_file(b, path, c->key, sizeof(c->key), &err)) {
		perf_warn(p, "%s: %s", e->str, err.msg);
		c->none = true;
		return 1;
	}
	if (bi && strcmp(c->key, want))
		perf_warn(p, "%s: its build-id differs from the recorded %s: a different file (the trace may not match)",
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
		x = perf_new_ev(p, PTREC_SB_PROCESS_EXIT, NULL);
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

int perf_finish_events(struct perf *p)
{
	size_t k, n = p->nev, *ix;
	const char *next = "";

	perf_sort(p->ev, p->nev, sizeof(*p->ev), ev_cmp);
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
	perf_sort(p->ev, p->nev, sizeof(*p->ev), ev_cmp);
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
		perf_warn(p, "thread %u: its %zu bytes of trace hold no PSB packet: nothing of it can be decoded",
		     t->tid, t->len);
	if (scan.cut != UINT64_MAX) {
		perf_warn(p, "thread %u: the trace ends inside a packet at stream offset %llu: its last %llu bytes are lost",
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

int perf_write(struct perf *p, const char *out, int argc, char **argv)
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

	if (sb_bundle_create_flags(&b, out, SB_BUNDLE_NO_STATE, &err)) {
		fprintf(stderr, CMD ": -o %s: %s\n", out, err.msg);
		return -1;
	}
	sb_bundle_set_durable(b, false);	/* as import raw: can be rerun */
	ret = -1;
	cut = calloc(p->nth + 1, sizeof(*cut));
	if (!cut)
		goto out;
	if (perf_finish_events(p))
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

