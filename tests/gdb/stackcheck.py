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


PREHIST_BIT = 1 << 62


def landings(rows):
    """Where each frame older than the history's first returns: a forward
    scan's returns below the first frame's depth (the position after)."""
    lands = []
    depth = 0
    for j, (_ip, mnem) in enumerate(rows):
        if mnem.startswith('call'):
            depth += 1
        elif mnem.startswith('ret'):
            if depth:
                depth -= 1
            elif j + 1 < len(rows):
                lands.append(j + 1)
    return lands


def expected(rows, lands, pos):
    """Entry positions of the frames at pos, innermost first, then the
    outermost recorded frame's (0) and those of the frames called before
    the history that are still live (PREHIST_BIT | k)."""
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
    d = sum(1 for at in lands if at <= pos)
    frames += [PREHIST_BIT | k if k else 0 for k in range(d, len(lands) + 1)]
    return frames


def main():
    rows = history(os.environ['STACK_INSNS'])
    lands = landings(rows)
    every = int(os.environ.get('STACK_EVERY', '1'))
    bad = []
    checked = 0
    for pos in range(0, len(rows), every):
        gdb.execute('monitor ptrec goto %d' % (pos + 1), to_string=True)
        gdb.execute('maintenance flush dcache', to_string=True)
        stack = _read_stack()    # the plugin's, read as the unwinder does
        got = [entry for entry, _first, _resume in stack]
        want = expected(rows, lands, pos)
        checked += 1
        if got != want:
            bad.append('position %d: server %s, scan %s' %
                       (pos + 1, got[:6], want[:6]))
    for b in bad[:5]:
        print('stackcheck mismatch: ' + b)
    print('stackcheck checked=%d bad=%d' % (checked, len(bad)))


main()
