# SPDX-License-Identifier: GPL-3.0-or-later
"""Sourced in `ptrec replay BUNDLE -batch`: checks the "at FILE:MIN,MAX" of
`ptrec calls --insn-range --lines` (CALLS, a file) against GDB's own rule,
with GDB's own symbols and line tables for the addresses `ptrec insns`
(INSNS, a file) lists: record-btrace.c's btrace_call_history_src_line()
prints the file of the segment's function symbol and the lowest and
highest line of its instructions whose line-table entry is in that file
(code inlined from a header does not count).  Prints one line per segment
that differs and a summary "callines: N segments, M with lines, K differ"."""
import os
import re

import gdb


def real_function(pc):
    """The block of the function @pc is in, not of one inlined into it."""
    block = gdb.block_for_pc(pc)
    while block is not None:
        sup = block.superblock
        if block.function is not None and \
                (sup is None or sup.is_static or sup.is_global):
            return block
        block = sup
    return None


def key(symtab):
    return (symtab.filename, symtab.objfile.filename)


def expected(pcs):
    block = real_function(pcs[0])
    if block is None:
        return None
    own = block.function.symtab
    lines = [sal.line for sal in map(lambda pc: gdb.find_pc_line(pc), pcs)
             if sal.symtab is not None and sal.line and
             key(sal.symtab) == key(own)]
    if not lines:
        return 'at %s' % own.filename
    lo, hi = min(lines), max(lines)
    return 'at %s:%d' % (own.filename, lo) if lo == hi else \
        'at %s:%d,%d' % (own.filename, lo, hi)


def same(got, want, pcs):
    """ptrec names a file compiled by a bare relative name (gcc p1.c) by
    its full path, GDB by the name given: either is the same file."""
    if got == want or got is None or want is None:
        return got == want
    own = real_function(pcs[0]).function.symtab
    return got.replace('at ' + own.fullname(), 'at ' + own.filename, 1) == \
        want


def main():
    addr = {}
    with open(os.environ['INSNS']) as f:
        for line in f:
            m = re.match(r'(\d+)\t(?:=>)?\s*(0x[0-9a-f]+)', line)
            if m:
                addr[int(m.group(1))] = int(m.group(2), 16)
    total = with_lines = differ = 0
    with open(os.environ['CALLS']) as f:
        for line in f:
            fields = line.rstrip('\n').split('\t')
            m = re.match(r'inst (\d+),(\d+)$', fields[2]) \
                if len(fields) > 2 else None
            if not m:
                continue
            total += 1
            pcs = [addr[n] for n in range(int(m.group(1)),
                                          int(m.group(2)) + 1) if n in addr]
            if not pcs:
                continue
            want = expected(pcs)
            got = fields[3] if len(fields) > 3 else None
            if want is not None and ':' in want:
                with_lines += 1
            # A segment whose function has no lines in its own file: GDB
            # prints the bare file, ptrec nothing (no line to show).
            if want is not None and ':' not in want and got is None:
                continue
            if not same(got, want, pcs):
                differ += 1
                print('callines: segment %s (%s): ptrec %r, GDB %r' %
                      (fields[0], fields[1], got, want))
    print('callines: %d segments, %d with lines, %d differ' %
          (total, with_lines, differ))


main()
