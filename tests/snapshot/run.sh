#!/bin/sh
# The end-state snapshot (issue #16): record real programs with the
# software recorder, write `ptrec core`, and compare what the real GDB shows
# on it with what it shows on a core file of the same state taken
# independently by GDB's own gcore (same program, same empty environment,
# no address randomization).  Also eu-stack and eu-readelf on it, and bad
# input: damaged, truncated, missing and over-the-limit snapshots.
set -u
: "${PTREC:?set PTREC to the ptrec binary}"
: "${SNAP_PROGS:?set SNAP_PROGS to the built tests/snapshot programs}"
here=$(cd "$(dirname "$0")" && pwd)
testlib_dir=$here/..
. "$testlib_dir/lib.sh"
tap_begin snapshot

# GDB's view of a core, without the lines that name the producer, the LWP
# numbers or libthread_db (which GDB loads for gcore's file only), and with
# what differs from one run of a program to the next masked: thread ids
# (${MASK_REGS}: registers that hold one), and libc's pointer-guarded
# jmp_bufs and uninitialized signal masks (AT_RANDOM's canary).
mask() {
	sed -e 's/jmp_buf = {[^}]*}/jmp_buf = {...}/' \
		-e 's/__val = {[^}]*}/__val = {...}/' \
		-e "s/^\(${MASK_REGS:-none}\) .*/\1 (a thread id)/" \
		-e "/^\(${MASK_AVX512:-none}\) /d"
}

# GDB 13 reads the AVX-512 state of a live process, and so writes it to
# gcore's file, at Intel's XSAVE offsets (the opmask at 1088), where AMD's
# processors since Zen 4 put it elsewhere (832: CPUID leaf 0DH, and
# replay/xsave.c): there gcore's k0-k7, zmm upper halves and zmm16-31 are
# not the program's, so they are no truth to compare with.  Found by
# gcore's file of avx512.c itself (k1 not its pattern): those registers
# are then left out of every comparison with gcore's file, and the
# avx512 case checks ptrec's core against the program's patterns instead.
MASK_AVX512=
if grep -q 'avx512f' /proc/cpuinfo && grep -q 'avx512bw' /proc/cpuinfo; then
	gdb -nx -batch -ex 'set exec-wrapper env -i' -ex run \
		-ex "gcore $tmp/avx512probe.ref" "$SNAP_PROGS/avx512" \
		>/dev/null 2>&1
	if ! gdb -nx -batch -ex 'print/x $k1' "$SNAP_PROGS/avx512" \
		"$tmp/avx512probe.ref" 2>/dev/null |
		grep -q '= 0xa5a5a5a5c3c3c3c3'; then
		MASK_AVX512='k[0-7]\|zmm[0-9]*\|[xy]mm1[6-9]\|[xy]mm2[0-9]\|[xy]mm3[01]'
	fi
	rm -f "$tmp/avx512probe.ref"
fi

# GDB 13 warns of an XSAVE note larger than it knows (the kernel's whole
# user size, 11,008 bytes where AMX is on, as Linux's own core dumps
# write it; gcore writes 2,696), with a blank line before each warning:
# both go, for either file.
gdb_core() {
	gdb -nx -batch -x "$1" "$2" "$3" 2>&1 |
		grep -v -e '^\[New LWP' -e 'libthread_db' -e '^Core was generated' \
			-e '^\[Current thread is' |
		awk '/^$/ { if (held) print ""; held = 1; next }
			/^warning: Unexpected size of section/ { held = 0; next }
			{ if (held) print ""; held = 0; print }
			END { if (held) print "" }' |
		mask
}

# record NAME PROG [ARGS]: bundle $tmp/NAME.b, core $tmp/NAME.core
record() {
	name=$1
	shift
	rm -rf "$tmp/$name.b"
	setarch -R env -i "$PTREC" record -q -o "$tmp/$name.b" -- "$@" \
		>"$tmp/$name.rec" 2>&1
	"$PTREC" core "$tmp/$name.b" -o "$tmp/$name.core" >>"$tmp/$name.rec" 2>&1
}

# reference NAME GDB-ARGS...: gcore of the same program at the same stop
reference() {
	name=$1
	shift
	rm -f "$tmp/$name.ref"
	gdb -nx -batch -ex 'set exec-wrapper env -i' "$@" \
		-ex "gcore $tmp/$name.ref" >"$tmp/$name.gdbrun" 2>&1
}

# same NAME CMDFILE PROG: GDB prints the same on both cores
same() {
	gdb_core "$2" "$3" "$tmp/$1.ref" >"$tmp/$1.want"
	gdb_core "$2" "$3" "$tmp/$1.core" >"$tmp/$1.got"
	if [ -s "$tmp/$1.ref" ] && [ -s "$tmp/$1.core" ] &&
		diff -u "$tmp/$1.want" "$tmp/$1.got" >"$tmp/log" 2>&1; then
		ok "$1: GDB on ptrec core's file = GDB on gcore's ($(wc -l <"$tmp/$1.got") lines)"
	else
		cat "$tmp/$1.rec" >>"$tmp/log" 2>/dev/null
		bad "$1: GDB on ptrec core's file differs from gcore's"
	fi
}

# replay_same NAME CMDFILE PROG: GDB through ptrec replay at the end of the
# history prints between the markers what GDB prints on ptrec core's file
# (with the plugin's printing setting: no entry values, which before the
# end would come from made-up frame bases).
replay_same() {
	timeout 120 "$PTREC" replay "$tmp/$1.b" -batch -x "$2" 2>&1 |
		sed -n '/^==BEGIN==/,/^==END==/p' | mask >"$tmp/$1.replay"
	gdb -nx -batch -ex 'set print entry-values no' -x "$2" "$3" \
		"$tmp/$1.core" 2>&1 | mask |
		sed -n '/^==BEGIN==/,/^==END==/p' >"$tmp/$1.corev"
	if [ "$(wc -l <"$tmp/$1.replay")" -gt 5 ] &&
		diff -u "$tmp/$1.corev" "$tmp/$1.replay" >"$tmp/log" 2>&1; then
		ok "$1: GDB at the end of the replay = GDB on the core file ($(wc -l <"$tmp/$1.replay") lines)"
	else
		bad "$1: GDB at the end of the replay differs from GDB on the core file"
	fi
}

REGS="rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 rip eflags cs ss ds es fs gs fs_base gs_base"

P=$SNAP_PROGS

# ---- a crash through a pointer three calls deep ----------------------------
cat >"$tmp/crash.gdb" <<'EOF'
bt full
info registers
info all-registers xmm0 ymm1 k0
print *head
print head->name
print global_counter
print gbuf
print $_siginfo.si_signo
print $_siginfo._sifields._sigfault.si_addr
frame 1
info locals
info frame
x/8gx $rsp
up
print d
print k
down 2
print *n
print bad
EOF
record crash "$P/crash"
reference crash -ex run "$P/crash"
same crash "$tmp/crash.gdb" "$P/crash"
if grep -q 'depth3 (n=0x[0-9a-f]*, k=19)' "$tmp/crash.got" &&
	grep -q 'local3 = 57' "$tmp/crash.got" &&
	grep -q 'val = 1234' "$tmp/crash.got"; then
	ok "crash: locals, arguments and heap data are there"
else
	cp "$tmp/crash.got" "$tmp/log"
	bad "crash: locals, arguments and heap data are there"
