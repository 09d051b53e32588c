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

#include "perf_internal.h"

int perf_err(struct perf *p, uint64_t off, const char *fmt, ...)
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

void perf_warn(struct perf *p, const char *fmt, ...)
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
int perf_grow(void *vp, size_t n, size_t *cap, size_t size)
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
void perf_sort(void *v, size_t n, size_t size,
		  int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
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
	ret = perf_parse(&p) || perf_split(&p) || perf_finish_events(&p) ? -1 : 0;
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

