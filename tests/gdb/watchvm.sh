#!/bin/sh
# A watched word written by another process that shares the memory
# (tests/gdb/watchvm.c: clone(CLONE_VM | CLONE_CHILD_CLEARTID | SIGCHLD),
# a process, not a thread; docs/gdb.md "Watchpoints"): the child's store
# of 0x77 and its exit's clear_child_tid write of 0.  GDB checks a
# watchpoint only in the inferior that set it, and ignored both when the
# server reported them in the child (continue ran to the end,
# reverse-continue went past them).  Each must stop GDB in main's thread
# (Thread 1.1), at main's position when the write happened by the
# recorder's own clock (the truth: main's instruction before it has a
# timestamp at or before the write's, the one at it a later one), with
# the monitor message naming the process, thread and instruction or exit,
# and the values GDB prints those of the write; forward and backward.
# The same with CLONE_VFORK (watchvm vfork).
set -u
: "${PTREC:?}" "${WATCHTRUTH:?}" "${VMPROG:?}"
testlib_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$testlib_dir/lib.sh"
. "$testlib_dir/gdb/watchlib.sh"
tap_begin gdb-watchvm

# rec NAME ARGS: records watchvm ARGS into $tmp/NAME ($b); main's and
# the child's tids, the truth's writers of the word (main's 0x1234 at
# $mpos, the child's 0x77 at $cpos, timestamp $ctsc, ip $cip) and the
# child's exit(2) (its last instruction, 0-based $elast at $eip, $etsc).
rec() {
	b=$tmp/$1
	shift
	timeout 120 "$PTREC" record --ground-truth -q -o "$b" -- \
		"$VMPROG" "$@" >"$tmp/vm.out" 2>"$tmp/log"
	word=$(sed -n 's/^word \(0x[0-9a-f]*\)$/\1/p' "$tmp/vm.out")
	"$PTREC" info "$b" >"$tmp/info" 2>&1
	tm=$(awk '/^ *thread /{ n++; if (n == 1) print $2 }' "$tmp/info")
	tc=$(awk '/^ *thread /{ n++; if (n == 2) print $2 }' "$tmp/info")
	"$WATCHTRUTH" "$b" "${word:-0}" 4 >"$tmp/truth" 2>&1
	mpos=$(awk -v t="$tm" '$1 == t && $3 == "tsc" { print $2 }' \
		"$tmp/truth")
	cpos=$(awk -v t="$tc" '$1 == t && $3 == "tsc" { print $2 }' \
		"$tmp/truth")
	ctsc=$(awk -v t="$tc" '$1 == t && $3 == "tsc" { print $4 }' \
		"$tmp/truth")
	cip=$(awk -v t="$tc" '$1 == t && $3 == "tsc" { print $6 }' \
		"$tmp/truth")
	last=$("$WATCHTRUTH" --last "$b" "${tc:-0}" 2>/dev/null)
	elast=$(($(echo "$last" | awk '{ print $2 }') - 1))
	eip=$(echo "$last" | awk '{ print $4 }')
	etsc=$("$WATCHTRUTH" "$b" "${word:-0}" 4 "${tc:-0}" "$elast" \
		2>/dev/null | awk '$1 == "at" { print $5 }')
	[ -n "$word" ] && [ -n "$tm" ] && [ -n "$tc" ] &&
		[ "$(echo "$mpos" | wc -w)" = 1 ] &&
		[ "$(echo "$cpos" | wc -w)" = 1 ] && [ -n "$etsc" ] &&
		grep -q "pid $tc)" "$tmp/info" && {
		storemsg="the store at $cip (process $tc, thread $tc, instruction $((cpos + 1))) wrote 4 bytes at $word: process $tc shares process $tm's memory"
		exitmsg="thread $tc ended in the exit(2) system call at $eip (instruction $((elast + 1)))"
		whomsg="process $tc (thread $tc) shares process $tm's memory"
	}
}
if rec vm; then
	ok "watchvm: recorded; the child is its own process; one store of each to the word (the truth)"
else
	cat "$tmp/vm.out" "$tmp/info" "$tmp/truth" >>"$tmp/log" 2>&1
	bad "watchvm: recorded; the child is its own process; one store of each to the word (the truth)"
	tap_end gdb-watchvm
fi

# at_moment P TSC: main's position P (as `ptrec position` counts, from
# 1: 0-based P - 1) is where main was when a write at TSC happened.
at_moment() {
	q=$(($1 - 1))
	before=$("$WATCHTRUTH" "$b" "$word" 4 "$tm" $((q - 1)) |
		awk '$1 == "at" { print $5 }')
	at=$("$WATCHTRUTH" "$b" "$word" 4 "$tm" "$q" |
		awk '$1 == "at" { print $5 }')
	[ -n "$before" ] && [ -n "$at" ] && [ "$before" -le "$2" ] &&
		[ "$2" -lt "$at" ]
}
go=$("$PTREC" insns "$b" 2>/dev/null |
	grep -m1 -E 'movl +\$0x1,.*<go>' | cut -f1)

