// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptrec selftest: the first steps of bringing ptrec.ko up on a machine
 * (docs/kmod.md, "Bring-up on real Intel PT"), run in one go, with a
 * report to send back.  ptrec.ko has only ever run on its simulated unit;
 * this is what a first real machine runs before anything else:
 *
 *   module    /dev/ptrec answers PTREC_IOC_INFO in this interface version
 *   cpuid     INFO agrees with CPUID leaf 14H and 0DH read here (real unit)
 *   trace     a child that loops (ST_LOOPS iterations, 300 ms at least),
 *             calls and moves between CPUs is traced to its end
 *   decode    its stream decodes packet by packet (libipt), begins with
 *             PSB, and holds at least one TNT bit per loop iteration (real
 *             unit) or PTW packets of its own tid (simulated unit)
 *   switches  every switch-in starts with PSB+ (at least as many PSBs as
 *             SWITCH_IN records), on more than one CPU
 *   pmi       ToPA PMIs were taken with the small buffer
 *   perf      perf_event_open() of intel_pt for the child fails with EBUSY
 *             while ptrec traces it (ptrec holds the unit)
 *   cr3       the same child traced again with CR3 filtering on the CR3
 *             the module believes its user code runs on (#20.5: with
 *             page-table isolation that is the user half of the PGD)
 *             decodes as the unfiltered trace does; SKIP without CR3
 *             filtering or with PCID (ATTACH refuses it there)
 *   hwstats   no faulting MSR access and no unit error (module counters)
 *
 * Each step prints PASS, FAIL or SKIP with what it saw; the exit status
 * is 1 if any failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cpuid.h>
#include <linux/perf_event.h>

#include <intel-pt.h>

#include "cli.h"
#include "uapi/ptrec.h"
#include "uapi/ptrec_sideband.h"

#define ST_LOOPS	200000	/* iterations of the child's loop */
#define ST_MOVES	8	/* CPU changes during it */
#define ST_HWSTATS	"/sys/module/ptrec/parameters/hwstats"

struct st_result {
	int pass, fail, skip;
};

static void __attribute__((format(printf, 4, 5)))
st_say(struct st_result *r, int ok, const char *step, const char *fmt, ...)
{
	va_list ap;

	if (ok > 0)
		r->pass++;
	else if (ok == 0)
		r->fail++;
	else
		r->skip++;
	printf("%-4s  %-9s ", ok > 0 ? "PASS" : ok == 0 ? "FAIL" : "SKIP",
	       step);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* The first line of @path, without its newline, or "?". */
static void st_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	snprintf(buf, len, "?");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* KEY's number in a "key value key value" line (hwstats), or -1. */
static long st_kv(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	size_t n = strlen(key);

	while (p && ((p != line && p[-1] != ' ') || p[n] != ' '))
		p = strstr(p + 1, key);
	return p ? strtol(p + n + 1, NULL, 10) : -1;
}

static void st_environment(void)
{
	char buf[512];
	struct utsname u;
	FILE *f;

	if (!uname(&u))
		printf("kernel:   %s %s\n", u.release, u.version);
	st_line("/proc/cmdline", buf, sizeof(buf));
	printf("cmdline:  %s\n", buf);
	st_line("/proc/sys/kernel/nmi_watchdog", buf, sizeof(buf));
	printf("nmi_watchdog: %s\n", buf);
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(buf, sizeof(buf), f)) {
		if (!strncmp(buf, "model name", 10)) {
			printf("cpu:     %s", strchr(buf, ':') + 1);
			break;
		}
	}
	if (f)
		fclose(f);
}

/* ---- the traced child ----------------------------------------------------- */

static volatile uint64_t st_sink;

static __attribute__((noinline)) void st_odd(uint64_t i)
{
	st_sink += i;
}

static __attribute__((noinline)) void st_even(uint64_t i)
{
	st_sink ^= i;
}

