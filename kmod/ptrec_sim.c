// SPDX-License-Identifier: GPL-2.0
/*
 * ptrec.ko: the simulated PT unit.
 *
 * No machine of this project has Intel PT, so the module's hardware code
 * runs on a model of it: this file fills the same ops table as the real
 * instructions (ptrec_hw.c) with a per-CPU model of what the SDM says they
 * do, so the probe, the context switch, ToPA, the PMI, the drain and the
 * sideband run unchanged on it, in a QEMU guest (tests/kmod).  The model
 * is there to fail where the hardware would; what it models:
 *
 * - CPUID leaf 14H, 0DH and 07H of a Skylake-like part (sim_topa_multi=0
 *   for a first-generation one with single-entry ToPA), with XSAVES of
 *   component 8 in its real size, 128 bytes (sim_xsaves=0: none);
 *   IA32_VMX_MISC[14] = 0 (PT unusable in VMX operation).
 * - The RTIT MSRs (SDM Vol. 3C 33.2.7) with the #GPs the SDM lists:
 *   writing an RTIT MSR other than IA32_RTIT_CTL while TraceEn is 1,
 *   changing IA32_RTIT_CTL while TraceEn stays 1, setting TraceEn in VMX
 *   operation, MSRs the CPU does not have (ADDR2/3 with two ranges).
 *   Faults are counted (sim_stats) and returned as -EIO.
 * - XSAVES/XRSTORS of component 8 (Vol. 1 13.5.6, 13.11-13.12): only with
 *   IA32_XSS[8] (XSAVES saves nothing without it, XRSTORS faults); XSAVES
 *   writes the nine MSRs and zeros up to byte 128, clearing TraceEn after
 *   saving IA32_RTIT_CTL; XRSTORS faults with TraceEn set and writes
 *   IA32_RTIT_CTL last.  The "modified optimization" (13.6) is modelled
 *   pessimistically: XSAVES to the area the last XRSTORS read, with no
 *   packet of the traced program written since, saves nothing and leaves
 *   TraceEn set.
 * - Output through ToPA (33.2.6.2): END, INT, STOP; the ToPA errors that
 *   set IA32_RTIT_STATUS.Error and stop packet generation (END with INT
 *   or STOP, END in entry 0, a misaligned region, an output offset past
 *   its region; with single-entry ToPA an entry 1 that is not END back to
 *   the table).
 * - PacketByteCnt (33.2.7.4): bytes since the last PSB; setting TraceEn
 *   writes PSB+ only when it is 0, else a TSC packet (33.2.7.3).
 * - The ToPA PMI as the hardware delivers it: late (at the model's next
 *   1 ms tick, so the unit writes on meanwhile), coalesced (two filled INT
 *   regions before it is taken give one), and through the LVT performance
 *   counter entry, which the delivery masks until software unmasks it
 *   (Vol. 3A 10.5.1); while masked a PMI is dropped.  A delivered PMI that
 *   no handler claims is counted as the kernel's "NMI received for unknown
 *   reason".
 * - VMX (sim_vmx=1: KVM did VMXON on every CPU): VMXON clears TraceEn,
 *   and setting it faults (33.5 with IA32_VMX_MISC[14] = 0).
 * - A foreign PT user (sim_foreign=1, a stand-in for perf's intel_pt):
 *   on each CPU it starts tracing with its own buffer unless ptrec holds
 *   the unit there (ptrec_hw_unit_claimed(), as perf's exclusive PMU
 *   refuses a second intel_pt user), writing its MSRs as perf does, which
 *   faults where ptrec's state is loaded.
 * - At reboot it reports CPUs whose unit still traces (a reboot notifier
 *   that runs last), which after kexec would write into reused memory.
 *
 * A 1 ms pinned hrtimer on every CPU plays "the traced program": when it
 * interrupts a traced thread, that thread executes PTWRITE at the
 * session's sim_rate per millisecond, payload `tid << 32 | sequence`; the
 * unit writes them as PTW packets (with PTWEn and User), with a TSC packet
 * per tick (TSCEn) and PSB+ every PSB period, when it traces that thread,
 * and the sequence numbers go by unrecorded when it does not.
 * - CR3 filtering (CR3Filter, IA32_RTIT_CR3_MATCH) and PIP packets, with
 *   the CR3 pair of page-table isolation: user code runs on the user
 *   CR3, the kernel on the kernel one (sim_user_cr3(), sim_program()).
 * Not modelled: IP filtering, control-flow packets (TNT, TIP, FUP,
 * MODE), MTC/CYC, internal buffer overflow, the NMI itself (the PMI runs
 * from the timer).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/reboot.h>
#include <linux/smp.h>
#include <linux/sysfs.h>
#include <asm/io.h>
#include <asm/irq_regs.h>
#include <asm/msr.h>
#include <asm/page.h>
#include <asm/tsc.h>

#include "ptrec_internal.h"

#define SIM_TICK_NS		NSEC_PER_MSEC
#define SIM_MAX_PER_TICK	8192	/* bound a tick's work after a gap */
#define SIM_XSTATE_PT_BYTES	128	/* CPUID.(0DH,8):EAX of real parts */

