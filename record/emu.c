// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The software recorder: single-steps every thread of the target with
 * ptrace and encodes what really executed as the PT packets a CPU with
 * user-only tracing would produce (ptenc.c), with the sideband a kernel
 * would record.
 *
 * One thread steps in user space at a time, so a single clock orders every
 * instruction, packet and sideband record of all threads.  Threads inside
 * a system call run concurrently (they may block), and their completion is
 * just another stop.  Everything about an instruction is decided at the
 * stop that shows its outcome: an instruction that did not execute (a
 * signal arrived first, it faulted) is never put into the trace.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <dirent.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>
#include "emu.h"
#include "skel.h"

/* ---- time ------------------------------------------------------------ */

/* The recording's clock: monotonic nanoseconds, strictly increasing, so
 * it totally orders every stamped event.
 */
static uint64_t now(struct emu *e)
{
	uint64_t t = e->o->counter_clock ? 0 : rec_mono_ns();

	e->clock = t > e->clock ? t : e->clock + 1;
	return e->clock;
}

/* ---- errors ----------------------------------------------------------- */

/* Records a write error of the bundle (sideband or a stream). */
static int io_fail(struct emu *e, int ret, const char *what)
{
	return emu_fail(e, ret, "%s/%s: %s", sb_bundle_dir(e->b), what,
		    strerror(-ret));
}

/* ---- sideband --------------------------------------------------------- */

void emu_emit_record(struct emu *e, struct ptrec_sb_header *h)
{
	struct sb_err err;
	int ret;

	if (e->error)
		return;
	h->time = now(e);
	ret = sb_writer_add(e->sb, h, &err);
	if (ret)
		emu_fail(e, ret, "%s", err.msg);
	else
		e->st->sideband_records++;
}

static void emit_comm(struct emu *e, struct thr *t)
{
	struct ptrec_sb_comm c = { .hdr = { .type = PTREC_SB_COMM } };
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", t->proc->pid,
		 t->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, c.comm, sizeof(c.comm) - 1);
	close(fd);
	if (n <= 0)
		return;
	if (c.comm[n - 1] == '\n')
		c.comm[n - 1] = '\0';
	c.pid = (uint32_t)t->proc->pid;
	c.tid = (uint32_t)t->tid;
	emu_emit_record(e, &c.hdr);
}

static void emit_switch(struct emu *e, struct thr *t, uint16_t type,
		      uint16_t flags)
{
	struct ptrec_sb_switch s = { .hdr = { .type = type, .flags = flags } };

	s.pid = (uint32_t)t->proc->pid;
	s.tid = (uint32_t)t->tid;
	emu_emit_record(e, &s.hdr);
}

/* ---- image store ------------------------------------------------------ */

static const char *image_key_file(struct emu *e, const char *path)
{
	return rec_image_file(&e->images, e->b, path, e->o->quiet, &e->error,
			      e->err);
}

/* The vdso exists only in memory: copy it from the process. */
static const char *image_key_vdso(struct emu *e, pid_t pid,
				  const struct map *mp)
{
	static char key[SB_IMAGE_KEY_MAX];
	size_t len = (size_t)(mp->end - mp->start);
	struct iovec local, remote;
	struct sb_err err;
	void *buf;

	buf = malloc(len);
	if (!buf)
		return NULL;
	local.iov_base = buf;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)mp->start;
	remote.iov_len = len;
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)len ||
	    sb_bundle_add_image_mem(e->b, buf, len, "[vdso]", key, sizeof(key),
				    &err)) {
		free(buf);
		return NULL;
	}
	free(buf);
	return key;
}

/* ---- address space ------------------------------------------------------ */

static void emit_mmap(struct emu *e, struct proc *p, pid_t tid,
		      const struct map *mp, uint16_t flags)
{
	struct ptrec_sb_mmap m = { .hdr = { .type = PTREC_SB_MMAP,
					    .flags = flags } };
	const char *key = NULL;
	struct sb_err err;
	int ret;

	if (mp->prot & PROT_EXEC) {
		if (map_is_file(mp))
			key = image_key_file(e, mp->path);
		else if (!strcmp(mp->path, "[vdso]"))
			key = image_key_vdso(e, p->pid, mp);
	}
	if (e->error)
		return;
	m.hdr.time = now(e);
	m.pid = (uint32_t)p->pid;
	m.tid = (uint32_t)tid;
	m.start = mp->start;
	m.len = mp->end - mp->start;
	m.pgoff = mp->pgoff;
	m.prot = mp->prot;
	m.mflags = mp->mflags;
	ret = sb_writer_add_mmap(e->sb, &m, key, mp->path, &err);
	if (ret)
		emu_fail(e, ret, "%s", err.msg);
	else
		e->st->sideband_records++;
}

static bool maps_has(const struct maps *ms, const struct map *mp)
{
	size_t i;

	for (i = 0; i < ms->n; i++)
		if (map_equal(&ms->v[i], mp))
			return true;
	return false;
}

