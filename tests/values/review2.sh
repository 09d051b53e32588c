#!/bin/sh
# Review 2 of the read-only rule's ordering (rcv_order.c) and of the
# single-threaded rules it rests on (tests/values/review2.c): worlds the
# trace and snapshot allow where a read-only page changes after the main
# thread's load with no system call or recorded relative to show it
# (untraced, vforkvm, uring: r12 must be unknown or the 0x66 loaded), and
# a signal delivered on a system call's return (sigbits, sigkill) or
# right after a direct branch to the handler's entry (sigjcc) whose
# handler gets the registers from before.  Each case must give
# no wrong value (valcheck).  `make values-review2`.  All failed on main
# at 23c7f15 (untraced 9 wrong, vforkvm 10, uring 4, sigbits 3, sigkill
# 15, sigjcc 10); fixed on branch holes2, where every case but sigjcc
# (a timer signal landing after the jne: timing-dependent) runs in
# `make values-test` (tests/values/run.sh, with sigill as sigjcc's
# deterministic form).
set -u
: "${PTREC:?}" "${VALCHECK:?}" "${REVIEW2:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
tap_begin values-review2

for mode in untraced vforkvm uring sigbits sigkill sigjcc; do
	rm -rf "${tmp:?}/$mode"
	timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/$mode" \
		"$REVIEW2" $mode >"$tmp/log" 2>&1
	pos=0
	[ -z "${mode##sig*}" ] ||
	pos=$("$PTREC" insns "$tmp/$mode" 2>/dev/null |
		grep -E 'movzbq +0x20000000,%r12$' | tail -1 | cut -f1)
	r12=$("$PTREC" values "$tmp/$mode" --at $((${pos:-0} + 1)) 2>&1 |
		grep '^r12')
	if [ -n "$pos" ] && [ -f "$tmp/$mode/manifest.json" ] &&
		"$VALCHECK" "$tmp/$mode" >"$tmp/out" 2>&1 &&
		{ [ -z "${mode##sig*}" ] ||
		echo "$r12" | grep -Eq '^r12 +(0x0*66|0x[0-9a-f?]*\?)'; }; then
		ok "review2.c $mode: no wrong value ($r12)"
	else
		bad "review2.c $mode (at ${pos:-?}): $(grep -c WRONG "$tmp/out") wrong, $r12; $(grep -m3 WRONG "$tmp/out")"
	fi
done
tap_end values-review2
