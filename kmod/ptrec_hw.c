// SPDX-License-Identifier: GPL-2.0
/*
 * ptrec.ko: the PT unit.  The real instructions (RDMSR/WRMSR, XSAVES/XRSTORS
 * of XSAVE state component 8, the ToPA PMI as an NMI) behind the ops table
 * the simulated unit (ptrec_sim.c) also fills; and, on top of either, the
 * probe, saving and restoring a thread's state, the PMI handler and
 * IA32_XSS ownership, so the module's policy runs unchanged on both.
 *
 * SDM references: Vol. 3C 33.3.1 (detection, CPUID leaf 14H), 33.2.7
 * (RTIT MSRs), 33.2.6.2 (ToPA), 33.3.5 (context switch), 33.5 (VMX);
 * Vol. 1 13.2 (CPUID leaf 0DH), 13.5.6 (PT state), 13.11 (XSAVES).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/panic_notifier.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <linux/string.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/syscore_ops.h>
#include <asm/apic.h>
#include <asm/asm.h>
#include <asm/cpufeature.h>
#include <asm/extable_fixup_types.h>
#include <asm/msr.h>
#include <asm/nmi.h>
#include <asm/processor.h>
#include <asm/tsc.h>

#include "ptrec_internal.h"

const struct ptrec_hw_ops *ptrec_hw;
struct ptrec_caps ptrec_caps;

static DEFINE_PER_CPU(u64, ptrec_saved_xss);
static DEFINE_PER_CPU(bool, ptrec_xss_owned);
static enum cpuhp_state ptrec_hp_state;
static bool ptrec_nmi_registered;

#define PTREC_CAP_FLAG(_sub, _reg, _mask, _flag) \
	{ .sub = _sub, .reg = PTREC_##_reg, .mask = _mask, .flag = _flag }
#define PTREC_CAP_VAL(_sub, _reg, _mask, _field) \
	{ .sub = _sub, .reg = PTREC_##_reg, .mask = _mask, \
	  .field = offsetof(struct ptrec_caps, _field) }

/*
 * What CPUID leaf 14H says (SDM Vol. 3C 33.3.1, Table 33-11), as the
 * flags and values of struct ptrec_caps: one row per capability, read by
 * ptrec_caps_from_cpuid() alone.
 */
static const struct ptrec_cap_desc {
	u8 sub;		/* sub-leaf */
	u8 reg;		/* PTREC_EAX.. */
	u32 mask;	/* the bits */
	u32 flag;	/* enum ptrec_info_flag set when non-zero, or 0 */
	size_t field;	/* else the u32 of struct ptrec_caps to store in */
} ptrec_cap_table[] = {
	PTREC_CAP_FLAG(0, EBX, BIT(0), PTREC_INFO_CR3_FILTER),
	PTREC_CAP_FLAG(0, EBX, BIT(1), PTREC_INFO_PSB_CYC),
	PTREC_CAP_FLAG(0, EBX, BIT(2), PTREC_INFO_IP_FILTER),
	PTREC_CAP_FLAG(0, EBX, BIT(3), PTREC_INFO_MTC),
	PTREC_CAP_FLAG(0, EBX, BIT(4), PTREC_INFO_PTWRITE),
	PTREC_CAP_FLAG(0, EBX, BIT(5), PTREC_INFO_POWER_EVENTS),
	PTREC_CAP_FLAG(0, ECX, BIT(0), PTREC_INFO_TOPA),
	PTREC_CAP_FLAG(0, ECX, BIT(1), PTREC_INFO_TOPA_MULTI),
	PTREC_CAP_FLAG(0, ECX, BIT(2), PTREC_INFO_SINGLE_RANGE),
	PTREC_CAP_FLAG(0, ECX, BIT(31), PTREC_INFO_LIP),
	PTREC_CAP_VAL(1, EAX, GENMASK(2, 0), nr_ranges),
	PTREC_CAP_VAL(1, EAX, GENMASK(31, 16), mtc_periods),
	PTREC_CAP_VAL(1, EBX, GENMASK(15, 0), cyc_thresholds),
	PTREC_CAP_VAL(1, EBX, GENMASK(31, 16), psb_periods),
};