/* A protection change that keeps the same mapping and its executability. */
static const struct map *same_but_prot(const struct maps *ms,
				       const struct map *mp)
{
	size_t i;

	for (i = 0; i < ms->n; i++) {
		const struct map *o = &ms->v[i];

		if (o->start == mp->start && o->end == mp->end &&
		    o->pgoff == mp->pgoff && !strcmp(o->path, mp->path) &&
		    o->prot != mp->prot &&
		    !((o->prot ^ mp->prot) & PROT_EXEC))
			return o;
	}
	return NULL;
}

/*
 * Re-reads the process's mappings and records the difference from the
 * model: MUNMAP and MPROTECT first, then MMAP, so that applying them in
 * order yields the new address space.
 */
static void update_maps(struct emu *e, struct proc *p, pid_t tid,
			uint16_t flags)
{
	struct maps nm;
	size_t i;
	int ret;

	ret = maps_read(p->pid, &nm);
	if (ret) {
		if (ret != -ENOENT && ret != -ESRCH)
			emu_fail(e, ret, "/proc/%d/maps: %s", p->pid,
			     strerror(-ret));
		return;
	}
	for (i = 0; i < p->maps.n; i++) {
		const struct map *o = &p->maps.v[i], *np;

		if (maps_has(&nm, o))
			continue;
		np = same_but_prot(&nm, o);
		if (np) {
			struct ptrec_sb_mprotect r = {
				.hdr = { .type = PTREC_SB_MPROTECT } };

			r.pid = (uint32_t)p->pid;
			r.tid = (uint32_t)tid;
			r.start = o->start;
			r.len = o->end - o->start;
			r.prot = np->prot;
			emu_emit_record(e, &r.hdr);
		} else {
			struct ptrec_sb_munmap r = {
				.hdr = { .type = PTREC_SB_MUNMAP } };

			r.pid = (uint32_t)p->pid;
			r.tid = (uint32_t)tid;
			r.start = o->start;
			r.len = o->end - o->start;
			emu_emit_record(e, &r.hdr);
		}
	}
	for (i = 0; i < nm.n; i++)
		if (!maps_has(&p->maps, &nm.v[i]) &&
		    !same_but_prot(&p->maps, &nm.v[i]))
			emit_mmap(e, p, tid, &nm.v[i], flags);
	maps_free(&p->maps);
	p->maps = nm;
	e->gen++;	/* code may have changed under cached decodes */
}

static int maps_copy(struct maps *dst, const struct maps *src)
{
	size_t i;

	dst->v = calloc(src->n ? src->n : 1, sizeof(*dst->v));
	if (!dst->v)
		return -ENOMEM;
	for (i = 0; i < src->n; i++) {
		dst->v[i] = src->v[i];
		dst->v[i].path = strdup(src->v[i].path);
		if (!dst->v[i].path) {
			dst->n = i;
			maps_free(dst);
			return -ENOMEM;
		}
	}
	dst->n = src->n;
	return 0;
}

/* ---- processes and threads ------------------------------------------- */

struct proc *emu_proc_find(struct emu *e, pid_t pid)
{
	struct proc *p;

