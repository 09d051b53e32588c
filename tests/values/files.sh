# Sourced by run.sh (values-test), not run alone: memory the kernel
# writes with no store (/proc/PID/mem, process_vm_writev, rseq) and files
# (rcv_fd.c): mapped, written, shared with a process not recorded.  Split
# from run.sh along that seam; it uses run.sh's helpers and numbers its
# TAP lines in run.sh's sequence.

# The kernel writing memory with no store (replay/rcv_fd.c, docs/values.md
# "System calls"): pwrite64 to /proc/self/mem (procmem), write(2) on stdout
# while dup2 made it the memory file, put back before the end (procdup),
# on a descriptor closed and reopened on /dev/null before the end
# (procreopen), writev to it (procwritev), process_vm_writev to its own
# pid (vmwrite), a descriptor int 0x80 closes after the write (procint80:
# a system call of the 32-bit table); and the rseq_cs word of an rseq
# area the program registered itself, which the kernel clears after a
# preemption (rseq), and such an area on the stack, where a push and its
# pop span a preemption (rseqstack).  Each gave wrong values before (5,
# 10, 10, 5, -, 4, 2, 3), but vmwrite.
if [ -n "${HOLES:-}" ]; then
	for mode in procmem procdup procreopen procwritev vmwrite procint80 \
		rseq rseqstack; do
		truth_rec "h-$mode" "$HOLES" $mode
		if truth_check "h-$mode"; then
			ok "holes.c $mode: no wrong value; $(distance)"
		else
			bad "holes.c $mode: $(grep -c WRONG "$tmp/out") wrong: $(head -5 "$tmp/out" "$tmp/log")"
		fi
	done
fi

# ... while write(2) to stdout, a file never closed before the end, still
# writes no memory (holes.c stdout): r12, loaded from a global before it,
# is known right after it (4 instructions before the end).
if [ -n "${HOLES:-}" ]; then
	truth_rec "h-stdout" "$HOLES" stdout
	n_ins=$("$PTREC" info "$tmp/h-stdout" 2>/dev/null |
		sed -n 's/^  thread [0-9]* (pid [0-9]*): \([0-9]*\) instructions.*/\1/p')
	if [ -n "$n_ins" ] &&
		"$VALCHECK" "$tmp/h-stdout" >"$tmp/out" 2>&1 &&
		"$PTREC" values "$tmp/h-stdout" --at $((n_ins - 3)) >"$tmp/vals" 2>&1 &&
		grep -q '^r12 *0x0*1111$' "$tmp/vals"; then
		ok "holes.c stdout: write(2) to stdout writes no memory (r12 from the global across it); $(distance)"
	else
		bad "holes.c stdout: $(grep -c WRONG "$tmp/out") wrong; $(grep '^r12' "$tmp/vals" 2>/dev/null) ($n_ins instructions)"
	fi
fi

# Files (replay/rcv_fd.c, docs/values.md "Files"): a regular file mapped
# MAP_PRIVATE, its page never written by the process, loaded into r12,
# then written through a descriptor: pwrite64 on the one it mapped (r-x:
# the snapshot's bytes were the image store's copy, taken before the
# write), write(2) on it (rw-), writev through a hard link's path,
# pwrite64 through /proc/self/fd/N with the descriptor not known; and a
# store through a shared mapping of the file under a hard link's name
# (fshlink), or one unmapped before the end (fshgone); and the file
# written by a forked child, by pwrite64 (fchild) or a store through the
# child's own shared mapping (fchildsh), which main's history does not
# show, or before main maps it, in the middle of the history, without
# MAP_FIXED (fbefore: 0 wrong with or without the rule; the read-only
# rule's mmap edge, docs/values.md "Files").  On main (snapshot 3, files by path) each gave wrong values (4,
# 8, 4, 10, 5, 8); fchild and fchildsh 12 each with the rule removed
# (r12 given the snapshot's value).  Each file changes during the
# recording, so the snapshot (format 5) must mark its private mapping
# as changed ("[file changed]" in ptrec dump: its times are the
# recording's): before that rule, r13, loaded after the process's own
# write, was known (0x2222), which the engine can no longer tell from
# another process's write.  Files under $tmp.
if [ -n "${HOLES:-}" ]; then
	for mode in fpwrite fwrite flink fprocfd fshlink fshgone fchild \
		fchildsh fbefore; do
		(
			export TMPDIR="$tmp"
			truth_rec "h-$mode" "$HOLES" $mode
		)
		ch=$("$PTREC" dump "$tmp/h-$mode" 2>/dev/null |
			grep -c "^    map .*p [0-9a-f]* *[a-z]* *$tmp/holes[^ ]*  \\[file changed\\]\$")
		if truth_check "h-$mode" && [ "${ch:-0}" -ge 1 ]; then
			ok "holes.c $mode: no wrong value, the file marked changed; $(distance)"
		else
			bad "holes.c $mode: $(grep -c WRONG "$tmp/out") wrong, ${ch:-0} private mappings marked changed: $(head -5 "$tmp/out" "$tmp/log")"
		fi
	done
fi

# A file on tmpfs that a process not recorded stores into through a
# shared mapping whose page it had written before the recording (holes.c
# fshmext, shmwriter): no fault, so no new time; the recorder finds the
# writer's shared mapping at the snapshot and marks the file ("[file
# changed: shared on tmpfs]"): 12 wrong registers (r12) with the times
# alone.  Needs /dev/shm on tmpfs.
if [ -n "${HOLES:-}" ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]
then
	f=/dev/shm/ptrec-values-$$
	rm -f "$f" "$f.p" "$f.q" "$f.ready"
	{ printf '\021\021'; head -c 4094 /dev/zero; } >"$f"
	mkfifo "$f.p" "$f.q"
	"$HOLES" shmwriter "$f" &
	wpid=$!
	n=0
	while [ ! -f "$f.ready" ] && [ $n -lt 1000 ]; do
		sleep 0.01
		n=$((n + 1))
	done
	truth_rec h-fshmext "$HOLES" fshmext "$f"
	kill $wpid 2>/dev/null
	wait $wpid 2>/dev/null
	ch=$("$PTREC" dump "$tmp/h-fshmext" 2>/dev/null |
		grep -c "^    map .*p .* $f  \\[file changed: shared on tmpfs\\]\$")
	if truth_check h-fshmext && [ "${ch:-0}" -ge 1 ]; then
		ok "holes.c fshmext: no wrong value, the file marked shared on tmpfs; $(distance)"
	else
		bad "holes.c fshmext: $(grep -c WRONG "$tmp/out") wrong, ${ch:-0} marked: $(head -5 "$tmp/out" "$tmp/log")"
	fi
	rm -f "$f" "$f.p" "$f.q" "$f.ready"
elif [ -n "${HOLES:-}" ]; then
	ok "holes.c fshmext # SKIP /dev/shm is not tmpfs"
fi
