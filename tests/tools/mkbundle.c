// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mkbundle DIR: writes a small, fully deterministic bundle through the
 * library's bundle writer, for the CLI golden tests and the demo.  It has
 * the shape a recorder produces (snapshot maps, a thread start, switches, a
 * fatal signal, exits), but its PT streams are only a PSB + PSBEND: nothing
 * here claims to be a real trace.
 */
#include <stdio.h>
#include <string.h>

#include "sideband.h"

/* PSB (16 bytes) then PSBEND, Intel SDM Vol. 3C 33.4.2. */
static const unsigned char psb[] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x23,
};

/* Not ELF, so keyed by SHA-256 of these bytes. */
static const char fake_image[] = "mkbundle fake code image\n";

static int write_file(const struct sb_bundle *b, const char *rel,
		      const void *buf, size_t len)
{
	char path[4096];
	FILE *f;

	if (sb_bundle_path(b, rel, path, sizeof(path)) < 0)
		return -1;
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len) {
		perror(path);
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

static int add_sideband(struct sb_bundle *b, const char *key,
			struct sb_err *err)
{
	struct ptrec_sb_time tm = {
		.hdr = { .type = PTREC_SB_TIME, .time = 1000 },
		.time_shift = 0, .time_mult = 1, .tsc_hz = 1000000000 };
	struct ptrec_sb_mmap mm = {
		.hdr = { .time = 1000, .flags = PTREC_SB_F_SNAPSHOT },
		.pid = 100, .tid = 100, .start = 0x400000, .len = 0x1000,
		.prot = 5, .mflags = 2 };
	struct ptrec_sb_comm comm = {
		.hdr = { .type = PTREC_SB_COMM, .time = 1000 },
		.pid = 100, .tid = 100, .comm = "demo" };
	struct ptrec_sb_switch sw = {
		.hdr = { .type = PTREC_SB_SWITCH_IN, .time = 1100 },
		.pid = 100, .tid = 100, .cpu = 0 };
	struct ptrec_sb_thread_start ts = {
		.hdr = { .type = PTREC_SB_THREAD_START, .time = 1500 },
		.pid = 100, .tid = 101, .parent_pid = 100, .parent_tid = 100,
		.clone_flags = 0x3d0f00 };
	struct ptrec_sb_signal sig = {
		.hdr = { .type = PTREC_SB_SIGNAL, .time = 2000 },
		.pid = 100, .tid = 101, .signo = 11, .code = 1, .addr = 0,
		.sflags = PTREC_SB_SIG_FATAL };
	struct ptrec_sb_thread_exit te = {
		.hdr = { .type = PTREC_SB_THREAD_EXIT, .time = 2001 },
		.pid = 100, .tid = 101, .exit_code = 0 };
	struct ptrec_sb_process_exit pe = {
		.hdr = { .type = PTREC_SB_PROCESS_EXIT, .time = 2002 },
		.pid = 100, .kind = PTREC_SB_KILLED, .status = 11 };
	struct sb_writer *w;
	int ret;

	ret = sb_bundle_open_sideband(b, &w, err);
	if (!ret)
		ret = sb_writer_add(w, &tm.hdr, err);
	if (!ret)
		ret = sb_writer_add_mmap(w, &mm, key, "/demo/prog", err);
	if (!ret)
		ret = sb_writer_add(w, &comm.hdr, err);
	if (!ret)
		ret = sb_writer_add(w, &sw.hdr, err);
	if (!ret)
		ret = sb_writer_add(w, &ts.hdr, err);
	if (!ret)
		ret = sb_writer_add(w, &sig.hdr, err);
	if (!ret)
		ret = sb_writer_add(w, &te.hdr, err);
	if (!ret)
		ret = sb_writer_add(w, &pe.hdr, err);
	return ret;
}

int main(int argc, char **argv)
{
	static const char *const cmd[] = { "/demo/prog", "--flag" };
	const struct sb_thread *t;
	char key[SB_IMAGE_KEY_MAX];
	struct sb_manifest *m;
	struct sb_bundle *b;
	struct sb_regs regs = { .tid = 100 };
	struct sb_process *p;
	struct sb_err err;
	uint32_t tid;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: mkbundle DIR\n");
		return 2;
	}
	ret = sb_bundle_create(&b, argv[1], &err);
	if (ret) {
		fprintf(stderr, "mkbundle: %s\n", err.msg);
		return 1;
	}
	m = sb_bundle_manifest(b);
	m->backend = strdup("emu");
	strcpy(m->cpu.vendor, "GenuineIntel");
	m->cpu.family = 6;
	m->cpu.model = 85;
	m->cpu.stepping = 4;
	m->pt.emulated = true;
	m->pt.features = SB_PT_USER | SB_PT_BRANCH | SB_PT_TSC |
			 SB_PT_RET_COMPRESSION;
	m->pt.psb_period = 4096;
	m->time.time_mult = 1;
	m->time.tsc_hz = 1000000000;
	m->start_ns = 1000;
	m->stop_ns = 2002;
	sb_manifest_set_argv(m, 2, cmd);
	p = sb_manifest_add_process(m);
	p->pid = 100;
	p->ppid = 1;
	p->exe = strdup("/demo/prog");
	ret = sb_bundle_add_image_mem(b, fake_image, sizeof(fake_image) - 1,
				      "/demo/prog", key, sizeof(key), &err);
	if (!ret)
		ret = add_sideband(b, key, &err);
	for (tid = 100; !ret && tid <= 101; tid++) {
		ret = sb_bundle_add_thread(b, 100, tid, false, &t);
		if (!ret)
			ret = write_file(b, t->pt, psb, sizeof(psb));
	}
	regs.valid = 1ull << SB_REG_RIP | 1ull << SB_REG_RSP;
	regs.val[SB_REG_RIP] = 0x401000;
	regs.val[SB_REG_RSP] = 0x7ffffffde000;
	if (!ret) {
		char path[4096];

		sb_bundle_path(b, "regs/100.json", path, sizeof(path));
		ret = sb_regs_save(&regs, path, &err);
	}
	if (!ret)
		ret = sb_bundle_finish(b, &err);
	sb_bundle_free(b);
	if (ret) {
		fprintf(stderr, "mkbundle: %s\n", ret == -1 ? "write failed" :
			err.msg);
		return 1;
	}
	return 0;
}
