#!/bin/sh
# Real hardware traces with a byte corrupted (issue #19): the block pass
# meets corrupt trace (not missing code) and decodes only the stretch from
# its last checkpoint again with the instruction decoder
# (replay/idx_redo.c): from the last PSB up to the next one in libxdc's
# kAFL traces (mruby, Unzip), from the last cut point to the end in a
# stream with a single PSB (DynamoRIO's simple-glibc x30 with the PSB+ of
# every copy but the first taken out, as kAFL/Nyx write streams).  Each
# history must be a plain libipt pt_insn_next loop's (tests/bench/iptraw):
# its instruction count, every address, each gap at the loop's error
# (position, trace offset, libipt's message), the events per kind, on 1
# and 2 index workers; with one PSB, the same index on both.
#
# The byte, made 0x02 (an extended opcode), is the first from three
# quarters into the stream whose damage the plain loop reports as an
# error other than missing code.  Then a sweep of other bytes of Unzip
# and mruby made 0x02, each (an error or not) with the plain loop's
# count and addresses on 1 and 2 workers and the same index on both:
# among them Unzip's byte 8449, whose damage makes a return compressed
# against a call before the PSB at 8384, which the loop's return stack
# still holds and a decode from that PSB does not (the redo then decodes
# through the PSBs before it, replay/idx_redo.c), and byte 8446, which
# makes a MODE.Exec that libipt's block cache does not follow (75
# instructions fewer, no error: replay/idx_redo.c, rp_redo_blk_mode; the
# flow walker refuses the 32-bit code, so that range is indexed with
# libipt's block decoder), whose exec-mode events
# 2 workers once kept one fewer of.
set -u
: "${PTREC:?}" "${IPTRAW:?}"
here=$(cd "$(dirname "$0")" && pwd)
testlib_dir=$here/..
. "$testlib_dir/lib.sh"
tap_begin import-damaged
find_real_pt
if [ -z "$real" ] || [ ! -d "$real/../libxdc" ]; then
	echo "not ok 1 - real hardware traces not found (set PTREC_TESTDATA to shared/testdata)"
	exit 1
fi
. "$here/plain.sh"
x=$(cd "$real/../libxdc" && pwd)
g=$(cd "$real/simple-glibc" && pwd)


# damaged NAME PT LIST CPU FROM [AT]: the byte corrupted (the first from
# AT, else from 3/4), then the checks, the index joined from blocks (not
# indexed with the instruction decoder, nor again in one piece); FROM:
# the debug line's "PSB" or "cut point".
damaged() {
	name=$1 pt=$2 list=$3 cpu=$4 from=$5
	size=$(wc -c <"$pt")
	at=${6:-$((size * 3 / 4))}
	first_error "$pt" "$list" "$cpu" "$at" $((at + 256))
	want=$(sed -n 's/^\([0-9]*\) instructions.*/\1/p' "$tmp/base")
	nerr=$(wc -l <"$tmp/errs")
	[ "$nerr" -ge 1 ] &&
		ok "$name, byte $at corrupted: the plain loop decodes $want instructions, $nerr error(s)" ||
		bad "$name: no byte near $at makes a decode error: $(cat "$tmp/base")"
	rm -rf "$tmp/b"
	"$PTREC" import raw -o "$tmp/b" --pt "$tmp/bad.pt" --images "$list" \
		--cpu "$cpu" >"$tmp/log" 2>&1 || bad "$name: import raw"
	for w in 1 2; do
		rm -rf "$tmp/b/index"
		PTREC_INDEX_DEBUG=1 PTREC_INDEX_THREADS=$w "$PTREC" info \
			"$tmp/b" >"$tmp/info" 2>&1
		grep -q "^total: *$want instructions, " "$tmp/info" &&
			grep -q "^index: thread 1: corrupt trace decoded again from the $from at " "$tmp/info" &&
			grep -q "^index: thread 1: .* joined$" "$tmp/info" &&
			ok "$name, $w worker(s): $want instructions, decoded again from the $from only" ||
			bad "$name, $w worker(s): $(grep '^index:\|^total' "$tmp/info" | tr '\n' ' ')"
		grep "^    events:" "$tmp/base" >"$tmp/ev.want"
		grep "^    events:" "$tmp/info" >"$tmp/ev.got"
		cmp -s "$tmp/ev.want" "$tmp/ev.got" &&
			ok "$name, $w worker(s): the events per kind are the plain loop's" ||
			bad "$name, $w worker(s): events $(cat "$tmp/ev.got"), libipt $(cat "$tmp/ev.want")"
		cp "$tmp/b/index/1.idx" "$tmp/idx$w"
		d=$(plain_diff "$tmp/b")
		[ -z "$d" ] &&
			ok "$name, $w worker(s): the plain loop's addresses, each gap at its error ($(tr '\n' ' ' <"$tmp/errs"))" ||
			bad "$name, $w worker(s): $d"
	done
}

xdc_pages "$x/mruby" >"$tmp/mruby.list"
damaged mruby "$x/mruby/trace" "$tmp/mruby.list" 6/94/3 PSB
xdc_pages "$x/Unzip" >"$tmp/unzip.list"
damaged Unzip "$x/Unzip/trace" "$tmp/unzip.list" 6/94/3 PSB

