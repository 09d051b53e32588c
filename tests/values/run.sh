#!/bin/sh
# Values in the past (#17) against the ground truth: records test programs
# with `ptrec record --ground-truth` (which stores every register after
# every instruction) and checks with valcheck that every register value
# the recovery engine says it knows, at every position, equals the truth.
# Zero wrong values is the requirement; the share known is printed.
# Three groups of cases live in files it sources (frames.sh, files.sh,
# ramp.sh), numbered in its TAP sequence.
set -u
: "${PTREC:?}" "${VALCHECK:?}" "${PROGS:?}"
here=$(cd "$(dirname "$0")" && pwd)
testlib_dir=$here/..
. "$testlib_dir/lib.sh"
tap_begin values
# Every valcheck below also fails on a conflict (known bits that two
# derivations disagree on: one of them is unsound, whether or not a
# register it compares is wrong).
export VALCHECK_CONFLICTS=0

# truth_rec DIR PROG [ARG...]: PROG recorded with the ground truth into
# $tmp/DIR (its output in $tmp/log).
truth_rec() {
	d=$1
	shift
	rm -rf "${tmp:?}/$d"
	timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/$d" "$@" \
		>"$tmp/log" 2>&1
}

# truth_check DIR: $tmp/DIR was recorded and valcheck (its report in
# $tmp/out) finds no wrong value.
truth_check() {
	[ -f "$tmp/$1/manifest.json" ] && "$VALCHECK" "$tmp/$1" >"$tmp/out" 2>&1
}

# valcheck's summary line in $tmp/out, for an ok line.
distance() { grep 'distance all' "$tmp/out" | sed 's/  */ /g'; }

# last_at DIR ERE: the position of the last instruction of $tmp/DIR whose
# disassembly matches ERE (empty if none).
last_at() {
	"$PTREC" insns "$tmp/$1" 2>/dev/null | grep -E "$2" | tail -1 | cut -f1
}

# The cases below take getpid()'s result as a value the engine does not
# know: recorded as by a recorder that writes no system call results
# (ptrec.ko, the importers; record/emu_step.c's test knob).  These nine
# programs are recorded with them, and every value the results give is
# checked against the truth.
export PTREC_EMU_TEST_NO_SYSRET=1
for prog in tiny loops indirect signal segv threads fork jmp plt; do
	[ -x "$PROGS/$prog" ] || continue
	(unset PTREC_EMU_TEST_NO_SYSRET; truth_rec "$prog" "$PROGS/$prog")
	if [ ! -f "$tmp/$prog/manifest.json" ]; then
		bad "$prog: ptrec record failed: $(tail -3 "$tmp/log")"
		continue
	fi
	if timeout 300 "$VALCHECK" "$tmp/$prog" >"$tmp/out" 2>&1; then
		ok "$prog: no wrong value; $(distance)"
	else
		bad "$prog: wrong values: $(head -5 "$tmp/out")"
	fi
	grep '^distance' "$tmp/out" | sed "s/^/# $prog /"
done

# Registers where a history starts (replay/rcv_first.c, the software
# recorder's REGS record): before loops' first instruction (main's entry)
# every general-purpose register and rflags is known, with the values the
# record holds (the valcheck above checked them against the truth there
# and wherever they flow); without the record r8-r12 and most others are
# unknown there (set by __libc_start_main, not read before main's code
# overwrites them).
if [ -f "$tmp/loops/manifest.json" ]; then
	"$PTREC" values "$tmp/loops" --at 1 >"$tmp/out" 2>&1
	"$PTREC" dump "$tmp/loops/sideband.sb" >"$tmp/dump" 2>&1
	n=$(grep -cE '^(r[a-z0-9]+|eflags) +0x[0-9a-f]+$' "$tmp/out")
	r9=$(sed -n 's/^r9  *0x0*\([0-9a-f]\)/\1/p' "$tmp/out")
	if [ "$n" = 18 ] &&
		grep -q "REGS .* start .* r9 0x${r9:-none} " "$tmp/dump"; then
		ok "loops: every register known at main's entry from the REGS record (r9 0x$r9)"
	else
		bad "loops at its first instruction: $n of 18 known: $(head -20 "$tmp/out" | tr '\n' ' ')"
	fi
fi

# A system call's result (rcv_first.c, the REGS records of the software
# recorder at each call's completion): after loops' one write(2) rax is
# the count of bytes it wrote, what loops prints (no engine derives it
# from the history: the kernel's).
if [ -f "$tmp/loops/manifest.json" ]; then
	at=$(last_at loops '<write\+[0-9]+>:.*syscall')
	"$PTREC" values "$tmp/loops" --at $((${at:-0} + 1)) >"$tmp/out" 2>&1
	rax=$(sed -n 's/^rax  *\(0x[0-9a-f]*\)$/\1/p' "$tmp/out")
	want=$("$PROGS/loops" | wc -c)
	if [ -n "$at" ] && [ -n "$rax" ] && [ $((rax)) = "$want" ]; then
		ok "loops: rax after its write(2) is the count it wrote ($want)"
	else
		bad "loops after write(2) at ${at:-?}: rax ${rax:-unknown}, wrote $want"
	fi
fi

# VALCHECK_ORACLE (replay/rcv_oracle.c, for measurements: docs/values.md
# "The roots rcv_why names"): with every store of unknown address placed
# where the truth's registers put it, loops has no wrong value and knows
# more within 10^4 than without (the oracle is consulted); a bad list is
# refused.
known10k() { awk '$1 == "distance" && $2 == "<=10000" { sub("%", "", $7);
	print $7 }' "$tmp/out"; }
if [ -f "$tmp/loops/manifest.json" ]; then
	"$VALCHECK" "$tmp/loops" >"$tmp/out" 2>&1
	k0=$(known10k)
	if VALCHECK_ORACLE=all "$VALCHECK" "$tmp/loops" >"$tmp/out" 2>&1 &&
		k1=$(known10k) &&
		awk -v a="$k0" -v b="$k1" 'BEGIN { exit !(b > a) }' &&
		! VALCHECK_ORACLE=only: "$VALCHECK" "$tmp/loops" \
			>/dev/null 2>&1; then
		ok "valcheck VALCHECK_ORACLE=all on loops: no wrong value, $k0% -> $k1% within 10^4"
	else
		bad "valcheck VALCHECK_ORACLE=all on loops: ${k0:-?}% -> ${k1:-?}%: $(head -5 "$tmp/out")"
	fi
fi

# Signals right after indirect jumps, indirect calls and returns whose
# call the engine cannot see (tests/values/unsound.c): the handler's
# registers are the kernel's, so nothing may flow across those branches
# unless their targets are proven.  Also in windows of 300 and 1,000
# instructions (a return whose call is in an earlier window).
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "unsound" "$UNSOUND"
	for b in 0 300 1000; do
		if [ -f "$tmp/unsound/manifest.json" ] &&
			VALCHECK_BLOCK=$b "$VALCHECK" "$tmp/unsound" >"$tmp/out" 2>&1; then
			ok "signals after indirect branches (windows ${b}): no wrong value; $(distance)"
		else
			bad "signals after indirect branches (windows ${b}): $(head -5 "$tmp/out" "$tmp/log")"
		fi
	done
fi

. "$here/frames.sh"