/* The rows of ptrec_cap_table from sub-leaves 0 and 1 of leaf 14H. */
static void ptrec_caps_from_cpuid(struct ptrec_caps *c, u32 regs[2][4])
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ptrec_cap_table); i++) {
		const struct ptrec_cap_desc *d = &ptrec_cap_table[i];
		u32 v = (regs[d->sub][d->reg] & d->mask) >> __ffs(d->mask);

		if (d->flag && v)
			c->flags |= d->flag;
		else if (!d->flag)
			*(u32 *)((u8 *)c + d->field) = v;
	}
}

/* ---- the real unit ----------------------------------------------------- */

static void ptrec_real_cpuid(u32 leaf, u32 sub, u32 r[4])
{
	cpuid_count(leaf, sub, &r[PTREC_EAX], &r[PTREC_EBX], &r[PTREC_ECX],
		    &r[PTREC_EDX]);
}

static int ptrec_real_rdmsr(u32 msr, u64 *val)
{
	return rdmsrl_safe(msr, val) ? -EIO : 0;
}

static int ptrec_real_wrmsr(u32 msr, u64 val)
{
	return wrmsrl_safe(msr, val) ? -EIO : 0;
}

/*
 * XSAVES/XRSTORS with RFBM = bit 8 only (EDX:EAX = 0:0x100); SDM Vol. 1
 * 13.11/13.12.  The compacted layout puts component 8 right after the
 * 64-byte header (offset 576).  A fault (say IA32_XSS[8] cleared under
 * us, or XRSTORS with TraceEn set) must not oops inside __schedule():
 * the exception table turns it into a non-zero trap number in EAX.
 */
static int ptrec_real_xsaves(struct ptrec_save_area *a)
{
	u32 lo = BIT(XFEATURE_PT_BIT), hi = 0;
	int err;

	asm volatile("1: .byte 0x48, 0x0f, 0xc7, 0x2f\n\t"	/* xsaves64 (%rdi) */
		     "xor %[err], %[err]\n"
		     "2:\n\t"
		     _ASM_EXTABLE_TYPE(1b, 2b, EX_TYPE_FAULT)
		     : [err] "=a" (err)
		     : "D" (a), "a" (lo), "d" (hi)
		     : "memory");
	return err ? -EIO : 0;
}

static int ptrec_real_xrstors(struct ptrec_save_area *a)
{
	u32 lo = BIT(XFEATURE_PT_BIT), hi = 0;
	int err;

	asm volatile("1: .byte 0x48, 0x0f, 0xc7, 0x1f\n\t"	/* xrstors64 (%rdi) */
		     "xor %[err], %[err]\n"
		     "2:\n\t"
		     _ASM_EXTABLE_TYPE(1b, 2b, EX_TYPE_FAULT)
		     : [err] "=a" (err)
		     : "D" (a), "a" (lo), "d" (hi)
		     : "memory");
	return err ? -EIO : 0;
}

static bool ptrec_real_pmi_pending(void)
{
	u64 st;

	if (rdmsrl_safe(MSR_CORE_PERF_GLOBAL_STATUS, &st))
		return false;
	return st & PERF_STATUS_TOPA_PMI;
}

static void ptrec_real_pmi_ack(void)
{
	wrmsrl_safe(MSR_CORE_PERF_GLOBAL_OVF_CTRL, PERF_STATUS_TOPA_PMI);
}

static void ptrec_real_pmi_unmask(void)
{
	apic_write(APIC_LVTPC, APIC_DM_NMI);
}

/* KVM's VMXON sets CR4.VMXE first (SDM Vol. 3C 24.7). */
static bool ptrec_real_in_vmx(void)
{
	return __read_cr4() & X86_CR4_VMXE;
}

static const struct ptrec_hw_ops ptrec_real_ops = {
	.name		= "intel_pt",
	.cpuid		= ptrec_real_cpuid,
	.read_msr	= ptrec_real_rdmsr,
	.write_msr	= ptrec_real_wrmsr,
	.xsaves		= ptrec_real_xsaves,
	.xrstors	= ptrec_real_xrstors,
	.pmi_pending	= ptrec_real_pmi_pending,
	.pmi_ack	= ptrec_real_pmi_ack,
	.pmi_unmask	= ptrec_real_pmi_unmask,
	.in_vmx		= ptrec_real_in_vmx,
};

/* ---- probing ----------------------------------------------------------- */

