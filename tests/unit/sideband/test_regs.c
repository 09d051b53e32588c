// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Register snapshots: sb_regs_save/sb_regs_load round trips, rejection of
 * bad files with the exact errno and a message naming the file and the
 * register, and sb_reg_name.
 */
#include <inttypes.h>

#include "helpers.h"

TestSuite(regs, .init = test_dir_setup, .fini = test_dir_teardown);

#define ALL_VALID ((1ull << SB_REG_COUNT) - 1)

static void save(const struct sb_regs *regs, const char *path)
{
	struct sb_err err = { "" };
	int ret;

	ret = sb_regs_save(regs, path, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
}

static void load_ok(struct sb_regs *regs, const char *path)
{
	struct sb_err err = { "" };
	int ret;

	ret = sb_regs_load(regs, path, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
}

/* Writes @text to test_dir/regs.json and expects sb_regs_load to fail with
 * @code, naming the file and @want.
 */
static void expect_text(const char *text, int code, const char *want)
{
	struct sb_err err = { "" };
	struct sb_regs regs;
	char path[4096];
	int ret;

	write_text(tpath(path, sizeof(path), "regs.json"), text);
	ret = sb_regs_load(&regs, path, &err);
	cr_assert_eq(ret, code, "got %d (%s) for %s", ret, err.msg, text);
	assert_msg_has(&err, path);
	if (want)
		assert_msg_has(&err, want);
}

/* A snapshot with one register set to @value. */
static void expect_reg_value(const char *reg, const char *value)
{
	char text[512], want[64];

	snprintf(text, sizeof(text),
		 "{\"format\": \"ptrec-regs\", \"version\": 1, \"tid\": 7,"
		 " \"registers\": {\"rax\": \"0x1\", \"%s\": %s}}", reg, value);
	snprintf(want, sizeof(want), "'%s'", reg);
	expect_text(text, -EBADMSG, want);
}

/* ---- round trips -------------------------------------------------------- */

/* Every register, with extreme values, survives save + load. */
Test(regs, round_trip_all)
{
	struct sb_regs regs, back;
	char path[4096];
	unsigned int i;

	memset(&regs, 0, sizeof(regs));
	regs.tid = UINT32_MAX;
	regs.valid = ALL_VALID;
	for (i = 0; i < SB_REG_COUNT; i++) {
		switch (i % 4) {
		case 0:
			regs.val[i] = UINT64_MAX;
			break;
		case 1:
			regs.val[i] = 0;
			break;
		case 2:
			regs.val[i] = 0x8000000000000000ull >> i;
			break;
		default:
			regs.val[i] = 0x0123456789abcdefull + i;
			break;
		}
	}
	save(&regs, tpath(path, sizeof(path), "regs.json"));
	memset(&back, 0xa5, sizeof(back));
	load_ok(&back, path);
	cr_assert_eq(back.tid, UINT32_MAX);
	cr_assert_eq(back.valid, ALL_VALID, "valid %#" PRIx64, back.valid);
	for (i = 0; i < SB_REG_COUNT; i++)
		cr_assert_eq(back.val[i], regs.val[i],
			     "%s: %#" PRIx64 " vs %#" PRIx64, sb_reg_name(i),
			     back.val[i], regs.val[i]);
	cr_assert_not(file_exists(tpath(path, sizeof(path), "regs.json.tmp")));
}

/* Every register alone, at 0 and at all ones. */
Test(regs, round_trip_each_register)
{
	struct sb_regs regs, back;
	char path[4096];
	unsigned int i, j;

	tpath(path, sizeof(path), "one.json");
	for (i = 0; i < SB_REG_COUNT; i++) {
		for (j = 0; j < 2; j++) {
			memset(&regs, 0, sizeof(regs));
			regs.tid = i;
			regs.valid = 1ull << i;
			regs.val[i] = j ? UINT64_MAX : 0;
			save(&regs, path);
			load_ok(&back, path);
			cr_assert_eq(back.tid, i);
			cr_assert_eq(back.valid, 1ull << i, "%s",
				     sb_reg_name(i));
			cr_assert_eq(back.val[i], regs.val[i], "%s",
				     sb_reg_name(i));
		}
	}
}

/* Registers not marked valid are not written and come back not valid. */
Test(regs, round_trip_partial)
{
	struct sb_regs regs, back;
	char path[4096], *text;
	uint64_t valid;
	unsigned int i;

	memset(&regs, 0, sizeof(regs));
	regs.tid = 4242;
	for (i = 0; i < SB_REG_COUNT; i++)
		regs.val[i] = 0xdead0000 + i;
	valid = 1ull << SB_REG_RIP | 1ull << SB_REG_RSP |
		1ull << SB_REG_EFLAGS | 1ull << SB_REG_ORIG_RAX;
	regs.valid = valid;
	save(&regs, tpath(path, sizeof(path), "regs.json"));
	text = read_bytes(path, NULL);
	cr_assert_null(strstr(text, "\"rax\""), "%s", text);
	cr_assert_not_null(strstr(text, "\"rip\""), "%s", text);
	free(text);
	load_ok(&back, path);
	cr_assert_eq(back.tid, 4242);
	cr_assert_eq(back.valid, valid, "valid %#" PRIx64, back.valid);
	cr_assert_eq(back.val[SB_REG_RIP], 0xdead0000 + SB_REG_RIP);
	cr_assert_eq(back.val[SB_REG_RSP], 0xdead0000 + SB_REG_RSP);
	cr_assert_eq(back.val[SB_REG_EFLAGS], 0xdead0000 + SB_REG_EFLAGS);
	cr_assert_eq(back.val[SB_REG_ORIG_RAX], 0xdead0000 + SB_REG_ORIG_RAX);

	/* nothing valid at all */
	regs.valid = 0;
	save(&regs, path);
	load_ok(&back, path);
	cr_assert_eq(back.valid, 0);
	cr_assert_eq(back.tid, 4242);
}

/* A hand-written snapshot in the documented form loads. */
Test(regs, load_hand_written)
{
	struct sb_regs back;
	char path[4096];

	write_text(tpath(path, sizeof(path), "regs.json"),
		   "{\"format\": \"ptrec-regs\", \"version\": 1, \"tid\": 12,"
		   " \"registers\": {\"rip\": \"0x401000\","
		   " \"eflags\": \"0x246\", \"fs_base\": \"0xFFFF\","
		   " \"r15\": \"0x0\"}}");
	load_ok(&back, path);
	cr_assert_eq(back.tid, 12);
	cr_assert_eq(back.valid, 1ull << SB_REG_RIP | 1ull << SB_REG_EFLAGS |
		     1ull << SB_REG_FS_BASE | 1ull << SB_REG_R15);
	cr_assert_eq(back.val[SB_REG_RIP], 0x401000);
	cr_assert_eq(back.val[SB_REG_EFLAGS], 0x246);
	cr_assert_eq(back.val[SB_REG_FS_BASE], 0xffff);
	cr_assert_eq(back.val[SB_REG_R15], 0);
}

/* Register names this version does not know are ignored. */
Test(regs, unknown_registers_ignored)
{
	struct sb_regs back;
	char path[4096];

	write_text(tpath(path, sizeof(path), "regs.json"),
		   "{\"format\": \"ptrec-regs\", \"version\": 1, \"tid\": 3,"
		   " \"registers\": {\"rip\": \"0x1\", \"ymm0\": \"0x5\","
		   " \"k7\": 12, \"RAX\": \"zz\", \"rax\": \"0x2\"},"
		   " \"comment\": \"from the future\"}");
	load_ok(&back, path);
	cr_assert_eq(back.valid, 1ull << SB_REG_RIP | 1ull << SB_REG_RAX);
	cr_assert_eq(back.val[SB_REG_RIP], 1);
	cr_assert_eq(back.val[SB_REG_RAX], 2);
}

/* ---- bad files ---------------------------------------------------------- */

/* Text that is not JSON fails with its byte offset. */
Test(regs, not_json)
{
	expect_text("registers: rip=0x1", -EBADMSG, "byte offset");
	expect_text("{\"format\": \"ptrec-regs\", ", -EBADMSG, "byte offset");
	expect_text("", -EBADMSG, "byte offset");
	expect_text("{\"tid\": 1, \"tid\": 2}", -EBADMSG, "byte offset");
}

/* The format name must be "ptrec-regs". */
Test(regs, wrong_format)
{
	expect_text("{\"format\": \"ptrec-bundle\", \"version\": 1,"
		    " \"tid\": 1, \"registers\": {}}", -EBADMSG, "'format'");
	expect_text("{\"version\": 1, \"tid\": 1, \"registers\": {}}",
		    -EBADMSG, "'format'");
	expect_text("[]", -EBADMSG, "'format'");
}

/* Another version fails with -EPROTONOSUPPORT. */
Test(regs, other_versions)
{
	expect_text("{\"format\": \"ptrec-regs\", \"version\": 2,"
		    " \"tid\": 1, \"registers\": {}}", -EPROTONOSUPPORT,
		    "version");
	expect_text("{\"format\": \"ptrec-regs\", \"version\": 0,"
		    " \"tid\": 1, \"registers\": {}}", -EPROTONOSUPPORT,
		    "version");
}

/* A bad tid or registers member fails with -EBADMSG naming it. */
Test(regs, bad_members)
{
	expect_text("{\"format\": \"ptrec-regs\", \"version\": 1,"
		    " \"tid\": -1, \"registers\": {}}", -EBADMSG, "'tid'");
	expect_text("{\"format\": \"ptrec-regs\", \"version\": 1,"
		    " \"tid\": 4294967296, \"registers\": {}}", -EBADMSG,
		    "'tid'");
	expect_text("{\"format\": \"ptrec-regs\", \"version\": 1,"
		    " \"tid\": \"1\", \"registers\": {}}", -EBADMSG, "'tid'");
	expect_text("{\"format\": \"ptrec-regs\", \"version\": 1,"
		    " \"registers\": {}}", -EBADMSG, "'tid'");
	expect_text("{\"format\": \"ptrec-regs\", \"version\": 1,"
		    " \"tid\": 1, \"registers\": []}", -EBADMSG,
		    "'registers'");
	expect_text("{\"format\": \"ptrec-regs\", \"version\": 1,"
		    " \"tid\": 1}", -EBADMSG, "'registers'");
}

/* A register value that is not a "0x" hex string naming a u64 fails with
 * -EBADMSG naming the register.
 */
Test(regs, bad_register_values)
{
	expect_reg_value("rip", "\"0xzz\"");
	expect_reg_value("rip", "\"0x12g4\"");
	expect_reg_value("rsp", "\"401000\"");
	expect_reg_value("rsp", "\"x401000\"");
	expect_reg_value("rbp", "\"0x\"");
	expect_reg_value("rbp", "\"\"");
	expect_reg_value("r8", "\"0x10000000000000000\"");
	expect_reg_value("r8", "\"0xffffffffffffffff0\"");
	expect_reg_value("eflags", "582");
	expect_reg_value("eflags", "null");
	expect_reg_value("gs", "true");
	expect_reg_value("fs_base", "[\"0x1\"]");
	expect_reg_value("orig_rax", "\"-0x1\"");
	expect_reg_value("orig_rax", "\"0x-1\"");
	expect_reg_value("cs", "\"0x 1\"");
	expect_reg_value("cs", "\"0x1 \"");
}

/* A missing file fails with -ENOENT naming it. */
Test(regs, missing_file)
{
	struct sb_err err = { "" };
	struct sb_regs regs;
	char path[4096];

	tpath(path, sizeof(path), "none.json");
	cr_assert_eq(sb_regs_load(&regs, path, &err), -ENOENT);
	assert_msg_has(&err, path);
}

/* Files above 64 KiB are refused with -EFBIG; 64 KiB exactly is read. */
Test(regs, size_limit)
{
	static const char head[] =
		"{\"format\": \"ptrec-regs\", \"version\": 1, \"tid\": 9,"
		" \"registers\": {\"rip\": \"0x1\"}}";
	size_t limit = 64u << 10;
	struct sb_err err = { "" };
	struct sb_regs regs;
	char path[4096], *text;
	int ret;

	text = malloc(limit + 1);
	cr_assert_not_null(text);
	memset(text, ' ', limit + 1);
	memcpy(text, head, sizeof(head) - 1);
	tpath(path, sizeof(path), "big.json");
	write_bytes(path, text, limit);
	load_ok(&regs, path);
	cr_assert_eq(regs.tid, 9);
	cr_assert_eq(regs.val[SB_REG_RIP], 1);

	write_bytes(path, text, limit + 1);
	ret = sb_regs_load(&regs, path, &err);
	cr_assert_eq(ret, -EFBIG, "%d %s", ret, err.msg);
	assert_msg_has(&err, path);
	free(text);
}

/* Saving into a missing directory reports the errno. */
Test(regs, save_error)
{
	struct sb_err err = { "" };
	struct sb_regs regs = { .tid = 1 };
	char path[4096];
	int ret;

	ret = sb_regs_save(&regs, tpath(path, sizeof(path), "no/regs.json"),
			   &err);
	cr_assert_eq(ret, -ENOENT, "%d %s", ret, err.msg);
	assert_msg_has(&err, "no/regs.json");
}

/* ---- names -------------------------------------------------------------- */

/* GDB's names, in GDB's amd64 order; out of range gives NULL. */
Test(regs, names)
{
	static const char *const want[SB_REG_COUNT] = {
		"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
		"rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs",
		"fs_base", "gs_base", "orig_rax",
	};
	unsigned int i;

	cr_assert_str_eq(sb_reg_name(SB_REG_RIP), "rip");
	cr_assert_str_eq(sb_reg_name(SB_REG_RAX), "rax");
	cr_assert_str_eq(sb_reg_name(SB_REG_ORIG_RAX), "orig_rax");
	for (i = 0; i < SB_REG_COUNT; i++) {
		cr_assert_not_null(sb_reg_name(i), "%u", i);
		cr_assert_str_eq(sb_reg_name(i), want[i], "%u", i);
	}
	cr_assert_null(sb_reg_name(SB_REG_COUNT));
	cr_assert_null(sb_reg_name(SB_REG_COUNT + 1));
	cr_assert_null(sb_reg_name(~0u));
	cr_assert_lt(SB_REG_COUNT, 64, "valid is a 64-bit mask");
}
