#!/bin/sh
# GDB plugin tests (gdb/plugin/ptrec.py), apart from tests/gdb/run.sh (the
# server's): backtraces through inlined code, and what the plugin runs.
# The truth for a backtrace is GDB's own on the live program.
set -u
: "${PTREC:?}" "${PTREC_SERVER:?}" "${DIFF_BINS:?}" "${PROGS:?}" "${INLCRASH:?}"
testlib_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$testlib_dir/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
tap_begin gdbplugin
tap_log=$tmp/out
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX2,-AVX,-BMI2,-EVEX

# frames: the function names of a backtrace, one line.
frames() {
	sed -n -e 's/^#[0-9]*  <signal handler called>/<signal>/p' \
		-e 's/^#[0-9]*  \(0x[0-9a-f]* in \)\{0,1\}\([A-Za-z_0-9]*\) .*/\2/p' "$1" |
		tr '\n' ' '
}

# Inline frames at -O2: outer is inlined into caller and calls helper,
# which calls leaf.  At leaf's second entry GDB's live backtrace and the
# replay's must name the same frames (the unwinder once indexed the
# recorded stack by GDB's level, which counts inline frames: outer went
# missing and the chain ended early).
prog=$DIFF_BINS/inl-O2
timeout 120 "$PTREC" record -q -o "$tmp/inl" -- "$prog" >/dev/null 2>&1 ||
	bad "recording inl-O2"
timeout 60 gdb -batch -nx -ex "break leaf" -ex run -ex continue -ex bt \
	"$prog" >"$tmp/live" 2>&1
timeout 60 "$PTREC" replay "$tmp/inl" -batch -ex "ptrec goto begin" \
	-ex "break leaf" -ex continue -ex continue -ex "echo BT\\n" -ex bt \
	-ex "up 2" \
	-ex "reverse-finish" -ex "bt 1" >"$tmp/out" 2>&1
want=$(frames "$tmp/live")
sed -n '/^BT/,/^#4 /p' "$tmp/out" >"$tmp/bt"
got=$(frames "$tmp/bt")
if [ "$want" = "leaf helper outer caller main " ] && [ "$got" = "$want" ]; then
	ok "inline frames: backtrace at -O2 as GDB's live one ($got)"
else
	echo "# want '$want' got '$got'"
	bad "inline frames: backtrace at -O2"
fi
# reverse-finish from the inlined frame (outer, #2): back to before
# outer's code: in caller, or at the end of the first inlined copy, with
# one stop shown (each instruction it stepped back over showed as a stop
# of its own: helper, outer's line 23 and the stop twice).
stops=$(sed -n '/^Run back to call of #2/,/^#0  /p' "$tmp/out" |
	grep -c "^\(0x[0-9a-f]* in \)\{0,1\}[A-Za-z_][A-Za-z_0-9]* (.*) at ")
if grep -q "^Run back to call of #2  .*outer" "$tmp/out" && [ "$stops" = 1 ] &&
	grep "^#0  " "$tmp/out" | tail -1 | grep -q "^#0  .* in \(caller (.*inl.c:3[12]\|outer (.*inl.c:25\)$"; then
	ok "reverse-finish from an inlined frame stops in its caller, one stop shown"
else
	echo "# stops shown: $stops"
	bad "reverse-finish from an inlined frame"
fi

# `step` into an inlined function at its first instruction moves nothing:
# GDB only shows one more (inline) frame, so the real frame it built at
# level 0 at the breakpoint is asked for again at level 1, at the same
# position.  The unwinder took that for the next frame out and gave
# caller the frame of main (bt: outer caller __libc_start_call_main).
timeout 60 gdb -batch -nx -ex "break caller" -ex run -ex step -ex bt \
	"$prog" >"$tmp/live" 2>&1
timeout 60 "$PTREC" replay "$tmp/inl" -batch -ex "ptrec goto begin" \
	-ex "break caller" -ex continue -ex step -ex "echo BT\\n" -ex bt \
	>"$tmp/out" 2>&1
want=$(frames "$tmp/live")
sed -n '/^BT/,$p' "$tmp/out" >"$tmp/bt"
got=$(frames "$tmp/bt" | sed 's/0x0000000000000000 $//')
if [ "$want" = "outer caller main " ] && [ "$got" = "$want" ]; then
	ok "step into an inlined function in place: backtrace as GDB's live one ($got)"
else
	echo "# want '$want' got '$got'"
	bad "step into an inlined function in place: backtrace"
fi

# The plugin never runs a program the remote names: a server that says it
# is /tmp/.../evil/ptrec-server must not make `ptrec info` run
# /tmp/.../evil/ptrec (it runs the CLI built or installed with the plugin).
mkdir -p "$tmp/evil"
printf '#!/bin/sh\ntouch %s/ran\n' "$tmp" >"$tmp/evil/ptrec"
chmod +x "$tmp/evil/ptrec"
cat >"$tmp/fake.py" <<PY
import gdb
real = gdb.execute
def fake(cmd, *a, **k):
    if cmd == 'monitor ptrec bundle':
        return 'bundle $tmp/inl\nserver $tmp/evil/ptrec-server\n'
    return real(cmd, *a, **k)
gdb.execute = fake
try:
    real('ptrec info')
finally:
    gdb.execute = real
PY
timeout 60 "$PTREC" replay "$tmp/inl" -batch -ex "source $tmp/fake.py" \
	>"$tmp/out" 2>&1
if [ ! -e "$tmp/ran" ] && grep -q "instructions" "$tmp/out"; then
	ok "ptrec info runs its own CLI, never the path the remote names"
else
	bad "ptrec info ran the remote's program"
fi

# ptrec function-call-history takes its modifiers apart as documented
# (/c /l /i) and together (/cli), with the same output.
timeout 60 "$PTREC" replay "$tmp/inl" -batch \
	-ex "ptrec function-call-history /c /l /i 1,6" >"$tmp/apart" 2>&1
timeout 60 "$PTREC" replay "$tmp/inl" -batch \
	-ex "ptrec function-call-history /cli 1,6" >"$tmp/together" 2>&1
if cmp -s "$tmp/apart" "$tmp/together" &&
	grep -q "^1	  *main	inst 1,[0-9]*	at .*inl.c:[0-9]" "$tmp/apart"; then
	ok "ptrec function-call-history /c /l /i as /cli"
else
	cat "$tmp/apart" >"$tmp/out"
	bad "ptrec function-call-history /c /l /i"
fi

# until LOCATION and advance LOCATION in main put a breakpoint on main's
# caller too, the outermost frame at PC 0: the server refused it and GDB
# aborted ("Cannot insert breakpoint 0").  They stop where GDB's live ones
# do.  finish from the outermost recorded frame of a thread (clone3 under
# a worker's start_thread) is refused as GDB refuses it in the outermost
# frame, and stays where it was.
prog=$PROGS/loops
timeout 120 "$PTREC" record -q -o "$tmp/loops" -- "$prog" >/dev/null 2>&1 ||
	bad "recording loops"