static bool sim_topa_multi = true;
module_param(sim_topa_multi, bool, 0444);
MODULE_PARM_DESC(sim_topa_multi, "simulated unit: multiple-entry ToPA (0: single-entry, as the first PT generation)");

static bool sim_xsaves = true;
module_param(sim_xsaves, bool, 0444);
MODULE_PARM_DESC(sim_xsaves, "simulated unit: XSAVES manages PT state (a 128-byte component)");

/**
 * struct ptrec_sim_cpu - one CPU's simulated unit
 * @r:		the RTIT MSRs.
 * @global_status: IA32_PERF_GLOBAL_STATUS (bit 55 only).
 * @xss:	IA32_XSS.
 * @lvtpc_masked: the LVT performance counter entry's mask bit.
 * @pmi_req:	a PMI was signalled; it is taken at the next tick.
 * @vmx:	in VMX operation (sim_vmx).
 * @foreign:	the foreign PT user traces here (sim_foreign).
 * @xrstors_area: the area of the last XRSTORS.
 * @modified:	the traced program wrote packets since that XRSTORS.
 * @timer:	the tick.
 * @last_ns:	time of the last tick.
 * @started:	the tick runs.
 * @in_pmi:	the PMI handler runs.
 */
struct ptrec_sim_cpu {
	struct ptrec_pt_xstate r;
	u64 global_status;
	u64 xss;
	bool lvtpc_masked;
	bool pmi_req;
	bool vmx;
	bool foreign;
	const void *xrstors_area;
	bool modified;
	struct hrtimer timer;
	u64 last_ns;
	bool started;
	bool in_pmi;
};

static DEFINE_PER_CPU(struct ptrec_sim_cpu, ptrec_sim);

/* What the model saw, for the tests (parameter sim_stats). */
static struct {
	atomic_long_t faults, errors, pmis, masked_pmis, unknown_nmis,
		foreign_busy, foreign_started, xsaves_skipped;
} sim_st;

/* The foreign user's ToPA table and its one 4 KiB region (a ring). */
static u64 *sim_foreign_topa;
static void *sim_foreign_region;

static void sim_fault(const char *what, u32 msr)
{
	atomic_long_inc(&sim_st.faults);
	pr_debug("sim: #GP: %s %x\n", what, msr);
}

/* ---- CPUID ------------------------------------------------------------- */

static void sim_cpuid(u32 leaf, u32 sub, u32 r[4])
{
	memset(r, 0, 4 * sizeof(*r));
	switch (leaf) {
	case 7:
		if (!sub)
			r[PTREC_EBX] = CPUID_7_EBX_PT;
		break;
	case CPUID_LEAF_PT:
		if (sub == 0) {
			r[PTREC_EAX] = 1;
			/* CR3 filter, PSB/CYC, IP filter, MTC, PTWRITE */
			r[PTREC_EBX] = 0x1f;
			/* ToPA, single-range output; MENTRY as asked */
			r[PTREC_ECX] = BIT(0) | BIT(2) |
				       (sim_topa_multi ? BIT(1) : 0);
		} else if (sub == 1) {
			r[PTREC_EAX] = 0x02490002;	/* MTC periods, 2 ranges */
			r[PTREC_EBX] = 0x003f3fff;	/* PSB periods, CYC */
		}
		break;
	case CPUID_LEAF_XSTATE:
		if (sub == 1 && sim_xsaves) {
			r[PTREC_EAX] = CPUID_D1_EAX_XSAVES;
			r[PTREC_ECX] = BIT(XFEATURE_PT_BIT);
		} else if (sub == XFEATURE_PT_BIT && sim_xsaves) {
			r[PTREC_EAX] = SIM_XSTATE_PT_BYTES;
			r[PTREC_ECX] = CPUID_D8_ECX_SUPERVISOR;
		}
		break;
	}
}

/* ---- output -------------------------------------------------------------- */

static void sim_error(struct ptrec_sim_cpu *c)
{
	if (!(c->r.status & RTIT_STATUS_ERROR))
		atomic_long_inc(&sim_st.errors);
	c->r.status |= RTIT_STATUS_ERROR;
}

