# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/gdb/values.sh: GDB's values in the past against what the program
printed itself (sourced by GDB in `ptrec replay -batch` on a recording of
tests/gdb/values.c; the program's output is in $VALWALK_PRINTED).

From the end of the history it steps back (reverse-step) STEPS times and
at every stop reads, in every frame of the backtrace, what that frame's
variables must be by the program's own output: in fact(), n is the one
its depth implies (the k-th fact frame from main's call has n = 7 - k,
which the program printed), and on line 12 and 13 r is n's printed r; in
main, on line 22 i and sum are those of a printed "loop" line (the one
for that i), and on line 29 the loop's last.  Then, at a stop in fact on
line 13, `finish` must print the printed r as "Value returned".  Values
GDB cannot read (unavailable, optimized out, not saved, unreadable
memory) count as not shown; a value shown that differs is WRONG.  A
program that prints "mark FUNC VALUE" lines (tests/gdb/smashes.c) has
each FUNC's `mark` checked in every frame of FUNC where it is set.  The
last line is "valwalk: shown S of T, wrong W, finish F of G shown".
"""
import os
import re
import struct
import subprocess
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dwloc import frame_pc, frames, in_register, location  # noqa: E402

STEPS = int(os.environ.get('VALWALK_STEPS', '150'))

# Without VALWALK_PRINTED (another program): only the frame checks, at
# every reverse-step wherever it stops.
PRINTED = os.environ.get('VALWALK_PRINTED')
printed = open(PRINTED).read().splitlines() if PRINTED else []
fact_r = {}
loop = {}
for ln in printed:
    m = re.match(r'fact n=(-?\d+) r=(-?\d+)', ln)
    if m:
        fact_r[int(m.group(1))] = int(m.group(2))
    m = re.match(r'loop i=(-?\d+) sum=(-?\d+)', ln)
    if m:
        loop[int(m.group(1))] = int(m.group(2))
last_i = max(loop) if loop else 0
# "mark FUNC VALUE" (tests/gdb/smashes.c): FUNC's local `mark`, set by
# its first statement and never changed.
marks = {}
for ln in printed:
    m = re.match(r'mark (\w+) (-?\d+)$', ln)
    if m:
        marks[m.group(1)] = int(m.group(2))

stats = {'shown': 0, 'total': 0, 'wrong': 0, 'fin': 0, 'fin_total': 0,
         'regs': 0, 'regs_total': 0, 'ids': 0, 'ids_total': 0,
         'rv': 0, 'rv_total': 0, 'r0': 0, 'r0_total': 0}
CALLEE_SAVED = ('rbx', 'rbp', 'r12', 'r13', 'r14', 'r15')

# With VALWALK_TRUTH="VALCHECK BUNDLE" (a --ground-truth recording), every
# frame's id and unwound registers are checked too: the caller of a frame
# a call opened had, as the recorder's ptrace saw them just before that
# call, rsp (the callee's CFA: GDB's "frame at") and the callee-saved
# registers the unwinder gives.
TRUTH = os.environ.get('VALWALK_TRUTH', '').split()
_truth = {}


def truth_at(at):
    """The ground truth's registers before 1-based instruction @at."""
    if at not in _truth:
        out = subprocess.run(TRUTH + ['--truth', str(at)],
                             capture_output=True, text=True).stdout
        _truth[at] = {m.group(1): int(m.group(2), 16) for m in
                      re.finditer(r'^(\S+) (0x[0-9a-f]+|0)$', out, re.M)}
    return _truth[at]


def published_stack():
    """The server's published call stack (gdb/plugin/ptrec_unwind.py)."""
    inf = gdb.selected_inferior()
    head = bytes(inf.read_memory(0xffffffffff000000, 24))
    count = struct.unpack_from('<Q', head, 8)[0]
    data = bytes(inf.read_memory(0xffffffffff000018, 24 * count))
    return head[:8], [struct.unpack_from('<QQQ', data, 24 * i)
                      for i in range(count)]


def handler_cfa(entry, ip):
    """The CFA of a signal handler's frame whose first instruction is at
    0-based position @entry, address @ip: its entry rsp + 8.  The truth
    has no registers at a handler's entry (those before it are the
    interrupted ones, read before the kernel built the frame), only after
    its first instruction: rsp there, plus 16 after a push, plus 8 after
    an instruction that does not move rsp; None after any other."""
    t = truth_at(entry + 2)
    m = re.search(r':\s+(\S+)\s*(.*)$',
                  gdb.execute('x/i %#x' % ip, to_string=True).strip())
    if 'rsp' not in t or not m:
        return None
    if m.group(1) == 'push':
        return t['rsp'] + 16
    if 'sp' not in m.group(2) and m.group(1) not in (
            'call', 'ret', 'pop', 'leave', 'enter', 'syscall'):
        return t['rsp'] + 8
    return None


def check_frames(stop):
    magic, stack = published_stack()
    if magic != b'PTRECSTK':
        return
    chain = [f for f in frames() if f.type() != gdb.INLINE_FRAME]
    for k, f in enumerate(chain[:len(stack) - 1]):
        entry = stack[k][0]
        if entry == 0 or entry >> 62:
            continue
        t = truth_at(entry)          # before the call (0-based entry - 1)
        # A handler's frame (its caller a signal frame): opened by a
        # delivery, not a call (the engine knows its entry rsp from the
        # recorder's SIGFRAME record, replay/rcv_sig.c).
        cfa = t['rsp']
        if k + 1 < len(stack) and stack[k + 1][0] >> 63:
            cfa = handler_cfa(entry, stack[k][1])
        f.select()
        try:
            info = gdb.execute('info frame', to_string=True)
        except gdb.error:
            info = ''       # "Register 6 was not saved": no frame line
        m = re.search(r'frame at (0x[0-9a-f]+)', info)
        at = int(m.group(1), 16) if m else None
        stats['ids_total'] += 1
        if at is not None and 0x100000000000 <= at < 0x7ff000000000000:
            stats['ids'] += 1
            if cfa is not None and at != cfa:
                stats['wrong'] += 1
                gdb.write('WRONG stop %d frame %d: frame at %#x, its CFA '
                          'was %#x\n' % (stop, f.level(), at, cfa))
        caller = f.older()
        if caller is None:
            continue
        for reg in ('rsp', 'rbx', 'rbp', 'r12', 'r13', 'r14', 'r15'):
            stats['regs_total'] += 1
            try:
                v = caller.read_register(reg)
                if v.is_optimized_out:
                    continue
                got = int(v) & (2 ** 64 - 1)
            except (gdb.error, gdb.MemoryError, ValueError):
                continue
            if reg == 'rsp' and got >= 0xffffffffff000000:
                # A signal frame's: the address the server serves its
                # ucontext at (gdb/server/target.c, sig_context()), as
                # synthetic as a frame id outside the real stack.
                continue
            stats['regs'] += 1
            if got != t[reg]:
                stats['wrong'] += 1
                gdb.write('WRONG stop %d frame %d: %s = %#x, truth %#x\n'
                          % (stop, caller.level(), reg, got, t[reg]))
    gdb.newest_frame().select()


def check_regvars(stop, stack):
    """Every argument and local of every frame whose location at the
    frame's pc is a register (or the register's value at the function's
    entry, DW_OP_entry_value) against the ground truth: frame 0's at the
    position, an outer frame's callee-saved register before the call it
    made, an entry value at the frame's first instruction."""
    out = gdb.execute('ptrec position', to_string=True)
    m = re.search(r'position (\d+)', out)
    if not m:
        return
    here = int(m.group(1))
    # Frame 0's registers, as `info registers` shows them (the truth has
    # none for a position it did not record: the end, a system call).
    t = truth_at(here)
    for reg in () if not t else ('rax', 'rbx', 'rcx', 'rdx', 'rsi', 'rdi', 'rbp', 'rsp',
                'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15'):
        stats['r0_total'] += 1
        try:
            v = gdb.newest_frame().read_register(reg)
            if v.is_optimized_out or '<unavailable>' in str(v):
                continue
            got = int(v) & (2 ** 64 - 1)
        except (gdb.error, ValueError):
            continue
        stats['r0'] += 1
        if reg not in t or got != t[reg]:
            stats['wrong'] += 1
            gdb.write('WRONG stop %d frame 0: %s = %#x, truth %s\n'
                      % (stop, reg, got, hex(t[reg]) if reg in t
                         else 'none'))
    f, k = gdb.newest_frame(), 0
    while f is not None and k < len(stack):
        f.select()
        try:
            block = f.block()
        except RuntimeError:
            block = None
        seen = set()
        while block is not None:
            for sym in block:
                if not (sym.is_argument or sym.is_variable) or \
                        sym.name in seen or sym.type.sizeof > 8:
                    continue
                seen.add(sym.name)
                check_regvar(stop, f, k, sym, here, stack)
            if block.function:
                break
            block = block.superblock
        if f.type() != gdb.INLINE_FRAME:
            k += 1
        try:
            f = f.older()
        except gdb.error:
            break
    gdb.newest_frame().select()


def check_regvar(stop, f, k, sym, here, stack):
    where = in_register(location(sym.name, frame_pc(f)))
    if where is None:
        return
    kind, reg = where
    if kind == 'entry':
        entry = stack[k][0]
        if entry == 0 or entry >> 62:
            return
        at = entry + 1              # before the frame's first instruction
    elif k == 0:
        at = here                   # ptrec position counts from 1
    elif reg in CALLEE_SAVED:
        entry = stack[k - 1][0]
        if entry == 0 or entry >> 62:
            return
        at = entry                  # before the call frame k made
    else:
        at = None                   # never saved: must not be shown
    if at is not None and not truth_at(at):
        return                      # not recorded there
    stats['rv_total'] += 1
    try:
        v = sym.value(f)
        if v.is_optimized_out or '<unavailable>' in str(v):
            return
        got = int(v)
    except (gdb.error, gdb.MemoryError, ValueError):
        return
    stats['rv'] += 1
    mask = (1 << (8 * sym.type.sizeof)) - 1
    t = truth_at(at) if at is not None else {}
    if reg not in t or (got - t[reg]) & mask:
        stats['wrong'] += 1
        gdb.write('WRONG stop %d frame %d %s: %s = %#x in %s (%s), truth '
                  '%s\n' % (stop, f.level(), f.name(), sym.name,
                             got & mask, reg, kind,
                             hex(t[reg] & mask) if reg in t else 'none'))


def check(frame, name, want, where):
    stats['total'] += 1
    try:
        v = frame.read_var(name)
        got = int(v)
    except (gdb.error, gdb.MemoryError, ValueError):
        return
    stats['shown'] += 1
    if got != want:
        stats['wrong'] += 1
        gdb.write('WRONG %s: %s = %d, the program had %d\n'
                  % (where, name, got, want))


def look(stop):
    chain = list(frames())
    names = [f.name() for f in chain]
    if 'main' not in names:
        return
    # fact frames above main: the one main called has n = 6.
    depth = 0
    for f in reversed(chain[:names.index('main')]):
        if f.name() != 'fact':
            continue
        depth += 1
        n = 7 - depth
        line = f.find_sal().line
        where = 'stop %d %s frame %d line %d' % (stop, f.name(),
                                                 f.level(), line)
        if line in (10, 12, 13):
            check(f, 'n', n, where)
        if line in (12, 13):
            check(f, 'r', fact_r[n], where)
    m = chain[names.index('main')]
    line = m.find_sal().line
    where = 'stop %d main frame %d line %d' % (stop, m.level(), line)
    if line == 22:
        try:
            i = int(m.read_var('i'))
        except (gdb.error, gdb.MemoryError):
            i = None
        stats['total'] += 1
        if i is not None:
            stats['shown'] += 1
            if i not in loop:
                stats['wrong'] += 1
                gdb.write('WRONG %s: i = %d, never printed\n' % (where, i))
            else:
                check(m, 'sum', loop[i], where)
    elif line == 29:
        check(m, 'i', last_i + 1, where)
        check(m, 'sum', loop[last_i], where)


def look_marks(stop):
    """Every frame's `mark` where it is set: in an outer frame (at a call
    made after its first statement) or in frame 0 past the mark's line,
    against the value the program printed for that function."""
    for f in frames():
        if f.name() not in marks or f.type() == gdb.INLINE_FRAME:
            continue
        try:
            sym = gdb.lookup_symbol('mark', f.block())[0]
        except RuntimeError:
            continue
        if sym is None or (f.level() == 0 and
                           f.find_sal().line <= sym.line):
            continue
        check(f, 'mark', marks[f.name()], 'stop %d %s frame %d line %d'
              % (stop, f.name(), f.level(), f.find_sal().line))


def len_history():
    """How many values GDB's value history holds."""
    try:
        return int(gdb.parse_and_eval('$_gdb_history_len'))
    except gdb.error:
        pass
    n = 0
    while True:
        try:
            gdb.history(n + 1)
        except gdb.error:
            return n
        n += 1


# VALWALK_FROM=N: the walk starts at position N instead of the end
# (frames deep in the history, which the end's registers do not reach).
if os.environ.get('VALWALK_FROM'):
    gdb.execute('ptrec goto %s' % os.environ['VALWALK_FROM'], to_string=True)
fin_at = []
for stop in range(STEPS):
    out = gdb.execute('reverse-step', to_string=True)
    if 'No more reverse-execution history' in out:
        break
    # Out of the library (printf) back into the program's frames.
    while (fact_r or loop) and \
            gdb.newest_frame().name() not in ('fact', 'main'):
        gdb.execute('reverse-finish', to_string=True)
    if PRINTED:
        look(stop)
        look_marks(stop)
    if TRUTH:
        check_frames(stop)
        magic, stack = published_stack()
        if magic == b'PTRECSTK':
            check_regvars(stop, stack)
    f = gdb.newest_frame()
    if PRINTED and f.name() == 'fact' and f.find_sal().line == 13 and \
            len(fin_at) < 6:
        pos = gdb.execute('ptrec position', to_string=True)
        m = re.search(r'position (\d+)', pos)
        if m:
            fin_at.append(int(m.group(1)))

# finish from line 13 of fact: the value returned is the printed r.
for pos in fin_at:
    gdb.execute('ptrec goto %d' % pos, to_string=True)
    f = gdb.newest_frame()
    depth = sum(1 for g in frames() if g.name() == 'fact')
    n = 7 - depth
    before = len_history()
    gdb.execute('finish')
    stats['fin_total'] += 1
    # The plugin's finish prints "Value returned is $N = V" and records
    # $N only where the value is known (docs/gdb.md, #17); elsewhere the
    # history does not grow.
    if gdb.parameter('print finish') and len_history() > before:
        got = int(gdb.history(0))
        stats['fin'] += 1
        if got != fact_r[n]:
            stats['wrong'] += 1
            gdb.write('WRONG finish from fact(%d) at %d: %d, printed %d\n'
                      % (n, pos, got, fact_r[n]))

gdb.write('valwalk: shown %d of %d, wrong %d, finish %d of %d shown, '
          'frame ids %d of %d real, caller registers %d of %d shown, '
          'register locals %d of %d shown, frame 0 registers %d of %d '
          'shown\n'
          % (stats['shown'], stats['total'], stats['wrong'], stats['fin'],
             stats['fin_total'], stats['ids'], stats['ids_total'],
             stats['regs'], stats['regs_total'], stats['rv'],
             stats['rv_total'], stats['r0'], stats['r0_total']))
