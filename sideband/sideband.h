/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libptrec-sideband: the trace bundle contract.
 *
 * The one public header of sideband/.  It reads and writes sideband streams
 * (records defined in uapi/ptrec_sideband.h), bundle manifests, register
 * snapshots, ground-truth files and the image store.  docs/bundle-format.md
 * is the specification this code implements.
 *
 * Conventions:
 * - Functions return 0 (or a documented positive value) on success and a
 *   negative errno on failure.  The errors each function can return are
 *   listed with it.  A function that takes a struct sb_err fills it with a
 *   message naming the file and the byte offset or JSON field at fault; the
 *   pointer may be NULL.
 * - Nothing here allocates more than the input's size or a documented
 *   bound, so hostile input cannot cause unbounded allocation.
 */
#ifndef PTREC_SIDEBAND_H
#define PTREC_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/ptrec_sideband.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The bundle format version this library writes; it reads every version
 * from SB_BUNDLE_VERSION_MIN on (version 1 has no snapshot part).
 */
#define SB_BUNDLE_VERSION	2
#define SB_BUNDLE_VERSION_MIN	1

/* A message describing the last failure. */
struct sb_err {
	char msg[512];
};

/* Formats a message into @err (when non-NULL) and returns @code; for
 * components that report through struct sb_err too (import/).
 */
