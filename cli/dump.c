// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptrec dump: the manifest and every sideband record of a bundle, one line
 * each, in the spirit of `perf script --show-mmap-events`.  Also takes a
 * bare sideband stream file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_args.h"

static void print_record(const struct ptrec_sb_header *h)
{
	const struct sb_type_info *ti = sb_type_info(h->type);
	const void *r = h;

	printf("%20" PRIu64 " %-12s", (uint64_t)h->time,
	       ti ? ti->name : "UNKNOWN");
	if (h->flags & PTREC_SB_F_SNAPSHOT)
		printf(" [snapshot]");
	switch (h->type) {
	case PTREC_SB_MMAP: {
		const struct ptrec_sb_mmap *m = r;

		printf(" pid %u tid %u 0x%" PRIx64 "-0x%" PRIx64
		       " pgoff 0x%" PRIx64 " prot %c%c%c flags 0x%x %.*s %.*s",
		       m->pid, m->tid, (uint64_t)m->start,
		       (uint64_t)(m->start + m->len), (uint64_t)m->pgoff,
		       m->prot & 1 ? 'r' : '-', m->prot & 2 ? 'w' : '-',
		       m->prot & 4 ? 'x' : '-', m->mflags, m->path_len,
		       sb_mmap_path(m), m->key_len, sb_mmap_key(m));
		break;
	}
	case PTREC_SB_MUNMAP: {
		const struct ptrec_sb_munmap *m = r;

		printf(" pid %u tid %u 0x%" PRIx64 "-0x%" PRIx64, m->pid,
		       m->tid, (uint64_t)m->start, (uint64_t)(m->start + m->len));
		break;
	}
	case PTREC_SB_MPROTECT: {
		const struct ptrec_sb_mprotect *m = r;

		printf(" pid %u tid %u 0x%" PRIx64 "-0x%" PRIx64 " prot %c%c%c",
		       m->pid, m->tid, (uint64_t)m->start,
		       (uint64_t)(m->start + m->len), m->prot & 1 ? 'r' : '-',
		       m->prot & 2 ? 'w' : '-', m->prot & 4 ? 'x' : '-');
		break;
	}
	case PTREC_SB_EXEC: {
		const struct ptrec_sb_exec *e = r;

		printf(" pid %u tid %u %.*s", e->pid, e->tid, e->path_len,
		       sb_exec_path(e));
		break;
	}
	case PTREC_SB_COMM: {
		const struct ptrec_sb_comm *c = r;

		printf(" pid %u tid %u %.*s", c->pid, c->tid,
		       (int)strnlen((const char *)c->comm, sizeof(c->comm)),
		       (const char *)c->comm);
		break;
	}
	case PTREC_SB_CR3: {
		const struct ptrec_sb_cr3 *c = r;

		printf(" pid %u tid %u cr3 0x%" PRIx64, c->pid, c->tid,
		       (uint64_t)c->cr3);
		/* 0: a sideband version 1 stream, which has only one */
		if (c->kernel_cr3)
			printf(" kernel_cr3 0x%" PRIx64,
			       (uint64_t)c->kernel_cr3);
		break;
	}
	case PTREC_SB_SWITCH_IN:
	case PTREC_SB_SWITCH_OUT: {
		const struct ptrec_sb_switch *s = r;

		printf(" pid %u tid %u cpu %u%s", s->pid, s->tid, s->cpu,
		       h->flags & PTREC_SB_F_PREEMPT ? " preempted" : "");
		break;
	}
	case PTREC_SB_THREAD_START: {
		const struct ptrec_sb_thread_start *t = r;

		printf(" pid %u tid %u parent %u/%u clone_flags 0x%" PRIx64,
		       t->pid, t->tid, t->parent_pid, t->parent_tid,
		       (uint64_t)t->clone_flags);
		break;
	}
	case PTREC_SB_UNTRACED: {
		const struct ptrec_sb_untraced *t = r;

		printf(" pid %u tid %u parent %u/%u clone_flags 0x%" PRIx64
		       " reason %u%s", t->pid, t->tid, t->parent_pid,
		       t->parent_tid, (uint64_t)t->clone_flags, t->reason,
		       t->reason == PTREC_SB_UNTRACED_TID_REUSED ?
		       " (tid reused)" : "");
		break;
	}
	case PTREC_SB_THREAD_EXIT: {
		const struct ptrec_sb_thread_exit *t = r;

		printf(" pid %u tid %u code %d", t->pid, t->tid, t->exit_code);
		break;
	}
	case PTREC_SB_PROCESS_EXIT: {
		static const char *const kinds[] = { "exited", "killed",
						     "dumped", "detached" };
		const struct ptrec_sb_process_exit *p = r;

		printf(" pid %u %s %d", p->pid,
		       p->kind < 4 ? kinds[p->kind] : "?", p->status);
		break;
	}
	case PTREC_SB_LOST: {
		static const char *const why[] = {
			[PTREC_SB_LOST_OVERFLOW] = "overflow",
			[PTREC_SB_LOST_FULL] = "full",
			[PTREC_SB_LOST_WRAP] = "wrap",
			[PTREC_SB_LOST_READER] = "reader",
			[PTREC_SB_LOST_TRUNCATED] = "truncated",
			[PTREC_SB_LOST_SIDEBAND] = "sideband",
			[PTREC_SB_LOST_UNTRACED] = "untraced",
		};
		const struct ptrec_sb_lost *l = r;

		printf(" tid %u reason %u", l->tid, l->reason);
		if (l->reason < sizeof(why) / sizeof(why[0]) && why[l->reason])
			printf(" (%s)", why[l->reason]);
		printf(" bytes %" PRIu64 " at offset %" PRIu64,
		       (uint64_t)l->bytes, (uint64_t)l->offset);
		break;
	}
	case PTREC_SB_TIME: {
		const struct ptrec_sb_time *t = r;

		printf(" shift %u mult %u zero %" PRIu64 " tsc_hz %" PRIu64
		       " realtime %" PRIu64, t->time_shift, t->time_mult,
		       (uint64_t)t->time_zero, (uint64_t)t->tsc_hz,
		       (uint64_t)t->realtime_ns);
		break;
	}
	case PTREC_SB_SIGNAL: {
		const struct ptrec_sb_signal *s = r;

		printf(" pid %u tid %u signo %d code %d addr 0x%" PRIx64 "%s%s",
		       s->pid, s->tid, s->signo, s->code, (uint64_t)s->addr,
		       s->sflags & PTREC_SB_SIG_FATAL ? " fatal" : "",
		       s->sflags & PTREC_SB_SIG_HANDLED ? " handled" : "");
		break;
	}
	case PTREC_SB_SIGFRAME: {
		const struct ptrec_sb_sigframe *f = r;

		printf(" pid %u tid %u signo %d sp 0x%" PRIx64, f->pid, f->tid,
		       f->signo, (uint64_t)f->sp);
		break;
	}
	case PTREC_SB_REGS: {
		const struct ptrec_sb_regs *g = r;
		unsigned int i;

		printf(" pid %u tid %u %s", g->pid, g->tid,
		       g->where == PTREC_SB_REGS_START ? "start" :
		       g->where == PTREC_SB_REGS_SYSCALL ? "syscall" : "?");
		for (i = 0; i < PTREC_SB_NREGS; i++)
			if (g->valid >> i & 1)
				printf(" %s 0x%" PRIx64, sb_reg_name(i),
				       (uint64_t)g->regs[i]);
		break;
	}
	case PTREC_SB_EXIT_FUTEX: {
		const struct ptrec_sb_exit_futex *f = r;

		printf(" pid %u tid %u", f->pid, f->tid);
		if (f->known & PTREC_SB_FUTEX_CTID)
			printf(" ctid 0x%" PRIx64,
			       (uint64_t)f->clear_child_tid);
		if (f->known & PTREC_SB_FUTEX_CTID_VAL)
			printf(" ctid_val %u", f->ctid_val);
		if (f->known & PTREC_SB_FUTEX_ROBUST)
			printf(" robust 0x%" PRIx64 " len %" PRIu64,
			       (uint64_t)f->robust_list,
			       (uint64_t)f->robust_len);
		if (f->known & PTREC_SB_FUTEX_HEAD)
			printf(" next 0x%" PRIx64 " off %" PRId64
			       " pending 0x%" PRIx64,
			       (uint64_t)f->robust_next,
			       (int64_t)f->futex_offset,
			       (uint64_t)f->list_op_pending);
		break;
	}
	default:
		printf(" type %u size %u", h->type, h->size);
		break;
	}
	putchar('\n');
}

