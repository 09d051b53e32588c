#!/bin/sh
# Synthetic traces (issue #7, docs/scale.md): bundles tools/ptgen generates
# for several seeds and options, decoded by libptrec (scalecheck) and by the
# ptrec CLI, against ptgen's ground truth.  The seeds together hit every
# construct and packet kind; the script checks that they do.
set -u
: "${PTGEN:?set PTGEN to tools/ptgen/ptgen}"
: "${SCALECHECK:?set SCALECHECK to tests/scale/scalecheck}"
: "${PTREC:?set PTREC to the ptrec binary}"
tmp=$(mktemp -d /tmp/ptrec-scale-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# field FILE KEY: the value of KEY=VALUE in FILE
field() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | head -1; }

# positive FILE KEY...: every KEY is above 0 in FILE
positive() {
	f=$1
	shift
	for k in "$@"; do
		v=$(field "$f" "$k")
		[ -n "$v" ] && [ "$v" -gt 0 ] || return 1
	done
}

# run NAME ARGS...: generate, check with libptrec, check the CLI's count
run() {
	name=$1
	shift
	b=$tmp/$name
	if ! "$PTGEN" -o "$b" --elf "$b.elf" "$@" >"$b.gen" 2>&1; then
		bad "$name: ptgen $* ($(cat "$b.gen"))"
		return 1
	fi
	if "$SCALECHECK" "$b" "$b.truth" >"$b.check" 2>&1; then
		ok "$name: ptgen $*: $(grep checked: "$b.check")"
	else
		bad "$name: ptgen $*: $(cat "$b.check")"
		return 1
	fi
	want=$(field "$b.gen" insns)
	"$PTREC" info "$b" >"$b.info" 2>&1
	if grep -q "total: *$want instructions, 0 gaps" "$b.info"; then
		ok "$name: ptrec info counts $want instructions"
	else
		bad "$name: ptrec info: $(cat "$b.info")"
	fi
}

run s1 --seed 1 --insns 1000000
run s2 --seed 2 --insns 300000 --long-tnt
run s3 --seed 3 --insns 200000 --psb-period 256 --samples 2000
run s4 --seed 4 --insns 400000 --max-depth 40
run s5 --seed 5 --insns 100003 --psb-period 128 --long-tnt
run s6 --seed 6 --insns 1

# The saved index (BUNDLE/index) gives the same answers: one open saves
# it, the next reads it.
rm -rf "$tmp/s1/index"
SCALECHECK_CACHE=1 "$SCALECHECK" "$tmp/s1" "$tmp/s1.truth" >/dev/null 2>&1
if [ -f "$tmp/s1/index/4242.idx" ] &&
	SCALECHECK_CACHE=1 "$SCALECHECK" "$tmp/s1" "$tmp/s1.truth" \
		>"$tmp/out" 2>&1; then
	ok "s1 from its saved index: $(grep checked: "$tmp/out")"
else
	bad "s1 from its saved index: $(cat "$tmp/out")"
fi

# Every construct and packet kind, over the seeds.
cat "$tmp"/s[1-5].gen >"$tmp/all.gen"
for k in cond_taken cond_not loops jmp call icall jtab ret; do
	total=0
	for g in "$tmp"/s[1-5].gen; do
		v=$(field "$g" "$k")
		total=$((total + ${v:-0}))
	done
	[ "$total" -gt 0 ] && ok "seeds hit $k ($total)" || bad "no $k"
done
deep=$(field "$tmp/s1.gen" max_recursion)
[ "${deep:-0}" -gt 64 ] &&
	ok "recursion deeper than the return-compression stack ($deep)" ||
	bad "recursion only $deep deep"
positive "$tmp/s1.check" psb fup tsc mode tnt8 tip tip_pge tip_pgd &&
	ok "default stream: PSB+ (FUP, TSC, MODE), TNT-8, TIP, TIP.PGE/PGD" ||
	bad "default stream packets: $(grep packets: "$tmp/s1.check")"
positive "$tmp/s2.check" tnt64 &&
	ok "--long-tnt: long TNT packets" ||
	bad "--long-tnt packets: $(grep packets: "$tmp/s2.check")"
# Returns: compressed (TNT) within 64 frames, TIP beyond and after PSBs.
rets=$(field "$tmp/s4.gen" ret)
tips=$(field "$tmp/s4.check" tip)
[ "$tips" -lt "$rets" ] &&
	ok "return compression: $tips TIPs for $rets returns and the indirect branches" ||
	bad "returns not compressed: $tips TIPs, $rets returns"

