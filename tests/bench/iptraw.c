// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * iptraw: the real-trace benchmark's baseline (scripts/bench-real), a plain
 * libipt instruction-decoder loop over a raw Intel PT stream, as a new user
 * would write it: pt_insn_next until the end, resyncing at the next PSB
 * after each decode error.  Code comes from an images list in ptrec
 * import raw's format ('PATH ADDRESS [FILE-OFFSET SIZE]' per line), through
 * libipt's section cache, as its own ptxed does.
 *
 *   iptraw PT[@SKIP] LIST [FAMILY/MODEL/STEPPING [ADDRS [ERRS]]]
 *
 * Prints "N instructions, E errors" (the history ptrec must reproduce) and
 * writes every instruction's address to ADDRS, one 0x... per line, as
 * `ptrec insns --format=addr` does (tests/import/real.sh compares them),
 * and each decode error's position (instructions before it), the
 * decoder's offset there and libipt's message to ERRS, "N OFFSET TEXT"
 * per line (tests/import/onepsb.sh compares ptrec's gaps).
 * Then the events libipt reported, counted per kind in the line ptrec info
 * prints ("    events: enabled 3, ..."), by ptrec's documented rule:
 * status updates (a PSB+ repeating state) are no events, and the
 * execution mode, CR3, VMCS and core:bus ratio count where they change
 * from a value seen before (a CBR outside a PSB+ always).
 */
#include <inttypes.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rawpt.h"

/* ptrec's event kinds, in its order (replay.h, enum rp_event_kind). */
static const char *const kinds[] = {
	"enabled", "disabled", "async-disabled", "interrupt", "paging",
	"overflow", "exec-mode", "tsx", "trace-stop", "vmcs", "exstop",
	"mwait", "pwre", "pwrx", "ptwrite", "cbr", "mnt", "pebs",
};

static uint64_t counts[sizeof(kinds) / sizeof(kinds[0])];
static uint64_t last_mode, last_cr3, last_vmcs, last_cbr;

static struct pt_image *image;
static const char *list_path;

static int changed(uint64_t *last, uint64_t now)
{
	int ret = *last && *last != now;

	*last = now;
	return ret;
}

static void count_event(const struct pt_event *ev)
{
	static const int kind_of[] = {
		[ptev_enabled] = 0, [ptev_disabled] = 1,
		[ptev_async_disabled] = 2, [ptev_async_branch] = 3,
		[ptev_paging] = 4, [ptev_async_paging] = 4,
		[ptev_overflow] = 5, [ptev_exec_mode] = 6, [ptev_tsx] = 7,
		[ptev_stop] = 8, [ptev_vmcs] = 9, [ptev_async_vmcs] = 9,
		[ptev_exstop] = 10, [ptev_mwait] = 11, [ptev_pwre] = 12,
		[ptev_pwrx] = 13, [ptev_ptwrite] = 14, [ptev_tick] = -1,
		[ptev_cbr] = 15, [ptev_mnt] = 16,
	};
	int keep;

	switch (ev->type) {
	case ptev_exec_mode:
		keep = changed(&last_mode, ev->variant.exec_mode.mode + 1u);
		break;
	case ptev_paging:
		keep = changed(&last_cr3, ev->variant.paging.cr3);
		break;
	case ptev_async_paging:
		keep = changed(&last_cr3, ev->variant.async_paging.cr3);
		break;
	case ptev_vmcs:
		keep = changed(&last_vmcs, ev->variant.vmcs.base);
		break;
	case ptev_async_vmcs:
		keep = changed(&last_vmcs, ev->variant.async_vmcs.base);
		break;
	case ptev_cbr:
		keep = changed(&last_cbr, ev->variant.cbr.ratio + 1u) ||
		       (!ev->status_update && last_cbr);
		break;
	default:
		keep = !ev->status_update;
		break;
	}
	if (keep && (unsigned int)ev->type <
	    sizeof(kind_of) / sizeof(kind_of[0]) && kind_of[ev->type] >= 0)
		counts[kind_of[ev->type]]++;
}

/* A line of the images list, through libipt's section cache. */
static int add_cached(void *isc, const char *file, uint64_t off,
		      uint64_t size, uint64_t addr)
{
	int n = pt_iscache_add_file(isc, file, off, size, addr);

	if (n < 0 || pt_image_add_cached(image, isc, n, NULL) < 0) {
		fprintf(stderr, "iptraw: %s: cannot add %s\n", list_path,
			file);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pt_image_section_cache *isc = pt_iscache_alloc(NULL);
	struct pt_insn_decoder *d;
	struct rawpt_pebs pebs = { 0 };
	struct pt_config cfg;
	struct pt_insn insn;
	uint64_t insns = 0, errors = 0;
	size_t i;
	int first;
	char *path;
	size_t skip;
	FILE *addrs = NULL, *errs = NULL;
	uint8_t *buf;
	int status;

	if (argc < 3) {
		fprintf(stderr,
			"usage: iptraw PT[@SKIP] LIST [F/M/S [ADDRS [ERRS]]]\n");
		return 2;
	}
	path = argv[1];
	skip = rawpt_skip(path);
	list_path = argv[2];
	image = pt_image_alloc(NULL);
	if (rawpt_config(&cfg, path, skip, argc > 3 ? argv[3] : NULL, &buf) ||
	    rawpt_load_list(list_path, add_cached, isc)) {
		fprintf(stderr, "iptraw: cannot read %s or %s\n", path,
			argv[2]);
		return 1;
	}
	if (argc > 4) {
		addrs = fopen(argv[4], "w");
		if (!addrs) {
			perror(argv[4]);
			return 1;
		}
	}
	if (argc > 5) {
		errs = fopen(argv[5], "w");
		if (!errs) {
			perror(argv[5]);
			return 1;
		}
	}
	cfg.decode.context = &pebs;
	d = pt_insn_alloc_decoder(&cfg);
	pt_insn_set_image(d, image);
	status = pt_insn_sync_forward(d);
	while (status != -pte_eos) {
		if (status < 0) {
			uint64_t off = 0;

			errors++;
			pt_insn_get_offset(d, &off);
			if (errs)
				fprintf(errs, "%" PRIu64 " %" PRIu64 " %s\n",
					insns, off,
					pt_errstr(pt_errcode(status)));
			status = pt_insn_sync_forward(d);
			continue;
		}
		while (status & pts_event_pending) {
			struct pt_event ev;

			status = pt_insn_event(d, &ev, sizeof(ev));
			if (status < 0)
				break;
			count_event(&ev);
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
	counts[17] += pebs.items;
	for (i = 0, first = 1; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!counts[i])
			continue;
		printf("%s%s %" PRIu64, first ? "    events: " : ", ",
		       kinds[i], counts[i]);
		first = 0;
	}
	if (!first)
		printf("\n");
	if (addrs && fclose(addrs)) {
		perror(argv[4]);
		return 1;
	}
	if (errs && fclose(errs)) {
		perror(argv[5]);
		return 1;
	}
	pt_insn_free_decoder(d);
	pt_image_free(image);
	pt_iscache_free(isc);
	free(buf);
	return 0;
}
