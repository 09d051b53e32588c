/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to gdb/server/: the server, which answers GDB's typed requests
 * over a target (like rr's GdbServer); main.c connects it to stdio or a
 * socket.
 */
#ifndef PTREC_GDB_SERVER_H
#define PTREC_GDB_SERVER_H

#include <stdbool.h>

#include "conn.h"
#include "monitor.h"
#include "target.h"

struct server {
	struct conn c;
	struct target tg;
	struct monitor mon;
	bool cont_all;		/* Hc -1/0: resume acts on every thread */
	bool quit;		/* k, D, vKill */
	int idle_ms;		/* > 0: drop a client silent this long */
};

/* A new connection on @in/@out: acks on, every thread resumes. */
void server_start(struct server *sv, int in, int out);

/* Answers one request.  Returns 0, or -1 when the connection failed. */
int server_handle(struct server *sv, const struct req *r);

/* Serves requests until GDB detaches, kills or goes away.  Returns 0, or
 * 1 when a reply could not be sent.
 */
int server_run(struct server *sv, int in, int out);

#endif