/* Why the real CPU cannot be used, or NULL. */
static const char *ptrec_real_missing(void)
{
	if (boot_cpu_data.x86_vendor != X86_VENDOR_INTEL)
		return "not an Intel CPU (CPUID vendor)";
	if (boot_cpu_data.cpuid_level < CPUID_LEAF_PT)
		return "no CPUID leaf 14H (max basic leaf < 14H)";
	if (!(cpuid_ebx(7) & CPUID_7_EBX_PT))
		return "CPUID.07H:EBX[25] (Intel PT) is 0";
	return NULL;
}

/*
 * XSAVES for component 8 (SDM Vol. 1 13.2): CPUID.(EAX=0DH,ECX=1):EAX[3]
 * (XSAVES) and ECX[8] (IA32_XSS[8] supported), component 8 a supervisor
 * component (CPUID.(EAX=0DH,ECX=8):ECX[0]) of CPUID.(0DH,8):EAX bytes.
 */
static bool ptrec_use_xsaves = true;
module_param_named(xsaves, ptrec_use_xsaves, bool, 0444);
MODULE_PARM_DESC(xsaves, "save PT state with XSAVES where the CPU offers it (0: always the MSRs; bring-up compares the two)");

static void ptrec_probe_xsaves(struct ptrec_caps *c)
{
	u32 r[4];

	if (!ptrec_use_xsaves)
		return;
	ptrec_hw->cpuid(CPUID_LEAF_XSTATE, 1, r);
	if (!(r[PTREC_EAX] & CPUID_D1_EAX_XSAVES) ||
	    !(r[PTREC_ECX] & BIT(XFEATURE_PT_BIT)))
		return;
	if (ptrec_hw == &ptrec_real_ops && !boot_cpu_has(X86_FEATURE_XSAVES))
		return;
	ptrec_hw->cpuid(CPUID_LEAF_XSTATE, XFEATURE_PT_BIT, r);
	/* sized from CPUID: 128 bytes on real parts, 72 of them MSRs */
	if (r[PTREC_EAX] >= XSAVE_PT_MSR_BYTES &&
	    r[PTREC_EAX] <= PTREC_XSTATE_PT_MAX &&
	    (r[PTREC_ECX] & CPUID_D8_ECX_SUPERVISOR)) {
		c->xsaves = true;
		c->xsave_size = r[PTREC_EAX];
		c->flags |= PTREC_INFO_XSAVES;
	}
}

/**
 * ptrec_hw_probe() - find the PT unit's capabilities
 *
 * SDM Vol. 3C 33.3.1: CPUID.(EAX=07H,ECX=0):EBX[25] says Intel PT exists;
 * leaf 14H sub-leaf 0 lists features, sub-leaf 1 the range count and the
 * MTC/CYC/PSB period bitmaps (ptrec_cap_table).  Vol. 1 13.2: XSAVES of
 * component 8 (ptrec_probe_xsaves()).  Vol. 3C 33.5: IA32_VMX_MISC[14]
 * says PT may be used in VMX operation.  With sim=1 the same probe reads
 * the simulated unit's CPUID and MSRs.
 *
 * Return: 0 if a unit (real or simulated) can be used, -ENODEV otherwise
 * (with one kernel log line naming what is missing).
 */
int ptrec_hw_probe(void)
{
	struct ptrec_caps *c = &ptrec_caps;
	const char *missing = NULL;
	u32 regs[2][4], r[4];
	u64 v;

	memset(c, 0, sizeof(*c));
	if (ptrec_sim_mode) {
		ptrec_hw = &ptrec_sim_ops;
		c->flags |= PTREC_INFO_SIMULATED;
	} else {
		ptrec_hw = &ptrec_real_ops;
		missing = ptrec_real_missing();
		if (missing) {
			pr_err("no usable Intel PT: %s; load with sim=1 for the simulated unit\n",
			       missing);
			return -ENODEV;
		}
	}
	if (boot_cpu_has(X86_FEATURE_HYPERVISOR))
		c->flags |= PTREC_INFO_HYPERVISOR;

	memset(regs, 0, sizeof(regs));
	ptrec_hw->cpuid(CPUID_LEAF_PT, 0, regs[0]);
	if (regs[0][PTREC_EAX] >= 1)
		ptrec_hw->cpuid(CPUID_LEAF_PT, 1, regs[1]);
	ptrec_caps_from_cpuid(c, regs);
	if (!(c->flags & PTREC_INFO_TOPA)) {
		pr_err("no usable Intel PT: no ToPA output (CPUID.14H.0:ECX[0] = 0)\n");
		return -ENODEV;
	}
	if ((ptrec_sim_mode || boot_cpu_has(X86_FEATURE_VMX)) &&
	    !ptrec_hw->read_msr(MSR_IA32_VMX_MISC, &v) &&
	    (v & VMX_MISC_PT_IN_VMX))
		c->flags |= PTREC_INFO_IN_VMX;
	ptrec_probe_xsaves(c);
	if (!c->xsave_size)	/* the MSR path's area: 9 + 4 MSRs */
		c->xsave_size = XSAVE_PT_MSR_BYTES + 4 * sizeof(u64);
	if (boot_cpu_data.cpuid_level >= CPUID_LEAF_TSC) {
		ptrec_real_cpuid(CPUID_LEAF_TSC, 0, r);
		c->cpuid_15_eax = r[PTREC_EAX];
		c->cpuid_15_ebx = r[PTREC_EBX];
	}
	if (!ptrec_hw->read_msr(MSR_PLATFORM_INFO, &v))
		c->nom_freq = (v >> 8) & 0xff;
	return 0;
}

