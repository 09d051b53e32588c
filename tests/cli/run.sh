#!/bin/sh
# CLI tests: the real ptrec binary on bundles written by the library, golden
# output for `ptrec dump`, and clear errors (naming the file and the offset
# or field) with a non-zero exit for every kind of damaged bundle.
set -u
: "${PTREC:?set PTREC to the ptrec binary}"
: "${MKBUNDLE:?set MKBUNDLE to the mkbundle test tool}"
: "${PTREC_TINY:?set PTREC_TINY to tests/programs/tiny (make cli-test does)}"
here=$(cd "$(dirname "$0")" && pwd)
testlib_dir=$here/..
. "$testlib_dir/lib.sh"
tap_begin cli

# expect_fail NAME STATUS PATTERN CMD...: CMD exits STATUS, stderr has PATTERN
expect_fail() {
	name=$1 want=$2 pat=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -eq "$want" ] && grep -q -- "$pat" "$tmp/err"; then
		ok "$name"
	else
		bad "$name (exit $st, want $want; stderr: $(cat "$tmp/err"))"
	fi
}

fresh() {
	rm -rf "$tmp/b"
	"$MKBUNDLE" "$tmp/b" || { bad "mkbundle"; exit 1; }
}

"$PTREC" version | grep -q "bundle format 2, sideband format 6" &&
	ok "version names the formats" || bad "version"

fresh
if "$PTREC" dump "$tmp/b" >"$tmp/dump" 2>"$tmp/err" &&
	diff -u "$here/golden/dump-mkbundle.txt" "$tmp/dump"; then
	ok "dump matches golden output"
else
	bad "dump differs from golden output: $(cat "$tmp/err")"
fi
"$PTREC" dump "$tmp/b/sideband.sb" | tail -n 8 >"$tmp/sb"
tail -n 8 "$here/golden/dump-mkbundle.txt" | diff -u - "$tmp/sb" >/dev/null &&
	ok "dump of a bare sideband stream" || bad "dump of a bare stream"

expect_fail "no arguments" 2 "usage" "$PTREC"
expect_fail "unknown command" 2 "unknown command 'frobnicate'" \
	"$PTREC" frobnicate
expect_fail "dump without bundle" 2 "usage" "$PTREC" dump
expect_fail "values without --at: the usage line names it" 2 \
	"usage: ptrec values BUNDLE --at N" "$PTREC" values
expect_fail "missing bundle names the path" 1 "$tmp/none" \
	"$PTREC" dump "$tmp/none"

fresh
rm "$tmp/b/manifest.json"
expect_fail "unfinished bundle says incomplete" 1 "incomplete" \
	"$PTREC" dump "$tmp/b"

fresh
printf '{"format": "ptrec-bundle", ' >"$tmp/b/manifest.json"
expect_fail "manifest not JSON names the offset" 1 "byte offset" \
	"$PTREC" dump "$tmp/b"

fresh
sed -i 's/"format_version": [0-9]*/"format_version": 7/' "$tmp/b/manifest.json"
expect_fail "newer bundle version asks to upgrade" 1 "upgrade ptrec" \
	"$PTREC" dump "$tmp/b"

fresh
sed -i '/"producer"/d' "$tmp/b/manifest.json"
expect_fail "missing field is named" 1 "field 'producer': missing" \
	"$PTREC" dump "$tmp/b"

fresh
rm "$tmp/b/pt/101.pt"
expect_fail "missing stream file is named" 1 "pt/101.pt: listed in .* but missing" \
	"$PTREC" dump "$tmp/b"

fresh
truncate -s 10 "$tmp/b/pt/100.pt"
expect_fail "truncated stream file is detected" 1 "100.pt: 10 bytes.*truncated" \
	"$PTREC" dump "$tmp/b"

fresh
truncate -s 100 "$tmp/b/sideband.sb"
expect_fail "truncated sideband via bundle" 1 "sideband.sb: 100 bytes" \
	"$PTREC" dump "$tmp/b"
