// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * zstd and liblzma, loaded on first use, as ptkit/cslazy.c loads capstone
 * and replay/opclazy.c libopcodes: zstd's symbol bindings cost every
 * process start 0.09 M instructions (callgrind), though only snapshots
 * (sideband/snapshot.c) need it; liblzma's constructor runs CPUID (below).  ptrec and ptrec-server link with
 * `-Wl,--wrap=` for the functions that file calls (Makefile, LIB_LAZY),
 * and each wrapper opens the library by the soname of the one linked
 * against the first time.  Without it, zstd contexts cannot be made and
 * xz files cannot be read: errors, never wrong data.  Nettle was loaded here too; every first open
 * needs it (the index file's MAC), so it is now linked in from its
 * archive (Makefile, STATIC_LIBS; issue #19).  The tests link the
 * libraries directly and never pull this file in.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <lzma.h>
#include <string.h>
#include <zstd.h>

#include "ptkit.h"

#if !defined(ZSTD_SONAME) || !defined(LZMA_SONAME)
#error "ZSTD_SONAME, LZMA_SONAME: the sonames (the Makefile reads them)"
#endif
_Static_assert(sizeof(ZSTD_SONAME) > 1 && sizeof(LZMA_SONAME) > 1,
	       "a soname is empty: the Makefile could not read it with objdump");

/*
 * ptkit_lib_load() - the library @soname, opened with dlopen() @flags,
 * with every symbol of @names into @fns; NULL (and why on stderr) when it
 * cannot be opened or lacks one.  Shared by the loaders of capstone
 * (cslazy.c), libopcodes (replay/opclazy.c) and zstd (here).
 */
void *ptkit_lib_load(const char *soname, int flags, const char *const *names,
		     void **fns, size_t n)
{
	void *lib = dlopen(soname, flags | RTLD_LOCAL);
	size_t i;

	if (!lib) {
		fprintf(stderr, "ptrec: cannot load %s: %s\n", soname,
			dlerror());
		return NULL;
	}
	for (i = 0; i < n; i++) {
		fns[i] = dlsym(lib, names[i]);
		if (!fns[i]) {
			fprintf(stderr, "ptrec: %s lacks %s\n", soname,
				names[i]);
			dlclose(lib);
			for (i = 0; i < n; i++)
				fns[i] = NULL;
			return NULL;
		}
	}
	return lib;
}

/* ---- zstd --------------------------------------------------------------- */

static const char *const zstd_names[] = {
	"ZSTD_isError", "ZSTD_getErrorName", "ZSTD_createCCtx",
	"ZSTD_freeCCtx", "ZSTD_createDCtx", "ZSTD_freeDCtx",
	"ZSTD_CCtx_setParameter", "ZSTD_compressStream2",
	"ZSTD_CStreamOutSize", "ZSTD_decompressStream",
};
static union {
	void *v[10];
	struct {
		unsigned int (*is_error)(size_t);
		const char *(*error_name)(size_t);
		ZSTD_CCtx *(*create_c)(void);
		size_t (*free_c)(ZSTD_CCtx *);
		ZSTD_DCtx *(*create_d)(void);
		size_t (*free_d)(ZSTD_DCtx *);
		size_t (*set_param)(ZSTD_CCtx *, ZSTD_cParameter, int);
		size_t (*compress)(ZSTD_CCtx *, ZSTD_outBuffer *,
				   ZSTD_inBuffer *, ZSTD_EndDirective);
		size_t (*out_size)(void);
		size_t (*decompress)(ZSTD_DStream *, ZSTD_outBuffer *,
				     ZSTD_inBuffer *);
	} f;
} zs;
static void *zstd_lib;
static pthread_once_t zstd_once = PTHREAD_ONCE_INIT;

static void zstd_load(void)
{
	zstd_lib = ptkit_lib_load(ZSTD_SONAME, RTLD_LAZY, zstd_names, zs.v,
				  10);
}

#define ZSTD_READY()	(pthread_once(&zstd_once, zstd_load), zstd_lib)
#define ZSTD_FAILED	((size_t)-1)	/* an error code to ZSTD_isError */

unsigned int __wrap_ZSTD_isError(size_t code);
unsigned int __wrap_ZSTD_isError(size_t code)
{
	return ZSTD_READY() ? zs.f.is_error(code) : 1;
}

const char *__wrap_ZSTD_getErrorName(size_t code);
const char *__wrap_ZSTD_getErrorName(size_t code)
{
	return ZSTD_READY() ? zs.f.error_name(code) :
			      "cannot load " ZSTD_SONAME;
}

ZSTD_CCtx *__wrap_ZSTD_createCCtx(void);
ZSTD_CCtx *__wrap_ZSTD_createCCtx(void)
{
	return ZSTD_READY() ? zs.f.create_c() : NULL;
}

size_t __wrap_ZSTD_freeCCtx(ZSTD_CCtx *cctx);
size_t __wrap_ZSTD_freeCCtx(ZSTD_CCtx *cctx)
{
	return cctx && ZSTD_READY() ? zs.f.free_c(cctx) : 0;
}

ZSTD_DCtx *__wrap_ZSTD_createDCtx(void);
ZSTD_DCtx *__wrap_ZSTD_createDCtx(void)
{
	return ZSTD_READY() ? zs.f.create_d() : NULL;
}

size_t __wrap_ZSTD_freeDCtx(ZSTD_DCtx *dctx);
size_t __wrap_ZSTD_freeDCtx(ZSTD_DCtx *dctx)
{
	return dctx && ZSTD_READY() ? zs.f.free_d(dctx) : 0;
}

size_t __wrap_ZSTD_CCtx_setParameter(ZSTD_CCtx *cctx, ZSTD_cParameter param,
				     int value);
size_t __wrap_ZSTD_CCtx_setParameter(ZSTD_CCtx *cctx, ZSTD_cParameter param,
				     int value)
{
	return ZSTD_READY() ? zs.f.set_param(cctx, param, value) :
			      ZSTD_FAILED;
}

size_t __wrap_ZSTD_compressStream2(ZSTD_CCtx *cctx, ZSTD_outBuffer *output,
				   ZSTD_inBuffer *input,
				   ZSTD_EndDirective end_op);
size_t __wrap_ZSTD_compressStream2(ZSTD_CCtx *cctx, ZSTD_outBuffer *output,
				   ZSTD_inBuffer *input,
				   ZSTD_EndDirective end_op)
{
	return ZSTD_READY() ? zs.f.compress(cctx, output, input, end_op) :
			      ZSTD_FAILED;
}

/* A buffer size even without the library (contexts then fail). */
size_t __wrap_ZSTD_CStreamOutSize(void);
size_t __wrap_ZSTD_CStreamOutSize(void)
{
	return ZSTD_READY() ? zs.f.out_size() : (size_t)128 << 10;
}

size_t __wrap_ZSTD_decompressStream(ZSTD_DStream *zds, ZSTD_outBuffer *output,
				    ZSTD_inBuffer *input);
size_t __wrap_ZSTD_decompressStream(ZSTD_DStream *zds, ZSTD_outBuffer *output,
				    ZSTD_inBuffer *input)
{
	return ZSTD_READY() ? zs.f.decompress(zds, output, input) :
			      ZSTD_FAILED;
}

/* ---- xz (liblzma) ------------------------------------------------------- */

/*
 * libdw (linked in, Makefile STATIC_LIBS) decompresses xz files with these
 * three; linked in too, liblzma's constructor picked its CRC64 code with
 * CPUID at every process start (about 30 us here, a VM exit each), for
 * the rare xz-compressed file.  Without the library such a file does not
 * open (libdw reports it), nothing else changes.
 */
static const char *const lzma_names[] = {
	"lzma_auto_decoder", "lzma_code", "lzma_end",
};
static union {
	void *v[3];
	struct {
		lzma_ret (*auto_decoder)(lzma_stream *, uint64_t, uint32_t);
		lzma_ret (*code)(lzma_stream *, lzma_action);
		void (*end)(lzma_stream *);
	} f;
} xz;
static void *lzma_lib;
static pthread_once_t lzma_once = PTHREAD_ONCE_INIT;

static void lzma_load(void)
{
	lzma_lib = ptkit_lib_load(LZMA_SONAME, RTLD_LAZY, lzma_names, xz.v, 3);
}

#define LZMA_READY()	(pthread_once(&lzma_once, lzma_load), lzma_lib)

lzma_ret __wrap_lzma_auto_decoder(lzma_stream *strm, uint64_t memlimit,
				  uint32_t flags);
lzma_ret __wrap_lzma_auto_decoder(lzma_stream *strm, uint64_t memlimit,
				  uint32_t flags)
{
	return LZMA_READY() ? xz.f.auto_decoder(strm, memlimit, flags) :
			      LZMA_MEM_ERROR;
}

lzma_ret __wrap_lzma_code(lzma_stream *strm, lzma_action action);
lzma_ret __wrap_lzma_code(lzma_stream *strm, lzma_action action)
{
	return LZMA_READY() ? xz.f.code(strm, action) : LZMA_PROG_ERROR;
}

void __wrap_lzma_end(lzma_stream *strm);
void __wrap_lzma_end(lzma_stream *strm)
{
	if (LZMA_READY())
		xz.f.end(strm);
}