# Found in review (unsound.c's "ro" and "bts"): a read-only anonymous
# page zeroed by madvise(MADV_DONTNEED) is not the snapshot's before it;
# bts with a register bit offset writes outside its operand.  "known": a
# store whose address the engine computes hits a saved register's slot
# (frames rebuilt with the values known must see it); "fs": the same
# store through fs while its base points at the slot (arch_prctl);
# "rmw": a counter in memory inverted through add/xor/sub [mem], imm;
# "zf": a taken je after cmp eax, 5 tells eax, not rax; "sys": rflags
# and rcx after getpid with CF, SF and DF set; "sse": values through
# xmm forward and backward (rcv_sse.c); "rofile": a read-only private
# file mapping changed through a shared mapping of its file.
if [ -n "${UNSOUND:-}" ]; then
	for mode in ro bts known fs rmw zf sys sse rofile; do
		truth_rec "$mode" "$UNSOUND" $mode
		# known, fs: the slot's value is also known from the store, so
		# a pair kept across it shows as a conflict, not a wrong value.
		if truth_check "$mode" &&
			grep -q ' 0 conflicts' "$tmp/out"; then
			ok "unsound.c $mode: no wrong value; $(distance)"
		else
			bad "unsound.c $mode: $(head -5 "$tmp/out" "$tmp/log")"
		fi
	done
fi

# Stores of unknown address proven not to have written a byte
# (rcv_alias.c), unsound.c's "alias": four stores that did write the word
# asked about, each with what a careless proof would miss (a later store
# of unknown value, a later store whose value has the end's byte, a later
# store of known address, a base loaded from the word the store itself
# rewrites): no wrong value; and one that did not (movl $-1 far from
# c[1]): rbx, known only from c[1] at the end, is known before it.
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "alias" "$UNSOUND" alias
	apos=$(last_at "alias" 'movl +\$0xffffffff,\(%rcx\)$')
	if [ -n "$apos" ] && truth_check "alias" &&
		grep -q ' 0 conflicts' "$tmp/out" &&
		"$PTREC" values "$tmp/alias" --at "$apos" 2>&1 |
		grep -q '^rbx  *0x0102030405060708$'; then
		ok "unsound.c alias: no wrong value, rbx known across movl \$-1; $(distance)"
	else
		bad "unsound.c alias (at ${apos:-?}): $(head -5 "$tmp/out" "$tmp/log")"
	fi
fi

# unsound.c's "reveal": stores of unknown address against a later load
# of known value (rcv_alias.c's revealed()), the words rewritten before
# the end: movl $-1 that did not write c[1] (rbx, stored there before it,
# known only through the load after it), and two stores that did write
# the word asked about, each followed by a writer the load shows instead
# (a store of unknown value; a store of known address): no wrong value.
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "reveal" "$UNSOUND" reveal
	apos=$(last_at "reveal" 'movl +\$0xffffffff,\(%rcx\)$')
	if [ -n "$apos" ] && truth_check "reveal" &&
		grep -q ' 0 conflicts' "$tmp/out" &&
		"$PTREC" values "$tmp/reveal" --at "$apos" 2>&1 |
		grep -q '^rbx  *0x0102030405060708$'; then
		ok "unsound.c reveal: no wrong value, rbx known across movl \$-1 by a later load; $(distance)"
	else
		bad "unsound.c reveal (at ${apos:-?}): $(head -5 "$tmp/out" "$tmp/log")"
	fi
	# The same in windows of 30 instructions (aligned on the end): the
	# store and the load lie in the window before the last, which does
	# not end at the snapshot.  rbx is then known in all of the last 40
	# positions (all in the asm block) only through the load.
	if [ -f "$tmp/reveal/manifest.json" ] &&
		VALCHECK_BLOCK=30 VALCHECK_REGS=40 "$VALCHECK" "$tmp/reveal" \
		>"$tmp/out" 2>&1 && grep -q ' 0 conflicts' "$tmp/out" &&
		grep -q '^reg  1 known 100.0% within 40$' "$tmp/out"; then
		ok "unsound.c reveal (windows of 30): no wrong value, rbx known by a later load away from the snapshot; $(distance)"
	else
		bad "unsound.c reveal (windows of 30): $(grep -E '^(WRONG|reg  1 )' "$tmp/out" | head -5)"
	fi
fi

# unsound.c's "align": stores through an index scaled into an aligned
# array (rax = arr + 32 * z, z not known: rax's low 5 bits known): one
# did write the word r12 was loaded from (must not be proven away: no
# wrong value), one cannot reach arr[1] (rcv_alias.c's alignment
# argument): rbx, loaded from arr[1] before it, is known after it.
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "align" "$UNSOUND" align
	apos=$(last_at "align" 'mov +%rdx,0x10\(%rax\)$')
	if [ -n "$apos" ] && truth_check "align" &&
		grep -q ' 0 conflicts' "$tmp/out" &&
		"$PTREC" values "$tmp/align" --at $((apos + 1)) 2>&1 |
		grep -q '^rbx  *0x0102030405060708$'; then
		ok "unsound.c align: no wrong value, rbx known across a store the alignment proves away; $(distance)"
	else
		bad "unsound.c align (at ${apos:-?}): $(head -5 "$tmp/out" "$tmp/log")"
	fi
	# ptrec values --why (rp_recover_why()) on the same case: r12,
	# loaded before the store that did write its word, is blamed on
	# that store; rdx, rdtsc's, on rdtsc, an input.
	mpos=$(last_at "align" 'mov +%rdx,0x28\(%rax\)$')
	"$PTREC" values "$tmp/align" --at "${mpos:-0}" --why >"$tmp/why" 2>&1
	if [ -n "$mpos" ] &&
		grep -q "^why r12 .*store-unknown-address at $mpos " "$tmp/why" &&
		grep -q '^why rdx .*root input at .* rdtsc)$' "$tmp/why"; then
		ok "ptrec values --why: r12 blamed on the store that wrote its word, rdx on rdtsc"
	else
		bad "ptrec values --why at ${mpos:-?}: $(grep -E '^why (r12|rdx)' "$tmp/why")"
	fi
fi

# unsound.c's "tlsself": with the snapshot's complete list of rseq
# areas, the thread's control block is not ruled out whole (rcv_fd.c):
# r12 = %fs:0x10 is known from the snapshot, r13 = glibc's rseq cpu_id
# (which the kernel rewrites) never.
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "tlsself" "$UNSOUND" tlsself
	tpos=$(last_at "tlsself" 'mov +%fs:\(%r[a-z0-9]+\),%r13d$')
	"$PTREC" values "$tmp/tlsself" --at $((${tpos:-0} + 1)) \
		>"$tmp/vals" 2>&1
	if [ -n "$tpos" ] && truth_check "tlsself" &&
		grep -q ' 0 conflicts' "$tmp/out" &&
		grep -Eq '^r12 +0x[0-9a-f]{16}$' "$tmp/vals" &&
		! grep -Eq '^r13 +0x[0-9a-f]{16}$' "$tmp/vals"; then
		ok "unsound.c tlsself: the thread's own pointer known through fs, glibc's rseq cpu_id not; no wrong value"
	else
		bad "unsound.c tlsself (at ${tpos:-?}): $(grep -E '^r1[23]' "$tmp/vals") $(head -3 "$tmp/out" "$tmp/log")"
	fi
fi