	for (p = e->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

struct proc *emu_proc_new(struct emu *e, pid_t pid, pid_t ppid)
{
	struct proc *p = calloc(1, sizeof(*p));
	struct sb_process *mp = sb_manifest_add_process(e->m);

	if (!p || !mp) {
		free(p);
		emu_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	p->pid = pid;
	p->ppid = ppid;
	p->next = e->procs;
	e->procs = p;
	mp->pid = (uint32_t)pid;
	mp->ppid = (uint32_t)ppid;
	e->st->processes++;
	return p;
}

static void proc_set_exe(struct emu *e, struct proc *p)
{
	char link[64], path[4096];
	ssize_t n;
	size_t i;

	snprintf(link, sizeof(link), "/proc/%d/exe", p->pid);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return;
	path[n] = '\0';
	for (i = 0; i < e->m->nprocs; i++)
		if (e->m->procs[i].pid == (uint32_t)p->pid) {
			free(e->m->procs[i].exe);
			e->m->procs[i].exe = strdup(path);
		}
}

struct thr *emu_thr_find(struct emu *e, pid_t tid)
{
	struct thr *t;

	for (t = e->threads; t; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

struct thr *emu_thr_new(struct emu *e, pid_t tid, struct proc *p,
			   enum tstate st)
{
	const struct sb_thread *mt;
	char path[4096];
	struct thr *t;
	int ret;

	t = calloc(1, sizeof(*t));
	if (!t) {
		emu_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	t->tid = tid;
	t->proc = p;
	t->st = st;
	t->enc.fd = -1;
	t->next = e->threads;
	e->threads = t;
	ret = sb_bundle_add_thread(e->b, (uint32_t)p->pid, (uint32_t)tid,
				   e->o->ground_truth, &mt);
	if (ret) {
		emu_fail(e, ret, "thread %d: cannot add to the bundle: %s", tid,
		     strerror(-ret));
		return t;
	}
	sb_bundle_path(e->b, mt->pt, path, sizeof(path));
	ret = ptenc_open(&t->enc, path, e->o->psb_period, e->o->long_tnt);
	if (ret) {
		io_fail(e, ret, mt->pt);
		return t;
	}
	t->opened = true;
	if (mt->truth) {
		struct sb_err err;

		sb_bundle_path(e->b, mt->truth, path, sizeof(path));
		ret = sb_truth_open(&t->truth, path, &err);
		if (ret)
			emu_fail(e, ret, "%s", err.msg);
	}
	e->st->threads++;
	return t;
}

int emu_get_regs(struct thr *t)
{
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) < 0)
		return -errno;
	t->have_regs = true;
	return 0;
}

/* ---- instructions ------------------------------------------------------ */

static struct icache_ent *icache_slot(struct emu *e, uint64_t ip)
{
	return &e->icache[(ip ^ (ip >> 16)) & (ICACHE_SIZE - 1)];
}

static void icache_put(struct emu *e, struct thr *t, uint64_t ip,
		       const struct insn *in)
{
	struct icache_ent *c = icache_slot(e, ip);

	c->ip = ip;
	c->pid = t->proc->pid;
	c->gen = e->gen;
	c->in = *in;
}

static int fetch_insn(struct emu *e, struct thr *t, uint64_t ip,
		      struct insn *in)
{
	struct icache_ent *c = icache_slot(e, ip);
	uint8_t buf[16];
	struct iovec local = { buf, sizeof(buf) };
	struct iovec remote = { (void *)(uintptr_t)ip, sizeof(buf) };
	ssize_t n;

	if (c->gen == e->gen && c->ip == ip && c->pid == t->proc->pid) {
		*in = c->in;
		return 0;
	}
	n = process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
	if (n < (ssize_t)sizeof(buf)) {
		/* The instruction may end just before an unmapped page. */
		remote.iov_len = local.iov_len = 4096 - (ip & 4095);
		if (remote.iov_len > sizeof(buf))
			remote.iov_len = local.iov_len = sizeof(buf);
		n = process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
	}
	if (n <= 0 || insn_decode(e->dec, buf, (unsigned int)n, ip, in)) {
		/* Unreadable or invalid: it will fault; no flow change. */
		in->len = 0;
		in->cls = IC_OTHER;
		in->rep = false;
		return 0;
	}
	icache_put(e, t, ip, in);
	return 0;
}

/* Records instruction @ip in the ground truth; with @regs, the registers
 * after it (t->regs, read at the step's stop) too.
 */
static void truth_add_regs(struct emu *e, struct thr *t, uint64_t ip,
			   bool regs)
{
	const struct user_regs_struct *r = &t->regs;
	const uint64_t v[SB_TRUTH_NREGS] = {
		r->rax, r->rbx, r->rcx, r->rdx, r->rsi, r->rdi, r->rbp,
		r->rsp, r->r8, r->r9, r->r10, r->r11, r->r12, r->r13,
		r->r14, r->r15, r->eflags,
	};
	int ret;

	e->st->insns++;
	if (!t->truth)
		return;
	ret = sb_truth_add_regs(t->truth, ip,
				regs ? (1ull << SB_TRUTH_NREGS) - 1 : 0, v);
	if (ret)
		io_fail(e, ret, "truth");
}

static void truth_add(struct emu *e, struct thr *t, uint64_t ip)
{
	truth_add_regs(e, t, ip, false);
}

void emu_enc_check(struct emu *e, struct thr *t, int ret)
{
	if (ret < 0)
		io_fail(e, ret, t->enc.path ? t->enc.path : "pt stream");
}

/* ---- signals ------------------------------------------------------------ */

static bool sig_default_ignored(int sig)
{
	return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH ||
	       sig == SIGCONT;
}

/* ---- the syscall effects we record --------------------------------------- */

static void after_syscall(struct emu *e, struct thr *t)
{
	long nr = (long)t->entry.rax;

	switch (nr) {
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_mremap:
	case SYS_brk:
	case SYS_shmat:
	case SYS_shmdt:
	case SYS_pkey_mprotect:
		update_maps(e, t->proc, t->tid, 0);
		break;
	case SYS_prctl:
		emit_comm(e, t);		/* PR_SET_NAME */
		break;
	default:
		break;
	}
}

/* The SYSCALL at t->ip executed: it is in the history, and PacketEn
 * dropped when it entered the kernel.
 */
void emu_syscall_entered(struct emu *e, struct thr *t)
{
	truth_add(e, t, t->ip);
	emu_enc_check(e, t, ptenc_disable_sync(&t->enc));
}

/* ---- thread end ------------------------------------------------------- */

static void save_regs(struct emu *e, struct thr *t)
{
	const struct sb_thread *mt = sb_manifest_thread(e->m,
							(uint32_t)t->tid);
	const struct user_regs_struct *r = &t->regs;
	struct sb_regs sr = { .tid = (uint32_t)t->tid };
	char path[4096];
	struct sb_err err;
	unsigned int i;
	const uint64_t v[SB_REG_COUNT] = {
		r->rax, r->rbx, r->rcx, r->rdx, r->rsi, r->rdi, r->rbp, r->rsp,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
		r->rip, r->eflags, r->cs, r->ss, r->ds, r->es, r->fs, r->gs,
		r->fs_base, r->gs_base, r->orig_rax,
	};

	if (!t->have_regs || !mt || !mt->regs)
		return;
	for (i = 0; i < SB_REG_COUNT; i++)
		sr.val[i] = v[i];
	sr.valid = (1ull << SB_REG_COUNT) - 1;
	sb_bundle_path(e->b, mt->regs, path, sizeof(path));
	if (sb_regs_save(&sr, path, &err))
		emu_fail(e, -EIO, "%s", err.msg);
}

/* Closes the thread's stream: its history ends here. */
void emu_thr_close(struct emu *e, struct thr *t)
{
	struct sb_err err;
	int ret;

	if (!t->opened)
		return;
	/*
	 * A stopped thread is before t->regs.rip (t->ip may have retired);
	 * one whose step is in flight is still before t->ip.
	 */
	if (t->st == T_SYSCALL)
		emu_syscall_entered(e, t);	/* entered, never returned */
	else if (t->enc.enabled)
		emu_enc_check(e, t, ptenc_disable_async(&t->enc,
			  t->st == T_READY && t->have_regs ? t->regs.rip :
			  t->ip));
	e->st->trace_bytes += ptenc_bytes(&t->enc);
	ret = ptenc_close(&t->enc);
	if (ret)
		io_fail(e, ret, "pt stream");
	ret = sb_truth_close(t->truth, &err);
	t->truth = NULL;
	if (ret)
		emu_fail(e, ret, "%s", err.msg);
	save_regs(e, t);
	t->opened = false;
}

bool emu_proc_alive(struct emu *e, struct proc *p)
{
	struct thr *t;

	for (t = e->threads; t; t = t->next)
		if (t->proc == p && t->st != T_DEAD)
			return true;
	return false;
}

static void thr_exited(struct emu *e, struct thr *t, int status)
{
	struct ptrec_sb_thread_exit te = {
		.hdr = { .type = PTREC_SB_THREAD_EXIT } };
	struct proc *p = t->proc;

	emu_thr_close(e, t);
	t->st = T_DEAD;
	if (e->cur == t)
		e->cur = NULL;
	te.pid = (uint32_t)p->pid;
	te.tid = (uint32_t)t->tid;
	te.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) :
		       128 + WTERMSIG(status);
	emu_emit_record(e, &te.hdr);
	if (!emu_proc_alive(e, p) && !p->exited) {
		struct ptrec_sb_process_exit pe = {
			.hdr = { .type = PTREC_SB_PROCESS_EXIT } };

		p->exited = true;
		pe.pid = (uint32_t)p->pid;
		if (WIFEXITED(status)) {
			pe.kind = PTREC_SB_EXITED;
			pe.status = WEXITSTATUS(status);
		} else {
			pe.kind = WCOREDUMP(status) ? PTREC_SB_DUMPED :
				  PTREC_SB_KILLED;
			pe.status = WTERMSIG(status);
		}
		emu_emit_record(e, &pe.hdr);
	}
}

/* ---- stops ------------------------------------------------------------ */

static void new_child(struct emu *e, struct thr *parent, int event)
{
	struct ptrec_sb_thread_start ts = {
		.hdr = { .type = PTREC_SB_THREAD_START } };
	unsigned long msg = 0;
	struct proc *p = parent->proc;
	struct thr *t;
	pid_t tid;

	if (ptrace(PTRACE_GETEVENTMSG, parent->tid, 0, &msg) < 0)
		return;
	tid = (pid_t)msg;
	if (event != PTRACE_EVENT_CLONE) {
		p = emu_proc_new(e, tid, parent->proc->pid);
		if (!p || maps_copy(&p->maps, &parent->proc->maps)) {
			emu_fail(e, -ENOMEM, "out of memory");
			return;
		}
		proc_set_exe(e, p);
	}
	t = emu_thr_find(e, tid);
	if (!t)
		t = emu_thr_new(e, tid, p, T_NEW);
	else
		t->proc = p;	/* its first stop came before this event */
	for (unsigned int i = 0; t && i < e->nearly; i++)
		if (e->early[i] == tid) {
			e->early[i] = e->early[--e->nearly];
			emu_get_regs(t);
			t->ip = t->regs.rip;
			t->st = T_READY;
			break;
		}
	ts.pid = (uint32_t)p->pid;
	ts.tid = (uint32_t)tid;
	ts.parent_pid = (uint32_t)parent->proc->pid;
	ts.parent_tid = (uint32_t)parent->tid;
	ts.clone_flags = event == PTRACE_EVENT_VFORK ? CLONE_VFORK | CLONE_VM :
			 0;
	if (event == PTRACE_EVENT_CLONE) {
		/* clone(2) passes flags in RDI; clone3(2) in its struct
		 * clone_args, whose first member is the flags.
		 */
		ts.clone_flags = parent->entry.rdi;
		if ((long)parent->entry.rax == SYS_clone3) {
			struct iovec l = { &ts.clone_flags, 8 };
			struct iovec r = { (void *)(uintptr_t)parent->entry.rdi,
					   8 };

			if (process_vm_readv(parent->tid, &l, 1, &r, 1, 0) != 8)
				ts.clone_flags = 0;
		}
	}
	emu_emit_record(e, &ts.hdr);
	if (t)
		emit_comm(e, t);
}

static void exec_happened(struct emu *e, struct thr *t)
{
	struct ptrec_sb_exec ex = { .hdr = { .type = PTREC_SB_EXEC } };
	struct proc *p = t->proc;
	char link[64], path[4096];
	struct sb_err err;
	ssize_t n;
	int ret;

	/* The SYSCALL that ran execve is in the history. */
	if (t->st == T_SYSCALL)
		emu_syscall_entered(e, t);
	snprintf(link, sizeof(link), "/proc/%d/exe", p->pid);
	n = readlink(link, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = '\0';
	ex.hdr.time = now(e);
	ex.pid = (uint32_t)p->pid;
	ex.tid = (uint32_t)t->tid;
	ret = sb_writer_add_exec(e->sb, &ex, path, &err);
	if (ret)
		emu_fail(e, ret, "%s", err.msg);
	proc_set_exe(e, p);
	maps_free(&p->maps);
	update_maps(e, p, t->tid, 0);
	emit_comm(e, t);
	emu_get_regs(t);
	t->st = T_READY;
}

/*
 * Under a hypervisor the trap after an emulated instruction (CPUID) comes
 * one instruction late: a single step retired more than one instruction.
 * Explain the step as straight-line instructions from @pc, the last of
 * which may branch to @next, and put them all in the history.  Returns
 * false (nothing written) when no such path of at most 4 instructions
 * exists.
 */
static bool explain_skip(struct emu *e, struct thr *t, uint64_t pc,
			 uint64_t next)
{
	struct insn path[4];
	uint64_t at[4], p = pc;
	unsigned int n, i;

	for (n = 0; n < 4 && p != next; n++) {
		fetch_insn(e, t, p, &path[n]);
		at[n] = p;
		if (!path[n].len)
			return false;
		if (path[n].cls != IC_OTHER) {
			n++;
			break;	/* a branch ends the path wherever it goes */
		}
		p += path[n].len;
	}
	if (!n || (path[n - 1].cls == IC_OTHER && p != next) ||
	    path[n - 1].cls == IC_FAR)
		return false;
	for (i = 0; i < n; i++) {
		uint64_t to = i + 1 < n ? at[i + 1] : next;

		truth_add(e, t, at[i]);
		emu_enc_check(e, t, ptenc_retire(&t->enc, &path[i], at[i], to));
	}
	e->st->skips++;
	return true;
}

/* A SIGTRAP stop after a step: the instruction completed. */
static void step_done(struct emu *e, struct thr *t)
{
	uint64_t next;
	int ret;

	if (emu_get_regs(t))
		return;
	next = t->regs.rip;
	if (t->delivering) {
		/* A caught signal was delivered before t->ip executed. */
		t->delivering = false;
		emu_enc_check(e, t, ptenc_disable_async(&t->enc, t->ip));
		t->st = T_READY;
		return;
	}
	if (t->st == T_SYSCALL) {
		/*
		 * A single-stepped SYSCALL saved RFLAGS with the trap flag
		 * the stepping set into R11; untraced, the program has it
		 * clear there (and a core file taken later shows R11 as the
		 * untraced program would have it).
		 */
		if (t->regs.rcx == next && (t->regs.r11 & 0x100) &&
		    !(t->regs.eflags & 0x100)) {
			t->regs.r11 &= ~0x100ull;
			ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs);
		}
		emu_syscall_entered(e, t);
		after_syscall(e, t);
		t->st = T_READY;
		return;
	}
	t->st = T_READY;
	/*
	 * Nothing retired: REP string instructions trap after each
	 * iteration, and the first step after an exec traps on the way back
	 * to user space.  A non-branch that retired would have moved RIP.
	 */
	if (next == t->ip && (t->in.rep || t->in.cls == IC_OTHER))
		return;
	if (!t->in.len && next > t->ip && next - t->ip <= 15) {
		/*
		 * Capstone did not know it (some AVX-512 forms), but it cannot
		 * be a branch: every branch opcode is known.  The CPU just told
		 * us its length.
		 */
		t->in.len = (uint8_t)(next - t->ip);
		t->in.cls = IC_OTHER;
		icache_put(e, t, t->ip, &t->in);
		e->st->learned++;
	}
	ret = ptenc_retire(&t->enc, &t->in, t->ip, next);
	/* The registers are those after t->ip only when the step retired
	 * just it, where its class allows.
	 */
	truth_add_regs(e, t, t->ip, ret == 0);
	if (ret == 1 && t->in.cls == IC_OTHER &&
	    explain_skip(e, t, t->ip + t->in.len, next))
		ret = 0;
	if (ret == 1) {
		/* Not what the class allows: go there asynchronously. */
		e->st->anomalies++;
		if (getenv("PTREC_DEBUG"))
			fprintf(stderr, "anomaly at 0x%" PRIx64 " len %u class %u -> 0x%" PRIx64 "\n", t->ip, t->in.len, t->in.cls, next);
		ret = ptenc_disable_async(&t->enc, t->ip + t->in.len);
	}
	emu_enc_check(e, t, ret);
}

static void signal_stop(struct emu *e, struct thr *t, int sig)
{
	struct ptrec_sb_signal s = { .hdr = { .type = PTREC_SB_SIGNAL } };
	uint64_t caught, ignored;
	siginfo_t si;

	emu_get_regs(t);
	/* A syscall interrupted by (or returning into) a signal executed. */
	if (t->st == T_SYSCALL) {
		if ((long)t->regs.orig_rax != -1 || t->regs.rip != t->ip) {
			emu_syscall_entered(e, t);
			after_syscall(e, t);
		}
	}
	t->st = T_READY;
	t->delivering = false;
	memset(&si, 0, sizeof(si));
	ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si);
	caught = rec_sigmask_of(t->tid, "SigCgt");
	ignored = rec_sigmask_of(t->tid, "SigIgn");
	s.pid = (uint32_t)t->proc->pid;
	s.tid = (uint32_t)t->tid;
	s.signo = sig;
	s.code = si.si_code;
	if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE)
		s.addr = (uint64_t)(uintptr_t)si.si_addr;
	if (caught & (1ull << (sig - 1)))
		s.sflags = PTREC_SB_SIG_HANDLED;
	else if (!(ignored & (1ull << (sig - 1))) &&
		 !sig_default_ignored(sig) && sig != SIGSTOP &&
		 sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU)
		s.sflags = PTREC_SB_SIG_FATAL;
	emu_emit_record(e, &s.hdr);
	t->pending_sig = sig;
	if (s.sflags == PTREC_SB_SIG_FATAL)
		emu_snap_proc(e, t->proc, SB_SNAP_END_SIGNAL, sig, t, &si);
}

void emu_handle_stop(struct emu *e, pid_t tid, int status)
{
	struct thr *t = emu_thr_find(e, tid);
	int event = status >> 16;
	int sig;


	if (!t) {
		/* A new thread's first stop, before its parent's event. */
		char path[64], line[128];
		pid_t tgid = tid;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/status", tid);
		f = fopen(path, "re");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "Tgid: %d", &tgid) == 1)
				break;
		if (f)
			fclose(f);
		if (!emu_proc_find(e, tgid)) {
			/* A fork child: its parent's event creates it. */
			if (e->nearly < SB_ARRAY_SIZE_EARLY)
				e->early[e->nearly++] = tid;
			return;
		}
		t = emu_thr_new(e, tid, emu_proc_find(e, tgid), T_NEW);
		if (!t)
			return;
	}
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		thr_exited(e, t, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	sig = WSTOPSIG(status);
	if (t->st == T_NEW) {
		/* The SIGSTOP every new tracee starts with. */
		emu_get_regs(t);
		t->ip = t->regs.rip;
		t->st = T_READY;
		return;
	}
	switch (event) {
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		new_child(e, t, event);
		/* Still inside the syscall: let it finish. */
		ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0);
		return;
	case PTRACE_EVENT_EXEC:
		exec_happened(e, t);
		return;
	case PTRACE_EVENT_STOP:
		emu_get_regs(t);
		t->st = T_READY;
		return;
	case PTRACE_EVENT_EXIT:
		emu_exit_stop(e, t);
		return;
	default:
		break;
	}
	if (sig == SIGTRAP)
		step_done(e, t);
	else
		signal_stop(e, t, sig);
}

