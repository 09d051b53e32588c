// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * fwraw: the block-cache flow walker (replay/fwalk.c) against libipt's
 * two decoders over the same raw PT stream and code, for the experiment
 * in docs/performance.md ("A block-cache flow walker", issue #19).
 *
 *   fwraw MODE PT[@SKIP] LIST [FAMILY/MODEL/STEPPING [ADDRS]]
 *   fwraw MODE --bundle DIR [ADDRS]
 *
 * MODE: insn (tests/bench/iptraw's plain pt_insn_next loop), blk (a
 * pt_blk_next loop configured as the index pass configures it: blocks end
 * at calls and jumps), walk (rp_fwalk_run()) or walkcs (the walker with
 * capstone as its length decoder, to measure that).  LIST is ptrec import
 * raw's images list ('PATH ADDRESS [FILE-OFFSET SIZE]').  Prints
 * "N instructions, E errors" and, for insn and walk, each instruction's
 * address to ADDRS (iptraw's format), so that the two can be compared.
 * With --bundle, a recording's stream (its only thread's, DIR/pt/) and code
 * (every mapping its sideband lists, wherever in time: a test program
 * maps nothing twice at one address), to compare with its ground truth.
 * Set FWRAW_REPEAT=N to decode N times in one process (for callgrind:
 * the fixed costs then divide out).
 */
#include <inttypes.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <capstone/capstone.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

#include "../../replay/fwalk.h"
#include "iptloop.h"
#include "rawpt.h"

struct sec {
	int isid;
	uint64_t addr, size;
};

static struct pt_image_section_cache *isc;
static struct sec *secs;
static size_t nsecs;
static FILE *addrs;

/* A section of code, in libipt's image and in the walker's table. */
static int add_section(void *image, const char *path, uint64_t off,
		       uint64_t size, uint64_t addr)
{
	struct stat st;
	int n;

	if (size == UINT64_MAX) {
		off = 0;
		size = stat(path, &st) ? 0 : (uint64_t)st.st_size;
	}
	n = pt_iscache_add_file(isc, path, off, size, addr);
	if (n < 0 || pt_image_add_cached(image, isc, n, NULL) < 0) {
		fprintf(stderr, "fwraw: cannot add %s\n", path);
		return -1;
	}
	secs = realloc(secs, (nsecs + 1) * sizeof(*secs));
	if (!secs)
		return -1;
	secs[nsecs].isid = n;
	secs[nsecs].addr = addr;
	secs[nsecs].size = size;
	nsecs++;
	return 0;
}

/* A recording: its sideband's mappings, and the path of its stream. */
static int load_bundle(struct pt_image *image, const char *dir, char *pt,
		       int ptsz)
{
	struct dirent *de;
	char path[4352];
	DIR *d;
	int ret = -1;

	if (iptloop_images(dir, add_section, image))
		return -1;
	snprintf(path, sizeof(path), "%s/pt", dir);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (!strstr(de->d_name, ".pt"))
			continue;
		if (snprintf(pt, (size_t)ptsz, "%s/pt/%.255s", dir,
				     de->d_name) < ptsz)
			ret = 0;
		break;
	}
	if (d)
		closedir(d);
	return ret;
}

/* The walker's code: the last listed section holding @ip (libipt's rule). */
static int read_code(void *ctx, uint8_t *buf, size_t size, uint64_t ip)
{
	static size_t hint;
	size_t i;
	uint64_t left;

	(void)ctx;
	if (hint < nsecs && ip - secs[hint].addr < secs[hint].size) {
		i = hint;
	} else {
		for (i = nsecs; i-- > 0;)
			if (ip - secs[i].addr < secs[i].size)
				break;
		if (i == SIZE_MAX)
			return -pte_nomap;
		hint = i;
	}
	left = secs[i].size - (ip - secs[i].addr);
	if (size > left)
		size = (size_t)left;
	return pt_iscache_read(isc, buf, size, secs[i].isid, ip);
}

static void put_addr(void *ctx, uint64_t ip)
{
	(void)ctx;
	fprintf(addrs, "0x%" PRIx64 "\n", ip);
}

/*
 * libipt's instruction decoder (@blk 0) or block decoder (@blk 1, its
 * blocks ending at calls and jumps as the index pass configures it)
 * straight through, resyncing at the next PSB after each error.  Inlined
 * into run_insn() and run_blk() with @blk a constant, so that neither
 * loop tests it (callgrind counts each mode's own loop).
 */
