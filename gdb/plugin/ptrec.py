# SPDX-License-Identifier: GPL-3.0-or-later
"""ptrec's GDB plugin: commands over a ptrec-server connection.

Load it by hand with `source gdb/plugin/ptrec.py`, or let `ptrec replay`
load it; it runs its parts ptrec_unwind.py, ptrec_stop.py and
ptrec_record.py from its own directory.  It talks to the server only through monitor commands, never to
the engine's internals.

Commands: `ptrec goto begin|end|N`, `ptrec position`, `ptrec info`,
`ptrec export ...`, `ptrec values` (these run the ptrec CLI on the
server's bundle),
`ptrec instruction-history [/r] [range]`,
`ptrec function-call-history [/c /l /i] [range]`, a frame unwinder, and
reverse-finish from the recorded call stack (GDB 13's own stops at the
wrong call inside a recursion).  GDB's other reverse commands
(reverse-step, reverse-next, reverse-stepi, reverse-continue) work over
the connection without it.
"""
import os
import re
import shutil
import subprocess
import tempfile

import gdb


def _mon(cmd):
    """'monitor ptrec CMD' for GDB's selected thread: GDB tells the server
    which thread it means (Hg) only when it next reads registers, so the
    command names it ('ptrec thread TID CMD')."""
    thread = gdb.selected_thread()
    if thread is not None and cmd.startswith('ptrec '):
        return 'monitor ptrec thread %d %s' % (thread.ptid[1], cmd[6:])
    return 'monitor ' + cmd


def _monitor(cmd, refusal):
    """Runs a monitor command; its output, or a GDB error when the server
    refused the arguments (its message starts with @refusal)."""
    out = gdb.execute(_mon(cmd), to_string=True)
    if out.startswith(refusal):
        raise gdb.GdbError(out.strip())
    gdb.write(out)


def _modifiers(arg, allowed):
    """GDB's history commands take modifiers apart or together (/c /l /i
    or /cli); the server takes one group: joins the leading ones.  One
    not in @allowed is refused as GDB's record commands refuse it (the
    server ignored it)."""
    words = arg.split()
    mods = ''
    while words and words[0].startswith('/'):
        mods += words.pop(0)[1:]
    for mod in mods:
        if mod not in allowed:
            raise gdb.GdbError('Invalid modifier: %s.' % mod)
    return ' '.join((['/' + mods] if mods else []) + words)


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
        out = gdb.execute(_mon('ptrec goto ' + arg), to_string=True)
        if out.startswith('ptrec goto:'):
            raise gdb.GdbError(out.strip())
        gdb.write(out)
        # The registers, frames and memory of the new position: GDB's
        # stack cache (dcache) still holds what it read at the old one,
        # and would show those values here (a wrong value, #17).
        gdb.execute('maintenance flush register-cache', to_string=True)
        gdb.execute('maintenance flush dcache', to_string=True)
        _sync_program()
        gdb.execute('frame', to_string=False)


