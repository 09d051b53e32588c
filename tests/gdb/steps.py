# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/gdb: repeats a GDB stepping command and prints where each stops.

Loaded by `source` after the convenience variable $cmd names the command
(reverse-step, reverse-next, next): runs it until the position stops
changing (an edge of the history) or $count times (default 300), then
prints one line
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
count = gdb.parse_and_eval('$count')
count = 300 if count.type.code == gdb.TYPE_CODE_VOID else int(count)
stops = []
last = _position()
for _ in range(count):
    gdb.execute(cmd, to_string=True)
    pos = _position()
    if pos == last:
        break
    stops.append(_where())
    last = pos
print('STOPS ' + ' '.join(stops))
