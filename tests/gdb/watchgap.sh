#!/bin/sh
# Watchpoints never pass a write silently (#18): what the history does
# not show stops a `watch` with the default watch-unknown stop.
#  - a gap in the trace (tests/gdb/watchjit.S: code generated into an
#    anonymous mapping, whose bytes the recorder does not keep, stores to
#    g): reverse-continue and continue stop at the gap first, saying so;
#    with watch-unknown skip they pass it.  The truth (the recorder's own
#    registers) shows the last store the replay has wrote 1 while the end
#    holds 42: the write GDB cannot see is in the gap.
#  - watchtruth --check on it: every position compared once realigned
#    after the gap (none passed silently), and every gap stops a scan.
#  - a thread's exit(2) (tests/gdb/watchexit.c, glibc's pthread): the
#    kernel clears its clear_child_tid word (struct pthread's tid) after
#    the thread's last instruction, before the end snapshot; no
#    instruction stores there.  The sideband's EXIT_FUTEX record names
#    the word (glibc passes it in clone3's struct clone_args on a stack
#    the engine does not know) and the empty robust list, so a scan of
#    the thread in every mode stops there first, a known write.  GDB:
#    reverse-continue stops at the exit with New value = the worker's tid
#    (the program's), continue with Old value = the tid, New value = 0;
#    both at the thread's end by the truth, naming the system call the
#    truth ends the thread with.
#  - where the history shows the clear_child_tid word
#    (tests/gdb/watchctid.c: raw clone with CLONE_CHILD_CLEARTID and a
#    constant ctid; set_tid_address in the thread; neither registers a
#    robust list) the exit is a known write of those 4 bytes, in every
#    mode, and no stop for any other byte.  The truth: no instruction
#    stores there after main's 1, and the end holds 0.
#  - a thread that exits holding a robust mutex (tests/gdb/watchrobust.c):
#    the kernel's walk of the robust list glibc registered (EXIT_FUTEX
#    names its head and the head's words) reaches the mutex and sets
#    FUTEX_OWNER_DIED in its lock word (the program sees it), which no
#    instruction writes after the worker's lock (the truth).  The engine
#    does not know the word's value before the exit (the worker stored
#    its tid, loaded from fs), so the exit is a write at that known
#    address that may happen: a "may have written" stop, in skip mode
#    too, between the worker's lock and main's, in time order.
#  - a robust list of three entries (tests/gdb/watchrlist.c: a word
#    owned by no thread and a pending word of 0, which the kernel leaves
#    alone, and one holding the thread's TID, which it marks
#    FUTEX_OWNER_DIED), recorded in both orders of main's return from
#    the clone and the thread's life (PTREC_EMU_TEST_CLONE_ORDER,
#    record/emu_late.c; CI met the second once in many runs):
#    main runs on into its futex wait first: the walk starts from
#    EXIT_FUTEX's head words and reaches the first entry's word, a write
#    that may happen, in skip mode too (libc's syscall() passes the
#    futex number in a register, a call that may have set up
#    asynchronous I/O for all the engine sees, replay/rcv_aio.c: no
#    other task's write is ordered in time, shared memory not known at
#    the exit); the first entry's next pointer is not known either, so
#    the rest of the walk is a write of unknown address: the other words
#    stop with stop, not with skip.  Main still inside its clone when
#    the thread has exited: it never calls futex, its writes are ordered
#    (rcv_xthr.c: its clone, in flight all through the thread's life,
#    writes none of the words), so the engine knows every word at the
#    exit and follows the walk to its end:
#    the words the kernel leaves are passed (no stop at the exit in any
#    mode, an rwatch stops there), the owned one is a known write, old
#    value the TID, new FUTEX_OWNER_DIED.  The truth: the thread's one
#    store to each word, the first two unchanged at the end, the third
#    OWNER_DIED (no write missed, no value wrong).  With the thread's
#    EXIT_FUTEX emptied, every list word stops stop mode at the exit.
#  - self-modifying code in a file-backed text page (tests/gdb/watchsmc.S,
#    a known limit: the replay decodes the file's bytes there): watchtruth
#    --check is not blind to it, it names the rewritten instruction.
set -u
: "${PTREC:?}" "${WATCHTRUTH:?}" "${JITPROG:?}" "${EXITPROG:?}" "${CTIDPROG:?}"
: "${ROBUSTPROG:?}" "${RLISTPROG:?}"
testlib_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$testlib_dir/lib.sh"
. "$testlib_dir/gdb/watchlib.sh"
tap_begin gdb-watchgap

