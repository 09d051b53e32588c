// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mkseeds HARNESS DIR: writes seed inputs for one fuzz harness into DIR.
 *
 * The seeds come from the library's own writers, so they follow the format
 * as it is now: for fuzz_sideband_reader a stream holding one record of
 * every type, an empty stream and a stream cut inside a record; for
 * fuzz_manifest a manifest with every field set and a register snapshot;
 * fuzz_replay and fuzz_perf start from the recorded fuzz bundle.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "sideband.h"

static const char *dir;

static int fail(const char *what, int ret, const struct sb_err *err)
{
	if (err && err->msg[0])
		fprintf(stderr, "mkseeds: %s: %s\n", what, err->msg);
	else
		fprintf(stderr, "mkseeds: %s: %s\n", what, strerror(-ret));
	return ret ? ret : -EIO;
}

static void seed_path(char *buf, size_t bufsz, const char *name)
{
	snprintf(buf, bufsz, "%s/%s", dir, name);
}

/* ---- fuzz_sideband_reader ---------------------------------------------- */

static int add(struct sb_writer *w, struct ptrec_sb_header *hdr, uint16_t type,
	       uint64_t time, struct sb_err *err)
{
	hdr->type = type;
	hdr->time = time;
	hdr->size = 0;		/* the type's fixed size */
	return sb_writer_add(w, hdr, err);
}

/* One record of every known type, in time order. */
static int write_all_types(struct sb_writer *w, struct sb_err *err)
{
	struct ptrec_sb_mmap mm = {
		.hdr.flags = PTREC_SB_F_SNAPSHOT, .pid = 100, .tid = 100,
		.start = 0x400000, .len = 0x2000, .pgoff = 0x1000,
		.prot = 5, .mflags = 2,
	};
	struct ptrec_sb_exec ex = { .hdr.time = 1000, .pid = 100, .tid = 100 };
	struct ptrec_sb_munmap mu = { .pid = 100, .tid = 100,
				      .start = 0x7f0000000000, .len = 0x1000 };
	struct ptrec_sb_mprotect mp = { .pid = 100, .tid = 100,
					.start = 0x401000, .len = 0x1000,
					.prot = 1 };
	struct ptrec_sb_comm co = { .pid = 100, .tid = 100 };
	struct ptrec_sb_cr3 cr = { .pid = 100, .tid = 100, .cr3 = 0x1234000 };
	struct ptrec_sb_switch si = { .pid = 100, .tid = 101, .cpu = 1 };
	struct ptrec_sb_switch so = { .hdr.flags = PTREC_SB_F_PREEMPT,
				      .pid = 100, .tid = 101, .cpu = 1 };
	struct ptrec_sb_thread_start ts = { .pid = 100, .tid = 101,
					    .parent_pid = 100,
					    .parent_tid = 100,
					    .clone_flags = 0x3d0f00 };
	struct ptrec_sb_thread_exit te = { .pid = 100, .tid = 101,
					   .exit_code = 3 };
	struct ptrec_sb_process_exit pe = { .pid = 100,
					    .kind = PTREC_SB_KILLED,
					    .status = 9 };
	struct ptrec_sb_lost lo = { .tid = 101, .reason = PTREC_SB_LOST_WRAP,
				    .bytes = 4096, .offset = 8192 };
	struct ptrec_sb_time ti = { .time_shift = 10, .time_mult = 500,
				    .time_zero = 1000000,
				    .tsc_hz = 2000000000,
				    .realtime_ns = 1700000000000000000ull };
	struct ptrec_sb_signal sg = { .pid = 100, .tid = 101, .signo = 11,
				      .code = 1, .addr = 0xdead,
				      .sflags = PTREC_SB_SIG_FATAL };
	struct ptrec_sb_exit_futex xf = { .pid = 100, .tid = 101,
					  .clear_child_tid = 0x7f00000012d0,
					  .ctid_val = 101,
					  .robust_list = 0x7f00000012e0,
					  .robust_len = 24,
					  .robust_next = 0x7f00000012e0,
					  .futex_offset = -32,
					  .known = PTREC_SB_FUTEX_ALL };
	int ret;

	memcpy(co.comm, "fuzzme", 6);
	ret = add(w, &ti.hdr, PTREC_SB_TIME, 0, err);
	if (!ret)
		ret = sb_writer_add_mmap(w, &mm, "buildid-0123456789abcdef",
					 "/usr/bin/true", err);
	if (!ret)
		ret = sb_writer_add_exec(w, &ex, "/usr/bin/false", err);
	if (!ret)
		ret = add(w, &co.hdr, PTREC_SB_COMM, 1100, err);
	if (!ret)
		ret = add(w, &cr.hdr, PTREC_SB_CR3, 1100, err);
	if (!ret)
		ret = add(w, &mp.hdr, PTREC_SB_MPROTECT, 1200, err);
	if (!ret)
		ret = add(w, &mu.hdr, PTREC_SB_MUNMAP, 1300, err);
	if (!ret)
		ret = add(w, &ts.hdr, PTREC_SB_THREAD_START, 1400, err);
	if (!ret)
		ret = add(w, &si.hdr, PTREC_SB_SWITCH_IN, 1500, err);
	if (!ret)
		ret = add(w, &lo.hdr, PTREC_SB_LOST, 1600, err);
	if (!ret)
		ret = add(w, &sg.hdr, PTREC_SB_SIGNAL, 1700, err);
	if (!ret)
		ret = add(w, &so.hdr, PTREC_SB_SWITCH_OUT, 1800, err);
	if (!ret)
		ret = add(w, &xf.hdr, PTREC_SB_EXIT_FUTEX, 1850, err);
	if (!ret)
		ret = add(w, &te.hdr, PTREC_SB_THREAD_EXIT, 1900, err);
	if (!ret)
		ret = add(w, &pe.hdr, PTREC_SB_PROCESS_EXIT, 2000, err);
	return ret;
}