/**
 * ptrec_hw_rdmsr() - read an MSR of the unit, 0 if the read faults
 * @msr:	the MSR.
 *
 * Return: its value.
 */
u64 ptrec_hw_rdmsr(u32 msr)
{
	u64 v = 0;

	ptrec_hw->read_msr(msr, &v);
	return v;
}

/* ---- saving and restoring a thread's PT state ------------------------ */

/*
 * SDM Vol. 3C 33.3.5.1: clear TraceEn first, so the output pointers are
 * final (33.2.7.7/8 call them unreliable while TraceEn = 1) and the other
 * MSRs may be written later; then read the rest.  Return: 0 or -EIO if
 * any access faulted.
 */
static int ptrec_save_msrs(struct ptrec_save_area *a)
{
	struct ptrec_pt_xstate *s = &a->pt;
	int err;

	err = ptrec_hw->read_msr(MSR_IA32_RTIT_CTL, &s->ctl);
	if (!err && (s->ctl & RTIT_CTL_TRACEEN))
		err = ptrec_hw->write_msr(MSR_IA32_RTIT_CTL,
					  s->ctl & ~RTIT_CTL_TRACEEN);
	err |= ptrec_hw->read_msr(MSR_IA32_RTIT_STATUS, &s->status);
	err |= ptrec_hw->read_msr(MSR_IA32_RTIT_OUTPUT_BASE, &s->output_base);
	err |= ptrec_hw->read_msr(MSR_IA32_RTIT_OUTPUT_MASK, &s->output_mask);
	/* CR3_MATCH and ADDRn change only by software: the area has them. */
	return err ? -EIO : 0;
}

/* ADDR2/3, which component 8 does not hold (SDM Vol. 1 13.5.6). */
static int ptrec_restore_addr23(struct ptrec_save_area *a)
{
	unsigned int i;
	int err = 0;

	for (i = 2; i < ptrec_caps.nr_ranges && i < 4; i++) {
		err |= ptrec_hw->write_msr(MSR_IA32_RTIT_ADDR0_A + 2 * i,
					   a->addr23[2 * (i - 2)]);
		err |= ptrec_hw->write_msr(MSR_IA32_RTIT_ADDR0_B + 2 * i,
					   a->addr23[2 * (i - 2) + 1]);
	}
	return err;
}

/*
 * SDM Vol. 3C 33.3.5.1: write every MSR but IA32_RTIT_CTL while TraceEn
 * is 0 (writing them with TraceEn = 1 is a #GP), then IA32_RTIT_CTL.
 * Return: 0 or -EIO if any write faulted (IA32_RTIT_CTL is then not
 * written, so the unit stays off).
 */
