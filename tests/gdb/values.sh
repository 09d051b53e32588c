#!/bin/sh
# Values in the past in GDB (#17): tests/gdb/values.c prints every call's
# argument and result ("fact n=N r=R") and ends in a crash.  GDB on its
# recording stops at the printf line by reverse-continue, once per call,
# newest first, and prints n and r there, and the whole backtrace with its
# arguments at the deepest stop.  Every value GDB shows must be what the
# program printed for that call (unavailable is allowed, wrong is not), and
# with PTREC_NO_VALUES=1 they are not.  tests/gdb/valwalk.py then walks
# back through a --ground-truth recording checking every local, argument,
# finish value, frame id and unwound register GDB shows.
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

gdb_values
if check >"$tmp/res" 2>&1; then
	ok "print and bt in the past equal the program's own output: $(tail -1 "$tmp/res")"
else
	bad "wrong values in GDB: $(cat "$tmp/res")"
fi
# The deepest call's backtrace has its six fact frames (their arguments,
# where shown, are the program's own: checked above; the frames' facts
# from gdb/server/frames.c show them, docs/gdb.md).
if [ "$(grep -c '^#[0-5] .*fact (n=' "$tmp/out")" -eq 6 ]; then
	ok "the deepest stop's backtrace has the six recursive frames"
else
	bad "deepest stop: $(grep -E '^#|^\$' "$tmp/out" | tail -8)"
fi

# finish (#17, never a wrong value): GDB 13's own finish read an unknown
# rax as 0 and put that 0 in the value history ("Value returned is $1 =
# <not displayed>", then `p $` printed 0).  Forward from the start, finish
# from line 13 of each of the six fact calls (n = 1..6, returning the r
# the program printed), then `p $`: every value shown and every entry of
# the history (show values) must be a printed r, the one of that call for
# finish's; at least one is known (fact(6)'s 720, rax known at the
# end's crash).  Where each finish stops is live GDB's (the truth for a
# forward finish): the same function and offset of the pc.
fin_cmds() {
	for k in 1 2 3 4 5 6; do
		set -- "$@" -ex continue -ex "echo FIN $k\n" -ex finish \
			-ex "echo PC \n" -ex "output \$pc" -ex "echo \nP\n" \
			-ex "p \$" -ex "echo END\n"
	done
	printf '%s\0' "$@" -ex "echo HIST\n" -ex "show values"
}
fin_cmds -ex "break values.c:13" >"$tmp/fin.args"
xargs -0 timeout 120 "$PTREC" replay "$tmp/b" -batch -ex "ptrec goto begin" \
	<"$tmp/fin.args" >"$tmp/fin" 2>&1
xargs -0 timeout 120 gdb -nx -batch "$PROG" -ex "starti" \
	<"$tmp/fin.args" >"$tmp/fin.live" 2>&1