static inline __attribute__((always_inline)) void
run_libipt(const struct pt_config *cfg0, struct pt_image *image, int blk,
	   uint64_t *insns, uint64_t *errors)
{
	struct pt_config cfg = *cfg0;
	struct pt_insn_decoder *id = NULL;
	struct pt_block_decoder *bd = NULL;
	struct pt_insn insn;
	struct pt_block b;
	struct pt_event ev;
	int status;

	if (blk) {
		cfg.flags.variant.block.end_on_jump = 1;
		cfg.flags.variant.block.end_on_call = 1;
		bd = pt_blk_alloc_decoder(&cfg);
		pt_blk_set_image(bd, image);
		status = pt_blk_sync_forward(bd);
	} else {
		id = pt_insn_alloc_decoder(&cfg);
		pt_insn_set_image(id, image);
		status = pt_insn_sync_forward(id);
	}
	while (status != -pte_eos) {
		if (status < 0) {
			++*errors;
			status = blk ? pt_blk_sync_forward(bd) :
				       pt_insn_sync_forward(id);
			continue;
		}
		while (status & pts_event_pending) {
			status = blk ? pt_blk_event(bd, &ev, sizeof(ev)) :
				       pt_insn_event(id, &ev, sizeof(ev));
			if (status < 0)
				break;
		}
		if (status < 0)
			continue;
		if (status & pts_eos)
			break;
		if (blk) {
			b.ninsn = 0;
			status = pt_blk_next(bd, &b, sizeof(b));
			*insns += b.ninsn;
			continue;
		}
		status = pt_insn_next(id, &insn, sizeof(insn));
		if (status >= 0) {
			++*insns;
			if (addrs)
				put_addr(NULL, insn.ip);
		}
	}
	if (blk)
		pt_blk_free_decoder(bd);
	else
		pt_insn_free_decoder(id);
}

static void __attribute__((noinline))
run_insn(const struct pt_config *cfg, struct pt_image *image,
	 uint64_t *insns, uint64_t *errors)
{
	run_libipt(cfg, image, 0, insns, errors);
}

static void __attribute__((noinline))
run_blk(const struct pt_config *cfg, struct pt_image *image,
	uint64_t *insns, uint64_t *errors)
{
	run_libipt(cfg, image, 1, insns, errors);
}

/*
 * Mode walkcs: capstone as the walker's length decoder, as the house rule
 * would have it (operand details off: the class from capstone's id, a
 * direct target from the bytes), to measure what it costs against
 * fw_ild.c.  MOV to CR3 and the other event bindings are left out: not
 * for histories with them.
 */
static csh cs;
static cs_insn *ci;

static int cs_ild(const uint8_t *buf, size_t n, struct rp_fwalk_insn *in)
{
	const uint8_t *code = buf, *op;
	size_t size = n;
	uint64_t addr = in->ip;

	if (!cs_disasm_iter(cs, &code, &size, &addr, ci))
		return -pte_bad_insn;
	in->size = (uint8_t)ci->size;
	in->iclass = ptic_other;
	in->flags = 0;
	in->disp = 0;
	for (op = ci->bytes; op < ci->bytes + ci->size - 1 &&
	     (*op == 0x66 || *op == 0x67 || *op == 0xf2 || *op == 0xf3 ||
	      *op == 0x2e || *op == 0x3e || (*op & 0xf0) == 0x40); op++)
		;
	switch (ci->id) {
	case X86_INS_RET:
		in->iclass = ptic_return;
		return 0;
	case X86_INS_CALL:
	case X86_INS_JMP:
		in->iclass = ci->id == X86_INS_CALL ? ptic_call : ptic_jump;
		if (*op != 0xe8 && *op != 0xe9 && *op != 0xeb)
			return 0;
		break;
	case X86_INS_SYSCALL:
	case X86_INS_INT3:
		in->iclass = ptic_far_call;
		in->flags = RP_FWF_CPL;
		return 0;
	case X86_INS_XBEGIN:
		return 0;
	default:
		if ((*op >= 0x70 && *op <= 0x7f) || (*op >= 0xe0 &&
		    *op <= 0xe3) || (op[0] == 0x0f && (op[1] & 0xf0) == 0x80)) {
			in->iclass = ptic_cond_jump;
			break;
		}
		return 0;
	}
	in->flags = RP_FWF_DIRECT;
	if (*op == 0xeb || (*op >= 0x70 && *op <= 0x7f) ||
	    (*op >= 0xe0 && *op <= 0xe3))
		in->disp = (int8_t)ci->bytes[ci->size - 1];
	else
		memcpy(&in->disp, ci->bytes + ci->size - 4, 4);
	return 0;
}

