// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * manifest.json's parser (sb_manifest_parse): every rejection of bad text
 * with the exact errno and a message naming the file and the field or
 * byte offset, on a valid manifest mutated one field at a time.  Round
 * trips, saving and sb_manifest_load are test_manifest.c.
 */
#include <inttypes.h>
#include <jansson.h>

#include "helpers.h"

#define NAME "bundle-7/manifest.json"

TestSuite(manifest, .init = test_dir_setup, .fini = test_dir_teardown);

/* ---- helpers ------------------------------------------------------------ */

/* A minimal valid manifest; the bad-input tests mutate it with jansson. */
static const char valid_json[] =
	"{\"format\": \"ptrec-bundle\", \"format_version\": 1,"
	" \"producer\": \"ptrec test\", \"backend\": \"emu\","
	" \"cpu\": {\"vendor\": \"GenuineIntel\", \"family\": 6,"
	"  \"model\": 140, \"stepping\": 1},"
	" \"pt\": {\"emulated\": true, \"features\": [\"user\", \"tsc\"],"
	"  \"psb_period\": 4096, \"mtc_freq\": 3, \"nom_freq\": 28,"
	"  \"cpuid_15_eax\": 2, \"cpuid_15_ebx\": 168, \"cyc_thresh\": 1},"
	" \"time\": {\"time_shift\": 31, \"time_mult\": 1431655765,"
	"  \"time_zero\": \"18444502336406842448\", \"tsc_hz\": 2400000000},"
	" \"command\": [\"/bin/prog\", \"a b\"],"
	" \"cwd\": \"/tmp\", \"start_ns\": \"1700000000000000000\","
	" \"stop_ns\": 1700000001000000000,"
	" \"sideband\": \"sideband.sb\","
	" \"processes\": [{\"pid\": 100, \"ppid\": 1, \"exe\": \"/bin/prog\"}],"
	" \"threads\": [{\"pid\": 100, \"tid\": 100, \"pt\": \"pt/100.pt\","
	"  \"regs\": \"regs/100.json\", \"truth\": \"truth/100.gt\"}],"
	" \"images\": [{\"key\": \"sha256-00\", \"file\": \"images/sha256-00\","
	"  \"path\": \"/bin/prog\", \"size\": 3}],"
	" \"files\": [{\"path\": \"sideband.sb\", \"kind\": \"sideband\","
	"  \"size\": 32}, {\"path\": \"pt/100.pt\", \"kind\": \"pt\","
	"  \"size\": 10}]}";

static json_t *valid_root(void)
{
	json_error_t jerr;
	json_t *root = json_loads(valid_json, 0, &jerr);

	cr_assert_not_null(root, "valid_json: %s at %d", jerr.text,
			   jerr.position);
	return root;
}

/* The node at @path ("threads[0].pt"), or NULL. */
static json_t *walk(json_t *root, const char *path)
{
	char buf[128], *save = NULL, *seg;
	json_t *cur = root;

	snprintf(buf, sizeof(buf), "%s", path);
	for (seg = strtok_r(buf, ".", &save); seg && cur;
	     seg = strtok_r(NULL, ".", &save)) {
		char *br = strchr(seg, '[');

		if (br)
			*br = '\0';
		if (*seg)
			cur = json_object_get(cur, seg);
		while (br && cur) {
			size_t i = strtoul(br + 1, &br, 10);

			cur = json_array_get(cur, i);
			br = strchr(br, '[');
		}
	}
	return cur;
}

/*
 * Replaces (@v non-NULL; the reference is stolen) or deletes (@v NULL) the
 * member or element at @path.
 */
static void mutate(json_t *root, const char *path, json_t *v)
{
	char buf[128], *dot, *br, *last;
	json_t *parent;

	snprintf(buf, sizeof(buf), "%s", path);
	dot = strrchr(buf, '.');
	br = strrchr(buf, '[');
	if (br && (!dot || br > dot)) {
		*br = '\0';
		last = br + 1;
	} else if (dot) {
		*dot = '\0';
		last = dot + 1;
	} else {
		last = buf;
	}
	parent = last == buf ? root : walk(root, buf);
	cr_assert_not_null(parent, "no parent for %s", path);
	if (json_is_array(parent)) {
		size_t i = strtoul(last, NULL, 10);

		cr_assert(v ? !json_array_set_new(parent, i, v) :
			  !json_array_remove(parent, i), "%s", path);
	} else {
		cr_assert(json_is_object(parent), "%s", path);
		cr_assert(v ? !json_object_set_new(parent, last, v) :
			  !json_object_del(parent, last), "%s", path);
	}
}