static int dump_stream(const char *path)
{
	const struct ptrec_sb_header *h;
	struct sb_reader *r;
	struct sb_err err;
	int ret;

	ret = sb_reader_open(&r, path, &err);
	if (ret) {
		fprintf(stderr, "ptrec dump: %s\n", err.msg);
		return 1;
	}
	while ((ret = sb_reader_next(r, &h, &err)) > 0)
		print_record(h);
	sb_reader_close(r);
	if (ret < 0) {
		fprintf(stderr, "ptrec dump: %s\n", err.msg);
		return 1;
	}
	return 0;
}

static void print_manifest(const struct sb_manifest *m)
{
	size_t i;
	uint32_t bit;

	printf("format_version %u\nproducer %s\nbackend %s\n",
	       m->format_version, m->producer, m->backend);
	printf("cpu %s family %u model %u stepping %u\npt %s", m->cpu.vendor,
	       m->cpu.family, m->cpu.model, m->cpu.stepping,
	       m->pt.emulated ? "emulated" : "hardware");
	for (bit = 1; bit; bit <<= 1)
		if ((m->pt.features & bit) && sb_pt_feature_name(bit))
			printf(" %s", sb_pt_feature_name(bit));
	printf("\ncommand");
	for (i = 0; i < m->argc; i++)
		printf(" %s", m->argv[i]);
	printf("\n");
	for (i = 0; i < m->nthreads; i++)
		printf("thread %u pid %u pt %s\n", m->threads[i].tid,
		       m->threads[i].pid, m->threads[i].pt);
	for (i = 0; i < m->nimages; i++)
		printf("image %s %s (%" PRIu64 " bytes)\n", m->images[i].key,
		       m->images[i].path ? m->images[i].path : "?",
		       m->images[i].size);
}

int cli_dump(int argc, char **argv)
{
	struct sb_manifest *m;
	char path[4096];
	struct sb_err err;
	struct stat st;
	int ret;
	static const struct cli_opt opts[] = { CLI_END };
	static const struct cli_cmd cmd = {
		.name = "ptrec dump", .synopsis = "BUNDLE|SIDEBAND-FILE",
		.opts = opts, .min_args = 1, .max_args = 1,
	};
	int a = cli_parse(&cmd, argc, argv);

	if (a < 0)
		return cli_exit(a);
	argv += a - 1;
	if (stat(argv[1], &st) < 0) {
		fprintf(stderr, "ptrec dump: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return dump_stream(argv[1]);
	ret = sb_manifest_load(&m, argv[1], &err);
	if (ret) {
		fprintf(stderr, "ptrec dump: %s\n", err.msg);
		return 1;
	}
	print_manifest(m);
	cli_snapshot_print(argv[1], true);
	snprintf(path, sizeof(path), "%s/%s", argv[1], m->sideband);
	sb_manifest_free(m);
	return dump_stream(path);
}
