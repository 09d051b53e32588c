# Sourced by tests-ptrec.sh (in the guest, busybox sh) and by
# tests/snapshot/run.sh (on the host, device faked): whether a kmod
# recording of kqrseq lists every rseq area kqrseq says it has (#17).
#
# rseq_all DUMP LOG: in DUMP (ptrec dump's output), the snapshot of
# the process LOG (kqrseq's) names says its list is complete and has
# every area LOG names, 5 threads' with one "early", each registered
# (cpu >= 0), the two asked for by the i386 and x32 numbers and the one a
# vfork child registered (in the shared memory), but not the one a fork
# child asked for in its own.
rseq_all() {
	pid=$(sed -n 's/^pid \([0-9]*\)$/\1/p' "$2")
	[ -n "$pid" ] || return 1
	awk -v p="$pid" '/snapshot: process / { on = ($3 == p) } on' \
		"$1" >"$1.proc"
	set -- "$1.proc" "$2"
	grep -q '^    rseq areas: complete$' "$1" || return 1
	[ "$(grep -c '^rseq 0x[0-9a-f]* cpu [0-9]' "$2")" = 5 ] || return 1
	grep -q '^rseq 0x[0-9a-f]* cpu [0-9]* early$' "$2" || return 1
	[ "$(grep -c '^abi 0x[0-9a-f]* ret -' "$2")" = 2 ] || return 1
	grep -q '^vfork 0x[0-9a-f]* ret 0$' "$2" || return 1
	for a in $(sed -n 's/^[a-z]* \(0x[0-9a-f]*\) .*/\1/p' "$2"); do
		grep -q "^    rseq $a len 32\$" "$1" || return 1
	done
	a=$(sed -n 's/^fork \(0x[0-9a-f]*\)$/\1/p' "$2")
	[ -n "$a" ] && ! grep -q "^    rseq $a " "$1"
}