/* A loop with a conditional branch per iteration, calls, and moves. */
static void __attribute__((noreturn)) st_child(int go)
{
	void (*volatile fn[2])(uint64_t) = { st_even, st_odd };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t i;
	char c;

	struct timespec t0, t;

	if (read(go, &c, 1) != 1)
		_exit(126);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* ST_LOOPS iterations, and 300 ms at least: enough output for
	 * PMIs also on the simulated unit, whose output follows time
	 */
	for (i = 0;; i++) {
		if (i >= ST_LOOPS && !(i & 0xfff)) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((t.tv_sec - t0.tv_sec) * 1000 +
			    (t.tv_nsec - t0.tv_nsec) / 1000000 >= 300)
				break;
		}
		if (i < ST_LOOPS && i % (ST_LOOPS / ST_MOVES) == 0 &&
		    ncpu > 1) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET((i / (ST_LOOPS / ST_MOVES)) % ncpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		fn[i & 1](i);
	}
	_exit(0);
}

/* ---- what the module delivered -------------------------------------------- */

#define ST_MAX_CUTS	256

struct st_trace {
	uint8_t *buf;		/* the child's stream, pieces concatenated */
	size_t len, cap;
	size_t cuts[ST_MAX_CUTS]; /* buffer offsets where decoding starts
				   * again: a jump in stream offsets, or a
				   * LOST record (the unit stopped there, a
				   * packet may be cut) */
	size_t ncuts;
	uint64_t lost_at[ST_MAX_CUTS];	/* stream offsets of LOST records */
	size_t nlost_at;
	uint64_t next;		/* next expected stream offset */
	uint64_t switch_ins, losts, cpus;
	int exited;
};

static void st_cut(struct st_trace *tr, size_t at)
{
	if (tr->ncuts < ST_MAX_CUTS)
		tr->cuts[tr->ncuts++] = at;
}

static int st_take_trace(struct st_trace *tr, const struct ptrec_msg_trace *m)
{
	if (tr->len + m->len > tr->cap) {
		size_t cap = (tr->cap ? tr->cap * 2 : 1 << 20) + m->len;
		uint8_t *p = realloc(tr->buf, cap);

		if (!p)
			return -1;
		tr->buf = p;
		tr->cap = cap;
	}
	size_t i;

	if (m->offset != tr->next && tr->len)
		st_cut(tr, tr->len);
	/* a LOST record delivered before the data around it */
	for (i = 0; i < tr->nlost_at; i++)
		if (tr->lost_at[i] >= m->offset &&
		    tr->lost_at[i] < m->offset + m->len &&
		    (tr->len || tr->lost_at[i] > m->offset))
			st_cut(tr, tr->len + (tr->lost_at[i] - m->offset));
	memcpy(tr->buf + tr->len, m + 1, m->len);
	tr->len += m->len;
	tr->next = m->offset + m->len;
	return 0;
}

static int st_consume(struct st_trace *tr, const uint8_t *buf, size_t len,
		      uint32_t tid)
{
	size_t pos = 0;

	while (pos + sizeof(struct ptrec_sb_header) <= len) {
		const struct ptrec_sb_header *h = (const void *)(buf + pos);

		if (h->size < sizeof(*h) || h->size > len - pos)
			return -1;
		if (h->type == PTREC_MSG_TRACE) {
			const struct ptrec_msg_trace *m = (const void *)h;

			if (m->tid == tid && m->len <= h->size - sizeof(*m) &&
			    st_take_trace(tr, m))
				return -1;
		} else if (h->type == PTREC_SB_SWITCH_IN) {
			const struct ptrec_sb_switch *s = (const void *)h;

			if (s->tid == tid) {
				tr->switch_ins++;
				tr->cpus |= 1ULL << (s->cpu & 63);
			}
		} else if (h->type == PTREC_SB_LOST) {
			const struct ptrec_sb_lost *l = (const void *)h;

			if (l->tid == tid) {
				tr->losts++;
				if (l->offset == tr->next && tr->len)
					st_cut(tr, tr->len);
				else if (tr->nlost_at < ST_MAX_CUTS)
					tr->lost_at[tr->nlost_at++] =
						l->offset;
			}
		} else if (h->type == PTREC_SB_PROCESS_EXIT) {
			tr->exited = 1;
		}
		pos += h->size;
	}
	return 0;
}

struct st_packets {
	uint64_t psbs, tnt_bits, tips, ptws, ovfs, errors, own_ptws;
	int first_psb_at_0;
	char first_error[160];
};