static void sim_bytecnt_add(struct ptrec_sim_cpu *c, u32 n)
{
	u64 cnt = (c->r.status & RTIT_STATUS_BYTECNT) >>
		  RTIT_STATUS_BYTECNT_SHIFT;

	cnt = min_t(u64, cnt + n, RTIT_STATUS_BYTECNT >>
		    RTIT_STATUS_BYTECNT_SHIFT);
	c->r.status = (c->r.status & ~RTIT_STATUS_BYTECNT) |
		      (cnt << RTIT_STATUS_BYTECNT_SHIFT);
}

static u64 sim_bytecnt(struct ptrec_sim_cpu *c)
{
	return (c->r.status & RTIT_STATUS_BYTECNT) >> RTIT_STATUS_BYTECNT_SHIFT;
}

/*
 * The ToPA entry at @idx of @table, checked as the SDM's "ToPA Errors"
 * list says (33.2.6.2); false (and Error set) if it is malformed.
 */
static bool sim_entry_ok(u64 base, u32 idx, u64 e)
{
	if (e & TOPA_END) {
		if ((e & (TOPA_INT | TOPA_STOP)) || idx == 0)
			return false;
		if (!sim_topa_multi && TOPA_ADDR(e) != base)
			return false;
		return true;
	}
	if (!sim_topa_multi && idx >= 1)
		return false;	/* entry 1 must be END back to the table */
	if (TOPA_ADDR(e) & (TOPA_SIZE(e) - 1))
		return false;	/* region not aligned to its size */
	return true;
}

/*
 * Writes @len bytes at the output position, walking the ToPA; false once
 * output stops (STOP, Error).  @program: bytes of the traced program
 * (for XSAVES's modified optimization).
 */
static bool sim_out(struct ptrec_sim_cpu *c, const u8 *p, u32 len,
		    bool program)
{
	if (program)
		c->modified = true;
	sim_bytecnt_add(c, len);
	while (len) {
		u64 *table, e, size, base;
		u32 idx, off, n;

		if (c->r.status & (RTIT_STATUS_STOPPED | RTIT_STATUS_ERROR))
			return false;
		base = c->r.output_base & ~0xfffULL;
		if (!base || (c->r.output_base & 0xfff)) {
			sim_error(c);
			return false;
		}
		table = __va(base);
		idx = MASK_PTRS_IDX(c->r.output_mask);
		off = MASK_PTRS_OFF(c->r.output_mask);
		if (idx >= PAGE_SIZE / 8) {
			sim_error(c);
			return false;
		}
		e = READ_ONCE(table[idx]);
		if (!sim_entry_ok(base, idx, e)) {
			sim_error(c);
			return false;
		}
		if (e & TOPA_END) {
			c->r.output_base = TOPA_ADDR(e);
			c->r.output_mask = MASK_PTRS(0, 0);
			continue;
		}
		size = TOPA_SIZE(e);
		if (off >= size) {
			sim_error(c);
			return false;
		}
		n = min_t(u64, len, size - off);
		memcpy((u8 *)__va(TOPA_ADDR(e)) + off, p, n);
		p += n;
		len -= n;
		off += n;
		if (off < size) {
			c->r.output_mask = MASK_PTRS(idx, off);
			continue;
		}
		/*
		 * Region full.  STOP: the offset stays at the region's size
		 * (33.2.6.2 "ToPA STOP").  INT: the PMI, taken later.
		 */
		if (e & TOPA_INT) {
			c->global_status |= PERF_STATUS_TOPA_PMI;
			c->pmi_req = true;
		}
		if (e & TOPA_STOP) {
			c->r.output_mask = MASK_PTRS(idx, off);
			c->r.status |= RTIT_STATUS_STOPPED;
			return false;
		}
		c->r.output_mask = MASK_PTRS(idx + 1, 0);
	}
	return true;
}

/* SDM Vol. 3C 33.4.2.17 PSB: 02 82 repeated 8 times. */
static const u8 sim_psb[16] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};

static bool sim_tsc(struct ptrec_sim_cpu *c, bool program)
{
	u64 tsc = rdtsc_ordered();
	u8 pkt[8];

	/* SDM Vol. 3C 33.4.2.11 TSC: 19H, then TSC[55:0] little-endian. */
	pkt[0] = 0x19;
	memcpy(&pkt[1], &tsc, 7);
	return sim_out(c, pkt, sizeof(pkt), program);
}

/*
 * SDM Vol. 3C 33.4.2.7 PIP: 02H 43H, then six bytes: bit 0 NR (0: VMX
 * root or no VMX), bits 47:1 CR3[51:5].
 */
static bool sim_pip(struct ptrec_sim_cpu *c, u64 cr3, bool program)
{
	u64 payload = ((cr3 & GENMASK_ULL(51, 5)) >> 5) << 1;
	u8 pkt[8];

	pkt[0] = 0x02;
	pkt[1] = 0x43;
	memcpy(&pkt[2], &payload, 6);
	return sim_out(c, pkt, sizeof(pkt), program);
}

