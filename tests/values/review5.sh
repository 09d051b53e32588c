#!/bin/sh
# Review 5's reproducers (tests/values/review5.c): `make values-review5`.
# Each case must give no wrong value (valcheck, VALCHECK_BITS=1, no
# conflict), in default mode and in strict mode (PTREC_VALUES_STRICT=1),
# and no missed write (GDB).  Per case and mode the script prints the
# wrong count.  On main at c6d79fa:
#  - laundering (rcv_escape.c): lbranch, lsetc, lsbb, lcmov, ltable fail
#    in default mode (~9,000 wrong registers each: r13 = 0x77, the other
#    thread's later store, where the truth is main's own 0x11, and what
#    follows from it), 0 wrong in strict mode; plain (the control) passes.
#  - uffdstack (rcv_escape.c's sys_keeps_none takes ioctl as keeping no
#    pointer; userfaultfd's UFFDIO_REGISTER keeps the range and the fault
#    messages give the handler thread the address): default mode 4 wrong
#    (r12 = 0x22, main's own store, truth 0x7777777777777777, the page
#    the handler put there after zapping it), strict 0.
#  - alive (added by holes5v): plain with the thread alive at the
#    snapshot, whose stack mapping (.bss, r5_cstack) holds r5_pub below
#    its stack: default mode 10 wrong (rax 0 at its last load of
#    r5_pub, truth &x), the stack's private part being the whole
#    mapping under its first rsp.
#  All fixed on branch holes5v (docs/values.md, "Pointers rebuilt
#  without a copy"): 0 wrong in both modes.
#  - rseqwatch (watchpoints, replay/watch*.c: no access for the kernel's
#    rewrites of a registered rseq area): main's loop sees its rseq
#    cpu_id change twice with no store and no system call (a forked
#    child migrates it); `watch -l` on the word and reverse-continue from
#    the loop's end go to "No more reverse-execution history" (position
#    1) instead of stopping between the two loads.
#  - sigframe (watchpoints: a signal's delivery is no write for the watch
#    scan): in the handler, `watch -l si->si_signo` (the kernel wrote it
#    into the alternate stack, a global array, at the delivery) and
#    reverse-continue stop before the kill(2) (at an older store of
#    unknown address, or with watch-unknown skip at the history's start),
#    not at the delivery.
# Tried and found right (0 wrong in both modes, not kept here): push/pop
# of 16 bits, pop to an rsp-relative memory operand, xchg eax,eax (87 c0),
# cmpxchg between registers, movdiri, movdir64b, adox, bsf of 0, rdpid;
# the vDSO's clock reads; pwrite64 under MAP_SHARED and MAP_PRIVATE
# mappings of the file; C++ exceptions (one thread and two); a two-thread
# mix of swapcontext coroutines on heap stacks, setjmp/longjmp out of
# nested callees and a SA_ONSTACK handler that rewrites its context;
# partial stores of a faulting xsave, xsavec, fxsave, fnsave, fnstenv,
# movups, vmovdqu and vpmaskmovd (none on this CPU).
set -u
: "${PTREC:?}" "${VALCHECK:?}" "${REVIEW5:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
tap_begin values-review5
export VALCHECK_CONFLICTS=0 VALCHECK_BITS=1

RV_PROG=$REVIEW5 RV_NAME=review5.c
. "$here/review_lib.sh"

# plain and lprintf are controls (the escape is seen: a copy; inside
# snprintf, _IO_default_xsputn's copy of the digits from a stack buffer).
for mode in plain alive lprintf lbranch lsetc lsbb lcmov ltable; do
	rec $mode
	vcheck $mode
done

"$REVIEW5" uffdstack >/dev/null 2>&1
if [ $? = 7 ]; then
	ok "review5.c uffdstack: # SKIP no userfaultfd here"
else
	rec uffdstack
	vcheck uffdstack
fi
# rseqwatch: reverse-continue from the loop's end with a watchpoint on
# main's rseq cpu_id (set at the end, where r5_rseq_cpu is known: at the
# loop's end the engine may not know it) must stop at or after the load before the last
# change the program saw (the kernel wrote the word between that load
# and the next, which saw the new value: `inc %r14` is 4 instructions
# after it, the loop's body 5 long).
"$REVIEW5" rseqwatch >/dev/null 2>&1
if [ $? = 7 ]; then
	ok "review5.c rseqwatch: # SKIP fewer than two CPUs"
else
	rm -rf "$tmp/rseqwatch"
	timeout 300 "$PTREC" record -q -o "$tmp/rseqwatch" "$REVIEW5" \
		rseqwatch >"$tmp/rs.out" 2>"$tmp/log"
	ins=$("$PTREC" insns "$tmp/rseqwatch" 2>/dev/null)
	e=$(echo "$ins" | grep -m1 'mov  *%r14,.*<r5_changes>' | cut -f1)
	i=$(echo "$ins" | grep 'inc  *%r14$' | tail -1 | cut -f1)
	if ! grep -q 'rseq changes [12]' "$tmp/rs.out" || [ -z "$i" ]; then
		ok "review5.c rseqwatch: # SKIP no migration seen ($(cat "$tmp/rs.out"))"
	else
		lo=$((i - 9))
		timeout 300 "$PTREC" replay "$tmp/rseqwatch" -batch \
			-ex "set pagination off" -ex "ptrec goto end" \
			-ex "watch -l *(int *)r5_rseq_cpu" -ex "ptrec goto $e" \
			-ex "echo @@rc\n" \
			-ex "reverse-continue" -ex "ptrec position" \
			>"$tmp/gdb.out" 2>&1
		got=$(sed -n '/^@@rc/,$p' "$tmp/gdb.out" |
			grep -E 'position [0-9]+ of' | tail -1)
		pos=$(echo "$got" | sed -n 's/.*position \([0-9]*\) of.*/\1/p')
		if [ -n "$pos" ] && [ "$pos" -ge "$lo" ]; then
			ok "review5.c rseqwatch: reverse-continue stops at $pos (the kernel wrote after $lo)"
		else
			bad "review5.c rseqwatch: missed write: reverse-continue from $e: $got (the kernel rewrote rseq cpu_id between $lo and $((i - 4)))"
		fi
	fi
fi
# sigframe: from the handler's third instruction, reverse-continue must
# stop at the delivery: not before the kill(2) system call (the handler's
# first instruction is right after it).
delivery sigframe r5_sig_h 'r5_si->si_signo' si_signo
tap_end values-review5