/* Parses @root's text; returns the result and frees any manifest. */
static int parse_json(json_t *root, struct sb_manifest **mp,
		      struct sb_err *err)
{
	struct sb_manifest *m = NULL;
	char *text = json_dumps(root, JSON_COMPACT);
	int ret;

	cr_assert_not_null(text);
	err->msg[0] = '\0';
	ret = sb_manifest_parse(&m, text, strlen(text), NAME, err);
	free(text);
	if (mp)
		*mp = m;
	else
		sb_manifest_free(m);
	return ret;
}

/* Parses the valid manifest with @path replaced by the JSON @value (or
 * deleted when NULL) and expects -EBADMSG with @path and @what in the message.
 */
static void expect_bad(const char *path, const char *value,
		       const char *what)
{
	json_t *root = valid_root();
	struct sb_err err;
	json_error_t jerr;
	int ret;

	if (value) {
		json_t *v = json_loads(value, JSON_DECODE_ANY, &jerr);

		cr_assert_not_null(v, "%s: %s", value, jerr.text);
		mutate(root, path, v);
	} else {
		mutate(root, path, NULL);
	}
	ret = parse_json(root, NULL, &err);
	json_decref(root);
	cr_assert_eq(ret, -EBADMSG, "%s = %s: got %d (%s)", path,
		     value ? value : "(deleted)", ret, err.msg);
	assert_msg_has(&err, NAME);
	if (path[0]) {
		char field[160];

		snprintf(field, sizeof(field), "'%s'", path);
		assert_msg_has(&err, field);
	}
	if (what)
		assert_msg_has(&err, what);
}

/* Parses @text (length strlen) and expects @code with @want in the message. */
static void expect_text(const char *text, size_t len, int code,
			const char *want)
{
	struct sb_manifest *m = NULL;
	struct sb_err err = { "" };
	int ret;

	ret = sb_manifest_parse(&m, text, len, NAME, &err);
	cr_assert_eq(ret, code, "got %d (%s) for:\n%.200s", ret, err.msg, text);
	cr_assert_null(m);
	assert_msg_has(&err, NAME);
	if (want)
		assert_msg_has(&err, want);
}

/* ---- bad text ----------------------------------------------------------- */

/* Text that is not JSON, or is cut short, fails with its byte offset. */
Test(manifest, not_json)
{
	size_t half = (sizeof(valid_json) - 1) / 2;

	expect_text("this is not json", 16, -EBADMSG, "byte offset");
	expect_text("{\"format\": \"ptrec-bundle\", }", 28, -EBADMSG,
		    "byte offset");
	expect_text(valid_json, half, -EBADMSG, "byte offset");
	expect_text(valid_json, sizeof(valid_json) - 2, -EBADMSG,
		    "byte offset");
	expect_text("", 0, -EBADMSG, "byte offset");
}

/* JSON whose top level is not an object is rejected. */
Test(manifest, top_level_not_object)
{
	expect_text("[1, 2, 3]", 9, -EBADMSG, "top level");
	expect_text("\"ptrec-bundle\"", 14, -EBADMSG, "byte offset");
}

/* Deleting any required field fails with -EBADMSG naming its path. */
Test(manifest, missing_required_fields)
{
	static const char *const required[] = {
		"format", "format_version", "producer", "backend",
		"cpu", "cpu.vendor", "cpu.family", "cpu.model",
		"cpu.stepping", "pt", "pt.emulated", "pt.features",
		"time", "time.time_shift", "time.time_mult",
		"time.time_zero", "command", "sideband", "processes",
		"processes[0].pid", "threads", "threads[0].tid",
		"threads[0].pid", "threads[0].pt", "images",
		"images[0].key", "images[0].file", "images[0].size",
		"files", "files[0].path", "files[0].kind", "files[1].size",
	};
	size_t i;

	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		expect_bad(required[i], NULL, "missing");
	/* null counts as absent */
	expect_bad("backend", "null", "missing");
	expect_bad("threads[0].pt", "null", "missing");
}