static int write_stream(const char *name, bool all_types)
{
	struct sb_writer *w;
	struct sb_err err = { "" };
	char path[4096];
	int ret;

	seed_path(path, sizeof(path), name);
	ret = sb_writer_open(&w, path, &err);
	if (ret)
		return fail(path, ret, &err);
	ret = all_types ? write_all_types(w, &err) : 0;
	if (ret) {
		sb_writer_close(w, NULL);
		return fail(path, ret, &err);
	}
	ret = sb_writer_close(w, &err);
	return ret ? fail(path, ret, &err) : 0;
}

/* Copies the first @cut bytes of seed @from to seed @to. */
static int truncate_copy(const char *from, const char *to, size_t cut)
{
	char src[4096], dst[4096], *buf;
	struct stat st;
	FILE *in, *out;
	int ret = 0;

	seed_path(src, sizeof(src), from);
	seed_path(dst, sizeof(dst), to);
	if (stat(src, &st) < 0 || (size_t)st.st_size <= cut)
		return fail(src, -EINVAL, NULL);
	buf = malloc(cut);
	in = fopen(src, "rb");
	out = fopen(dst, "wb");
	if (!buf || !in || !out || fread(buf, 1, cut, in) != cut ||
	    fwrite(buf, 1, cut, out) != cut)
		ret = -EIO;
	if (in)
		fclose(in);
	if (out && fclose(out) && !ret)
		ret = -EIO;
	free(buf);
	return ret ? fail(dst, ret, NULL) : 0;
}

static int seeds_reader(void)
{
	int ret;

	ret = write_stream("all-types.sb", true);
	if (!ret)
		ret = write_stream("empty.sb", false);
	/* Cut 20 bytes into the first record: a truncated stream. */
	if (!ret)
		ret = truncate_copy("all-types.sb", "truncated.sb",
				    sizeof(struct ptrec_sb_file_header) + 20);
	return ret;
}

/* ---- fuzz_manifest ----------------------------------------------------- */

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p) {
		fprintf(stderr, "mkseeds: out of memory\n");
		exit(1);
	}
	return p;
}

static struct sb_manifest *full_manifest(void)
{
	static const char *const argv[] = { "./prog", "--flag", "a b", "" };
	struct sb_manifest *m = sb_manifest_new();
	struct sb_process *p;
	struct sb_thread *t;
	struct sb_image *im;
	struct sb_file *f;
	static const char *const files[][2] = {
		{ "sideband.sb", "sideband" },
		{ "pt/100.pt", "pt" }, { "regs/100.json", "regs" },
		{ "truth/100.gt", "truth" },
		{ "pt/101.pt", "pt" }, { "regs/101.json", "regs" },
		{ "images/buildid-0123456789abcdef", "image" },
	};
	size_t i;