/* ---- scheduling --------------------------------------------------------- */

static bool any_stepping(struct emu *e)
{
	struct thr *t;

	for (t = e->threads; t; t = t->next)
		if (t->st == T_STEP)
			return true;
	return false;
}

static struct thr *pick(struct emu *e)
{
	struct thr *t, *start;

	if (e->cur && e->cur->st == T_READY && e->quantum)
		return e->cur;
	start = e->cur && e->cur->next ? e->cur->next : e->threads;
	t = start;
	do {
		if (!t)
			t = e->threads;
		if (t->st == T_READY)
			return t;
		t = t->next ? t->next : e->threads;
	} while (t != start);
	return NULL;
}

/* Is @t, stopped at a far transfer, at a SYSCALL running execve or
 * execveat (x86-64 numbers 59 and 322)?
 */
static bool is_execve(const struct thr *t)
{
	long word;

	if (t->regs.rax != SYS_execve && t->regs.rax != SYS_execveat)
		return false;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, t->tid, (void *)t->regs.rip, 0);
	return !errno && (word & 0xffff) == 0x050f;	/* 0f 05: SYSCALL */
}

static void issue_step(struct emu *e, struct thr *t)
{
	int sig = t->pending_sig;
	int ret;

	if (t != e->cur) {
		struct thr *old = e->cur;

		if (old && old->st != T_DEAD) {
			if (old->st == T_READY && old->enc.enabled)
				emu_enc_check(e, old, ptenc_disable_async(
						  &old->enc, old->regs.rip));
			emit_switch(e, old, PTREC_SB_SWITCH_OUT,
				  old->st == T_READY ? PTREC_SB_F_PREEMPT : 0);
		}
		e->cur = t;
		e->quantum = QUANTUM;
		emit_switch(e, t, PTREC_SB_SWITCH_IN, 0);
	}
	t->ip = t->regs.rip;
	t->entry = t->regs;
	fetch_insn(e, t, t->ip, &t->in);
	if (!t->started) {
		emu_enc_check(e, t, ptenc_start(&t->enc, now(e)));
		t->started = true;
	}
	if (!t->enc.enabled)
		emu_enc_check(e, t, ptenc_enable(&t->enc, t->ip, now(e)));
	else
		emu_enc_check(e, t, ptenc_boundary(&t->enc, t->ip, now(e)));
	t->pending_sig = 0;
	t->delivering = false;
	if (sig) {
		uint64_t caught = rec_sigmask_of(t->tid, "SigCgt");

		t->delivering = caught & (1ull << (sig - 1));
	}
	t->st = t->in.cls == IC_FAR && !t->delivering ? T_SYSCALL : T_STEP;
	/*
	 * The old image's last state: at PTRACE_EVENT_EXEC it is gone, so
	 * it is taken before the execve runs, as the kernel would show it
	 * entered (an execve that then fails leaves this state too).
	 */
	if (t->st == T_SYSCALL && is_execve(t))
		emu_snap_proc(e, t->proc, SB_SNAP_END_EXEC, 0, NULL, NULL);
	if (e->quantum)
		e->quantum--;
	ret = (int)ptrace(PTRACE_SINGLESTEP, t->tid, 0, sig);
	if (ret < 0 && errno == ESRCH)
		t->st = T_EXITING;	/* killed meanwhile: its exit follows */
}

