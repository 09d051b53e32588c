// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec core BUNDLE [--pid PID] [--exec N] -o FILE`: the end state of a
 * recorded process (or of its image before an execve) as a standard ELF core file, laid out as Linux's
 * fs/binfmt_elf.c writes one (notes of the first thread: NT_PRSTATUS,
 * NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE, NT_PRFPREG, NT_X86_XSTATE;
 * then NT_PRSTATUS, NT_PRFPREG, NT_X86_XSTATE of every other thread; one
 * PT_LOAD per mapping), so that GDB, eu-stack and eu-readelf read it as a
 * kernel core dump.  Read-only file mappings are filled from the bundle's
 * image store.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <unistd.h>

#include "cli.h"
#include "cli_args.h"
#include "replay.h"

#define PAGE 4096u
#define CHUNK (1u << 20)

#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif
#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif

/* GDB's amd64 order (replay.h) to struct user_regs_struct's. */
static const unsigned char greg_from[27] = {
	15, 14, 13, 12, 6, 1, 11, 10, 9, 8, 0, 2, 3, 4, 5, 26,
	16, 18, 17, 7, 19, 24, 25, 20, 21, 22, 23,
};

struct buf {
	uint8_t *p;
	size_t len, cap;
	bool nomem;
};

static void put(struct buf *b, const void *src, size_t len)
{
	if (b->nomem)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *np;

		while (cap < b->len + len)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->nomem = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, src, len);
	b->len += len;
}

static void pad4(struct buf *b)
{
	static const uint8_t z[4];

	if (b->len % 4)
		put(b, z, 4 - b->len % 4);
}

static void note(struct buf *b, const char *name, uint32_t type,
		 const void *desc, size_t len)
{
	Elf64_Nhdr h = { .n_namesz = (Elf64_Word)strlen(name) + 1,
			 .n_descsz = (Elf64_Word)len, .n_type = type };

	put(b, &h, sizeof(h));
	put(b, name, h.n_namesz);
	pad4(b);
	put(b, desc, len);
	pad4(b);
}

/*
 * The XSAVE area as GDB 13 reads NT_X86_XSTATE from a core file: at
 * Intel's offsets alone (the opmask at 1088), which is also how its gcore
 * writes it.  An area saved on AMD's Zen 4 or 5 (the opmask at 832:
 * rp_xsave_layout()) is laid out again at those offsets, the MPX slots
 * zero (XSTATE_BV has no MPX bit there): the same bytes per component,
 * so GDB shows k0-k7, zmm and the ymm upper halves instead of nothing.
 * Returns the note's bytes: @xs itself, or @tmp filled (2696 bytes).
 */
static const uint8_t *xstate_gdb(const uint8_t *xs, uint32_t len,
				 uint8_t *tmp, uint32_t *out_len)
{
	struct rp_xsave_layout lay;
	uint32_t n;

	*out_len = len;
	if (!rp_xsave_layout(xs, len, &lay) || lay.opmask != 832)
		return xs;
	n = lay.pkru ? 2696 : 2688;
	memset(tmp, 0, n);
	memcpy(tmp, xs, 832);			/* legacy, header, AVX */
	memcpy(tmp + 1088, xs + lay.opmask, 64);
	memcpy(tmp + 1152, xs + lay.zmm_hi256, 512);
	memcpy(tmp + 1664, xs + lay.hi16_zmm, 1024);
	if (lay.pkru)
		memcpy(tmp + 2688, xs + lay.pkru, 8);
	*out_len = n;
	return tmp;
}

