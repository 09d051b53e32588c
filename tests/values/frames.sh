# Sourced by run.sh (values-test), not run alone: the stack frames'
# cases (rcv_stack.c, rcv_stkeep.c, rcv_callee.c): pushes and pops,
# spills and reloads, kept or not across stores, system calls and
# callees.  Split from run.sh along that seam; it uses run.sh's
# truth_rec, truth_check, distance and last_at, and numbers its TAP lines
# in run.sh's sequence.

# The shape of its checks: unsound.c NAME recorded in $tmp/NAME, no wrong
# value and no conflict, and at the last nop of one of its functions a
# register known (by the rule the case is about) or, in strict mode
# (PTREC_VALUES_STRICT=1: no rule that rests on an assumption about the
# program), unknown.

# nop_at NAME FUNC: the position of the last nop of unsound_FUNC in
# $tmp/NAME (empty if none).
nop_at() {
	last_at "$1" "<unsound_$2\\+[0-9]+>:.*nop"
}

# clean_at NAME POS...: every POS found, and valcheck (its report in
# $tmp/out) finds no wrong value and no conflict in $tmp/NAME.
clean_at() {
	cn=$1
	shift
	for cp in "$@"; do
		[ -n "$cp" ] || return 1
	done
	truth_check "$cn" && grep -q ' 0 conflicts' "$tmp/out"
}

# values_at NAME POS ERE [strict]: `ptrec values` at POS of $tmp/NAME
# (in strict mode with "strict") has a line matching ERE.
values_at() {
	if [ "${4:-}" = strict ]; then
		PTREC_VALUES_STRICT=1 "$PTREC" values "$tmp/$1" --at "$2" 2>&1
	else
		"$PTREC" values "$tmp/$1" --at "$2" 2>&1
	fi | grep -q "$3"
}

# rule_at NAME POS REG VALUE: at POS, REG is VALUE (0x and 16 digits),
# and unknown in strict mode.
rule_at() {
	values_at "$1" "$2" "^$3  *$4\$" &&
		values_at "$1" "$2" "^$3  *unknown\$" strict
}

# A store through a pointer the engine cannot compute into a saved
# register's slot (unsound.c's "saved" case, where no handler runs): the
# pop must not be paired with its push.
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "saved" "$UNSOUND" saved
	if truth_check "saved"; then
		ok "a store into a saved register's slot: no wrong value; $(distance)"
	else
		bad "a store into a saved register's slot: $(head -5 "$tmp/out" "$tmp/log")"
	fi
fi

# A callee's own stack (rcv_callee.c): a push and its pop across a store
# of unknown address are kept only when the store's address cannot be
# derived from the stack under the callee's entry.  unsound.c's "callee":
# the callee's rsp put in a global (cesc) or in its caller's frame (cup)
# before the store that does write the pushed slot (no wrong value, no
# conflict: each gives wrong values with its rule broken), and a store
# through a pointer loaded from a global (cok): rbx known after the pop.
# cvla: a VLA under the pushed slot, a store through rbp + 8 + rdi into
# the slot (wrong values if any own-stack pointer plus an index were
# taken to stay in the allocation); cvlaok: a store through rsp + 8 *
# rdi into the VLA alone: rbx known after the pop.
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "callee" "$UNSOUND" callee
	cpos=$(nop_at callee cok2)
	vpos=$(nop_at callee cvlaok2)
	if clean_at callee "$cpos" "$vpos" &&
		values_at callee "$cpos" '^rbx  *0x0000000000003333$' &&
		values_at callee "$vpos" '^rbx  *0x0000000000003333$'; then
		ok "unsound.c callee: no wrong value, rbx known across a store through a global's pointer and one into a VLA; $(distance)"
	else
		bad "unsound.c callee (at ${cpos:-?}, ${vpos:-?}): $(head -5 "$tmp/out" "$tmp/log")"
	fi
	# Strict values (PTREC_VALUES_STRICT=1): no rule that rests on an
	# assumption about the program, so neither rbx is known.
	if [ -n "$cpos" ] && [ -n "$vpos" ] &&
		values_at callee "$cpos" '^rbx  *unknown$' strict &&
		values_at callee "$vpos" '^rbx  *unknown$' strict &&
		PTREC_VALUES_STRICT=1 "$VALCHECK" "$tmp/callee" >"$tmp/out" 2>&1
	then
		ok "unsound.c callee strict: rbx unknown where only the callee's own stack shows it; $(distance)"
	else
		bad "unsound.c callee strict (at ${cpos:-?}, ${vpos:-?}): $(head -5 "$tmp/out")"
	fi
	# The same in GDB: set ptrec values-strict on and off (the plugin's
	# monitor command; GDB's registers flushed each time).
	timeout 120 "$PTREC" replay "$tmp/callee" -batch \
		-ex "ptrec goto ${cpos:-1}" -ex "info registers rbx" \
		-ex "set ptrec values-strict on" -ex "info registers rbx" \
		-ex "set ptrec values-strict off" -ex "info registers rbx" \
		>"$tmp/gdbstrict" 2>&1
	if [ "$(grep '^rbx ' "$tmp/gdbstrict" | awk '{print $2}' |
		tr '\n' ' ')" = "0x3333 <unavailable> 0x3333 " ]; then
		ok "GDB set ptrec values-strict: rbx unavailable with it on, 0x3333 off"
	else
		bad "GDB set ptrec values-strict: $(grep -E '^rbx|rror' "$tmp/gdbstrict" | head -5)"
	fi