sym() { nm "$1" | awk -v s="$2" '$3 == s { print "0x" $1 }'; }
b=$tmp/jit
timeout 120 "$PTREC" record --ground-truth -q --start-at \
	"$(sym "$JITPROG" _start)" -o "$b" -- "$JITPROG" >"$tmp/log" 2>&1
if [ ! -f "$b/manifest.json" ]; then
	bad "recording tests/gdb/watchjit"
	tap_end gdb-watchgap
fi
"$PTREC" info "$b" >"$tmp/info" 2>&1
tid=$(awk '/thread /{ print $2; exit }' "$tmp/info")
if grep -q " 1 gaps" "$tmp/info"; then
	ok "the replay has a gap where the generated code ran"
else
	cp "$tmp/info" "$tmp/log"; bad "the replay has a gap where the generated code ran"
fi

# The truth's stores to g the replay shows: one (1, at `before`).
g=$(sym "$JITPROG" g)
"$WATCHTRUTH" "$b" "$g" 4 >"$tmp/truth" 2>&1
wpos=$(awk -v t="$tid" '$1 == t { print $2 }' "$tmp/truth")
wip=$(awk -v t="$tid" '$1 == t { print $6 }' "$tmp/truth")
if [ "$(echo "$wpos" | wc -w)" = 1 ] &&
	[ "$((wip))" = "$(($(sym "$JITPROG" before)))" ]; then
	ok "the truth: the one store the replay shows is 'before' (position $wpos)"
else
	cp "$tmp/truth" "$tmp/log"; bad "the truth's stores to g"
	wpos=0
fi

# gdb_jit NAME MODE: watch g; two reverse-continues, two continues.
gdb_jit() { gdb_watch "$1" "$b" "$2" "*(int *)$g" end rc1 rc2 c1 c2; }

gdb_jit stop stop
tap_log=$tmp/stop.out
# GDB's positions count instructions from 1: the store at 0-based wpos
# is wpos + 1, the jump into the generated code after it wpos + 2.
if part stop end | grep -q "= 42"; then
	ok "the end holds 42, which the store the replay shows did not write"
else
	bad "the end holds 42"
fi
if [ "$(pos stop rc1)" = $((wpos + 2)) ] &&
	part stop rc1 | grep -q "ptrec: the trace has a gap after" &&
	part stop rc1 | grep -q "may have written the watched 4 bytes"; then
	ok "reverse-continue stops first at the gap, saying why"
else
	bad "reverse-continue stops first at the gap, saying why"
fi
if [ "$(pos stop rc2)" = $((wpos + 1)) ] && ! part stop rc2 | grep -q gap
then
	ok "then at the store before it"
else
	bad "then at the store before it"
fi
if [ "$(pos stop c1)" = $((wpos + 2)) ] &&
	[ "$(pos stop c2)" = $((wpos + 3)) ] &&
	part stop c2 | grep -q "ptrec: the trace has a gap after"; then
	ok "continue: the store, then the gap"
else
	bad "continue: the store, then the gap"
fi

gdb_jit skip skip
tap_log=$tmp/skip.out
if [ "$(pos skip rc1)" = $((wpos + 1)) ] && ! grep -q "gap" "$tmp/skip.out"
then
	ok "with watch-unknown skip the gap does not stop"
else
	bad "with watch-unknown skip the gap does not stop"
fi
unset tap_log

if timeout 300 "$WATCHTRUTH" --check "$b" >"$tmp/log" 2>&1 &&
	grep -q "^1 gaps.*, 0 where a watch scan did not stop" "$tmp/log" &&
	grep -q " 0 unexplained" "$tmp/log"; then
	ok "watchtruth --check: realigned after the gap, the gap stops scans"
