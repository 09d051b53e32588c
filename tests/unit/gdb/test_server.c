// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The whole GDB server (conn.c, server.c, target.c, monitor.c) on a
 * crafted bundle of 6,000 threads (tests/gdb/manythreads.py over a
 * recording of tests/programs/tiny), as GDB's packets arrive.  Issue #15:
 * qfThreadInfo overflowed a stack buffer with 6,000 threads (item 3),
 * qXfer:threads was capped at 8 KB (item 8); runs under ASan in make asan.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "server.h"

#ifndef MANY_BUNDLE
#error "MANY_BUNDLE: the crafted bundle of 6,000 threads"
#endif
#define NTHREADS 6000

static struct server sv;

static void setup(void)
{
	cr_assert_eq(target_open(&sv.tg, MANY_BUNDLE), 0);
}

static void setup_long(void)
{
	cr_assert_eq(target_open(&sv.tg, LONG_BUNDLE), 0);
}

static void teardown(void)
{
	monitor_free(&sv.mon);
	target_close(&sv.tg);
}

/* Serves the packets @pkts (payloads, NULL-terminated) in no-ack mode;
 * returns every reply's payload, NUL-separated, in *@len bytes.
 */
static char *serve(const char *const *pkts, size_t *len)
{
	int in = memfd_create("in", 0), out = memfd_create("out", 0);
	FILE *f = fdopen(dup(in), "w");
	char *raw, *res, *p;
	off_t size;
	size_t n = 0;

	cr_assert(in >= 0 && out >= 0 && f);
	fprintf(f, "$QStartNoAckMode#b0+");
	for (; *pkts; pkts++) {
		unsigned int sum = 0;
		const char *c;

		for (c = *pkts; *c; c++)
			sum += (unsigned char)*c;
		fprintf(f, "$%s#%02x", *pkts, sum & 0xff);
	}
	fclose(f);
	lseek(in, 0, SEEK_SET);
	server_run(&sv, in, out);
	size = lseek(out, 0, SEEK_END);
	raw = malloc((size_t)size + 1);
	res = malloc((size_t)size + 1);
	cr_assert(raw && res);
	cr_assert_eq(pread(out, raw, (size_t)size, 0), size);
	raw[size] = '\0';
	/* Unframe: "$payload#cs" (no escapes in these replies). */
	for (p = raw; (p = strchr(p, '$'));) {
		char *end = strchr(p, '#');

		cr_assert(end);
		memcpy(res + n, p + 1, (size_t)(end - p - 1));
		n += (size_t)(end - p - 1);
		res[n++] = '\0';
		p = end;
	}
	free(raw);
	close(in);
	close(out);
	*len = n;
	return res;
}

TestSuite(server, .init = setup, .fini = teardown);
TestSuite(libraries, .init = setup_long, .fini = teardown);

Test(server, thread_list_has_every_thread)
{
	static const char *pkts[2 + NTHREADS / 100] = { "qfThreadInfo" };
	size_t len, seen = 0, i;
	char *out, *p;
	bool last = false;

	for (i = 1; i < sizeof(pkts) / sizeof(pkts[0]) - 1; i++)
		pkts[i] = "qsThreadInfo";
	out = serve(pkts, &len);
	p = out + strlen(out) + 1;	/* past the OK of no-ack mode */
	while (p < out + len) {
		size_t plen = strlen(p);

		cr_assert_leq(plen, 4000, "a reply of %zu bytes", plen);
		if (*p == 'l') {
			last = true;
			break;
		}
		cr_assert_eq(*p, 'm');
		for (p++; *p; p += *p == ',') {
			strtoul(p, &p, 16);
			seen++;
		}
		p++;
	}
	cr_assert(last, "no end of the list");
	cr_assert_eq(seen, NTHREADS);
	free(out);
}

/* qXfer:threads in 4 KB windows: the whole list, every thread once. */
Test(server, xfer_threads_is_complete)
{
	static char bufs[128][64];
	static const char *pkts[129];
	size_t len, i, count = 0;
	char *out, *p;
	char *xml = calloc(1, 1 << 20);

	for (i = 0; i < 128; i++) {
		snprintf(bufs[i], sizeof(bufs[i]),
			 "qXfer:threads:read::%zx,1000", i * 0x1000);
		pkts[i] = bufs[i];
	}
	out = serve(pkts, &len);
	p = out + strlen(out) + 1;
	for (i = 0; i < 128 && p < out + len; i++) {
		cr_assert(*p == 'm' || *p == 'l', "reply '%.20s'", p);
		strcat(xml, p + 1);
		if (*p == 'l')
			break;
		p += strlen(p) + 1;
	}
	for (p = xml; (p = strstr(p, "<thread id=")); p++)
		count++;
	cr_assert_eq(count, NTHREADS);
	cr_assert(strstr(xml, "</threads>"));
	free(out);
	free(xml);
}

