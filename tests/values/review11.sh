#!/bin/sh
# Review 11's cases (tests/values/review11.c): `make values-review11`
# (not in make check; about 2.5 minutes: fixp, pwr and pwu record
# 400,000 instructions each).  Findings on main bc99e4f (details:
# /work/notes/review11.md):
#
# xa, xb (values, default mode; strict right): exitsave's shared-stack
# rule (rcv_stkeep.c rcv_stk_end_keeps(), rcv_mem.c end_own()) takes a
# push kept to the thread's own exit_group as written by no other thread
# ("no address that may reach it escaped"); a raw clone child on a
# global array stack (xa_cstack) pushes rbx (a value the engine does not
# know) in a call and ends in exit_group, while the main thread stores
# 0x4242 into the slot through the array (xa) or 0x4343 through the rsp
# the child published before the call (xb): rbx at the push is shown as
# the slot's end value: 2 wrong each.  xaok (no store): 0 wrong (kept
# as the control).  Fixed (xa to xdw, 0 wrong; docs/values.md, "A stack
# that is a C object"): the rules hold only on the thread's own stack
# mapping (replay/rcv_ownstk.c); `make values-review11-stack` runs xa,
# xb, xc, xd, xdw, xaok, xp, xe and rsq in make check.
# xc (values, default mode): the same premise for a pair (rcv_callee.c
# rcv_callee_keeps(), "A callee's own stack": "no value that exists then
# points under E"): the child pops rbx after the main thread's store
# through the array: 2 wrong.  xd (one thread, default mode): main
# moves rsp onto a global array (as coroutine libraries do) and calls a
# function that pushes rbx, stores into the slot through the array's
# address plus an unknown zero (a store of unknown address not derived
# from rsp), pops: 5 wrong (rbx before the push taken as the value
# after the pop).  Strict mode right in all four.
# xdw (values and GDB, default mode): xd with rbx a pointer (&xw_t plus
# an unknown zero) stored through before the push and the slot
# rewritten with &xw_o: rbx wrong before the push (8 wrong), so `watch
# xw_t[0]` takes the store at xdw_st as writing xw_o: reverse-continue
# passes it (stop: stops at an earlier "may have" store instead; skip:
# runs to position 1), continue too.  Strict stops.
# fixp, fixpd (GDB, held): `rwatch` on a byte loaded through an address
# the engine knows bit by bit only ((FX_PAGE | secret) & FX_PAGE: or and
# and, which watch_know.c's fixpoint takes as computed from all parents),
# 400,000 instructions (fixp: a far window) or 300 (fixpd) before the
# end: reverse-continue and continue stop at the load in stop, skip and
# strict.
# xp (held): xc with a glibc pthread whose stack the main thread finds
# with pthread_getattr_np(): 0 wrong (rbx not linked across that pair).
# xe (held): xd's stack and a push kept to the end, the slot written by
# read(2) through a global pointer: the system call ends the walk.
# pwr, pwrd (GDB, held): `pushw $imm; movzwl (%rsp)` on a global stack
# (watch_proof.c's step() moves rsp by 8 for any push of an immediate;
# the engine makes rsp unknown after pushw): rwatch on the pushed bytes
# stops at the load in stop and strict (skip may pass it: its address
# is not known), far (pwr) and near (pwrd).
# pwu, pwud (GDB, held): four pushw $imm and an 8-byte pop (rsp back
# where it was; 24 bytes lower to step()), then `movzbl -16(%rsp)`: rwatch
# stops in stop and strict, far and near; skip too near (pwud: the
# engine knows rsp there), not far (pwu: rsp not known to the engine
# 400,000 instructions back, so skip may pass).
# c3 (GDB, held): clone3's writes (CLONE_PARENT_SETTID, CHILD_SETTID
# with CLONE_THREAD; CLONE_PIDFD, CHILD_SETTID with CLONE_VM alone):
# `watch` on each word stops at its clone3 both ways, in stop and strict
# (c3t: the first call alone; skip passes them in some schedules, where
# the engine does not know the struct at the call: allowed).
# exc32 (held): a thread's robust list registered by the 32-bit
# set_robust_list (int $0x80: the compat list, which get_robust_list(2)
# does not show): its EXIT_FUTEX record has no robust list, so its exit
# may write any byte (rcx partly known, 0 wrong).
# rsq (held): an rseq area over the pushed slot on a global array stack
# (the kernel rewrites cpu_id_start/cpu_id at every step): 0 wrong.
#
# trapblk, trappend (recorder): the SIGTRAP mask hiding (record/
# emu_trap.c) shows.  trapblk: a program that blocked SIGTRAP reads
# SigBlk without it in /proc/self/status and its thread's
# /proc/self/task/TID/status: a limit of the software recorder (the
# kernel's mask cannot hold SIGTRAP while the thread is single-stepped,
# docs/recorder.md), so recorded it runs as `trapblk hidden`: SigBlk must
# be the mask without SIGTRAP's bit, every other bit exact, and
# rt_sigprocmask's read-back exact; natively `trapblk` must print ok and
# `trapblk hidden` must not (the check can fail).  trappend: a SIGTRAP it
# sends itself while blocked was neither pending nor delivered after the
# unblock (lost; fixed: the recorder holds it pending, rt_sigpending
# shows it, it is delivered at the unblock).  trap32: SIGTRAP blocked by
# the 32-bit rt_sigprocmask (int $0x80), which emu_trap_strip() left
# alone: the step's forced SIGTRAP reset the program's handler and its
# int3 killed it (fixed: the 32-bit call's set is stripped too).  `make
# values-review11-check` runs the three.  Each program prints "ok" last
# when it sees what it set; it must natively and under `ptrec record`.
# REVIEW11_MODES="a b" runs some cases only.
set -u
: "${PTREC:?}" "${VALCHECK:?}" "${REVIEW11:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
RV_PROG=$REVIEW11 RV_NAME=review11.c RV_TAG=r11
. "$here/review_lib.sh"
tap_begin values-review11
export VALCHECK_CONFLICTS=0 VALCHECK_BITS=1

