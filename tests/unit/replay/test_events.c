// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The trace's events (replay/events.c): which of libipt's events the index
 * pass keeps and where (status updates are none; exec mode, CR3, VMCS and
 * the core:bus ratio where they change; nothing past a worker's end), the
 * array growing in order, the binary search over positions, the operand
 * a PTWRITE reads (SDM Vol. 2B: F3 [REX.W] 0F AE /4; registers in DWARF's
 * numbering), and the texts GDB's instruction history shows.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"

static struct walk w;
static struct rp_event *evs;
static size_t nevs;

static void begin(void)
{
	memset(&w, 0, sizeof(w));
	evs = NULL;
	nevs = 0;
	w.indexing = true;
	w.evs = &evs;
	w.nevs = &nevs;
}

static void take(enum pt_event_type type, bool status, uint64_t payload)
{
	struct pt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.status_update = status;
	switch (type) {
	case ptev_exec_mode:
		ev.variant.exec_mode.mode = (enum pt_exec_mode)payload;
		break;
	case ptev_paging:
		ev.variant.paging.cr3 = payload;
		break;
	case ptev_async_paging:
		ev.variant.async_paging.cr3 = payload;
		break;
	case ptev_vmcs:
		ev.variant.vmcs.base = payload;
		break;
	case ptev_cbr:
		ev.variant.cbr.ratio = (uint16_t)payload;
		break;
	case ptev_ptwrite:
		ev.variant.ptwrite.payload = payload;
		ev.variant.ptwrite.size = 8;
		break;
	default:
		break;
	}
	cr_assert_eq(rp_event_take(&w, &ev), 0);
}

Test(events, status_updates_and_repeated_state_are_no_events)
{
	begin();
	take(ptev_enabled, true, 0);		/* PSB+ after sync */
	take(ptev_exec_mode, true, ptem_64bit);	/* first seen: no change */
	take(ptev_paging, true, 0x1000);
	take(ptev_vmcs, true, 0x2000);
	take(ptev_cbr, true, 0x10);
	cr_assert_eq(nevs, 0);
	w.pos = 5;
	take(ptev_exec_mode, false, ptem_64bit);	/* an enable repeats */
	take(ptev_paging, true, 0x1000);		/* the next PSB+ */
	take(ptev_cbr, true, 0x10);
	cr_assert_eq(nevs, 0);
	take(ptev_exec_mode, false, ptem_32bit);	/* changes */
	take(ptev_async_paging, true, 0x5000);		/* PSB+, tracing off */
	take(ptev_vmcs, true, 0x6000);
	take(ptev_cbr, false, 0x10);		/* outside a PSB+: always */
	take(ptev_disabled, false, 0);
	cr_assert_eq(nevs, 5);
	cr_assert_eq(evs[0].kind, RP_EV_EXEC_MODE);
	cr_assert_eq(evs[0].payload, 32);
	cr_assert_eq(evs[1].kind, RP_EV_PAGING);
	cr_assert_eq(evs[1].payload, 0x5000);
	cr_assert(evs[1].flags & RP_EVF_ASYNC);
	cr_assert_eq(evs[2].kind, RP_EV_VMCS);
	cr_assert_eq(evs[3].kind, RP_EV_CBR);
	cr_assert_eq(evs[4].kind, RP_EV_DISABLED);
	cr_assert_eq(evs[4].before, 5);
	free(evs);
}

Test(events, nothing_while_not_indexing_or_past_a_workers_end)
{
	begin();
	w.indexing = false;
	take(ptev_ptwrite, false, 1);
	w.indexing = true;
	w.stopped = true;
	take(ptev_ptwrite, false, 2);
	cr_assert_eq(nevs, 0);
	free(evs);
}

Test(events, many_events_keep_their_order_and_positions)
{
	uint64_t i;

	begin();
	for (i = 0; i < 1000; i++) {
		w.pos = i * 3;
		take(ptev_ptwrite, false, i);
	}
	cr_assert_eq(nevs, 1000);
	for (i = 0; i < 1000; i++) {
		cr_assert_eq(evs[i].payload, i);
		cr_assert_eq(evs[i].before, i * 3);
		cr_assert_eq(evs[i].size, 8);
	}
	free(evs);
}

Test(events, find_is_the_first_at_or_after_a_position)
{
	struct rp_event e[5] = {
		{ .before = 2 }, { .before = 2 }, { .before = 7 },
		{ .before = 9 }, { .before = 9 },
	};
	struct rp_thread t = { .tid = 42, .evs = e, .nevs = 5 };
	struct rp_session s = { .threads = &t, .nthreads = 1 };
	uint64_t counts[RP_EV_KINDS];
	struct rp_event got;

	cr_assert_eq(rp_thread_event_find(&s, 42, 0), 0);
	cr_assert_eq(rp_thread_event_find(&s, 42, 2), 0);
	cr_assert_eq(rp_thread_event_find(&s, 42, 3), 2);
	cr_assert_eq(rp_thread_event_find(&s, 42, 8), 3);
	cr_assert_eq(rp_thread_event_find(&s, 42, 10), 5);
	cr_assert_eq(rp_thread_event_find(&s, 7, 0), 0);
	cr_assert_eq(rp_thread_event(&s, 42, 4, &got), 0);
	cr_assert_eq(got.before, 9);
	cr_assert_eq(rp_thread_event(&s, 42, 5, &got), -RP_ERR_RANGE);
	cr_assert_eq(rp_thread_event(&s, 7, 0, &got), -RP_ERR_NOTHREAD);
	cr_assert_eq(rp_thread_event_counts(&s, 42, counts), 0);
	cr_assert_eq(counts[RP_EV_ENABLED], 5);	/* kind 0 */
}

static int operand(const char *hex, uint64_t ip, struct ptw_operand *op)
{
	uint8_t b[15];
	size_t n = 0;
	unsigned int v;

	while (*hex && sscanf(hex, "%2x", &v) == 1) {
		b[n++] = (uint8_t)v;
		hex += 2;
		while (*hex == ' ')
			hex++;
	}
	return rp_ptwrite_operand(b, n, ip, op);
}

Test(events, ptwrite_operands)
{
	struct ptw_operand op;

	/* ptwriteq 0x2e8d(%rip), 9 bytes */
	cr_assert_eq(operand("f3 48 0f ae 25 8d 2e 00 00", 0x11ca, &op), 0);
	cr_assert_eq(op.kind, PTW_RIP);
	cr_assert_eq(op.addr, 0x11ca + 9 + 0x2e8d);
	/* ptwritel -0x10(%rip), 8 bytes */
	cr_assert_eq(operand("f3 0f ae 25 f0 ff ff ff", 0x2000, &op), 0);
	cr_assert_eq(op.addr, 0x2000 + 8 - 0x10);
	/* registers, in DWARF's numbers: rax 0, rdi 5, r9 9 */
	cr_assert_eq(operand("f3 48 0f ae e0", 0, &op), 0);
	cr_assert(op.kind == PTW_REG && op.reg == 0);
	cr_assert_eq(operand("f3 48 0f ae e7", 0, &op), 0);
	cr_assert(op.kind == PTW_REG && op.reg == 5);
	cr_assert_eq(operand("f3 49 0f ae e1", 0, &op), 0);
	cr_assert(op.kind == PTW_REG && op.reg == 9);
	/* -0x28(%rbp): base rbp (6); 0x8(%rsp) through SIB: rsp (7) */
	cr_assert_eq(operand("f3 48 0f ae 65 d8", 0, &op), 0);
	cr_assert(op.kind == PTW_BASE && op.reg == 6 && op.disp == -0x28);
	cr_assert_eq(operand("f3 48 0f ae 64 24 08", 0, &op), 0);
	cr_assert(op.kind == PTW_BASE && op.reg == 7 && op.disp == 8);
	/* (%r12,%rbx,8): base r12 (12), index rbx (3), scale 8 */
	cr_assert_eq(operand("f3 49 0f ae 24 dc", 0, &op), 0);
	cr_assert(op.kind == PTW_INDEX && op.reg == 12 && op.index == 3 &&
		  op.scale == 8 && op.disp == 0);
	/* 0x10(%rax,%r9,4): REX.X extends the index */
	cr_assert_eq(operand("f3 4a 0f ae 64 88 10", 0, &op), 0);
	cr_assert(op.kind == PTW_INDEX && op.reg == 0 && op.index == 9 &&
		  op.scale == 4 && op.disp == 0x10);
	/* 0x601040(,%rax,8): no base */
	cr_assert_eq(operand("f3 48 0f ae 24 c5 40 10 60 00", 0, &op), 0);
	cr_assert(op.kind == PTW_INDEX && op.reg == -1 && op.index == 0 &&
		  op.scale == 8 && op.disp == 0x601040);
	/* 0x10(%rax): a base, no index */
	cr_assert_eq(operand("f3 48 0f ae 60 10", 0, &op), 0);
	cr_assert(op.kind == PTW_BASE && op.reg == 0 && op.disp == 0x10);
	cr_assert_eq(operand("f3 49 0f ae 24", 0, &op), -1);	/* no SIB */
	cr_assert_eq(operand("f3 48 0f ae 2d 00 00", 0, &op), -1); /* /5 */
	cr_assert_eq(operand("f3 48 0f ae 25 8d", 0, &op), -1);	/* cut */
	cr_assert_eq(operand("90", 0, &op), -1);
}

static const char *text(uint32_t kind, uint16_t flags, uint64_t ip,
			uint64_t to, uint64_t payload)
{
	static char buf[256];
	struct rp_event ev = { .kind = kind, .flags = flags, .ip = ip,
			       .to = to, .payload = payload };

	cr_assert_eq(rp_format_event(NULL, 0, &ev, NULL, buf, sizeof(buf)), 0);
	return buf;
}

Test(events, texts_as_gdb_shows_them)
{
	char small[8];
	struct rp_event ev = { .kind = RP_EV_PTWRITE, .payload = 0x2a };

	cr_assert_str_eq(text(RP_EV_PTWRITE, 0, 0, 0, 0x2a), "ptwrite: 0x2a");
	cr_assert_str_eq(text(RP_EV_INTERRUPT, 0, 0x10, 0x20, 0),
			 "interrupt: 0x10 -> 0x20");
	cr_assert_str_eq(text(RP_EV_ENABLED, 0, 0, 0, 0), "enabled");
	cr_assert_str_eq(text(RP_EV_ENABLED, RP_EVF_RESUMED, 0, 0, 0),
			 "resumed");
	cr_assert_str_eq(text(RP_EV_DISABLED, 0, 0, 0, 0), "disabled");
	cr_assert_str_eq(text(RP_EV_ASYNC_DISABLED, 0, 0x31, 0, 0),
			 "disabled: at 0x31");
	cr_assert_str_eq(text(RP_EV_OVERFLOW, RP_EVF_IP_SUPPRESSED, 0, 0, 0),
			 "overflow");
	cr_assert_str_eq(text(RP_EV_TSX, RP_EVF_TSX_SPEC, 0, 0, 0),
			 "tsx: begin");
	cr_assert_str_eq(text(RP_EV_TSX, 0, 0, 0, 0), "tsx: commit");
	cr_assert_str_eq(text(RP_EV_TSX, RP_EVF_TSX_ABORT, 0, 0, 0),
			 "tsx: abort");
	cr_assert_str_eq(text(RP_EV_CBR, 0, 0, 0, 24), "cbr: 24");
	cr_assert_str_eq(text(RP_EV_STOP, 0, 0, 0, 0), "trace-stop");
	cr_assert_str_eq(text(RP_EV_EXEC_MODE, 0, 0, 0, 32),
			 "exec-mode: 32-bit");
	cr_assert_str_eq(text(RP_EV_MWAIT, 0, 0, 0, 0x100000020ull),
			 "mwait: hints 0x20, ext 0x1");
	cr_assert_eq(rp_format_event(NULL, 0, &ev, NULL, small, sizeof(small)),
		     -RP_ERR_RANGE);
	cr_assert_str_eq(rp_event_name(RP_EV_PTWRITE), "ptwrite");
	cr_assert_null(rp_event_name(RP_EV_KINDS));
}
