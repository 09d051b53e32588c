#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/gdb/diff: ptrec replay against GDB's own `record full`, stop by
stop.

For each test program (built -O0 and -O2), the same chains of reverse-step,
reverse-next, reverse-finish, reverse-stepi, next, step and finish start
at the same breakpoint hit under `record full` (live, recorded from main's
entry) and under `ptrec replay` (recorded by the software recorder, which
starts at main), and every stop's function, line and frame depth must
agree.  Known differences, each with its reason in docs/gdb.md, are listed
in KNOWN: they must still differ the way they are listed (so a fix shows).
glibc's AVX paths are off in both runs: record full cannot record them.

usage: run.py BUILD-DIR   (PTREC, PTREC_SERVER in the environment)
Prints TAP.
"""
import os
import subprocess
import sys
import tempfile

TUNABLES = ('glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,'
            '-AVX2,-AVX,-BMI2,-EVEX')
HERE = os.path.dirname(os.path.abspath(__file__))

REV = ['reverse-step'] * 6 + ['reverse-next'] * 3 + ['reverse-finish'] + \
    ['reverse-stepi'] * 3 + ['reverse-finish']
FWD = ['finish', 'next', 'next', 'step', 'step', 'step', 'finish', 'next',
       'next', 'step', 'next']
MIX = ['reverse-finish', 'next', 'reverse-next', 'reverse-step', 'step',
       'finish', 'reverse-next', 'reverse-stepi', 'stepi', 'next']
CHAINS = {'rev': REV, 'fwd': FWD, 'mix': MIX}

# program -> [(breakpoint, hit, label)]: chains start at that hit.
PROGRAMS = {
    'inl': [('leaf', 2, '')],
    'rec': [('fib', 6, '')],
    'lj': [('deep', 4, ''), ('lj.c:29', 1, '@landed')],
    'sig': [('work', 1, ''), ('sig.c:25', 1, '@after')],
    'exc': [('thrower', 1, ''), ('exc.cc:29', 1, '@catch')],
}

# (binary, chain) -> reason; the chain must differ (see docs/gdb.md).
EXITED = ('after the exit system call: record full cannot run the process '
          'live past exit_group ("Process record: inferior program '
          'stopped": next, step and finish are errors), ptrec stays at the '
          'end of the history; every stop before agrees')
SIGDEPTH = ('depths only: in the handler and in libc record full counts one '
            'frame more, __pthread_kill_internal, which GDB makes up for '
            'pthread_kill\'s tail call from DWARF call-site information and '
            'real registers (ptrec replay has neither); every stop\'s '
            'function and line agree')
SIGBACK = ('depths differ by one as in the SIGDEPTH chains (GDB\'s made-up '
           'tail-call frame); and stepping back out of the handler stops on '
           'the interrupted system call (line 43) where record full stops '
           'after it (line 44: a trace has no state between a system call '
           'and a signal delivery), and reverse-finish into the made-up '
           'frame differs')
TAILCALL = ('reverse-finish from __sigsetjmp, which _setjmp entered by a '
            'jump (tail call): ptrec goes back to the call of _setjmp in '
            'main, the frame\'s opener; record full stops in _setjmp')
KNOWN = {
    'lj-O0/rev': 'reverse-finish in main, the first recorded frame: ptrec '
                 'refuses (its caller was not recorded), record full stops '
                 'in setjmp',
    'lj-O2/rev': 'as lj-O0/rev',
    'sig-O0@after/rev': SIGBACK, 'sig-O2@after/rev': SIGBACK,
    'sig-O2@after/mix': SIGDEPTH,
    'sig-O0@after/fwd': EXITED, 'sig-O2@after/fwd': EXITED,
    'lj-O0@landed/rev': TAILCALL, 'lj-O2@landed/rev': TAILCALL,
    'lj-O0/fwd': EXITED, 'lj-O2/fwd': EXITED,
    'exc-O0/fwd': EXITED, 'exc-O2/fwd': EXITED, 'exc-O2@catch/fwd': EXITED,
    'sig-O0/rev': SIGBACK, 'sig-O0/fwd': SIGDEPTH,
    'sig-O2/rev': SIGBACK, 'sig-O2/fwd': SIGDEPTH + '; ' + EXITED,
}

# Listed chains where only frame depths may differ (GDB's made-up frame for
# pthread_kill's tail call): every stop's function and line must agree.
DEPTH_ONLY = {'sig-O0/fwd', 'sig-O2@after/mix'}


def _no_depth(stop):
    """A stop without its frame depth: 'cmd func:line[:edge][:error]'."""
    parts = stop.split(':')
    return ':'.join(parts[:2] + parts[3:])


# Chains the oracle cannot run: record full never comes back from this
# reverse-finish in a signal handler (GDB 13, killed after the timeout).
SKIP = {'sig-O0/mix': 'record full hangs in reverse-finish from the handler',
        'sig-O2/mix': 'record full hangs in reverse-finish from the handler'}


# record full replays forward only up to where the live run stopped, and
# stops there: so the oracle records on to _exit and goes back to the start
# point by its instruction number.
GOTO_LATER = ['python import re; START = re.search(r"Log contains (\\d+) '
              'instructions", gdb.execute("info record", to_string=True))'
              '.group(1)',
              'catch syscall exit_group', 'continue',
              'python gdb.execute("record goto " + START, to_string=True)']


def gdb_run(prog, lines, timeout=60, pad=False):
    env = dict(os.environ, GLIBC_TUNABLES=TUNABLES)
    # GDB 13 writes the XSAVE area with a buffer shorter than Linux takes
    # where AMX is on (tests/tools/xstate_pad.c): completed for the
    # oracle's GDB, never loaded by its inferior.
    if pad and os.environ.get('XSTATE_PAD'):
        env['LD_PRELOAD'] = os.environ['XSTATE_PAD']
        lines = ['unset environment LD_PRELOAD'] + lines
    with tempfile.NamedTemporaryFile('w', suffix='.gdb', delete=False) as f:
        f.write('\n'.join(lines) + '\n')
        script = f.name
    try:
        proc = subprocess.run(prog + ['-x', script], env=env, timeout=timeout,
                              capture_output=True, text=True, check=False)
        out = proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        out = 'TIMEOUT'
    os.unlink(script)
    return out


def stops(out):
    return [line.split(' ', 1)[1] for line in out.splitlines()
            if line.startswith('START ') or line.startswith('STOP ')]


def run_chain(binary, bundle, bp, hit, chain):
    common = ['set pagination off', 'set confirm off',
              'python CHAIN = %r' % chain]
    full = gdb_run(['gdb', '-batch', '-nx', binary], [
        'set pagination off', 'set confirm off',
        'set record full insn-number-max unlimited',
        'handle SIGUSR1 nostop noprint pass',
        'break *main', 'run', 'record full', 'break %s' % bp] +
        ['continue'] * hit + ['delete'] + GOTO_LATER + common +
        ['source %s/chain.py' % HERE], pad=True)
    ptrec = gdb_run([os.environ['PTREC'], 'replay', bundle, '-batch'], [
        'ptrec goto begin', 'break %s' % bp] + ['continue'] * hit +
        ['delete'] + common + ['source %s/chain.py' % HERE])
    return stops(full), stops(ptrec), full, ptrec


# PTREC_DIFF_SHOW=1: print every chain's stops side by side, not only
# those of a failing chain.
SHOW = bool(os.environ.get('PTREC_DIFF_SHOW'))


def main():
    build = sys.argv[1]
    only = sys.argv[2:]
    tmp = tempfile.mkdtemp(prefix='ptrec-diff-')
    n = 0
    failed = 0
    compared = 0
    differ = 0
    for name, starts in PROGRAMS.items():
        for opt in ('O0', 'O2'):
            binary = os.path.join(build, '%s-%s' % (name, opt))
            if only and os.path.basename(binary) not in only:
                continue
            bundle = os.path.join(tmp, os.path.basename(binary))
            rec = subprocess.run(
                [os.environ['PTREC'], 'record', '-q', '-o', bundle, '--',
                 binary], env=dict(os.environ, GLIBC_TUNABLES=TUNABLES),
                capture_output=True, text=True, timeout=300, check=False)
            for (bp, hit, label), (cname, chain) in [
                    (st, ch) for st in starts for ch in CHAINS.items()]:
                n += 1
                key = '%s-%s%s/%s' % (name, opt, label, cname)
                if key in SKIP:
                    print('ok %d - %s # skip %s' % (n, key, SKIP[key]))
                    continue
                if rec.returncode:
                    print('not ok %d - %s: recording failed: %s' %
                          (n, key, rec.stderr.strip()))
                    failed += 1
                    continue
                want, got, fout, pout = run_chain(binary, bundle, bp, hit,
                                                  chain)
                same = 0
                while (same < len(want) and same < len(got) and
                       want[same] == got[same]):
                    same += 1
                ok = len(want) == len(chain) + 1 and want == got
                compared += len(want)
                if not ok:
                    differ += 1
                known = KNOWN.get(key)
                if not ok and key in DEPTH_ONLY and \
                        len(want) == len(got) and \
                        [_no_depth(w) for w in want] != \
                        [_no_depth(g) for g in got]:
                    known = None    # more than the depths differ
                if ok and not known:
                    print('ok %d - %s: %d stops as record full\'s' %
                          (n, key, len(want)))
                elif not ok and known:
                    print('ok %d - %s: differs as documented from stop %d '
                          '(%s)' % (n, key, same, known))
                else:
                    failed += 1
                    print('not ok %d - %s: first difference at stop %d%s' %
                          (n, key, same, ' (listed as known but agrees)'
                           if known else ''))
                if (ok and known) or (not ok and not known) or SHOW:
                    for i in range(max(len(want), len(got))):
                        w = want[i] if i < len(want) else '-'
                        g = got[i] if i < len(got) else '-'
                        print('#  %s %-40s %s' % ('  ' if w == g else '!=',
                                                  w, g))
                    if len(want) != len(chain) + 1:
                        print('# record full output:\n# ' +
                              fout[-2000:].replace('\n', '\n# '))
                    if len(got) != len(chain) + 1:
                        print('# ptrec output:\n# ' +
                              pout[-2000:].replace('\n', '\n# '))
    print('1..%d' % n)
    print('# %d stops compared in %d chains (%d skipped); %d chains differ '
          '(%d listed in docs/gdb.md)' % (compared, n - len(SKIP), len(SKIP),
                                         differ, len(KNOWN)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
