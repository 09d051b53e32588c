#!/bin/sh
# samecheck.sh dump VALWIN PTREC BUNDLES OUT: every value the recovery
# engine reports, for a change that must only make it faster (#17's
# latency, #18's deep scan): at every position of every thread of the
# bench recordings (scripts/bench-values keeps them in BUNDLES: loops,
# threads, gdbloop, workload, workload-40k, demo), every register's known
# bits and value and the 64 bytes from rsp (tests/values/valwin digest,
# VALWIN_DUMP), asked from the end backward and from the oldest forward,
# in the default windows and in windows of 300 instructions (chains and
# ramps, as at 10^7); and `ptrec values --at N --why --stats`' values and
# causes at a few positions.  One file per case in OUT.
#
# samecheck.sh diff OLD NEW: compares two such dumps; any line that
# differs is printed and the exit status is 1.  Record once, dump with
# main's build (OLD) and with the change's (NEW): a difference is a bug in
# the change (the engine's rules did not change, its values must not).
set -eu
case ${1:-} in
dump)
	[ $# = 5 ] || { echo "usage: $0 dump VALWIN PTREC BUNDLES OUT" >&2
		exit 2; }
	valwin=$2 ptrec=$3 dir=$4 out=$5
	mkdir -p "$out"
	for p in loops threads gdbloop workload workload-40k demo; do
		b=$dir/$p
		[ -f "$b/manifest.json" ] || {
			echo "samecheck: $b: no bundle (make values-bench)" >&2
			exit 2; }
		for way in back fwd; do
			VALWIN_DUMP=1 VALWIN_MEM=56 "$valwin" "$b" digest 1000 \
				$way >"$out/$p.$way" ||
				{ echo "samecheck: $p $way: valwin failed" >&2
				  exit 1; }
		done
		k=1000
		[ $p = workload ] && k=200	# 60,000 positions of 273,185
		VALWIN_DUMP=1 VALWIN_BLOCK=300 "$valwin" "$b" digest $k \
			>"$out/$p.b300"
		for at in 1 100 1000 5000 20000; do
			# the value lines and the causes; --stats' counters
			# are the engine's work, which may change
			"$ptrec" values "$b" --at $at --why 2>&1 |
				grep -v '^  *[a-z ]*: [0-9]* *$' \
					>"$out/$p.at$at" || true
		done
	done
	;;
diff)
	[ $# = 3 ] || { echo "usage: $0 diff OLD NEW" >&2; exit 2; }
	if diff -r "$2" "$3" >/dev/null; then
		n=$(cat "$2"/* | wc -l)
		echo "samecheck: identical ($n lines)"
	else
		diff -r "$2" "$3" | head -40
		echo "samecheck: DIFFERENT"
		exit 1
	fi
	;;
*)
	echo "usage: $0 dump VALWIN PTREC BUNDLES OUT | diff OLD NEW" >&2
	exit 2
	;;
esac
