// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The connection layer: GDB's packets (GDB manual, "Remote Protocol":
 * "Packets", "Stop Reply Packets", "General Query Packets") parsed into
 * typed requests, and typed answers encoded into reply packets.  Parsing is
 * strict: a number that does not fit, trailing text or a bad thread id
 * makes the request REQ_BAD rather than something it did not say.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conn.h"

static const char hexd[] = "0123456789abcdef";

/* ---- text ------------------------------------------------------------- */

static bool text_reserve(struct text *t, size_t more)
{
	size_t cap;
	char *p;

	if (t->oom)
		return false;
	if (t->n + more + 1 <= t->cap)
		return true;
	cap = t->cap ? t->cap : 4096;
	while (cap < t->n + more + 1)
		cap *= 2;
	p = realloc(t->p, cap);
	if (!p) {
		t->oom = true;
		return false;
	}
	t->p = p;
	t->cap = cap;
	return true;
}

void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0 || !text_reserve(t, (size_t)len))
		return;
	va_start(ap, fmt);
	vsnprintf(t->p + t->n, t->cap - t->n, fmt, ap);
	va_end(ap);
	t->n += (size_t)len;
}

void text_add_bytes(struct text *t, const void *data, size_t n)
{
	if (!text_reserve(t, n))
		return;
	memcpy(t->p + t->n, data, n);
	t->n += n;
	t->p[t->n] = '\0';
}

void text_add_xml(struct text *t, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			text_add(t, "&lt;");
			break;
		case '>':
			text_add(t, "&gt;");
			break;
		case '&':
			text_add(t, "&amp;");
			break;
		case '"':
			text_add(t, "&quot;");
			break;
		case '\'':
			text_add(t, "&apos;");
			break;
		default:
			text_add(t, "%c", *s);
		}
	}
}

void text_free(struct text *t)
{
	free(t->p);
	memset(t, 0, sizeof(*t));
}

/* ---- parsing ------------------------------------------------------------ */

/* A hex number at *@s of at most 16 digits; *@s moves past it. */
static bool parse_hex(const char **s, uint64_t *v)
{
	const char *p = *s;
	int d, n = 0;

	*v = 0;
	while ((d = rsp_hexval((unsigned char)*p)) >= 0) {
		if (++n > 16)
			return false;
		*v = *v << 4 | (uint64_t)d;
		p++;
	}
	*s = p;
	return n > 0;
}

/* A thread id: "-1", "0", hex, or multiprocess "pPID[.TID]" (*@pid the
 * process, THREAD_ALL for "p-1"; 0 when no process is named).
 */
static bool parse_thread(const char **s, long long *pid, long long *tid)
{
	uint64_t v;

	*pid = 0;
	if (**s == 'p') {
		(*s)++;
		if (!strncmp(*s, "-1", 2)) {
			*s += 2;
			*pid = THREAD_ALL;
		} else if (!parse_hex(s, &v) || v > UINT32_MAX) {
			return false;
		} else {
			*pid = (long long)v;
		}
		if (**s != '.') {
			*tid = THREAD_ALL;
			return true;
		}
		(*s)++;
	}
	if (!strncmp(*s, "-1", 2)) {
		*s += 2;
		*tid = THREAD_ALL;
		return true;
	}
	if (!parse_hex(s, &v) || v > UINT32_MAX)
		return false;
	*tid = (long long)v;
	return true;
}

/* ";PID" (hex) after D or vKill, or nothing. */
static bool parse_pid_suffix(const char *p, long long *pid)
{
	uint64_t v;

	*pid = 0;
	if (!*p)
		return true;
	if (*p++ != ';' || !parse_hex(&p, &v) || *p || v > UINT32_MAX)
		return false;
	*pid = (long long)v;
	return true;
}

/* "ADDR,LEN" and nothing after. */
static bool parse_addr_len(const char *p, uint64_t *addr, uint64_t *len)
{
	return parse_hex(&p, addr) && *p++ == ',' && parse_hex(&p, len) &&
	       !*p;
}

