#!/bin/sh
# The kernel's writes between two instructions stop watchpoints (#18,
# replay/watch_kern.c; tests/gdb/watchkern.c):
#  - a signal's delivery: the kernel writes the handler's frame (return
#    address, ucontext, siginfo, FPU state) at the handler's first stack
#    pointer, on the alternate stack (a global array) or on the normal
#    stack.  From the handler's third instruction, reverse-continue with
#    `watch -l si->si_signo` stops right before the handler's first
#    instruction (after kill's system call), in watch-unknown stop and
#    skip, saying the kernel wrote the frame there; the truth is the
#    program's own: the handler's second argument points there and the
#    program prints the signal number read from it.
#  - the thread's rseq area (glibc's registration): reverse-continue from
#    the end with a watchpoint on its cpu_id stops with "may have
#    written" naming the rseq area (watch-unknown stop), and passes it
#    with skip; a watchpoint on its flags word (the kernel only reads it)
#    never stops for it.
#  - rt_sigreturn writes no user memory: no "may have written" stop at it
#    (watch-unknown stack, both directions).
set -u
: "${PTREC:?}" "${KERNPROG:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
tap_begin gdb-watchkern

rm -rf "$tmp/wk"
"$PTREC" record -q -o "$tmp/wk" -- "$KERNPROG" >"$tmp/wk.out" 2>"$tmp/log"
ins=$("$PTREC" insns "$tmp/wk" 2>/dev/null)

# gdbrun OUT ARGS...: ptrec replay in batch mode with the -ex ARGS.
gdbrun() {
	o=$1
	shift
	timeout 300 "$PTREC" replay "$tmp/wk" -batch -ex "set pagination off" \
		"$@" >"$o" 2>&1
}

# pos OUT: the last position GDB printed after the @@rc marker.
pos() {
	sed -n '/^@@rc/,$p' "$1" |
		sed -n 's/.*position \([0-9]*\) of.*/\1/p' | tail -1
}

if ! grep -q '^signo 10 12 ' "$tmp/wk.out"; then
	bad "watchkern: not recorded ($(cat "$tmp/wk.out"))"
else
	for v in alt norm; do
		h=$(echo "$ins" | grep -m1 "<h_$v+0>" | cut -f1)
		for mode in stop skip; do
			gdbrun "$tmp/g.out" -ex "set ptrec watch-unknown $mode" \
				-ex "ptrec goto end" \
				-ex "watch -l si_$v->si_signo" \
				-ex "ptrec goto $((h + 2))" -ex "echo @@rc\n" \
				-ex "reverse-continue" -ex "ptrec position"
			p=$(pos "$tmp/g.out")
			if [ -n "$h" ] && [ "$p" = $((h - 1)) ] &&
			    grep -q 'the kernel wrote 440 bytes at .* delivering a signal' \
				"$tmp/g.out"; then
				ok "si_$v->si_signo ($mode): reverse-continue from the handler stops at its delivery ($p), the kernel's frame"
			else
				cp "$tmp/g.out" "$tmp/log"
				bad "si_$v->si_signo ($mode): reverse-continue from $((h + 2)) stops at ${p:-?}, not at the delivery $((h - 1))"
			fi
		done
	done
	# rt_sigreturn reads the frame and writes no user memory (a
	# delivery at its return is a delivery of its own, recorded): with
	# watch-unknown stack and an 8-byte watch on the siginfo, reverse-
	# continue from after the handler's rt_sigreturn stops at the
	# delivery, and continue from the handler's entry passes it (both
	# stopped at rt_sigreturn with "the system call ... may have written
	# 8 bytes" before).
	for v in alt norm; do
		h=$(echo "$ins" | grep -m1 "<h_$v+0>" | cut -f1)
		sr=$(echo "$ins" | awk -F'\t' -v h="${h:-0}" \
			'$1 + 0 > h + 0 && /<__restore_rt\+[0-9]*>:.*syscall/ {
				print $1; exit }')
		gdbrun "$tmp/g.out" -ex "set ptrec watch-unknown stack" \
			-ex "ptrec goto end" -ex "watch -l *(long *)si_$v" \
			-ex "ptrec goto $((${sr:-0} + 2))" -ex "echo @@rc\n" \
			-ex "reverse-continue" -ex "ptrec position"
		p=$(pos "$tmp/g.out")
		if [ -n "$h" ] && [ -n "$sr" ] && [ "$p" = $((h - 1)) ] &&
		    ! grep -q 'system call at' "$tmp/g.out"; then
			ok "si_$v (stack, 8 bytes): reverse-continue from after rt_sigreturn ($sr) stops at the delivery ($p)"
		else
			cp "$tmp/g.out" "$tmp/log"
			bad "si_$v (stack, 8 bytes): reverse-continue from $((${sr:-0} + 2)) stops at ${p:-?}, not at the delivery $((${h:-0} - 1)) (rt_sigreturn at ${sr:-?})"
		fi
		gdbrun "$tmp/g.out" -ex "set ptrec watch-unknown stack" \
			-ex "ptrec goto end" -ex "watch -l *(long *)si_$v" \
			-ex "ptrec goto $h" -ex "echo @@rc\n" \
			-ex "continue" -ex "ptrec position"
		p=$(pos "$tmp/g.out")
		if [ -n "$p" ] && [ -n "$sr" ] && [ "$p" -gt $((sr + 1)) ] &&
		    ! grep -q 'system call at' "$tmp/g.out"; then
			ok "si_$v (stack, 8 bytes): continue from the handler passes rt_sigreturn ($sr; stop at $p)"
		else
			cp "$tmp/g.out" "$tmp/log"
			bad "si_$v (stack, 8 bytes): continue from $h stops at ${p:-?}, at or before rt_sigreturn ${sr:-?}"
		fi
	done
	if grep -q ' rseq 1$' "$tmp/wk.out"; then
		gdbrun "$tmp/g.out" -ex "ptrec goto end" \
			-ex "watch -l *(int *)rseq_cpu" -ex "echo @@rc\n" \
			-ex "reverse-continue" -ex "ptrec position"
		if grep -q "may have written the watched 4 bytes at .*rseq area" \
			"$tmp/g.out"; then
			ok "rseq cpu_id (stop): reverse-continue stops where the kernel may have rewritten it ($(pos "$tmp/g.out"))"
		else
			cp "$tmp/g.out" "$tmp/log"
			bad "rseq cpu_id (stop): no stop naming the rseq area"
		fi
		gdbrun "$tmp/g.out" -ex "set ptrec watch-unknown skip" \
			-ex "ptrec goto end" -ex "watch -l *(int *)rseq_cpu" \
			-ex "echo @@rc\n" -ex "reverse-continue" \
			-ex "ptrec position"
		if ! grep -q "rseq area" "$tmp/g.out"; then
			ok "rseq cpu_id (skip): the kernel's possible rewrites do not stop"
		else
			cp "$tmp/g.out" "$tmp/log"
			bad "rseq cpu_id (skip): stopped for the rseq area"
		fi
		gdbrun "$tmp/g.out" -ex "ptrec goto end" \
			-ex "watch -l *(int *)(rseq_cpu + 12)" -ex "echo @@rc\n" \
			-ex "reverse-continue" -ex "ptrec position"
		if ! grep -q "rseq area" "$tmp/g.out"; then
			ok "rseq flags (stop): never a stop for the rseq area (the kernel only reads it)"
		else
			cp "$tmp/g.out" "$tmp/log"
			bad "rseq flags (stop): stopped for the rseq area"
		fi
	else
		ok "rseq: # SKIP glibc registers no rseq area here"
	fi
fi
tap_end gdb-watchkern
