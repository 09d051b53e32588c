#!/bin/sh
# Watchpoints in both directions (#18) with the real GDB: tests/gdb/watch.c
# recorded by the software recorder with its ground truth.  For each kind
# of write (a global changed in a loop, a heap field written through two
# pointers, a stack variable written by a callee through a pointer, a
# buffer filled by read(2), a variable another thread writes), GDB sets a
# watchpoint, reverse-continues and continues; every stop must be at the
# instruction the ground truth says wrote those bytes (watchtruth: the
# recorder's own registers, not the recovery engine), in time order, and
# every value GDB prints must be what the program stored.  A store through
# a pointer the history does not keep stops with "may have written", and
# `set ptrec watch-unknown skip` skips it.  Then every store of the test
# programs (PROGS) against the truth, engine-wide.
set -u
: "${PTREC:?}" "${PROG:?}" "${VALPROG:?}" "${WATCHTRUTH:?}"
testlib_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$testlib_dir/lib.sh"
tap_begin gdb-watch

timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/b" -- "$PROG" \
	>"$tmp/log" 2>&1
timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/v" -- "$VALPROG" \
	>>"$tmp/log" 2>&1
if [ ! -f "$tmp/b/manifest.json" ] || [ ! -f "$tmp/v/manifest.json" ]; then
	bad "recording tests/gdb/watch and watchval: $(tail -3 "$tmp/log")"
	tap_end gdb-watch
fi
bundle=$tmp/b

# gdb_watch NAME SETUP EXPR K [WATCHES]: SETUP (GDB commands,
# ';'-separated) puts GDB where the watch starts; then "watch -l EXPR"
# (or the commands WATCHES; EXPR then only names the bytes they cover), K
# reverse-continues, K continues, each followed by the position.
gdb_watch() {
	name=$1 setup=$2 expr=$3 k=$4 watches=${5:-"watch -l $3"}
	set -- -ex "set pagination off"
	old_ifs=$IFS
	IFS=';'
	for c in $setup; do
		set -- "$@" -ex "$c"
	done
	IFS=$old_ifs
	set -- "$@" -ex "echo @@addr\n" -ex "p/x (long)&($expr)" \
		-ex "echo @@size\n" -ex "p (long)sizeof($expr)"
	IFS=';'
	for c in $watches; do
		set -- "$@" -ex "$c"
	done
	IFS=$old_ifs
	set -- "$@" -ex "echo @@start\n" -ex "ptrec position"
	i=0
	while [ $i -lt "$k" ]; do
		set -- "$@" -ex "echo @@stop rc\n" -ex "reverse-continue" \
			-ex "echo @@pos\n" -ex "ptrec position"
		i=$((i + 1))
	done
	i=0
	while [ $i -lt "$k" ]; do
		set -- "$@" -ex "echo @@stop c\n" -ex "continue" \
			-ex "echo @@pos\n" -ex "ptrec position"
		i=$((i + 1))
	done
	timeout 300 "$PTREC" replay "$bundle" -batch "$@" >"$tmp/$name.out" 2>&1
}