# unsound.c's "robuf": system calls that write user memory only through
# the buffer they are given (read, newfstatat, TCGETS...) do not cut the
# read-only rule where that buffer's address is not known (the kernel
# refuses a read-only one: the case's second read(2) gets EFAULT): r12,
# a read-only page's byte, is known at the nops after it.
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "robuf" "$UNSOUND" robuf
	# the movzbq of the page's byte; the mov to r12 follows it
	rpos=$(last_at "robuf" 'movzbq +0x10002000,%r')
	[ -n "$rpos" ] && rpos=$((rpos + 1))
	if [ -n "$rpos" ] && truth_check "robuf" &&
		grep -q ' 0 conflicts' "$tmp/out" &&
		"$PTREC" values "$tmp/robuf" --at $((rpos + 1)) 2>&1 |
		grep -q '^r12  *0x0000000000000066$'; then
		ok "unsound.c robuf: no wrong value, r12 known from a read-only page across read(2) into unknown buffers; $(distance)"
	else
		bad "unsound.c robuf (at ${rpos:-?}): $(head -5 "$tmp/out" "$tmp/log") $("$PTREC" values "$tmp/robuf" --at $((${rpos:-0} + 1)) 2>&1 | grep r12)"
	fi
fi

# brkroot.c: what brk writes (rcv_sys.c's brk row, rcv_root.c's range of
# the heap's pages).  No wrong value where a brk zeroed pages a word was
# stored in (regrow, beyond, sbeyond: taking brk to write nothing, or its
# breaks unaligned, or the heap's pages from the snapshot alone, gives the
# stored word), and known across a brk that misses the word: r13 across
# a shrink and a grow inside one page (both breaks known), r8 on the
# stack across a grow; in strict mode no wrong value either.
# reg_after DIR REG: REG one instruction after main's load into it.
reg_after() {
	p=$(last_at "$1" "<main\+[0-9]+>:.*mov +(0x[0-9a-f]+)?\(%r(sp|di|si|dx|cx)\),%$2\$")
	[ -n "$p" ] && "$PTREC" values "$tmp/$1" --at $((p + 1)) 2>&1 |
		awk -v r="$2" '$1 == r { print $2 }'
}
if [ -n "${BRKROOT:-}" ]; then
	truth_rec "brkroot" "$BRKROOT"
	if truth_check "brkroot" && grep -q ' 0 conflicts' "$tmp/out" &&
		[ "$(reg_after brkroot r13)" = 0x7777777777777777 ] &&
		[ "$(reg_after brkroot r8)" = 0x4242424242424242 ] &&
		PTREC_VALUES_STRICT=1 "$VALCHECK" "$tmp/brkroot" \
			>"$tmp/out2" 2>&1; then
		ok "brkroot.c: no wrong value after brk zeroed pages, r13 and r8 known across brk; $(distance)"
	else
		bad "brkroot.c: r13 $(reg_after brkroot r13) r8 $(reg_after brkroot r8): $(head -5 "$tmp/out" "$tmp/log")"
	fi
fi

# symroot.c: stores through one unknown root plus offsets (rcv_root.c
# rcv_root_sym(), rcv_alias.c).  same: r12 known (0) across a store of
# -1 through the root, refuted because a later store through the same
# root is placed by it, also in strict mode (a fact of the machine);
# alias (another root in the same register) and overlap (the same root
# over the word): r12 not known.  reload: r12 known (0) through a later
# store whose root is the pointer read again from its word, kept between
# (docs/values.md "a root read again from its word"), also strict;
# rewrite, rewrite2: the word rewritten between the two reads (a store of
# known, of unknown address): no wrong value (r12 is 0xffffffff where
# the rewrite is not looked for).  No wrong value in any.
if [ -n "${SYMROOT:-}" ]; then
	for c in same alias overlap reload rewrite rewrite2; do
		truth_rec "symroot-$c" "$SYMROOT" "$c"
		p=$(last_at "symroot-$c" '<main\+[0-9]+>:.*mov +0x40\(%rsi\),%r12d$')
		v=$([ -n "$p" ] && "$PTREC" values "$tmp/symroot-$c" \
			--at $((p + 1)) 2>&1 | awk '$1 == "r12" { print $2 }')
		vs=$([ -n "$p" ] && PTREC_VALUES_STRICT=1 "$PTREC" values \
			"$tmp/symroot-$c" --at $((p + 1)) 2>&1 |
			awk '$1 == "r12" { print $2 }')
		z16=0x0000000000000000
		known=yes
		case $c in same | reload)
			[ "$v/$vs" != "$z16/$z16" ] && known=no ;;
		esac
		if truth_check "symroot-$c" && grep -q ' 0 conflicts' "$tmp/out" &&
			[ $known = yes ]; then
			ok "symroot.c $c: no wrong value, r12 $v (strict $vs); $(distance)"
		else
			bad "symroot.c $c (at ${p:-?}): r12 ${v:-?} strict ${vs:-?}: $(head -5 "$tmp/out" "$tmp/log")"
		fi
	done
fi

# symword.c: a store through a pointer read from a known word, refuted by
# the word's end value (rcv_alias.c word_refutes(); docs/values.md "A
# root pinned by its own word").  copy: r12 known (0) across a store of
# unknown value through a copy of the pointer, also strict; self (the
# store writes the word itself), late and known (the word rewritten after
# the store through a pointer not known, at a known address), pinned (the
# later writer's own pointer word rewritten through itself): no wrong
# value (rax, r12 wrong where those writers are not looked for, or where
# a pointer is taken for its word's end value without them).
if [ -n "${SYMWORD:-}" ]; then
	for c in copy self late known pinned; do
		truth_rec "symword-$c" "$SYMWORD" "$c"
		p=$(last_at "symword-$c" '<main\+[0-9]+>:.*mov +0x40\(%rsi\),%r12d$')
		v=$([ -n "$p" ] && "$PTREC" values "$tmp/symword-$c" \
			--at $((p + 1)) 2>&1 | awk '$1 == "r12" { print $2 }')
		vs=$([ -n "$p" ] && PTREC_VALUES_STRICT=1 "$PTREC" values \
			"$tmp/symword-$c" --at $((p + 1)) 2>&1 |
			awk '$1 == "r12" { print $2 }')
		z16=0x0000000000000000
		known=yes
		case $c in copy)
			[ "$v/$vs" != "$z16/$z16" ] && known=no ;;
		esac
		if truth_check "symword-$c" && grep -q ' 0 conflicts' "$tmp/out" &&
			[ $known = yes ]; then
			ok "symword.c $c: no wrong value, r12 $v (strict $vs); $(distance)"
		else
			bad "symword.c $c (at ${p:-?}): r12 ${v:-?} strict ${vs:-?}: $(head -5 "$tmp/out" "$tmp/log")"
		fi
	done
fi

