#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compare `ptrec insns` with the real GDB.

gdbdiff.py INSNS ELF MIN_PERCENT: for every distinct address in INSNS (the
output of `ptrec insns` for a static, non-PIE program, whose runtime and
link-time addresses agree), ask GDB for `x/i ADDR` on ELF and compare the
<function+offset> and the instruction text.  GDB's x/i omits "+0" where
instruction-history prints it, so that is normalized.  Exits 1 when fewer
than MIN_PERCENT of the addresses are identical, printing the differences.
"""
import re
import subprocess
import sys

insns, elf, minimum = sys.argv[1], sys.argv[2], float(sys.argv[3])
mine = {}
for line in open(insns):
    m = re.match(r'\d+\t   0x([0-9a-f]{16})( <[^>]*>)?:\t(.*)$', line.rstrip('\n'))
    if m:
        mine[int(m.group(1), 16)] = ((m.group(2) or '').replace('+0>', '>'),
                                     m.group(3))
addrs = sorted(mine)
cmd = ['gdb', '-batch', '-nx']
for a in addrs:
    cmd += ['-ex', 'x/i 0x%x' % a]
out = subprocess.run(cmd + [elf], capture_output=True, text=True).stdout
gdb = {}
for line in out.splitlines():
    m = re.match(r'\s+0x([0-9a-f]+)( <[^>]*>)?:\t(.*)$', line)
    if m:
        gdb[int(m.group(1), 16)] = (m.group(2) or '', m.group(3).rstrip())
same = [a for a in addrs if gdb.get(a) == mine[a]]
pct = 100.0 * len(same) / max(len(addrs), 1)
print('%d of %d addresses identical to GDB (%.2f%%)' % (len(same), len(addrs), pct))
for a in addrs:
    if gdb.get(a) != mine[a]:
        print('  0x%x gdb: %s ptrec: %s' % (a, gdb.get(a), mine[a]))
sys.exit(0 if addrs and pct >= minimum else 1)
