# SPDX-License-Identifier: GPL-3.0-or-later
"""GDB side of scripts/bench-gdb: latency of reverse-step and
reverse-finish through GDB (ptrec replay), in seconds.

Run as `ptrec replay BUNDLE -batch -x gdb_latency.py` on a recording of
tests/bench/gdbloop.c.  From the end of the history: ROUNDS rounds of
reverse-continue to leaf()'s return line (GDB_BENCH_LINE; untimed), then reverse-finish
(timed; it must land in step(), at a call of leaf); and STEPS reverse-steps
from the end (timed; each must move back).  Prints one line

    gdb-latency insns=N step=P50,P90 finish=P50,P90 errors=E
"""
import os
import sys
import time

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbdrive import pct as rank, position, run  # noqa: E402

ROUNDS = int(os.environ.get('GDB_BENCH_ROUNDS', '15'))
STEPS = int(os.environ.get('GDB_BENCH_STEPS', '30'))


def timed(cmd):
    t0 = time.perf_counter()
    run(cmd)
    return time.perf_counter() - t0


def pct(v):
    return '%.6f,%.6f' % (rank(v, 50), rank(v, 90))


def main():
    run('set pagination off')
    run('set confirm off')
    errors = []
    _, total = position()
    # reverse-step from the end.
    steps = []
    last, _ = position()
    for _ in range(STEPS):
        steps.append(timed('reverse-step'))
        pos, _ = position()
        if pos >= last:
            errors.append('reverse-step did not move back from %d' % last)
        last = pos
    # reverse-finish from inside leaf().
    finish = []
    line = gdb.decode_line('gdbloop.c:%s' %
                           os.environ.get('GDB_BENCH_LINE', '13'))[1][0].pc
    run('ptrec goto end')
    for _ in range(ROUNDS):
        run('tbreak *%#x' % line)
        run('reverse-continue')
        finish.append(timed('reverse-finish'))
        frame = gdb.selected_frame()
        if frame.name() != 'step':
            errors.append('reverse-finish landed in %s' % frame.name())
    for e in errors[:5]:
        print('gdb-latency error: ' + e)
    print('gdb-latency insns=%d step=%s finish=%s errors=%d' % (
        total, pct(steps), pct(finish), len(errors)))


main()