fi

# The callee argument across system calls and rep stos (rcv_callee.c):
# unsound.c "csys": fstat(2) whose buffer ends on the pushed slot (the pop
# gets 0: wrong values with the buffer taken as writing nothing), rep stosq
# into the slot through rsp plus an unknown index, and a callee whose
# fstat, brk, rep stosq and store through a global's pointer miss it: rbx
# known after that pop (unknown strict).
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "csys" "$UNSOUND" csys
	spos=$(nop_at csys csysok2)
	if clean_at csys "$spos" &&
		rule_at csys "$spos" rbx 0x0000000000003333; then
		ok "unsound.c csys: no wrong value, rbx known across fstat, brk and rep stos in a callee; $(distance)"
	else
		bad "unsound.c csys (at ${spos:-?}): $(head -5 "$tmp/out" "$tmp/log")"
	fi
fi

# The prologue's pushes alone (rcv_callee.c, docs/values.md "Two kinds
# of own-stack pointer"): unsound.c "ckind": the callee's frame address
# (rsp itself, kesc: 260 wrong registers if copies of rsp were pointers
# into objects; the caller's rsp made by a nested call, kdep: 224 if
# pointers made in nested calls were) given away and written through
# into the pushed slot, and a local's address given away and written
# through into the local (kok): rbx known after that pop (unknown
# strict, and on main before this rule).
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "ckind" "$UNSOUND" ckind
	kpos=$(nop_at ckind kok2)
	if clean_at ckind "$kpos" &&
		rule_at ckind "$kpos" rbx 0x0000000000003333 &&
		PTREC_VALUES_STRICT=1 "$VALCHECK" "$tmp/ckind" >"$tmp/out" 2>&1
	then
		ok "unsound.c ckind: no wrong value, rbx known across a store through a local's given-away address (unknown strict); $(distance)"
	else
		bad "unsound.c ckind (at ${kpos:-?}): $(head -5 "$tmp/out" "$tmp/log")"
	fi
fi