static int ptrec_restore_msrs(struct ptrec_save_area *a)
{
	struct ptrec_pt_xstate *s = &a->pt;
	unsigned int i;
	int err;

	err = ptrec_hw->write_msr(MSR_IA32_RTIT_STATUS, s->status);
	err |= ptrec_hw->write_msr(MSR_IA32_RTIT_OUTPUT_BASE, s->output_base);
	err |= ptrec_hw->write_msr(MSR_IA32_RTIT_OUTPUT_MASK, s->output_mask);
	if (ptrec_caps.flags & PTREC_INFO_CR3_FILTER)
		err |= ptrec_hw->write_msr(MSR_IA32_RTIT_CR3_MATCH,
					   s->cr3_match);
	for (i = 0; i < ptrec_caps.nr_ranges && i < 2; i++) {
		err |= ptrec_hw->write_msr(MSR_IA32_RTIT_ADDR0_A + 2 * i,
					   s->addr01[2 * i]);
		err |= ptrec_hw->write_msr(MSR_IA32_RTIT_ADDR0_B + 2 * i,
					   s->addr01[2 * i + 1]);
	}
	err |= ptrec_restore_addr23(a);
	if (!err)
		err = ptrec_hw->write_msr(MSR_IA32_RTIT_CTL, s->ctl);
	return err ? -EIO : 0;
}

/**
 * ptrec_hw_save() - save the unit's state to @a and leave TraceEn clear
 * @a:	the thread's save area.
 *
 * XSAVES of component 8 where the probe chose it, else the MSRs.  XSAVES
 * clears TraceEn only if it saves PT state (SDM Vol. 1 13.5.6), and its
 * modified optimization (13.6) may skip a component unchanged since the
 * XRSTORS from the same area; so TraceEn is read back, and if it is still
 * set the state is saved through the MSRs, which clears it first.
 * Context: IRQs off, on the CPU whose unit holds the state.
 * Return: 0, or -EIO if an access faulted (the area is then unreliable).
 */
int ptrec_hw_save(struct ptrec_save_area *a)
{
	if (!ptrec_caps.xsaves)
		return ptrec_save_msrs(a);
	if (ptrec_hw->xsaves(a) ||
	    (ptrec_hw_rdmsr(MSR_IA32_RTIT_CTL) & RTIT_CTL_TRACEEN)) {
		pr_info_once("XSAVES left PT state unsaved (TraceEn still set): saving through the MSRs where it does\n");
		return ptrec_save_msrs(a);
	}
	return 0;
}

/**
 * ptrec_hw_restore() - load @a into the unit, IA32_RTIT_CTL last
 * @a:	the thread's save area.
 *
 * Context: IRQs off.
 * Return: 0, or -EIO if a write or XRSTORS faulted.
 */
int ptrec_hw_restore(struct ptrec_save_area *a)
{
	if (!ptrec_caps.xsaves)
		return ptrec_restore_msrs(a);
	if (ptrec_restore_addr23(a))
		return -EIO;
	a->xcomp_bv = XCOMP_BV_COMPACTED | BIT_ULL(XFEATURE_PT_BIT);
	a->xstate_bv = BIT_ULL(XFEATURE_PT_BIT);
	return ptrec_hw->xrstors(a);
}

/* ---- the PMI ----------------------------------------------------------- */

/**
 * ptrec_hw_pmi() - the ToPA PMI, in NMI context (or the model's timer)
 *
 * The PT PMI is an NMI shared with perf (SDM Vol. 3C 33.2.6.2: ToPA PMI
 * sets IA32_PERF_GLOBAL_STATUS[55]).  It is not precise: it may arrive
 * after the thread that filled the region was switched out (#20.3), so
 * bit 55 is ours wherever ptrec has armed the unit (no other PT user can
 * run there while ptrec holds it, ptrec_hw_claim()): acknowledged and
 * claimed, the loaded thread (if any) read and its drain queued.  The
 * APIC masked the LVT entry when it delivered the PMI (Vol. 3A 10.5.1);
 * it is unmasked here (#20.2), as perf's handler does, or no PMI would
 * come again on this CPU without perf's NMI watchdog.
 *
 * Return: true if it was ours.
 */
bool ptrec_hw_pmi(void)
{
	if (!this_cpu_read(ptrec_armed) || !ptrec_hw->pmi_pending())
		return false;
	ptrec_hw->pmi_ack();
	ptrec_pmi_raise();
	ptrec_hw->pmi_unmask();
	return true;
}

static int ptrec_nmi(unsigned int cmd, struct pt_regs *regs)
{
	return ptrec_hw_pmi() ? NMI_HANDLED : NMI_DONE;
}

/* ---- holding the unit against perf's intel_pt (#20.8) ------------------ */