# check NAME VALUES: the stops of $tmp/NAME.out against the truth; VALUES
# is the values the program stores, in order ("" for none checked).
check_watch() {
	python3 - "$tmp/$1.out" "$WATCHTRUTH" "$bundle" "$2" "$3" <<'PY'
import re, subprocess, sys
out = open(sys.argv[1]).read()
truth_tool, bundle, vals = sys.argv[2], sys.argv[3], sys.argv[4].split()
mode = sys.argv[5]
lines = out.splitlines()
def after(mark, i):
    for j in range(i, len(lines)):
        if lines[j].startswith(mark):
            return j
    return None
def val(i):
    m = re.search(r'= (0x[0-9a-f]+|\d+)', lines[i + 1]) if i is not None else None
    return int(m.group(1), 0) if m else None
addr = val(after('@@addr', 0))
size = val(after('@@size', 0))
if addr is None or size is None:
    sys.exit('no address or size:\n' + out[-2000:])
def pos_at(i):
    for l in lines[i:i + 3]:
        m = re.match(r'thread (\d+) position (\d+) of (\d+)', l)
        if m:
            return int(m.group(1)), int(m.group(2)) - 1
        m = re.match(r'thread (\d+) at the end, after (\d+)', l)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None
start = pos_at(after('@@start', 0))
if not start:
    sys.exit('no start position:\n' + out[-2000:])
t = subprocess.run([truth_tool, bundle, hex(addr), str(size), str(start[0]),
                    str(start[1])], capture_output=True, text=True, check=True)
index, writes = {}, []
start_tsc = None
for l in t.stdout.splitlines():
    w = l.split()
    if w[0] == 'thread':
        index[int(w[1])] = int(w[3])
    elif w[0] == 'at':
        start_tsc = int(w[4])
    else:
        writes.append((int(w[0]), int(w[1]), int(w[3]), w[5]))
def moment(tid, pos, tsc):
    return (tsc, index[tid], pos)
writes.sort(key=lambda w: moment(w[0], w[1], w[2]))
now = moment(start[0], start[1], start_tsc)
# the stops GDB made, in order: (direction, (tid, pos), text up to it)
stops, i = [], 0
while True:
    i = after('@@stop', i)
    if i is None:
        break
    d = lines[i].split()[1]
    j = after('@@pos', i)
    stops.append((d, pos_at(j), '\n'.join(lines[i:j])))
    i = j
bad = checked_vals = hits = maybes = 0
cur = now
def mom(tid, pos):
    # the moment of an instruction of the recording (its truth write, or
    # the bundle's timestamp through watchtruth's "at")
    for w in writes:
        if (w[0], w[1]) == (tid, pos):
            return moment(w[0], w[1], w[2])
    r = subprocess.run([truth_tool, bundle, hex(addr), str(size), str(tid),
                        str(pos)], capture_output=True, text=True, check=True)
    tsc = [int(l.split()[4]) for l in r.stdout.splitlines()
           if l.startswith('at ')][0]
    return moment(tid, pos, tsc)
for d, got, text in stops:
    maybe = 'may have written' in text or 'may have read' in text
    if d == 'rc':
        before = [w for w in writes if moment(w[0], w[1], w[2]) < cur]
        want = before[-1] if before else None
        exp = (want[0], want[1]) if want else None
    else:
        later = [w for w in writes if moment(w[0], w[1], w[2]) >= cur]
        want = later[0] if later else None
        exp = (want[0], want[1] + 1) if want else None
    edge = 'No more reverse-execution history' in text
    if got == exp and not edge:
        k = writes.index(want)
        hits += 1
        cur = moment(want[0], want[1], want[2])
        if d == 'c':
            cur = (cur[0], cur[1], cur[2] + 1)
    elif maybe and got and not edge:
        # a store of unknown address, no truth write skipped to get there
        q = got[1] if d == 'rc' else got[1] - 1
        m = mom(got[0], q)
        if want and (m < moment(want[0], want[1], want[2]) if d == 'rc'
                     else m > moment(want[0], want[1], want[2])):
            print('%s: stopped at %s: skipped the write at %s ip %s'
                  % (d, got, want[1], want[3]))
            bad += 1
            break
        maybes += 1
        cur = m if d == 'rc' else (m[0], m[1], m[2] + 1)
        continue
    elif exp is None and edge:
        continue
    else:
        print('%s: stopped at %s, the truth says %s (write at %s ip %s)'
              % (d, got, exp, want and want[1], want and want[3]))
        bad += 1
        break
    if mode == 'skip' and maybe:
        print('%s: "may have written" with watch-unknown skip' % d)
        bad += 1
    # values: New value is the value before the write (reverse) or after
    # it (forward); the program's values in write order.
    m = re.search(r'New value = (-?\d+)', text)
    off = len(vals) - len(writes)   # 1: the initial value comes first
    if m and vals and off >= 0:
        v = int(m.group(1))
        j = k + off - (1 if d == 'rc' else 0)
        if j >= 0 and v != int(vals[j]):
            print('%s: New value = %d, the program stored %s' % (d, v, vals[j]))
            bad += 1
        checked_vals += 1
if not hits:
    print('no stop at a write of the truth')
    bad += 1
if vals and not checked_vals:
    print('no old and new value shown')
    bad += 1
print('%d stops: %d at writes of the truth, %d at stores of unknown address '
      '("may have written"), %d values shown; %d wrong'
      % (len(stops), hits, maybes, checked_vals, bad))
sys.exit(1 if bad or not stops else 0)
PY
}