static void st_decode_piece(const uint8_t *p, size_t len, uint32_t tid,
			    struct st_packets *pk, int first)
{
	struct pt_packet_decoder *dec;
	struct pt_config cfg;
	struct pt_packet pkt;
	uint64_t off = 0;
	int rc;

	if (!len)
		return;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)p;
	cfg.end = (uint8_t *)p + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return;
	rc = pt_pkt_sync_forward(dec);
	if (rc >= 0 && first) {
		pt_pkt_get_sync_offset(dec, &off);
		pk->first_psb_at_0 = off == 0;
	}
	while (rc >= 0) {
		rc = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (rc == -pte_eos)
			break;
		if (rc < 0) {
			pk->errors++;
			pt_pkt_get_offset(dec, &off);
			if (!pk->first_error[0])
				snprintf(pk->first_error,
					 sizeof(pk->first_error),
					 "%s at byte %" PRIu64,
					 pt_errstr(pt_errcode(rc)), off);
			rc = pt_pkt_sync_forward(dec);
			continue;
		}
		switch (pkt.type) {
		case ppt_psb:
			pk->psbs++;
			break;
		case ppt_tnt_8:
		case ppt_tnt_64:
			pk->tnt_bits += pkt.payload.tnt.bit_size;
			break;
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_tip_pgd:
			pk->tips++;
			break;
		case ppt_ovf:
			pk->ovfs++;
			break;
		case ppt_ptw:
			pk->ptws++;
			if (pkt.payload.ptw.payload >> 32 == tid)
				pk->own_ptws++;
			break;
		default:
			break;
		}
	}
	pt_pkt_free_decoder(dec);
}

static int st_cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static void st_decode(struct st_trace *tr, uint32_t tid,
		      struct st_packets *pk)
{
	size_t i, start = 0;

	memset(pk, 0, sizeof(*pk));
	qsort((void *)tr->cuts, tr->ncuts, sizeof(tr->cuts[0]), st_cmp_size);
	for (i = 0; i <= tr->ncuts; i++) {
		size_t end = i < tr->ncuts ? tr->cuts[i] : tr->len;

		st_decode_piece(tr->buf + start, end - start, tid, pk, !i);
		start = end;
	}
}

/* intel_pt's perf PMU type, or -1 if the kernel has none. */
static int st_pt_pmu_type(void)
{
	char buf[32];

	st_line("/sys/bus/event_source/devices/intel_pt/type", buf,
		sizeof(buf));
	return buf[0] == '?' ? -1 : atoi(buf);
}

/* perf_event_open() of intel_pt on @pid: what perf record would do. */
static int st_perf_pt(pid_t pid, int type)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t)type;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0);
	if (fd >= 0) {
		close((int)fd);
		return 0;
	}
	return -errno;
}

/* ---- the steps ------------------------------------------------------------ */

static int st_info(int fd, struct ptrec_info *in, struct st_result *r)
{
	memset(in, 0, sizeof(*in));
	in->size = sizeof(*in);
	in->version = PTREC_UAPI_VERSION;
	if (ioctl(fd, PTREC_IOC_INFO, in)) {
		st_say(r, 0, "module", "PTREC_IOC_INFO: %s (a module of another release? see docs/kmod.md)",
		       strerror(errno));
		return -1;
	}
	st_say(r, 1, "module", "%s unit, %s save path, %s ToPA, flags 0x%x, %u address ranges, PT state %u bytes, family %u model %u stepping %u, nom_freq %u, tsc %" PRIu64 " kHz",
	       in->flags & PTREC_INFO_SIMULATED ? "simulated" : "Intel PT",
	       in->flags & PTREC_INFO_XSAVES ? "XSAVES" : "MSR",
	       in->flags & PTREC_INFO_TOPA_MULTI ? "multi-entry" :
	       "single-entry", in->flags, in->nr_addr_ranges, in->xsave_size,
	       in->family, in->model, in->stepping, in->nom_freq,
	       (uint64_t)in->tsc_khz);
	return 0;
}

