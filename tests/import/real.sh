#!/bin/sh
# Real hardware traces through import + replay (issue #19): libxdc's kAFL
# guest traces (many PSB+ without a FUP, tracing off) and DynamoRIO's
# simple-glibc stream with a code page withheld (a decode error in every
# copy).  Each history must equal, address for address and gap for gap,
# what a plain libipt instruction-decoder loop (tests/bench/iptraw) decodes,
# with the counts documented in shared/testdata/real-pt/README.md, on one
# index worker and on two, whose index files must be byte-identical.
set -u
: "${PTREC:?}" "${IPTRAW:?}"
here=$(cd "$(dirname "$0")" && pwd)
testlib_dir=$here/..
. "$testlib_dir/lib.sh"
tap_begin import-real
find_real_pt
if [ -z "$real" ] || [ ! -d "$real/../libxdc" ]; then
	echo "not ok 1 - real hardware traces not found (set PTREC_TESTDATA to shared/testdata)"
	exit 1
fi
x=$(cd "$real/../libxdc" && pwd)
g=$(cd "$real/simple-glibc" && pwd)

# real NAME PT LIST CPU INSNS ERRORS [GAPS [one]]: import, then per worker
# count the history and compare it with the plain loop's: its instructions,
# its decode errors (GAPS, when given, adds the overflows: a gap in ptrec's
# history, an event to libipt) and its events per kind (issue #21); with 2
# workers the stream must be cut and joined up (but not a short one with one
# PSB: "one").
real_trace() {
	name=$1 pt=$2 list=$3 cpu=$4 want=$5 errs=$6 gaps=${7:-$6}
	cut='[2-9]|[1-9][0-9]+'
	[ "${8:-}" = one ] && cut=1
	"$IPTRAW" "$pt" "$list" "$cpu" "$tmp/want" >"$tmp/base" 2>&1 &&
		grep -q "^$want instructions, $errs errors" "$tmp/base" &&
		ok "$name: the plain libipt loop decodes $want instructions, $errs errors" ||
		bad "$name: plain libipt loop: $(cat "$tmp/base")"
	for w in 1 2; do
		rm -rf "$tmp/b"
		"$PTREC" import raw -o "$tmp/b" --pt "$pt" --images "$list" \
			--cpu "$cpu" 2>"$tmp/log" &&
		PTREC_INDEX_DEBUG=1 PTREC_INDEX_THREADS=$w "$PTREC" info "$tmp/b" \
			>"$tmp/info" 2>&1 &&
		grep -q "^total: *$want instructions, $gaps gap" "$tmp/info" &&
			ok "$name, $w worker(s): ptrec info counts $want instructions, $gaps gaps" ||
			bad "$name, $w worker(s): $(tail -1 "$tmp/info")"
		grep "^    events:" "$tmp/base" >"$tmp/ev.want"
		grep "^    events:" "$tmp/info" >"$tmp/ev.got"
		[ -s "$tmp/ev.want" ] && cmp -s "$tmp/ev.want" "$tmp/ev.got" &&
			ok "$name, $w worker(s): the events per kind are the plain loop's ($(sed 's/^ *//' "$tmp/ev.want"))" ||
			bad "$name, $w worker(s): events $(cat "$tmp/ev.got"), libipt $(cat "$tmp/ev.want")"
		# The last segment is decoded again (rp_redo_check_tail) on 2 workers
		# exactly when one worker does it: the whole stream's gaps and
		# length decide, not the last range's (Unzip's was decoded
		# twice, issue #19).
		grep -c "^index: thread 1: last segment checked" "$tmp/info" \
			>"$tmp/tail$w"
		if [ $w = 2 ]; then
			cmp -s "$tmp/tail1" "$tmp/tail2" &&
				ok "$name: 2 workers check the last segment as 1 does ($(cat "$tmp/tail1") time(s))" ||
				bad "$name: last segment checked $(cat "$tmp/tail1") time(s) on 1 worker, $(cat "$tmp/tail2") on 2"
		fi
		# The same index file on any number of workers (libxdc's Unzip
		# once differed in 4 events' "resumed" flag, issue #19), from
		# the same import (its key names the bundle's files).
		if [ $w = 2 ]; then
			cp "$tmp/b/index/1.idx" "$tmp/idx2" 2>/dev/null
			rm -rf "$tmp/b/index"
			PTREC_INDEX_THREADS=1 "$PTREC" info "$tmp/b" >/dev/null 2>&1
			cmp -s "$tmp/b/index/1.idx" "$tmp/idx2" &&
				ok "$name: the same index file on 1 and 2 workers" ||
				bad "$name: the index file differs on 1 and 2 workers"
			# The flow walker (replay/blksrc.h) builds the index
			# libipt's block decoder builds, byte for byte.
			cp "$tmp/b/index/1.idx" "$tmp/idx2" 2>/dev/null
			rm -rf "$tmp/b/index"
			PTREC_INDEX_FWALK=0 PTREC_INDEX_THREADS=1 "$PTREC" info \
				"$tmp/b" >/dev/null 2>&1
			cmp -s "$tmp/b/index/1.idx" "$tmp/idx2" &&
				ok "$name: the same index file with the flow walker and with libipt's block decoder" ||
				bad "$name: the index file differs with the flow walker and with libipt's block decoder"
		fi
		# Two workers really share it: cut, and the ranges joined.
		if [ $w = 2 ]; then
			grep -Eq "^index: thread 1: ($cut) range\(s\) at .*, joined$" "$tmp/info" &&
				ok "$name, 2 workers: the ranges joined" ||
				bad "$name, 2 workers: $(grep '^index:' "$tmp/info")"
		fi
		"$PTREC" insns "$tmp/b" --format=addr >"$tmp/got" 2>"$tmp/log" &&
			cmp -s "$tmp/want" "$tmp/got" &&
			ok "$name, $w worker(s): ptrec insns lists the plain loop's addresses" ||
			bad "$name, $w worker(s): ptrec insns differs ($(wc -l <"$tmp/got") lines; $(tail -1 "$tmp/log"))"
	done
}