skip="set ptrec watch-unknown skip"
run_case() {
	name=$1 setup=$2 expr=$3 k=$4 vals=$5 desc=$6
	mode=stop
	case $setup in "$skip"*) mode=skip ;; esac
	gdb_watch "$name" "$setup" "$expr" "$k" ${7:+"$7"}
	if check_watch "$name" "$vals" "$mode" >"$tmp/res" 2>&1; then
		ok "$desc: $(tail -1 "$tmp/res")"
	else
		tap_log=$tmp/res bad "$desc"
		sed 's/^/#   /' "$tmp/$name.out" | tail -30
	fi
}

# (tests/gdb/watch.c has two threads: its globals are shared memory, whose
# values the recovery engine does not follow, so GDB shows no values
# there; watchval's are followed.)
run_case loop "$skip" counter 5 "" \
	"watch counter (a global changed in a loop): reverse-continue and continue stop at each write"
run_case heap "set \$h = (long)heap_field;break watch.c:47;reverse-continue" \
	"*(long *)\$h" 4 "" \
	"watch -l on a heap field written through two pointers"
run_case stack "set \$s = (long)stack_var;break watch.c:62;reverse-continue" \
	"*(int *)\$s" 4 "" \
	"watch -l on a stack variable written by a callee through a pointer"
run_case reader "$skip;break watch.c:75;reverse-continue" "buf" 1 "" \
	"watch buf (filled by read(2)): the system call"
run_case threads "$skip" shared 2 "" \
	"watch shared (written by another thread): both threads in time order"
# The other thread's memory at those stops: just after each store, what it
# stored (main's 1, then the worker's 42), though the memory is shared;
# before them the value stays unknown (the history between cannot show
# that nothing else wrote it), and the plugin says so.
timeout 300 "$PTREC" replay "$bundle" -batch -ex "set pagination off" \
	-ex "$skip" -ex "watch -l shared" -ex "reverse-continue" \
	-ex "reverse-continue" -ex "echo @@1\n" -ex "p shared" \
	-ex "continue" -ex "echo @@2\n" -ex "p shared" -ex "continue" \
	-ex "echo @@3\n" -ex "p shared" >"$tmp/thrval.out" 2>&1
if sed -n '1,/@@1/p' "$tmp/thrval.out" | grep -q "shared = 1;" &&
	sed -n '/@@1/,/@@2/p' "$tmp/thrval.out" | grep -q "Cannot access memory" &&
	sed -n '/@@1/,/@@2/p' "$tmp/thrval.out" | grep -q "the watched value before it is unknown" &&
	sed -n '/@@2/,/@@3/p' "$tmp/thrval.out" | grep -q "^\$[0-9]* = 1$" &&
	sed -n '/@@3/,$p' "$tmp/thrval.out" | grep -q "^\$[0-9]* = 42$" &&
	sed -n '/@@2/,/@@3/p' "$tmp/thrval.out" | grep -q "Switching to Thread"; then
	ok "watch shared: after each thread's store GDB reads the value it stored (1, then 42 by the other thread)"
else
	tap_log=$tmp/thrval.out bad "watch shared: the values after each thread's store"
fi
run_case two "$skip" "*(char (*)[16])&counter" 6 "" \
	"watch counter and watch shared at once: the writes of both in time order" \
	"watch counter;watch shared"

