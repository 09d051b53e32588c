# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a variable lives at a pc, as GDB's `info address` says (the range
holding the pc for a location list): shared by tests/gdb/valwalk.py (which
checks register-located values against the ground truth) and
tests/gdb/valwhy.py (which says why a value is not shown).  Imported from
the directory of the script GDB sources."""
import re

import gdb


def frames():
    """The backtrace from the newest frame out, as far as GDB unwinds."""
    f = gdb.newest_frame()
    while f is not None:
        yield f
        try:
            f = f.older()
        except gdb.error:
            return


def frame_pc(frame):
    """The pc GDB looks a frame's variables up at: the call's for a
    caller (the instruction before the return address)."""
    if frame.level() and frame.type() == gdb.NORMAL_FRAME:
        return frame.pc() - 1
    return frame.pc()


def location(name, pc):
    """The text of @name's location at @pc in the selected frame, or
    'no location'."""
    try:
        text = gdb.execute('info address %s' % name, to_string=True)
    except gdb.error as e:
        return str(e)
    if 'multi-location' not in text:
        return text
    cur = None
    for ln in text.splitlines()[1:]:
        m = re.match(r'\s+Range (0x[0-9a-f]+)-(0x[0-9a-f]+): (.*)', ln)
        if m:
            if cur is not None:
                return cur
            if int(m.group(1), 16) <= pc < int(m.group(2), 16):
                cur = m.group(3)
        elif cur is not None:
            cur += ' ' + ln.strip()
    return cur or 'no location'


def in_register(loc):
    """('reg', NAME) for a variable wholly in a register, ('entry', NAME)
    for DW_OP_entry_value of a register alone (its value when the
    function was entered), else None."""
    m = re.match(r'\s*(?:Symbol "\S+" is )?a variable in \$(\w+)', loc)
    if m:
        return ('reg', m.group(1))
    ops = re.findall(r'DW_OP_\w+(?: \[\$\w+\])?', loc)
    if ops and ops[0] == 'DW_OP_entry_value' and len(ops) == 3 and \
            ops[2] == 'DW_OP_stack_value':
        m = re.match(r'DW_OP_reg\d+ \[\$(\w+)\]', ops[1])
        if m:
            return ('entry', m.group(1))
    return None
