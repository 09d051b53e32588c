/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to gdb/server/: GDB remote serial protocol framing, apart from
 * what the packets mean (server.c).  "$data#cs" packets, '+'/'-' acks until
 * no-ack mode, '}'-escaping of binary data, and the 0x03 interrupt byte.
 */
#ifndef PTREC_GDB_RSP_H
#define PTREC_GDB_RSP_H

#include <stdbool.h>
#include <stddef.h>

#define RSP_MAX_PACKET 16384
/* rsp_recv(): a packet longer than the buffer. */
#define RSP_OVERLONG (-2)

struct rsp {
	int in, out;
	bool noack;		/* QStartNoAckMode accepted */
	bool interrupted;	/* a 0x03 arrived */
	int idle_ms;		/* > 0: a client silent this long is gone */
	bool timed_out;		/* ... and that is why reading stopped */
	char buf[4096];		/* read-ahead */
	size_t pos, len;
};

void rsp_init(struct rsp *r, int in, int out);

/*
 * Reads the next packet's payload into @pkt (NUL-terminated, escapes
 * undone), acknowledging it unless in no-ack mode; a bad checksum is
 * answered '-' and the packet read again (a non-hex checksum digit is a
 * bad checksum).  Returns its length, 0 for a lone interrupt byte,
 * RSP_OVERLONG for a packet that did not fit in @size (acknowledged, its
 * payload dropped), or -1 at end of input or on a read error.
 */
int rsp_recv(struct rsp *r, char *pkt, size_t size);

/* Sends @len bytes as one packet, escaping '#', '$', '}' and '*'.  Waits for
 * the '+' unless in no-ack mode (resending on '-').  Returns 0 or -1.
 */
int rsp_send(struct rsp *r, const char *data, size_t len);

/* rsp_send() of a NUL-terminated string. */
int rsp_send_str(struct rsp *r, const char *s);

/* The value of hex digit @c (either case), or -1. */
int rsp_hexval(int c);

#endif
