// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptgen: synthetic traces at scale (issue #7, docs/scale.md).
 *
 * Generates an x86-64 program from a seed (an ELF written byte by byte:
 * one executable PT_LOAD segment and a symbol table), walks it
 * pseudo-randomly for exactly N instructions, and writes a trace bundle as
 * the software recorder would: the image in the store, snapshot sideband,
 * one thread whose PT stream comes from ptkit/ptenc.c (PSB+ every
 * --psb-period bytes, TSC, TNT-8 or long TNT, TIP for indirect branches and
 * for returns that return compression does not cover), and a compact
 * ground truth (tools/ptgen/truth.h).
 *
 * The walk works per basic block: each block's instruction count, address
 * hash contribution and terminating branch are computed once, so the hot
 * loop costs a few operations per block and one encoder call per branch.
 *
 * The program: main loops forever calling level-1 functions (directly and
 * through pointer tables); level-1 functions call level-2 ones and the
 * recursive functions; level 2 calls the leaves.  Functions have
 * conditional branches (forward, and backward ones that make loops), jump
 * tables, direct jumps and returns.  main's first call goes to a recursive
 * function.  The recursive functions recurse to a depth drawn per
 * outermost call (up to --max-depth, beyond the 64 entries of the
 * return-compression stack).
 *
 * --events K adds about one group of event packets per K blocks, at a
 * block's first instruction (where the decoder binds each, issue #21):
 * TSX begin or commit (MODE.TSX + FUP), an MWAIT sleep (MWAIT, PWRE,
 * EXSTOP + FUP, PWRX), either followed by a core:bus ratio change (CBR);
 * and PTWRITE instructions among the fillers (about one in 64), each with
 * its PTW + FUP.  DIR.events lists them as `ptrec insns` prints them,
 * "N [TEXT]", N the number of the instruction they come before.
 */
#include "ptgen.h"

/* ---- the walk ------------------------------------------------------------------ */

struct stats {
	uint64_t blocks, cond_taken, cond_not, loops, jmp, call, icall, jtab;
	uint64_t ret, max_depth, max_rec, psbs, samples;
};

struct frame {
	uint64_t call_pos;
	uint32_t ret_block;
	bool rec;
};

struct walker {
	struct prog *p;
	struct ptenc enc;
	FILE *truth;
	uint64_t n, pos;
	uint64_t *last_pos;
	struct frame *stack;
	size_t depth;
	uint64_t rec_depth, rec_target, max_depth_arg;
	struct ptgen_seg seg;
	uint64_t sample_gap, next_sample;
	struct stats st;
	uint64_t end_ip;	/* where the history stops: not executed */
	int err;
	uint64_t events_every;	/* --events K: 0 none */
	FILE *events;		/* DIR.events */
	uint64_t nevents;
	bool in_tsx;
	uint8_t cbr;
	/* The number of the instruction before which the decoder reads the
	 * next packet: after the last one that took a packet (TNT, TIP) or
	 * the last event group.  Events bound to no address (PWRE) are
	 * reported there.
	 */
	uint64_t read_at;
};

/*
 * The PTWRITEs among the first @k instructions of block @b (at w->pos):
 * PTW + FUP each, written at the block's start, bound by the decoder to
 * its instruction (the block has no other packet before its end).
 */
static int ptwrites(struct walker *w, const struct block *b, uint32_t k)
{
	uint64_t ip = b->ip;
	uint32_t j;
	int ret = 0;

	for (j = 0; j < k && j < b->ninsn && !ret; j++) {
		unsigned int kind = w->p->ilen[b->first_insn + j];

		if (j + 1 < b->ninsn || b->term == T_NONE) {
			if (kind == PTW_FILL) {
				uint64_t v = (w->pos + j) * 0x9e3779b97f4a7c15ull;

				ret = ptenc_ptwrite(&w->enc, ip, v, 8);
				fprintf(w->events, "%" PRIu64
					" [ptwrite: 0x%" PRIx64 "]\n",
					w->pos + j + 2, v);
				w->nevents++;
				w->read_at = w->pos + j + 2;
			}
			ip += fillers[kind].len;
		}
	}
	return ret;
}