timeout 60 gdb -batch -nx -ex "break main" -ex run -ex "advance 25" \
	-ex "echo U\\n" -ex "kill" -ex run -ex "until 25" "$prog" \
	>"$tmp/live" 2>&1
timeout 60 "$PTREC" replay "$tmp/loops" -batch -ex "ptrec goto begin" \
	-ex "advance 25" -ex "echo U\\n" -ex "ptrec goto begin" \
	-ex "until 25" >"$tmp/out" 2>&1
timeout 120 "$PTREC" record -q -o "$tmp/thrfin" -- "$PROGS/threads" \
	>/dev/null 2>&1 || bad "recording threads"
timeout 60 "$PTREC" replay "$tmp/thrfin" -batch -ex "thread 2" \
	-ex "ptrec position" -ex "up" -ex "echo F\\n" -ex "finish" \
	-ex "ptrec position" >"$tmp/fin" 2>&1
live_adv=$(sed -n '/^U$/q;/^main () at .*loops\.c:25$/p' "$tmp/live")
live_until=$(sed -n '/^U$/,$s/^main () at .*loops\.c:25$/&/p' "$tmp/live")
if [ -n "$live_adv" ] && [ -n "$live_until" ] &&
	sed -n '/^U$/q;p' "$tmp/out" | grep -q "^main () at .*loops\.c:25$" &&
	sed -n '/^U$/,$p' "$tmp/out" | grep -q "^main () at .*loops\.c:25$" &&
	! grep -q "Cannot insert breakpoint" "$tmp/out" &&
	sed -n '/^F$/,$p' "$tmp/fin" |
	grep -q '^"finish" not meaningful in the outermost frame\.$' &&
	[ "$(grep -c "^thread [0-9]* \(position\|at the end\)" "$tmp/fin")" = 2 ] &&
	[ "$(grep "^thread [0-9]* \(position\|at the end\)" "$tmp/fin" |
		uniq | wc -l)" = 1 ]; then
	ok "until/advance LOCATION in main as GDB's live ones; finish refused in a thread's outermost frame"
else
	cat "$tmp/live" "$tmp/fin" >>"$tmp/out"
	bad "until/advance in main, finish in the outermost frame"
fi

# The call history's "at FILE:MIN,MAX" (ptrec calls --lines, GDB's record
# function-call-history /l through the server) follows btrace's rule with
# GDB's own symbols and line tables (tests/gdb/callines.py): the file of
# the function, only lines in it.  Code inlined from a header was counted:
# fflush showed "at ./libio/libioP.h:40,884" (its first line's file, with
# lines of iofflush.c and libioP.h), 36 of loops' 1,376 segments differed.
"$PTREC" calls "$tmp/loops" --insn-range --lines >"$tmp/loops.calls" 2>&1
"$PTREC" insns "$tmp/loops" >"$tmp/loops.insns" 2>&1
CALLS=$tmp/loops.calls INSNS=$tmp/loops.insns timeout 300 "$PTREC" replay \
	"$tmp/loops" -batch -x "$here/callines.py" >"$tmp/out" 2>&1
sum=$(grep "^callines: [0-9]* segments" "$tmp/out")
if echo "$sum" | grep -q "^callines: [0-9]* segments, [1-9][0-9]* with lines, 0 differ$"; then
	ok "call history lines as btrace's rule with GDB's line tables ($sum)"
else
	bad "call history lines differ from btrace's rule ($sum)"
fi

# The plugin's commands refuse bad arguments with GDB's plain error (a
# gdb.error raised from a command printed "Python Exception <class
# 'gdb.error'>: ..." and "Error occurred in Python: ..."), and a modifier
# the history commands do not have, as GDB's record commands do (the
# server ignored it).  The truth for the modifiers is GDB's own record
# command on a live recording (btrace's and full's parser are the same).
timeout 60 "$PTREC" replay "$tmp/inl" -batch -ex "record goto 0" \
	-ex "record goto foo" -ex "record goto" -ex "set var nosuch = 1" \
	-ex "ptrec function-call-history /z" \
	-ex "ptrec instruction-history /z 1,2" -ex "ptrec values --bogus" \
	>"$tmp/out" 2>&1
timeout 60 gdb -batch -nx -ex "break main" -ex run -ex "record full" \
	-ex "stepi" -ex "record function-call-history /z" \
	-ex "record instruction-history /z" "$prog" >"$tmp/live" 2>&1
if ! grep -q "Python Exception\|Error occurred in Python" "$tmp/out" &&
	grep -q "^ptrec goto: no instruction 0: the history has 1 to" "$tmp/out" &&
	grep -q "^ptrec goto: 'foo' is not begin, end" "$tmp/out" &&
	grep -q "^usage: record goto begin|start|end|N" "$tmp/out" &&
	grep -q "^No symbol \"nosuch\" in current context\." "$tmp/out" &&
	[ "$(grep -c "^Invalid modifier: z\.$" "$tmp/live")" = 2 ] &&
	[ "$(grep -c "^Invalid modifier: z\.$" "$tmp/out")" = 2 ] &&
	grep -q "^usage: ptrec values \[--mem ADDR\]" "$tmp/out"; then
	ok "bad arguments: GDB's plain errors, modifiers refused as GDB's record"
else
	cat "$tmp/live" >>"$tmp/out"
	bad "bad arguments to the plugin's commands"
fi

# GDB's own recording is refused on a ptrec target (it was accepted and
# then reverse execution went to GDB's empty log); reverse-stepi still
# moves one instruction back in ptrec's history.  Elsewhere GDB's own
# record full still works with the plugin loaded.
timeout 60 "$PTREC" replay "$tmp/inl" -batch -ex "record full" \
	-ex "record btrace" -ex "record" -ex "info record" \
	-ex "reverse-stepi" -ex "monitor ptrec position" >"$tmp/out" 2>&1
timeout 60 gdb -batch -nx -x "$here/../../gdb/plugin/ptrec.py" \
	-ex "break main" -ex run -ex "record full" -ex "info record" \
	"$prog" >"$tmp/live" 2>&1
if [ "$(grep -c "^record \(full\|btrace\): this is a ptrec replay" "$tmp/out")" = 3 ] &&
	grep -q "^Active record target: ptrec" "$tmp/out" &&
	grep -q "position [0-9]* of" "$tmp/out" &&
	grep -q "^Active record target: record-full" "$tmp/live"; then
	ok "record full/btrace refused on a ptrec target, GDB's own elsewhere"
else
	cat "$tmp/live" >>"$tmp/out"
	bad "record full/btrace on a ptrec target"
fi

