#!/bin/sh
# The kmod suite inside the guest.  Prints TAP lines without numbers
# ("ok - ...", "not ok - ...", "# ..."); the host numbers them, adds its
# own checks of the files left in /out, and prints the plan.
mode=${1:-test}
cd /kq || exit 1
export PATH=/bin:/kq/bin

ok() { echo "ok - $1"; }
bad() {
	echo "not ok - $1"
	[ -f /tmp/log ] && sed 's/^/#   /' /tmp/log | tail -20
	return 0
}
# check DESC CMD...: ok when CMD succeeds; its output is the diagnostic.
check() {
	d=$1
	shift
	if "$@" >/tmp/log 2>&1; then ok "$d"; else bad "$d"; fi
}
# dmesg_since MARK: kernel log lines after the line containing MARK.
mark() { echo "kq-mark $1" >/dev/kmsg; }
dmesg_since() { dmesg | sed -n "/kq-mark $1\$/,\$p"; }

# ---- the harness's own module ------------------------------------------

selftest() {
	mark self
	if kqinsmod /kq/kqselftest.ko >/tmp/log 2>&1; then
		bad "selftest: loading without sim=1 fails"
		rmmod kqselftest
	else
		ok "selftest: loading without sim=1 fails"
	fi
	dmesg_since self >/tmp/log
	if [ "$(grep -c 'kqselftest: no unit (load with sim=1)' /tmp/log)" = 1 ]
	then
		ok "selftest: the kernel log says why, once"
	else
		bad "selftest: the kernel log says why, once"
	fi
	check "selftest: loading with sim=1 works" insmod /kq/kqselftest.ko sim=1
	check "selftest: the module is listed" grep -q '^kqselftest ' /proc/modules
	check "selftest: unloading works" rmmod kqselftest
	if grep -q '^kqselftest ' /proc/modules; then
		bad "selftest: the module is gone after rmmod"
	else
		ok "selftest: the module is gone after rmmod"
	fi
	check "selftest: both CPUs are online" \
		sh -c 'test "$(nproc)" = 2'
}

case $mode in
test)
	selftest
	if [ -x /kq/bin/ptrec ]; then
		check "the dynamic ptrec binary runs in the guest (libraries from ldd)" \
			ptrec version
	fi
	if [ -f /kq/ptrec.ko ]; then
		. /kq/tests-ptrec.sh
		ptrec_tests
	else
		echo "ok - ptrec.ko tests # SKIP kmod/ptrec.ko not built"
	fi
	;;
loadloop)
	# debugging aid: KQ_MODE=loadloop loads and unloads ptrec.ko 30 times
	for i in $(seq 30); do
		kqinsmod /kq/ptrec.ko >/dev/null 2>&1
		kqinsmod /kq/ptrec.ko sim=1 || { echo "not ok - load $i"; break; }
		rmmod ptrec || { echo "not ok - unload $i"; break; }
	done
	echo "ok - loadloop"
	;;
bench)
	if [ -f /kq/ptrec.ko ]; then
		. /kq/tests-ptrec.sh
		ptrec_bench
	else
		echo "# bench skipped: kmod/ptrec.ko not built"
	fi
	;;
esac
# Taint bits a warning (W, 9), an oops (D, 7) or a soft lockup (L, 14) set.
t=$(cat /proc/sys/kernel/tainted)
if [ $((t & ((1 << 9) | (1 << 7) | (1 << 14)))) = 0 ]; then
	ok "the kernel is not tainted by a warning, oops or lockup (tainted=$t)"
else
	echo "$t" >/tmp/log
	bad "the kernel is not tainted by a warning, oops or lockup (tainted=$t)"
fi
echo "# guest done"