# unsound.c's "jmptgt": with no signal handler in the process, an
# indirect jump went where its operand said (rcv_back.c: the register;
# rcv_rw.c: the word a jump through memory read): r9 before `jmp *%r9`
# and r10, loaded from the word before `jmp *unsound_jw`, are known, and
# nothing else tells them (z unknown, all cleared after), also in strict
# mode (no assumption about the program).  "jmpsig": the
# same where the target faults and a handler's entry follows the jump:
# neither r8 nor r11 may be taken for the handler's address.
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "jmptgt" "$UNSOUND" jmptgt
	jpos=$(last_at "jmptgt" '(main|_case)\+[0-9]+>:.*jmp +\*%r9$')
	kpos=$(last_at "jmptgt" 'mov +0x[0-9a-f]+\(%rip\),%r10 .*<unsound_jw>$')
	if [ -n "$jpos" ] && [ -n "$kpos" ] && truth_check "jmptgt" &&
		grep -q ' 0 conflicts' "$tmp/out" &&
		"$PTREC" values "$tmp/jmptgt" --at "$jpos" 2>&1 |
		grep -Eq '^r9  *0x[0-9a-f]{16}$' &&
		"$PTREC" values "$tmp/jmptgt" --at $((kpos + 1)) 2>&1 |
		grep -Eq '^r10  *0x[0-9a-f]{16}$' &&
		PTREC_VALUES_STRICT=1 "$PTREC" values "$tmp/jmptgt" \
			--at "$jpos" 2>&1 |
		grep -Eq '^r9  *0x[0-9a-f]{16}$'; then
		ok "unsound.c jmptgt: no wrong value, r9 and r10 known from where indirect jumps went; $(distance)"
	else
		bad "unsound.c jmptgt (at ${jpos:-?}, ${kpos:-?}): $(head -5 "$tmp/out" "$tmp/log")"
	fi
	truth_rec "jmpsig" "$UNSOUND" jmpsig
	if truth_check "jmpsig" && grep -q ' 0 conflicts' "$tmp/out"; then
		ok "unsound.c jmpsig: no wrong value after jumps a handler followed; $(distance)"
	else
		bad "unsound.c jmpsig: $(head -5 "$tmp/out" "$tmp/log")"
	fi
fi

# Found by an adversarial review (tests/values/holes.c, one mode each):
# push16/leave16 (an operand-size prefix: rsp moves by 2), clonevm (a
# clone(CLONE_VM) child is another process writing the same memory),
# memfd (a private file mapping follows a shared mapping of the file);
# alias2 (stores of unknown address that did write the word: 16 bytes
# through a loaded base, and a base whose load read(2) later rewrites);
# sigret (rt_sigreturn as 0x10000000f, returning to the next instruction);
# enter (rsp and rbp, and xlat's al, which capstone 4 does not list).
if [ -n "${HOLES:-}" ]; then
	for mode in push16 leave16 clonevm memfd alias2 sigret enter; do
		truth_rec "h-$mode" "$HOLES" $mode
		if truth_check "h-$mode"; then
			ok "holes.c $mode: no wrong value; $(distance)"
		else
			bad "holes.c $mode: $(head -5 "$tmp/out" "$tmp/log")"
		fi
	done
fi

# A thread's stack is its own only until an address in it escapes
# (rcv_escape.c, docs/values.md "Threads and the stack"): another thread
# stores into a flag on the main thread's stack that main polls, its
# address given by pthread_create's argument (stackflag), or, to a thread
# made by a raw clone with every register cleared, through a global
# (escglobal), a heap struct (escheap) or rbx at the clone (escreg); and a
# pushed slot whose address escapes, which the thread rewrites before the
# pop (pairesc: 4 wrong registers before, the forward sweep linking the
# pair past the escape); the same with a push of memory (pmesc: 4 wrong
# with the pairs of pushes of memory kept whatever lies between).
# Recorded with lazy binding off and without AVX (LD_BIND_NOW,
# GLIBC_TUNABLES): the resolver's and EVEX string functions' stack use
# would otherwise end the stack's privacy before the case, and the case
# would pass whatever the rule under test did.  Each escape must be found
# where it happens: before it, main's first read of the flag (r13) is
# known from its store of 0; after, no poll is.
if [ -n "${HOLES:-}" ]; then
	for mode in stackflag escglobal escheap escreg pairesc pmesc; do
		(
			export LD_BIND_NOW=1 GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX2,-AVX,-BMI2,-EVEX
			truth_rec "h-$mode" "$HOLES" $mode
		)
		if truth_check "h-$mode"; then
			ok "holes.c $mode: no wrong value; $(distance)"
		else
			bad "holes.c $mode: $(grep -c WRONG "$tmp/out") wrong: $(head -5 "$tmp/out" "$tmp/log")"
		fi
	done
fi

. "$here/files.sh"

# Read-only memory with another thread (rcv_order.c, tests/values/
# rothreads.c): another thread mprotects (or munmaps and maps again) a
# read-only page and stores 0x77 into it, after the main thread's load of
# its 0x66 (*-after: no wrong value, the rule must order the other
# thread's calls after the load) or before it (*-before: r12 known,
# 0x77, from the snapshot); fd-after: the other thread dup2s
# /proc/self/mem onto stdout around the main thread's write(1) into the
# page, after its load, and puts stdout back (the write must not count as
# harmless).  With the ordering check broken each *-after case gives 2-3
# wrong registers.  By the calls' arguments (rcv_order_effect()): the
# other thread's mprotect of another page (miss-after: r12 known, 0x66),
# a range that covers the page only rounded (round-after), PROT_GROWSDOWN
# (grows-after), mmap with MAP_FIXED (fixed-after), munmap then mmap at
# the hint (unmap-after), and the thread's own mprotect of the page
# (own-after) or of another (ownmiss-after: known, 0x66); by the
# protection alone, ranges not known (rcv_sys_prot_write()): the page
# made writable and read-only again (wprot-after: a rule taking any
# mprotect, or a known PROT_WRITE bit whatever its value, gives 0x77) or
# another page made writable (wprotok-after: known, 0x66); a brk of
# unknown break before a file's page (rcv_sys_keeps_file()): one that
# unmapped it, then a file mapped there again without MAP_FIXED
# (brkfile-after: taking the brk as harmless with no look at later file
# mappings gives 0x7f), or a shrink elsewhere (brkfileok-after: 0x7f).
if [ -n "${ROTHREADS:-}" ]; then
	for mode in mprotect-after mprotect-before remap-after remap-before \
		fd-after miss-after round-after grows-after fixed-after \
		unmap-after own-after ownmiss-after wprot-after \
		wprotok-after brkfile-after brkfileok-after; do
		truth_rec "ro-$mode" "$ROTHREADS" $mode
		rpos=$(last_at "ro-$mode" \
			'movzbq +(0x200000[01]0|\(%r15\)),%r12$')
		want='^r12 +0x[0-9a-f?]*\?'	# not known
		case $mode in
		*-before) want='^r12 +0x0*77$' ;;
		miss-after|ownmiss-after|wprotok-after)
			want='^r12 +0x0*66$' ;;
		brkfileok-after) want='^r12 +0x0*7f$' ;;
		esac
		if [ -n "$rpos" ] && truth_check "ro-$mode" &&
			"$PTREC" values "$tmp/ro-$mode" --at $((rpos + 1)) 2>&1 |
			grep -Eq "$want"; then
			ok "rothreads.c $mode: no wrong value, r12 as it must be; $(distance)"
		else
			bad "rothreads.c $mode (at ${rpos:-?}): $(grep -c WRONG "$tmp/out") wrong; $("$PTREC" values "$tmp/ro-$mode" --at $((${rpos:-0} + 1)) 2>&1 | grep '^r12') $(head -3 "$tmp/log")"
		fi
	done
fi