/*
 * ContextEn for code at CPL 3 (@user) or 0 running on @cr3 (33.2.4):
 * CPL filtering by User/OS, and with CR3Filter, CR3[63:5] must equal
 * IA32_RTIT_CR3_MATCH[63:5] (33.2.4.2; PCID bits 11:5 included).
 */
static bool sim_context_en(struct ptrec_sim_cpu *c, u64 cr3, bool user)
{
	if (!(c->r.ctl & (user ? RTIT_CTL_USR : RTIT_CTL_OS)))
		return false;
	if ((c->r.ctl & RTIT_CTL_CR3EN) &&
	    ((cr3 ^ c->r.cr3_match) & ~0x1fULL))
		return false;
	return true;
}

/*
 * The CR3 this CPU runs the interrupted task's user code on.  The tick
 * runs in the kernel, on the kernel CR3 (__read_cr3(), PCID bits
 * included).  With page-table isolation Linux returns to user mode on the
 * user half of the PGD, the page after the kernel half (bit 12,
 * PTI_USER_PGTABLE_BIT), and with PCID the user PCID (bit 11,
 * X86_CR3_PTI_PCID_USER_BIT); without PTI user and kernel share one CR3.
 * Facts of Linux and the SDM, modelled here independently of the
 * module's own ptrec_sb_user_cr3() so a wrong belief there shows.
 */
static u64 sim_user_cr3(u64 kcr3)
{
	if (!static_cpu_has(X86_FEATURE_PTI))
		return kcr3;
	kcr3 |= BIT_ULL(12);
	if (__read_cr4() & X86_CR4_PCIDE)
		kcr3 |= BIT_ULL(11);
	return kcr3;
}

/* PSB, TSC with TSCEn, PSBEND (33.3.7); PacketByteCnt starts again. */
static bool sim_psb_plus(struct ptrec_sim_cpu *c, bool program)
{
	static const u8 psbend[2] = { 0x02, 0x23 };	/* 33.4.2.18 */
	u64 tsc = rdtsc_ordered();
	u8 pkt[sizeof(sim_psb) + 8 + sizeof(psbend)];
	u32 n = sizeof(sim_psb);

	c->r.status &= ~RTIT_STATUS_BYTECNT;
	memcpy(pkt, sim_psb, sizeof(sim_psb));
	if (c->r.ctl & RTIT_CTL_TSC_EN) {
		pkt[n] = 0x19;
		memcpy(&pkt[n + 1], &tsc, 7);
		n += 8;
	}
	if (!sim_out(c, pkt, n, program))
		return false;
	/* PIP in PSB+ if ContextEn and OS (33.3.7): the CPU is in the kernel */
	if ((c->r.ctl & RTIT_CTL_OS) && sim_context_en(c, __read_cr3(), false) &&
	    !sim_pip(c, __read_cr3(), program))
		return false;
	return sim_out(c, psbend, sizeof(psbend), program);
}

static bool sim_ptw(struct ptrec_sim_cpu *c, u64 payload)
{
	u8 pkt[10];

	/*
	 * SDM Vol. 3C 33.4.2.21 PTW: 02H, then IP:PayloadBytes:10010b with
	 * PayloadBytes = 01b (8 bytes), IP = 0: 32H; payload little-endian.
	 */
	pkt[0] = 0x02;
	pkt[1] = 0x32;
	memcpy(&pkt[2], &payload, 8);
	if (!sim_out(c, pkt, sizeof(pkt), true))
		return false;
	if (sim_bytecnt(c) >= RTIT_PSB_PERIOD(c->r.ctl))
		return sim_psb_plus(c, true);
	return true;
}

/* ---- the PMI ------------------------------------------------------------ */

/*
 * Takes a signalled PMI: through the LVT entry, which delivery masks; a
 * PMI while it is masked is dropped.  One the handlers do not claim is
 * what the kernel reports as "NMI received for unknown reason".
 */
static void sim_take_pmi(struct ptrec_sim_cpu *c)
{
	if (!c->pmi_req || c->in_pmi)
		return;
	c->pmi_req = false;
	if (c->lvtpc_masked) {
		atomic_long_inc(&sim_st.masked_pmis);
		return;
	}
	c->lvtpc_masked = true;
	atomic_long_inc(&sim_st.pmis);
	c->in_pmi = true;
	if (!ptrec_hw_pmi()) {
		atomic_long_inc(&sim_st.unknown_nmis);
		pr_warn_ratelimited("sim: NMI received for unknown reason on CPU %d (a ToPA PMI nobody claimed)\n",
				    smp_processor_id());
	}
	c->in_pmi = false;
}

