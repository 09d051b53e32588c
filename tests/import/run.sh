#!/bin/sh
# ptrec import: real Intel PT from a Skylake-SP (shared/testdata/real-pt)
# imported as raw streams must replay address for address as libipt's own
# decoder (ptcheck --addrs) sees them; every kind of image argument works;
# bad input gets a clear error naming the file, offset or line, or an
# explicit gap, never a crash.
set -u
: "${PTREC:?}" "${PTCHECK:?}" "${MKPT32:?}"
here=$(cd "$(dirname "$0")" && pwd)
testlib_dir=$here/..
. "$testlib_dir/lib.sh"
tap_begin import
find_real_pt

if [ -z "$real" ]; then
	echo "not ok 1 - real hardware traces not found (set PTREC_TESTDATA to shared/testdata)"
	exit 1
fi
S=$real/simple
G=$real/simple-glibc
cfg="--cpu 6/85/4 --mtc-freq 3 --nom-freq 37 --cpuid-0x15 2/308"
imp() { out=$1; shift; rm -rf "${tmp:?}/$out"; "$PTREC" import raw -o "$tmp/$out" "$@"; }

# same BUNDLE PT ELF DESC: ptrec insns lists exactly what libipt decodes.
same() {
	# shellcheck disable=SC2086
	"$PTCHECK" --raw "$2" --elf "$3" $cfg --addrs "$tmp/want" >/dev/null 2>&1 &&
	"$PTREC" insns "$tmp/$1" --format=addr >"$tmp/got" 2>"$tmp/log" &&
	cmp -s "$tmp/want" "$tmp/got" &&
	ok "$4 ($(wc -l <"$tmp/got") instructions)" || bad "$4"
}

# shellcheck disable=SC2086
check "import raw: simple" imp s --pt "$S/pt.bin" --elf "$S/hello" $cfg
"$PTREC" insns "$tmp/s" --format=addr >"$tmp/got" 2>"$tmp/log"
printf '0x%x\n' 0x401000 0x401005 0x40100a 0x401014 0x401019 0x40101b \
	0x401020 0x401025 >"$tmp/want"
cmp -s "$tmp/want" "$tmp/got" &&
	ok "simple: its 8 instructions at 0x401000-0x401025" || bad "simple: 8 instructions"
same s "$S/pt.bin" "$S/hello" "simple: same addresses as libipt"
"$PTREC" info "$tmp/s" >"$tmp/log" 2>&1
grep -q "family 6 model 85 stepping 4" "$tmp/log" &&
	grep -q "backend:  import-raw" "$tmp/log" &&
	grep -q "command:  ptrec import raw" "$tmp/log" &&
	ok "info: backend, CPU and the import command line" || bad "info: manifest"

# shellcheck disable=SC2086
check "import raw: simple-glibc past its 8-byte header" \
	imp g --pt "$G/pt.bin@8" --elf "$G/hello" $cfg
"$PTREC" info "$tmp/g" >"$tmp/log" 2>&1
grep -q "total:    59234 instructions, 0 gaps" "$tmp/log" &&
	ok "simple-glibc: exactly 59,234 instructions, no gap" || bad "simple-glibc: 59,234"
same g "$G/pt.bin@8" "$G/hello" "simple-glibc: same addresses as libipt"
cp "$tmp/want" "$tmp/want-g"
"$PTREC" calls "$tmp/g" >"$tmp/calls" 2>"$tmp/log" &&
	grep -q "_start" "$tmp/calls" && grep -q "main" "$tmp/calls" &&
	ok "calls: the function-call history names _start and main" || bad "calls on an import"
"$PTREC" export "$tmp/g" --format=jsonl -o "$tmp/g.jsonl" >"$tmp/log" 2>&1 &&
	[ -s "$tmp/g.jsonl" ] && ok "export works on an import" || bad "export on an import"

