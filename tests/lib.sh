# Shared by the test scripts (sourced): TAP output, a scratch directory,
# and where the real hardware traces are.
#
#   tap_begin NAME     $tmp: a scratch directory, removed at exit;
#                      HOME and XDG_CACHE_HOME (the index key) in it
#   ok DESC / bad DESC one TAP line; bad also shows the tail of $tmp/log
#                      (or of $tap_log when set)
#   check DESC CMD     CMD succeeds
#   fails DESC PAT CMD CMD fails (exit 1 or 2) and prints PAT
#   tap_end SUITE      the plan line; exit status 1 if anything failed
#   find_real_pt       $real: shared/testdata/real-pt/dynamorio, or ""
#   traced PID         waits until PID is ptrace'd (a recorder attached)
#   vfork_holder OUT   starts $PROGS/faithful vforkhold (output in OUT):
#                      $vh its pid, $vc its vfork child's once it exists

# shellcheck disable=SC2034 # variables are for the sourcing script
n=0
fails=0

tap_begin() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptrec-$1-XXXXXX")
	# shellcheck disable=SC2064 # expand $tmp now
	trap "rm -rf '$tmp'" EXIT
	# The index cache's key (replay/idxcache.c) in the scratch directory,
	# not ~/.cache: with HOME unset or not writable (a CI user) there is
	# no key, no index is saved and the cache tests fail; and a suite
	# must not leave files in the user's home.
	XDG_CACHE_HOME=$tmp/cache
	# A home of its own: ptrec replay starts GDB without -nx (a user's
	# settings apply), so GDB read the runner's ~/.gdbinit and
	# ~/.config/gdb/gdbinit, and `set print pretty on` there made every
	# replay-versus-core comparison differ; perf reads ~/.perfconfig.
	mkdir -p "$tmp/home"
	HOME=$tmp/home
	XDG_CONFIG_HOME=$tmp/home/.config
	export XDG_CACHE_HOME HOME XDG_CONFIG_HOME
	# ptrec-server computes value windows while GDB is silent for 10
	# ms (rp_recover_prefetch()); windows computed that way also teach
	# the ones after them, so what a GDB test sees could depend on the
	# runner's speed.  Off in the suites; tests/gdb/values.sh turns it
	# on where it asserts only "nothing wrong" and lower bounds.
	PTREC_NO_PREFETCH=1
	export PTREC_NO_PREFETCH
}

ok() { n=$((n + 1)); echo "ok $n - $1"; }

bad() {
	n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"
	[ -f "${tap_log:-$tmp/log}" ] &&
		sed 's/^/#   /' "${tap_log:-$tmp/log}" | tail -25
}

# check DESC CMD...: CMD must succeed.
check() { d=$1; shift; if "$@" >"$tmp/log" 2>&1; then ok "$d"; else bad "$d"; fi; }

# fails DESC PATTERN CMD...: CMD must exit 1 or 2 (an error, not a crash)
# and print PATTERN.
fails() {
	d=$1; p=$2; shift 2
	"$@" >"$tmp/log" 2>&1
	rc=$?
	if [ "$rc" -ge 1 ] && [ "$rc" -le 2 ] && grep -q -- "$p" "$tmp/log"; then
		ok "$d"
	else
		echo "exit status $rc" >>"$tmp/log"
		bad "$d"
	fi
}

tap_end() {
	echo "1..$n"
	[ "$fails" -eq 0 ] || { echo "$fails of $n $1 tests failed"; exit 1; }
}

# Real hardware traces are shared data, not part of the repository.
find_real_pt() {
	real=""
	for d in "${PTREC_TESTDATA:-}" "$testlib_dir/../../shared/testdata" \
		/work/shared/testdata; do
		if [ -n "$d" ] && [ -d "$d/real-pt/dynamorio" ]; then
			real=$d/real-pt/dynamorio
			return 0
		fi
	done
}

# xdc_pages DIR: libxdc's page dump in DIR (data.addr, an array of
# little-endian u64 page addresses; data.dump, the pages in that order) as
# an --images list, one PATH ADDRESS OFFSET SIZE line per page
# (shared/testdata/real-pt/README.md).
xdc_pages() {
	od -An -v -t x8 -w8 "$1/data.addr" |
		awk -v d="$1/data.dump" '{ printf "%s 0x%s %d 4096\n", d, $1, (NR - 1) * 4096 }'
}

# traced PID: waits (up to 60 s) until PID is traced, which `ptrec record
# -p PID` does after it set its SIGINT handler: a signal sent then stops
# the recording.  A fixed sleep instead was overrun on a slow or loaded
# machine, and the SIGINT (ignored by a background job until ptrec sets
# its handler) was lost: the recorder ran for ever.
traced() {
	traced_i=0
	while [ $traced_i -lt 600 ]; do
		traced_t=$(sed -n 's/^TracerPid:[[:space:]]*//p' \
			"/proc/$1/status" 2>/dev/null)
		[ -n "$traced_t" ] && [ "$traced_t" != 0 ] && return 0
		sleep 0.1
		traced_i=$((traced_i + 1))
	done
	return 1
}

vfork_holder() {
	"$PROGS/faithful" vforkhold >"$1" 2>&1 &
	vh=$!
	vc=''
	i=0
	while [ -z "$vc" ] && [ $i -lt 100 ]; do
		vc=$(pgrep -P "$vh")
		[ -n "$vc" ] || sleep 0.05
		i=$((i + 1))
	done
}
