// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptrec replay BUNDLE [GDB-ARGS...]: GDB on the recorded program, connected
 * to ptrec-server over stdio, with the plugin loaded, at the end of the
 * history (where the program stopped or crashed).
 *
 * Nothing goes through a shell (GDB runs `target remote | COMMAND` with
 * /bin/sh, so a bundle path such as 'b;touch x;true' used to run touch):
 * ptrec listens on a Unix socket in a fresh directory only its user can
 * enter, a child accepts GDB's one connection there and execs ptrec-server
 * on it (bundle path as an argument), and GDB is told `target remote
 * SOCKET`, a path ptrec made of safe characters only.  The child also
 * holds the read end of a pipe whose write end GDB inherits: when GDB ends
 * (or fails to start) without connecting, the pipe hangs up and the child
 * cleans up at once instead of at its accept timeout.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_args.h"

/* @dir + @mid + @name, when it fits and is readable.  Returns 0 or -1. */
static int candidate(char *out, size_t size, const char *dir,
		     const char *mid, const char *name)
{
	if (snprintf(out, size, "%s%s%s", dir, mid, name) >= (int)size)
		return -1;
	return access(out, R_OK) ? -1 : 0;
}

/* A file next to the running ptrec: in its directory (installed, or
 * build/ in the tree), the tree's gdb/plugin/, or ../share/ptrec/.
 */
static int find_near_self(const char *name, char *out, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (!candidate(out, size, self, "/", name) ||
	    !candidate(out, size, self, "/../gdb/plugin/", name) ||
	    !candidate(out, size, self, "/../share/ptrec/", name))
		return 0;
	return -1;
}

/* Milliseconds the server child waits for GDB to connect. */
#define ACCEPT_TIMEOUT_MS	(120 * 1000)

struct server_link {
	char dir[80];
	char sock[100];
	pid_t child;
};

/* $TMPDIR when GDB can take it as a plain path, else /tmp. */
static const char *socket_root(void)
{
	const char *t = getenv("TMPDIR");

	if (!t || !*t || *t != '/' || strlen(t) > 48 ||
	    strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		   "0123456789/._-") != strlen(t))
		return "/tmp";
	return t;
}

static void link_cleanup(struct server_link *l)
{
	unlink(l->sock);
	rmdir(l->dir);
}

/*
 * Listens on @l->sock in a new 0700 directory and forks a child that
 * accepts one connection and execs ptrec-server on it.  Returns 0, or -1
 * after a message.
 */
static int start_server(struct server_link *l, const char *server,
			const char *bundle)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int lfd, alive[2];

	snprintf(l->dir, sizeof(l->dir), "%s/ptrec-replay-XXXXXX",
		 socket_root());
	if (!mkdtemp(l->dir)) {
		fprintf(stderr, "ptrec replay: %s: %s\n", l->dir,
			strerror(errno));
		return -1;
	}
	snprintf(l->sock, sizeof(l->sock), "%s/gdb.sock", l->dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", l->sock);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, 1)) {
		fprintf(stderr, "ptrec replay: %s: %s\n", l->sock,
			strerror(errno));
		if (lfd >= 0)
			close(lfd);
		link_cleanup(l);
		return -1;
	}
	/* alive[1] stays open across the exec of GDB (no O_CLOEXEC) */
	if (pipe(alive)) {
		perror("ptrec replay: pipe");
		close(lfd);
		link_cleanup(l);
		return -1;
	}
	l->child = fork();
	if (l->child < 0) {
		perror("ptrec replay: fork");
		close(lfd);
		close(alive[0]);
		close(alive[1]);
		link_cleanup(l);
		return -1;
	}
	if (!l->child) {
		struct pollfd p[2] = { { .fd = lfd, .events = POLLIN },
				       { .fd = alive[0], .events = POLLIN } };
		int c = -1, r;

		close(alive[1]);
		do
			r = poll(p, 2, ACCEPT_TIMEOUT_MS);
		while (r < 0 && errno == EINTR);
		/* a connection, not GDB gone (hang-up of the pipe) */
		if (r > 0 && (p[0].revents & POLLIN))
			c = accept(lfd, NULL, NULL);
		close(alive[0]);
		/* Nobody else needs the name once GDB is connected. */
		link_cleanup(l);
		if (c < 0)
			_exit(1);
		if (dup2(c, 0) < 0 || dup2(c, 1) < 0)
			_exit(1);
		close(c);
		execl(server, server, bundle, "--stdio", (char *)NULL);
		fprintf(stderr, "ptrec replay: %s: %s\n", server,
			strerror(errno));
		_exit(127);
	}
	close(lfd);
	close(alive[0]);
	return 0;
}

