// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqtrace: the kmod suite's own small tracer, run in the guest.  It talks
 * to /dev/ptrec directly (not through ptrec record) so the module is tested
 * against its UAPI alone, and leaves raw material for the host's checks:
 *
 *   DIR/sideband	the sideband records, as a sideband stream file
 *   DIR/TID.pt		each thread's PT bytes, concatenated in order
 *   DIR/index		one line per trace message: tid offset len fileoff
 *   DIR/stats		PTREC_IOC_STATS at the end, key value lines
 *   DIR/info		PTREC_IOC_INFO, key value lines
 *
 * kqtrace [-rkcfSW] [-b BYTES] [-n REGIONS] [-s RATE] [-d MS] [-D MS] -o DIR
 *         (-p PID | -- PROG ARGS)
 *   -r ring mode; -f follow forks; -k kernel too; -c CR3 filter; -S no
 *   system call REGS records; -d sleep MS between
 *   reads (a slow reader); -W read nothing until PROG has exited (the
 *   queue is full when its threads are freed); -D detach
 *   after MS and stop; -p attach a running process (else launch PROG, held
 *   until attached).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uapi/ptrec.h"
#include "uapi/ptrec_sideband.h"

#define KQ_MAX_THREADS 256

struct kq_stream {
	uint32_t tid;
	FILE *f;
	uint64_t fileoff;
};

static struct kq_stream kq_streams[KQ_MAX_THREADS];
static int kq_nstreams;
static const char *kq_dir;

static void kq_die(const char *what)
{
	fprintf(stderr, "kqtrace: %s: %s\n", what, strerror(errno));
	exit(2);
}

static FILE *kq_open(const char *name, const char *mode)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", kq_dir, name);
	f = fopen(path, mode);
	if (!f)
		kq_die(path);
	return f;
}

static struct kq_stream *kq_stream_of(uint32_t tid)
{
	char name[32];
	int i;

	for (i = 0; i < kq_nstreams; i++)
		if (kq_streams[i].tid == tid)
			return &kq_streams[i];
	if (kq_nstreams == KQ_MAX_THREADS) {
		errno = ENOSPC;
		kq_die("too many threads");
	}
	snprintf(name, sizeof(name), "%u.pt", tid);
	kq_streams[kq_nstreams].tid = tid;
	kq_streams[kq_nstreams].f = kq_open(name, "w");
	kq_streams[kq_nstreams].fileoff = 0;
	return &kq_streams[kq_nstreams++];
}