int sb_fail(struct sb_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- record types ------------------------------------------------------ */

/**
 * struct sb_type_info - what the library knows of a record type
 * @name:	upper-case name as in the format document ("MMAP").
 * @size:	size of the fixed part, header included.
 * @variable:	whether variable-length bytes follow the fixed part.
 */
struct sb_type_info {
	const char *name;
	uint32_t size;
	bool variable;
};

/* Returns the description of @type, or NULL for a type this library does
 * not know (readers skip those).
 */
const struct sb_type_info *sb_type_info(uint16_t type);

/**
 * sb_record_check() - validate one record in memory
 * @rec:	the record; at least @avail bytes are readable.
 * @avail:	bytes available at @rec.
 * @why:	receives a reason on failure (may be NULL).
 * @whysz:	size of @why.
 *
 * Checks the header (size a multiple of PTREC_SB_ALIGN, at least the header,
 * at most PTREC_SB_RECORD_MAX and @avail) and, for known types, the fixed
 * size and that variable-length parts fit inside the record.
 *
 * Returns 0, or -EBADMSG when the record is malformed.
 */
int sb_record_check(const struct ptrec_sb_header *rec, size_t avail,
		    char *why, size_t whysz);

/* Variable parts of checked records (not NUL-terminated; see the lengths). */
const char *sb_mmap_key(const struct ptrec_sb_mmap *rec);
const char *sb_mmap_path(const struct ptrec_sb_mmap *rec);
const char *sb_exec_path(const struct ptrec_sb_exec *rec);

/* TSC ticks to nanoseconds with a TIME record's parameters. */
uint64_t sb_time_to_ns(const struct ptrec_sb_time *conv, uint64_t tsc);

/* ---- reading a sideband stream ----------------------------------------- */

struct sb_reader;

/**
 * sb_reader_open() - open a sideband stream file
 *
 * Returns 0 and sets *@reader, or:
 * -ENOENT, -EACCES, ... (errno of open/read) when the file cannot be read;
 * -EBADMSG when the file header is truncated or has the wrong magic;
 * -EPROTONOSUPPORT when the stream's version is not PTREC_SB_VERSION_MIN to
 * PTREC_SB_VERSION;
 * -ENOMEM.
 */
int sb_reader_open(struct sb_reader **reader, const char *path,
		   struct sb_err *err);

/* As sb_reader_open(), on a descriptor the reader takes over (closes);
 * @name is used in messages.  For sb_bundle_open_file()'s descriptors.
 */
int sb_reader_open_fd(struct sb_reader **reader, int fd, const char *name,
		      struct sb_err *err);

/**
 * sb_reader_open_mem() - read a stream held in memory
 * @name:	used in error messages in place of a file name.
 *
 * @buf must stay valid until sb_reader_close().  Errors as sb_reader_open().
 */
int sb_reader_open_mem(struct sb_reader **reader, const void *buf, size_t len,
		       const char *name, struct sb_err *err);

/**
 * sb_reader_next() - the next record, known type or not
 * @rec:	receives a pointer to the record, valid until the next call.
 *
 * Returns 1 with a record, 0 at the clean end of the stream, or:
 * -EBADMSG when the stream is truncated inside a record, a record is
 *   malformed (see sb_record_check()) or its time goes backwards; the reader
 *   stays at the bad record, so every later call fails the same way;
 * -EIO (or the read's errno) when reading fails.
 */
int sb_reader_next(struct sb_reader *reader,
		   const struct ptrec_sb_header **rec, struct sb_err *err);

/* Byte offset in the stream of the record last returned (or of the failure). */
uint64_t sb_reader_offset(const struct sb_reader *reader);

void sb_reader_close(struct sb_reader *reader);

/* ---- writing a sideband stream ----------------------------------------- */

struct sb_writer;

/**
 * sb_writer_open() - create (truncate) a sideband stream file
 *
 * Returns 0, the errno of open() or write(), or -ENOMEM.
 */
int sb_writer_open(struct sb_writer **writer, const char *path,
		   struct sb_err *err);

/**
 * sb_writer_add() - append a record
 * @rec:	a record whose hdr.size counts the fixed part and any variable
 *		bytes that follow it in memory (0: the type's fixed size);
 *		the writer pads to PTREC_SB_ALIGN and stores the padded size.
 *
 * Returns 0, or:
 * -EINVAL when the record is malformed, has an unknown type, or its time is
 *  earlier than the previous record's (the stream must stay ordered);
 * the errno of write() (for example -ENOSPC), after which every later call
 *  fails the same way.
 */
int sb_writer_add(struct sb_writer *writer, const struct ptrec_sb_header *rec,
		  struct sb_err *err);

/* Append an MMAP record: @rec's fixed part, then @key and @path.  @key may be
 * NULL or empty.  Errors as sb_writer_add(), and -ENAMETOOLONG when @key and
 * @path do not fit in PTREC_SB_RECORD_MAX.
 */
int sb_writer_add_mmap(struct sb_writer *writer,
		       const struct ptrec_sb_mmap *rec, const char *key,
		       const char *path, struct sb_err *err);

/* Append an EXEC record with @path.  Errors as sb_writer_add_mmap(). */
int sb_writer_add_exec(struct sb_writer *writer,
		       const struct ptrec_sb_exec *rec, const char *path,
		       struct sb_err *err);

/* Records written so far. */
uint64_t sb_writer_count(const struct sb_writer *writer);

/* Writes what is buffered, so that a full disk shows at once.  Returns 0
 * or the write's errno (then every later call fails the same way).
 */
int sb_writer_flush(struct sb_writer *writer);

/**
 * sb_writer_close() - flush, close and free
 *
 * Returns 0 or the first write/close error (for example -ENOSPC).  The
 * writer is freed in every case; NULL is accepted.
 */
int sb_writer_close(struct sb_writer *writer, struct sb_err *err);

/* ---- the manifest ------------------------------------------------------ */

/* CPU the trace was recorded on. */
struct sb_cpu {
	char vendor[16];		/* "GenuineIntel", "AuthenticAMD" */
	uint32_t family;
	uint32_t model;
	uint32_t stepping;
};

/* PT features a recording used (enum sb_pt_feature bits). */
enum sb_pt_feature {
	SB_PT_USER		= 1 << 0,	/* CPL > 0 traced */
	SB_PT_KERNEL		= 1 << 1,	/* CPL 0 traced */
	SB_PT_BRANCH		= 1 << 2,	/* BranchEn */
	SB_PT_TSC		= 1 << 3,
	SB_PT_MTC		= 1 << 4,
	SB_PT_CYC		= 1 << 5,
	SB_PT_RET_COMPRESSION	= 1 << 6,	/* DisRETC clear */
	SB_PT_PTWRITE		= 1 << 7,
	SB_PT_PWR_EVT		= 1 << 8,
	SB_PT_CR3_FILTER	= 1 << 9,
	SB_PT_IP_FILTER		= 1 << 10,
};

/* Returns the manifest name of one feature bit ("tsc"), NULL if unknown. */
const char *sb_pt_feature_name(uint32_t bit);

/**
 * struct sb_pt_config - how the PT streams were produced
 * @emulated:	true when a software recorder produced the packets.
 * @features:	enum sb_pt_feature bits.
 * @psb_period:	bytes between PSBs (0 unknown).
 * @mtc_freq, @nom_freq, @cpuid_15_eax, @cpuid_15_ebx, @cyc_thresh:
 *		libipt decoder configuration (0 unknown).
 */
struct sb_pt_config {
	bool emulated;
	uint32_t features;
	uint64_t psb_period;
	uint32_t mtc_freq;
	uint32_t nom_freq;
	uint32_t cpuid_15_eax;
	uint32_t cpuid_15_ebx;
	uint32_t cyc_thresh;
};

/* TSC conversion, as in struct ptrec_sb_time. */
struct sb_time_conv {
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
	uint64_t tsc_hz;
};

struct sb_process {
	uint32_t pid;
	uint32_t ppid;
	char *exe;			/* may be NULL */
};

/* Paths are relative to the bundle directory; NULL when absent. */
struct sb_thread {
	uint32_t pid;
	uint32_t tid;
	char *pt;			/* PT stream, required */
	char *regs;			/* final register snapshot */
	char *truth;			/* ground truth */
};

struct sb_image {
	char *key;			/* build-id or content-hash key */
	char *file;			/* copy in the image store */
	char *path;			/* path on the recording machine */
	uint64_t size;
};

struct sb_file {
	char *path;
	char *kind;			/* "pt", "sideband", "image", ... */
	uint64_t size;
};

/**
 * struct sb_manifest - manifest.json in memory
 *
 * Every array is owned by the manifest; sb_manifest_free() releases all.
 */
struct sb_manifest {
	uint32_t format_version;
	char *producer;
	char *backend;			/* "kmod", "emu", "import-raw", ... */
	struct sb_cpu cpu;
	struct sb_pt_config pt;
	struct sb_time_conv time;
	char **argv;
	size_t argc;
	char *cwd;
	uint64_t start_ns;		/* CLOCK_REALTIME */
	uint64_t stop_ns;
	char *sideband;
	char *snapshot;			/* end-state snapshot, NULL if none */
	struct sb_process *procs;
	size_t nprocs;
	struct sb_thread *threads;
	size_t nthreads;
	struct sb_image *images;
	size_t nimages;
	struct sb_file *files;
	size_t nfiles;
};

/* A new, empty manifest for the current format version, or NULL. */
struct sb_manifest *sb_manifest_new(void);

void sb_manifest_free(struct sb_manifest *m);

/* Grow the arrays; each returns the new zeroed element or NULL (ENOMEM). */
struct sb_process *sb_manifest_add_process(struct sb_manifest *m);
struct sb_thread *sb_manifest_add_thread(struct sb_manifest *m);
struct sb_image *sb_manifest_add_image(struct sb_manifest *m);
struct sb_file *sb_manifest_add_file(struct sb_manifest *m);
/* Copies @argv.  Returns 0 or -ENOMEM. */
int sb_manifest_set_argv(struct sb_manifest *m, int argc,
			 const char *const *argv);

/* Lookups; NULL when absent. */
const struct sb_thread *sb_manifest_thread(const struct sb_manifest *m,
					   uint32_t tid);
const struct sb_image *sb_manifest_image(const struct sb_manifest *m,
					 const char *key);

/**
 * sb_manifest_parse() - parse and check manifest text
 * @name:	file name for messages.
 *
 * Checks JSON syntax, the format name and version, the type of every field
 * and the presence of required fields, and that every path is relative and
 * stays inside the bundle.  Does not touch the files it lists.
 *
 * Returns 0, or:
 * -EBADMSG when the text is not JSON or a field is missing or mistyped
 *  (the message names the byte offset or the field);
 * -EPROTONOSUPPORT when the format version is outside
 *  SB_BUNDLE_VERSION_MIN..SB_BUNDLE_VERSION;
 * -ENOMEM.
 */
int sb_manifest_parse(struct sb_manifest **m, const char *text, size_t len,
		      const char *name, struct sb_err *err);

/**
 * sb_manifest_load() - read DIR/manifest.json and check the bundle's files
 *
 * Also checks that every listed file exists with the listed size and that
 * every thread's stream is listed.
 *
 * Returns 0, errors of sb_manifest_parse(), or:
 * -ENOENT when the manifest is missing (an unfinished recording) or a listed
 *  file is missing;
 * -EBADMSG when a listed file's size differs (truncated or damaged), a
 *  listed path is not a regular file, or a file the manifest names is not
 *  listed in "files";
 * -EINVAL when manifest.json is not a regular file;
 * -ELOOP when manifest.json or a listed file is (or is reached through) a
 *  symbolic link: every file is opened by sb_bundle_open_file()'s rule;
 * -ENAMETOOLONG when a path does not fit PATH_MAX;
 * -EFBIG when manifest.json is larger than SB_MANIFEST_MAX;
 * the errno of open/read otherwise.
 */
int sb_manifest_load(struct sb_manifest **m, const char *dir,
		     struct sb_err *err);

#define SB_MANIFEST_MAX		(64u << 20)

/**
 * sb_manifest_save() - write DIR/manifest.json atomically
 *
 * Writes a temporary file, syncs it and renames it over manifest.json, so a
 * reader sees either no manifest or a whole one.
 *
 * Checks what sb_manifest_parse() would reject first (required fields,
 * unsafe paths, duplicate threads or images), so it never writes a manifest
 * its own reader refuses.
 *
 * Returns 0, -EINVAL when a field is missing or invalid or a string is not
 * UTF-8, -ENOMEM, or the errno of the failing file operation (for example
 * -ENOSPC).
 */
int sb_manifest_save(const struct sb_manifest *m, const char *dir,
		     struct sb_err *err);

/* ---- opening files inside a bundle ------------------------------------- */

/**
 * sb_bundle_open_file() - open a file inside a bundle for reading
 * @dir:	the bundle directory (followed if a symlink: the user named it).
 * @rel:	the file's path relative to @dir, as the manifest names it.
 * @m:		when non-NULL and @rel is listed in its "files", the file must
 *		have the listed size.
 *
 * The rule for every file ptrec opens inside a bundle (docs/security.md):
 * reached from @dir without following any symbolic link and without
 * leaving @dir, opened without blocking (a FIFO or device never hangs the
 * open), and a regular file.  The descriptor returned is blocking,
 * read-only and close-on-exec.
 *
 * Returns the descriptor, or:
 * -ELOOP when a component of @rel is a symbolic link;
 * -EINVAL when @rel is empty, absolute or has "..", or the file is not a
 *  regular file (FIFO, device, socket, directory);
 * -EBADMSG when its size is not the one @m lists;
 * -ENOTDIR, -ENOENT, -EACCES, ... (errno of the open).
 */
int sb_bundle_open_file(const char *dir, const char *rel,
			const struct sb_manifest *m, struct sb_err *err);

/* A directory inside a bundle (O_RDONLY | O_DIRECTORY), by the same rule:
 * for writers of files beside the recorded ones (the index cache).
 * Returns the descriptor or the errors of sb_bundle_open_file().
 */
int sb_bundle_open_dir(const char *dir, const char *rel, struct sb_err *err);

/**
 * sb_bundle_read_file() - read a whole file inside a bundle
 *
 * Opens @rel with sb_bundle_open_file() and reads at most @max bytes into
 * a NUL-terminated heap buffer.  Returns 0, its errors, -EFBIG or -ENOMEM.
 */
int sb_bundle_read_file(const char *dir, const char *rel,
			const struct sb_manifest *m, size_t max, char **buf,
			size_t *len, struct sb_err *err);

/* ---- register snapshots ------------------------------------------------ */

/* Registers in GDB's amd64 order (org.gnu.gdb.i386.core/linux). */
enum sb_reg {
	SB_REG_RAX, SB_REG_RBX, SB_REG_RCX, SB_REG_RDX,
	SB_REG_RSI, SB_REG_RDI, SB_REG_RBP, SB_REG_RSP,
	SB_REG_R8, SB_REG_R9, SB_REG_R10, SB_REG_R11,
	SB_REG_R12, SB_REG_R13, SB_REG_R14, SB_REG_R15,
	SB_REG_RIP, SB_REG_EFLAGS,
	SB_REG_CS, SB_REG_SS, SB_REG_DS, SB_REG_ES, SB_REG_FS, SB_REG_GS,
	SB_REG_FS_BASE, SB_REG_GS_BASE, SB_REG_ORIG_RAX,
	SB_REG_COUNT
};

/* GDB's name of @reg ("rip"), or NULL. */
const char *sb_reg_name(unsigned int reg);

/**
 * struct sb_regs - a thread's registers at the end of its history
 * @valid:	bit (1 << reg) set for each known register.
 */
struct sb_regs {
	uint32_t tid;
	uint64_t valid;
	uint64_t val[SB_REG_COUNT];
};

/* Write @regs as JSON.  Returns 0 or the errno of the file operation. */
int sb_regs_save(const struct sb_regs *regs, const char *path,
		 struct sb_err *err);

/* Read a snapshot.  Returns 0, -EBADMSG (names the field),
 * -EPROTONOSUPPORT (another snapshot version), -EFBIG, -EINVAL (not a
 * regular file), or the errno of the file operation.
 */
int sb_regs_load(struct sb_regs *regs, const char *path, struct sb_err *err);

/* As sb_regs_load(), for a snapshot inside a bundle: @rel opened by
 * sb_bundle_open_file()'s rule and checked against @m (may be NULL).
 */
int sb_regs_load_bundle(struct sb_regs *regs, const char *dir,
			const char *rel, const struct sb_manifest *m,
			struct sb_err *err);

/* ---- ground truth ------------------------------------------------------ */

#define SB_TRUTH_MAGIC		"PTRECGT"
/* 3: a SYSCALL (int 0x80) that returned to the instruction after it has
 * the registers after it; 2 has the same layout, with none there; 1 is
 * addresses only.
 */
#define SB_TRUTH_VERSION	3
#define SB_TRUTH_NREGS		17	/* rax..r15 (GDB's order), rflags */
#define SB_TRUTH_WORDS		(2 + SB_TRUTH_NREGS)

/* One executed instruction: bit i of @mask set when regs[i] (after it
 * ran) was recorded.
 */
struct sb_truth_rec {
	uint64_t ip;
	uint64_t mask;
	uint64_t regs[SB_TRUTH_NREGS];
};

struct sb_truth_writer;

/* Create a ground-truth file and write its header.  Returns 0, the errno
 * of open() or write() (for example -ENOSPC), -ENOMEM.
 */
int sb_truth_open(struct sb_truth_writer **tw, const char *path,
		  struct sb_err *err);

/* Append one executed instruction address.  Returns 0 or a write errno. */
int sb_truth_add(struct sb_truth_writer *tw, uint64_t ip);

/* Writes the buffered addresses.  Returns 0 or a write errno. */
int sb_truth_flush(struct sb_truth_writer *tw);

/* Append one executed instruction and the registers (@mask of @regs, GDB's
 * order, rflags last) after it.  Returns 0 or a write errno.
 */
int sb_truth_add_regs(struct sb_truth_writer *tw, uint64_t ip,
		      uint64_t mask, const uint64_t *regs);

/* Every record of a ground-truth file (version 1: addresses only, mask 0).
 * Free *@recs with free().  Errors as sb_truth_load().
 */
int sb_truth_load_recs(const char *path, struct sb_truth_rec **recs,
		       size_t *count, struct sb_err *err);

/* Flush and free.  Returns 0 or the first write error. */
int sb_truth_close(struct sb_truth_writer *tw, struct sb_err *err);

/**
 * sb_truth_load() - read all addresses of a ground-truth file
 *
 * Allocates at most the file's size.  Returns 0, -EBADMSG (bad magic or a
 * size that is not header + 8 * n), -EPROTONOSUPPORT, -EFBIG (over 1 GiB),
 * -EINVAL (not a regular file), -ENOMEM or the errno of the file operation.
 */
int sb_truth_load(const char *path, uint64_t **ips, size_t *count,
		  struct sb_err *err);

/* ---- writing a bundle -------------------------------------------------- */

struct sb_bundle;
struct sb_snap_writer;

/**
 * sb_bundle_create() - start a new bundle directory
 *
 * @dir must not exist or be an empty directory.  Creates the layout of
 * docs/bundle-format.md.  The bundle has no manifest until
 * sb_bundle_finish(), so an interrupted recording is recognisably
 * unfinished.
 *
 * Returns 0, -EEXIST when @dir is not empty, -ENOMEM, or the errno of
 * mkdir().
 */
int sb_bundle_create(struct sb_bundle **b, const char *dir,
		     struct sb_err *err);

/*
 * sb_bundle_create() without the regs/ and truth/ directories: for a
 * bundle none of whose threads will have a register snapshot or ground
 * truth (an import).  Each directory is an inode and a directory block
 * the kernel allocates and, in the end, writes: 2 of an import's 9 new
 * inodes (issue #19).  Readers take every path from the manifest, so the
 * bundle is the same to them.
 */
#define SB_BUNDLE_NO_STATE 1u
int sb_bundle_create_flags(struct sb_bundle **b, const char *dir,
			   unsigned int flags, struct sb_err *err);

/**
 * sb_bundle_set_durable() - whether the bundle survives a power loss
 *
 * Durable (the default, what a recording needs: its run cannot be made
 * again): the sideband stream and every image are fsync()ed, with their
 * directories, before the manifest names them, and the manifest with its
 * directory after.  Not durable (what an import needs: it can be run again
 * from its inputs; issue #19): nothing but the manifest's own bytes is
 * synced, before it is renamed into place.  Either way a reader sees no
 * manifest or a complete one, and every file it names at its size once the
 * writer has returned.  After a power loss a bundle that is not durable
 * may have lost its manifest (unfinished) or a file's tail (its size then
 * differs from the manifest's, which the reader reports naming the file;
 * ext4 with data=ordered, its default, XFS and btrfs never give a file a
 * size that covers bytes not yet written).
 */
void sb_bundle_set_durable(struct sb_bundle *b, bool durable);

/* The manifest being built; the caller fills the descriptive fields. */
struct sb_manifest *sb_bundle_manifest(struct sb_bundle *b);

const char *sb_bundle_dir(const struct sb_bundle *b);

/**
 * sb_bundle_path() - absolute path of a bundle-relative file
 *
 * Returns the length of the result, or -ENAMETOOLONG.
 */
int sb_bundle_path(const struct sb_bundle *b, const char *rel, char *buf,
		   size_t bufsz);

/* Open the bundle's sideband stream for writing (once).  The bundle owns
 * the writer: sb_bundle_finish() or sb_bundle_free() closes it, the caller
 * must not.  Errors as sb_writer_open(), and -EBUSY when already opened.
 */
int sb_bundle_open_sideband(struct sb_bundle *b, struct sb_writer **w,
			    struct sb_err *err);

/**
 * sb_bundle_open_snapshot() - start the bundle's snapshot part (once)
 *
 * The bundle owns the writer: sb_bundle_finish() closes it and lists the
 * part, sb_bundle_free() abandons it.  Errors as sb_snap_writer_open(),
 * -EBUSY when already opened.
 */
int sb_bundle_open_snapshot(struct sb_bundle *b, struct sb_snap_writer **w,
			    struct sb_err *err);

/**
 * sb_bundle_add_thread() - declare a thread and its stream files
 * @with_truth:	also name a ground-truth file.
 *
 * Fills the manifest's thread entry with the relative paths of its PT
 * stream, register snapshot and ground truth; the caller creates them.
 * *@thread stays valid until the next sb_bundle_add_thread() (the array
 * grows).  Returns 0, -EEXIST when @tid is already declared, -ENOMEM.
 */
int sb_bundle_add_thread(struct sb_bundle *b, uint32_t pid, uint32_t tid,
			 bool with_truth, const struct sb_thread **thread);

/**
 * sb_bundle_add_image_file() - copy an executable file into the image store
 * @path:	the file on this machine.
 * @key:	receives the image key (build-id or content hash).
 *
 * Files are keyed by their GNU build-id note ("buildid-<hex>") or, lacking
 * one, by SHA-256 of their contents ("sha256-<hex>").  Adding the same
 * content twice stores it once; a second file with the same key (a stripped
 * copy with the same build-id) is not stored again and the first entry,
 * with its path, is kept.
 *
 * Returns 0, -ENOMEM, -ENAMETOOLONG, -EFBIG (over 1 GiB), -EINVAL (not a
 * regular file), or the errno of the file operation.
 */
int sb_bundle_add_image_file(struct sb_bundle *b, const char *path,
			     char *key, size_t keysz, struct sb_err *err);

/* As sb_bundle_add_image_file(), for bytes in memory (the vdso).  @path is
 * the name recorded for it ("[vdso]").
 */
int sb_bundle_add_image_mem(struct sb_bundle *b, const void *buf, size_t len,
			    const char *path, char *key, size_t keysz,
			    struct sb_err *err);

/* Longest key, with NUL: "sha256-" + 64 hex digits, or "buildid-" + up to
 * 64 (build-ids of 1 to 32 bytes).
 */
#define SB_IMAGE_KEY_MAX	80

/**
 * sb_bundle_finish() - list every file with its size, write the manifest
 *
 * Returns 0, the errors of sb_manifest_save(), or -ENOENT when a declared
 * thread's PT stream was never created.
 */
int sb_bundle_finish(struct sb_bundle *b, struct sb_err *err);

/* Free the writer.  An unfinished bundle stays on disk without manifest. */
void sb_bundle_free(struct sb_bundle *b);

/* ---- image keys -------------------------------------------------------- */

/**
 * sb_image_key() - compute the image-store key of an ELF file's bytes
 *
 * Returns 0, or -ENAMETOOLONG when @keysz is below SB_IMAGE_KEY_MAX.
 */
int sb_image_key(const void *buf, size_t len, char *key, size_t keysz);

/* SHA-256 (FIPS 180-4) of @len bytes into @digest (image keys; replay's
 * index cache MAC).
 */
void sb_sha256(const void *buf, size_t len, uint8_t digest[32]);

/* ---- the snapshot part ----------------------------------------------- */
/*
 * The end state (docs/bundle-format.md, "Snapshot"): per process its
 * mappings with the contents of the writable and anonymous ones, its
 * auxiliary vector, and per thread every register, where the recording
 * ended.
 */
#define SB_SNAP_MAGIC		"PTRSNAP"	/* 8 bytes with its NUL */
#define SB_SNAP_VERSION		5	/* 2: PROCESS has an exec generation;
				 * 3: FDS and RSEQ records;
				 * 4: device and inode of mappings and
				 * descriptors, descriptor types;
				 * 5: the recording's start time, each
				 * mapped file's times and file system */
#define SB_SNAP_HEADER_SIZE	32
/* Largest decompressed snapshot a reader accepts (its allocation bound). */
#define SB_SNAP_RAW_MAX		(16ull << 30)
/* The recorders' default --snapshot-limit (bytes of mapping contents). */
#define SB_SNAP_DEFAULT_LIMIT	(1ull << 30)

/* How a process's recording ended (struct sb_snap_proc.end). */
enum sb_snap_end {
	SB_SNAP_END_EXIT = 1,	/* exit/exit_group, at PTRACE_EVENT_EXIT */
	SB_SNAP_END_SIGNAL,	/* a fatal signal, before it killed */
	SB_SNAP_END_STOP,	/* --max-insns, SIGINT/SIGTERM to ptrec */
	SB_SNAP_END_DETACH,	/* -p: ptrec detached */
	SB_SNAP_END_EXEC,	/* the old image, at execve */
};

/* Where a mapping's bytes are (struct sb_snap_map.content). */
enum sb_snap_content {
	SB_SNAP_DATA = 0,	/* in the snapshot */
	SB_SNAP_IMAGE,		/* a read-only file mapping: the image store */
	SB_SNAP_OVER_LIMIT,	/* left out: --snapshot-limit */
	SB_SNAP_UNREADABLE,	/* left out: no access (PROT_NONE, [vvar]) */
};

/* Mapping permissions (struct sb_snap_map.prot). */
#define SB_SNAP_R	1u
#define SB_SNAP_W	2u
#define SB_SNAP_X	4u
#define SB_SNAP_SHARED	8u

#define SB_SNAP_SIGINFO_SIZE	128
#define SB_SNAP_FPREGS_SIZE	512	/* struct user_fpregs_struct */
#define SB_SNAP_XSTATE_MAX	(64u << 10)

struct sb_snap_thread {
	uint32_t tid;
	uint32_t has_siginfo;		/* the thread a fatal signal hit */
	uint64_t regs[27];		/* enum sb_reg order */
	const uint8_t *fpregs;		/* NT_PRFPREG, NULL if unknown */
	uint32_t fpregs_len;
	uint32_t xstate_len;
	const uint8_t *xstate;		/* NT_X86_XSTATE, NULL if unknown */
	uint8_t siginfo[SB_SNAP_SIGINFO_SIZE];
};

struct sb_snap_map {
	uint64_t start, end, pgoff;
	uint32_t prot;			/* SB_SNAP_R | ... */
	uint32_t content;		/* enum sb_snap_content */
	const char *path;		/* "" for anonymous */
	const uint8_t *data;		/* end - start bytes for SB_SNAP_DATA */
	/* Version 4: the file's device and inode as /proc/PID/maps shows
	 * them (0:0 and 0 anonymous); a version-3 reader leaves them 0
	 * (struct sb_snap_proc.has_ids false).
	 */
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	/* Version 5: the mapped file's last modification and status change
	 * (ns since the epoch, as stat shows them at the end; 0 not known:
	 * not a file, or its times could not be read) and its file
	 * system's type (statfs f_type, 0 not known).  With the process's
	 * start_ns they tell whether anyone may have written the file
	 * during the recording (docs/values.md "Files").
	 */
	uint64_t mtime_ns, ctime_ns;
	uint32_t fs_type;
	uint32_t file_flags;		/* SB_SNAP_FILE_* (version 5) */
};

/*
 * struct sb_snap_map.file_flags: the file is on a file system whose
 * stores through a shared mapping set no time (tmpfs, hugetlbfs) and
 * some process mapped it shared at the end: its times do not show
 * every change.
 */
#define SB_SNAP_FILE_UNSTAMPED	1u

/*
 * What a process's descriptor named at its end (struct sb_snap_fd.kind):
 * the values engine must know which ones write its memory.
 */
enum sb_snap_fd_kind {
	SB_SNAP_FD_OTHER = 0,	/* version 3: anything but a memory file;
				 * version 4: none of the kinds below */
	SB_SNAP_FD_MEM,		/* /proc/PID/mem or /proc/PID/task/TID/mem */
	SB_SNAP_FD_UNKNOWN,	/* its link (or its file) could not be read */
	/* version 4 */
	SB_SNAP_FD_REG,		/* a regular file */
	SB_SNAP_FD_MEMFD,	/* a regular file of memfd_create */
	SB_SNAP_FD_PIPE,	/* a pipe or FIFO */
	SB_SNAP_FD_SOCKET,
	SB_SNAP_FD_TTY,		/* a character device that is a terminal */
	SB_SNAP_FD_CHR,		/* another character device */
	SB_SNAP_FD_BLK,		/* a block device */
	SB_SNAP_FD_DIR,
	SB_SNAP_FD_ANON,	/* an anonymous inode (eventfd, epoll, ...) */
};
#define SB_SNAP_FD_KIND_MAX	SB_SNAP_FD_ANON

struct sb_snap_fd {
	uint32_t fd;
	uint32_t kind;			/* enum sb_snap_fd_kind */
	/* Version 4: its file's device and inode (fstat through
	 * /proc/PID/fd/N), 0 where not known (kind UNKNOWN, version 3).
	 */
	uint32_t dev_major, dev_minor;
	uint64_t ino;
};

/*
 * An rseq area (struct rseq, which the kernel rewrites whenever the thread
 * is scheduled) registered by thread @tid at some time of the recording.
 */
struct sb_snap_rseq {
	uint64_t addr;
	uint32_t len;			/* as registered; the kernel writes 32 */
	uint32_t tid;
};

#define SB_SNAP_RSEQ_COMPLETE	1u	/* every registration is listed */

struct sb_snap_proc {
	uint32_t pid, ppid;
	uint32_t gen;			/* exec generation: 0, 1 after an exec */
	uint32_t end;			/* enum sb_snap_end */
	int32_t status;			/* signal number or exit status */
	const char *exe;
	const uint8_t *auxv;
	uint32_t auxv_len;
	struct sb_snap_thread *threads;
	size_t nthreads;
	struct sb_snap_map *maps;	/* sorted, not overlapping */
	size_t nmaps;
	/* Version 3: its open descriptors at the end (has_fds: an FDS
	 * record lists every one), and the rseq areas its threads had
	 * registered (has_rseq: an RSEQ record; rseq_flags
	 * SB_SNAP_RSEQ_COMPLETE when those of the whole recording).
	 */
	bool has_fds, has_rseq;
	/* Version 4: its mappings and descriptors have device and inode. */
	bool has_ids;
	/* Version 5 (has_times): its mappings have their files' times, and
	 * start_ns is when the recording began (CLOCK_REALTIME_COARSE, ns
	 * since the epoch, the clock file times come from; 0 not known).
	 */
	bool has_times;
	uint64_t start_ns;
	uint32_t rseq_flags;
	struct sb_snap_fd *fds;		/* in increasing fd order */
	size_t nfds;
	struct sb_snap_rseq *rseq;
	size_t nrseq;
};

struct sb_snapshot {
	uint8_t *raw;			/* the decompressed part; owns the data */
	size_t raw_len;
	struct sb_snap_proc *procs;
	size_t nprocs;
};

/**
 * sb_snap_load() - read and check a snapshot part
 *
 * Reads the header, decompresses (zstd, with its checksum) and checks every
 * record: sizes, a process before its threads and mappings, mappings in
 * order and not overlapping, contents present exactly for SB_SNAP_DATA,
 * the end record.  Allocates at most SB_SNAP_RAW_MAX plus the index, and
 * no more than twice what the frame really decompresses to (the header's
 * size is a claim, checked at the end).
 *
 * Returns 0, or with a message naming the file and the byte offset (in the
 * file for the header and compressed data, in the decompressed data for
 * records):
 * -EBADMSG: truncated, damaged, or not a snapshot;
 * -EPROTONOSUPPORT: another snapshot version;
 * -EFBIG: over SB_SNAP_RAW_MAX; -ENOMEM; the errno of the file operation.
 */
int sb_snap_load(struct sb_snapshot **snap, const char *path,
		 struct sb_err *err);

/* As sb_snap_load() for a part held in memory; @name names it in messages. */
int sb_snap_load_mem(struct sb_snapshot **snap, const void *buf, size_t len,
		     const char *name, struct sb_err *err);

void sb_snap_free(struct sb_snapshot *snap);

/* Lookups; NULL when absent.  A process and thread are looked up in its
 * last image (the highest exec generation); sb_snap_proc_gen() gives an
 * earlier one.
 */
const struct sb_snap_proc *sb_snap_proc(const struct sb_snapshot *s,
					uint32_t pid);
const struct sb_snap_proc *sb_snap_proc_gen(const struct sb_snapshot *s,
					    uint32_t pid, uint32_t gen);
const struct sb_snap_thread *sb_snap_thread(const struct sb_snapshot *s,
					    uint32_t tid,
					    const struct sb_snap_proc **proc);

/**
 * sb_snap_read_mem() - bytes of a process's memory from the snapshot
 *
 * Copies what SB_SNAP_DATA mappings hold of [@addr, @addr + @len).
 * Returns the number of bytes copied from @addr on (stops at the first
 * byte the snapshot does not hold).
 */
size_t sb_snap_read_mem(const struct sb_snap_proc *p, uint64_t addr,
			void *buf, size_t len);

/* Names for messages ("exit", "data", ...). */
const char *sb_snap_end_name(uint32_t end);
const char *sb_snap_content_name(uint32_t content);

/* ---- writing ----------------------------------------------------------- */

struct sb_snap_writer;

/**
 * sb_snap_writer_open() - start a snapshot part at @path
 *
 * Writes into "@path.tmp" and renames it to @path in
 * sb_snap_writer_close(), so @path is whole or absent.  Returns 0, -ENOMEM
 * or the errno of the file operation.
 */
int sb_snap_writer_open(struct sb_snap_writer **w, const char *path,
			struct sb_err *err);

/* Begins a process: its threads and mappings follow.  @exe may be NULL. */
int sb_snap_writer_proc(struct sb_snap_writer *w,
			const struct sb_snap_proc *p, struct sb_err *err);
int sb_snap_writer_thread(struct sb_snap_writer *w,
			  const struct sb_snap_thread *t, struct sb_err *err);
/* @m->data is written for SB_SNAP_DATA; mappings in address order. */
int sb_snap_writer_map(struct sb_snap_writer *w, const struct sb_snap_map *m,
		       struct sb_err *err);
/*
 * The current process's open descriptors (@fds in increasing fd order,
 * every one it has), and the rseq areas its threads registered (@flags
 * SB_SNAP_RSEQ_COMPLETE when the list holds all of the recording's); each
 * at most once a process.  -EINVAL for an unsorted list or a kind the
 * reader does not know.
 */
int sb_snap_writer_fds(struct sb_snap_writer *w, const struct sb_snap_fd *fds,
		       size_t n, struct sb_err *err);
int sb_snap_writer_rseq(struct sb_snap_writer *w,
			const struct sb_snap_rseq *rs, size_t n,
			uint32_t flags, struct sb_err *err);

/* Bytes of mapping contents written so far (before compression). */
uint64_t sb_snap_writer_data_bytes(const struct sb_snap_writer *w);

/**
 * sb_snap_writer_close() - end record, flush, sync, rename into place
 *
 * Returns 0 or the first error (for example -ENOSPC); frees @w in every
 * case.  On error the temporary file is removed.
 */
int sb_snap_writer_close(struct sb_snap_writer *w, struct sb_err *err);

/* Abandons the part: removes the temporary file, frees @w. */
void sb_snap_writer_abort(struct sb_snap_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* PTREC_SIDEBAND_H */
