# SPDX-License-Identifier: GPL-3.0-or-later
"""GDB side of scripts/bench-scale: latency of moves through GDB.

Run inside `ptrec replay BUNDLE -batch -x gdb_scale.py` with BENCH_T0 (the
shell's clock, in seconds, just before ptrec replay started) and
PTGEN_TRUTH (the bundle's ptgen ground truth) in the environment.  Prints
one line:

    gdb-scale ready=S goto=P50,P99 ... errors=N

Times are seconds.  Moves (the cursor first put at the truth's sampled
position with `ptrec goto`, untimed): goto to random positions,
reverse-stepi after it, reverse-nexti over a call, reverse-finish, and
reverse-continue to a breakpoint at the sample's address; each is checked
against the truth with `monitor ptrec position`.  Targets at most REACH
instructions back, as in bench_scale.
"""
import os
import re
import struct
import time

import gdb

READY = time.time() - float(os.environ['BENCH_T0'])
REACH = 100000
MOVES = int(os.environ.get('GDB_SCALE_MOVES', '20'))
NONE = (1 << 64) - 1


def load_truth(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic, _ver, _tid, _seed, insns, nsegs, nsamples = \
        struct.unpack_from('<8sIIQQQQ', data, 0)
    if magic != b'PTGENGT\0':
        raise gdb.GdbError(path + ': not a ptgen ground-truth file')
    off = 48 + 24 * nsegs
    samples = [struct.unpack_from('<QQQQQ', data, off + 40 * i)
               for i in range(nsamples)]
    return insns, samples


def run(cmd):
    return gdb.execute(cmd, to_string=True)


def position(n):
    out = run('monitor ptrec position')
    m = re.search(r'position (\d+) of', out)
    return int(m.group(1)) - 1 if m else n


def goto(i):
    run('ptrec goto %d' % (i + 1))


ERRORS = []


def expect(what, at, want, n):
    got = position(n)
    if got != want:
        ERRORS.append('%s from %d: at %d, truth %d' % (what, at, got, want))


def timed(cmd):
    t0 = time.perf_counter()
    run(cmd)
    return time.perf_counter() - t0


def pct(v):
    if not v:
        return '0,0'
    v = sorted(v)
    return '%.6f,%.6f' % (v[len(v) // 2], v[min(len(v) - 1,
                                                len(v) * 99 // 100)])


def main():
    n, samples = load_truth(os.environ['PTGEN_TRUTH'])
    gdb.execute('set pagination off')
    gdb.execute('set confirm off')
    res = {k: [] for k in ('goto', 'stepi', 'nexti', 'finish', 'cont')}
    seed = 88172645463325252
    for _ in range(MOVES):
        seed ^= (seed << 13) & NONE
        seed ^= seed >> 7
        seed ^= (seed << 17) & NONE
        p = seed % n
        res['goto'].append(timed('ptrec goto %d' % (p + 1)))
        if not p:
            continue
        res['stepi'].append(timed('reverse-stepi'))
        expect('reverse-stepi', p, p - 1, n)
    for index, ip, prev, frame_call, ret_call in samples:
        if ret_call != NONE and index - ret_call <= REACH and \
                len(res['nexti']) < MOVES:
            goto(index)
            res['nexti'].append(timed('reverse-nexti'))
            expect('reverse-nexti', index, ret_call, n)
        if frame_call != NONE and index - frame_call <= REACH and \
                len(res['finish']) < MOVES:
            goto(index)
            res['finish'].append(timed('reverse-finish'))
            expect('reverse-finish', index, frame_call, n)
        if prev != NONE and index - prev <= REACH and \
                len(res['cont']) < MOVES:
            goto(index)
            run('tbreak *%#x' % ip)
            res['cont'].append(timed('reverse-continue'))
            expect('reverse-continue', index, prev, n)
            run('delete')
    for e in ERRORS[:10]:
        print('gdb-scale error: ' + e)
    print('gdb-scale ready=%.6f %s errors=%d' % (
        READY, ' '.join('%s=%s' % (k, pct(v)) for k, v in res.items()),
        len(ERRORS)))


main()
