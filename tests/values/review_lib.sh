# Shared by the reviewers' scripts (review4.sh to review12.sh): record a
# case with the ground truth, check its values in default and strict
# mode, the stop at a signal's delivery, and the table-driven GDB check
# of one access per row.  Sourced after tests/lib.sh; RV_PROG is the
# review program, RV_NAME its name in the TAP lines (review7.c), RV_TAG
# the symbols' prefix (r7: r7_w<k>, r7_rb).

# rec MODE: records RV_PROG MODE with the ground truth into $tmp/MODE,
# with lazy binding and glibc's AVX and AVX-512 variants off, unless
# RV_LIBC_AS_IS=1 (review4.sh: its cases were made and fixed with the
# libc as the machine chooses it).
rec() {
	rm -rf "${tmp:?}/$1"
	(
		[ "${RV_LIBC_AS_IS:-0}" = 1 ] ||
			export LD_BIND_NOW=1 GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX2,-AVX,-BMI2,-EVEX
		timeout 300 "$PTREC" record --ground-truth -q -o "$tmp/$1" \
			"$RV_PROG" "$1" >"$tmp/log" 2>&1
	)
}

# vcheck MODE: no wrong value and no conflict (valcheck) in default and
# strict mode (RV_STRICT="0": default mode only, review4.sh).
vcheck() {
	for strict in ${RV_STRICT:-0 1}; do
		name=default
		[ $strict = 1 ] && name=strict
		if [ ! -f "$tmp/$1/manifest.json" ]; then
			bad "$RV_NAME $1 ($name): not recorded: $(tail -2 "$tmp/log")"
			continue
		fi
		if PTREC_VALUES_STRICT=$strict "$VALCHECK" "$tmp/$1" \
			>"$tmp/out" 2>&1; then
			ok "$RV_NAME $1 ($name): wrong 0"
		else
			w=$(sed -n 's/^distance all .* wrong \([0-9]*\).*/\1/p' "$tmp/out")
			c=$(sed -n 's/^CONFLICTS .*: \([0-9]*\)$/\1/p' "$tmp/out")
			bad "$RV_NAME $1 ($name): wrong ${w:-?}, conflicts ${c:-0}: $(grep -m2 WRONG "$tmp/out" | tr '\n' ' ')"
		fi
	done
}

# delivery MODE HANDLER WATCH WHAT: records RV_PROG MODE (no ground
# truth); from HANDLER's third instruction, reverse-continue with `watch
# -l WATCH` must stop at the signal's delivery (HANDLER's first
# instruction or the one before it: the kernel wrote WHAT there), in
# watch-unknown stop and skip.
delivery() {
	rm -rf "${tmp:?}/$1"
	timeout 300 "$PTREC" record -q -o "$tmp/$1" "$RV_PROG" "$1" \
		>/dev/null 2>"$tmp/log"
	h=$("$PTREC" insns "$tmp/$1" 2>/dev/null | grep -m1 "<$2+0>" |
		cut -f1)
	if [ -z "$h" ]; then
		bad "$RV_NAME $1: not recorded ($(tail -2 "$tmp/log"))"
		return
	fi
	for mode in stop skip; do
		timeout 300 "$PTREC" replay "$tmp/$1" -batch \
			-ex "set pagination off" \
			-ex "set ptrec watch-unknown $mode" -ex "ptrec goto end" \
			-ex "watch -l $3" -ex "ptrec goto $((h + 2))" \
			-ex "echo @@rc\n" -ex "reverse-continue" \
			-ex "ptrec position" >"$tmp/gdb.out" 2>&1
		got=$(sed -n '/^@@rc/,$p' "$tmp/gdb.out" |
			grep -E 'position [0-9]+ of' | tail -1)
		pos=$(echo "$got" | sed -n 's/.*position \([0-9]*\) of.*/\1/p')
		if [ -n "$pos" ] && [ "$pos" -ge $((h - 1)) ]; then
			ok "$RV_NAME $1 ($mode): reverse-continue stops at the delivery ($pos)"
		else
			bad "$RV_NAME $1 ($mode): missed write: from $((h + 2)) reverse-continue: $got (the kernel wrote $4 between $((h - 1)) and $h)"
		fi
	done
}