static void progress(struct emu *e)
{
	uint64_t t;

	if (e->o->quiet)
		return;
	t = rec_mono_ns();
	if (t - e->last_progress < 1000000000ull)
		return;
	e->last_progress = t;
	fprintf(stderr, "\rptrec record: %" PRIu64 " instructions, %u threads",
		e->st->insns, e->st->threads);
	if (!isatty(2))
		fputc('\n', stderr);
}

/*
 * Every second, writes what the streams buffered: a full disk (ENOSPC)
 * then stops the recording at once instead of when the buffers fill or
 * the recording ends, seconds or minutes of lost work later.
 */
static void flush_all(struct emu *e)
{
	uint64_t t = rec_mono_ns();
	struct thr *th;
	int ret;

	if (t - e->last_flush < 1000000000ull)
		return;
	e->last_flush = t;
	ret = sb_writer_flush(e->sb);
	if (ret) {
		io_fail(e, ret, "sideband.sb");
		return;
	}
	for (th = e->threads; th && !e->error; th = th->next) {
		if (!th->opened)
			continue;
		emu_enc_check(e, th, ptenc_flush(&th->enc));
		ret = sb_truth_flush(th->truth);
		if (ret)
			io_fail(e, ret, "truth");
	}
}

static bool all_dead(struct emu *e)
{
	struct thr *t;

	for (t = e->threads; t; t = t->next)
		if (t->st != T_DEAD)
			return false;
	return true;
}