/* Optional fields may be left out; the rest still parses. */
Test(manifest, optional_fields_absent)
{
	static const char *const optional[] = {
		"pt.psb_period", "pt.mtc_freq", "pt.nom_freq",
		"pt.cpuid_15_eax", "pt.cpuid_15_ebx", "pt.cyc_thresh",
		"time.tsc_hz", "cwd", "start_ns", "stop_ns",
		"processes[0].ppid", "processes[0].exe", "threads[0].regs",
		"threads[0].truth", "images[0].path",
	};
	size_t i;

	for (i = 0; i < sizeof(optional) / sizeof(optional[0]); i++) {
		json_t *root = valid_root();
		struct sb_manifest *m;
		struct sb_err err;
		int ret;

		mutate(root, optional[i], NULL);
		ret = parse_json(root, &m, &err);
		json_decref(root);
		cr_assert_eq(ret, 0, "without %s: %d %s", optional[i], ret,
			     err.msg);
		sb_manifest_free(m);
	}
}

/* Fields of the wrong type or range fail with -EBADMSG naming the field. */
Test(manifest, mistyped_fields)
{
	expect_bad("producer", "5", "expected a string");
	expect_bad("backend", "[\"emu\"]", "expected a string");
	expect_bad("cpu.vendor", "false", "expected a string");
	expect_bad("cpu.family", "\"six\"", "unsigned number");
	expect_bad("cpu.family", "-1", "negative");
	expect_bad("cpu.model", "4294967296", "out of range");
	expect_bad("cpu.stepping", "\"4294967296\"", "out of range");
	expect_bad("cpu.stepping", "1.5", "expected a number");
	expect_bad("cpu", "[]", "expected an object");
	expect_bad("pt", "\"tsc\"", "expected an object");
	expect_bad("pt.emulated", "\"yes\"", "true or false");
	expect_bad("pt.emulated", "1", "true or false");
	expect_bad("pt.features", "\"tsc\"", "expected an array");
	expect_bad("pt.features[1]", "3", "expected a string");
	expect_bad("pt.mtc_freq", "-3", "negative");
	expect_bad("pt.cyc_thresh", "{}", "expected a number");
	expect_bad("pt.psb_period", "\"-1\"", "unsigned number");
	expect_bad("time.time_shift", "64", "out of range");
	expect_bad("time.time_mult", "4294967296", "out of range");
	expect_bad("time.time_zero", "\"18446744073709551616\"",
		   "unsigned number");
	expect_bad("time.time_zero", "\"12abc\"", "unsigned number");
	expect_bad("time.time_zero", "\"\"", "unsigned number");
	expect_bad("time.time_zero", "\" 5\"", "unsigned number");
	expect_bad("time.time_zero", "\"+5\"", "unsigned number");
	expect_bad("time.time_zero", "\"0x\"", "unsigned number");
	expect_bad("time.tsc_hz", "true", "expected a number");
	expect_bad("start_ns", "-1", "negative");
	expect_bad("command", "\"/bin/prog a b\"", "expected an array");
	expect_bad("command[1]", "7", "expected a string");
	expect_bad("cwd", "1", "expected a string");
	expect_bad("sideband", "{}", "expected a string");
	expect_bad("processes", "{}", "expected an array");
	expect_bad("processes[0]", "100", "expected an object");
	expect_bad("processes[0].exe", "0", "expected a string");
	expect_bad("threads", "{\"pid\": 1}", "expected an array");
	expect_bad("threads[0]", "[]", "expected an object");
	expect_bad("threads[0].tid", "\"x\"", "unsigned number");
	expect_bad("threads[0].tid", "-100", "negative");
	expect_bad("threads[0].pid", "4294967296", "out of range");
	expect_bad("threads[0].pt", "1", "expected a string");
	expect_bad("images[0].size", "\"big\"", "unsigned number");
	expect_bad("images[0].key", "0", "expected a string");
	expect_bad("files[0].size", "-10", "negative");
	expect_bad("files[1].kind", "null", "missing");
}

/* A NUL inside a string is refused (jansson's default), with an offset. */
Test(manifest, nul_in_string)
{
	static const char text[] =
		"{\"format\": \"ptrec-bundle\", \"format_version\": 1,"
		" \"producer\": \"a\\u0000b\"}";

	expect_text(text, strlen(text), -EBADMSG, "byte offset");
}

/* Duplicate object keys are a syntax error with a byte offset. */
Test(manifest, duplicate_keys)
{
	static const char dup_top[] =
		"{\"producer\": \"first\", \"producer\": \"second\"}";
	static const char dup_nested[] =
		"{\"cpu\": {\"family\": 6, \"family\": 7}}";
	char *text;

	expect_text(dup_top, sizeof(dup_top) - 1, -EBADMSG, "byte offset");
	expect_text(dup_nested, sizeof(dup_nested) - 1, -EBADMSG,
		    "byte offset");
	/* a duplicate inside the otherwise valid manifest */
	cr_assert_neq(asprintf(&text, "{\"backend\": \"kmod\", %s",
			       valid_json + 1), -1);
	expect_text(text, strlen(text), -EBADMSG, "byte offset");
	free(text);
}