# mprotect of a range and a protection not known (through a pipe) against
# the program's read-only data, which holds 0x66 from the recording's
# start (rcv_prot.c, tests/values/protrec.c): after the load, the main
# thread (own-after) or another (thr-after) makes the page writable,
# stores 0x77 and makes it read-only again (r12 unknown: with the
# recorder's MPROTECT records after the start ignored, 4 wrong), or
# mprotects it PROT_READ, what it is (ownsame-after, thrsame-after: no
# record covers the page, r12 known, 0x66); or writes 0x77 into it
# through /proc/self/mem (memw-after: no record, but no mprotect either:
# unknown; every call let pass as a brk is, 4 wrong).
if [ -n "${PROTREC:-}" ]; then
	for mode in own-after thr-after ownsame-after thrsame-after \
		memw-after; do
		truth_rec "pr-$mode" "$PROTREC" $mode
		rpos=$(last_at "pr-$mode" 'movzbq +0x[0-9a-f]+\(%rip\),%r12')
		want='^r12 +0x[0-9a-f?]*\?'	# not known
		case $mode in
		*same-after) want='^r12 +0x0*66$' ;;
		esac
		if [ -n "$rpos" ] && truth_check "pr-$mode" &&
			"$PTREC" values "$tmp/pr-$mode" --at $((rpos + 1)) 2>&1 |
			grep -Eq "$want"; then
			ok "protrec.c $mode: no wrong value, r12 as it must be; $(distance)"
		else
			bad "protrec.c $mode (at ${rpos:-?}): $(grep -c WRONG "$tmp/out") wrong; $("$PTREC" values "$tmp/pr-$mode" --at $((${rpos:-0} + 1)) 2>&1 | grep '^r12') $(head -3 "$tmp/log")"
		fi
	done
fi

# A child's registers from its creator's at the clone (rcv_clone.c,
# tests/values/clonereg.c): two raw clone(2) threads made with r12 0x1111
# and 0x2222 and stacks of their own, and a fork(2) child with r12
# 0x3333, each copying r12 to rbx and clearing both: r12 and rsp known at
# the copy (the creator's call before the right one gives 19 wrong, the
# creator's rsp for a new stack 16).
if [ -n "${CLONEREG:-}" ]; then
	for mode in two fork; do
		truth_rec "cr-$mode" "$CLONEREG" $mode
		good=0 kids=0
		if truth_check "cr-$mode"; then
			for t in $("$PTREC" info "$tmp/cr-$mode" |
				awk '/^  thread/ { print $2 }' | tail -n +2); do
				kids=$((kids + 1))
				"$PTREC" values "$tmp/cr-$mode" --thread "$t" \
					--at 4 >"$tmp/crv" 2>&1
				grep -Eq '^r12 +0x0*(1111|2222|3333)$' "$tmp/crv" &&
					grep -Eq '^rsp +0x[0-9a-f]+$' "$tmp/crv" &&
					good=$((good + 1))
			done
		fi
		want=2
		[ $mode = fork ] && want=1
		if [ $kids = $want ] && [ $good = $want ]; then
			ok "clonereg.c $mode: no wrong value, the children's r12 and rsp known; $(distance)"
		else
			bad "clonereg.c $mode: $(grep -c WRONG "$tmp/out") wrong, $good of $kids children known; $(head -3 "$tmp/log")"
		fi
	done
fi

# An xchg of unknown address, its old value shown by `cmp $1; jg` after
# it (rcv_xchg.c, tests/values/xchgref.c): miss (another word: r12 known,
# 3) and hit (the word itself: 0 wrong; a refutation blind to the jump's
# direction says 3).
if [ -n "${XCHGREF:-}" ]; then
	for mode in miss hit; do
		truth_rec "xc-$mode" "$XCHGREF" $mode
		rpos=$(last_at "xc-$mode" 'movzbq +0x[0-9a-f]+\(%rip\),%r12')
		want='^r12 '
		[ $mode = miss ] && want='^r12 +0x0*3$'
		if [ -n "$rpos" ] && truth_check "xc-$mode" &&
			"$PTREC" values "$tmp/xc-$mode" --at $((rpos + 1)) 2>&1 |
			grep -Eq "$want"; then
			ok "xchgref.c $mode: no wrong value, r12 as it must be; $(distance)"
		else
			bad "xchgref.c $mode (at ${rpos:-?}): $(grep -c WRONG "$tmp/out") wrong; $("$PTREC" values "$tmp/xc-$mode" --at $((${rpos:-0} + 1)) 2>&1 | grep '^r12') $(head -3 "$tmp/log")"
		fi
	done
fi

# The bit instructions (rcv_bits.c; tests/values/bits.c): before the
# exit that overwrites every register, the results of bsf, bsr, popcnt,
# tzcnt, bts, xadd, shld, andn+blsr, bextr, pdep and pext known (main
# before rcv_bits.c: none, and not even the word they read, which each
# unmodelled instruction's source cut), and no value wrong.  Exit status
# 3: no BMI1/BMI2, skipped.
if [ -n "${BITS:-}" ]; then
	if "$BITS"; [ $? = 3 ]; then
		ok "bits.c # SKIP no BMI1/BMI2 here"
	else
		truth_rec bits "$BITS"
		p=$("$PTREC" insns "$tmp/bits" 2>/dev/null |
			grep -E '>:.*rdtsc' | tail -1 | cut -f1)
		v=$([ -n "$p" ] && "$PTREC" values "$tmp/bits" --at "$p" \
			2>&1 | awk '$1 ~ /^(rax|rbx|rdx|rsi|rdi|r[0-9]+)$/ {
				printf "%s=%s ", $1, $2 }')
		if truth_check bits && grep -q ' 0 conflicts' "$tmp/out" &&
			[ -n "$v" ] && ! echo "$v" | grep -q 'unknown\|?'; then
			ok "bits.c: no wrong value, every result known; $(distance)"
		else
			bad "bits.c (at ${p:-?}): $v: $(grep -c WRONG "$tmp/out") wrong; $(head -3 "$tmp/out" "$tmp/log")"
		fi
	fi
fi

