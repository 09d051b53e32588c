/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ptkit's public header: the Intel PT pieces record/, import/, replay/ and
 * tools/ptgen share.  The packet scan lives here because the replay
 * engine's PSB scan and the importers' stream checks walked packets the
 * same way, three times over (issue #14); the encoder and the instruction
 * classifier keep their own headers for now (ptenc.h, insn.h).
 */
#ifndef PTREC_PTKIT_H
#define PTREC_PTKIT_H

#include <stddef.h>
#include <stdint.h>

struct pt_packet;

/* What a scan callback returns. */
enum ptkit_scan_action {
	PTKIT_SCAN_NEXT = 0,	/* the next packet */
	PTKIT_SCAN_SKIP = 1,	/* straight to the next PSB, by its pattern */
};

/*
 * Called for every packet the scan decodes, at its stream offset @off;
 * with @pkt NULL for bytes libipt cannot decode at @off (the scan then
 * resyncs at the next PSB).  Returns an enum ptkit_scan_action, or a
 * negative value that ends the scan with it.
 */
typedef int (*ptkit_scan_fn)(void *ctx, uint64_t off,
			     const struct pt_packet *pkt);

/**
 * ptkit_stream_scan() - every packet of a raw PT stream, from its first PSB
 * @buf, @len:	the stream
 * @fn, @ctx:	the callback and its context
 * @cut:	(optional) set to the offset of a last packet whose bytes run
 *		past the end (a truncated dump), else UINT64_MAX
 *
 * Decoding errors resync at the next PSB (SDM Vol. 3C 33.4.2.17: a PSB is
 * a sync point), so damage never ends a scan.
 *
 * Return: 0, -ENOMEM, or the callback's negative value.
 */
int ptkit_stream_scan(const uint8_t *buf, size_t len, ptkit_scan_fn fn,
		      void *ctx, uint64_t *cut);

/**
 * ptkit_pkt_len() - a packet's size from its header alone
 * @p, @left:	the packet's first byte and the bytes from there on
 *
 * SDM Vol. 3C 33.4.2: every packet has a fixed size or one its header
 * gives (IP compression, CYC's continuation bits, PTWRITE's payload size),
 * so walking packets by their headers is far cheaper than decoding them
 * with libipt (a stream of 1.4 MB with one PSB: 195 M instructions through
 * ptkit_stream_scan).  No packet's contents are checked.
 *
 * Return: the size; more than @left when the packet runs past the end; 0
 * for a header not known here (the caller decodes with libipt instead).
 */
size_t ptkit_pkt_len(const uint8_t *p, size_t left);

/* One item of a PEBS block (BIP), with the block's type (BBP). */
struct ptkit_pebs_item {
	uint8_t type;		/* BBP type */
	uint8_t id;		/* BIP ID */
	uint8_t size;		/* 4 or 8 */
	uint64_t value;
};

/**
 * ptkit_pebs_block() - a PEBS block's packets at @p (pebs.c)
 * @p, @end:	the stream from a packet starting with 02
 * @items:	where up to @max items go; *@n gets how many
 *
 * Reads a BBP, the BIPs right after it and the BEP right after them, or a
 * lone BEP.
 *
 * Return: the bytes read, or -1 when @p holds none of these.
 */
int ptkit_pebs_block(const uint8_t *p, const uint8_t *end,
		     struct ptkit_pebs_item *items, size_t max, size_t *n);

/**
 * ptkit_lib_load() - a library loaded on first use (ptkit/liblazy.c)
 * @soname:	its soname, as linked against
 * @flags:	dlopen()'s RTLD_LAZY or RTLD_NOW (RTLD_LOCAL is added)
 * @names, @fns: the @n symbols to look up, and where they go
 *
 * Return: the dlopen() handle, or NULL with the reason on stderr and every
 * @fns NULL.
 */
void *ptkit_lib_load(const char *soname, int flags, const char *const *names,
		     void **fns, size_t n);

#endif