xdc_pages "$x/Unzip" >"$tmp/unzip.list"
real_trace Unzip "$x/Unzip/trace" "$tmp/unzip.list" 6/94/3 149576 0
xdc_pages "$x/mruby" >"$tmp/mruby.list"
# mruby's stream has an OVF packet: libipt resumes after it, ptrec's
# history shows the hole as an overflow gap.
real_trace mruby "$x/mruby/trace" "$tmp/mruby.list" 6/94/3 6334131 0 1

# DynamoRIO's own two streams as they are: simple (8 instructions, starts
# with its PSB) and simple-glibc (an 8-byte header before its only PSB).
d=$(cd "$real/simple" && pwd)
printf '%s 0x401000 4096 %d\n' "$d/hello" $((0x27)) >"$tmp/simple.list"
real_trace simple "$d/pt.bin" "$tmp/simple.list" 6/85/4 8 0 0 one
printf '%s 0x401000 4096 %d\n' "$g/hello" $((0x86fb1)) >"$tmp/glibc.list"
real_trace simple-glibc "$g/pt.bin@8" "$tmp/glibc.list" 6/85/4 59234 0 0 one

# simple-glibc x20, its text (0x401000-0x487fb1, file offset 0x1000) without
# the page at 0x440000: the plain loop stops 47,233 instructions into each
# copy and resyncs at the next copy's PSB.
printf '%s 0x401000 4096 %d\n%s 0x441000 %d %d\n' "$g/hello" $((0x3f000)) \
	"$g/hello" $((0x41000)) $((0x86fb1 - 0x40000)) >"$tmp/nolib.list"