/* Issue #15 item 14: refused, not register 16. */
Test(server, bad_packets_are_refused)
{
	static const char *pkts[] = { "p100000010", "p10", "m0,zz", "g1",
				      "Hg99999", NULL };
	size_t len;
	char *out = serve(pkts, &len), *p = out;

	p += strlen(p) + 1;
	cr_assert_str_eq(p, "E01");
	p += strlen(p) + 1;
	cr_assert_eq(strlen(p), 16);	/* rip, 8 bytes */
	p += strlen(p) + 1;
	cr_assert_str_eq(p, "E01");
	p += strlen(p) + 1;
	cr_assert_str_eq(p, "E01");
	p += strlen(p) + 1;
	cr_assert_str_eq(p, "E01");
	free(out);
}

/* The next reply after @p (NUL-separated). */
static char *next(char *p)
{
	return p + strlen(p) + 1;
}

/* "qRcmd,HEX" for @cmd in @buf. */
static const char *monitor_pkt(char *buf, const char *cmd)
{
	char *p = buf + sprintf(buf, "qRcmd,");

	for (; *cmd; cmd++)
		p += sprintf(p, "%02x", (unsigned char)*cmd);
	return buf;
}

/* Whether the reply @p is console output ("O" HEX) of exactly @text. */
static bool console_is(const char *p, const char *text)
{
	unsigned int c;

	if (*p++ != 'O' || strlen(p) != 2 * strlen(text))
		return false;
	for (; *text; text++, p += 2)
		if (sscanf(p, "%2x", &c) != 1 || c != (unsigned char)*text)
			return false;
	return true;
}

#define REFUSED "E.ptrec: the recorded history cannot be changed, its " \
		"registers and memory are read-only"

/*
 * Writes to registers and memory are refused with a reply that says why
 * (E.TEXT, which GDB 13 shows for a register, where it showed 'E01'); a
 * write of no bytes (GDB's probe for X) changes nothing: OK, as rr
 * answers it.  monitor ptrec refused names the last refused write once,
 * for the plugin's set variable (GDB says only "Cannot access memory" of
 * memory).
 */
Test(server, writes_are_refused_saying_why)
{
	char q[64];
	const char *pkts[] = { "P0=0100000000000000",
			       monitor_pkt(q, "ptrec refused"), "X1000,0:",
			       "M1000,2:abcd", q, q, "G00", q, NULL };
	size_t len;
	char *out = serve(pkts, &len), *p = out;

	cr_assert_str_eq(p = next(p), REFUSED);
	cr_assert(console_is(p = next(p), "refused register 0\n"), "%s", p);
	cr_assert_str_eq(p = next(p), "OK");
	cr_assert_str_eq(p = next(p), "OK");		/* X of 0 bytes */
	cr_assert_str_eq(p = next(p), REFUSED);
	cr_assert(console_is(p = next(p), "refused memory 0x1000 2\n"));
	cr_assert_str_eq(p = next(p), "OK");
	cr_assert(console_is(p = next(p), "refused nothing\n"));
	cr_assert_str_eq(p = next(p), "OK");
	cr_assert_str_eq(p = next(p), REFUSED);
	cr_assert(console_is(p = next(p), "refused registers\n"));
	cr_assert_str_eq(p = next(p), "OK");
	free(out);
}

/*
 * Host I/O: the recorded program's path is served from the bundle's copy;
 * writes, /proc and /sys are refused; unknown descriptors and a 65th open
 * file are errors; every file is closed when GDB detaches.
 */
