#!/bin/sh
# A RET compressed across a PSB (pc-fail): an importer that put a PSB+ of
# its own between a CALL and the RET the CPU compressed against it (one
# taken TNT bit) makes a stream no decoder can follow at that RET, since a
# PSB clears the return-compression stack.  ptrec must show a gap there
# and go on from the next PSB with nothing misplaced (it used to decode
# through in its index pass, fail from the checkpoint, and fill the
# segment with later instructions, silently); the same run traced as a CPU
# writes it must have no gap.  Streams from tests/tools/mkretcomp
# (libipt's encoder), with its expectations.
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
		diff "$d/$s.want" "$tmp/got" >"$tmp/log" &&
			ok "$s, index cache $cache: the history mkretcomp expects" ||
			bad "$s, index cache $cache: history differs: $(tr '\n' ' ' <"$tmp/log")"
	done
done
want=$(grep -c gap "$d/bad.want")
"$PTREC" info "$tmp/bad" >"$tmp/info" 2>&1
grep -q " $want gaps," "$tmp/info" &&
	ok "ptrec info counts the $want gaps" ||
	bad "ptrec info: $(grep thread "$tmp/info")"
"$PTREC" info "$tmp/good" >"$tmp/info" 2>&1
grep -q " 0 gaps," "$tmp/info" && ok "the consistent stream has no gap" ||
	bad "ptrec info: $(grep thread "$tmp/info")"
tap_end import-retcomp