	if (!m)
		return NULL;
	m->producer = xstrdup("ptrec " PTREC_VERSION);
	m->backend = xstrdup("emu");
	snprintf(m->cpu.vendor, sizeof(m->cpu.vendor), "GenuineIntel");
	m->cpu.family = 6;
	m->cpu.model = 85;
	m->cpu.stepping = 4;
	m->pt.emulated = true;
	m->pt.features = SB_PT_USER | SB_PT_BRANCH | SB_PT_TSC | SB_PT_MTC |
			 SB_PT_RET_COMPRESSION;
	m->pt.psb_period = 4096;
	m->pt.mtc_freq = 3;
	m->pt.nom_freq = 20;
	m->pt.cpuid_15_eax = 2;
	m->pt.cpuid_15_ebx = 168;
	m->pt.cyc_thresh = 1;
	m->time.time_shift = 31;
	m->time.time_mult = 1234567;
	m->time.time_zero = 18446744073709551000ull;
	m->time.tsc_hz = 2100000000;
	if (sb_manifest_set_argv(m, 4, argv))
		goto fail;
	m->cwd = xstrdup("/home/user/src");
	m->start_ns = 1700000000000000000ull;
	m->stop_ns = 1700000001000000000ull;
	m->sideband = xstrdup("sideband.sb");

	p = sb_manifest_add_process(m);
	if (!p)
		goto fail;
	p->pid = 100;
	p->ppid = 1;
	p->exe = xstrdup("/usr/bin/prog");
	p = sb_manifest_add_process(m);
	if (!p)
		goto fail;
	p->pid = 200;		/* no ppid, no exe */

	t = sb_manifest_add_thread(m);
	if (!t)
		goto fail;
	t->pid = 100;
	t->tid = 100;
	t->pt = xstrdup("pt/100.pt");
	t->regs = xstrdup("regs/100.json");
	t->truth = xstrdup("truth/100.gt");
	t = sb_manifest_add_thread(m);
	if (!t)
		goto fail;
	t->pid = 100;
	t->tid = 101;
	t->pt = xstrdup("pt/101.pt");
	t->regs = xstrdup("regs/101.json");

	im = sb_manifest_add_image(m);
	if (!im)
		goto fail;
	im->key = xstrdup("buildid-0123456789abcdef");
	im->file = xstrdup("images/buildid-0123456789abcdef");
	im->path = xstrdup("/usr/bin/prog");
	im->size = 16384;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		f = sb_manifest_add_file(m);
		if (!f)
			goto fail;
		f->path = xstrdup(files[i][0]);
		f->kind = xstrdup(files[i][1]);
		f->size = 4096 * (i + 1);
	}
	return m;
fail:
	sb_manifest_free(m);
	return NULL;
}

/* Only the required fields, every array empty. */
static struct sb_manifest *minimal_manifest(void)
{
	struct sb_manifest *m = sb_manifest_new();

	if (!m)
		return NULL;
	m->producer = xstrdup("ptrec");
	m->backend = xstrdup("kmod");
	m->sideband = xstrdup("sideband.sb");
	return m;
}

/* Saves @m (and frees it) as seed @name. */
static int save_manifest(struct sb_manifest *m, const char *name)
{
	struct sb_err err = { "" };
	char path[4096], to[4096];
	int ret;

	if (!m)
		return fail(name, -ENOMEM, NULL);
	ret = sb_manifest_save(m, dir, &err);
	sb_manifest_free(m);
	if (ret)
		return fail("sb_manifest_save", ret, &err);
	/* sb_manifest_save() always writes manifest.json: rename it. */
	seed_path(path, sizeof(path), "manifest.json");
	seed_path(to, sizeof(to), name);
	if (rename(path, to) < 0)
		return fail(to, -errno, NULL);
	return 0;
}

