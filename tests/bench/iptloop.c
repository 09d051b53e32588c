// SPDX-License-Identifier: GPL-3.0-or-later
/* The benchmarks' baseline: libipt's instruction decoder, straight through. */
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iptloop.h"
#include "sideband.h"

double iptloop_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int iptloop_images(const char *dir, rawpt_add_fn add, void *ctx)
{
	const struct ptrec_sb_header *h;
	struct sb_reader *r;
	struct sb_err err;
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/sideband.sb", dir) >=
	    (int)sizeof(path) || sb_reader_open(&r, path, &err))
		return -1;
	while (sb_reader_next(r, &h, &err) > 0) {
		const struct ptrec_sb_mmap *mm = (const void *)h;
		char key[SB_IMAGE_KEY_MAX + 1];

		if (h->type != PTREC_SB_MMAP || !mm->key_len ||
		    mm->key_len > SB_IMAGE_KEY_MAX)
			continue;
		memcpy(key, sb_mmap_key(mm), mm->key_len);
		key[mm->key_len] = '\0';
		if (snprintf(path, sizeof(path), "%s/images/%s", dir, key) <
		    (int)sizeof(path))
			add(ctx, path, mm->pgoff, mm->len, mm->start);
	}
	sb_reader_close(r);
	return 0;
}

static int add_file(void *image, const char *file, uint64_t off,
		    uint64_t size, uint64_t addr)
{
	return pt_image_add_file(image, file, off, size, NULL, addr);
}

double iptloop_run(const char *dir, const char *pt_path, uint64_t *insns)
{
	struct pt_insn_decoder *d;
	struct pt_image *image = pt_image_alloc(NULL);
	struct pt_config cfg;
	struct pt_insn insn;
	uint8_t *buf;
	size_t len;
	double t0, t;
	int status;

	/* The snapshot's code mappings (a static program: nothing changes). */
	if (iptloop_images(dir, add_file, image))
		return -1;
	buf = rawpt_slurp(pt_path, &len);
	if (!buf) {
		pt_image_free(image);
		return -1;
	}
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	t0 = iptloop_now();
	d = pt_insn_alloc_decoder(&cfg);
	pt_insn_set_image(d, image);
	*insns = 0;
	status = pt_insn_sync_forward(d);
	while (status >= 0) {
		while (status & pts_event_pending) {
			struct pt_event ev;

			status = pt_insn_event(d, &ev, sizeof(ev));
			if (status < 0)
				break;
		}
		if (status < 0 || (status & pts_eos))
			break;
		status = pt_insn_next(d, &insn, sizeof(insn));
		if (status >= 0)
			(*insns)++;
	}
	t = iptloop_now() - t0;
	pt_insn_free_decoder(d);
	pt_image_free(image);
	free(buf);
	return t;
}