/* One group of events before instruction w->pos, at @ip. */
static int events(struct walker *w, uint64_t ip)
{
	uint64_t r = rnd();
	uint64_t n = w->pos + 1;
	int ret;

	if (r & 1) {
		ret = ptenc_tsx(&w->enc, ip, !w->in_tsx, false);
		fprintf(w->events, "%" PRIu64 " [tsx: %s]\n", n,
			w->in_tsx ? "commit" : "begin");
		w->in_tsx = !w->in_tsx;
		w->nevents++;
	} else {
		ret = ptenc_power(&w->enc, ip, 0x20, 1, 0, 2);
		fprintf(w->events, "%" PRIu64 " [pwre: state 0x1, sub-state 0x0]\n"
			"%" PRIu64 " [mwait: hints 0x20, ext 0x0]\n"
			"%" PRIu64 " [exstop: at 0x%" PRIx64 "]\n"
			"%" PRIu64 " [pwrx: last 0x1, deepest 0x2, woken by an interrupt]\n",
			w->read_at, n, n, ip, n);
		w->nevents += 4;
	}
	if (!ret && (r & 2)) {
		w->cbr = (uint8_t)(w->cbr % 32 + 8);	/* 8..39, never 0 */
		ret = ptenc_cbr(&w->enc, w->cbr);
		fprintf(w->events, "%" PRIu64 " [cbr: %u]\n", n, w->cbr);
		w->nevents++;
	}
	w->read_at = n;
	return ret;
}

static void put_seg(struct walker *w, uint64_t next_first)
{
	w->seg.n = next_first - w->seg.first;
	if (fwrite(&w->seg, sizeof(w->seg), 1, w->truth) != 1)
		w->err = -EIO;
	w->seg.first = next_first;
	w->seg.hash = 0;
}

/* Samples go to a temporary file: the header comes first, their count
 * is known at the end.
 */
static FILE *sample_file;

static void sample(struct walker *w, uint32_t bi, bool by_ret)
{
	struct ptgen_sample s;

	s.index = w->pos;
	s.ip = w->p->b[bi].ip;
	s.prev = w->last_pos[bi];
	s.frame_call = w->depth ? w->stack[w->depth - 1].call_pos :
		       PTGEN_NONE;
	s.ret_call = by_ret ? w->stack[w->depth].call_pos : PTGEN_NONE;
	if (fwrite(&s, sizeof(s), 1, sample_file) != 1)
		w->err = -EIO;
	w->st.samples++;
	w->next_sample = w->pos + 1 + rnd() % w->sample_gap;
}

