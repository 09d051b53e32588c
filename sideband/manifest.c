// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * manifest.json: load, check and save, with jansson (docs/bundle-format.md,
 * "Why jansson").  Every failure names the file and the JSON field, or the
 * byte offset of a syntax error.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define FORMAT_NAME "ptrec-bundle"

static const char *const feature_names[] = {
	"user", "kernel", "branch", "tsc", "mtc", "cyc", "ret_compression",
	"ptwrite", "pwr_evt", "cr3_filter", "ip_filter",
};

const char *sb_pt_feature_name(uint32_t bit)
{
	unsigned int i;

	for (i = 0; i < SB_ARRAY_SIZE(feature_names); i++)
		if (bit == 1u << i)
			return feature_names[i];
	return NULL;
}

/* ---- building --------------------------------------------------------- */

struct sb_manifest *sb_manifest_new(void)
{
	struct sb_manifest *m = calloc(1, sizeof(*m));

	if (m)
		m->format_version = SB_BUNDLE_VERSION;
	return m;
}

void sb_manifest_free(struct sb_manifest *m)
{
	size_t i;

	if (!m)
		return;
	free(m->producer);
	free(m->backend);
	for (i = 0; i < m->argc; i++)
		free(m->argv[i]);
	free(m->argv);
	free(m->cwd);
	free(m->sideband);
	free(m->snapshot);
	for (i = 0; i < m->nprocs; i++)
		free(m->procs[i].exe);
	free(m->procs);
	for (i = 0; i < m->nthreads; i++) {
		free(m->threads[i].pt);
		free(m->threads[i].regs);
		free(m->threads[i].truth);
	}
	free(m->threads);
	for (i = 0; i < m->nimages; i++) {
		free(m->images[i].key);
		free(m->images[i].file);
		free(m->images[i].path);
	}
	free(m->images);
	for (i = 0; i < m->nfiles; i++) {
		free(m->files[i].path);
		free(m->files[i].kind);
	}
	free(m->files);
	free(m);
}

/* Appends one zeroed element to a manifest array. */
static void *grow(void **arr, size_t *n, size_t elem)
{
	void *p;

	if (*n >= SIZE_MAX / elem - 1)
		return NULL;
	p = realloc(*arr, (*n + 1) * elem);
	if (!p)
		return NULL;
	*arr = p;
	p = (char *)p + *n * elem;
	memset(p, 0, elem);
	(*n)++;
	return p;
}

struct sb_process *sb_manifest_add_process(struct sb_manifest *m)
{
	return grow((void **)&m->procs, &m->nprocs, sizeof(*m->procs));
}

struct sb_thread *sb_manifest_add_thread(struct sb_manifest *m)
{
	return grow((void **)&m->threads, &m->nthreads, sizeof(*m->threads));
}

struct sb_image *sb_manifest_add_image(struct sb_manifest *m)
{
	return grow((void **)&m->images, &m->nimages, sizeof(*m->images));
}

struct sb_file *sb_manifest_add_file(struct sb_manifest *m)
{
	return grow((void **)&m->files, &m->nfiles, sizeof(*m->files));
}

int sb_manifest_set_argv(struct sb_manifest *m, int argc,
			 const char *const *argv)
{
	char **v;
	int i;

	v = calloc((size_t)argc + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < argc; i++) {
		v[i] = strdup(argv[i]);
		if (!v[i]) {
			while (i--)
				free(v[i]);
			free(v);
			return -ENOMEM;
		}
	}
	for (i = 0; i < (int)m->argc; i++)
		free(m->argv[i]);
	free(m->argv);
	m->argv = v;
	m->argc = (size_t)argc;
	return 0;
}

const struct sb_thread *sb_manifest_thread(const struct sb_manifest *m,
					   uint32_t tid)
{
	size_t i;

	for (i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid == tid)
			return &m->threads[i];
	return NULL;
}

const struct sb_image *sb_manifest_image(const struct sb_manifest *m,
					 const char *key)
{
	size_t i;

	for (i = 0; i < m->nimages; i++)
		if (!strcmp(m->images[i].key, key))
			return &m->images[i];
	return NULL;
}

/* ---- parsing ---------------------------------------------------------- */