else
	bad "watchtruth --check on the gap recording"
fi
# The kernel's write at a thread's exit.
e=$tmp/exit
timeout 120 "$PTREC" record --ground-truth -q -o "$e" -- "$EXITPROG" \
	>"$tmp/exit.out" 2>"$tmp/log"
tidw=$(awk '/^tidw /{ print $2 }' "$tmp/exit.out")
wtid=$(awk '/^tidw /{ print $5 }' "$tmp/exit.out")
"$PTREC" info "$e" >"$tmp/einfo" 2>&1
worker=$(awk '/thread /{ n++; if (n == 2) print $2 }' "$tmp/einfo")
if [ -n "$tidw" ] && [ -n "$worker" ] &&
	"$WATCHTRUTH" "$e" "$tidw" 4 >"$tmp/etruth" 2>&1 &&
	! awk -v t="$worker" '$1 == t' "$tmp/etruth" | grep -q .; then
	ok "watchexit: the worker stores nothing to its tid word (the truth)"
else
	cat "$tmp/exit.out" "$tmp/einfo" "$tmp/etruth" >>"$tmp/log" 2>&1
	bad "watchexit: recorded, the tid word found, the truth read"
fi
"$WATCHTRUTH" --scan "$e" "$worker" "$tidw" 4 stop >"$tmp/log" 2>&1
eend=$(awk '/^end /{ print $2 }' "$tmp/log")
first=$(awk '/^stop /{ print $2, $3, $4; exit }' "$tmp/log")
if [ -n "$eend" ] && [ "$first" = "$((eend - 1)) known syscall" ]; then
	ok "a stop-mode scan of the worker stops first at its exit(2), a known write"
else
	bad "a stop-mode scan of the worker stops first at its exit(2), a known write"
fi
"$WATCHTRUTH" --scan "$e" "$worker" "$tidw" 4 skip >"$tmp/log" 2>&1
first=$(awk '/^stop /{ print $2, $3, $4; exit }' "$tmp/log")
if [ -n "$eend" ] && [ "$first" = "$((eend - 1)) known syscall" ] &&
	! grep -q "gap syscall" "$tmp/log"; then
	ok "... and a skip-mode one too"
else
	bad "... and a skip-mode one too"
fi
# The thread's last instruction by the truth: the exit's system call.
last=$("$WATCHTRUTH" --last "$e" "$worker" 2>>"$tmp/log")
lastn=$(echo "$last" | awk '{ print $2 }')
lastip=$(echo "$last" | awk '{ print $4 }')
gdb_watch exitgdb "$e" skip "-l *(int *)$tidw" rc1 c1
tap_log=$tmp/exitgdb.out
exitmsg="thread $worker ended in the exit(2) system call at $lastip (instruction $lastn)"
if [ -n "$wtid" ] && [ -n "$lastn" ] && [ "$lastn" = "$((eend + 1))" ] &&
	part exitgdb rc1 | grep -q "^New value = $wtid\$" &&
	part exitgdb rc1 | grep -q "thread $worker position $eend of" &&
	part exitgdb rc1 | grep -qF "$exitmsg" &&
	part exitgdb rc1 | grep -qF "wrote 4 bytes at $tidw there" &&
	part exitgdb c1 | grep -q "^Old value = $wtid\$" &&
	part exitgdb c1 | grep -q "^New value = 0\$" &&
	part exitgdb c1 | grep -q "thread $worker at the end" &&
	part exitgdb c1 | grep -qF "$exitmsg" &&
	! grep -q "may have" "$tmp/exitgdb.out"; then
	ok "GDB at a glibc thread's exit: reverse-continue New value = its tid, continue Old value = the tid, New value = 0"
else
	echo "truth: $last; tid $wtid; end $eend" >>"$tmp/exitgdb.out"
	bad "GDB at a glibc thread's exit: reverse-continue New value = its tid, continue Old value = the tid, New value = 0"
