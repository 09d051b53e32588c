/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to gdb/server/: the connection layer.  Turns framed packets
 * (rsp.c) into typed requests and typed answers into reply packets, so the
 * server (server.c) never sees packet text.  Like rr's GdbConnection.
 */
#ifndef PTREC_GDB_CONN_H
#define PTREC_GDB_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rsp.h"

enum req_type {
	REQ_UNSUPPORTED,	/* answered with an empty packet */
	REQ_BAD,		/* malformed or overlong: answered E01 */
	REQ_INTERRUPT,		/* 0x03: nothing runs, nothing to answer */
	REQ_STOP_REASON,	/* ? */
	REQ_READ_REGS,		/* g */
	REQ_READ_REG,		/* p: @regno */
	REQ_READ_MEM,		/* m: @addr, @len */
	REQ_WRITE,		/* G P M X: the past cannot be changed;
				 * @which 'G', 'P' (@regno), 'M' (M or X:
				 * @addr, @len) or 0 (unreadable) */
	REQ_BREAK_INSERT,	/* Z0/Z1: @addr */
	REQ_BREAK_REMOVE,	/* z0/z1 */
	REQ_WATCH_INSERT,	/* Z2/Z3/Z4: @watch, @addr, @len */
	REQ_WATCH_REMOVE,	/* z2/z3/z4 */
	REQ_STEP,		/* s bs vCont;s: @dir, maybe @thread */
	REQ_CONT,		/* c bc vCont;c */
	REQ_SET_THREAD,		/* H: @which 'g' or 'c', @thread */
	REQ_THREAD_ALIVE,	/* T: @thread */
	REQ_KILL,		/* k vKill */
	REQ_DETACH,		/* D */
	REQ_SUPPORTED,		/* qSupported */
	REQ_NOACK,		/* QStartNoAckMode */
	REQ_XFER,		/* qXfer:OBJECT:read:ANNEX:OFF,LEN */
	REQ_CURRENT_THREAD,	/* qC */
	REQ_THREADS_FIRST,	/* qfThreadInfo */
	REQ_THREADS_NEXT,	/* qsThreadInfo */
	REQ_ATTACHED,		/* qAttached */
	REQ_MONITOR,		/* qRcmd: @text */
	REQ_VCONT_QUERY,	/* vCont? */
	REQ_FILE,		/* vFile:OP: @file_op, @path, @fd, @addr
				 * (offset), @len (count), @flags, @mode */
};

/* Host I/O (GDB manual, "Host I/O Packets"): the file operations. */
enum file_op {
	FILE_SETFS,		/* vFile:setfs:PID (@pid) */
	FILE_OPEN,		/* vFile:open:PATH,FLAGS,MODE */
	FILE_PREAD,		/* vFile:pread:FD,COUNT,OFFSET */
	FILE_CLOSE,		/* vFile:close:FD */
	FILE_FSTAT,		/* vFile:fstat:FD */
	FILE_READLINK,		/* vFile:readlink:PATH */
	FILE_WRITE,		/* pwrite, unlink: refused, read-only */
};

/* GDB's File-I/O flags and errno values (GDB manual, "Constants"). */
#define FILEIO_O_ACCMODE 0x3
#define FILEIO_EPERM 1
#define FILEIO_ENOENT 2
#define FILEIO_EBADF 9
#define FILEIO_EACCES 13
#define FILEIO_EINVAL 22
#define FILEIO_EMFILE 24
#define FILEIO_ENAMETOOLONG 91
#define FILEIO_EUNKNOWN 9999

/* The largest path a vFile request carries (a Linux path, with its NUL). */
#define FILE_PATH_MAX 4096

enum xfer_object {
	XFER_AUXV,
	XFER_FEATURES,		/* annex target.xml */
	XFER_EXEC_FILE,
	XFER_LIBRARIES,		/* libraries-svr4 */
	XFER_THREADS,
	XFER_SIGINFO,
};

/* A thread as a request names it. */
#define THREAD_ANY 0		/* "0" */
#define THREAD_ALL -1		/* "-1" */