# The symbol table: ptrec calls names the generated functions.
"$PTREC" calls "$tmp/s4" >"$tmp/calls" 2>&1
grep -q "main$" "$tmp/calls" && grep -q "recurse_[01]$" "$tmp/calls" &&
	grep -q "dispatch_" "$tmp/calls" && ! grep -q "??" "$tmp/calls" &&
	ok "ptrec calls names every function from the ELF's symbols" ||
	bad "ptrec calls: $(head -5 "$tmp/calls")"
# The ELF is one a toolchain reads: objdump disassembles main.
if command -v objdump >/dev/null; then
	objdump -d "$tmp/s1.elf" | grep -q "<main>:" &&
		ok "objdump reads the generated ELF" || bad "objdump"
fi
# The same seed gives the same bundle.
"$PTGEN" -o "$tmp/again" --seed 1 --insns 1000000 >/dev/null 2>&1
cmp -s "$tmp/again/pt/4242.pt" "$tmp/s1/pt/4242.pt" &&
	cmp -s "$tmp/again.truth" "$tmp/s1.truth" &&
	ok "deterministic: same seed, same stream and truth" ||
	bad "seed 1 twice gave different streams"

# The check can fail: a wrong hash, a wrong sample, a shorter stream.
cp "$tmp/s3.truth" "$tmp/bad.truth"
printf '\001' | dd of="$tmp/bad.truth" bs=1 seek=$((48 + 3 * 24 + 16)) \
	conv=notrunc 2>/dev/null
"$SCALECHECK" "$tmp/s3" "$tmp/bad.truth" >"$tmp/out" 2>&1 &&
	bad "a changed segment hash went unnoticed" ||
	{ grep -q "segment 3 " "$tmp/out" &&
	  ok "a changed segment hash is reported with its segment" ||
	  bad "wrong report: $(cat "$tmp/out")"; }
"$SCALECHECK" "$tmp/s3" "$tmp/s2.truth" >"$tmp/out" 2>&1 &&
	bad "another seed's truth went unnoticed" ||
	{ grep -q "instructions, truth" "$tmp/out" &&
	  ok "another seed's truth: the count differs" ||
	  bad "wrong report: $(cat "$tmp/out")"; }

# Events (issue #21): --events puts TSX, MWAIT/PWRE/EXSTOP/PWRX and CBR
# packets at block starts and PTWRITEs among the instructions, and lists
# where each belongs (DIR.events, as ptrec insns prints them); the
# history must show each there, over frequent PSBs, on one index worker
# and on three; scalecheck's finish, reverse-finish and checkpoint depths
# must hold with them (libipt's block decoder follows direct calls on its
# way to a PTWRITE).
events_of() {
	awk '/^\[/ { print n + 1, $0; next } { n++ }' "$1" | sort
}
for seed in 7 8; do
	b=$tmp/ev$seed
	"$PTGEN" -o "$b" --seed $seed --insns 300000 --events 20 \
		--psb-period 512 >"$b.gen" 2>&1 || bad "ptgen --events: $(cat "$b.gen")"
	sort "$b.events" >"$b.want"
	for w in 1 3; do
		PTREC_INDEX_CACHE=0 PTREC_INDEX_THREADS=$w "$PTREC" insns "$b" \
			>"$b.insns" 2>&1
		events_of "$b.insns" >"$b.got"
		cmp -s "$b.want" "$b.got" &&
			ok "seed $seed, $w worker(s): all $(wc -l <"$b.want") generated events where ptgen put them" ||
			bad "seed $seed, $w worker(s): events differ: $(diff "$b.want" "$b.got" | head -4 | tr '\n' ' ')"
	done
done
"$SCALECHECK" "$tmp/ev7" "$tmp/ev7.truth" >"$tmp/out" 2>&1 &&
	ok "with events, the history is still ptgen's: $(grep checked: "$tmp/out")" ||
	bad "scalecheck with events: $(cat "$tmp/out")"

# Bad arguments: clear errors.
"$PTGEN" -o "$tmp/s1" >"$tmp/out" 2>&1 &&
	bad "ptgen wrote into a non-empty directory" ||
	{ grep -q "not empty" "$tmp/out" && ok "ptgen refuses a non-empty -o" ||
	  bad "ptgen -o: $(cat "$tmp/out")"; }
"$PTGEN" -o "$tmp/x" --insns lots >"$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q -- "--insns lots: not a number" "$tmp/out" &&
	ok "ptgen --insns lots: named" || bad "ptgen --insns: $(cat "$tmp/out")"
"$SCALECHECK" "$tmp/s1" "$tmp/s1.gen" >"$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "not a ptgen ground-truth file" "$tmp/out" &&
	ok "scalecheck: a file that is no truth is named" ||
	bad "scalecheck bad truth: $(cat "$tmp/out")"

echo "scale: $n tests, $fails failed"
[ "$fails" -eq 0 ]
