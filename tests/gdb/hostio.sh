#!/bin/sh
# Host I/O (docs/gdb.md, "Files GDB reads"): GDB reads the program and its
# libraries from the bundle through ptrec-server, not from the local
# filesystem by their recorded paths.  A program crashes in a shared
# library built here; after recording, the library on disk is replaced by
# a build with another layout; GDB must still name the function that ran
# (the truth: nm of the recorded build, kept aside), and must not warn that
# the target cannot transfer files.
set -u
: "${PTREC:?}" "${PTREC_SERVER:?}"
testlib_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$testlib_dir/lib.sh"
tap_begin gdb-hostio
tap_log=$tmp/out
src=$testlib_dir/gdb
cc=${CC:-cc}

"$cc" -O1 -g -fno-omit-frame-pointer -shared -fPIC -o "$tmp/libhio.so" \
	"$src/hostio_lib.c" &&
	"$cc" -O1 -g -fno-omit-frame-pointer -shared -fPIC -DREPLACED \
		-o "$tmp/libhio-replaced.so" "$src/hostio_lib.c" &&
	"$cc" -O1 -g -fno-omit-frame-pointer -o "$tmp/hio" \
		"$src/hostio_main.c" -L"$tmp" -lhio -Wl,-rpath,"$tmp" ||
	{ echo "not ok - building the test program"; exit 1; }
cp "$tmp/libhio.so" "$tmp/libhio-recorded.so"
timeout 120 "$PTREC" record -q -o "$tmp/b" -- "$tmp/hio" >/dev/null 2>&1
[ -f "$tmp/b/manifest.json" ] ||
	{ echo "not ok - recording failed"; exit 1; }

# The replacement has no hio_crash: whatever GDB names from it is another
# function.
off=$(nm "$tmp/libhio-recorded.so" | sed -n 's/^\([0-9a-f]*\) T hio_crash$/\1/p')
if [ -n "$off" ] && nm "$tmp/libhio-replaced.so" | grep -q " T hio_replaced$" &&
	! nm "$tmp/libhio-replaced.so" | grep -q " hio_crash$"; then
	ok "the replacement library has other functions, no hio_crash"
else
	bad "the two builds of libhio.so"
fi
# Replaced in place, as a package upgrade does (a new file, the same
# path); the program rebuilt, as after an edit.
cp "$tmp/hio" "$tmp/hio-recorded"
"$cc" -O1 -g -fno-omit-frame-pointer -DREPLACED -o "$tmp/hio" \
	"$src/hostio_main.c" -L"$tmp" -lhio -Wl,-rpath,"$tmp" ||
	{ echo "not ok - rebuilding the test program"; exit 1; }
mv "$tmp/libhio-replaced.so" "$tmp/libhio.so"

replay() {
	timeout 120 "$PTREC" replay "$tmp/b" -batch -ex "info symbol \$pc" \
		-ex "bt 3" -ex "disassemble" -ex "info sharedlibrary" \
		>"$tmp/out" 2>&1
}
replay
if grep -q "does not support file transfer" "$tmp/out"; then
	bad "GDB warns the target does not support file transfer"
else
	ok "no 'does not support file transfer' warning"
fi
if grep -q "^hio_crash\( + [0-9]*\)\? in section .text of target:$tmp/libhio.so" \
	"$tmp/out" &&
	grep -q "^#0 .*hio_crash " "$tmp/out" &&
	grep -q "^#1 .* in main () at .*hostio_main.c" "$tmp/out" &&
	! grep -q "hio_main_pad" "$tmp/out" &&
	grep -q "^Dump of assembler code for function hio_crash:" "$tmp/out"
then
	ok "after the library and program were replaced, GDB still names hio_crash and main (from the bundle)"
else
	bad "symbols of the replaced library (GDB read the file on disk?)"
fi
# The control: GDB reading the local filesystem (what it did before Host
# I/O, and does with "set sysroot /") names something else, so the check
# above can fail.
cp "$tmp/out" "$tmp/out.hostio"
timeout 120 "$PTREC" replay "$tmp/b" -batch -iex "set sysroot /" \
	-ex "info symbol \$pc" >"$tmp/out" 2>&1
if grep -q "in section .text of $tmp/libhio.so" "$tmp/out" &&
	! grep -q "^hio_crash\( + [0-9]*\)\? in section" "$tmp/out"; then
	ok "control: from the replaced file on disk GDB names another function"
else
	bad "control: the local replaced file gave hio_crash too"
fi
cp "$tmp/out.hostio" "$tmp/out"

# Nothing else changed: with the recorded builds back, the same answers.
cp "$tmp/libhio-recorded.so" "$tmp/libhio.so"
cp "$tmp/hio-recorded" "$tmp/hio"
grep -E "^(hio_crash|#[01]|Dump)" "$tmp/out" >"$tmp/replaced"
replay
grep -E "^(hio_crash|#[01]|Dump)" "$tmp/out" >"$tmp/recorded"
if [ -s "$tmp/recorded" ] && cmp -s "$tmp/recorded" "$tmp/replaced"; then
	ok "the same symbols, frames and disassembly with the recorded build on disk"
else
	bad "answers differ with the recorded build on disk"
fi

tap_end GDB-HOSTIO