static void thread_notes(struct buf *b, const struct rp_snap_thread_info *t,
			 const struct rp_snap_proc_info *p, int sig,
			 bool first, const void *psinfo, struct buf *nt_file)
{
	struct elf_prstatus st;
	unsigned int i;

	memset(&st, 0, sizeof(st));
	st.pr_info.si_signo = sig;
	st.pr_cursig = (short)sig;
	st.pr_pid = (pid_t)t->tid;
	st.pr_ppid = (pid_t)p->ppid;
	st.pr_pgrp = (pid_t)p->pid;
	st.pr_sid = (pid_t)p->pid;
	for (i = 0; i < 27; i++)
		st.pr_reg[i] = t->regs[greg_from[i]];
	st.pr_fpvalid = t->fpregs ? 1 : 0;
	note(b, "CORE", NT_PRSTATUS, &st, sizeof(st));
	if (first) {
		note(b, "CORE", NT_PRPSINFO, psinfo, sizeof(struct elf_prpsinfo));
		if (t->siginfo)
			note(b, "CORE", NT_SIGINFO, t->siginfo, 128);
		if (p->auxv)
			note(b, "CORE", NT_AUXV, p->auxv, p->auxv_len);
		if (nt_file->len)
			note(b, "CORE", NT_FILE, nt_file->p, nt_file->len);
	}
	if (t->fpregs)
		note(b, "CORE", NT_PRFPREG, t->fpregs, t->fpregs_len);
	if (t->xstate) {
		uint8_t tmp[2696];
		uint32_t n;
		const uint8_t *xs = xstate_gdb(t->xstate, t->xstate_len, tmp,
					       &n);

		note(b, "LINUX", NT_X86_XSTATE, xs, n);
	}
}

static void fill_psinfo(struct elf_prpsinfo *ps,
			const struct rp_snap_proc_info *p, int argc,
			char **argv)
{
	const char *base = p->exe && strrchr(p->exe, '/') ?
			   strrchr(p->exe, '/') + 1 : p->exe ? p->exe : "";
	size_t off = 0;
	int i;

	memset(ps, 0, sizeof(*ps));
	ps->pr_state = 0;
	ps->pr_sname = 'R';
	ps->pr_pid = (pid_t)p->pid;
	ps->pr_ppid = (pid_t)p->ppid;
	ps->pr_pgrp = (pid_t)p->pid;
	ps->pr_sid = (pid_t)p->pid;
	snprintf(ps->pr_fname, sizeof(ps->pr_fname), "%s", base);
	for (i = 0; i < argc && off + 1 < sizeof(ps->pr_psargs); i++) {
		int n = snprintf(ps->pr_psargs + off,
				 sizeof(ps->pr_psargs) - off, "%s%s",
				 i ? " " : "", argv[i]);

		if (n < 0)
			break;
		off += (size_t)n;
	}
}

/* NT_FILE: count, page size, (start, end, offset in pages), names. */
static void fill_nt_file(struct buf *b, const struct rp_snapshot *sn,
			 const struct rp_snap_proc_info *p)
{
	struct rp_snap_map_info mi;
	struct buf names = { 0 };
	uint64_t count = 0, page = PAGE;
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		if (!rp_snapshot_proc_map(sn, p->pid, i, &mi) &&
		    mi.path[0] == '/')
			count++;
	put(b, &count, 8);
	put(b, &page, 8);
	for (i = 0; i < p->nmaps; i++) {
		uint64_t v[3];

		if (rp_snapshot_proc_map(sn, p->pid, i, &mi) ||
		    mi.path[0] != '/')
			continue;
		v[0] = mi.start;
		v[1] = mi.end;
		v[2] = mi.pgoff / PAGE;
		put(b, v, sizeof(v));
		put(&names, mi.path, strlen(mi.path) + 1);
	}
	put(b, names.p, names.len);
	b->nomem |= names.nomem;
	free(names.p);
}

static void prot_str(uint32_t prot, char out[5])
{
	out[0] = prot & 1 ? 'r' : '-';
	out[1] = prot & 2 ? 'w' : '-';
	out[2] = prot & 4 ? 'x' : '-';
	out[3] = prot & 8 ? 's' : 'p';
	out[4] = '\0';
}

