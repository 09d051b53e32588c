// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kernel-write table's calls whose writes the memory they are given
 * decides (issue #18; rcv_sys.c asks, for watchpoints only: the values
 * engine's index is what rcv_mem_range() reads, so it keeps them
 * barriers): clone's and clone3's tid words, capget's data, getsockopt's
 * value, recvmsg's msghdr and buffers.  Split from rcv_sys.c, which had
 * grown past 1,000 lines.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rcv_internal.h"
#include "rcv_win.h"

/* [register @g, + @l) when @g is known: 1, else -1. */
static int mem_at(const struct rcv_state *s, int g, uint64_t l,
		  uint64_t *addr, uint64_t *len)
{
	if (s->r[g].k != ~0ull)
		return -1;
	*addr = s->r[g].v;
	*len = l;
	return 1;
}

/*
 * recvmsg(fd, msg, flags) (net/socket.c ____sys_recvmsg()), from its
 * struct msghdr (name 0, namelen 8, iov 16, iovlen 24, control 32,
 * controllen 40, flags 48) and iovecs as the values know them: the
 * address at name (at most 128 bytes) and its length word, each iovec's
 * buffer, the control buffer (at most controllen), and controllen and
 * flags (12 bytes at 40), each a write that may happen (it writes what
 * it received).  -1 when more than @max or not known.
 */
static int sys_recvmsg(struct win *w, size_t i, uint64_t *addr,
		       uint64_t *len, size_t max)
{
	const struct rcv_state *s = &w->st[i];
	uint64_t h[6], v[2 * RCV_SYS_OUTS], m = s->r[RP_REG_RSI].v, k;
	size_t n = 0;

	if (s->r[RP_REG_RSI].k != ~0ull ||
	    rcv_mem_range(w, i, m, h, sizeof(h)) != sizeof(h) ||
	    h[3] > RCV_SYS_OUTS ||
	    (h[3] && rcv_mem_range(w, i, h[2], v, 16 * h[3]) != 16 * h[3]))
		return -1;
	if (h[0]) {
		addr[n] = h[0];
		len[n++] = ((uint32_t)h[1] < 128 ? (uint32_t)h[1] : 128) |
			   RCV_SYS_MAYBE;
		addr[n] = m + 8;
		len[n++] = 4 | RCV_SYS_MAYBE;
	}
	for (k = 0; k < h[3]; k++) {
		if (!v[2 * k + 1])
			continue;
		if (n == max || v[2 * k + 1] > 65536)
			return -1;
		addr[n] = v[2 * k];
		len[n++] = v[2 * k + 1] | RCV_SYS_MAYBE;
	}
	if (h[4] && h[5]) {
		if (n == max || h[5] > 65536)
			return -1;
		addr[n] = h[4];
		len[n++] = h[5] | RCV_SYS_MAYBE;
	}
	if (n == max)
		return -1;
	addr[n] = m + 40;
	len[n++] = 12 | RCV_SYS_MAYBE;
	return (int)n;
}

/*
 * Calls whose writes the memory they are given decides (watchpoints only:
 * rcv_mem_range() may not be asked while the values engine builds its
 * index):
 *
 * clone(flags, stack, ptid, ctid, tls): CLONE_PARENT_SETTID and
 * CLONE_PIDFD put an int at ptid in the parent (kernel/fork.c
 * kernel_clone(), copy_process()); CLONE_CHILD_SETTID puts the child's
 * tid at ctid in the child before its first instruction
 * (schedule_tail()), which with CLONE_VM is the parent's memory too:
 * named here, at the clone that makes it (it lands between the clone and
 * the child's first instruction).  clone3(args, size): the same from
 * struct clone_args (flags at 0, pidfd 8, child_tid 16, parent_tid 24;
 * include/uapi/linux/sched.h; set_tid is only read).
 *
 * capget(hdr, data): the data (struct __user_cap_data_struct, 12 bytes,
 * one for _LINUX_CAPABILITY_VERSION_1, two for _2 and _3) when data is not
 * NULL, and for any other version the kernel's version at hdr (4 bytes)
 * and no data (kernel/capability.c cap_validate_magic()).
 */
int rcv_sys_mem_args(struct win *w, size_t i, uint64_t nr, uint64_t *addr,
		      uint64_t *len, size_t max)
{
	const struct rcv_state *s = &w->st[i];
	uint64_t f, a[4], ptid, ctid, pfd = 0;
	uint32_t v;
	size_t n = 0, k;

	if (nr == 47)
		return sys_recvmsg(w, i, addr, len, max);
	if (nr == 55) {
		/* getsockopt(fd, level, name, val, vlen): at most *vlen
		 * bytes at val, the length (an int) at vlen
		 */
		if (s->r[RP_REG_R10].k != ~0ull ||
		    s->r[RP_REG_R8].k != ~0ull || max < 2 ||
		    !s->r[RP_REG_R8].v)
			return -1;
		if (rcv_mem_range(w, i, s->r[RP_REG_R8].v, &v, 4) != 4 ||
		    (int32_t)v < 0 || v > 65536)
			return -1;
		if (v) {
			addr[n] = s->r[RP_REG_R10].v;
			len[n++] = (uint64_t)v | RCV_SYS_MAYBE;
		}
		addr[n] = s->r[RP_REG_R8].v;
		len[n++] = 4 | RCV_SYS_MAYBE;
		return (int)n;
	}
	if (s->r[RP_REG_RDI].k != ~0ull)
		return -1;
	if (nr == 125) {
		if (rcv_mem_range(w, i, s->r[RP_REG_RDI].v, &v, 4) != 4)
			return -1;
		if (v != 0x19980330 && v != 0x20071026 && v != 0x20080522)
			return mem_at(s, RP_REG_RDI, 4, addr, len);
		if (s->r[RP_REG_RSI].k != ~0ull)
			return -1;
		if (!s->r[RP_REG_RSI].v)
			return 0;
		return mem_at(s, RP_REG_RSI, v == 0x19980330 ? 12 : 24, addr,
			      len);
	}
	if (nr == 56) {
		f = s->r[RP_REG_RDI].v;
		ptid = s->r[RP_REG_RDX].v;
		ctid = s->r[RP_REG_R10].v;
		/* CLONE_VM, CLONE_PIDFD, PARENT_SETTID, CHILD_SETTID */
		if ((s->r[RP_REG_RDI].k & 0x01101100) != 0x01101100 ||
		    ((f & 0x00101000) && s->r[RP_REG_RDX].k != ~0ull) ||
		    ((f & 0x01000100) == 0x01000100 &&
		     s->r[RP_REG_R10].k != ~0ull))
			return -1;
		pfd = ptid;
	} else {
		if (s->r[RP_REG_RSI].k != ~0ull || s->r[RP_REG_RSI].v < 32 ||
		    rcv_mem_range(w, i, s->r[RP_REG_RDI].v, a, 32) != 32)
			return -1;
		f = a[0];
		pfd = a[1];
		ctid = a[2];
		ptid = a[3];
	}
	if (f & 0x1000)				/* CLONE_PIDFD */
		a[n++] = pfd;
	/* CLONE_PARENT_SETTID (clone's at the same ptid as a pidfd) */
	if ((f & 0x00100000) && (nr == 435 || !(f & 0x1000)))
		a[n++] = ptid;
	if ((f & 0x01000100) == 0x01000100)	/* CHILD_SETTID, VM */
		a[n++] = ctid;
	if (n > max)
		return -1;
	for (k = 0; k < n; k++) {
		addr[k] = a[k];
		len[k] = 4;
	}
	return (int)n;
}