static int walk(struct walker *w)
{
	struct prog *p = w->p;
	struct block *blocks = p->b;
	uint32_t cur = p->f[0].first, next;
	uint64_t mark = w->enc.psb_mark, h = 0;
	bool by_ret = false;
	int ret;

	ret = ptenc_start(&w->enc, TSC0);
	if (!ret)
		ret = ptenc_enable(&w->enc, blocks[cur].ip, TSC0);
	mark = w->enc.psb_mark;
	w->read_at = 1;
	if (w->events)
		fprintf(w->events, "1 [enabled]\n");
	while (!ret && w->pos < w->n) {
		struct block *b = &blocks[cur];

		ret = ptenc_boundary(&w->enc, b->ip, TSC0 + w->pos);
		if (w->enc.psb_mark != mark) {
			mark = w->enc.psb_mark;
			w->seg.hash = h;
			put_seg(w, w->pos);
			h = 0;
			w->st.psbs++;
			/* Its FUP binds here: read on from here. */
			w->read_at = w->pos + 1;
		}
		if (w->pos >= w->next_sample)
			sample(w, cur, by_ret);
		if (!ret && w->events_every && !(rnd() % w->events_every))
			ret = events(w, b->ip);
		if (!ret && w->events_every)
			ret = ptwrites(w, b, (uint32_t)(w->n - w->pos < b->ninsn ?
					       w->n - w->pos : b->ninsn));
		w->last_pos[cur] = w->pos;
		if (w->pos + b->ninsn > w->n) {
			/* The last block, cut: its first n - pos insns. */
			uint64_t ip = b->ip;
			uint32_t j, k = (uint32_t)(w->n - w->pos);

			for (j = 0; j < k; j++) {
				h = h * PTGEN_HASH_MUL + ip;
				ip += fillers[p->ilen[b->first_insn + j]].len;
			}
			w->pos = w->n;
			w->seg.hash = h;
			w->end_ip = ip;
			if (!ret)
				ret = ptenc_disable_async(&w->enc, ip);
			if (w->events)
				fprintf(w->events, "%" PRIu64
					" [disabled: at 0x%" PRIx64 "]\n",
					w->pos + 1, ip);
			return ret;
		}
		h = h * b->hmul + b->hadd;
		w->pos += b->ninsn;
		w->st.blocks++;
		by_ret = false;
		/* ptenc counts retired instructions for its TSC period. */
		w->enc.since_tsc += b->ninsn - (b->term != T_NONE);
		switch (b->term) {
		case T_NONE:
			next = cur + 1;
			break;
		case T_COND: {
			bool taken = b->rec_cond ?
				     w->rec_depth >= w->rec_target :
				     (uint32_t)(rnd() >> 32) < b->taken;

			next = taken ? b->target : cur + 1;
			if (taken) {
				w->st.cond_taken++;
				if (b->target <= cur)
					w->st.loops++;
			} else {
				w->st.cond_not++;
			}
			break;
		}
		case T_JMP:
			next = b->target;
			w->st.jmp++;
			break;
		case T_JTAB:
			next = p->tabs[b->tab + rndn(b->ntab)];
			w->st.jtab++;
			break;
		case T_CALL:
		case T_ICALL: {
			uint32_t fi = b->term == T_CALL ? b->target :
				      p->tabs[b->tab + rndn(b->ntab)];
			struct frame *fr = &w->stack[w->depth++];

			if (w->depth == MAX_STACK) {
				fprintf(stderr, CMD ": call stack overflow\n");
				return -EOVERFLOW;
			}
			fr->call_pos = w->pos - 1;
			fr->ret_block = cur + 1;
			fr->rec = p->f[fi].level == 4;
			/* Mostly shallow, one in four up to --max-depth. */
			if (fr->rec && !w->rec_depth++)
				w->rec_target = 1 + rnd() % (rnd() & 3 ? 8 :
							      w->max_depth_arg);
			if (fr->rec && w->rec_depth > w->st.max_rec)
				w->st.max_rec = w->rec_depth;
			if (w->depth > w->st.max_depth)
				w->st.max_depth = w->depth;
			next = p->f[fi].first;
			if (b->term == T_CALL)
				w->st.call++;
			else
				w->st.icall++;
			break;
		}
		case T_RET: {
			struct frame *fr = &w->stack[--w->depth];

			next = fr->ret_block;
			if (fr->rec)
				w->rec_depth--;
			by_ret = true;
			w->st.ret++;
			break;
		}
		default:
			return -EINVAL;
		}
		if (!ret && b->term != T_NONE)
			ret = ptenc_retire(&w->enc, &b->tin, b->term_ip,
					   blocks[next].ip);
		if (b->term != T_NONE && b->term != T_JMP &&
		    b->term != T_CALL)
			w->read_at = w->pos + 1;
		if (ret > 0) {
			fprintf(stderr, CMD ": encoder refused a transfer\n");
			return -EPROTO;
		}
		cur = next;
	}
	w->seg.hash = h;
	w->end_ip = blocks[cur].ip;
	if (!ret)
		ret = ptenc_disable_async(&w->enc, blocks[cur].ip);
	if (w->events)
		fprintf(w->events, "%" PRIu64 " [disabled: at 0x%" PRIx64 "]\n",
			w->pos + 1, blocks[cur].ip);
	return ret;
}

/* ---- the bundle ------------------------------------------------------------------ */

