#!/bin/sh
# Review 10's cases (tests/values/review10.c): `make values-review10`
# (not in make check).  Each case must give no wrong value (valcheck,
# VALCHECK_BITS=1, no conflict) in default and in strict mode
# (PTREC_VALUES_STRICT=1).  None fails on main ee292eb: these are the
# attacks on session 13's rules that held (details:
# /work/notes/review10.md), kept as regression cases.
#
# thrwhy, the PROT_WRITE mprotect rule (rcv_sys_prot_write()): a
# read-only page at 0x20000000 holding 0x66 (a value the engine knows
# only from the snapshot), loaded into r12; then mprotect(a, PROT_RW)
# with a from a pipe, 0x77 stored, and the page made not writable again
# by pkey_mprotect (pkey), an anonymous MAP_FIXED mmap (fixro), mremap
# MREMAP_FIXED of another page over it (remapro), or a second PROT_WRITE
# mprotect then mprotect(PROT_READ) of a known range (twice): r12 must
# not be the end's byte.
# mmap without MAP_FIXED no longer a barrier: anonymous bytes (0x55 at a
# known address) whose page brk (brkmap), mremap shrinking (remapmap) or
# MADV_DONTNEED (dontneed) throws away before a mmap without MAP_FIXED
# at that address (zeros) and a load.
# brk's file page rule (rcv_sys_keeps_file()): brkshz, a file's page in
# the heap unmapped by brk and replaced by a MAP_SHARED | MAP_ANONYMOUS
# mapping (named "/dev/zero (deleted)" in the maps, no file call).
# rseq (rcv_xthr.c rseq_near()): rseqg, a raw clone child registers
# rseq(2) on a global at an address the engine does not know; the main
# thread's load of its cpu_id after must not be its own earlier store.
# exitsave's shared stack: xstkp, a thread on a stack that is a global
# array (pthread_attr_setstack), whose pushed slot the main thread finds
# and rewrites through an address of unknown offset; xstkpok the same
# without the rewrite; xsolo a push kept to exit_group; xjmp an atexit
# handler longjmp-ing into main, whose callee fills the old exit frame
# through an unknown index.  vtaint (vfpair's vector-only rule): rsp
# passed through xmm16 (EVEX) into a global and written through by a
# callee into the pushed rbx slot.  pushw: 16-bit pushes and pops of
# fs, gs, a register and an immediate (rsp moves by 2).
# REVIEW10_MODES="a b" runs some cases only.
set -u
: "${PTREC:?}" "${VALCHECK:?}" "${REVIEW10:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
RV_PROG=$REVIEW10 RV_NAME=review10.c RV_TAG=r10
. "$here/review_lib.sh"
tap_begin values-review10
export VALCHECK_CONFLICTS=0 VALCHECK_BITS=1

all="pkey fixro remapro twice brkmap remapmap dontneed brkshz rseqg
xstkp xstkpok xsolo xjmp vtaint pushw"
for mode in ${REVIEW10_MODES:-$all}; do
	rec $mode
	vcheck $mode
done
tap_end values-review10
