#!/bin/sh
# Values in the past in GDB (#17): tests/gdb/values.c prints every call's
# argument and result ("fact n=N r=R") and ends in a crash.  GDB on its
# recording stops at the printf line by reverse-continue, once per call,
# newest first, and prints n and r there, and the whole backtrace with its
# arguments at the deepest stop.  Every value GDB shows must be what the
# program printed for that call (unavailable is allowed, wrong is not), and
# the deepest call's must be shown; with PTREC_NO_VALUES=1 they are not.
# PTREC_VALUES_UNWIND=1 hands unwinding to GDB where the recovered rbp
# chain shows every recorded caller (print needs GDB's frame bases).
set -u
: "${PTREC:?}" "${PROG:?}"
testlib_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$testlib_dir/lib.sh"
tap_begin gdb-values

timeout 120 "$PTREC" record -q -o "$tmp/b" -- "$PROG" >"$tmp/printed" 2>&1
grep '^fact ' "$tmp/printed" >"$tmp/want"
if [ "$(wc -l <"$tmp/want")" -ne 6 ] || [ ! -f "$tmp/b/manifest.json" ]; then
	bad "recording tests/gdb/values: $(cat "$tmp/printed")"
	tap_end gdb-values
fi

gdb_values() {
	set -- -ex "break values.c:12"
	for k in 1 2 3 4 5 6; do
		set -- "$@" -ex "reverse-continue" -ex "print n" -ex "print r"
	done
	set -- "$@" -ex "bt"
	timeout 120 "$PTREC" replay "$tmp/b" -batch "$@" >"$tmp/out" 2>&1
}

# check: GDB's n and r at stop k (newest first) against the program's
# lines, the bt's arguments against the calls they belong to.
check() {
	python3 - "$tmp/out" "$tmp/want" <<'PY'
import re, sys
out = open(sys.argv[1]).read().splitlines()
want = [tuple(map(int, re.findall(r'=(-?\d+)', l)))
        for l in open(sys.argv[2])][::-1]        # newest first
vals = [l for l in out if re.match(r'^\$\d+ = |^(Cannot|<|value has been)', l)
        or 'not available' in l or 'unavailable' in l]
stops = [l for l in out if l.startswith('Breakpoint 1, fact')]
assert len(stops) == 6, stops
known = wrong = 0
pv = [re.match(r'^\$(\d+) = (-?\d+)$', l) for l in out]
printed = {int(m.group(1)): int(m.group(2)) for m in pv if m}
# $1,$2 = stop 0's n, r; GDB numbers only the values it could print, so
# map each print to its stop by the order of print commands' outputs.
seq = [l for l in out if re.match(r'^(\$\d+ = |Cannot access memory|value is not available|<unavailable>)', l)]
for k in range(6):
    for j, name in enumerate(('n', 'r')):
        if 2 * k + j >= len(seq):
            break
        m = re.match(r'^\$\d+ = (-?\d+)$', seq[2 * k + j])
        if not m:
            continue
        known += 1
        if int(m.group(1)) != want[k][j]:
            wrong += 1
            print('WRONG stop %d %s = %s, program printed %d'
                  % (k, name, m.group(1), want[k][j]))
# the backtrace at the deepest stop: fact (n=N) frames
bt = [int(m.group(1)) for l in out
      for m in [re.match(r'^#\d+ .*fact \(n=(-?\d+)\)', l)] if m]
for i, n in enumerate(bt):
    if n != want[5 - i][0]:
        wrong += 1
        print('WRONG bt frame %d n=%d, program had %d' % (i, n, want[5 - i][0]))
print('known %d of 12 prints, %d backtrace arguments, wrong %d'
      % (known, len(bt), wrong))
sys.exit(1 if wrong else 0)
PY
}

# GDB's own unwinding where the recovered frame chain allows (opt-in).
export PTREC_VALUES_UNWIND=1
gdb_values
if check >"$tmp/res" 2>&1; then
	ok "print and bt in the past equal the program's own output: $(tail -1 "$tmp/res")"
else
	bad "wrong values in GDB: $(cat "$tmp/res")"
fi
# The deepest call (fact(1), r=1) and its callers' arguments are known.
if grep -q '^#0  fact (n=1)' "$tmp/out" &&
	grep -q '^#5 .*fact (n=6)' "$tmp/out"; then
	ok "the deepest stop shows n and every caller's argument"
else
	bad "deepest stop: $(grep -E '^#|^\$' "$tmp/out" | tail -8)"
fi

# Values off: nothing recovered (what the values above came from).
PTREC_NO_VALUES=1 gdb_values
if ! grep -q '^#0  fact (n=1)' "$tmp/out"; then
	ok "with PTREC_NO_VALUES=1 the arguments are not available"
else
	bad "PTREC_NO_VALUES=1 still shows values"
fi
tap_end gdb-values
