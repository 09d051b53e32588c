#!/bin/sh
# The trace's events end to end (issue #21): a program built with
# -mptwrite, recorded by the software recorder (which emulates PTWRITE:
# record/emu_ptwrite.c), must decode to PTWRITE events carrying exactly the
# values the program printed it wrote, in order, each right after a
# PTWRITE instruction the ground truth says ran at that position; and the
# history is still the ground truth's, address for address.  On one and
# on two index workers, with the index cache off and on.
set -u
: "${PTREC:?}" "${PROGS:?}" "${TRUTHDUMP:?}" "${CURSORCHECK:?}"
here=$(cd "$(dirname "$0")" && pwd)
testlib_dir=$here/..
. "$testlib_dir/lib.sh"
tap_begin e2e-events

b=$tmp/ptw
setarch x86_64 -R "$PTREC" record -q --ground-truth -o "$b" -- \
	"$PROGS/ptwrite" >"$tmp/out" 2>"$tmp/log" &&
	ok "ptwrite: recorded" || bad "ptwrite: record failed"
sed -n 's/^ptw //p' "$tmp/out" >"$tmp/want"
[ "$(wc -l <"$tmp/want")" -eq 12 ] && ok "the program wrote 12 values" ||
	bad "the program printed $(wc -l <"$tmp/want") values"
tid=$(sed -n 's/.*"tid": *\([0-9]*\).*/\1/p' "$b/manifest.json" | head -1)
"$TRUTHDUMP" "$b/truth/$tid.gt" >"$tmp/truth" 2>"$tmp/log" &&
	"$PTREC" insns "$b" --format=addr >"$tmp/addrs" 2>>"$tmp/log" &&
	cmp -s "$tmp/truth" "$tmp/addrs" &&
	ok "the history is the ground truth, PTWRITEs included" ||
	bad "ptrec insns --format=addr differs from the ground truth"

# Cursors over a history with PTWRITEs (one at a function's entry, after
# a direct call): goto, reverse walk, finish, next and search agree with
# the ground truth.
"$CURSORCHECK" "$b" >"$tmp/log" 2>&1 &&
	ok "cursors agree with the ground truth over the PTWRITEs" ||
	bad "cursorcheck on the PTWRITE recording"

for cache in 0 1; do
for w in 1 2; do
	what="index cache $cache, $w worker(s)"
	PTREC_INDEX_CACHE=$cache PTREC_INDEX_THREADS=$w "$PTREC" insns "$b" \
		>"$tmp/insns" 2>"$tmp/log" || bad "$what: ptrec insns failed"
	sed -n 's/^\[ptwrite: 0x\([0-9a-f]*\).*\]$/\1/p' "$tmp/insns" >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" &&
		ok "$what: the PTWRITE events carry the values written, in order" ||
		bad "$what: PTWRITE values $(tr '\n' ' ' <"$tmp/got"), want $(tr '\n' ' ' <"$tmp/want")"
	# Each event follows a PTWRITE instruction; its number N is where the
	# ground truth has that instruction's address.
	awk '/^\[ptwrite:/ { print prev } { prev = $0 }' "$tmp/insns" >"$tmp/before"
	bad_pos=0
	while IFS= read -r line; do
		num=$(printf '%s\n' "$line" | awk '{ print $1 }')
		addr=$(printf '%s\n' "$line" | awk '{ print $2 }' | tr -d ':')
		case $line in *ptwrite*) ;; *) bad_pos=1 ;; esac
		t=$(sed -n "${num}p" "$tmp/truth")
		[ "$((t))" -eq "$((addr))" ] || bad_pos=1
	done <"$tmp/before"
	[ "$(wc -l <"$tmp/before")" -eq 12 ] && [ $bad_pos -eq 0 ] &&
		ok "$what: each PTWRITE event follows the PTWRITE instruction at its ground-truth position" ||
		bad "$what: PTWRITE event positions: $(head -3 "$tmp/before")"
	PTREC_INDEX_CACHE=$cache PTREC_INDEX_THREADS=$w "$PTREC" info "$b" \
		>"$tmp/info" 2>"$tmp/log"
	grep -q "events: .*ptwrite 12" "$tmp/info" &&
		ok "$what: ptrec info counts 12 ptwrite events" ||
		bad "$what: ptrec info: $(grep events "$tmp/info")"
done
done

