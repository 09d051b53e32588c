// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What both recorders share around their own loops (issue #14's recorder
 * skeleton): the first error that wins, removing a bundle that a recording
 * failed to start (so that `ptrec record -p 999999` or a program that
 * cannot run leaves nothing behind, and never touches a directory it did
 * not create), the clocks and the CPU's identity.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "skel.h"

void rec_bundle_unmake(const char *dir, bool made_dir)
{
	static const char *const sub[] = { "pt", "regs", "truth", "images" };
	static const char *const files[] = { "sideband.sb",
					     "snapshot.ptsnap.tmp" };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	/* Only empty directories go: rmdir never removes what is in them. */
	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		rmdir(path);
	}
	if (made_dir)
		rmdir(dir);
}

int rec_fail(int *error, struct sb_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!*error) {
		*error = code;
		if (err) {
			va_start(ap, fmt);
			vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
			va_end(ap);
		}
	}
	return code;
}

uint64_t rec_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t rec_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void rec_cpu_fill(struct sb_cpu *cpu)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "re");
	unsigned int v;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "vendor_id : %15s", cpu->vendor) == 1)
			continue;
		if (sscanf(line, "cpu family : %u", &v) == 1)
			cpu->family = v;
		else if (sscanf(line, "model : %u", &v) == 1)
			cpu->model = v;
		else if (sscanf(line, "stepping : %u", &v) == 1)
			cpu->stepping = v;
		else if (line[0] == '\n')
			break;	/* first CPU only */
	}
	if (f)
		fclose(f);
	if (!cpu->vendor[0])
		strcpy(cpu->vendor, "unknown");
}