/* PTW packets the program writes in the time since the last tick. */
static u64 sim_ptws_due(struct ptrec_thread *t, u64 elapsed)
{
	u64 n, rate, total;

	rate = t->s->cfg.sim_rate ? t->s->cfg.sim_rate : ptrec_sim_rate;
	total = t->sim_carry_ns + elapsed;
	n = rate ? div64_u64(total * rate, NSEC_PER_MSEC) : 0;
	if (n > SIM_MAX_PER_TICK) {
		n = SIM_MAX_PER_TICK;
		t->sim_carry_ns = 0;
	} else {
		t->sim_carry_ns = rate ? total -
			div64_u64(n * NSEC_PER_MSEC, rate) : 0;
	}
	return n;
}

/*
 * The traced program, when it is the task this tick interrupted: it
 * executes PTWRITE at its rate whether or not the unit records it, so a
 * time it ran untraced shows as missing sequence numbers.  Its user code
 * runs on its user CR3 (sim_user_cr3()), so with CR3Filter it is traced
 * only if IA32_RTIT_CR3_MATCH holds that CR3.  With PTI, the return to
 * user mode and this interrupt's entry each wrote CR3 at CPL 0, which
 * with OS=1 and ContextEn gives a PIP of the new CR3 (SDM Vol. 3C, the
 * packet generation table, "MOV to CR3"): PIP(user CR3) before the
 * program's packets, PIP(kernel CR3) after them.
 */
static void sim_program(struct ptrec_sim_cpu *c, u64 now)
{
	struct pt_regs *regs = get_irq_regs();
	bool user = regs && user_mode(regs);
	struct ptrec_thread *t;
	u64 n, kcr3, ucr3;
	bool on, pti;

	rcu_read_lock();
	t = ptrec_thread_find(current);
	if (!t || t->dead)
		goto out_unlock;
	n = sim_ptws_due(t, now - c->last_ns);
	kcr3 = __read_cr3();
	ucr3 = sim_user_cr3(kcr3);
	pti = user && ucr3 != kcr3;
	on = t == this_cpu_read(ptrec_cur) && !c->foreign &&
	     (c->r.ctl & RTIT_CTL_TRACEEN) &&
	     !(c->r.status & (RTIT_STATUS_STOPPED | RTIT_STATUS_ERROR));
	if (on && n && (c->r.ctl & RTIT_CTL_TSC_EN))
		sim_tsc(c, true);
	if (on && pti && sim_context_en(c, ucr3, false))
		sim_pip(c, ucr3, true);
	if (!on || !(c->r.ctl & RTIT_CTL_PTW_EN) ||
	    !sim_context_en(c, ucr3, true)) {
		/* only user code is the program (User=1, OS=0) */
		if (user)
			t->sim_seq += n;
		goto out_unlock;
	}
	while (n--) {
		if (!sim_ptw(c, ((u64)t->tid << 32) | t->sim_seq)) {
			t->sim_seq += n + 1;	/* ran on untraced */
			goto out_unlock;
		}
		t->sim_seq++;
	}
	if (pti && sim_context_en(c, kcr3, false))
		sim_pip(c, kcr3, true);
out_unlock:
	rcu_read_unlock();
}

static enum hrtimer_restart sim_tick(struct hrtimer *timer)
{
	struct ptrec_sim_cpu *c = container_of(timer, struct ptrec_sim_cpu,
					       timer);
	u64 now = ktime_get_ns();

	/* a CPU gone offline: its timer migrated here; online restarts it */
	if (c != this_cpu_ptr(&ptrec_sim)) {
		c->started = false;
		return HRTIMER_NORESTART;
	}
	/* the PMI a region filled during the last tick, taken late */
	sim_take_pmi(c);
	sim_program(c, now);
	c->last_ns = now;
	hrtimer_forward_now(timer, ns_to_ktime(SIM_TICK_NS));
	return HRTIMER_RESTART;
}