class PtrecPosition(gdb.Command):
    """ptrec position: where in its history the current thread is."""

    def __init__(self):
        super().__init__('ptrec position', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        gdb.execute(_mon('ptrec position'), to_string=False)


class PtrecInsnHistory(gdb.Command):
    """ptrec instruction-history [/r] [N | N,M | + | -]

The instruction history of the current thread in the layout of GDB's
"record instruction-history": by default the ten instructions up to the
current one (marked =>), N ten around instruction N, N,M that range,
+ and - the ten after or before the last shown.  /r adds raw bytes."""

    def __init__(self):
        super().__init__('ptrec instruction-history', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        _monitor('ptrec insns ' + _modifiers(arg, 'r'),
                 'ptrec instruction-history:')


class PtrecCallHistory(gdb.Command):
    """ptrec function-call-history [/c /l /i] [N | N,M | + | -]

The function-call history of the current thread in the layout of GDB's
"record function-call-history": /c indents by call depth, /l adds source
lines, /i instruction ranges."""

    def __init__(self):
        super().__init__('ptrec function-call-history', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        _monitor('ptrec calls ' + _modifiers(arg, 'cli'),
                 'ptrec function-call-history:')


# Where this file is: GDB defines __file__ only while it sources it.
try:
    _HERE = os.path.dirname(os.path.abspath(__file__))
except NameError:
    _HERE = os.getcwd()


def _cli():
    """The ptrec CLI to run: the one installed or built with this plugin
    (./ptrec, ../../bin/ptrec from share/ptrec/, ../../build/ptrec from the
    tree's gdb/plugin/), else ptrec on PATH.  Never a path the remote
    names: the server's reply is data from the other end of a connection,
    and a fake server once made GDB run a program of its choice that way."""
    for rel in ('ptrec', '../../bin/ptrec', '../../build/ptrec'):
        cli = os.path.normpath(os.path.join(_HERE, rel))
        if os.path.isfile(cli) and os.access(cli, os.X_OK):
            return cli
    return shutil.which('ptrec') or 'ptrec'


def _bundle():
    """The bundle the server replays (an argument to our own CLI, never a
    program to run), and the CLI to run on it."""
    out = gdb.execute('monitor ptrec bundle', to_string=True)
    where = dict(line.split(' ', 1) for line in out.splitlines()
                 if ' ' in line)
    if 'bundle' not in where:
        raise gdb.GdbError('ptrec: the target is not a ptrec-server')
    bundle = where['bundle']
    if bundle.startswith('-'):
        bundle = './' + bundle  # a path, never an option
    return bundle, _cli()


def _run_cli(command, args):
    bundle, cli = _bundle()
    try:
        proc = subprocess.run([cli, command, bundle] + args,
                              capture_output=True, text=True, check=False)
    except OSError as e:
        raise gdb.GdbError('ptrec %s: cannot run %s: %s' %
                           (command, cli, e.strerror))
    gdb.write(proc.stdout)
    if proc.returncode:
        msg = proc.stderr.strip() or 'exit status %d' % proc.returncode
        # The CLI's usage names the bundle; in GDB it is implicit.
        raise gdb.GdbError(msg.replace(' BUNDLE', ''))
    if proc.stderr:
        gdb.write(proc.stderr)


class PtrecInfo(gdb.Command):
    """ptrec info: the recording's threads, instructions, gaps and sizes
(what `ptrec info BUNDLE` prints)."""

    def __init__(self):
        super().__init__('ptrec info', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError('usage: ptrec info')
        _run_cli('info', [])


class PtrecExport(gdb.Command):
    """ptrec export --format=jsonl|csv|perfetto -o FILE [--thread TID]

Writes the recording's instruction history to FILE, as
`ptrec export BUNDLE ...` does (a relative FILE is relative to GDB's
working directory)."""

    def __init__(self):
        super().__init__('ptrec export', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        _run_cli('export', gdb.string_to_argv(arg))


class PtrecValues(gdb.Command):
    """ptrec values [--why] [--mem ADDR [--len L]] [--stats]

What the values engine knows at the current thread's position from the
history alone (what `ptrec values BUNDLE --thread TID --at N` prints;
GDB can show more in outer frames and their locals, where the server adds
what the frames' unwinding implies): each register's value or "unknown",
with --why why each unknown one is not known, with --mem
the memory from ADDR, a number or a GDB expression such as &y (known
bytes, ?? for unknown ones).  GDB shows an
unknown register as <unavailable> and unknown memory as "Cannot access
memory at address A"."""

    def __init__(self):
        super().__init__('ptrec values', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        out = gdb.execute(_mon('ptrec position'), to_string=True)
        m = re.match(r'thread (\d+) (?:position (\d+) of|at the end, '
                     r'after (\d+) instructions)', out)
        if not m:
            raise gdb.GdbError('ptrec values: no position: %s' %
                               out.strip())
        at = m.group(2) or str(int(m.group(3)) + 1)
        argv = gdb.string_to_argv(arg)
        for i in range(1, len(argv)):
            if argv[i - 1] == '--mem':    # a GDB expression: &y, $sp
                try:
                    argv[i] = '%#x' % _address(argv[i])
                except gdb.error as e:
                    raise gdb.GdbError('ptrec values: --mem %s: %s' %
                                       (argv[i], e)) from e
        try:
            _run_cli('values', ['--thread', m.group(1), '--at', at] + argv)
        except gdb.GdbError as e:
            # The thread and the position are GDB's: not in its usage.
            raise gdb.GdbError(str(e).replace(
                'ptrec values --at N [--thread TID] ', 'ptrec values ')) \
                from e


def _address(text):
    """A number, or the value of GDB expression @text as an address."""
    try:
        return int(text, 0)
    except ValueError:
        return int(gdb.parse_and_eval(text)) & 0xffffffffffffffff


# ---- writes: the past cannot be changed ----------------------------------
#
# ptrec-server refuses every write of registers or memory (G, P, M and X
# packets) with a reply that says why (E.TEXT); GDB 13 shows that text for
# a register ("Could not write register ...; remote failure reply ...") but
# says only "Cannot access memory at address A" of memory, as if A were
# wrong.  On a ptrec target `set variable` (`set var`) asks the server
# which write it refused and says so.

_REFUSED = re.compile(r'refused (?:memory 0x([0-9a-f]+) ([0-9]+)|'
                      r'(register [0-9]+|registers)|nothing)$')
_NOT_ASSIGNMENT = re.compile(r'(?<![=!<>])=(?!=)|\+\+|--')


def _refused():
    """What the server refused last, forgotten once asked: 'writing N
    bytes at 0xA', 'writing register R', '' (nothing), or None where the
    target is not a ptrec-server."""
    try:
        out = gdb.execute('monitor ptrec refused', to_string=True).strip()
    except gdb.error:
        return None
    m = _REFUSED.match(out)
    if not m:
        return None
    if m.group(1):
        n = int(m.group(2))
        return 'writing %d byte%s at 0x%s' % (n, '' if n == 1 else 's',
                                            m.group(1))
    return 'writing ' + m.group(3) if m.group(3) else ''


class _SetVariable(gdb.Command):
    """Evaluate expression EXP and assign the result to variable VAR.
Usage: set variable VAR = EXP
As GDB's own: VAR may be any variable, register, memory location or
convenience variable.  On a ptrec replay only convenience variables can
be set: the recorded history cannot be changed, and a write to its
registers or memory is refused with a message saying so."""

    def __init__(self):
        super().__init__('set variable', gdb.COMMAND_DATA,
                         gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise gdb.GdbError('Argument required (expression to compute).')
        if not _NOT_ASSIGNMENT.search(arg):
            gdb.write('warning: Expression is not an assignment (and might '
                      'have no effect)\n', gdb.STDERR)
        on_ptrec = _refused() is not None    # forgets an older refusal
        try:
            gdb.parse_and_eval(arg)
        except gdb.error as e:
            what = _refused() if on_ptrec else None
            if not what:
                # GDB's own message, as `set var` prints it (raising
                # gdb.error from a command adds "Python Exception").
                raise gdb.GdbError(str(e)) from e
            m = re.match(r'Could not write register "([^"]+)"', str(e))
            if m:
                what = 'writing register ' + m.group(1)
            raise gdb.GdbError(
                'ptrec: the recorded history cannot be changed (refused: '
                '%s).  A replay\'s registers and memory are read-only; to '
                'try another value, run the program itself.' % what) from e


# ---- watchpoints on an address unknown at this position ------------------
#
# Before the end of a history a value is known only where the values
# engine recovers it (docs/values.md).  A watchpoint needs its address
# now: where that address comes from an unknown register GDB 13 says
# "value is not available", from unknown memory (watch -l) "Cannot access
# memory at address A": true, but neither says why nor what to do.  On a
# ptrec target `watch`, `rwatch` and `awatch` create the same watchpoint
# through GDB's Python API (GDB's own watch code; `-l EXPR` as the
# location GDB itself watches for it, `* (TYPE *) ADDR`) and, where GDB
# refuses for an unknown value, say so.

_WATCH_TAIL = re.compile(r'\s+(?:if|thread|task|mask)(?:\s|$)')


def _where_now():
    """'thread T instruction N of M' (or '... at the end'), for a
    message."""
    try:
        out = gdb.execute(_mon('ptrec position'), to_string=True).strip()
    except gdb.error:
        return 'this position'
    return out.replace(' position ', ' instruction ')


def _watch_refusal(cmd, arg, err):
    """The message for GDB's error @err on `cmd arg` where it comes from
    a value unknown at this position, else None."""
    text = str(err)
    m = re.match(r'Cannot access memory at address (0x[0-9a-f]+)', text)
    if m:
        why = 'memory at %s' % m.group(1)
    elif text.startswith('value is not available'):
        why = 'a register'
    else:
        return None
    return ('ptrec: cannot %s %s here (%s): its address depends on %s '
            'whose value is unknown at this position (a recording keeps no '
            'data; before the end, values are what the values engine '
            'recovers: docs/values.md).  Go where the address is known (a '
            'later position, or "ptrec goto end"), set the watchpoint there '
            'with -l (its address then stays fixed), and reverse-continue '
            'or continue from there.' % (cmd, arg.strip(), _where_now(), why))


class _Watch(gdb.Command):
    """Set a watchpoint for EXPRESSION (GDB's own; see "help watch" in
GDB's manual).  Usage: watch [-l|-location] EXPRESSION [thread N]
[mask MASK] [if CONDITION].  On a ptrec replay, where the expression's
address is unknown at this position, says why and what to do."""

    def __init__(self, name, wp_class):
        super().__init__(name, gdb.COMMAND_BREAKPOINTS,
                         gdb.COMPLETE_EXPRESSION)
        self._name = name
        self._class = wp_class

    def invoke(self, arg, from_tty):
        spec = arg.strip()
        m = re.match(r'(?:-location|-l)(?:\s+|$)', spec)
        try:
            if m:
                spec = self._location(spec[m.end():])
            if not spec:
                raise gdb.GdbError(
                    'Argument required (expression to compute).')
            gdb.Breakpoint(spec, gdb.BP_WATCHPOINT, self._class)
        except gdb.GdbError:
            raise
        except gdb.error as e:
            raise gdb.GdbError(_watch_refusal(self._name, arg, e) or
                               str(e)) from e
        if not m:
            _watch_unreadable(spec)


    @staticmethod
    def _location(expr):
        """GDB's -location: the address EXPR has now, as the spec
        `* (TYPE *) ADDR` GDB itself watches for it."""
        m = _WATCH_TAIL.search(expr)
        head, tail = (expr[:m.start()], expr[m.start():]) if m \
            else (expr, '')
        if not head.strip():
            return ''
        spec = _bitfield_location(head)
        if spec:
            return spec + tail
        addr = gdb.parse_and_eval(head).address
        if addr is None:
            raise gdb.GdbError('Attempt to take address of value not '
                               'located in memory.')
        return '* (%s) %#x%s' % (addr.type, int(addr), tail)


def _watch_unreadable(spec):
    """GDB sets `watch *p` where *p cannot be read now (p unknown here),
    as on any target: it watches what it could read (p) until it can.
    Say so, once, where that is a value unknown at this position."""
    m = _WATCH_TAIL.search(spec)
    expr = spec[:m.start()] if m else spec
    if _NOT_ASSIGNMENT.search(expr) or re.search(r'\w\s*\(', expr):
        return      # evaluating it again could write or call
    try:
        gdb.parse_and_eval(expr)    # lazy: its address, not its value
    except gdb.error as e:
        text = str(e)
        m = re.match(r'Cannot access memory at address (0x[0-9a-f]+)', text)
        if not m and not text.startswith('value is not available'):
            return
        gdb.write('ptrec: the address of %s is not known at this '
                  'position (it depends on %s, unknown here): GDB watches '
                  'what it is computed from until it can read it.  To '
                  'watch the bytes it names, set the watchpoint with -l '
                  'where its address is known.\n'
                  % (expr.strip(), 'memory at ' + m.group(1) if m
                     else 'a register'))


_FIELD_TAIL = re.compile(r'(\.|->)\s*([A-Za-z_]\w*)\s*$')


def _bitfield_location(head):
    """For -l on a bit-field (`s.f`, `p->f`), GDB compares the field's
    bits only: the same with its structure's address fixed now,
    `(* (T *) ADDR).f` or `((T *) P)->f`; None for anything else."""
    m = _FIELD_TAIL.search(head)
    if not m:
        return None
    parent = gdb.parse_and_eval(head[:m.start()])
    t = parent.type.strip_typedefs()
    if m.group(1) == '->':
        if t.code != gdb.TYPE_CODE_PTR:
            return None
        t = t.target().strip_typedefs()
    if t.code not in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        return None
    field = next((f for f in t.fields() if f.name == m.group(2)), None)
    if field is None or not field.bitsize:
        return None
    if m.group(1) == '->':
        return '((%s) %#x)->%s' % (parent.type, int(parent), m.group(2))
    addr = parent.address
    if addr is None:
        return None
    return '(* (%s) %#x).%s' % (addr.type, int(addr), m.group(2))


PtrecPrefix()
PtrecInfo()
PtrecExport()
PtrecGoto()
PtrecPosition()
PtrecInsnHistory()
PtrecCallHistory()
PtrecValues()


# The plugin's other parts, run in this namespace in order (one file
# would be past a thousand lines): the frame unwinder and reverse-finish,
# what runs around stops, GDB's record commands, forward finish (last: it
# is replaced once the record commands found a ptrec target).  They sit
# next to this
# file, in the tree and installed.
for _part in ('ptrec_unwind.py', 'ptrec_stop.py', 'ptrec_record.py',
              'ptrec_finish.py'):
    _path = os.path.join(_HERE, _part)
    with open(_path, encoding='utf-8') as _f:
        exec(compile(_f.read(), _path, 'exec'))  # pylint: disable=exec-used


def _on_inferior_call(event):
    """Before GDB calls a function in the program (`call f()`, `print
    f(1)`), which on a replay fails at its first write with "Cannot
    access memory at address A" (the stack it pushes the return address
    on): say why first."""
    if not isinstance(event, gdb.InferiorCallPreEvent) or \
            _refused() is None:
        return
    try:
        fn = gdb.block_for_pc(event.address).function
        what = fn.print_name if fn else '%#x' % event.address
    except (gdb.error, RuntimeError, AttributeError):
        what = '%#x' % event.address
    gdb.write('ptrec: cannot call %s in a replay: a call runs code the '
              'recording never ran, and the recorded history cannot be '
              'changed (its registers and memory are read-only)\n' % what,
              gdb.STDERR)


gdb.events.inferior_call.connect(_on_inferior_call)
_WRITES_DONE = []


def _write_commands(_event=None):
    """`set variable` saying why a write is refused, once a ptrec target
    is connected (replaced only then: GDB cannot hand it back).  Runs
    after ptrec_record.py's handler of the same events, which asked the
    server whether it is one (_RECORD_DONE): no packet of its own."""
    if _WRITES_DONE or not _RECORD_DONE:
        return
    _WRITES_DONE.append(True)
    _SetVariable()
    _Watch('watch', gdb.WP_WRITE)
    _Watch('rwatch', gdb.WP_READ)
    _Watch('awatch', gdb.WP_ACCESS)


gdb.events.new_objfile.connect(_write_commands)
gdb.events.stop.connect(_write_commands)
