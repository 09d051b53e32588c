/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * import/: turning PT traces recorded elsewhere into ptrec bundles.
 *
 * `ptrec import raw` takes raw PT streams (a ToPA dump, simple-pt's output,
 * a fuzzer's buffer) plus the code images they ran on; `ptrec import perf`
 * takes a perf.data file recorded with the intel_pt PMU.  Both write an
 * ordinary bundle (docs/bundle-format.md) with backend "import-raw" or
 * "import-perf", so every replay command works on the result.
 *
 * Functions here return 0 or a negative errno and put a message naming
 * the file, offset or argument into struct sb_err.
 */
#ifndef PTREC_IMPORT_H
#define PTREC_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "sideband.h"

/* The images of `ptrec import raw`, as the front end parsed them. */
enum import_img_kind { IMPORT_IMG_ELF, IMPORT_IMG_RAW, IMPORT_IMG_LIST };

/**
 * struct import_raw_image - one --elf, --raw or --images argument
 * @arg:	the argument as given, for messages.
 * @path:	the file (for a list: the list file).
 * @addr:	ELF: its load base, UINT64_MAX for the file's own addresses;
 *		raw: the address of its first byte.
 */
struct import_raw_image {
	enum import_img_kind kind;
	const char *arg;
	char *path;
	uint64_t addr;
};

/**
 * struct import_raw_stream - one --pt FILE[@OFFSET] and its --thread
 */
struct import_raw_stream {
	const char *arg;
	char *path;
	uint64_t off;
	uint32_t tid;
};

/* Everything `ptrec import raw` was told (cli/import.c parses it). */
struct import_raw_opts {
	const char *out;
	struct import_raw_stream *streams;
	size_t nstreams;
	struct import_raw_image *images;
	size_t nimages;
	struct sb_cpu cpu;
	bool have_cpu;
	uint32_t mtc_freq, nom_freq, cpuid_15_eax, cpuid_15_ebx;
	uint32_t pid;
};

/**
 * import_raw() - write the bundle @o->out from raw PT streams and images
 * @argc, @argv: the importer's command line ("raw ..."), for the manifest.
 *
 * Prints its messages.  Returns the process exit status (0 or 1).
 */
int import_raw(const struct import_raw_opts *o, int argc, char **argv);

/**
 * import_perf() - write the bundle @out from the perf.data file @in
 * @symfs:	where to look for images first (NULL: none).
 * @argc, @argv: the importer's command line ("perf ..."), for the manifest.
 *
 * Prints its messages.  Returns the process exit status (0 or 1).
 */
int import_perf(const char *out, const char *in, const char *symfs,
		int argc, char **argv);

/**
 * import_perf_parse_mem() - parse and split a perf.data image in memory
 * @quiet:	print no messages.
 * @nthreads, @nevents: receive the thread streams and sideband events
 *		found (may be NULL).
 *
 * What `ptrec import perf` does before writing anything, for the fuzz
 * harness.  Returns 0, or -1 when the file is refused.
 */
int import_perf_parse_mem(const uint8_t *buf, size_t len, bool quiet,
			  size_t *nthreads, size_t *nevents);

/**
 * import_set_argv() - record the import's own command line in the manifest
 * @argv:	the importer's arguments, "raw ..." or "perf ...".
 *
 * Stores "ptrec import" followed by @argv.  Returns 0 or -ENOMEM.
 */
int import_set_argv(struct sb_manifest *m, int argc, char **argv);

/**
 * struct import_scan - what a packet-level pass over a PT stream found
 * @first_psb:	offset of the first PSB (valid when @npsb > 0).
 * @npsb:	PSB packets seen.
 * @cut:	offset of a packet the stream ends inside, or UINT64_MAX when
 *		the stream ends on a packet boundary.
 * @last_tsc:	the last TSC packet's value (0: none).
 * @features:	enum sb_pt_feature bits of the packet kinds seen (TSC, MTC,
 *		CYC, PTWRITE, power events), plus SB_PT_BRANCH when any
 *		TNT/TIP was seen.
 */
struct import_scan {
	uint64_t first_psb;
	uint64_t npsb;
	uint64_t cut;
	uint64_t last_tsc;
	uint32_t features;
};

/**
 * import_stream_scan() - decode @buf's packets with libipt's packet decoder
 *
 * Undecodable bytes inside the stream are skipped to the next PSB (the
 * instruction decoder reports them as gaps later); only the end matters
 * here: a stream cut inside a packet (a truncated dump) sets @scan->cut.
 *
 * Returns 0, or -ENOMEM.
 */
int import_stream_scan(const uint8_t *buf, size_t len,
		       struct import_scan *scan);

/**
 * import_stream_probe() - import_stream_scan() without a full pass
 *
 * The first open of the bundle decodes the whole stream (its index), so an
 * importer that only copies the stream need not decode it too (issue #19):
 * this decodes the first 64 KiB from the first PSB and the stream from its
 * last PSB to the end, which is where a cut last packet and the last TSC
 * are.  @scan->features then holds the packet kinds seen in those parts;
 * @scan->npsb is nonzero exactly when the stream has a PSB.  Streams of up
 * to 128 KiB are scanned whole.
 *
 * Returns 0, or -ENOMEM.
 */
int import_stream_probe(const uint8_t *buf, size_t len,
			struct import_scan *scan);

/**
 * import_parse_cpu() - parse FAMILY/MODEL[/STEPPING] (decimal or 0x hex)
 *
 * Fills @cpu (vendor "GenuineIntel").  Returns 0, or -EINVAL with a message
 * naming @arg.
 */
int import_parse_cpu(const char *arg, struct sb_cpu *cpu, struct sb_err *err);

/**
 * import_add_elf() - store an ELF file and map its executable segments
 * @w:		the bundle's sideband writer.
 * @base:	load address of the lowest PT_LOAD segment; UINT64_MAX keeps
 *		the file's own addresses.
 *
 * Writes one snapshot MMAP record per executable PT_LOAD segment, 32-bit
 * or 64-bit ELF alike.  Returns 0, -ENOEXEC (not ELF, or no executable
 * segment; the message names @path), or the errors of
 * sb_bundle_add_image_file() and sb_writer_add_mmap().
 */
int import_add_elf(struct sb_bundle *b, struct sb_writer *w, uint32_t pid,
		   const char *path, uint64_t base, struct sb_err *err);

/**
 * import_add_blob() - store raw code bytes and map them
 * @off, @size:	the piece of @path to map (@size 0: to the end of the file).
 *
 * Returns 0, -EINVAL (offset or size beyond the file), or the errors of
 * sb_bundle_add_image_file() and sb_writer_add_mmap().
 */
int import_add_blob(struct sb_bundle *b, struct sb_writer *w, uint32_t pid,
		    const char *path, uint64_t addr, uint64_t off,
		    uint64_t size, struct sb_err *err);

#endif /* PTREC_IMPORT_H */