static void sim_start_tick(void *unused)
{
	struct ptrec_sim_cpu *c = this_cpu_ptr(&ptrec_sim);

	if (c->started)
		return;
	c->started = true;
	c->last_ns = ktime_get_ns();
	hrtimer_start(&c->timer, ns_to_ktime(SIM_TICK_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/**
 * ptrec_sim_cpu_online() - the model's tick on a CPU that came online
 */
void ptrec_sim_cpu_online(void)
{
	/* the kernel's fpu__init_cpu_xstate() wrote IA32_XSS without bit 8 */
	this_cpu_write(ptrec_sim.xss, 0);
	sim_start_tick(NULL);
}

/* ---- MSRs ---------------------------------------------------------------- */

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
	case MSR_IA32_XSS:
		return &c->xss;
	}
	return NULL;
}

static int sim_rdmsr(u32 msr, u64 *val)
{
	u64 *r = sim_reg(this_cpu_ptr(&ptrec_sim), msr);

	if (msr == MSR_IA32_VMX_MISC) {
		*val = 0;	/* [14] = 0: no PT in VMX operation */
		return 0;
	}
	if (!r) {
		sim_fault("RDMSR", msr);
		return -EIO;
	}
	*val = *r;
	return 0;
}

/* TraceEn 0 -> 1 (33.2.7.3): PSB+ only with PacketByteCnt 0. */
static void sim_enable(struct ptrec_sim_cpu *c)
{
	u64 e, *table;

	if (c->r.status & (RTIT_STATUS_STOPPED | RTIT_STATUS_ERROR))
		return;
	if (!(c->r.ctl & RTIT_CTL_TOPA) || (c->r.output_base & 0xfff) ||
	    !c->r.output_base) {
		sim_error(c);
		return;
	}
	table = __va(c->r.output_base);
	e = READ_ONCE(table[MASK_PTRS_IDX(c->r.output_mask) &
			    (PAGE_SIZE / 8 - 1)]);
	if (!(e & TOPA_END) && MASK_PTRS_OFF(c->r.output_mask) >= TOPA_SIZE(e)) {
		sim_error(c);	/* illegal output offset */
		return;
	}
	if (!sim_bytecnt(c))
		sim_psb_plus(c, false);
	else if (c->r.ctl & RTIT_CTL_TSC_EN)
		sim_tsc(c, false);
}

static int sim_write_ctl(struct ptrec_sim_cpu *c, u64 val)
{
	u64 old = c->r.ctl;

	if ((old & RTIT_CTL_TRACEEN) && (val & RTIT_CTL_TRACEEN) &&
	    val != old) {
		sim_fault("WRMSR changing IA32_RTIT_CTL with TraceEn 1",
			  MSR_IA32_RTIT_CTL);
		return -EIO;
	}
	if ((val & RTIT_CTL_TRACEEN) && c->vmx) {
		sim_fault("WRMSR setting TraceEn in VMX operation",
			  MSR_IA32_RTIT_CTL);
		return -EIO;
	}
	c->r.ctl = val;
	if (!(old & RTIT_CTL_TRACEEN) && (val & RTIT_CTL_TRACEEN))
		sim_enable(c);
	return 0;
}

static int sim_wrmsr(u32 msr, u64 val)
{
	struct ptrec_sim_cpu *c = this_cpu_ptr(&ptrec_sim);
	u64 *r = sim_reg(c, msr);

	if (msr == MSR_CORE_PERF_GLOBAL_OVF_CTRL) {
		c->global_status &= ~val;
		return 0;
	}
	if (!r || msr == MSR_CORE_PERF_GLOBAL_STATUS) {
		sim_fault("WRMSR", msr);
		return -EIO;
	}
	if (msr == MSR_IA32_RTIT_CTL)
		return sim_write_ctl(c, val);
	if (msr != MSR_IA32_XSS && (c->r.ctl & RTIT_CTL_TRACEEN)) {
		sim_fault("WRMSR with TraceEn 1", msr);
		return -EIO;
	}
	*r = val;
	return 0;
}

/* ---- XSAVES / XRSTORS of component 8 ------------------------------------- */

static int sim_xsaves_fn(struct ptrec_save_area *a)
{
	struct ptrec_sim_cpu *c = this_cpu_ptr(&ptrec_sim);
	u64 *comp = (u64 *)((u8 *)a + XSAVE_EXT_OFFSET);
	u64 *hdr = (u64 *)((u8 *)a + XSAVE_LEGACY_BYTES);

	/* RFBM is EDX:EAX & (XCR0 | IA32_XSS): without XSS[8], nothing */
	if (!(c->xss & BIT_ULL(XFEATURE_PT_BIT)))
		return 0;
	if (c->xrstors_area == a && !c->modified) {
		atomic_long_inc(&sim_st.xsaves_skipped);
		return 0;
	}
	hdr[0] |= BIT_ULL(XFEATURE_PT_BIT);
	hdr[1] = XCOMP_BV_COMPACTED | BIT_ULL(XFEATURE_PT_BIT);
	comp[0] = c->r.ctl;
	c->r.ctl &= ~RTIT_CTL_TRACEEN;	/* after saving it (13.5.6) */
	comp[1] = c->r.output_base;
	comp[2] = c->r.output_mask;
	comp[3] = c->r.status;
	comp[4] = c->r.cr3_match;
	memcpy(&comp[5], c->r.addr01, sizeof(c->r.addr01));
	memset((u8 *)comp + XSAVE_PT_MSR_BYTES, 0,
	       SIM_XSTATE_PT_BYTES - XSAVE_PT_MSR_BYTES);
	return 0;
}

static int sim_xrstors_fn(struct ptrec_save_area *a)
{
	struct ptrec_sim_cpu *c = this_cpu_ptr(&ptrec_sim);
	u64 *comp = (u64 *)((u8 *)a + XSAVE_EXT_OFFSET);
	u64 *hdr = (u64 *)((u8 *)a + XSAVE_LEGACY_BYTES);

	if (!(c->xss & BIT_ULL(XFEATURE_PT_BIT)) ||
	    hdr[1] != (XCOMP_BV_COMPACTED | BIT_ULL(XFEATURE_PT_BIT))) {
		sim_fault("XRSTORS: XCOMP_BV bit 8 without IA32_XSS[8]",
			  MSR_IA32_XSS);
		return -EIO;
	}
	if (c->r.ctl & RTIT_CTL_TRACEEN) {
		sim_fault("XRSTORS with TraceEn 1", MSR_IA32_RTIT_CTL);
		return -EIO;
	}
	c->r.output_base = comp[1];
	c->r.output_mask = comp[2];
	c->r.status = comp[3];
	c->r.cr3_match = comp[4];
	memcpy(c->r.addr01, &comp[5], sizeof(c->r.addr01));
	c->xrstors_area = a;
	c->modified = false;
	return sim_write_ctl(c, comp[0]);	/* IA32_RTIT_CTL last */
}

static bool sim_pmi_pending(void)
{
	return this_cpu_read(ptrec_sim.global_status) & PERF_STATUS_TOPA_PMI;
}

static void sim_pmi_ack(void)
{
	this_cpu_and(ptrec_sim.global_status, ~PERF_STATUS_TOPA_PMI);
}

static void sim_pmi_unmask(void)
{
	this_cpu_write(ptrec_sim.lvtpc_masked, false);
}

static bool sim_in_vmx(void)
{
	return this_cpu_read(ptrec_sim.vmx);
}

const struct ptrec_hw_ops ptrec_sim_ops = {
	.name		= "simulated",
	.cpuid		= sim_cpuid,
	.read_msr	= sim_rdmsr,
	.write_msr	= sim_wrmsr,
	.xsaves		= sim_xsaves_fn,
	.xrstors	= sim_xrstors_fn,
	.pmi_pending	= sim_pmi_pending,
	.pmi_ack	= sim_pmi_ack,
	.pmi_unmask	= sim_pmi_unmask,
	.in_vmx		= sim_in_vmx,
};

/* ---- VMX and the foreign PT user ------------------------------------------ */

static void sim_vmx_fn(void *on)
{
	struct ptrec_sim_cpu *c = this_cpu_ptr(&ptrec_sim);

	c->vmx = on;
	if (on)
		c->r.ctl &= ~RTIT_CTL_TRACEEN;	/* VMXON clears TraceEn */
}

static bool sim_vmx_on;

static int sim_vmx_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_bool(val, kp);

	if (!ret && ptrec_hw == &ptrec_sim_ops)
		on_each_cpu(sim_vmx_fn, (void *)sim_vmx_on, 1);
	return ret;
}

