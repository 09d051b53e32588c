#!/bin/sh
# A recorded program's stream made single-PSB (issue #19): the software
# recorder's stream of tests/bench/workload (static: its code never moves)
# with the PSB+ of every PSB but the first taken out, as kAFL/Nyx write
# streams, imported raw with the program's ELF.  Its index checkpoints are
# then cut points (TIP.PGEs where tracing resumes after a system call,
# replay/index.c).  The history must be the ground truth the recorder
# wrote while single-stepping, address for address, on 1 and 2 index
# workers, with and without a saved index; a seek near the end must
# decode one segment from its TIP.PGE, not the stream from its PSB.
# Then the same stream with a byte corrupted: the history must be a plain
# libipt pt_insn_next loop's (tests/bench/iptraw), address for address and
# gap for gap, with the block pass rolled back to the last cut point
# before the damage, not the stream indexed with the instruction decoder.
set -u
: "${PTREC:?}" "${TRUTHDUMP:?}" "${WORKLOAD:?}" "${IPTRAW:?}"
here=$(cd "$(dirname "$0")" && pwd)
testlib_dir=$here/..
. "$testlib_dir/lib.sh"
. "$here/plain.sh"
tap_begin import-onepsb

"$PTREC" record --ground-truth -q -o "$tmp/rec" "$WORKLOAD" >"$tmp/log" 2>&1 &&
	ok "recorded workload with its ground truth" || bad "ptrec record"