fincheck() {
	python3 - "$tmp/fin" "$tmp/fin.live" "$tmp/want" <<'PY'
import re, sys
out, live = (open(f).read() for f in sys.argv[1:3])
r = [int(re.search(r'r=(-?\d+)', l).group(1)) for l in open(sys.argv[3])]
want_r = dict(zip(range(1, 7), r))     # printed in call order: n=1..6
bad, shown = [], 0
def blocks(text):
    return {int(m.group(1)): m.group(2) for m in
            re.finditer(r'^FIN (\d)\n(.*?)^END$', text, re.S | re.M)}
got, ref = blocks(out), blocks(live)
for k in range(1, 7):
    b, lb = got.get(k, ''), ref.get(k, '')
    pc = re.search(r'^PC \n.*<(\w+\+\d+)>', b, re.M)
    lpc = re.search(r'^PC \n.*<(\w+\+\d+)>', lb, re.M)
    if not pc or not lpc or pc.group(1) != lpc.group(1):
        bad.append('finish %d stops at %s, live GDB at %s' % (
            k, pc and pc.group(1), lpc and lpc.group(1)))
    v = re.search(r'^Value returned is \$\d+ = (.*)$', b, re.M)
    if v:
        if v.group(1) != str(want_r[k]):
            bad.append('finish %d: Value returned %s, printed %d'
                       % (k, v.group(1), want_r[k]))
        else:
            shown += 1
    elif 'Value returned is not known here' not in b:
        bad.append('finish %d: no value and no word why' % k)
    lv = re.search(r'^Value returned is \$\d+ = (.*)$', lb, re.M)
    if not lv or lv.group(1) != str(want_r[k]):
        bad.append('live GDB finish %d: %s' % (k, lv and lv.group(1)))
    p = re.search(r'^P\n(.*)$', b, re.M)
    if not p or not (p.group(1) == 'The history is empty.' or
                     re.match(r'\$\d+ = (-?\d+)$', p.group(1)) and
                     int(p.group(1).split(' = ')[1]) in r):
        bad.append('finish %d then p $: %s' % (k, p and p.group(1)))
hist = out.split('HIST\n', 1)[-1]
for m in re.finditer(r'^\$(\d+) = (.*)$', hist, re.M):
    if not re.match(r'-?\d+$', m.group(2)) or int(m.group(2)) not in r:
        bad.append('value history $%s = %s: not a value fact returned'
                   % (m.group(1), m.group(2)))
if not shown:
    bad.append('no finish value shown')
print('\n'.join(bad))
print('finish: %d of 6 values shown, each the printed r; %d wrong; '
      'stops as live GDB' % (shown, len(bad)))
sys.exit(1 if bad else 0)
PY
}
if fincheck >"$tmp/res" 2>&1; then
	ok "$(tail -1 "$tmp/res"); p \$ and the history hold no unknown value"
else
	bad "finish and p \$: $(head -8 "$tmp/res")"
fi

# The same through MI (an IDE's -exec-finish): no gdb-result-var for an
# unknown value (it was "\$1" with return-value "<not displayed>", and
# -data-evaluate-expression \$ then said 0), and \$ is a printed r or
# "History is empty".
{
	echo '-interpreter-exec console "ptrec goto begin"'
	echo "-break-insert values.c:13"
	for k in 1 2 3 4 5 6; do
		echo "-exec-continue"
		echo "-exec-finish"
		echo "-data-evaluate-expression \$"
	done
	echo "-gdb-exit"
} >"$tmp/mi.in"
timeout 120 "$PTREC" replay "$tmp/b" -i=mi <"$tmp/mi.in" >"$tmp/mi" 2>&1
micheck() {
	python3 - "$tmp/mi" "$tmp/want" <<'PY'
import re, sys
out = open(sys.argv[1]).read()
r = [int(re.search(r'r=(-?\d+)', l).group(1)) for l in open(sys.argv[2])]
bad = []
stops = re.findall(r'^\*stopped,(.*)$', out, re.M)
fins = [s for s in stops if 'reason=' in s and
        'reason="breakpoint-hit"' not in s]
if len(fins) != 6:
    bad.append('%d finish stops, not 6' % len(fins))
for k, s in enumerate(fins, 1):
    if not re.search(r'func="(fact|main)"', s):
        bad.append('finish %d stopped in %s' % (k, s[:120]))
    m = re.search(r'return-value="([^"]*)"', s)
    if 'gdb-result-var' in s and (not m or m.group(1) != str(r[k - 1])):
        bad.append('finish %d: gdb-result-var with %s' % (k, m and m.group(1)))
vals = re.findall(r'^\^(done,value="[^"]*"|error,msg="[^"]*")$', out, re.M)
evals = [v for v in vals if v.startswith('done,value') or 'istory' in v]
if len(evals) != 6:
    bad.append('%d answers to $, not 6' % len(evals))
known = 0
for v in evals:
    m = re.match(r'done,value="(-?\d+)"', v)
    if m and int(m.group(1)) in r:
        known += 1
    elif 'History is empty' not in v and 'history is empty' not in v:
        bad.append('$ = %s' % v)
print('\n'.join(bad))
print('MI: %d finish stops, $ a printed r %d times; %d wrong'
      % (len(fins), known, len(bad)))
sys.exit(1 if bad else 0)
PY
}
if micheck >"$tmp/res" 2>&1; then
	ok "$(tail -1 "$tmp/res")"
