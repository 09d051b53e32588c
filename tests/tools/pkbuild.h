/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The packet list the stream-writing test tools (mkevents, mkcycles,
 * mkretcomp) build before libipt's encoder writes it, and the file writer
 * they share.  Each tool is one source file, so this header holds the
 * definitions themselves.
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

#endif