/* A thread tid or image key listed twice is rejected. */
Test(manifest, duplicate_tid_and_image)
{
	json_t *root = valid_root();
	struct sb_err err;
	json_t *t;
	int ret;

	t = json_deep_copy(walk(root, "threads[0]"));
	json_object_set_new(t, "pt", json_string("pt/other.pt"));
	cr_assert_eq(json_array_append_new(walk(root, "threads"), t), 0);
	ret = parse_json(root, NULL, &err);
	cr_assert_eq(ret, -EBADMSG, "%d %s", ret, err.msg);
	assert_msg_has(&err, NAME);
	assert_msg_has(&err, "'threads[1].tid'");
	json_decref(root);

	root = valid_root();
	t = json_deep_copy(walk(root, "images[0]"));
	cr_assert_eq(json_array_append_new(walk(root, "images"), t), 0);
	ret = parse_json(root, NULL, &err);
	cr_assert_eq(ret, -EBADMSG, "%d %s", ret, err.msg);
	assert_msg_has(&err, NAME);
	assert_msg_has(&err, "'images[1].key'");
	json_decref(root);
}

/* Paths that are absolute or leave the bundle are rejected. */
Test(manifest, unsafe_paths)
{
	static const char *const fields[] = {
		"sideband", "threads[0].pt", "threads[0].regs",
		"threads[0].truth", "images[0].file", "files[0].path",
	};
	static const char *const bad[] = {
		"\"/etc/passwd\"", "\"../x\"", "\"pt/../../x\"", "\"pt/..\"",
		"\"..\"", "\"\"", "\"pt//x\"", "\"/\"",
	};
	size_t i, j;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++)
			expect_bad(fields[i], bad[j], "relative");
}

/* Paths with dots that stay inside the bundle are fine. */
Test(manifest, safe_paths_with_dots)
{
	json_t *root = valid_root();
	struct sb_manifest *m;
	struct sb_err err;
	int ret;

	mutate(root, "threads[0].pt", json_string("pt/..hidden/x...pt"));
	mutate(root, "sideband", json_string("side.band..sb"));
	ret = parse_json(root, &m, &err);
	json_decref(root);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_str_eq(m->threads[0].pt, "pt/..hidden/x...pt");
	sb_manifest_free(m);
}

/* The format name must be "ptrec-bundle". */
Test(manifest, unknown_format_name)
{
	expect_bad("format", "\"ptrec-bundle2\"", "ptrec-bundle");
	expect_bad("format", "\"perf.data\"", "ptrec-bundle");
	expect_bad("format", "1", "expected a string");
}

/* Versions other than 1 and 2 fail with -EPROTONOSUPPORT; newer asks to
 * upgrade.
 */
Test(manifest, format_versions)
{
	static const struct {
		const char *value;
		const char *want;
	} cases[] = {
		{ "3", "upgrade ptrec" },
		{ "\"3\"", "upgrade ptrec" },
		{ "4294967295", "upgrade ptrec" },
		{ "0", "version 0" },
	};
	static const char v2[] =
		"{\"format\": \"ptrec-bundle\", \"format_version\": 3}";
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *root = valid_root();
		struct sb_err err;
		json_error_t jerr;
		int ret;

		mutate(root, "format_version",
		       json_loads(cases[i].value, JSON_DECODE_ANY, &jerr));
		ret = parse_json(root, NULL, &err);
		json_decref(root);
		cr_assert_eq(ret, -EPROTONOSUPPORT, "%s: %d %s",
			     cases[i].value, ret, err.msg);
		assert_msg_has(&err, NAME);
		assert_msg_has(&err, cases[i].want);
	}
	/* a newer version is reported even if the rest is unreadable */
	expect_text(v2, strlen(v2), -EPROTONOSUPPORT, "upgrade ptrec");
	expect_bad("format_version", "\"one\"", "unsigned number");
	expect_bad("format_version", "-1", "negative");
}

