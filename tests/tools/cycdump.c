// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * cycdump PT[@SKIP]: a plain libipt packet dump of a stream's CYC
 * packets, the independent side of tests/import/cycles.sh: for each
 * packet other than PAD, "OFFSET cyc VALUE" for a CYC and "OFFSET other"
 * for the rest, through libipt's packet decoder (resyncing at the next
 * PSB after an error, as ptrec's walk does).
 */
#include <inttypes.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct pt_packet_decoder *d;
	struct pt_packet pkt;
	struct pt_config cfg;
	static uint8_t *buf;
	uint64_t off;
	long skip = 0;
	size_t len;
	char *at;
	FILE *f;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: cycdump PT[@SKIP]\n");
		return 2;
	}
	at = strrchr(argv[1], '@');
	if (at) {
		*at = 0;
		skip = atol(at + 1);
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END)) {
		perror(argv[1]);
		return 1;
	}
	len = (size_t)ftell(f) - (size_t)skip;
	buf = malloc(len ? len : 1);
	if (!buf || fseek(f, skip, SEEK_SET) || fread(buf, 1, len, f) != len) {
		perror(argv[1]);
		return 1;
	}
	fclose(f);
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d)
		return 1;
	ret = pt_pkt_sync_forward(d);
	while (ret >= 0) {
		pt_pkt_get_offset(d, &off);
		ret = pt_pkt_next(d, &pkt, sizeof(pkt));
		if (ret == -pte_eos)
			break;
		if (ret < 0) {
			ret = pt_pkt_sync_forward(d);
			continue;
		}
		if (pkt.type == ppt_cyc)
			printf("%" PRIu64 " cyc %" PRIu64 "\n", off,
			       pkt.payload.cyc.value);
		else if (pkt.type != ppt_pad)
			printf("%" PRIu64 " other\n", off);
	}
	pt_pkt_free_decoder(d);
	free(buf);
	return 0;
}