static int add_sideband(struct sb_bundle *bn, const char *key,
			const char *origin, uint64_t len, struct sb_err *err)
{
	struct ptrec_sb_time tm = {
		.hdr = { .type = PTREC_SB_TIME, .time = 1 },
		.time_mult = 1, .tsc_hz = 1000000000ull };
	struct ptrec_sb_comm comm = {
		.hdr = { .type = PTREC_SB_COMM, .time = 1,
			 .flags = PTREC_SB_F_SNAPSHOT },
		.pid = PID, .tid = PID, .comm = "ptgen" };
	struct ptrec_sb_mmap mm = {
		.hdr = { .type = PTREC_SB_MMAP, .time = 1,
			 .flags = PTREC_SB_F_SNAPSHOT },
		.pid = PID, .tid = PID, .start = BASE, .len = len,
		.pgoff = 0, .prot = PROT_READ | PROT_EXEC,
		.mflags = MAP_PRIVATE };
	struct sb_writer *w;
	int ret;

	ret = sb_bundle_open_sideband(bn, &w, err);
	if (!ret)
		ret = sb_writer_add(w, &tm.hdr, err);
	if (!ret)
		ret = sb_writer_add(w, &comm.hdr, err);
	if (!ret)
		ret = sb_writer_add_mmap(w, &mm, key, origin, err);
	return ret;
}