else
	bad "MI -exec-finish: $(head -8 "$tmp/res")"
fi

# Every kind of returned value (tests/gdb/finret.c: integers, char, bool,
# a pointer, __int128, double, float, long double, structures returned in
# rax/rdx, in xmm0/xmm1, in both, and in memory).  `finret K` traps right
# at the K-th call's return address, so finish from that call stops at the
# history's end, where every register is the snapshot's: the value must be
# live GDB's finish's (addresses aside: ASLR), except __int128, whose
# halves GDB 13's own finish reads as 0 (the program prints them).  In the
# recording of all calls (no trap) each finish stops before the end: a
# value shown must be live GDB's too, an unknown one is said and not
# recorded, and `p $` never shows a value not returned.
if [ -n "${FINRET:-}" ]; then
	fns="r_int r_long r_char r_bool r_short r_uchar r_ptr r_i128 r_dbl r_flt r_il r_i3 r_dd r_ff r_ci r_big r_ld"
	"$FINRET" >"$tmp/finret.printed"
	: >"$tmp/finret.res"
	k=0
	set --
	for f in $fns; do
		set -- "$@" -ex "break $f"
		rm -rf "$tmp/fr"
		timeout 120 "$PTREC" record -q -o "$tmp/fr" -- "$FINRET" $k \
			>/dev/null 2>&1
		r=$(timeout 120 "$PTREC" replay "$tmp/fr" -batch \
			-ex "ptrec goto begin" -ex "break $f" -ex continue \
			-ex finish -ex 'p $' 2>&1 | grep -E '^Value returned|^\$2 = ')
		l=$(timeout 60 gdb -nx -batch "$FINRET" -ex "break $f" \
			-ex "run $k" -ex finish 2>&1 | grep '^Value returned')
		printf 'END %s|%s|%s\n' "$f" "$l" "$r" | tr '\n' ' ' \
			>>"$tmp/finret.res"
		echo >>"$tmp/finret.res"
		k=$((k + 1))
	done
	for f in $fns; do
		set -- "$@" -ex continue -ex "echo FIN $f\n" -ex finish \
			-ex "echo P\n" -ex 'p $' -ex "echo END\n"
	done
	rm -rf "$tmp/fr"
	timeout 120 "$PTREC" record -q -o "$tmp/fr" -- "$FINRET" >/dev/null 2>&1
	timeout 120 "$PTREC" replay "$tmp/fr" -batch -ex "ptrec goto begin" \
		"$@" >"$tmp/finret.all" 2>&1
	python3 - "$tmp/finret.res" "$tmp/finret.all" "$tmp/finret.printed" \
		>"$tmp/res" 2>&1 <<'PY'
import re, sys
res, allout, printed = (open(f).read() for f in sys.argv[1:4])
norm = lambda v: re.sub(r'0x[0-9a-f]+ <', '<', v.strip())
hi, lo = (int(x) for x in printed.split()[7:9])
bad, atend, live = [], 0, {}
for line in res.splitlines():
    f, l, r = line[4:].split('|')
    lv = re.search(r'Value returned is \$1 = (.*?)\s*$', l)
    rv = re.search(r'Value returned is \$1 = (.*?)(?= \$2 = |$)', r.strip())
    p = re.search(r'\$2 = (.*?)\s*$', r)
    want = str(hi << 64 | lo) if f == 'r_i128' else lv and lv.group(1)
    live[f] = want
    if not rv or norm(rv.group(1)) != norm(want or '') or \
            not p or norm(p.group(1)) != norm(want):
        bad.append('%s at the end: %r, live GDB %r' % (f, r.strip(), l.strip()))
    else:
        atend += 1
