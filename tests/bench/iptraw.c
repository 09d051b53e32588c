// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * iptraw: the real-trace benchmark's baseline (scripts/bench-real), a plain
 * libipt instruction-decoder loop over a raw Intel PT stream, as a new user
 * would write it: pt_insn_next until the end, resyncing at the next PSB
 * after each decode error.  Code comes from an images list in ptrec
 * import raw's format ('PATH ADDRESS [FILE-OFFSET SIZE]' per line), through
 * libipt's section cache, as its own ptxed does.
 *
 *   iptraw PT[@SKIP] LIST [FAMILY/MODEL/STEPPING [ADDRS]]
 *
 * Prints "N instructions, E errors" (the history ptrec must reproduce) and
 * writes every instruction's address to ADDRS, one 0x... per line, as
 * `ptrec insns --format=addr` does (tests/import/real.sh compares them).
 */
#include <inttypes.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static int load_list(struct pt_image *image, struct pt_image_section_cache *isc,
		     const char *list)
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
		n = pt_iscache_add_file(isc, path, off, size, addr);
		if (n < 0 || pt_image_add_cached(image, isc, n, NULL) < 0) {
			fprintf(stderr, "iptraw: %s: cannot add %s\n", list,
				path);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	struct pt_image_section_cache *isc = pt_iscache_alloc(NULL);
	struct pt_image *image = pt_image_alloc(NULL);
	struct pt_insn_decoder *d;
	struct pt_config cfg;
	struct pt_insn insn;
	uint64_t insns = 0, errors = 0;
	unsigned int fam, model, step;
	char *at, *path;
	size_t len, skip = 0;
	FILE *addrs = NULL;
	uint8_t *buf;
	int status;

	if (argc < 3) {
		fprintf(stderr, "usage: iptraw PT[@SKIP] LIST [F/M/S]\n");
		return 2;
	}
	path = argv[1];
	at = strrchr(path, '@');
	if (at) {
		*at = '\0';
		skip = strtoul(at + 1, NULL, 0);
	}
	buf = slurp(path, &len);
	if (!buf || skip > len || load_list(image, isc, argv[2])) {
		fprintf(stderr, "iptraw: cannot read %s or %s\n", path,
			argv[2]);
		return 1;
	}
	pt_config_init(&cfg);
	cfg.begin = buf + skip;
	cfg.end = buf + len;
	if (argc > 3 && sscanf(argv[3], "%u/%u/%u", &fam, &model, &step) == 3) {
		cfg.cpu.vendor = pcv_intel;
		cfg.cpu.family = (uint16_t)fam;
		cfg.cpu.model = (uint8_t)model;
		cfg.cpu.stepping = (uint8_t)step;
		pt_cpu_errata(&cfg.errata, &cfg.cpu);
	}
	if (argc > 4) {
		addrs = fopen(argv[4], "w");
		if (!addrs) {
			perror(argv[4]);
			return 1;
		}
	}
	d = pt_insn_alloc_decoder(&cfg);
	pt_insn_set_image(d, image);
	status = pt_insn_sync_forward(d);
	while (status != -pte_eos) {
		if (status < 0) {
			errors++;
			status = pt_insn_sync_forward(d);
			continue;
		}
		while (status & pts_event_pending) {
			struct pt_event ev;

			status = pt_insn_event(d, &ev, sizeof(ev));
			if (status < 0)
				break;
		}
		if (status < 0)
			continue;
		if (status & pts_eos)
			break;
		status = pt_insn_next(d, &insn, sizeof(insn));
		if (status >= 0) {
			insns++;
			if (addrs)
				fprintf(addrs, "0x%" PRIx64 "\n", insn.ip);
		}
	}
	printf("%" PRIu64 " instructions, %" PRIu64 " errors\n", insns,
	       errors);
	if (addrs && fclose(addrs)) {
		perror(argv[4]);
		return 1;
	}
	pt_insn_free_decoder(d);
	pt_image_free(image);
	pt_iscache_free(isc);
	free(buf);
	return 0;
}
