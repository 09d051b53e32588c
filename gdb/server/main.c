// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptrec-server: GDB's remote serial protocol over a recorded history, with
 * reverse execution.  This file is the program: its options, and the
 * connection (GDB's stdio pipe, or a TCP port on the loopback).  rsp.c
 * frames packets, conn.c gives them types, server.c answers them.
 */
#include <getopt.h>
#include <netinet/in.h>
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
	int fd = socket(AF_INET, SOCK_STREAM, 0), c, one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1)) {
		close(fd);
		return -1;
	}
	fprintf(stderr, "ptrec-server: listening on 127.0.0.1:%d\n", port);
	c = accept(fd, NULL, NULL);
	close(fd);
	return c;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ptrec-server [--stdio | --port N] BUNDLE\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stdio", no_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct server sv;
	int port = -1, ret, fd, o;

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
		fd = listen_tcp(port);
		if (fd < 0) {
			perror("ptrec-server: port");
			target_close(&sv.tg);
			return 1;
		}
		ret = server_run(&sv, fd, fd);
		close(fd);
	} else {
		ret = server_run(&sv, 0, 1);
	}
	monitor_free(&sv.mon);
	target_close(&sv.tg);
	return ret;
}