# The code as a memory dump, and as an image list with offsets.
objcopy -O binary --only-section=.text "$S/hello" "$tmp/text.bin"
check "--raw FILE:ADDRESS" imp r --pt "$S/pt.bin" --raw "$tmp/text.bin:0x401000"
same r "$S/pt.bin" "$S/hello" "--raw: same addresses as libipt"
cp "$S/hello" "$tmp/hello"
printf '# the .text section of hello\n\nhello 0x401000 0x1000 0x27\n' >"$tmp/list"
check "--images LIST (relative path, file offset, size)" \
	imp l --pt "$S/pt.bin" --images "$tmp/list"
same l "$S/pt.bin" "$S/hello" "--images: same addresses as libipt"
# BASE is where the lowest PT_LOAD segment goes: 0x400000 for this file.
check "--elf FILE:BASE at its own base" imp e --pt "$S/pt.bin" --elf "$S/hello:0x400000"
same e "$S/pt.bin" "$S/hello" "--elf FILE:BASE: same addresses as libipt"

# Two streams, two threads.
check "two --pt streams with --thread" \
	imp two --pt "$S/pt.bin" --thread 7 --pt "$S/pt.bin" --thread 9 --elf "$S/hello"
"$PTREC" info "$tmp/two" >"$tmp/log" 2>&1
grep -q "thread 7 (pid 1): 8 instructions" "$tmp/log" &&
	grep -q "thread 9 (pid 1): 8 instructions" "$tmp/log" &&
	ok "two threads of 8 instructions each" || bad "two threads"

# GDB on an imported bundle: the history ends where the trace does.
if command -v gdb >/dev/null 2>&1; then
	timeout 120 "$PTREC" replay "$tmp/s" -batch -ex 'reverse-stepi' \
		-ex 'p/x $pc' -ex 'ptrec goto begin' -ex 'p/x $pc' \
		-ex 'stepi' -ex 'p/x $pc' >"$tmp/log" 2>&1
	grep -q '^\$1 = 0x401025' "$tmp/log" && grep -q '^\$2 = 0x401000' "$tmp/log" &&
		grep -q '^\$3 = 0x401005' "$tmp/log" &&
		ok "GDB: reverse-stepi, goto begin, stepi on an import" || bad "GDB on an import"
fi

# 32-bit code: a hand-made ELF32 and the stream of one run (mkpt32).
mkdir -p "$tmp/p32"
if "$MKPT32" "$tmp/p32" >"$tmp/log" 2>&1 &&
	imp b32 --pt "$tmp/p32/pt.bin" --elf "$tmp/p32/prog32" >"$tmp/log" 2>&1 &&
	"$PTREC" insns "$tmp/b32" --format=addr >"$tmp/got" 2>>"$tmp/log" &&
	cmp -s "$tmp/got" "$tmp/p32/expect"; then
	ok "32-bit: the 11 instructions of the run, in order"
else
	bad "32-bit: addresses"
fi
same b32 "$tmp/p32/pt.bin" "$tmp/p32/prog32" "32-bit: same addresses as libipt"
# 0x49 is "dec %ecx" in 32-bit code, a REX prefix in 64-bit code.
"$PTREC" insns "$tmp/b32" >"$tmp/log" 2>&1
grep -q '<_start+5>:	dec    %ecx' "$tmp/log" &&
	grep -q '<f+0>:	ret' "$tmp/log" &&
	ok "32-bit: disassembled as 32-bit code, with the ELF32 symbols" ||
	bad "32-bit: disassembly"

# Bad input.
fails "not PT: no PSB anywhere" "no PSB packet at or after offset 0: not an Intel PT stream" \
	imp bad1 --pt "$S/hello" --elf "$S/hello"
fails "a header not skipped is reported" "12345 is beyond" \
	imp bad2 --pt "$S/pt.bin@12345" --elf "$S/hello"
fails "missing image names the file" "$tmp/nonexistent: No such file" \
	imp bad3 --pt "$S/pt.bin" --elf "$tmp/nonexistent"