static void run(struct emu *e)
{
	int status;
	pid_t tid;

	while (!e->error && !all_dead(e)) {
		if ((e->o->stop && *e->o->stop) ||
		    (e->o->max_insns && e->st->insns >= e->o->max_insns))
			break;
		/*
		 * A SYSCALL step may block (wait4, futex): keep issuing until
		 * a user-mode step is in flight or nobody is ready, or the
		 * thread that would unblock it never runs.
		 */
		while (!any_stepping(e) && !e->error) {
			struct thr *t = pick(e);

			if (!t)
				break;
			issue_step(e, t);
		}
		tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break;
			emu_fail(e, -errno, "waitpid: %s", strerror(errno));
			break;
		}
		emu_handle_stop(e, tid, status);
		progress(e);
		flush_all(e);
	}
}

/* ---- manifest --------------------------------------------------------- */

/* The software recorder's part of the manifest (rec_bundle_begin()). */
static void fill_manifest(struct emu *e)
{
	struct sb_manifest *m = e->m;
	char cwd[4096];

	m->pt.emulated = true;
	m->pt.features = SB_PT_USER | SB_PT_BRANCH | SB_PT_TSC |
			 SB_PT_RET_COMPRESSION;
	m->pt.psb_period = e->o->psb_period ? e->o->psb_period : 4096;
	/* The "TSC" is CLOCK_MONOTONIC in ns; time_zero makes it realtime. */
	m->time.time_shift = 0;
	m->time.time_mult = 1;
	m->time.time_zero = (uint64_t)e->mono_to_real;
	m->time.tsc_hz = 1000000000ull;
	if (getcwd(cwd, sizeof(cwd)))
		m->cwd = strdup(cwd);
}

