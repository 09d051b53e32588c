/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The packet list the stream-writing test tools (mkevents, mkcycles,
 * mkretcomp, mktsx) build before libipt's encoder writes it, and the file
 * writers they share.  Each tool is one source file, so this header holds
 * the definitions themselves (the helpers not every tool calls are
 * static inline, so that no tool warns of an unused one).
 */
#ifndef PTREC_TESTS_PKBUILD_H
#define PTREC_TESTS_PKBUILD_H

#include <intel-pt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PKB_MAX 64

static struct pt_packet pk[PKB_MAX];
static size_t npk;

/* A new packet of @type at the end of the list, its payload zero. */
static struct pt_packet *add(enum pt_packet_type type)
{
	struct pt_packet *p;

	if (npk == PKB_MAX) {
		fprintf(stderr, "pkbuild: more than %d packets\n", PKB_MAX);
		exit(1);
	}
	p = &pk[npk++];
	memset(p, 0, sizeof(*p));
	p->type = type;
	return p;
}

/* An IP packet: @addr in full (sign-extended 48 bits), 0 suppressed. */
static void ip(enum pt_packet_type type, uint64_t addr)
{
	struct pt_packet *p = add(type);

	p->payload.ip.ipc = addr ? pt_ipc_sext_48 : pt_ipc_suppressed;
	p->payload.ip.ip = addr;
}

/* MODE.Exec: 64-bit code (CS.L). */
static inline void mode64(void)
{
	struct pt_packet *p = add(ppt_mode);

	p->payload.mode.leaf = pt_mol_exec;
	p->payload.mode.bits.exec.csl = 1;
}

/* MODE.TSX with InTX @intx and TXAbort @abrt, then its FUP at @at. */
static inline void tsx(int intx, int abrt, uint64_t at)
{
	struct pt_packet *p = add(ppt_mode);

	p->payload.mode.leaf = pt_mol_tsx;
	p->payload.mode.bits.tsx.intx = intx & 1;
	p->payload.mode.bits.tsx.abrt = abrt & 1;
	ip(ppt_fup, at);
}

/*
 * Bytes libipt's encoder cannot write (packets it does not know), put in
 * the stream as they are before packet pkb_raw_at; none when pkb_raw is
 * NULL.
 */
static const unsigned char *pkb_raw;
static size_t pkb_raw_len, pkb_raw_at = SIZE_MAX;

/*
 * Encodes the packet list into @buf (@size bytes) and stores the stream's
 * length in *@len; says on stderr which packet libipt refused, for @tool
 * writing @name, when it cannot.
 */
static inline int encode_packets(uint8_t *buf, size_t size, uint64_t *len,
				 const char *tool, const char *name)
{
	struct pt_encoder *enc;
	struct pt_config cfg;
	size_t i;
	int ret = 0;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + size;
	enc = pt_alloc_encoder(&cfg);
	if (!enc)
		return -1;
	for (i = 0; i < npk && ret >= 0; i++) {
		if (pkb_raw && i == pkb_raw_at) {
			pt_enc_get_offset(enc, len);
			memcpy(buf + *len, pkb_raw, pkb_raw_len);
			pt_enc_sync_set(enc, *len + pkb_raw_len);
		}
		ret = pt_enc_next(enc, &pk[i]);
	}
	pt_enc_get_offset(enc, len);
	pt_free_encoder(enc);
	if (ret < 0) {
		fprintf(stderr, "%s: %s: packet %zu: %s\n", tool, name, i - 1,
			pt_errstr(pt_errcode(ret)));
		return -1;
	}
	return 0;
}

/* DIR/NAME := @buf; says why on stderr when it cannot. */
static int write_file(const char *dir, const char *name, const void *buf,
		      size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

/* DIR/NAME := the packet list, encoded (@tool names the program). */
static inline int write_packets(const char *tool, const char *dir,
				const char *name)
{
	static uint8_t buf[4096];
	uint64_t len = 0;

	if (encode_packets(buf, sizeof(buf), &len, tool, name))
		return -1;
	return write_file(dir, name, buf, len);
}

/* DIR/list := import raw's images list: DIR/code.bin at @base. */
static inline int write_list(const char *dir, unsigned long long base)
{
	char list[4200];

	snprintf(list, sizeof(list), "%s/code.bin 0x%llx\n", dir, base);
	return write_file(dir, "list", list, strlen(list));
}

#endif