fi
unset tap_log
# Known clear_child_tid words (watchctid.c).
c=$tmp/ctid
timeout 120 "$PTREC" record --ground-truth -q -o "$c" -- "$CTIDPROG" \
	>"$tmp/ctid.out" 2>"$tmp/log"
"$PTREC" info "$c" >"$tmp/cinfo" 2>&1
ta=$(awk '/thread /{ n++; if (n == 2) print $2 }' "$tmp/cinfo")
tb=$(awk '/thread /{ n++; if (n == 3) print $2 }' "$tmp/cinfo")
tm=$(awk '/thread /{ print $2; exit }' "$tmp/cinfo")
ca=$(printf "%#x" "$(($(sym "$CTIDPROG" ctid_a)))")
cb=$(printf "%#x" "$(($(sym "$CTIDPROG" ctid_b)))")
co=$(printf "%#x" "$(($(sym "$CTIDPROG" other)))")
"$WATCHTRUTH" "$c" "$ca" 4 >"$tmp/ctruth" 2>&1
mpos=$(awk -v t="$tm" '$1 == t { print $2 }' "$tmp/ctruth")
if grep -q "^ctid_a $ca 0 ctid_b $cb 0 other $co 7" "$tmp/ctid.out" &&
	[ -n "$ta" ] && [ -n "$tb" ] && [ "$(echo "$mpos" | wc -w)" = 1 ] &&
	"$WATCHTRUTH" "$c" "$ca" 12 >"$tmp/ctruth12" 2>&1 &&
	[ "$(awk -v a="$ta" -v b="$tb" '$1 == a || $1 == b' \
		"$tmp/ctruth12" | wc -l)" = 0 ]; then
	ok "watchctid: the words end 0, no instruction of A or B stores there (the truth)"
else
	cat "$tmp/ctid.out" "$tmp/cinfo" "$tmp/ctruth12" >>"$tmp/log" 2>&1
	bad "watchctid: the words end 0, no instruction of A or B stores there (the truth)"
	mpos=0
fi
# cscan TID ADDR MODE: the scan's stops into $got ("POS kind where" per
# line), the thread's end into $cend
cscan() {
	"$WATCHTRUTH" --scan "$c" "$1" "$2" 4 "$3" >"$tmp/cscan" 2>&1
	cend=$(awk '/^end /{ print $2 }' "$tmp/cscan")
	got=$(awk '/^stop /{ print $2, $3, $4 }' "$tmp/cscan")
}
okc=1
for m in stop stack skip; do
	# A: clone's ctid; B: its own set_tid_address.
	for tw in "$ta $ca" "$tb $cb"; do
		set -- $tw
		cscan "$1" "$2" $m
		[ -n "$cend" ] && [ "$got" = "$((cend - 1)) known syscall" ] ||
			{ okc=0; echo "$m $tw: $got" >>"$tmp/log"; }
	done
	# No stop at either exit for bytes the exits do not write.
	for tw in "$ta $cb" "$ta $co" "$tb $ca" "$tb $co"; do
		set -- $tw
		cscan "$1" "$2" $m
		[ -n "$cend" ] && [ -z "$got" ] ||
			{ okc=0; echo "$m $tw: $got" >>"$tmp/log"; }
	done
done
if [ $okc = 1 ]; then
	ok "watchctid: each exit is a known write of its ctid word alone, in every mode"
else
	bad "watchctid: each exit is a known write of its ctid word alone, in every mode"
fi
cscan "$ta" "$ca" skip	# A's end into $cend
gdb_watch ctidgdb "$c" skip "*(int *)$ca" rc1 rc2 c1 c2
tap_log=$tmp/ctidgdb.out
if part ctidgdb rc1 | grep -q "thread $ta position $cend of" &&
	part ctidgdb rc1 | grep -q "thread $ta ended in the exit(2) system call at 0x[0-9a-f]* (instruction $((cend + 1))), before the end snapshot: the kernel wrote 4 bytes at $ca there" &&
	part ctidgdb rc1 | grep -q "^New value = 1\$" &&
	part ctidgdb c2 | grep -q "^Old value = 1\$" &&
	part ctidgdb c2 | grep -q "^New value = 0\$" &&
	! part ctidgdb rc1 | grep -q "may have" &&
	part ctidgdb rc2 | grep -q "thread $tm position $((mpos + 1)) of" &&
	part ctidgdb c1 | grep -q "thread $tm position $((mpos + 2)) of" &&
	part ctidgdb c2 | grep -q "thread $ta at the end"; then
	ok "GDB: reverse-continue stops at A's exit (New value = main's 1), then main's store; continue: the store, the exit (1 -> 0)"