/* The process's rseq areas (RSEQ record), with whether the list is
 * complete (every registration of the recording) or the end's only.
 */
static void rseq_print(const struct rp_snapshot *sn, uint32_t pid, bool on)
{
	uint64_t addr;
	uint32_t len;
	bool complete = false;
	size_t j;

	if (!on || rp_snapshot_proc_rseq(sn, pid, 0, &addr, &len,
					 &complete) == -RP_ERR_NOTFOUND)
		return;
	printf("    rseq areas: %s\n", complete ? "complete" : "end only");
	for (j = 0; !rp_snapshot_proc_rseq(sn, pid, j, &addr, &len,
					   &complete); j++)
		printf("    rseq 0x%" PRIx64 " len %u\n", addr, len);
}

void cli_snapshot_print(const char *dir, bool maps)
{
	static const char *const content[] = { "data", "image", "over-limit",
					       "unreadable" };
	struct rp_snapshot *sn;
	uint64_t bytes = 0;
	size_t i, j;
	int ret = rp_snapshot_open(&sn, dir);

	if (ret == -RP_ERR_NOTFOUND) {
		printf("snapshot: none\n");
		rp_snapshot_close(sn);
		return;
	}
	if (ret) {
		printf("snapshot: damaged: %s\n", rp_snapshot_errmsg(sn));
		rp_snapshot_close(sn);
		return;
	}
	for (i = 0; i < rp_snapshot_proc_count(sn); i++) {
		struct rp_snap_proc_info p;

		rp_snapshot_proc(sn, i, &p);
		bytes += p.data_bytes;
	}
	printf("snapshot: %zu processes, %" PRIu64 " bytes of memory\n",
	       rp_snapshot_proc_count(sn), bytes);
	for (i = 0; i < rp_snapshot_proc_count(sn); i++) {
		struct rp_snap_proc_info p;

		rp_snapshot_proc(sn, i, &p);
		/* Its threads below are this image's. */
		rp_snapshot_pick_exec(sn, p.pid, p.gen);
		printf("  snapshot: process %u (%s): %s %d, %zu threads, %zu mappings, %" PRIu64 " bytes",
		       p.pid, p.exe, p.end_name, p.status, p.nthreads,
		       p.nmaps, p.data_bytes);
		/* A process that called execve: which image (ptrec core --exec). */
		if (p.gen || p.end == 5)
			printf(", image --exec %u", p.gen);
		printf("\n");
		for (j = 0; maps && j < p.nthreads; j++) {
			struct rp_snap_thread_info t;

			rp_snapshot_proc_thread(sn, p.pid, j, &t);
			printf("    thread %u: rip 0x%" PRIx64 " rsp 0x%" PRIx64
			       ", fpregs %u bytes, xstate %u bytes%s\n", t.tid,
			       t.regs[16], t.regs[7], t.fpregs_len,
			       t.xstate_len, t.siginfo ? ", siginfo" : "");
		}
		rseq_print(sn, p.pid, maps);
		for (j = 0; maps && j < p.nmaps; j++) {
			struct rp_snap_map_info mi;
			char prot[5];

			rp_snapshot_proc_map(sn, p.pid, j, &mi);
			prot_str(mi.prot, prot);
			/* snapshot 5: a file changed during the recording
			 * (docs/values.md "Files written by anyone")
			 */
			printf("    map 0x%" PRIx64 "-0x%" PRIx64 " %s %08" PRIx64
			       " %-10s %s%s\n", mi.start, mi.end, prot,
			       mi.pgoff,
			       mi.content < 4 ? content[mi.content] : "?",
			       mi.path,
			       mi.unstamped ?
			       "  [file changed: shared on tmpfs]" :
			       mi.written ? "  [file changed]" : "");
		}
	}
	rp_snapshot_close(sn);
}