expect_fail "truncated sideband names the offset" 1 "sideband.sb: offset 80: .*runs past" \
	"$PTREC" dump "$tmp/b/sideband.sb"

fresh
printf 'garbage' >"$tmp/garbage"
expect_fail "not a sideband stream" 1 "not a ptrec sideband stream" \
	"$PTREC" dump "$tmp/garbage"

# Numbers in options are parsed whole: junk is refused, naming the option,
# never read as a prefix ("10x" as 10) or as 0 ("abc").
fresh
expect_fail "insns --count with junk" 2 "ptrec insns: --count 10x: not a number" \
	"$PTREC" insns "$tmp/b" --count 10x
expect_fail "insns --from negative" 2 "ptrec insns: --from -1: not a number" \
	"$PTREC" insns "$tmp/b" --from -1
expect_fail "insns --thread not a number" 2 "ptrec insns: --thread abc: not a number" \
	"$PTREC" insns "$tmp/b" --thread abc
expect_fail "insns --thread zero" 2 "ptrec insns: --thread 0: not a thread id" \
	"$PTREC" insns "$tmp/b" --thread 0
expect_fail "calls --thread too large" 2 "ptrec calls: --thread 4294967296: not a thread id" \
	"$PTREC" calls "$tmp/b" --thread 4294967296
expect_fail "export --thread with junk" 2 "ptrec export: --thread 7q: not a number" \
	"$PTREC" export "$tmp/b" --format=jsonl -o "$tmp/x.jsonl" --thread 7q
expect_fail "record --max-insns overflow" 2 "ptrec record: --max-insns 99999999999999999999: out of range" \
	"$PTREC" record --max-insns 99999999999999999999 -- /bin/true
expect_fail "record --psb-period with blank" 2 "ptrec record: --psb-period  4096: not a number" \
	"$PTREC" record --psb-period " 4096" -- /bin/true
# Regression: replay's error paths freed nothing (LeakSanitizer under
# make asan); a ptrec without ptrec-server beside it takes one of them.
mkdir -p "$tmp/alone"
cp "$PTREC" "$tmp/alone/ptrec"
expect_fail "replay without ptrec-server beside ptrec" 1 \
	"ptrec replay: ptrec-server not found next to ptrec" \
	"$tmp/alone/ptrec" replay "$tmp/b"

# ---- ptrec export -o, --thread, ptrec replay without a shell (#15, #13) ---
rec="$tmp/rec dir"
"$PTREC" record -q -o "$rec" -- "$PTREC_TINY" >/dev/null 2>&1 ||
	bad "record tiny for the export tests"
"$PTREC" info "$rec" >"$tmp/info" 2>&1
tid=$(sed -n 's/^  thread \([0-9]*\) (pid.*/\1/p' "$tmp/info" | head -n 1)
ninsn=$(sed -n 's/^total: *\([0-9]*\) instructions.*/\1/p' "$tmp/info")
for cmd in insns calls; do
	expect_fail "$cmd --thread of no thread names it and the bundle's threads" 1 \
		"ptrec $cmd: --thread 999: no such thread in $rec (threads: $tid)" \
		"$PTREC" $cmd "$rec" --thread 999
done
expect_fail "export --thread of no thread is an error" 1 \
	"ptrec export: --thread 999: no such thread in $rec (threads: $tid)" \
	"$PTREC" export "$rec" --format=csv -o "$tmp/t999.csv" --thread 999
[ ! -e "$tmp/t999.csv" ] && ok "export --thread of no thread writes no file" ||
	bad "export --thread 999 left $tmp/t999.csv"
if "$PTREC" export "$rec" --format=csv -o "$tmp/t.csv" --thread "$tid" \
	2>"$tmp/err" && [ "$(wc -l <"$tmp/t.csv")" -eq $((ninsn + 1)) ]; then
	ok "export --thread of the bundle's thread: a header and one line per instruction"
else
	bad "export --thread $tid: $(cat "$tmp/err")"