pt=$(ls "$tmp"/rec/pt/*.pt)
"$TRUTHDUMP" "$tmp"/rec/truth/*.gt >"$tmp/truth" 2>"$tmp/log" &&
	ok "ground truth: $(wc -l <"$tmp/truth") instructions" || bad "truthdump"

# PSB+ (SDM Vol. 3C 33.4.2.7): PSB, then TSC, TMA, CBR, MODE, FUP, PIP,
# VMCS until PSBEND; every one but the first goes.
python3 - "$pt" "$tmp/one.pt" >"$tmp/log" 2>&1 <<'EOF'
import sys
PSB = bytes([0x02, 0x82] * 8)
IPC = {0: 0, 1: 2, 2: 4, 3: 6, 4: 6, 6: 8}
b = open(sys.argv[1], 'rb').read()
first = b.find(PSB)
out, at, cut = bytearray(b[:first + 16]), first + 16, 0
while True:
    nxt = b.find(PSB, at)
    if nxt < 0:
        out += b[at:]
        break
    out += b[at:nxt]
    p = nxt + 16
    while b[p:p + 2] != b'\x02\x23':
        h = b[p]
        if h == 0x19:
            p += 8                      # TSC
        elif h == 0x99:
            p += 2                      # MODE
        elif h == 0x02:
            p += {0x03: 4, 0x73: 7, 0x43: 8, 0xc8: 7}[b[p + 1]]
        elif h & 0x1f == 0x1d:
            p += 1 + IPC[h >> 5]        # FUP
        elif h == 0x00:
            p += 1                      # PAD
        else:
            sys.exit('packet 0x%02x in the PSB+ at %d' % (h, nxt))
    at = p + 2
    cut += 1
open(sys.argv[2], 'wb').write(out)
print('%d PSB+ taken out' % cut)
EOF
npsb=$(od -An -v -tx1 "$tmp/one.pt" | tr -d ' \n' | grep -o '02820282028202820282028202820282' | wc -l)
[ "$npsb" = 1 ] && ok "one PSB left in $(wc -c <"$tmp/one.pt") bytes ($(cat "$tmp/log"))" ||
	bad "$npsb PSBs left"

"$PTREC" import raw -o "$tmp/b" --pt "$tmp/one.pt" --elf "$WORKLOAD" \
	>"$tmp/log" 2>&1 && ok "import raw" || bad "import raw"
for w in 1 2; do
	for cache in 0 1 1; do
		PTREC_INDEX_DEBUG=1 PTREC_INDEX_THREADS=$w PTREC_INDEX_CACHE=$cache \
			"$PTREC" insns "$tmp/b" --format=addr >"$tmp/got" 2>"$tmp/log"
		cmp -s "$tmp/truth" "$tmp/got" &&
			ok "$w worker(s), index cache $cache: the ground truth, address for address" ||
			bad "$w worker(s), index cache $cache: $(wc -l <"$tmp/got") addresses, differs from the ground truth"
		if [ $cache = 0 ]; then
			grep '^index: .* cut points are checkpoints' "$tmp/log" \
				>"$tmp/cuts$w"
			grep -c 'decoded from its TIP.PGE$' "$tmp/log" >"$tmp/pge$w"
		fi
	done
	cp "$tmp/b/index/1.idx" "$tmp/idx$w"
done
cuts=$(sed -n 's/^index: thread 1: \([0-9]*\) of \([0-9]*\) cut points.*/\1/p' "$tmp/cuts1")
[ "${cuts:-0}" -ge 3 ] && cmp -s "$tmp/cuts1" "$tmp/cuts2" &&
	cmp -s "$tmp/idx1" "$tmp/idx2" &&
	ok "$cuts cut points are checkpoints, the same index on 1 and 2 workers" ||
	bad "cut points: $(cat "$tmp/cuts1") / $(cat "$tmp/cuts2")"
[ "$(cat "$tmp/pge1")" -ge "$cuts" ] &&
	ok "the full listing decoded $(cat "$tmp/pge1") segments from their TIP.PGEs" ||
	bad "segments decoded from a TIP.PGE: $(cat "$tmp/pge1")"

# A seek to the last instructions on the saved index: one segment's decode
# (the open's check of the last segment is where the cursor starts).
total=$(wc -l <"$tmp/truth")
PTREC_INDEX_DEBUG=1 "$PTREC" insns "$tmp/b" --from $((total - 2)) --count 3 \
	--format=addr >"$tmp/got" 2>"$tmp/log"
tail -3 "$tmp/truth" >"$tmp/want"
dec=$(sed -n 's/^decode: .*: \([0-9]*\) decoded from its TIP.PGE$/\1/p' "$tmp/log" |
	awk '{ s += $1; k++ } END { print k ? s : -1 }')
[ "$dec" -ge 0 ] && [ "$dec" -lt $((total / 2)) ] &&
	! grep -q "decoded from the start" "$tmp/log" &&
	cmp -s "$tmp/want" "$tmp/got" &&
	ok "insns --from $((total - 2)): $dec of $total instructions decoded, the ground truth's addresses" ||
	bad "insns --from $((total - 2)): decoded $dec; $(tr '\n' ' ' <"$tmp/log")"

# Corrupt trace in a single-PSB stream (issue #19): one byte made 0x02
# (an extended opcode), at the first offset from two thirds into the
# stream where the plain loop reports an error other than missing code.  With no PSB after it,
# the plain loop ends there; ptrec's block pass goes back to its last
# checkpoint (a cut point) and decodes from there with the instruction
# decoder behind the same made-up PSB+ a seek uses (replay/idx_redo.c).
# The workload's code: its executable LOAD segment, for the plain loop.
readelf -lW "$WORKLOAD" | awk '$1 == "LOAD" && / R E / { print $3, $2, $5 }' |
	while read -r va off sz; do
		printf '%s %s %d %d\n' "$WORKLOAD" "$va" $((off)) $((sz))
	done >"$tmp/code.list"
"$IPTRAW" "$tmp/one.pt" "$tmp/code.list" "" "$tmp/plain" >"$tmp/log" 2>&1 &&
	cmp -s "$tmp/truth" "$tmp/plain" &&
	ok "the plain loop decodes the undamaged stream to the ground truth" ||
	bad "the plain loop on the undamaged stream: $(head -1 "$tmp/log")"
size=$(wc -c <"$tmp/one.pt")
# Corrupt trace, not a jump into code that is not there.
first_error "$tmp/one.pt" "$tmp/code.list" "" $((size * 2 / 3)) \
	$((size * 2 / 3 + 256))
want=$(sed -n 's/^\([0-9]*\) instructions.*/\1/p' "$tmp/base")
[ -s "$tmp/errs" ] && [ "$want" -lt "$total" ] &&
	ok "a byte corrupted at $at: the plain loop decodes $want of $total instructions, $(wc -l <"$tmp/errs") error(s)" ||
	bad "no byte near $at makes a decode error: $(cat "$tmp/base")"
rm -rf "$tmp/bad"
"$PTREC" import raw -o "$tmp/bad" --pt "$tmp/bad.pt" --elf "$WORKLOAD" \
	>"$tmp/log" 2>&1 || bad "import raw of the damaged stream"
for w in 1 2; do
	rm -rf "$tmp/bad/index"
	PTREC_INDEX_DEBUG=1 PTREC_INDEX_THREADS=$w "$PTREC" info "$tmp/bad" \
		>"$tmp/info" 2>&1
	grep -q "^total: *$want instructions, $(wc -l <"$tmp/errs") gaps" "$tmp/info" &&
		grep -q "^index: thread 1: corrupt trace decoded again from the cut point at " "$tmp/info" &&
		grep -q "^index: thread 1: [0-9]* of [0-9]* cut points are checkpoints" "$tmp/info" &&
		ok "damaged, $w worker(s): $want instructions, from the last cut point, cut points still checkpoints" ||
		bad "damaged, $w worker(s): $(grep '^index:\|^total' "$tmp/info" | tr '\n' ' ')"
	cp "$tmp/bad/index/1.idx" "$tmp/badidx$w"
	d=$(plain_diff "$tmp/bad")
	[ -z "$d" ] &&
		ok "damaged, $w worker(s): the plain loop's addresses, each gap where its error is ($(tr '\n' ' ' <"$tmp/errs"))" ||
		bad "damaged, $w worker(s): $d"
done
cmp -s "$tmp/badidx1" "$tmp/badidx2" &&
	ok "damaged: the same index on 1 and 2 workers" ||
	bad "damaged: the index differs on 1 and 2 workers"
# The last segment decodes from its cut point, as the index counted it.
seek_tip damaged "$tmp/bad" "$want"
tap_end import-onepsb