/* Where we are, for messages: file name and the JSON path of the object. */
struct ctx {
	const char *name;
	struct sb_err *err;
	char where[128];
};

static int field_fail(const struct ctx *c, const char *key, const char *what)
{
	return sb_fail(c->err, -EBADMSG, "%s: field '%s%s%s': %s", c->name,
		       c->where, *c->where ? "." : "", key, what);
}

/* Finds @key in @obj; a missing required field is an error. */
static int get(const struct ctx *c, json_t *obj, const char *key,
	       bool required, json_t **out)
{
	*out = json_object_get(obj, key);
	if (!*out || json_is_null(*out)) {
		*out = NULL;
		return required ? field_fail(c, key, "missing") : 0;
	}
	return 0;
}

static int get_str(const struct ctx *c, json_t *obj, const char *key,
		   bool required, char **out)
{
	json_t *v;
	int ret = get(c, obj, key, required, &v);

	if (ret || !v)
		return ret;
	if (!json_is_string(v))
		return field_fail(c, key, "expected a string");
	if (strlen(json_string_value(v)) != json_string_length(v))
		return field_fail(c, key, "string holds a NUL byte");
	*out = strdup(json_string_value(v));
	return *out ? 0 : sb_fail(c->err, -ENOMEM, "out of memory");
}

/* A relative path inside the bundle. */
static int get_path(const struct ctx *c, json_t *obj, const char *key,
		    bool required, char **out)
{
	int ret = get_str(c, obj, key, required, out);

	if (ret || !*out)
		return ret;
	if (!sb_path_is_safe(*out))
		return field_fail(c, key,
				  "path must be relative and stay inside the bundle");
	return 0;
}

/*
 * Parses exactly "[0-9]+" (decimal, leading zeros allowed) or
 * "0x[0-9a-fA-F]+", nothing else: strtoull() alone would also take octal,
 * signs and leading white space.  Returns 0, or -1 on bad text or overflow.
 */
