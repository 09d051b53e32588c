# Sourced by run.sh (values-test), not run alone: the ramp (rcv_sum.c),
# a register set once and changed in a long loop, in general registers
# and xmm, in windows whose chain does not reach its mov.  Split from
# run.sh along that seam; it uses run.sh's helpers and numbers its TAP
# lines in run.sh's sequence.

# warm_known DIR REG N WARM [BLOCK0]: valcheck on $tmp/DIR in windows of
# 300 (warm-up WARM; windows of BLOCK0 asked first) finds no wrong value,
# no conflict, and register REG (two digits) known, 99% or more, in the
# last N positions; its report in $tmp/out.
warm_known() {
	[ -f "$tmp/$1/manifest.json" ] &&
		VALCHECK_BLOCK0=${5:-} VALCHECK_WARM=$4 \
		VALCHECK_BLOCK=300 VALCHECK_REGS=$3 \
		"$VALCHECK" "$tmp/$1" >"$tmp/out" 2>&1 &&
		grep -q ' 0 conflicts' "$tmp/out" &&
		grep -Eq "^reg $2 known +(99\.[0-9]|100\.0)% within $3\$" "$tmp/out"
}

# first_known DIR REG N MIN WARM [BLOCK]: valcheck on $tmp/DIR in windows
# of BLOCK (100) (warm-up WARM) finds no wrong value, no conflict, and
# register REG (its number) known in at least
# MIN% of the first N positions; its report in $tmp/out.
first_known() {
	[ -f "$tmp/$1/manifest.json" ] &&
		VALCHECK_WARM=$5 VALCHECK_BLOCK=${6:-100} VALCHECK_REGS=$3 \
		VALCHECK_REGS_FIRST=1 "$VALCHECK" "$tmp/$1" >"$tmp/out" 2>&1 &&
		grep -q ' 0 conflicts' "$tmp/out" &&
		awk -v r="$2" -v m="$4" -v n="$3" '
			$1 == "reg" && $2 + 0 == r + 0 && $7 == "first" && $8 == n {
				sub(/%/, "", $4); ok = ($4 + 0 >= m)
			}
			END { exit !ok }' "$tmp/out"
}

# valwin_same KIND BLOCK AT MODE1 MODE2: valwin's KIND questions on
# $tmp/ramp (windows of BLOCK, from AT) in MODE1 (its report in
# $tmp/near) and in MODE2 ($tmp/fresh) both ran and knew the same (their
# digests).
valwin_same() {
	[ -n "${VALWIN:-}" ] && [ -f "$tmp/ramp/manifest.json" ] &&
		"$VALWIN" "$tmp/ramp" "$1" "$2" "$3" "$4" >"$tmp/near" 2>&1 &&
		"$VALWIN" "$tmp/ramp" "$1" "$2" "$3" "$5" >"$tmp/fresh" 2>&1 &&
		[ "$(grep '^digest' "$tmp/near")" = "$(grep '^digest' "$tmp/fresh")" ]
}

