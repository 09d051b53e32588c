#!/bin/sh
# Transactions that abort (#18; Intel SDM Vol. 1 ch. 16): their stores
# and register writes never happen.  No machine here has TSX or Intel PT:
# tests/tools/mktsx builds the stream with libipt's encoder, and its truth
# by hand from the SDM's rules (an abort resumes at the XBEGIN's fallback
# with the XBEGIN's state but EAX; a commit keeps everything).
#  - the watch scan (watchtruth --scan, every mode, backward and
#    forward): never a stop at the aborted transaction's store, always
#    one at the committed one's and at the store before both;
#  - with packets lost inside the aborted transaction (OVF), the store
#    after the gap is not passed (the begin no longer bounds it);
#  - the recovery engine (ptrec values) at every position the truth
#    lists: 0 wrong (a value it gives is the truth's), and it knows what
#    the code before the first transaction implies.  The third
#    transaction aborts where its fallback is the next instruction's
#    address, so only the trace's MODE.TSX shows it (replay/rcv_tsx.c).
set -u
: "${PTREC:?}" "${WATCHTRUTH:?}" "${MKTSX:?}"
testlib_dir=$(cd "$(dirname "$0")/.." && pwd)
. "$testlib_dir/lib.sh"
tap_begin gdb-watchtsx

d=$tmp/gen
mkdir -p "$d"
if "$MKTSX" "$d" >"$tmp/log" 2>&1 &&
	"$PTREC" import raw -o "$tmp/b" --pt "$d/pt.bin" --images "$d/list" \
		>"$tmp/log" 2>&1 &&
	"$PTREC" insns "$tmp/b" >"$tmp/insns" 2>&1 &&
	[ "$(grep -c "tsx: abort" "$tmp/insns")" = 2 ] &&
	[ "$(grep -c "tsx: commit" "$tmp/insns")" = 1 ]; then
	ok "mktsx: a stream with two aborts and a commit, imported"
else
	bad "mktsx: a stream with two aborts and a commit, imported"
	tap_end gdb-watchtsx
fi
tid=$("$PTREC" info "$tmp/b" | awk '/thread /{ print $2; exit }')

# The scan's stops at g: the truth's stores (positions), in each mode.
want=$(awk '$1 == "store" { print $2 }' "$d/truth" | sort -n | tr '\n' ' ')
abrt=$(awk '$1 == "aborted" { print $2 }' "$d/truth")
okw=1
for m in "stop" "stack" "skip" "stop fwd" "skip fwd"; do
	# shellcheck disable=SC2086 # mode and direction
	"$WATCHTRUTH" --scan "$tmp/b" "$tid" 0x400100 4 $m >"$tmp/scan" 2>&1
	got=$(awk '$1 == "stop" && $3 == "known" { print $2 }' "$tmp/scan" |
		sort -n | tr '\n' ' ')
	# $abrt is the aborted transaction's store (a known address).
	if [ -z "$abrt" ] || [ "$got" != "$want" ] ||
		awk -v a="$abrt" '$1 == "stop" && $2 == a' "$tmp/scan" |
		grep -q .; then
		okw=0
		{ echo "mode $m: want $want"; cat "$tmp/scan"; } >>"$tmp/log"
	fi
done
if [ $okw = 1 ]; then
	ok "watch scan: the committed stores (${want% }), never the aborted one ($abrt), in every mode, both ways"
else
	bad "watch scan: the committed stores (${want% }), never the aborted one ($abrt), in every mode, both ways"
fi

# Packets lost inside the first transaction (ovf.bin): its begin no
# longer bounds the store after the gap, which may have been committed
# and a new transaction begun; the scan must not pass it (stop mode:
# a "may have written" stop, its address being unknown after the gap).
"$PTREC" import raw -o "$tmp/o" --pt "$d/ovf.bin" --images "$d/list" \
	>"$tmp/log" 2>&1
"$PTREC" insns "$tmp/o" >"$tmp/oinsns" 2>&1
p9=$(awk '/movl +\$0x9,/ { print $1 - 1 }' "$tmp/oinsns")
"$WATCHTRUTH" --scan "$tmp/o" "$tid" 0x400100 4 stop >"$tmp/oscan" 2>&1
cat "$tmp/oinsns" "$tmp/oscan" >>"$tmp/log"
if grep -q "overflow" "$tmp/oinsns" && [ -n "$p9" ] &&
	awk -v p="$p9" '$1 == "stop" && $2 == p' "$tmp/oscan" | grep -q .
then
	ok "a gap inside the transaction: its store after the gap still stops (position $p9)"
else
	bad "a gap inside the transaction: its store after the gap still stops"
fi

# The engine against the truth: "POS reg NAME VALUE", "POS mem ADDR VALUE".
right=0 wrong=0 unknown=0
while read -r pos kind what val; do
	case $kind in
	reg)
		v=$("$PTREC" values "$tmp/b" --at $((pos + 1)) 2>&1 |
			awk -v r="$what" '$1 == r { print $2 }')
		want=$(printf "0x%016x" "$val")
		;;
	mem)
		# little-endian bytes, as ptrec values prints them
		v=$("$PTREC" values "$tmp/b" --at $((pos + 1)) --mem "$what" \
			--len 4 2>&1 | awk -F': ' '/^0x/ { print $2 }' |
			awk '{ print "0x" $4 $3 $2 $1 }')
		want=$(printf "0x%08x" "$val")
		;;
	*) continue ;;
	esac
	case $v in
	unknown|"") unknown=$((unknown + 1)); continue ;;
	esac
	# Partly known: each hex digit shown must be the truth's.
	if [ ${#v} = ${#want} ] && [ "$(echo "$v" | awk -v w="$want" '{
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (c != "?" && c != substr(w, i, 1)) { print "x"; exit }
		} }')" = "" ]; then
		right=$((right + 1))
		case $v in *"?"*) ;; *) echo "$pos $what" >>"$tmp/whole" ;; esac
	else
		wrong=$((wrong + 1))
		echo "WRONG before $pos $kind $what: $v, truth $want" >>"$tmp/log"
	fi
done <"$d/truth"
echo "right $right, unknown $unknown, wrong $wrong" >>"$tmp/log"
# Known whole before the first transaction: rbx and rdi before 3.
if [ $wrong = 0 ] && grep -q "^3 rbx" "$tmp/whole" 2>/dev/null &&
	grep -q "^3 rdi" "$tmp/whole"; then
	ok "the engine: 0 wrong of $((right + wrong)) values it gives ($unknown unknown)"
else
	bad "the engine: $wrong wrong of $((right + wrong)) values it gives"
fi
tap_end gdb-watchtsx