fi
cat >"$tmp/crashr.gdb" <<EOF
echo ==BEGIN==\\n
bt full
info registers $REGS
info registers xmm0 xmm1 mxcsr st0 fctrl fstat
print *head
print global_counter
print gbuf
frame 1
info locals
info frame
x/8gx \$rsp
up
print d
down 2
print *n
echo ==END==\\n
EOF
replay_same crash "$tmp/crashr.gdb" "$P/crash"
# Before the end the snapshot is never shown as if it were the past (the
# snapshot's own rule, so without the recovered values of docs/values.md,
# which have their own tests against the ground truth).
PTREC_NO_VALUES=1 timeout 120 "$PTREC" replay "$tmp/crash.b" -batch -ex 'print global_counter' \
	-ex 'reverse-stepi' -ex 'print global_counter' -ex 'info registers rax' \
	-ex 'stepi' -ex 'print global_counter' >"$tmp/log" 2>&1
if [ "$(grep -c '= 99' "$tmp/log")" -eq 2 ] &&
	grep -q 'Cannot access memory' "$tmp/log" &&
	grep -q 'rax *<unavailable>' "$tmp/log"; then
	ok "crash: one instruction before the end, memory and registers are unavailable; back at the end, there again"
else
	bad "crash: one instruction before the end, memory and registers are unavailable; back at the end, there again"
fi
# With the values engine: two lines back, before "global_counter +=
# local3", global_counter is 42 (recovered, or unavailable), never the
# end's 99.
timeout 120 "$PTREC" replay "$tmp/crash.b" -batch -ex 'print global_counter' \
	-ex 'reverse-step' -ex 'reverse-step' -ex 'print global_counter' \
	-ex 'stepi 1000' -ex 'print global_counter' >"$tmp/log" 2>&1
if [ "$(grep -c '= 99' "$tmp/log")" -eq 2 ] &&
	! sed -n '/global_counter += local3/,/^\$2/p' "$tmp/log" | grep -q '= 99'; then
	ok "crash: before the end the snapshot's memory is not shown as the past; at the end again it is"
else
	bad "crash: before the end the snapshot's memory is not shown as the past; at the end again it is"
fi
# ---- AVX: ymm registers at the end (the XSAVE area) ------------------------
# ymm0 and ymm15 hold known patterns when the program crashes: GDB on
# ptrec core's file prints them as on gcore's, and GDB through the replay
# prints them as on ptrec core's file (the server's avx feature, served
# from the snapshot's XSAVE area); one instruction back they are
# unavailable.
cat >"$tmp/avx.gdb" <<'EOF'
echo ==BEGIN==\n
info registers ymm0 ymm1 ymm15
print/x $ymm0.v4_int64
print/x $ymm15.v4_int64
echo ==END==\n
EOF
record avx "$P/avx"
reference avx -ex run "$P/avx"
same avx "$tmp/avx.gdb" "$P/avx"
replay_same avx "$tmp/avx.gdb" "$P/avx"
if grep -q '0x7766554433221100, 0xffeeddccbbaa9988, 0xcefaedfeefbeadde, 0xefcdab8967452301' "$tmp/avx.replay" &&
	grep -q '0x8090a0b0c0d0e0f, 0x1020304050607, 0x78563412bebafeca, 0xdf9b5713f0debc9a' "$tmp/avx.replay"; then
	ok "avx: through the replay, ymm0 and ymm15 at the end hold the program's patterns (upper halves too)"
else
	cat "$tmp/avx.replay" >>"$tmp/log"
	bad "avx: through the replay, ymm0 and ymm15 at the end hold the program's patterns (upper halves too)"
fi
PTREC_NO_VALUES=1 timeout 120 "$PTREC" replay "$tmp/avx.b" -batch \
	-ex 'reverse-stepi' -ex 'print $ymm0.v4_int64' -ex 'stepi' \
	-ex 'print/x $ymm0.v4_int64' >"$tmp/log" 2>&1
if grep -q '^\$1 = <unavailable>' "$tmp/log" &&
	grep -q '^\$2 = {0x7766554433221100, 0xffeeddccbbaa9988' "$tmp/log"; then
	ok "avx: one instruction before the end ymm0 is unavailable; back at the end, there again"
else
	bad "avx: one instruction before the end ymm0 is unavailable; back at the end, there again"
fi
# ---- AVX-512: zmm and k registers at the end (the XSAVE area) ---------------
# zmm0 (upper half in ZMM_Hi256), zmm16 and zmm31 (Hi16_ZMM), k1 and k7
# (opmask) hold known patterns at the crash: GDB on ptrec core's file prints
# them as on gcore's, GDB through the replay (the server's avx512 feature,
# declared when the snapshot's XCR0 has it) as on ptrec core's file, and
# the values are the program's constants.  This host's CPU (AMD EPYC) has
# AVX-512; elsewhere the test is skipped.
if grep -q 'avx512f' /proc/cpuinfo && grep -q 'avx512bw' /proc/cpuinfo; then
	cat >"$tmp/avx512.gdb" <<'EOF'
echo ==BEGIN==\n
info registers zmm0 zmm16 zmm31 k0 k1 k7
print/x $zmm0.v8_int64
print/x $zmm31.v8_int64
print/x $ymm16.v4_int64
print/x $xmm31.v2_int64
print/x $zmm15.v8_int64
print/x $k1
print/x $k7
echo ==END==\n
EOF
	record avx512 "$P/avx512"
	if [ -z "$MASK_AVX512" ]; then
		reference avx512 -ex run "$P/avx512"
		same avx512 "$tmp/avx512.gdb" "$P/avx512"
	else
		gdb_core "$tmp/avx512.gdb" "$P/avx512" "$tmp/avx512.core" \
			>"$tmp/avx512.got"
		if grep -q '^\$1 = {0x11223344556677, 0x8899aabbccddeeff, 0xdeadbeefcafef00d, 0x123456789abcdef, 0x1000000000000001, 0x2000000000000002, 0x3000000000000003, 0x4000000000000004}' "$tmp/avx512.got" &&
			grep -q '^\$2 = {0xf1f1f1f1f1f1f1f1, 0xf2f2f2f2f2f2f2f2, 0xf3f3f3f3f3f3f3f3, 0xf4f4f4f4f4f4f4f4, 0xf5f5f5f5f5f5f5f5, 0xf6f6f6f6f6f6f6f6, 0xf7f7f7f7f7f7f7f7, 0xf8f8f8f8f8f8f8f8}' "$tmp/avx512.got" &&
			grep -q '^\$6 = 0xa5a5a5a5c3c3c3c3' "$tmp/avx512.got" &&
			grep -q '^\$7 = 0x8000000000000001' "$tmp/avx512.got"; then
			ok "avx512: GDB on ptrec core's file prints the program's patterns (gcore's AVX-512 state is not the truth on this CPU's XSAVE layout)"
		else
			cat "$tmp/avx512.got" >"$tmp/log"
			bad "avx512: GDB on ptrec core's file prints the program's patterns"
		fi
	fi
	replay_same avx512 "$tmp/avx512.gdb" "$P/avx512"
	if grep -q '^\$1 = {0x11223344556677, 0x8899aabbccddeeff, 0xdeadbeefcafef00d, 0x123456789abcdef, 0x1000000000000001, 0x2000000000000002, 0x3000000000000003, 0x4000000000000004}' "$tmp/avx512.replay" &&
		grep -q '^\$2 = {0xf1f1f1f1f1f1f1f1, 0xf2f2f2f2f2f2f2f2, 0xf3f3f3f3f3f3f3f3, 0xf4f4f4f4f4f4f4f4, 0xf5f5f5f5f5f5f5f5, 0xf6f6f6f6f6f6f6f6, 0xf7f7f7f7f7f7f7f7, 0xf8f8f8f8f8f8f8f8}' "$tmp/avx512.replay" &&
		grep -q '^\$3 = {0x1616161616161616, 0x1717171717171717, 0x1818181818181818, 0x1919191919191919}' "$tmp/avx512.replay" &&
		grep -q '^\$4 = {0xf1f1f1f1f1f1f1f1, 0xf2f2f2f2f2f2f2f2}' "$tmp/avx512.replay" &&
		grep -q '^\$5 = {0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0}' "$tmp/avx512.replay" &&
		grep -q '^\$6 = 0xa5a5a5a5c3c3c3c3' "$tmp/avx512.replay" &&
		grep -q '^\$7 = 0x8000000000000001' "$tmp/avx512.replay"; then
		ok "avx512: through the replay, zmm0/zmm16/zmm31 (all 512 bits), k1 and k7 at the end hold the program's patterns"
	else
		cat "$tmp/avx512.replay" >>"$tmp/log"
		bad "avx512: through the replay, zmm0/zmm16/zmm31 (all 512 bits), k1 and k7 at the end hold the program's patterns"
	fi
