// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kernel-module recorder's handling of /dev/ptrec's message stream
 * (rec_kmod_split(), the code rec_kmod_record() runs on what it reads):
 * trace chunks into per-thread files, LOST offsets turned into file
 * offsets, unexplained jumps, images of executable mappings, time order,
 * malformed messages, the manifest.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record.h"
#include "uapi/ptrec.h"

static uint8_t stream[1 << 16];
static size_t slen;
static char dir[256];
static char root[64];

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/ptrec-kmodtest-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/b", root);
	slen = 0;
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", root);
}

TestSuite(kmod, .init = setup, .fini = teardown);

/* Appends a message: @len bytes of @msg, then @tail, padded to 8. */
static void put(const void *msg, size_t len, const void *tail, size_t tlen)
{
	struct ptrec_sb_header *h = (void *)(stream + slen);
	size_t size = (len + tlen + 7) & ~(size_t)7;

	cr_assert_leq(slen + size, sizeof(stream));
	memset(stream + slen, 0, size);
	memcpy(stream + slen, msg, len);
	if (tlen)
		memcpy(stream + slen + len, tail, tlen);
	h->size = (uint32_t)size;
	slen += size;
}

static void trace(uint32_t tid, uint64_t off, uint32_t len, uint8_t fill)
{
	struct ptrec_msg_trace m = {
		.type = PTREC_MSG_TRACE, .pid = 100, .tid = tid,
		.offset = off, .len = len, .time = 1,
	};
	uint8_t data[256];

	cr_assert_leq(len, sizeof(data));
	memset(data, fill, len);
	put(&m, sizeof(m), data, len);
}

static void lost(uint32_t tid, uint32_t reason, uint64_t bytes,
		 uint64_t off, uint64_t time)
{
	struct ptrec_sb_lost l = {
		.hdr = { .type = PTREC_SB_LOST, .time = time },
		.tid = tid, .reason = reason, .bytes = bytes, .offset = off,
	};

	put(&l, sizeof(l), NULL, 0);
}

static void mmap_rec(const char *path, uint32_t prot, uint64_t start,
		     uint64_t time)
{
	struct ptrec_sb_mmap m = {
		.hdr = { .type = PTREC_SB_MMAP, .time = time },
		.pid = 100, .tid = 100, .start = start, .len = 4096,
		.prot = prot, .mflags = MAP_PRIVATE,
		.path_len = (uint16_t)strlen(path),
	};

	put(&m, sizeof(m), path, strlen(path));
}

static void switch_in(uint32_t tid, uint64_t time)
{
	struct ptrec_sb_switch s = {
		.hdr = { .type = PTREC_SB_SWITCH_IN, .time = time },
		.pid = 100, .tid = tid, .cpu = 1,
	};

	put(&s, sizeof(s), NULL, 0);
}

static int split(struct rec_stats *st, struct sb_err *err)
{
	struct rec_options o = { .out = dir, .pid = 100, .quiet = true,
				 .kmod = { .mtc = -1, .cyc = -1 } };
	struct ptrec_info info = {
		.flags = PTREC_INFO_SIMULATED | PTREC_INFO_TOPA |
			 PTREC_INFO_TOPA_MULTI,
		.psb_periods = 0x3f, .family = 6, .model = 85, .stepping = 4,
		.tsc_khz = 2000000,
	};

	return rec_kmod_split(&o, &info, "/bin/prog", stream, slen, st, err);
}

static uint64_t file_size(const char *rel)
{
	char path[512];
	struct stat s;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	cr_assert_eq(stat(path, &s), 0, "%s missing", path);
	return (uint64_t)s.st_size;
}

/* The records of the bundle's sideband, in order. */
static size_t read_sideband(struct ptrec_sb_header **out, size_t max)
{
	const struct ptrec_sb_header *h;
	struct sb_reader *r;
	struct sb_err err;
	char path[512];
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/sideband.sb", dir);
	cr_assert_eq(sb_reader_open(&r, path, &err), 0, "%s", err.msg);
	while (sb_reader_next(r, &h, &err) == 1 && n < max) {
		out[n] = malloc(h->size);
		memcpy(out[n++], h, h->size);
	}
	sb_reader_close(r);
	return n;
}