/* The register snapshot at the end: the PC only (nothing else ran). */
static int write_regs(struct sb_bundle *bn, const struct sb_thread *th,
		      uint64_t ip)
{
	struct sb_regs regs;
	struct sb_err err;
	char path[4096];
	int ret;

	memset(&regs, 0, sizeof(regs));
	regs.tid = th->tid;
	regs.valid = 1ull << SB_REG_RIP;
	regs.val[SB_REG_RIP] = ip;
	if (!th->regs || sb_bundle_path(bn, th->regs, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	ret = sb_regs_save(&regs, path, &err);
	if (ret)
		fprintf(stderr, CMD ": %s\n", err.msg);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " CMD " -o DIR [--insns N] [--seed S] [--truth FILE] [--elf FILE]\n"
		"             [--psb-period BYTES] [--long-tnt] [--samples K] [--max-depth D]\n"
		"             [--events K]\n"
		"\n"
		"  -o DIR            the bundle to write (must not exist or be empty)\n"
		"  --insns N         instructions in the history (default 1000000; 1e9 works)\n"
		"  --seed S          program and walk seed (default 1)\n"
		"  --truth FILE      compact ground truth (default DIR.truth)\n"
		"  --elf FILE        also write the generated program there\n"
		"  --psb-period B    bytes between PSBs (default 4096)\n"
		"  --long-tnt        long TNT packets (47 bits) instead of TNT-8\n"
		"  --samples K       about K sampled positions (default 1024)\n"
		"  --max-depth D     deepest recursion (default 200)\n"
		"  --events K        event packets about every K blocks, listed in DIR.events\n");
}

static int parse_num(const char *opt, const char *arg, uint64_t *v)
{
	char *e;
	double d;

	errno = 0;
	*v = strtoull(arg, &e, 0);
	if (!errno && !*e && arg[0] != '-')
		return 0;
	/* 1e9 */
	d = strtod(arg, &e);
	if (!*e && d >= 0 && d < 1.8e19 && arg[0] != '-') {
		*v = (uint64_t)d;
		return 0;
	}
	fprintf(stderr, CMD ": %s %s: not a number\n", opt, arg);
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "insns", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "truth", required_argument, NULL, 't' },
		{ "elf", required_argument, NULL, 'e' },
		{ "psb-period", required_argument, NULL, 'P' },
		{ "long-tnt", no_argument, NULL, 'L' },
		{ "samples", required_argument, NULL, 'k' },
		{ "max-depth", required_argument, NULL, 'd' },
		{ "events", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t insns = 1000000, seed = 1, psb = 4096, nsamples = 1024;
	uint64_t maxdepth = 200, events_every = 0;
	const char *out = NULL, *truth = NULL, *elf = NULL;
	char truth_buf[4096], key[SB_IMAGE_KEY_MAX], path[4096];
	const struct sb_thread *th;
	struct ptgen_truth_hdr hdr;
	struct walker w;
	struct prog p;
	struct sb_bundle *bn;
	struct sb_manifest *m;
	struct sb_err err;
	struct timespec t0, t1;
	bool long_tnt = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'n':
			if (parse_num("--insns", optarg, &insns))
				return 2;
			break;
		case 's':
			if (parse_num("--seed", optarg, &seed))
				return 2;
			break;
		case 't':
			truth = optarg;
			break;
		case 'e':
			elf = optarg;
			break;
		case 'P':
			if (parse_num("--psb-period", optarg, &psb))
				return 2;
			if (psb < 64) {
				fprintf(stderr, CMD ": --psb-period %s: at least 64\n",
					optarg);
				return 2;
			}
			break;
		case 'L':
			long_tnt = true;
			break;
		case 'k':
			if (parse_num("--samples", optarg, &nsamples))
				return 2;
			break;
		case 'd':
			if (parse_num("--max-depth", optarg, &maxdepth))
				return 2;
			if (!maxdepth || maxdepth > MAX_STACK / 2) {
				fprintf(stderr, CMD ": --max-depth %s: 1 to %d\n",
					optarg, MAX_STACK / 2);
				return 2;
			}
			break;
		case 'E':
			if (parse_num("--events", optarg, &events_every))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!out || optind < argc) {
		fprintf(stderr, CMD ": %s\n", out ? "unexpected argument" :
			"-o DIR is required");
		usage(stderr);
		return 2;
	}
	if (!insns) {
		fprintf(stderr, CMD ": --insns 0: nothing to generate\n");
		return 2;
	}
	if (!truth) {
		snprintf(truth_buf, sizeof(truth_buf), "%s.truth", out);
		truth = truth_buf;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(&p, 0, sizeof(p));
	with_ptwrite = events_every > 0;
	rng_state = seed * 0x9e3779b97f4a7c15ull + 0x1234567;
	if (!rng_state)
		rng_state = 1;
	gen_prog(&p);
	layout(&p);
	block_hashes(&p);
	build_elf(&p);
	if (elf) {
		FILE *f = fopen(elf, "wb");

		if (!f || fwrite(p.elf, 1, p.elf_size, f) != p.elf_size ||
		    fclose(f)) {
			fprintf(stderr, CMD ": --elf %s: %s\n", elf,
				strerror(errno));
			return 1;
		}
	}

	ret = sb_bundle_create(&bn, out, &err);
	if (ret) {
		fprintf(stderr, CMD ": -o %s: %s\n", out, err.msg);
		return 1;
	}
	m = sb_bundle_manifest(bn);
	ret = sb_bundle_add_image_mem(bn, p.elf, p.elf_size,
				      elf ? elf : "ptgen-program", key,
				      sizeof(key), &err);
	if (!ret)
		ret = add_sideband(bn, key, elf ? elf : "ptgen-program",
				   ((p.text_end - BASE) + 0xfff) & ~0xfffull,
				   &err);
	if (ret) {
		fprintf(stderr, CMD ": %s\n", err.msg);
		goto fail;
	}
	if (sb_bundle_add_thread(bn, PID, PID, false, &th) ||
	    sb_bundle_path(bn, th->pt, path, sizeof(path)) < 0) {
		fprintf(stderr, CMD ": cannot add the thread\n");
		goto fail;
	}

	memset(&w, 0, sizeof(w));
	w.p = &p;
	w.n = insns;
	w.max_depth_arg = maxdepth;
	w.sample_gap = nsamples ? 2 * insns / nsamples + 1 : UINT64_MAX;
	w.next_sample = nsamples ? rnd() % w.sample_gap : UINT64_MAX;
	w.last_pos = malloc(p.nb * sizeof(*w.last_pos));
	w.stack = calloc(MAX_STACK, sizeof(*w.stack));
	if (!w.last_pos || !w.stack)
		return 1;
	memset(w.last_pos, 0xff, p.nb * sizeof(*w.last_pos));
	ret = ptenc_open(&w.enc, path, psb, long_tnt);
	if (ret) {
		fprintf(stderr, CMD ": %s: %s\n", path, strerror(-ret));
		goto fail;
	}
	w.truth = fopen(truth, "wb");
	sample_file = tmpfile();
	if (!w.truth || !sample_file) {
		fprintf(stderr, CMD ": %s: %s\n", truth, strerror(errno));
		goto fail;
	}
	memset(&hdr, 0, sizeof(hdr));
	if (fwrite(&hdr, sizeof(hdr), 1, w.truth) != 1)
		w.err = -EIO;
	w.events_every = events_every;
	if (events_every) {
		char evpath[4096];

		snprintf(evpath, sizeof(evpath), "%s.events", out);
		w.events = fopen(evpath, "w");
		if (!w.events) {
			fprintf(stderr, CMD ": %s: %s\n", evpath,
				strerror(errno));
			goto fail;
		}
	}
	ret = walk(&w);
	if (w.events && fclose(w.events) && !ret)
		ret = -EIO;
	if (ret) {
		fprintf(stderr, CMD ": walk: %s\n", strerror(ret < 0 ? -ret : ret));
		goto fail;
	}
	put_seg(&w, w.pos);
	ret = write_regs(bn, th, w.end_ip);
	if (!ret)
		ret = ptenc_close(&w.enc);
	if (ret) {
		fprintf(stderr, CMD ": %s: %s\n", path, strerror(-ret));
		goto fail;
	}
	/* Header, segments, then the samples. */
	memcpy(hdr.magic, PTGEN_TRUTH_MAGIC, 8);
	hdr.version = PTGEN_TRUTH_VERSION;
	hdr.tid = PID;
	hdr.seed = seed;
	hdr.insns = w.pos;
	hdr.nsegs = w.st.psbs + 1;
	hdr.nsamples = w.st.samples;
	rewind(sample_file);
	for (;;) {
		char buf[65536];
		size_t k = fread(buf, 1, sizeof(buf), sample_file);

		if (!k)
			break;
		if (fwrite(buf, 1, k, w.truth) != k)
			w.err = -EIO;
	}
	if (fseek(w.truth, 0, SEEK_SET) ||
	    fwrite(&hdr, sizeof(hdr), 1, w.truth) != 1 || w.err ||
	    fclose(w.truth)) {
		fprintf(stderr, CMD ": %s: write failed\n", truth);
		goto fail;
	}
	fclose(sample_file);

	free(m->backend);
	m->backend = strdup("ptgen");
	strcpy(m->cpu.vendor, "GenuineIntel");
	m->pt.emulated = true;
	m->pt.features = SB_PT_USER | SB_PT_BRANCH | SB_PT_TSC |
			 SB_PT_RET_COMPRESSION;
	m->pt.psb_period = psb;
	m->time.time_mult = 1;
	m->time.tsc_hz = 1000000000ull;
	sb_manifest_set_argv(m, argc, (const char *const *)argv);
	{
		struct sb_process *pr = sb_manifest_add_process(m);

		if (!pr)
			goto fail;
		pr->pid = PID;
		pr->exe = strdup(elf ? elf : "ptgen-program");
	}
	ret = sb_bundle_finish(bn, &err);
	if (ret) {
		fprintf(stderr, CMD ": %s\n", err.msg);
		goto fail;
	}
	sb_bundle_free(bn);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("insns=%" PRIu64 " blocks=%" PRIu64 " functions=%zu code_blocks=%zu"
	       " text_bytes=%" PRIu64 " pt_bytes=%" PRIu64 " psbs=%" PRIu64
	       " samples=%" PRIu64 "\n",
	       w.pos, w.st.blocks, p.nf, p.nb,
	       (uint64_t)(p.text_end - BASE - TEXT_OFF),
	       w.enc.written, w.st.psbs, w.st.samples);
	printf("cond_taken=%" PRIu64 " cond_not=%" PRIu64 " loops=%" PRIu64
	       " jmp=%" PRIu64 " call=%" PRIu64 " icall=%" PRIu64
	       " jtab=%" PRIu64 " ret=%" PRIu64 " max_depth=%" PRIu64
	       " max_recursion=%" PRIu64 "\n",
	       w.st.cond_taken, w.st.cond_not, w.st.loops, w.st.jmp,
	       w.st.call, w.st.icall, w.st.jtab, w.st.ret, w.st.max_depth,
	       w.st.max_rec);
	if (events_every)
		printf("events=%" PRIu64 "\n", w.nevents);
	printf("seconds=%.3f\n", (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	free(w.last_pos);
	free(w.stack);
	free(p.elf);
	free(p.b);
	free(p.f);
	free(p.tabs);
	free(p.ilen);
	return 0;
fail:
	sb_bundle_free(bn);
	return 1;
}