static const struct {
	const char *prefix;
	enum xfer_object object;
} xfers[] = {
	{ "qXfer:auxv:read::", XFER_AUXV },
	{ "qXfer:features:read:target.xml:", XFER_FEATURES },
	{ "qXfer:exec-file:read:", XFER_EXEC_FILE },
	{ "qXfer:libraries-svr4:read:", XFER_LIBRARIES },
	{ "qXfer:threads:read::", XFER_THREADS },
	{ "qXfer:siginfo:read::", XFER_SIGINFO },
};

static void parse_xfer(const char *pkt, struct req *r)
{
	const char *colon;
	size_t i;

	r->type = REQ_UNSUPPORTED;
	for (i = 0; i < sizeof(xfers) / sizeof(xfers[0]); i++) {
		size_t len = strlen(xfers[i].prefix);

		if (strncmp(pkt, xfers[i].prefix, len))
			continue;
		/* exec-file and libraries-svr4 have an annex (a pid, or
		 * the previous list's lm): the window follows its colon.
		 */
		colon = strrchr(pkt + len - 1, ':');
		r->type = REQ_XFER;
		r->object = xfers[i].object;
		if (!parse_addr_len(colon + 1, &r->addr, &r->len))
			r->type = REQ_BAD;
		/* exec-file's annex is a pid (hex), or empty. */
		if (r->object == XFER_EXEC_FILE && colon > pkt + len - 1) {
			const char *a = pkt + len;
			uint64_t v;

			if (!parse_hex(&a, &v) || a != colon || v > UINT32_MAX)
				r->type = REQ_BAD;
			r->pid = (long long)v;
		}
		return;
	}
}

static void parse_monitor(const char *hex, struct req *r)
{
	size_t i, n = strlen(hex);

	r->type = REQ_BAD;
	if (n % 2 || n / 2 >= sizeof(r->text))
		return;
	for (i = 0; i < n / 2; i++) {
		int h = rsp_hexval((unsigned char)hex[2 * i]);
		int l = rsp_hexval((unsigned char)hex[2 * i + 1]);

		if (h < 0 || l < 0 || (!h && !l))
			return;
		r->text[i] = (char)(h << 4 | l);
	}
	r->text[n / 2] = '\0';
	r->type = REQ_MONITOR;
}

/*
 * A hex-encoded path ending at @end (a ',' or the packet's end) into
 * @out: even length, no NUL byte, at most FILE_PATH_MAX - 1 bytes.
 */
static bool parse_hex_path(const char **s, char end, char *out)
{
	const char *p = *s;
	size_t n = 0;

	while (*p && *p != end) {
		int h = rsp_hexval((unsigned char)p[0]);
		int l = h < 0 ? -1 : rsp_hexval((unsigned char)p[1]);

		if (l < 0 || (!h && !l) || n + 1 >= FILE_PATH_MAX)
			return false;
		out[n++] = (char)(h << 4 | l);
		p += 2;
	}
	out[n] = '\0';
	*s = p;
	return n > 0;
}

/* A file descriptor: hex, at most INT32_MAX. */
static bool parse_fd(const char **s, int *fd)
{
	uint64_t v;

	if (!parse_hex(s, &v) || v > INT32_MAX)
		return false;
	*fd = (int)v;
	return true;
}

/* vFile:OPERATION:ARGS (GDB manual, "Host I/O Packets"). */
static void parse_file(const char *a, struct req *r)
{
	uint64_t v;

	r->type = REQ_FILE;
	if (!strncmp(a, "setfs:", 6)) {
		a += 6;
		r->file_op = FILE_SETFS;
		if (!parse_hex(&a, &v) || *a || v > UINT32_MAX)
			goto bad;
		r->pid = (long long)v;
	} else if (!strncmp(a, "open:", 5)) {
		a += 5;
		r->file_op = FILE_OPEN;
		if (!parse_hex_path(&a, ',', r->path) || *a++ != ',' ||
		    !parse_hex(&a, &r->flags) || *a++ != ',' ||
		    !parse_hex(&a, &r->mode) || *a)
			goto bad;
	} else if (!strncmp(a, "pread:", 6)) {
		a += 6;
		r->file_op = FILE_PREAD;
		if (!parse_fd(&a, &r->fd) || *a++ != ',' ||
		    !parse_hex(&a, &r->len) || *a++ != ',' ||
		    !parse_hex(&a, &r->addr) || *a || r->addr > INT64_MAX)
			goto bad;
	} else if (!strncmp(a, "close:", 6) || !strncmp(a, "fstat:", 6)) {
		r->file_op = a[0] == 'c' ? FILE_CLOSE : FILE_FSTAT;
		a += 6;
		if (!parse_fd(&a, &r->fd) || *a)
			goto bad;
	} else if (!strncmp(a, "readlink:", 9)) {
		a += 9;
		r->file_op = FILE_READLINK;
		if (!parse_hex_path(&a, '\0', r->path))
			goto bad;
	} else if (!strncmp(a, "pwrite:", 7) || !strncmp(a, "unlink:", 7)) {
		r->file_op = FILE_WRITE;
	} else {
		r->type = REQ_UNSUPPORTED;
	}
	return;
bad:
	r->type = REQ_BAD;
}