static int seeds_manifest(void)
{
	struct sb_regs regs = { .tid = 101 };
	struct sb_err err = { "" };
	char path[4096];
	unsigned int i;
	int ret;

	ret = save_manifest(full_manifest(), "seed-manifest.json");
	if (!ret)
		ret = save_manifest(minimal_manifest(),
				    "seed-manifest-minimal.json");
	if (ret)
		return ret;

	for (i = 0; i < SB_REG_COUNT; i++) {
		if (i == SB_REG_ORIG_RAX)
			continue;	/* one register left unknown */
		regs.valid |= 1ull << i;
		regs.val[i] = 0x1111111111111111ull * (i % 16) + i;
	}
	regs.val[SB_REG_RIP] = 0x401000;
	regs.val[SB_REG_RSP] = 0x7ffffffde000;
	seed_path(path, sizeof(path), "seed-regs.json");
	ret = sb_regs_save(&regs, path, &err);
	return ret ? fail(path, ret, &err) : 0;
}

/*
 * fuzz_replay: the PT streams of the recorded bundle in $PTREC_FUZZ_BUNDLE,
 * whole and cut in half.
 */
static int seeds_replay(void)
{
	const char *bundle = getenv("PTREC_FUZZ_BUNDLE");
	char cmd[8192];

	if (!bundle) {
		fprintf(stderr, "mkseeds: fuzz_replay needs PTREC_FUZZ_BUNDLE\n");
		return -1;
	}
	snprintf(cmd, sizeof(cmd),
		 "set -e; for f in '%s'/pt/*.pt; do b=$(basename \"$f\");"
		 " cp \"$f\" '%s'/\"$b\";"
		 " head -c $(( $(stat -c %%s \"$f\") / 2 )) \"$f\""
		 " > '%s'/\"half-$b\"; done", bundle, dir, dir);
	return system(cmd) ? -1 : 0;
}

/*
 * fuzz_perf: perf.data files mkperf (next to this program's directory, in
 * BUILD/tests/tools) writes around $PTREC_FUZZ_BUNDLE: per-thread in small
 * AUX chunks, per-cpu, with a truncated AUX record, with an unknown header
 * feature, in pipe mode, and cut in half.
 */
static int seeds_perf(const char *self)
{
	const char *bundle = getenv("PTREC_FUZZ_BUNDLE");
	char cmd[16384], tools[4096];
	const char *slash = strrchr(self, '/');

	if (!bundle) {
		fprintf(stderr, "mkseeds: fuzz_perf needs PTREC_FUZZ_BUNDLE\n");
		return -1;
	}
	snprintf(tools, sizeof(tools), "%.*s/../tests/tools/mkperf",
		 slash ? (int)(slash - self) : 1, slash ? self : ".");
	snprintf(cmd, sizeof(cmd),
		 "set -e; m='%s'; b='%s'; d='%s';"
		 " \"$m\" --chunk 128 \"$b\" \"$d/thread.data\" >/dev/null;"
		 " \"$m\" --per-cpu \"$b\" \"$d/cpu.data\" >/dev/null;"
		 " \"$m\" --unknown-feature \"$b\" \"$d/unknown.data\" >/dev/null;"
		 " \"$m\" --pipe \"$b\" \"$d/pipe.data\" >/dev/null;"
		 " t=$(ls \"$b/pt\" | head -1); t=${t%%.pt};"
		 " \"$m\" --truncate \"$t\" \"$b\" \"$d/trunc.data\" >/dev/null || true;"
		 " head -c $(( $(stat -c %%s \"$d/thread.data\") / 2 ))"
		 " \"$d/thread.data\" > \"$d/half.data\"",
		 tools, bundle, dir);
	return system(cmd) ? -1 : 0;
}

/* ---- fuzz_snapshot ---------------------------------------------------- */

/* A whole part with a process, a thread and two mappings; the same
 * records raw (the harness's 'R' inputs).
 */
