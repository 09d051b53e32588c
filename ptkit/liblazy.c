// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Nettle and zstd, loaded on first use, as ptkit/cslazy.c loads capstone
 * and replay/opclazy.c libopcodes.  Nettle is linked with BIND_NOW: its
 * 671 symbol bindings cost every process start 0.33 M instructions
 * (callgrind), and zstd's 0.09 M, though only some commands need them:
 * the index file's MAC (replay/idxcache.c) and snapshots
 * (sideband/snapshot.c); `ptrec import raw` needs neither (issue #19).
 * ptrec and ptrec-server link with `-Wl,--wrap=` for the functions those
 * files call (Makefile, LIB_LAZY), and each wrapper opens its library by
 * the soname of the one linked against the first time.  Without the
 * library, a MAC never verifies (an index is built again, never trusted)
 * and zstd contexts cannot be made: errors, never wrong data.  The tests
 * link the libraries directly and never pull this file in.
 */
#include <dlfcn.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#include "ptkit.h"

#if !defined(NETTLE_SONAME) || !defined(ZSTD_SONAME)
#error "NETTLE_SONAME, ZSTD_SONAME: the sonames (the Makefile reads them)"
#endif
_Static_assert(sizeof(NETTLE_SONAME) > 1 && sizeof(ZSTD_SONAME) > 1,
	       "a soname is empty: the Makefile could not read it with objdump");

/*
 * ptkit_lib_load() - the library @soname, opened with dlopen() @flags,
 * with every symbol of @names into @fns; NULL (and why on stderr) when it
 * cannot be opened or lacks one.  Shared by the loaders of capstone
 * (cslazy.c), libopcodes (replay/opclazy.c), nettle and zstd (here).
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

/* ---- nettle ------------------------------------------------------------- */

static const char *const nettle_names[] = {
	"nettle_hmac_sha256_set_key", "nettle_hmac_sha256_update",
	"nettle_hmac_sha256_digest", "nettle_memeql_sec",
};
static union {
	void *v[4];
	struct {
		void (*set_key)(struct hmac_sha256_ctx *, size_t,
				const uint8_t *);
		void (*update)(struct hmac_sha256_ctx *, size_t,
			       const uint8_t *);
		void (*digest)(struct hmac_sha256_ctx *, size_t, uint8_t *);
		int (*memeql_sec)(const void *, const void *, size_t);
	} f;
} nt;
static void *nettle_lib;
static pthread_once_t nettle_once = PTHREAD_ONCE_INIT;

static void nettle_load(void)
{
	nettle_lib = ptkit_lib_load(NETTLE_SONAME, RTLD_LAZY, nettle_names,
				    nt.v, 4);
}

void __wrap_nettle_hmac_sha256_set_key(struct hmac_sha256_ctx *ctx,
				       size_t key_length, const uint8_t *key);
void __wrap_nettle_hmac_sha256_set_key(struct hmac_sha256_ctx *ctx,
				       size_t key_length, const uint8_t *key)
{
	pthread_once(&nettle_once, nettle_load);
	if (nettle_lib)
		nt.f.set_key(ctx, key_length, key);
}

void __wrap_nettle_hmac_sha256_update(struct hmac_sha256_ctx *ctx,
				      size_t length, const uint8_t *data);
void __wrap_nettle_hmac_sha256_update(struct hmac_sha256_ctx *ctx,
				      size_t length, const uint8_t *data)
{
	pthread_once(&nettle_once, nettle_load);
	if (nettle_lib)
		nt.f.update(ctx, length, data);
}

void __wrap_nettle_hmac_sha256_digest(struct hmac_sha256_ctx *ctx,
				      size_t length, uint8_t *digest);
void __wrap_nettle_hmac_sha256_digest(struct hmac_sha256_ctx *ctx,
				      size_t length, uint8_t *digest)
{
	pthread_once(&nettle_once, nettle_load);
	if (nettle_lib)
		nt.f.digest(ctx, length, digest);
	else
		memset(digest, 0, length);
}

/* Without nettle nothing is equal: no MAC verifies. */
int __wrap_nettle_memeql_sec(const void *a, const void *b, size_t n);
int __wrap_nettle_memeql_sec(const void *a, const void *b, size_t n)
{
	pthread_once(&nettle_once, nettle_load);
	return nettle_lib ? nt.f.memeql_sec(a, b, n) : 0;
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
