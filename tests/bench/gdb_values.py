# SPDX-License-Identifier: GPL-3.0-or-later
"""GDB side of scripts/bench-values: the cost of a stop with values in
the past (issue #17).  Run as `ptrec replay BUNDLE -batch -x
gdb_values.py`, once with values on and once with PTREC_NO_VALUES=1 in the
same run.  `ptrec goto` to GDB_VALUES_N positions drawn with a fixed seed
from the last 262,144 instructions (the engine's chained windows), each
timed with what a user's stop reads: the backtrace with every frame's
locals (`bt full`) and the registers.  GDB_VALUES_PAUSE seconds (default
0: back to back, as a script) pass before each stop, untimed: a person
reading the last one, the silence in which ptrec-server computes the
values' windows ahead (docs/values.md, "Latency").  Prints one line

    gdb-values insns=N stops=K p50=S p99=S
"""
import os
import random
import re
import time

import gdb

N = int(os.environ.get('GDB_VALUES_N', '100'))
PAUSE = float(os.environ.get('GDB_VALUES_PAUSE', '0'))


def run(cmd):
    return gdb.execute(cmd, to_string=True)


def main():
    run('set pagination off')
    out = run('monitor ptrec position')
    m = re.search(r'of (\d+)', out) or \
        re.search(r'after (\d+) instructions', out)
    total = int(m.group(1))
    rng = random.Random(17)
    lo = max(1, total - 262144)
    times = []
    for _ in range(N):
        pos = rng.randrange(lo, total)
        if PAUSE:
            time.sleep(PAUSE)
        t0 = time.perf_counter()
        run('ptrec goto %d' % pos)
        run('bt full')
        run('info registers')
        times.append(time.perf_counter() - t0)
    times.sort()
    print('gdb-values insns=%d stops=%d p50=%.6f p99=%.6f' % (
        total, len(times), times[len(times) // 2],
        times[min(len(times) - 1, len(times) * 99 // 100)]))


main()
