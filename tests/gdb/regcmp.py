#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""GDB's `info registers` in the past against the recorder's ground truth.

usage: regcmp.py GDB_OUT TRUTH_OUT [--regs a,b] [--count N] [--need-shown]

Both files are blocks that start with "AT <position>": GDB's output of
`info registers` (a register per line, its value or <unavailable>), and
valcheck --truth's ("<name> <value>").  Every register of the truth must
be in GDB's block; each one GDB shows must equal the truth's.  --regs
limits the names, --count requires that many registers per truth block,
--need-shown fails when GDB showed none.  Prints "S of T registers shown
at P positions, W wrong"; exits 1 on a wrong value (shared by
tests/gdb/values.sh's register checks).
"""
import re
import sys


def blocks(path, pat):
    out, at = {}, None
    for line in open(path):
        m = re.match(r'^AT (\d+)', line)
        if m:
            at = int(m.group(1))
            out[at] = {}
            continue
        m = re.match(pat, line)
        if m and at is not None:
            out[at][m.group(1)] = m.group(2)
    return out


def main(argv):
    args = argv[1:]
    regs, count, need = None, None, False
    files = []
    while args:
        a = args.pop(0)
        if a == '--regs':
            regs = args.pop(0).split(',')
        elif a == '--count':
            count = int(args.pop(0))
        elif a == '--need-shown':
            need = True
        else:
            files.append(a)
    names = '|'.join(map(re.escape, regs)) if regs else r'r[a-z0-9]+|eflags'
    gdb = blocks(files[0], r'^(%s)\s+(0x[0-9a-f]+|<unavailable>)' % names)
    tnames = '|'.join(map(re.escape, regs)) if regs else r'\S+'
    truth = blocks(files[1], r'^(%s) (0x[0-9a-f]+|0)$' % tnames)
    shown = wrong = total = 0
    for at, rs in truth.items():
        if count is not None:
            assert len(rs) == count, (at, rs)
        for name, want in rs.items():
            total += 1
            got = gdb.get(at, {}).get(name)
            assert got is not None, ('GDB did not show', at, name)
            if got == '<unavailable>':
                continue
            shown += 1
            if int(got, 16) != int(want, 16):
                wrong += 1
                print('WRONG at %d %s = %s, truth %s' % (at, name, got, want))
    print('%d of %d registers shown at %d positions, %d wrong'
          % (shown, total, len(truth), wrong))
    return 1 if wrong or (need and not shown) else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