static DEFINE_PER_CPU(bool, ptrec_claimed);
static DEFINE_PER_CPU(struct perf_event *, ptrec_claim_ev);
static DEFINE_MUTEX(ptrec_claim_lock);
static unsigned int ptrec_claims;	/* sessions that hold the unit */
static int ptrec_pt_type = -1;		/* intel_pt's PMU type, or -1 */

/* intel_pt's perf PMU type from sysfs, or a negative errno (no PMU). */
static int ptrec_pt_pmu_type(void)
{
	char buf[16] = "";
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int type;

	f = filp_open("/sys/bus/event_source/devices/intel_pt/type",
		      O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0 || kstrtoint(strim(buf), 10, &type))
		return -EINVAL;
	return type;
}

/*
 * Holds @cpu's unit: a disabled CPU-wide intel_pt event.  intel_pt is an
 * exclusive PMU (PERF_PMU_CAP_EXCLUSIVE): while it exists, perf refuses
 * per-task intel_pt events (pmu->exclusive_cnt) and other CPU-wide ones
 * on that CPU (exclusive_event_installable()) with EBUSY, and its
 * creation fails with EBUSY if perf uses PT already; pt_event_init()'s
 * x86_add_exclusive() also keeps perf's NMI handler running.  Disabled,
 * it never runs.  Without an intel_pt PMU (the simulated unit), nothing
 * can use PT through perf, and the flag alone stands for the claim.
 */
static int ptrec_claim_cpu(unsigned int cpu)
{
	struct perf_event_attr attr = {
		.type		= ptrec_pt_type,
		.size		= sizeof(attr),
		.disabled	= 1,
		.exclude_kernel	= 1,
	};
	struct perf_event *ev;

	if (ptrec_pt_type >= 0) {
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL,
						      NULL);
		if (IS_ERR(ev))
			return PTR_ERR(ev);
		per_cpu(ptrec_claim_ev, cpu) = ev;
	}
	per_cpu(ptrec_claimed, cpu) = true;
	return 0;
}

static void ptrec_unclaim_cpu(unsigned int cpu)
{
	struct perf_event *ev = per_cpu(ptrec_claim_ev, cpu);

	per_cpu(ptrec_claimed, cpu) = false;
	per_cpu(ptrec_claim_ev, cpu) = NULL;
	if (ev)
		perf_event_release_kernel(ev);
}

/**
 * ptrec_hw_claim() - hold the PT unit of every CPU for a session
 *
 * The first session takes it, the last ptrec_hw_release() gives it back.
 * Context: process, may sleep.
 * Return: 0, or -EBUSY (logged) if perf uses Intel PT.
 */
int ptrec_hw_claim(void)
{
	unsigned int cpu;
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&ptrec_claim_lock);
	if (ptrec_claims++)
		goto out_unlock;
	ptrec_pt_type = ptrec_hw == &ptrec_real_ops ? ptrec_pt_pmu_type() : -1;
	for_each_online_cpu(cpu) {
		ret = ptrec_claim_cpu(cpu);
		if (ret)
			break;
	}
	if (ret) {
		for_each_possible_cpu(cpu)
			ptrec_unclaim_cpu(cpu);
		ptrec_claims = 0;
		pr_warn("Intel PT is in use by perf (an intel_pt or LBR event exists, error %d): not starting\n",
			ret);
		ret = -EBUSY;
	}
out_unlock:
	mutex_unlock(&ptrec_claim_lock);
	cpus_read_unlock();
	return ret;
}

/**
 * ptrec_hw_release() - a session no longer needs the unit
 *
 * Context: process, may sleep.
 */
void ptrec_hw_release(void)
{
	unsigned int cpu;

	mutex_lock(&ptrec_claim_lock);
	if (!WARN_ON(!ptrec_claims) && !--ptrec_claims)
		for_each_possible_cpu(cpu)
			ptrec_unclaim_cpu(cpu);
	mutex_unlock(&ptrec_claim_lock);
}

/* A CPU coming online while the unit is held is held too. */
static void ptrec_claim_online(unsigned int cpu)
{
	mutex_lock(&ptrec_claim_lock);
	if (ptrec_claims && !per_cpu(ptrec_claimed, cpu) &&
	    ptrec_claim_cpu(cpu))
		pr_warn("CPU %u: cannot hold its PT unit against perf\n", cpu);
	mutex_unlock(&ptrec_claim_lock);
}