# C++ exception caught two frames up: in the catch block the backtrace is
# GDB's live one (the thrower's frames were unwound; the recorded stack
# once kept them: 8 frames instead of outer <- self_contained <- main).
# Same after a longjmp back into main.
for t in "exc-O0 exc.cc:29" "exc-O2 exc.cc:29" "lj-O0 lj.c:29"; do
	set -- $t
	prog=$DIFF_BINS/$1
	timeout 120 "$PTREC" record -q -o "$tmp/$1" -- "$prog" >/dev/null 2>&1
	timeout 60 gdb -batch -nx -ex "break $2" -ex run -ex bt "$prog" \
		>"$tmp/live" 2>&1
	timeout 60 "$PTREC" replay "$tmp/$1" -batch -ex "ptrec goto begin" \
		-ex "break $2" -ex continue -ex "echo BT\\n" -ex bt \
		>"$tmp/out" 2>&1
	want=$(frames "$tmp/live")
	sed -n '/^BT/,$p' "$tmp/out" >"$tmp/bt"
	got=$(frames "$tmp/bt")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "$1: backtrace at $2 after the non-local exit as GDB's live one ($got)"
	else
		echo "# want '$want' got '$got'"
		bad "$1: backtrace at $2 after the non-local exit"
	fi
done

# After main has returned (in exit's atexit handler of libc, here
# _IO_cleanup, or any function exit calls): the frames the longjmp or the
# exception unwound do not come back.  They did: main's return was matched
# to their oldest call, and bt at _exit showed deep/mid or the thrower's
# frames under __libc_start_call_main.  Compared with GDB's live backtrace
# down to __libc_start_call_main (whose caller ptrec did not record: its
# caller shows as GDB's outermost mark 0x0 in ?? (), docs/gdb.md).
for t in exc-O0 lj-O0 lj-O2; do
	prog=$DIFF_BINS/$t
	[ -d "$tmp/$t" ] ||
		timeout 120 "$PTREC" record -q -o "$tmp/$t" -- "$prog" >/dev/null 2>&1
	timeout 60 gdb -batch -nx -ex "set breakpoint pending on" \
		-ex "break _exit" -ex run -ex bt "$prog" \
		>"$tmp/live" 2>&1
	timeout 60 "$PTREC" replay "$tmp/$t" -batch -ex "break _exit" \
		-ex "reverse-continue" -ex "echo BT\\n" -ex bt >"$tmp/out" 2>&1
	want=$(frames "$tmp/live" | sed 's/__libc_start_call_main .*/__libc_start_call_main /')
	sed -n '/^BT/,$p' "$tmp/out" >"$tmp/bt"
	got=$(frames "$tmp/bt" | sed 's/0x0000000000000000 $//')
	case "$want" in
	*__libc_start_call_main\ ) ;;
	*) want="" ;;
	esac
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "$t: after main returned the unwound frames stay gone ($got)"
	else
		echo "# want '$want' got '$got'"
		bad "$t: backtrace after main returned"
	fi
done

# MI: -exec-finish --reverse (an IDE's reverse-finish) answers with a
# *stopped in the caller; it once answered ^done alone and the IDE never
# refreshed.  The stop is the call instruction in helper (leaf's caller).
prog=$DIFF_BINS/inl-O2
printf '%s\n' "-break-insert leaf" "-exec-continue --reverse" \
	"-exec-finish --reverse" "-data-evaluate-expression \$pc" \
	"-gdb-exit" >"$tmp/mi.in"
timeout 60 "$PTREC" replay "$tmp/inl" -i=mi <"$tmp/mi.in" >"$tmp/out" 2>&1
"$PTREC" insns "$tmp/inl" >"$tmp/inl.insns" 2>&1
call=$(grep 'call .*<leaf>' "$tmp/inl.insns" | tail -1 | awk '{print $2}')
if [ "$(grep -c '^\*stopped' "$tmp/out")" = 3 ] &&
	grep '^\*stopped' "$tmp/out" | tail -1 | grep -q 'func="helper"' &&
	[ -n "$call" ] &&
	grep -q "^\^done,value=\"$(printf '0x%x' "$call") <helper+" "$tmp/out"; then
	ok "MI -exec-finish --reverse: *stopped in helper at the call ($call)"
else
	echo "# call '$call'"
	bad "MI -exec-finish --reverse"
fi

# Forward finish is the plugin's on a ptrec target (#17: GDB 13's read an
# unknown rax as 0 into the value history): against live GDB on inl-O2,
# finish from the inlined outer (#1, over helper's return: GDB steps out
# of the inlined call, to the next inlined outer's first instruction),
# then twice more, stopped by breakpoints on the way (helper's, then
# leaf's), then from leaf, which returns 24 to helper.  The same pcs
# (function and offset); a value shown must be live GDB's.
fin_seq() {
	printf '%s\n' -ex "up 1" -ex finish -ex "output \$pc" -ex "echo \\n" \
		-ex "break leaf" -ex finish -ex "output \$pc" -ex "echo \\n" \
		-ex finish -ex "output \$pc" -ex "echo \\n" \
		-ex finish -ex "output \$pc" -ex "echo \\nEND\\n"
}
pcs() { grep -o '<[a-z_]*+*[0-9]*>$' "$1" | tr '\n' ' '; }
val() { sed -n 's/^Value returned is \$[0-9]* = //p' "$1" | tr '\n' ' '; }
fin_seq | tr '\n' '\0' | xargs -0 timeout 60 gdb -batch -nx -ex "break helper" \
	-ex run -ex continue -ex continue "$prog" >"$tmp/live" 2>&1
fin_seq | tr '\n' '\0' | xargs -0 timeout 60 "$PTREC" replay "$tmp/inl" -batch \
	-ex "ptrec goto begin" -ex "break helper" -ex continue -ex continue \
	-ex continue >"$tmp/out" 2>&1
want=$(pcs "$tmp/live")
got=$(pcs "$tmp/out")
if [ "$want" = "<caller+14> <helper> <leaf> <helper+8> " ] && [ "$got" = "$want" ] &&
	grep -q '^Breakpoint 2, leaf' "$tmp/out" && grep -q '^END' "$tmp/out" &&
	{ [ "$(val "$tmp/out")" = "$(val "$tmp/live")" ] ||
	  grep -q '^Value returned is not known here' "$tmp/out"; }; then
	ok "finish from an inlined frame, to a breakpoint on the way, and with a value: live GDB's stops ($got), value '$(val "$tmp/out")'"
else
	echo "# want '$want' ($(val "$tmp/live")) got '$got' ($(val "$tmp/out"))"
	bad "finish from an inlined frame, a breakpoint on the way"
fi

