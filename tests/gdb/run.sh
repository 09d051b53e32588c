#!/bin/sh
# GDB tests: the real GDB drives ptrec-server over a recorded program.
# Positions come from the server's "monitor ptrec position"; what they must
# be comes from the recorded history itself (ptrec insns --format=addr), so
# a breakpoint stop proves which execution of the line it is.
set -u
: "${PTREC:?}" "${PTREC_SERVER:?}" "${PROGS:?}"
testlib_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$testlib_dir/lib.sh"
tap_begin gdb
tap_log=$tmp/out

prog=$PROGS/loops
timeout 120 "$PTREC" record -q -o "$tmp/b" -- "$prog" >/dev/null 2>&1 ||
	{ echo "not ok - recording failed"; exit 1; }
"$PTREC" insns "$tmp/b" --format=addr >"$tmp/addrs"

# gdb_run SCRIPT-LINES...: runs GDB in batch mode against the bundle.
gdb_run() {
	{
		echo "set pagination off"
		echo "set confirm off"
		echo "target remote | $PTREC_SERVER $tmp/b"
		for l in "$@"; do echo "$l"; done
	} >"$tmp/cmds"
	timeout 120 gdb -batch -nx -x "$tmp/cmds" "$prog" >"$tmp/out" 2>&1
}

# Positions reported by the monitor command, in order.
positions() { sed -n 's/.*position \([0-9]*\) of.*/\1/p' "$tmp/out"; }

total=$(wc -l <"$tmp/addrs")

gdb_run "monitor ptrec position" "reverse-stepi" "monitor ptrec position" \
	"reverse-stepi" "monitor ptrec position" "stepi" \
	"monitor ptrec position"
# The process ended inside exit_group, where the end-state snapshot shows
# it (after the syscall instruction, as a core file would): its history
# ends after the CLI's last instruction, that system call (libptrec's
# rp_thread_end(); it ended before it when only the recorder's register
# file, taken at the syscall, decided).
end=$total
if grep -q "at the end, after $end instructions" "$tmp/out" &&
	[ "$(positions | tr '\n' ' ')" = "$end $((end - 1)) $end " ] &&
	grep -q "_exit" "$tmp/out"; then
	ok "reverse-stepi and stepi move one instruction; the end is in _exit"
else
	bad "reverse-stepi/stepi"
fi

gdb_run "break depth" "reverse-continue" "monitor ptrec position" \
	"reverse-continue" "monitor ptrec position" "info registers rip"
bp=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\).*/\1/p' "$tmp/out")
# The last two executions of the breakpoint address, newest first.
want=$(grep -n -x "$bp" "$tmp/addrs" | cut -d: -f1 | tail -2 | sort -rn |
	tr '\n' ' ')
got=$(positions | tr '\n' ' ')
if [ -n "$bp" ] && [ "$got" = "$want" ] &&
	grep -q "Breakpoint 1, depth" "$tmp/out" &&
	grep -q "rip  *$bp" "$tmp/out"; then
	ok "reverse-continue stops at the last, then the previous, execution of depth ($got)"
else
	bad "reverse-continue to a breakpoint (got '$got', want '$want')"
fi

# The plugin's unwinder: backtrace through the recorded calls, and
# reverse-finish back to the call instruction in the caller.
timeout 120 "$PTREC" replay "$tmp/b" -batch -ex "break depth" \
	-ex "reverse-continue" -ex "monitor ptrec position" -ex "bt 4" \
	-ex "reverse-finish" -ex "monitor ptrec position" >"$tmp/out" 2>&1
set -- $(positions)
if [ "$(grep -c '^#[1-3]  0x[0-9a-f]* in depth ' "$tmp/out")" -eq 3 ] &&
	[ "$#" -eq 2 ] && [ "$2" -eq $(($1 - 1)) ] &&
	grep -q "^#0  depth" "$tmp/out"; then
	ok "backtrace shows the recorded recursion; reverse-finish stops at the call ($1 -> $2)"
else
	bad "unwinder: backtrace and reverse-finish"
fi

# The kernel-module recorder's bundle of the same run of loops
# (tests/tools/kmodfeed: the stream /dev/ptrec would deliver, written by
# record/kmod.c, which stores the images itself): GDB stops at the same
# executions of depth, and the backtrace and reverse-finish work there
# too.  It has no register snapshot, so its history ends one instruction
# later (after the exit system call); positions count from the start.
if [ -n "${KMODFEED:-}" ]; then
	rm -rf "$tmp/bk"
	if "$KMODFEED" "$tmp/b" "$tmp/bk" >"$tmp/out" 2>&1; then
		timeout 120 "$PTREC" replay "$tmp/bk" -batch -ex "break depth" \
			-ex "reverse-continue" -ex "monitor ptrec position" \
			-ex "reverse-continue" -ex "monitor ptrec position" \
			-ex "bt 4" -ex "reverse-finish" \
			-ex "monitor ptrec position" >"$tmp/out" 2>&1
		kwant=$(grep -n -x "$bp" "$tmp/addrs" | cut -d: -f1 | tail -2 |
			sort -rn | tr '\n' ' ')
		set -- $(positions)
		if [ "$#" -eq 3 ] && [ "$1 $2 " = "$kwant" ] &&
			[ "$3" -eq $(($2 - 1)) ] &&
			[ "$(grep -c '^#[1-3]  0x[0-9a-f]* in depth ' "$tmp/out")" -eq 3 ]; then
			ok "kmod recorder's bundle: reverse-continue to depth ($1, $2), backtrace, reverse-finish ($3) as in the emu bundle"
		else
			bad "kmod recorder's bundle in GDB (positions '$*', want '$kwant' and one less)"
		fi
	else
		bad "kmodfeed of the loops bundle"
	fi
fi

# The call stack the server publishes for the unwinder, at every 37th
# position, against a plain backward scan of ptrec insns.
"$PTREC" insns "$tmp/b" >"$tmp/b.insns"
STACK_INSNS="$tmp/b.insns" STACK_EVERY=37 timeout 120 "$PTREC" replay \
	"$tmp/b" -batch -x "$(dirname "$0")/stackcheck.py" >"$tmp/out" 2>&1
if grep -q "^stackcheck checked=[1-9][0-9]* bad=0$" "$tmp/out"; then
	ok "call stack for the unwinder matches a plain scan at $(sed -n 's/^stackcheck checked=\([0-9]*\).*/\1/p' "$tmp/out") positions"
else
	bad "call stack for the unwinder"
fi

# History commands in GDB: the same lines as the CLI, current one marked.
timeout 120 "$PTREC" replay "$tmp/b" -batch -ex "break depth" \
	-ex "reverse-continue" -ex "monitor ptrec position" \
	-ex "ptrec instruction-history" -ex "ptrec instruction-history /r 1,3" \
	-ex "ptrec function-call-history /il 1,2" >"$tmp/out" 2>&1
cur=$(positions | head -1)
"$PTREC" insns "$tmp/b" --raw --count 3 >"$tmp/cli-insns"
"$PTREC" calls "$tmp/b" --insn-range --lines | head -2 >"$tmp/cli-calls"
if [ "$(grep -c "^[0-9]*	   0x\|^[0-9]*	=> 0x" "$tmp/out")" -eq 13 ] &&
	grep -q "^$cur	=> 0x" "$tmp/out" &&
	grep -q "^$((cur - 9))	   0x" "$tmp/out" &&
	grep -F -f "$tmp/cli-insns" "$tmp/out" | [ "$(wc -l)" -eq 3 ] &&
	grep -F -f "$tmp/cli-calls" "$tmp/out" | [ "$(wc -l)" -eq 2 ]; then
	ok "ptrec instruction-history and function-call-history in GDB match the CLI"
