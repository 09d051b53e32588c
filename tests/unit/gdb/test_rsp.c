// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The GDB server's connection layer without a bundle: framing (rsp.c:
 * checksums, acks, escapes, interrupts, overlong packets) over pipes, and
 * request parsing and bounded replies (conn.c), as the GDB manual's
 * "Remote Protocol" chapter specifies them.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"
#include "rsp.h"

/* A connection whose input is @in and whose output is captured. */
struct pipe_rsp {
	struct rsp r;
	int to[2], from[2];
};

static void pr_open(struct pipe_rsp *p, const char *in, size_t len)
{
	cr_assert_eq(pipe(p->to), 0);
	cr_assert_eq(pipe(p->from), 0);
	cr_assert_eq(write(p->to[1], in, len), (ssize_t)len);
	close(p->to[1]);
	fcntl(p->from[0], F_SETFL, O_NONBLOCK);
	rsp_init(&p->r, p->to[0], p->from[1]);
}

/* What was written so far. */
static const char *pr_out(struct pipe_rsp *p)
{
	static char buf[65536];
	ssize_t n = read(p->from[0], buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void pr_close(struct pipe_rsp *p)
{
	close(p->to[0]);
	close(p->from[0]);
	close(p->from[1]);
}

Test(rsp, packet_checksum_and_ack)
{
	struct pipe_rsp p;
	char pkt[64];

	pr_open(&p, "+$qC#b4", 7);
	cr_assert_eq(rsp_recv(&p.r, pkt, sizeof(pkt)), 2);
	cr_assert_str_eq(pkt, "qC");
	cr_assert_str_eq(pr_out(&p), "+");
	cr_assert_eq(rsp_recv(&p.r, pkt, sizeof(pkt)), -1);
	pr_close(&p);
}

Test(rsp, bad_checksum_is_nacked_and_skipped)
{
	struct pipe_rsp p;
	char pkt[64];

	pr_open(&p, "$g#00$g#67", 10);
	cr_assert_eq(rsp_recv(&p.r, pkt, sizeof(pkt)), 1);
	cr_assert_str_eq(pkt, "g");
	cr_assert_str_eq(pr_out(&p), "-+");
	pr_close(&p);
}

/* Issue #15 item 13: a non-hex checksum digit shifted -1 left (UB). */
Test(rsp, non_hex_checksum_is_a_bad_checksum)
{
	struct pipe_rsp p;
	char pkt[64];

	pr_open(&p, "$g#zz$g#z7$g#67", 15);
	cr_assert_eq(rsp_recv(&p.r, pkt, sizeof(pkt)), 1);
	cr_assert_str_eq(pr_out(&p), "--+");
	pr_close(&p);
}

Test(rsp, escapes_are_undone)
{
	struct pipe_rsp p;
	char pkt[64];
	/* "a}b" escapes '#' (0x23 ^ 0x20 = 0x03); sum over the wire bytes. */
	const char in[] = "$a}\x03" "b#00";
	char buf[32];
	unsigned int sum = 'a' + '}' + 0x03 + 'b';

	memcpy(buf, in, sizeof(in));
	snprintf(buf + 6, sizeof(buf) - 6, "%02x", sum & 0xff);
	pr_open(&p, buf, 8);
	cr_assert_eq(rsp_recv(&p.r, pkt, sizeof(pkt)), 3);
	cr_assert_str_eq(pkt, "a#b");
	pr_close(&p);
}

Test(rsp, interrupt_byte)
{
	struct pipe_rsp p;
	char pkt[64];

	pr_open(&p, "\x03", 1);
	cr_assert_eq(rsp_recv(&p.r, pkt, sizeof(pkt)), 0);
	cr_assert(p.r.interrupted);
	pr_close(&p);
}

/* Issue #15 item 14: overlong packets were truncated, then dispatched. */
Test(rsp, overlong_packet_is_refused_whole)
{
	struct pipe_rsp p;
	char in[64], pkt[8];
	unsigned int sum = 0;
	int i;

	in[0] = '$';
	for (i = 1; i <= 20; i++) {
		in[i] = 'm';
		sum += 'm';
	}
	snprintf(in + 21, sizeof(in) - 21, "#%02x", sum & 0xff);
	pr_open(&p, in, 24);
	cr_assert_eq(rsp_recv(&p.r, pkt, sizeof(pkt)), RSP_OVERLONG);
	cr_assert_str_eq(pr_out(&p), "+");
	pr_close(&p);
}

Test(rsp, send_escapes_and_sums)
{
	struct pipe_rsp p;

	pr_open(&p, "+", 1);
	cr_assert_eq(rsp_send(&p.r, "a#b", 3), 0);
	/* 'a' + '}' + ('#' ^ 0x20) + 'b' */
	cr_assert_str_eq(pr_out(&p), "$a}\x03" "b#43");
	pr_close(&p);
}

Test(rsp, send_resends_on_nack)
{
	struct pipe_rsp p;

	pr_open(&p, "-+", 2);
	cr_assert_eq(rsp_send_str(&p.r, "OK"), 0);
	cr_assert_str_eq(pr_out(&p), "$OK#9a$OK#9a");
	pr_close(&p);
}

/* ---- request parsing -------------------------------------------------- */

static struct req parse(const char *pkt)
{
	struct req r;

	conn_parse(pkt, strlen(pkt), &r);
	return r;
}

Test(conn, registers)
{
	cr_assert_eq(parse("g").type, REQ_READ_REGS);
	cr_assert_eq(parse("p10").type, REQ_READ_REG);
	cr_assert_eq(parse("p10").regno, 16);
	/* Issue #15 item 14: this read register 16 (the truncated value). */
	cr_assert_eq(parse("p100000010").type, REQ_BAD);
	cr_assert_eq(parse("p").type, REQ_BAD);
	cr_assert_eq(parse("p1x").type, REQ_BAD);
	cr_assert_eq(parse("G00").type, REQ_WRITE);
	cr_assert_eq(parse("P10=00").type, REQ_WRITE);
}

/*
 * Writes are refused, but what they would write is kept for the refusal
 * (monitor ptrec refused).  X carries binary data, NULs too: it was
 * REQ_BAD (E01) before, for a NUL inside the packet.
 */
Test(conn, writes_say_what_they_write)
{
	static const char x[] = "X7ffe0010,4:\0\1\0\2";
	struct req r;

	conn_parse(x, sizeof(x) - 1, &r);
	cr_assert_eq(r.type, REQ_WRITE);
	cr_assert_eq(r.which, 'M');
	cr_assert_eq(r.addr, 0x7ffe0010);
	cr_assert_eq(r.len, 4);
	r = parse("M10,2:abcd");
	cr_assert(r.type == REQ_WRITE && r.which == 'M' && r.addr == 0x10 &&
		  r.len == 2);
	r = parse("P10=00");
	cr_assert(r.type == REQ_WRITE && r.which == 'P' && r.regno == 16);
	cr_assert_eq(parse("G00").which, 'G');
	/* Unreadable: still a write (refused), of unknown extent. */
	r = parse("Mzz");
	cr_assert(r.type == REQ_WRITE && r.which == 0);
	cr_assert_eq(parse("P100000=0").which, 0);
}

Test(conn, memory)
{
	struct req r = parse("m401000,40");

	cr_assert_eq(r.type, REQ_READ_MEM);
	cr_assert_eq(r.addr, 0x401000);
	cr_assert_eq(r.len, 0x40);
	cr_assert_eq(parse("m401000").type, REQ_BAD);
	cr_assert_eq(parse("m401000,40x").type, REQ_BAD);
	cr_assert_eq(parse("m10000000000000000,1").type, REQ_BAD);
}

Test(conn, execution)
{
	struct req r = parse("bc");

	cr_assert_eq(r.type, REQ_CONT);
	cr_assert_eq(r.dir, -1);
	cr_assert_eq(parse("bs").dir, -1);
	cr_assert_eq(parse("s").dir, 1);
	cr_assert_eq(parse("bx").type, REQ_UNSUPPORTED);
	r = parse("vCont;s:1f;c");
	cr_assert_eq(r.type, REQ_STEP);
	cr_assert(r.has_thread);
	cr_assert_eq(r.thread, 0x1f);
	r = parse("vCont;c");
	cr_assert_eq(r.type, REQ_CONT);
	cr_assert(!r.has_thread);
	r = parse("vCont;C0b:p2a.2b");
	cr_assert_eq(r.type, REQ_CONT);
	cr_assert_eq(r.thread, 0x2b);
	cr_assert_eq(parse("vCont;x").type, REQ_BAD);
	cr_assert_eq(parse("vCont?").type, REQ_VCONT_QUERY);
}

Test(conn, threads)
{
	struct req r = parse("Hg-1");

	cr_assert_eq(r.type, REQ_SET_THREAD);
	cr_assert_eq(r.which, 'g');
	cr_assert_eq(r.thread, THREAD_ALL);
	r = parse("Hc0");
	cr_assert_eq(r.thread, THREAD_ANY);
	r = parse("Hgp10.11");
	cr_assert_eq(r.thread, 0x11);
	cr_assert_eq(parse("Hx1").type, REQ_BAD);
	cr_assert_eq(parse("Hg1z").type, REQ_BAD);
	cr_assert_eq(parse("Hg100000000").type, REQ_BAD);
	cr_assert_eq(parse("T1a").type, REQ_THREAD_ALIVE);
}

Test(conn, breakpoints)
{
	struct req r = parse("Z0,401000,1");

	cr_assert_eq(r.type, REQ_BREAK_INSERT);
	cr_assert_eq(r.addr, 0x401000);
	cr_assert_eq(parse("z1,401000,1").type, REQ_BREAK_REMOVE);
	cr_assert_eq(parse("Z5,401000,4").type, REQ_UNSUPPORTED);
	cr_assert_eq(parse("Z0,zz,1").type, REQ_BAD);
}

/* Watchpoints (#18): Z2 write, Z3 read, Z4 access, any length. */
Test(conn, watchpoints)
{
	struct req r = parse("Z2,404020,4");

	cr_assert_eq(r.type, REQ_WATCH_INSERT);
	cr_assert_eq(r.watch, 1);
	cr_assert_eq(r.addr, 0x404020);
	cr_assert_eq(r.len, 4);
	r = parse("Z3,7ffe0000,1000");
	cr_assert_eq(r.type, REQ_WATCH_INSERT);
	cr_assert_eq(r.watch, 2);
	cr_assert_eq(r.len, 0x1000);
	r = parse("z4,404020,8");
	cr_assert_eq(r.type, REQ_WATCH_REMOVE);
	cr_assert_eq(r.watch, 3);
	cr_assert_eq(parse("Z2,404020").type, REQ_BAD);
	cr_assert_eq(parse("Z2,404020,zz").type, REQ_BAD);
	cr_assert_eq(parse("Z3,404020,8x").type, REQ_BAD);
}

Test(conn, queries)
{
	struct req r = parse("qXfer:threads:read::1f0,400");

	cr_assert_eq(r.type, REQ_XFER);
	cr_assert_eq(r.object, XFER_THREADS);
	cr_assert_eq(r.addr, 0x1f0);
	cr_assert_eq(r.len, 0x400);
	r = parse("qXfer:features:read:target.xml:0,ffb");
	cr_assert_eq(r.object, XFER_FEATURES);
	cr_assert_eq(r.len, 0xffb);
	r = parse("qXfer:exec-file:read:2a:0,100");
	cr_assert_eq(r.object, XFER_EXEC_FILE);
	cr_assert_eq(parse("qXfer:threads:read::1f0").type, REQ_BAD);
	cr_assert_eq(parse("qXfer:memory-map:read::0,10").type,
		     REQ_UNSUPPORTED);
	r = parse("qRcmd,7074726563");
	cr_assert_eq(r.type, REQ_MONITOR);
	cr_assert_str_eq(r.text, "ptrec");
	cr_assert_eq(parse("qRcmd,707").type, REQ_BAD);
	cr_assert_eq(parse("qRcmd,00").type, REQ_BAD);
	cr_assert_eq(parse("qSupported:multiprocess+").type, REQ_SUPPORTED);
	cr_assert_eq(parse("vKill;1").type, REQ_KILL);
	cr_assert_eq(parse("vKill;1").which, 'v');
	cr_assert_eq(parse("k").which, 0);
}

Test(conn, multiprocess_ids)
{
	struct req r = parse("Hgp2a.2b");

	cr_assert_eq(r.pid, 0x2a);
	cr_assert_eq(r.thread, 0x2b);
	r = parse("Hcp2a.-1");
	cr_assert_eq(r.pid, 0x2a);
	cr_assert_eq(r.thread, THREAD_ALL);
	r = parse("Hgp-1.-1");
	cr_assert_eq(r.pid, THREAD_ALL);
	r = parse("D;2a");
	cr_assert_eq(r.type, REQ_DETACH);
	cr_assert_eq(r.pid, 0x2a);
	cr_assert_eq(parse("D").pid, 0);
	cr_assert_eq(parse("D;zz").type, REQ_BAD);
	r = parse("vKill;2a");
	cr_assert_eq(r.pid, 0x2a);
	r = parse("qXfer:exec-file:read:2a:0,ffb");
	cr_assert_eq(r.type, REQ_XFER);
	cr_assert_eq(r.pid, 0x2a);
	cr_assert_eq(r.len, 0xffb);
	cr_assert_eq(parse("qXfer:exec-file:read:2x:0,ffb").type, REQ_BAD);
	cr_assert(parse("qSupported:multiprocess+;swbreak+").multiprocess);
	cr_assert(!parse("qSupported:swbreak+").multiprocess);
}

Test(conn, thread_ids_follow_the_agreement)
{
	struct conn c = { 0 };
	char id[32];

	conn_thread_id(&c, 0x2a, 0x2b, id, sizeof(id));
	cr_assert_str_eq(id, "2b");
	c.multiprocess = true;
	conn_thread_id(&c, 0x2a, 0x2b, id, sizeof(id));
	cr_assert_str_eq(id, "p2a.2b");
}

Test(conn, embedded_nul_is_bad)
{
	struct req r;

	conn_parse("g\0x", 3, &r);
	cr_assert_eq(r.type, REQ_BAD);
}

/* Issue #15 item 3: qfThreadInfo overflowed its buffer with 6,000 threads:
 * now every thread, in bounded replies.
 */
Test(conn, thread_list_is_complete_and_bounded)
{
	static struct conn c;
	uint32_t tids[6000];
	char *out, *p;
	size_t i, seen = 0;
	int fds[2], n;
	bool first = true;

	for (i = 0; i < 6000; i++)
		tids[i] = 0x10000000u + (uint32_t)i;
	cr_assert_eq(pipe(fds), 0);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
	conn_init(&c, -1, fds[1]);
	c.rsp.noack = true;
	out = malloc(1 << 20);
	for (;;) {
		cr_assert_eq(conn_thread_list(&c, tids, tids, 6000, first), 0);
		first = false;
		n = (int)read(fds[0], out, (1 << 20) - 1);
		cr_assert_gt(n, 4);
		out[n] = '\0';
		cr_assert_leq(n, 4000 + 4, "reply of %d bytes", n);
		if (out[1] == 'l')
			break;
		cr_assert_eq(out[1], 'm');
		for (p = out + 2; *p != '#';) {
			cr_assert_eq(strtoul(p, &p, 16), tids[seen]);
			seen++;
			if (*p == ',')
				p++;
		}
	}
	cr_assert_eq(seen, 6000);
	free(out);
	close(fds[0]);
	close(fds[1]);
}

Test(conn, xml_text_is_escaped_and_unbounded)
{
	struct text t = { 0 };
	int i;

	text_add_xml(&t, "a\"<b>&'");
	cr_assert_str_eq(t.p, "a&quot;&lt;b&gt;&amp;&apos;");
	for (i = 0; i < 100000; i++)
		text_add(&t, "x");
	cr_assert_eq(t.n, strlen(t.p));
	cr_assert_eq(t.n, 27 + 100000);
	text_free(&t);
}

/* ---- Host I/O (vFile) ------------------------------------------------- */

Test(conn, vfile_requests)
{
	struct req r = parse("vFile:open:2f6c69622f782e736f,0,1c0");

	cr_assert_eq(r.type, REQ_FILE);
	cr_assert_eq(r.file_op, FILE_OPEN);
	cr_assert_str_eq(r.path, "/lib/x.so");
	cr_assert_eq(r.flags, 0);
	cr_assert_eq(r.mode, 0x1c0);
	r = parse("vFile:pread:3,3fff,1a000");
	cr_assert_eq(r.type, REQ_FILE);
	cr_assert_eq(r.file_op, FILE_PREAD);
	cr_assert_eq(r.fd, 3);
	cr_assert_eq(r.len, 0x3fff);
	cr_assert_eq(r.addr, 0x1a000);
	r = parse("vFile:setfs:0");
	cr_assert_eq(r.file_op, FILE_SETFS);
	cr_assert_eq(r.pid, 0);
	cr_assert_eq(parse("vFile:setfs:1339").pid, 0x1339);
	cr_assert_eq(parse("vFile:close:7").file_op, FILE_CLOSE);
	cr_assert_eq(parse("vFile:close:7").fd, 7);
	cr_assert_eq(parse("vFile:fstat:0").file_op, FILE_FSTAT);
	r = parse("vFile:readlink:2f61");
	cr_assert_eq(r.file_op, FILE_READLINK);
	cr_assert_str_eq(r.path, "/a");
	/* Writes parse, to be refused by the server (read-only). */
	cr_assert_eq(parse("vFile:pwrite:3,0,abc").file_op, FILE_WRITE);
	cr_assert_eq(parse("vFile:unlink:2f61").file_op, FILE_WRITE);
	cr_assert_eq(parse("vFile:unlink:2f61").type, REQ_FILE);
	cr_assert_eq(parse("vFile:frobnicate:1").type, REQ_UNSUPPORTED);
}

/* Malformed Host I/O packets are REQ_BAD (answered E01), never a guess. */
Test(conn, vfile_malformed)
{
	static char big[2 * FILE_PATH_MAX + 64];
	size_t i;

	cr_assert_eq(parse("vFile:open:2f6,0,0").type, REQ_BAD); /* odd */
	cr_assert_eq(parse("vFile:open:2f6g,0,0").type, REQ_BAD); /* hex */
	cr_assert_eq(parse("vFile:open:2f00,0,0").type, REQ_BAD); /* NUL */
	cr_assert_eq(parse("vFile:open:,0,0").type, REQ_BAD);	/* empty */
	cr_assert_eq(parse("vFile:open:2f61,0").type, REQ_BAD);	/* no mode */
	cr_assert_eq(parse("vFile:open:2f61").type, REQ_BAD);
	cr_assert_eq(parse("vFile:open:2f61,0,0,").type, REQ_BAD);
	cr_assert_eq(parse("vFile:open:2f61,10000000000000000,0").type,
		     REQ_BAD);
	cr_assert_eq(parse("vFile:pread:3,10").type, REQ_BAD);
	cr_assert_eq(parse("vFile:pread:3,,0").type, REQ_BAD);
	cr_assert_eq(parse("vFile:pread:,1,0").type, REQ_BAD);
	cr_assert_eq(parse("vFile:pread:3,1,0x").type, REQ_BAD);
	cr_assert_eq(parse("vFile:pread:80000000,1,0").type, REQ_BAD);
	cr_assert_eq(parse("vFile:pread:3,1,8000000000000000").type,
		     REQ_BAD);
	cr_assert_eq(parse("vFile:pread:3,10000000000000000,0").type,
		     REQ_BAD);
	/* A huge count parses; the server clips it to one reply. */
	cr_assert_eq(parse("vFile:pread:3,ffffffffffffffff,0").type,
		     REQ_FILE);
	cr_assert_eq(parse("vFile:close:").type, REQ_BAD);
	cr_assert_eq(parse("vFile:close:-1").type, REQ_BAD);
	cr_assert_eq(parse("vFile:fstat:1,2").type, REQ_BAD);
	cr_assert_eq(parse("vFile:setfs:").type, REQ_BAD);
	cr_assert_eq(parse("vFile:setfs:100000000").type, REQ_BAD);
	cr_assert_eq(parse("vFile:readlink:").type, REQ_BAD);
	cr_assert_eq(parse("vFile:readlink:2f6").type, REQ_BAD);
	/* A path longer than any Linux path. */
	strcpy(big, "vFile:open:");
	for (i = 0; i < FILE_PATH_MAX; i++)
		strcat(big, "61");
	strcat(big, ",0,0");
	cr_assert_eq(parse(big).type, REQ_BAD);
}