# The plugin's finish against GDB's own on the same replay
# (PTREC_GDB_FINISH=1 keeps GDB's): in tests/programs/threads, finish
# from main's second and third pthread_create with a breakpoint in the
# workers, which another thread hits first (GDB stops there, in that
# thread), then twice more; the same stops (thread, position, frame),
# and where GDB's shows a value (rax known), the same value.
same=0
for sc in "pthread_create 2 pthread_mutex_lock" "pthread_create 3 threads.c:15"; do
	set -- $sc
	set -- -ex "ptrec goto begin" -ex "break $1" $(seq "$2" |
		sed 's/.*/-ex continue/') -ex "break $3"
	for i in 1 2 3; do
		set -- "$@" -ex finish -ex "echo S\\n" -ex "ptrec position" \
			-ex thread -ex frame
	done
	timeout 120 "$PTREC" replay "$tmp/thrfin" -batch "$@" >"$tmp/out" 2>&1
	PTREC_GDB_FINISH=1 timeout 120 "$PTREC" replay "$tmp/thrfin" -batch \
		"$@" >"$tmp/live" 2>&1
	grep -v '^Value returned' "$tmp/out" >"$tmp/out.s"
	grep -v '^Value returned' "$tmp/live" >"$tmp/live.s"
	gv=$(grep '^Value returned is .* = [^<]' "$tmp/live" | cut -d= -f2)
	pv=$(grep '^Value returned is .* = ' "$tmp/out" | cut -d= -f2)
	if cmp -s "$tmp/out.s" "$tmp/live.s" &&
		[ "$(grep -c '^S$' "$tmp/out")" = 3 ] &&
		grep -A1 '^S$' "$tmp/out" | grep -q "^thread $(sed -n \
			's/.*Current thread is [0-9]* (Thread [0-9]*\.\([0-9]*\)).*/\1/p' \
			"$tmp/out" | head -1) position" &&
		{ [ -z "$gv" ] || [ "$gv" = "$pv" ]; }; then
		same=$((same + 1))
	else
		diff "$tmp/live.s" "$tmp/out.s" | head -5 | sed 's/^/# /'
	fi
done
if [ "$same" = 2 ]; then
	ok "finish in threads as GDB's own finish: the same stops (thread, position, frame), breakpoints in other threads on the way"
else
	bad "finish in threads against GDB's own"
fi

# A libc callback at -O2 (qsort's cmp): the backtrace reaches main through
# msort_with_tmp, its inlined copy and qsort_r, as GDB's live one at the
# same (last) call of cmp, less the frame GDB's live unwinder makes up for
# qsort's tail call to qsort_r (qsort jumps; no return address is left).
# It once ended "qsort_r <- 0x0 ??" (inline frames counted as recorded).
prog=$DIFF_BINS/qs-O2
timeout 120 "$PTREC" record -q -o "$tmp/qs" -- "$prog" >/dev/null 2>&1
hits=$("$PTREC" insns "$tmp/qs" | grep -c "<cmp+0>")
timeout 60 gdb -batch -nx -ex "break cmp" -ex "ignore 1 $((hits - 1))" \
	-ex run -ex bt "$prog" >"$tmp/live" 2>&1
timeout 60 "$PTREC" replay "$tmp/qs" -batch -ex "break cmp" \
	-ex reverse-continue -ex "echo BT\\n" -ex bt >"$tmp/out" 2>&1
want=$(frames "$tmp/live" | sed 's/__GI_qsort //')
sed -n '/^BT/,$p' "$tmp/out" >"$tmp/bt"
got=$(frames "$tmp/bt")
if [ "$hits" -gt 0 ] && [ -n "$want" ] && [ "$got" = "$want" ] &&
	[ "${got%main }" != "$got" ]; then
	ok "qsort callback: backtrace reaches main ($got)"
else
	echo "# want '$want' got '$got'"
	bad "qsort callback backtrace"
fi

# Breakpoint conditions: one on a value replay knows is evaluated (x is
# leaf's argument: reverse-continue stops at the hit where it is 1, or,
# were x unknown there, says so); one on memory nothing can know stops
# and the plugin says which condition and why; "$pc == 0" is never true,
# so reverse-continue runs to the beginning.
timeout 60 "$PTREC" replay "$tmp/inl" -batch -ex "break leaf if x == 1" \
	-ex reverse-continue -ex "delete 1" \
	-ex "break helper if *(int *)8 == 1" -ex reverse-continue \
	-ex "delete 2" -ex "break caller if \$pc == 0" \
	-ex reverse-continue -ex "monitor ptrec position" >"$tmp/out" 2>&1
if { grep -q "^Breakpoint 1, leaf (x=1)" "$tmp/out" ||
	grep -q "^ptrec: the condition of breakpoint 1 (x == 1) cannot" "$tmp/out"; } &&
	grep -q "^ptrec: the condition of breakpoint 2 (\*(int \*)8 == 1) cannot be evaluated here: Cannot access memory at address 0x8" "$tmp/out" &&
	grep -q "No more reverse-execution history" "$tmp/out" &&
	grep -q "position 1 of" "$tmp/out"; then
	ok "breakpoint conditions: evaluated where the values are known, the others named"
else
	bad "breakpoint conditions"
fi

# A signal handler entered from raise's system call: in it, the backtrace
# is GDB's live one (work <- on_usr1 <- <signal handler called> <- the
# interrupted frames <- main; it once showed on_usr1 <- main, then lacked
# the signal frame), but for __pthread_kill_internal, a frame live GDB
# makes up for pthread_kill's tail call from DWARF call-site information
# and real registers (docs/gdb.md); and reverse-finish from the handler
# stops at the interrupted system call in libc, the instruction before
# the handler's first.
prog=$DIFF_BINS/sig-O0
timeout 120 "$PTREC" record -q -o "$tmp/sig" -- "$prog" >/dev/null 2>&1
timeout 60 gdb -batch -nx -ex "handle SIGUSR1 nostop noprint" \
	-ex "break work" -ex run -ex bt "$prog" >"$tmp/live" 2>&1
want=$(frames "$tmp/live" | sed 's/__pthread_kill_internal //')
timeout 60 "$PTREC" replay "$tmp/sig" -batch -ex "ptrec goto begin" \
	-ex "break work" -ex continue -ex "echo BT\\n" -ex bt -ex "up" \
	-ex "reverse-finish" -ex "x/i \$pc" -ex "monitor ptrec position" \
	>"$tmp/out" 2>&1
sed -n '/^BT/,/^#6 /p' "$tmp/out" >"$tmp/bt"
got=$(frames "$tmp/bt")
"$PTREC" insns "$tmp/sig" >"$tmp/sig.insns" 2>&1
entry=$(grep "<on_usr1+0>" "$tmp/sig.insns" | head -1 | cut -f1)
pos=$(sed -n 's/.*position \([0-9]*\) of.*/\1/p' "$tmp/out")
if [ "$want" = "work on_usr1 <signal> __pthread_kill_implementation __GI_raise spin main " ] &&
	[ "$got" = "$want" ] &&
	grep -q "^=> .*:	syscall" "$tmp/out" && [ -n "$entry" ] &&
	[ "$pos" = "$((entry - 1))" ]; then
	ok "signal handler: backtrace as GDB's live one, <signal handler called> included; reverse-finish to the interrupted syscall ($pos)"
