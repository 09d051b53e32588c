#!/bin/sh
# The kmod suite: boots the Debian cloud kernel in QEMU (TCG, 2 CPUs) with
# a busybox initramfs holding the module, the static guest programs and
# guest/guest.sh; the guest writes its results as a tar archive onto a raw
# virtio disk, and the host numbers the guest's TAP lines and checks the
# files (kernel log, traces, sideband) itself.  One boot for the suite.
#
#   KQ_KERNEL   directory the kernel image package was unpacked into
#   KQ_KVER     its release (6.1.0-N-cloud-amd64)
#   KQ_SELFTEST the harness's own module (selftest/kqselftest.ko)
#   KQ_GUEST    directory of static guest programs
#   PTREC_KO    kmod/ptrec.ko (tests skipped when absent)
#   KQ_CHECK    host checker of traces and sideband (kqcheck.c)
#   KQ_GEN      writes traces with known defects for kqcheck (kqgen.c)
#   KQ_PTREC    the ptrec binary, run in the guest with its libraries
#   KQ_MODE     test (default) or bench
#   KQ_KEEP     directory to keep the results in (default: removed), and
#               the console log as KQ_KEEP.console.log
#   KQ_TIMEOUT  seconds the guest may run (default 300)
set -u
: "${KQ_KERNEL:?}" "${KQ_KVER:?}" "${KQ_SELFTEST:?}" "${KQ_GUEST:?}"
mode=${KQ_MODE:-test}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/ptrec-kmod-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() {
	n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"
	[ -f "$tmp/log" ] && sed 's/^/#   /' "$tmp/log" | head -60
	return 0
}
die() { echo "not ok - $1"; echo "1..$((n + 1))"; exit 1; }

kmods=$KQ_KERNEL/lib/modules/$KQ_KVER/kernel
vmlinuz=$KQ_KERNEL/boot/vmlinuz-$KQ_KVER
[ -f "$vmlinuz" ] || die "no kernel at $vmlinuz"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing"
bb=$(command -v busybox) || die "busybox missing"
# ldd fails on a static binary
ldd "$bb" >/dev/null 2>&1 && die "$bb is not static (install busybox-static)"

# ---- the checker itself: passes a good trace, catches each defect ---------

if [ "$mode" = test ] && [ -n "${KQ_GEN:-}" ] && [ -n "${KQ_CHECK:-}" ]; then
	for v in good lostgap foreign seqgap offgap tscout; do
		rm -rf "$tmp/gen" && mkdir -p "$tmp/gen"
		"$KQ_GEN" "$tmp/gen" "$v" >"$tmp/log" 2>&1 || {
			bad "kqcheck self-test: kqgen $v"; continue; }
		"$KQ_CHECK" "$v" "$tmp/gen" $([ $v = lostgap ] && echo --ring) \
			>"$tmp/log" 2>&1
		rc=$?
		case $v in
		good|lostgap) want=0 ;;
		*) want=1 ;;
		esac
		if [ $rc = $want ]; then
			ok "kqcheck self-test: a trace with '$v' $([ $want = 0 ] && echo passes || echo fails)"
		else
			bad "kqcheck self-test: a trace with '$v' (exit $rc, want $want)"
		fi
	done
	rm -rf "$tmp/gen"
fi

# ---- ptrec selftest on this host: no module, a clear failure -----------------

if [ "$mode" = test ] && [ -n "${KQ_PTREC:-}" ] && [ -x "$KQ_PTREC" ] &&
	[ ! -e /dev/ptrec ]; then
	"$KQ_PTREC" selftest >"$tmp/log" 2>&1
	rc=$?
	if [ $rc = 1 ] && grep -q '^FAIL  module .*/dev/ptrec' "$tmp/log" &&
		grep -q '0 passed, 1 failed' "$tmp/log"; then
		ok "ptrec selftest without ptrec.ko fails at its first step and says so"
	else
		bad "ptrec selftest without ptrec.ko fails at its first step and says so (exit $rc)"
	fi
fi

# ---- the initramfs -------------------------------------------------------

root=$tmp/root
mkdir -p "$root/bin" "$root/kq/bin" "$root/kq/mod"
cp "$bb" "$root/bin/busybox"
cp "$here/guest/init" "$root/init"
cp "$here/guest/guest.sh" "$here/guest/tests-ptrec.sh" \
	"$here/guest/rseq-check.sh" "$root/kq/"
cp "$KQ_SELFTEST" "$root/kq/kqselftest.ko"
if [ -n "${PTREC_KO:-}" ] && [ -f "$PTREC_KO" ]; then
	cp "$PTREC_KO" "$root/kq/ptrec.ko"
