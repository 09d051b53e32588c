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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import.h"

#define CMD "ptrec import raw"

/*
 * The --images list's pieces not yet added: consecutive lines of one file
 * whose pieces follow each other in the file and in memory (a page dump
 * lists every page: libxdc's Unzip 40 lines, mruby 364) become one
 * mapping, so the sideband has one MMAP record and replay one libipt
 * section (one open, fstat and mmap at each open, not one per page; issue
 * #19).  The bytes at each address are the same.
 */
struct pending {
	char path[4096];
	uint64_t addr, off, size;
	uint64_t last_addr, last_off, last_size;	/* its last line's */
	unsigned int first, last;	/* line numbers; first 0: none */
};

static int flush(struct sb_bundle *b, struct sb_writer *w, uint32_t pid,
		 const char *list, struct pending *pd)
{
	struct sb_err err;
	unsigned int at;

	if (!pd->first)
		return 0;
	at = pd->first;
	pd->first = 0;
	if (!import_add_blob(b, w, pid, pd->path, pd->addr, pd->off, pd->size,
			     &err))
		return 0;
	/*
	 * Name the line at fault as one line at a time would have: the
	 * first (the file itself, or its piece), else the last (the pieces
	 * are contiguous, so only the last can end beyond the file).  The
	 * import fails, so what these add is dropped with the bundle.
	 */
	if (at != pd->last &&
	    !import_add_blob(b, w, pid, pd->path, pd->addr, pd->off,
			     pd->last_addr - pd->addr, &err)) {
		at = pd->last;
		import_add_blob(b, w, pid, pd->path, pd->last_addr,
				pd->last_off, pd->last_size, &err);
	}
	fprintf(stderr, CMD ": %s:%u: %s\n", list, at, err.msg);
	return -1;
}

/* One line of an --images list: PATH ADDRESS [FILE-OFFSET SIZE]. */
static int list_line(struct sb_bundle *b, struct sb_writer *w, uint32_t pid,
		     const char *list, unsigned int lineno, char *line,
		     const char *dir, struct pending *pd)
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
		if (flush(b, w, pid, list, pd))
			return -1;
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
			if (flush(b, w, pid, list, pd))
				return -1;
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
		if (flush(b, w, pid, list, pd))
			return -1;
		fprintf(stderr, CMD ": %s:%u: size 0\n", list, lineno);
		return -1;
	}
	if (n == 4 && pd->first && !strcmp(path, pd->path) &&
	    num[0] == pd->addr + pd->size && num[1] == pd->off + pd->size &&
	    pd->addr + pd->size + num[2] > pd->addr + pd->size &&
	    pd->off + pd->size + num[2] > pd->off + pd->size) {
		pd->size += num[2];
		pd->last_addr = num[0];
		pd->last_off = num[1];
		pd->last_size = num[2];
		pd->last = lineno;
		return 0;
	}
	if (flush(b, w, pid, list, pd))
		return -1;
	if (n == 4) {
		snprintf(pd->path, sizeof(pd->path), "%s", path);
		pd->addr = pd->last_addr = num[0];
		pd->off = pd->last_off = num[1];
		pd->size = pd->last_size = num[2];
		pd->first = pd->last = lineno;
		return 0;
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
	struct pending *pd;
	unsigned int lineno = 0;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		fprintf(stderr, CMD ": out of memory\n");
		return -1;
	}
	f = fopen(list, "r");
	if (!f) {
		fprintf(stderr, CMD ": --images %s: %s\n", list, strerror(errno));
		free(pd);
		return -1;
	}
	slash = strrchr(list, '/');
	if (slash)
		dir = strndup(list, slash - list);
	while (!ret && getline(&line, &cap, f) >= 0)
		ret = list_line(b, w, pid, list, ++lineno, line, dir, pd);
	if (!ret)
		ret = flush(b, w, pid, list, pd);
	free(pd);
	free(line);
	free(dir);
	fclose(f);
	return ret;
}

static int add_images(struct sb_bundle *b, struct sb_writer *w,
		      const struct import_raw_opts *o)
{
	struct sb_err err;
	size_t i;

	for (i = 0; i < o->nimages; i++) {
		const struct import_raw_image *im = &o->images[i];
		int ret;

		if (im->kind == IMPORT_IMG_LIST) {
			if (add_list(b, w, o->pid, im->arg))
				return -1;
			continue;
		}
		ret = im->kind == IMPORT_IMG_ELF ?
			import_add_elf(b, w, o->pid, im->path, im->addr, &err) :
			import_add_blob(b, w, o->pid, im->path, im->addr, 0, 0,
					&err);
		if (ret) {
			fprintf(stderr, CMD ": %s %s: %s\n",
				im->kind == IMPORT_IMG_ELF ? "--elf" : "--raw",
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
		      const struct import_raw_opts *o, const struct import_raw_stream *s,
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
	if (import_stream_probe(buf + s->off, len - s->off, scan)) {
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
		       const struct import_raw_opts *o)
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
		if (o->images[i].kind != IMPORT_IMG_ELF)
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

int import_raw(const struct import_raw_opts *o, int argc, char **argv)
{
	struct import_scan scan;
	struct sb_manifest *m;
	struct sb_bundle *b;
	struct sb_writer *w;
	struct sb_err err;
	uint32_t features = 0;
	size_t i;
	int ret;

	ret = sb_bundle_create_flags(&b, o->out, SB_BUNDLE_NO_STATE, &err);
	if (ret) {
		fprintf(stderr, CMD ": -o %s: %s\n", o->out, err.msg);
		return 1;
	}
	/* An import can be run again from its inputs: atomic, not durable
	 * (no fsync but the manifest's; docs/bundle-format.md, issue #19).
	 */
	sb_bundle_set_durable(b, false);
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