Test(kmod, streams_losses_images_manifest)
{
	struct ptrec_sb_time tm = {
		.hdr = { .type = PTREC_SB_TIME, .time = 10 },
		.time_shift = 10, .time_mult = 512, .time_zero = 7,
		.tsc_hz = 2000000000,
	};
	struct ptrec_sb_comm late = {
		.hdr = { .type = PTREC_SB_COMM, .time = 5 },
		.pid = 100, .tid = 100, .comm = "late",
	};
	struct ptrec_sb_header unknown = { .type = 200, .time = 60 };
	struct ptrec_sb_header *recs[64];
	struct sb_manifest *m;
	struct rec_stats st;
	struct sb_err err = { "" };
	char exe[512];
	ssize_t n;
	size_t i, nrec, nlost = 0, keyed = 0;
	uint64_t prev = 0;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(n, 0);
	exe[n] = '\0';

	put(&tm, sizeof(tm), NULL, 0);
	mmap_rec(exe, PROT_READ | PROT_EXEC, 0x400000, 20);
	mmap_rec("[vdso]", PROT_READ | PROT_EXEC, 0x7fff0000, 20);
	mmap_rec("/nonexistent/lib.so", PROT_READ | PROT_EXEC, 0x500000, 21);
	mmap_rec("/etc/hostname", PROT_READ, 0x600000, 21);
	switch_in(100, 30);
	switch_in(101, 30);
	trace(100, 0, 10, 0xaa);
	/* the module: 50 bytes overwritten at logical offset 10 */
	lost(100, PTREC_SB_LOST_WRAP, 50, 10, 40);
	trace(100, 60, 5, 0xbb);
	/* a jump of 15 bytes nobody explained */
	trace(100, 80, 5, 0xcc);
	put(&late, sizeof(late), NULL, 0);
	put(&unknown, sizeof(unknown), NULL, 0);
	lost(0, PTREC_SB_LOST_SIDEBAND, 3, 0, 70);

	cr_assert_eq(split(&st, &err), 0, "%s", err.msg);
	cr_assert_eq(st.threads, 2);
	cr_assert_eq(st.trace_bytes, 20);
	cr_assert_eq(st.unexplained, 1);
	cr_assert_eq(st.lost_bytes, 65);
	cr_assert_eq(st.lost_records, 3);

	cr_assert_eq(sb_manifest_load(&m, dir, &err), 0, "%s", err.msg);
	cr_assert_str_eq(m->backend, "kmod");
	cr_assert(m->pt.emulated);
	cr_assert_eq(m->cpu.family, 6);
	cr_assert_eq(m->cpu.model, 85);
	cr_assert_eq(m->pt.psb_period, 2048);
	cr_assert(m->pt.features & SB_PT_USER);
	cr_assert(m->pt.features & SB_PT_TSC);
	cr_assert_not(m->pt.features & SB_PT_KERNEL);
	cr_assert_eq(m->time.time_mult, 512, "time from the TIME record");
	cr_assert_eq(m->time.time_zero, 7);
	cr_assert_eq(m->nprocs, 1);
	cr_assert_eq(m->procs[0].pid, 100);
	cr_assert_str_eq(m->procs[0].exe, "/bin/prog");
	cr_assert_not_null(sb_manifest_thread(m, 100));
	cr_assert_not_null(sb_manifest_thread(m, 101));
	cr_assert_eq(file_size(sb_manifest_thread(m, 100)->pt), 20);
	cr_assert_eq(file_size(sb_manifest_thread(m, 101)->pt), 0);
	cr_assert_eq(m->nimages, 2, "the executable and the vdso");

	nrec = read_sideband(recs, 64);
	for (i = 0; i < nrec; i++) {
		cr_assert_geq(recs[i]->time, prev,
			      "record %zu goes back in time", i);
		prev = recs[i]->time;
		if (recs[i]->type == 200)
			cr_assert_fail("a record of an unknown type was kept");
		if (recs[i]->type == PTREC_SB_LOST) {
			const struct ptrec_sb_lost *l = (void *)recs[i];

			/* file offsets: 10 bytes, then 15 bytes in */
			if (l->reason != PTREC_SB_LOST_SIDEBAND) {
				cr_assert_eq(l->offset, nlost ? 15 : 10);
				cr_assert_eq(l->bytes, nlost ? 15 : 50);
				nlost++;
			}
		}
		if (recs[i]->type == PTREC_SB_MMAP) {
			const struct ptrec_sb_mmap *mm = (void *)recs[i];
			char key[SB_IMAGE_KEY_MAX] = "";

			memcpy(key, sb_mmap_key(mm), mm->key_len);
			if (mm->start == 0x400000 || mm->start == 0x7fff0000) {
				cr_assert_not_null(sb_manifest_image(m, key),
						   "no image for 0x%llx",
						   (unsigned long long)mm->start);
				keyed++;
			} else {
				/* gone, or not executable: no key */
				cr_assert_eq(mm->key_len, 0);
			}
		}
		free(recs[i]);
	}
	cr_assert_eq(nlost, 2);
	cr_assert_eq(keyed, 2);
	sb_manifest_free(m);
}

/*
 * Stop-on-full: the module reports FULL at the end of what the unit wrote
 * (logical offset 30) before it drains the last 20 bytes; the loss belongs
 * after them in the file, and the late data is no unexplained jump.
 */