fails "missing stream names the file" "nonexistent.pt: No such file" \
	imp bad4 --pt "$tmp/nonexistent.pt" --elf "$S/hello"
fails "--raw without an address" "expected FILE:NUMBER" \
	imp bad5 --pt "$S/pt.bin" --raw "$tmp/text.bin"
fails "--elf on a file that is not ELF" "not an ELF file" \
	imp bad6 --pt "$S/pt.bin" --elf "$tmp/text.bin"
# A program header whose offset + size wraps (review): refused, not mapped.
python3 - "$S/hello" "$tmp/wrap.elf" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
phoff, = struct.unpack_from('<Q', d, 32)
phentsize, phnum = struct.unpack_from('<HH', d, 54)
for i in range(phnum):
    o = phoff + i * phentsize
    ptype, flags = struct.unpack_from('<II', d, o)
    if ptype == 1 and flags & 1:
        struct.pack_into('<Q', d, o + 32, 0xffffffffffffe010)
open(sys.argv[2], 'wb').write(d)
PY
fails "an ELF whose segment size wraps is refused" "lies beyond the file's end" \
	imp badwrap --pt "$S/pt.bin" --elf "$tmp/wrap.elf"
for c in 6 x/85 6/85/4/1 6/-1 6/0x10000; do
	fails "--cpu $c is refused" "FAMILY/MODEL" imp bad7 --pt "$S/pt.bin" --cpu "$c"
done
fails "--cpuid-0x15 without EBX" "expected EAX/EBX" imp bad8 --pt "$S/pt.bin" --cpuid-0x15 2
fails "--mtc-freq junk" "not a number" imp bad9 --pt "$S/pt.bin" --mtc-freq 3x
fails "--thread before any --pt" "give --pt FILE first" imp bad10 --thread 5 --pt "$S/pt.bin"
fails "two streams for one thread" "both thread 4" \
	imp bad11 --pt "$S/pt.bin" --thread 4 --pt "$S/pt.bin" --thread 4
printf 'hello 0x401000\nhello 0x401000 12\n' >"$tmp/badlist"
fails "a malformed list line names LIST:LINE" "badlist:2: expected" \
	imp bad12 --pt "$S/pt.bin" --images "$tmp/badlist"
printf 'hello 0x401000 0x1000 0x100000\n' >"$tmp/badlist2"
fails "a list piece past the file's end" "badlist2:1: .*beyond the file" \
	imp bad13 --pt "$S/pt.bin" --images "$tmp/badlist2"
# Contiguous pieces of one file become one mapping (one MMAP record, one
# libipt section at replay; issue #19), the rest stay apart; the history is
# libipt's, and an error still names the line at fault.
printf '%s\n' "hello 0x400000 0 0x1000" "hello 0x401000 0x1000 0x800" \
	"hello 0x401800 0x1800 0x800" "hello 0x402000 0x2000 0x2a8" \
	"hello 0x500000 0x1000 0x1000" >"$tmp/pages.lst"
cp "$S/hello" "$tmp/hello"
imp pages --pt "$S/pt.bin" --images "$tmp/pages.lst" $cfg 2>"$tmp/log"
"$PTREC" dump "$tmp/pages" 2>&1 | grep ' MMAP ' >"$tmp/mmaps"
[ "$(wc -l <"$tmp/mmaps")" = 2 ] &&
	grep -q '0x400000-0x4022a8 pgoff 0x0 ' "$tmp/mmaps" &&
	grep -q '0x500000-0x501000 pgoff 0x1000 ' "$tmp/mmaps" &&
	ok "contiguous list pieces: one mapping" ||
	bad "contiguous list pieces: one mapping ($(cat "$tmp/mmaps" "$tmp/log"))"
same pages "$S/pt.bin" "$S/hello" "contiguous list pieces: same addresses as libipt"
printf '%s\n' "hello 0x400000 0 0x1000" "hello 0x401000 0x1000 0x1000" \
	"hello 0x402000 0x2000 0x1000" >"$tmp/badlist3"
