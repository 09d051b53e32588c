// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The software recorder, where recordings begin: launching the program to
 * its start address (a breakpoint, so the loader runs at full speed), or
 * attaching to every thread of a running process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu.h"

/* ---- start ----------------------------------------------------------- */

/* Address of @sym in the main executable of @pid, load bias applied. */
static int resolve_start(struct emu *e, pid_t pid, const char *spec,
			 uint64_t *addr)
{
	char exe[64], *end;
	uint64_t bias = 0, lowest = UINT64_MAX;
	struct proc *p = emu_proc_find(e, pid);
	int fd, ret = -ENOENT;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t i, nph;
	Elf *elf;

	if (!strncmp(spec, "0x", 2)) {
		errno = 0;
		*addr = strtoull(spec, &end, 16);
		if (errno || *end || end == spec + 2)
			return emu_fail(e, -EINVAL,
				    "--start-at %s: not a hex address", spec);
		return 0;
	}
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return emu_fail(e, -errno, "%s: %s", exe, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh)) {
		ret = emu_fail(e, -EINVAL, "%s: not an ELF file", exe);
		goto out_close;
	}
	if (eh.e_type == ET_DYN && p) {
		GElf_Phdr ph;
		char real[4096];
		ssize_t n = readlink(exe, real, sizeof(real) - 1);

		real[n > 0 ? n : 0] = '\0';
		elf_getphdrnum(elf, &nph);
		for (i = 0; i < nph; i++)
			if (gelf_getphdr(elf, (int)i, &ph) &&
			    ph.p_type == PT_LOAD && ph.p_vaddr < lowest)
				lowest = ph.p_vaddr & ~0xfffull;
		for (i = 0; i < p->maps.n; i++)
			if (!strcmp(p->maps.v[i].path, real) &&
			    p->maps.v[i].pgoff == 0) {
				bias = p->maps.v[i].start - lowest;
				break;
			}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize;
		     i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, spec)) {
				*addr = sym.st_value + bias;
				ret = 0;
				goto out_end;
			}
		}
	}
out_end:
	if (ret)
		ret = -ENOENT;	/* the caller decides whether that is fatal */
out_close:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* Runs the launched program to @addr with a breakpoint. */
static int run_to(struct emu *e, pid_t pid, uint64_t addr)
{
	struct user_regs_struct regs;
	long orig;
	int status;
	pid_t w;

	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)(uintptr_t)addr, 0);
	if (errno)
		return emu_fail(e, -EINVAL, "start address 0x%" PRIx64
			    " is not mapped in the program", addr);
	if (ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)addr,
		   (void *)((orig & ~0xffL) | 0xcc)) < 0)
		return emu_fail(e, -errno, "cannot set a breakpoint at 0x%" PRIx64
			    ": %s", addr, strerror(errno));
	ptrace(PTRACE_CONT, pid, 0, 0);
	for (;;) {
		w = waitpid(-1, &status, __WALL);
		if (w < 0)
			return emu_fail(e, -ECHILD, "waitpid: %s", strerror(errno));
		if (w != pid) {
			/* Threads or children made before the start address
			 * stay stopped until recording begins.
			 */
			continue;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return emu_fail(e, -ECHILD,
				    "%s ended before reaching the start address 0x%"
				    PRIx64, e->o->argv[0], addr);
		if (WSTOPSIG(status) == SIGTRAP && !(status >> 16)) {
			ptrace(PTRACE_GETREGS, pid, 0, &regs);
			if (regs.rip == addr + 1)
				break;
		}
		if (status >> 16) {
			ptrace(PTRACE_CONT, pid, 0, 0);
			continue;
		}
		/* Signals before the start are delivered untraced. */
		ptrace(PTRACE_CONT, pid, 0,
		       WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status));
	}
	ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)addr, (void *)orig);
	regs.rip = addr;
	ptrace(PTRACE_SETREGS, pid, 0, &regs);
	return 0;
}

#define TRACE_OPTS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | \
		    PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | \
		    PTRACE_O_TRACEEXIT)

int emu_launch(struct emu *e)
{
	const char *prog = e->o->argv[0];
	/* No exit stop yet: a failed exec just exits. */
	struct rec_launch l = {
		.argv = e->o->argv,
		.opts = (TRACE_OPTS & ~PTRACE_O_TRACEEXIT) | PTRACE_O_EXITKILL,
	};
	uint64_t start = 0;
	pid_t pid;
	int ret;

	ret = rec_launch(&l, &e->error, e->err);
	pid = l.pid;
	if (pid) {
		e->launched = true;
		e->main_pid = pid;
	}
	if (ret)
		return ret;
	ptrace(PTRACE_SETOPTIONS, pid, 0, TRACE_OPTS | PTRACE_O_EXITKILL);
	if (!emu_proc_new(e, pid, getpid()))
		return e->error;
	ret = maps_read(pid, &e->procs->maps);
	if (ret)
		return emu_fail(e, ret, "/proc/%d/maps: %s", pid, strerror(-ret));
	ret = resolve_start(e, pid, e->o->start_at ? e->o->start_at : "main",
			    &start);
	if (ret == -ENOENT && e->o->start_at)
		return emu_fail(e, -EINVAL,
			    "--start-at %s: no such function in %s",
			    e->o->start_at, prog);
	if (!ret)
		ret = run_to(e, pid, start);
	else if (ret == -ENOENT)
		ret = 0;	/* no main: record from the entry point */
	maps_free(&e->procs->maps);
	return ret;
}

int emu_attach(struct emu *e, pid_t pid)
{
	char dir[64];
	bool added;
	int status;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	if (access(dir, F_OK) < 0)
		return emu_fail(e, -ESRCH, "process %d: no such process", pid);
	if (!emu_proc_new(e, pid, 0))
		return e->error;
	e->main_pid = pid;
	/* Threads may appear while we attach: repeat until none is new. */
	do {
		struct dirent *de;
		DIR *d = opendir(dir);

		added = false;
		while (d && (de = readdir(d))) {
			pid_t tid = (pid_t)atoi(de->d_name);
			struct thr *t;

			if (tid <= 0 || emu_thr_find(e, tid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, 0, TRACE_OPTS) < 0) {
				int err = errno;

				closedir(d);
				return emu_fail(e, -err,
					    "cannot attach to process %d: %s%s",
					    pid, strerror(err),
					    err == EPERM ?
					    " (needs CAP_SYS_PTRACE or the same user; see /proc/sys/kernel/yama/ptrace_scope)" :
					    "");
			}
			ptrace(PTRACE_INTERRUPT, tid, 0, 0);
			waitpid(tid, &status, __WALL);
			t = emu_thr_new(e, tid, e->procs, T_READY);
			if (!t)
				break;
			t->attached = true;
			emu_get_regs(t);
			added = true;
		}
		if (d)
			closedir(d);
	} while (added && !e->error);
	return e->error;
}
