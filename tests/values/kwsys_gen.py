#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Regenerates kwsys_sys.inc and kwsys_sysv.inc from kwsys_sys.tbl (run
from tests/values/ after editing it): one block per row, the call at
kw_s<k> with rdi at its 256-byte slot of kw_sb (kwsys_sys.inc, the GDB
rows), and the same calls with a store of 0x77 to the row's byte before
and a load of it after (kwsys_sysv.inc, the values)."""


def asm_line(x):
    return '\t"\\t%s\\n"' % x.replace('\\', '\\\\').replace('"', '\\"')


def rows(name):
    return [l.rstrip('\n').split('|') for l in open(name) if l.strip()]


def setup(text):
    return [x.strip() for x in text.split(';') if x.strip()]


def gdb():
    out = ['/* Generated from kwsys_sys.tbl by kwsys_gen.py (one block per row). */']
    for k, (nr, s, byte) in enumerate(rows('kwsys_sys.tbl')):
        ins = ['lea kw_sb+%d(%%rip), %%rdi' % (256 * k)] + setup(s)
        ins += ['mov $%s, %%eax' % nr, 'kw_s%d: syscall' % k]
        out += [asm_line(x) for x in ins]
    open('kwsys_sys.inc', 'w').write('\n'.join(out) + '\n')


def values():
    out = ['/* Generated from kwsys_sys.tbl by kwsys_gen.py: each call with a store of 0x77 to its byte before and a load of it after (values). */']
    for k, (nr, s, byte) in enumerate(rows('kwsys_sys.tbl')):
        ins = ['lea kw_sb+%d(%%rip), %%rbx' % (256 * k),
               'movb $0x77, %s(%%rbx)' % byte, 'mov %rbx, %rdi']
        ins += setup(s) + ['mov $%s, %%eax' % nr, 'syscall',
                           'movzbl %s(%%rbx), %%r12d' % byte,
                           'mov %r12, %r13']
        out += [asm_line(x) for x in ins]
    open('kwsys_sysv.inc', 'w').write('\n'.join(out) + '\n')


gdb()
values()