/* Whether GDB's arguments @argv choose the MI interpreter (-i=mi,
 * --interpreter mi2, ...): its output is records, not to be replayed as
 * console text.
 */
static bool mi_args(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *v = NULL;

		if (!strcmp(a, "--"))
			break;
		if (a[0] == '-' && a[1] == '-')
			a++;
		if (!strncmp(a, "-i=", 3))
			v = a + 3;
		else if (!strncmp(a, "-interpreter=", 13))
			v = a + 13;
		else if ((!strcmp(a, "-i") || !strcmp(a, "-interpreter")) &&
			 i + 1 < argc)
			v = argv[i + 1];
		if (v && !strncmp(v, "mi", 2))
			return true;
	}
	return false;
}

int cli_replay(int argc, char **argv)
{
	char server[PATH_MAX], plugin[PATH_MAX], target[160];
	struct server_link link;
	char **gargv = NULL;
	struct sb_manifest *m;
	struct sb_err err;
	int i, n = 0, have_plugin;
	static const struct cli_opt opts[] = { CLI_END };
	static const struct cli_cmd cmd = {
		.name = "ptrec replay", .synopsis = "BUNDLE [GDB-ARGS...]",
		.opts = opts, .min_args = 1, .max_args = -1, .in_order = true,
		.more = "GDB on the recording, connected to ptrec-server, at the end of the\n"
			"history; GDB-ARGS go to GDB (-batch, -ex CMD, ...).\n",
	};
	int a = cli_parse(&cmd, argc, argv);

	if (a < 0)
		return cli_exit(a);
	/* From here on argv[1] is the bundle, argv[2..] GDB's. */
	argv += a - 1;
	argc -= a - 1;
	if (sb_manifest_load(&m, argv[1], &err)) {
		fprintf(stderr, "ptrec replay: %s\n", err.msg);
		return 1;
	}
	if (find_near_self("ptrec-server", server, sizeof(server))) {
		fprintf(stderr, "ptrec replay: ptrec-server not found next to ptrec\n");
		goto out_free_manifest;
	}
	gargv = calloc((size_t)argc + 12, sizeof(*gargv));
	if (!gargv || start_server(&link, server, argv[1]))
		goto out_free_manifest;
	snprintf(target, sizeof(target), "target remote %s", link.sock);
	gargv[n++] = "gdb";
	gargv[n++] = "-q";
	have_plugin = !find_near_self("ptrec.py", plugin, sizeof(plugin));
	if (have_plugin) {
		gargv[n++] = "-x";
		gargv[n++] = plugin;
		/* GDB takes the first stop quietly, without hiding the inline
		 * frames that start at its PC: the plugin has it take the
		 * stop again as a live one's (docs/gdb.md, "inline").
		 */
		gargv[n++] = "-ex";
		gargv[n++] = mi_args(argc - 2, argv + 2) ?
			"ptrec connect-prepare mi" : "ptrec connecting";
	}
	gargv[n++] = "-ex";
	gargv[n++] = target;
	if (have_plugin) {
		gargv[n++] = "-ex";
		gargv[n++] = "ptrec connected";
	}
	for (i = 2; i < argc; i++)
		gargv[n++] = argv[i];
	/* No program file: GDB reads the recorded program from the bundle
	 * (qXfer:exec-file, then Host I/O), not a file rebuilt since at its
	 * path (docs/gdb.md, "Files GDB reads").
	 */
	execvp("gdb", gargv);
	perror("ptrec replay: gdb");
	kill(link.child, SIGTERM);
	waitpid(link.child, NULL, 0);
	link_cleanup(&link);
out_free_manifest:
	free(gargv);
	sb_manifest_free(m);
	return 1;
}