# Pushes never popped (rcv_callee.c, rcv_callee_kept_to(): the history
# ends inside the function, as exit() does): unsound.c "xsavebad"
# rewrites rbx's slot through rsp plus an unknown index (rbx unknown at
# the push: the snapshot shows the store's value; wrong values with the
# store not counted), "xsaveesc" publishes rsp, r12's slot's address, and
# rewrites the slot through it read back (r12 unknown; wrong values with
# the pointer taken to lie under the slot; rbx's slot above it known),
# "xsaveok" publishes a pointer under the slots and stores through it and
# through a global's pointer: rbx and r12 known at the pushes from the
# snapshot alone (unknown strict); "xsavemt" and "xsavemtok" the same
# with another thread storing through the published pointer (24 wrong
# with the pointer at the slot taken to lie under it).
# xsave_check NAME ERE...: $tmp/NAME recorded, no wrong value, no
# conflict, and at its last nop `ptrec values` matches each ERE.
xsave_check() {
	xn=$1
	shift
	truth_rec "$xn" "$UNSOUND" "$xn"
	xpos=$(nop_at "$xn" "$xn")
	clean_at "$xn" "$xpos" &&
		"$PTREC" values "$tmp/$xn" --at "$xpos" >"$tmp/v" 2>&1 || return 1
	for re in "$@"; do
		grep -q "$re" "$tmp/v" || return 1
	done
}
if [ -n "${UNSOUND:-}" ]; then
	if xsave_check xsavebad '^rbx  *unknown$'; then
		ok "unsound.c xsavebad: no wrong value, a pushed slot rewritten before the end unknown; $(distance)"
	else
		bad "unsound.c xsavebad (at ${xpos:-?}): $(head -5 "$tmp/out" "$tmp/log")"
	fi
	if xsave_check xsaveesc '^rbx  *0x0000000000003333$' \
		'^r12  *unknown$'; then
		ok "unsound.c xsaveesc: no wrong value, a slot rewritten through rsp published unknown, the one above it known; $(distance)"
	else
		bad "unsound.c xsaveesc (at ${xpos:-?}): $(head -5 "$tmp/out" "$tmp/v")"
	fi
	if xsave_check xsaveok '^rbx  *0x0000000000007777$' \
		'^r12  *0x0000000000008888$' &&
		values_at xsaveok "$xpos" '^rbx  *unknown$' strict; then
		ok "unsound.c xsaveok: no wrong value, rbx and r12 known at pushes never popped; $(distance)"
	else
		bad "unsound.c xsaveok (at ${xpos:-?}): $(head -5 "$tmp/out" "$tmp/v")"
	fi
	# The same written by another thread through the pointer published
	# (the stack shared: the slot the thread's own only by the argument).
	if xsave_check xsavemt '^rbx  *unknown$'; then
		ok "unsound.c xsavemt: no wrong value, a slot another thread rewrote through rsp published unknown; $(distance)"
	else
		bad "unsound.c xsavemt (at ${xpos:-?}): $(head -5 "$tmp/out" "$tmp/v")"
	fi
	if xsave_check xsavemtok '^rbx  *0x0000000000007777$' &&
		values_at xsavemtok "$xpos" '^rbx  *unknown$' strict; then
		ok "unsound.c xsavemtok: no wrong value, rbx known at a push never popped on a shared stack; $(distance)"
	else
		bad "unsound.c xsavemtok (at ${xpos:-?}): $(head -5 "$tmp/out" "$tmp/v")"
	fi
fi

# A callee's own frame (rcv_stack.c, rcv_callee.c): a reload reads back
# its spill across a store of unknown address only when the store's
# address cannot be derived from the stack under the callee's entry.
# unsound.c's "frame": the slot written through rbp - 8 + an unknown 0
# (fr: 657 wrong values with the stores between not checked) and through
# the slot's address kept in a global (fresc: 441 with the escape not
# checked); frok: a store through a global's pointer, rbx known after the
# reload by the argument alone (unknown in strict mode).  fvla: a VLA
# under the spill, a store through rsp + 8 * rdi where rsp is not the
# VLA's bottom (into a spill under it: 16 wrong if any pointer into an
# allocation were taken to start at its bottom, 16 if stores through
# the bottom plus an index were taken to write nothing), one through
# the VLA's bottom plus an index (rbx known after the reload above it,
# unknown strict), one through rbp + rdi into the spill.  frxmm: fresc
# with the slot's address given away through xmm0 (68 wrong with xmm
# operands read as holding no stack address, as rcv_escape.c did).
# frxs: a spill at offset 520 of an xsavec area, which xsavec writes (37
# wrong with xsave taken to write nothing, or nothing under 4 KiB past
# its start).
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "frame" "$UNSOUND" frame
	fpos=$(nop_at frame frok2)
	vpos=$(nop_at frame fvla2)
	if clean_at frame "$fpos" "$vpos" &&
		rule_at frame "$fpos" rbx 0x0000000000003333 &&
		rule_at frame "$vpos" rbx 0x0000000000003333; then
		ok "unsound.c frame: no wrong value, a reload known across a store through a global's pointer (unknown strict); $(distance)"
	else
		bad "unsound.c frame (at ${fpos:-?}, ${vpos:-?}): $(head -5 "$tmp/out" "$tmp/log")"
	fi
