// SPDX-License-Identifier: GPL-2.0
/*
 * ptrec.ko: the simulated PT unit.
 *
 * A per-CPU software model of the architectural state of Intel PT
 * (IA32_RTIT_CTL, STATUS, OUTPUT_BASE, OUTPUT_MASK_PTRS, CR3_MATCH,
 * ADDRn_A/B; SDM Vol. 3C 33.2.7) behind the same ops table as the real
 * unit, so the context-switch, ToPA, PMI, drain and sideband code run
 * unchanged on it.  It has no XSAVES, so state moves through the MSR save
 * path (ptrec_hw_save_msrs/ptrec_hw_restore_msrs), as on a CPU whose XSAVES
 * lacks component 8.
 *
 * While TraceEn is set, a 1 ms pinned hrtimer plays "the traced program":
 * it writes real PT packets (SDM Vol. 3C 33.4.1/33.4.2) into the output
 * position the model holds, walking the ToPA (33.2.6.2) and honouring its
 * END, INT and STOP bits; a filled INT region sets
 * IA32_PERF_GLOBAL_STATUS[55] in the model and raises the PMI through the
 * same handler the NMI uses after the packet that filled it, in the
 * middle of a tick's packets, as the hardware interrupts the program (a
 * packet is never split: clearing TraceEn completes the packets in
 * flight).  PMIs do not nest: one raised while the handler runs (its
 * restart writes PSB+) is taken after it.
 *
 * Packets: PSB+ (PSB, TSC with TSCEn, PSBEND) when tracing starts and
 * every PSB period, TSC each tick with TSCEn, and PTW with an 8-byte
 * payload (tid << 32 | per-thread sequence number) with PTWEn and User, at
 * the session's sim_rate per millisecond.
 *
 * Not modelled: CR3 and IP filtering (packets are generated regardless),
 * MTC/CYC/TNT/TIP packets, internal buffer overflow.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <asm/msr.h>
#include <asm/page.h>

#include "ptrec_internal.h"

#define SIM_TICK_NS	NSEC_PER_MSEC
#define SIM_MAX_PER_TICK 8192	/* bound a tick's work after a long gap */

struct ptrec_sim_cpu {
	struct ptrec_pt_state r;
	u64 global_status;
	struct hrtimer timer;
	u64 last_ns;
	u64 psb_bytes;		/* bytes since the last PSB */
	bool started;
	bool in_pmi;		/* the PMI handler runs */
};

static DEFINE_PER_CPU(struct ptrec_sim_cpu, ptrec_sim);

static void sim_pmi(struct ptrec_sim_cpu *c);

/* SDM Vol. 3C 33.4.2.17 PSB: 02 82 repeated 8 times. */
static const u8 sim_psb[16] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};

/* SDM Vol. 3C 33.2.6.2: walk the ToPA, return false once output stops. */
static bool sim_out(struct ptrec_sim_cpu *c, const u8 *p, u32 len)
{
	while (len) {
		u64 *table, e, size, base;
		u32 idx, off, n;

		if (c->r.status & (RTIT_STATUS_STOPPED | RTIT_STATUS_ERROR))
			return false;
		base = c->r.output_base & ~0xfffULL;
		if (!base || (c->r.output_base & 0xf80)) {
			c->r.status |= RTIT_STATUS_ERROR;	/* ToPA error */
			return false;
		}
		table = __va(base);
		idx = MASK_PTRS_IDX(c->r.output_mask);
		off = MASK_PTRS_OFF(c->r.output_mask);
		if (idx >= PAGE_SIZE / 8) {
			c->r.status |= RTIT_STATUS_ERROR;
			return false;
		}
		e = READ_ONCE(table[idx]);
		if (e & TOPA_END) {
			/* next table; ours points back to itself */
			c->r.output_base = e & GENMASK_ULL(51, 12);
			c->r.output_mask = MASK_PTRS(0, 0);
			if (c->r.output_base == base && idx == 0) {
				c->r.status |= RTIT_STATUS_ERROR;
				return false;
			}
			continue;
		}
		size = 4096ULL << ((e >> TOPA_SIZE_SHIFT) & 0xf);
		n = min_t(u64, len, size - off);
		memcpy((u8 *)__va(e & GENMASK_ULL(51, 12)) + off, p, n);
		p += n;
		len -= n;
		off += n;
		if (off < size) {
			c->r.output_mask = MASK_PTRS(idx, off);
			continue;
		}
		/* region full: next entry; STOP, and INT's PMI (33.2.6.2) */
		c->r.output_mask = MASK_PTRS(idx + 1, 0);
		if (e & TOPA_STOP)
			c->r.status |= RTIT_STATUS_STOPPED;
		if (e & TOPA_INT)
			c->global_status |= PERF_STATUS_TOPA_PMI;
		if (c->r.status & RTIT_STATUS_STOPPED)
			return false;
	}
	return true;
}

