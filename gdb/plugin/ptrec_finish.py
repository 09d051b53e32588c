# SPDX-License-Identifier: GPL-3.0-or-later
"""ptrec's GDB plugin, part 5: forward `finish` (issue #17: never a wrong
value).

GDB 13's finish reads the returned value from the stop's registers without
checking that they are available: an unknown rax reads as 0, and that 0
goes into the value history as $N (`p $` printed 0).  No setting keeps
GDB's finish from recording it, and a hook cannot keep the command from
running, so on a ptrec target `finish` is this command: it runs to where
the selected frame returns as GDB's does (`until *RET` in the caller's
frame: GDB's momentary breakpoint at the return address, bound to the
caller's frame id; user breakpoints on the way stop it, other threads
run), and then records and prints the returned value only where every
register (or the memory) the ABI returns it in is known at the stop.
Elsewhere it says that the value is not known and records nothing.
MI's -exec-finish runs the same command (GDB looks it up by name).

Sourced by ptrec.py into the same namespace (GDB's __main__), after the
parts before it; not loaded on its own."""
# pylint: disable=undefined-variable

# Before a ptrec target is connected (and on other targets) GDB's own
# finish runs, with hook-finish below: `print finish` on only where the
# value can be trusted.
gdb.execute('set print finish off')

_IN_RAX = (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_ENUM,
           gdb.TYPE_CODE_BOOL, gdb.TYPE_CODE_CHAR)
_FINISH_DONE = []


def _return_known():
    """Whether `finish` from the selected frame returns a value the server
    knows (gdb/server/frames.c, frames_return()); None on a target that
    is not a ptrec-server (its registers are real)."""
    try:
        if not _read_stack():
            return None
    except gdb.MemoryError:
        return None
    selected = gdb.selected_frame()
    func = selected.function()
    if selected.type() == gdb.INLINE_FRAME or func is None:
        return False
    ret = func.type.target()
    if ret is None:
        return False
    ret = ret.strip_typedefs()
    if ret.code not in _IN_RAX or ret.sizeof > 8:
        return False
    out = gdb.execute(_mon('ptrec returns %d' % _real_index(selected)),
                      to_string=True)
    return ' rax 0x' in out


def _caller_unrecorded():
    """Whether the selected frame is the outermost recorded one before
    the end of the history (its caller, not recorded, is the unwinder's
    frame at PC 0); False on a target that is not a ptrec-server."""
    try:
        got = _read_stack_keyed()
    except gdb.MemoryError:
        return False
    if not got or not got[1] or got[0][1][:8] != b'PTRECSTK':
        return False
    selected = gdb.selected_frame()
    return selected.type() != gdb.INLINE_FRAME and \
        _real_index(selected) >= len(got[1]) - 1


class FinishPrepare(gdb.Command):
    """Run by hook-finish before GDB's own finish (before a ptrec target
    is connected, or on another target): its value only where the
    registers are real."""

    def __init__(self):
        super().__init__('ptrec-finish-prepare', gdb.COMMAND_NONE)

    def invoke(self, arg, from_tty):
        if _FINISH_DONE:
            return      # the plugin's finish (below) runs
        if _caller_unrecorded():
            raise gdb.GdbError('"finish" not meaningful in the outermost '
                               'frame.')
        try:
            known = _return_known()
        except gdb.error:
            known = False
        gdb.execute('set print finish %s' %
                    ('off' if known is False else 'on'), to_string=True)


FinishPrepare()
gdb.execute('define hook-finish\nptrec-finish-prepare\nend',
            to_string=True)


# ---- where the ABI returns a value (System V x86-64) ------------------------