fi

# Every register's frame class (rcv_stack.c): rbx holding a copy of rsp,
# as in the lazy-binding resolver.  unsound.c's "regfr": frb stores
# through rbx plus an index unknown to the engine into the pushed rbx's
# slot and reads it back through rbx and by a pop (211 wrong values with
# lea's index ignored, the class taken from its base alone); frbok, a
# load through rbx across a store through a global's pointer, after an
# and and a sub of rsp: rax known, 0x3333, only by the rule (unknown in
# strict mode and before it).
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "regfr" "$UNSOUND" regfr
	bpos=$(nop_at regfr frbok2)
	if clean_at regfr "$bpos" &&
		rule_at regfr "$bpos" rax 0x0000000000003333; then
		ok "unsound.c regfr: no wrong value, a load through rsp's copy in rbx known (unknown strict); $(distance)"
	else
		bad "unsound.c regfr (at ${bpos:-?}): $(head -5 "$tmp/out" "$tmp/log")"
	fi
fi

# A system call between a push and its pop (rcv_stack.c): what the
# values say it writes is a store there.  unsound.c's "sysfr": frs
# read(2)s into the pushed slot (287 wrong values with a placed write
# taken to write nothing); frsok reads into a global and stores through
# a global's pointer before the pop: rbx known after the pop only by
# placing the read (unknown in strict mode and before).
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "sysfr" "$UNSOUND" sysfr
	spos=$(nop_at sysfr frsok2)
	if clean_at sysfr "$spos" &&
		rule_at sysfr "$spos" rbx 0x0000000000003333; then
		ok "unsound.c sysfr: no wrong value, rbx known across a read(2) placed away from its slot (unknown strict); $(distance)"
	else
		bad "unsound.c sysfr (at ${spos:-?}): $(head -5 "$tmp/out" "$tmp/log")"
	fi
fi

# A push of memory read back by a reload or a pop (rcv_stack.c pairs it,
# rcv_pass.c links it to what the push read: the PLT's push of the GOT's
# link_map word, read back by the lazy-binding resolver through rbx).
# unsound.c's "pushmem": pmt pushes a global holding 0x3333 and sets it
# to 0x2222 after a store through a global's pointer: rax and rcx known
# (0x3333) after the reload and the pop only by the pair (unknown in
# strict mode and before it; 236 wrong values with the word read at the
# reload instead of the push); pms stores through rsp plus an index into
# the slot (436 wrong with the pair kept whatever lies between); pmu's
# pushed word is not known: `--why` names where the search for it stops
# (the first store of unknown address), not the pop's (the second).
if [ -n "${UNSOUND:-}" ]; then
	truth_rec "pushmem" "$UNSOUND" pushmem
	mpos=$(nop_at pushmem pmt2)
	upos=$(nop_at pushmem pmu2)
	ustore=$("$PTREC" insns "$tmp/pushmem" 2>/dev/null |
		grep -E '<unsound_pmu2\+[0-9]+>:.*movq +\$0x1111' | head -1 |
		cut -f1)
	if clean_at pushmem "$mpos" "$upos" "$ustore" &&
		rule_at pushmem "$mpos" rax 0x0000000000003333 &&
		rule_at pushmem "$mpos" rcx 0x0000000000003333 &&
		"$PTREC" values "$tmp/pushmem" --at "$upos" --why 2>&1 |
		grep -q "^why rax .*root load-memory (store-unknown-address) at $ustore "; then
		ok "unsound.c pushmem: no wrong value, a push of memory read back (unknown strict), --why through the pair; $(distance)"
	else
		bad "unsound.c pushmem (at ${mpos:-?}, ${upos:-?}, ${ustore:-?}): $(head -5 "$tmp/out" "$tmp/log")"
	fi
fi