/* INFO against CPUID read here (SDM Vol. 3C 33.3.1, Vol. 1 13.2). */
static void st_cpuid(const struct ptrec_info *in, struct st_result *r)
{
	unsigned int a, b, c, d, a1 = 0, b1 = 0, c1, d1;
	char bad[256] = "";
	size_t n = 0;

	if (in->flags & PTREC_INFO_SIMULATED) {
		st_say(r, -1, "cpuid", "the simulated unit has its own CPUID");
		return;
	}
	__cpuid_count(0x14, 0, a, b, c, d);
	if (a >= 1)
		__cpuid_count(0x14, 1, a1, b1, c1, d1);
#define ST_BIT(have, flag, what) \
	do { \
		if (!!(have) != !!(in->flags & (flag))) \
			n += (size_t)snprintf(bad + n, sizeof(bad) - n, \
					       "%s ", what); \
	} while (0)
	ST_BIT(b & 1, PTREC_INFO_CR3_FILTER, "cr3_filter");
	ST_BIT(b & 2, PTREC_INFO_PSB_CYC, "psb_cyc");
	ST_BIT(b & 4, PTREC_INFO_IP_FILTER, "ip_filter");
	ST_BIT(b & 8, PTREC_INFO_MTC, "mtc");
	ST_BIT(b & 16, PTREC_INFO_PTWRITE, "ptwrite");
	ST_BIT(c & 1, PTREC_INFO_TOPA, "topa");
	ST_BIT(c & 2, PTREC_INFO_TOPA_MULTI, "topa_multi");
#undef ST_BIT
	if ((a1 & 7) != in->nr_addr_ranges || (a1 >> 16) != in->mtc_periods ||
	    (b1 >> 16) != in->psb_periods)
		n += (size_t)snprintf(bad + n, sizeof(bad) - n,
				       "leaf 14H.1 (ranges/periods) ");
	if (in->flags & PTREC_INFO_XSAVES) {
		__cpuid_count(0xd, 8, a, b, c, d);
		if (a != in->xsave_size)
			n += (size_t)snprintf(bad + n, sizeof(bad) - n,
					       "xsave_size (CPUID says %u) ",
					       a);
	}
	(void)d;
	(void)c1;
	(void)d1;
	st_say(r, !n, "cpuid", n ? "INFO differs from CPUID: %s" :
	       "INFO agrees with CPUID leaves 14H and 0DH%s", bad);
}

static void st_hwstats(const char *before, struct st_result *r)
{
	char after[256];
	long f0 = st_kv(before, "msr_faults"), e0 = st_kv(before, "unit_errors");
	long f1, e1;

	st_line(ST_HWSTATS, after, sizeof(after));
	f1 = st_kv(after, "msr_faults");
	e1 = st_kv(after, "unit_errors");
	if (f0 < 0 || f1 < 0) {
		st_say(r, -1, "hwstats", "cannot read %s", ST_HWSTATS);
		return;
	}
	st_say(r, f1 == f0 && e1 == e0, "hwstats",
	       "%ld faulting MSR/XSAVES accesses, %ld unit errors during the run (%s)",
	       f1 - f0, e1 - e0, after);
}

/* Trace the child with @fd to its end; fills @tr and @st. */
/*
 * Traces the child to its end under step @step with @flags added; with
 * @perf_rc, tries perf's intel_pt on it meanwhile.  Returns its pid, -1
 * on a failure (reported), or, with @flags (not reported): -2 if ATTACH
 * refused them with EOPNOTSUPP, -3 if the child was not traced to its
 * end.
 */
