// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer harness for ptrec-server's request handling: the input is
 * what GDB would send (framed packets, acks, interrupts, garbage), served
 * by the real connection layer, server and target over a real recorded
 * bundle ($PTREC_FUZZ_BUNDLE), every run from the end of its history with
 * no breakpoints.  Whatever the bytes: no crash, no overflow, no hang, no
 * leak.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct server sv;
static bool opened;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int in, out;

	if (!opened) {
		const char *dir = getenv("PTREC_FUZZ_BUNDLE");

		setenv("PTREC_INDEX_CACHE", "0", 1);
		if (!dir || target_open(&sv.tg, dir)) {
			fprintf(stderr, "fuzz_server: set PTREC_FUZZ_BUNDLE to a recorded bundle\n");
			abort();
		}
		opened = true;
	}
	rp_timeline_reset(sv.tg.tl);
	sv.tg.stack_pos = UINT64_MAX;
	monitor_free(&sv.mon);
	memset(&sv.mon, 0, sizeof(sv.mon));
	in = memfd_create("fuzz_server", MFD_CLOEXEC);
	out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (in < 0 || out < 0 ||
	    (size && write(in, data, size) != (ssize_t)size) ||
	    lseek(in, 0, SEEK_SET)) {
		perror("fuzz_server");
		abort();
	}
	server_run(&sv, in, out);
	close(in);
	close(out);
	return 0;
}