bundle=$tmp/v
run_case values "$skip" total 7 "0 1 4 13 40 121 364" \
	"watch total (single-threaded): every write, with GDB's old and new values"

# A condition is GDB's: from the end, the first write before which total
# > 100 is the one of 364 (total was 121); forward from the start, the
# first after which it holds is the one of 121 (after a plain stop at
# "total = 1", whose value before is unknown: no condition is evaluated
# there), never those of 4, 13 and 40.
timeout 120 "$PTREC" replay "$bundle" -batch -ex "$skip" \
	-ex "watch total if total > 100" -ex "reverse-continue" \
	-ex "echo @@1\n" -ex "ptrec goto begin" -ex "continue" -ex "continue" \
	-ex "echo @@2\n" -ex "rwatch step" -ex "delete 1" \
	-ex "reverse-continue" -ex "echo @@3\n" -ex "awatch step" \
	-ex "delete 2" -ex "reverse-continue" >"$tmp/cond.out" 2>&1
if sed -n '1,/@@1/p' "$tmp/cond.out" | grep -q "New value = 121" &&
	sed -n '/@@1/,/@@2/p' "$tmp/cond.out" | grep -q "New value = 121" &&
	! sed -n '/@@1/,/@@2/p' "$tmp/cond.out" | grep -q "New value = \(4\|13\|40\)$"; then
	ok "watch total if total > 100: GDB's condition at the stops either way"
else
	tap_log=$tmp/cond.out bad "watch total if total > 100"
fi
if sed -n '/@@2/,/@@3/p' "$tmp/cond.out" | grep -q "Hardware read watchpoint [0-9]*: step" &&
	sed -n '/@@2/,/@@3/p' "$tmp/cond.out" | grep -q "^Value = [0-5]$" &&
	sed -n '/@@3/,$p' "$tmp/cond.out" | grep -q "Hardware access (read/write) watchpoint [0-9]*: step"; then
	ok "rwatch and awatch stop at the loop's reads of step with its value"
else
	tap_log=$tmp/cond.out bad "rwatch and awatch"
fi
# A single step over the write reports the watchpoint, either way.
timeout 120 "$PTREC" replay "$bundle" -batch -ex "$skip" -ex "watch total" \
	-ex "reverse-continue" -ex "echo @@1\n" -ex "stepi" -ex "echo @@2\n" \
	-ex "reverse-stepi" -ex "echo @@3\n" >"$tmp/step.out" 2>&1
if sed -n '/@@1/,/@@2/p' "$tmp/step.out" | grep -q "New value = 364" &&
	sed -n '/@@2/,/@@3/p' "$tmp/step.out" | grep -q "New value = 121"; then
	ok "stepi and reverse-stepi over the write report the watchpoint"
else
	tap_log=$tmp/step.out bad "stepi and reverse-stepi over the write"
fi
bundle=$tmp/b

# A store through the stack pointer moved into the heap: the default
# stops there ("may have written"), as the truth says it wrote.
if [ -x "${ALTPROG:-}" ]; then
	timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/alt" -- \
		"$ALTPROG" >/dev/null 2>&1
	bundle=$tmp/alt
	run_case alt "set \$a = (long)(heap + 254);break watchalt.c:29;reverse-continue" \
		"*(long *)\$a" 1 "" \
		"a store through a stack pointer moved into the heap stops (watch-unknown stop)"
	if grep -q "may have written" "$tmp/alt.out"; then
		ok "... with 'may have written'"
	else
		tap_log=$tmp/alt.out bad "... with 'may have written'"
	fi
	bundle=$tmp/b
fi