static int st_run(int fd, const struct ptrec_info *in, struct st_trace *tr,
		  struct ptrec_stats *st, int *perf_rc, struct st_result *r,
		  uint32_t flags, const char *step)
{
	struct ptrec_config cfg;
	size_t bufsz = 4 * PTREC_READ_MIN;
	int go[2], status = 0, type = st_pt_pmu_type();
	uint8_t *buf = malloc(bufsz);
	pid_t child;

	if (!buf || pipe(go))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (!child) {
		close(go[1]);
		st_child(go[0]);
	}
	close(go[0]);
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.version = PTREC_UAPI_VERSION;
	cfg.pid = (uint32_t)child;
	cfg.flags = PTREC_CFG_USER | PTREC_CFG_TSC | PTREC_CFG_RING | flags;
	if (in->flags & PTREC_INFO_SIMULATED)
		cfg.flags |= PTREC_CFG_PTWRITE;	/* the model's packets */
	/* small, so the PMI is exercised */
	cfg.buf_size = 64 * 1024;
	cfg.nr_regions = in->flags & PTREC_INFO_TOPA_MULTI ? 8 : 1;
	if (ioctl(fd, PTREC_IOC_ATTACH, &cfg)) {
		int e = errno;

		if (!(flags && e == EOPNOTSUPP))
			st_say(r, 0, step, "PTREC_IOC_ATTACH: %s (EBUSY: perf uses PT; EPERM: run as root)",
			       strerror(e));
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		free(buf);
		return flags && e == EOPNOTSUPP ? -2 : -1;
	}
	if (perf_rc)
		*perf_rc = type < 0 ? 1 : st_perf_pt(child, type);
	if (write(go[1], "g", 1) != 1)
		kill(child, SIGKILL);
	close(go[1]);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 10000) <= 0)
			break;
		n = read(fd, buf, bufsz);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || st_consume(tr, buf, (size_t)n, (uint32_t)child))
			break;
	}
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->version = PTREC_UAPI_VERSION;
	ioctl(fd, PTREC_IOC_STATS, st);
	waitpid(child, &status, 0);
	free(buf);
	if (flags)	/* the step's own check follows */
		return tr->exited && WIFEXITED(status) && !WEXITSTATUS(status) ?
		       (int)child : -3;
	st_say(r, tr->exited && WIFEXITED(status) && !WEXITSTATUS(status) &&
	       tr->len, step, "child %d traced to its end: %zu bytes, %" PRIu64 " switch-ins on %d CPUs, %" PRIu64 " LOST records",
	       (int)child, tr->len, tr->switch_ins,
	       __builtin_popcountll(tr->cpus), tr->losts);
	return (int)child;
}

/* Is page-table isolation on?  "pti" in /proc/cpuinfo's flags. */
static bool st_pti(void)
{
	char buf[4096];
	bool on = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(buf, sizeof(buf), f)) {
		if (!strncmp(buf, "flags", 5)) {
			on = strstr(buf, " pti ") || strstr(buf, " pti\n");
			break;
		}
	}
	if (f)
		fclose(f);
	return on;
}

/*
 * Step cr3 (#20.5, docs/kmod.md bring-up step 8): the child again, with
 * CR3 filtering on the CR3 the module matches (under PTI the user half
 * of the PGD).  A wrong CR3 traces nothing at all; the right one gives
 * what the unfiltered run (@plain) gave.
 */
static void st_cr3(const struct ptrec_info *in, const struct st_packets *plain,
		   struct st_result *r)
{
	bool pti = st_pti();
	struct ptrec_stats st;
	struct st_packets pk;
	struct st_trace tr;
	int fd, child;

	if (!(in->flags & PTREC_INFO_CR3_FILTER)) {
		st_say(r, -1, "cr3", "the unit has no CR3 filtering");
		return;
	}
	fd = open(PTREC_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		st_say(r, 0, "cr3", "%s: %s", PTREC_DEVICE, strerror(errno));
		return;
	}
	memset(&tr, 0, sizeof(tr));
	child = st_run(fd, in, &tr, &st, NULL, r, PTREC_CFG_CR3_FILTER, "cr3");
	close(fd);
	if (child == -2) {
		st_say(r, -1, "cr3", "CR3 filtering refused: PCID is on (boot with nopcid to check it)");
	} else if (child == -3) {
		st_say(r, 0, "cr3", "the CR3-filtered child was not traced to its end");
	} else if (child > 0) {
		st_decode(&tr, (uint32_t)child, &pk);
		if (in->flags & PTREC_INFO_SIMULATED)
			st_say(r, !pk.errors && pk.own_ptws > 0 &&
			       pk.own_ptws == pk.ptws, "cr3",
			       "CR3-filtered (PTI %s): %" PRIu64 " PTW packets of the child (%" PRIu64 " unfiltered), %" PRIu64 " errors",
			       pti ? "on" : "off", pk.own_ptws,
			       plain->own_ptws, pk.errors);
		else
			st_say(r, !pk.errors && pk.tnt_bits >= ST_LOOPS, "cr3",
			       "CR3-filtered (PTI %s): %" PRIu64 " TNT bits for %d loop iterations (%" PRIu64 " unfiltered), %" PRIu64 " errors",
			       pti ? "on" : "off", pk.tnt_bits, ST_LOOPS,
			       plain->tnt_bits, pk.errors);
	}
	free(tr.buf);
}

