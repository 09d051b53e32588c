#!/bin/sh
# scripts/check-layering: passes on the tree, and on a copy of the tree
# with one wrong include planted per rule it fails, naming each.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib.sh"
tap_begin layering
check=$top/scripts/check-layering

if "$check" "$top" >"$tmp/out" 2>&1; then
	ok "the tree keeps the layering"
else
	bad "the tree breaks the layering: $(cat "$tmp/out")"
fi

# A copy of the components' sources, with wrong includes planted.
copy() {
	rm -rf "$tmp/t" && mkdir -p "$tmp/t/gdb" "$tmp/t/kmod"
	(cd "$top" && cp -r sideband ptkit record import replay cli "$tmp/t/" &&
		cp -r gdb/server "$tmp/t/gdb/" && cp -r kmod/uapi "$tmp/t/kmod/")
}
# plant FILE LINE: adds #include LINE at the top of FILE in the copy
plant() { sed -i "1i #include \"$2\"" "$tmp/t/$1"; }
# refused DESC PATTERN: the check fails on the copy and says PATTERN
refused() {
	"$check" "$tmp/t" >"$tmp/out" 2>&1
	st=$?
	if [ $st -eq 1 ] && grep -q -- "$2" "$tmp/out"; then
		ok "$1"
	else
		bad "$1 (exit $st): $(cat "$tmp/out")"
	fi
}

copy
"$check" "$tmp/t" >"$tmp/out" 2>&1 && ok "the copy passes unchanged" ||
	bad "the copy fails unchanged: $(cat "$tmp/out")"
copy; plant import/raw.c cli_args.h
refused "a component including the front end's header" \
	"import/raw.c:1: includes cli/cli_args.h: import may not use cli"
copy; plant sideband/util.c replay.h
refused "the bottom layer including one above it" \
	"sideband/util.c:1: includes replay/replay.h: sideband may not use replay (arrows point down: nothing below it)"
copy; plant cli/insns.c rp_internal.h
refused "the front end including libptrec's private header" \
	"cli/insns.c:1: includes replay/rp_internal.h, a private header of replay (its public header: replay/replay.h)"
copy; plant replay/aspace.c perf_internal.h
refused "a component including a sibling's private header" \
	"replay/aspace.c:1: includes import/perf_internal.h: replay may not use import"
copy; plant gdb/server/rsp.c sym_internal.h
refused "the GDB server including a private header below it" \
	"gdb/server/rsp.c:1: includes replay/sym_internal.h, a private header of replay"
copy; plant ptkit/insn.c no_such_header.h
refused "an include that names no header" \
	'ptkit/insn.c:1: "no_such_header.h" is no header of any component'
copy; plant cli/dump.c uapi/ptrec.h
"$check" "$tmp/t" >"$tmp/out" 2>&1 &&
	ok "the front end may include the module's interface header" ||
	bad "uapi/ptrec.h from cli/ refused: $(cat "$tmp/out")"

tap_end layering