else
	echo "# want '$want' got '$got' entry '$entry' pos '$pos'"
	bad "signal handler: backtrace and reverse-finish"
fi

# After the handler has returned (spin, after raise): the backtrace is
# spin <- main as GDB's live one; it once ended in 0x0 ?? (the handler's
# return was matched to spin's call).
timeout 60 gdb -batch -nx -ex "handle SIGUSR1 nostop noprint" \
	-ex "break sig.c:25" -ex run -ex bt "$prog" >"$tmp/live" 2>&1
timeout 60 "$PTREC" replay "$tmp/sig" -batch -ex "ptrec goto begin" \
	-ex "break sig.c:25" -ex continue -ex "echo BT\\n" -ex bt \
	>"$tmp/out" 2>&1
want=$(frames "$tmp/live")
sed -n '/^BT/,$p' "$tmp/out" >"$tmp/bt"
got=$(frames "$tmp/bt")
if [ "$want" = "spin main " ] && [ "$got" = "$want" ] &&
	! grep -q "0x0000000000000000 in ??" "$tmp/bt"; then
	ok "after a signal handler returned: backtrace as GDB's live one ($got)"
else
	echo "# want '$want' got '$got'"
	bad "backtrace after a signal handler returned"
fi

# A thread made by pthread_create, before the end of its history: the
# backtrace is GDB's live one, which ends at clone3 (glibc's thread start
# marks rip undefined in its CFI: GDB's outermost frame); it once ended in
# "0x0000000000000000 in ?? ()" after clone3 (the plugin's mark of the
# outermost frame).  In that outermost frame `up` and `finish` say what
# they say live.  At the worker's entry and at its loop's unlock, and in
# main's thread at pthread_join (which ends at main, live and in replay);
# and with clone3 itself as frame 0, at its call of start_thread (a
# breakpoint at libc's offset of that call, found in GDB's disassembly).
prog=$PROGS/threads
thr_libc=$(ldd "$prog" | awk '/libc\.so/ { print $3 }')
thr_call=$(gdb -batch -nx -ex "disassemble clone3" "$thr_libc" 2>/dev/null |
	sed -n 's/.*<+\([0-9]*\)>:	call  *\*%rdx$/\1/p' | head -1)
timeout 120 "$PTREC" record -q -o "$tmp/thr" -- "$prog" >/dev/null 2>&1 ||
	bad "recording threads"
# The last stop at each place in the replay (reverse-continue from the
# end), the first live.  (-ex: GDB goes on after a command's error.)
outer_cmds() {
	set -- -ex "break $1" -ex "$2" -ex "echo BT\\n" -ex bt \
		-ex "echo TOP\\n" -ex "up 100" -ex "echo UP\\n" -ex up \
		-ex "echo FINISH\\n" -ex finish -ex "echo END\\n" -ex delete
	for thr_a in "$@"; do printf '%s\n' "$thr_a"; done
}
: >"$tmp/out"
set --
for thr_b in worker threads.c:15 pthread_join "*(clone3+$thr_call)"; do
	# (word splitting on newlines only: the commands have spaces)
	thr_ifs=$IFS
	IFS='
'
	case $thr_b in
	# Live, libc's address is known once it is loaded.
	"*(clone3"*) set -- "$@" -ex "break pthread_create" -ex run \
		-ex delete $(outer_cmds $thr_b continue) ;;
	*) set -- "$@" $(outer_cmds $thr_b run) ;;
	esac
	timeout 120 "$PTREC" replay "$tmp/thr" -batch \
		$(outer_cmds $thr_b reverse-continue) >>"$tmp/out" 2>&1
	IFS=$thr_ifs
done
timeout 60 gdb -batch -nx "$@" "$prog" >"$tmp/live" 2>&1
# outer FILE N: the Nth stop's frames, and what up and finish said in
# its outermost frame.
outer() {
	awk -v n="$2" '/^BT$/ { k++ } k == n' "$1" >"$tmp/one"
	sed -n '/^BT$/,/^TOP$/p' "$tmp/one" | sed '$d' >"$tmp/bt"
	printf '%s| %s| %s' "$(frames "$tmp/bt")" \
		"$(sed -n '/^UP$/,/^FINISH$/p' "$tmp/one" |
			grep -o "Initial frame selected; you cannot go up")" \
		"$(sed -n '/^FINISH$/,/^END$/p' "$tmp/one" |
			grep -o '"finish" not meaningful in the outermost frame')"
}
thr_miss=0
for thr_k in 1 2 3 4; do
	want=$(outer "$tmp/live" $thr_k)
	got=$(outer "$tmp/out" $thr_k)
	thr_w=clone3
	[ $thr_k -ne 3 ] || thr_w=main
	case $want in
	*"$thr_w | Initial frame selected; you cannot go up| \"finish\" not meaningful in the outermost frame") ;;
	*) thr_miss=$((thr_miss + 1)) ;;
	esac
	[ "$got" = "$want" ] || thr_miss=$((thr_miss + 1))
	echo "# stop $thr_k: live '$want'"
	echo "# stop $thr_k: replay '$got'"
done
if [ $thr_miss -eq 0 ] && ! grep -q "0x0000000000000000 in ??" "$tmp/out" &&
	! grep -q "^Python Exception\|value has been optimized out" "$tmp/out" &&
	[ -n "$thr_call" ] &&
	[ "$(grep -c "^Thread [0-9]* hit Breakpoint" "$tmp/out")" -eq 4 ]; then
	ok "threads before the end: backtraces end at clone3 (workers, clone3 as frame 0 too) and main as GDB's live ones; up and finish in the outermost frame as live"
else
	bad "threads: the outermost frame before the end"
fi

# GDB's record commands answer from the recording on a ptrec target, with
# the output of the plugin's own (btrace layouts); unsupported modifiers
# are refused by name.
timeout 60 "$PTREC" replay "$tmp/inl" -batch -ex "record goto 5" \
	-ex "echo A\\n" -ex "record instruction-history -" \
	-ex "record function-call-history /c 1,3" -ex "echo B\\n" \
	-ex "ptrec instruction-history" -ex "ptrec function-call-history /c 1,3" \
	-ex "echo C\\n" -ex "info record" -ex "record goto start" \
	-ex "monitor ptrec position" -ex "record instruction-history /q" \
	>"$tmp/out" 2>&1