int cli_selftest(int argc, char **argv)
{
	struct st_result r = { 0, 0, 0 };
	struct st_trace tr;
	struct st_packets pk;
	struct ptrec_info in;
	struct ptrec_stats st;
	char hw0[256];
	int fd, child, perf_rc = 1;

	if (argc > 1) {
		fprintf(stderr, "usage: ptrec selftest\n");
		return 2;
	}
	(void)argv;
	printf("ptrec selftest %s: ptrec.ko bring-up, steps of docs/kmod.md\n",
	       PTREC_VERSION);
	st_environment();
	fd = open(PTREC_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		st_say(&r, 0, "module", "%s: %s (modprobe ptrec)", PTREC_DEVICE,
		       strerror(errno));
		goto out;
	}
	if (st_info(fd, &in, &r))
		goto out_close;
	st_cpuid(&in, &r);
	st_line(ST_HWSTATS, hw0, sizeof(hw0));
	memset(&tr, 0, sizeof(tr));
	child = st_run(fd, &in, &tr, &st, &perf_rc, &r, 0, "trace");
	if (child < 0)
		goto out_close;
	st_decode(&tr, (uint32_t)child, &pk);
	if (in.flags & PTREC_INFO_SIMULATED)
		st_say(&r, !pk.errors && pk.first_psb_at_0 && pk.own_ptws &&
		       pk.own_ptws == pk.ptws, "decode",
		       "%" PRIu64 " PTW packets (%" PRIu64 " of the child), %" PRIu64 " PSB, %" PRIu64 " errors%s%s",
		       pk.ptws, pk.own_ptws, pk.psbs, pk.errors,
		       pk.errors ? ": " : "", pk.first_error);
	else
		st_say(&r, !pk.errors && pk.first_psb_at_0 &&
		       pk.tnt_bits >= ST_LOOPS, "decode",
		       "%" PRIu64 " TNT bits for %d loop iterations, %" PRIu64 " TIP, %" PRIu64 " PSB, %" PRIu64 " OVF, %" PRIu64 " errors%s%s",
		       pk.tnt_bits, ST_LOOPS, pk.tips, pk.psbs, pk.ovfs,
		       pk.errors, pk.errors ? ": " : "", pk.first_error);
	st_say(&r, pk.psbs >= tr.switch_ins &&
	       (sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
		__builtin_popcountll(tr.cpus) > 1), "switches",
	       "%" PRIu64 " PSB for %" PRIu64 " switch-ins on %d CPUs",
	       pk.psbs, tr.switch_ins, __builtin_popcountll(tr.cpus));
	st_say(&r, st.pmis > 0, "pmi", "%" PRIu64 " ToPA PMIs, %" PRIu64 " bytes delivered, %" PRIu64 " lost",
	       (uint64_t)st.pmis, (uint64_t)st.trace_bytes,
	       (uint64_t)st.lost_bytes);
	if (perf_rc == 1)
		st_say(&r, -1, "perf", "no intel_pt perf PMU in this kernel");
	else
		st_say(&r, perf_rc == -EBUSY, "perf",
		       "perf_event_open(intel_pt) on the traced child: %s (EBUSY expected)",
		       perf_rc ? strerror(-perf_rc) : "succeeded");
	st_cr3(&in, &pk, &r);
	st_hwstats(hw0, &r);
	free(tr.buf);
out_close:
	close(fd);
out:
	printf("selftest: %d passed, %d failed, %d skipped%s\n", r.pass,
	       r.fail, r.skip, r.fail ? "; send this report with dmesg" : "");
	return r.fail ? 1 : 0;
}