# selfcheck MODE: the program's own verdict natively and recorded.
# selfcheck MODE [RECORDED_ARG]: ok natively; recorded (with
# RECORDED_ARG as the program's second argument) ok too.
selfcheck() {
	nat=$(timeout 60 "$RV_PROG" "$1" 2>&1 | tail -1)
	if [ "$nat" != ok ]; then
		bad "$RV_NAME $1: natively: $nat"
		return
	fi
	rm -rf "${tmp:?}/$1"
	got=$(timeout 300 "$PTREC" record -q -o "$tmp/$1" "$RV_PROG" "$1" \
		${2:+"$2"} 2>"$tmp/log" | tail -1)
	if [ "$got" = ok ]; then
		ok "$RV_NAME $1: recorded, the program sees what it set"
	else
		bad "$RV_NAME $1: recorded: $got $(tail -1 "$tmp/log")"
	fi
}

# c3check MODE: rowscan of `watch` on each word clone3 writes, at its
# call.
c3check() {
	rm -rf "${tmp:?}/c3"
	timeout 300 "$PTREC" record -q -o "$tmp/c3" "$RV_PROG" $1 \
		>/dev/null 2>"$tmp/log"
	ins=$("$PTREC" insns "$tmp/c3" 2>/dev/null)
	pa=$(echo "$ins" | grep -m1 "<c3_sa+0>" | cut -f1)
	pb=$(echo "$ins" | grep -m1 "<c3_sb+0>" | cut -f1)
	if [ -z "$pa" ] || { [ -z "$pb" ] && [ $1 = c3 ]; }; then
		bad "$RV_NAME $1: not recorded ($(tail -2 "$tmp/log"))"
		return
	fi
	# The words' run-time addresses: c3_a's (rdi at the call) plus
	# their offsets in the file (GDB's inferior 1 has the symbols
	# unrelocated where the end's process is the second one).
	rdi=$("$PTREC" values "$tmp/c3" --at "$pa" 2>/dev/null |
		awk '$1 == "rdi" {print $2}')
	syms=$(nm "$RV_PROG")
	: >"$tmp/rows"
	ws="ptid ctid pidfd ctid2"
	[ -z "$pb" ] && ws="ptid ctid"
	for w in $ws; do
		p=$pa
		case $w in pidfd|ctid2) p=$pb ;; esac
		a=$(printf '%s\n' "$syms" | awk -v s=c3_$w -v b=c3_a \
			'$3 == s {x = $1} $3 == b {y = $1}
			 END {print x, y}')
		off=$(( 0x${a% *} - 0x${a#* } ))
		printf '%s|watch|*(int *)%#x|%s\n' $p $((rdi + off)) $w \
			>>"$tmp/rows"
	done
	# Skip may pass the writes: whether the engine knows the struct at
	# the call depends on the schedule (another task sharing the
	# memory, the child thread's start), so stop and strict only.
	for wm in stop strict; do
		RV_PRELUDE="thread 1.1
" rowscan "$tmp/c3" $wm "$tmp/rows" "$RV_NAME $1" || continue
		if [ -s "$tmp/miss" ]; then
			bad "$RV_NAME $1 ($wm): missed: $(tr '\n' ';' <"$tmp/miss")"
		else
			ok "$RV_NAME $1 ($wm): every clone3 write stops both ways"
		fi
	done
}

all="xa xb xaok xc xd xdw xp exc32 rsq fixp fixpd pwr pwrd pwu pwud xe c3 c3t
trapblk trappend trap32"
for mode in ${REVIEW11_MODES:-$all}; do
	case $mode in
	trapblk)
		# The recorded check must be able to fail: natively SigBlk
		# holds SIGTRAP.
		nat=$(timeout 60 "$RV_PROG" trapblk hidden 2>&1 | tail -1)
		if [ "$nat" = ok ]; then
			bad "$RV_NAME trapblk hidden: natively ok (SigBlk without SIGTRAP?)"
		else
			ok "$RV_NAME trapblk hidden: natively fails ($nat)"
		fi
		selfcheck trapblk hidden
		;;
	trappend)
		selfcheck $mode
		rec $mode	# the held SIGTRAP's delivery: 0 wrong
		vcheck $mode
		;;
	trap*)
		selfcheck $mode
		;;
	fixp*)
		gdbrow $mode fx_load rwatch '*(char *)0x21000000'
		;;
	pwud)
		gdbrow $mode pwu_load rwatch 'pw_stack[4080]'
		;;
	pwu)
		gdbrow $mode pwu_load rwatch 'pw_stack[4080]' "stop strict"
		;;
	pwr*)
		gdbrow $mode pw_load rwatch 'pw_stack[4094]' "stop strict"
		;;
	c3|c3t)
		c3check $mode
		;;
	xdw)
		rec $mode
		vcheck $mode
		gdbrow $mode xdw_st watch 'xw_t[0]'
		;;
	*)
		rec $mode
		vcheck $mode
		;;
	esac
done
tap_end values-review11