/* One whole packet (or PSB+), then the PMI it may have raised. */
static bool sim_packet(struct ptrec_sim_cpu *c, const u8 *p, u32 len)
{
	bool ok = sim_out(c, p, len);

	sim_pmi(c);
	return ok;
}

static bool sim_tsc(struct ptrec_sim_cpu *c)
{
	u64 tsc = rdtsc_ordered();
	u8 pkt[8];

	/* SDM Vol. 3C 33.4.2.11 TSC: 19H, then TSC[55:0] little-endian. */
	pkt[0] = 0x19;
	memcpy(&pkt[1], &tsc, 7);
	return sim_packet(c, pkt, sizeof(pkt));
}

static bool sim_psb_plus(struct ptrec_sim_cpu *c)
{
	static const u8 psbend[2] = { 0x02, 0x23 };	/* 33.4.2.18 */
	u64 tsc = rdtsc_ordered();
	u8 pkt[sizeof(sim_psb) + 8 + sizeof(psbend)];
	u32 n = sizeof(sim_psb);

	/* PSB, TSC with TSCEn (33.4.2.11), PSBEND: written as one */
	c->psb_bytes = 0;
	memcpy(pkt, sim_psb, sizeof(sim_psb));
	if (c->r.ctl & RTIT_CTL_TSC_EN) {
		pkt[n] = 0x19;
		memcpy(&pkt[n + 1], &tsc, 7);
		n += 8;
	}
	memcpy(&pkt[n], psbend, sizeof(psbend));
	return sim_packet(c, pkt, n + sizeof(psbend));
}

static bool sim_ptw(struct ptrec_sim_cpu *c, u64 payload)
{
	u64 period = 2048ULL << ((c->r.ctl >> RTIT_CTL_PSB_SHIFT) & 0xf);
	u8 pkt[10];

	/*
	 * SDM Vol. 3C 33.4.2.21 PTW: 02H, then IP:PayloadBytes:10010b with
	 * PayloadBytes = 01b (8 bytes), IP = 0: 32H; payload little-endian.
	 */
	pkt[0] = 0x02;
	pkt[1] = 0x32;
	memcpy(&pkt[2], &payload, 8);
	if (!sim_packet(c, pkt, sizeof(pkt)))
		return false;
	c->psb_bytes += sizeof(pkt);
	if (c->psb_bytes >= period)
		return sim_psb_plus(c);
	return true;
}

/* Deliver a pending ToPA PMI unless the handler runs already. */
static void sim_pmi(struct ptrec_sim_cpu *c)
{
	if (c->in_pmi)
		return;
	c->in_pmi = true;
	while ((c->global_status & PERF_STATUS_TOPA_PMI) && ptrec_hw_pmi())
		;
	c->in_pmi = false;
}

static enum hrtimer_restart sim_tick(struct hrtimer *timer)
{
	struct ptrec_sim_cpu *c = this_cpu_ptr(&ptrec_sim);
	struct ptrec_thread *t = this_cpu_read(ptrec_cur);
	u64 now = ktime_get_ns(), n, rate, total;

	if (!(c->r.ctl & RTIT_CTL_TRACEEN)) {
		c->started = false;
		return HRTIMER_NORESTART;
	}
	if (t && (c->r.ctl & RTIT_CTL_USR) && (c->r.ctl & RTIT_CTL_PTW_EN) &&
	    !(c->r.status & (RTIT_STATUS_STOPPED | RTIT_STATUS_ERROR))) {
		rate = t->s->cfg.sim_rate ? t->s->cfg.sim_rate : ptrec_sim_rate;
		total = t->sim_carry_ns + (now - c->last_ns);
		n = rate ? div64_u64(total * rate, NSEC_PER_MSEC) : 0;
		if (n > SIM_MAX_PER_TICK) {
			n = SIM_MAX_PER_TICK;
			t->sim_carry_ns = 0;
		} else {
			t->sim_carry_ns = rate ? total -
				div64_u64(n * NSEC_PER_MSEC, rate) : 0;
		}
		if (n && (c->r.ctl & RTIT_CTL_TSC_EN))
			sim_tsc(c);
		while (n--) {
			if (!sim_ptw(c, ((u64)t->tid << 32) | t->sim_seq))
				break;
			t->sim_seq++;
		}
	}
	c->last_ns = now;
	sim_pmi(c);
	hrtimer_forward_now(timer, ns_to_ktime(SIM_TICK_NS));
	return HRTIMER_RESTART;
}

