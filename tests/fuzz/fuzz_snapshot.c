// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer harness for the snapshot part reader (sb_snap_load_mem), a
 * reader of untrusted bundle bytes.  The first input byte picks how the
 * rest is used: even, as the whole file (header and zstd frame); odd, as
 * the decompressed records, which the harness wraps in a valid header and
 * frame so mutations reach the record checks instead of dying in zstd.
 * Whatever it accepts is walked: every process, thread and mapping, and
 * every byte the mappings say they hold.  No crash, no leak, and no
 * allocation beyond what the input decompresses to.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "sideband.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const struct sb_snapshot *s)
{
	const struct sb_snap_proc *q;
	uint8_t buf[256];
	size_t i, k;
	volatile uint64_t sink = 0;

	for (i = 0; i < s->nprocs; i++) {
		const struct sb_snap_proc *p = &s->procs[i];

		if (sb_snap_proc(s, p->pid) == NULL)
			abort();
		sink += p->exe ? strlen(p->exe) : 0;
		for (k = 0; k < p->auxv_len; k++)
			sink += p->auxv[k];
		for (k = 0; k < p->nthreads; k++) {
			const struct sb_snap_thread *t = &p->threads[k];

			if (!sb_snap_thread(s, t->tid, &q))
				abort();
			if (t->fpregs)
				sink += t->fpregs[t->fpregs_len - 1];
			if (t->xstate)
				sink += t->xstate[t->xstate_len - 1];
		}
		for (k = 0; k < p->nmaps; k++) {
			const struct sb_snap_map *m = &p->maps[k];
			uint64_t a;

			sink += strlen(m->path);
			sink += strlen(sb_snap_content_name(m->content));
			for (a = m->start; a < m->end && a - m->start < 4096;
			     a += sizeof(buf))
				sink += sb_snap_read_mem(p, a, buf, sizeof(buf));
			if (m->end > m->start)
				sink += sb_snap_read_mem(p, m->end - 1, buf, 1);
		}
		sink += strlen(sb_snap_end_name(p->end));
	}
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_snapshot *s = NULL;
	struct sb_err err;
	uint8_t *file = NULL;
	size_t len;
	uint64_t raw;

	if (!size)
		return 0;
	if (data[0] & 1) {
		size_t bound = ZSTD_compressBound(size - 1);

		file = malloc(SB_SNAP_HEADER_SIZE + bound);
		if (!file)
			abort();
		memset(file, 0, SB_SNAP_HEADER_SIZE);
		memcpy(file, SB_SNAP_MAGIC, 8);
		file[8] = SB_SNAP_VERSION;
		raw = size - 1;
		memcpy(file + 16, &raw, 8);
		len = ZSTD_compress(file + SB_SNAP_HEADER_SIZE, bound,
				    data + 1, size - 1, 1);
		if (ZSTD_isError(len))
			abort();
		len += SB_SNAP_HEADER_SIZE;
	} else {
		file = malloc(size - 1 ? size - 1 : 1);
		if (!file)
			abort();
		memcpy(file, data + 1, size - 1);
		len = size - 1;
	}
	if (!sb_snap_load_mem(&s, file, len, "fuzz", &err)) {
		walk(s);
		sb_snap_free(s);
	}
	free(file);
	return 0;
}
