#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check `ptrec calls` against a call history computed independently.

callcheck.py CALLS TRUTH ELF: CALLS is `ptrec calls --tree --insn-range`
output, TRUTH is `truthdump` output (the executed addresses), ELF the static
non-PIE program recorded.  The reference uses only the ground truth,
`objdump` (function symbols, sections, and which instructions are calls
and returns), and GDB's segmentation rules: a new segment after every call and
return, and where execution reaches another function otherwise; reaching a
caller's function mid-body (not at its start) is a return to that caller.
"""
import bisect
import re
import subprocess
import sys

calls_file, truth_file, elf = sys.argv[1:4]
truth = [int(l, 16) for l in open(truth_file)]

# Sections (VMA, size) and function symbols with their section, from
# objdump.  A symbol only names addresses of its own section (GDB's rule),
# and among aliases at one address GDB shows the last by name.
sections = []
for line in subprocess.run(['objdump', '-h', elf], capture_output=True,
                           text=True).stdout.splitlines():
    f = line.split()
    if len(f) >= 7 and f[0].isdigit():
        sections.append((int(f[3], 16), int(f[2], 16), f[1]))


def section(ip):
    for vma, size, name in sections:
        if vma <= ip < vma + size:
            return name
    return None


syms = {}
for line in subprocess.run(['objdump', '-t', elf], capture_output=True,
                           text=True).stdout.splitlines():
    m = re.match(r'([0-9a-f]{16}) (.{7}) (\S+)\s+([0-9a-f]+)\s+'
                 r'(?:\.hidden |\.protected |\.internal )?(\S+)$', line)
    if m and 'F' in m.group(2) and int(m.group(1), 16):
        addr, size, name = int(m.group(1), 16), int(m.group(4), 16), m.group(5)
        if addr not in syms or name > syms[addr][1]:
            syms[addr] = (size, name, m.group(3))
starts = sorted(syms)


def func(ip):
    scn = section(ip)
    i = bisect.bisect_right(starts, ip) - 1
    while i >= 0 and ip - starts[i] < 1 << 20:
        size, name, sscn = syms[starts[i]]
        if sscn == scn and (size == 0 or ip < starts[i] + size):
            return starts[i], name
        i -= 1
    return None, '??'


kind = {}
for line in subprocess.run(['objdump', '-d', '--no-show-raw-insn', elf],
                           capture_output=True, text=True).stdout.splitlines():
    m = re.match(r'\s*([0-9a-f]+):\t(\S+)', line)
    if m:
        op = m.group(2)
        kind[int(m.group(1), 16)] = ('call' if op.startswith('call') else
                                     'ret' if op.startswith('ret') else '')

ref = []          # (first, last, level, name)
stack = []        # (function start, level) of callers
level = 0
cur = None
for pos, ip in enumerate(truth):
    start, name = func(ip)
    boundary = pos == 0
    if pos:
        prev = kind.get(truth[pos - 1], '')
        if prev == 'call':
            stack.append((cur, level))
            level += 1
            boundary = True
        elif prev == 'ret':
            if stack:
                stack.pop()
            level -= 1
            boundary = True
        elif start != cur:
            if start is not None and ip != start:
                for i in range(len(stack) - 1, -1, -1):
                    if stack[i][0] == start:
                        level = stack[i][1]
                        del stack[i:]
                        break
            boundary = True
    if boundary:
        if ref:
            ref[-1][1] = pos - 1
        ref.append([pos, pos, level, name])
        cur = start
ref[-1][1] = len(truth) - 1
low = min(r[2] for r in ref)

mine = []
for line in open(calls_file):
    m = re.match(r'(\d+)\t( *)(\S+)\tinst (\d+),(\d+)', line)
    if m:
        mine.append([int(m.group(4)) - 1, int(m.group(5)) - 1,
                     len(m.group(2)) // 2, m.group(3)])
ref = [[r[0], r[1], r[2] - low, r[3]] for r in ref]
bad = [i for i in range(max(len(ref), len(mine)))
       if i >= len(ref) or i >= len(mine) or ref[i] != mine[i]]
print('%d segments in ptrec calls, %d in the reference, %d differ'
      % (len(mine), len(ref), len(bad)))
for i in bad[:10]:
    print('  segment %d: ptrec %s reference %s' %
          (i + 1, mine[i] if i < len(mine) else None,
           ref[i] if i < len(ref) else None))
sys.exit(1 if bad else 0)