/* vCont;ACTION[:THREAD]...: the first action says what runs. */
static void parse_vcont(const char *a, struct req *r)
{
	r->type = REQ_BAD;
	if (*a++ != ';')
		return;
	switch (*a) {
	case 's':
	case 'S':
		r->type = REQ_STEP;
		break;
	case 'c':
	case 'C':
		r->type = REQ_CONT;
		break;
	default:
		return;
	}
	r->dir = 1;
	a++;
	if (a[-1] == 'S' || a[-1] == 'C') {	/* a signal number */
		uint64_t sig;

		if (!parse_hex(&a, &sig))
			goto bad;
	}
	if (*a == ':') {
		a++;
		if (!parse_thread(&a, &r->pid, &r->thread))
			goto bad;
		r->has_thread = true;
	}
	if (*a && *a != ';')
		goto bad;
	return;
bad:
	r->type = REQ_BAD;
}

static void parse_break(const char *pkt, struct req *r)
{
	const char *p = pkt + 3;
	uint64_t kind;

	r->type = pkt[0] == 'Z' ? REQ_BREAK_INSERT : REQ_BREAK_REMOVE;
	if (pkt[1] < '0' || pkt[1] > '4' || pkt[2] != ',') {
		r->type = REQ_UNSUPPORTED;
		return;
	}
	if (pkt[1] >= '2') {
		/* Watchpoints: Z2 write, Z3 read, Z4 access; ADDR,LENGTH. */
		r->type = pkt[0] == 'Z' ? REQ_WATCH_INSERT : REQ_WATCH_REMOVE;
		r->watch = (unsigned int)(pkt[1] - '1');
	}
	if (!parse_hex(&p, &r->addr) || *p++ != ',' || !parse_hex(&p, &kind))
		r->type = REQ_BAD;
	/* Conditions and commands (";X...") are GDB's to evaluate. */
	else if (*p && *p != ';')
		r->type = REQ_BAD;
	else if (r->type == REQ_WATCH_INSERT || r->type == REQ_WATCH_REMOVE)
		r->len = kind;
}

/*
 * G, P, M and X: writes, all refused (the past cannot be changed), but
 * what they would write is said in the refusal (the plugin asks for it:
 * monitor ptrec refused).  M and X: ADDR,LENGTH:DATA (@addr, @len);
 * P: N=VALUE (@regno); G: every register.  @which is 'M' (M and X), 'P'
 * or 'G'; one that cannot be read is still a write, of unknown extent
 * (@which 0).
 */
static void parse_write(const char *pkt, struct req *r)
{
	const char *p = pkt + 1;
	uint64_t v;

	r->type = REQ_WRITE;
	switch (pkt[0]) {
	case 'M':
	case 'X':
		if (parse_hex(&p, &r->addr) && *p++ == ',' &&
		    parse_hex(&p, &r->len) && *p == ':')
			r->which = 'M';
		break;
	case 'P':
		if (parse_hex(&p, &v) && *p == '=' && v <= 0xffff) {
			r->regno = (unsigned int)v;
			r->which = 'P';
		}
		break;
	default:
		r->which = 'G';
		break;
	}
}