fi
for f in "$KQ_GUEST"/*; do
	[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$root/kq/bin/"
done

# modules of the image, dependencies first (read from .modinfo, since the
# package ships no modules.dep)
modfile() { find "$kmods" -name "$1.ko" | head -1; }
order=""
addmod() {
	local f deps d
	case " $order " in *" $1 "*) return 0 ;; esac
	f=$(modfile "$1")
	[ -n "$f" ] || die "module $1 not in the kernel image"
	deps=$(objcopy -O binary --only-section=.modinfo "$f" /dev/stdout |
		tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' ')
	for d in $deps; do addmod "$d"; done
	case " $order " in *" $1 "*) return 0 ;; esac
	order="$order $1"
	cp "$f" "$root/kq/mod/"
}
for m in virtio_pci virtio_blk; do addmod "$m"; done
echo "$order" | tr ' ' '\n' | sed '/^$/d' >"$root/kq/modules.order"

# the dynamic ptrec binary with the libraries ldd names, and those it
# loads on first use (capstone, libopcodes, libbfd, nettle, zstd:
# ptkit/cslazy.c, ptkit/liblazy.c, replay/opclazy.c), which ldd does not
# name: KQ_LAZY_LIBS holds their sonames, and ldd of each gives its path
# and its own dependencies.
# Each goes where ldd found libc (the guest's loader searches there).
lazy_paths() {
	libdir=$(ldd "$KQ_PTREC" | sed -n 's/.*libc\.so\.6 => \(\/[^ ]*\)\/libc\.so\.6 .*/\1/p')
	for so in ${KQ_LAZY_LIBS:-}; do
		p=$(${CC:-cc} -print-file-name="$so")
		case $p in
		/*) [ -e "$libdir/$so" ] || p=$(realpath -s "$p") ;;
		*) echo "lazily loaded library $so not found ($p)" >&2
		   return 1 ;;
		esac
		[ -e "$libdir/$so" ] && p=$libdir/$so
		echo "$p"
		ldd "$p"
	done
}
if [ -n "${KQ_PTREC:-}" ] && [ -x "$KQ_PTREC" ]; then
	cp "$KQ_PTREC" "$root/kq/bin/ptrec"
	lazy=$(lazy_paths) || die "cannot find the libraries ptrec loads on first use"
	{ ldd "$KQ_PTREC"; echo "$lazy"; } |
	sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p; s/^\(\/[^ ]*\)$/\1/p' |
	sort -u |
	while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
fi

(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) >"$tmp/initrd.cpio" ||
	die "cannot build the initramfs"

# ---- boot ----------------------------------------------------------------

truncate -s 1G "$tmp/disk.img"
start=$(date +%s)
# A soft lockup (watchdog_thresh 5: after 10 s) or a task blocked for 30 s
# panics the guest, and panic=-1 with -no-reboot ends QEMU, so a hung
# module fails the suite in seconds with its stack on the console; the
# timeout catches anything else.
# At the timeout the monitor injects an NMI first: with unknown_nmi_panic
# and panic_print=0x41 the guest panics with every CPU's stack, also of a
# CPU that hangs with interrupts off (which no lockup detector under TCG
# reports), and every task's state (a step waiting for good shows where),
# then QEMU is ended.
# The tests boot with page-table isolation (the TCG CPU says AMD, so it is
# otherwise off) for the CR3 tests of #20.5, without PCID (with it ATTACH
# refuses CR3 filtering); the benchmark keeps the kernel's default.
kopts=
[ "$mode" = test ] && kopts="pti=on nopcid"
qemu-system-x86_64 -accel tcg -cpu max -smp 2 \
	-m 1024 -nodefaults -no-reboot -display none \
	-monitor "unix:$tmp/mon,server,nowait" \
	-kernel "$vmlinuz" -initrd "$tmp/initrd.cpio" \
	-append "console=ttyS0 quiet $kopts panic=-1 softlockup_panic=1 watchdog_thresh=5 hung_task_panic=1 unknown_nmi_panic=1 panic_print=0x41 kqmode=$mode" \
	-serial "file:$tmp/console.log" \
	-drive "file=$tmp/disk.img,format=raw,if=virtio" >"$tmp/qemu.log" 2>&1 &
qpid=$!
limit=$(($(date +%s) + ${KQ_TIMEOUT:-300}))
while kill -0 "$qpid" 2>/dev/null && [ "$(date +%s)" -lt "$limit" ]; do
	sleep 1
done
if kill -0 "$qpid" 2>/dev/null; then
	echo "kq: timeout: NMI to the guest for a stack" >>"$tmp/qemu.log"
	python3 -c 'import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"nmi\n"); time.sleep(1)' \
		"$tmp/mon" >/dev/null 2>&1
	sleep 10
	kill "$qpid" 2>/dev/null
fi
wait "$qpid"
rc=$?
echo "# guest ran $(($(date +%s) - start)) s (qemu exit $rc)"
[ -n "${KQ_KEEP:-}" ] && cp "$tmp/console.log" "${KQ_KEEP%/}.console.log"
res=$tmp/out
mkdir -p "$res"
if [ $rc -ne 0 ] || ! tar -xf "$tmp/disk.img" -C "$res" 2>"$tmp/log" ||
	[ ! -f "$res/guest.tap" ]; then
	cat "$tmp/qemu.log" >>"$tmp/log"
	# the first report of a lockup or oops with its stack, else the end
	if grep -q -E 'soft lockup|BUG:|Oops|blocked for more than|Kernel panic' \
		"$tmp/console.log"; then
		grep -E -m1 -A40 'soft lockup|BUG:|Oops|blocked for more than|Kernel panic' \
			"$tmp/console.log" >>"$tmp/log"
	else
		tail -40 "$tmp/console.log" >>"$tmp/log"
	fi
	bad "the guest booted, ran the suite and wrote its results"
	echo "1..$n"
	exit 1
fi
ok "the guest booted, ran the suite and wrote its results"
[ -n "${KQ_KEEP:-}" ] && { rm -rf "$KQ_KEEP"; cp -r "$res" "$KQ_KEEP"; }

# ---- make bench: context-switch cost, traced against untraced -------------

if [ "$mode" = bench ]; then
	sed 's/^\([^#]\)/# \1/' "$res/guest.tap"
	b=$res/bench.txt
	if [ ! -s "$b" ]; then
		echo "kmod bench: no result (ptrec.ko not built or not loaded)"
		exit 0
	fi
	# best of the runs for each, as the other benchmarks do
	u=$(sed -n 's/^untraced //p' "$b" | sort -n | head -1)
	t=$(sed -n 's/^traced //p' "$b" | sort -n | head -1)
	t2=$(sed -n 's/^traced200 //p' "$b" | sort -n | head -1)
	ts=$(sed -n 's/^tracedS //p' "$b" | sort -n | head -1)
	if [ -z "$u" ] || [ -z "$t" ] || [ -z "$t2" ] || [ -z "$ts" ]; then
		echo "kmod bench: incomplete result:"; cat "$b"; exit 1
	fi
	ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }
	echo "kmod bench (QEMU TCG guest, simulated PT unit), pipe ping-pong," \
		"ns per context switch, best of 3:"
	echo "  untraced $u"
	echo "  both threads traced, sim_rate 1: $t, ratio $(ratio "$t" "$u")"
	echo "  the same without system call REGS records (kqtrace -S):" \
		"$ts, ratio $(ratio "$ts" "$u")"
	echo "  both threads traced, sim_rate 200: $t2," \
		"ratio $(ratio "$t2" "$u")"
	exit 0
fi

# ---- the guest's TAP lines, numbered ---------------------------------------

# todo DESC: the known module bug (tests/kmod/todo) a test stands for.
todo() {
	[ -f "$here/todo" ] || return 1
	while IFS= read -r t; do
		case $t in "" | "#"*) continue ;; esac
		# shellcheck disable=SC2254 # the entry is a glob
		case $1 in ${t%% # *}) echo "${t#* # }"; return 0 ;; esac
	done <"$here/todo"
	return 1
}

# relay: TAP lines without numbers on stdin, numbered on stdout.  A
# failure listed in tests/kmod/todo is a TAP TODO (reported, not counted);
# a listed test that passes says its entry can go.
relay() {
	while IFS= read -r line; do
		case $line in
		"ok - "*)
			n=$((n + 1)); d=${line#ok - }
			if why=$(todo "$d"); then
				echo "ok $n - $d # TODO passes now, remove from tests/kmod/todo: $why"
			else
				echo "ok $n - $d"
			fi ;;
		"not ok - "*)
			n=$((n + 1)); d=${line#not ok - }
			if why=$(todo "$d"); then
				echo "not ok $n - $d # TODO $why"
			else
				fails=$((fails + 1))
				echo "not ok $n - $d"
			fi ;;
		*) echo "$line" ;;
		esac
	done
}
relay <"$res/guest.tap"
grep -q '^# guest done$' "$res/guest.tap" || {
	rm -f "$tmp/log"
	bad "the guest suite ran to its end"
}

# ---- host checks of what the guest left --------------------------------------

# A warning, oops, BUG or lockdep report anywhere in the kernel's log
# (console and dmesg) fails the suite.
kbad='WARNING:|Oops|BUG:|BUG |general protection|Call Trace|lockdep|possible circular|INFO: task .* blocked|Kernel panic|RIP:|refcount_t|list_(add|del) corruption|UBSAN'
grep -E "$kbad" "$res/dmesg.txt" "$tmp/console.log" >"$tmp/log" 2>&1
if [ -s "$tmp/log" ]; then
	bad "the kernel log has no warning, oops, BUG or lockdep report"
else
	ok "the kernel log has no warning, oops, BUG or lockdep report"
fi

if [ -f "$here/host-checks.sh" ]; then
	. "$here/host-checks.sh"
	host_checks "$res"
fi

echo "1..$n"
[ "$fails" -eq 0 ] || { echo "$fails of $n kmod tests failed"; exit 1; }