/* Fills a PT_LOAD's bytes; returns bytes present (0: none, p_filesz 0). */
static uint64_t load_size(struct rp_snapshot *sn, uint32_t pid,
			  const struct rp_snap_map_info *mi)
{
	uint8_t probe[1];

	if (mi->content == RP_SNAP_DATA)
		return mi->end - mi->start;
	if (mi->content == RP_SNAP_IMAGE &&
	    rp_snapshot_read(sn, pid, mi->start, probe, 1, true) == 1)
		return mi->end - mi->start;
	return 0;
}

static int write_core(struct rp_snapshot *sn,
		      const struct rp_snap_proc_info *p, int argc, char **argv,
		      FILE *f, const char *out)
{
	struct buf notes = { 0 }, ntf = { 0 };
	struct rp_snap_thread_info t;
	struct rp_snap_map_info mi;
	struct elf_prpsinfo ps;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint64_t off, *fsz;
	uint8_t *chunk;
	size_t i, first = 0, nload = p->nmaps;
	int sig = p->end == 2 ? p->status : 0;
	int ret = 0;

	fill_psinfo(&ps, p, argc, argv);
	fill_nt_file(&ntf, sn, p);
	/* The thread a fatal signal hit goes first, as the kernel does. */
	for (i = 0; i < p->nthreads; i++)
		if (!rp_snapshot_proc_thread(sn, p->pid, i, &t) && t.siginfo)
			first = i;
	rp_snapshot_proc_thread(sn, p->pid, first, &t);
	thread_notes(&notes, &t, p, sig, true, &ps, &ntf);
	for (i = 0; i < p->nthreads; i++)
		if (i != first &&
		    !rp_snapshot_proc_thread(sn, p->pid, i, &t))
			thread_notes(&notes, &t, p, sig, false, &ps, &ntf);
	fsz = calloc(nload + 1, sizeof(*fsz));
	chunk = malloc(CHUNK);
	if (notes.nomem || ntf.nomem || !fsz || !chunk) {
		fprintf(stderr, "ptrec core: out of memory\n");
		ret = 1;
		goto out;
	}
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_CORE;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = (Elf64_Half)(1 + nload);
	fwrite(&eh, sizeof(eh), 1, f);
	off = sizeof(eh) + (1 + nload) * sizeof(ph);
	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_NOTE;
	ph.p_offset = off;
	ph.p_filesz = notes.len;
	fwrite(&ph, sizeof(ph), 1, f);
	off = (off + notes.len + PAGE - 1) / PAGE * PAGE;
	for (i = 0; i < nload; i++) {
		rp_snapshot_proc_map(sn, p->pid, i, &mi);
		fsz[i] = load_size(sn, p->pid, &mi);
		memset(&ph, 0, sizeof(ph));
		ph.p_type = PT_LOAD;
		ph.p_offset = off;
		ph.p_vaddr = mi.start;
		ph.p_memsz = mi.end - mi.start;
		ph.p_filesz = fsz[i];
		ph.p_flags = (mi.prot & 1 ? PF_R : 0) |
			     (mi.prot & 2 ? PF_W : 0) |
			     (mi.prot & 4 ? PF_X : 0);
		ph.p_align = PAGE;
		fwrite(&ph, sizeof(ph), 1, f);
		off += fsz[i];
	}
	fwrite(notes.p, 1, notes.len, f);
	/* Pad to the first page boundary after the notes. */
	off = sizeof(eh) + (1 + nload) * sizeof(ph) + notes.len;
	memset(chunk, 0, PAGE);
	if (off % PAGE)
		fwrite(chunk, 1, PAGE - off % PAGE, f);
	for (i = 0; i < nload; i++) {
		uint64_t a;

		if (!fsz[i])
			continue;
		rp_snapshot_proc_map(sn, p->pid, i, &mi);
		for (a = mi.start; a < mi.end; a += CHUNK) {
			size_t n = mi.end - a < CHUNK ? mi.end - a : CHUNK;
			size_t got = rp_snapshot_read(sn, p->pid, a, chunk, n,
						      true);

			memset(chunk + got, 0, n - got);
			fwrite(chunk, 1, n, f);
		}
	}
	if (fflush(f) || ferror(f)) {
		fprintf(stderr, "ptrec core: %s: %s\n", out, strerror(errno));
		ret = 1;
	}
out:
	free(notes.p);
	free(ntf.p);
	free(fsz);
	free(chunk);
	return ret;
}