fi
echo original >"$tmp/keep.csv"
expect_fail "export -o an existing file asks for --force" 1 \
	"ptrec export: -o $tmp/keep.csv: exists; give --force to replace it" \
	"$PTREC" export "$rec" --format=csv -o "$tmp/keep.csv"
[ "$(cat "$tmp/keep.csv")" = original ] &&
	ok "export without --force leaves an existing file alone" ||
	bad "export without --force changed $tmp/keep.csv"
# A write that fails halfway (a file size limit) leaves the old file
# whole and no temporary file beside it.
(trap '' XFSZ; ulimit -f 1; "$PTREC" export "$rec" --format=jsonl --force \
	-o "$tmp/keep.csv") >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -eq 1 ] && [ "$(cat "$tmp/keep.csv")" = original ] &&
	grep -q "ptrec export: -o $tmp/keep.csv: writing failed: File too large" "$tmp/err" &&
	[ -z "$(ls -a "$tmp" | grep '^\.keep\.csv\.')" ]; then
	ok "a failed export --force keeps the old file and leaves no temporary file"
else
	bad "failed export --force (exit $st): $(cat "$tmp/err"; ls -a "$tmp")"
fi
if "$PTREC" export "$rec" --format=jsonl --force -o "$tmp/keep.csv" 2>"$tmp/err" &&
	[ "$(wc -l <"$tmp/keep.csv")" -eq "$ninsn" ] &&
	: >"$tmp/ref" &&
	[ "$(stat -c %a "$tmp/keep.csv")" = "$(stat -c %a "$tmp/ref")" ]; then
	ok "export --force replaces the file (mode as fopen would create it)"
else
	bad "export --force: $(cat "$tmp/err")"
fi
# Regression: --force onto a symbolic link replaced the link with a
# regular file; a link to a regular file (or to nothing) is refused, the
# link and its target left as they were (docs/security.md).  A link to a
# device (/dev/stdout) is still written directly.
echo target >"$tmp/target.csv"
ln -s "$tmp/target.csv" "$tmp/out-link.csv"
ln -s "$tmp/nowhere.csv" "$tmp/dangling.csv"
expect_fail "export --force onto a symlink to a file is refused" 1 \
	"ptrec export: -o $tmp/out-link.csv: a symbolic link; ptrec export writes no file through a link" \
	"$PTREC" export "$rec" --format=csv --force -o "$tmp/out-link.csv"
expect_fail "export --force onto a dangling symlink is refused" 1 \
	"ptrec export: -o $tmp/dangling.csv: a symbolic link" \
	"$PTREC" export "$rec" --format=csv --force -o "$tmp/dangling.csv"
[ -L "$tmp/out-link.csv" ] && [ "$(cat "$tmp/target.csv")" = target ] &&
	[ -L "$tmp/dangling.csv" ] && [ ! -e "$tmp/nowhere.csv" ] &&
	ok "the refused links and the link's target are unchanged" ||
	bad "export --force changed a link or its target: $(ls -l "$tmp")"
{ "$PTREC" export "$rec" --format=csv -o /dev/stdout 2>"$tmp/err"; } |
	cat >"$tmp/stdout.csv"
[ "$(wc -l <"$tmp/stdout.csv")" -gt 1 ] &&
	ok "export -o /dev/stdout (a link to a pipe) is written directly" ||
	bad "export -o /dev/stdout: $(cat "$tmp/err")"
expect_fail "export -o /dev/full names the file and the write error" 1 \
	"ptrec export: -o /dev/full: writing failed: No space left on device" \
	"$PTREC" export "$rec" --format=csv -o /dev/full
cp -r "$rec" "$tmp/rec2"
for f in "$tmp/rec2/new.csv" "$tmp/rec2/pt/$tid.pt" "$tmp/rec2/manifest.json"; do
	expect_fail "export -o into the bundle is refused ($(basename "$f"))" 1 \
		"ptrec export: -o $f: inside the bundle $tmp/rec2" \
		"$PTREC" export "$tmp/rec2" --format=csv --force -o "$f"