shown = unknown = 0
hist = set()
for m in re.finditer(r'^FIN (\w+)\n(.*?)^END$', allout, re.S | re.M):
    f, b = m.group(1), m.group(2)
    v = re.search(r'^Value returned is \$\d+ = (.*)$', b, re.M)
    if v:
        shown += 1
        hist.add(norm(v.group(1)))
        if norm(v.group(1)) != norm(live[f]):
            bad.append('%s before the end: %s, live GDB %s'
                       % (f, v.group(1), live[f]))
    elif re.search(r'^Value returned is not known here: \w+', b, re.M):
        unknown += 1
    else:
        bad.append('%s before the end: no value, no word why' % f)
    pv = re.search(r'^P\n(.*)$', b, re.M).group(1)
    if pv != 'The history is empty.' and \
            norm(pv.split(' = ', 1)[-1]) not in hist:
        bad.append('%s then p $: %s' % (f, pv))
print('\n'.join(bad))
print('%d of 17 values at the end equal live GDB\'s finish (__int128 the '
      'program\'s); before it %d shown, each live GDB\'s, %d unknown; '
      '%d wrong' % (atend, shown, unknown, len(bad)))
sys.exit(1 if bad or atend != 17 or shown + unknown != 17 else 0)
PY
	if [ $? = 0 ]; then
		ok "finish's values: $(tail -1 "$tmp/res")"
	else
		bad "finish's values: $(head -8 "$tmp/res")"
	fi
fi

# GDB's registers in the past against the ground truth: `record goto` to
# positions 1 to 10^4 instructions before the end, `info registers`;
# every register GDB shows must be the truth's (unavailable is allowed).
if [ -n "${VALCHECK:-}" ]; then
	rm -rf "$tmp/gt"
	timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/gt" -- "$PROG" \
		>/dev/null 2>&1
	end=$("$PTREC" values "$tmp/gt" --at 999999999 2>&1 |
		sed -n 's/.*(\([0-9]*\): its end).*/\1/p')
	set --
	: >"$tmp/truth"
	for d in 1 3 10 30 100 300 1000 3000 10000; do
		at=$((end - d))
		set -- "$@" -ex "record goto $at" -ex "echo AT $at\n" \
			-ex "info registers"
		echo "AT $at" >>"$tmp/truth"
		"$VALCHECK" "$tmp/gt" --truth "$at" >>"$tmp/truth" 2>&1
	done
	timeout 120 "$PTREC" replay "$tmp/gt" -batch "$@" >"$tmp/regs" 2>&1
	if python3 "$testlib_dir/gdb/regcmp.py" "$tmp/regs" "$tmp/truth" \
		--count 17 --need-shown >"$tmp/res" 2>&1
	then
		ok "info registers in the past equals the ground truth: $(tail -1 "$tmp/res")"
	else
		bad "info registers against the ground truth: $(tail -5 "$tmp/res")"
	fi
fi

