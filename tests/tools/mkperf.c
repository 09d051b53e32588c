// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mkperf [OPTIONS] BUNDLE OUT: writes a perf.data file, laid out as
 * tools/perf/Documentation/perf.data-file-format.txt describes (the
 * structures of import/perf_format.h), around the PT streams and sideband
 * of a bundle recorded by `ptrec record`.  The bundle is the ground truth
 * of the import test: `ptrec import perf` of OUT must give back its
 * histories.
 *
 *   --per-cpu        one AUX buffer for CPU 0 holding every thread's
 *                    trace, interleaved as the threads ran, with
 *                    SWITCH_CPU_WIDE records.  As a CPU writes it when
 *                    Linux stops and restarts a per-task trace at each
 *                    switch: the stretches follow each other without a
 *                    PSB (the stream's own PSBs stay), and every IP packet
 *                    is compressed against the last IP of the CPU's stream,
 *                    whichever thread it came from.  Default: per-thread
 *                    buffers and SWITCH records.
 *   --psb-at-switch  with --per-cpu: start every stretch with a PSB+
 *                    (what a CPU writes when its packet byte count was 0).
 *                    Known defect: the recorded RETs stay as they are, so
 *                    a RET compressed across a switch-in (its CALL before
 *                    the switch, as clone3's when the child ran first)
 *                    follows the new PSB, which no CPU writes (it flushes
 *                    its compression stack at a PSB, SDM Vol. 3C
 *                    33.4.2.2); such a thread does not decode.  Fixing it
 *                    needs an instruction decode to turn those RETs into
 *                    TIPs.
 *   --chunk N        bytes of AUX data per AUXTRACE record (default 512)
 *   --truncate TID   drop the bytes between two PSBs in the middle of
 *                    TID's trace and flag the AUX record before them
 *                    PERF_AUX_FLAG_TRUNCATED; prints "truncated AT BYTES"
 *   --unknown-feature  also set header feature bit 200, with a section
 *   --buildid-dir DIR  store the bundle's images in a build-id cache
 *                    there (DIR/.build-id/xx/yyyy.../elf)
 *   --path-prefix P  put P before every recorded path (so the files are
 *                    only found through the build-id cache)
 *   --no-aux         leave out the AUX data (AUX and AUXTRACE records)
 *   --pipe           pipe mode (perf record -o -): a 16-byte header, the
 *                    attrs as HEADER_ATTR and the features as
 *                    HEADER_FEATURE records before the data, the
 *                    build-ids as HEADER_BUILD_ID records after it
 *   --mmap-buildid   executable MMAP2 records carry the build-id
 *                    (PERF_RECORD_MISC_MMAP_BUILD_ID) and the file has no
 *                    HEADER_BUILD_ID feature
 *
 * Prints "data OFFSET SIZE" (the data section) and "auxtrace OFFSET" (the
 * first AUXTRACE record).
 *
 * mkperf --pevent FILE [--pevent FILE]... --pt FILE[@OFFSET]
 *        --sample-type N OUT
 * instead wraps records a real perf session wrote (the kernel's and perf's
 * own, copied byte for byte from FILE, e.g. the *.sideband.pevent files of
 * shared/testdata/real-pt) and a real PT buffer into a perf.data: two
 * attrs with sample type N (the intel_pt event gets the ids of the
 * ITRACE_START and AUX records), AUXTRACE_INFO from the TIME_CONV record
 * and the Skylake-SP settings of that data (MTC period 3, TSC:CTC 308/2,
 * max non-turbo ratio 37), and one AUXTRACE record for the CPU of the AUX
 * record.
 */
#include "mkperf.h"

void die(const char *what)
{
	fprintf(stderr, "mkperf: %s\n", what);
	exit(1);
}

void put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("out of memory");
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

void pad8(struct buf *b)
{
	static const uint8_t z[8];

	put(b, z, (8 - b->len % 8) % 8);
}

uint64_t perf_time(uint64_t tsc)
{
	return TZERO + (uint64_t)(((unsigned __int128)tsc * TMULT) >> TSHIFT);
}

struct buf out;
bool per_cpu;

/* A kernel record: header, @body, @str (NUL-terminated, padded), trailer. */
void rec(uint32_t type, uint16_t misc, const void *body, size_t n,
	 const char *str, uint32_t pid, uint32_t tid, uint64_t tsc,
		bool snapshot, uint64_t id)
{
	struct pf_rec_header h = { .type = type, .misc = misc };
	uint64_t t = snapshot ? 0 : perf_time(tsc);
	uint32_t cpu[2] = { 0, 0 };
	uint32_t pt[2] = { pid, tid };
	size_t sl = str ? strlen(str) + 1 : 0;
	size_t strpad = (8 - (8 + n + sl) % 8) % 8;
	static const uint8_t z[8];

	h.size = 8 + n + sl + strpad + 32;
	put(&out, &h, sizeof(h));
	put(&out, body, n);
	if (str) {
		put(&out, str, sl);
		put(&out, z, strpad);
	}
	put(&out, pt, 8);
	put(&out, &t, 8);
	put(&out, cpu, 8);
	put(&out, &id, 8);
}

/* ---- AUX data ------------------------------------------------------------ */

static size_t chunk = 512;
static uint64_t end_tsc;

static void aux_rec(uint64_t aoff, uint64_t size, uint64_t flags,
		    uint32_t pid, uint32_t tid, uint64_t id)
{
	struct pf_aux a = { aoff, size, flags };

	rec(PF_REC_AUX, 0, &a, sizeof(a), NULL, pid, tid, end_tsc, false, id);
}

static size_t first_auxtrace;

void auxtrace(const uint8_t *d, size_t n, uint64_t aoff, uint32_t idx,
	      uint32_t tid, uint32_t cpu)
{
	struct pf_rec_header h = { .type = PF_REC_AUXTRACE, .size = 48 };
	struct pf_auxtrace a = { .size = n, .offset = aoff, .idx = idx,
				 .tid = tid, .cpu = cpu };

	if (!first_auxtrace)
		first_auxtrace = out.len;
	put(&out, &h, sizeof(h));
	put(&out, &a, sizeof(a));
	put(&out, d, n);
}

/* One buffer's data in AUX records and AUXTRACE chunks. */
static void emit_buffer(const uint8_t *d, size_t n, uint32_t idx,
			uint32_t pid, uint32_t tid, uint32_t cpu,
			uint64_t trunc_at, uint64_t trunc_len)
{
	uint64_t aoff = 0, pos = 0;

	while (pos < n) {
		size_t c = n - pos < chunk ? n - pos : chunk;
		uint64_t flags = 0;

		if (trunc_len && pos < trunc_at && pos + c >= trunc_at) {
			c = trunc_at - pos;
			flags = PF_AUX_FLAG_TRUNCATED;
		}
		if (c) {
			aux_rec(aoff, c, flags, pid, tid, ID_PT + idx);
			auxtrace(d + pos, c, aoff, idx, tid, cpu);
		}
		aoff += c;
		pos += c;
		if (flags) {
			pos += trunc_len;	/* never written */
			trunc_len = 0;
		}
	}
}

uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *d;

	if (!f || fstat(fileno(f), &st))
		die(path);
	*len = st.st_size;
	d = malloc(*len + 1);
	if (!d || fread(d, 1, *len, f) != *len)
		die(path);
	fclose(f);
	return d;
}

/* PSB offsets of a stream, for --truncate. */
static size_t psbs(const uint8_t *d, size_t n, uint64_t *v, size_t max)
{
	struct pt_packet_decoder *dec;
	struct pt_config cfg;
	struct pt_packet pkt;
	size_t k = 0;
	uint64_t off;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)d;
	cfg.end = (uint8_t *)d + n;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec || pt_pkt_sync_forward(dec) < 0)
		die("no PSB");
	while (k < max) {
		pt_pkt_get_offset(dec, &off);
		if (pt_pkt_next(dec, &pkt, sizeof(pkt)) < 0)
			break;
		if (pkt.type == ppt_psb)
			v[k++] = off;
	}
	pt_pkt_free_decoder(dec);
	return k;
}

