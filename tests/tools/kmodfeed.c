// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kmodfeed EMU_BUNDLE OUT_BUNDLE: replays a software-recorder bundle
 * through the kernel-module recorder's stream handling.
 *
 * It turns the bundle into the message stream /dev/ptrec would deliver
 * (kmod/uapi/ptrec.h): the sideband records as they are, except that MMAP
 * records lose their image keys (the module sends none), then every
 * thread's PT stream in PTREC_MSG_TRACE chunks of CHUNK bytes, threads
 * interleaved.  rec_kmod_split() (record/kmod.c) writes OUT_BUNDLE from
 * it, storing the images itself.  The e2e suite then checks that ptrec
 * replays both bundles to the same instructions: a bundle written by the
 * kmod recorder is replayable, with real packets of a real program, which
 * the module's simulated unit cannot show.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "uapi/ptrec.h"

#define CHUNK 3000	/* small, so streams come in many pieces */

static uint8_t *buf;
static size_t len, cap;

static void put(const void *p, size_t n, const void *tail, size_t tn)
{
	size_t size = (n + tn + 7) & ~(size_t)7;

	if (len + size > cap) {
		cap = (len + size) * 2;
		buf = realloc(buf, cap);
		if (!buf) {
			perror("kmodfeed");
			exit(2);
		}
	}
	memset(buf + len, 0, size);
	memcpy(buf + len, p, n);
	if (tn)
		memcpy(buf + len + n, tail, tn);
	((struct ptrec_sb_header *)(buf + len))->size = (uint32_t)size;
	len += size;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	size_t c = 0, got;

	*n = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*n == c) {
			c = c ? 2 * c : 65536;
			p = realloc(p, c);
			if (!p)
				exit(2);
		}
		got = fread(p + *n, 1, c - *n, f);
		if (!got)
			break;
		*n += got;
	}
	fclose(f);
	return p;
}

int main(int argc, char **argv)
{
	struct rec_options o = { .quiet = true,
				 .kmod = { .mtc = -1, .cyc = -1 } };
	struct ptrec_info info = {
		.flags = PTREC_INFO_TOPA | PTREC_INFO_TOPA_MULTI,
		.psb_periods = 0x3f,
	};
	const struct ptrec_sb_header *h;
	struct sb_manifest *m;
	struct sb_reader *r;
	struct rec_stats st;
	struct sb_err err;
	char path[4096];
	uint8_t **pt;
	size_t *ptlen, *done, i, left;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: kmodfeed EMU_BUNDLE OUT_BUNDLE\n");
		return 2;
	}
	if (sb_manifest_load(&m, argv[1], &err)) {
		fprintf(stderr, "kmodfeed: %s\n", err.msg);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", argv[1], m->sideband);
	if (sb_reader_open(&r, path, &err)) {
		fprintf(stderr, "kmodfeed: %s\n", err.msg);
		return 1;
	}
	while ((rc = sb_reader_next(r, &h, &err)) == 1) {
		if (h->type == PTREC_SB_MMAP) {
			struct ptrec_sb_mmap mm;
			const struct ptrec_sb_mmap *src = (const void *)h;

			mm = *src;
			mm.key_len = 0;
			put(&mm, sizeof(mm), sb_mmap_path(src), src->path_len);
		} else {
			put(h, h->size, NULL, 0);
		}
	}
	sb_reader_close(r);
	if (rc < 0) {
		fprintf(stderr, "kmodfeed: %s\n", err.msg);
		return 1;
	}
	pt = calloc(m->nthreads, sizeof(*pt));
	ptlen = calloc(m->nthreads, sizeof(*ptlen));
	done = calloc(m->nthreads, sizeof(*done));
	if (!pt || !ptlen || !done)
		return 2;
	left = 0;
	for (i = 0; i < m->nthreads; i++) {
		snprintf(path, sizeof(path), "%s/%s", argv[1],
			 m->threads[i].pt);
		pt[i] = slurp(path, &ptlen[i]);
		left += ptlen[i];
	}
	while (left) {
		for (i = 0; i < m->nthreads; i++) {
			struct ptrec_msg_trace t = {
				.type = PTREC_MSG_TRACE,
				.pid = m->threads[i].pid,
				.tid = m->threads[i].tid,
				.offset = done[i],
			};
			size_t n = ptlen[i] - done[i];

			if (!n)
				continue;
			if (n > CHUNK)
				n = CHUNK;
			t.len = (uint32_t)n;
			put(&t, sizeof(t), pt[i] + done[i], n);
			done[i] += n;
			left -= n;
		}
	}
	info.family = (uint16_t)m->cpu.family;
	info.model = (uint8_t)m->cpu.model;
	info.stepping = (uint8_t)m->cpu.stepping;
	o.out = argv[2];
	o.pid = m->nprocs ? (pid_t)m->procs[0].pid : 0;
	rc = rec_kmod_split(&o, &info, m->nprocs ? m->procs[0].exe : NULL,
			    buf, len, &st, &err);
	if (rc) {
		fprintf(stderr, "kmodfeed: %s\n", err.msg);
		return 1;
	}
	printf("kmodfeed: %zu bytes of stream, %u threads, %llu bytes of trace, %llu sideband records\n",
	       len, st.threads, (unsigned long long)st.trace_bytes,
	       (unsigned long long)st.sideband_records);
	for (i = 0; i < m->nthreads; i++)
		free(pt[i]);
	free(pt);
	free(ptlen);
	free(done);
	free(buf);
	sb_manifest_free(m);
	return 0;
}