# Stepping back from the end (tests/gdb/valwalk.py): in every frame of
# every stop, n, r, i and sum against the program's output, finish's
# returned value, and each frame's id (its CFA) and its caller's rsp and
# callee-saved registers against the recorder's ptrace registers just
# before the call.  Nothing shown may be wrong; something must be shown.
if [ -n "${VALCHECK:-}" ] && [ -f "$tmp/gt/manifest.json" ]; then
	timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/gt2" -- \
		"$PROG" >"$tmp/printed.gt" 2>&1
	# With the server's idle prefetch on (tests/lib.sh turns it off):
	# it may only add knowledge, so the checks below are "nothing wrong"
	# and lower bounds.
	env -u PTREC_NO_PREFETCH \
	VALWALK_PRINTED="$tmp/printed.gt" VALWALK_STEPS=150 \
	VALWALK_TRUTH="$VALCHECK $tmp/gt2" timeout 600 "$PTREC" replay \
		"$tmp/gt2" -batch -x "$testlib_dir/gdb/valwalk.py" \
		>"$tmp/walk" 2>&1
	res=$(grep '^valwalk: ' "$tmp/walk")
	if [ -z "$res" ] || grep -q '^WRONG' "$tmp/walk"; then
		bad "values stepping back: $(grep -E '^WRONG|^valwalk|Error|rror' "$tmp/walk" | head -5)"
	elif echo "$res" | grep -q 'wrong 0,' &&
		! echo "$res" | grep -q 'frame ids 0 of' &&
		! echo "$res" | grep -q 'registers 0 of' &&
		! echo "$res" | grep -q 'shown 0 of [0-9]*, wrong 0, finish 0 of'; then
		ok "values stepping back equal the program's and the ground truth: ${res#valwalk: }"
	else
		bad "values stepping back: $res"
	fi
fi

# Deep in the history (3/20 and a third of it, inside the first printf
# calls), where the end's registers do not reach: the frames inside main
# get their CFAs from main's (inward_cfa()), so every frame id is real,
# and GDB's entry value of vfprintf's s, computed from the caller's frame
# base, is the truth's (from a synthetic frame id it was not: 2 wrong
# from 3/20, and no frame id real from either).
if [ -n "${VALCHECK:-}" ] && [ -f "$tmp/gt2/manifest.json" ]; then
	end2=$("$PTREC" values "$tmp/gt2" --at 999999999 2>&1 |
		sed -n 's/.*(\([0-9]*\): its end).*/\1/p')
	for from in $((end2 * 3 / 20)) $((end2 / 3)); do
		VALWALK_FROM=$from VALWALK_STEPS=60 \
		VALWALK_TRUTH="$VALCHECK $tmp/gt2" timeout 600 "$PTREC" replay \
			"$tmp/gt2" -batch -x "$testlib_dir/gdb/valwalk.py" \
			>"$tmp/walk.from" 2>&1
		res=$(grep -o 'valwalk: .*' "$tmp/walk.from")
		if [ -n "$res" ] && ! grep -q '^WRONG' "$tmp/walk.from" &&
			echo "$res" | grep -q 'wrong 0,' &&
			! echo "$res" | grep -q 'frame ids 0 of'; then
			ok "from position $from back: ${res#valwalk: }"
		else
			bad "from position $from back: $(grep -E '^WRONG|valwalk:' "$tmp/walk.from" | head -5)"
		fi
	done
fi

# tests/programs/segv's history ends at the first instruction of crash(),
# which faulted (no frame for it is published): main's CFA comes from
# the end's registers at the call (rsp + 8), so halfway back, inside
# puts, every frame id is real (none was: main was decided at the end
# without one, and kept so).
if [ -n "${VALCHECK:-}" ] && [ -n "${SEGV:-}" ]; then
	rm -rf "$tmp/sg"
	timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/sg" -- "$SEGV" \
		>/dev/null 2>&1
	endsg=$("$PTREC" values "$tmp/sg" --at 999999999 2>&1 |
		sed -n 's/.*(\([0-9]*\): its end).*/\1/p')
	VALWALK_FROM=$((endsg / 2)) VALWALK_STEPS=60 \
	VALWALK_TRUTH="$VALCHECK $tmp/sg" timeout 600 "$PTREC" replay \
		"$tmp/sg" -batch -x "$testlib_dir/gdb/valwalk.py" \
		>"$tmp/walk.sg" 2>&1
	res=$(grep -o 'valwalk: .*' "$tmp/walk.sg")
	if [ -n "$res" ] && ! grep -q '^WRONG' "$tmp/walk.sg" &&
		echo "$res" | grep -q 'wrong 0,' &&
		! echo "$res" | grep -q 'frame ids 0 of'; then
		ok "segv from position $((endsg / 2)) back: ${res#valwalk: }"
	else
		bad "segv from position $((endsg / 2)) back: $(grep -E '^WRONG|valwalk:' "$tmp/walk.sg" | head -5)"
	fi