static void write_snapshot(struct emu *e)
{
	struct ptrec_sb_time tm = { .hdr = { .type = PTREC_SB_TIME } };
	struct thr *t;
	struct proc *p;

	tm.time_shift = 0;
	tm.time_mult = 1;
	tm.time_zero = (uint64_t)e->mono_to_real;
	tm.tsc_hz = 1000000000ull;
	tm.realtime_ns = rec_real_ns();
	emu_emit_record(e, &tm.hdr);
	for (p = e->procs; p; p = p->next) {
		proc_set_exe(e, p);
		update_maps(e, p, p->pid, PTREC_SB_F_SNAPSHOT);
	}
	for (t = e->threads; t; t = t->next)
		emit_comm(e, t);
}

/* ---- entry point ----------------------------------------------------- */

static void emu_free(struct emu *e)
{
	while (e->threads) {
		struct thr *t = e->threads;

		e->threads = t->next;
		if (t->opened) {
			ptenc_close(&t->enc);
			sb_truth_close(t->truth, NULL);
		}
		free(t);
	}
	while (e->procs) {
		struct proc *p = e->procs;

		e->procs = p->next;
		maps_free(&p->maps);
		free(p);
	}
	rec_images_free(&e->images);
	insn_decoder_free(e->dec);
	free(e->icache);
	sb_bundle_free(e->b);
}

