# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/gdb: the call stack ptrec-server publishes for the unwinder,
checked at many positions against a plain backward scan of the history.

Run in `ptrec replay BUNDLE -batch -x stackcheck.py` (the plugin loaded)
with STACK_INSNS naming `ptrec insns BUNDLE` output for the current thread
and STACK_EVERY the stride between checked positions.  Prints
"stackcheck checked=N bad=M" and the first mismatches.
"""
import os
import re

import gdb

INSN = re.compile(r'^(\d+)\t(?:=>|  ) 0x([0-9a-f]+)(?: <[^>]*>)?:\t(\S+)')


def history(path):
    """Per position (0-based): address and mnemonic."""
    rows = []
    for line in open(path):
        m = INSN.match(line)
        if m:
            if int(m.group(1)) != len(rows) + 1:
                raise gdb.GdbError('stackcheck: %s: line %r' % (path, line))
            rows.append((int(m.group(2), 16), m.group(3)))
    return rows


def expected(rows, pos):
    """Entry positions of the frames at pos, innermost first, then the
    outermost frame's (0)."""
    frames = []
    depth = 0
    for j in range(pos - 1, -1, -1):
        mnem = rows[j][1]
        if mnem.startswith('ret'):
            depth += 1
        elif mnem.startswith('call'):
            if depth:
                depth -= 1
            else:
                frames.append(j + 1)
    frames.append(0)
    return frames


def main():
    rows = history(os.environ['STACK_INSNS'])
    every = int(os.environ.get('STACK_EVERY', '1'))
    bad = []
    checked = 0
    for pos in range(0, len(rows), every):
        gdb.execute('monitor ptrec goto %d' % (pos + 1), to_string=True)
        gdb.execute('maintenance flush dcache', to_string=True)
        stack = _read_stack()    # the plugin's, read as the unwinder does
        got = [entry for entry, _first, _resume in stack]
        want = expected(rows, pos)
        checked += 1
        if got != want:
            bad.append('position %d: server %s, scan %s' %
                       (pos + 1, got[:6], want[:6]))
    for b in bad[:5]:
        print('stackcheck mismatch: ' + b)
    print('stackcheck checked=%d bad=%d' % (checked, len(bad)))


main()
