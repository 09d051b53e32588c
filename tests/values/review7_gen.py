#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Regenerates review7's generated tables (run from tests/values/ after
editing a source list): review7_rw.inc from review7_rw.tbl,
review7_sys.inc from review7_sys.tbl, review7_sysr.inc from
review7_sysr.tbl, review7_bsweep.inc from review7_sweep.inc and
review7_bxsweep.inc from review7_xsweep.inc (each row as a function for
the backward sweeps).  review7_sweep.inc,
review7_msweep.inc and review7_xsweep.inc are the sources themselves."""
import re


def asm_line(x):
    return '\t"\\t%s\\n"' % x.replace('\\', '\\\\').replace('"', '\\"')


def rows(name):
    return [l.rstrip('\n').split('|') for l in open(name) if l.strip()]


def rw():
    out = ['/* Generated from review7_rw.tbl (one block per row). */']
    for k, (kind, setup, insn, post, byte) in enumerate(rows('review7_rw.tbl')):
        ins = [x.strip() for x in insn.split(';')]
        s = ['lea r7_rb+%d(%%rip), %%rbp' % (4096 * k)]
        s += [x.strip() for x in setup.split(';') if x.strip()]
        s += ins[:-1] + ['r7_w%d: %s' % (k, ins[-1])]
        s += [x.strip() for x in post.split(';') if x.strip()]
        out += [asm_line(x) for x in s]
    open('review7_rw.inc', 'w').write('\n'.join(out) + '\n')


def sys(tbl, inc, buf, label):
    out = ['/* Generated from %s (one block per row). */' % tbl]
    for k, (nr, setup, byte) in enumerate(rows(tbl)):
        s = ['lea %s+%d(%%rip), %%rdi' % (buf, 256 * k)]
        s += [x.strip() for x in setup.split(';') if x.strip()]
        s += ['mov $%s, %%eax' % nr, '%s%d: syscall' % (label, k)]
        out += [asm_line(x) for x in s]
    open(inc, 'w').write('\n'.join(out) + '\n')


def bsweep():
    pat = re.compile(r'^\t"\\tT \\"(.*)\\", \\"(.*)\\", \\"(.*)\\"\\n"$')
    out = ['/* Generated: one function per row of the sweep (review7_bsweep). */']
    n = 0
    for line in open('review7_sweep.inc'):
        m = pat.match(line.rstrip('\n'))
        if not m:
            continue
        setup, insn, post = m.groups()
        out += ['\t".globl r7_b%d\\n"' % n, '\t"r7_b%d:\\n"' % n,
                '\t"\\tBPRE\\n"']
        for x in setup.split(';') + insn.split(';') + post.split(';'):
            if x.strip():
                out.append(asm_line(x.strip()))
        out.append('\t"\\tud2\\n"')
        n += 1
    out += ['\t".section .data.rel.ro\\n"', '\t".globl r7_btab\\n"',
            '\t"r7_btab:\\n"']
    out += ['\t"\\t.quad r7_b%d\\n"' % k for k in range(n)]
    out += ['\t".globl r7_bn\\n"', '\t"r7_bn:\\n\\t.quad %d\\n"' % n,
            '\t".text\\n"']
    open('review7_bsweep.inc', 'w').write('\n'.join(out) + '\n')


def bxsweep():
    pat = re.compile(r'^\t"\\t(.*)\\n"$')
    rows = [m.group(1) for m in (pat.match(l.rstrip('\n'))
            for l in open('review7_xsweep.inc'))
            if m and m.group(1) not in ('XPRE', 'XPOST')]
    out = ['/* Generated: the SSE sweep backward (review7 bxsweep), one function per row. */']
    for k, r in enumerate(rows):
        out += ['\t".globl r7_bx%d\\n"' % k, '\t"r7_bx%d:\\n"' % k,
                '\t"\\tBXPRE\\n"', '\t"\\t%s\\n"' % r, '\t"\\tBXPOST\\n"']
    out += ['\t".section .data.rel.ro\\n"', '\t".globl r7_xtab\\n"',
            '\t"r7_xtab:\\n"']
    out += ['\t"\\t.quad r7_bx%d\\n"' % k for k in range(len(rows))]
    out += ['\t".globl r7_xn\\n"', '\t"r7_xn:\\n\\t.quad %d\\n"' % len(rows),
            '\t".text\\n"']
    open('review7_bxsweep.inc', 'w').write('\n'.join(out) + '\n')


rw()
bxsweep()
sys('review7_sys.tbl', 'review7_sys.inc', 'r7_sb', 'r7_s')
sys('review7_sysr.tbl', 'review7_sysr.inc', 'r7_sr', 'r7_q')
bsweep()