void conn_parse(const char *pkt, size_t n, struct req *r)
{
	const char *p;
	uint64_t v;

	memset(r, 0, sizeof(*r));
	r->type = REQ_UNSUPPORTED;
	if (pkt[0] == 'X') {		/* binary data: NULs allowed */
		parse_write(pkt, r);
		return;
	}
	if (strlen(pkt) != n) {		/* a NUL inside: nothing we know */
		r->type = REQ_BAD;
		return;
	}
	switch (pkt[0]) {
	case '?':
		r->type = REQ_STOP_REASON;
		return;
	case 'g':
		r->type = pkt[1] ? REQ_BAD : REQ_READ_REGS;
		return;
	case 'p':
		p = pkt + 1;
		r->type = REQ_READ_REG;
		if (!parse_hex(&p, &v) || *p || v > 0xffff)
			r->type = REQ_BAD;
		r->regno = (unsigned int)v;
		return;
	case 'm':
		r->type = REQ_READ_MEM;
		if (!parse_addr_len(pkt + 1, &r->addr, &r->len))
			r->type = REQ_BAD;
		return;
	case 'G':
	case 'P':
	case 'M':
		parse_write(pkt, r);
		return;
	case 'Z':
	case 'z':
		parse_break(pkt, r);
		return;
	case 's':
	case 'c':
		r->type = pkt[0] == 's' ? REQ_STEP : REQ_CONT;
		r->dir = 1;
		return;
	case 'b':
		if (pkt[1] == 's' || pkt[1] == 'c') {
			r->type = pkt[1] == 's' ? REQ_STEP : REQ_CONT;
			r->dir = -1;
			if (pkt[2])
				r->type = REQ_BAD;
		}
		return;
	case 'H':
		p = pkt + 2;
		r->type = REQ_SET_THREAD;
		r->which = pkt[1];
		if ((pkt[1] != 'g' && pkt[1] != 'c') ||
		    !parse_thread(&p, &r->pid, &r->thread) || *p)
			r->type = REQ_BAD;
		return;
	case 'T':
		p = pkt + 1;
		r->type = REQ_THREAD_ALIVE;
		if (!parse_thread(&p, &r->pid, &r->thread) || *p)
			r->type = REQ_BAD;
		return;
	case 'k':
		r->type = REQ_KILL;
		return;
	case 'D':
		r->type = REQ_DETACH;
		if (!parse_pid_suffix(pkt + 1, &r->pid))
			r->type = REQ_BAD;
		return;
	default:
		break;
	}
	if (!strncmp(pkt, "qSupported", 10)) {
		r->type = REQ_SUPPORTED;
		r->multiprocess = strstr(pkt, "multiprocess+") != NULL;
	}
	else if (!strcmp(pkt, "QStartNoAckMode"))
		r->type = REQ_NOACK;
	else if (!strncmp(pkt, "qXfer:", 6))
		parse_xfer(pkt, r);
	else if (!strcmp(pkt, "qC"))
		r->type = REQ_CURRENT_THREAD;
	else if (!strcmp(pkt, "qfThreadInfo"))
		r->type = REQ_THREADS_FIRST;
	else if (!strcmp(pkt, "qsThreadInfo"))
		r->type = REQ_THREADS_NEXT;
	else if (!strncmp(pkt, "qAttached", 9))
		r->type = REQ_ATTACHED;
	else if (!strncmp(pkt, "qRcmd,", 6))
		parse_monitor(pkt + 6, r);
	else if (!strcmp(pkt, "vCont?"))
		r->type = REQ_VCONT_QUERY;
	else if (!strncmp(pkt, "vCont;", 6))
		parse_vcont(pkt + 5, r);
	else if (!strncmp(pkt, "vFile:", 6))
		parse_file(pkt + 6, r);
	else if (!strncmp(pkt, "vKill", 5)) {
		r->type = REQ_KILL;
		r->which = 'v';
		if (!parse_pid_suffix(pkt + 5, &r->pid))
			r->type = REQ_BAD;
	}
}

void conn_init(struct conn *c, int in, int out)
{
	rsp_init(&c->rsp, in, out);
	c->list_next = 0;
	c->multiprocess = false;
}

