# SPDX-License-Identifier: GPL-3.0-or-later
"""Why GDB shows a local as unavailable in the past (#17): a diagnostic,
sourced by GDB in `ptrec replay -batch` (tests/gdb/valwhy.sh runs it).

It steps back (reverse-step) VALWHY_STEPS times from the end, as
tests/gdb/valwalk.py does, and at every stop reads every argument and
local of every frame of the backtrace.  Each one GDB cannot print is
counted under its cause, found from its DWARF location at the frame's pc
(`info address`, the range holding the pc for a location list):

  no location       the compiler kept none at this pc (optimized out)
  frame-0 register  in a register of frame 0 the values engine does not
                    know at this position
  outer callee-saved  in rbx, rbp, r12-r15 of an outer frame the unwinder
                    could not recover
  outer caller-saved  in another register of an outer frame (never saved:
                    GDB shows <optimized out>, as on a live process)
  entry value       DW_OP_entry_value (the caller's call-site value)
  slot, CFA unknown a stack slot of a frame whose id is synthetic
  slot, memory unknown  a stack slot of a frame whose CFA is real: the
                    engine does not know those bytes at this position
  memory via REG    memory through another register (known) the engine
                    does not know
  other

With VALWHY_STORES=N, for the first N distinct stack slots whose memory
is unknown, the nearest store on each side that may have written them
(GDB's `watch -l` with the server's "may have written") is named, by
function: which stores keep the slot unknown.  Prints "valwhy: ..." lines;
it checks nothing (tests/gdb/valwalk.py checks values against the truth).
"""
import collections
import os
import re
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dwloc import frame_pc, frames, location  # noqa: E402

STEPS = int(os.environ.get('VALWHY_STEPS', '150'))
STORES = int(os.environ.get('VALWHY_STORES', '0'))
# VALWHY_STAY="fact main": out of any other function by reverse-finish
# after each step (valwalk's walk on values.c).
STAY = os.environ.get('VALWHY_STAY', '').split()
CALLEE_SAVED = ('rbx', 'rbp', 'r12', 'r13', 'r14', 'r15')
# gdb/server/target.h: synthetic frame ids lie above 0x7ff0... (minus 16
# per instruction) or below 0x1000_0000_0000.
REAL_LO, REAL_HI = 0x100000000000, 0x7fef00000000000

causes = collections.Counter()
by_func = collections.Counter()
stores = collections.Counter()
shown = total = 0
slots_seen = set()


def symbols(f):
    try:
        b = f.block()
    except RuntimeError:
        return
    seen = set()
    while b is not None:
        for s in b:
            if (s.is_argument or s.is_variable) and s.name not in seen \
                    and not s.addr_class == gdb.SYMBOL_LOC_STATIC:
                seen.add(s.name)
                yield s
        if b.function:
            break
        b = b.superblock


def cause(f, s, err, loc):
    level = f.level()
    if loc is None or 'no location' in loc or 'optimized out' in loc:
        return 'no location'
    if 'DW_OP_entry_value' in loc or 'entry_value' in loc:
        return 'entry value'
    m = re.search(r'a variable in \$(\w+)', loc)
    if m or re.search(r'DW_OP_reg\d+ \[\$(\w+)\]', loc):
        reg = m.group(1) if m else \
            re.search(r'DW_OP_reg\d+ \[\$(\w+)\]', loc).group(1)
        if level == 0:
            return 'frame-0 register'
        if reg in CALLEE_SAVED:
            return 'outer callee-saved'
        return 'outer caller-saved'
    m = re.search(r'Cannot access memory at address (0x[0-9a-f]+)', err)
    if 'DW_OP_fbreg' in loc or 'frame base' in loc or \
            re.search(r'DW_OP_breg7 |\$rsp', loc):
        if m and not REAL_LO <= int(m.group(1), 16) < REAL_HI:
            return 'slot, CFA unknown'
        if m:
            return 'slot, memory unknown'
        return 'slot, other'
    m2 = re.search(r'DW_OP_breg\d+ \[\$(\w+)\]', loc)
    if m2:
        return 'memory via ' + ('callee-saved' if m2.group(1) in
                                CALLEE_SAVED else 'a register')
    return 'other'


def name_store(addr, size, here):
    """The functions of the nearest stores each side of @here that may
    have written [addr, addr + size)."""
    got = []
    for cmd in ('continue', 'reverse-continue'):
        gdb.execute('ptrec goto %s' % here, to_string=True)
        try:
            gdb.execute('watch -l *(char (*)[%d])%#x' % (size, addr),
                        to_string=True)
            out = gdb.execute(cmd, to_string=True)
        except gdb.error as e:
            out = str(e)
        gdb.execute('delete', to_string=True)
        m = re.search(r'the store at (0x[0-9a-f]+).*?(may have|wrote)', out)
        if not m:
            got.append((cmd, 'none' if 'No more' in out or 'exited' in out
                        else 'known'))
            continue
        sym = gdb.execute('info symbol %s' % m.group(1), to_string=True)
        fn = re.sub(r' in section .*', '', sym.strip()).replace(' + ', '+')
        got.append((cmd, fn))
    gdb.execute('ptrec goto %s' % here, to_string=True)
    return got


def position():
    out = gdb.execute('ptrec position', to_string=True)
    m = re.search(r'position (\d+)', out)
    return m.group(1) if m else 'end'


def look():
    global shown, total
    slots = []
    for f in frames():
        fn = f.name() or '??'
        f.select()
        pc = frame_pc(f)
        for s in symbols(f):
            total += 1
            try:
                v = s.value(f)
                txt = str(v)
                err = txt
                ok = not (v.is_optimized_out or '<unavailable>' in txt or
                          'not saved' in txt or '<optimized out>' in txt)
            except (gdb.error, gdb.MemoryError) as e:
                ok, err = False, str(e)
            if ok:
                shown += 1
                continue
            loc = location(s.name, pc)
            c = cause(f, s, err, loc)
            causes[c] += 1
            by_func[(c, fn)] += 1
            m = re.search(r'Cannot access memory at address (0x[0-9a-f]+)',
                          err)
            if c == 'slot, memory unknown' and m:
                slots.append((int(m.group(1), 16), s.type.sizeof))
    gdb.newest_frame().select()
    return slots


for stop in range(STEPS):
    out = gdb.execute('reverse-step', to_string=True)
    if 'No more reverse-execution history' in out:
        break
    while STAY and gdb.newest_frame().name() not in STAY:
        gdb.execute('reverse-finish', to_string=True)
    for addr, size in look():
        if len(slots_seen) >= STORES or (addr, size) in slots_seen:
            continue
        slots_seen.add((addr, size))
        here = position()
        for cmd, fn in name_store(addr, min(max(size, 1), 8), here):
            stores[(cmd, fn)] += 1

gdb.write('valwhy: shown %d of %d\n' % (shown, total))
for c, n in causes.most_common():
    gdb.write('valwhy: %-22s %5d\n' % (c, n))
for (c, fn), n in by_func.most_common(15):
    gdb.write('valwhy:   %-22s %-28s %5d\n' % (c, fn, n))
for (cmd, fn), n in stores.most_common():
    gdb.write('valwhy: store %-16s %-36s %4d\n' % (cmd, fn, n))
