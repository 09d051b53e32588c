// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Final register snapshots (regs/<tid>.json): register name to value, as a
 * hex string because 64-bit values do not fit a JSON number exactly.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const reg_names[SB_REG_COUNT] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	"rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs",
	"fs_base", "gs_base", "orig_rax",
};

#define REGS_FORMAT "ptrec-regs"
#define REGS_VERSION 1
#define REGS_MAX (64u << 10)

const char *sb_reg_name(unsigned int reg)
{
	return reg < SB_REG_COUNT ? reg_names[reg] : NULL;
}

int sb_regs_save(const struct sb_regs *regs, const char *path,
		 struct sb_err *err)
{
	json_t *root, *vals;
	char buf[24], *text;
	unsigned int i;
	int bad, ret;

	if (!regs || !path)
		return sb_fail(err, -EINVAL, "sb_regs_save: NULL argument");
	vals = json_object();
	bad = !vals;
	for (i = 0; !bad && i < SB_REG_COUNT; i++) {
		if (!(regs->valid & (1ull << i)))
			continue;
		snprintf(buf, sizeof(buf), "0x%" PRIx64, regs->val[i]);
		bad |= json_object_set_new(vals, reg_names[i], json_string(buf));
	}
	root = bad ? NULL : json_pack("{s:s, s:i, s:I, s:o}", "format",
				      REGS_FORMAT, "version", REGS_VERSION,
				      "tid", (json_int_t)regs->tid,
				      "registers", vals);
	if (!root) {
		if (bad)
			json_decref(vals);
		return sb_fail(err, -ENOMEM, "%s: out of memory", path);
	}
	text = json_dumps(root, JSON_INDENT(2));
	json_decref(root);
	if (!text)
		return sb_fail(err, -ENOMEM, "%s: out of memory", path);
	ret = sb_write_file_atomic(path, text, strlen(text), err);
	free(text);
	return ret;
}

static int regs_fail(struct sb_err *err, const char *path, const char *field,
		     const char *what)
{
	return sb_fail(err, -EBADMSG, "%s: field '%s': %s", path, field, what);
}

static int regs_parse(struct sb_regs *regs, char *text, size_t len,
		      const char *path, struct sb_err *err)
{
	json_t *root, *vals, *v;
	json_error_t jerr;
	const char *key;
	char *end;
	unsigned int i;
	int ret;

	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!root)
		return sb_fail(err, -EBADMSG,
			       "%s: byte offset %d (line %d, column %d): not valid JSON: %s",
			       path, jerr.position, jerr.line, jerr.column,
			       jerr.text);
	memset(regs, 0, sizeof(*regs));
	v = json_object_get(root, "format");
	if (!json_is_string(v) || strcmp(json_string_value(v), REGS_FORMAT)) {
		ret = regs_fail(err, path, "format", "not \"" REGS_FORMAT "\"");
		goto out_decref;
	}
	v = json_object_get(root, "version");
	if (!json_is_integer(v)) {
		ret = regs_fail(err, path, "version", "expected an integer");
		goto out_decref;
	}
	if (json_integer_value(v) != REGS_VERSION) {
		ret = sb_fail(err, -EPROTONOSUPPORT,
			      "%s: register snapshot version %lld, this ptrec reads version %d; %s",
			      path, (long long)json_integer_value(v),
			      REGS_VERSION,
			      json_integer_value(v) > REGS_VERSION ?
			      "upgrade ptrec to read it" :
			      "re-record it or use the ptrec release that wrote it");
		goto out_decref;
	}
	v = json_object_get(root, "tid");
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > UINT32_MAX) {
		ret = regs_fail(err, path, "tid", "expected a thread id");
		goto out_decref;
	}
	regs->tid = (uint32_t)json_integer_value(v);
	vals = json_object_get(root, "registers");
	if (!json_is_object(vals)) {
		ret = regs_fail(err, path, "registers", "expected an object");
		goto out_decref;
	}
	ret = 0;
	json_object_foreach(vals, key, v) {
		const char *s = json_string_value(v);
		uint64_t val;

		for (i = 0; i < SB_REG_COUNT; i++)
			if (!strcmp(key, reg_names[i]))
				break;
		if (i == SB_REG_COUNT)
			continue;	/* a register a newer writer knows */
		errno = 0;
		val = s && !strncmp(s, "0x", 2) ? strtoull(s, &end, 16) : 0;
		if (!s || strncmp(s, "0x", 2) || !s[2] || errno || *end) {
			ret = regs_fail(err, path, key,
					"expected a hex string like \"0x1f\"");
			goto out_decref;
		}
		regs->val[i] = val;
		regs->valid |= 1ull << i;
	}
out_decref:
	json_decref(root);
	return ret;
}

int sb_regs_load(struct sb_regs *regs, const char *path, struct sb_err *err)
{
	char *text;
	size_t len;
	int ret;

	if (!regs || !path)
		return sb_fail(err, -EINVAL, "sb_regs_load: NULL argument");
	ret = sb_read_file(path, REGS_MAX, &text, &len, err);
	if (ret)
		return ret;
	return regs_parse(regs, text, len, path, err);
}

int sb_regs_load_bundle(struct sb_regs *regs, const char *dir,
			const char *rel, const struct sb_manifest *m,
			struct sb_err *err)
{
	char path[4096];
	char *text;
	size_t len;
	int ret;

	if (!regs || !dir || !rel)
		return sb_fail(err, -EINVAL, "sb_regs_load_bundle: NULL argument");
	ret = sb_bundle_read_file(dir, rel, m, REGS_MAX, &text, &len, err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return regs_parse(regs, text, len, path, err);
}