static void mkdirs(const char *path)
{
	char tmp[8192], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(tmp, 0755);
			*p = '/';
		}
	mkdir(tmp, 0755);
}

/* ---- --pipe ------------------------------------------------------------ */

/* Rewrites the file in @out (header, attrs, data, features) in pipe mode. */
static void to_pipe(void)
{
	struct buf p = { 0 }, bids = { 0 };
	struct pf_header h;
	struct pf_pipe_header ph = { PF_MAGIC, sizeof(ph) };
	uint64_t soff;
	size_t i, na;
	unsigned int bit;

	memcpy(&h, out.p, sizeof(h));
	put(&p, &ph, sizeof(ph));
	na = h.attrs.size / h.attr_size;
	for (i = 0; i < na; i++) {
		const uint8_t *a = out.p + h.attrs.offset + i * h.attr_size;
		struct pf_section ids;
		struct pf_rec_header rh = { .type = PF_REC_HEADER_ATTR };
		uint32_t asz;

		memcpy(&asz, a + 4, 4);
		memcpy(&ids, a + h.attr_size - sizeof(ids), sizeof(ids));
		rh.size = 8 + asz + ids.size;
		put(&p, &rh, sizeof(rh));
		put(&p, a, asz);
		put(&p, out.p + ids.offset, ids.size);
	}
	soff = h.data.offset + h.data.size;
	for (bit = 0; bit < 256; bit++) {
		struct pf_rec_header rh = { .type = PF_REC_HEADER_FEATURE };
		struct pf_section s;
		uint64_t b = bit;

		if (!(h.features[bit / 64] & (1ull << (bit % 64))))
			continue;
		memcpy(&s, out.p + soff, sizeof(s));
		soff += sizeof(s);
		if (bit == PF_FEAT_BUILD_ID) {
			/* Pipe mode sends each entry as a HEADER_BUILD_ID
			 * record (the entry's own header, type 67).
			 */
			uint64_t o = s.offset;

			while (o + 8 <= s.offset + s.size) {
				struct pf_rec_header eh;

				memcpy(&eh, out.p + o, 8);
				eh.type = PF_REC_HEADER_BUILD_ID;
				put(&bids, &eh, 8);
				put(&bids, out.p + o + 8, eh.size - 8);
				o += eh.size;
			}
			continue;
		}
		if (16 + s.size > 0xffff)
			die("--pipe: a feature section too large for a record");
		rh.size = 16 + ((s.size + 7) & ~7ull);
		put(&p, &rh, sizeof(rh));
		put(&p, &b, 8);
		put(&p, out.p + s.offset, s.size);
		pad8(&p);
	}
	put(&p, out.p + h.data.offset, h.data.size);
	put(&p, bids.p, bids.len);
	free(bids.p);
	free(out.p);
	out = p;
}