static int parse_u64(const char *s, uint64_t *out)
{
	unsigned int base = 10, d;
	uint64_t v = 0;

	if (s[0] == '0' && s[1] == 'x') {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			return -1;
		if (v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* Unsigned 64-bit values: a JSON integer, or a string in decimal or 0x-hex
 * for values a JSON number cannot hold exactly.
 */
static int get_u64(const struct ctx *c, json_t *obj, const char *key,
		   bool required, uint64_t max, uint64_t *out)
{
	json_t *v;
	uint64_t val;
	int ret = get(c, obj, key, required, &v);

	if (ret || !v)
		return ret;
	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return field_fail(c, key, "must not be negative");
		val = (uint64_t)json_integer_value(v);
	} else if (json_is_string(v)) {
		if (parse_u64(json_string_value(v), &val))
			return field_fail(c, key, "expected an unsigned number");
	} else {
		return field_fail(c, key, "expected a number");
	}
	if (val > max)
		return field_fail(c, key, "value out of range");
	*out = val;
	return 0;
}

static int get_u32(const struct ctx *c, json_t *obj, const char *key,
		   bool required, uint32_t *out)
{
	uint64_t v = *out;
	int ret = get_u64(c, obj, key, required, UINT32_MAX, &v);

	*out = (uint32_t)v;
	return ret;
}

static int get_bool(const struct ctx *c, json_t *obj, const char *key,
		    bool required, bool *out)
{
	json_t *v;
	int ret = get(c, obj, key, required, &v);

	if (ret || !v)
		return ret;
	if (!json_is_boolean(v))
		return field_fail(c, key, "expected true or false");
	*out = json_is_true(v);
	return 0;
}

/* An object or array member; sets c2 to describe it. */
static int get_typed(const struct ctx *c, json_t *obj, const char *key,
		     bool required, bool array, json_t **out, struct ctx *c2)
{
	int ret = get(c, obj, key, required, out);

	if (ret || !*out)
		return ret;
	if (array ? !json_is_array(*out) : !json_is_object(*out))
		return field_fail(c, key, array ? "expected an array" :
					   "expected an object");
	if (c2) {
		*c2 = *c;
		/* A truncated path in a message is acceptable. */
		if (snprintf(c2->where, sizeof(c2->where), "%s%s%s", c->where,
			     *c->where ? "." : "", key) < 0)
			c2->where[0] = '\0';
	}
	return 0;
}

/* Context for element @i of the array described by @c. */
static int element(const struct ctx *c, json_t *arr, size_t i, json_t **out,
		   struct ctx *c2)
{
	*c2 = *c;
	if (snprintf(c2->where, sizeof(c2->where), "%s[%zu]", c->where, i) < 0)
		c2->where[0] = '\0';
	*out = json_array_get(arr, i);
	if (!json_is_object(*out)) {
		return sb_fail(c->err, -EBADMSG, "%s: field '%s': expected an object",
			       c->name, c2->where);
	}
	return 0;
}

static int parse_cpu(const struct ctx *c, json_t *root, struct sb_manifest *m)
{
	struct ctx cc;
	json_t *o;
	char *vendor = NULL;
	int ret;

	ret = get_typed(c, root, "cpu", true, false, &o, &cc);
	if (ret)
		return ret;
	ret = get_str(&cc, o, "vendor", true, &vendor);
	if (ret)
		return ret;
	if (strlen(vendor) >= sizeof(m->cpu.vendor)) {
		free(vendor);
		return field_fail(&cc, "vendor", "longer than 15 bytes");
	}
	snprintf(m->cpu.vendor, sizeof(m->cpu.vendor), "%s", vendor);
	free(vendor);
	ret = get_u32(&cc, o, "family", true, &m->cpu.family);
	if (!ret)
		ret = get_u32(&cc, o, "model", true, &m->cpu.model);
	if (!ret)
		ret = get_u32(&cc, o, "stepping", true, &m->cpu.stepping);
	return ret;
}

static int parse_pt(const struct ctx *c, json_t *root, struct sb_manifest *m)
{
	struct sb_pt_config *pt = &m->pt;
	struct ctx cc, fc;
	json_t *o, *feats, *f;
	size_t i, j;
	int ret;

	ret = get_typed(c, root, "pt", true, false, &o, &cc);
	if (!ret)
		ret = get_bool(&cc, o, "emulated", true, &pt->emulated);
	if (!ret)
		ret = get_typed(&cc, o, "features", true, true, &feats, &fc);
	if (ret)
		return ret;
	json_array_foreach(feats, i, f) {
		const char *s = json_string_value(f);

		if (!s)
			return sb_fail(c->err, -EBADMSG,
				       "%s: field '%s[%zu]': expected a string",
				       c->name, fc.where, i);
		/* Names from newer writers that we do not know are ignored. */
		for (j = 0; j < SB_ARRAY_SIZE(feature_names); j++)
			if (!strcmp(s, feature_names[j]))
				pt->features |= 1u << j;
	}
	ret = get_u64(&cc, o, "psb_period", false, UINT64_MAX, &pt->psb_period);
	if (!ret)
		ret = get_u32(&cc, o, "mtc_freq", false, &pt->mtc_freq);
	if (!ret)
		ret = get_u32(&cc, o, "nom_freq", false, &pt->nom_freq);
	if (!ret)
		ret = get_u32(&cc, o, "cpuid_15_eax", false, &pt->cpuid_15_eax);
	if (!ret)
		ret = get_u32(&cc, o, "cpuid_15_ebx", false, &pt->cpuid_15_ebx);
	if (!ret)
		ret = get_u32(&cc, o, "cyc_thresh", false, &pt->cyc_thresh);
	return ret;
}

static int parse_time(const struct ctx *c, json_t *root, struct sb_manifest *m)
{
	struct ctx cc;
	uint64_t shift = 0;
	json_t *o;
	int ret;

	ret = get_typed(c, root, "time", true, false, &o, &cc);
	if (!ret)
		ret = get_u64(&cc, o, "time_shift", true, 63, &shift);
	m->time.time_shift = (uint16_t)shift;
	if (!ret)
		ret = get_u32(&cc, o, "time_mult", true, &m->time.time_mult);
	if (!ret)
		ret = get_u64(&cc, o, "time_zero", true, UINT64_MAX,
			      &m->time.time_zero);
	if (!ret)
		ret = get_u64(&cc, o, "tsc_hz", false, UINT64_MAX,
			      &m->time.tsc_hz);
	return ret;
}

static int parse_command(const struct ctx *c, json_t *root,
			 struct sb_manifest *m)
{
	json_t *arr, *v;
	size_t i, n;
	int ret;

	ret = get_typed(c, root, "command", true, true, &arr, NULL);
	if (ret)
		return ret;
	n = json_array_size(arr);
	m->argv = calloc(n + 1, sizeof(*m->argv));
	if (!m->argv)
		return sb_fail(c->err, -ENOMEM, "out of memory");
	json_array_foreach(arr, i, v) {
		if (!json_is_string(v) ||
		    strlen(json_string_value(v)) != json_string_length(v))
			return sb_fail(c->err, -EBADMSG,
				       "%s: field 'command[%zu]': expected a string without NUL bytes",
				       c->name, i);
		m->argv[i] = strdup(json_string_value(v));
		if (!m->argv[i])
			return sb_fail(c->err, -ENOMEM, "out of memory");
		m->argc = i + 1;
	}
	return 0;
}

static int parse_procs(const struct ctx *c, json_t *root,
		       struct sb_manifest *m)
{
	struct ctx ac, ec;
	json_t *arr, *o;
	size_t i;
	int ret;

	ret = get_typed(c, root, "processes", true, true, &arr, &ac);
	for (i = 0; !ret && i < json_array_size(arr); i++) {
		struct sb_process *p;

		ret = element(&ac, arr, i, &o, &ec);
		if (ret)
			break;
		p = sb_manifest_add_process(m);
		if (!p)
			return sb_fail(c->err, -ENOMEM, "out of memory");
		ret = get_u32(&ec, o, "pid", true, &p->pid);
		if (!ret)
			ret = get_u32(&ec, o, "ppid", false, &p->ppid);
		if (!ret)
			ret = get_str(&ec, o, "exe", false, &p->exe);
	}
	return ret;
}

static int parse_threads(const struct ctx *c, json_t *root,
			 struct sb_manifest *m)
{
	struct ctx ac, ec;
	json_t *arr, *o;
	size_t i;
	int ret;

	ret = get_typed(c, root, "threads", true, true, &arr, &ac);
	for (i = 0; !ret && i < json_array_size(arr); i++) {
		struct sb_thread *t;
		uint32_t tid = 0;

		ret = element(&ac, arr, i, &o, &ec);
		if (!ret)
			ret = get_u32(&ec, o, "tid", true, &tid);
		if (ret)
			break;
		if (sb_manifest_thread(m, tid))
			return field_fail(&ec, "tid", "thread listed twice");
		t = sb_manifest_add_thread(m);
		if (!t)
			return sb_fail(c->err, -ENOMEM, "out of memory");
		t->tid = tid;
		ret = get_u32(&ec, o, "pid", true, &t->pid);
		if (!ret)
			ret = get_path(&ec, o, "pt", true, &t->pt);
		if (!ret)
			ret = get_path(&ec, o, "regs", false, &t->regs);
		if (!ret)
			ret = get_path(&ec, o, "truth", false, &t->truth);
	}
	return ret;
}

static int parse_images(const struct ctx *c, json_t *root,
			struct sb_manifest *m)
{
	struct ctx ac, ec;
	json_t *arr, *o;
	size_t i;
	int ret;

	ret = get_typed(c, root, "images", true, true, &arr, &ac);
	for (i = 0; !ret && i < json_array_size(arr); i++) {
		struct sb_image *im;
		char *key = NULL;

		ret = element(&ac, arr, i, &o, &ec);
		if (!ret)
			ret = get_str(&ec, o, "key", true, &key);
		if (ret)
			break;
		if (sb_manifest_image(m, key)) {
			free(key);
			return field_fail(&ec, "key", "image listed twice");
		}
		im = sb_manifest_add_image(m);
		if (!im) {
			free(key);
			return sb_fail(c->err, -ENOMEM, "out of memory");
		}
		im->key = key;
		ret = get_path(&ec, o, "file", true, &im->file);
		if (!ret)
			ret = get_str(&ec, o, "path", false, &im->path);
		if (!ret)
			ret = get_u64(&ec, o, "size", true, UINT64_MAX, &im->size);
	}
	return ret;
}

static int parse_files(const struct ctx *c, json_t *root,
		       struct sb_manifest *m)
{
	struct ctx ac, ec;
	json_t *arr, *o;
	size_t i;
	int ret;

	ret = get_typed(c, root, "files", true, true, &arr, &ac);
	for (i = 0; !ret && i < json_array_size(arr); i++) {
		struct sb_file *f;

		ret = element(&ac, arr, i, &o, &ec);
		if (ret)
			break;
		f = sb_manifest_add_file(m);
		if (!f)
			return sb_fail(c->err, -ENOMEM, "out of memory");
		ret = get_path(&ec, o, "path", true, &f->path);
		if (!ret)
			ret = get_str(&ec, o, "kind", true, &f->kind);
		if (!ret)
			ret = get_u64(&ec, o, "size", true, UINT64_MAX, &f->size);
	}
	return ret;
}

static int parse_root(const struct ctx *c, json_t *root, struct sb_manifest *m)
{
	char *format = NULL;
	uint64_t version = 0;
	int ret;

	if (!json_is_object(root))
		return sb_fail(c->err, -EBADMSG, "%s: top level is not a JSON object",
			       c->name);
	ret = get_str(c, root, "format", true, &format);
	if (ret)
		return ret;
	if (strcmp(format, FORMAT_NAME)) {
		free(format);
		return field_fail(c, "format", "not \"" FORMAT_NAME "\"");
	}
	free(format);
	/* The version comes first: a newer bundle may differ in anything. */
	ret = get_u64(c, root, "format_version", true, UINT32_MAX, &version);
	if (ret)
		return ret;
	if (version < SB_BUNDLE_VERSION_MIN || version > SB_BUNDLE_VERSION)
		return sb_fail(c->err, -EPROTONOSUPPORT,
			       "%s: bundle format version %" PRIu64
			       ", this ptrec reads versions %d to %d; %s",
			       c->name, version, SB_BUNDLE_VERSION_MIN,
			       SB_BUNDLE_VERSION,
			       version > SB_BUNDLE_VERSION ?
			       "upgrade ptrec to read it" :
			       "re-record it or use the ptrec release that wrote it");
	m->format_version = (uint32_t)version;
	ret = get_str(c, root, "producer", true, &m->producer);
	if (!ret)
		ret = get_str(c, root, "backend", true, &m->backend);
	if (!ret)
		ret = parse_cpu(c, root, m);
	if (!ret)
		ret = parse_pt(c, root, m);
	if (!ret)
		ret = parse_time(c, root, m);
	if (!ret)
		ret = parse_command(c, root, m);
	if (!ret)
		ret = get_str(c, root, "cwd", false, &m->cwd);
	if (!ret)
		ret = get_u64(c, root, "start_ns", false, UINT64_MAX, &m->start_ns);
	if (!ret)
		ret = get_u64(c, root, "stop_ns", false, UINT64_MAX, &m->stop_ns);
	if (!ret)
		ret = get_path(c, root, "sideband", true, &m->sideband);
	if (!ret && version >= 2)
		ret = get_path(c, root, "snapshot", false, &m->snapshot);
	if (!ret)
		ret = parse_procs(c, root, m);
	if (!ret)
		ret = parse_threads(c, root, m);
	if (!ret)
		ret = parse_images(c, root, m);
	if (!ret)
		ret = parse_files(c, root, m);
	return ret;
}

int sb_manifest_parse(struct sb_manifest **mp, const char *text, size_t len,
		      const char *name, struct sb_err *err)
{
	struct ctx c = { .name = name ? name : "manifest.json", .err = err };
	struct sb_manifest *m;
	json_error_t jerr;
	json_t *root;
	int ret;

	if (!mp || (!text && len))
		return sb_fail(err, -EINVAL, "sb_manifest_parse: NULL argument");
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return sb_fail(err, -EBADMSG,
			       "%s: byte offset %d (line %d, column %d): not valid JSON: %s",
			       c.name, jerr.position, jerr.line, jerr.column,
			       jerr.text);
	m = sb_manifest_new();
	if (!m) {
		json_decref(root);
		return sb_fail(err, -ENOMEM, "out of memory");
	}
	ret = parse_root(&c, root, m);
	json_decref(root);
	if (ret) {
		sb_manifest_free(m);
		return ret;
	}
	*mp = m;
	return 0;
}

/* A file the manifest names must be listed in "files". */
static int check_listed(const struct sb_manifest *m, const char *name,
			const char *field, const char *path, struct sb_err *err)
{
	size_t i;

	if (!path)
		return 0;
	for (i = 0; i < m->nfiles; i++)
		if (!strcmp(m->files[i].path, path))
			return 0;
	return sb_fail(err, -EBADMSG, "%s: field '%s': %s is not in 'files'",
		       name, field, path);
}

static int check_files(const struct sb_manifest *m, const char *dir,
		       const char *name, struct sb_err *err)
{
	char field[64];
	size_t i;
	int ret;

	ret = check_listed(m, name, "sideband", m->sideband, err);
	if (!ret)
		ret = check_listed(m, name, "snapshot", m->snapshot, err);
	for (i = 0; !ret && i < m->nthreads; i++) {
		snprintf(field, sizeof(field), "threads[%zu].pt", i);
		ret = check_listed(m, name, field, m->threads[i].pt, err);
		snprintf(field, sizeof(field), "threads[%zu].regs", i);
		if (!ret)
			ret = check_listed(m, name, field, m->threads[i].regs,
					   err);
		snprintf(field, sizeof(field), "threads[%zu].truth", i);
		if (!ret)
			ret = check_listed(m, name, field, m->threads[i].truth,
					   err);
	}
	for (i = 0; !ret && i < m->nimages; i++) {
		snprintf(field, sizeof(field), "images[%zu].file", i);
		ret = check_listed(m, name, field, m->images[i].file, err);
	}
	/* Every listed file by the bundle rule: no symlink, regular, its size. */
	for (i = 0; !ret && i < m->nfiles; i++) {
		const struct sb_file *f = &m->files[i];
		int fd = sb_bundle_open_file(dir, f->path, m, err);

		if (fd == -ENOENT)
			return sb_fail(err, fd, "%s/%s: listed in %s but missing",
				       dir, f->path, name);
		if (fd == -EINVAL)	/* not a regular file */
			return -EBADMSG;
		if (fd < 0)
			return fd;
		close(fd);
	}
	return ret;
}

/*
 * Whether @dir, which has no manifest, looks like something else than a
 * recording: not empty (a recording interrupted right after it created
 * its directory leaves it empty) and without the files a recording writes
 * first (sideband.sb, pt/).  Only names are looked at, no file is opened.
 */
static bool not_a_bundle(const char *dir)
{
	struct dirent *de;
	bool other = false;
	DIR *d = opendir(dir);

	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!strcmp(de->d_name, "sideband.sb") ||
		    !strcmp(de->d_name, "pt")) {
			other = false;
			break;
		}
		other = true;
	}
	closedir(d);
	return other;
}

