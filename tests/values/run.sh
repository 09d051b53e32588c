#!/bin/sh
# Values in the past (#17) against the ground truth: records test programs
# with `ptrec record --ground-truth` (which stores every register after
# every instruction) and checks with valcheck that every register value
# the recovery engine says it knows, at every position, equals the truth.
# Zero wrong values is the requirement; the share known is printed.
set -u
: "${PTREC:?}" "${VALCHECK:?}" "${PROGS:?}"
here=$(cd "$(dirname "$0")" && pwd)
testlib_dir=$here/..
. "$testlib_dir/lib.sh"
tap_begin values

for prog in tiny loops indirect signal segv threads fork jmp plt; do
	[ -x "$PROGS/$prog" ] || continue
	rm -rf "${tmp:?}/$prog"
	timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/$prog" \
		"$PROGS/$prog" >"$tmp/log" 2>&1
	if [ ! -f "$tmp/$prog/manifest.json" ]; then
		bad "$prog: ptrec record failed: $(tail -3 "$tmp/log")"
		continue
	fi
	if timeout 300 "$VALCHECK" "$tmp/$prog" >"$tmp/out" 2>&1; then
		ok "$prog: no wrong value; $(grep 'distance all' "$tmp/out" |
			sed 's/  */ /g')"
	else
		bad "$prog: wrong values: $(head -5 "$tmp/out")"
	fi
	grep '^distance' "$tmp/out" | sed "s/^/# $prog /"
done

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
tap_end values