: >"$tmp/nolib.pt"
i=0
while [ $i -lt 20 ]; do
	tail -c +9 "$g/pt.bin" >>"$tmp/nolib.pt"
	i=$((i + 1))
done
real_trace "simple-glibc x20, a page withheld" "$tmp/nolib.pt" "$tmp/nolib.list" \
	6/85/4 $((20 * 47233)) 20

# The same with one byte of the eleventh copy, 7,000 bytes in, made 0x02
# (an extended opcode): corrupt trace, not missing code.  The plain loop
# stops there and resyncs at the next copy's PSB, skipping that copy's
# missing page: 5,459 instructions fewer, still 20 errors.  The block pass
# decodes only that PSB range again with the instruction decoder
# (replay/index.c, insn_redo()), not the whole stream (issue #19).
bad_at=$((10 * $(wc -c <"$tmp/nolib.pt") / 20 + 7000))
{ head -c $bad_at "$tmp/nolib.pt"; printf '\002'
  tail -c +$((bad_at + 2)) "$tmp/nolib.pt"; } >"$tmp/nolib-bad.pt"
real_trace "simple-glibc x20, a page withheld, a byte corrupted" \
	"$tmp/nolib-bad.pt" "$tmp/nolib.list" 6/85/4 $((20 * 47233 - 5459)) 20
grep -q "^index: thread 1: corrupt trace decoded again from the PSB at $((bad_at - 7000)) " \
	"$tmp/info" &&
	ok "a byte corrupted: only its PSB range decoded again with the instruction decoder" ||
	bad "a byte corrupted: $(grep '^index:' "$tmp/info")"

# A stream with a single PSB, as kAFL/Nyx write them (libxdc's traces in
# fact have 349 and 74): simple-glibc x30 with the PSB+ (its first 54
# bytes) of every copy but the first taken out, so the copies follow each
# other with tracing off in between.  With 2 workers ptrec cuts it at
# TIP.PGEs found by a packet pass (replay/psbscan.c); the history must
# still be the plain loop's, address for address.
tail -c +9 "$g/pt.bin" >"$tmp/one.pt"
cp "$tmp/one.pt" "$tmp/single.pt"
i=1
while [ $i -lt 30 ]; do
	tail -c +55 "$tmp/one.pt" >>"$tmp/single.pt"
	i=$((i + 1))
done
npsb=$(od -An -v -tx1 "$tmp/single.pt" | tr -d ' \n' | grep -o '02820282028202820282028202820282' | wc -l)
[ "$npsb" = 1 ] && ok "single-PSB stream: one PSB in $(wc -c <"$tmp/single.pt") bytes" ||
	bad "single-PSB stream: $npsb PSBs"
real_trace "simple-glibc x30, one PSB" "$tmp/single.pt" "$tmp/glibc.list" \
	6/85/4 $((30 * 59234)) 0
rm -rf "$tmp/b/index"
PTREC_INDEX_DEBUG=1 PTREC_INDEX_THREADS=2 "$PTREC" info "$tmp/b" >"$tmp/info" 2>"$tmp/log"
grep -q "range(s) at TIP.PGEs (one PSB), joined" "$tmp/log" &&
	grep -q "^total: *$((30 * 59234)) instructions, 0 gaps" "$tmp/info" &&
	ok "one PSB, 2 workers: cut at TIP.PGEs, joined, the same count" ||
	bad "one PSB, 2 workers: $(cat "$tmp/log")"

# Its cut points are index checkpoints (issue #19): the same index on 1
# and 2 workers, and a seek far from the PSB decodes one segment from its
# TIP.PGE (behind a made-up PSB+), not the stream from its start, with
# the plain loop's addresses there.
cp "$tmp/b/index/1.idx" "$tmp/idx2"
rm -rf "$tmp/b/index"
PTREC_INDEX_DEBUG=1 PTREC_INDEX_THREADS=1 "$PTREC" info "$tmp/b" >"$tmp/info" 2>&1
ck=$(sed -n 's/.* \([0-9]*\) checkpoints$/\1/p' "$tmp/info")
cmp -s "$tmp/b/index/1.idx" "$tmp/idx2" && [ "${ck:-0}" -gt 30 ] &&
	grep -q "^index: thread 1: $((ck - 1)) of $((ck - 1)) cut points are checkpoints$" "$tmp/info" &&
	ok "one PSB: $ck checkpoints, $((ck - 1)) at cut points, the same index on 1 and 2 workers" ||
	bad "one PSB: $ck checkpoints; $(grep '^index' "$tmp/info" | tr '\n' ' ')"