static u64 *sim_reg(struct ptrec_sim_cpu *c, u32 msr)
{
	switch (msr) {
	case MSR_IA32_RTIT_CTL:
		return &c->r.ctl;
	case MSR_IA32_RTIT_STATUS:
		return &c->r.status;
	case MSR_IA32_RTIT_OUTPUT_BASE:
		return &c->r.output_base;
	case MSR_IA32_RTIT_OUTPUT_MASK:
		return &c->r.output_mask;
	case MSR_IA32_RTIT_CR3_MATCH:
		return &c->r.cr3_match;
	case MSR_IA32_RTIT_ADDR0_A ... MSR_IA32_RTIT_ADDR1_B:
		return &c->r.addr01[msr - MSR_IA32_RTIT_ADDR0_A];
	case MSR_CORE_PERF_GLOBAL_STATUS:
		return &c->global_status;
	}
	return NULL;
}

static u64 sim_rdmsr(u32 msr)
{
	u64 *r = sim_reg(this_cpu_ptr(&ptrec_sim), msr);

	return r ? *r : 0;
}

/*
 * SDM Vol. 3C 33.2.7: every RTIT MSR but IA32_RTIT_CTL may be written only
 * with TraceEn = 0, else #GP.  The model reports that as -EIO and warns,
 * which is how the tests catch a save/restore order the SDM forbids.
 */
static int sim_wrmsr(u32 msr, u64 val)
{
	struct ptrec_sim_cpu *c = this_cpu_ptr(&ptrec_sim);
	u64 *r = sim_reg(c, msr);
	u64 old;

	if (!r || msr == MSR_CORE_PERF_GLOBAL_STATUS)
		return -EIO;
	if (msr != MSR_IA32_RTIT_CTL) {
		if (WARN_ONCE(c->r.ctl & RTIT_CTL_TRACEEN,
			      "ptrec sim: WRMSR %x with TraceEn set (#GP)\n",
			      msr))
			return -EIO;
		*r = val;
		return 0;
	}
	old = c->r.ctl;
	c->r.ctl = val;
	if (!(old & RTIT_CTL_TRACEEN) && (val & RTIT_CTL_TRACEEN)) {
		if (!(val & RTIT_CTL_TOPA))
			c->r.status |= RTIT_STATUS_ERROR;
		/* tracing starts with PSB+ */
		sim_psb_plus(c);
		c->last_ns = ktime_get_ns();
		sim_pmi(c);
		if (!c->started) {
			c->started = true;
			hrtimer_start(&c->timer, ns_to_ktime(SIM_TICK_NS),
				      HRTIMER_MODE_REL_PINNED_HARD);
		}
	}
	return 0;
}

static void sim_save(struct ptrec_save_area *a)
{
	ptrec_hw_save_msrs(a);
}

static void sim_restore(struct ptrec_save_area *a)
{
	ptrec_hw_restore_msrs(a);
}

static bool sim_pmi_pending(void)
{
	return this_cpu_read(ptrec_sim.global_status) & PERF_STATUS_TOPA_PMI;
}

static void sim_pmi_ack(void)
{
	this_cpu_and(ptrec_sim.global_status, ~PERF_STATUS_TOPA_PMI);
}

const struct ptrec_hw_ops ptrec_sim_ops = {
	.name		= "simulated",
	.read_msr	= sim_rdmsr,
	.write_msr	= sim_wrmsr,
	.save		= sim_save,
	.restore	= sim_restore,
	.pmi_pending	= sim_pmi_pending,
	.pmi_ack	= sim_pmi_ack,
};

/**
 * ptrec_sim_init() - reset the model on every CPU
 *
 * Return: 0.
 */
int ptrec_sim_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ptrec_sim_cpu *c = per_cpu_ptr(&ptrec_sim, cpu);

		memset(&c->r, 0, sizeof(c->r));
		c->global_status = 0;
		c->started = false;
		c->in_pmi = false;
		hrtimer_init(&c->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		c->timer.function = sim_tick;
	}
	return 0;
}

/**
 * ptrec_sim_exit() - stop the model's timers
 */
void ptrec_sim_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&ptrec_sim, cpu)->timer);
}