/**
 * ptrec_hw_unit_claimed() - does ptrec hold the PT unit of @cpu, so that
 * another PT user (perf's intel_pt) cannot start there?
 * @cpu:	the CPU.
 *
 * Return: true while a session holds it.
 */
bool ptrec_hw_unit_claimed(int cpu)
{
	return per_cpu(ptrec_claimed, cpu);
}

/* ---- stopping the unit for reboot, kexec and crash (#20.13) ------------- */

static bool ptrec_shut;

/**
 * ptrec_hw_shut() - is the machine going down (no unit may start again)?
 *
 * Return: true after a reboot, kexec or panic began.
 */
bool ptrec_hw_shut(void)
{
	return READ_ONCE(ptrec_shut);
}

/* Clear TraceEn on this CPU's unit if ptrec set it; NMI-safe. */
static void ptrec_stop_unit(void *unused)
{
	u64 ctl;

	if (!this_cpu_read(ptrec_armed) ||
	    ptrec_hw->read_msr(MSR_IA32_RTIT_CTL, &ctl) ||
	    !(ctl & RTIT_CTL_TRACEEN))
		return;
	ptrec_hw->write_msr(MSR_IA32_RTIT_CTL, ctl & ~RTIT_CTL_TRACEEN);
}

/*
 * Reboot and kexec (kernel_restart_prepare() and kernel_kexec() call the
 * reboot notifiers): no unit may go on writing into memory the next
 * kernel reuses, as perf's cpu_emergency_stop_pt() ensures for its own.
 */
static int ptrec_reboot(struct notifier_block *nb, unsigned long code,
			void *unused)
{
	WRITE_ONCE(ptrec_shut, true);
	on_each_cpu(ptrec_stop_unit, NULL, 1);
	return NOTIFY_DONE;
}

static struct notifier_block ptrec_reboot_nb = {
	.notifier_call	= ptrec_reboot,
	.priority	= INT_MAX,
};

/* Panic: this CPU; the others stop in the kprobe below (kdump). */
static int ptrec_panic(struct notifier_block *nb, unsigned long code,
		       void *unused)
{
	WRITE_ONCE(ptrec_shut, true);
	ptrec_stop_unit(NULL);
	return NOTIFY_DONE;
}

static struct notifier_block ptrec_panic_nb = {
	.notifier_call	= ptrec_panic,
	.priority	= INT_MAX,
};

/*
 * Crash kexec: the kernel calls cpu_emergency_stop_pt() on every CPU
 * (the crashing one, and the others from the NMI that stops them) to stop
 * perf's PT before the crash kernel runs; ptrec stops its own there too.
 */
static int ptrec_kp_emergency(struct kprobe *kp, struct pt_regs *regs)
{
	WRITE_ONCE(ptrec_shut, true);
	ptrec_stop_unit(NULL);
	return 0;
}

static struct kprobe ptrec_kp_stop = {
	.symbol_name	= "cpu_emergency_stop_pt",
	.pre_handler	= ptrec_kp_emergency,
};

static bool ptrec_kp_stop_on;

static void ptrec_emergency_init(void)
{
	register_reboot_notifier(&ptrec_reboot_nb);
	atomic_notifier_chain_register(&panic_notifier_list, &ptrec_panic_nb);
	ptrec_kp_stop_on = !register_kprobe(&ptrec_kp_stop);
	if (!ptrec_kp_stop_on)
		pr_info("no kprobe on cpu_emergency_stop_pt: a crash kexec does not stop the unit on other CPUs\n");
}

static void ptrec_emergency_exit(void)
{
	if (ptrec_kp_stop_on)
		unregister_kprobe(&ptrec_kp_stop);
	atomic_notifier_chain_unregister(&panic_notifier_list, &ptrec_panic_nb);
	unregister_reboot_notifier(&ptrec_reboot_nb);
}

/* ---- IA32_XSS[8] ownership ------------------------------------------- */

static void ptrec_xss_take(void *unused)
{
	u64 xss;

	if (ptrec_hw->read_msr(MSR_IA32_XSS, &xss))
		return;
	if (!this_cpu_read(ptrec_xss_owned))
		this_cpu_write(ptrec_saved_xss, xss);
	this_cpu_write(ptrec_xss_owned, true);
	if (!(xss & BIT_ULL(XFEATURE_PT_BIT)))
		ptrec_hw->write_msr(MSR_IA32_XSS,
				    xss | BIT_ULL(XFEATURE_PT_BIT));
}

