// SPDX-License-Identifier: GPL-3.0-or-later
/* The benchmarks' input readers (rawpt.h): libipt and libc only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rawpt.h"

uint8_t *rawpt_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = n < 0 ? NULL : malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = buf ? (size_t)n : 0;
	return buf;
}

size_t rawpt_skip(char *arg)
{
	char *at = strrchr(arg, '@');

	if (!at)
		return 0;
	*at = '\0';
	return strtoul(at + 1, NULL, 0);
}

int rawpt_config(struct pt_config *cfg, const char *path, size_t skip,
		 const char *fms, uint8_t **buf)
{
	unsigned int fam, model, step;
	size_t len;

	*buf = rawpt_slurp(path, &len);
	if (!*buf || skip > len)
		return -1;
	pt_config_init(cfg);
	cfg->begin = *buf + skip;
	cfg->end = *buf + len;
	if (fms && sscanf(fms, "%u/%u/%u", &fam, &model, &step) == 3) {
		cfg->cpu.vendor = pcv_intel;
		cfg->cpu.family = (uint16_t)fam;
		cfg->cpu.model = (uint8_t)model;
		cfg->cpu.stepping = (uint8_t)step;
		pt_cpu_errata(&cfg->errata, &cfg->cpu);
	}
	cfg->decode.callback = rawpt_unknown;
	return 0;
}

int rawpt_unknown(struct pt_packet_unknown *u, const struct pt_config *cfg,
		  const uint8_t *pos, void *ctx)
{
	struct rawpt_pebs *pebs = ctx;
	const uint8_t *q = pos + 3;
	size_t item;

	(void)u;
	if (cfg->end - pos >= 2 && pos[0] == 2 &&
	    (pos[1] == 0x33 || pos[1] == 0xb3))
		return 2;
	if (cfg->end - pos < 3 || pos[0] != 2 || pos[1] != 0x63)
		return -pte_bad_opc;
	item = pos[2] & 0x80 ? 4 : 8;
	while ((size_t)(cfg->end - q) > item && (*q & 7) == 4) {
		if (pebs && pos > pebs->last)
			pebs->items++;
		q += 1 + item;
	}
	if (pebs && pos > pebs->last)
		pebs->last = pos;
	if (cfg->end - q >= 2 && q[0] == 2 && (q[1] == 0x33 || q[1] == 0xb3))
		q += 2;
	return (int)(q - pos);
}

int rawpt_load_list(const char *list, rawpt_add_fn add, void *ctx)
{
	FILE *f = fopen(list, "r");
	char line[4352], path[4096];
	unsigned long long addr, off, size;
	int n;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%4095s %llx %llu %llu", path, &addr, &off,
			   &size);
		if (n < 2)
			continue;
		if (n < 4) {
			off = 0;
			size = UINT64_MAX;
		}
		if (add(ctx, path, off, size, addr)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}
