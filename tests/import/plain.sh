# Sourced by the tests that hold ptrec's history of a damaged stream
# against a plain libipt pt_insn_next loop's (tests/bench/iptraw, which
# writes the addresses to $tmp/want and each error to $tmp/errs):
# damaged.sh, onepsb.sh.  Needs $PTREC, $IPTRAW, $tmp, $here (this
# folder) and lib.sh's ok and bad.

# corrupt PT AT OUT: PT with its byte AT made 0x02 (an extended opcode)
# into OUT.
corrupt() {
	{ head -c "$2" "$1"; printf '\002'; tail -c +$(($2 + 2)) "$1"; } >"$3"
}

# first_error PT LIST CPU AT END: the first byte from AT (below END) whose
# corruption the plain loop reports as an error other than missing code,
# in $at, the stream in $tmp/bad.pt, the plain loop's output in
# $tmp/base, $tmp/want and $tmp/errs.  In a stream with code withheld
# (missing-code errors wherever it is), an error of another kind counts
# too: it once had to be the only kind, so the loop never stopped there
# and ran its 256 decodes of 940,765 instructions for nothing (80 s).
first_error() {
	at=$4
	while [ "$at" -lt "$5" ]; do
		corrupt "$1" "$at" "$tmp/bad.pt"
		"$IPTRAW" "$tmp/bad.pt" "$2" "$3" "$tmp/want" "$tmp/errs" \
			>"$tmp/base" 2>&1
		grep -v "no memory mapped" "$tmp/errs" | grep -q . && break
		at=$((at + 1))
	done
}

# plain_diff BUNDLE [addr]: how ptrec's history of BUNDLE differs from the
# plain loop's: its addresses and (not with "addr": a long history's
# disassembly costs seconds) each gap at the loop's error, by position,
# trace offset and libipt's message; nothing when it does not.
plain_diff() {
	"$PTREC" insns "$1" --format=addr >"$tmp/got" 2>"$tmp/log"
	cmp -s "$tmp/want" "$tmp/got" ||
		echo "$(wc -l <"$tmp/got") addresses, not the plain loop's $(wc -l <"$tmp/want")."
	[ "${2:-}" = addr ] && return 0
	"$PTREC" insns "$1" >"$tmp/all" 2>"$tmp/log"
	awk -f "$here/gaps.awk" "$tmp/all" >"$tmp/gaps"
	cmp -s "$tmp/errs" "$tmp/gaps" ||
		echo "gaps $(tr '\n' ' ' <"$tmp/gaps"), errors $(tr '\n' ' ' <"$tmp/errs")."
}

# seek_tip NAME BUNDLE N: the last 3 of the plain loop's N instructions
# by `ptrec insns --from` from BUNDLE's saved index, which decodes one
# segment from its TIP.PGE (a cut point of a stream with one PSB), not
# the stream from its start.
seek_tip() {
	PTREC_INDEX_DEBUG=1 "$PTREC" insns "$2" --from $(($3 - 2)) --count 3 \
		--format=addr >"$tmp/got" 2>"$tmp/log"
	tail -3 "$tmp/want" >"$tmp/want3"
	cmp -s "$tmp/want3" "$tmp/got" &&
		grep -q "decoded from its TIP.PGE$" "$tmp/log" &&
		! grep -q "decoded from the start" "$tmp/log" &&
		ok "$1: insns --from $(($3 - 2)) decodes from a TIP.PGE, the plain loop's addresses" ||
		bad "$1: insns --from $(($3 - 2)): $(tr '\n' ' ' <"$tmp/log")"
}
