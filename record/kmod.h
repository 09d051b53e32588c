/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to record/: the kernel-module recorder's state, shared by its
 * three files: kmod.c (launching, attaching, the loop, the end),
 * kmod_dev.c (the device: opening it, the configuration, the manifest's
 * PT part) and kmod_stream.c (the module's message stream split into the
 * bundle).
 */
#ifndef PTREC_RECORD_KMOD_H
#define PTREC_RECORD_KMOD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "images.h"
#include "record.h"
#include "skel.h"
#include "snapshot.h"
#include "uapi/ptrec.h"

/* LOST records held per thread until the data reaches them. */
#define KM_PEND_MAX	16

struct km_thread {
	uint32_t pid, tid;
	FILE *f;
	uint64_t file_bytes;	/* bytes in pt/<tid>.pt */
	uint64_t next_off;	/* module stream offset expected next */
	/*
	 * LOST records whose stream offset lies beyond the data received so
	 * far: stop-on-full reports FULL at the end of what the unit wrote
	 * before that data is drained.  Placed once the data reaches them.
	 */
	struct ptrec_sb_lost pend[KM_PEND_MAX];
	unsigned int npend;
	struct km_thread *next;
};

struct km {
	const struct rec_options *o;
	struct rec_stats *st;
	struct sb_err *err;
	struct sb_bundle *b;
	struct sb_manifest *m;
	struct sb_writer *sb;
	struct ptrec_info info;
	int fd;
	pid_t pid;
	bool launched;
	struct km_thread *threads;
	struct rec_images images;
	char vdso_key[SB_IMAGE_KEY_MAX];
	int vdso_state;		/* 0 unknown, 1 stored, -1 failed */
	bool have_time;
	uint64_t last_time;
	uint64_t clamped;	/* records whose time went backwards */
	uint64_t unknown;	/* records of types this ptrec does not know */
	struct rlimit nofile;	/* RLIMIT_NOFILE as ptrec found it */
	bool nofile_raised;
	struct rec_snap snap;		/* the end state (record/snapshot.c) */
	struct rec_snap_tracer tr;	/* the launched program, traced for it */
	bool exec_filtered;		/* its execve calls stop (tracer.c) */
	int error;
};

/* The first error wins (rec_fail()); returns @code. */
#define km_fail(k, code, ...) \
	rec_fail(&(k)->error, (k)->err, (code), __VA_ARGS__)

/* A warning on stderr, unless --quiet (rec_warn()). */
#define km_warn(k, ...) rec_warn((k)->o->quiet, __VA_ARGS__)

/* kmod_dev.c */
/* Opens /dev/ptrec and checks PTREC_IOC_INFO; returns the fd or -errno. */
int km_open(struct ptrec_info *info, struct sb_err *err);
/* The module's configuration from the options (errors through km_fail()). */
int km_config(struct km *k, struct ptrec_config *c);
/* What an errno of PTREC_IOC_ATTACH means, for the user. */
const char *km_attach_errstr(int e);
/* The kmod recorder's part of the manifest (rec_bundle_begin()). */
void km_fill_manifest(struct km *k, const struct ptrec_config *c);

/* kmod_stream.c */
struct sb_process *km_proc(struct km *k, uint32_t pid, uint32_t ppid);
void km_proc_exe(struct km *k, uint32_t pid, const char *exe);
/* Splits one read() into messages. */
void km_consume(struct km *k, const uint8_t *buf, size_t len);
/* Places the pending losses and closes every pt/<tid>.pt. */
void km_close_streams(struct km *k);

#endif
