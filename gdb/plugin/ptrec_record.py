# SPDX-License-Identifier: GPL-3.0-or-later
"""ptrec's GDB plugin, part 4: GDB's record commands (info record, record
goto, instruction and function-call history) on a ptrec target, in
btrace's layouts and numbering.

Sourced by ptrec.py into the same namespace (GDB's __main__), after the
parts before it; not loaded on its own."""
# pylint: disable=undefined-variable

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
        if not arg:
            raise gdb.GdbError('usage: record goto begin|start|end|N')
        _HISTORY.clear()
        try:
            gdb.execute('ptrec goto ' + arg, from_tty)
        except gdb.error as e:
            # ptrec goto's message, without "Python Exception" around it.
            raise gdb.GdbError(str(e)) from e


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