else
	bad "history commands in GDB"
fi

gdb_run "break depth" "reverse-continue" "reverse-continue" "delete" \
	"continue" "monitor ptrec position"
if grep -q "No more reverse-execution history" "$tmp/out" &&
	grep -q "at the end" "$tmp/out"; then
	ok "continue runs forward to the end of the history"
else
	bad "continue to the end"
fi

gdb_run "monitor ptrec goto begin" "monitor ptrec position" "stepi" \
	"monitor ptrec position" "info registers rip" "reverse-stepi" \
	"reverse-stepi"
first=$(sed -n 2p "$tmp/addrs")
if [ "$(positions | tr '\n' ' ')" = "1 2 " ] &&
	grep -q "rip  *$first" "$tmp/out" &&
	grep -q "No more reverse-execution history" "$tmp/out"; then
	ok "goto begin, stepi forward, reverse-stepi stops at the beginning"
else
	bad "goto begin and stepping from there"
fi

gdb_run "break main" "reverse-continue" "info registers rip" "next" \
	"monitor ptrec position"
if grep -q "Breakpoint 1, main" "$tmp/out" &&
	[ -n "$(positions)" ]; then
	ok "break main, reverse-continue to it, then next forward"
else
	bad "main and next"
fi

# ptrec replay: GDB started on the program, connected, plugin loaded.
timeout 120 "$PTREC" replay "$tmp/b" -batch -ex "ptrec position" \
	-ex "ptrec goto 100" -ex "ptrec position" -ex "ptrec goto begin" \
	-ex "ptrec position" >"$tmp/out" 2>&1
if grep -q "at the end, after $end instructions" "$tmp/out" &&
	[ "$(positions | tr '\n' ' ')" = "100 1 " ] &&
	grep -q "in main () at .*loops.c" "$tmp/out"; then
	ok "ptrec replay: GDB at the end; plugin's ptrec goto and ptrec position"
else
	bad "ptrec replay and the plugin"
fi
"$PTREC" replay "$tmp/none" >"$tmp/out" 2>&1 &&
	bad "ptrec replay of a missing bundle succeeded" ||
	{ grep -q "$tmp/none" "$tmp/out" &&
		ok "ptrec replay of a missing bundle names it" ||
		bad "ptrec replay error message"; }

# ptrec goto refuses what is not an instruction number, and stays put.
gdb_run "monitor ptrec goto 10x" "monitor ptrec goto abc" \
	"monitor ptrec goto" "monitor ptrec goto 99999999999999999999999" \
	"monitor ptrec goto 0" "monitor ptrec goto -1" \
	"monitor ptrec goto $((end + 2))" "monitor ptrec position" \
	"monitor ptrec goto 12" "monitor ptrec position"
if [ "$(grep -c "^ptrec goto: '\(10x\|abc\|\|-1\)' is not begin, end or an instruction number (1 to $((end + 1)))" "$tmp/out")" -eq 4 ] &&
	[ "$(grep -c "^ptrec goto: no instruction \(99999999999999999999999\|0\|$((end + 2))\): the history has 1 to $end" "$tmp/out")" -eq 3 ] &&
	grep -q "at the end, after $end instructions" "$tmp/out" &&
	[ "$(positions)" = 12 ]; then
	ok "monitor ptrec goto refuses junk, 0 and out-of-range numbers, then goes to 12"
else
	bad "monitor ptrec goto argument checks"
fi
cat >"$tmp/goto.py" <<'EOF'
try:
    gdb.execute('ptrec goto 12abc')
except gdb.error as e:
    print('GDB ERROR: %s' % e)
EOF
timeout 120 "$PTREC" replay "$tmp/b" -batch -ex "source $tmp/goto.py" \
	-ex "ptrec position" >"$tmp/out" 2>&1
if grep -q "^GDB ERROR: ptrec goto: '12abc' is not" "$tmp/out" &&
	grep -q "at the end" "$tmp/out"; then
	ok "the plugin's ptrec goto reports the refusal as an error"
else
	bad "plugin ptrec goto error"
fi

# ptrec info and ptrec export inside GDB: the CLI's output and files, run
# on the server's bundle; a relative -o is relative to GDB's directory.
"$PTREC" info "$tmp/b" >"$tmp/cli-info"
"$PTREC" export "$tmp/b" --format=jsonl -o "$tmp/cli.jsonl"
cat >"$tmp/export.py" <<'EOF'
try:
    gdb.execute('ptrec export --format=bogus -o x')
except gdb.error as e:
    print('GDB ERROR: %s' % e)
EOF
(cd "$tmp" && timeout 120 "$PTREC" replay "$tmp/b" -batch -ex "ptrec info" \
	-ex "ptrec export --format=jsonl -o gdb.jsonl" \
	-ex "source $tmp/export.py") >"$tmp/out" 2>&1
if grep -F -x -f "$tmp/cli-info" "$tmp/out" |
	cmp -s - "$tmp/cli-info" && [ -s "$tmp/cli-info" ] &&
	cmp -s "$tmp/cli.jsonl" "$tmp/gdb.jsonl" &&
	grep -q "^GDB ERROR: usage: ptrec export --format=" "$tmp/out"; then
	ok "ptrec info and ptrec export in GDB: the CLI's output and file; bad arguments are an error"
else
	bad "ptrec info / ptrec export in GDB"
fi

# History ranges that are not N, N,M (N <= M), + or - are refused by name,
# as GDB errors in the plugin; a bad --port is refused before listening.
cat >"$tmp/range.py" <<'EOF'
for cmd in ('ptrec instruction-history 10x', 'ptrec instruction-history 5,3',
            'ptrec function-call-history /c abc',
            'ptrec function-call-history 1,99999999999999999999999'):
    try:
        gdb.execute(cmd)
        print('ACCEPTED: ' + cmd)
    except gdb.error as e:
        print('GDB ERROR: %s' % e)
EOF
timeout 120 "$PTREC" replay "$tmp/b" -batch -ex "source $tmp/range.py" \
	>"$tmp/out" 2>&1
"$PTREC_SERVER" "$tmp/b" --port 12x >"$tmp/port.out" 2>&1
pst=$?
if [ "$(grep -c "^GDB ERROR: ptrec instruction-history: '\(10x\|5,3\)' is not a range" "$tmp/out")" = 2 ] &&
	[ "$(grep -c "^GDB ERROR: ptrec function-call-history: '\(abc\|1,99999999999999999999999\)' is not a range" "$tmp/out")" = 2 ] &&
	! grep -q ACCEPTED "$tmp/out" && [ $pst = 2 ] &&
	grep -q "^ptrec-server: --port: '12x' is not a port number" "$tmp/port.out"; then
	ok "bad history ranges and a bad --port are refused, naming them"
else
	cat "$tmp/port.out" >>"$tmp/out"
	bad "history range and --port checks"
fi