int sb_manifest_load(struct sb_manifest **mp, const char *dir,
		     struct sb_err *err)
{
	struct sb_manifest *m;
	char path[4096];
	char *text;
	size_t len;
	int ret;

	if (!mp || !dir)
		return sb_fail(err, -EINVAL, "sb_manifest_load: NULL argument");
	if (snprintf(path, sizeof(path), "%s/manifest.json", dir) >=
	    (int)sizeof(path))
		return sb_fail(err, -ENAMETOOLONG, "%s: path too long", dir);
	ret = sb_bundle_read_file(dir, "manifest.json", NULL, SB_MANIFEST_MAX,
				  &text, &len, err);
	if (ret == -ENOENT) {
		struct stat st;

		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
		    not_a_bundle(dir))
			return sb_fail(err, ret,
				       "%s: not a ptrec bundle (no manifest.json, sideband.sb or pt/ in it)",
				       dir);
		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
			return sb_fail(err, ret,
				       "%s: missing; the recording did not finish, so this bundle is incomplete",
				       path);
		return sb_fail(err, ret, "%s: no such bundle directory", dir);
	}
	if (ret)
		return ret;
	ret = sb_manifest_parse(&m, text, len, path, err);
	free(text);
	if (ret)
		return ret;
	ret = check_files(m, dir, path, err);
	if (ret) {
		sb_manifest_free(m);
		return ret;
	}
	*mp = m;
	return 0;
}

