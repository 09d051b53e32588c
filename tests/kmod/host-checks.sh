# Sourced by run.sh after the guest ran: checks of the traces the guest
# brought back in $1, with kqcheck (TAP lines without numbers, numbered by
# relay()).

host_checks() {
	res=$1
	[ -f "$res/work/rc" ] || return 0
	if [ -z "${KQ_CHECK:-}" ] || [ ! -x "$KQ_CHECK" ]; then
		rm -f "$tmp/log"
		bad "host: kqcheck missing"
		return 0
	fi
	for t in work fork exits keep ring stop lag detach single foreignlate \
		vmx hotplug cr3filter cr3pip contend; do
		[ -f "$res/$t/rc" ] || continue
		if [ "$(cat "$res/$t/rc")" != 0 ]; then
			# the guest already failed it; say why once more
			echo "# $t: kqtrace exit $(cat "$res/$t/rc"):"
			sed 's/^/#   /' "$res/$t/log" | tail -5
		fi
		case $t in
		work) opts="--worklog $res/work/worklog" ;;
		fork) opts="--worklog $res/fork/worklog --fork" ;;
		keep) opts="--no-loss" ;;
		ring | single) opts="--ring" ;;
		stop) opts="--stop" ;;
		lag) opts="--lag" ;;
		exits) opts="--exits $res/exits/exitlog" ;;
		detach) opts="--detached" ;;
		cr3filter) opts="--cr3filter" ;;
		cr3pip) opts="--pip" ;;
		*) opts="" ;;
		esac
		# shellcheck disable=SC2086 # options are words
		"$KQ_CHECK" "$t" "$res/$t" $opts >"$tmp/check" 2>&1
		relay <"$tmp/check"
	done
	# a traced process was left running at power-off: the simulated
	# unit's reboot notifier (it runs last) reports CPUs still tracing
	if grep -q 'left kqwork traced for the power-off check' "$res/guest.tap"
	then
		line=$(grep -a 'ptrec: sim: reboot:' "$tmp/console.log" | tail -1)
		case $line in
		*"reboot: 0 of"*) r=ok ;;
		*) r="not ok" ;;
		esac
		# through relay(), which knows tests/kmod/todo
		printf '%s - %s\n#   %s\n' "$r" \
			"power-off: ptrec stopped its tracing on every CPU before the reboot" \
			"${line:-(no report of the simulated unit on the console)}" \
			>"$tmp/check"
		relay <"$tmp/check"
	fi

	# ptrec record --backend=kmod in the guest: the bundle
	for b in rec recp recint recstop recfork; do
		[ -d "$res/$b" ] || continue
		case $b in
		rec) opts="--worklog $res/rec.worklog" ;;
		recint) opts="--detached" ;;
		# -p PID: threads ran, and counted PTWRITEs, before the attach
		recp) opts="--attached" ;;
		recstop) opts="--stop" ;;
		recfork) opts="--fork --worklog $res/recfork.worklog" ;;
		*) opts="" ;;
		esac
		# shellcheck disable=SC2086 # options are words
		"$KQ_CHECK" "$b" "$res/$b" --bundle $opts >"$tmp/check" 2>&1
		relay <"$tmp/check"
		[ -n "${KQ_PTREC:-}" ] || continue
		if "$KQ_PTREC" info "$res/$b" >"$tmp/log" 2>&1 &&
			grep -q '^backend:  kmod (emulated PT)' "$tmp/log"; then
			ok "$b: ptrec info reads the bundle ptrec record --backend=kmod wrote in the guest"
		else
			bad "$b: ptrec info reads the bundle ptrec record --backend=kmod wrote in the guest"
		fi
		if "$KQ_PTREC" dump "$res/$b" >"$tmp/dump" 2>"$tmp/log" &&
			grep -q SWITCH_IN "$tmp/dump" &&
			grep -q MMAP "$tmp/dump"; then
			ok "$b: ptrec dump shows the bundle's switch and mmap records"
		else
			cp "$tmp/dump" "$tmp/log" 2>/dev/null
			bad "$b: ptrec dump shows the bundle's switch and mmap records"
		fi
	done
	# ptrec.ko's system call REGS records of kqsys, with ptrec dump
	if [ -d "$res/recsys" ] && [ -n "${KQ_PTREC:-}" ]; then
		"$KQ_PTREC" dump "$res/recsys" >"$tmp/sysdump" 2>&1
		"$here/sysregs-check.sh" "$tmp/sysdump" "$res/recsys.log" \
			>"$tmp/check"
		relay <"$tmp/check"
	fi
	# the core ptrec core wrote in the guest from rec's snapshot (taken
	# at kqwork's exit): GDB here unwinds it through the program's frames
	# (kqwork is static: its libc's exit path, up to _start)
	if [ -f "$res/rec.core" ] && [ -n "${KQ_GUEST:-}" ]; then
		gdb -nx -batch -ex bt "$KQ_GUEST/kqwork" "$res/rec.core" \
			>"$tmp/log" 2>&1
		if grep -q '^#0 .* in _exit ()' "$tmp/log" &&
			grep -q '^#[0-9].* in exit ()' "$tmp/log" &&
			grep -q '^#[0-9].* in _start ()' "$tmp/log"; then
			ok "rec: GDB on the host unwinds the core ptrec core wrote in the guest from the kmod bundle's snapshot (_exit, exit, _start)"
		else
			bad "rec: GDB on the host unwinds the core ptrec core wrote in the guest from the kmod bundle's snapshot (_exit, exit, _start)"
		fi
	fi
	# the old image at its execve (#16): GDB here unwinds `ptrec core
	# --exec 0` of the guest's kmod bundle through kqexec's own frames
	if [ -f "$res/recexec.core" ] && [ -n "${KQ_GUEST:-}" ]; then
		gdb -nx -batch -ex bt -ex 'frame 1' -ex 'print argv[0]' \
			"$KQ_GUEST/kqexec" "$res/recexec.core" >"$tmp/log" 2>&1
		if grep -q '^#0 .* in [_a-z]*execve ()' "$tmp/log" &&
			grep -q '^#[0-9].* in kq_exec_inner (argv=' "$tmp/log" &&
			grep -q '^#[0-9].* in kq_exec_mid (argv=' "$tmp/log" &&
			grep -q '^#[0-9].* in kq_exec_outer (argv=' "$tmp/log" &&
			grep -q '^#[0-9].* in main (' "$tmp/log" &&
			grep -q '^\$1 = 0x[0-9a-f]* "/kq/bin/kqwork"' "$tmp/log"; then
			ok "recexec: GDB on the host unwinds ptrec core --exec 0 of the guest's kmod bundle: kqexec at its execve (execve < kq_exec_inner < kq_exec_mid < kq_exec_outer < main; argv[0] read from its stack)"
		else
			bad "recexec: GDB on the host unwinds ptrec core --exec 0 of the guest's kmod bundle: kqexec at its execve (execve < kq_exec_inner < kq_exec_mid < kq_exec_outer < main; argv[0] read from its stack)"
		fi
	fi
}