int rec_emu_record(const struct rec_options *o, struct rec_stats *st,
		   struct sb_err *err)
{
	struct emu e = { .o = o, .st = st, .err = err };
	bool made_dir = access(o->out, F_OK) != 0, started = false;
	struct sb_err serr;
	int ret;

	memset(st, 0, sizeof(*st));
	e.last_progress = rec_mono_ns();
	e.mono_to_real = (int64_t)(rec_real_ns() - rec_mono_ns());
	ret = rec_bundle_begin(o, "emu", true, &e.b, &e.sb, &e.snap, &e.error,
			       err);
	if (!e.b)
		return ret;
	if (ret)
		goto out_free;
	e.m = sb_bundle_manifest(e.b);
	e.icache = calloc(ICACHE_SIZE, sizeof(*e.icache));
	e.gen = 1;
	if (!e.icache || insn_decoder_new(&e.dec)) {
		emu_fail(&e, -ENOMEM, "cannot start the instruction decoder");
		goto out_free;
	}
	fill_manifest(&e);
	if (o->argv) {
		ret = emu_launch(&e);
		if (!ret && !emu_thr_new(&e, e.main_pid, e.procs, T_READY))
			ret = e.error;
		if (!ret)
			emu_get_regs(emu_thr_find(&e, e.main_pid));
	} else {
		ret = emu_attach(&e, o->pid);
	}
	if (ret)
		goto out_kill;
	started = true;
	write_snapshot(&e);
	run(&e);
out_kill:
	emu_finish_live(&e);
	e.m->stop_ns = rec_real_ns();
	if (!e.error) {
		ret = sb_bundle_finish(e.b, &serr);
		if (ret)
			emu_fail(&e, ret, "%s", serr.msg);
	}
out_free:
	ret = e.error;
	rec_snap_stats(&e.snap, st);
	if (!o->quiet && st->insns)
		fputc('\n', stderr);
	emu_free(&e);
	/* Nothing was recorded (no such process, no permission, a program
	 * that cannot run): leave nothing behind.
	 */
	if (ret && !started)
		rec_bundle_unmake(o->out, made_dir);
	return ret;
}