# The ground truth records each PTWRITE with the registers after it (it
# changes none): a register operand's value there is the event's payload.
"$TRUTHDUMP" --regs "$b/truth/$tid.gt" >"$tmp/regs" 2>"$tmp/log"
awk '/^\[ptwrite: 0x/ { v = $2; sub(/\]$/, "", v); print prev, v }
     { prev = $1 " " $NF }' "$tmp/insns" |
	while read -r num reg val; do
		case $reg in %rax|%eax|%rdi) ;; *) continue ;; esac
		r=${reg#%}
		[ "$r" = eax ] && r=rax
		got=$(sed -n "${num}p" "$tmp/regs" | tr ' ' '\n' | sed -n "s/^$r=//p")
		[ "$reg" = %eax ] && got=$(printf '0x%x' $((got & 0xffffffff)))
		[ "$((got))" -eq "$((val))" ] && echo same || echo "differs $num $reg $got $val"
	done >"$tmp/cmp"
[ "$(grep -c same "$tmp/cmp")" -eq 5 ] && ! grep -q differs "$tmp/cmp" &&
	ok "the ground truth's registers after 5 register PTWRITEs hold their payloads" ||
	bad "ground truth registers: $(grep -v same "$tmp/cmp" | head -3) ($(grep -c same "$tmp/cmp") same)"

# What a PTWRITE reads is named: the global of a RIP-relative operand by
# the symbols (64 and 32 bits of it), the local at -0x28(%rbp) and the
# parameter in %rdi by DWARF; the temporaries in %rax are nothing's.
grep -q '^\[ptwrite: 0x1122334455667788 (ptw_counter)\]$' "$tmp/insns" &&
	grep -q '^\[ptwrite: 0x55667788 (ptw_counter)\]$' "$tmp/insns" &&
	grep -q '^\[ptwrite: 0xfeedfacecafebeef (local)\]$' "$tmp/insns" &&
	grep -q '^\[ptwrite: 0x5eed (value)\]$' "$tmp/insns" &&
	grep -q '^\[ptwrite: 0x1\]$' "$tmp/insns" &&
	ok "a PTWRITE names the global, local or parameter it reads" ||
	bad "PTWRITE names: $(grep ptwrite "$tmp/insns" | tr '\n' ' ')"

# An indexed operand (issue #21): ptwarr writes arr[i] in a loop through
# (%r14,%rbx,8) and prints each i with arr[i]; each event names arr[i]
# with that i, by the registers the values engine knows there.  Its
# PTWRITE through an index from rdtsc, cleared right after, stays unnamed.
# (gcc -O1 here; the operand forms are checked, so another compiler's
# choice shows as a failure to look at, not a silent pass.)
a=$tmp/ptwarr
setarch x86_64 -R "$PTREC" record -q -o "$a" -- "$PROGS/ptwarr" \
	>"$tmp/arr.out" 2>"$tmp/log" &&
	"$PTREC" insns "$a" >"$tmp/arr.insns" 2>>"$tmp/log" ||
	bad "ptwarr: record or insns failed: $(tail -2 "$tmp/log")"
sed -n 's/^ptwarr \([0-9]*\) \([0-9a-f]*\)$/0x\2 (arr[\1])/p' \
	"$tmp/arr.out" >"$tmp/arr.want"
awk '/^\[ptwrite:/ { if (prev ~ /ptwrite.*\(%r[0-9a-z]*,%r[0-9a-z]*,8\)$/) {
	v = $0; sub(/^\[ptwrite: /, "", v); sub(/\]$/, "", v); print v } }
     { prev = $0 }' "$tmp/arr.insns" | grep -v '^0x77' >"$tmp/arr.got"
[ "$(wc -l <"$tmp/arr.want")" -eq 6 ] && cmp -s "$tmp/arr.want" "$tmp/arr.got" &&
	ok "an indexed PTWRITE names arr[i], i as the program printed it" ||
	bad "indexed names: $(tr '\n' ' ' <"$tmp/arr.got"), want $(tr '\n' ' ' <"$tmp/arr.want")"
# A based operand, 0x8(%r15) stepping over pts[i] (struct pt { x, y }):
# each event names the member, pts[i].y, by DWARF's struct layout.
sed -n 's/^ptwpts \([0-9]*\) \([0-9a-f]*\)$/[ptwrite: 0x\2 (pts[\1].y)]/p' \
	"$tmp/arr.out" >"$tmp/pts.want"
awk '/^\[ptwrite:/ && prev ~ /ptwrite.*0x8\(%r[0-9a-z]*\)$/ { print }
     { prev = $0 }' "$tmp/arr.insns" >"$tmp/pts.got"
[ "$(wc -l <"$tmp/pts.want")" -eq 3 ] && cmp -s "$tmp/pts.want" "$tmp/pts.got" &&
	ok "a based PTWRITE names the struct member pts[i].y it reads" ||
	bad "struct member names: $(tr '\n' ' ' <"$tmp/pts.got"), want $(tr '\n' ' ' <"$tmp/pts.want")"
grep -q 'ptwunk 77' "$tmp/arr.out" &&
	awk '/^\[ptwrite: 0x77[] ]/ { n++; if ($0 != "[ptwrite: 0x77]" ||
	     prev !~ /ptwrite.*,%rax,8\)$/) bad = 1 } { prev = $0 }
	     END { exit !(n == 1 && !bad) }' "$tmp/arr.insns" &&
	ok "an indexed PTWRITE whose index register is unknown stays unnamed" ||
	bad "unknown index: $(grep -B1 '^\[ptwrite: 0x77' "$tmp/arr.insns")"

