#!/bin/sh
# The kernel-write table's session 14 rows (tests/values/kwsys.c,
# kwsys_sys.tbl; replay/rcv_sys.c): `make values-kwsys`, in make check.
# First the program untraced: each row's byte is one the kernel changed
# (not 0xff: the truth that the call writes it).  Then sysw (GDB,
# review_lib.sh's syswcheck): from right after each call reverse-continue
# with a watch on its byte, and from right before it continue, must stop
# at it in watch-unknown stop, skip and strict.  On main bc99e4f every
# row's watch passed the call with skip (52 missed scans: ppoll,
# pselect6, epoll_*, the socket calls, clock_nanosleep, TIOCGWINSZ, the
# timers, adjtimex, recvmsg not in the table; select with n not known,
# poll with 5 pollfds and ppoll with nfds not known: writes of unknown
# address).  Then sysv: the same calls with a store before and a load
# after each, no wrong value (valcheck) in default and strict mode.
set -u
: "${PTREC:?}" "${VALCHECK:?}" "${KWSYS:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
RV_PROG=$KWSYS RV_NAME=kwsys.c RV_TAG=kw
. "$here/review_lib.sh"
tap_begin values-kwsys
export VALCHECK_CONFLICTS=0 VALCHECK_BITS=1

"$KWSYS" check $(cut -d'|' -f3 "$here/kwsys_sys.tbl") >"$tmp/check" 2>&1
rc=$?
if [ $rc = 7 ]; then
	ok "kwsys.c: # SKIP the descriptors cannot be made here"
	tap_end values-kwsys
	exit 0
fi
same=$(awk '$2 == "0xff" {printf "%s ", $1}' "$tmp/check")
rows=$(grep -c . "$here/kwsys_sys.tbl")
if [ $rc = 0 ] && [ "$(wc -l <"$tmp/check")" = "$rows" ] && [ -z "$same" ]; then
	ok "kwsys.c untraced: the kernel changed every row's byte"
else
	bad "kwsys.c untraced: exit $rc, rows whose byte stayed 0xff: ${same:-none} ($(tail -1 "$tmp/check"))"
fi
syswcheck sysw kwsys_sys.tbl kw_s kw_sb 256 watch
rec sysv
vcheck sysv
tap_end values-kwsys
