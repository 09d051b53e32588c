# SPDX-License-Identifier: GPL-3.0-or-later
"""ptrec's GDB plugin, part 3: what runs around stops: GDB's own recording
refused on a ptrec target, breakpoint conditions, watchpoints, and the
program of each exec generation.

Sourced by ptrec.py into the same namespace (GDB's __main__), after the
parts before it; not loaded on its own."""
# pylint: disable=undefined-variable

# ---- GDB's own recording on a ptrec target ---------------------------------
#
# `record full` or `record btrace` on a ptrec-server would start recording
# a target that only replays, and reverse execution would then go to GDB's
# own empty log.  A hook that fails stops the command; elsewhere the hook
# does nothing and GDB's own command runs.


def _on_ptrec():
    try:
        return _read_stack() is not None
    except gdb.error:
        return False


class PtrecRecordGuard(gdb.Command):
    """ptrec record-guard KIND: fails on a ptrec target (used by the hooks
of `record`, `record full` and `record btrace`)."""

    def __init__(self):
        super().__init__('ptrec record-guard', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if _on_ptrec():
            raise gdb.GdbError(
                'record %s: this is a ptrec replay, already recorded: '
                'reverse execution works without it (see "help ptrec")'
                % (arg.strip() or 'full'))


PtrecRecordGuard()
for _hook in ('define hook-record', 'define record hook-full',
              'define record hook-btrace', 'define record btrace hook-pt',
              'define record btrace hook-bts', 'define hook-rec'):
    _kind = 'btrace' if 'btrace' in _hook else 'full'
    try:
        gdb.execute('%s\nptrec record-guard %s\nend' % (_hook, _kind))
    except gdb.error:
        pass    # an older GDB without that command: nothing to guard


# ---- breakpoint conditions -----------------------------------------------
#
# Before the end of the history replay knows the PC and what the value
# recovery finds, not everything: a condition on an unknown value cannot
# be evaluated, and GDB stops at every hit with "Error in testing
# breakpoint condition".  After such a stop, say which condition could not
# be evaluated, why, and what GDB did.


def _on_stop(event):
    if not isinstance(event, gdb.BreakpointEvent) or not _on_ptrec():
        return
    for bp in event.breakpoints:
        cond = bp.condition
        if not cond:
            continue
        try:
            gdb.parse_and_eval(cond)
        except gdb.error as e:
            gdb.write('ptrec: the condition of breakpoint %d (%s) cannot be '
                      'evaluated here: %s.  In the past replay knows the '
                      'PC and what the value recovery finds (docs/'
                      'values.md), not every register or byte of memory; '
                      'GDB stops at every hit where a condition cannot be '
                      'evaluated.\n' % (bp.number, cond, e))


gdb.events.stop.connect(_on_stop)


# ---- watchpoints (#18) -----------------------------------------------------
#
# watch, rwatch and awatch are the server's (Z2/Z3/Z4), either way in time.
# A store (or, for rwatch/awatch, a load) whose address the history does
# not show, or a write whose new value is unknown, stops as "Thread N
# stopped." (GDB would see no value change and resume): after such a stop,
# and after a system call's write, print what the server says it was.
# `set ptrec watch-unknown stop|stack|skip` says what accesses with an
# unknown address do.

_WATCH_TYPES = (getattr(gdb, 'BP_HARDWARE_WATCHPOINT', 9),
                getattr(gdb, 'BP_READ_WATCHPOINT', 10),
                getattr(gdb, 'BP_ACCESS_WATCHPOINT', 11),
                getattr(gdb, 'BP_WATCHPOINT', 6))


def _watching():
    return any(b.type in _WATCH_TYPES for b in (gdb.breakpoints() or ()))


def _on_watch_stop(event):
    if not _watching() or not _on_ptrec():
        return
    try:
        out = gdb.execute('monitor ptrec watch-last', to_string=True)
    except gdb.error:
        return
    if out.strip():
        gdb.write(out)


gdb.events.stop.connect(_on_watch_stop)


class _SetPtrec(gdb.Command):
    """Settings of ptrec's replay."""

    def __init__(self, name):
        super().__init__(name, gdb.COMMAND_DATA, prefix=True)


_SetPtrec('set ptrec')
_SetPtrec('show ptrec')


class PtrecWatchUnknown(gdb.Parameter):
    """Whether a watchpoint stops at a store or load of unknown address.
"stop" (the default): such a store may have written the watched bytes (a
load, for rwatch and awatch, may have read them), so continuing either way
stops there and says so.  "stack": assume the stack pointer stays in the
thread's stack (and fs_base as at the end), and skip such accesses that
cannot reach the watched bytes then.  "skip": only accesses whose address
the history shows stop."""

    set_doc = 'Set whether watchpoints stop at accesses of unknown address.'
    show_doc = 'Show whether watchpoints stop at accesses of unknown address.'

    def __init__(self):
        super().__init__('ptrec watch-unknown', gdb.COMMAND_DATA,
                         gdb.PARAM_ENUM, ['stop', 'stack', 'skip'])
        self.value = 'stop'

    def get_set_string(self):
        try:
            gdb.execute('monitor ptrec watch-unknown ' + self.value,
                        to_string=True)
        except gdb.error:
            pass    # not connected yet: sent again at the first stop
        return ''

    def get_show_string(self, svalue):
        return 'Watchpoints at accesses of unknown address: %s.' % svalue


_watch_unknown = PtrecWatchUnknown()


def _send_watch_unknown(event):
    if _watch_unknown.value != 'stop' and _on_ptrec():
        try:
            gdb.execute('monitor ptrec watch-unknown ' +
                        _watch_unknown.value, to_string=True)
        except gdb.error:
            pass


gdb.events.stop.connect(_send_watch_unknown)


class PtrecValuesStrict(gdb.Parameter):
    """Whether values in the past use only rules that hold in every program.
"off" (the default): the values engine also keeps a register a callee saved
across stores it cannot place when no address under the callee's entry
stack pointer can have escaped, assuming the program uses no pointer into a
frame that returned and moves no pointer out of its object (a use after
return or a buffer overflow breaks that).  "on": no such rule; fewer
registers are known (docs/values.md, "A callee's own stack")."""

    set_doc = 'Set whether values in the past use only rules without assumptions.'
    show_doc = 'Show whether values in the past use only rules without assumptions.'

    def __init__(self):
        super().__init__('ptrec values-strict', gdb.COMMAND_DATA,
                         gdb.PARAM_BOOLEAN)
        self.value = False

    def get_set_string(self):
        _send_values_strict()
        return ''

    def get_show_string(self, svalue):
        return 'Strict values in the past: %s.' % svalue


def _send_values_strict():
    """The server recomputes every value; GDB forgets the registers it
    read under the other setting."""
    try:
        gdb.execute('monitor ptrec values-strict ' +
                    ('on' if _values_strict.value else 'off'),
                    to_string=True)
    except gdb.error:
        return      # not connected yet: sent at the first stop
    for cmd in ('maintenance flush register-cache', 'flushregs'):
        try:
            gdb.execute(cmd, to_string=True)
            return
        except gdb.error:
            pass


_values_strict = PtrecValuesStrict()


def _send_values_strict_stop(event):
    if _values_strict.value and _on_ptrec():
        try:
            gdb.execute('monitor ptrec values-strict on', to_string=True)
        except gdb.error:
            pass


gdb.events.stop.connect(_send_values_strict_stop)


# ---- exec generations --------------------------------------------------------
#
# A process that called execve ran another program before: GDB loads the
# program the remote names once, the last one.  At every stop (and after
# ptrec goto) the plugin asks the server for the program at the selected
# thread's position and, when GDB's differs, loads that one (`file`: its
# symbols, relocated by the auxiliary vector the server answers for that
# position).  The path is a file to read symbols from, never to run.


def _sync_program(_event=None):
    try:
        if not _on_ptrec():
            return
        out = gdb.execute(_mon('ptrec exe'), to_string=True).strip()
    except gdb.error:
        return
    if not out.startswith('exe '):
        return
    path = out[4:]
    cur = gdb.current_progspace().filename or ''
    # With the sysroot target: the server serves the recorded program
    # (Host I/O, docs/gdb.md "Files GDB reads"): GDB names it target:PATH.
    remote = (gdb.parameter('sysroot') or '').startswith('target:')
    if cur.startswith('target:'):
        same = cur[7:] == path
    else:
        same = cur and os.path.realpath(cur) == os.path.realpath(path)
    if same or (not remote and not os.path.isfile(path)) or \
            re.search(r'[\s"\'\\]', path):
        return
    gdb.write('ptrec: the process ran %s here (before or after an '
              'execve): its symbols are loaded.\n' % path)
    gdb.execute('file %s%s' % ('target:' if remote else '', path),
                to_string=True)
    gdb.execute('maintenance flush register-cache', to_string=True)


gdb.events.stop.connect(_sync_program)


# ---- the stop at the end of the history, on connecting ---------------------
#
# GDB takes the remote's first stop quietly (`target remote`): it never
# hides the inline frames that start at the stop's PC, as it does for the
# same stop when a program runs or record full replays to it (a crash at
# the first instruction of an inlined call, or of a later range of it,
# shows the caller at the call's line there; at the connection the inlined
# function was #0, as on a core file).  `ptrec replay` runs `target remote`
# between `ptrec connecting` and `ptrec connected`: GDB's output goes to a
# file meanwhile; when the stop is a signal and frame #0 an inline frame,
# `continue` (forward at the end of the history: nothing moves, the server
# reports the same stop) makes GDB take the stop as it takes a live one, and
# the quiet stop's own frame is not shown; else the output as it came.

_CONNECT = {}


def _connect_stop(event):
    if 'armed' in _CONNECT and 'signal' not in _CONNECT:
        _CONNECT['signal'] = getattr(event, 'stop_signal', None)


gdb.events.stop.connect(_connect_stop)


class PtrecConnecting(gdb.Command):
    """ptrec connect-prepare|connect-finish: the steps of `ptrec connecting`
and `ptrec connected`, around `target remote` (ptrec replay)."""

    def __init__(self, name):
        super().__init__('ptrec ' + name, gdb.COMMAND_USER)
        self.name = name

    def invoke(self, arg, from_tty):
        if self.name == 'connect-prepare':
            _connecting(arg)
        else:
            _connected()


def _connecting(arg):
    """Before `target remote`; @arg 'mi': GDB's output is MI records,
    left as they come (a stop's frames are fixed all the same)."""
    gdb.set_convenience_variable('_ptrec_quiet', 0)
    if _CONNECT:
        return
    _CONNECT['armed'] = True
    if arg.strip() == 'mi' or gdb.parameter('logging enabled'):
        return
    fd, path = tempfile.mkstemp(prefix='ptrec-connect-')
    os.close(fd)
    _CONNECT['log'] = path
    _CONNECT['saved'] = [(p, gdb.parameter('logging ' + p))
                         for p in ('file', 'redirect', 'overwrite')]
    gdb.set_convenience_variable('_ptrec_connect_log', path)
    gdb.set_convenience_variable('_ptrec_quiet', 1)


def _connected():
    if 'armed' not in _CONNECT or 'done' in _CONNECT:
        return
    _CONNECT['done'] = True
    path = _CONNECT.get('log')
    text = ''
    if path:
        for p, v in _CONNECT['saved']:
            if isinstance(v, bool):
                v = 'on' if v else 'off'
            gdb.execute('set logging %s %s' % (p, v))
        try:
            with open(path, encoding='utf-8', errors='replace') as f:
                text = f.read()
        finally:
            os.unlink(path)
    try:
        frame = gdb.newest_frame()
        again = _CONNECT.get('signal') not in (None, 'SIGTRAP') and \
            frame.type() == gdb.INLINE_FRAME and _on_ptrec()
    except gdb.error:
        # not connected: what GDB said is an error
        gdb.write(text, gdb.STDERR)
        return
    if again:
        # the quiet stop's location and source line, the last ones shown
        lines = text.splitlines(True)
        at = re.compile(r'(0x[0-9a-f]+ in )?%s \(' % re.escape(
            frame.name() or ''))
        for i in range(len(lines) - 1, -1, -1):
            if at.match(lines[i]):
                text = ''.join(lines[:i])
                break
    if text:
        gdb.write(text)
    if not again:
        return
    lock = gdb.parameter('scheduler-locking')
    gdb.execute('set scheduler-locking on')
    try:
        gdb.execute('continue')
    finally:
        gdb.execute('set scheduler-locking %s' % lock)


PtrecConnecting('connect-prepare')
PtrecConnecting('connect-finish')
# The logging commands run from the CLI: run from Python (gdb.execute),
# GDB's stop print would not go to the file (its ui-out is restored).
gdb.execute('define ptrec connecting\n'
            'ptrec connect-prepare\n'
            'if $_ptrec_quiet\n'
            'eval "set logging file %s", $_ptrec_connect_log\n'
            'set logging redirect on\n'
            'set logging overwrite on\n'
            'set logging enabled on\n'
            'end\n'
            'end')
gdb.execute('define ptrec connected\n'
            'if $_ptrec_quiet\n'
            'set logging enabled off\n'
            'end\n'
            'ptrec connect-finish\n'
            'end')
