#!/bin/sh
# Review 6's reproducers (tests/values/review6.c): `make values-review6`
# (not in make check).  Each case must give no wrong value (valcheck,
# VALCHECK_BITS=1, no conflict) in default mode and in strict mode
# (PTREC_VALUES_STRICT=1).  Per case and mode the script prints the
# wrong count; findings are listed in review6.c's opening comment.
set -u
: "${PTREC:?}" "${VALCHECK:?}" "${REVIEW6:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
tap_begin values-review6
export VALCHECK_CONFLICTS=0 VALCHECK_BITS=1

rec() {
	rm -rf "${tmp:?}/$1"
	(
		export LD_BIND_NOW=1 GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX2,-AVX,-BMI2,-EVEX
		timeout 300 "$PTREC" record --ground-truth -q -o "$tmp/$1" \
			"$REVIEW6" "$1" >"$tmp/log" 2>&1
	)
}

vcheck() {
	for strict in 0 1; do
		name=default
		[ $strict = 1 ] && name=strict
		if [ ! -f "$tmp/$1/manifest.json" ]; then
			bad "review6.c $1 ($name): not recorded: $(tail -2 "$tmp/log")"
			continue
		fi
		if PTREC_VALUES_STRICT=$strict "$VALCHECK" "$tmp/$1" \
			>"$tmp/out" 2>&1; then
			ok "review6.c $1 ($name): wrong 0"
		else
			w=$(sed -n 's/^distance all .* wrong \([0-9]*\).*/\1/p' "$tmp/out")
			bad "review6.c $1 ($name): wrong ${w:-?}: $(grep -m2 WRONG "$tmp/out" | tr '\n' ' ')$(grep -m1 -i 'conflict' "$tmp/out")"
		fi
	done
}

for mode in ${REVIEW6_MODES:-plain lbsf lpopcnt ldiv lx87 lmmx lrepmovs lpext lcvt lfld lpushf llahf lrcl ladc lgs lgsbase lpipe2 lpipe brkfix forkwrite}; do
	"$REVIEW6" $mode >/dev/null 2>&1
	if [ $? = 7 ]; then
		ok "review6.c $mode: # SKIP not possible here"
		continue
	fi
	rec $mode
	vcheck $mode
done
tap_end values-review6