else
	n=$((n + 1))
	echo "ok $n - avx512 # SKIP this CPU has no AVX-512F/BW"
fi
# ---- execve: the old image's state (end kind exec) ---------------------------
# tests/programs/exec runs execl(tiny): the snapshot holds the old image
# taken at the execve's entry (--exec 0) and tiny's end (the default).
# GDB on `ptrec core --exec 0` prints what it prints on gcore's file of
# the same program stopped by `catch syscall execve` (the same state, the
# kernel's view at the system call's entry): the old program's symbols,
# the backtrace through execl to main, its arguments.
: "${PROGS:?set PROGS to the built tests/programs}"
cat >"$tmp/exec.gdb" <<'EOF'
bt
info registers rip rsp rbp rdi rsi rax rcx r11 orig_rax
frame 2
print argv[1]
print *argv@2
x/4gx $rsp
EOF
rm -rf "$tmp/exec.b"
setarch -R env -i "$PTREC" record -q -o "$tmp/exec.b" -- "$PROGS/exec" "$PROGS/tiny" \
	>"$tmp/exec.rec" 2>&1
"$PTREC" core "$tmp/exec.b" --exec 0 -o "$tmp/exec.core" >>"$tmp/exec.rec" 2>&1
"$PTREC" core "$tmp/exec.b" -o "$tmp/exec1.core" >>"$tmp/exec.rec" 2>&1
reference exec -ex "set args $PROGS/tiny" -ex 'catch syscall execve' -ex run \
	"$PROGS/exec"
same exec "$tmp/exec.gdb" "$PROGS/exec"
if grep -q '__GI_execl' "$tmp/exec.got" && grep -q 'in main (argc' "$tmp/exec.got" &&
	grep -q 'tests/programs/tiny"' "$tmp/exec.got"; then
	ok "exec: ptrec core --exec 0 is the old program at its execve, backtrace execve < execl < main"
else
	cp "$tmp/exec.got" "$tmp/log" 2>/dev/null
	bad "exec: ptrec core --exec 0 is the old program at its execve, backtrace execve < execl < main"
fi
"$PTREC" info "$tmp/exec.b" >"$tmp/log" 2>&1
gdb -nx -batch -ex 'info registers rip' -ex 'info files' "$PROGS/tiny" \
	"$tmp/exec1.core" >>"$tmp/log" 2>&1
if grep -q "process [0-9]* ($PROGS/exec): exec 0, 1 threads.*image --exec 0" "$tmp/log" &&
	grep -q "process [0-9]* ($PROGS/tiny): exit 0, 1 threads.*image --exec 1" "$tmp/log" &&
	grep -q "Core was generated by \`$PROGS/tiny'" "$tmp/log"; then
	ok "exec: ptrec info lists both images; ptrec core's default is the last (tiny's exit)"
else
	bad "exec: ptrec info lists both images; ptrec core's default is the last (tiny's exit)"
fi
if ! "$PTREC" core "$tmp/exec.b" --exec 2 -o "$tmp/exec2.core" >"$tmp/log" 2>&1 &&
	grep -q -- '--exec 2: process [0-9]* has no such image' "$tmp/log" &&
	[ ! -e "$tmp/exec2.core" ]; then
	ok "exec: --exec 2 (no such image) is refused, naming it"
else
	bad "exec: --exec 2 (no such image) is refused, naming it"
fi
eu-stack --core "$tmp/crash.core" -e "$P/crash" >"$tmp/log" 2>&1
if grep -q depth3 "$tmp/log" && grep -q depth1 "$tmp/log" &&
	grep -q main "$tmp/log"; then
	ok "crash: eu-stack unwinds ptrec core's file to main"
else
	bad "crash: eu-stack unwinds ptrec core's file to main"
fi
eu-readelf --notes "$tmp/crash.core" >"$tmp/log" 2>&1
for note in PRSTATUS PRPSINFO SIGINFO AUXV FILE FPREGSET X86_XSTATE; do
	grep -q "$note" "$tmp/log" || { bad "crash: eu-readelf shows $note"; continue; }
	ok "crash: eu-readelf shows $note"
done

# ---- a multi-threaded crash ----------------------------------------------
cat >"$tmp/mt.gdb" <<'EOF'
bt full
info registers
print shared_total
print *j
info locals
EOF
record mt "$P/mtcrash"
reference mt -ex run "$P/mtcrash"
same mt "$tmp/mt.gdb" "$P/mtcrash"
cat >"$tmp/mtr.gdb" <<EOF
echo ==BEGIN==\\n
bt full
info registers $REGS
print shared_total
print *j
echo ==END==\\n
EOF
replay_same mt "$tmp/mtr.gdb" "$P/mtcrash"
n_ref=$(gdb -nx -batch -ex 'info threads' "$P/mtcrash" "$tmp/mt.ref" 2>&1 |
	grep -c '^[* ] *[0-9]')
n_got=$(gdb -nx -batch -ex 'info threads' "$P/mtcrash" "$tmp/mt.core" 2>&1 |
	grep -c '^[* ] *[0-9]')
gdb -nx -batch -ex 'thread apply all bt' "$P/mtcrash" "$tmp/mt.core" \
	>"$tmp/log" 2>&1
if [ "$n_ref" -eq 4 ] && [ "$n_got" -eq 4 ] &&
	[ "$(grep -c 'in waiter' "$tmp/log")" -eq 2 ] &&
	grep -q 'in main' "$tmp/log"; then
	ok "mt: four threads, the waiters and main unwind from their system calls"
else
	echo "threads: gcore $n_ref, ptrec $n_got" >>"$tmp/log"
	bad "mt: four threads, the waiters and main unwind from their system calls"
fi

# ---- an assert that fails (SIGABRT inside libc) -------------------------
cat >"$tmp/abort.gdb" <<'EOF'
bt full
info registers
print message
print checks
print $_siginfo.si_signo
EOF
record abort "$P/abort"
reference abort -ex run "$P/abort"
MASK_REGS='rbx\|rsi\|rdi' same abort "$tmp/abort.gdb" "$P/abort"

