#!/bin/sh
# Every event kind (issue #21) in one stream made with libipt's encoder
# (tests/tools/mkevents: PTWRITE, TSX begin/commit/abort, MWAIT, PWRE,
# EXSTOP, PWRX, CBR, interrupts, OVF, disable/enable, PIP, VMCS, MNT, an
# execution-mode change, an asynchronous disable, TraceStop, a PEBS block
# read as raw records, which libipt 2.0 does not know): ptrec insns
# must show each before the instruction the SDM binds it to (mkevents'
# expect file), ptrec info must count what a plain libipt loop counts
# (tests/bench/iptraw), from a fresh index and from the index cache, and
# the exports must carry them (read with Python's json).
set -u
: "${PTREC:?}" "${IPTRAW:?}" "${MKEVENTS:?}"
testlib_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$testlib_dir/lib.sh"
tap_begin import-events

d=$tmp/gen
mkdir -p "$d"
"$MKEVENTS" "$d" >"$tmp/log" 2>&1 && ok "mkevents wrote the stream" ||
	bad "mkevents"
"$PTREC" import raw -o "$tmp/b" --pt "$d/pt.bin" --images "$d/list" \
	>"$tmp/log" 2>&1 && ok "import raw" || bad "import raw"

# "N [TEXT]": each bracket line and the number of the next instruction.
events_of() {
	awk '/^\[/ { print n + 1, $0; next } { n++ }' "$1"
}
for cache in 0 1 1; do
	PTREC_INDEX_CACHE=$cache "$PTREC" insns "$tmp/b" >"$tmp/insns" \
		2>"$tmp/log" || bad "cache $cache: ptrec insns failed"
	events_of "$tmp/insns" >"$tmp/got"
	diff "$d/expect" "$tmp/got" >"$tmp/log" &&
		ok "index cache $cache: every event before the instruction it binds to" ||
		bad "index cache $cache: events differ from mkevents' expectation"
done
[ -s "$tmp/b/index/"*.idx ] 2>/dev/null &&
	ok "the events came from the index cache the second time" ||
	ok "# SKIP no index cache written (read-only bundle?)"

"$IPTRAW" "$d/pt.bin" "$d/list" >"$tmp/base" 2>&1
grep "^    events:" "$tmp/base" >"$tmp/ev.want"
"$PTREC" info "$tmp/b" >"$tmp/info" 2>&1
grep "^    events:" "$tmp/info" >"$tmp/ev.got"
[ "$(tr ',' '\n' <"$tmp/ev.want" | wc -l)" -eq 18 ] &&
	cmp -s "$tmp/ev.want" "$tmp/ev.got" &&
	ok "ptrec info counts all 18 kinds as the plain libipt loop does" ||
	bad "info $(cat "$tmp/ev.got"), libipt $(cat "$tmp/ev.want")"

"$PTREC" export "$tmp/b" --format=jsonl -o "$tmp/e.jsonl" >"$tmp/log" 2>&1 &&
"$PTREC" export "$tmp/b" --format=perfetto -o "$tmp/e.json" >>"$tmp/log" 2>&1 &&
	python3 - "$tmp/e.jsonl" "$tmp/e.json" "$d/expect" <<'PY' >"$tmp/log" 2>&1 &&
import json, sys
# The overflow is an event here (ptrec insns shows its gap instead).
want = [l.replace("[trace overflow at 0x400024, trace offset 169]",
                  "[overflow: resumed at 0x400024]").split(" ", 1)
        for l in open(sys.argv[3]).read().splitlines()]
got = []
for line in open(sys.argv[1]):
    rec = json.loads(line)
    for ev in rec.get("events", []):
        got.append([str(rec["n"]), "[" + ev["text"] + "]"])
    for ev in rec.get("events_after", []):
        got.append([str(rec["n"] + 1), "[" + ev["text"] + "]"])
assert got == want, (got, want)
evs = json.load(open(sys.argv[2]))["traceEvents"]
inst = [e for e in evs if e["ph"] == "i"]
assert len(inst) == len(want), (len(inst), len(want))
cbr = [e["args"]["ratio"] for e in evs if e["ph"] == "C"]
assert cbr == [24, 32], cbr
flows = [e for e in evs if e["ph"] in "sf"]
assert len(flows) == 6, flows       # two interrupts, one async disable
PY
	ok "exports: JSON lines carry each event at its instruction, the last ones after it; Perfetto instants, CBR counter, 3 flows" ||
	bad "exports"

# Time on real hardware (DynamoRIO's simple-glibc, Skylake-SP, TSC + MTC
# + CYC): every instruction has a time, never going backwards, finer than
# the TSC packets could give: the stream has one PSB+ and 30 enables,
# where TSC packets go (SDM 33.4.2.11), so over 1,000 distinct times come
# from MTC and CYC (the timing configuration, SDM 33.8.3).
find_real_pt
if [ -n "$real" ]; then
	g=$real/simple-glibc
	"$PTREC" import raw -o "$tmp/sg" --pt "$g/pt.bin@8" --elf "$g/hello" \
		--cpu 6/85/4 --mtc-freq 3 --nom-freq 37 --cpuid-0x15 2/308 \
		>"$tmp/log" 2>&1
	"$PTREC" insns "$tmp/sg" --time >"$tmp/t1" 2>"$tmp/log"
	fine=$(awk '/^\[no time\]/ { bad = 1 }
		/^\[[+-][0-9]* ns\]/ { t = substr($1, 2) + 0; n++;
			if (t < last) bad = 1; last = t;
			if (!(t in seen)) { seen[t] = 1; d++ } }
		END { if (bad || n != 59234) print -1; else print d }' "$tmp/t1")
	[ "$fine" -gt 1000 ] &&
		ok "real Skylake trace: 59234 instructions timed, never backwards, $fine distinct times" ||
		bad "real trace times: $fine distinct (-1: missing or backwards)"
else
	ok "# SKIP real hardware traces not found"
fi

tap_end import-events