else
	bad "GDB: reverse-continue stops at A's exit (New value = main's 1), then main's store; continue: the store, the exit (1 -> 0)"
fi
unset tap_log
# A robust mutex held at the exit.
r=$tmp/robust
timeout 120 "$PTREC" record --ground-truth -q -o "$r" -- "$ROBUSTPROG" \
	>"$tmp/robust.out" 2>"$tmp/log"
rlock=$(awk '/^lock /{ print $2 }' "$tmp/robust.out")
rafter=$(awk '/^lock /{ print $3 }' "$tmp/robust.out")
"$PTREC" info "$r" >"$tmp/rinfo" 2>&1
rw=$(awk '/thread /{ n++; if (n == 2) print $2 }' "$tmp/rinfo")
rm_=$(awk '/thread /{ print $2; exit }' "$tmp/rinfo")
"$WATCHTRUTH" "$r" "$rlock" 4 >"$tmp/rtruth" 2>&1
rwpos=$(awk -v t="$rw" '$1 == t { print $2 }' "$tmp/rtruth")
"$WATCHTRUTH" --scan "$r" "$rw" "$rlock" 4 stop >"$tmp/rscan" 2>&1
rend=$(awk '/^end /{ print $2 }' "$tmp/rscan")
rfirst=$(awk '/^stop /{ print $2, $3, $4; exit }' "$tmp/rscan")
if [ -n "$rlock" ] && [ $((rafter & 0x40000000)) != 0 ] &&
	[ "$(echo "$rwpos" | wc -w)" = 1 ] && [ -n "$rend" ] &&
	[ "$rwpos" -lt "$rend" ] &&
	[ "$rfirst" = "$((rend - 1)) gap syscall" ]; then
	ok "watchrobust: OWNER_DIED set at the exit, the worker's one store before it (the truth); the scan stops at the exit first"
else
	cat "$tmp/robust.out" "$tmp/rtruth" "$tmp/rscan" >>"$tmp/log" 2>&1
	bad "watchrobust: OWNER_DIED set at the exit, the worker's one store before it (the truth); the scan stops at the exit first"
	rwpos=0
fi
gdb_watch robustgdb "$r" skip "-l *(int *)$rlock" rc1 rc2 rc3 c1 c2
tap_log=$tmp/robustgdb.out
if part robustgdb rc1 | grep -q "thread $rm_ position" &&
	part robustgdb rc2 | grep -q "thread $rw position $rend of" &&
	part robustgdb rc2 | grep -qF "thread $rw ended in the exit(2) system call at" &&
	part robustgdb rc2 | grep -qF "may have written 4 bytes at $rlock there (a futex word on its robust list" &&
	part robustgdb rc3 | grep -q "thread $rw position $((rwpos + 1)) of" &&
	part robustgdb c1 | grep -q "thread $rw position $((rwpos + 2)) of" &&
	part robustgdb c2 | grep -q "thread $rw at the end" &&
	part robustgdb c2 | grep -qF "may have written 4 bytes at $rlock there"; then
	ok "GDB, watch-unknown skip: main's lock, the worker's exit (may have written the lock word), the worker's lock; continue: the lock, the exit"
else
	bad "GDB, watch-unknown skip: main's lock, the worker's exit (may have written the lock word), the worker's lock; continue: the lock, the exit"