int conn_read(struct conn *c, struct req *r)
{
	int n = rsp_recv(&c->rsp, c->pkt, sizeof(c->pkt));

	if (n == RSP_OVERLONG) {
		memset(r, 0, sizeof(*r));
		r->type = REQ_BAD;
		return 0;
	}
	if (n < 0)
		return -1;
	if (n == 0) {
		memset(r, 0, sizeof(*r));
		r->type = REQ_INTERRUPT;
		return 0;
	}
	conn_parse(c->pkt, (size_t)n, r);
	return 0;
}

/* ---- replies ---------------------------------------------------------- */

static int send_str(struct conn *c, const char *s)
{
	return rsp_send_str(&c->rsp, s);
}

static void hex_bytes(char *out, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hexd[p[i] >> 4];
		out[2 * i + 1] = hexd[p[i] & 15];
	}
	out[2 * n] = '\0';
}

int conn_ok(struct conn *c)
{
	return send_str(c, "OK");
}

int conn_error(struct conn *c, int code)
{
	char buf[8];

	snprintf(buf, sizeof(buf), "E%02x", code & 0xff);
	return send_str(c, buf);
}

int conn_error_text(struct conn *c, const char *text)
{
	snprintf(c->out, sizeof(c->out), "E.%s", text);
	return send_str(c, c->out);
}

int conn_unsupported(struct conn *c)
{
	return send_str(c, "");
}

void conn_thread_id(const struct conn *c, uint32_t pid, uint32_t tid,
		    char *buf, size_t size)
{
	if (c->multiprocess)
		snprintf(buf, size, "p%x.%x", pid, tid);
	else
		snprintf(buf, size, "%x", tid);
}

int conn_stop(struct conn *c, const struct stop *s)
{
	char buf[128], id[32];

	char watch[48] = "";

	conn_thread_id(c, s->pid, s->tid, id, sizeof(id));
	if (s->watch)
		snprintf(watch, sizeof(watch), "%s:%" PRIx64 ";", s->watch,
			 s->watch_addr);
	snprintf(buf, sizeof(buf), "T%02xthread:%s;%s%s%s%s", s->signo & 0xff,
		 id, s->edge ? "replaylog:" : "", s->edge ? s->edge : "",
		 s->edge ? ";" : "", watch);
	return send_str(c, buf);
}

int conn_supported(struct conn *c, const struct req *r)
{
	c->multiprocess = r->multiprocess;
	snprintf(c->out, sizeof(c->out), "PacketSize=4000;ReverseStep+;"
		 "ReverseContinue+;QStartNoAckMode+;qXfer:auxv:read+;"
		 "qXfer:libraries-svr4:read+;qXfer:threads:read+;"
		 "qXfer:features:read+;qXfer:exec-file:read+;"
		 "qXfer:siginfo:read+;vContSupported+%s",
		 c->multiprocess ? ";multiprocess+" : "");
	return send_str(c, c->out);
}

int conn_noack(struct conn *c)
{
	if (conn_ok(c))
		return -1;
	c->rsp.noack = true;
	return 0;
}

int conn_regs(struct conn *c, const struct regval *v, size_t n)
{
	char *p = c->out;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < v[i].size; k++) {
			if (v[i].known) {
				*p++ = hexd[v[i].bytes[k] >> 4];
				*p++ = hexd[v[i].bytes[k] & 15];
			} else {
				*p++ = 'x';
				*p++ = 'x';
			}
		}
	}
	*p = '\0';
	return send_str(c, c->out);
}

int conn_memory(struct conn *c, const void *data, size_t n)
{
	if (n > RSP_MAX_PACKET / 2 - 1)
		n = RSP_MAX_PACKET / 2 - 1;
	hex_bytes(c->out, data, n);
	return send_str(c, c->out);
}

int conn_xfer(struct conn *c, const struct req *r, const void *data,
	      size_t size)
{
	uint64_t len = r->len;

	if (len > RSP_MAX_PACKET - 8)
		len = RSP_MAX_PACKET - 8;
	if (r->addr >= size)
		return send_str(c, "l");
	if (len > size - r->addr)
		len = size - r->addr;
	c->out[0] = r->addr + len < size ? 'm' : 'l';
	memcpy(c->out + 1, (const char *)data + r->addr, len);
	return rsp_send(&c->rsp, c->out, len + 1);
}

