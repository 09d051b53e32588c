#!/bin/sh
# A RET compressed across a PSB (pc-fail): an importer that put a PSB+ of
# its own between a CALL and the RET the CPU compressed against it (one
# taken TNT bit), or damage, makes a stream a decoder started at that PSB
# cannot follow at that RET (its return stack is empty there), while a
# plain libipt loop, which keeps its stack across the PSBs it passes,
# decodes it.  ptrec must show the plain loop's history (issue #19), the
# same as the run traced as a CPU writes it, with nothing misplaced (it
# once decoded through in its index pass, failed from the checkpoint, and
# filled the segment with later instructions, silently; then showed a gap
# at each RET).  Streams from tests/tools/mkretcomp (libipt's encoder),
# with its expectations.
set -u
: "${PTREC:?}" "${MKRETCOMP:?}"
testlib_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$testlib_dir/lib.sh"
tap_begin import-retcomp

d=$tmp/gen
mkdir -p "$d"
"$MKRETCOMP" "$d" >"$tmp/log" 2>&1 && ok "mkretcomp wrote the streams" ||
	bad "mkretcomp"

# Each instruction's address, "gap ADDRESS" for each decode error.
history_of() {
	sed -n -e 's/^[0-9]*\t *0x0*\([0-9a-f]*\):.*/0x\1/p' \
		-e 's/^\[decode error at \(0x[0-9a-f]*\),.*/gap \1/p' "$1"
}
for s in good bad; do
	"$PTREC" import raw -o "$tmp/$s" --pt "$d/$s.pt" --images "$d/list" \
		>"$tmp/log" 2>&1 && ok "$s: import raw" || bad "$s: import raw"
	for cache in 0 1 1; do
		PTREC_INDEX_CACHE=$cache "$PTREC" insns "$tmp/$s" \
			>"$tmp/insns" 2>"$tmp/log" ||
			bad "$s, cache $cache: ptrec insns failed"
		history_of "$tmp/insns" >"$tmp/got"
		diff "$d/good.want" "$tmp/got" >"$tmp/log" &&
			ok "$s, index cache $cache: the history mkretcomp expects" ||
			bad "$s, index cache $cache: history differs: $(tr '\n' ' ' <"$tmp/log")"
	done
done
"$PTREC" info "$tmp/bad" >"$tmp/info" 2>&1
grep -q " 0 gaps," "$tmp/info" &&
	ok "the stream with RETs compressed across PSBs has no gap either" ||
	bad "ptrec info: $(grep thread "$tmp/info")"
"$PTREC" info "$tmp/good" >"$tmp/info" 2>&1
grep -q " 0 gaps," "$tmp/info" && ok "the consistent stream has no gap" ||
	bad "ptrec info: $(grep thread "$tmp/info")"

# A single PSB, the index's checkpoints at TIP.PGEs (cut points, issue
# #19).  g's RET compressed across the first cut: the plain loop decodes
# it (libipt keeps its return stack across TIP.PGD/PGE, as a CPU does), so
# the checkpoint holds the return stack (call g's return address) and its
# made-up start restores it: the segment decodes from its own TIP.PGE, as
# with the RET as a TIP.  In 32-bit code, whose return stacks are not
# modelled, the made-up start has an empty stack, that RET fails there,
# and the segment must be decoded from the start instead; all three with
# the plain loop's history and no gap.
for s in cut cut32 cuttip; do
	"$PTREC" import raw -o "$tmp/$s" --pt "$d/$s.pt" --images "$d/list" \
		>"$tmp/log" 2>&1 && ok "$s: import raw" || bad "$s: import raw"
	case $s in
	cut32) from="8 decoded from the start" ;;
	*) from="6 decoded from its TIP.PGE" ;;
	esac
	for cache in 0 1 1; do
		PTREC_INDEX_DEBUG=1 PTREC_INDEX_CACHE=$cache "$PTREC" insns \
			"$tmp/$s" >"$tmp/insns" 2>"$tmp/log" ||
			bad "$s, cache $cache: ptrec insns failed"
		history_of "$tmp/insns" >"$tmp/got"
		diff "$d/cut.want" "$tmp/got" >"$tmp/diff" &&
			ok "$s, index cache $cache: the plain loop's history, no gap" ||
			bad "$s, index cache $cache: history differs: $(tr '\n' ' ' <"$tmp/diff")"
		grep -q "^decode: thread 1: segment 1 (6 instructions): $from$" \
			"$tmp/log" &&
			ok "$s, index cache $cache: segment 1: $from" ||
			bad "$s, index cache $cache: $(grep '^decode' "$tmp/log" | tr '\n' ' ')"
		[ $cache = 0 ] && cp "$tmp/log" "$tmp/log0"
	done
	grep -q "^index: thread 1: 2 of 2 cut points are checkpoints$" \
		"$tmp/log0" && ok "$s: both cut points are checkpoints" ||
		bad "$s: $(grep '^index' "$tmp/log0" | tr '\n' ' ')"
done
tap_end import-retcomp
