#!/bin/sh
# Review 16's cases (tests/values/review16.c): `make values-review16`
# (in make check; about 2 minutes).  They attack session 16's start of a
# launched recording (record/emu_start.c): tasks a constructor makes
# before main run untraced until main, where each thread is stopped by
# a SIGSTOP the recorder sends and then suppresses.  The program's
# output and exit status recorded must be what they are untraced, the
# recording end in its time limit, valcheck say 0 wrong.
# Findings on lead df9eb35 (details in the review's report):
#
# spawn8 (recorder, HUNG): 8 constructor threads creating threads in a
# loop.  A thread stopped at a clone event on its way to the recorder's
# SIGSTOP: pre_child() took its child's first stop and left it there,
# then pre_halt() waited for that child's stop again, for ever.  The
# recorder also ignored timeout's SIGTERM there (SIGKILL ends it).
# vforkwait (recorder, HUNG): a constructor thread in vfork at main, its
# child reading a pipe main writes.  The vfork parent's wait is killable
# only: the recorder's SIGSTOP stops it when the child has exited, which
# waits for main, which waits for the recorder.  Now a thread found
# waiting there (uninterruptible, in vfork, clone or clone3) is taken
# at that stop, as a new thread's first (pre_wait()).
# epoll, sigwait (recorder fidelity): a constructor thread blocked in
# epoll_wait or sigwaitinfo at main.  The kernel fails those calls with
# EINTR on a stop signal (signal(7)): the program saw -4 recorded, 1 and
# 10 untraced.  Now the call is made again (pre_eintr()).
# cont (recorder fidelity, TODO): a SIGCONT pending (blocked) at main is
# lost recorded: sending a stop signal discards every pending SIGCONT of
# the process (the kernel's prepare_signal()).  Not fixed: sent again by
# the recorder, its siginfo would not be the program's.
# kill, restart (values, WRONG: 5 on kill, a race: 1 recording in about
# 15): a process-directed signal wakes main in nanosleep and another
# thread takes it; the kernel restarts main's call.  The recorder wrote
# the call's REGS record at the step's report, rax -516
# (ERESTART_RESTARTBLOCK, before the restart), with no SIGNAL record of
# main after it that would make rcv_sysret_regs() drop it: rax -516
# where the truth is 0.  Now no REGS record has rax -512 to -516, the
# kernel's own codes (restart: 30 such records before, every run).
# exec (a constructor's execve): the recording fails ("ended before
# reaching the start address"), the program's output as untraced; not
# a case here.  threxec, read, nsleep, spawn, forker, fork8, spin, exit,
# kill, many, spawnp, vfork, ctorsig (a signal to each new thread the
# constructor makes, before its first instruction or not); epoll,
# sigwait, many with --start-at r16_later; spawn8, many, kill under
# PTREC_EMU_TEST_LATE_CLONE: as untraced, 0 wrong.
# Session 17:
# ctorsleep, ctorbusy (recorder): SIGTERM (and SIGINT) to ptrec record
# while the program's constructor keeps main away for 30 s (asleep;
# ctorbusy with a thread making threads all that time).  The start
# (record/emu_start.c run_to(), pre_halt()) never looked at the stop
# flag: ctorbusy recorded on until main came (29 s), ctorsleep failed
# at once with "waitpid: Interrupted system call" (a signal while
# waitpid(2) blocked), or waited for main when it came just before the
# call.  Now ptrec record ends within a tick (100 ms) with "stopped by
# a signal before ... reached the start address", exit status 1, the
# program killed and no bundle left, as for a program that ends before
# its start (docs/recorder.md).
# zero (tools): a bundle where the constructor's thread has 0
# instructions (--max-insns 5: it waits in read(2) at main); watchtruth
# --check exited 2 with no message (rp_cursor_new() refuses an empty
# thread).  Now it names the bundle and the thread, and checks the rest.
# REVIEW16_MODES="a b" runs some cases only.
set -u
: "${PTREC:?}" "${VALCHECK:?}" "${REVIEW16:?}" "${WATCHTRUTH:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
RV_PROG=$REVIEW16 RV_NAME=review16.c RV_TAG=r16
. "$here/review_lib.sh"
tap_begin values-review16
export VALCHECK_CONFLICTS=0 VALCHECK_BITS=1

# case MODE TAG [PTREC-OPTIONS]: records MODE (as TAG) in 60 s at most;
# its output and exit status as untraced, then its values.
case16() {
	m=$1 tag=$2
	shift 2
	want=$("$RV_PROG" $m 2>&1; echo "exit $?")
	rm -rf "${tmp:?}/$tag"
	got=$(LD_BIND_NOW=1 timeout -s KILL 60 "$PTREC" record \
		--ground-truth -q -o "$tmp/$tag" "$@" -- "$RV_PROG" $m \
		2>"$tmp/log"; echo "exit $?")
	if [ "$got" = "exit 137" ]; then
		bad "$RV_NAME $tag: the recording hung (killed after 60 s)"
		return 1
	fi
	if [ "$got" = "$want" ]; then
		ok "$RV_NAME $tag: as untraced ($(echo $want))"
	else
		bad "$RV_NAME $tag: recorded '$(echo $got)', untraced '$(echo $want)'"
	fi
	vcheck $tag
}