Test(server, host_io_serves_the_bundle_read_only)
{
	static char open_img[2 * FILE_PATH_MAX + 32], hex[2 * FILE_PATH_MAX];
	static const char *pkts[96];
	const char *origin = rp_image_origin(sv.tg.s, 1);
	char head[4], *out, *p;
	size_t len, i, n = 0;
	int fd, k;

	cr_assert(origin && origin[0] == '/');
	for (i = 0; origin[i]; i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)origin[i]);
	snprintf(open_img, sizeof(open_img), "vFile:open:%s,0,0", hex);
	/* Expected: the bundle copy's first bytes and size. */
	fd = rp_image_fd(sv.tg.s, 1);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, head, 4, 0), 4);
	cr_assert_eq(memcmp(head, "\x7f" "ELF", 4), 0);
	close(fd);
	pkts[n++] = "vFile:setfs:0";
	pkts[n++] = open_img;				/* F0 */
	pkts[n++] = "vFile:pread:0,4,0";		/* F4;\x7fELF */
	pkts[n++] = "vFile:pread:5,4,0";		/* F-1,9 */
	pkts[n++] = "vFile:open:2f70726f632f73656c662f6d617073,0,0";
	pkts[n++] = "vFile:open:2f7379732f6b65726e656c2f6d6d,0,0";
	pkts[n++] = "vFile:open:2f746d70,0,0";		/* /tmp: a dir */
	pkts[n++] = "vFile:open:2f746d702f78,241,1b6";	/* O_CREAT|... */
	pkts[n++] = "vFile:pwrite:0,0,abc";
	pkts[n++] = "vFile:unlink:2f746d702f78";
	pkts[n++] = "vFile:open:2f6e6f2f737563682f66696c65,0,0";
	pkts[n++] = "vFile:open:zz,0,0";		/* E01 */
	for (k = 1; k < TARGET_MAX_FILES + 1; k++)
		pkts[n++] = open_img;		/* F1..F3f, then EMFILE */
	pkts[n++] = "vFile:close:0";
	pkts[n++] = "vFile:close:0";			/* F-1,9 */
	pkts[n++] = "D";
	pkts[n] = NULL;
	cr_assert_lt(n, sizeof(pkts) / sizeof(pkts[0]));
	out = serve(pkts, &len);
	p = next(out);				/* past no-ack mode's OK */
	cr_assert_str_eq(p, "F0");		/* setfs */
	cr_assert_str_eq(p = next(p), "F0");	/* the first descriptor */
	p = next(p);
	cr_assert_eq(memcmp(p, "F4;\x7f" "ELF", 7), 0, "'%s'", p);
	cr_assert_str_eq(p = next(p), "F-1,9");	/* EBADF */
	cr_assert_str_eq(p = next(p), "F-1,d");	/* /proc: EACCES */
	cr_assert_str_eq(p = next(p), "F-1,d");	/* /sys */
	cr_assert_str_eq(p = next(p), "F-1,d");	/* not a regular file */
	cr_assert_str_eq(p = next(p), "F-1,d");	/* write flags */
	cr_assert_str_eq(p = next(p), "F-1,d");	/* pwrite */
	cr_assert_str_eq(p = next(p), "F-1,d");	/* unlink */
	cr_assert_str_eq(p = next(p), "F-1,2");	/* ENOENT */
	cr_assert_str_eq(p = next(p), "E01");	/* bad hex */
	for (k = 1; k < TARGET_MAX_FILES; k++) {
		char want[16];

		snprintf(want, sizeof(want), "F%x", k);
		cr_assert_str_eq(p = next(p), want);
	}
	cr_assert_str_eq(p = next(p), "F-1,18");	/* EMFILE */
	cr_assert_str_eq(p = next(p), "F0");		/* close */
	cr_assert_str_eq(p = next(p), "F-1,9");
	cr_assert_str_eq(p = next(p), "OK");		/* D */
	for (k = 0; k < TARGET_MAX_FILES; k++)
		cr_assert(!sv.tg.files[k].open, "file %d left open", k);
	free(out);
}

/*
 * Issue #15 item 4: an image path over 64 KB made add_library read and
 * write past its buffer (ASan) and send the memory beyond it.  Now the
 * whole list, the path escaped, in the windows GDB asks for.
 */
Test(libraries, long_library_path_is_sent_whole)
{
	static char bufs[32][64];
	static const char *pkts[33];
	size_t len, i;
	char *out, *p, *xml = calloc(1, 1 << 20), *name;

	for (i = 0; i < 32; i++) {
		snprintf(bufs[i], sizeof(bufs[i]),
			 "qXfer:libraries-svr4:read::%zx,1000", i * 0x1000);
		pkts[i] = bufs[i];
	}
	out = serve(pkts, &len);
	p = out + strlen(out) + 1;
	for (i = 0; i < 32 && p < out + len; i++) {
		cr_assert(*p == 'm' || *p == 'l', "reply '%.20s'", p);
		strcat(xml, p + 1);
		if (*p == 'l')
			break;
		p += strlen(p) + 1;
	}
	cr_assert(strstr(xml, "</library-list-svr4>\n"));
	name = strstr(xml, "/aaaa");
	cr_assert(name, "no libc entry");
	cr_assert_eq(strspn(name + 1, "a"), 70000);
	cr_assert(!strncmp(name + 70001, "/&lt;&amp;&quot;&gt;libc.so.6\"",
			   30));
	free(out);
	free(xml);
}