int cli_core(int argc, char **argv)
{
	struct rp_snap_proc_info p;
	struct rp_snapshot *sn;
	const char *out = NULL;
	char **pargv = NULL;
	uint64_t gen = UINT64_MAX;
	long pid = 0;
	FILE *f;
	int a, ret, pargc = 0;
	const struct cli_opt opts[] = {
		CLI_REQ_OPT("output", 'o', CLI_STR, &out, "FILE",
			    "the core file to write"),
		CLI_OPT("pid", 'p', CLI_TID, &pid, "PID",
			"the process (default: the first of the snapshot)"),
		CLI_OPT("exec", 'e', CLI_U64, &gen, "N",
			"its image after N execve calls, 0 the first recorded\n"
			"(default: the last; an earlier one is its state where\n"
			"it called execve)"),
		CLI_END,
	};
	const struct cli_cmd cmd = {
		.name = "ptrec core", .synopsis = "BUNDLE -o FILE",
		.opts = opts, .min_args = 1, .max_args = 1,
		.more = "An ELF core file of the state where the recording of the process\n"
			"ended.\n",
	};

	a = cli_parse(&cmd, argc, argv);
	if (a < 0)
		return cli_exit(a);
	if (!out) {
		cli_usage(&cmd, stderr, false);
		return 2;
	}
	argv += a;
	ret = rp_snapshot_open(&sn, argv[0]);
	if (ret) {
		fprintf(stderr, "ptrec core: %s\n", rp_snapshot_errmsg(sn));
		rp_snapshot_close(sn);
		return 1;
	}
	/* A process's last image, unless --exec picks another. */
	if (!pid && !rp_snapshot_proc(sn, 0, &p))
		pid = p.pid;
	if (pid && gen != UINT64_MAX &&
	    (gen > UINT32_MAX ||
	     rp_snapshot_pick_exec(sn, (uint32_t)pid, (uint32_t)gen))) {
		fprintf(stderr, "ptrec core: %s: --exec %" PRIu64 ": process %ld has no such image in the snapshot (see ptrec info)\n",
			argv[0], gen, pid);
		rp_snapshot_close(sn);
		return 1;
	}
	ret = pid ? rp_snapshot_proc_by_pid(sn, (uint32_t)pid, &p) : -1;
	if (ret) {
		if (pid)
			fprintf(stderr, "ptrec core: %s: process %ld is not in the snapshot\n",
				argv[0], pid);
		else
			fprintf(stderr, "ptrec core: %s: the snapshot holds no process\n",
				argv[0]);
		rp_snapshot_close(sn);
		return 1;
	}
	if (!p.nthreads) {
		fprintf(stderr, "ptrec core: %s: process %u has no thread in the snapshot\n",
			argv[0], p.pid);
		rp_snapshot_close(sn);
		return 1;
	}
	f = fopen(out, "we");
	if (!f) {
		fprintf(stderr, "ptrec core: %s: %s\n", out, strerror(errno));
		rp_snapshot_close(sn);
		return 1;
	}
	if (p.exe && p.exe[0]) {
		pargv = (char **)&p.exe;
		pargc = 1;
	}
	ret = write_core(sn, &p, pargc, pargv, f, out);
	if (fclose(f) && !ret) {
		fprintf(stderr, "ptrec core: %s: %s\n", out, strerror(errno));
		ret = 1;
	}
	if (ret)
		unlink(out);
	rp_snapshot_close(sn);
	return ret;
}
