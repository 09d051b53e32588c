# SPDX-License-Identifier: GPL-3.0-or-later
"""What the GDB benches (gdb_steps.py, gdb_latency.py) share to drive
`ptrec replay`: a command's output, the replay position, percentiles.
Imported from inside GDB: those scripts put their own directory on
sys.path first (GDB runs them with __file__ set, not as a package).
"""
import re

import gdb


def run(cmd):
    return gdb.execute(cmd, to_string=True)


def position():
    """(position, instructions in the history) from ptrec-server."""
    out = run('monitor ptrec position')
    m = re.search(r'position (\d+) of (\d+)', out)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = re.search(r'after (\d+) instructions', out)
    return int(m.group(1)) + 1, int(m.group(1))


def pct(v, q):
    """The q-th percentile of v (nearest rank below)."""
    v = sorted(v)
    return v[min(len(v) - 1, len(v) * q // 100)]