cat >"$tmp/abortr.gdb" <<EOF
echo ==BEGIN==\\n
bt full
info registers $REGS
print message
print checks
echo ==END==\\n
EOF
replay_same abort "$tmp/abortr.gdb" "$P/abort"

# ---- a normal exit: the state at exit_group ------------------------------
cat >"$tmp/exit.gdb" <<'EOF'
bt
info registers
print sum
print *last
print last->tag
EOF
record exit "$P/exit"
reference exit -ex 'catch syscall exit_group' -ex run "$P/exit"
same exit "$tmp/exit.gdb" "$P/exit"
# (The PC at the end is the history's, the exit_group SYSCALL; the core's
# is after it: all registers but rip are compared.)
cat >"$tmp/exitr.gdb" <<EOF
echo ==BEGIN==\\n
info registers $(echo "$REGS" | sed 's/ rip / /')
print sum
print *last
echo ==END==\\n
EOF
replay_same exit "$tmp/exitr.gdb" "$P/exit"
if "$PTREC" info "$tmp/exit.b" 2>&1 | grep -q 'snapshot: .*exit'; then
	ok "exit: ptrec info shows the snapshot"
else
	"$PTREC" info "$tmp/exit.b" >"$tmp/log" 2>&1
	bad "exit: ptrec info shows the snapshot"
fi

