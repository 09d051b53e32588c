// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec import raw`: raw PT streams plus the code they ran on become a
 * bundle.  Nothing but the streams and images is known, so the bundle holds
 * one process whose address space is the given images (snapshot MMAPs at
 * time 0), one thread per stream, no register snapshot: replay starts and
 * ends where each trace does.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_args.h"
#include "import.h"

#define CMD "ptrec import raw"
#define MAX_STREAMS 1024

enum img_kind { IMG_ELF, IMG_RAW, IMG_LIST };

struct stream {
	const char *arg;	/* FILE[@OFFSET] as given */
	char *path;
	uint64_t off;
	uint32_t tid;
};

struct image_arg {
	enum img_kind kind;
	const char *arg;
};

struct raw_opts {
	const char *out;
	struct stream *streams;
	size_t nstreams;
	struct image_arg *images;
	size_t nimages;
	struct sb_cpu cpu;
	bool have_cpu;
	uint32_t mtc_freq, nom_freq, cpuid_15_eax, cpuid_15_ebx;
	uint32_t pid;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " CMD " -o DIR --pt FILE[@OFFSET] [--thread TID] [--pt ...]\n"
		"           [--elf FILE[:BASE]]... [--raw FILE:ADDRESS]... [--images LIST]...\n"
		"           [--cpu FAMILY/MODEL[/STEPPING]] [--mtc-freq N] [--nom-freq N]\n"
		"           [--cpuid-0x15 EAX/EBX] [--pid PID]\n"
		"\n"
		"  --pt FILE[@OFFSET]  a raw Intel PT stream; @OFFSET skips a header\n"
		"  --thread TID        thread id of the preceding --pt (default 1, 2, ...)\n"
		"  --elf FILE[:BASE]   an ELF file, loaded at BASE or at its own addresses\n"
		"  --raw FILE:ADDRESS  a memory dump holding code at ADDRESS\n"
		"  --images LIST       a file of lines 'PATH ADDRESS [FILE-OFFSET SIZE]'\n"
		"  --cpu F/M[/S]       the recording CPU (enables libipt's errata workarounds)\n"
		"  --mtc-freq, --nom-freq, --cpuid-0x15 EAX/EBX  timing configuration\n");
}

/* Splits "TEXT<sep>NUMBER" at the last @sep; *num stays put without one. */
static int split_num(const char *opt, const char *arg, int sep, char **text,
		     uint64_t *num, bool required)
{
	const char *p = strrchr(arg, sep);

	if (!p) {
		if (required) {
			fprintf(stderr, CMD ": %s %s: expected FILE%cNUMBER\n",
				opt, arg, sep);
			return -1;
		}
		*text = strdup(arg);
		return *text ? 0 : -1;
	}
	if (p == arg) {
		fprintf(stderr, CMD ": %s %s: no file name\n", opt, arg);
		return -1;
	}
	if (cli_parse_u64(CMD, opt, p + 1, num))
		return -1;
	*text = strndup(arg, p - arg);
	return *text ? 0 : -1;
}