Test(kmod, full_is_placed_after_the_data_before_it)
{
	struct ptrec_sb_header *recs[16];
	struct rec_stats st;
	struct sb_err err = { "" };
	size_t i, n, full = 0;

	trace(100, 0, 10, 1);
	lost(100, PTREC_SB_LOST_FULL, 0, 30, 50);
	switch_in(100, 60);
	trace(100, 10, 20, 2);
	cr_assert_eq(split(&st, &err), 0, "%s", err.msg);
	cr_assert_eq(st.unexplained, 0);
	cr_assert_eq(st.trace_bytes, 30);
	n = read_sideband(recs, 16);
	for (i = 0; i < n; i++) {
		if (recs[i]->type == PTREC_SB_LOST) {
			const struct ptrec_sb_lost *l = (void *)recs[i];

			cr_assert_eq(l->reason, PTREC_SB_LOST_FULL);
			cr_assert_eq(l->offset, 30, "FULL at file offset %llu",
				     (unsigned long long)l->offset);
			cr_assert_geq(l->hdr.time, 60, "placed in time order");
			full++;
		}
		free(recs[i]);
	}
	cr_assert_eq(full, 1);
}

Test(kmod, malformed_message_names_its_offset)
{
	struct rec_stats st;
	struct sb_err err = { "" };
	struct ptrec_sb_header *h;
	char want[64];

	trace(100, 0, 8, 1);
	h = (void *)(stream + slen);
	snprintf(want, sizeof(want), "malformed message at byte %zu", slen);
	trace(100, 8, 8, 1);
	h->size = 20;	/* not a multiple of 8 */
	cr_assert_eq(split(&st, &err), -EBADMSG);
	cr_assert(strstr(err.msg, want), "%s", err.msg);
}

Test(kmod, trace_message_longer_than_itself)
{
	struct rec_stats st;
	struct sb_err err = { "" };
	struct ptrec_msg_trace *m;

	trace(100, 0, 8, 1);
	m = (void *)stream;
	m->len = 4096;
	cr_assert_eq(split(&st, &err), -EBADMSG);
	cr_assert(strstr(err.msg, "claims 4096 data bytes"), "%s", err.msg);
}

Test(kmod, bad_psb_period_is_refused_before_anything)
{
	struct rec_options o = { .out = dir, .pid = 100, .quiet = true,
				 .psb_period = 3000,
				 .kmod = { .mtc = -1, .cyc = -1 } };
	struct ptrec_info info = { .flags = PTREC_INFO_TOPA,
				   .psb_periods = 0x3f };
	struct rec_stats st;
	struct sb_err err = { "" };

	cr_assert_eq(rec_kmod_split(&o, &info, NULL, stream, 0, &st, &err),
		     -EINVAL);
	cr_assert(strstr(err.msg, "--psb-period 3000"), "%s", err.msg);
	/* a period the unit does not offer */
	o.psb_period = 1u << 20;	/* PSBFreq 9 */
	strcat(dir, "2");
	cr_assert_eq(rec_kmod_split(&o, &info, NULL, stream, 0, &st, &err),
		     -EINVAL);
	cr_assert(strstr(err.msg, "not a period this unit offers"), "%s",
		  err.msg);
}

static void process_exit(uint32_t pid, uint32_t kind, int32_t status,
			 uint64_t time)
{
	struct ptrec_sb_process_exit pe = {
		.hdr = { .type = PTREC_SB_PROCESS_EXIT, .time = time },
		.pid = pid, .kind = kind, .status = status,
	};

	put(&pe, sizeof(pe), NULL, 0);
}

/*
 * -p: how the attached process ended, from the module's PROCESS_EXIT,
 * for ptrec record's exit status (a child's end, or a detach, is not
 * it).  Before session 18 a kmod -p recording never said (ptrec record
 * exited 0 whatever the process died of).
 */
Test(kmod, attached_process_end_is_its_status)
{
	struct rec_stats st;
	struct sb_err err = { "" };

	switch_in(100, 1);
	process_exit(101, PTREC_SB_KILLED, SIGKILL, 2);
	process_exit(100, PTREC_SB_DUMPED, SIGSEGV, 3);
	cr_assert_eq(split(&st, &err), 0, "%s", err.msg);
	cr_assert(st.main_ended);
	cr_assert(WIFSIGNALED(st.main_wstatus));
	cr_assert_eq(WTERMSIG(st.main_wstatus), SIGSEGV);
	cr_assert(WCOREDUMP(st.main_wstatus));

	slen = 0;
	strcat(dir, "2");
	process_exit(100, PTREC_SB_EXITED, 3, 3);
	cr_assert_eq(split(&st, &err), 0, "%s", err.msg);
	cr_assert(st.main_ended);
	cr_assert(WIFEXITED(st.main_wstatus));
	cr_assert_eq(WEXITSTATUS(st.main_wstatus), 3);

	slen = 0;
	strcat(dir, "3");
	process_exit(100, PTREC_SB_DETACHED, 0, 3);
	cr_assert_eq(split(&st, &err), 0, "%s", err.msg);
	cr_assert(!st.main_ended);
}
