# SPDX-License-Identifier: GPL-3.0-or-later
"""ptrec's GDB plugin: commands over a ptrec-server connection.

Load it by hand with `source gdb-plugin/ptrec.py`, or let `ptrec replay`
load it.  It talks to the server only through monitor commands, never to
the engine's internals.

Commands so far: `ptrec goto begin|end|N`, `ptrec position`.  GDB's own
reverse commands (reverse-step, reverse-next, reverse-finish,
reverse-stepi, reverse-continue) work over the connection without it.
"""
import gdb


class PtrecPrefix(gdb.Command):
    """ptrec: replay a recorded history (goto, position)."""

    def __init__(self):
        super().__init__('ptrec', gdb.COMMAND_USER, prefix=True)


class PtrecGoto(gdb.Command):
    """ptrec goto begin|end|N: move the current thread to instruction N."""

    def __init__(self):
        super().__init__('ptrec goto', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        arg = arg.strip()
        if not arg:
            raise gdb.GdbError('usage: ptrec goto begin|end|N')
        gdb.execute('monitor ptrec goto ' + arg, to_string=False)
        # The registers and frames of the new position.
        gdb.execute('maintenance flush register-cache', to_string=True)
        gdb.execute('frame', to_string=False)


class PtrecPosition(gdb.Command):
    """ptrec position: where in its history the current thread is."""

    def __init__(self):
        super().__init__('ptrec position', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        gdb.execute('monitor ptrec position', to_string=False)


PtrecPrefix()
PtrecGoto()
PtrecPosition()