static int seeds_snapshot(void)
{
	static uint8_t page[4096], fx[512];
	struct sb_snap_writer *w;
	struct sb_err err;
	struct sb_snap_proc p = { .pid = 9, .ppid = 1, .end = SB_SNAP_END_SIGNAL,
				  .status = 11, .exe = "/bin/x" };
	struct sb_snap_thread t = { .tid = 9, .fpregs = fx, .fpregs_len = 512,
				    .has_siginfo = 1 };
	struct sb_snap_map m1 = { .start = 0x1000, .end = 0x2000,
				  .prot = SB_SNAP_R | SB_SNAP_W,
				  .content = SB_SNAP_DATA, .path = "[heap]",
				  .data = page };
	struct sb_snap_map m2 = { .start = 0x4000, .end = 0x6000,
				  .prot = SB_SNAP_R, .content = SB_SNAP_IMAGE,
				  .path = "/bin/x" };
	char path[4096];
	ZSTD_DCtx *d;
	size_t len, rawlen;
	uint8_t *buf, *raw;
	FILE *f;

	seed_path(path, sizeof(path), "part");
	if (sb_snap_writer_open(&w, path, &err) ||
	    sb_snap_writer_proc(w, &p, &err) ||
	    sb_snap_writer_thread(w, &t, &err) ||
	    sb_snap_writer_map(w, &m1, &err) ||
	    sb_snap_writer_map(w, &m2, &err) ||
	    sb_snap_writer_close(w, &err)) {
		fprintf(stderr, "mkseeds: %s\n", err.msg);
		return -1;
	}
	f = fopen(path, "rb");
	buf = malloc(1 << 20);
	len = f ? fread(buf, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	memcpy(&rawlen, buf + 16, 8);
	raw = malloc(rawlen + 1);
	raw[0] = 'R';
	d = ZSTD_createDCtx();
	ZSTD_decompressDCtx(d, raw + 1, rawlen, buf + SB_SNAP_HEADER_SIZE,
			    len - SB_SNAP_HEADER_SIZE);
	ZSTD_freeDCtx(d);
	seed_path(path, sizeof(path), "raw");
	f = fopen(path, "wb");
	if (!f || fwrite(raw, 1, rawlen + 1, f) != rawlen + 1)
		return -1;
	fclose(f);
	free(buf);
	free(raw);
	return 0;
}

/* Writes @pkts, each framed as "$payload#sum", into seed file @name. */
static int seed_packets(const char *name, const char *const *pkts, size_t n,
			bool acks)
{
	char path[4096];
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned int sum = 0;
		const char *p;

		for (p = pkts[i]; *p; p++)
			sum += (unsigned char)*p;
		fprintf(f, "%s$%s#%02x", acks ? "+" : "", pkts[i], sum & 0xff);
	}
	return fclose(f);
}

/*
 * fuzz_server: what GDB 13 sends on connect and in a replay session
 * (reverse and forward steps and continues, breakpoints, threads, memory,
 * qXfer objects, monitor commands: "ptrec insns", "ptrec calls /c",
 * "ptrec goto 3", "ptrec position"), Host I/O, with acks and in no-ack
 * mode.
 */