# ---- -p: the state where ptrec detached -----------------------------------
rm -f "$tmp/ready"
setarch -R "$P/spin" "$tmp/ready" &
spid=$!
i=0
while [ ! -s "$tmp/ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
"$PTREC" record -q -o "$tmp/attach.b" -p "$spid" >"$tmp/attach.rec" 2>&1 &
rpid=$!
traced "$spid"
sleep 0.5
kill -INT "$rpid"
wait "$rpid"
rc=$?
"$PTREC" core "$tmp/attach.b" -o "$tmp/attach.core" >>"$tmp/attach.rec" 2>&1
gcore -o "$tmp/attach.ref" "$spid" >/dev/null 2>&1
mv "$tmp/attach.ref.$spid" "$tmp/attach.ref" 2>/dev/null
kill -KILL "$spid"
wait "$spid" 2>/dev/null
cat >"$tmp/attach.gdb" <<'EOF'
print note
print table
bt
EOF
gdb_core "$tmp/attach.gdb" "$P/spin" "$tmp/attach.ref" |
	sed 's/0x[0-9a-f]* in //' >"$tmp/attach.want"
gdb_core "$tmp/attach.gdb" "$P/spin" "$tmp/attach.core" |
	sed 's/0x[0-9a-f]* in //' >"$tmp/attach.got"
if [ "$rc" -eq 0 ] && grep -q spin "$tmp/attach.got" &&
	diff -u "$tmp/attach.want" "$tmp/attach.got" >"$tmp/log" 2>&1; then
	ok "-p: the detached process's core prints as gcore's (globals, heap, frames)"
else
	cat "$tmp/attach.rec" >>"$tmp/log"
	bad "-p: the detached process's core prints as gcore's (globals, heap, frames)"
fi

# -p of a process blocked in a system call (pause): SIGINT ends the
# recording at once, and the process lives on after the detach (the
# single step's pending SIGTRAP used to kill it).
rm -f "$tmp/ready3"
"$P/bigheap" 4 "$tmp/ready3" &
bpid=$!
i=0
while [ ! -s "$tmp/ready3" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
"$PTREC" record -q -o "$tmp/blk.b" -p "$bpid" >"$tmp/log" 2>&1 &
rpid=$!
traced "$bpid"
sleep 0.3
kill -INT "$rpid"
i=0
while kill -0 "$rpid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if ! kill -0 "$rpid" 2>/dev/null && sleep 0.3 && kill -0 "$bpid" 2>/dev/null &&
	"$PTREC" core "$tmp/blk.b" -o "$tmp/blk.core" >>"$tmp/log" 2>&1; then
	ok "-p of a blocked process: stops at SIGINT, the process survives, its core is written"
else
	kill -KILL "$rpid" 2>/dev/null
	bad "-p of a blocked process: stops at SIGINT, the process survives, its core is written"
fi
kill -KILL "$bpid" 2>/dev/null
wait "$bpid" 2>/dev/null

# ---- a fork tree: every process has its end ------------------------------
record fork "$P/forkexit"
"$PTREC" info "$tmp/fork.b" >"$tmp/fork.info" 2>&1
child=$(sed -n 's/.*snapshot: process \([0-9]*\) .*signal 11.*/\1/p' \
	"$tmp/fork.info" | head -1)
if grep -q 'snapshot: process [0-9]* .*exit 7' "$tmp/fork.info" &&
	[ -n "$child" ] &&
	"$PTREC" core "$tmp/fork.b" --pid "$child" -o "$tmp/child.core" \
		>"$tmp/log" 2>&1 &&
	gdb -nx -batch -ex 'print who' -ex 'print $_siginfo.si_signo' \
		"$P/forkexit" "$tmp/child.core" 2>&1 | grep -q '= 2'; then
	ok "fork: parent (exit 7) and crashed child in the snapshot; core --pid of the child"
else
	cat "$tmp/fork.info" >>"$tmp/log"
	bad "fork: parent (exit 7) and crashed child in the snapshot; core --pid of the child"
fi

# ---- --max-insns: where recording stopped -----------------------------------
rm -rf "$tmp/max.b"
"$PTREC" record -q --max-insns 500 -o "$tmp/max.b" -- "$P/crash" \
	>"$tmp/log" 2>&1
"$PTREC" core "$tmp/max.b" -o "$tmp/max.core" >>"$tmp/log" 2>&1
if gdb -nx -batch -ex bt "$P/crash" "$tmp/max.core" 2>&1 |
	grep -q 'main'; then
	ok "--max-insns: the core of where recording stopped unwinds to main"
else
	bad "--max-insns: the core of where recording stopped unwinds to main"
fi

# ---- the rseq areas (#17), software recorder ----------------------------------
# The same program as the kmod recorder's test below: every area its
# threads print, the i386 (int 0x80) and x32 calls', and the one its
# vfork child registers in the shared memory, listed for the program
# (tests/kmod/guest/rseq-check.sh).
. "$here/../kmod/guest/rseq-check.sh"
rm -rf "$tmp/ers.b"
"$PTREC" record -q -o "$tmp/ers.b" -- "$P/kqrseq" "$tmp/ers.log" \
	>"$tmp/ers.rec" 2>&1
"$PTREC" dump "$tmp/ers.b" 2>&1 |
	grep -e 'snapshot: process' -e '^    rseq' >"$tmp/ers.info"
if rseq_all "$tmp/ers.info" "$tmp/ers.log"; then
	ok "software recorder: the RSEQ list is complete with every thread's rseq area (one gone before the end; i386 and x32 calls; a vfork child's, not a fork child's)"
else
	cat "$tmp/ers.rec" "$tmp/ers.info" "$tmp/ers.log" >"$tmp/log"
	bad "software recorder: the RSEQ list is complete with every thread's rseq area (one gone before the end; i386 and x32 calls; a vfork child's, not a fork child's)"
fi

# ---- the kmod recorder: its program under ptrace for its end only ----------
# No module can be loaded on this host: fakeptrec.so answers for the device
# (a session whose stream stays empty); the ptrace side is real.
if [ -n "${FAKEPTREC:-}" ] && [ -f "$FAKEPTREC" ]; then
	rm -rf "$tmp/km.b"
	PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC \
		"$PTREC" record --backend=kmod -o "$tmp/km.b" \
		-- "$P/crash" >"$tmp/km.rec" 2>&1
	"$PTREC" core "$tmp/km.b" -o "$tmp/km.core" >>"$tmp/km.rec" 2>&1
	gdb_core "$tmp/crash.gdb" "$P/crash" "$tmp/km.core" >"$tmp/km.got"
	if grep -q 'snapshot: 1 processes' "$tmp/km.rec" &&
		grep -q 'depth3 (n=0x[0-9a-f]*, k=19)' "$tmp/km.got" &&
		grep -q 'local3 = 57' "$tmp/km.got" &&
		grep -q 'val = 1234' "$tmp/km.got" &&
		grep -q '^\$5 = 11$' "$tmp/km.got"; then
		ok "kmod recorder (device faked): snapshot at the crash; its core shows locals, heap and SIGSEGV in GDB"
	else
		cat "$tmp/km.rec" "$tmp/km.got" >>"$tmp/log"
		bad "kmod recorder (device faked): snapshot at the crash; its core shows locals, heap and SIGSEGV in GDB"
	fi
	rm -rf "$tmp/km2.b"
	PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC \
		"$PTREC" record --backend=kmod -o "$tmp/km2.b" -- "$P/exit" \
		>"$tmp/log" 2>&1
	if "$PTREC" info "$tmp/km2.b" 2>/dev/null | grep -q 'snapshot: process .*exit 3'; then
		ok "kmod recorder (device faked): snapshot at exit (status 3)"
	else
		bad "kmod recorder (device faked): snapshot at exit (status 3)"
	fi
	# Every thread's registers: the crash of one of mtcrash's threads
	# (the others traced too, PTRACE_O_TRACECLONE, and stopped with a
	# SIGSTOP each, as GDB stops them for gcore): GDB on its core shows
	# the threads of gcore's file of the same program run with the same
	# environment (fakeptrec.so preloaded moves libc), each with the
	# same frames, rip and rsp (thread ids masked).
	rm -rf "$tmp/kmt.b"
	setarch -R env -i PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang \
		LD_PRELOAD="$FAKEPTREC" "$PTREC" record --backend=kmod \
		-o "$tmp/kmt.b" -- "$P/mtcrash" >"$tmp/kmt.rec" 2>&1
	"$PTREC" core "$tmp/kmt.b" -o "$tmp/kmt.core" >>"$tmp/kmt.rec" 2>&1
	reference kmt -ex "set exec-wrapper env -i PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC" \
		-ex run "$P/mtcrash"
	printf 'thread apply all bt\nthread apply all info registers rip rsp\n' \
		>"$tmp/kmt.gdb"
	gdb_core "$tmp/kmt.gdb" "$P/mtcrash" "$tmp/kmt.ref" |
		sed 's/LWP [0-9]*/LWP/; s/expected=[0-9]*/expected=N/g' \
		>"$tmp/kmt.want"
	gdb_core "$tmp/kmt.gdb" "$P/mtcrash" "$tmp/kmt.core" |
		sed 's/LWP [0-9]*/LWP/; s/expected=[0-9]*/expected=N/g' \
		>"$tmp/kmt.got"
	if "$PTREC" info "$tmp/kmt.b" 2>&1 | grep -q 'signal 11, 4 threads' &&
		[ "$(grep -c '^Thread ' "$tmp/kmt.got")" -eq 8 ] &&
		grep -q 'in crunch' "$tmp/kmt.got" &&
		diff -u "$tmp/kmt.want" "$tmp/kmt.got" >"$tmp/log" 2>&1; then
		ok "kmod recorder (device faked): every thread's registers at a thread's crash; GDB shows gcore's threads, frames, rip and rsp"
	else
		cat "$tmp/kmt.rec" >>"$tmp/log"
		bad "kmod recorder (device faked): every thread's registers at a thread's crash; GDB shows gcore's threads, frames, rip and rsp"
	fi
	# Recording stopped early (SIGINT) in a launched multi-threaded
	# program: the snapshot stops every thread where it is (end stop).
	rm -rf "$tmp/kms.b" "$tmp/kms.ready"
	PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC \
		"$PTREC" record -q --backend=kmod -o "$tmp/kms.b" \
		-- "$P/mtspin" "$tmp/kms.ready" >"$tmp/kms.rec" 2>&1 &
	rpid=$!
	i=0
	while [ ! -e "$tmp/kms.ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	sleep 0.2
	kill -INT "$rpid"
	wait "$rpid"
	"$PTREC" core "$tmp/kms.b" -o "$tmp/kms.core" >>"$tmp/kms.rec" 2>&1
	gdb -nx -batch -ex 'thread apply all bt' "$P/mtspin" "$tmp/kms.core" \
		>"$tmp/kms.got" 2>&1
	if "$PTREC" info "$tmp/kms.b" 2>&1 | grep -q 'snapshot: process .*: stop 0, 4 threads' &&
		[ "$(grep -c 'in sleeper' "$tmp/kms.got")" -eq 2 ] &&
		grep -q 'spinner' "$tmp/kms.got" && grep -q 'in main' "$tmp/kms.got"; then
		ok "kmod recorder (device faked): recording stopped early, every thread of the launched program in the snapshot (2 sleepers, the spinner, main)"
	else
		cat "$tmp/kms.rec" "$tmp/kms.got" >>"$tmp/log"
		bad "kmod recorder (device faked): recording stopped early, every thread of the launched program in the snapshot (2 sleepers, the spinner, main)"
	fi
	# A program that execs: the tracer sees the exec as an event
	# (PTRACE_O_TRACEEXEC); before, the kernel's SIGTRAP after the exec
	# was handed on as a signal and killed the new image (signal 5).
	rm -rf "$tmp/kex.b"
	PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC \
		"$PTREC" record -q --backend=kmod -o "$tmp/kex.b" \
		-- "$PROGS/exec" "$PROGS/tiny" >"$tmp/kex.rec" 2>&1
	if grep -q '^tiny' "$tmp/kex.rec" &&
		"$PTREC" info "$tmp/kex.b" 2>&1 | grep -q "snapshot: process .*($PROGS/tiny): exit 0"; then
		ok "kmod recorder (device faked): a program that execs runs on in its new image (exit 0 in the snapshot)"
	else
		cat "$tmp/kex.rec" >>"$tmp/log"
		bad "kmod recorder (device faked): a program that execs runs on in its new image (exit 0 in the snapshot)"
	fi
	# The old image at its execve (#16): rec_launch()'s seccomp filter
	# stops the execve at its entry (SECCOMP_RET_TRACE), where the kmod
	# recorder takes generation 0.  GDB on `ptrec core --exec 0` prints
	# what it prints on gcore's file of the same program, run in the
	# same environment, stopped by `catch syscall execve`.
	rm -rf "$tmp/kxe.b"
	setarch -R env -i PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang \
		LD_PRELOAD="$FAKEPTREC" "$PTREC" record -q --backend=kmod \
		-o "$tmp/kxe.b" -- "$PROGS/exec" "$PROGS/tiny" \
		>"$tmp/kxe.rec" 2>&1
	"$PTREC" core "$tmp/kxe.b" --exec 0 -o "$tmp/kxe.core" \
		>>"$tmp/kxe.rec" 2>&1
	reference kxe -ex "set exec-wrapper env -i PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC" \
		-ex "set args $PROGS/tiny" -ex 'catch syscall execve' -ex run \
		"$PROGS/exec"
	gdb_core "$tmp/exec.gdb" "$PROGS/exec" "$tmp/kxe.ref" >"$tmp/kxe.want"
	gdb_core "$tmp/exec.gdb" "$PROGS/exec" "$tmp/kxe.core" >"$tmp/kxe.got"
	if "$PTREC" info "$tmp/kxe.b" 2>&1 | grep -q "process [0-9]* ($PROGS/exec): exec 0, 1 threads.*image --exec 0" &&
		"$PTREC" info "$tmp/kxe.b" 2>&1 | grep -q "process [0-9]* ($PROGS/tiny): exit 0, 1 threads.*image --exec 1" &&
		grep -q '__GI_execl' "$tmp/kxe.got" &&
		grep -q 'in main (argc' "$tmp/kxe.got" &&
		diff -u "$tmp/kxe.want" "$tmp/kxe.got" >"$tmp/log" 2>&1; then
		ok "kmod recorder (device faked): the old image at its execve (--exec 0): GDB on its core = GDB on gcore's at catch syscall execve ($(wc -l <"$tmp/kxe.got") lines)"
	else
		cat "$tmp/kxe.rec" >>"$tmp/log"
		bad "kmod recorder (device faked): the old image at its execve (--exec 0): GDB on its core = GDB on gcore's at catch syscall execve"
	fi
	# The filter is inherited: the program's children are traced
	# (PTRACE_O_TRACEFORK) so that their execve passes (untraced, it
	# would fail with ENOSYS); each runs, the shell's own snapshot is
	# its exit.  A child still alive when the recording ends is named.
	rm -rf "$tmp/kxc.b"
	PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC \
		"$PTREC" record --backend=kmod -o "$tmp/kxc.b" -- sh -c \
		"$PROGS/tiny && echo child-ran; $PROGS/exec $PROGS/tiny | cat; sleep 3 & exit 0" \
		>"$tmp/kxc.rec" 2>&1
	if [ "$(grep -c '^tiny' "$tmp/kxc.rec")" -eq 2 ] &&
		grep -q '^child-ran' "$tmp/kxc.rec" &&
		! grep -q 'Function not implemented' "$tmp/kxc.rec" &&
		grep -q 'warning: 1 threads of processes the program started outlive the recording' "$tmp/kxc.rec" &&
		"$PTREC" info "$tmp/kxc.b" 2>&1 | grep -q 'snapshot: process .*: exit 0'; then
		ok "kmod recorder (device faked): the program's children exec through the filter (traced, no ENOSYS); one outliving the recording is named"
	else
		cp "$tmp/kxc.rec" "$tmp/log"
		bad "kmod recorder (device faked): the program's children exec through the filter (traced, no ENOSYS); one outliving the recording is named"
	fi
	# posix_spawn: the child comes from a vfork-like clone
	# (PTRACE_EVENT_VFORK) and execs through the filter too.
	rm -rf "$tmp/kxv.b"
	PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC \
		"$PTREC" record -q --backend=kmod -o "$tmp/kxv.b" -- "$P/spawn" \
		"$PROGS/tiny" "$PROGS/tiny" >"$tmp/kxv.rec" 2>&1
	if [ "$(grep -c '^spawned ' "$tmp/kxv.rec")" -eq 2 ] &&
		[ "$(grep -c '^tiny' "$tmp/kxv.rec")" -eq 2 ] &&
		"$PTREC" info "$tmp/kxv.b" 2>&1 | grep -q 'snapshot: process .*spawn): exit 0'; then
		ok "kmod recorder (device faked): posix_spawn's children (vfork) exec through the filter"
	else
		cp "$tmp/kxv.rec" "$tmp/log"
		bad "kmod recorder (device faked): posix_spawn's children (vfork) exec through the filter"
	fi
	# A thread other than main execs: main's exit (the kernel ends it in
	# the exec) is not the program's end; the snapshot is the new
	# image's exit.
	rm -rf "$tmp/ktx.b"
	PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC \
		"$PTREC" record -q --backend=kmod -o "$tmp/ktx.b" \
		-- "$P/threxec" "$PROGS/tiny" >"$tmp/ktx.rec" 2>&1
	if grep -q '^tiny' "$tmp/ktx.rec" &&
		"$PTREC" info "$tmp/ktx.b" 2>&1 | grep -q "snapshot: process .*($PROGS/tiny): exit 0"; then
		ok "kmod recorder (device faked): a thread's exec is not taken for the program's exit (snapshot at the new image's exit)"
	else
		cat "$tmp/ktx.rec" >>"$tmp/log"
		bad "kmod recorder (device faked): a thread's exec is not taken for the program's exit (snapshot at the new image's exit)"
	fi
	# ... and its old image at the thread's execve: both threads, the
	# one in execve (from run()) and main waiting in pthread_join.
	"$PTREC" core "$tmp/ktx.b" --exec 0 -o "$tmp/ktx.core" >>"$tmp/ktx.rec" 2>&1
	gdb -nx -batch -ex 'thread apply all bt' "$P/threxec" "$tmp/ktx.core" \
		>"$tmp/ktx.got" 2>&1
	if "$PTREC" info "$tmp/ktx.b" 2>&1 | grep -q "snapshot: process .*($P/threxec): exec 0, 2 threads" &&
		[ "$(grep -c '^Thread ' "$tmp/ktx.got")" -eq 2 ] &&
		grep -q 'in __GI_execl' "$tmp/ktx.got" &&
		grep -q 'in run (arg=' "$tmp/ktx.got" &&
		grep -q 'in main (argc=' "$tmp/ktx.got"; then
		ok "kmod recorder (device faked): a thread's execve: the old image with both threads (execve < execl < run, and main)"
	else
		cat "$tmp/ktx.rec" "$tmp/ktx.got" >>"$tmp/log"
		bad "kmod recorder (device faked): a thread's execve: the old image with both threads (execve < execl < run, and main)"
	fi
	# The rseq areas (#17): the launcher's filter stops every rseq call
	# of the program, so the snapshot's RSEQ list is complete: every
	# area kqrseq's threads print (one gone long before the end), and
	# those asked for by i386's and x32's rseq numbers, and a vfork
	# child's.
	rm -rf "$tmp/krs.b"
	PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC \
		"$PTREC" record -q --backend=kmod -o "$tmp/krs.b" \
		-- "$P/kqrseq" "$tmp/krs.log" >"$tmp/krs.rec" 2>&1
	"$PTREC" dump "$tmp/krs.b" 2>&1 |
		grep -e 'snapshot: process' -e '^    rseq' >"$tmp/krs.info"
	if rseq_all "$tmp/krs.info" "$tmp/krs.log"; then
		ok "kmod recorder (device faked): the RSEQ list is complete with every thread's rseq area (one gone before the end; i386 and x32 calls; a vfork child's, not a fork child's)"
	else
		cat "$tmp/krs.rec" "$tmp/krs.info" "$tmp/krs.log" >>"$tmp/log"
		bad "kmod recorder (device faked): the RSEQ list is complete with every thread's rseq area (one gone before the end; i386 and x32 calls; a vfork child's, not a fork child's)"
	fi
	# ... and a new image starts with none: threxec's old image lists
	# both threads' areas, tiny (no libc) none, both lists complete.
	"$PTREC" dump "$tmp/ktx.b" 2>&1 |
		sed -n '/snapshot: process/p; /rseq/p' >"$tmp/ktx.rseq"
	if awk '/image --exec 1/ { new = 1 }
		/^    rseq 0x/ { if (new) bad = 1; n++ }
		END { exit bad || n != 2 }' "$tmp/ktx.rseq" &&
		[ "$(grep -c '^    rseq areas: complete' "$tmp/ktx.rseq")" = 2 ]; then
		ok "kmod recorder (device faked): an execve's old image lists its two threads' rseq areas, the new image (no libc) none, both complete"
	else
		cat "$tmp/ktx.rseq" >>"$tmp/log"
		bad "kmod recorder (device faked): an execve's old image lists its two threads' rseq areas, the new image (no libc) none, both complete"
	fi
	# More threads than the tracer's table (256): those past it run on
	# untouched (their first SIGSTOP dropped all the same), and the one
	# that crashes is in the snapshot with every thread the table holds.
	rm -rf "$tmp/kmany.b"
	PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC \
		timeout 120 "$PTREC" record -q --backend=kmod \
		-o "$tmp/kmany.b" -- "$P/manythr" 300 >"$tmp/kmany.rec" 2>&1
	"$PTREC" core "$tmp/kmany.b" -o "$tmp/kmany.core" >>"$tmp/kmany.rec" 2>&1
	gdb -nx -batch -ex bt "$P/manythr" "$tmp/kmany.core" >>"$tmp/kmany.rec" 2>&1
	if "$PTREC" info "$tmp/kmany.b" 2>&1 | grep -q 'snapshot: process .*: signal 11, 257 threads' &&
		grep -q '^#0 .* in crasher' "$tmp/kmany.rec"; then
		ok "kmod recorder (device faked): 301 threads, past the tracer's 256: the crashing one and 256 others in the snapshot"
	else
		cat "$tmp/kmany.rec" >>"$tmp/log"
		bad "kmod recorder (device faked): 301 threads, past the tracer's 256: the crashing one and 256 others in the snapshot"
	fi
	# -p: the kmod recorder stops the process's threads (PTRACE_SEIZE,
	# PTRACE_INTERRUPT) where it detaches, takes the snapshot, lets it
	# run on; its core prints as gcore's taken afterwards (globals,
	# heap, frames; the spinning PC masked), and the process lives on.
	rm -rf "$tmp/kp.b" "$tmp/kready"
	"$P/spin" "$tmp/kready" &
	kpid=$!
	i=0
	while [ ! -s "$tmp/kready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC \
		"$PTREC" record --backend=kmod -q -o "$tmp/kp.b" -p "$kpid" \
		>"$tmp/kp.rec" 2>&1 &
	rpid=$!
	traced "$kpid"
	sleep 0.5
	kill -INT "$rpid"
	wait "$rpid"
	rc=$?
	"$PTREC" core "$tmp/kp.b" -o "$tmp/kp.core" >>"$tmp/kp.rec" 2>&1
	alive=no
	kill -0 "$kpid" 2>/dev/null && alive=yes
	rm -f "$tmp/kp.ref.$kpid"
	gcore -o "$tmp/kp.ref" "$kpid" >/dev/null 2>&1
	kill -KILL "$kpid"
	wait "$kpid" 2>/dev/null
	gdb_core "$tmp/attach.gdb" "$P/spin" "$tmp/kp.ref.$kpid" |
		sed 's/0x[0-9a-f]* in //' >"$tmp/kp.want"
	gdb_core "$tmp/attach.gdb" "$P/spin" "$tmp/kp.core" |
		sed 's/0x[0-9a-f]* in //' >"$tmp/kp.got"
	if [ "$rc" -eq 0 ] && [ "$alive" = yes ] &&
		"$PTREC" info "$tmp/kp.b" 2>&1 | grep -q 'snapshot: process .*: detach 0, 1 threads' &&
		grep -q '"attached"' "$tmp/kp.got" && grep -q 'spin ()' "$tmp/kp.got" &&
		diff -u "$tmp/kp.want" "$tmp/kp.got" >"$tmp/log" 2>&1; then
		ok "kmod recorder (device faked) -p: snapshot where it detached; its core prints as gcore's (globals, heap, frames), the process lives on"
	else
		cat "$tmp/kp.rec" >>"$tmp/log"
		bad "kmod recorder (device faked) -p: snapshot where it detached; its core prints as gcore's (globals, heap, frames), the process lives on"
	fi
	# -p of a process whose thread cannot stop (faithful vforkhold: it
	# waits for its vfork child, killable only): SIGINT ends the
	# recording about 1 s later, a warning names the thread left out of
	# the snapshot, the bundle is finished, and the process runs on (its
	# child killed, it says so and exits 0, as untraced).  Before session
	# 18 rec_snap_seize() waited for the stop: ptrec hung until the
	# child ended.
	vfork_holder "$tmp/kvh.out"
	kill -USR1 "$vc"
	wait "$vh"
	want=$(tail -1 "$tmp/kvh.out")
	vfork_holder "$tmp/kvh.out"
	rm -rf "$tmp/kvh.b"
	PTREC_KMOD_GRACE_MS=200 FAKE_PTREC=hang LD_PRELOAD=$FAKEPTREC \
		"$PTREC" record --backend=kmod -o "$tmp/kvh.b" -p "$vh" \
		>"$tmp/kvh.rec" 2>&1 &
	rpid=$!
	i=0
	while ! grep -q "backend kmod" "$tmp/kvh.rec" && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.5
	kill -INT "$rpid"
	i=0
	while kill -0 "$rpid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -USR1 "$vc"
	wait "$rpid"
	rc=$?
	wait "$vh"
	vst=$?
	if [ $rc = 0 ] && [ $i -lt 50 ] && [ -f "$tmp/kvh.b/manifest.json" ] &&
		grep -q "1 threads of process $vh did not stop within 1 s" "$tmp/kvh.rec" &&
		[ $vst = 0 ] && [ "$(tail -1 "$tmp/kvh.out")" = "$want" ]; then
		ok "kmod recorder (device faked) -p: SIGINT with a thread that cannot stop ends the recording in $((i * 100)) ms, the thread left out of the snapshot, the process runs on ($want)"
	else
		bad "kmod recorder (device faked) -p, a thread that cannot stop: exit $rc after $((i * 100)) ms, process exit $vst, '$(tail -1 "$tmp/kvh.out")' (want '$want'), said '$(cat "$tmp/kvh.rec")'"
	fi
fi

# ---- limits and bad input ----------------------------------------------------
rm -rf "$tmp/lim.b"
"$PTREC" record -o "$tmp/lim.b" --snapshot-limit 8192 -- "$P/crash" \
	>"$tmp/lim.rec" 2>&1
if grep -q 'left out: over --snapshot-limit 8192' "$tmp/lim.rec" &&
	grep -q '\[stack\]' "$tmp/lim.rec" &&
	"$PTREC" dump "$tmp/lim.b" 2>&1 | grep -q 'over-limit.*\[stack\]'; then
	ok "--snapshot-limit: each left-out mapping said on stderr and listed in the bundle"
else
	cp "$tmp/lim.rec" "$tmp/log"
	bad "--snapshot-limit: each left-out mapping said on stderr and listed in the bundle"
fi

rm -rf "$tmp/none.b"
"$PTREC" record -q --no-snapshot -o "$tmp/none.b" -- "$P/crash" \
	>/dev/null 2>&1
fails "core without a snapshot: a clear error" \
	"no snapshot in this bundle" "$PTREC" core "$tmp/none.b" -o "$tmp/x.core"
fails "core --pid of a process not in the snapshot" \
	"process 1 is not in the snapshot" \
	"$PTREC" core "$tmp/crash.b" --pid 1 -o "$tmp/x.core"
if "$PTREC" info "$tmp/none.b" 2>&1 | grep -q 'snapshot: none'; then
	ok "info says a bundle has no snapshot"
else
	bad "info says a bundle has no snapshot"
fi

# A damaged byte inside the compressed data: the checksum catches it, the
# error names the file and offset, and the rest of the bundle still replays.
cp -r "$tmp/crash.b" "$tmp/dmg.b"
rm -rf "$tmp/dmg.b/index"
size=$(stat -c %s "$tmp/dmg.b/snapshot.ptsnap")
python3 - "$tmp/dmg.b/snapshot.ptsnap" "$size" <<'EOF'
import sys
p, n = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, 'rb').read())
b[n // 2] ^= 0x5a
open(p, 'wb').write(b)
EOF
fails "damaged snapshot: ptrec core names the file and offset" \
	"snapshot.ptsnap: byte offset [0-9]*: damaged compressed data" \
	"$PTREC" core "$tmp/dmg.b" -o "$tmp/x.core"
"$PTREC" info "$tmp/dmg.b" >"$tmp/log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q 'snapshot: damaged' "$tmp/log" &&
	"$PTREC" insns "$tmp/dmg.b" --count 3 >/dev/null 2>&1; then
	ok "damaged snapshot: the rest of the bundle still replays, info says why"
else
	bad "damaged snapshot: the rest of the bundle still replays, info says why"
fi

# Truncated, with the manifest's size made to agree (so the snapshot
# reader, not the manifest check, sees it).
cp -r "$tmp/crash.b" "$tmp/trunc.b"
python3 - "$tmp/trunc.b" <<'EOF'
import json, os, sys
d = sys.argv[1]
p = os.path.join(d, 'snapshot.ptsnap')
b = open(p, 'rb').read()
open(p, 'wb').write(b[:len(b) * 2 // 3])
m = json.load(open(os.path.join(d, 'manifest.json')))
for f in m['files']:
    if f['path'] == 'snapshot.ptsnap':
        f['size'] = len(b) * 2 // 3
json.dump(m, open(os.path.join(d, 'manifest.json'), 'w'))
EOF
fails "truncated snapshot: ptrec core names the file and offset" \
	"snapshot.ptsnap: byte offset [0-9]*: truncated compressed data" \
	"$PTREC" core "$tmp/trunc.b" -o "$tmp/x.core"
cp -r "$tmp/crash.b" "$tmp/tr2.b"
truncate -s -100 "$tmp/tr2.b/snapshot.ptsnap"
fails "truncated snapshot, manifest not edited: the size check names the file" \
	"snapshot.ptsnap" "$PTREC" core "$tmp/tr2.b" -o "$tmp/x.core"

# A recording killed while writing its snapshot leaves no manifest.
rm -rf "$tmp/kill.b" "$tmp/ready2"
"$P/bigheap" 400 "$tmp/ready2" &
bpid=$!
i=0
while [ ! -s "$tmp/ready2" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
"$PTREC" record -q -o "$tmp/kill.b" -p "$bpid" >/dev/null 2>&1 &
kpid=$!
traced "$bpid"
sleep 0.3
kill -INT "$kpid"
i=0
while [ ! -e "$tmp/kill.b/snapshot.ptsnap.tmp" ] && [ $i -lt 400 ]; do
	sleep 0.01
	i=$((i + 1))
done
kill -KILL "$kpid"
wait "$kpid" 2>/dev/null
kill -KILL "$bpid"
wait "$bpid" 2>/dev/null
if [ ! -e "$tmp/kill.b/manifest.json" ]; then
	fails "killed while writing the snapshot: an unfinished bundle, said so" \
		"did not finish" "$PTREC" core "$tmp/kill.b" -o "$tmp/x.core"
else
	bad "killed while writing the snapshot: ptrec finished first (a 400 MB heap)"
fi

# ---- recordings that never start leave nothing behind (#15 item 14) --------
fails "-p 999999: no such process" "no such process" \
	"$PTREC" record -q -o "$tmp/np.b" -p 999999
[ ! -e "$tmp/np.b" ] && ok "-p 999999: no directory left behind" ||
	bad "-p 999999: no directory left behind"
fails "a missing program" "cannot execute" \
	"$PTREC" record -q -o "$tmp/mp.b" -- "$tmp/no-such-program"
[ ! -e "$tmp/mp.b" ] && ok "a missing program: no directory left behind" ||
	bad "a missing program: no directory left behind"
printf '#!/bin/sh\n' >"$tmp/noexec"
chmod 644 "$tmp/noexec"
fails "a non-executable program" "Permission denied" \
	"$PTREC" record -q -o "$tmp/nx.b" -- "$tmp/noexec"
[ ! -e "$tmp/nx.b" ] && ok "a non-executable program: no directory left behind" ||
	bad "a non-executable program: no directory left behind"
mkdir "$tmp/mine"
"$PTREC" record -q -o "$tmp/mine" -- "$tmp/no-such-program" >/dev/null 2>&1
if [ -d "$tmp/mine" ] && [ -z "$(ls -A "$tmp/mine")" ]; then
	ok "a pre-existing empty directory stays (emptied of what ptrec made)"
else
	bad "a pre-existing empty directory stays (emptied of what ptrec made)"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 711 "$tmp"
	mkdir -m 777 "$tmp/eperm"
	fails "-p 1 as another user: permission denied" "cannot attach" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PTREC" record -q -o "$tmp/eperm/b" -p 1
	[ ! -e "$tmp/eperm/b" ] && ok "-p 1 (EPERM): no directory left behind" ||
		bad "-p 1 (EPERM): no directory left behind"
fi

# A full disk stops the recording at once (the streams are flushed every
# second), not when it ends: a program that never ends, a tmpfs filled
# while it is recorded.
if [ "$(id -u)" = 0 ] && mkdir "$tmp/small" &&
	mount -t tmpfs -o size=4m tmpfs "$tmp/small" 2>/dev/null; then
	"$PTREC" record -o "$tmp/small/b" -- "$P/busy" \
		>"$tmp/full.out" 2>&1 &
	fpid=$!
	sleep 1.5
	dd if=/dev/zero of="$tmp/small/fill" bs=4k >/dev/null 2>&1
	i=0
	while kill -0 "$fpid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$fpid" 2>/dev/null; then
		kill -INT "$fpid"
		wait "$fpid"
		cp "$tmp/full.out" "$tmp/log"
		bad "a full disk: still recording 10 s later"
	else
		wait "$fpid"
		rc=$?
		cp "$tmp/full.out" "$tmp/log"
		if [ "$rc" -eq 1 ] && grep -q 'No space left on device' "$tmp/full.out"; then
			ok "a full disk: ENOSPC reported and recording stopped within $((i / 10)) s"
		else
			bad "a full disk: ENOSPC reported and recording stopped"
		fi
	fi
	umount "$tmp/small"
fi

tap_end snapshot
