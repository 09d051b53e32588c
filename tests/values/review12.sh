#!/bin/sh
# Review 12's cases (tests/values/review12.c): `make values-review12`
# (not in make check; about 2 minutes: bsr records 400,000
# instructions).  Findings on main 1b8e320 (details:
# /work/notes/review12.md):
#
# bsr (GDB, rwatch, far window): watch_proof.c's nonzero() (rwfast: bsf
# and bsr in [0, width - 1] after `test src, src` and a je/jne showing
# ZF clear, within 8 instructions) checks only that the instructions
# between do not write the source by their decoding; a `syscall` with
# rax 15 (rt_sigreturn, here from a frame the program built, rip its
# fall-through, so no transfer) sets every register: rbx 0, rax 4000.
# bsf of 0 leaves rax 4000, the load reads sr_tab[4000] (the real GDB
# stops there, rax 4000); rax is stored to sr_keep after it, so the
# engine knows the address (`ptrec values --at`: rax 0xfa0).  bsrd, 300
# instructions before the end: from right before the load, `continue`
# with rwatch sr_tab[4000] runs to the end in stop, skip and strict
# (the pass takes the load in [sr_tab, sr_tab + 63]); reverse-continue
# stops.  bsrw: the same with `watch` on the byte, which sr_store
# writes right after the load.  bsr (held in stop and strict), the same
# 400,000 instructions before the end (a far window; the engine does
# not know rax there, so skip may pass it).
# ck8, ck4 (values, held): `call *-8(%rsp)`, `call *-4(%rsp)`: the
# word read (gotroot's rule: it held the target) is overwritten by the
# call's own push; loads of the slot after the call read the return
# address (0 wrong in default and strict mode).
# rem, remd, remx (GDB, held): `x % 10` as a compiler writes it (mul by
# 0xcccccccccccccccd, shr $3, lea (q,q,4), add q,q, sub) where the x
# subtracted is reloaded from a red-zone slot after a 1-byte store into
# it (rem far, remd near), or after one through the slot's escaped
# address plus an unknown zero (remx): stop and strict stop at the load
# of rm_tab[23]; skip may pass it (x is unknown to the engine).
# rsq (values, held): `jmp *%rax` as the first instruction of an rseq
# critical section: the kernel's fixup on the return from a step's stop
# would run the abort handler where the recorder decoded the jump (the
# history would show the jump going to the abort); on this kernel
# (6.18) the section is not aborted under the recorder: 0 wrong.
# REVIEW12_MODES="a b" runs some cases only.
set -u
: "${PTREC:?}" "${VALCHECK:?}" "${REVIEW12:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
RV_PROG=$REVIEW12 RV_NAME=review12.c RV_TAG=r12
. "$here/review_lib.sh"
tap_begin values-review12
export VALCHECK_CONFLICTS=0 VALCHECK_BITS=1

all="bsrd bsrw bsr rem remd remx ck8 ck4 rsq"
for mode in ${REVIEW12_MODES:-$all}; do
	case $mode in
	remx)
		gdbrow $mode rx_load rwatch 'rm_tab[23]' "stop strict"
		;;
	rem|remd)
		gdbrow $mode rm_load rwatch 'rm_tab[23]' "stop strict"
		;;
	bsrd)
		gdbrow $mode sr_load rwatch 'sr_tab[4000]'
		;;
	bsrw)
		gdbrow $mode sr_store watch 'sr_tab[4000]'
		;;
	bsr)
		gdbrow $mode sr_load rwatch 'sr_tab[4000]' "stop strict"
		;;
	*)
		rec $mode
		vcheck $mode
		;;
	esac
done
tap_end values-review12
