# SPDX-License-Identifier: GPL-3.0-or-later
"""ptrec's GDB plugin: commands over a ptrec-server connection.

Load it by hand with `source gdb/plugin/ptrec.py`, or let `ptrec replay`
load it.  It talks to the server only through monitor commands, never to
the engine's internals.

Commands: `ptrec goto begin|end|N`, `ptrec position`, `ptrec info`,
`ptrec export ...` (both run the ptrec CLI on the server's bundle),
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


def _modifiers(arg):
    """GDB's history commands take modifiers apart or together (/c /l /i
    or /cli); the server takes one group: joins the leading ones."""
    words = arg.split()
    mods = ''
    while words and words[0].startswith('/'):
        mods += words.pop(0)[1:]
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
        # The registers and frames of the new position.
        gdb.execute('maintenance flush register-cache', to_string=True)
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
        _monitor('ptrec insns ' + _modifiers(arg),
                 'ptrec instruction-history:')


class PtrecCallHistory(gdb.Command):
    """ptrec function-call-history [/c /l /i] [N | N,M | + | -]

The function-call history of the current thread in the layout of GDB's
"record function-call-history": /c indents by call depth, /l adds source
lines, /i instruction ranges."""

    def __init__(self):
        super().__init__('ptrec function-call-history', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        _monitor('ptrec calls ' + _modifiers(arg),
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


PtrecPrefix()
PtrecInfo()
PtrecExport()
PtrecGoto()
PtrecPosition()
PtrecInsnHistory()
PtrecCallHistory()


# ---- frame unwinder ------------------------------------------------------
#
# Only the PC is known in replay, so GDB cannot unwind by itself.  The server
# publishes the call stack at STACK_ADDR (read as memory: an unwinder must not
# send packets).  Frame k's id uses a synthetic stack pointer that decreases
# as calls nest (BASE minus its first instruction's position) and the address
# of that first instruction, both fixed while stepping inside one call.  Every
# recorded frame, the outermost too, gets its id here, so that a frame's id
# is the same whether it is frame 0 or a caller.

import struct

import gdb.unwinder

STACK_ADDR = 0xffffffffff000000
BASE = 0x7ff0000000000000
# A signal frame's first word has this bit; the ucontext GDB's sigtramp
# unwinder reads for it is served at SIGCTX_ADDR + SIGCTX_SIZE * k +
# SIGCTX_AT (gdb/server/target.h).
SIGTRAMP_BIT = 1 << 63
SIGCTX_ADDR = STACK_ADDR + 0x100000
SIGCTX_SIZE = 0x400
SIGCTX_AT = 96
# A frame called before the history started, k frames below its first
# frame: PREHIST_BIT | k.  Its synthetic stack address is above the
# first frame's, k frames out.
PREHIST_BIT = 1 << 62


def _read_stack_keyed():
    """The published call stack and a key naming it (thread, position and
    frames), or None when the target publishes none."""
    inf = gdb.selected_inferior()
    head = bytes(inf.read_memory(STACK_ADDR, 24))
    if head[:8] not in (b'PTRECSTK', b'PTRECSTR'):
        return None
    count = struct.unpack_from('<Q', head, 8)[0]
    data = bytes(inf.read_memory(STACK_ADDR + 24, 24 * count))
    stack = [struct.unpack_from('<QQQ', data, 24 * i) for i in range(count)]
    return (gdb.selected_thread().ptid, head, data), stack


def _read_stack():
    got = _read_stack_keyed()
    return got[1] if got else None


def _real_index(frame):
    """The recorded frame that @frame is or is inlined into: how many real
    (not inline) frames are newer than it."""
    index = 0
    f = gdb.newest_frame()
    while f is not None and f != frame:
        if f.type() != gdb.INLINE_FRAME:
            index += 1
        f = f.older()
    return index


class _FrameId:
    # GDB 13 takes any object with sp and pc (gdb.unwinder.FrameId is 14+).
    def __init__(self, sp, pc):
        self.sp = sp
        self.pc = pc


class PtrecUnwinder(gdb.unwinder.Unwinder):
    """GDB's frame levels count inline frames, which GDB's own inline
    unwinder handles before this one is asked; the recorded call stack has
    only real calls.  So the recorded frame of a pending frame is not its
    level but how many real frames this unwinder gave since GDB last
    started building frames at this position (it builds them innermost
    first, each once): a level at or below the last one seen, or another
    position or stack, starts over at the innermost recorded frame."""

    def __init__(self):
        super().__init__('ptrec')
        self.key = None
        self.last_level = -1
        self.last_index = -1

    def index_of(self, key, level):
        if key != self.key or level <= self.last_level:
            self.key = key
            index = 0
        else:
            index = self.last_index + 1
        self.last_level = level
        self.last_index = index
        return index

    def __call__(self, pending_frame):
        try:
            got = _read_stack_keyed()
        except gdb.MemoryError:
            return None      # not a ptrec-server target
        if not got or not got[1]:
            return None
        key, stack = got
        if key[1][:8] == b'PTRECSTR':
            # At the end, with the snapshot's real registers and memory:
            # GDB's own DWARF CFI unwinding, as on a core file.
            return None
        level = self.index_of(key, pending_frame.level())
        if level >= len(stack):
            return None      # beyond the recorded call stack
        entry, first_ip, resume = stack[level]
        if entry & SIGTRAMP_BIT:
            # <signal handler called>: GDB's own sigtramp unwinder reads
            # the interrupted frame from the ucontext the server serves.
            return None
        u64 = gdb.lookup_type('unsigned long')
        ptr = u64.pointer()
        # Stable while this call runs: its first instruction's position
        # and address (the callee's entry).
        base = BASE + 16 * (entry & ~PREHIST_BIT) \
            if entry & PREHIST_BIT else BASE - 16 * entry
        frame_id = _FrameId(gdb.Value(base).cast(ptr),
                            gdb.Value(first_ip).cast(ptr))
        info = pending_frame.create_unwind_info(frame_id)
        if level < len(stack) - 1:
            # Only the caller's PC is known.  Its other registers, the
            # stack pointer too, read as <not saved>, never as made-up
            # values.
            info.add_saved_register('rip', gdb.Value(resume).cast(ptr))
            if stack[level + 1][0] & SIGTRAMP_BIT:
                # A signal handler: its caller is the signal frame, whose
                # stack pointer points at the served ucontext.
                info.add_saved_register('rsp', gdb.Value(
                    SIGCTX_ADDR + SIGCTX_SIZE * (level + 1) +
                    SIGCTX_AT).cast(ptr))
        else:
            # The outermost recorded frame: its caller was not recorded.
            # A zero PC, and a stack and frame pointer from which GDB's
            # fallback unwinder computes a zero frame base, its mark of
            # the outermost frame (backtrace ends with "0x0 in ?? ()").
            # Returning nothing here instead leaves this frame to GDB's
            # DWARF unwinder, which needs registers of the frame below
            # that this unwinder cannot give: reverse-step failed with
            # "value has been optimized out".
            info.add_saved_register('rip', gdb.Value(0).cast(ptr))
            info.add_saved_register('rsp', gdb.Value(8).cast(ptr))
            info.add_saved_register('rbp', gdb.Value(0).cast(ptr))
        return info


gdb.unwinder.register_unwinder(None, PtrecUnwinder(), replace=True)


class ReverseFinish(gdb.Command):
    """reverse-finish: run back to the call of the selected frame.