int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "per-cpu", no_argument, NULL, 'c' },
		{ "chunk", required_argument, NULL, 'n' },
		{ "truncate", required_argument, NULL, 't' },
		{ "unknown-feature", no_argument, NULL, 'u' },
		{ "buildid-dir", required_argument, NULL, 'b' },
		{ "path-prefix", required_argument, NULL, 'p' },
		{ "no-aux", no_argument, NULL, 'a' },
		{ "psb-at-switch", no_argument, NULL, 's' },
		{ "mmap-buildid", no_argument, NULL, 'm' },
		{ "pipe", no_argument, NULL, 'i' },
		{ "pevent", required_argument, NULL, 'e' },
		{ "pt", required_argument, NULL, 'P' },
		{ "sample-type", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	const char *bdir = NULL, *prefix = "", *dir, *outp;
	uint32_t trunc_tid = 0, prev = 0;
	bool unknown = false, no_aux = false, mmap_bid = false, pipe = false;
	const char *pev[MAX_PEVENT], *ptfile = NULL;
	size_t npev = 0;
	uint64_t stype = 0;
	const struct ptrec_sb_header *h;
	struct sb_manifest *m;
	struct sb_reader *r;
	struct sb_err err;
	struct pf_header hdr;
	struct buf feat = { 0 }, tab = { 0 };
	char path[8192];
	size_t i, nids, data_off;
	int c, ret;
	FILE *f;

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'c': per_cpu = true; break;
		case 'n': chunk = strtoul(optarg, NULL, 0); break;
		case 't': trunc_tid = strtoul(optarg, NULL, 0); break;
		case 'u': unknown = true; break;
		case 'b': bdir = optarg; break;
		case 'p': prefix = optarg; break;
		case 'a': no_aux = true; break;
		case 's': psb_at_switch = true; break;
		case 'm': mmap_bid = true; break;
		case 'i': pipe = true; break;
		case 'e':
			if (npev == MAX_PEVENT)
				die("too many --pevent");
			pev[npev++] = optarg;
			break;
		case 'P': ptfile = optarg; break;
		case 'S': stype = strtoull(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (npev) {
		if (optind + 1 != argc || !ptfile || !stype)
			die("--pevent needs --pt, --sample-type and OUT");
		return pevent_main(pev, npev, ptfile, stype, argv[optind]);
	}
	if (optind + 2 != argc || !chunk) {
		fprintf(stderr, "usage: mkperf [--per-cpu] [--chunk N] [--truncate TID] [--unknown-feature] [--buildid-dir DIR] [--path-prefix P] BUNDLE OUT\n");
		return 2;
	}
	dir = argv[optind];
	outp = argv[optind + 1];
	if (sb_manifest_load(&m, dir, &err))
		die(err.msg);

	/* header placeholder, then attrs: intel_pt and the dummy tracker. */
	memset(&hdr, 0, sizeof(hdr));
	put(&out, &hdr, sizeof(hdr));
	nids = per_cpu ? 1 : m->nthreads;
	{
		uint8_t a[128 + 16];
		struct pf_attr pa;
		struct pf_section ids;
		size_t k, ids_off = sizeof(hdr) + 2 * sizeof(a);

		for (k = 0; k < 2; k++) {
			memset(a, 0, sizeof(a));
			memset(&pa, 0, sizeof(pa));
			pa.size = 128;
			pa.sample_type = SAMPLE_TYPE;
			pa.flags = PF_ATTR_EXCLUDE_KERNEL | PF_ATTR_EXCLUDE_HV |
				   PF_ATTR_SAMPLE_ID_ALL | PF_ATTR_DISABLED;
			if (!k) {
				pa.type = PMU_TYPE;
				/* pt, tsc, branch, psb_period=0 (2K) */
				pa.config = (1ull << PF_PT_CFG_PT) |
					    (1ull << PF_PT_CFG_TSC) |
					    (1ull << PF_PT_CFG_BRANCH);
				pa.sample_period = 1;
			} else {
				pa.type = PF_TYPE_SOFTWARE;
				pa.config = PF_COUNT_SW_DUMMY;
				pa.flags |= PF_ATTR_MMAP | PF_ATTR_COMM |
					    PF_ATTR_TASK | PF_ATTR_MMAP2 |
					    PF_ATTR_COMM_EXEC |
					    PF_ATTR_CONTEXT_SWITCH;
			}
			memcpy(a, &pa, sizeof(pa));
			ids.offset = ids_off + k * nids * 8;
			ids.size = nids * 8;
			memcpy(a + 128, &ids, sizeof(ids));
			put(&out, a, sizeof(a));
		}
		for (k = 0; k < 2 * nids; k++) {
			uint64_t id = (k < nids ? ID_PT : ID_DUMMY) + k % nids;

			put(&out, &id, 8);
		}
	}
	hdr.magic = PF_MAGIC;
	hdr.size = sizeof(hdr);
	hdr.attr_size = 128 + 16;
	hdr.attrs.offset = sizeof(hdr);
	hdr.attrs.size = 2 * hdr.attr_size;
	data_off = out.len;

	/* TIME_CONV and AUXTRACE_INFO. */
	{
		struct pf_rec_header rh = { .type = PF_REC_TIME_CONV,
					    .size = 8 + sizeof(struct pf_time_conv) };
		struct pf_time_conv tc = { .time_shift = TSHIFT,
					   .time_mult = TMULT,
					   .time_zero = TZERO,
					   .cap_user_time_zero = 1 };
		uint64_t priv[PF_PT_PRIV_MAX];
		struct pf_auxtrace_info ai = { .type = PF_AUXTRACE_INTEL_PT };

		put(&out, &rh, sizeof(rh));
		put(&out, &tc, sizeof(tc));
		memset(priv, 0, sizeof(priv));
		priv[PF_PT_PMU_TYPE] = PMU_TYPE;
		priv[PF_PT_TIME_SHIFT] = TSHIFT;
		priv[PF_PT_TIME_MULT] = TMULT;
		priv[PF_PT_TIME_ZERO] = TZERO;
		priv[PF_PT_CAP_USER_TIME_ZERO] = 1;
		priv[PF_PT_TSC_BIT] = PF_PT_CFG_TSC;
		priv[PF_PT_NORETCOMP_BIT] = PF_PT_CFG_NORETCOMP;
		priv[PF_PT_HAVE_SCHED_SWITCH] = per_cpu ? 3 : 2;
		priv[PF_PT_PER_CPU_MMAPS] = per_cpu;
		priv[PF_PT_MTC_BIT] = PF_PT_CFG_MTC;
		priv[PF_PT_MTC_FREQ_BITS] = PF_PT_CFG_MTC_PERIOD;
		priv[PF_PT_TSC_CTC_N] = 308;
		priv[PF_PT_TSC_CTC_D] = 2;
		priv[PF_PT_CYC_BIT] = PF_PT_CFG_CYC;
		priv[PF_PT_MAX_NONTURBO_RATIO] = 37;
		rh.type = PF_REC_AUXTRACE_INFO;
		rh.size = 8 + sizeof(ai) + sizeof(priv);
		put(&out, &rh, sizeof(rh));
		put(&out, &ai, sizeof(ai));
		put(&out, priv, sizeof(priv));
	}

	/* Sideband. */
	snprintf(path, sizeof(path), "%s/%s", dir, m->sideband);
	if (sb_reader_open(&r, path, &err))
		die(err.msg);
	while ((ret = sb_reader_next(r, &h, &err)) == 1) {
		bool snap = h->flags & PTREC_SB_F_SNAPSHOT;
		uint64_t t = h->time;

		if (t > end_tsc)
			end_tsc = t;
		switch (h->type) {
		case PTREC_SB_MMAP: {
			const struct ptrec_sb_mmap *mm = (const void *)h;
			struct pf_mmap2 m2;
			char name[4096], p0[4096];
			uint16_t misc;

			memset(&m2, 0, sizeof(m2));
			m2.pid = mm->pid;
			m2.tid = mm->tid;
			m2.addr = mm->start;
			m2.len = mm->len;
			m2.pgoff = mm->pgoff;
			m2.prot = mm->prot;
			m2.flags = mm->mflags;
			snprintf(p0, sizeof(p0), "%.*s", mm->path_len,
				 sb_mmap_path(mm));
			if (!p0[0])
				snprintf(name, sizeof(name), "//anon");
			else if (p0[0] == '/')
				snprintf(name, sizeof(name), "%s%s", prefix, p0);
			else
				snprintf(name, sizeof(name), "%s", p0);
			misc = 2;
			if (mmap_bid && mm->key_len > 8 &&
			    !strncmp(sb_mmap_key(mm), "buildid-", 8)) {
				size_t k, nl = (mm->key_len - 8) / 2;

				for (k = 0; k < nl && k < 20; k++)
					sscanf(sb_mmap_key(mm) + 8 + 2 * k,
					       "%2hhx", &m2.id[4 + k]);
				m2.id[0] = k;
				misc |= PF_MISC_MMAP_BUILD_ID;
			}
			rec(PF_REC_MMAP2, misc, &m2, sizeof(m2), name, mm->pid,
			    mm->tid, t, snap, ID_DUMMY);
			break;
		}
		case PTREC_SB_COMM: {
			const struct ptrec_sb_comm *co = (const void *)h;
			struct pf_comm pc = { co->pid, co->tid };
			char name[17];

			snprintf(name, sizeof(name), "%.16s",
				 (const char *)co->comm);
			rec(PF_REC_COMM, 0, &pc, sizeof(pc), name, co->pid,
			    co->tid, t, snap, ID_DUMMY);
			break;
		}
		case PTREC_SB_EXEC: {
			const struct ptrec_sb_exec *ex = (const void *)h;
			struct pf_comm pc = { ex->pid, ex->tid };
			char name[4096], *b;

			snprintf(name, sizeof(name), "%.*s", ex->path_len,
				 sb_exec_path(ex));
			b = strrchr(name, '/');
			rec(PF_REC_COMM, PF_MISC_COMM_EXEC, &pc, sizeof(pc),
			    b ? b + 1 : name, ex->pid, ex->tid, t, false,
			    ID_DUMMY);
			break;
		}
		case PTREC_SB_THREAD_START:
		case PTREC_SB_THREAD_EXIT: {
			const struct ptrec_sb_thread_start *ts = (const void *)h;
			const struct ptrec_sb_thread_exit *te = (const void *)h;
			struct pf_fork fk;

			if (h->type == PTREC_SB_THREAD_START) {
				fk = (struct pf_fork){ ts->pid, ts->parent_pid,
						       ts->tid, ts->parent_tid,
						       perf_time(t) };
			} else {
				fk = (struct pf_fork){ te->pid, te->pid,
						       te->tid, te->tid,
						       perf_time(t) };
			}
			rec(h->type == PTREC_SB_THREAD_START ? PF_REC_FORK :
			    PF_REC_EXIT, 0, &fk, sizeof(fk), NULL, fk.pid,
			    fk.tid, t, false, ID_DUMMY);
			break;
		}
		case PTREC_SB_SWITCH_IN:
		case PTREC_SB_SWITCH_OUT: {
			const struct ptrec_sb_switch *sw = (const void *)h;
			bool o = h->type == PTREC_SB_SWITCH_OUT;
			uint16_t misc = o ? PF_MISC_SWITCH_OUT : 0;

			if (o && (h->flags & PTREC_SB_F_PREEMPT))
				misc |= PF_MISC_SWITCH_OUT_PREEMPT;
			if (per_cpu) {
				struct pf_switch_cpu_wide cw = { 0, 0 };

				if (!o) {
					cw.next_prev_tid = prev;
					cw.next_prev_pid = prev ? sw->pid : 0;
				}
				prev = o ? sw->tid : 0;
				rec(PF_REC_SWITCH_CPU_WIDE, misc, &cw,
				    sizeof(cw), NULL, sw->pid, sw->tid, t,
				    false, ID_DUMMY);
			} else {
				if (!o) {
					struct pf_itrace_start it = {
						sw->pid, sw->tid };

					rec(PF_REC_ITRACE_START, 0, &it,
					    sizeof(it), NULL, sw->pid,
					    sw->tid, t, false, ID_DUMMY);
				}
				rec(PF_REC_SWITCH, misc, NULL, 0, NULL,
				    sw->pid, sw->tid, t, false, ID_DUMMY);
			}
			break;
		}
		default:
			break;
		}
	}
	if (ret < 0)
		die(err.msg);
	sb_reader_close(r);

	/* AUX data. */
	for (i = 0; i < m->nthreads && !no_aux; i++) {
		const struct sb_thread *t = &m->threads[i];
		uint64_t trunc_at = 0, trunc_len = 0, v[64];
		uint8_t *d;
		size_t n, k;

		snprintf(path, sizeof(path), "%s/%s", dir, t->pt);
		d = slurp(path, &n);
		if (t->tid == trunc_tid) {
			k = psbs(d, n, v, 64);
			if (k < 3)
				die("--truncate: the thread's trace has fewer than 3 PSBs");
			trunc_at = v[k / 2];
			trunc_len = v[k / 2 + 1] - v[k / 2];
			printf("truncated %llu %llu\n",
			       (unsigned long long)trunc_at,
			       (unsigned long long)trunc_len);
		}
		if (per_cpu)
			segment(t->tid, d, n);
		else
			emit_buffer(d, n, i, t->pid, t->tid, (uint32_t)-1,
				    trunc_at, trunc_len);
		free(d);
	}
	if (per_cpu && !no_aux) {
		struct buf all = { 0 }, cpu = { 0 };

		qsort(segs, nsegs, sizeof(*segs), seg_cmp);
		for (i = 0; i < nsegs; i++) {
			put(&all, segs[i].b.p, segs[i].b.len);
			free(segs[i].b.p);
		}
		recompress(&cpu, all.p, all.len);
		emit_buffer(cpu.p, cpu.len, 0, (uint32_t)-1, (uint32_t)-1, 0,
			    0, 0);
		free(all.p);
		free(cpu.p);
	}
	hdr.data.offset = data_off;
	hdr.data.size = out.len - data_off;
	printf("data %zu %llu\nauxtrace %zu\n", data_off,
	       (unsigned long long)hdr.data.size, first_auxtrace);

	/* Features: BUILD_ID, NRCPUS, CPUID, CMDLINE (and bit 200). */
	{
		size_t sect_base = out.len;
		struct pf_section s;
		int nfeat = 4 + unknown;
		uint32_t u[2];
		const char *cpuid = "GenuineIntel,6,85,4";
		static const char *const cmd[] = {
			"perf", "record", "-e", "intel_pt//u" };

		hdr.features[0] |= 1ull << PF_FEAT_BUILD_ID;
		hdr.features[0] |= 1ull << PF_FEAT_NRCPUS;
		hdr.features[0] |= 1ull << PF_FEAT_CPUID;
		hdr.features[0] |= 1ull << PF_FEAT_CMDLINE;
		if (unknown)
			hdr.features[200 / 64] |= 1ull << (200 % 64);
		/* sections follow the table */
		feat.len = 0;
		/* BUILD_ID */
		s.offset = sect_base + nfeat * sizeof(s);
		for (i = 0; i < m->nimages; i++) {
			const struct sb_image *im = &m->images[i];
			struct pf_build_id be;
			char name[4096];
			size_t nl, k;

			if (strncmp(im->key, "buildid-", 8))
				continue;
			if (mmap_bid)
				goto cache_only;
			memset(&be, 0, sizeof(be));
			nl = strlen(im->key + 8) / 2;
			for (k = 0; k < nl && k < 20; k++)
				sscanf(im->key + 8 + 2 * k, "%2hhx",
				       &be.build_id[k]);
			be.build_id[20] = nl;
			be.pid = -1;
			be.hdr.misc = 2 | PF_MISC_BUILD_ID_SIZE;
			if (im->path && im->path[0] == '/')
				snprintf(name, sizeof(name), "%s%s", prefix,
					 im->path);
			else
				snprintf(name, sizeof(name), "%s",
					 im->path ? im->path : "");
			be.hdr.size = (sizeof(be) + strlen(name) + 1 + 7) & ~7;
			put(&feat, &be, sizeof(be));
			put(&feat, name, strlen(name) + 1);
			pad8(&feat);
cache_only:
			if (bdir) {
				char cache[8192], src[8192];
				uint8_t *d;
				size_t n;
				FILE *cf;

				snprintf(cache, sizeof(cache),
					 "%s/.build-id/%.2s/%s", bdir,
					 im->key + 8, im->key + 10);
				mkdirs(cache);
				strcat(cache, "/elf");
				snprintf(src, sizeof(src), "%s/%s", dir,
					 im->file);
				d = slurp(src, &n);
				cf = fopen(cache, "wb");
				if (!cf || fwrite(d, 1, n, cf) != n ||
				    fclose(cf))
					die(cache);
				free(d);
			}
		}
		s.size = feat.len;
		put(&tab, &s, sizeof(s));
		/* NRCPUS */
		s.offset += s.size;
		u[0] = u[1] = 2;
		put(&feat, u, 8);
		s.size = 8;
		put(&tab, &s, sizeof(s));
		/* CPUID */
		s.offset += s.size;
		u[0] = (strlen(cpuid) + 1 + 7) & ~7u;
		put(&feat, u, 4);
		put(&feat, cpuid, strlen(cpuid));
		{
			static const uint8_t z[8];

			put(&feat, z, u[0] - strlen(cpuid));
		}
		s.size = 4 + u[0];
		put(&tab, &s, sizeof(s));
		/* CMDLINE */
		s.offset += s.size;
		{
			size_t start = feat.len, k;
			static const uint8_t z[64];

			u[0] = 4;
			put(&feat, u, 4);
			for (k = 0; k < 4; k++) {
				uint32_t l = (strlen(cmd[k]) + 1 + 7) & ~7u;

				put(&feat, &l, 4);
				put(&feat, cmd[k], strlen(cmd[k]));
				put(&feat, z, l - strlen(cmd[k]));
			}
			s.size = feat.len - start;
		}
		put(&tab, &s, sizeof(s));
		if (unknown) {
			s.offset += s.size;
			put(&feat, "ptrec-unknown-feature", 22);
			s.size = 22;
			put(&tab, &s, sizeof(s));
		}
		put(&out, tab.p, tab.len);
		put(&out, feat.p, feat.len);
	}
	memcpy(out.p, &hdr, sizeof(hdr));
	if (pipe)
		to_pipe();
	f = fopen(outp, "wb");
	if (!f || fwrite(out.p, 1, out.len, f) != out.len || fclose(f))
		die(outp);
	sb_manifest_free(m);
	free(out.p);
	free(feat.p);
	free(tab.p);
	free(segs);
	return 0;
}
