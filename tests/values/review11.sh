#!/bin/sh
# Review 11's cases (tests/values/review11.c): `make values-review11`
# (not in make check).  Findings on main bc99e4f (details:
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
# the slot's end value: 2 wrong each.  xaok (no store): 0 wrong, rbx
# known by the rule (kept as the control).
#
# trapblk, trappend (recorder): the SIGTRAP mask hiding (record/
# emu_trap.c) shows: a program that blocked SIGTRAP reads SigBlk without
# it in /proc/self/status (trapblk), and a SIGTRAP it sends itself while
# blocked is neither pending nor delivered after the unblock (trappend:
# lost).  Each program prints "ok" when it sees what it set; it must
# natively and under `ptrec record`.
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
selfcheck() {
	nat=$(timeout 60 "$RV_PROG" "$1" 2>&1)
	if [ "$nat" != ok ]; then
		bad "$RV_NAME $1: natively: $nat"
		return
	fi
	rm -rf "${tmp:?}/$1"
	got=$(timeout 300 "$PTREC" record -q -o "$tmp/$1" "$RV_PROG" "$1" \
		2>"$tmp/log")
	if [ "$got" = ok ]; then
		ok "$RV_NAME $1: recorded, the program sees what it set"
	else
		bad "$RV_NAME $1: recorded: $got $(tail -1 "$tmp/log")"
	fi
}

all="xa xb xaok trapblk trappend"
for mode in ${REVIEW11_MODES:-$all}; do
	case $mode in
	trap*)
		selfcheck $mode
		;;
	*)
		rec $mode
		vcheck $mode
		;;
	esac
done
tap_end values-review11
