#!/usr/bin/env python3
"""Regenerates review8_rw.inc from review8_rw.tbl (run in tests/values):
one block per row, the instruction at label r8_wK accessing its own
4096-byte slot of r8_rb through %rbp (as review7_gen.py's rw())."""


def asm_line(x):
    return '\t"\\t%s\\n"' % x.replace('\\', '\\\\').replace('"', '\\"')


out = ['/* Generated from review8_rw.tbl (one block per row). */']
for k, line in enumerate(l for l in open('review8_rw.tbl') if l.strip()):
    kind, setup, insn, post, byte = line.rstrip('\n').split('|')
    ins = [x.strip() for x in insn.split(';')]
    s = ['lea r8_rb+%d(%%rip), %%rbp' % (4096 * k)]
    s += [x.strip() for x in setup.split(';') if x.strip()]
    s += ins[:-1] + ['r8_w%d: %s' % (k, ins[-1])]
    s += [x.strip() for x in post.split(';') if x.strip()]
    out += [asm_line(x) for x in s]
open('review8_rw.inc', 'w').write('\n'.join(out) + '\n')