def _eightbytes(t, offset, out):
    """Classes of the eightbytes of @t at byte @offset into @out ('I'
    integer, 'S' SSE); False where the type has a part this reads no
    register for (x87, vectors, unaligned fields: memory or x87 in the
    ABI, not read here)."""
    t = t.strip_typedefs()
    code = t.code
    if code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        for field in t.fields():
            if not hasattr(field, 'bitpos'):
                continue    # static member
            if field.bitsize:
                ft = field.type.strip_typedefs()
                if ft.code not in _IN_RAX:
                    return False
                first = (offset * 8 + field.bitpos) // 64
                last = (offset * 8 + field.bitpos + field.bitsize - 1) // 64
                if first != last:
                    return False
                out[first] = 'I'
                continue
            if field.bitpos % 8 or \
                    not _eightbytes(field.type, offset + field.bitpos // 8,
                                    out):
                return False
        return True
    if code == gdb.TYPE_CODE_ARRAY:
        elem = t.target()
        if elem.sizeof == 0 or t.sizeof % elem.sizeof:
            return False
        return all(_eightbytes(elem, offset + i * elem.sizeof, out)
                   for i in range(t.sizeof // elem.sizeof))
    if code in _IN_RAX:
        cls = 'I'
    elif code == gdb.TYPE_CODE_FLT and t.sizeof in (4, 8):
        cls = 'S'
    else:
        return False
    if t.sizeof not in (1, 2, 4, 8) or offset % t.sizeof:
        return False
    k = offset // 8
    out[k] = 'I' if out.get(k) == 'I' else cls
    return True


def _return_places(ret, language):
    """Where a function returning @ret leaves the value: a list of
    (register, bytes) to concatenate, ('memory',) for a structure
    returned through the address in rax, ('x87',) for a long double in
    st0, or None where this does not read it (complex, vectors,
    __float128, C++ structures small enough for registers, which may be
    returned in memory)."""
    t = ret.strip_typedefs()
    size = t.sizeof
    if t.code in _IN_RAX:
        if size in (1, 2, 4, 8):
            return [('rax', size)]
        if size == 16 and t.code == gdb.TYPE_CODE_INT:
            return [('rax', 8), ('rdx', 8)]
        return None
    if t.code == gdb.TYPE_CODE_FLT:
        if size in (4, 8):
            return [('xmm0', size)]
        # x87's 80-bit format in st0 (__float128, also 16 bytes, is
        # returned in xmm0: not read).
        return ('x87',) if t.name == 'long double' else None
    if t.code not in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        return None
    if size > 16:
        return ('memory',)
    if language != 'c' or size == 0:
        return None
    classes = {}
    if not _eightbytes(t, 0, classes) or \
            sorted(classes) != list(range((size + 7) // 8)):
        return None
    regs = {'I': ['rax', 'rdx'], 'S': ['xmm0', 'xmm1']}
    places = []
    for k in range((size + 7) // 8):
        places.append((regs[classes[k]].pop(0), min(8, size - 8 * k)))
    return places


def _register_bytes(frame, name, size):
    """The low @size bytes of register @name in @frame, or None where it
    is not known (GDB's <unavailable>)."""
    try:
        v = frame.read_register(name)
        if name.startswith('xmm'):
            # Two halves: GDB 13 converts no 128-bit value to a Python
            # int.
            v = v['v2_int64']
            data = b''.join((int(v[i]) & (1 << 64) - 1).to_bytes(
                8, 'little') for i in range(2))
        else:
            data = (int(v) & (1 << 64) - 1).to_bytes(8, 'little')
        return data[:size]
    except gdb.error:
        return None


def _returned_value(ret, places, frame):
    """The value returned, read at the stop, or (None, what is unknown)."""
    if places == ('memory',):
        addr = _register_bytes(frame, 'rax', 8)
        if addr is None:
            return None, 'rax (the address of the returned structure)'
        try:
            v = gdb.parse_and_eval('*(%s *) %#x' % (
                ret.pointer().target(), int.from_bytes(addr, 'little')))
            v.fetch_lazy()
            return v, None
        except gdb.error:
            return None, 'the returned structure at %#x' % \
                int.from_bytes(addr, 'little')
    if places == ('x87',):
        try:
            st0 = frame.read_register('st0')
            value = st0.cast(ret)
            value.fetch_lazy()
            float(value)        # an unavailable st0 fails here
            return value, None
        except gdb.error:
            return None, 'st0'
    data = b''
    for name, size in places:
        got = _register_bytes(frame, name, size)
        if got is None:
            return None, name
        data += got
    return gdb.Value(data[:ret.sizeof], ret), None


# ---- the command ------------------------------------------------------------


class PtrecFinish(gdb.Command):
    """Execute until selected stack frame returns.
Usage: finish
Upon return, the value returned is printed and put in the value history.
In a ptrec replay (as GDB's own finish, but): the value is printed and
recorded only where the history shows it at the return (the registers the
ABI returns it in, or the memory of a returned structure); elsewhere
"Value returned is not known here" says which register is unknown, and
nothing is recorded: GDB 13's finish would record an unknown register as
0.  In reverse (set exec-direction reverse) this is reverse-finish."""

    def __init__(self):
        super().__init__('finish', gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        arg = arg.strip()
        if arg.endswith('&'):       # MI's async form: run, then return
            arg = arg[:-1].strip()
        if arg:
            raise gdb.GdbError('The "finish" command does not take any '
                               'arguments.')
        if not gdb.selected_inferior().pid:
            raise gdb.GdbError('The program is not being run.')
        if gdb.parameter('exec-direction') == 'reverse':
            try:
                gdb.execute('reverse-finish', from_tty)
            except gdb.error as e:
                raise gdb.GdbError(str(e)) from e
            return
        selected = gdb.selected_frame()
        caller = selected.older()
        if caller is None or _caller_unrecorded():
            raise gdb.GdbError('"finish" not meaningful in the outermost '
                               'frame.')
        # As GDB's skip_finish_frames: tail-call frames have no return.
        while caller is not None and caller.type() == gdb.TAILCALL_FRAME:
            caller = caller.older()
        if caller is None:
            raise gdb.GdbError('Cannot find the caller frame.')
        thread = gdb.selected_thread()
        if from_tty:
            desc = gdb.execute('frame %d' % selected.level(),
                               to_string=True)
            gdb.write('Run till exit from ' + desc.splitlines()[0] + '\n')
        if selected.type() == gdb.INLINE_FRAME:
            try:
                _finish_inline(selected)
            except gdb.error as e:
                raise gdb.GdbError(str(e)) from e
            return
        func = selected.function()
        ret = func.type.target() if func is not None else None
        language = gdb.current_language()
        resume = caller.pc()
        caller.select()
        try:
            gdb.execute('until *%#x' % resume, False)
        except gdb.error as e:
            if selected.is_valid():
                selected.select()
            raise gdb.GdbError(str(e)) from e
        # The value only where the stop is finish's own: this thread, at
        # the return address, in the caller's frame (a breakpoint on the
        # way, another thread's event or the history's end stop
        # elsewhere, and GDB's finish prints no value there either).
        if gdb.selected_thread() != thread or not thread.is_valid():
            return
        frame = gdb.newest_frame()
        if frame.pc() != resume or not caller.is_valid() or \
                frame != caller:
            return
        if ret is None or \
                ret.strip_typedefs().code == gdb.TYPE_CODE_VOID:
            return
        _print_returned(ret, language, frame)


def _print_returned(ret, language, frame):
    places = _return_places(ret, language)
    if places is None:
        gdb.write('Value returned is not known here: ptrec does not read '
                  'a %s returned in registers (complex, vectors, '
                  '__float128, C++ classes)\n' % ret)
        return
    value, unknown = _returned_value(ret, places, frame)
    if value is None:
        gdb.write('Value returned is not known here: %s is not known at '
                  'this position\n' % unknown)
        return
    index = gdb.add_history(value)
    if gdb.parameter('print finish'):
        # `output`: GDB's value_print, as finish prints it ("(int *)
        # 0x..."), without another history entry.
        text = gdb.execute('output $%d' % index, to_string=True)
    else:
        text = '<not displayed>'
    gdb.write('Value returned is $%d = %s\n' % (index, text))


def _finish_inline(selected):
    """finish from an inlined frame: GDB steps until the PC leaves the
    inlined call, in the same real frame, at the start of a line or of
    another inlined call (it never shows a value there).  The stop is
    found by ptrec goto (no stop; callees are jumped by their recorded
    returns), then reached by `until *PC` in that real frame, so
    breakpoints on the way stop it: the PC is outside the inlined call,
    so that frame reaches it there first."""
    stack = _read_stack()
    level = selected.level()
    outer = len(stack) - _real_index(selected)
    func = selected.function()
    mine = _inlined_block(selected.pc(), func)
    start = _position_number()
    here = start
    left = False
    target = None
    for _ in range(100000):
        try:
            _goto(here + 1)
        except (gdb.error, gdb.GdbError):
            # The history ends inside the inlined call (a crash there):
            # no stop after it, GDB's run to the end (record full's
            # finish stays there too).  It went on to "ptrec goto: no
            # instruction N" past the end.
            break
        here = _position_number()
        stack = _read_stack()
        if len(stack) > outer:
            out = gdb.execute(_mon('ptrec returns %d' %
                                   (len(stack) - outer - 1)),
                              to_string=True)
            m = re.match(r'returns at (\d+)', out)
            if not m:
                break       # never returns: GDB's run to the end
            _goto(int(m.group(1)))
            here = _position_number()
            stack = _read_stack()
            if len(stack) > outer:
                continue
        pc = gdb.newest_frame().pc()
        if len(stack) < outer:
            left = True      # the real frame returned
        elif _inlined_block(pc, func) != mine:
            left = True
        if left and (gdb.find_pc_line(pc).pc == pc or
                     _inline_entry(pc)):
            target = pc
            break
    _goto(start)
    # Selected again without `frame N`, whose change of frame GDB
    # prints even under to_string.
    frame = gdb.newest_frame()
    while frame is not None and frame.level() < level:
        frame = frame.older()
    if frame is not None:
        frame.select()
    if target is None:
        gdb.execute('continue', False)
    else:
        gdb.execute('until *%#x' % target, False)


def _inline_entry(pc):
    """Whether @pc is the first instruction of an inlined call: GDB's
    stepping stops there, showing the call site's line in the caller."""
    block = gdb.block_for_pc(pc)
    real = gdb.newest_frame()
    while real is not None and real.type() == gdb.INLINE_FRAME:
        real = real.older()
    name = real.name() if real is not None else None
    while block is not None and not block.is_global and \
            not block.is_static:
        if block.function is not None and block.start == pc and \
                block.function.name != name:
            return True
        block = block.superblock
    return False


def _install_finish(_event=None):
    """The plugin's finish, once a ptrec target is connected (GDB cannot
    hand its own back: other targets keep GDB's until then)."""
    if _FINISH_DONE or not _RECORD_DONE or \
            os.environ.get('PTREC_GDB_FINISH'):
        return      # PTREC_GDB_FINISH=1: GDB's own, for tests to compare
    _FINISH_DONE.append(True)
    PtrecFinish()
    # Printed as GDB prints it, where the value is known.
    gdb.execute('set print finish on')


gdb.events.new_objfile.connect(_install_finish)
gdb.events.stop.connect(_install_finish)