done
ln -s "$tmp/rec2/manifest.json" "$tmp/link.json"
expect_fail "export -o a symlink into the bundle is refused" 1 \
	"ptrec export: -o $tmp/link.json: inside the bundle" \
	"$PTREC" export "$tmp/rec2" --format=csv --force -o "$tmp/link.json"
"$PTREC" info "$tmp/rec2" >/dev/null 2>&1 && cmp -s "$rec/manifest.json" "$tmp/rec2/manifest.json" &&
	ok "the bundle is intact after the refused exports" ||
	bad "the bundle was damaged by export -o"
# ptrec replay: the bundle path reaches ptrec-server as an argument, never
# through a shell (GDB runs `target remote | ...` with /bin/sh).
if command -v gdb >/dev/null; then
	mkdir -p "$tmp/sock"
	(cd "$tmp" && cp -r "$rec" 'b;touch PWNED;true' &&
	 TMPDIR=$tmp/sock timeout 120 "$PTREC" replay 'b;touch PWNED;true' \
		-batch -ex 'ptrec position') >"$tmp/out" 2>&1
	if [ ! -e "$tmp/PWNED" ] && grep -q "at the end, after [0-9]* instructions" "$tmp/out"; then
		ok "replay of a bundle named 'b;touch PWNED;true' runs no shell command"
	else
		bad "replay 'b;touch PWNED;true': $(cat "$tmp/out"; ls "$tmp")"
	fi
	TMPDIR=$tmp/sock timeout 120 "$PTREC" replay "$rec" -batch \
		-ex 'ptrec position' >"$tmp/out" 2>&1
	grep -q "at the end, after [0-9]* instructions" "$tmp/out" &&
		ok "replay of a bundle whose path has a space" ||
		bad "replay '$rec': $(cat "$tmp/out")"
	[ -z "$(ls -A "$tmp/sock")" ] &&
		ok "replay leaves no socket directory behind" ||
		bad "replay left $(ls -A "$tmp/sock")"
	# Regression: GDB that never connects (here it refuses an option
	# and exits) left the server child waiting 120 s for it, its socket
	# directory with it; it now sees GDB gone (its pipe hangs up).
	mkdir -p "$tmp/sock2"
	TMPDIR=$tmp/sock2 "$PTREC" replay "$rec" --no-such-gdb-option \
		>"$tmp/out" 2>&1
	i=0
	while [ -n "$(ls -A "$tmp/sock2")" ] && [ $i -lt 25 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	[ -z "$(ls -A "$tmp/sock2")" ] &&
		ok "replay: GDB exits without connecting; the server child cleans up at once ($((i * 200)) ms)" ||
		bad "replay: GDB exited without connecting; 5 s later $(ls -A "$tmp/sock2") is still there"
else
	echo "ok - replay without a shell # SKIP no gdb"
fi

# ---- ptrec record's backends (cli/record.c, record/kmod.c) ---------------
expect_fail "record --backend unknown" 2 "ptrec record: --backend=fast: unknown (auto, emu, kmod)" \
	"$PTREC" record --backend=fast -- /bin/true
expect_fail "record: a kmod option with --backend=emu" 2 \
	"ptrec record: --buffer-size is an option of --backend=kmod" \
	"$PTREC" record --backend=emu --buffer-size 65536 -- /bin/true
expect_fail "record: an emu option with --backend=kmod" 2 \
	"ptrec record: --max-insns is an option of the software recorder (--backend=emu), not of --backend=kmod" \
	"$PTREC" record --backend=kmod --max-insns 5 -- /bin/true
expect_fail "record: emu and kmod options together" 2 \
	"ptrec record: --ground-truth is an option of the software recorder (--backend=emu), not of --stop-on-full" \
	"$PTREC" record --stop-on-full --ground-truth -- /bin/true
expect_fail "record --regions not a power of two" 2 \
	"ptrec record: --regions 3: a power of two from 1 to 256" \
	"$PTREC" record --backend=kmod --regions 3 -- /bin/true
expect_fail "record --mtc out of range" 2 "ptrec record: --mtc 16: an encoding from 0 to 15" \
	"$PTREC" record --backend=kmod --mtc 16 -- /bin/true
expect_fail "record --sim-rate junk" 2 "ptrec record: --sim-rate 5x: not a number" \
	"$PTREC" record --backend=kmod --sim-rate 5x -- /bin/true
if [ -e /dev/ptrec ]; then
	echo "ok - record without /dev/ptrec # SKIP this machine has /dev/ptrec"
else
	# --backend=kmod without the module: the message says what to do,
	# and no bundle directory is left behind
	expect_fail "record --backend=kmod without /dev/ptrec says to load the module" 1 \
		"ptrec record: --backend=kmod: /dev/ptrec does not exist: the ptrec.ko kernel module is not loaded (modprobe ptrec, or install it: see docs/kmod.md)" \
		"$PTREC" record --backend=kmod -o "$tmp/k" -- /bin/true
	[ ! -e "$tmp/k" ] && ok "record --backend=kmod without /dev/ptrec leaves no bundle" ||
		bad "record --backend=kmod without /dev/ptrec leaves no bundle"
	# a kmod-only option asks for kmod, so no fallback either
	expect_fail "record: a kmod option without /dev/ptrec does not fall back" 1 \
		"ptrec record: --buffer-size: /dev/ptrec does not exist" \
		"$PTREC" record --buffer-size 65536 -o "$tmp/k" -- /bin/true
	# auto falls back to the software recorder and says so, once
	if "$PTREC" record -o "$tmp/auto" -- "$PTREC_TINY" >"$tmp/out" 2>"$tmp/err" &&
		[ "$(grep -c 'backend' "$tmp/err")" = 1 ] &&
		grep -q "^ptrec record: backend emu (software recorder): no /dev/ptrec, ptrec.ko is not loaded$" "$tmp/err" &&
		grep -q '"backend": "emu"' "$tmp/auto/manifest.json"; then
		ok "record without --backend falls back to emu without /dev/ptrec and says so"
	else
		bad "record without --backend falls back to emu: $(cat "$tmp/err")"
	fi
	# -q: not even that line
	if "$PTREC" record -q -o "$tmp/autoq" -- "$PTREC_TINY" >"$tmp/out" 2>"$tmp/err" &&
		[ ! -s "$tmp/err" ]; then
		ok "record -q does not name the backend"
	else
		bad "record -q does not name the backend: $(cat "$tmp/err")"
	fi
fi
# Each failure of the device, with fakeptrec.so standing in for
# /dev/ptrec: the message says what is wrong and what to do.
fake() {
	mode=$1
	shift
	FAKE_PTREC=$mode LD_PRELOAD=$FAKEPTREC \
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
		"$@"
}
if [ -n "${FAKEPTREC:-}" ]; then
	expect_fail "record: /dev/ptrec without its driver (ENODEV)" 1 \
		"ptrec record: --backend=kmod: /dev/ptrec: No such device: the device node has no driver behind it (the module was unloaded?); modprobe ptrec" \
		fake enodev "$PTREC" record --backend=kmod -o "$tmp/k" -- "$PTREC_TINY"
	expect_fail "record: /dev/ptrec not accessible (EACCES)" 1 \
		"/dev/ptrec: Permission denied: the module creates it mode 0666" \
		fake eacces "$PTREC" record --backend=kmod -o "$tmp/k" -- "$PTREC_TINY"
	for m in eproto einval; do
		expect_fail "record: a module of another release ($m) is named, with what to do" 1 \
			"does not speak interface version 2 of this ptrec .*install the module of this release (make kmod, or DKMS: see README, \"Installing the module with DKMS\") and reload it (rmmod ptrec; modprobe ptrec)" \
			fake $m "$PTREC" record --backend=kmod -o "$tmp/k" -- "$PTREC_TINY"
	done
	expect_fail "record: a module answering with an older interface version" 1 \
		"the module answers with interface version 0, this ptrec speaks 2: install the module of this release" \
		fake oldversion "$PTREC" record --backend=kmod -o "$tmp/k" -- "$PTREC_TINY"
	expect_fail "record: /dev/ptrec of something else (ENOTTY)" 1 \
		"this device is not ptrec.ko's /dev/ptrec" \
		fake enotty "$PTREC" record --backend=kmod -o "$tmp/k" -- "$PTREC_TINY"
	expect_fail "record: a module without a PT unit" 1 \
		"the module reports no usable Intel PT unit" \
		fake nopt "$PTREC" record --backend=kmod -o "$tmp/k" -- "$PTREC_TINY"
	expect_fail "record: ATTACH refused for lack of CAP_PERFMON (EPERM)" 1 \
		"PTREC_IOC_ATTACH to process [0-9]*: Operation not permitted: tracing needs CAP_PERFMON (or CAP_SYS_ADMIN) and the right to ptrace the process: run ptrec as root, give it the capability (setcap cap_perfmon+ep), or record with --backend=emu" \
		fake eperm "$PTREC" record --backend=kmod -o "$tmp/k" -- "$PTREC_TINY"
	# the program stopped at its exec and was killed: it never printed
	if [ ! -s "$tmp/out" ] && [ ! -e "$tmp/k" ]; then
		ok "record: after a failed ATTACH the program never ran and no bundle is left"
	else
		bad "record: after a failed ATTACH: stdout '$(cat "$tmp/out")', bundle $(ls -d "$tmp/k" 2>/dev/null)"
	fi
	expect_fail "record: -p of a process that does not exist" 1 \
		"ptrec record: process 2147483646: no such process" \
		fake eperm "$PTREC" record --backend=kmod -p 2147483646 -o "$tmp/k"
	expect_fail "record: ATTACH to a traced process (EBUSY)" 1 \
		"Device or resource busy: the process is already traced by another ptrec session, or another tracer (perf's intel_pt) uses Intel PT now" \
		fake ebusy "$PTREC" record --backend=kmod -p $$ -o "$tmp/k"
	# ATTACH works and the stream is empty: the program runs (it prints
	# after its exec stop), the bundle is finished, with no thread
	if fake empty "$PTREC" record --backend=kmod -o "$tmp/e" -- "$PTREC_TINY" \
		>"$tmp/out" 2>"$tmp/err" && grep -q '^tiny$' "$tmp/out" &&
		grep -q '"backend": "kmod"' "$tmp/e/manifest.json" &&
		"$PTREC" info "$tmp/e" >"$tmp/info" 2>>"$tmp/err" &&
		grep -q '^threads:  0$' "$tmp/info"; then
		ok "record: an empty stream from the module gives a finished bundle without threads"
	else
		bad "record: an empty stream from the module: $(cat "$tmp/err")"
	fi
	# a module that never ends the stream: ptrec detaches, then gives up,
	# says so, and still finishes the bundle (never hangs)
	if PTREC_KMOD_GRACE_MS=300 timeout 20 sh -c \
		'FAKE_PTREC=hang LD_PRELOAD=$0 ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 "$@"' \
		"$FAKEPTREC" "$PTREC" record --backend=kmod -o "$tmp/h" -- "$PTREC_TINY" \
		>"$tmp/out" 2>"$tmp/err" &&
		grep -q "did not end the session 0.3 s after process [0-9]* ended; detaching" "$tmp/err" &&
		grep -q "did not end the stream 0.3 s after the detach; the recording ends here" "$tmp/err" &&
		[ -f "$tmp/h/manifest.json" ]; then
		ok "record: a module that never ends the stream does not hang ptrec"
	else
		bad "record: a module that never ends the stream: $(cat "$tmp/err")"
	fi
	expect_fail "record: auto falls back from a module of another release, and says why" 0 \
		"ptrec record: backend emu (software recorder): /dev/ptrec: PTREC_IOC_INFO: Protocol error: the loaded ptrec.ko does not speak" \
		fake eproto "$PTREC" record -o "$tmp/fb" -- "$PTREC_TINY"
	if [ "$(id -u)" = 0 ]; then
		expect_fail "record: auto uses a module that reports Intel PT, and says so" 1 \
			"ptrec record: backend kmod (/dev/ptrec: Intel PT)" \
			fake eperm "$PTREC" record -o "$tmp/k2" -- "$PTREC_TINY"
	fi
fi
# ptrec record exits with the recorded program's status, as the shell
# reports it (128 + the signal, the exit status), once the bundle is
# complete; the note on stderr names the signal (none with -q).  Before
# session 18 it exited 0 whatever the program did.
: "${PTREC_SEGV:?set PTREC_SEGV (make cli-test does)}"
: "${PTREC_EXEC:?set PTREC_EXEC to tests/programs/exec (make cli-test does)}"
("$PTREC_SEGV"; exit $?) >/dev/null 2>&1
segv_st=$?
"$PTREC_EXEC" >/dev/null 2>&1
exec_st=$?
[ $segv_st -gt 128 ] && [ $exec_st -ne 0 ] ||
	bad "segv and exec without arguments, untraced: exit $segv_st and $exec_st"
expect_fail "record: a program killed by a signal: ptrec says which, and that the history ends there, and exits with the program's status ($segv_st)" $segv_st \
	"ptrec record: the program died of signal 11 (SIGSEGV): the history ends there" \
	"$PTREC" record --backend=emu -o "$tmp/sg" -- "$PTREC_SEGV"
if "$PTREC" info "$tmp/sg" >"$tmp/info" 2>"$tmp/err" &&
	grep -q "^  thread .* instructions" "$tmp/info" &&
	grep -q "snapshot: process .*: signal 11" "$tmp/info"; then
	ok "record: the crashed program's bundle is complete (ptrec info reads its thread and its snapshot at the signal)"
else
	bad "record: the crashed program's bundle: $(cat "$tmp/err" "$tmp/info")"
fi
rm -rf "$tmp/sgq"
"$PTREC" record -q --backend=emu -o "$tmp/sgq" -- "$PTREC_SEGV" \
	>/dev/null 2>"$tmp/err"
st=$?
[ $st -eq $segv_st ] && [ ! -s "$tmp/err" ] && [ -f "$tmp/sgq/manifest.json" ] &&
	ok "record -q: a program killed by a signal: its status ($st), nothing on stderr, the bundle written" ||
	bad "record -q: a program killed by a signal: exit $st, want $segv_st, stderr: $(cat "$tmp/err")"
expect_fail "record: a program that exits with status $exec_st: ptrec exits with it and says so" $exec_st \
	"ptrec record: the program exited with status $exec_st$" \
	"$PTREC" record --backend=emu -o "$tmp/ex" -- "$PTREC_EXEC"
[ -f "$tmp/ex/manifest.json" ] && ok "record: the bundle of a program that exits $exec_st is written" ||
	bad "record: no bundle for a program that exits $exec_st"
if [ -n "${FAKEPTREC:-}" ] && [ ! -e /dev/ptrec ]; then
	expect_fail "record --backend=kmod (device faked): a program killed by a signal: ptrec exits with its status ($segv_st)" $segv_st \
		"ptrec record: the program died of signal 11 (SIGSEGV)" \
		fake empty "$PTREC" record --backend=kmod -o "$tmp/ksg" -- "$PTREC_SEGV"
	[ -f "$tmp/ksg/manifest.json" ] && ok "record --backend=kmod (device faked): the crashed program's bundle is written" ||
		bad "record --backend=kmod (device faked): no bundle for the crashed program"
fi
expect_fail "record: an emu-only option makes auto choose emu, and says why" 0 \
	"ptrec record: backend emu (software recorder): --max-insns needs it" \
	"$PTREC" record --max-insns 3 -o "$tmp/mi" -- "$PTREC_TINY"

tap_end CLI
