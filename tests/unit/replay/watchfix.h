/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the watch scan's unit tests on a recording share (test_watch.c,
 * test_watch_rep.c): the bundle's first thread, its process, where its
 * history ends, its recovery context and an empty watch set.
 */
#ifndef WATCHFIX_H
#define WATCHFIX_H

#include <criterion/criterion.h>

#include "replay.h"

static struct rp_session *s;
static struct rp_recover *rc;
static struct rp_watch *w;
static uint32_t tid, pid;
static uint64_t end;

static inline void watch_open(const char *path)
{
	struct rp_thread_info info;

	cr_assert_eq(rp_session_open(&s, path), 0, "%s", path);
	tid = rp_thread_tid(s, 0);
	cr_assert_eq(rp_thread_info(s, tid, &info), 0);
	pid = info.pid;
	cr_assert_eq(rp_thread_end(s, tid, &end, NULL), 0);
	cr_assert_gt(end, 0);
	cr_assert_eq(rp_recover_new(s, tid, &rc), 0);
	cr_assert_eq(rp_watch_new(&w), 0);
}

static inline void watch_close(void)
{
	rp_watch_free(w);
	rp_recover_free(rc);
	rp_session_close(s);
}

#endif