static uint64_t kq_num(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "kqtrace: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static uint64_t kq_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void kq_write_info(int fd)
{
	struct ptrec_info info = {
		.size = sizeof(info), .version = PTREC_UAPI_VERSION,
	};
	FILE *f;

	if (ioctl(fd, PTREC_IOC_INFO, &info))
		kq_die("PTREC_IOC_INFO");
	f = kq_open("info", "w");
	fprintf(f, "flags 0x%x\nnr_addr_ranges %u\npsb_periods 0x%x\n"
		"mtc_periods 0x%x\nxsave_size %u\ntsc_khz %llu\n",
		info.flags, info.nr_addr_ranges, info.psb_periods,
		info.mtc_periods, info.xsave_size,
		(unsigned long long)info.tsc_khz);
	fclose(f);
}

static void kq_write_stats(int fd)
{
	struct ptrec_stats st = {
		.size = sizeof(st), .version = PTREC_UAPI_VERSION,
	};
	FILE *f;

	if (ioctl(fd, PTREC_IOC_STATS, &st))
		kq_die("PTREC_IOC_STATS");
	f = kq_open("stats", "w");
	fprintf(f, "threads %llu\nswitches %llu\npmis %llu\ntrace_bytes %llu\n"
		"lost_bytes %llu\nsideband_records %llu\nlost_records %llu\n"
		"stopped %u\n",
		(unsigned long long)st.threads,
		(unsigned long long)st.switches,
		(unsigned long long)st.pmis,
		(unsigned long long)st.trace_bytes,
		(unsigned long long)st.lost_bytes,
		(unsigned long long)st.sideband_records,
		(unsigned long long)st.lost_records, st.stopped);
	fclose(f);
}

/* Splits one read() buffer into messages; returns -1 on a malformed one. */
static int kq_consume(const uint8_t *buf, size_t len, FILE *sb, FILE *idx)
{
	size_t pos = 0;

	while (pos < len) {
		const struct ptrec_sb_header *h = (const void *)(buf + pos);

		if (len - pos < sizeof(*h) || h->size < sizeof(*h) ||
		    h->size % 8 || h->size > len - pos) {
			fprintf(stderr, "kqtrace: bad message at %zu of %zu "
				"(size %u)\n", pos, len,
				len - pos >= sizeof(*h) ? h->size : 0);
			return -1;
		}
		if (h->type == PTREC_MSG_TRACE) {
			const struct ptrec_msg_trace *m = (const void *)h;
			struct kq_stream *s;

			if (m->len > h->size - sizeof(*m)) {
				fprintf(stderr, "kqtrace: trace message len "
					"%u > size %u\n", m->len, h->size);
				return -1;
			}
			s = kq_stream_of(m->tid);
			fprintf(idx, "%u %llu %u %llu %llu\n", m->tid,
				(unsigned long long)m->offset, m->len,
				(unsigned long long)s->fileoff,
				(unsigned long long)m->time);
			if (fwrite(m + 1, 1, m->len, s->f) != m->len)
				kq_die("write stream");
			s->fileoff += m->len;
		} else if (fwrite(h, 1, h->size, sb) != h->size) {
			kq_die("write sideband");
		}
		pos += h->size;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ptrec_config cfg = {
		.size = sizeof(cfg), .version = PTREC_UAPI_VERSION,
		/* PTWEn: the simulated unit writes its PTW packets only
		 * with it, as hardware does for PTWRITE.
		 */
		.flags = PTREC_CFG_USER | PTREC_CFG_TSC | PTREC_CFG_PTWRITE,
		.buf_size = 64 * 1024, .nr_regions = 4,
	};
	struct ptrec_sb_file_header fh = {
		.magic = PTREC_SB_MAGIC, .version = PTREC_SB_VERSION,
		.header_size = sizeof(fh),
	};
	unsigned int delay_ms = 0, detach_ms = 0, wait_exit = 0;
	int go[2] = { -1, -1 }, opt, fd, status = 0, rc = 0;
	pid_t pid = 0, child = 0;
	uint64_t t0;
	size_t bufsz = 4 * PTREC_READ_MIN;
	uint8_t *buf;
	FILE *sb, *idx, *res;

	while ((opt = getopt(argc, argv, "rkcfSWb:n:s:d:D:o:p:")) != -1) {
		switch (opt) {
		case 'r': cfg.flags |= PTREC_CFG_RING; break;
		case 'k': cfg.flags |= PTREC_CFG_KERNEL; break;
		case 'c': cfg.flags |= PTREC_CFG_CR3_FILTER; break;
		case 'f': cfg.flags |= PTREC_CFG_FOLLOW_FORK; break;
		case 'S': cfg.flags |= PTREC_CFG_NO_SYSREGS; break;
		case 'W': wait_exit = 1; break;
		case 'b': cfg.buf_size = kq_num(optarg); break;
		case 'n': cfg.nr_regions = (uint32_t)kq_num(optarg); break;
		case 's': cfg.sim_rate = (uint32_t)kq_num(optarg); break;
		case 'd': delay_ms = (unsigned int)kq_num(optarg); break;
		case 'D': detach_ms = (unsigned int)kq_num(optarg); break;
		case 'o': kq_dir = optarg; break;
		case 'p': pid = (pid_t)kq_num(optarg); break;
		default:
			fprintf(stderr, "usage: kqtrace [-rkcfSW] [-b BYTES] "
				"[-n REGIONS] [-s RATE] [-d MS] [-D MS] -o DIR "
				"(-p PID | -- PROG ARGS)\n");
			return 2;
		}
	}
	if (!kq_dir || (!pid && optind >= argc) || (wait_exit && pid)) {
		fprintf(stderr, "kqtrace: need -o DIR and -p PID or PROG\n");
		return 2;
	}
	mkdir(kq_dir, 0755);
	buf = malloc(bufsz);
	if (!buf)
		kq_die("malloc");

	if (!pid) {
		/* The child waits until it is attached, then execs. */
		if (pipe(go))
			kq_die("pipe");
		child = fork();
		if (child < 0)
			kq_die("fork");
		if (!child) {
			char c;

			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(126);
			close(go[0]);
			execvp(argv[optind], argv + optind);
			perror("kqtrace: exec");
			_exit(127);
		}
		close(go[0]);
		pid = child;
	}
	fd = open(PTREC_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		kq_die(PTREC_DEVICE);
	kq_write_info(fd);
	cfg.pid = (uint32_t)pid;
	if (ioctl(fd, PTREC_IOC_ATTACH, &cfg)) {
		int e = errno;

		if (child)
			kill(child, SIGKILL);
		errno = e;
		kq_die("PTREC_IOC_ATTACH");
	}
	if (child) {
		if (write(go[1], "g", 1) != 1)
			kq_die("release the child");
		close(go[1]);
		if (wait_exit) {
			if (waitpid(child, &status, 0) < 0)
				kq_die("waitpid");
			wait_exit = 2;	/* reaped */
		}
	}

	sb = kq_open("sideband", "w");
	idx = kq_open("index", "w");
	if (fwrite(&fh, 1, sizeof(fh), sb) != sizeof(fh))
		kq_die("write sideband");
	t0 = kq_now_ms();
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (detach_ms && t0 && kq_now_ms() - t0 >= detach_ms) {
			if (ioctl(fd, PTREC_IOC_DETACH))
				kq_die("PTREC_IOC_DETACH");
			t0 = 0;
		}
		if (poll(&p, 1, 100) < 0) {
			if (errno == EINTR)
				continue;
			kq_die("poll");
		}
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(fd, buf, bufsz);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			kq_die("read");
		}
		if (n == 0)
			break;
		if (kq_consume(buf, (size_t)n, sb, idx)) {
			rc = 1;
			break;
		}
		if (delay_ms)
			usleep(delay_ms * 1000);
	}
	kq_write_stats(fd);
	close(fd);
	fclose(sb);
	fclose(idx);
	for (opt = 0; opt < kq_nstreams; opt++)
		fclose(kq_streams[opt].f);
	if (child) {
		if (wait_exit != 2 && waitpid(child, &status, 0) < 0)
			kq_die("waitpid");
		res = kq_open("result", "w");
		fprintf(res, "status %d\n", status);
		fclose(res);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			rc = rc ? rc : 3;
	}
	free(buf);
	return rc;
}