fi

# The frames' facts to the values engine (docs/gdb.md, "Values in outer
# frames") must make more frame ids real than the history alone
# (PTREC_NO_FACTS=1), with nothing wrong either way: in a recording
# without REGS records (ptrec.ko's, an older ptrec's), where the history
# alone lacks some (with the start's registers it has them all here).
if [ -n "${VALCHECK:-}" ] && [ -f "$tmp/gt2/manifest.json" ]; then
	rm -rf "$tmp/gt2n"
	PTREC_EMU_TEST_NO_REGS=1 timeout 120 "$PTREC" record --ground-truth \
		-q -o "$tmp/gt2n" -- "$PROG" >"$tmp/printed.gtn" 2>&1
	for f in on off; do
		[ $f = off ] && export PTREC_NO_FACTS=1
		VALWALK_PRINTED="$tmp/printed.gtn" VALWALK_STEPS=150 \
		VALWALK_TRUTH="$VALCHECK $tmp/gt2n" timeout 600 "$PTREC" \
			replay "$tmp/gt2n" -batch \
			-x "$testlib_dir/gdb/valwalk.py" >"$tmp/walk.$f" 2>&1
	done
	unset PTREC_NO_FACTS
	cp "$tmp/walk.off" "$tmp/walk.nofacts"
	on=$(sed -n 's/^valwalk: .*frame ids \([0-9]*\) of.*/\1/p' \
		"$tmp/walk.on")
	off=$(sed -n 's/^valwalk: .*frame ids \([0-9]*\) of.*/\1/p' \
		"$tmp/walk.nofacts")
	if [ -n "$on" ] && [ -n "$off" ] && [ "$on" -gt "$off" ] &&
		grep -q '^valwalk: .*wrong 0,' "$tmp/walk.on" &&
		grep -q '^valwalk: .*wrong 0,' "$tmp/walk.nofacts"; then
		ok "the frames' facts: $on real frame ids against $off from the history alone"
	else
		bad "the frames' facts: frame ids $on with, $off without: $(grep -E '^WRONG|^valwalk' "$tmp/walk.nofacts" | head -3)"
	fi
fi

# The same frame checks on qsort with a comparison callback at -O2
# (tests/gdb/diff/qs.c): frames through libc's msort, callee-saved
# registers found through the .eh_frame rules.
if [ -n "${VALCHECK:-}" ] && [ -n "${QSORT:-}" ]; then
	timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/qs" -- \
		"$QSORT" >/dev/null 2>&1
	VALWALK_STEPS=200 VALWALK_TRUTH="$VALCHECK $tmp/qs" timeout 600 \
		"$PTREC" replay "$tmp/qs" -batch \
		-x "$testlib_dir/gdb/valwalk.py" >"$tmp/qswalk" 2>&1
	res=$(grep '^valwalk: ' "$tmp/qswalk")
	if [ -n "$res" ] && ! grep -q '^WRONG' "$tmp/qswalk" &&
		echo "$res" | grep -q 'wrong 0,' &&
		! echo "$res" | grep -q 'frame ids 0 of' &&
		! echo "$res" | grep -q 'registers 0 of'; then
		ok "qsort -O2 stepping back: frame ids and caller registers equal the ground truth: ${res#*shown, }"
	else
		bad "qsort -O2 stepping back: $(grep -E '^WRONG|^valwalk|Error|rror' "$tmp/qswalk" | head -5)"
	fi
fi