# The ramp (rcv_sum.c): unsound.c's "ramp" sets r12 once, changes it in a
# loop 6,000 instructions long and overwrites it before the end.  In
# windows of 300 instructions its mov lies beyond the chain (4,800
# instructions), so r12 in the last 4,000 is known only through the
# summaries: all of it, no wrong value (a summary given to the wrong
# window gives thousands), no conflict.  Also when the only question
# before the walk from the end is position 1 (VALCHECK_WARM=first: the
# next question in the chain computes it to its oldest window), and when
# the chain is computed before the ramp (VALCHECK_WARM=newest: the
# summary flows into its oldest window and on to the end), when
# ptrec-server's idle time computed it (VALCHECK_WARM=prefetch:
# rp_recover_prefetch() until done: the chain; then position 1, which
# begins the ramp, and the prefetch again: the rest of it), and after
# every window of 200 instructions was asked (VALCHECK_BLOCK0=200: the
# summaries of those windows must not be taken for those of 300).
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "ramp" "$UNSOUND" ramp
	for warm in all first newest prefetch all/200; do
		b0=
		case $warm in */*) b0=${warm#*/} warm=${warm%/*} ;; esac
		if warm_known ramp 12 4000 $warm $b0; then
			ok "unsound.c ramp (warm-up $warm${b0:+, windows of $b0 first}): r12 known from beyond the chain, no wrong value; $(distance)"
		else
			bad "unsound.c ramp (warm-up $warm${b0:+, windows of $b0 first}): $(grep -E 'WRONG|reg 12|conflicts' "$tmp/out" | head -5) $(head -3 "$tmp/log")"
		fi
	done
	# A thread's start registers (rcv_first.c) where that start lies in
	# the ramp, beyond the chain: unsound.c "@startreg" keeps main's r15
	# from its first instruction until an rdtsc overwrites it before
	# exit_group, so only the REGS start record tells it; in windows of
	# 300 r15 is known in the last 4,000 positions (before session 17
	# the record was taken only in the chain: not known at all).
	truth_rec "startreg" "$UNSOUND" @startreg
	if warm_known startreg 15 4000 all; then
		ok "unsound.c startreg: r15 known from the start registers in the ramp, no wrong value; $(distance)"
	else
		bad "unsound.c startreg: $(grep -E 'WRONG|reg 15|conflicts' "$tmp/out" | head -5) $(head -3 "$tmp/log")"
	fi
	# The start ramp (rcv_sum.c): in windows of 100, startreg's 6,020
	# instructions are 60 windows, and its first 1,500 positions lie
	# beyond the chain and the ramp (32 windows), in the start ramp's
	# 16: r15 from the start registers there, in every order of
	# questions (before session 18 such windows started from nothing:
	# 0.0% of r15 in the whole history).
	for warm in all first newest prefetch; do
		if first_known startreg 15 1500 99 $warm; then
			ok "unsound.c startreg, windows of 100 (warm-up $warm): r15 known in the first 1,500 positions, beyond the ramp, no wrong value; $(distance)"
		else
			bad "unsound.c startreg, windows of 100 (warm-up $warm): $(grep -E 'WRONG|reg 15|conflicts' "$tmp/out" | head -5)"
		fi
	done
	# And a system call's result there (the REGS syscall record):
	# startsys keeps getpid()'s result in r14 from its third
	# instruction (before session 18: 0.2% of the first 1,500).
	# (its system call records written: run.sh records without them)
	(unset PTREC_EMU_TEST_NO_SYSRET; truth_rec "startsys" "$UNSOUND" @startsys)
	if first_known startsys 14 1500 99 all; then
		ok "unsound.c startsys, windows of 100: getpid()'s result in r14 in the start ramp, no wrong value; $(grep 'reg 14' "$tmp/out")"
	else
		bad "unsound.c startsys, windows of 100: $(grep -E 'WRONG|reg 14|conflicts' "$tmp/out" | head -5) $(head -3 "$tmp/log")"
	fi
	# The prefetch before any question (ptrec-server's idle time
	# after GDB's first stop; VALCHECK_WARM=prefetch): it computed
	# the chain before the recording's facts were taken, and those
	# windows never took them.  startsys is one window of 16,384: r14
	# within 1,000 of the end was known in 0.3% (100% in every other
	# order) until rp_recover_prefetch() took them first (rcv_inherit()).
	if [ -f "$tmp/startsys/manifest.json" ] &&
		VALCHECK_WARM=prefetch VALCHECK_REGS=1000 "$VALCHECK" \
			"$tmp/startsys" >"$tmp/out" 2>&1 &&
		grep -q ' 0 conflicts' "$tmp/out" &&
		grep -Eq '^reg +14 known +(99\.[0-9]|100\.0)% within 1000$' "$tmp/out"; then
		ok "unsound.c startsys, prefetch first: getpid()'s result in r14 in the chain, no wrong value; $(distance)"
	else
		bad "unsound.c startsys, prefetch first: $(grep -E 'WRONG|reg 14|conflicts' "$tmp/out" | head -5)"
	fi
	# The ramp's memory (rcv_sum.c sum_take()): gdbloop (-O0, every
	# frame rbp's) for 12,000 instructions is 40 windows of 300, one
	# ramp from its start.  A `pop %rbp` just after a window's start
	# reloads what a push just before it saved, and the `leave` after
	# it takes rsp from rbp: with the registers alone rsp was lost at
	# the first such boundary (15.5% of the first 6,000 positions),
	# with the known words near rsp 100%, in every order of questions.
	if [ -x "${GDBLOOP:-}" ]; then
		truth_rec "gdbloop12k" --max-insns 12000 -- "$GDBLOOP"
		for warm in all first newest prefetch; do
			if first_known gdbloop12k 7 6000 99 $warm 300; then
				ok "gdbloop 12,000 in windows of 300 (warm-up $warm): rsp known in the ramp's windows across their boundaries, no wrong value; $(distance)"
			else
				bad "gdbloop 12,000 in windows of 300 (warm-up $warm): $(grep -E 'WRONG|reg  7|conflicts' "$tmp/out" | head -5) $(head -3 "$tmp/log")"
			fi
		done
	fi
	# System calls' records with every register (record/emu_step.c
	# emit_sysret(), session 18): anchor's loop keeps its counter on
	# the stack around 3,000 getpid() calls, 18,020 instructions; in
	# windows of 100 the ramp starts from nothing and most windows are
	# on their own, where rsp is known only from the records: 100% of
	# the whole history (17.3% with rax, rcx and r11 alone, the records
	# before session 18: PTREC_EMU_TEST_SYSRET_RESULT=1; 26.7% with
	# every register taken in the ramps but not in the windows on their
	# own).
	(unset PTREC_EMU_TEST_NO_SYSRET; truth_rec "anchor" "$UNSOUND" @anchor)
	if [ -f "$tmp/anchor/manifest.json" ] &&
		VALCHECK_BLOCK=100 VALCHECK_REGS=100000 "$VALCHECK" \
			"$tmp/anchor" >"$tmp/out" 2>&1 &&
		grep -q ' 0 conflicts' "$tmp/out" &&
		grep -Eq '^reg +7 known +(99\.[0-9]|100\.0)% within 100000$' "$tmp/out"; then
		ok "unsound.c anchor, windows of 100: rsp in the ramp and in the windows on their own from the system calls' records, no wrong value; $(distance)"
	else
		bad "unsound.c anchor, windows of 100: $(grep -E 'WRONG|reg  7|conflicts' "$tmp/out" | head -5) $(head -3 "$tmp/log")"
	fi
	# The prefetch after a question began the ramp: one window a step
	# (a packet arriving meanwhile waits for one window, not for the
	# rest of the ramp and the chain, 22 windows here), knowing what
	# the question that computes them all at once knows.
	if valwin_same ramp 300 1 steps once &&
		grep -Eq '^prefetch steps ([2-9]|[1-9][0-9]+) most windows a step 1$' "$tmp/near"; then
		ok "unsound.c ramp, prefetch after the ramp began: one window a step, the same values as at once; $(head -1 "$tmp/near")"
	else
		bad "unsound.c ramp, prefetch after the ramp began: $(cat "$tmp/near" "$tmp/fresh" | head -4)"
	fi
	# The prefetch steps ahead the way the stops go (rp_recover_stop()):
	# in windows of 100, from a stop beyond the ramp (4,000 before the
	# end: window 40) and in it (2,000: window 20, windows 16 to 31 are
	# the ramp), back and forward, one step computes the window next to
	# it, which a question then finds ready (0 windows), knowing what a
	# fresh engine asking it alone knows.
	end=$("$PTREC" values "$tmp/ramp" --at 999999999 2>&1 |
		sed -n 's/.*(\([0-9]*\): its end).*/\1/p')
	for at in $((${end:-0} - 4000)) $((${end:-0} - 2000)); do
		for way in back fwd; do
			if valwin_same near 100 $at $way fresh-$way &&
				grep -q '^near prefetch 1 windows 1 asked windows 0$' "$tmp/near"; then
				ok "unsound.c ramp, a stop at $at walking $way: the prefetch computes the next window that way, ready when asked, the same values as asked alone"
			else
				bad "unsound.c ramp, a stop at $at walking $way: $(cat "$tmp/near" "$tmp/fresh" | head -4)"
			fi
		done
	done
	# Walking back out of the chain's oldest window (15) toward a ramp
	# no question began: the prefetch computes the ramp's summaries
	# aside, one window a step, without beginning it; the question that
	# steps into window 16 then computes that window alone (16 without
	# them), and every position then knows what it knows without the
	# prefetch (the same questions).
	if valwin_same near 100 $((${end:-0} - 1550)) back-all back-none &&
		grep -q '^near prefetch steps 15 most windows a step 1 asked windows 1$' "$tmp/near"; then
		ok "unsound.c ramp, walking back out of the chain: the ramp's summaries computed aside, one window a step; the step into it computes one window; every value as without the prefetch"
	else
		bad "unsound.c ramp, walking back out of the chain: $(cat "$tmp/near" "$tmp/fresh" | head -6)"
	fi
	# The same with a fact (GDB's frames give them at every stop) at the
	# stop, after the prefetch: outside the ramp, it keeps what was
	# computed aside; every value as the same questions without it.
	if valwin_same near 100 $((${end:-0} - 1550)) back-all-fact \
		back-none-fact &&
		grep -q '^near fact r[0-9]*: 1$' "$tmp/near" &&
		grep -q '^near prefetch steps 15 most windows a step 1 asked windows 1$' "$tmp/near"; then
		ok "unsound.c ramp, walking back out of the chain, a fact after the prefetch: what was computed aside kept, every value as without the prefetch"
	else
		bad "unsound.c ramp, a fact after the prefetch: $(cat "$tmp/near" "$tmp/fresh" | head -6)"
	fi
	# Walking forward from just beyond the ramp (window 32) toward its
	# first window, which no question began: left alone (a chain window
	# computed instead), asked when the walk gets there.
	if [ -n "${VALWIN:-}" ] && [ -f "$tmp/ramp/manifest.json" ] &&
		"$VALWIN" "$tmp/ramp" near 100 $((${end:-0} - 3250)) fwd >"$tmp/near" 2>&1 &&
		grep -q '^near prefetch 1 windows 1 asked windows 1$' "$tmp/near"; then
		ok "unsound.c ramp, walking forward into a ramp no question began: the prefetch leaves it alone"
	else
		bad "unsound.c ramp, walking forward into the ramp: $(cat "$tmp/near")"
	fi
fi

# The same through xmm (unsound.c's "xramp"): xmm6 set beyond the chain,
# read into r13 in its last 1,000 instructions; the summaries and the
# chain's oldest window carry xmm as they carry r12 above (the chain
# computed first, VALCHECK_WARM=newest, needs ramp_into_chain()'s).
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "xramp" "$UNSOUND" xramp
	for warm in all first newest prefetch; do
		if warm_known xramp 13 1000 $warm; then
			ok "unsound.c xramp (warm-up $warm): r13 known through xmm6 from beyond the chain, no wrong value"
		else
			bad "unsound.c xramp (warm-up $warm): $(grep -E 'WRONG|reg 13|conflicts' "$tmp/out" | head -5) $(head -3 "$tmp/log")"
		fi
	done
fi
