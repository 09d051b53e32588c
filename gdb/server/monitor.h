/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to gdb/server/: "monitor ptrec ..." commands (qRcmd), which the
 * plugin (gdb/plugin/ptrec.py) runs for its ptrec commands: history
 * listings, goto, position, the bundle's location.
 */
#ifndef PTREC_GDB_MONITOR_H
#define PTREC_GDB_MONITOR_H

#include <stdint.h>

#include "conn.h"
#include "target.h"

struct monitor {
	uint64_t last_first, last_end;	/* last history range shown */
	struct rp_call *calls;		/* call history of calls_tid */
	size_t ncalls;
	uint32_t calls_tid;
	char refused[64];		/* the last write refused since
					 * monitor ptrec refused asked:
					 * "memory 0xADDR LEN", "register N",
					 * "registers"; "" none */
};

/* Runs @cmd on @tg's selected thread; what it prints goes to @out. */
void monitor_run(struct monitor *m, struct target *tg, const char *cmd,
		 struct text *out);
void monitor_free(struct monitor *m);

/* A decimal number at *@s (digits only, no overflow), skipping spaces
 * around it; *@s moves past it.  Returns 0 or -1.
 */
int parse_number(const char **s, unsigned long long *v);

#endif
