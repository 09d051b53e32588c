// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Is a stack address the thread's own stack, as the kernel or the thread
 * library made it (review 11, finding 1; docs/values.md, "A stack that
 * is a C object")?  The callee argument (rcv_callee.c) and the pushes
 * kept to the end (rcv_stkeep.c rcv_stk_end_keeps(), read by rcv_mem.c's
 * end_kept() and end_own()) rest on "only rsp-derived pointers reach the
 * memory under the callee's entry rsp".  False when the stack lies in a
 * C object the program addresses (a global array run as a clone stack
 * or switched to with `mov ..., %rsp`, a buffer in the brk heap, a
 * local array of another thread's frame): a pointer into that object,
 * made from a symbol or loaded from memory, reaches under the entry.
 *
 * So the rules hold only at addresses in a mapping (the snapshot's, of
 * the thread's process) that no C object the program names lies in:
 *   - the kernel's [stack], for the process's first thread alone (its
 *     tid is the pid: the thread exec started on; another thread there
 *     runs on an array in a frame of the first);
 *   - for any other thread, a private anonymous writable mapping with
 *     no name ([heap], the brk area, is named) that does not follow a
 *     file mapping end to end (an image's .bss past its file's last
 *     page is such an anonymous mapping, the loader's).  glibc's thread
 *     stacks are mmap'd anonymous with a guard page under them.
 * The first thread's rsp in any other mapping, or another thread's in
 * [stack], in the image, in the heap: no rule there (a stack switch).
 * What stays an assumption (docs/values.md): a stack in an anonymous
 * mmap the program addresses as an object (a coroutine stack malloc
 * got from mmap, a sigaltstack buffer in one, a raw clone's stack
 * argument there), and a glibc thread stack a thread rewrites after
 * finding it with pthread_getattr_np; strict mode takes neither rule.
 * The mapping is the snapshot's: without one for the process, no rule.
 */
#include <string.h>

#include "rcv_internal.h"
#include "rcv_win.h"
#include "replay.h"

/* Does @a lie in a mapping no C object of the program lies in? */
static bool own_map(struct rp_recover *rc, uint64_t a, uint64_t *lo,
		    uint64_t *hi)
{
	struct rp_snap_map_info mi;
	uint64_t prev_end = 0;
	bool prev_file = false;
	size_t k;

	*lo = a;
	*hi = a + 1;
	for (k = 0; !rp_snapshot_proc_map(rc->sn, rc->pid, k, &mi); k++) {
		if (a < mi.start || a >= mi.end) {
			prev_end = mi.end;
			prev_file = mi.path[0] && mi.path[0] != '[';
			continue;
		}
		*lo = mi.start;
		*hi = mi.end;
		if ((mi.prot & 10) != 2)	/* writable, not shared */
			return false;
		if (!strcmp(mi.path, "[stack]"))
			return rc->tid == rc->pid;
		/* An image's .bss (the file's mapping right under it). */
		return !mi.path[0] && rc->tid != rc->pid &&
		       !(prev_file && prev_end == mi.start);
	}
	return false;
}

bool rcv_own_stack(struct rp_recover *rc, uint64_t a)
{
	if (!rc->sn)
		return false;
	if (!(rc->own_valid && rc->own_lo <= a && a < rc->own_hi)) {
		rc->own_ok = own_map(rc, a, &rc->own_lo, &rc->own_hi);
		rc->own_valid = true;
	}
	return rc->own_ok;
}
