# Shared by the GDB watchpoint scripts (watchgap.sh, watchvm.sh): one
# GDB session per scenario whose output is cut at marks, so each check
# reads the stop it is about.  Sourced after tests/lib.sh ($tmp, $PTREC).

# gdb_watch NAME BUNDLE MODE WATCH STEP...: GDB on BUNDLE with
# watch-unknown MODE ("-": the default, not set) and `watch WATCH`, then
# after a mark @@STEP each STEP: rcN reverse-continue, cN continue (with
# ptrec position after either), anything else prints the watched value;
# the output in $tmp/NAME.out.  GW_PRE, when set, is a GDB command run
# before the watchpoint is set (a `ptrec goto N`, so that GDB's old
# value is the one there).
gdb_watch() {
	gname=$1 gb=$2 gmode=$3 gw=$4
	shift 4
	for st do
		case $st in
		rc*) set -- "$@" -ex "echo @@$st\n" -ex "reverse-continue" \
			-ex "ptrec position" ;;
		c*) set -- "$@" -ex "echo @@$st\n" -ex "continue" \
			-ex "ptrec position" ;;
		*) set -- "$@" -ex "echo @@$st\n" -ex "p ${gw#-l }" ;;
		esac
		shift
	done
	set -- -ex "watch $gw" "$@"
	if [ "$gmode" != - ]; then
		set -- -ex "set ptrec watch-unknown $gmode" "$@"
	fi
	timeout 300 "$PTREC" replay "$gb" -batch -ex "set pagination off" \
		${GW_PRE:+-ex "$GW_PRE"} "$@" -ex "echo @@done\n" \
		>"$tmp/$gname.out" 2>&1
}

# part NAME MARK: the output of gdb_watch NAME from @@MARK to the next mark
part() { awk -v m="@@$2" '$0 == m { on = 1; next } /^@@/ { on = 0 } on' \
	"$tmp/$1.out"; }

# pos NAME MARK [TID]: the position `ptrec position` printed there (of
# thread TID only, when given)
pos() {
	part "$1" "$2" |
		sed -n "s/^.*thread ${3:-[0-9]*} position \([0-9]*\) of .*/\1/p"
}