/* Feature names this version does not know are ignored. */
Test(manifest, unknown_features_ignored)
{
	json_t *root = valid_root();
	struct sb_manifest *m;
	struct sb_err err;
	int ret;

	mutate(root, "pt.features",
	       json_pack("[s, s, s, s]", "tsc", "quantum_tunnel", "branch",
			 "TSC"));
	ret = parse_json(root, &m, &err);
	json_decref(root);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_eq(m->pt.features, SB_PT_TSC | SB_PT_BRANCH);
	sb_manifest_free(m);
}

/* A u64 may be a JSON integer or a decimal or 0x-hex string. */
Test(manifest, u64_forms)
{
	static const struct {
		const char *value;
		uint64_t want;
	} cases[] = {
		{ "\"0x10\"", 16 },
		{ "16", 16 },
		{ "\"16\"", 16 },
		{ "0", 0 },
		{ "\"0\"", 0 },
		{ "\"0xffffffffffffffff\"", UINT64_MAX },
		{ "\"18446744073709551615\"", UINT64_MAX },
		{ "9223372036854775807", INT64_MAX },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *root = valid_root();
		struct sb_manifest *m;
		struct sb_err err;
		json_error_t jerr;
		int ret;

		mutate(root, "time.time_zero",
		       json_loads(cases[i].value, JSON_DECODE_ANY, &jerr));
		mutate(root, "start_ns",
		       json_loads(cases[i].value, JSON_DECODE_ANY, &jerr));
		mutate(root, "files[0].size",
		       json_loads(cases[i].value, JSON_DECODE_ANY, &jerr));
		ret = parse_json(root, &m, &err);
		json_decref(root);
		cr_assert_eq(ret, 0, "%s: %d %s", cases[i].value, ret,
			     err.msg);
		cr_assert_eq(m->time.time_zero, cases[i].want, "%s",
			     cases[i].value);
		cr_assert_eq(m->start_ns, cases[i].want, "%s", cases[i].value);
		cr_assert_eq(m->files[0].size, cases[i].want, "%s",
			     cases[i].value);
		sb_manifest_free(m);
	}
	/* u32 fields take the same forms */
	{
		json_t *root = valid_root();
		struct sb_manifest *m;
		struct sb_err err;
		int ret;

		mutate(root, "cpu.model", json_string("0x8c"));
		mutate(root, "threads[0].tid", json_string("4294967295"));
		ret = parse_json(root, &m, &err);
		json_decref(root);
		cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
		cr_assert_eq(m->cpu.model, 0x8c);
		cr_assert_eq(m->threads[0].tid, UINT32_MAX);
		sb_manifest_free(m);
	}
}

/*
 * Regression (fixed): get_u64() parsed strings with strtoull(s, &end, 0), so a decimal
 * string with a leading zero is read as octal ("010" gives 8, "09" is
 * rejected), although the format is "decimal or 0x-hex".
 */
Test(manifest, u64_decimal_leading_zero)
{
	json_t *root = valid_root();
	struct sb_manifest *m;
	struct sb_err err;
	int ret;

	mutate(root, "time.time_zero", json_string("010"));
	mutate(root, "start_ns", json_string("09"));
	ret = parse_json(root, &m, &err);
	json_decref(root);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_eq(m->time.time_zero, 10);
	cr_assert_eq(m->start_ns, 9);
	sb_manifest_free(m);
}

/*
 * Regression (fixed): get_u64() rejected a leading space but strtoull() skips any other
 * leading white space, so "\t5" and "\n5" are accepted as 5.
 */
Test(manifest, u64_leading_whitespace)
{
	expect_bad("time.time_zero", "\"\\t5\"", "unsigned number");
	expect_bad("time.time_zero", "\"\\n5\"", "unsigned number");
}

/* The parser reads exactly @len bytes: text without a terminating NUL. */
Test(manifest, parse_unterminated_buffer)
{
	size_t len = sizeof(valid_json) - 1;
	struct sb_manifest *m = NULL;
	struct sb_err err = { "" };
	char *buf = malloc(len);
	int ret;

	cr_assert_not_null(buf);
	memcpy(buf, valid_json, len);
	ret = sb_manifest_parse(&m, buf, len, NAME, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_str_eq(m->producer, "ptrec test");
	cr_assert_eq(m->time.time_zero, 18444502336406842448ull);
	cr_assert_eq(m->time.tsc_hz, 2400000000ull);
	cr_assert_eq(m->stop_ns, 1700000001000000000ull);
	cr_assert_eq(m->pt.features, SB_PT_USER | SB_PT_TSC);
	cr_assert_eq(m->nthreads, 1);
	cr_assert_eq(m->nfiles, 2);
	sb_manifest_free(m);
	free(buf);
}