# simple-glibc x20 (a PSB per copy) with the page at 0x440000 withheld (a
# missing-code gap in every copy, as in real.sh) and a byte of the last
# copy corrupted: its redo from the last PSB runs to the end of the
# stream, so it decodes the last segment as materializing will; that
# segment is not checked again (rp_redo_check_tail() took the corrupt trace it
# meets for a difference and the thread was indexed with the instruction
# decoder, on 2 workers after a second pass in one piece).
printf '%s 0x401000 4096 %d\n%s 0x441000 %d %d\n' "$g/hello" $((0x3f000)) \
	"$g/hello" $((0x41000)) $((0x86fb1 - 0x40000)) >"$tmp/nolib.list"
tail -c +9 "$g/pt.bin" >"$tmp/one.pt"
: >"$tmp/nolib.pt"
i=0
while [ $i -lt 20 ]; do
	cat "$tmp/one.pt" >>"$tmp/nolib.pt"
	i=$((i + 1))
done
damaged "simple-glibc x20, a page withheld, the last copy" "$tmp/nolib.pt" \
	"$tmp/nolib.list" 6/85/4 PSB $((19 * $(wc -c <"$tmp/one.pt") + 7000))

printf '%s 0x401000 4096 %d\n' "$g/hello" $((0x86fb1)) >"$tmp/glibc.list"
cp "$tmp/one.pt" "$tmp/single.pt"
i=1
while [ $i -lt 30 ]; do
	tail -c +55 "$tmp/one.pt" >>"$tmp/single.pt"
	i=$((i + 1))
done
damaged "simple-glibc x30, one PSB" "$tmp/single.pt" "$tmp/glibc.list" \
	6/85/4 "cut point"
# The same index on 1 and 2 workers (a stream with one PSB: its cut points
# are the same checkpoints on any number).
cmp -s "$tmp/idx1" "$tmp/idx2" &&
	ok "one PSB, damaged: the same index on 1 and 2 workers" ||
	bad "one PSB, damaged: the index differs on 1 and 2 workers"
# Its cut points stay checkpoints: a seek near the damage decodes one
# segment from its TIP.PGE.
seek_tip "one PSB, damaged" "$tmp/b" "$want"

# sweep NAME PT LIST CPU AT...: each byte AT of PT made 0x02 in turn: the
# plain loop's instruction count and addresses (and, for a short stream,
# each gap at its error: plain_diff) on 1 and 2 workers, and the same
# index on both.
sweep() {
	name=$1 pt=$2 list=$3 cpu=$4
	shift 4
	for at in "$@"; do
		corrupt "$pt" "$at" "$tmp/bad.pt"
		"$IPTRAW" "$tmp/bad.pt" "$list" "$cpu" "$tmp/want" \
			"$tmp/errs" >"$tmp/base" 2>&1
		want=$(sed -n 's/^\([0-9]*\) instructions.*/\1/p' "$tmp/base")
		rm -rf "$tmp/b"
		"$PTREC" import raw -o "$tmp/b" --pt "$tmp/bad.pt" \
			--images "$list" --cpu "$cpu" >"$tmp/log" 2>&1 ||
			bad "$name, byte $at: import raw"
		fail=
		for w in 1 2; do
			rm -rf "$tmp/b/index"
			PTREC_INDEX_THREADS=$w "$PTREC" info "$tmp/b" \
				>"$tmp/info" 2>&1
			cp "$tmp/b/index/1.idx" "$tmp/idx$w" 2>/dev/null
			how=
			[ "$want" -gt 500000 ] && how=addr
			d=$(plain_diff "$tmp/b" $how)
			[ -z "$d" ] || fail="$fail; $w worker(s): $d"
		done
		cmp -s "$tmp/idx1" "$tmp/idx2" ||
			fail="$fail; the index differs on 1 and 2 workers"
		# The flow walker's index is libipt's block decoder's
		# (replay/blksrc.h; 8446 makes 32-bit code it refuses).
		rm -rf "$tmp/b/index"
		PTREC_INDEX_FWALK=0 PTREC_INDEX_THREADS=1 "$PTREC" info \
			"$tmp/b" >/dev/null 2>&1
		cmp -s "$tmp/b/index/1.idx" "$tmp/idx1" ||
			fail="$fail; the index differs with libipt's block decoder"
		[ -z "$fail" ] &&
			ok "$name, byte $at corrupted: the plain loop's $want instructions ($(wc -l <"$tmp/errs") error(s)) on 1 and 2 workers, the same index, as libipt's block decoder builds it" ||
			bad "$name, byte $at corrupted, plain loop $want instructions, errors $(tr '\n' ' ' <"$tmp/errs")$fail"
	done
}

# Byte 15300 makes a MODE.Exec inside the PSB+ where the last range of 2
# workers starts: a range's first exec-mode event is kept where it
# differs from the range before's last mode (replay/index.c), as one pass
# keeps it.
sweep Unzip "$x/Unzip/trace" "$tmp/unzip.list" 6/94/3 \
	8446 8449 8452 8460 8600 300 1325 2093 3000 4871 5380 5602 \
	5900 7000 7640 9100 10200 11000 12500 14300 15300 16500
sweep mruby "$x/mruby/trace" "$tmp/mruby.list" 6/94/3 100000 400000

tap_end import-damaged