fi
unset tap_log
# A robust list the kernel walks, in both orders of main's clone return
# and the thread's life.  rlist ORDER: records it; the words' addresses
# and values, the ctid word's address, the thread's TID (main's clone
# result) and the thread.
rlist() {
	l=$tmp/rlist-$1
	PTREC_EMU_TEST_CLONE_ORDER=$1 timeout 120 "$PTREC" record \
		--ground-truth -q -o "$l" -- "$RLISTPROG" \
		>"$tmp/rlist.out" 2>"$tmp/log"
	# shellcheck disable=SC2046 # the program's words, one by one
	set -- $(cat "$tmp/rlist.out")
	le1=${2:-}; le1v=${3:-}; le2=${5:-}; le2v=${6:-}
	lctid=${8:-}; le3=${11:-}; le3v=${12:-}; ltid=${14:-}
	"$PTREC" info "$l" >"$tmp/linfo" 2>&1
	lw=$(awk '/thread /{ n++; if (n == 2) print $2 }' "$tmp/linfo")
}
# lscan ADDR MODE [read]: the first stop ("POS kind where [old V new V]")
lscan() {
	# shellcheck disable=SC2086 # the optional kind, no word or none
	"$WATCHTRUTH" --scan "$l" "$lw" "$1" 4 "$2" ${3:-} >"$tmp/lscan" 2>&1
	lend=$(awk '/^end /{ print $2 }' "$tmp/lscan")
	lfirst=$(awk '/^stop /{ $1 = ""; print substr($0, 2); exit }' \
		"$tmp/lscan")
}
# ltruth ADDR: the thread's one store to the word by the truth, or "".
ltruth() {
	"$WATCHTRUTH" "$l" "$1" 4 >"$tmp/ltruth" 2>&1
	lpos=$(awk -v t="$lw" '$1 == t { print $2 }' "$tmp/ltruth")
	[ "$(echo "$lpos" | wc -w)" = 1 ] || lpos=
}
rlist_truth() {
	[ "$le1v" = 0x3fffffff ] && [ "$le2v" = 0 ] &&
		[ "$le3v" = 0x40000000 ] && [ -n "$lw" ] && [ -n "$ltid" ]
}
rlist parent
okl=0
if rlist_truth; then
	okl=1
	for a in "$le1" "$le2" "$le3"; do
		ltruth "$a"
		[ -n "$lpos" ] || { okl=0; echo "truth $a: none" >>"$tmp/log"; }
	done
	for m in stop skip; do
		lscan "$le1" $m
		[ "$lfirst" = "$((lend - 1)) gap syscall" ] ||
			{ okl=0; echo "e1 $m: $lfirst" >>"$tmp/log"; }
	done
	for a in "$le2" "$le3"; do
		lscan "$a" stop
		[ "$lfirst" = "$((lend - 1)) gap syscall" ] ||
			{ okl=0; echo "$a stop: $lfirst" >>"$tmp/log"; }
		lscan "$a" skip
		[ "${lfirst%% *}" != "$((lend - 1))" ] ||
			{ okl=0; echo "$a skip: $lfirst" >>"$tmp/log"; }
	done
fi
if [ $okl = 1 ]; then
	ok "watchrlist, main first: the walk from EXIT_FUTEX's head reaches the first word (may have written, every mode); the rest unknown (stop only); the truth's stores and end values"
else
	cat "$tmp/rlist.out" >>"$tmp/log"
	bad "watchrlist, main first: the walk from EXIT_FUTEX's head reaches the first word (may have written, every mode); the rest unknown (stop only); the truth's stores and end values"
fi
rlist child
okl=0
if rlist_truth; then
	okl=1
	for m in stop skip; do
		for a in "$le1" "$le2"; do
			ltruth "$a"
			lscan "$a" $m
			if [ -z "$lpos" ] || [ "$lfirst" != "$lpos known insn" ]
			then
				okl=0
				echo "$a $m: $lfirst (truth $lpos)" >>"$tmp/log"
			fi
		done
		lscan "$le3" $m
		[ "$lfirst" = "$((lend - 1)) known syscall old $(printf '%#x' \
			"$ltid") new $le3v" ] ||
			{ okl=0; echo "e3 $m: $lfirst (tid $ltid)" >>"$tmp/log"; }
		for a in "$le1" "$le2" "$le3"; do
			lscan "$a" $m read
			[ "$lfirst" = "$((lend - 1)) known syscall" ] ||
				{ okl=0; echo "$a $m read: $lfirst" >>"$tmp/log"; }
		done
	done
	ltruth "$le3"
	[ -n "$lpos" ] || { okl=0; echo "truth e3: none" >>"$tmp/log"; }
