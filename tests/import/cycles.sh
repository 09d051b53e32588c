#!/bin/sh
# Core cycles per instruction from CYC packets (issue #21), which libipt
# 2.0 folds into its time without a count per instruction.  A stream made
# with libipt's encoder (tests/tools/mkcycles) with CYC packets before TNT
# and TIP packets, a PAD among them and counts of one, two and three bytes:
# ptrec insns --time and the JSON lines export must give each instruction
# the cycles the SDM binds to it (mkcycles' expect file).  On the real
# Skylake trace (TSC + MTC + CYC), every CYC payload that a plain libipt
# packet dump (tests/tools/cycdump) reads is given out exactly once.
set -u
: "${PTREC:?}" "${MKCYCLES:?}" "${CYCDUMP:?}"
testlib_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$testlib_dir/lib.sh"
tap_begin import-cycles

d=$tmp/gen
mkdir -p "$d"
"$MKCYCLES" "$d" >"$tmp/log" 2>&1 && ok "mkcycles wrote the stream" ||
	bad "mkcycles"
"$PTREC" import raw -o "$tmp/b" --pt "$d/pt.bin" --images "$d/list" \
	>"$tmp/log" 2>&1 && ok "import raw" || bad "import raw"

"$PTREC" insns "$tmp/b" --time >"$tmp/insns" 2>"$tmp/log"
awk '/^\[/ && match($0, /\[cyc [0-9]+\] [0-9]+/) {
	split(substr($0, RSTART + 5, RLENGTH - 5), f, "] ");
	print f[2], f[1] }' "$tmp/insns" >"$tmp/got"
diff "$d/expect" "$tmp/got" >"$tmp/log" &&
	ok "ptrec insns --time: each instruction's cycles as the stream says" ||
	bad "insns --time cycles differ: $(cat "$tmp/log")"

"$PTREC" export "$tmp/b" --format=jsonl -o "$tmp/e.jsonl" >"$tmp/log" 2>&1 &&
	python3 - "$tmp/e.jsonl" "$d/expect" <<'PY' >"$tmp/log" 2>&1 &&
import json, sys
want = [[int(x) for x in l.split()] for l in open(sys.argv[2])]
got = [[r["n"], r["cycles"]] for r in map(json.loads, open(sys.argv[1]))]
assert got == want, (got, want)
PY
	ok "JSON lines: cycles per instruction as the stream says" ||
	bad "export cycles: $(cat "$tmp/log")"

# A window (--from) gives each instruction what the whole listing does,
# also before the window's first CYC (a regression: it showed none there).
"$PTREC" insns "$tmp/b" --time --from 7 --count 3 >"$tmp/win" 2>"$tmp/log"
awk '/^\[/ && match($0, /\[cyc [0-9]+\] [0-9]+/) {
	split(substr($0, RSTART + 5, RLENGTH - 5), f, "] ");
	print f[2], f[1] }' "$tmp/win" >"$tmp/got"
sed -n 7,9p "$d/expect" | diff - "$tmp/got" >"$tmp/log" &&
	ok "insns --time --from 7: the same cycles as the whole listing" ||
	bad "window cycles differ: $(cat "$tmp/log")"

# Without --time, no cycles.
"$PTREC" insns "$tmp/b" >"$tmp/plain" 2>&1
grep -q '\[cyc' "$tmp/plain" && bad "cycles shown without --time" ||
	ok "no cycles without --time"

find_real_pt
if [ -n "$real" ]; then
	g=$real/simple-glibc
	"$PTREC" import raw -o "$tmp/sg" --pt "$g/pt.bin@8" --elf "$g/hello" \
		--cpu 6/85/4 --mtc-freq 3 --nom-freq 37 --cpuid-0x15 2/308 \
		>"$tmp/log" 2>&1
	want=$("$CYCDUMP" "$g/pt.bin@8" |
		awk '$2 == "cyc" { s += $3 } END { print s + 0 }')
	got=$("$PTREC" insns "$tmp/sg" --time 2>"$tmp/log" |
		awk '/^\[/ && match($0, /\[cyc [0-9]+\]/) {
			s += substr($0, RSTART + 5, RLENGTH - 6); n++ }
		END { print n + 0, s + 0 }')
	[ "$want" -gt 0 ] && [ "$got" = "59234 $want" ] &&
		ok "real Skylake trace: 59234 instructions with cycles, all $want cycles of libipt's packet dump given out once" ||
		bad "real trace cycles: got '$got' (instructions, sum), libipt's CYC sum $want"
	"$PTREC" insns "$tmp/sg" --time 2>/dev/null | grep -v '^\[[a-z]' |
		sed -n 30000,30200p >"$tmp/all"
	"$PTREC" insns "$tmp/sg" --time --from 30000 --count 201 2>/dev/null |
		grep -v '^\[[a-z]' >"$tmp/part"
	grep -q '\[cyc' "$tmp/part" && cmp -s "$tmp/all" "$tmp/part" &&
		ok "real trace: --from 30000 shows the same times and cycles as the whole listing" ||
		bad "real trace: --from 30000 differs from the whole listing"
else
	ok "# SKIP real hardware traces not found"
fi

tap_end import-cycles