# Threads: reverse-continue finds the latest breakpoint hit in any thread,
# by time; the expectation comes from the exported timestamps.
timeout 120 "$PTREC" record -q -o "$tmp/t" -- "$PROGS/threads" >/dev/null 2>&1
"$PTREC" export "$tmp/t" --format=jsonl -o "$tmp/t.jsonl"
timeout 120 "$PTREC" replay "$tmp/t" -batch -ex "info threads" \
	-ex "break worker" -ex "reverse-continue" -ex "monitor ptrec position" \
	-ex "reverse-continue" -ex "monitor ptrec position" >"$tmp/out" 2>&1
bp=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\).*/\1/p' "$tmp/out")
want=$(python3 - "$tmp/t.jsonl" "$bp" <<'PY'
import json, sys
hits = [json.loads(l) for l in open(sys.argv[1])]
hits = [h for h in hits if h['ip'] == sys.argv[2]]
hits.sort(key=lambda h: h['tsc'])
print(' '.join('%d:%d' % (h['tid'], h['n']) for h in reversed(hits[-2:])))
PY
)
got=$(sed -n 's/.*thread \([0-9]*\) position \([0-9]*\) of.*/\1:\2/p' "$tmp/out" |
	tr '\n' ' ' | sed 's/ $//')
if [ "$(grep -c '^[ *] [0-9]  *Thread' "$tmp/out")" -eq 5 ] &&
	[ -n "$bp" ] && [ "$got" = "$want" ] &&
	grep -q "Thread .* hit Breakpoint 1, worker" "$tmp/out"; then
	ok "threads: 5 threads; reverse-continue stops at the latest worker entries in time order ($got)"
else
	echo "# got '$got' want '$want'"
	bad "threads: reverse-continue across threads"
fi

# Each thread keeps its own position: step one back, the others stay.
timeout 120 "$PTREC" replay "$tmp/t" -batch -ex "thread 3" \
	-ex "reverse-stepi" -ex "monitor ptrec position" -ex "thread 1" \
	-ex "monitor ptrec position" -ex "thread 3" -ex "monitor ptrec position" \
	>"$tmp/out" 2>&1
t3=$(sed -n 's/.*thread \([0-9]*\) position.*/\1/p' "$tmp/out" | head -1)
if [ "$(grep -c "thread $t3 position" "$tmp/out")" -eq 2 ] &&
	[ "$(positions | sort -u | wc -l)" -eq 1 ] &&
	grep -q "at the end, after" "$tmp/out" &&
	grep -q "Switching to thread 1" "$tmp/out"; then
	ok "thread N: each thread keeps its own position"
else
	bad "thread switching and positions"
fi

# The CLI and GDB agree on where every history ends (libptrec's
# rp_thread_end(), one rule): at the end, GDB has executed E instructions
# of the thread, the first E that ptrec insns lists; when the thread's
# final registers show it still at its last instruction (a worker's exit
# system call here) GDB is at it, the CLI's last one (E + 1), else after
# the CLI's last (E; main, inside exit_group as the end-state snapshot
# shows it).  One step back, GDB is at the CLI's instruction E.
set --
for i in 1 2 3 4 5; do
	set -- "$@" -ex "thread $i" -ex "p/x \$pc" -ex "monitor ptrec position" \
		-ex "reverse-stepi" -ex "p/x \$pc" -ex "monitor ptrec position"
done
timeout 120 "$PTREC" replay "$tmp/t" -batch "$@" >"$tmp/out" 2>&1
python3 - "$tmp/out" "$PTREC" "$tmp/t" >"$tmp/agree" 2>&1 <<'PY'
import re, subprocess, sys
out = open(sys.argv[1]).read().splitlines()
pcs = [int(m.group(1), 16) for l in out
       for m in [re.match(r'^\$\d+ = (0x[0-9a-f]+)', l)] if m]
pos = [m.groups() for l in out for m in
       [re.match(r'^thread (\d+) (?:at the end, after (\d+)|position (\d+) of)', l)]
       if m]
assert len(pcs) == 10 and len(pos) == 10, (pcs, pos)
seen = set()
for k in range(5):
    (tid, end, _), (tid2, _, back) = pos[2 * k], pos[2 * k + 1]
    assert end and tid == tid2, (tid, tid2, end)
    seen.add(tid)
    addrs = [int(a, 16) for a in subprocess.run(
        [sys.argv[2], 'insns', sys.argv[3], '--thread', tid,
         '--format=addr'], capture_output=True, text=True,
        check=True).stdout.split()]
    e = int(end)
    assert e in (len(addrs) - 1, len(addrs)), (tid, e, len(addrs))
    if e < len(addrs):
        assert pcs[2 * k] == addrs[e], (tid, hex(pcs[2 * k]), hex(addrs[e]))
    else:
        assert pcs[2 * k] not in (addrs[-1],), tid
    assert int(back) == e and pcs[2 * k + 1] == addrs[e - 1], (tid, back)
    print('thread %s: ends at %d of %d' % (tid, e, len(addrs)))
assert len(seen) == 5
PY
if [ $? -eq 0 ]; then
	ok "threads: GDB's end of every thread is where ptrec insns ends ($(grep -c ends "$tmp/agree") threads)"
else
	cat "$tmp/agree" | sed 's/^/# /'
	bad "threads: GDB and the CLI disagree on where a history ends"
fi

# Issue #13 item 7: the plugin's commands act on GDB's selected thread,
# not the one the server last heard of (thread apply sends no Hg).
timeout 120 "$PTREC" replay "$tmp/t" -batch -ex "info threads" \
	-ex "thread apply 2 ptrec position" -ex "thread apply 3 ptrec position" \
	>"$tmp/out" 2>&1
# (GDB names threads PID.TID: the server speaks multiprocess.)
t2=$(sed -n 's/^  2  *Thread \([0-9]*\.\)\{0,1\}\([0-9]*\) .*/\2/p' "$tmp/out")
t3=$(sed -n 's/^  3  *Thread \([0-9]*\.\)\{0,1\}\([0-9]*\) .*/\2/p' "$tmp/out")
got=$(sed -n 's/^thread \([0-9]*\) at the end.*/\1/p' "$tmp/out" | tr '\n' ' ')
if [ -n "$t2" ] && [ -n "$t3" ] && [ "$got" = "$t2 $t3 " ]; then
	ok "thread apply N ptrec position: thread N's ($got)"
else
	bad "thread apply N ptrec position: got '$got', want '$t2 $t3 '"
fi

# Issue #13: with -p the history starts deep in the process.  The frames
# it was called from are known by where their returns land within the
# history: bt at the first instruction reaches main (it once ended in
# "#1 0x0000000000000000 in ?? ()"), and finish there stops where the
# first frame returns (once refused, before that ran to the end).  The
# truth is the CLI's listing: the instruction before the stop is a ret,
# and the stop is in the function bt named as frame 1.
# Where spin is when ptrec attaches is up to the scheduler: in usleep (the
# case under test) or in main's own loop, where main is the first frame
# and finish is refused as GDB refuses it in the outermost frame.  Attach
# again (up to 5 times) until the history starts below main.
tries=0
while :; do
	"$PROGS/spin" >"$tmp/spin.out" &
	spin=$!
	i=0
	while ! grep -q ready "$tmp/spin.out" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rm -rf "$tmp/att"
	timeout 120 "$PTREC" record -q --max-insns 20000 -o "$tmp/att" \
		-p "$spin" >/dev/null 2>&1
	kill "$spin" 2>/dev/null
	wait "$spin" 2>/dev/null
	tries=$((tries + 1))
	"$PTREC" insns "$tmp/att" --count 1 2>/dev/null | grep -q "<main+" ||
		break
	[ $tries -lt 5 ] || break