# A stop at the bottom of a recursion 1,000 calls deep decides hundreds
# of frames at once: the facts they give the values engine stay within a
# budget per stop (GDB gave up on the reply, "Ignoring packet error",
# when each frame computed its windows again), and what the 500th frame
# shows is its own n.
if [ -n "${DEEP:-}" ]; then
	timeout 120 "$PTREC" record -q -o "$tmp/deep" -- "$DEEP" >/dev/null 2>&1
	timeout 300 "$PTREC" replay "$tmp/deep" -batch \
		-ex "set remotetimeout 60" -ex "break deep.c:13" \
		-ex "reverse-continue" -ex "up 500" -ex "bt -3" \
		>"$tmp/deep.out" 2>&1
	# The published stack holds 511 frames: the 511th is the
	# history's first (main), shown by GDB as down()'s caller.  It is
	# not down()'s: its id must stay synthetic (0x7fef... or 0xfff...:
	# never a 12-digit user address from 0x1... to 0x7ff...), not main's
	# CFA, where n would be read from main's frame.
	if grep -q '^#500 .* down (n=\(500\|<unavailable>\|<error reading variable: Cannot access memory at address 0x[0-9a-f]*>\)) at .*deep.c:16' \
		"$tmp/deep.out" &&
		! grep -q '^#510 .*address 0x[1-7][0-9a-f]\{11\}>' \
			"$tmp/deep.out" &&
		! grep -q 'packet error\|Invalid hex\|Python Exception' \
			"$tmp/deep.out"; then
		ok "a stop 1,000 calls deep: frame 500 $(grep '^#500' "$tmp/deep.out" | grep -o 'n=[^)]*' | tail -1), the cut frame's id synthetic, no protocol error"
	else
		bad "a stop 1,000 calls deep: $(grep -E '^#|rror|Exception' "$tmp/deep.out" | head -5)"
	fi
fi

# A stack smash (tests/gdb/smash.c): the crash's backtrace reads main's
# rbp from the slot victim() overwrote, so main's frame has a CFA of
# 0x4141...; the registers GDB then shows at main's first instructions
# (positions 1 to 20 of the history) must still be the truth's: what a
# debugger unwinds from memory is not a fact about the history.
if [ -n "${VALCHECK:-}" ] && [ -n "${SMASH:-}" ]; then
	rm -rf "$tmp/sm"
	timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/sm" -- "$SMASH" \
		>/dev/null 2>&1
	set -- -ex "bt"
	: >"$tmp/smtruth"
	for at in 1 2 3 5 8 10 12 15 20; do
		set -- "$@" -ex "record goto $at" -ex "echo AT $at\n" \
			-ex "info registers rbp rsp"
		echo "AT $at" >>"$tmp/smtruth"
		"$VALCHECK" "$tmp/sm" --truth "$at" >>"$tmp/smtruth" 2>&1
	done
	timeout 120 "$PTREC" replay "$tmp/sm" -batch "$@" >"$tmp/smregs" 2>&1
	if grep -q '^#1 .* in main ' "$tmp/smregs" &&
		python3 "$testlib_dir/gdb/regcmp.py" "$tmp/smregs" \
			"$tmp/smtruth" --regs rbp,rsp >"$tmp/res" 2>&1
	then
		ok "a smashed saved rbp gives no wrong register in main: $(tail -1 "$tmp/res")"
	else
		bad "stack smash: $(grep -E '^#|WRONG|wrong' "$tmp/smregs" "$tmp/res" | head -6)"
	fi
fi