/* ---- saving ----------------------------------------------------------- */

static json_t *u64_str(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return json_string(buf);
}

/* A JSON integer where one holds the value, else a decimal string. */
static json_t *u64_num(uint64_t v)
{
	return v <= INT64_MAX ? json_integer((json_int_t)v) : u64_str(v);
}

/* json_object_set_new(); a NULL value (allocation or encoding failure) is an
 * error, never a silently missing field.
 */
static int set(json_t *o, const char *key, json_t *v)
{
	return v ? json_object_set_new(o, key, v) : -1;
}

/* Optional string field: omitted when @s is NULL. */
static int set_opt(json_t *o, const char *key, const char *s)
{
	return s ? set(o, key, json_string(s)) : 0;
}

/* Appends @v to @arr; NULL is an error. */
static int append(json_t *arr, json_t *v)
{
	return v ? json_array_append_new(arr, v) : -1;
}

static json_t *build(const struct sb_manifest *m)
{
	json_t *root = json_object(), *o, *arr;
	size_t i;
	int bad = !root;

	if (bad)
		return NULL;
	bad |= set(root, "format", json_string(FORMAT_NAME));
	bad |= set(root, "format_version", json_integer(m->format_version));
	bad |= set(root, "producer", json_string(m->producer));
	bad |= set(root, "backend", json_string(m->backend));
	bad |= set(root, "cpu", json_pack("{s:s, s:I, s:I, s:I}",
					  "vendor", m->cpu.vendor,
					  "family", (json_int_t)m->cpu.family,
					  "model", (json_int_t)m->cpu.model,
					  "stepping",
					  (json_int_t)m->cpu.stepping));
	arr = json_array();
	for (i = 0; arr && i < SB_ARRAY_SIZE(feature_names); i++)
		if (m->pt.features & (1u << i))
			bad |= append(arr, json_string(feature_names[i]));
	o = json_pack("{s:b, s:o, s:o, s:I, s:I, s:I, s:I, s:I}",
		      "emulated", m->pt.emulated, "features", arr,
		      "psb_period", u64_num(m->pt.psb_period),
		      "mtc_freq", (json_int_t)m->pt.mtc_freq,
		      "nom_freq", (json_int_t)m->pt.nom_freq,
		      "cpuid_15_eax", (json_int_t)m->pt.cpuid_15_eax,
		      "cpuid_15_ebx", (json_int_t)m->pt.cpuid_15_ebx,
		      "cyc_thresh", (json_int_t)m->pt.cyc_thresh);
	bad |= set(root, "pt", o);
	o = json_pack("{s:i, s:I, s:o, s:o}",
		      "time_shift", (int)m->time.time_shift,
		      "time_mult", (json_int_t)m->time.time_mult,
		      "time_zero", u64_str(m->time.time_zero),
		      "tsc_hz", u64_str(m->time.tsc_hz));
	bad |= set(root, "time", o);
	arr = json_array();
	for (i = 0; arr && i < m->argc; i++)
		bad |= append(arr, json_string(m->argv[i]));
	bad |= set(root, "command", arr);
	bad |= set_opt(root, "cwd", m->cwd);
	bad |= set(root, "start_ns", u64_str(m->start_ns));
	bad |= set(root, "stop_ns", u64_str(m->stop_ns));
	bad |= set(root, "sideband", json_string(m->sideband));
	bad |= set_opt(root, "snapshot", m->snapshot);

	arr = json_array();
	for (i = 0; arr && i < m->nprocs; i++) {
		o = json_pack("{s:I, s:I}", "pid", (json_int_t)m->procs[i].pid,
			      "ppid", (json_int_t)m->procs[i].ppid);
		bad |= !o || set_opt(o, "exe", m->procs[i].exe);
		bad |= append(arr, o);
	}
	bad |= set(root, "processes", arr);

	arr = json_array();
	for (i = 0; arr && i < m->nthreads; i++) {
		const struct sb_thread *t = &m->threads[i];

		o = json_pack("{s:I, s:I, s:s}", "pid", (json_int_t)t->pid,
			      "tid", (json_int_t)t->tid, "pt", t->pt);
		bad |= !o || set_opt(o, "regs", t->regs) ||
		       set_opt(o, "truth", t->truth);
		bad |= append(arr, o);
	}
	bad |= set(root, "threads", arr);

	arr = json_array();
	for (i = 0; arr && i < m->nimages; i++) {
		const struct sb_image *im = &m->images[i];

		o = json_pack("{s:s, s:s, s:o}", "key", im->key, "file",
			      im->file, "size", u64_num(im->size));
		bad |= !o || set_opt(o, "path", im->path);
		bad |= append(arr, o);
	}
	bad |= set(root, "images", arr);

	arr = json_array();
	for (i = 0; arr && i < m->nfiles; i++)
		bad |= append(arr, json_pack("{s:s, s:s, s:o}",
					     "path", m->files[i].path,
					     "kind", m->files[i].kind,
					     "size", u64_num(m->files[i].size)));
	bad |= set(root, "files", arr);
	if (bad) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* Required strings must be present before we write anything. */
static int check_required(const struct sb_manifest *m, struct sb_err *err)
{
	size_t i;

	size_t j;

	if (!m->producer || !m->backend || !m->sideband)
		return sb_fail(err, -EINVAL,
			       "manifest: producer, backend and sideband are required");
	if (!sb_path_is_safe(m->sideband))
		return sb_fail(err, -EINVAL, "manifest: unsafe sideband path");
	if (m->snapshot && !sb_path_is_safe(m->snapshot))
		return sb_fail(err, -EINVAL, "manifest: unsafe snapshot path");
	if (strlen(m->cpu.vendor) >= sizeof(m->cpu.vendor))
		return sb_fail(err, -EINVAL, "manifest: cpu vendor too long");
	for (i = 0; i < m->nthreads; i++) {
		const struct sb_thread *t = &m->threads[i];

		if (!t->pt || !sb_path_is_safe(t->pt) ||
		    (t->regs && !sb_path_is_safe(t->regs)) ||
		    (t->truth && !sb_path_is_safe(t->truth)))
			return sb_fail(err, -EINVAL,
				       "manifest: threads[%zu] has no PT stream or an unsafe path",
				       i);
		for (j = 0; j < i; j++)
			if (m->threads[j].tid == t->tid)
				return sb_fail(err, -EINVAL,
					       "manifest: thread %u listed twice",
					       t->tid);
	}
	for (i = 0; i < m->nimages; i++) {
		if (!m->images[i].key || !m->images[i].file ||
		    !sb_path_is_safe(m->images[i].file))
			return sb_fail(err, -EINVAL,
				       "manifest: images[%zu] lacks key or file", i);
		for (j = 0; j < i; j++)
			if (!strcmp(m->images[j].key, m->images[i].key))
				return sb_fail(err, -EINVAL,
					       "manifest: image %s listed twice",
					       m->images[i].key);
	}
	for (i = 0; i < m->nfiles; i++)
		if (!m->files[i].path || !m->files[i].kind ||
		    !sb_path_is_safe(m->files[i].path))
			return sb_fail(err, -EINVAL,
				       "manifest: files[%zu] lacks path or kind", i);
	for (i = 0; i < m->argc; i++)
		if (!m->argv[i])
			return sb_fail(err, -EINVAL, "manifest: argv[%zu] is NULL",
				       i);
	return 0;
}

int sb_manifest_save(const struct sb_manifest *m, const char *dir,
		     struct sb_err *err)
{
	return sb_manifest_save_sync(m, dir, SB_SYNC_DURABLE, err);
}

int sb_manifest_save_sync(const struct sb_manifest *m, const char *dir,
			  enum sb_sync how, struct sb_err *err)
{
	char path[4096];
	json_t *root;
	char *text;
	int ret;

	if (!m || !dir)
		return sb_fail(err, -EINVAL, "sb_manifest_save: NULL argument");
	ret = check_required(m, err);
	if (ret)
		return ret;
	if (snprintf(path, sizeof(path), "%s/manifest.json", dir) >=
	    (int)sizeof(path))
		return sb_fail(err, -ENAMETOOLONG, "%s: path too long", dir);
	/* json_string() also fails on text that is not UTF-8. */
	root = build(m);
	text = root ? json_dumps(root, JSON_INDENT(2)) : NULL;
	json_decref(root);
	if (!text)
		return sb_fail(err, -EINVAL,
			       "%s: cannot encode the manifest (out of memory, or a string that is not UTF-8)",
			       path);
	ret = sb_write_file_sync(path, text, strlen(text), how, err);
	free(text);
	return ret;
}