done
timeout 120 "$PTREC" replay "$tmp/att" -batch -ex "ptrec goto begin" \
	-ex "echo BT\\n" -ex bt -ex "echo F\\n" -ex "finish" \
	-ex "ptrec position" >"$tmp/out" 2>&1
"$PTREC" insns "$tmp/att" >"$tmp/att.insns" 2>&1
at=$(sed -n 's/.*position \([0-9]*\) of.*/\1/p' "$tmp/out")
caller=$(sed -n '/^BT$/,/^F$/s/^#1  0x[0-9a-f]* in \([A-Za-z_0-9]*\) .*/\1/p' "$tmp/out")
if sed -n '/^BT$/,/^F$/p' "$tmp/out" | grep -q "^#[0-9]*  .* in main () at .*spin\.c" &&
	! grep -q "0x0000000000000000 in ??" "$tmp/out" &&
	[ -n "$at" ] && [ -n "$caller" ] &&
	grep "^$((at - 1))	" "$tmp/att.insns" | grep -q "	ret" &&
	sed -n "/^F$/,\$p" "$tmp/out" | grep -q -e "^$caller (" -e " in $caller (" &&
	! grep -q "No more reverse-execution history" "$tmp/out"; then
	ok "-p recording: bt reaches main through the frames called before the history; finish in the first frame stops where it returns ($at, in $caller)"
elif grep -m1 "^1	" "$tmp/att.insns" | grep -q "<main+" &&
	sed -n '/^BT$/,/^F$/p' "$tmp/out" | grep -q "^#0  main () at .*spin\.c" &&
	! sed -n '/^BT$/,/^F$/p' "$tmp/out" | grep -q "^#1 " &&
	grep -q '"finish" not meaningful in the outermost frame' "$tmp/out"; then
	ok "-p recording: $tries attaches all began in main's own loop: bt is main alone, finish refused as in the outermost frame"
else
	echo "# at '$at' caller '$caller'"
	bad "-p recording: callers before the history"
fi

# Issue #13 item 7, dlopen: the library list is the one at GDB's
# position (qXfer:libraries-svr4), so a pending breakpoint on a function
# of a library dlopen'ed and dlclose'd before the end resolves in each
# library in turn: reverse-continue stops in libdlb's dl_value, then in
# libdla's (loaded at the same address), at their last executions.
(cd "$PROGS" && timeout 120 "$PTREC" record -q -o "$tmp/dl" -- ./dl) \
	>/dev/null 2>&1
"$PTREC" export "$tmp/dl" --format=jsonl -o "$tmp/dl.jsonl" 2>/dev/null
timeout 120 "$PTREC" replay "$tmp/dl" -batch \
	-ex "set breakpoint pending on" -ex "break dl_value" \
	-ex "reverse-continue" -ex "ptrec position" -ex "info sharedlibrary" \
	-ex "reverse-continue" -ex "ptrec position" >"$tmp/out" 2>&1
want=$(python3 - "$tmp/dl.jsonl" <<'PY'
import json, sys
hits = [json.loads(l) for l in open(sys.argv[1])]
ent = [h for h in hits if h.get('function') == 'dl_value' and h['offset'] == 0]
print(' '.join(str(h['n']) for h in reversed(ent)))
PY
)
got=$(positions | tr '\n' ' ' | sed 's/ $//')
if [ -n "$want" ] && [ "$got" = "$want" ] &&
	grep -q "^Breakpoint 1, dl_value .* at .*dl_b.c" "$tmp/out" &&
	grep -q "^Breakpoint 1, dl_value .* at .*dl_a.c" "$tmp/out" &&
	grep -q "libdlb.so" "$tmp/out"; then
	ok "dlopen: a pending breakpoint resolves in each library as the list at the position says (libdlb then libdla, $got)"
else
	echo "# got '$got' want '$want'"
	bad "dlopen: breakpoint in dlopen'ed libraries"
fi

# Issue #13 item 4, fork: reverse-continue with the child selected stops
# at the parent's later hit first (time order across processes), then the
# child's; never at the child's first instruction.
timeout 120 "$PTREC" record -q -o "$tmp/f" -- "$PROGS/fork" >/dev/null 2>&1
"$PTREC" export "$tmp/f" --format=jsonl -o "$tmp/f.jsonl" 2>/dev/null
timeout 120 "$PTREC" replay "$tmp/f" -batch -ex "thread 2" -ex "break write" \
	-ex "reverse-continue" -ex "ptrec position" \
	-ex "reverse-continue" -ex "ptrec position" >"$tmp/out" 2>&1
fbp=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\).*/\1/p' "$tmp/out")
want=$(python3 - "$tmp/f.jsonl" "$fbp" <<'PY'
import json, sys
hits = [json.loads(l) for l in open(sys.argv[1])]
hits = [h for h in hits if h['ip'] == sys.argv[2]]
hits.sort(key=lambda h: h['tsc'])
print(' '.join('%d:%d' % (h['tid'], h['n']) for h in reversed(hits[-2:])))
PY
)
got=$(sed -n 's/.*thread \([0-9]*\) position \([0-9]*\) of.*/\1:\2/p' "$tmp/out" |
	tr '\n' ' ' | sed 's/ $//')
if [ -n "$fbp" ] && [ "$got" = "$want" ] &&
	[ "${got%% *}" != "${got##* }" ]; then
	ok "fork: reverse-continue from the child stops at the parent's later write, then the child's ($got)"
else
	echo "# got '$got' want '$want'"
	bad "fork: reverse-continue with the child selected"
fi

# Issue #13 item 7: fork and exec are separate inferiors (multiprocess:
# pPID.TID thread ids, qXfer:exec-file per process, each process's own
# libraries): the child that exec'ed tiny shows tiny and its symbols,
# not a thread of the parent at '?? ()'.
if [ -n "${GDB_FORKEXEC:-}" ]; then
	timeout 120 "$PTREC" record -q -o "$tmp/fe" -- "$GDB_FORKEXEC" \
		"$PROGS/tiny" >/dev/null 2>&1
	timeout 120 "$PTREC" replay "$tmp/fe" -batch -ex "info inferiors" \
		-ex "inferior 2" -ex "bt" -ex "inferior 1" -ex "bt 1" \
		>"$tmp/out" 2>&1
	if grep -q "^ *2 *process [0-9]* .*programs/tiny *$" "$tmp/out" &&
		grep -q "^\* 1 *process [0-9]* .*gdb/forkexec *$" "$tmp/out" &&
		grep -q "^#0  0x[0-9a-f]* in _start ()" "$tmp/out" &&
		grep -q "^#0 .*_exit" "$tmp/out" &&
		! grep -q "in ?? ()" "$tmp/out"; then
		ok "fork+exec: two inferiors, the child with tiny's program and symbols"
	else
		bad "fork+exec: separate inferiors"
	fi
else
	bad "GDB_FORKEXEC not set"
fi

# Issue #15 item 8: qXfer:threads was capped at 8 KB (a real 301-thread
# recording showed 280 threads in GDB).  A crafted bundle of 301 threads
# (tests/gdb/manythreads.py: copies of a recording of tiny) shows all.
timeout 120 "$PTREC" record -q -o "$tmp/tiny" -- "$PROGS/tiny" >/dev/null 2>&1
python3 "$testlib_dir/gdb/manythreads.py" "$tmp/tiny" "$tmp/many" 301
timeout 300 gdb -batch -nx -ex "target remote | $PTREC_SERVER $tmp/many" \
	-ex "info threads" "$PROGS/tiny" >"$tmp/out" 2>&1