# rowscan BUNDLE MODE ROWS NAME: ROWS holds one line per row,
# "P|CMD|ADDR|WHAT": the row's instruction at position P, the watch
# command (watch or rwatch) and the watched byte's expression, WHAT its
# name in messages.  For each, from right after it reverse-continue must
# stop at it, and from right before it continue must stop right after
# it, in watch-unknown MODE (strict: stop with strict values); GDB
# commands in $RV_PRELUDE (lines, each ending in a newline) run first.  The
# misses go to $tmp/miss ("row dir want got what"); false (having said
# bad) when not every scan ran.
rowscan() {
	wu=$2
	[ $2 = strict ] && wu=stop
	printf 'set pagination off\nset ptrec watch-unknown %s\n%s' \
		$wu "${RV_PRELUDE:-}" >"$tmp/cmds"
	k=0
	while IFS='|' read -r p cmd a what; do
		cat >>"$tmp/cmds" <<EOT
ptrec goto $((p + 1))
$cmd $a
echo @@ $k back $p $what\n
reverse-continue
ptrec position
delete
ptrec goto $p
$cmd $a
echo @@ $k fwd $((p + 1)) $what\n
continue
ptrec position
delete
EOT
		k=$((k + 1))
	done <"$3"
	PTREC_VALUES_STRICT=$([ $2 = strict ] && echo 1 || echo 0) \
	timeout 900 "$PTREC" replay "$1" -batch -x "$tmp/cmds" \
		>"$tmp/gdb.out" 2>&1
	awk '/^@@ /{k=$2; dir=$3; want=$4; $1=$2=$3=$4=""; what=$0; next}
	     /at the end, after/ && k!="" {print k, dir, want, "end", what; k=""; next}
	     /position [0-9]+ of/ && k!="" {for(i=1;i<=NF;i++) if($i=="position") got=$(i+1); if (got!=want) print k, dir, want, got, what; k=""}' \
		"$tmp/gdb.out" >"$tmp/miss"
	nsc=$(grep -c '^@@ ' "$tmp/gdb.out")
	if [ "$nsc" != $((2 * k)) ]; then
		bad "$4 ($2): $nsc of $((2 * k)) scans ran: $(tail -3 "$tmp/gdb.out" | tr '\n' ' ')"
		return 1
	fi
}

# gdbrow MODE LABEL CMD EXPR [MODES]: RV_PROG MODE recorded (no ground
# truth) into $tmp/MODE; rowscan of CMD EXPR at LABEL's first instruction
# in stop, skip and strict (or MODES: skip left out where the access's
# address is not known to the engine, which skip may pass, docs/gdb.md).
gdbrow() {
	rm -rf "${tmp:?}/$1"
	timeout 300 "$PTREC" record -q -o "$tmp/$1" "$RV_PROG" "$1" \
		>/dev/null 2>"$tmp/log"
	p=$("$PTREC" insns "$tmp/$1" 2>/dev/null | grep -m1 "<$2+0>" |
		cut -f1)
	if [ -z "$p" ]; then
		bad "$RV_NAME $1: not recorded ($(tail -2 "$tmp/log"))"
		return
	fi
	echo "$p|$3|$4|$2" >"$tmp/rows"
	for wm in ${5:-stop skip strict}; do
		rowscan "$tmp/$1" $wm "$tmp/rows" "$RV_NAME $1" || continue
		if [ -s "$tmp/miss" ]; then
			bad "$RV_NAME $1 ($wm): missed: $(cat "$tmp/miss")"
		else
			ok "$RV_NAME $1 ($wm): $3 stops at $2 both ways"
		fi
	done
}

# rv_insns DIR MODE LABEL: RV_PROG MODE recorded (no ground truth) into
# $tmp/DIR, its instructions in $ins; false, with a bad line, when
# LABEL's first instruction is not among them.
rv_insns() {
	rm -rf "${tmp:?}/$1"
	timeout 300 "$PTREC" record -q -o "$tmp/$1" "$RV_PROG" "$2" \
		>/dev/null 2>"$tmp/log"
	ins=$("$PTREC" insns "$tmp/$1" 2>/dev/null)
	echo "$ins" | grep -q "<$3+0>" && return 0
	bad "$RV_NAME $2: not recorded ($(tail -2 "$tmp/log"))"
	return 1
}