# Write extents (rcv_extent.c, rcv_alias.c stos_refutes(); tests/values/
# extent.c): r12 and r13 before the case's xsave or string store, loaded
# from words it misses (known: the end's through it) or writes (not
# known); no wrong value in any.  xsfar, xsc: r12 past the XSAVE area
# known (0), xsc's r13 (read back from the area after it) checked by
# valcheck alone; xsnext: r12 in the
# AVX component not known; stdown: std; rep stosq, r12 inside the run
# below rdi not known, r13 past its top known (0); stnone (rcx 0), stdiff
# (its byte is not g's), stnear (a run of 32 over g would meet a zero):
# r12 known with rdi not known; stsame (the end's byte is the stored
# one), stgap (one run of 32 fits): not known.  Exit status 3: an XSAVE
# size the program has no branch for, skipped.
if [ -n "${EXTENT:-}" ]; then
	for c in xsfar xsnext xsc stdown stnone stsame stdiff stnear stgap; do
		if "$EXTENT" "$c"; [ $? = 3 ]; then
			ok "extent.c $c # SKIP no branch for this XSAVE size"
			continue
		fi
		truth_rec "ext-$c" "$EXTENT" "$c"
		p=$("$PTREC" insns "$tmp/ext-$c" 2>/dev/null |
			grep -E '>:.*(xsave|stos)' | tail -1 | cut -f1)
		v=$([ -n "$p" ] && "$PTREC" values "$tmp/ext-$c" --at "$p" \
			2>&1 | awk '$1 == "r12" || $1 == "r13" {
				printf "%s=%s ", $1, $2 }')
		z=0x0000000000000000
		case $c in
		xsfar | xsc | stnone | stdiff) want="r12=$z " ;;
		stdown) want="r12=0x00000000???????? r13=$z" ;;
		stnear) want="r12=0x00000000aaaaaaaa " ;;
		*) want="r12=0x00000000???????? " ;;
		esac
		if truth_check "ext-$c" && grep -q ' 0 conflicts' "$tmp/out" &&
			case "$v" in "$want"*) true ;; *) false ;; esac; then
			ok "extent.c $c: no wrong value, $v; $(distance)"
		else
			bad "extent.c $c (at ${p:-?}): $v (want $want): $(grep -c WRONG "$tmp/out") wrong; $(head -3 "$tmp/out" "$tmp/log")"
		fi
	done
	# The engine's XSAVE bound, the snapshot's NT_X86_XSTATE length,
	# is at least CPUID.(0xD,0).EBX, the size for XCR0.
	xs_cpu=$("$EXTENT" size)
	xs_snap=$("$PTREC" dump "$tmp/ext-stnone" 2>/dev/null |
		sed -n 's/.*xstate \([0-9]*\) bytes.*/\1/p' | head -1)
	if [ -n "$xs_cpu" ] && [ -n "$xs_snap" ] &&
		[ "$xs_snap" -ge "$xs_cpu" ]; then
		ok "extent.c: the snapshot's xstate ($xs_snap bytes) covers CPUID's XSAVE size ($xs_cpu)"
	else
		bad "extent.c: the snapshot's xstate ${xs_snap:-?} bytes, CPUID's XSAVE size ${xs_cpu:-?}"
	fi
fi

# Other threads' stores in time (rcv_xthr.c, tests/values/xthreads.c):
# the main thread's load of a byte another thread stores into right after
# it (after: r12 0x66, from the main thread's own store before the load),
# between its own store and the load and again after (between: not known;
# with the other thread's writes ignored, 0x66 and 20 wrong), before it
# and ends (before), or fills by read(2) racing with the load (kernel):
# 0 wrong with VALCHECK_BITS=1.  And a store of unknown address after the
# load (rcv_alias.c's value argument where other threads write): alias
# (r12 0x22 from the end, which no placement of the store shows; not
# known without the rule), aliasw (the other thread's store after it
# into the next word: not known; taking the end's bytes across that
# store says 0xff, 8 wrong).  And the other thread's store through a
# pointer it reloads, placed by its own engine ordering the main thread's
# writes in turn (rcv_xthr.c's levels): level (r12 0x55 from the end; not
# known when that engine orders nothing), levelw (the main thread rewrote
# the pointer between: not known; with that engine ignoring the main
# thread's writes, 0x77 and 3 wrong).  The other thread's mprotect of the
# page after the load (mprot: r12 0x55 from the end, a change of
# protection writing no byte) and madvise(MADV_DONTNEED) (madv: not known;
# with every mapping call taken to write nothing, 0 and 3 wrong).  A byte
# of the other thread's stack within 16 KiB of its thread pointer (near:
# 0x55 from the end; not known while those 32 KiB were never ordered) and
# of its rseq area's cpu_id, which the kernel rewrites when the thread
# moves to another CPU after the load (rseq, with two CPUs or more: not
# known; with the snapshot's rseq areas not excluded either, 3 wrong).
if [ -n "${XTHREADS:-}" ]; then
	modes="after between before kernel alias aliasw level levelw mprot madv near"
	[ "$(nproc)" -ge 2 ] && modes="$modes rseq"
	for mode in $modes; do
		truth_rec "xt-$mode" "$XTHREADS" $mode
		at='movzbq +0x30000000,%r12$'
		case $mode in
		alias*|level*|mprot|madv) at='movzbq +0x30000107,%r12$' ;;
		near|rseq) at='movzbq +\(%rax\),%r12$' ;;
		esac
		rpos=$(last_at "xt-$mode" "$at")
		want='^r12 '
		case $mode in
		after) want='^r12 +0x0*66$' ;;
		between|aliasw|levelw|madv|rseq)
			want='^r12 +0x[0-9a-f?]*\?' ;;
		alias) want='^r12 +0x0*22$' ;;
		level|mprot|near) want='^r12 +0x0*55$' ;;
		esac
		if [ -n "$rpos" ] && [ -f "$tmp/xt-$mode/manifest.json" ] &&
			VALCHECK_BITS=1 "$VALCHECK" "$tmp/xt-$mode" \
				>"$tmp/out" 2>&1 &&
			"$PTREC" values "$tmp/xt-$mode" --at $((rpos + 1)) 2>&1 |
			grep -Eq "$want"; then
			ok "xthreads.c $mode: no wrong value, r12 as it must be; $(distance)"
		else
			bad "xthreads.c $mode (at ${rpos:-?}): $(grep -c WRONG "$tmp/out") wrong; $("$PTREC" values "$tmp/xt-$mode" --at $((${rpos:-0} + 1)) 2>&1 | grep '^r12') $(head -3 "$tmp/log")"
		fi
	done
	# --why follows the span between the other thread's writes (rcv_why.c):
	# aliasw's r12 is cut by the main thread's own store of unknown
	# address after the load, which it names (before: "shared" at the
	# load itself).
	rpos=$(last_at xt-aliasw 'movzbq +0x30000107,%r12$')
	spos=$(last_at xt-aliasw 'movq +\$0xffffffffffffffff,\(%rax\)$')
	if [ -n "$rpos" ] && [ -n "$spos" ] &&
		"$PTREC" values "$tmp/xt-aliasw" --at $((rpos + 1)) --why 2>&1 |
		grep -q "^why r12 .*store-unknown-address at $spos "; then
		ok "xthreads.c aliasw --why: r12 blamed on the main thread's store at $spos, not on the shared load"
	else
		bad "xthreads.c aliasw --why (at ${rpos:-?}, store ${spos:-?}): $("$PTREC" values "$tmp/xt-aliasw" --at $((${rpos:-0} + 1)) --why 2>&1 | grep '^why r12')"
	fi
fi

# Review 2 (tests/values/review2.c; docs/values.md "Signals" and "Read-only
# memory"): a signal delivered on a system call's return must not pass
# the registers from before the call into the handler, whole (sigkill:
# kill by a raw syscall, 15 wrong before; RCV_I_XFER) or in part (sigbits:
# upper halves known 0 from glibc's 32-bit moves, 3 wrong), nor, through
# a direct branch to the handler's entry that was not taken, the ones
# from before the branch (sigill: `jne handler` then ud2, the trace's
# asynchronous disable is the evidence; 28 wrong before).  Each case
# with VALCHECK_BITS=1: the bits known of registers not known whole too.
if [ -n "${REVIEW2:-}" ]; then
	for mode in sigkill sigbits sigill; do
		truth_rec "r2-$mode" "$REVIEW2" $mode
		if VALCHECK_BITS=1 truth_check "r2-$mode"; then
			ok "review2.c $mode: no wrong value; $(distance)"
		else
			bad "review2.c $mode: $(grep -c WRONG "$tmp/out") wrong: $(head -5 "$tmp/out" "$tmp/log")"
		fi
	done
