# SPDX-License-Identifier: GPL-3.0-or-later
"""GDB side of scripts/bench-values: the latency of stepping back with
values in the past (issue #17: "p99 per reverse-step with values on ... a
ratio against values off").  Run as `ptrec replay BUNDLE -batch -x
gdb_steps.py`, once with values on and once with PTREC_NO_VALUES=1, in the
same run.

From a start position (GDB_STEPS_FROM: `end`; `deep`, the middle of the
history; or a number of instructions before the end: then
GDB_STEPS_OFFSET instructions after the first position of the values
window there, so that the walk back crosses into the older window once,
as a person stepping back for long does every 16,384 instructions),
GDB_STEPS_N reverse-stepi, then as many reverse-step, then reverse-next,
each going on from where the last stopped, each timed with what a user
sees after it: reverse-stepi the frame line and the registers,
reverse-step the frame line and `info locals`, reverse-next the frame line
and `bt full`.  GDB_STEPS_PAUSE seconds (default 0: back to back) pass
before each, untimed: a person reading the last stop, the silence in
which ptrec-server computes windows ahead (docs/values.md, "Latency").
The `ptrec goto` to a deep start is timed on its own (a stop far from the
end).  Every step must move back (errors= counts those that did not).
locals= counts the locals and arguments `info locals` and `bt full`
printed with a value against all it printed (values off: none).  Prints

    gdb-steps insns=N from=P start=S goto=T
    gdb-steps cmd=C n=K first=T p50=T p99=T max=T back=I locals=A/B
    gdb-steps cmd=all n=K p50=T p99=T max=T errors=E

(times in seconds; back= the instructions the K steps went back).
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbdrive import pct, position, run  # noqa: E402

N = int(os.environ.get('GDB_STEPS_N', '200'))
FROM = os.environ.get('GDB_STEPS_FROM', 'end')
OFFSET = int(os.environ.get('GDB_STEPS_OFFSET', '2000'))
PAUSE = float(os.environ.get('GDB_STEPS_PAUSE', '0'))
BLOCK = 16384   # RCV_BLOCK, replay/rcv_win.h: instructions per window

SEQ = (('reverse-stepi', ('frame', 'info registers')),
       ('reverse-step', ('frame', 'info locals')),
       ('reverse-next', ('frame', 'bt full')))


def locals_of(out):
    """(shown with a value, shown) of `info locals` / `bt full` lines."""
    shown = known = 0
    for line in out.splitlines():
        m = re.match(r'\s*[A-Za-z_]\w* = (.*)', line)
        if not m:
            continue
        shown += 1
        if not re.search(r'<error|<unavailable>|<optimized out>',
                         m.group(1)):
            known += 1
    return known, shown


def main():
    run('set pagination off')
    run('set confirm off')
    pos, total = position()
    goto = 0.0
    if FROM != 'end':
        k = (total // 2 if FROM == 'deep' else int(FROM)) // BLOCK
        start = max(1, total - (k + 1) * BLOCK + OFFSET)
        t0 = time.perf_counter()
        run('ptrec goto %d' % start)
        run('frame')
        run('info locals')
        goto = time.perf_counter() - t0
        pos, _ = position()
    print('gdb-steps insns=%d from=%s start=%d goto=%.6f' % (
        total, FROM, pos, goto))
    alltimes = []
    errors = 0
    for cmd, views in SEQ:
        times = []
        known = shown = 0
        first = pos
        for _ in range(N):
            if PAUSE:
                time.sleep(PAUSE)
            t0 = time.perf_counter()
            run(cmd)
            outs = [run(v) for v in views]
            times.append(time.perf_counter() - t0)
            k, s = locals_of(outs[-1])
            known += k
            shown += s
            now, _ = position()
            if now >= pos:
                errors += 1
                if errors <= 3:
                    print('gdb-steps error: %s at %d did not move back'
                          % (cmd, pos))
            pos = now
        alltimes += times
        print('gdb-steps cmd=%s n=%d first=%.6f p50=%.6f p99=%.6f '
              'max=%.6f back=%d locals=%d/%d' % (
                  cmd, len(times), times[0], pct(times, 50),
                  pct(times, 99), max(times), first - pos, known, shown))
    print('gdb-steps cmd=all n=%d p50=%.6f p99=%.6f max=%.6f errors=%d' % (
        len(alltimes), pct(alltimes, 50), pct(alltimes, 99),
        max(alltimes), errors))


main()