struct req {
	enum req_type type;
	int dir;		/* STEP, CONT: -1 backward, 1 forward */
	uint64_t addr, len;	/* READ_MEM, BREAK_*, XFER (offset, length) */
	unsigned int regno;
	unsigned int watch;	/* WATCH_*: enum rp_watch_type (1 write,
				 * 2 read, 3 access) */
	char which;		/* SET_THREAD: 'g' or 'c'; KILL: 'v' (vKill);
				 * WRITE: 'G', 'P', 'M' */
	bool has_thread;	/* STEP, CONT: vCont named one */
	long long thread;	/* tid, THREAD_ANY or THREAD_ALL */
	long long pid;		/* "pPID.TID" ids, D;PID, vKill;PID, exec-file
				 * annex: the process (0: none named,
				 * THREAD_ALL: every one) */
	bool multiprocess;	/* SUPPORTED: GDB offers multiprocess+ */
	enum xfer_object object;
	char text[512];		/* MONITOR: the command, decoded */
	enum file_op file_op;
	int fd;			/* FILE: pread, close, fstat */
	uint64_t flags, mode;	/* FILE: open */
	char path[FILE_PATH_MAX];	/* FILE: open, readlink; no NUL inside */
};

/* A growable text, for XML documents and console output. */
struct text {
	char *p;
	size_t n, cap;
	bool oom;		/* an append failed: the text is incomplete */
};

void text_add(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void text_add_bytes(struct text *t, const void *data, size_t n);
/* Appends @s escaped for an XML attribute value. */
void text_add_xml(struct text *t, const char *s);
void text_free(struct text *t);

/* What a stop reply says. */
struct stop {
	uint32_t pid, tid;
	int signo;		/* 5 (SIGTRAP) for ordinary stops */
	const char *edge;	/* "begin", "end" or NULL */
	const char *watch;	/* "watch", "rwatch", "awatch" or NULL */
	uint64_t watch_addr;	/* the watched address that was hit */
};

struct conn {
	struct rsp rsp;
	bool multiprocess;	/* agreed: thread ids are "pPID.TID" */
	size_t list_next;	/* qsThreadInfo continues here */
	char pkt[RSP_MAX_PACKET];
	char out[2 * RSP_MAX_PACKET];
};

void conn_init(struct conn *c, int in, int out);

/*
 * Parses one packet's payload @pkt of @n bytes into @r (never fails: what
 * it cannot read is REQ_BAD or REQ_UNSUPPORTED).
 */
void conn_parse(const char *pkt, size_t n, struct req *r);

/* Reads the next request.  Returns 0, or -1 when GDB went away. */
int conn_read(struct conn *c, struct req *r);

/* Replies; each returns 0 or -1 when the connection failed. */
int conn_ok(struct conn *c);
int conn_error(struct conn *c, int code);
/* E.TEXT (GDB manual, "Standard Replies"): @text, ASCII without # $ } *. */
int conn_error_text(struct conn *c, const char *text);
int conn_unsupported(struct conn *c);
int conn_stop(struct conn *c, const struct stop *s);
/* qSupported; agrees to multiprocess when GDB offered it (@r). */
int conn_supported(struct conn *c, const struct req *r);
/* QStartNoAckMode: "OK", then no more acks. */
int conn_noack(struct conn *c);
/* A register value of @size bytes, little-endian in @bytes, or unknown. */
struct regval {
	uint8_t bytes[32];	/* zmm0h..zmm31h are the largest */
	int size;
	bool known;
};
int conn_regs(struct conn *c, const struct regval *v, size_t n);
int conn_memory(struct conn *c, const void *data, size_t n);
/* A window of @data at the request's offset and length ("m"/"l"). */
int conn_xfer(struct conn *c, const struct req *r, const void *data,
	      size_t size);
int conn_current_thread(struct conn *c, uint32_t pid, uint32_t tid);
/*
 * qfThreadInfo (@first) and qsThreadInfo: the tids of @tids from the
 * start or from where the last reply stopped, as many as fit in a
 * bounded packet; "l" after the last.
 */
int conn_thread_list(struct conn *c, const uint32_t *pids,
		     const uint32_t *tids, size_t n, bool first);
/* A thread id as the agreed protocol writes it ("pPID.TID" or "TID"). */
void conn_thread_id(const struct conn *c, uint32_t pid, uint32_t tid,
		    char *buf, size_t size);
int conn_attached(struct conn *c);
int conn_vcont_actions(struct conn *c);
/*
 * Host I/O replies: "F" @result, with ",ERRNO" (a FILEIO_E* value) when
 * @result is -1; conn_file_data() and conn_file_stat() attach @n bytes
 * (at most what fits in a packet: @n is clipped, the result says how many)
 * or a File-I/O struct stat.
 */
int conn_file_result(struct conn *c, long long result, int fileio_errno);
int conn_file_data(struct conn *c, const void *data, size_t n);
struct stat;
int conn_file_stat(struct conn *c, const struct stat *st);
/* The most bytes conn_file_data() sends in one reply. */
#define FILE_DATA_MAX (RSP_MAX_PACKET / 2 - 16)

/* Console output ("O" packets of bounded size) for monitor commands. */
int conn_console(struct conn *c, const char *text, size_t len);

#endif