static const struct kernel_param_ops sim_vmx_ops = {
	.set = sim_vmx_set,
	.get = param_get_bool,
};
module_param_cb(sim_vmx, &sim_vmx_ops, &sim_vmx_on, 0644);
MODULE_PARM_DESC(sim_vmx, "simulated unit: KVM is in VMX operation on every CPU (VMXON clears TraceEn; setting it faults)");

/*
 * The foreign user starts on this CPU as perf's pt_event_start() does:
 * STATUS, OUTPUT_BASE and OUTPUT_MASK_PTRS, then IA32_RTIT_CTL.
 */
static void sim_foreign_fn(void *on)
{
	struct ptrec_sim_cpu *c = this_cpu_ptr(&ptrec_sim);
	int bad = 0;

	if (!on) {
		if (c->foreign)
			sim_write_ctl(c, c->r.ctl & ~RTIT_CTL_TRACEEN);
		c->foreign = false;
		return;
	}
	if (c->foreign)
		return;
	if (ptrec_hw_unit_claimed(smp_processor_id())) {
		atomic_long_inc(&sim_st.foreign_busy);
		return;
	}
	bad |= sim_wrmsr(MSR_IA32_RTIT_STATUS, 0);
	bad |= sim_wrmsr(MSR_IA32_RTIT_OUTPUT_BASE,
			 virt_to_phys(sim_foreign_topa));
	bad |= sim_wrmsr(MSR_IA32_RTIT_OUTPUT_MASK, MASK_PTRS(0, 0));
	bad |= sim_wrmsr(MSR_IA32_RTIT_CTL, RTIT_CTL_TRACEEN | RTIT_CTL_TOPA |
			 RTIT_CTL_USR | RTIT_CTL_OS | RTIT_CTL_BRANCH_EN);
	if (bad)
		return;
	c->foreign = true;
	atomic_long_inc(&sim_st.foreign_started);
}