# A store through a pointer the history does not keep: stops with "may
# have written" by default; skipped with watch-unknown skip.
gdb_watch unknown "break watch.c:108;reverse-continue" "slots[0]" 1
# ... and with watch-unknown skip, not there.
gdb_watch unknown-skip "$skip;break watch.c:108;reverse-continue" "slots[0]" 1
if sed -n '/@@stop rc/,/@@pos/p' "$tmp/unknown.out" | grep -q "may have written" &&
	sed -n '/@@stop rc/,/@@pos/p' "$tmp/unknown.out" | grep -q "stopped\.$" &&
	sed -n '/@@stop rc/,/@@pos/p' "$tmp/unknown.out" | grep -q "^[0-9]*		\*p = 99;"; then
	ok "a store through an unknown address stops with 'may have written'"
else
	tap_log=$tmp/unknown.out bad "a store through an unknown address stops with 'may have written'"
fi
if ! sed -n '/@@stop rc/,/@@pos/p' "$tmp/unknown-skip.out" | grep -q "may have written\|\*p = 99"; then
	ok "set ptrec watch-unknown skip: that store does not stop"
else
	tap_log=$tmp/unknown-skip.out bad "set ptrec watch-unknown skip"
fi

# A load through that pointer (rwatch on both slots, so the truth has it
# whichever the pointer chose): stops with "may have read", at the load
# the truth (WATCHTRUTH_READS: the loads) names, by default and with
# watch-unknown stack (not a stack access); not with skip.
export WATCHTRUTH_READS=1
for m in stop stack; do
	gdb_watch "rd-$m" "set ptrec watch-unknown $m;break watch.c:109;reverse-continue" \
		"slots" 1 "rwatch slots"
	if check_watch "rd-$m" "" "$m" >"$tmp/res" 2>&1 &&
		sed -n '/@@stop rc/,/@@pos/p' "$tmp/rd-$m.out" | grep -q "may have read 16 bytes" &&
		sed -n '/@@stop rc/,/@@pos/p' "$tmp/rd-$m.out" | grep -q "^[0-9]*		sink = \*p;"; then
		ok "a load through an unknown address stops rwatch with 'may have read' (watch-unknown $m): $(tail -1 "$tmp/res")"
	else
		cat "$tmp/rd-$m.out" >>"$tmp/res"
		tap_log=$tmp/res bad "a load through an unknown address stops rwatch (watch-unknown $m)"
	fi
done
unset WATCHTRUTH_READS
gdb_watch rd-skip "$skip;break watch.c:109;reverse-continue" "slots" 1 \
	"rwatch slots"
if ! sed -n '/@@stop rc/,/@@pos/p' "$tmp/rd-skip.out" | grep -q "may have read\|sink = \*p;"; then
	ok "set ptrec watch-unknown skip: that load does not stop rwatch"
else
	tap_log=$tmp/rd-skip.out bad "set ptrec watch-unknown skip: the load"
fi