int conn_current_thread(struct conn *c, uint32_t pid, uint32_t tid)
{
	char id[32];

	conn_thread_id(c, pid, tid, id, sizeof(id));
	snprintf(c->out, sizeof(c->out), "QC%s", id);
	return send_str(c, c->out);
}

int conn_thread_list(struct conn *c, const uint32_t *pids,
		     const uint32_t *tids, size_t n, bool first)
{
	/* Bounded replies: GDB asks again (qsThreadInfo) until "l". */
	const size_t room = 4000;
	size_t len = 1;

	if (first)
		c->list_next = 0;
	if (c->list_next >= n)
		return send_str(c, "l");
	c->out[0] = 'm';
	while (c->list_next < n && len + 24 < room) {
		char id[32];

		conn_thread_id(c, pids[c->list_next], tids[c->list_next], id,
			       sizeof(id));
		c->list_next++;
		len += (size_t)snprintf(c->out + len, sizeof(c->out) - len,
					"%s%s", len > 1 ? "," : "", id);
	}
	return send_str(c, c->out);
}

int conn_attached(struct conn *c)
{
	return send_str(c, "1");
}

int conn_vcont_actions(struct conn *c)
{
	return send_str(c, "vCont;c;C;s;S");
}

int conn_file_result(struct conn *c, long long result, int fileio_errno)
{
	char buf[48];

	if (result == -1)
		snprintf(buf, sizeof(buf), "F-1,%x", fileio_errno);
	else if (result < 0)
		snprintf(buf, sizeof(buf), "F-%llx", -result);
	else
		snprintf(buf, sizeof(buf), "F%llx", result);
	return send_str(c, buf);
}

/* "F" @n ";" and @n bytes of @data (rsp_send() escapes them). */
static int file_attach(struct conn *c, const void *data, size_t n)
{
	int len = snprintf(c->out, sizeof(c->out), "F%zx;", n);

	memcpy(c->out + len, data, n);
	return rsp_send(&c->rsp, c->out, (size_t)len + n);
}

int conn_file_data(struct conn *c, const void *data, size_t n)
{
	return file_attach(c, data, n > FILE_DATA_MAX ? FILE_DATA_MAX : n);
}

static uint8_t *put_be(uint8_t *p, uint64_t v, int bytes)
{
	while (bytes--)
		*p++ = (uint8_t)(v >> (8 * bytes));
	return p;
}

/* GDB manual, "struct stat": 64 bytes, big-endian; 32-bit fields clamp. */
int conn_file_stat(struct conn *c, const struct stat *st)
{
	uint8_t b[64], *p = b;
	uint32_t mode = (uint32_t)st->st_mode & (S_IFREG | S_IFDIR | 0777);

#define U32(x) ((uint64_t)(x) > UINT32_MAX ? UINT32_MAX : (uint64_t)(x))
	p = put_be(p, 0, 4);		/* st_dev: 0, a file */
	p = put_be(p, U32(st->st_ino), 4);
	p = put_be(p, mode, 4);
	p = put_be(p, U32(st->st_nlink), 4);
	p = put_be(p, U32(st->st_uid), 4);
	p = put_be(p, U32(st->st_gid), 4);
	p = put_be(p, 0, 4);		/* st_rdev */
	p = put_be(p, (uint64_t)st->st_size, 8);
	p = put_be(p, (uint64_t)st->st_blksize, 8);
	p = put_be(p, (uint64_t)st->st_blocks, 8);
	p = put_be(p, U32(st->st_atime), 4);
	p = put_be(p, U32(st->st_mtime), 4);
	p = put_be(p, U32(st->st_ctime), 4);
#undef U32
	return file_attach(c, b, (size_t)(p - b));
}

int conn_console(struct conn *c, const char *text, size_t len)
{
	size_t chunk;

	while (len) {
		chunk = len > 2000 ? 2000 : len;
		c->out[0] = 'O';
		hex_bytes(c->out + 1, (const uint8_t *)text, chunk);
		if (send_str(c, c->out))
			return -1;
		text += chunk;
		len -= chunk;
	}
	return 0;
}