sed -n '/^A$/,/^B$/p' "$tmp/out" | sed '1d;$d' >"$tmp/gdbs"
sed -n '/^B$/,/^C$/p' "$tmp/out" | sed '1d;$d' >"$tmp/ours"
if [ -s "$tmp/gdbs" ] && cmp -s "$tmp/gdbs" "$tmp/ours" &&
	grep -q "^5	=> .*<helper+3>:	call" "$tmp/gdbs" &&
	grep -q "^Replay in progress.  At instruction 5." "$tmp/out" &&
	grep -q "position 1 of" "$tmp/out" &&
	grep -q "^Invalid modifier: q\.$" "$tmp/out"; then
	ok "record goto / instruction-history / function-call-history / info record on a ptrec target"
else
	bad "GDB's record commands on a ptrec target"
fi

# set record instruction-history-size as btrace (GDB 13's record-btrace.c)
# counts: 3 instructions from the replay position, then the 3 before
# them, then the 3 after those.
timeout 60 "$PTREC" replay "$tmp/inl" -batch \
	-ex "set record instruction-history-size 3" -ex "record goto 5" \
	-ex "echo A\\n" -ex "record instruction-history" \
	-ex "record instruction-history -" -ex "record instruction-history +" \
	>"$tmp/out" 2>&1
got=$(sed -n '/^A$/,$p' "$tmp/out" | sed -n 's/^\([0-9]*\)	.*/\1/p' |
	tr '\n' ' ')
if [ "$got" = "5 6 7 2 3 4 5 6 7 " ]; then
	ok "record instruction-history follows set record instruction-history-size ($got)"
else
	echo "# got '$got'"
	bad "record instruction-history-size"
fi

# record instruction-history /s, /f, /p, N,+K and N,-K on -O0 code.  The
# truth for /s is GDB's own "info line *ADDR": btrace prints a source line
# (FILE:LINE and its text) before an instruction that starts a line-table
# entry, unless it is the line printed last.  /f drops <func+off>, /p
# prints one space where the position marker was; N,+K is K from N and
# N,-K is K up to N.
prog=$DIFF_BINS/inl-O0
timeout 120 "$PTREC" record -q -o "$tmp/inl0" -- "$prog" >/dev/null 2>&1 ||
	bad "recording inl-O0"
timeout 60 "$PTREC" replay "$tmp/inl0" -batch -ex "record goto 3" \
	-ex "echo A\\n" -ex "record instruction-history 1,40" \
	-ex "echo B\\n" -ex "record instruction-history /s 1,40" \
	-ex "echo C\\n" -ex "record instruction-history /fp 1,40" \
	-ex "echo D\\n" -ex "record instruction-history 3,+4" \
	-ex "record instruction-history 10,-3" \
	-ex "echo E\\n" >"$tmp/out" 2>&1
part() { sed -n "/^$1\$/,/^$2\$/p" "$tmp/out" | sed '1d;$d'; }
part A B >"$tmp/plain"
part B C >"$tmp/src"
part C D >"$tmp/fp"
rel=$(part D E | sed -n 's/^\([0-9]*\)	.*/\1/p' | tr '\n' ' ')
sed -n 's/^[0-9]*	[ =][ >] \(0x[0-9a-f]*\) .*/info line *\1/p' \
	"$tmp/plain" >"$tmp/lines.gdb"
timeout 60 "$PTREC" replay "$tmp/inl0" -batch -ex "echo A\\n" \
	-x "$tmp/lines.gdb" >"$tmp/info" 2>&1
python3 - "$tmp/plain" "$tmp/info" "$here/diff/inl.c" >"$tmp/want" <<'EOF'
import re, sys
insns = open(sys.argv[1]).read().splitlines()
info = [l for l in open(sys.argv[2]).read().splitlines()
        if l.startswith(('Line ', 'No line'))]
src = open(sys.argv[3]).read().split('\n')
last = None
for insn, line in zip(insns, info):
    addr = int(re.search(r'(0x[0-9a-f]+) ', insn).group(1), 16)
    m = re.match(r'Line (\d+) of "([^"]+)"\s+starts at address (0x[0-9a-f]+)',
                 line)
    if m and int(m.group(3), 16) == addr and (m.group(2), m.group(1)) != last:
        last = (m.group(2), m.group(1))
        print('%s:%s\t%s' % (m.group(2), m.group(1), src[int(m.group(1)) - 1]))
    print(insn)
if len(insns) != len(info):
    print('# %d instructions, %d info lines' % (len(insns), len(info)))
EOF
sed 's/^\([0-9]*\)	[ =][ >] /\1	 /; s/^\([^:]*\) <[^>]*>:/\1:/' \
	"$tmp/plain" >"$tmp/fpwant"
if [ "$(wc -l <"$tmp/plain")" = 40 ] && grep -q "^3	=> " "$tmp/plain" &&
	[ "$(grep -c "^tests/gdb/diff/inl.c:[0-9]*	" "$tmp/src")" -ge 3 ] &&
	cmp -s "$tmp/want" "$tmp/src" && cmp -s "$tmp/fpwant" "$tmp/fp" &&
	[ "$rel" = "3 4 5 6 8 9 10 " ]; then
	ok "record instruction-history /s /f /p N,+K N,-K in btrace's layout"
else
	diff "$tmp/want" "$tmp/src" | head -20
	diff "$tmp/fpwant" "$tmp/fp" | head -5
	echo "# N,+K N,-K: '$rel'"
	bad "record instruction-history /s /f /p N,+K N,-K"
fi

# set record function-call-history-size 2: from the replay position's call
# (main), then + and - continue from the last shown, and - again says
# btrace's "At the start"; N,+K and N,-K as for instructions.
timeout 60 "$PTREC" replay "$tmp/inl0" -batch \
	-ex "set record function-call-history-size 2" -ex "record goto 5" \
	-ex "echo A\\n" -ex "record function-call-history" \
	-ex "record function-call-history +" \
	-ex "record function-call-history -" \
	-ex "record function-call-history -" \
	-ex "record function-call-history 2,+2" \
	-ex "record function-call-history 4,-2" \
	-ex "echo B\\n" -ex "record function-call-history 1,4" \
	-ex "echo C\\n" >"$tmp/out" 2>&1
got=$(part A B | sed -n 's/^\([0-9]*\)	.*/\1/p' | tr '\n' ' ')
part B C >"$tmp/all"
if [ "$got" = "1 2 3 4 1 2 2 3 3 4 " ] &&
	part A B | grep -q "^At the start of the branch trace record\.$" &&
	[ "$(wc -l <"$tmp/all")" = 4 ] &&
	part A B | head -4 | cmp -s - "$tmp/all"; then
	ok "record function-call-history follows set record function-call-history-size ($got)"
else
	echo "# got '$got'"
	bad "record function-call-history-size"
fi