fi

# Review 4 (tests/values/review4.c, each fixed case; docs/values.md
# "Memory"): truncation (ftruncate, O_TRUNC) drops even a private
# mapping's copies, munmap lets a MAP_GROWSDOWN mapping grow over the
# range, MADV_FREE pages may read zero any time after, a handler entered
# at a system call's fall-through, a CLONE_VM child made by i386's clone.
if [ -n "${REVIEW4:-}" ]; then
	for mode in trunc truncro truncrnd truncu otruncu grow madvfree \
		fallsig clone80; do
		truth_rec "r4-$mode" "$REVIEW4" $mode
		if VALCHECK_BITS=1 VALCHECK_CONFLICTS=0 truth_check "r4-$mode"
		then
			ok "review4.c $mode: no wrong value; $(distance)"
		else
			bad "review4.c $mode: $(grep -c WRONG "$tmp/out") wrong: $(head -5 "$tmp/out" "$tmp/log")"
		fi
	done
fi

# A gap (tests/gdb/watchjit.S: code generated into an anonymous mapping,
# which the replay does not show and the truth does): valcheck aligns the
# positions after it to the truth's records (tests/tools/truthalign.c),
# so they are compared too: none skipped (VALCHECK_IPSKIP=0), 0 wrong.
if [ -n "${JITPROG:-}" ]; then
	truth_rec jit "$JITPROG"
	if VALCHECK_BITS=1 VALCHECK_IPSKIP=0 truth_check jit; then
		ok "watchjit.S: positions after the gap checked, no wrong value; $(distance)"
	else
		bad "watchjit.S: $(grep -c WRONG "$tmp/out") wrong, $(grep IPSKIP "$tmp/out"): $(head -5 "$tmp/out" "$tmp/log")"
	fi
fi

# ... and a read-only page (0x66) that something the engine must count
# changes after the main thread's load, with no system call of its own
# after it: r12 right after the load must be unknown or 0x66, never the
# end's value.  vforkvm: a vfork child's clone(CLONE_VM) grandchild
# (rcv_vm_shared() skipped vfork children and so their children: r12
# 0x77, 10 wrong); untraced: a clone(CLONE_VM | CLONE_UNTRACED) child,
# which ptrace does not follow unless the recorder takes the flag out
# (9 wrong before); untraced3: clone3 with it (and CLONE_VFORK), whose
# child must be recorded (2 threads) and whose flags word the program
# must find as it wrote it (exit status 3 if not); untraced-kept:
# untraced recorded with the flag kept (PTREC_EMU_KEEP_UNTRACED=1, as
# recorders before the fix did): one thread recorded, and the engine must
# see a clone without a recorded child (rcv_order_aio()); uring: a timeout
# hard-linked to IORING_OP_MADVISE(MADV_DONTNEED) zeroes the page 10 ms
# after io_uring_enter returned (rcv_order_aio(): no read-only, private
# memory or descriptor rule after io_uring_setup; 4 wrong before), skipped
# where io_uring_setup fails (seccomp, sysctl).
if [ -n "${REVIEW2:-}" ]; then
	r2modes="vforkvm untraced untraced3 untraced-kept"
	if "$REVIEW2" uring-probe; then
		r2modes="$r2modes uring"
	else
		ok "review2.c uring # SKIP io_uring_setup fails here"
	fi
	for mode in $r2modes; do
		if [ $mode = untraced-kept ]; then
			PTREC_EMU_KEEP_UNTRACED=1 truth_rec "r2-$mode" \
				"$REVIEW2" untraced
		else
			truth_rec "r2-$mode" "$REVIEW2" $mode
		fi
		rpos=$(last_at "r2-$mode" 'movzbq +0x20000000,%r12$')
		r12=$("$PTREC" values "$tmp/r2-$mode" --at $((${rpos:-0} + 1)) \
			2>&1 | grep '^r12')
		"$PTREC" info "$tmp/r2-$mode" >"$tmp/info" 2>&1
		nthr=$(sed -n 's/^threads: *//p' "$tmp/info")
		want=2	# the task that changes the page is recorded
		[ $mode = uring ] && want=1	# the kernel changes it
		[ $mode = untraced-kept ] && want=1	# not followed
		if [ -n "$rpos" ] && VALCHECK_BITS=1 truth_check "r2-$mode" &&
			[ "${nthr:-0}" -ge $want ] &&
			! grep -q ': exit [1-9]' "$tmp/info" && echo "$r12" |
			grep -Eq '^r12 +(0x0*66|0x[0-9a-f?]*\?)'; then
			ok "review2.c $mode: no wrong value, r12 not the end's, $nthr threads; $(distance)"
		else
			bad "review2.c $mode (at ${rpos:-?}, ${nthr:-?} threads): $(grep -c WRONG "$tmp/out") wrong; $r12; $(head -3 "$tmp/out" "$tmp/log")"
		fi
	done
fi

. "$here/ramp.sh"

# Without a snapshot (--no-snapshot): the final registers and the
# history alone.
rm -rf "$tmp/nosnap"
timeout 120 "$PTREC" record --ground-truth --no-snapshot -q -o "$tmp/nosnap" \
	"$PROGS/loops" >/dev/null 2>&1
if [ -f "$tmp/nosnap/manifest.json" ] && [ ! -e "$tmp/nosnap/snapshot.ptsnap" ] &&
	"$VALCHECK" "$tmp/nosnap" >"$tmp/out" 2>&1; then
	ok "loops without a snapshot: no wrong value; $(distance)"
else
	bad "loops without a snapshot: $(head -5 "$tmp/out")"
fi

# A fact from outside the history (rp_recover_assume(), what the GDB
# server's frames give): the truth's rsp where the engine does not know
# it is taken and teaches no wrong value; a false one where it knows
# rsp is refused.  On the first recording of these with a position whose
# rsp the engine does not know (loops' and threads' is known at every
# position: reloads link frames, docs/values.md "A callee's own frame",
# and the REGS record gives it at the start); none may take a false one.
assumed=
for prog in signal jmp segv threads; do
	[ -f "$tmp/$prog/manifest.json" ] || continue
	if ! VALCHECK_ASSUME=1 "$VALCHECK" "$tmp/$prog" >"$tmp/out" 2>&1 ||
		grep -q 'a false one at [0-9]*: taken$' "$tmp/out"; then
		assumed="$prog: $(grep -E 'assumed|WRONG' "$tmp/out" | head -5)"
		break
	fi
	if grep -q 'assumed the true rsp at [0-9]*: taken, a false one at [0-9]*: refused$' "$tmp/out"; then
		assumed=ok
		break
	fi
done
if [ "$assumed" = ok ]; then
	ok "$prog with an assumed rsp: no wrong value, a false rsp refused; $(distance)"
else
	bad "an assumed rsp: ${assumed:-no recording with an rsp unknown}"
fi

# Chained windows and windows beyond the chain (the engine's 16 windows
# back from the end, then windows on their own), on a short history.
if [ -f "$tmp/loops/manifest.json" ]; then
	for b in 1000 300; do
		if VALCHECK_BLOCK=$b "$VALCHECK" "$tmp/loops" >"$tmp/out" 2>&1 &&
			grep -q "[0-9][0-9] windows" "$tmp/out"; then
			ok "loops in windows of $b: no wrong value; $(distance)"
		else
			bad "loops in windows of $b: $(head -5 "$tmp/out")"
		fi
	done