total=$((30 * 59234))
for from in $((total - 4)) $((total / 2)) 100001; do
	PTREC_INDEX_DEBUG=1 "$PTREC" insns "$tmp/b" --from $from --count 5 \
		--format=addr >"$tmp/got" 2>"$tmp/log"
	sed -n "$from,$((from + 4))p" "$tmp/want" >"$tmp/want5"
	# The saved index's check at open decodes the last segment, which
	# is where a cursor starts: count every decode this command made.
	dec=$(sed -n 's/^decode: .*: \([0-9]*\) decoded from .*/\1/p' "$tmp/log" |
		awk '{ s += $1 } END { print s + 0 }')
	grep -q "decoded from the start" "$tmp/log" && dec=start
	[ "$dec" != start ] && [ "$dec" -le $((2 * total / ck)) ] &&
		grep -q "decoded from its TIP.PGE$" "$tmp/log" &&
		cmp -s "$tmp/want5" "$tmp/got" &&
		ok "one PSB: insns --from $from decodes $dec of $total instructions, the plain loop's addresses" ||
		bad "one PSB: insns --from $from: decoded $dec, $(tr '\n' ' ' <"$tmp/log")"
done

# The same single-PSB stream with the page at 0x440000 withheld: the plain
# loop stops at the first copy's missing code and finds no PSB to go on
# at, so the history ends there.  Cut for 2 workers, the ranges after the
# one with the missing code are dropped, not decoded again in one piece.
real_trace "simple-glibc x30, one PSB, a page withheld" "$tmp/single.pt" \
	"$tmp/nolib.list" 6/85/4 47233 1 1 one
grep -q "^index: thread 1: 1 range(s) at TIP.PGEs (one PSB), joined$" "$tmp/info" &&
	ok "one PSB, a page withheld, 2 workers: cut, then ended at the missing code" ||
	bad "one PSB, a page withheld, 2 workers: $(grep '^index:' "$tmp/info")"

# The same stream cut inside a packet (the first 7 bytes of a PSB): longer
# than 128 KiB, so import raw does not scan it whole (the first open
# decodes it) but still finds the cut from the last PSB.
len=$(wc -c <"$tmp/nolib.pt")
{ cat "$tmp/nolib.pt"; printf '\002\202\002\202\002\202\002'; } >"$tmp/nolib-cut.pt"
rm -rf "$tmp/b"
"$PTREC" import raw -o "$tmp/b" --pt "$tmp/nolib-cut.pt" --images "$tmp/nolib.list" \
	--cpu 6/85/4 >"$tmp/log" 2>&1 &&
	grep -q "ends inside a packet at offset $len: its last 7 bytes are lost" "$tmp/log" &&
	ok "a long stream cut inside a packet: the import names the offset" ||
	bad "long cut stream: $(tail -1 "$tmp/log")"
"$PTREC" info "$tmp/b" >"$tmp/info" 2>&1 &&
	grep -q "^total: *$((20 * 47233)) instructions, 21 gaps" "$tmp/info" &&
	ok "a long cut stream: every instruction, the 20 gaps and one for the lost bytes" ||
	bad "long cut stream: $(tail -1 "$tmp/info")"