static int seeds_server(void)
{
	static const char *const connect[] = {
		"qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;"
		"fork-events+;vfork-events+;exec-events+;vContSupported+;"
		"QThreadEvents+;no-resumed+;memory-tagging+;xmlRegisters=i386",
		"vMustReplyEmpty", "QStartNoAckMode", "Hgp0.0",
		"qXfer:features:read:target.xml:0,ffb", "qXfer:auxv:read::0,ffb",
		"qXfer:exec-file:read::0,ffb", "qTStatus",
		"qXfer:threads:read::0,ffb", "qXfer:threads:read::10,ffb",
		"qfThreadInfo", "qsThreadInfo", "qAttached:1", "?", "qC", "g",
		"qXfer:libraries-svr4:read::0,ffb", "p10", "p39", "p100000010",
		"m555555555149,40", "mffffffffff000000,200", "m0,8",
		"qXfer:siginfo:read::0,80",
	};
	static const char *const replay[] = {
		"QStartNoAckMode", "?", "Z0,555555555149,1", "Hc-1", "bc", "g",
		"mffffffffff000000,200", "bs", "bs", "s", "Hc0", "c",
		"z0,555555555149,1", "bc", "c", "vCont;s:1", "vCont;c",
		"qRcmd,707472656320696e736e73",
		"qRcmd,707472656320696e736e73202f7220312c3230",
		"qRcmd,70747265632063616c6c73202f63",
		"qRcmd,70747265632063616c6c73202d",
		"qRcmd,707472656320676f746f2033",
		"qRcmd,707472656320706f736974696f6e",
		"qRcmd,707472656320676f746f20656e64",
		"Z2,1000,4", "G00", "D",
	};
	/* Host I/O as GDB 13 reads a library (docs/gdb.md, "Files GDB
	 * reads"), a link, and writes it must refuse.
	 */
	static const char *const hostio[] = {
		"QStartNoAckMode", "vFile:setfs:0",
		"vFile:open:6a7573742070726f62696e67,0,0",
		"vFile:open:2f7573722f6c69622f7838365f36342d6c696e75782d676e"
		"752f6c6962632e736f2e36,0,0",
		"vFile:fstat:0", "vFile:pread:0,4000,0",
		"vFile:pread:0,4000,1ff0", "vFile:pread:7,1,0",
		"vFile:readlink:2f6c696236342f6c642d6c696e75782d7838362d36342e"
		"736f2e32",
		"vFile:open:2f746d702f78,241,1b6", "vFile:unlink:2f746d702f78",
		"vFile:close:0", "D",
	};

	return seed_packets("connect", connect,
			    sizeof(connect) / sizeof(connect[0]), true) ||
	       seed_packets("replay", replay,
			    sizeof(replay) / sizeof(replay[0]), false) ||
	       seed_packets("hostio", hostio,
			    sizeof(hostio) / sizeof(hostio[0]), false) ? -1 : 0;
}

/*
 * fuzz_idxcache: the index files ptrec itself saves for a copy of
 * $PTREC_FUZZ_BUNDLE (ptrec next to this program's directory, in BUILD),
 * without their MAC, whole and cut inside the checkpoints.
 */
static int seeds_idxcache(const char *self)
{
	const char *bundle = getenv("PTREC_FUZZ_BUNDLE");
	char cmd[16384], ptrec[4096];
	const char *slash = strrchr(self, '/');

	if (!bundle) {
		fprintf(stderr, "mkseeds: fuzz_idxcache needs PTREC_FUZZ_BUNDLE\n");
		return -1;
	}
	snprintf(ptrec, sizeof(ptrec), "%.*s/../ptrec",
		 slash ? (int)(slash - self) : 1, slash ? self : ".");
	snprintf(cmd, sizeof(cmd),
		 "set -e; d='%s'; t=\"$d/tmp\"; rm -rf \"$t\"; mkdir \"$t\";"
		 " cp -a '%s' \"$t/b\"; rm -rf \"$t/b/index\";"
		 " XDG_CACHE_HOME=\"$t/cache\" PTREC_INDEX_CACHE=1 '%s' info"
		 " \"$t/b\" >/dev/null;"
		 " for f in \"$t\"/b/index/*.idx; do n=$(basename \"$f\");"
		 " s=$(stat -c %%s \"$f\");"
		 " head -c $((s - 32)) \"$f\" > \"$d/$n\";"
		 " head -c $(((s - 32) / 2)) \"$f\" > \"$d/half-$n\"; done;"
		 " rm -rf \"$t\"",
		 dir, bundle, ptrec);
	return system(cmd) ? -1 : 0;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: mkseeds HARNESS-NAME DIR\n");
		return 2;
	}
	dir = argv[2];
	if (!strcmp(argv[1], "fuzz_sideband_reader")) {
		ret = seeds_reader();
	} else if (!strcmp(argv[1], "fuzz_manifest")) {
		ret = seeds_manifest();
	} else if (!strcmp(argv[1], "fuzz_replay")) {
		ret = seeds_replay();
	} else if (!strcmp(argv[1], "fuzz_snapshot")) {
		ret = seeds_snapshot();
	} else if (!strcmp(argv[1], "fuzz_idxcache")) {
		ret = seeds_idxcache(argv[0]);
	} else if (!strcmp(argv[1], "fuzz_perf")) {
		ret = seeds_perf(argv[0]);
	} else if (!strcmp(argv[1], "fuzz_server")) {
		ret = seeds_server();
	} else {
		fprintf(stderr, "mkseeds: no seeds for harness '%s'\n",
			argv[1]);
		return 1;
	}
	return ret ? 1 : 0;
}