static int parse_u32(const char *opt, const char *arg, uint32_t *out)
{
	uint64_t v;

	if (cli_parse_u64(CMD, opt, arg, &v))
		return -1;
	if (v > UINT32_MAX) {
		fprintf(stderr, CMD ": %s %s: out of range\n", opt, arg);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_cpuid15(const char *arg, struct raw_opts *o)
{
	char *slash = strchr(arg, '/'), *a;
	int ret;

	if (!slash) {
		fprintf(stderr, CMD ": --cpuid-0x15 %s: expected EAX/EBX\n", arg);
		return -1;
	}
	a = strndup(arg, slash - arg);
	if (!a)
		return -1;
	ret = parse_u32("--cpuid-0x15", a, &o->cpuid_15_eax) ||
	      parse_u32("--cpuid-0x15", slash + 1, &o->cpuid_15_ebx) ? -1 : 0;
	free(a);
	return ret;
}

static void *grow(void *v, size_t n, size_t size)
{
	return realloc(v, (n + 1) * size);
}

static int parse_args(int argc, char **argv, struct raw_opts *o)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pt", required_argument, NULL, 'p' },
		{ "thread", required_argument, NULL, 't' },
		{ "elf", required_argument, NULL, 'e' },
		{ "raw", required_argument, NULL, 'r' },
		{ "images", required_argument, NULL, 'i' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "mtc-freq", required_argument, NULL, 'm' },
		{ "nom-freq", required_argument, NULL, 'n' },
		{ "cpuid-0x15", required_argument, NULL, 'x' },
		{ "pid", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool tid_given = false;
	struct sb_err err;
	long id;
	int c;

	o->pid = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", lopts, NULL)) != -1) {
		struct stream *s;
		struct image_arg *im;

		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case 'p':
			if (o->nstreams == MAX_STREAMS) {
				fprintf(stderr, CMD ": more than %d streams\n",
					MAX_STREAMS);
				return -1;
			}
			s = grow(o->streams, o->nstreams, sizeof(*s));
			if (!s)
				return -1;
			o->streams = s;
			s = &s[o->nstreams++];
			memset(s, 0, sizeof(*s));
			s->arg = optarg;
			s->tid = o->nstreams;
			tid_given = false;
			if (split_num("--pt", optarg, '@', &s->path, &s->off,
				      false))
				return -1;
			break;
		case 't':
			if (!o->nstreams || tid_given) {
				fprintf(stderr,
					CMD ": --thread %s: names the thread of the --pt before it; give --pt FILE first\n",
					optarg);
				return -1;
			}
			if (cli_parse_tid(CMD, "--thread", optarg, &id))
				return -1;
			o->streams[o->nstreams - 1].tid = id;
			tid_given = true;
			break;
		case 'e':
		case 'r':
		case 'i':
			im = grow(o->images, o->nimages, sizeof(*im));
			if (!im)
				return -1;
			o->images = im;
			im[o->nimages].kind = c == 'e' ? IMG_ELF :
					      c == 'r' ? IMG_RAW : IMG_LIST;
			im[o->nimages++].arg = optarg;
			break;
		case 'c':
			if (import_parse_cpu(optarg, &o->cpu, &err)) {
				fprintf(stderr, CMD ": %s\n", err.msg);
				return -1;
			}
			o->have_cpu = true;
			break;
		case 'm':
			if (parse_u32("--mtc-freq", optarg, &o->mtc_freq))
				return -1;
			break;
		case 'n':
			if (parse_u32("--nom-freq", optarg, &o->nom_freq))
				return -1;
			break;
		case 'x':
			if (parse_cpuid15(optarg, o))
				return -1;
			break;
		case 'P':
			if (cli_parse_tid(CMD, "--pid", optarg, &id))
				return -1;
			o->pid = id;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, CMD ": unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!o->out || !o->nstreams) {
		fprintf(stderr, CMD ": %s is required\n",
			!o->out ? "-o DIR" : "--pt FILE");
		usage(stderr);
		return -1;
	}
	for (size_t i = 0; i < o->nstreams; i++)
		for (size_t j = 0; j < i; j++)
			if (o->streams[i].tid == o->streams[j].tid) {
				fprintf(stderr,
					CMD ": --pt %s and --pt %s are both thread %u; give each its own --thread\n",
					o->streams[j].arg, o->streams[i].arg,
					o->streams[i].tid);
				return -1;
			}
	return 0;
}

/* One line of an --images list: PATH ADDRESS [FILE-OFFSET SIZE]. */
static int list_line(struct sb_bundle *b, struct sb_writer *w, uint32_t pid,
		     const char *list, unsigned int lineno, char *line,
		     const char *dir)
{
	char *tok[5], *save = NULL, *p, path[4096];
	uint64_t num[3] = { 0, 0, 0 };
	struct sb_err err;
	int n = 0, i;

	for (p = strtok_r(line, " \t\r\n", &save); p && n < 5;
	     p = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = p;
	if (!n || tok[0][0] == '#')
		return 0;
	if (n != 2 && n != 4) {
		fprintf(stderr,
			CMD ": %s:%u: expected 'PATH ADDRESS [FILE-OFFSET SIZE]'\n",
			list, lineno);
		return -1;
	}
	for (i = 1; i < n; i++) {
		char *e;

		errno = 0;
		num[i - 1] = strtoull(tok[i], &e, 0);
		if (errno || *e || tok[i][0] == '-') {
			fprintf(stderr, CMD ": %s:%u: '%s' is not a number\n",
				list, lineno, tok[i]);
			return -1;
		}
	}
	/* Relative paths are relative to the list's directory. */
	if (tok[0][0] != '/' && dir)
		snprintf(path, sizeof(path), "%s/%s", dir, tok[0]);
	else
		snprintf(path, sizeof(path), "%s", tok[0]);
	if (n == 4 && !num[2]) {
		fprintf(stderr, CMD ": %s:%u: size 0\n", list, lineno);
		return -1;
	}
	if (import_add_blob(b, w, pid, path, num[0], num[1], num[2], &err)) {
		fprintf(stderr, CMD ": %s:%u: %s\n", list, lineno, err.msg);
		return -1;
	}
	return 0;
}

static int add_list(struct sb_bundle *b, struct sb_writer *w, uint32_t pid,
		    const char *list)
{
	char *line = NULL, *dir = NULL, *slash;
	unsigned int lineno = 0;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen(list, "r");
	if (!f) {
		fprintf(stderr, CMD ": --images %s: %s\n", list, strerror(errno));
		return -1;
	}
	slash = strrchr(list, '/');
	if (slash)
		dir = strndup(list, slash - list);
	while (!ret && getline(&line, &cap, f) >= 0)
		ret = list_line(b, w, pid, list, ++lineno, line, dir);
	free(line);
	free(dir);
	fclose(f);
	return ret;
}

static int add_images(struct sb_bundle *b, struct sb_writer *w,
		      const struct raw_opts *o)
{
	struct sb_err err;
	size_t i;

	for (i = 0; i < o->nimages; i++) {
		const struct image_arg *im = &o->images[i];
		uint64_t addr = UINT64_MAX;
		char *path = NULL;
		int ret;

		if (im->kind == IMG_LIST) {
			if (add_list(b, w, o->pid, im->arg))
				return -1;
			continue;
		}
		/* A ':' in an ELF path is taken as the start of BASE only
		 * when a number follows it.
		 */
		if (im->kind == IMG_ELF && (!strrchr(im->arg, ':') ||
					    !access(im->arg, F_OK)))
			path = strdup(im->arg);
		else if (split_num(im->kind == IMG_ELF ? "--elf" : "--raw",
				   im->arg, ':', &path, &addr,
				   im->kind == IMG_RAW))
			return -1;
		if (!path)
			return -1;
		ret = im->kind == IMG_ELF ?
			import_add_elf(b, w, o->pid, path, addr, &err) :
			import_add_blob(b, w, o->pid, path, addr, 0, 0, &err);
		free(path);
		if (ret) {
			fprintf(stderr, CMD ": %s %s: %s\n",
				im->kind == IMG_ELF ? "--elf" : "--raw",
				im->arg, err.msg);
			return -1;
		}
	}
	return 0;
}

static int map_file(const char *path, uint8_t **buf, size_t *len)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, CMD ": --pt %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, CMD ": --pt %s: not a regular file\n", path);
		close(fd);
		return -1;
	}
	*len = st.st_size;
	*buf = NULL;
	if (*len) {
		*buf = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (*buf == MAP_FAILED) {
			fprintf(stderr, CMD ": --pt %s: %s\n", path,
				strerror(errno));
			close(fd);
			return -1;
		}
	}
	close(fd);
	return 0;
}

