// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * GDB remote serial protocol framing (GDB manual, "Overview" of the remote
 * protocol): packets are $payload#checksum, the checksum the modulo-256 sum
 * of the payload bytes as two hex digits; '}' escapes a byte XORed with
 * 0x20; the receiver answers '+' or '-' until no-ack mode is agreed.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rsp.h"

void rsp_init(struct rsp *r, int in, int out)
{
	memset(r, 0, sizeof(*r));
	r->in = in;
	r->out = out;
}

static int get(struct rsp *r)
{
	if (r->pos == r->len) {
		ssize_t n;

		if (r->idle_ms > 0) {
			struct pollfd p = { .fd = r->in, .events = POLLIN };
			int k;

			do
				k = poll(&p, 1, r->idle_ms);
			while (k < 0 && errno == EINTR);
			if (k <= 0) {
				r->timed_out = k == 0;
				return -1;
			}
		}
		do
			n = read(r->in, r->buf, sizeof(r->buf));
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			return -1;
		r->pos = 0;
		r->len = (size_t)n;
	}
	return (unsigned char)r->buf[r->pos++];
}

static int put(struct rsp *r, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(r->out, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int rsp_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int rsp_recv(struct rsp *r, char *pkt, size_t size)
{
	for (;;) {
		unsigned int sum = 0, want;
		size_t n = 0;
		int c, h, l;
		bool esc = false, overlong = false;

		/* Skip acks and noise until a packet or an interrupt. */
		do {
			c = get(r);
			if (c < 0)
				return -1;
			if (c == 0x03) {
				r->interrupted = true;
				return 0;
			}
		} while (c != '$');
		for (;;) {
			c = get(r);
			if (c < 0)
				return -1;
			if (c == '#')
				break;
			sum += (unsigned int)c;
			if (esc) {
				c ^= 0x20;
				esc = false;
			} else if (c == '}') {
				esc = true;
				continue;
			}
			if (n + 1 < size)
				pkt[n++] = (char)c;
			else
				overlong = true;
		}
		h = rsp_hexval(get(r));
		l = rsp_hexval(get(r));
		pkt[n] = '\0';
		/* A non-hex checksum digit is a bad checksum, never a shift
		 * of -1.
		 */
		want = h < 0 || l < 0 ? 0x100 : (unsigned int)(h << 4 | l);
		if (want != (sum & 0xff)) {
			if (!r->noack && put(r, "-", 1))
				return -1;
			continue;
		}
		if (!r->noack && put(r, "+", 1))
			return -1;
		/* Never a truncated packet's meaning: refuse it whole. */
		return overlong ? RSP_OVERLONG : (int)n;
	}
}

int rsp_send(struct rsp *r, const char *data, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char out[2 * RSP_MAX_PACKET + 8];
	unsigned int sum = 0;
	size_t i, n = 0;
	int c;

	out[n++] = '$';
	for (i = 0; i < len && n + 6 < sizeof(out); i++) {
		c = (unsigned char)data[i];
		if (c == '$' || c == '#' || c == '}' || c == '*') {
			out[n++] = '}';
			sum += '}';
			c ^= 0x20;
		}
		out[n++] = (char)c;
		sum += (unsigned int)c;
	}
	out[n++] = '#';
	out[n++] = hex[(sum >> 4) & 0xf];
	out[n++] = hex[sum & 0xf];
	for (;;) {
		if (put(r, out, n))
			return -1;
		if (r->noack)
			return 0;
		do {
			c = get(r);
			if (c == 0x03)
				r->interrupted = true;
		} while (c >= 0 && c != '+' && c != '-');
		if (c < 0)
			return -1;
		if (c == '+')
			return 0;
	}
}

int rsp_send_str(struct rsp *r, const char *s)
{
	return rsp_send(r, s, strlen(s));
}
