# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/gdb/diff: runs one chain of stepping commands in GDB and prints
where each stops, the same way under `record full` and under ptrec replay.

Sourced after the driver (run.py) set the Python variable CHAIN through
`python CHAIN = [...]`.  One line per command:
    STOP <command> <function>:<line>:<depth>[:edge]
depth counts the frames from the newest to main (main included, - when
main is not among them); edge marks
"No more reverse-execution history".
"""
import gdb


def _depth():
    """Frames from the newest to main, main included; '-' past main (in
    exit): the recording starts at main, so main's callers are not known
    to ptrec."""
    depth = 0
    try:
        frame = gdb.newest_frame()
        while frame is not None and depth < 200:
            depth += 1
            if frame.name() == 'main':
                return str(depth)
            frame = frame.older()
    except gdb.error:
        return 'error'
    return '-'


def _where():
    try:
        frame = gdb.selected_frame()
    except gdb.error:
        return 'noframe'
    return '%s:%d:%s' % (frame.name() or '??', frame.find_sal().line,
                         _depth())


print('START %s' % _where())
for cmd in CHAIN:  # noqa: F821 (set by the driver)
    try:
        out = gdb.execute(cmd, to_string=True)
    except gdb.error as e:
        out = 'ERROR %s' % e
    edge = ':edge' if 'No more reverse-execution history' in out else ''
    err = ':error' if out.startswith('ERROR') else ''
    print('STOP %s %s%s%s' % (cmd, _where(), edge, err))