In ptrec replay this comes from the recorded call stack.  GDB 13's own
reverse-finish puts a breakpoint on the function's entry with no frame
attached and stops at the first hit, which inside a recursion is the
entry of a deeper call, not the selected frame's."""

    def __init__(self):
        super().__init__('reverse-finish', gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError('reverse-finish takes no arguments')
        try:
            stack = _read_stack()
        except gdb.MemoryError:
            stack = None
        if not stack:
            raise gdb.GdbError('reverse-finish: no recorded call stack '
                               '(not a ptrec-server target)')
        selected = gdb.selected_frame()
        level = _real_index(selected)
        if (level >= len(stack) - 1 or stack[level][0] == 0 or
                stack[level][0] & PREHIST_BIT) and \
                selected.type() != gdb.INLINE_FRAME:
            # The history's first frame, or one it was called from: its
            # call was not recorded.
            raise gdb.GdbError('"finish" not meaningful in the outermost '
                               'frame.')
        desc = gdb.execute('frame %d' % selected.level(), to_string=True)
        gdb.write('Run back to call of ' + desc.splitlines()[0] + '\n')
        if selected.type() == gdb.INLINE_FRAME:
            self.out_of_inline(selected, len(stack) - level)
        else:
            # To the frame's first instruction (ptrec goto counts from 1:
            # stack[level][0] is the call, one before it) without a stop,
            # then one real step back onto the call: GDB stops as after
            # any reverse-stepi, with hook-stop, Python stop events and
            # MI's *stopped (an IDE's -exec-finish --reverse needs it).
            _goto(stack[level][0] + 1)
        gdb.execute('reverse-stepi', from_tty)

    @staticmethod
    def out_of_inline(frame, outer):
        """Back to the instruction before the inlined call's code: an
        inlined call has no call instruction, so step back until the PC
        leaves the inlined function's block in the same real frame (the
        one @outer frames from the outermost), jumping over the calls it
        made by their recorded entries."""
        func = frame.function()
        mine = _inlined_block(frame.pc(), func)
        for _ in range(100000):
            here = _position()
            out = gdb.execute('reverse-stepi', to_string=True)
            if 'No more reverse-execution history' in out:
                break
            stack = _read_stack()
            if len(stack) < outer:
                break       # before the real frame's entry
            if len(stack) > outer:
                _goto(stack[len(stack) - outer - 1][0])
            # Another inlined copy of the function is not this call.
            if _inlined_block(gdb.newest_frame().pc(), func) != mine:
                break
        # Back to the instruction after the stop, for the caller's real
        # reverse-stepi onto it.
        _goto(here)


def _inlined_block(pc, func):
    """The innermost block of inlined @func around @pc, as (start, end),
    or None.  (gdb.Symbol objects compare by identity: by name here.)"""
    block = gdb.block_for_pc(pc)
    while block is not None and (block.function is None or
                                 block.function.name != func.name):
        block = block.superblock
    return (block.start, block.end) if block is not None else None

def _position():
    """The current thread's position as ptrec goto takes it: N, or end."""
    out = gdb.execute('monitor ptrec position', to_string=True)
    m = re.search(r'position (\d+) of', out)
    if m:
        return m.group(1)
    if 'at the end' in out:
        return 'end'
    raise gdb.GdbError('ptrec: no position in %r' % out.strip())


def _goto(pos):
    out = gdb.execute(_mon('ptrec goto %s' % pos), to_string=True)
    if out.startswith('ptrec goto:'):
        raise gdb.GdbError(out.strip())
    gdb.execute('maintenance flush register-cache', to_string=True)

ReverseFinish()

# Entry values (arg@entry) come from the caller's call-site information,
# evaluated with the caller's frame base, which in replay is the unwinder's
# synthetic stack pointer: they would print made-up addresses.
gdb.execute('set print entry-values no')

# After a forward `finish`, GDB 13 reads the returned value from registers
# without checking that they are available, and would print an unavailable
# rax as 0.  Only the end of the history knows registers.
gdb.execute('set print finish off')


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
# A store whose address the history does not show, or a write whose new
# value is unknown, stops as "Thread N stopped." (GDB would see no value
# change and resume): after such a stop, and after a system call's write,
# print what the server says it was.  `set ptrec watch-unknown stop|stack|
# skip` says what stores with an unknown address do.

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
    """Whether a watchpoint stops at a store whose address is unknown.
"stop" (the default): such a store may have written the watched bytes, so
continuing either way stops there and says so.  "stack": assume the stack
pointer stays in the thread's stack (and fs_base as at the end), and skip
such stores that cannot reach the watched bytes then.  "skip": only stores
whose address the history shows stop."""

    set_doc = 'Set whether watchpoints stop at stores of unknown address.'
    show_doc = 'Show whether watchpoints stop at stores of unknown address.'

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
        return 'Watchpoints at stores of unknown address: %s.' % svalue


_watch_unknown = PtrecWatchUnknown()


def _send_watch_unknown(event):
    if _watch_unknown.value != 'stop' and _on_ptrec():
        try:
            gdb.execute('monitor ptrec watch-unknown ' +
                        _watch_unknown.value, to_string=True)
        except gdb.error:
            pass


gdb.events.stop.connect(_send_watch_unknown)


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
    cur = gdb.current_progspace().filename
    if (cur and os.path.realpath(cur) == os.path.realpath(path)) or \
            not os.path.isfile(path) or re.search(r'[\s"\'\\]', path):
        return
    gdb.write('ptrec: the process ran %s here (before or after an '
              'execve): its symbols are loaded.\n' % path)
    gdb.execute('file %s' % path, to_string=True)
    gdb.execute('maintenance flush register-cache', to_string=True)


gdb.events.stop.connect(_sync_program)


# ---- GDB's record commands on a ptrec target --------------------------------
#
# `info record`, `record goto`, `record instruction-history` and `record
# function-call-history` are GDB's btrace commands; on a ptrec target they
# answer from the recording, in btrace's layouts.  GDB cannot hand a
# replaced command back, so they are replaced only once a ptrec target is
# connected (ptrec replay's GDB is for that target alone); until then, and
# in any other session, GDB's own commands stay.

_RECORD_DONE = []


class _RecordInfo(gdb.Command):
    """info record: what is recorded and where replay is (ptrec target)."""

    def __init__(self):
        super().__init__('info record', gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        if not _on_ptrec():
            raise gdb.GdbError('No recording is currently active '
                               '(and this is not a ptrec target).')
        out = gdb.execute(_mon('ptrec position'), to_string=True)
        m = re.search(r'thread (\d+) position (\d+) of (\d+)', out)
        count = gdb.execute(_mon('ptrec calls count'), to_string=True)
        c = re.match(r'(\d+) calls, the current is \d+, (\d+) '
                     r'instructions, (\d+) gaps', count)
        bundle, _ = _bundle()
        gdb.write('Active record target: ptrec (replay of %s).\n' % bundle)
        gdb.write('Recording format: Intel Processor Trace (ptrec).\n')
        # btrace's line; the thread as GDB's "thread" names it.
        cur = re.search(r'Current thread is (\S+) \((.*)\)\]',
                        gdb.execute('thread', to_string=True))
        if c and cur:
            gdb.write('Recorded %s instructions in %s functions (%s gaps) '
                      'for thread %s (%s).\n'
                      % (c.group(2), c.group(1), c.group(3), cur.group(1),
                         cur.group(2)))
        elif count.strip():
            gdb.write(count)
        if m:
            gaps = _btrace_gaps(int(m.group(3)))
            gdb.write('Replay in progress.  At instruction %d.\n'
                      % _btrace_number(gaps, int(m.group(2)) - 1))
        gdb.write('Every thread\'s instructions and gaps: "ptrec info".\n')


def _btrace_gaps(total):
    """The gaps inside the selected thread's history (neither before its
    first instruction nor after its last), as (before, text) in history
    order, before the 0-based position of the instruction after the gap.
    btrace numbers each such gap as an entry of its own in the
    instruction and function-call histories."""
    out = gdb.execute(_mon('ptrec gaps'), to_string=True)
    gaps = []
    for line in out.splitlines():
        m = re.match(r'gap (\d+) (.*)$', line)
        if m and 0 < int(m.group(1)) < total:
            gaps.append((int(m.group(1)), m.group(2)))
    gaps.sort(key=lambda g: g[0])
    return gaps


def _btrace_number(gaps, pos):
    """btrace's instruction number of the 0-based position @pos."""
    return pos + 1 + sum(1 for before, _ in gaps if before <= pos)


def _btrace_entry(gaps, number):
    """What btrace's instruction @number is: ('gap', text) or ('insn', its
    0-based position)."""
    for j, (before, text) in enumerate(gaps):
        at = before + j + 1
        if number == at:
            return 'gap', text
        if number < at:
            return 'insn', number - 1 - j
    return 'insn', number - 1 - len(gaps)


class _RecordGoto(gdb.Command):
    """record goto begin|start|end|N: move to instruction N (ptrec)."""

    def __init__(self):
        super().__init__('record goto', gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        arg = arg.strip()
        if arg == 'start':
            arg = 'begin'
        if arg.isdigit():
            # btrace's number: gaps inside the history count.
            out = gdb.execute(_mon('ptrec position'), to_string=True)
            m = re.search(r'position \d+ of (\d+)', out) or \
                re.search(r'at the end, after (\d+)', out)
            if m:
                gaps = _btrace_gaps(int(m.group(1)))
                kind, at = _btrace_entry(gaps, int(arg))
                if kind == 'gap':
                    raise gdb.GdbError('Cannot go to instruction %s: it is '
                                       'a gap in the trace.' % arg)
                arg = str(at + 1)
        _HISTORY.clear()
        gdb.execute('ptrec goto ' + arg, from_tty)


# The range each history command showed last per thread, 1-based
# inclusive; btrace forgets it when replay moves (record goto, a stop),
# and so do we.
_HISTORY = {}


def _forget_history(_event=None):
    _HISTORY.clear()


gdb.events.stop.connect(_forget_history)


def _history_span(what, arg, size, cur, total):
    """GDB 13's record instruction/function-call-history ranges as btrace
    computes them: none or + (SIZE from the replay position, or the last
    SIZE at the end; then the SIZE after the last shown), - (SIZE up to
    and including the replay position, then the SIZE before the last
    shown), N (SIZE from N), N,M, N,+K (K from N), N,-K (K up to N).
    @cur is the 1-based replay position, None at the end; @total the
    history's length.  Returns (first, last) or None when nothing is
    left (btrace then says it is at the start or end)."""
    thread = gdb.selected_thread()
    what = (what, thread.num if thread is not None else 0)
    last = _HISTORY.get(what)
    if arg in ('', '+', '-'):
        back = arg == '-'
        if last:
            first, end = ((last[0] - size, last[0] - 1) if back else
                          (last[1] + 1, last[1] + size))
        elif cur is None:
            first, end = total - size + 1, total
        elif back:
            first, end = cur - size + 1, cur
        else:
            first, end = cur, cur + size - 1
        first, end = max(first, 1), min(end, total)
        if first > end:
            gdb.write('At the %s of the branch trace record.\n'
                      % ('start' if back else 'end'))
            return None
    else:
        m = re.fullmatch(r'(\d+)(?:,([+-]?)(\d+))?', arg)
        if not m:
            raise gdb.GdbError('Expected positive number, got: %s.' % arg)
        first = int(m.group(1))
        k = int(m.group(3)) if m.group(3) else size
        if m.group(2) is not None and m.group(2) == '' and m.group(3):
            end = k
            if end < first:
                raise gdb.GdbError('Bad range.')
        elif k == 0:
            raise gdb.GdbError('Bad record %s-size.' % what[0])
        elif m.group(2) == '-':
            first, end = max(first - k + 1, 1), first
        else:
            end = first + k - 1
        if first < 1 or first > total:
            raise gdb.GdbError('Range out of bounds.')
        end = min(end, total)
    _HISTORY[what] = (first, end)
    return first, end


def _mods(arg, allowed):
    """The modifiers (/a /bc ...) and the range of a history command."""
    mods = ''.join(w[1:] for w in arg.split() if w.startswith('/'))
    other = set(mods) - set(allowed)
    if other:
        raise gdb.GdbError('Invalid modifier: %s.' % sorted(other)[0])
    return mods, ''.join(w for w in arg.split() if not w.startswith('/'))


class _RecordInsns(gdb.Command):
    """record instruction-history [/m /s /r /f /p] [N | N,M | N,+K | N,-K |
+ | -] (ptrec target).  /m and /s interleave source lines, /r adds raw
bytes, /f omits function names, /p omits the current-position marker;
`set record instruction-history-size` sets how many."""

    def __init__(self):
        super().__init__('record instruction-history', gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        mods, rng = _mods(arg, 'msrfp')
        size = gdb.parameter('record instruction-history-size') or 10
        out = gdb.execute(_mon('ptrec position'), to_string=True)
        m = re.search(r'position (\d+) of (\d+)', out)
        e = re.search(r'at the end, after (\d+)', out)
        if not m and not e:
            raise gdb.GdbError(out.strip())
        total = int(m.group(2) if m else e.group(1))
        gaps = _btrace_gaps(total)
        span = _history_span('instruction-history', rng, size,
                             _btrace_number(gaps, int(m.group(1)) - 1)
                             if m else None, total + len(gaps))
        if span is None:
            return
        out = _btrace_insns(gaps, span, 'r' in mods)
        gdb.write(_insn_layout(out, 'm' in mods or 's' in mods,
                               'f' in mods, 'p' in mods))


def _btrace_insns(gaps, span, raw):
    """The server's instruction lines for btrace's numbers span[0] to
    span[1], renumbered as btrace numbers them, with a line of its own for
    each gap inside the history."""
    res, run = [], None

    def flush():
        if run is None:
            return
        out = gdb.execute('ptrec instruction-history %s %d,%d'
                          % ('/r' if raw else '', run[0] + 1, run[1] + 1),
                          to_string=True)
        for line in out.splitlines():
            m = re.match(r'(\d+)(\t.*)$', line)
            res.append('%d%s' % (_btrace_number(gaps, int(m.group(1)) - 1),
                                 m.group(2)) if m else line)

    for number in range(span[0], span[1] + 1):
        kind, what = _btrace_entry(gaps, number)
        if kind == 'gap':
            flush()
            run = None
            res.append('%d\t%s' % (number, what))
        elif run is None:
            run = [what, what]
        else:
            run[1] = what
    flush()
    return ''.join(line + '\n' for line in res)


_INSN_LINE = re.compile(r'^(\d+)\t(=> |   )(0x[0-9a-f]+)( <[^>]*>)?(:\t.*)$')


def _stmt_lines(symtab):
    """pc -> the is_stmt line numbers that start there (GDB's btrace takes
    a source range from the line-table entries at exactly that pc)."""
    table = {}
    for ent in list(symtab.linetable())[:-1]:
        if ent.line and getattr(ent, 'is_stmt', True):
            table.setdefault(ent.pc, []).append(ent.line)
    return table


def _source_line(symtab, line, cache):
    """GDB's print_source_lines with the file name: FILE:LINE<tab>text;
    for a file it cannot read, LINE<tab>FILE: <error> the first time and
    LINE<tab>in FILE after that."""
    name = symtab.fullname()
    if name not in cache:
        try:
            with open(name, errors='replace') as f:
                cache[name] = f.read().split('\n')
        except OSError as e:
            cache[name] = None
            return '%d\t%s: %s.' % (line, symtab.filename, e.strerror)
    text = cache[name]
    if text is None or line > len(text):
        return '%d\tin %s' % (line, symtab.filename)
    return '%s:%d\t%s' % (symtab.filename, line, text[line - 1])


def _insn_layout(out, source, omit_fname, omit_pc):
    """The server's instruction lines in btrace's /s /f /p layouts: /s
    prints FILE:LINE and the line's text before the first instruction of a
    source range not inside the last one printed; /f drops <func+off>; /p
    prints one space where the => or blank position marker was."""
    res, tables, files, last = [], {}, {}, None
    for line in out.splitlines():
        m = _INSN_LINE.match(line)
        if not m:
            res.append(line)
            continue
        if source:
            pc = int(m.group(3), 16)
            sal = gdb.find_pc_line(pc)
            st = sal.symtab
            if st is not None and st.linetable() is not None:
                key = st.fullname()
                if key not in tables:
                    tables[key] = _stmt_lines(st)
                nums = tables[key].get(pc)
                if nums:
                    rng = (key, min(nums), max(nums) + 1)
                    inside = (last and last[0] == key and
                              last[1] <= rng[1] and rng[2] <= last[2])
                    if not inside:
                        for n in range(rng[1], rng[2]):
                            res.append(_source_line(st, n, files))
                        last = rng
        res.append('%s\t%s%s%s%s' % (
            m.group(1), ' ' if omit_pc else m.group(2), m.group(3),
            '' if omit_fname else (m.group(4) or ''), m.group(5)))
    return ''.join(l + '\n' for l in res)


class _RecordCalls(gdb.Command):
    """record function-call-history [/c /l /i] [N | N,M | N,+K | N,-K | +
| -] (ptrec target); `set record function-call-history-size` sets how
many."""

    def __init__(self):
        super().__init__('record function-call-history', gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        mods, rng = _mods(arg, 'cli')
        size = gdb.parameter('record function-call-history-size') or 10
        out = gdb.execute(_mon('ptrec calls count'), to_string=True)
        m = re.match(r'(\d+) calls, the current is (\d+)', out)
        if not m:
            raise gdb.GdbError(out.strip())
        pos = gdb.execute(_mon('ptrec position'), to_string=True)
        p = re.search(r'position (\d+) of (\d+)', pos) or \
            re.search(r'at the end, after (\d+)', pos)
        replaying = 'position' in (p.group(0) if p else '')
        total, at = int(m.group(1)), int(m.group(2))
        # btrace numbers each gap inside the history as a function
        # segment of its own, and /i's instruction numbers count the gaps.
        insn_gaps = _btrace_gaps(int(p.group(p.lastindex))) if p else []
        gaps = []
        for line in gdb.execute(_mon('ptrec calls gaps'),
                                to_string=True).splitlines():
            g = re.match(r'gap (\d+) (.*)$', line)
            if g:
                gaps.append((int(g.group(1)), g.group(2)))
        span = _history_span('function-call-history', rng, size,
                             _btrace_number(gaps, at - 1) if replaying
                             else None, total + len(gaps))
        if span is None:
            return
        gdb.write(_btrace_calls(gaps, insn_gaps, span, mods))


def _btrace_calls(gaps, insn_gaps, span, mods):
    """The server's function-call lines for btrace's numbers span[0] to
    span[1], renumbered, a line of its own for each gap."""
    res, run = [], None

    def renumber(line):
        m = re.match(r'(\d+)(\t.*)$', line)
        if not m:
            return line
        rest = re.sub(r'\tinst (\d+),(\d+)', lambda i: '\tinst %d,%d' % (
            _btrace_number(insn_gaps, int(i.group(1)) - 1),
            _btrace_number(insn_gaps, int(i.group(2)) - 1)), m.group(2))
        return '%d%s' % (_btrace_number(gaps, int(m.group(1)) - 1), rest)

    def flush():
        if run is None:
            return
        out = gdb.execute(_mon('ptrec calls %s %d,%d'
                               % ('/' + mods if mods else '', run[0] + 1,
                                  run[1] + 1)), to_string=True)
        if out.startswith('ptrec function-call-history:'):
            raise gdb.GdbError(out.strip())
        res.extend(renumber(line) for line in out.splitlines())

    for number in range(span[0], span[1] + 1):
        kind, what = _btrace_entry(gaps, number)
        if kind == 'gap':
            flush()
            run = None
            res.append('%d\t%s' % (number, what))
        elif run is None:
            run = [what, what]
        else:
            run[1] = what
    flush()
    return ''.join(line + '\n' for line in res)


def _record_commands(_event=None):
    if _RECORD_DONE or not _on_ptrec():
        return
    _RECORD_DONE.append(True)
    _RecordInfo()
    _RecordGoto()
    _RecordInsns()
    _RecordCalls()


gdb.events.new_objfile.connect(_record_commands)
gdb.events.stop.connect(_record_commands)