# The single-PSB stream cut the same way: its tail from its only PSB is
# all of it, walked by packet headers (import/common.c), not libipt.
len=$(wc -c <"$tmp/single.pt")
{ cat "$tmp/single.pt"; printf '\002\202\002\202\002\202\002'; } >"$tmp/single-cut.pt"
rm -rf "$tmp/b"
"$PTREC" import raw -o "$tmp/b" --pt "$tmp/single-cut.pt" --images "$tmp/glibc.list" \
	--cpu 6/85/4 >"$tmp/log" 2>&1 &&
	grep -q "ends inside a packet at offset $len: its last 7 bytes are lost" "$tmp/log" &&
	tr -d ' \n' <"$tmp/b/manifest.json" |
	grep -q '"features":\["user","branch","tsc","mtc","cyc"\]' &&
	ok "a single-PSB stream cut inside a packet: the import names the offset, the packet kinds" ||
	bad "single-PSB cut stream: $(tail -1 "$tmp/log"); $(grep -A6 '"features"' "$tmp/b/manifest.json" | tr -d '\n')"
"$PTREC" info "$tmp/b" >"$tmp/info" 2>&1 &&
	grep -q "^total: *$((30 * 59234)) instructions, 1 gaps" "$tmp/info" &&
	ok "a single-PSB cut stream: every instruction, one gap for the lost bytes" ||
	bad "single-PSB cut stream: $(tail -1 "$tmp/info")"

# Capstone, libopcodes (with libbfd) and zstd are loaded on first use
# (ptkit/cslazy.c, replay/opclazy.c, ptkit/liblazy.c): an import, which
# decodes no instruction and writes no snapshot, must not pay their
# relocations (and liblzma its constructor's CPUIDs).  libdw, libelf,
# jansson and nettle are linked in from their archives (Makefile,
# STATIC_LIBS): no process maps them.
rm -rf "$tmp/b"
LD_DEBUG=files "$PTREC" import raw -o "$tmp/b" --pt "$tmp/single.pt" \
	--images "$tmp/glibc.list" --cpu 6/85/4 >"$tmp/log" 2>&1 &&
	grep -q "file=libipt" "$tmp/log" &&
	! grep -Eq "file=lib(capstone|opcodes|bfd|nettle|zstd|dw|elf|jansson|lzma)" "$tmp/log" &&
	ok "import raw maps libipt and libc only (no capstone, libopcodes, nettle, zstd, libdw, libelf, jansson, liblzma)" ||
	bad "import raw loaded: $(grep -E 'file=lib(capstone|opcodes|bfd|nettle|zstd|dw|elf|jansson|lzma)' "$tmp/log" | head -1)"

# Nor does the first open of a trace with asynchronous events, whose
# loop-gap check (replay/gaps.c) takes lengths from libipt: libxdc's
# Unzip (256 events) and mruby.  Disassembly does load libopcodes.
for tr in Unzip mruby; do
	rm -rf "$tmp/b"
	"$PTREC" import raw -o "$tmp/b" --pt "$x/$tr/trace" \
		--images "$tmp/$(echo $tr | tr A-Z a-z).list" --cpu 6/94/3 \
		>/dev/null 2>&1 &&
	PTREC_INDEX_THREADS=1 LD_DEBUG=files "$PTREC" info "$tmp/b" \
		>"$tmp/log" 2>&1 &&
		grep -q "file=libipt" "$tmp/log" &&
		! grep -Eq "file=lib(capstone|opcodes|bfd|zstd|nettle|dw|elf|jansson|lzma)" "$tmp/log" &&
		LD_DEBUG=files "$PTREC" insns "$tmp/b" --count 1 >"$tmp/log2" 2>&1 &&
		grep -q "file=libopcodes" "$tmp/log2" &&
		ok "$tr: the first ptrec info loads neither capstone nor libopcodes" ||
		bad "$tr: ptrec info loaded: $(grep -E 'file=lib(capstone|opcodes|bfd|zstd|nettle|dw|elf|jansson|lzma)' "$tmp/log" | head -1)"
done

tap_end import-real