fi

# The checker itself: a truth with one register changed is caught.
if [ -f "$tmp/loops/manifest.json" ]; then
	cp -r "$tmp/loops" "$tmp/forged"
	gt=$(ls "$tmp/forged/truth/"*.gt | head -1)
	size=$(stat -c %s "$gt")
	# rsp (register 7) in the third record from the end (the last is the
	# exit syscall, without registers; the one before is the end state).
	off=$((size - 3 * 152 + 16 + 7 * 8))
	printf '\001' | dd of="$gt" bs=1 seek=$off conv=notrunc 2>/dev/null
	"$VALCHECK" "$tmp/forged" >"$tmp/out" 2>&1
	[ $? -eq 1 ] && grep -q WRONG "$tmp/out" &&
		ok "valcheck: a forged truth register is reported wrong" ||
		bad "valcheck: forged truth not caught: $(tail -3 "$tmp/out")"
fi
# Histories that end at a fault (tests/values/crash.c): the snapshot's
# rflags has RF set (the processor's image for the fault), after the last
# instruction it is clear; inside a rep string instruction the snapshot's
# rcx, rsi, rdi and the bytes copied so far are not those after the last
# instruction (rep: 26 wrong registers and 24 conflicts before
# rcv_end.c, the others 4 conflicts each; represume: the handler lets
# the copy resume, the history goes on).  Whole windows and windows of
# 300.
if [ -n "${CRASH:-}" ]; then
	for mode in segv div ud2 rep represume thread; do
		truth_rec "c-$mode" "$CRASH" $mode
		for b in 0 300; do
			if [ -f "$tmp/c-$mode/manifest.json" ] &&
				VALCHECK_BLOCK=$b "$VALCHECK" "$tmp/c-$mode" \
				>"$tmp/out" 2>&1; then
				ok "crash.c $mode (windows $b): no wrong value, no conflict; $(distance)"
			else
				bad "crash.c $mode (windows $b): $(grep -E 'WRONG|CONFLICTS' "$tmp/out" | head -5) $(tail -3 "$tmp/log")"
			fi
		done
	done
fi
# The demo (its third thread dies of SIGSEGV) and tests/gdb/values.c
# (ends at a SIGSEGV): 3 and 6 conflicts before (5 in windows of 1,000).
for p in ${DEMO:+demo} ${GDBVALUES:+gdbvalues}; do
	[ $p = demo ] && bin=$DEMO || bin=$GDBVALUES
	truth_rec "$p" "$bin"
	for b in 0 1000; do
		if [ -f "$tmp/$p/manifest.json" ] &&
			VALCHECK_BLOCK=$b "$VALCHECK" "$tmp/$p" >"$tmp/out" 2>&1; then
			ok "$p (windows $b): no wrong value, no conflict; $(distance)"
		else
			bad "$p (windows $b): $(grep -E 'WRONG|CONFLICTS' "$tmp/out" | head -5) $(tail -3 "$tmp/log")"
		fi
	done
done
# VALCHECK_ORACLE=all on the demo: xsavec's area is not its operand's 64
# bytes, so the oracle places no xsave (rcv_oracle.c); placing it there
# refuted it for the bytes past them, 5 wrong (the lazy binding of
# pthread_join over pthread_create's dead frame, known to the end since
# other threads' engines order writes too).
if [ -f "$tmp/demo/manifest.json" ]; then
	if VALCHECK_ORACLE=all VALCHECK_BITS=1 "$VALCHECK" "$tmp/demo" \
		>"$tmp/out" 2>&1; then
		ok "valcheck VALCHECK_ORACLE=all on the demo: no wrong value; $(distance)"
	else
		bad "valcheck VALCHECK_ORACLE=all on the demo: $(grep -E 'WRONG|CONFLICTS' "$tmp/out" | head -5)"
	fi
fi
# ptrec values: at the end, the final registers; just before, what the
# last instruction implies (rsp of loops' _exit is known); bad arguments
# named.
if [ -f "$tmp/loops/manifest.json" ]; then
	end=$("$PTREC" values "$tmp/loops" --at 999999999 2>&1 |
		sed -n 's/.*(\([0-9]*\): its end).*/\1/p')
	"$PTREC" values "$tmp/loops" --at "$end" >"$tmp/end" 2>&1
	"$PTREC" values "$tmp/loops" --at $((end - 1)) --mem 0 --len 8 \
		>"$tmp/before" 2>&1
	if [ -n "$end" ] && grep -q '^rsp  *0x' "$tmp/end" &&
		grep -q '^rsp  *0x' "$tmp/before" &&
		grep -q '^0x0000000000000000: ?? ?? ?? ?? ?? ?? ?? ??' "$tmp/before"; then
		ok "ptrec values: registers at and before the end, unknown memory as ??"
	else
		bad "ptrec values: $(cat "$tmp/end" "$tmp/before" | head -8)"
	fi
	"$PTREC" values "$tmp/loops" >"$tmp/out" 2>&1
	st=$?
	"$PTREC" values "$tmp/loops" --at 0 >>"$tmp/out" 2>&1
	st2=$?
	"$PTREC" values "$tmp/loops" --at 1 --thread 1 >>"$tmp/out" 2>&1
	st3=$?
	if [ $st -eq 2 ] && [ $st2 -eq 1 ] && [ $st3 -eq 1 ] &&
		grep -q -- '--at N is required' "$tmp/out" &&
		grep -q -- '--at 0: thread [0-9]* has instructions 1 to' "$tmp/out" &&
		grep -q -- '--thread 1: no such thread' "$tmp/out"; then
		ok "ptrec values: a missing --at, --at 0 and a bad thread are named"
	else
		bad "ptrec values bad arguments ($st $st2 $st3): $(cat "$tmp/out")"
	fi
fi
# A thread's exit (rcv_xthr.c, tests/values/exitrob.c): its robust
# futex word (FUTEX_OWNER_DIED set) and clear_child_tid word (0), read
# before and after it; an exit taken to write nothing, or only the
# clear_child_tid word, gives wrong values.  After the loads r12 and r13
# are known from the snapshot.
if [ -n "${EXITROB:-}" ]; then
	truth_rec exitrob "$EXITROB"
	rpos=$(last_at exitrob 'mov +0x[0-9a-f]+\(%rip\),%r13d')
	if [ -n "$rpos" ] && [ -f "$tmp/exitrob/manifest.json" ] &&
		VALCHECK_BITS=1 "$VALCHECK" "$tmp/exitrob" >"$tmp/out" 2>&1 &&
		"$PTREC" values "$tmp/exitrob" --at $((rpos + 1)) >"$tmp/end" \
			2>&1 &&
		grep -Eq '^r12 +0x0*40000000$' "$tmp/end" &&
		grep -Eq '^r13 +0x0+$' "$tmp/end"; then
		ok "exitrob.c: no wrong value, r12 and r13 known; $(distance)"
	else
		bad "exitrob.c (at ${rpos:-?}): $(grep -E 'WRONG|CONFLICTS' "$tmp/out" | head -3) $(grep -E '^r1[23] ' "$tmp/end" 2>/dev/null) $(tail -3 "$tmp/log")"
	fi
fi
tap_end values