static bool sim_foreign_on;

static int sim_foreign_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_bool(val, kp);

	if (!ret && ptrec_hw == &ptrec_sim_ops)
		on_each_cpu(sim_foreign_fn, (void *)sim_foreign_on, 1);
	return ret;
}

static const struct kernel_param_ops sim_foreign_ops = {
	.set = sim_foreign_set,
	.get = param_get_bool,
};
module_param_cb(sim_foreign, &sim_foreign_ops, &sim_foreign_on, 0644);
MODULE_PARM_DESC(sim_foreign, "simulated unit: another PT user (perf intel_pt) starts on every CPU where ptrec does not hold the unit; 0 stops it");

static int sim_stats_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "faults %ld errors %ld pmis %ld masked_pmis %ld unknown_nmis %ld foreign_busy %ld foreign_started %ld xsaves_skipped %ld\n",
			  atomic_long_read(&sim_st.faults),
			  atomic_long_read(&sim_st.errors),
			  atomic_long_read(&sim_st.pmis),
			  atomic_long_read(&sim_st.masked_pmis),
			  atomic_long_read(&sim_st.unknown_nmis),
			  atomic_long_read(&sim_st.foreign_busy),
			  atomic_long_read(&sim_st.foreign_started),
			  atomic_long_read(&sim_st.xsaves_skipped));
}

/* Any write zeroes the counters. */
static int sim_stats_set(const char *val, const struct kernel_param *kp)
{
	memset(&sim_st, 0, sizeof(sim_st));
	return 0;
}

static const struct kernel_param_ops sim_stats_ops = {
	.get = sim_stats_get,
	.set = sim_stats_set,
};
module_param_cb(sim_stats, &sim_stats_ops, NULL, 0644);
MODULE_PARM_DESC(sim_stats, "simulated unit: what it saw (faults, ToPA errors, PMIs taken, dropped while masked, unclaimed, foreign starts refused/done, skipped XSAVES); write to zero");

/* ---- reboot ---------------------------------------------------------------- */

static void sim_reboot_one(void *arg)
{
	struct ptrec_sim_cpu *c = this_cpu_ptr(&ptrec_sim);

	if ((c->r.ctl & RTIT_CTL_TRACEEN) && !c->foreign)
		atomic_inc(arg);
}

static int sim_reboot(struct notifier_block *nb, unsigned long code,
		      void *unused)
{
	atomic_t tracing = ATOMIC_INIT(0);

	on_each_cpu(sim_reboot_one, &tracing, 1);
	pr_info("sim: reboot: %d of %u CPUs still trace into ptrec's buffers\n",
		atomic_read(&tracing), num_online_cpus());
	return NOTIFY_DONE;
}

static struct notifier_block sim_reboot_nb = {
	.notifier_call	= sim_reboot,
	.priority	= INT_MIN,	/* after everyone else */
};

/**
 * ptrec_sim_init() - reset the model on every CPU
 *
 * Return: 0 or -ENOMEM.
 */
int ptrec_sim_init(void)
{
	int cpu;

	sim_foreign_topa = (u64 *)get_zeroed_page(GFP_KERNEL);
	sim_foreign_region = (void *)get_zeroed_page(GFP_KERNEL);
	if (!sim_foreign_topa || !sim_foreign_region) {
		free_page((unsigned long)sim_foreign_topa);
		free_page((unsigned long)sim_foreign_region);
		return -ENOMEM;
	}
	sim_foreign_topa[0] = virt_to_phys(sim_foreign_region);
	sim_foreign_topa[1] = virt_to_phys(sim_foreign_topa) | TOPA_END;
	memset(&sim_st, 0, sizeof(sim_st));
	for_each_possible_cpu(cpu) {
		struct ptrec_sim_cpu *c = per_cpu_ptr(&ptrec_sim, cpu);

		memset(c, 0, sizeof(*c));
		hrtimer_init(&c->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		c->timer.function = sim_tick;
	}
	on_each_cpu(sim_start_tick, NULL, 1);
	register_reboot_notifier(&sim_reboot_nb);
	return 0;
}

/**
 * ptrec_sim_exit() - stop the model's timers
 */
void ptrec_sim_exit(void)
{
	int cpu;

	unregister_reboot_notifier(&sim_reboot_nb);
	sim_foreign_on = false;
	on_each_cpu(sim_foreign_fn, NULL, 1);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&ptrec_sim, cpu)->timer);
	free_page((unsigned long)sim_foreign_topa);
	free_page((unsigned long)sim_foreign_region);
}