# Every store of the test programs (and of the two above) against the
# truth: the engine never misses a write the truth shows (a known range
# that covers it, or an unknown address that may hold it) and never names
# a wrong one.  The share of stores with a known address is printed.
for prog in tiny loops indirect signal segv threads fork jmp plt \
	"${BITSPROG:-}" "${CTXPROG:-}"; do
	case $prog in /*) path=$prog; prog=$(basename "$prog") ;;
		*) path=${PROGS:-}/$prog ;; esac
	[ -x "$path" ] || continue
	rm -rf "$tmp/p"
	timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/p" \
		"$path" >/dev/null 2>&1
	if [ -f "$tmp/p/manifest.json" ] &&
		timeout 300 "$WATCHTRUTH" --check "$tmp/p" >"$tmp/res" 2>&1; then
		ok "$prog: every store's address against the truth: $(tail -1 "$tmp/res")"
	else
		tap_log=$tmp/res bad "$prog: stores against the truth"
	fi
done
# ... in windows of 300 and 1000 instructions too (chained and on their
# own: the instruction at a window's boundary was once skipped).
if [ -x "${PROGS:-}/loops" ]; then
	rm -rf "$tmp/p"
	timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/p" \
		"$PROGS/loops" >/dev/null 2>&1
	for blk in 300 1000; do
		if WATCHTRUTH_BLOCK=$blk timeout 300 "$WATCHTRUTH" --check "$tmp/p" \
			>"$tmp/res" 2>&1; then
			ok "loops in windows of $blk: every store's address against the truth: $(tail -1 "$tmp/res")"
		else
			tap_log=$tmp/res bad "loops in windows of $blk: stores against the truth"
		fi
	done
fi
# ... and in windows of 50 (with the demo: three threads, one crashing),
# where these short histories have windows
# beyond the chain and the ramp: with watch-unknown skip an access there
# is secret when nothing the trace shows (conditional branches, indirect
# targets, returns, system calls) depends on its base (watch_dep.c); the
# engine must know none of them.  LIBPROG: tests/bench/libloop, a
# library-heavy program (EVEX string functions, rep stos, write(2)).
for prog in threads indirect signal jmp plt "${DEMO:-}" "${DEPPROG:-}" \
	"${LIBPROG:-}"; do
	case $prog in /*) path=$prog; prog=$(basename "$prog") ;;
		*) path=${PROGS:-}/$prog ;; esac
	[ -x "$path" ] || continue
	rm -rf "$tmp/p"
	timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/p" \
		"$path" >/dev/null 2>&1
	if WATCHTRUTH_BLOCK=50 timeout 300 "$WATCHTRUTH" --check "$tmp/p" \
		>"$tmp/res" 2>&1 &&
		tail -1 "$tmp/res" | grep -q ' [1-9][0-9]* positions secret'; then
		ok "$prog in windows of 50: $(tail -1 "$tmp/res" | sed 's/.*; \([0-9]* positions secret\)/\1/')"
	else
		tap_log=$tmp/res bad "$prog in windows of 50: stores and secret accesses against the truth and the engine"
	fi
done
for b in "$tmp/b" "$tmp/v"; do
	if timeout 300 "$WATCHTRUTH" --check "$b" >"$tmp/res" 2>&1; then
		ok "$(basename "$b"): every store's address against the truth: $(tail -1 "$tmp/res")"
	else
		tap_log=$tmp/res bad "$(basename "$b"): stores against the truth"
	fi
done

# Real Intel PT (libxdc's kAFL traces and DynamoRIO's, imported as
# tests/import/real.sh does): a watch scan's instructions from libipt's
# blocks against the cursor's at every position (watchtruth --blocks).
find_real_pt
if [ -n "$real" ] && [ -d "$real/../libxdc" ]; then
	x=$(cd "$real/../libxdc" && pwd)
	g=$(cd "$real/simple-glibc" && pwd)
	for t in Unzip mruby; do
		xdc_pages "$x/$t" >"$tmp/$t.list"
	done
	printf '%s 0x401000 4096 %d\n' "$g/hello" $((0x86fb1)) >"$tmp/glibc.list"
	for spec in "Unzip|$x/Unzip/trace|$tmp/Unzip.list|6/94/3" \
		"mruby|$x/mruby/trace|$tmp/mruby.list|6/94/3" \
		"simple-glibc|$g/pt.bin@8|$tmp/glibc.list|6/85/4"; do
		name=${spec%%|*} rest=${spec#*|}
		pt=${rest%%|*} rest=${rest#*|}
		list=${rest%%|*} cpu=${rest#*|}
		rm -rf "$tmp/real"
		if "$PTREC" import raw -o "$tmp/real" --pt "$pt" \
			--images "$list" --cpu "$cpu" >/dev/null 2>&1 &&
			"$WATCHTRUTH" --blocks "$tmp/real" >"$tmp/res" 2>&1; then
			ok "$name (real Intel PT): $(tail -1 "$tmp/res")"
		else
			tap_log=$tmp/res bad "$name (real Intel PT): the blocks' instructions against the cursor's"
		fi
	done
else
	echo "# real hardware traces not found (PTREC_TESTDATA): blocks check skipped"
fi

tap_end gdb-watch