# Tracing turned off at each system call (after the SYSCALL) and resumed
# where it stopped, as a CPU tracing user space only does.
awk '/^\[disabled\]$/ { if (prev !~ /syscall/) bad = 1; d++ }
     /^\[resumed\]$/ { if (prev != "[disabled]") bad = 1; r++ }
     { prev = $0 }
     END { exit !(d > 3 && r >= d - 1 && !bad) }' "$tmp/insns" &&
	ok "tracing off at each system call and resumed after it" ||
	bad "disabled/resumed: $(grep -c '^\[disabled\]' "$tmp/insns") / $(grep -c '^\[resumed\]' "$tmp/insns")"

# --time: every instruction has a time, never going backwards.
"$PTREC" insns "$b" --time >"$tmp/time" 2>"$tmp/log"
awk '/^\[[+-][0-9]* ns\]/ { t = substr($1, 2) + 0; if (t < last) bad = 1; last = t; n++ }
     /^\[no time\]/ { bad = 1 }
     END { exit !(n > 1000 && !bad) }' "$tmp/time" &&
	ok "--time: every instruction has a time, non-decreasing" ||
	bad "--time: $(head -3 "$tmp/time")"

# GDB's instruction history through the plugin and the server's monitor:
# the events inline, as GDB shows them, where ptrec insns has them.
if command -v gdb >/dev/null 2>&1; then
	first=$(grep -m1 -B1 '^\[ptwrite:' "$tmp/insns" | awk 'NR == 1 { print $1 }')
	timeout 120 "$PTREC" replay "$b" -batch \
		-ex "ptrec instruction-history $((first - 2)),$((first + 1))" \
		>"$tmp/gdb" 2>&1
	grep -A1 "^$first	.*ptwrite" "$tmp/gdb" | tail -1 |
		grep -q "^\[ptwrite: 0x$(head -1 "$tmp/want")\]$" &&
		ok "GDB: ptrec instruction-history shows [ptwrite: ...] after instruction $first" ||
		bad "GDB history: $(tail -5 "$tmp/gdb")"
else
	ok "# SKIP no gdb"
fi

# The exports, read with Python's json: JSON lines carry each PTWRITE in
# the "events" of the instruction after it, Perfetto as instant events.
"$PTREC" export "$b" --format=jsonl -o "$tmp/ptw.jsonl" 2>"$tmp/log" &&
	python3 - "$tmp/ptw.jsonl" "$tmp/want" <<'PY' >"$tmp/log" 2>&1 &&
import json, sys
got = []
for line in open(sys.argv[1]):
    rec = json.loads(line)
    assert "ns" in rec, rec
    for ev in rec.get("events", []):
        if ev["kind"] == "ptwrite":
            got.append(ev["payload"][2:])
want = open(sys.argv[2]).read().split()
assert got == want, (got, want)
PY
	ok "export jsonl: the PTWRITE values, in order, as events of the next instruction" ||
	bad "export jsonl: PTWRITE events"
"$PTREC" export "$b" --format=perfetto -o "$tmp/ptw.json" 2>"$tmp/log" &&
	python3 - "$tmp/ptw.json" "$tmp/want" <<'PY' >"$tmp/log" 2>&1 &&
import json, sys
evs = json.load(open(sys.argv[1]))["traceEvents"]
got = [e["args"]["payload"][2:] for e in evs
       if e["ph"] == "i" and e["name"] == "ptwrite"]
want = open(sys.argv[2]).read().split()
assert got == want, (got, want)
assert all(e["s"] == "t" for e in evs if e["ph"] == "i")
PY
	ok "export perfetto: one instant event per PTWRITE with its value" ||
	bad "export perfetto: PTWRITE instant events"

# A caught signal: tracing stops before the interrupted instruction and
# resumes in the handler; Perfetto draws a flow from one to the other.
s=$tmp/sig
"$PTREC" record -q -o "$s" -- "$PROGS/signal" >/dev/null 2>"$tmp/log"
"$PTREC" insns "$s" >"$tmp/sig.insns" 2>"$tmp/log"
awk '/^\[disabled: at / { at = $3; sub(/\]$/, "", at); d = 1; next }
     d && /^\[enabled\]$/ { e = 1; next }
     d && e && /<handler/ { ok = 1 } { if (!/^\[/) d = e = 0 }
     END { exit !ok }' "$tmp/sig.insns" &&
	ok "signal: [disabled: at ...] then [enabled] into the handler" ||
	bad "signal: $(grep -A2 'disabled: at' "$tmp/sig.insns" | head -4)"
"$PTREC" export "$s" --format=perfetto -o "$tmp/sig.json" 2>"$tmp/log" &&
	python3 - "$tmp/sig.json" <<'PY' >"$tmp/log" 2>&1 &&
import json, sys
evs = json.load(open(sys.argv[1]))["traceEvents"]
s = [e for e in evs if e["ph"] == "s"]
f = [e for e in evs if e["ph"] == "f"]
assert len(s) == 1 and len(f) == 1, (s, f)
assert s[0]["id"] == f[0]["id"] and s[0]["ts"] <= f[0]["ts"]
assert any(e["ph"] == "i" and e["name"] == "async-disabled" for e in evs)
PY
	ok "export perfetto: a flow from the interrupted instruction to the handler" ||
	bad "export perfetto: signal flow"

tap_end e2e-events