nthr=$(grep -c "^[ *] [0-9]*  *Thread " "$tmp/out")
if [ "$nthr" -eq 301 ]; then
	ok "301 threads: GDB lists every one"
else
	bad "301 threads: GDB lists $nthr"
fi

# Issue #13 item 4: repeated reverse-continue over every worker entry
# reaches the start of the whole history (main's first instruction), not
# "No more reverse-execution history" at a thread's clone3; selecting
# thread 1 between stops never moves a thread forward in time (the next
# stop is the next older hit, not the same one again).
timeout 120 "$PTREC" replay "$tmp/t" -batch -ex "break worker" \
	-ex "reverse-continue" -ex "monitor ptrec position" -ex "thread 1" \
	-ex "reverse-continue" -ex "monitor ptrec position" -ex "thread 1" \
	-ex "reverse-continue" -ex "monitor ptrec position" \
	-ex "reverse-continue" -ex "monitor ptrec position" \
	-ex "reverse-continue" -ex "monitor ptrec position" >"$tmp/out" 2>&1
want=$(python3 - "$tmp/t.jsonl" "$bp" <<'PY'
import json, sys
hits = [json.loads(l) for l in open(sys.argv[1])]
first = min(hits, key=lambda h: h['tsc'])
hits = [h for h in hits if h['ip'] == sys.argv[2]]
hits.sort(key=lambda h: h['tsc'])
print(' '.join(['%d:%d' % (h['tid'], h['n']) for h in reversed(hits)] +
               ['%d:%d' % (first['tid'], first['n'])]))
PY
)
got=$(sed -n 's/.*thread \([0-9]*\) position \([0-9]*\) of.*/\1:\2/p' "$tmp/out" |
	tr '\n' ' ' | sed 's/ $//')
if [ -n "$bp" ] && [ "$got" = "$want" ] &&
	[ "$(grep -c 'No more reverse-execution history' "$tmp/out")" -eq 1 ]; then
	ok "threads: reverse-continue visits every worker entry newest first, thread 1 selected between, then the start of main ($got)"
else
	echo "# got '$got' want '$want'"
	bad "threads: reverse-continue to the start of the whole history"
fi

# A breakpoint on a shared-library function (libc's puts).
timeout 120 "$PTREC" record -q --ground-truth -o "$tmp/p" -- "$PROGS/plt" \
	>/dev/null 2>&1
"$PTREC" insns "$tmp/p" --format=addr >"$tmp/p.addrs"
timeout 120 "$PTREC" replay "$tmp/p" -batch -ex "break puts" \
	-ex "reverse-continue" -ex "info registers rip" \
	-ex "monitor ptrec position" >"$tmp/out" 2>&1
rip=$(sed -n 's/^rip  *\(0x[0-9a-f]*\).*/\1/p' "$tmp/out")
if grep -q "Breakpoint 1, .*puts" "$tmp/out" && [ -n "$rip" ] &&
	[ "$(grep -n -x "$rip" "$tmp/p.addrs" | tail -1 | cut -d: -f1)" = \
	  "$(positions)" ]; then
	ok "break puts (libc): reverse-continue stops in the library at its recorded address"
else
	bad "breakpoint in a shared library"
fi

# Unknown values stay unknown: inside libc (puts, frame 0) registers other
# than the PC are <unavailable>; in main (frame 1, unwound) they are <not
# saved>, never the unwinder's synthetic stack addresses (0x7fef...), and
# no argument@entry value is made up from them.  Where main's frame is
# known (its CFA, from the history and the .eh_frame rules: docs/gdb.md,
# "Values in outer frames"), its rsp, rbp and rbx are shown: each must be
# the ground truth's just before the call to puts.
timeout 120 "$PTREC" replay "$tmp/p" -batch -ex "break puts" \
	-ex "reverse-continue" -ex "bt" -ex "info registers rsp rbx" -ex "up" \
	-ex "info registers rip rsp rbp rbx" -ex "monitor ptrec position" \
	>"$tmp/out" 2>&1
