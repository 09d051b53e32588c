#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/gdb: where GDB's reverse-step / reverse-next must stop, from the
ground truth and the program's line table alone.

    linetruth.py PROG ADDRS LINE step|next|finish|forward-next

PROG is a non-PIE program built with -g (run-time addresses are link-time
addresses); ADDRS its recorded thread's ground truth, one address a line
(truthdump).  Prints "pos:function:line ..." in the order GDB must stop,
going backward from the last execution of the start of source line LINE.

GDB's line stepping stops where control reaches the start of a line: an
instruction at the start address of a line-table row (is_stmt) whose line
differs from the line of the instruction executed just before it.  A
function's first row (its prologue, up to the second row) is no stop:
stepping into a function stops after the prologue, and stepping back out
of it returns to the caller.  reverse-next stops only in the function of
the start line (no recursion in the test program).  The backward walk ends
at the history's first instruction.  "finish" prints the call instruction
that entered the function running at the start point; "forward-next" the
stops of `next` from the history's first instruction up to the last
execution of LINE.
"""
import subprocess
import sys


def line_table(prog):
    rows = []
    out = subprocess.run(['objdump', '--dwarf=decodedline', prog],
                         capture_output=True, text=True, check=True).stdout
    for ln in out.splitlines():
        f = ln.split()
        if len(f) >= 3 and f[1].isdigit() and f[2].startswith('0x'):
            rows.append((int(f[2], 16), int(f[1]), f[-1] == 'x'))
        elif len(f) >= 3 and f[1] == '-' and f[2].startswith('0x'):
            rows.append((int(f[2], 16), None, False))     # end of sequence
    rows.sort()
    return rows


def functions(prog):
    out = subprocess.run(['nm', prog], capture_output=True, text=True,
                         check=True).stdout
    funcs = {}
    for ln in out.splitlines():
        f = ln.split()
        if len(f) == 3 and f[1] in 'tT':
            funcs[int(f[0], 16)] = f[2]
    return funcs


def main():
    prog, addrs, start_line, mode = sys.argv[1:5]
    start_line = int(start_line)
    rows = line_table(prog)
    funcs = functions(prog)
    starts = {a: l for a, l, stmt in rows if stmt and l is not None}
    entries = sorted(funcs)
    ips = [int(x, 16) for x in open(addrs).read().split()]

    def line_of(ip):
        best = None
        for a, l, _ in rows:
            if a > ip:
                break
            best = l
        return best

    def func_of(ip):
        best = None
        for a in entries:
            if a > ip:
                break
            best = funcs[a]
        return best

    lines = [line_of(ip) for ip in ips]
    begin = max(i for i, ip in enumerate(ips)
                if starts.get(ip) == start_line)
    if mode == 'finish':
        # The last call into the function running at the start point
        # (the test program has no recursion).
        entry = [a for a in entries if funcs[a] == func_of(ips[begin])][0]
        i = max(i for i in range(begin) if ips[i + 1] == entry)
        print('%d:%s:%d' % (i + 1, func_of(ips[i]), lines[i]))
        return
    if mode == 'forward-next':
        # `ptrec goto begin`, then next: the stops in the first
        # instruction's function, forward, up to the start point.
        home = func_of(ips[0])
        stops = ['%d:%s:%d' % (i + 1, home, lines[i])
                 for i in range(1, begin + 1)
                 if ips[i] in starts and ips[i] not in funcs and
                 lines[i] != lines[i - 1] and func_of(ips[i]) == home]
        print(' '.join(stops))
        return
    home = func_of(ips[begin])
    stops = []
    for i in range(begin - 1, 0, -1):
        ip = ips[i]
        if ip not in starts or ip in funcs or lines[i] == lines[i - 1]:
            continue
        if mode == 'next' and func_of(ip) != home:
            continue
        stops.append('%d:%s:%d' % (i + 1, func_of(ip), lines[i]))
    stops.append('1:%s:%d' % (func_of(ips[0]), lines[0]))
    print(' '.join(stops))


main()