# info record in btrace's layout with the gap count: a byte of inl-O0's
# trace is corrupted so that decoding stops in a gap (as in
# tests/e2e/run.sh).  The truth for instructions and gaps is the CLI's
# `ptrec info`; for functions, the lines `record function-call-history`
# lists; for the thread, GDB's `thread`.
rm -rf "$tmp/gap" && cp -r "$tmp/inl0" "$tmp/gap" && rm -rf "$tmp/gap/index"
python3 - "$tmp"/gap/pt/*.pt <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[90:92] = b'\x06\xff'
open(sys.argv[1], 'wb').write(d)
EOF
"$PTREC" info "$tmp/gap" >"$tmp/cli" 2>&1
want=$(sed -n 's/^  thread [0-9]* (pid [0-9]*): \([0-9]*\) instructions, \([0-9]*\) gaps.*/\1 \2/p' "$tmp/cli")
timeout 60 "$PTREC" replay "$tmp/gap" -batch -ex "record goto 7" \
	-ex "echo A\\n" -ex "info record" -ex "thread" \
	-ex "echo B\\n" -ex "record function-call-history 1,100000" \
	>"$tmp/out" 2>&1
calls=$(sed -n '/^B$/,$p' "$tmp/out" | grep -c "^[0-9]*	")
thr=$(sed -n 's/^\[Current thread is \(.*\)\]$/\1/p' "$tmp/out")
line="Recorded ${want% *} instructions in $calls functions (${want#* } gaps) for thread $thr."
if [ "${want#* }" = 1 ] && [ -n "$thr" ] && [ "$calls" -gt 1 ] &&
	grep -qxF "$line" "$tmp/out" &&
	grep -qx "Replay in progress.  At instruction 7." "$tmp/out"; then
	ok "info record: $line"
else
	echo "# want '$line' (cli: '$want')"
	bad "info record with the gap count"
fi

# The last range shown is per thread, as btrace's: at the end of a
# thread's history no range is its last SIZE, - the SIZE before; thread
# 3's first - starts from its own end, not from thread 1's range.
timeout 120 "$PTREC" record -q -o "$tmp/t" -- "$PROGS/threads" >/dev/null 2>&1 ||
	bad "recording threads"
timeout 120 "$PTREC" replay "$tmp/t" -batch \
	-ex "set record instruction-history-size 3" \
	-ex "monitor ptrec position" -ex "record instruction-history" \
	-ex "record instruction-history -" -ex "thread 3" \
	-ex "monitor ptrec position" -ex "record instruction-history -" \
	-ex "thread 1" -ex "record instruction-history -" >"$tmp/out" 2>&1
ends=$(sed -n 's/.* at the end, after \([0-9]*\).*/\1/p' "$tmp/out")
e1=${ends%%[!0-9]*} e3=${ends##*[!0-9]}
want="$((e1 - 2)) $((e1 - 1)) $e1 $((e1 - 5)) $((e1 - 4)) $((e1 - 3)) \
$((e3 - 2)) $((e3 - 1)) $e3 $((e1 - 8)) $((e1 - 7)) $((e1 - 6)) "
got=$(sed -n 's/^\([0-9]*\)	[ =][ >] 0x.*/\1/p' "$tmp/out" | tr '\n' ' ')
if [ -n "$e1" ] && [ -n "$e3" ] && [ "$e1" != "$e3" ] && [ "$got" = "$want" ]; then
	ok "instruction-history ranges continue per thread ($got)"
else
	echo "# want '$want'"
	echo "# got  '$got'"
	bad "instruction-history ranges per thread"
fi

# /s where the source file cannot be read (libc's, when its sources are
# not installed): GDB's own message, "LINE<tab>FILE: <error>.", the first
# time in a command, then "LINE<tab>in FILE".  The truth is GDB's own
# frame print at the end of the history, where replay starts (skipped
# where libc's sources are installed).
timeout 60 "$PTREC" replay "$tmp/inl0" -batch -ex "echo B\\n" \
	-ex "record instruction-history /s" >"$tmp/out" 2>&1
gdbmsg=$(sed '/^B$/q' "$tmp/out" | sed -n 's/^[0-9]*	\(.*: No such file or directory\.\)$/\1/p' | head -1)
if [ -z "$gdbmsg" ]; then
	ok "instruction-history /s without sources: skipped (libc's sources readable)"
elif sed -n '/^B$/,$p' "$tmp/out" | grep -q "^[0-9]*	$gdbmsg\$"; then
	ok "instruction-history /s without sources as GDB says it ($gdbmsg)"
else
	bad "instruction-history /s without sources ($gdbmsg)"
fi

# A gap inside a history is an entry of its own in GDB's record commands,
# numbered as btrace numbers it, so the numbers after it agree with
# btrace's (they were one lower).  The truth is the CLI's `ptrec insns`
# listing, which prints each gap as a line of its own: its N-th line is
# btrace's number N.  The gap: bytes after the middle PSB of loops's trace
# are corrupted, decoding resyncs at the next PSB.
timeout 120 "$PTREC" record -q --psb-period 256 -o "$tmp/mid" -- \
	"$PROGS/loops" >/dev/null 2>&1
python3 - "$tmp"/mid/pt/*.pt <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
psb = b'\x02\x82' * 8
offs = [i for i in range(len(d)) if d.startswith(psb, i)]
o = offs[len(offs) // 2]
d[o + 40:o + 42] = b'\x06\xff'
open(sys.argv[1], 'wb').write(d)
EOF
rm -rf "$tmp/mid/index"
"$PTREC" insns "$tmp/mid" >"$tmp/mid.insns" 2>&1
# Instructions and gaps only: trace events ([enabled], [disabled]...) are
# lines of the listing but no entries of btrace's numbering.
grep -E '^[0-9]+	|^\[.*, trace offset ' "$tmp/mid.insns" >"$tmp/mid.list"
g=$(grep -n '^\[' "$tmp/mid.list" | head -1 | cut -d: -f1)
lines=$(wc -l <"$tmp/mid.list")
if [ -n "$g" ] && [ "$g" -gt 2 ] && [ "$g" -lt "$lines" ]; then
	timeout 60 "$PTREC" replay "$tmp/mid" -batch \
		-ex "record goto $((g + 1))" -ex "echo A\\n" \
		-ex "record instruction-history $((g - 1)),$((g + 1))" \
		-ex "echo B\\n" -ex "info record" -ex "monitor ptrec position" \
		-ex "record function-call-history /i -" -ex "record goto $g" \
		>"$tmp/out" 2>&1
	sed -n '/^A$/,/^B$/p' "$tmp/out" | sed '1d;$d' | grep '^[0-9]*	' |
		sed 's/^\([0-9]*\)	=> /\1	   /' >"$tmp/got"
	{
		sed -n "$((g - 1))p" "$tmp/mid.list" | sed "s/^[0-9]*/$((g - 1))/"
		sed -n "${g}p" "$tmp/mid.list" | sed "s/^/$g	/"
		sed -n "$((g + 1))p" "$tmp/mid.list" | sed "s/^[0-9]*/$((g + 1))/"
	} >"$tmp/want"
	if cmp -s "$tmp/got" "$tmp/want" &&
		grep -qx "Replay in progress.  At instruction $((g + 1))." "$tmp/out" &&
		grep -q "position $g of" "$tmp/out" &&
		grep -q "^[0-9]*	\[.*\]$" "$tmp/out" &&
		grep -q "	inst $((g + 1)),[0-9]*$" "$tmp/out" &&
		grep -q "^Cannot go to instruction $g: it is a gap" "$tmp/out"; then
		ok "a gap inside the history is numbered as btrace numbers it ($g)"
	else
		diff "$tmp/want" "$tmp/got" | sed 's/^/# /'
		bad "btrace numbering of a gap inside the history"
	fi