at=$(positions)
frame1() {	# what GDB printed after `up` (the last "#1" line)
	awk '/^#1 / { buf = ""; on = 1; next } on { buf = buf $0 "\n" }
		END { printf "%s", buf }' "$tmp/out"
}
ret=$(frame1 | sed -n 's/^rip  *\(0x[0-9a-f]*\) .*/\1/p')
unwound_ok() {	# frame 1's rsp, rbp, rbx: <not saved> or the truth's
	[ -n "$at" ] && [ -n "$ret" ] || return 1
	# Before main's call of puts (5 bytes before the return address;
	# through the lazy binding resolver), the last before the stop.
	"$TRUTHDUMP" --regs "$tmp"/p/truth/*.gt | head -n "$at" |
		awk -v c="$(printf '0x%x' $((ret - 5)))" \
			'$1 == c { want = prev } { prev = $0 } END { print want }' |
		tr ' ' '\n' >"$tmp/p.before"
	frame1 | grep -E '^(rsp|rbp|rbx) ' |
	while read -r reg val _; do
		case $val in '<not') continue ;; esac
		want=$(sed -n "s/^$reg=//p" "$tmp/p.before")
		[ -n "$want" ] && [ $((val)) -eq $((want)) ] || {
			echo "# $reg = $val in main, truth $want"
			return 1
		}
	done
}
if grep -q "^#0  .*puts (str=<unavailable>) at .*ioputs.c" "$tmp/out" &&
	grep -q "^#1  0x[0-9a-f]* in main () at .*plt.c:13" "$tmp/out" &&
	[ "$(grep -c "^rsp  *<unavailable>\|^rbx  *<unavailable>" "$tmp/out")" = 2 ] &&
	[ "$(frame1 | grep -c "^r[sb]p  \|^rbx  ")" = 3 ] &&
	unwound_ok &&
	grep -q "^rip  *0x[0-9a-f]*  *0x[0-9a-f]* <main+" "$tmp/out" &&
	! grep -q "@entry\|^r[sb]p  *0x7fef" "$tmp/out"; then
	ok "libc frame and its caller: backtrace; unknown registers <unavailable> / <not saved>, known ones the ground truth's, no made-up values"
else
	bad "registers and arguments in replay frames"
fi

# A crash: GDB starts where the program died, registers known there.
timeout 120 "$PTREC" record -q -o "$tmp/s" -- "$PROGS/segv" >/dev/null 2>&1
timeout 120 "$PTREC" replay "$tmp/s" -batch -ex "info registers rip" \
	-ex "reverse-stepi" -ex "monitor ptrec position" >"$tmp/out" 2>&1
line=$(grep -n 'volatile int \*)p = 42' "$PROGS/../../../tests/programs/segv.c" |
	cut -d: -f1)
if grep -q "crash (p=0x0.*) at .*segv.c:$line" "$tmp/out" &&
	grep -q "position" "$tmp/out"; then
	ok "segv: replay starts at the faulting store (segv.c:$line), p=0x0"
else
	bad "segv: replay at the crash"
fi

# Issue #13 item 5: the crash is a signal.  At the end GDB reports SIGSEGV
# (stop reply T0b), info program says so, $_siginfo is the recorded one
# (qXfer:siginfo:read: si_signo 11, si_addr 0, the null pointer); stepping
# back onto the fault again reports the signal, not the end of a log.
timeout 120 "$PTREC" replay "$tmp/s" -batch -ex "info program" \
	-ex 'p $_siginfo.si_signo' -ex 'p $_siginfo._sifields._sigfault.si_addr' \
	-ex "reverse-stepi" -ex "stepi" >"$tmp/out" 2>&1
sig=$("$PTREC" dump "$tmp/s" | grep -i 'signal' | head -3)
if grep -q "It stopped with signal SIGSEGV" "$tmp/out" &&
	grep -q '^\$1 = 11$' "$tmp/out" &&
	grep -q '^\$2 = (void \*) 0x0$' "$tmp/out" &&
	grep -q "Program received signal SIGSEGV, Segmentation fault" "$tmp/out" &&
	! grep -q "No more reverse-execution history" "$tmp/out"; then
	ok "segv: the crash is SIGSEGV (info program, \$_siginfo si_signo 11 si_addr 0x0, stepping onto it)"
else
	echo "# sideband: $sig"
	bad "segv: the crash as a signal"
fi

# From the fault, reverse-step goes back to the line that loaded the null
# pointer and passed it: crash(target) in main, at the start of that line
# (the last execution of its first address).
timeout 120 "$PTREC" replay "$tmp/s" -batch -ex "reverse-step" \
	-ex "monitor ptrec position" -ex "info registers rip" >"$tmp/out" 2>&1
line=$(grep -n 'crash(target);' "$PROGS/../../../tests/programs/segv.c" |
	cut -d: -f1)
"$PTREC" insns "$tmp/s" --format=addr >"$tmp/s.addrs"
rip=$(sed -n 's/^rip  *\(0x[0-9a-f]*\) .*/\1/p' "$tmp/out")
if grep -q "^main () at .*segv.c:$line" "$tmp/out" && [ -n "$rip" ] &&
	[ "$(grep -n -x "$rip" "$tmp/s.addrs" | tail -1 | cut -d: -f1)" = \
	  "$(positions)" ]; then
	ok "segv: reverse-step from the fault stops where the bad pointer was passed (segv.c:$line, position $(positions))"
else
	bad "segv: reverse-step from the fault"
fi

# examples/demo: a worker thread dies of SIGSEGV.  Replay starts on that
# thread at the faulting line, backtrace shows how it got there, and
# reverse-step in a multi-threaded recording finishes (regression: GDB
# steps one thread with Hc + bs/bc; hits in other threads once made it
# loop forever).
if [ -n "${DEMO:-}" ]; then
	timeout 120 "$PTREC" record -q -o "$tmp/d" -- "$DEMO" >/dev/null 2>&1
	timeout 60 "$PTREC" replay "$tmp/d" -batch -ex "bt" \
		-ex "reverse-step" -ex "reverse-step" -ex "monitor ptrec position" \
		>"$tmp/out" 2>&1
	st=$?
	if [ $st -eq 0 ] && grep -q "^#0  .* in read_slot .* at .*demo.c:37" "$tmp/out" &&
		grep -q "^#1  .* in worker .* at .*demo.c:45" "$tmp/out" &&
		[ -n "$(positions)" ]; then
		ok "demo crash: starts on the crashing thread in read_slot, backtrace, reverse-step finishes"
	else
		bad "demo crash replay (exit $st)"
	fi

	# Regression: reverse-finish from read_slot ran past worker into
	# start_thread.  Without AT_BASE in the auxv, GDB placed the dynamic
	# linker relative to the PC, took worker's code for the linker's and
	# stepped on back.  It must stop at the call, the last one to
	# read_slot in the crashing thread's history.
	tid=$(sed -n 's/.*thread \([0-9]*\) position.*/\1/p' "$tmp/out" |
		head -1)
	timeout 60 "$PTREC" replay "$tmp/d" -batch -ex "reverse-finish" \
		-ex "monitor ptrec position" -ex "bt 1" >"$tmp/out" 2>&1
	"$PTREC" insns "$tmp/d" --thread "${tid:-0}" >"$tmp/d.insns" 2>&1
	call=$(grep 'call .*<read_slot>' "$tmp/d.insns" | tail -1 | cut -f1)
	if [ -n "$call" ] && [ "$(positions)" = "$call" ] &&
		grep -q "^#0  .* in worker .* at .*demo.c:45" "$tmp/out"; then
		ok "demo: reverse-finish from read_slot stops in worker at the call ($call)"
	else
		bad "demo: reverse-finish from read_slot (call '$call', at '$(positions)')"
	fi
fi

# Line stepping against the ground truth: tests/gdb/linetruth.py says from
# the recorded addresses and the line table where each reverse-step and
# reverse-next must stop (position, function, line), from the last
# execution of line 36 back to the history's beginning; tests/gdb/steps.py
# repeats the command in GDB and prints where it stopped.
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${GDB_LINES:-}" ] && [ -n "${TRUTHDUMP:-}" ]; then
	timeout 120 "$PTREC" record -q --ground-truth -o "$tmp/l" -- \
		"$GDB_LINES" >/dev/null 2>&1
	"$TRUTHDUMP" "$tmp"/l/truth/*.gt >"$tmp/l.truth"
	for m in step next; do
		want=$(python3 "$here/linetruth.py" "$GDB_LINES" "$tmp/l.truth" \
			36 "$m")
		timeout 120 "$PTREC" replay "$tmp/l" -batch \
			-ex "break lines.c:36" -ex "reverse-continue" \
			-ex "set \$cmd = \"reverse-$m\"" \
			-ex "source $here/steps.py" >"$tmp/out" 2>&1
		got=$(sed -n 's/^STOPS //p' "$tmp/out")
		if [ -n "$want" ] && [ "$got" = "$want" ]; then
			ok "reverse-$m: $(echo "$got" | wc -w) stops, each the ground truth's (position:function:line)"
		else
			echo "# want: $want"
			echo "# got:  $got"
			bad "reverse-$m against the ground truth"
		fi
	done
	# Every reverse-next stop is in main: it stepped over the calls.
	if [ -n "$got" ] && [ "$(echo "$got" | tr ' ' '\n' | grep -vc ':main:')" = 0 ]; then
		ok "reverse-next never stops in a callee"
	else
		bad "reverse-next stopped in a callee"
	fi
	# Forward finish from sq: back in main after the call, at the
	# instruction after the call; no made-up return value: the last
	# call is sq(2), which returned 4 (shown where rax is known there).
	timeout 60 "$PTREC" replay "$tmp/l" -batch -ex "break lines.c:12" \
		-ex "reverse-continue" -ex "finish" -ex "monitor ptrec position" \
		-ex "info registers rip" >"$tmp/out" 2>&1
	call=$(python3 "$here/linetruth.py" "$GDB_LINES" "$tmp/l.truth" 12 \
		finish | cut -d: -f1)
	# After the call (a 5-byte direct call): the first execution of the
	# next address after it.
	after=$(printf '0x%x' $(($(sed -n "${call}p" "$tmp/l.truth") + 5)))
	want=$(awk -v c="$call" -v a="$after" 'NR > c && $1 == a { print NR; exit }' \
		"$tmp/l.truth")
	if [ -n "$want" ] && [ "$(positions)" = "$want" ] &&
		grep -q "^rip  *$after " "$tmp/out" &&
		grep -q "^0x0*${after#0x} in main () at .*lines.c:30" "$tmp/out" &&
		grep -q "Value returned is .* = \(<not displayed>\|4\)$" "$tmp/out"; then
		ok "finish from sq returns to main after its call ($want); the return value not shown or sq(2)'s 4"
	else
		bad "forward finish"
	fi
	# ptrec goto begin, then next forward to line 36, against the truth.
	want=$(python3 "$here/linetruth.py" "$GDB_LINES" "$tmp/l.truth" 36 \
		forward-next)
	timeout 120 "$PTREC" replay "$tmp/l" -batch -ex "ptrec goto begin" \
		-ex "set \$cmd = \"next\"" -ex "set \$count = $(echo "$want" | wc -w)" \
		-ex "source $here/steps.py" >"$tmp/out" 2>&1
	got=$(sed -n 's/^STOPS //p' "$tmp/out")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "ptrec goto begin, then next: $(echo "$got" | wc -w) stops, each the ground truth's"
	else
		echo "# want: $want"
		echo "# got:  $got"
		bad "goto begin and next forward against the ground truth"
	fi
	# reverse-finish from sq's return line: at the call in main.
	want=$(python3 "$here/linetruth.py" "$GDB_LINES" "$tmp/l.truth" 12 \
		finish)
	timeout 60 "$PTREC" replay "$tmp/l" -batch -ex "break lines.c:12" \
		-ex "reverse-continue" -ex "reverse-finish" \
		-ex "monitor ptrec position" -ex "frame" >"$tmp/out" 2>&1
	got=$(positions):$(sed -n 's/^#0  .* in \([a-z]*\) () at .*lines.c:\([0-9]*\)$/\1:\2/p' \
		"$tmp/out")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "reverse-finish from sq stops at its call in main ($got)"
	else
		bad "reverse-finish to the call line (got '$got', want '$want')"
	fi
fi

# reverse-finish inside a recursion (the plugin's, from the recorded call
# stack): depth(5) -> depth(4) -> depth(3), which has returned from
# depth(2) and then from depth(0); reverse-finish there must reach the call
# of depth(3) in depth(4), one frame out, where GDB 13's own would stop at
# the call of depth(0) in depth(3).  Forward from the start: the 7th entry
# of depth is depth(0) called by depth(3); finish returns into depth(3).
if [ -n "${GDB_RECURSE:-}" ] &&
	timeout 120 "$PTREC" record -q -o "$tmp/r" -- "$GDB_RECURSE" \
		>/dev/null 2>&1; then
	timeout 60 "$PTREC" replay "$tmp/r" -batch -ex "ptrec goto begin" \
		-ex "break depth" -ex continue -ex continue -ex continue \
		-ex continue -ex continue -ex continue -ex continue \
		-ex "delete" -ex "finish" \
		-ex "echo BEFORE\n" -ex "bt" -ex "reverse-finish" \
		-ex "echo AFTER\n" -ex "bt" -ex "x/i \$pc" >"$tmp/out" 2>&1
	before=$(sed -n '/^BEFORE/,/^AFTER/p' "$tmp/out" | grep -c '^#[0-9].* depth ')
	after=$(sed -n '/^AFTER/,$p' "$tmp/out" | grep -c '^#[0-9].* depth ')
	if [ "$before" = 3 ] && [ "$after" = 2 ] &&
		grep -q '^=> .*call.*<depth>' "$tmp/out" &&
		grep -q '^Run back to call of #0' "$tmp/out"; then
		ok "reverse-finish in a recursion: one frame out, at the call ($before -> $after depth frames)"
	else
		bad "reverse-finish in a recursion ($before -> $after depth frames)"
	fi
else
	bad "recording tests/gdb/recurse"
fi

# Writes: the recorded history cannot be changed.  The server refuses
# G/P/M/X with a reply that says so (E.TEXT, which GDB 13 shows for a
# register: it showed 'E01'), and rax reads the recorded value after.
refusal="the recorded history cannot be changed"
timeout 120 gdb -batch -nx -ex "target remote | $PTREC_SERVER $tmp/b" \
	-ex "reverse-stepi" -ex "print/x \$rax" -ex "set var \$rax = 0x1234567" \
	-ex "print/x \$rax" -ex "monitor ptrec refused" \
	-ex "monitor ptrec refused" "$prog" >"$tmp/out" 2>&1
if grep -q "^Could not write register \"rax\"; remote failure reply 'E.ptrec: $refusal" "$tmp/out" &&
	[ "$(grep -c '^\$[12] = ' "$tmp/out")" = 2 ] &&
	[ "$(sed -n 's/^\$1 = //p' "$tmp/out")" = "$(sed -n 's/^\$2 = //p' "$tmp/out")" ] &&
	grep -q "^refused register 0$" "$tmp/out" &&
	grep -q "^refused nothing$" "$tmp/out"; then
	ok "a register write in the past is refused saying the history cannot be changed; rax unchanged"
else
	bad "a register write in the past: $(grep -i 'rax\|refused\|^\$' "$tmp/out" | head -5)"
fi

# ... and through the plugin, set var says which write was refused, for
# memory too (GDB alone says only "Cannot access memory at address"):
# tests/gdb/lines.c's local y (-O0: on the stack) in the past, at the
# address GDB computes for it, a register, and GDB's own message for
# print; the values read after are the recorded ones; a convenience
# variable can still be set; a function call (at the end, where GDB
# knows the stack to push on) says why it cannot run.
if [ -n "${GDB_LINES:-}" ] && [ -f "$tmp/l/manifest.json" ]; then
	timeout 120 "$PTREC" replay "$tmp/l" -batch -ex "call sq(3)" \
		-ex "break lines.c:12" \
		-ex "reverse-continue" -ex "print &y" -ex "print y" \
		-ex "set var y = 77" -ex "print y" -ex "set var \$rip = 0" \
		-ex "print \$rax = 5" -ex "set var \$mine = 3" \
		-ex "print \$mine" >"$tmp/out" 2>&1
	yaddr=$(sed -n 's/^\$1 = (int \*) \(0x[0-9a-f]*\)$/\1/p' "$tmp/out")
	if [ -n "$yaddr" ] &&
		grep -q "^ptrec: $refusal (refused: writing 4 bytes at $yaddr)" "$tmp/out" &&
		grep -q "^ptrec: $refusal (refused: writing register rip)" "$tmp/out" &&
		grep -q "remote failure reply 'E.ptrec: $refusal" "$tmp/out" &&
		grep -q '^\$2 = [0-9]' "$tmp/out" &&
		[ "$(sed -n 's/^\$2 = //p' "$tmp/out")" = "$(sed -n 's/^\$3 = //p' "$tmp/out")" ] &&
		grep -q '^\$4 = 3$' "$tmp/out" &&
		grep -q "^ptrec: cannot call sq in a replay: .*cannot be changed" "$tmp/out"; then
		ok "set var in the past: y at $yaddr and rip refused, saying the history cannot be changed; y still $(sed -n 's/^\$3 = //p' "$tmp/out"); call sq(3) says why it fails"
	else
		bad "set var in the past: $(grep -i 'refused\|^\$\|cannot' "$tmp/out" | head -6)"
	fi

	# ptrec values in GDB: the CLI's engine at GDB's thread and position
	# (the same instruction, rip GDB's pc), every register it knows
	# whole equal to GDB's, and --why for each unknown one (there may be
	# none: the recorder's REGS records give the start's registers).
	timeout 120 "$PTREC" replay "$tmp/l" -batch -ex "break sq" \
		-ex "reverse-continue" -ex "monitor ptrec position" \
		-ex "info registers" -ex "ptrec values --why" \
		-ex "ptrec values --mem \$rip --len 4" >"$tmp/out" 2>&1
	if python3 - "$tmp/out" <<'PY'
import re, sys
out = open(sys.argv[1]).read()
pos = re.search(r'^thread (\d+) position (\d+) of', out, re.M)
at = re.search(r'^thread (\d+) before instruction (\d+) ', out, re.M)
gdb_regs = dict(re.findall(r'^(r[a-z0-9]+) +(0x[0-9a-f]+) ', out, re.M))
cli = re.findall(r'^(r[a-z0-9]+) +0x([0-9a-f]{16})$', out, re.M)
unknown = re.findall(r'^(r[a-z0-9]+) +unknown$', out, re.M)
why = re.findall(r'^why (r[a-z0-9]+) ', out, re.M)
mem = re.search(r'^0x0*([0-9a-f]+): ([0-9a-f]{2}) ', out, re.M)
ok = (pos and at and pos.groups() == at.groups() and
      dict(cli).get('rip') and int(dict(cli)['rip'], 16) ==
      int(gdb_regs['rip'], 16) and mem and
      int(mem.group(1), 16) == int(gdb_regs['rip'], 16) and
      all(int(v, 16) == int(gdb_regs[r], 16) for r, v in cli
          if r in gdb_regs) and set(why) >= set(unknown))
print('# ptrec values: %d known, %d unknown, %d why' % (len(cli), len(unknown), len(why)))
sys.exit(0 if ok else 1)
PY
	then
		ok "ptrec values in GDB: the CLI's engine at GDB's position, known registers equal to GDB's, why for each unknown one"
	else
		bad "ptrec values in GDB: $(grep -E '^(thread|rip|why r)' "$tmp/out" | head -5)"
	fi

	# The plugin's watch, rwatch and awatch against GDB's own, live (no
	# replay: GDB runs tests/gdb/lvalues.c itself, once with the
	# plugin's commands made as on a ptrec target): the same stops with
	# the same values for bit-fields (-l compares their bits only), a
	# pointer's field, a whole structure, an array element, a condition.
	if cc -O0 -g -o "$tmp/lvalues" "$here/lvalues.c" 2>"$tmp/cc.log"; then
		for w in "watch -l g.b" "watch -l pg->b" "watch -l g" \
			"watch g.b" "watch arr[2]" "rwatch arr[2]" \
			"awatch -l arr[1]" "watch g.n if g.n > 20"; do
			for mode in gdb plugin; do
				set -- -ex "break main" -ex "run"
				[ $mode = plugin ] && set -- -ex "source $here/../../gdb/plugin/ptrec.py" \
					-ex "python _Watch('watch', gdb.WP_WRITE); _Watch('rwatch', gdb.WP_READ); _Watch('awatch', gdb.WP_ACCESS)" "$@"
				timeout 60 gdb -batch -nx "$@" -ex "$w" -ex "continue" \
					-ex "continue" -ex "continue" -ex "continue" \
					-ex "continue" -ex "continue" "$tmp/lvalues" 2>&1 |
					grep -E '^(Old value|New value|Value) = |^[0-9]+\s|exited' |
					sed 's/process [0-9]*/process/' >"$tmp/lv.$mode"
			done
			if [ -s "$tmp/lv.gdb" ] && cmp -s "$tmp/lv.gdb" "$tmp/lv.plugin"; then
				ok "plugin's $w: the same stops and values as GDB's own ($(grep -c 'Value\|New value' "$tmp/lv.gdb") reported)"
			else
				bad "plugin's $w differs from GDB's own: $(diff "$tmp/lv.gdb" "$tmp/lv.plugin" | head -4)"
			fi
		done
	else
		bad "compiling tests/gdb/lvalues.c: $(head -3 "$tmp/cc.log")"
	fi

	# watch where the expression's address is unknown at this
	# position: at main's first instruction i holds what ran before the
	# history (unknown to any sound engine: i is written later), and in
	# a recording without REGS records (ptrec.ko's, an older ptrec's)
	# most registers too, so
	# "watch -l *(char *)(long) i" and a watch through a register shown
	# <unavailable> there say why and what to do, where GDB alone says
	# "Cannot access memory at address" or "value is not available".
	# Without -l GDB sets it, watching i itself: the plugin says so.
	# watch -l s still works there: it stops at main's store of 0.
	rm -rf "$tmp/lnr"
	PTREC_EMU_TEST_NO_REGS=1 timeout 120 "$PTREC" record -q \
		-o "$tmp/lnr" -- "$GDB_LINES" >/dev/null 2>&1
	timeout 120 "$PTREC" replay "$tmp/lnr" -batch -ex "ptrec goto begin" \
		-ex "print &i" -ex "print &s" \
		-ex "watch -l *(char *)(long) i" \
		-ex "python r = [n for n in ('rax', 'rbx', 'rcx', 'rdx', 'rsi', 'rdi', 'r8', 'r12', 'r15') if str(gdb.parse_and_eval('\$' + n)) == '<unavailable>']; print('@@reg', r[0] if r else 'none')" \
		-ex "python exec('try:\\n gdb.execute(\"watch *(long *) \$\" + r[0])\\nexcept (gdb.error, IndexError) as e:\\n print(e)')" \
		-ex "watch *(char *)(long) i" -ex "delete" \
		-ex "watch -l s" -ex "continue" -ex "print s" >"$tmp/out" 2>&1
	iaddr=$(sed -n 's/^\$1 = (int \*) \(0x[0-9a-f]*\)$/\1/p' "$tmp/out")
	saddr=$(sed -n 's/^\$2 = (int \*) \(0x[0-9a-f]*\)$/\1/p' "$tmp/out")
	reg=$(sed -n 's/^@@reg //p' "$tmp/out")
	if [ -n "$iaddr" ] && [ -n "$saddr" ] && [ -n "$reg" ] &&
		[ "$reg" != none ] &&
		grep -q "^ptrec: cannot watch -l \*(char \*)(long) i here (thread [0-9]* instruction 1 of [0-9]*): its address depends on memory at $iaddr whose value is unknown at this position .*Go where the address is known" "$tmp/out" &&
		grep -q "^ptrec: cannot watch \*(long \*) \$$reg here (.*): its address depends on a register whose value is unknown" "$tmp/out" &&
		grep -q "^Hardware watchpoint [0-9]*: \*(char \*)(long) i$" "$tmp/out" &&
		grep -q "^ptrec: the address of \*(char \*)(long) i is not known at this position (it depends on memory at $iaddr, unknown here): GDB watches what it is computed from" "$tmp/out" &&
		grep -q "^Hardware watchpoint [0-9]*: \* (int \*) $saddr$" "$tmp/out" &&
		grep -q "wrote 4 bytes at $saddr" "$tmp/out" &&
		grep -q '^\$3 = 0$' "$tmp/out"; then
		ok "watch at an unknown address in the past says why and what to do (memory at &i, \$$reg; without -l what GDB watches instead); watch -l s still stops at its store"
	else
		bad "watch at an unknown address: $(grep -i 'cannot\|watchpoint\|@@reg\|^\$' "$tmp/out" | head -6)"
	fi
fi

tap_end GDB