static int write_all(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || (len && fwrite(buf, 1, len, f) != len) | fclose(f)) {
		fprintf(stderr, CMD ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Copies one stream into the bundle and checks it: no PSB means it is not
 * PT at all (or the offset is wrong); a last packet cut short is a LOST
 * record, so the history shows where the trace ends early.
 */
static int add_stream(struct sb_bundle *b, struct sb_writer *w,
		      const struct raw_opts *o, const struct stream *s,
		      struct import_scan *scan)
{
	const struct sb_thread *th;
	struct ptrec_sb_lost lost;
	char dst[4096];
	struct sb_err err;
	uint8_t *buf;
	size_t len;
	int ret;

	if (map_file(s->path, &buf, &len))
		return -1;
	ret = -1;
	if (s->off > len) {
		fprintf(stderr,
			CMD ": --pt %s: offset %llu is beyond the file's %zu bytes\n",
			s->arg, (unsigned long long)s->off, len);
		goto out_unmap;
	}
	if (import_stream_scan(buf + s->off, len - s->off, scan)) {
		fprintf(stderr, CMD ": out of memory\n");
		goto out_unmap;
	}
	if (!scan->npsb) {
		fprintf(stderr,
			CMD ": %s: no PSB packet at or after offset %llu: not an Intel PT stream%s\n",
			s->path, (unsigned long long)s->off,
			s->off ? "" : " (a header before the trace? skip it with FILE@OFFSET)");
		goto out_unmap;
	}
	if (scan->first_psb)
		fprintf(stderr,
			CMD ": %s: %llu bytes before the first PSB (offset %llu) cannot be decoded\n",
			s->path, (unsigned long long)scan->first_psb,
			(unsigned long long)(s->off + scan->first_psb));
	if (sb_bundle_add_thread(b, o->pid, s->tid, false, &th) ||
	    sb_bundle_path(b, th->pt, dst, sizeof(dst)) < 0) {
		fprintf(stderr, CMD ": thread %u: cannot add it to the bundle\n",
			s->tid);
		goto out_unmap;
	}
	if (write_all(dst, buf + s->off, len - s->off))
		goto out_unmap;
	ret = 0;
	if (scan->cut != UINT64_MAX) {
		fprintf(stderr,
			CMD ": %s: the stream ends inside a packet at offset %llu: its last %llu bytes are lost (truncated dump?)\n",
			s->path, (unsigned long long)(s->off + scan->cut),
			(unsigned long long)(len - s->off - scan->cut));
		memset(&lost, 0, sizeof(lost));
		lost.hdr.type = PTREC_SB_LOST;
		lost.hdr.size = sizeof(lost);
		lost.hdr.time = scan->last_tsc;
		lost.tid = s->tid;
		lost.reason = PTREC_SB_LOST_TRUNCATED;
		lost.bytes = len - s->off - scan->cut;
		lost.offset = scan->cut;
		ret = sb_writer_add(w, &lost.hdr, &err);
		if (ret)
			fprintf(stderr, CMD ": %s\n", err.msg);
	}
out_unmap:
	if (len)
		munmap(buf, len);
	return ret;
}

static int add_process(struct sb_bundle *b, struct sb_writer *w,
		       const struct raw_opts *o)
{
	struct sb_manifest *m = sb_bundle_manifest(b);
	struct ptrec_sb_comm comm;
	const char *name = "imported";
	struct sb_process *p;
	struct sb_err err;
	size_t i;

	p = sb_manifest_add_process(m);
	if (!p)
		return -1;
	p->pid = o->pid;
	for (i = 0; i < o->nimages; i++) {
		if (o->images[i].kind != IMG_ELF)
			continue;
		p->exe = strndup(o->images[i].arg,
				 strcspn(o->images[i].arg, ":"));
		if (!access(o->images[i].arg, F_OK)) {
			free(p->exe);
			p->exe = strdup(o->images[i].arg);
		}
		if (!p->exe)
			return -1;
		name = strrchr(p->exe, '/') ? strrchr(p->exe, '/') + 1 : p->exe;
		break;
	}
	memset(&comm, 0, sizeof(comm));
	comm.hdr.type = PTREC_SB_COMM;
	comm.hdr.flags = PTREC_SB_F_SNAPSHOT;
	comm.hdr.size = sizeof(comm);
	comm.pid = comm.tid = o->pid;
	snprintf((char *)comm.comm, sizeof(comm.comm), "%s", name);
	if (sb_writer_add(w, &comm.hdr, &err)) {
		fprintf(stderr, CMD ": %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int import_raw(int argc, char **argv, const struct raw_opts *o)
{
	struct import_scan scan;
	struct sb_manifest *m;
	struct sb_bundle *b;
	struct sb_writer *w;
	struct sb_err err;
	uint32_t features = 0;
	size_t i;
	int ret;

	ret = sb_bundle_create(&b, o->out, &err);
	if (ret) {
		fprintf(stderr, CMD ": -o %s: %s\n", o->out, err.msg);
		return 1;
	}
	ret = -1;
	if (sb_bundle_open_sideband(b, &w, &err)) {
		fprintf(stderr, CMD ": %s\n", err.msg);
		goto out_free;
	}
	if (add_process(b, w, o) || add_images(b, w, o))
		goto out_free;
	for (i = 0; i < o->nstreams; i++) {
		if (add_stream(b, w, o, &o->streams[i], &scan))
			goto out_free;
		features |= scan.features;
	}
	m = sb_bundle_manifest(b);
	free(m->backend);
	m->backend = strdup("import-raw");
	if (o->have_cpu)
		m->cpu = o->cpu;
	m->pt.emulated = false;
	/* What the packets show was enabled; user-mode is an assumption
	 * (raw dumps say nothing about CPL filtering).
	 */
	m->pt.features = features | SB_PT_USER;
	m->pt.mtc_freq = o->mtc_freq;
	m->pt.nom_freq = o->nom_freq;
	m->pt.cpuid_15_eax = o->cpuid_15_eax;
	m->pt.cpuid_15_ebx = o->cpuid_15_ebx;
	ret = m->backend ? import_set_argv(m, argc, argv) : -ENOMEM;
	if (ret)
		goto out_free;
	ret = sb_bundle_finish(b, &err);
	if (ret)
		fprintf(stderr, CMD ": %s\n", err.msg);
out_free:
	sb_bundle_free(b);
	if (!ret)
		fprintf(stderr, CMD ": wrote %s (%zu stream%s)\n", o->out,
			o->nstreams, o->nstreams == 1 ? "" : "s");
	return ret ? 1 : 0;
}

int import_raw_main(int argc, char **argv)
{
	struct raw_opts o;
	size_t i;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_args(argc, argv, &o) ? 2 : import_raw(argc, argv, &o);
	for (i = 0; i < o.nstreams; i++)
		free(o.streams[i].path);
	free(o.streams);
	free(o.images);
	return ret;
}