cp "$S/hello" "$tmp/hello"
fails "a merged piece past the file's end names its line" \
	"badlist3:3: .*0x2000 size 0x1000 lies beyond the file" \
	imp bad14 --pt "$S/pt.bin" --images "$tmp/badlist3"
printf '%s\n' "hello 0x400000 0 0x1000" "hello 0x401000 0x1000 0x1000" \
	"nosuch 0x402000 0x2000 0x1000" >"$tmp/badlist4"
fails "a missing file after merged pieces names its line" \
	"badlist4:3: .*nosuch" imp bad15 --pt "$S/pt.bin" --images "$tmp/badlist4"
mkdir -p "$tmp/full" && touch "$tmp/full/x"
fails "-o a non-empty directory" "full" "$PTREC" import raw -o "$tmp/full" --pt "$S/pt.bin"
fails "no -o" "-o DIR is required" "$PTREC" import raw --pt "$S/pt.bin"
fails "unknown import kind" "unknown kind 'zip'" "$PTREC" import zip

# A wrong image: an explicit gap, not a crash.
if imp wrong --pt "$G/pt.bin@8" --elf "$S/hello" >"$tmp/log" 2>&1 &&
	"$PTREC" info "$tmp/wrong" >"$tmp/log" 2>&1 &&
	grep -Eq "total: +[0-9]+ instructions, [1-9][0-9]* gaps?" "$tmp/log"; then
	ok "wrong image: the history has a gap"
else
	bad "wrong image: the history has a gap"
fi
# No image at all: the same, and `insns` shows the gap.
if imp noimg --pt "$S/pt.bin" >"$tmp/log" 2>&1 &&
	"$PTREC" info "$tmp/noimg" >"$tmp/log" 2>&1 &&
	grep -Eq "total: +0 instructions, [1-9][0-9]* gaps?" "$tmp/log"; then
	ok "no image: zero instructions and a gap"
else
	bad "no image: zero instructions and a gap"
fi
"$PTREC" insns "$tmp/noimg" >"$tmp/log" 2>&1 &&
	grep -q "^\[no code at this address (missing image) at 0x401000" "$tmp/log" &&
	ok "no image: insns shows the gap at 0x401000" || bad "no image: insns shows the gap"

# A stream cut inside a packet: the whole stream plus the first 7 bytes of
# a PSB (16 bytes long, SDM Vol. 3C 33.4.2.17), as a dump taken while the
# unit was writing one.
len=$(($(wc -c <"$G/pt.bin") - 8))
{ cat "$G/pt.bin"; printf '\002\202\002\202\002\202\002'; } >"$tmp/cut.pt"
# shellcheck disable=SC2086
if imp cut --pt "$tmp/cut.pt@8" --elf "$G/hello" $cfg >"$tmp/log" 2>&1 &&
	grep -q "ends inside a packet at offset $((8 + len)): its last 7 bytes are lost" "$tmp/log"; then
	ok "cut stream: warning names the file offset and the bytes lost"
else
	bad "cut stream: warning"
fi
"$PTREC" dump "$tmp/cut" >"$tmp/dump" 2>"$tmp/log"
grep -q "LOST" "$tmp/dump" && grep -qi "truncated" "$tmp/dump" &&
	ok "cut stream: a LOST record (truncated)" || { cat "$tmp/dump" >>"$tmp/log"; bad "cut stream: LOST record"; }
"$PTREC" info "$tmp/cut" >"$tmp/log" 2>&1
grep -q "total:    59234 instructions, 1 gap" "$tmp/log" &&
	ok "cut stream: all 59,234 instructions, then one gap" || bad "cut stream: history"
"$PTREC" insns "$tmp/cut" --format=addr >"$tmp/got" 2>>"$tmp/log" &&
	cmp -s "$tmp/got" "$tmp/want-g" && ok "cut stream: the same addresses as the whole stream" ||
	bad "cut stream: addresses"

tap_end import
