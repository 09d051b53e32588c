// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptrec-server: GDB's remote serial protocol over a recorded history, with
 * reverse execution.  This file is the program: its options, and the
 * connection (GDB's stdio pipe, or a TCP port on the loopback).  rsp.c
 * frames packets, conn.c gives them types, server.c answers them.
 *
 * On a port, only the user running the server may connect (the kernel's
 * socket table says who owns the connecting socket), one client at a
 * time; a client silent for --idle-timeout seconds is dropped, and after a
 * client leaves the next one is served (GDB's extended-remote reconnects).
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server.h"

static int listen_tcp(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The owner of the socket at the other end of loopback connection @fd,
 * from /proc/net/tcp (its local address is our peer's).  Returns the uid,
 * or -1 when it cannot be told.
 */
static long peer_uid(int fd)
{
	struct sockaddr_in me, peer;
	socklen_t len = sizeof(me);
	char line[512];
	long uid = -1;
	FILE *f;

	if (getsockname(fd, (struct sockaddr *)&me, &len))
		return -1;
	len = sizeof(peer);
	if (getpeername(fd, (struct sockaddr *)&peer, &len))
		return -1;
	f = fopen("/proc/net/tcp", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned int la, lp, ra, rp, st;
		unsigned long u;

		/* sl local rem st tx:rx tr:when retrnsmt uid */
		if (sscanf(line, " %*u: %x:%x %x:%x %x %*x:%*x %*x:%*x %*x %lu",
			   &la, &lp, &ra, &rp, &st, &u) != 6)
			continue;
		if (la == peer.sin_addr.s_addr && lp == ntohs(peer.sin_port) &&
		    ra == me.sin_addr.s_addr && rp == ntohs(me.sin_port)) {
			uid = (long)u;
			break;
		}
	}
	fclose(f);
	return uid;
}

static int serve_port(struct server *sv, int port)
{
	int lfd = listen_tcp(port), fd;
	long uid;

	if (lfd < 0) {
		perror("ptrec-server: port");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		fprintf(stderr, "ptrec-server: listening on 127.0.0.1:%d\n",
			port);
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		uid = peer_uid(fd);
		if (uid != (long)geteuid()) {
			fprintf(stderr, "ptrec-server: refused a connection from %s (only uid %u may connect)\n",
				uid < 0 ? "an unknown user" : "another user",
				(unsigned int)geteuid());
			close(fd);
			continue;
		}
		server_run(sv, fd, fd);
		close(fd);
		fprintf(stderr, "ptrec-server: client %s\n",
			sv->c.rsp.timed_out ? "idle too long, dropped" :
			"gone");
		/* The next client starts afresh at the end of the history. */
		rp_timeline_reset(sv->tg.tl);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ptrec-server [--stdio | --port N [--idle-timeout SECONDS]] BUNDLE\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stdio", no_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'p' },
		{ "idle-timeout", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct server sv;
	unsigned long long idle = 600;
	int port = -1, ret, o;

	/* GNU order: options before or after the bundle. */
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		const char *a = optarg;
		unsigned long long v;

		switch (o) {
		case 's':
			port = -1;
			break;
		case 'p':
			if (parse_number(&a, &v) || *a || !v || v > 65535) {
				fprintf(stderr, "ptrec-server: --port: '%s' is not a port number (1 to 65535)\n",
					optarg);
				return 2;
			}
			port = (int)v;
			break;
		case 'i':
			if (parse_number(&a, &idle) || *a || !idle ||
			    idle > 86400) {
				fprintf(stderr, "ptrec-server: --idle-timeout: '%s' is not a number of seconds (1 to 86400)\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (target_open(&sv.tg, argv[optind]))
		return 1;
	if (port >= 0) {
		sv.idle_ms = (int)idle * 1000;
		ret = serve_port(&sv, port);
	} else {
		ret = server_run(&sv, 0, 1);
	}
	monitor_free(&sv.mon);
	target_close(&sv.tg);
	return ret;
}