# Saved registers rewritten after the save (tests/gdb/smashes.c): main's
# rbp saved by mid() is overwritten through a pointer (ptr), then given
# back by mid()'s return (ret), by a signal handler (sig), after a
# longjmp (jmp).  Unwinding through the slot as it is at the position
# showed main's mark as 0x4141414141414141 and main's rbp wrong (the
# heuristic before, 148-163 wrong values per mode); every mark, frame id
# and unwound register GDB shows must be the program's and the truth's.
if [ -n "${VALCHECK:-}" ] && [ -n "${SMASHES:-}" ]; then
	for m in ptr ret sig jmp; do
		rm -rf "$tmp/sx"
		timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/sx" -- \
			"$SMASHES" $m >"$tmp/sx.printed" 2>&1
		VALWALK_PRINTED="$tmp/sx.printed" VALWALK_STEPS=150 \
		VALWALK_TRUTH="$VALCHECK $tmp/sx" timeout 600 "$PTREC" replay \
			"$tmp/sx" -batch -x "$testlib_dir/gdb/valwalk.py" \
			>"$tmp/sx.walk" 2>&1
		res=$(grep '^valwalk: ' "$tmp/sx.walk")
		# ptr, ret and jmp: mid()'s frame is known (its mark shown).
		if [ -n "$res" ] && ! grep -q '^WRONG' "$tmp/sx.walk" &&
			echo "$res" | grep -q 'wrong 0,' &&
			{ [ $m = sig ] ||
			  ! echo "$res" | grep -q 'shown 0 of'; }; then
			ok "smashes $m: nothing wrong through a rewritten slot: ${res#valwalk: }"
		else
			bad "smashes $m: $(grep -E '^WRONG|^valwalk|rror' "$tmp/sx.walk" | head -5)"
		fi
	done
fi

# Values off: nothing recovered (what the registers above came from):
# 3 instructions before the end, rsp is shown with values on only.
if [ -n "${VALCHECK:-}" ] && [ -f "$tmp/gt/manifest.json" ]; then
	for v in on off; do
		if [ $v = off ]; then export PTREC_NO_VALUES=1; fi
		timeout 120 "$PTREC" replay "$tmp/gt" -batch \
			-ex "record goto $((end - 3))" -ex "info registers rsp" \
			>"$tmp/rsp.$v" 2>&1
		unset PTREC_NO_VALUES
	done
	if grep -q '^rsp  *0x' "$tmp/rsp.on" &&
		grep -q '^rsp  *<unavailable>' "$tmp/rsp.off"; then
		ok "with PTREC_NO_VALUES=1 the registers in the past are unavailable"
	else
		bad "PTREC_NO_VALUES=1: $(cat "$tmp/rsp.on" "$tmp/rsp.off" | grep rsp)"
	fi
fi
# `ptrec goto` flushes GDB's stack cache: tests/bench/gdbloop's main()
# keeps i in one stack slot, which the first `bt full` at the end reads
# (i = 101); after a goto back to the 30th call of step(), GDB showed
# that 101 again from its cache instead of the position's 29 (so did
# step's i, where the stack's addresses put it in the same cache line).
# The truth is the number of calls of step() in the trace before it.
if [ -n "${GDBLOOP:-}" ]; then
	timeout 120 "$PTREC" record -q --max-insns 5000 -o "$tmp/loop" -- \
		"$GDBLOOP" >/dev/null 2>&1
	"$PTREC" insns "$tmp/loop" >"$tmp/loop.insns" 2>&1
	# 8 instructions after the 30th call: in leaf(), called by step().
	at=$(grep 'call .*<step>' "$tmp/loop.insns" | sed -n 30p | cut -f1)
	at=$((at + 8))
	timeout 120 "$PTREC" replay "$tmp/loop" -batch -ex "bt full" \
		-ex "ptrec goto $at" -ex "bt full" >"$tmp/goto" 2>&1
	si=$(sed -n 's/.* in step (i=\([0-9]*\)).*/\1/p' "$tmp/goto" | tail -1)
	mi=$(sed -n '/ in main ()/,$s/^ *i = \([0-9]*\)$/\1/p' "$tmp/goto" |
		tail -1)
	if [ "$si" = 29 ] && [ "$mi" = 29 ]; then
		ok "ptrec goto back from the end: main's and step's i are the position's (29), not the end's"
	else
		bad "ptrec goto $at: step's i '$si', main's '$mi', want 29: $(grep -E 'step \(|^ *i = ' "$tmp/goto" | tail -3)"
	fi
fi
tap_end gdb-values