# stop16 MODE SIG: SIG to ptrec record 0.5 s after the program started
# (main comes after 30 s); it must end within 10 s, with the documented
# error, the program gone and no bundle.
stop16() {
	m=$1 sig=$2
	rm -rf "${tmp:?}/$m"
	"$PTREC" record -q -o "$tmp/$m" -- "$RV_PROG" $m >"$tmp/$m.out" \
		2>"$tmp/log" &
	rp=$!
	i=0
	while [ $i -lt 100 ] && ! pgrep -P $rp >/dev/null; do
		sleep 0.05
		i=$((i + 1))
	done
	prog=$(pgrep -P $rp)
	sleep 0.5
	t0=$(date +%s%N)
	kill -$sig $rp
	i=0
	while [ $i -lt 100 ] && kill -0 $rp 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 $rp 2>/dev/null; then
		kill -KILL $rp
		wait $rp
		bad "$RV_NAME $m: SIG$sig to ptrec record ignored for 10 s before main"
		return
	fi
	wait $rp
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	left=
	[ -n "$prog" ] && kill -0 $prog 2>/dev/null && left=" (left running)"
	if [ $rc = 1 ] && [ -z "$left" ] && [ -n "$prog" ] &&
	   [ ! -e "$tmp/$m" ] &&
	   grep -q "stopped by a signal before .* reached the start address" \
		"$tmp/log"; then
		ok "$RV_NAME $m: SIG$sig before main ends ptrec record in $ms ms (exit 1, the program killed, no bundle)"
	else
		bad "$RV_NAME $m: SIG$sig before main: exit $rc in $ms ms, program ${prog:-not seen}$left, bundle $([ -e "$tmp/$m" ] && echo left || echo none), said '$(cat "$tmp/log")'"
	fi
}

all="spawn8 vforkwait epoll sigwait restart cont threxec ctorsig read nsleep
spawn forker fork8 spin exit kill many spawnp vfork startat late stop zero"
for mode in ${REVIEW16_MODES:-$all}; do
	case $mode in
	spawn8)
		# A race (the clone event pending at the start): 3 times.
		for i in 1 2 3; do
			case16 spawn8 spawn8 || break
		done
		;;
	restart)
		case16 restart restart
		nr=$("$PTREC" dump "$tmp/restart" 2>/dev/null |
			grep -c 'syscall rax 0xfffffffffffff\(e0[0-4]\|dfc\) ')
		if [ "$nr" = 0 ]; then
			ok "$RV_NAME restart: no REGS record with a restart code in rax"
		else
			bad "$RV_NAME restart: $nr REGS records with a restart code (-512 to -516) in rax"
		fi
		;;
	cont)
		want=$("$RV_PROG" cont 2>&1)
		rm -rf "${tmp:?}/cont"
		got=$(timeout -s KILL 60 "$PTREC" record -q -o "$tmp/cont" \
			-- "$RV_PROG" cont 2>"$tmp/log")
		if [ "$got" = "$want" ]; then
			ok "$RV_NAME cont: a pending SIGCONT kept ($got)"
		else
			ok "$RV_NAME cont: # TODO a pending SIGCONT lost at the start ('$got', untraced '$want')"
		fi
		;;
	stop)
		stop16 ctorsleep TERM
		stop16 ctorbusy TERM
		stop16 ctorbusy INT
		;;
	zero)
		rm -rf "${tmp:?}/zero"
		timeout -s KILL 60 "$PTREC" record --ground-truth -q \
			--max-insns 5 -o "$tmp/zero" -- "$RV_PROG" read \
			>/dev/null 2>"$tmp/log"
		tid=$("$PTREC" info "$tmp/zero" 2>/dev/null |
			sed -n 's/^ *thread \([0-9]*\) .*: 0 instructions,.*/\1/p' |
			head -1)
		if [ -z "$tid" ]; then
			bad "$RV_NAME zero: no thread of 0 instructions in the bundle ($(cat "$tmp/log"))"
			continue
		fi
		timeout 300 "$WATCHTRUTH" --check "$tmp/zero" >"$tmp/res" 2>&1
		rc=$?
		if [ $rc = 0 ] &&
		   grep -q "^$tmp/zero thread $tid: 0 instructions, nothing to check" \
			"$tmp/res" &&
		   grep -q "missed 0, wrong 0" "$tmp/res"; then
			ok "$RV_NAME zero: watchtruth --check names thread $tid (0 instructions) and checks the rest"
		else
			bad "$RV_NAME zero: watchtruth --check exit $rc on a thread of 0 instructions: '$(head -c 400 "$tmp/res")'"
		fi
		vcheck zero
		;;
	startat)
		for m in epoll sigwait many; do
			case16 $m $m-startat --start-at r16_later
		done
		;;
	late)
		for m in spawn8 many kill; do
			PTREC_EMU_TEST_LATE_CLONE=1 case16 $m $m-late
		done
		;;
	*)
		case16 $mode $mode
		;;
	esac
done
tap_end values-review16
