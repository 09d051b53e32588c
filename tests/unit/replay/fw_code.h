/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Code and traces for the flow walker's tests (test_fwalk.c,
 * test_blksrc.c): shared/testdata/real-pt found, files read whole, and
 * code as sections of files (an --images list), read as libipt's image
 * reads it (a read never crosses a section's end).
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

#endif
