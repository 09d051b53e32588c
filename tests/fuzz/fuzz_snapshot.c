// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer harness for the snapshot reader (sb_snap_load_mem).
 *
 * An input starting with 'R' is raw records: the harness compresses them
 * into a well-formed part (header, zstd frame with checksum), so the
 * mutations reach the record parser instead of stopping at the checksum;
 * any other input is read as a whole part.  A part the reader accepts is
 * walked completely (every thread, mapping and byte of memory it says it
 * holds); a refused one must come with a message.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "sideband.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const struct sb_snapshot *s)
{
	static uint8_t buf[4096];
	size_t i, j;

	for (i = 0; i < s->nprocs; i++) {
		const struct sb_snap_proc *p = &s->procs[i];

		if (sb_snap_proc_gen(s, p->pid, p->gen) != p)
			abort();
		for (j = 0; j < p->nthreads; j++)
			if (!sb_snap_thread(s, p->threads[j].tid, NULL))
				abort();
		for (j = 0; j < p->nmaps; j++) {
			const struct sb_snap_map *m = &p->maps[j];
			uint64_t len = m->end - m->start;
			size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);

			if (m->end <= m->start)
				abort();
			if (sb_snap_read_mem(p, m->end - n, buf, n) !=
			    (m->content == SB_SNAP_DATA ? n : 0) &&
			    m->content == SB_SNAP_DATA)
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_snapshot *s = NULL;
	struct sb_err err;
	uint8_t *part = NULL;
	size_t len = size;
	int ret;

	if (size && data[0] == 'R') {
		size_t cap = ZSTD_compressBound(size - 1);
		ZSTD_CCtx *c = ZSTD_createCCtx();
		uint64_t raw = size - 1;
		uint32_t v = SB_SNAP_VERSION;

		part = calloc(1, SB_SNAP_HEADER_SIZE + cap);
		if (!part || !c)
			abort();
		ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
		len = ZSTD_compress2(c, part + SB_SNAP_HEADER_SIZE, cap,
				     data + 1, size - 1);
		ZSTD_freeCCtx(c);
		if (ZSTD_isError(len))
			abort();
		memcpy(part, SB_SNAP_MAGIC, 8);
		memcpy(part + 8, &v, 4);
		memcpy(part + 16, &raw, 8);
		len += SB_SNAP_HEADER_SIZE;
		data = part;
	}
	err.msg[0] = '\0';
	ret = sb_snap_load_mem(&s, data, len, "fuzz.ptsnap", &err);
	if (ret) {
		if (s || !err.msg[0] ||
		    (ret != -EBADMSG && ret != -EPROTONOSUPPORT &&
		     ret != -EFBIG && ret != -ENOMEM))
			abort();
	} else {
		walk(s);
		sb_snap_free(s);
	}
	free(part);
	return 0;
}