# rwcheck TABLE: each row k of TABLE (kind|setup|instruction|after|byte)
# is an instruction at <tag>_w<k> that reads (r) or writes (w) byte
# `byte` of its own 4096-byte slot of <tag>_rb: rowscan with rwatch (r)
# or watch (w) on that byte, with watch-unknown stop, skip and strict.
# With skip, the rows listed in $skip_unknown (an access whose address
# the engine does not know) may pass (docs/gdb.md).
rwcheck() {
	rv_insns grw rw "${RV_TAG}_w0" || return
	k=0
	: >"$tmp/rows"
	while IFS='|' read -r kind setup insn post byte; do
		p=$(echo "$ins" | grep -m1 "<${RV_TAG}_w$k+0>" | cut -f1)
		cmd=rwatch
		[ "$kind" = w ] && cmd=watch
		echo "$p|$cmd|*(char *)((char *)${RV_TAG}_rb + $((4096 * k + byte)))|$insn" \
			>>"$tmp/rows"
		k=$((k + 1))
	done <"$1"
	for mode in stop skip strict; do
		rowscan "$tmp/grw" $mode "$tmp/rows" "$RV_NAME rw" || continue
		bads=0
		while read -r row dir want got what; do
			case " $(echo $skip_unknown) " in
			*" $row "*) [ $mode = skip ] && continue ;;
			esac
			bad "$RV_NAME rw ($mode): row $row ($what) $dir: missed, stopped at $got instead of $want"
			bads=$((bads + 1))
		done <"$tmp/miss"
		[ $bads = 0 ] && ok "$RV_NAME rw ($mode): every access stops"
	done
}

# syswcheck MODE TABLE LABEL BUFFER SLOT WATCH [TODO]: each row k of
# TABLE (number|setup|byte) is a system call at LABEL<k> of $RV_PROG
# MODE writing (or, with rwatch, reading) byte `byte` of its SLOT-byte
# slot of BUFFER (0xff before), the buffer's address in a register: from
# right after it, reverse-continue with WATCH on the byte must stop at
# it, and from right before it, continue must stop right after it, with
# stop, skip and strict (replay/rcv_sys.c's kernel-write table names
# every one's buffers, several for some, readv's from its iovecs).  With
# TODO every miss is a TODO (review7.sh's sysr: the kernel's reads count
# nowhere, docs/gdb.md names its writes only, and GDB on a live process
# would not see them either).
syswcheck() {
	sm=$1 tbl=$2 lab=$3 buf=$4 slot=$5 wcmd=$6 todoall=${7:-}
	rv_insns gsys "$sm" "${lab}0" || return
	k=0
	: >"$tmp/rows"
	while IFS='|' read -r nr setup byte; do
		p=$(echo "$ins" | grep -m1 "<$lab$k+0>" | cut -f1)
		echo "$p|$wcmd|*(unsigned char *)((char *)$buf + $((slot * k + byte)))|$nr" \
			>>"$tmp/rows"
		k=$((k + 1))
	done <"$here/$tbl"
	for mode in stop skip strict; do
		rowscan "$tmp/gsys" $mode "$tmp/rows" "$RV_NAME $sm" ||
			continue
		bads=0
		todo=
		while read -r row dir want got nr; do
			if [ -n "$todoall" ]; then
				todo="$todo $nr/$dir"
				continue
			fi
			bad "$RV_NAME $sm ($mode): row $row (system call $nr) $dir: missed, stopped at $got instead of $want"
			bads=$((bads + 1))
		done <"$tmp/miss"
		[ -n "$todo" ] && ok "$RV_NAME $sm ($mode): # TODO passes the kernel's accesses of system calls outside the table:$todo"
		[ $bads = 0 ] && [ -z "$todo" ] &&
			ok "$RV_NAME $sm ($mode): every system call's access stops"
	done
}