# skip: only the known writes (no libc store of unknown address).
GW_PRE="ptrec goto ${go:-1}"
gdb_watch skip "$b" skip "*(int *)$word" c1 c2 c3 rc1 rc2 rc3 c4 c5
tap_log=$tmp/skip.out
ps=$(pos skip c1 "$tm")
pe=$(pos skip c2 "$tm")
if [ -n "$ps" ] && at_moment "$ps" "$ctsc" &&
	part skip c1 | grep -qF "$storemsg" &&
	part skip c1 | grep -q "^Thread 1.1 " &&
	! part skip c1 | grep -q "^New value = [^1]" &&
	[ -n "$pe" ] && at_moment "$pe" "$etsc" &&
	part skip c2 | grep -qF "$whomsg" &&
	part skip c2 | grep -qF "$exitmsg" &&
	part skip c2 | grep -q "^Thread 1.1 hit Hardware watchpoint" &&
	part skip c2 | grep -q "^New value = 0\$" &&
	part skip c3 | grep -q "^thread $tm at the end"; then
	ok "continue: the child's store, then its exit (New value = 0), each in main's thread at its moment; then the end"
else
	echo "store at $ctsc, exit at $etsc; main at $ps, $pe" >>"$tap_log"
	bad "continue: the child's store, then its exit (New value = 0), each in main's thread at its moment; then the end"
fi
if [ "$(pos skip rc1 "$tm")" = "$pe" ] &&
	part skip rc1 | grep -qF "$exitmsg" &&
	part skip rc1 | grep -q "^Old value = 0\$" &&
	part skip rc1 | grep -q "^New value = 119\$" &&
	[ "$(pos skip rc2 "$tm")" = "$ps" ] &&
	part skip rc2 | grep -qF "$storemsg" &&
	! part skip rc2 | grep -q "^New value = [^4]" &&
	[ "$(pos skip rc3 "$tm")" = "$((mpos + 1))" ] &&
	[ "$(pos skip c4 "$tm")" = "$((mpos + 2))" ] &&
	[ "$(pos skip c5 "$tm")" = "$ps" ] &&
	part skip c5 | grep -qF "$storemsg" &&
	! grep -q "Switching to Thread $tc" "$tmp/skip.out"; then
	ok "reverse-continue: the exit (New value = 0x77), the child's store, main's store; continue: main's store, the child's store again; never in the child"
else
	bad "reverse-continue: the exit (New value = 0x77), the child's store, main's store; continue: main's store, the child's store again; never in the child"
fi

# stop (the default): the same two stops forward.
gdb_watch stop "$b" - "*(int *)$word" c1 c2
unset GW_PRE
tap_log=$tmp/stop.out
if [ "$(pos stop c1 "$tm")" = "$ps" ] &&
	part stop c1 | grep -qF "$storemsg" &&
	[ "$(pos stop c2 "$tm")" = "$pe" ] && part stop c2 | grep -qF "$exitmsg"; then
	ok "watch-unknown stop: continue stops at the same two writes"
else
	bad "watch-unknown stop: continue stops at the same two writes"
fi

# vfork: the child stores and exits while main waits in the clone; the
# recorder takes the clone's ctid for a vfork event too (it took none,
# and the exit's write was missed in every mode).
if rec vfork vfork &&
	"$PTREC" dump "$b" 2>/dev/null |
	grep -q "EXIT_FUTEX *pid $tc tid $tc ctid $word ctid_val 119 "; then
	ok "watchvm vfork: recorded; the child's EXIT_FUTEX names the word (0x77 in it)"
else
	cat "$tmp/vm.out" "$tmp/info" "$tmp/truth" >>"$tmp/log" 2>&1
	"$PTREC" dump "$b" 2>&1 | grep EXIT_FUTEX >>"$tmp/log"
	bad "watchvm vfork: recorded; the child's EXIT_FUTEX names the word (0x77 in it)"
	tap_end gdb-watchvm
fi
gdb_watch vfork "$b" skip "*(int *)$word" rc1 rc2 rc3 c1 c2 c3
tap_log=$tmp/vfork.out
pe=$(pos vfork rc1 "$tm")
ps=$(pos vfork rc2 "$tm")
if [ -n "$pe" ] && at_moment "$pe" "$etsc" &&
	part vfork rc1 | grep -qF "$whomsg" &&
	part vfork rc1 | grep -qF "$exitmsg" &&
	part vfork rc1 | grep -q "^Old value = 0\$" &&
	part vfork rc1 | grep -q "^New value = 119\$" &&
	[ -n "$ps" ] && at_moment "$ps" "$ctsc" &&
	part vfork rc2 | grep -qF "$storemsg" &&
	[ "$(pos vfork rc3 "$tm")" = "$((mpos + 1))" ] &&
	[ "$(pos vfork c1 "$tm")" = "$((mpos + 2))" ] &&
	[ "$(pos vfork c2 "$tm")" = "$ps" ] &&
	part vfork c2 | grep -qF "$storemsg" &&
	[ "$(pos vfork c3 "$tm")" = "$pe" ] &&
	part vfork c3 | grep -q "^New value = 0\$" &&
	! grep -q "Switching to Thread $tc" "$tmp/vfork.out"; then
	ok "vfork: reverse-continue: the exit (New value = 0x77), the child's store, main's; continue back the same way, each in main's thread at its moment"
else
	echo "store at $ctsc, exit at $etsc; main at $ps, $pe" >>"$tap_log"
	bad "vfork: reverse-continue: the exit (New value = 0x77), the child's store, main's; continue back the same way, each in main's thread at its moment"
fi
unset tap_log
tap_end gdb-watchvm
