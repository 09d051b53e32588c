# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/gdb: repeats a GDB stepping command and prints where each stops.

Loaded by `source` after the convenience variable $cmd names the command
(reverse-step, reverse-next): runs it until the history's beginning (the
position stops changing) or 300 times, then prints one line
    STOPS pos:function:line pos:function:line ...
with the position from the server's "monitor ptrec position" (1-based
instruction number, as in `ptrec insns`).
"""
import re

import gdb


def _position():
    out = gdb.execute('monitor ptrec position', to_string=True)
    m = re.search(r'position (\d+) of', out)
    return int(m.group(1)) if m else 0


def _where():
    frame = gdb.selected_frame()
    return '%d:%s:%d' % (_position(), frame.name() or '??',
                         frame.find_sal().line)


cmd = str(gdb.parse_and_eval('$cmd').string())
stops = []
last = _position()
for _ in range(300):
    gdb.execute(cmd, to_string=True)
    pos = _position()
    if pos == last:
        break
    stops.append(_where())
    last = pos
print('STOPS ' + ' '.join(stops))