else
	bad "no gap inside the history of the corrupted trace (line $g of $lines)"
fi

# A process that called execve ran another program before it: there GDB
# shows that program's symbols (it once showed the last program's, and
# the frames before the execve were "?? ()").  At the execve's entry the
# backtrace is GDB's live one at `break execve`; at the end the new
# program's _start; at the first instruction the old program's main (the
# CLI's `ptrec insns` names the same functions).
prog=$PROGS/exec
timeout 120 "$PTREC" record -q -o "$tmp/exec" -- "$prog" "$PROGS/tiny" \
	>/dev/null 2>&1
timeout 60 gdb -batch -nx -ex "set breakpoint pending on" \
	-ex "break execve" -ex run -ex bt --args "$prog" "$PROGS/tiny" \
	>"$tmp/live" 2>&1
"$PTREC" insns "$tmp/exec" >"$tmp/exec.insns" 2>&1
at=$(grep -m1 "<execve+0>" "$tmp/exec.insns" | cut -f1)
timeout 60 "$PTREC" replay "$tmp/exec" -batch -ex "echo E\\n" -ex bt \
	-ex "ptrec goto $at" -ex "echo X\\n" -ex bt -ex "ptrec goto begin" \
	-ex "echo B\\n" -ex bt >"$tmp/out" 2>&1
want=$(frames "$tmp/live")
got=$(sed -n '/^X$/,/^thread /p' "$tmp/out" >"$tmp/bt"; frames "$tmp/bt" |
	sed 's/0x0000000000000000 $//')
first=$(grep -m1 '^1	' "$tmp/exec.insns" | sed -n 's/.*<\([A-Za-z_0-9]*\)+0>.*/\1/p')
if [ -n "$at" ] && [ "$want" = "__GI_execve __GI_execl main " ] &&
	[ "$got" = "$want" ] && [ "$first" = main ] &&
	sed -n '/^B$/,$p' "$tmp/out" | grep -q "^#0  main (.*exec\.c" &&
	sed -n '/^E$/,/^X$/p' "$tmp/out" | grep -q "^#0  .* in _start ()"; then
	ok "exec: before the execve the old program's symbols, after it the new one's ($got)"
else
	echo "# want '$want' got '$got' first '$first' at '$at'"
	bad "exec: the program before an execve"
fi

# A crash in code inlined into its caller (tests/gdb/inlcrash.c, -O2): at
# the end of the history the frames are the live program's at its SIGSEGV
# and record full's there, and record full's after each reverse-stepi and
# reverse-step back from it, `up` and `finish` included.  Where the
# inlined call's code starts at the faulting instruction GDB hides its
# frame at a stop (the caller is #0 at the call's line), but took the
# connection's stop quietly: the inlined function was #0 at the start of
# the replay (as on a core file) and `up` went to the caller.
# inlframes: each stop's frames, without addresses and arguments.
inlframes() {
	sed -n -e 's/^@$/@/p' \
		-e 's/^\(#[0-9]*\)  \(0x[0-9a-f]* in \)\{0,1\}\([A-Za-z_0-9]*\) (.*) at \(.*\)/\1 \3 \4/p' "$1"
}
steps='-ex bt -ex up -ex down -ex finish -ex bt'
for i in 1 2 3 4; do
	case $i in
	1|2) steps="$steps -ex reverse-stepi -ex bt" ;;
	*) steps="$steps -ex reverse-step -ex bt" ;;
	esac
done
steps=$(echo "$steps" | sed 's/-ex bt/-ex "echo @\\\\n" -ex bt/g')
for args in "" "x" "x y"; do
	name="inlcrash${args:+ $args}"
	rm -rf "$tmp/ic"
	# shellcheck disable=SC2086
	timeout 120 "$PTREC" record -q -o "$tmp/ic" -- "$INLCRASH" $args \
		>/dev/null 2>&1
	rc=$?
	# shellcheck disable=SC2086
	timeout 60 gdb -batch -nx -ex run -ex "echo @\\n" -ex bt -ex up \
		--args "$INLCRASH" $args >"$tmp/live" 2>&1
	eval "timeout 120 gdb -batch -nx -ex 'break main' -ex run \
		-ex 'record full' -ex continue $steps \
		--args \"\$INLCRASH\" $args" >"$tmp/full" 2>&1
	eval "timeout 120 \"\$PTREC\" replay \"\$tmp/ic\" -batch $steps" \
		>"$tmp/out" 2>&1
	inlframes "$tmp/live" >"$tmp/live.f"
	inlframes "$tmp/full" >"$tmp/full.f"
	inlframes "$tmp/out" >"$tmp/out.f"
	# the first stop: bt, then up's frame
	sed -n '2,/^@/p' "$tmp/out.f" | sed '$d' >"$tmp/out.1"
	sed -n '2,$p' "$tmp/live.f" >"$tmp/live.1"
	if [ "$rc" = 139 ] && [ -s "$tmp/live.1" ] &&
		[ "$(grep -c '^@' "$tmp/full.f")" = 6 ] &&
		cmp -s "$tmp/full.f" "$tmp/out.f" &&
		! grep -q "^ptrec goto:" "$tmp/out" &&
		head -n "$(wc -l <"$tmp/live.1")" "$tmp/out.1" |
		cmp -s - "$tmp/live.1"; then
		ok "crash in inlined code ($name): frames as live GDB's and record full's, at the crash and 4 steps back ($(sed -n 2p "$tmp/live.f"))"
	else
		grep "^ptrec goto:" "$tmp/out" | sed 's/^/# /'
		echo "# record exit $rc; live, record full, ptrec:"
		sed 's/^/#  /' "$tmp/live.f"
		diff "$tmp/full.f" "$tmp/out.f" | sed 's/^/# /'
		bad "crash in inlined code ($name): frames differ"
	fi
done

tap_end "GDB plugin"
