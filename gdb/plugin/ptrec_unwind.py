# SPDX-License-Identifier: GPL-3.0-or-later
"""ptrec's GDB plugin, part 2: the frame unwinder over the server's published
call stack, and reverse-finish from it.

Sourced by ptrec.py into the same namespace (GDB's __main__), after the
parts before it; not loaded on its own."""
# pylint: disable=undefined-variable

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
    # No thread is selected yet while GDB connects and reads the program
    # from the target (Host I/O) before the first stop.
    thread = gdb.selected_thread()
    return (thread.ptid if thread else None, head, data), stack


def _read_stack():
    got = _read_stack_keyed()
    return got[1] if got else None


FREGS_ADDR = STACK_ADDR + 0x200000
FREGS_NAMES = ('rsp', 'rbx', 'rbp', 'r12', 'r13', 'r14', 'r15')
# In a frame's mask word: the outermost frame by its .eh_frame rule (rip
# undefined), with the register its CFA comes from known to GDB.
FREGS_CFI_OUTER = 1 << 63


_FREGS = {'key': None, 'frames': []}


def _frame_regs(key, count, k):
    """Frame k's id stack address, its caller's known registers as
    (name, value) pairs and whether GDB's DWARF unwinder ends the stack
    at it (gdb/server/frames.c).  All frames of the stack named @key are
    read at once, on its first use (one memory read)."""
    if _FREGS['key'] != key:
        words = len(FREGS_NAMES) + 2
        data = bytes(gdb.selected_inferior().read_memory(
            FREGS_ADDR, 8 * words * count))
        frames = []
        for i in range(count):
            w = struct.unpack_from('<%dQ' % words, data, 8 * words * i)
            frames.append((w[0], [(name, w[2 + j]) for j, name in
                                  enumerate(FREGS_NAMES) if w[1] >> j & 1],
                           bool(w[1] & FREGS_CFI_OUTER)))
        _FREGS['key'] = key
        _FREGS['frames'] = frames
    return _FREGS['frames'][k]


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
            return self.restart(key, level)
        self.last_level = level
        self.last_index += 1
        return self.last_index

    def restart(self, key, level):
        """The innermost recorded frame, at GDB's @level."""
        self.key = key
        self.last_level = level
        self.last_index = 0
        return 0

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
        if 0 < level < len(stack) and \
                not stack[level - 1][0] & SIGTRAMP_BIT and \
                int(pending_frame.read_register('rip')) != \
                stack[level - 1][2]:
            # Not the caller of the last frame given: its PC is not where
            # that frame returns.  GDB builds this position's frames again
            # with another count of inline frames above the innermost real
            # one (a `step` into an inlined function at its first
            # instruction moves nothing), so the innermost real frame
            # comes at a higher level than before: it is frame 0 again.
            level = self.restart(key, pending_frame.level())
        if level >= len(stack):
            return None      # beyond the recorded call stack
        entry, first_ip, resume = stack[level]
        if entry & SIGTRAMP_BIT:
            # <signal handler called>: GDB's own sigtramp unwinder reads
            # the interrupted frame from the ucontext the server serves.
            return None
        u64 = gdb.lookup_type('unsigned long')
        ptr = u64.pointer()
        # The id's stack address and the caller's registers the server
        # knows (gdb/server/frames.c): the frame's real CFA when the
        # history shows it, else a synthetic address outside the real
        # stack, stable while this call runs; with the address of its
        # first instruction (the callee's entry).
        sp, caller, cfi_outer = _frame_regs(key, len(stack), level)
        if cfi_outer:
            # The outermost recorded frame, whose .eh_frame rule marks
            # rip undefined (glibc's clone3 and clone thread starts,
            # _start): GDB's DWARF unwinder ends the stack there, as on
            # the live process (no "0x0 in ?? ()" caller).  For a
            # caller the server says so only where this unwinder gives
            # the register the rule computes the frame's CFA from (a
            # register not given reads as optimized out, an error to
            # that unwinder); frame 0's unknown registers are
            # unavailable, and it stops with "Backtrace stopped: Not
            # enough registers or memory available".
            return None
        frame_id = _FrameId(gdb.Value(sp).cast(ptr),
                            gdb.Value(first_ip).cast(ptr))
        info = pending_frame.create_unwind_info(frame_id)
        if level < len(stack) - 1:
            # The caller's PC, and the registers the server knows it
            # had; the others read as <not saved>, never as made-up
            # values.
            info.add_saved_register('rip', gdb.Value(resume).cast(ptr))
            if stack[level + 1][0] & SIGTRAMP_BIT:
                # A signal handler: its caller is the signal frame, whose
                # stack pointer points at the served ucontext (GDB takes
                # the first value given for a register: only this one).
                info.add_saved_register('rsp', gdb.Value(
                    SIGCTX_ADDR + SIGCTX_SIZE * (level + 1) +
                    SIGCTX_AT).cast(ptr))
            else:
                for name, value in caller:
                    info.add_saved_register(name,
                                            gdb.Value(value).cast(ptr))
        else:
            # The outermost recorded frame: its caller was not recorded.
            # A zero PC, and a stack and frame pointer from which GDB's
            # fallback unwinder computes a zero frame base, its mark of
            # the outermost frame (backtrace ends with "0x0 in ?? ()").
            # Returning nothing here instead leaves this frame to GDB's
            # DWARF unwinder, which needs registers of the frame below
            # that this unwinder cannot always give: reverse-step failed
            # with "value has been optimized out" (cfi_outer above is
            # where it can, and the rule ends the stack).
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
        # `finish` with exec-direction reverse comes here too (the
        # plugin's finish), where GDB refuses reverse-stepi: stepi is
        # the step back then.
        if gdb.parameter('exec-direction') == 'reverse':
            gdb.execute('stepi', from_tty)
        else:
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
            # One instruction back by ptrec goto, not reverse-stepi:
            # GDB 13 prints each stop of an execution command even with
            # to_string, so every step back showed as a stop of its own.
            here = _position_number()
            if here <= 1:
                break
            _goto(here - 1)
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

def _position_number():
    """The current thread's position as a number (the end is one after
    the last instruction)."""
    out = gdb.execute('monitor ptrec position', to_string=True)
    m = re.search(r'position (\d+) of', out)
    if m:
        return int(m.group(1))
    m = re.search(r'at the end, after (\d+) instructions', out)
    if m:
        return int(m.group(1)) + 1
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