static void ptrec_xss_give(void *unused)
{
	if (!this_cpu_read(ptrec_xss_owned))
		return;
	ptrec_hw->write_msr(MSR_IA32_XSS, this_cpu_read(ptrec_saved_xss));
	this_cpu_write(ptrec_xss_owned, false);
}

static int ptrec_cpu_online(unsigned int cpu)
{
	if (ptrec_hw == &ptrec_sim_ops)
		ptrec_sim_cpu_online();
	ptrec_claim_online(cpu);
	if (ptrec_caps.xsaves)
		ptrec_xss_take(NULL);
	return 0;
}

/*
 * IA32_XSS[8] stays set on a CPU going offline: a traced task can still
 * be switched in there after this callback, and its XRSTORS would fault
 * without the bit.  The kernel writes IA32_XSS anew when the CPU comes
 * back (fpu__init_cpu_xstate()); module exit gives it back everywhere.
 */
static int ptrec_cpu_offline(unsigned int cpu)
{
	return 0;
}

/* The kernel rewrites IA32_XSS on resume (fpu__init_cpu_xstate). */
static void ptrec_resume(void)
{
	if (ptrec_caps.xsaves) {
		this_cpu_write(ptrec_xss_owned, false);
		ptrec_xss_take(NULL);
	}
}

static struct syscore_ops ptrec_syscore = {
	.resume = ptrec_resume,
};

static void ptrec_foreign_one(void *arg)
{
	atomic_t *busy = arg;

	if (ptrec_hw_rdmsr(MSR_IA32_RTIT_CTL) & RTIT_CTL_TRACEEN &&
	    !this_cpu_read(ptrec_cur))
		atomic_inc(busy);
}

/**
 * ptrec_hw_check_foreign() - is another user (perf's intel_pt) tracing?
 *
 * Return: 0, or -EBUSY if IA32_RTIT_CTL.TraceEn is set on a CPU where no
 * ptrec thread is loaded.
 */
int ptrec_hw_check_foreign(void)
{
	atomic_t busy = ATOMIC_INIT(0);

	on_each_cpu(ptrec_foreign_one, &busy, 1);
	if (atomic_read(&busy)) {
		pr_warn("Intel PT is in use by another tracer (perf intel_pt?) on %d CPU(s): not starting\n",
			atomic_read(&busy));
		return -EBUSY;
	}
	return 0;
}

/**
 * ptrec_hw_init() - take IA32_XSS[8], register the PMI handler
 *
 * Return: 0 or a negative errno.
 */
int ptrec_hw_init(void)
{
	int ret;

	if (ptrec_hw == &ptrec_sim_ops) {
		ret = ptrec_sim_init();
		if (ret)
			return ret;
	}
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "ptrec:online",
				ptrec_cpu_online, ptrec_cpu_offline);
	if (ret < 0)
		goto err_sim_exit;
	ptrec_hp_state = ret;
	register_syscore_ops(&ptrec_syscore);

	if (ptrec_hw == &ptrec_real_ops) {
		ret = register_nmi_handler(NMI_LOCAL, ptrec_nmi,
					   NMI_FLAG_FIRST, PTREC_NAME);
		if (ret)
			goto err_unregister_hotplug;
		ptrec_nmi_registered = true;
	}
	ptrec_emergency_init();
	return 0;

err_unregister_hotplug:
	unregister_syscore_ops(&ptrec_syscore);
	cpuhp_remove_state(ptrec_hp_state);
err_sim_exit:
	if (ptrec_hw == &ptrec_sim_ops)
		ptrec_sim_exit();
	return ret;
}

/**
 * ptrec_hw_exit() - give IA32_XSS[8] back, unregister handlers
 */
void ptrec_hw_exit(void)
{
	ptrec_emergency_exit();
	if (ptrec_nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, PTREC_NAME);
	ptrec_nmi_registered = false;
	unregister_syscore_ops(&ptrec_syscore);
	cpus_read_lock();
	cpuhp_remove_state_nocalls_cpuslocked(ptrec_hp_state);
	if (ptrec_caps.xsaves)
		on_each_cpu(ptrec_xss_give, NULL, 1);
	cpus_read_unlock();
	if (ptrec_hw == &ptrec_sim_ops)
		ptrec_sim_exit();
}