/* The walker, from its start to its end (callgrind's --toggle-collect). */
static int __attribute__((noinline))
run_walk(const struct pt_config *cfg, uint64_t *insns, uint64_t *errors,
	 uint64_t *blocks)
{
	struct rp_fwalk *fw = rp_fwalk_new(cfg, read_code, NULL);
	int ret;

	if (!fw)
		return -pte_nomem;
	if (ci)
		rp_fwalk_set_ild(fw, cs_ild);
	ret = rp_fwalk_run(fw, insns, errors, addrs ? put_addr : NULL, NULL,
			   NULL);
	*blocks = rp_fwalk_blocks_decoded(fw);
	rp_fwalk_free(fw);
	return ret;
}

/* The code, again for each pass: no pass finds libipt's caches warm. */
static const char *bundle_dir, *list_path;

static struct pt_image *load_code(char *ptpath, size_t ptsz)
{
	struct pt_image *image = pt_image_alloc(NULL);

	free(secs);
	secs = NULL;
	nsecs = 0;
	isc = pt_iscache_alloc(NULL);
	if (!image || !isc)
		return NULL;
	if (bundle_dir ? load_bundle(image, bundle_dir, ptpath, (int)ptsz) :
			 rawpt_load_list(list_path, add_section, image)) {
		fprintf(stderr, "fwraw: cannot read %s\n",
			bundle_dir ? bundle_dir : list_path);
		return NULL;
	}
	return image;
}

int main(int argc, char **argv)
{
	struct pt_image *image;
	struct pt_config cfg;
	uint64_t insns = 0, errors = 0, blocks = 0;
	const char *mode, *rep = getenv("FWRAW_REPEAT"), *fms = NULL;
	char *path, ptpath[4352];
	const char *addrs_path = argc > 5 ? argv[5] : NULL;
	size_t skip = 0;
	long n = rep ? atol(rep) : 1, i;
	double best = 0, t;
	uint8_t *buf;

	if (argc < 4) {
		fprintf(stderr,
			"usage: fwraw insn|blk|walk PT[@SKIP] LIST [F/M/S [ADDRS]]\n"
			"       fwraw insn|blk|walk --bundle DIR [ADDRS]\n");
		return 2;
	}
	mode = argv[1];
	if (!strcmp(argv[2], "--bundle")) {
		bundle_dir = argv[3];
		path = ptpath;
		addrs_path = argc > 4 ? argv[4] : NULL;
	} else {
		path = argv[2];
		list_path = argv[3];
		skip = rawpt_skip(path);
		fms = argc > 4 ? argv[4] : NULL;
	}
	image = load_code(ptpath, sizeof(ptpath));
	if (!image)
		return 1;
	if (rawpt_config(&cfg, path, skip, fms, &buf)) {
		fprintf(stderr, "fwraw: cannot read %s\n", path);
		return 1;
	}
	if (addrs_path) {
		addrs = fopen(addrs_path, "w");
		if (!addrs) {
			perror(addrs_path);
			return 1;
		}
	}
	if (n < 1)
		n = 1;
	for (i = 0; i < n; i++) {
		if (i) {
			pt_image_free(image);
			pt_iscache_free(isc);
			image = load_code(ptpath, sizeof(ptpath));
			if (!image)
				return 1;
		}
		insns = errors = 0;
		t = iptloop_now();
		if (!strcmp(mode, "insn")) {
			run_insn(&cfg, image, &insns, &errors);
		} else if (!strcmp(mode, "blk")) {
			run_blk(&cfg, image, &insns, &errors);
		} else if (!strcmp(mode, "walk") || !strcmp(mode, "walkcs")) {
			if (!ci && mode[4] &&
			    cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK)
				ci = cs_malloc(cs);
			int ret = run_walk(&cfg, &insns, &errors, &blocks);

			if (ret == -pte_nomem) {
				fprintf(stderr, "fwraw: cannot start the walker\n");
				return 1;
			}
			if (ret < 0) {
				if (addrs)
					fclose(addrs);
				fprintf(stderr, "fwraw: walker stopped after %" PRIu64 " instructions: %s\n",
					insns, pt_errstr(pt_errcode(ret)));
				return 1;
			}
		} else {
			fprintf(stderr, "fwraw: unknown mode %s\n", mode);
			return 2;
		}
		t = iptloop_now() - t;
		if (!i || t < best)
			best = t;
		if (addrs) {
			fclose(addrs);
			addrs = NULL;
		}
	}
	printf("%" PRIu64 " instructions, %" PRIu64 " errors\n", insns,
	       errors);
	if (blocks)
		printf("    %" PRIu64 " blocks decoded\n", blocks);
	printf("    best of %ld: %.6f s\n", n, best);
	pt_image_free(image);
	pt_iscache_free(isc);
	free(secs);
	free(buf);
	return 0;
}
