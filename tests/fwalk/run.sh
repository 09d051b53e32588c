#!/bin/sh
# The block-cache flow walker (replay/fwalk.c, an experiment for issue
# #19; docs/performance.md "A block-cache flow walker") against libipt's
# instruction decoder and the software recorder's ground truth, through
# tests/bench/fwraw: programs recorded here (their ground truth, address
# for address), and the synthetic streams of tests/tools (events of every
# kind, return compression across PSBs and cut points, 32-bit code, which
# the walker must refuse rather than decode wrongly), and its length and
# class decoder (replay/fw_ild.c) against libipt's decoder and capstone on
# every instruction of the test programs, their libc and ld.so, ptrec and
# the real traces' code, and on random bytes.  The real hardware traces' histories are test_fwalk's (make unit).
set -u
: "${FWRAW:?}" "${PTREC:?}" "${TRUTHDUMP:?}" "${PROGS:?}" "${MKEVENTS:?}" \
	"${MKRETCOMP:?}" "${ILDCHECK:?}"
testlib_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$testlib_dir/lib.sh"
tap_begin fwalk

# same NAME ARGS...: fwraw's insn and walk modes list the same addresses
# (ARGS: all but ADDRS, the CPU included, "" for none).
same() {
	name=$1
	shift
	"$FWRAW" insn "$@" "$tmp/insn" >"$tmp/base" 2>&1 ||
		{ bad "$name: the plain loop failed"; return 1; }
	"$FWRAW" walk "$@" "$tmp/walk" >"$tmp/log" 2>&1 &&
		[ "$(head -1 "$tmp/log")" = "$(head -1 "$tmp/base")" ] &&
		cmp -s "$tmp/insn" "$tmp/walk" &&
		ok "$name: the walker's history is libipt's ($(head -1 "$tmp/base"))" ||
		bad "$name: walker $(head -1 "$tmp/log"), libipt $(head -1 "$tmp/base")"
}

for p in loops indirect plt jmp signal; do
	rm -rf "${tmp:?}/$p"
	if ! timeout 120 "$PTREC" record --ground-truth -q -o "$tmp/$p" \
		"$PROGS/$p" >"$tmp/log" 2>&1; then
		bad "$p: ptrec record failed"
		continue
	fi
	same "$p" --bundle "$tmp/$p"
	"$TRUTHDUMP" "$tmp/$p"/truth/*.gt >"$tmp/truth" 2>"$tmp/log" &&
		cmp -s "$tmp/truth" "$tmp/walk" &&
		ok "$p: the walker's history is the ground truth ($(wc -l <"$tmp/truth") instructions)" ||
		bad "$p: the walker differs from the ground truth"
done

# Every event kind; its last stretch is 32-bit code, where the walker
# stops: up to there, libipt's history.
d=$tmp/ev
mkdir -p "$d"
"$MKEVENTS" "$d" >"$tmp/log" 2>&1 || bad "mkevents"
"$FWRAW" insn "$d/pt.bin" "$d/list" "" "$tmp/insn" >"$tmp/base" 2>&1
"$FWRAW" walk "$d/pt.bin" "$d/list" "" "$tmp/walk" >"$tmp/log" 2>&1
k=$(sed -n 's/.*walker stopped after \([0-9]*\) instructions: not supported$/\1/p' "$tmp/log")
[ -n "$k" ] && [ "$k" -gt 10 ] && [ "$(wc -l <"$tmp/walk")" = "$k" ] &&
	head -n "$k" "$tmp/insn" | cmp -s - "$tmp/walk" &&
	ok "mkevents (every event kind): libipt's history up to its 32-bit code ($k of $(head -1 "$tmp/base"))" ||
	bad "mkevents: walker $(cat "$tmp/log"), libipt $(head -1 "$tmp/base")"

d=$tmp/rc
mkdir -p "$d"
"$MKRETCOMP" "$d" >"$tmp/log" 2>&1 || bad "mkretcomp"
for s in good bad cut; do
	same "mkretcomp $s.pt" "$d/$s.pt" "$d/list" ""
done
# 32-bit code is not the walker's: it must say so, not decode.
"$FWRAW" walk "$d/cut32.pt" "$d/list" >"$tmp/log" 2>&1
grep -q "walker stopped after 0 instructions: not supported" "$tmp/log" &&
	ok "cut32.pt: the walker refuses 32-bit code" ||
	bad "cut32.pt: $(cat "$tmp/log")"

# fw_ild.c against libipt's own decoder at every offset libipt steps to
# (data included: damaged trace jumps into it), and against capstone
# (libopcodes where capstone 4 cannot) for the event bindings: a mismatch
# names the address.
libs=$(ldd "$PROGS/loops" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*ld-linux[^ ]*\) .*/\1/p')
progs=""
for p in "$PROGS"/*; do
	[ -x "$p" ] && [ -f "$p" ] && progs="$progs $p"
done
find_real_pt
# shellcheck disable=SC2086 # lists of files
"$ILDCHECK" $progs $libs "$PTREC" ${real:+"$real/simple/hello"} \
	${real:+"$real/simple-glibc/hello"} >"$tmp/log" 2>&1 &&
	ok "fw_ild: libipt's and capstone's lengths and classes on the test programs, $(echo $libs | wc -w) libraries, ptrec and DynamoRIO's programs ($(tail -1 "$tmp/log"))" ||
	bad "fw_ild differs: $(tail -1 "$tmp/log")"
"$ILDCHECK" --random 300000 >"$tmp/log" 2>&1 &&
	ok "fw_ild: libipt's lengths, classes and targets on 300,000 random byte strings ($(tail -1 "$tmp/log"))" ||
	bad "fw_ild on random bytes: $(tail -1 "$tmp/log")"
[ -n "$real" ] && "$ILDCHECK" --raw "$real/../libxdc/Unzip/data.dump" \
	"$real/../libxdc/mruby/data.dump" >"$tmp/log" 2>&1 &&
	ok "fw_ild: libipt's and capstone's lengths and classes on libxdc's page dumps ($(tail -1 "$tmp/log"))" ||
	bad "fw_ild on libxdc's page dumps: $(tail -1 "$tmp/log")"

tap_end fwalk
