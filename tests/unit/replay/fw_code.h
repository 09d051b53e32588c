/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Code and traces for the flow walker's tests (test_fwalk.c,
 * test_blksrc.c): shared/testdata/real-pt found, files read whole, and
 * code as sections of files (an --images list), read as libipt's image
 * reads it (a read never crosses a section's end); the plain libipt loop
 * (tests/bench/iptraw's) and the history it decodes.
 */
#ifndef PTREC_TESTS_FW_CODE_H
#define PTREC_TESTS_FW_CODE_H

#include <criterion/criterion.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char testdata[4096] __attribute__((unused));

static inline const char *real_pt(void)
{
	const char *env = getenv("PTREC_TESTDATA"), *src;
	struct stat st;

	if (env) {
		snprintf(testdata, sizeof(testdata), "%s/real-pt", env);
		if (!stat(testdata, &st))
			return testdata;
	}
	src = getenv("PTREC_SRCDIR");
	snprintf(testdata, sizeof(testdata), "%s/../shared/testdata/real-pt",
		 src ? src : ".");
	if (!stat(testdata, &st))
		return testdata;
	snprintf(testdata, sizeof(testdata), "/work/shared/testdata/real-pt");
	cr_assert(!stat(testdata, &st),
		  "real hardware traces not found (set PTREC_TESTDATA to shared/testdata)");
	return testdata;
}

static inline uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	cr_assert(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Code: sections of files, as ptrec import raw's --images list. */
struct code {
	struct pt_image_section_cache *isc;
	struct pt_image *image;
	struct {
		int isid;
		uint64_t addr, size;
	} sec[512];
	size_t n;
};

static inline void code_add(struct code *c, const char *path,
			    uint64_t off, uint64_t size, uint64_t addr)
{
	int isid = pt_iscache_add_file(c->isc, path, off, size, addr);

	cr_assert(isid > 0 && c->n < 512);
	cr_assert(pt_image_add_cached(c->image, c->isc, isid, NULL) >= 0);
	c->sec[c->n].isid = isid;
	c->sec[c->n].addr = addr;
	c->sec[c->n].size = size;
	c->n++;
}

static inline void code_init(struct code *c)
{
	memset(c, 0, sizeof(*c));
	c->isc = pt_iscache_alloc(NULL);
	c->image = pt_image_alloc(NULL);
	cr_assert(c->isc && c->image);
}

static inline void code_fini(struct code *c)
{
	pt_image_free(c->image);
	pt_iscache_free(c->isc);
}

/* libxdc's page dump: data.addr (u64 addresses), data.dump (the pages). */
static inline void code_xdc(struct code *c, const char *dir)
{
	char path[4200], dump[4200];
	uint64_t *addrs;
	size_t len, i;

	snprintf(path, sizeof(path), "%s/data.addr", dir);
	snprintf(dump, sizeof(dump), "%s/data.dump", dir);
	addrs = (uint64_t *)slurp(path, &len);
	for (i = 0; i < len / 8; i++)
		code_add(c, dump, i * 4096, 4096, addrs[i]);
	free(addrs);
}

static inline int code_read(void *ctx, uint8_t *buf, size_t size,
			    uint64_t ip)
{
	struct code *c = ctx;
	size_t i;
	uint64_t left;

	for (i = c->n; i-- > 0;) {
		if (ip - c->sec[i].addr >= c->sec[i].size)
			continue;
		left = c->sec[i].size - (ip - c->sec[i].addr);
		return pt_iscache_read(c->isc, buf, size < left ? size : left,
				       c->sec[i].isid, ip);
	}
	return -pte_nomap;
}


struct hist {
	uint64_t *ip;
	uint64_t n, cap;
	uint64_t errors;
	/* Each event: its kind, where (instructions before it) and its IP
	 * fields, folded.
	 */
	uint64_t events, ev_hash;
};

/* A decode error: which, and where, folded with the events. */
static inline void hist_error(struct hist *h, int status)
{
	h->errors++;
	h->ev_hash = (h->ev_hash ^ (h->n << 8) ^ (uint64_t)-status) *
		     0x100000001b3ull;
}

static inline void hist_event(void *ctx, const struct pt_event *ev)
{
	struct hist *h = ctx;
	uint64_t v = (uint64_t)ev->type << 56 ^ h->n << 8 ^
		     (uint64_t)ev->ip_suppressed << 1 ^ ev->status_update;

	switch (ev->type) {
	case ptev_enabled:
		v ^= ev->variant.enabled.ip * 31 ^ ev->variant.enabled.resumed;
		break;
	case ptev_disabled:
		v ^= ev->variant.disabled.ip * 31;
		break;
	case ptev_async_branch:
		v ^= ev->variant.async_branch.from * 31 ^
		     ev->variant.async_branch.to * 37;
		break;
	case ptev_overflow:
		v ^= ev->variant.overflow.ip * 31;
		break;
	case ptev_exec_mode:
		v ^= ev->variant.exec_mode.ip * 31 ^ ev->variant.exec_mode.mode;
		break;
	case ptev_paging:
		v ^= ev->variant.paging.cr3 * 31;
		break;
	default:
		break;
	}
	h->events++;
	h->ev_hash = (h->ev_hash ^ v) * 0x100000001b3ull;
}

static inline void hist_add(void *ctx, uint64_t ip)
{
	struct hist *h = ctx;

	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 1 << 16;
		h->ip = realloc(h->ip, h->cap * sizeof(*h->ip));
		cr_assert(h->ip);
	}
	h->ip[h->n++] = ip;
}

/*
 * tests/bench/iptraw's loop, from the PSB at @from (UINT64_MAX: the first)
 * up to about @cap instructions.
 */
static inline void plain_from(const struct pt_config *cfg, struct code *c,
		       struct hist *h, uint64_t from, uint64_t cap)
{
	struct pt_insn_decoder *d = pt_insn_alloc_decoder(cfg);
	struct pt_insn insn;
	struct pt_event ev;
	int status;

	cr_assert(d);
	pt_insn_set_image(d, c->image);
	status = from == UINT64_MAX ? pt_insn_sync_forward(d) :
				      pt_insn_sync_set(d, from);
	while (status != -pte_eos) {
		if (status < 0) {
			hist_error(h, status);
			status = pt_insn_sync_forward(d);
			continue;
		}
		while (status & pts_event_pending) {
			status = pt_insn_event(d, &ev, sizeof(ev));
			if (status < 0)
				break;
			hist_event(h, &ev);
		}
		if (status < 0)
			continue;
		if (status & pts_eos)
			break;
		if (h->n >= cap)
			break;
		status = pt_insn_next(d, &insn, sizeof(insn));
		if (status >= 0)
			hist_add(h, insn.ip);
	}
	pt_insn_free_decoder(d);
}

static inline void plain_loop(const struct pt_config *cfg, struct code *c,
		       struct hist *h)
{
	plain_from(cfg, c, h, UINT64_MAX, UINT64_MAX);
}

#endif