fi
if [ $okl = 1 ]; then
	ok "watchrlist, the thread's life inside main's clone: the walk followed to its end (the words left alone passed, every mode; an rwatch stops at the exit for each; the owned word a known write, the TID to OWNER_DIED), as the truth shows"
else
	cat "$tmp/rlist.out" >>"$tmp/log"
	bad "watchrlist, the thread's life inside main's clone: the walk followed to its end (the words left alone passed, every mode; an rwatch stops at the exit for each; the owned word a known write, the TID to OWNER_DIED), as the truth shows"
fi
# The same bundle with the thread's EXIT_FUTEX emptied (as for a thread
# whose exit the recorder did not see begin, or an older sideband): the
# history shows set_robust_list but not the list as the exit found it,
# so in stop mode the exit is a write of unknown address for every word
# (never passed: the third word's is a real one), and the clear_child_tid
# word still a known write (clone's r10).
rm -rf "$tmp/rlist-nofutex"
cp -r "$l" "$tmp/rlist-nofutex"
python3 - "$tmp/rlist-nofutex/sideband.sb" "${lw:-0}" <<'PYEOF'
import struct, sys
path, tid = sys.argv[1], int(sys.argv[2])
b = bytearray(open(path, 'rb').read())
off = struct.unpack_from('<I', b, 12)[0]	# the file header's size
n = 0
while off + 16 <= len(b):
	typ, _, size = struct.unpack_from('<HHI', b, off)
	if size < 16:
		break
	# EXIT_FUTEX (15): pid, tid at 16; known, the last word, at 76
	if typ == 15 and struct.unpack_from('<I', b, off + 20)[0] == tid:
		b[off + 24:off + 80] = bytes(56)
		n += 1
	off += size
open(path, 'wb').write(b)
sys.exit(0 if n == 1 else 1)
PYEOF
okl=$((1 - $?))
l=$tmp/rlist-nofutex
if [ $okl = 1 ] && rlist_truth; then
	for a in "$le1" "$le2" "$le3"; do
		lscan "$a" stop
		[ "$lfirst" = "$((lend - 1)) gap syscall" ] ||
			{ okl=0; echo "$a stop: $lfirst" >>"$tmp/log"; }
	done
	lscan "$lctid" stop
	[ "$lfirst" = "$((lend - 1)) known syscall new 0" ] ||
		{ okl=0; echo "ctid stop: $lfirst" >>"$tmp/log"; }
fi
if [ $okl = 1 ]; then
	ok "watchrlist, no EXIT_FUTEX: the exit a write of unknown address for every list word (stop), the ctid word a known write"
else
	bad "watchrlist, no EXIT_FUTEX: the exit a write of unknown address for every list word (stop), the ctid word a known write"
fi
# Rewritten code in the text: the recorder re-records a file's text page
# made writable without its image (docs/recorder.md, "Self-modifying or
# JIT code"), so the replay has a gap there where it decoded the file's
# old bytes before (watchtruth --check then named the code, CODE, and
# failed); the check passes, a gap and no truth write passed.
if [ -n "${SMCPROG:-}" ]; then
	m=$tmp/smc
	timeout 120 "$PTREC" record --ground-truth -q --start-at \
		"$(sym "$SMCPROG" _start)" -o "$m" -- "$SMCPROG" >"$tmp/log" 2>&1
	"$WATCHTRUTH" --check "$m" >"$tmp/log" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && ! grep -q '^CODE thread' "$tmp/log" &&
		grep -q '^[1-9][0-9]* gaps (.*), 0 where a watch scan did not stop' \
			"$tmp/log"; then
		ok "rewritten code in the text is a gap: watchtruth --check passes it"
	else
		echo "exit status $rc" >>"$tmp/log"
		bad "rewritten code in the text is a gap: watchtruth --check passes it"
	fi
fi
tap_end gdb-watchgap
