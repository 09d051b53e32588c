/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptrec.ko: facts of the Intel PT architecture, and nothing else.
 *
 * Register bits, table formats and state layouts as the Intel SDM
 * (Intel 64 and IA-32 Architectures Software Developer's Manual) defines
 * them, kept apart from the module's own state (ptrec_internal.h) as the
 * kernel keeps pt.h beside pt.c.  References: Vol. 3C chapter 33 "Intel
 * Processor Trace" (36 in editions before 2019), Vol. 1 chapter 13
 * "Managing State Using the XSAVE Feature Set", Vol. 3A chapter 10
 * "Advanced Programmable Interrupt Controller".  The MSR numbers and the
 * bits <asm/msr-index.h> already has come from there.
 */
#ifndef PTREC_PT_H
#define PTREC_PT_H

#include <linux/bits.h>
#include <linux/types.h>
#include <asm/msr-index.h>

/* IA32_RTIT_CTL fields (Vol. 3C 33.2.7.2) that msr-index.h spells longer. */
#define RTIT_CTL_MTC_SHIFT	RTIT_CTL_MTC_RANGE_OFFSET
#define RTIT_CTL_CYC_SHIFT	RTIT_CTL_CYC_THRESH_OFFSET
#define RTIT_CTL_PSB_SHIFT	RTIT_CTL_PSB_FREQ_OFFSET
#define RTIT_CTL_ADDR_SHIFT(n)	(32 + 4 * (n))

/*
 * IA32_RTIT_STATUS.PacketByteCnt (Vol. 3C 33.2.7.4): bytes of packets
 * since the last PSB.  Setting TraceEn with it 0 makes the unit start with
 * PSB+; otherwise it starts without one (33.3.7).
 */
#define RTIT_STATUS_BYTECNT_SHIFT	RTIT_STATUS_BYTECNT_OFFSET

/* PSB period: 2K << IA32_RTIT_CTL.PSBFreq bytes of output (33.2.7.2). */
#define RTIT_PSB_PERIOD(ctl)	(2048ULL << (((ctl) >> RTIT_CTL_PSB_SHIFT) & 0xf))

/* ToPA table entry (Vol. 3C 33.2.6.2, Table 33-3). */
#define TOPA_END		BIT_ULL(0)
#define TOPA_INT		BIT_ULL(2)
#define TOPA_STOP		BIT_ULL(4)
#define TOPA_SIZE_SHIFT		6
#define TOPA_SIZE(e)		(4096ULL << (((e) >> TOPA_SIZE_SHIFT) & 0xf))
#define TOPA_ADDR(e)		((e) & GENMASK_ULL(51, 12))

/* IA32_RTIT_OUTPUT_MASK_PTRS with ToPA (Vol. 3C 33.2.7.8). */
#define MASK_PTRS_LOWER		0x7fULL
#define MASK_PTRS_IDX(v)	((u32)((v) >> 7) & 0x1ffffff)
#define MASK_PTRS_OFF(v)	((u32)((v) >> 32))
#define MASK_PTRS(idx, off)	(MASK_PTRS_LOWER | ((u64)(idx) << 7) | \
				 ((u64)(off) << 32))

/*
 * IA32_PERF_GLOBAL_STATUS[55], Trace_ToPA_PMI: a ToPA region with INT
 * filled (33.2.6.2); cleared through IA32_PERF_GLOBAL_OVF_CTRL[55].
 */
#define PERF_STATUS_TOPA_PMI	MSR_CORE_PERF_GLOBAL_OVF_CTRL_TRACE_TOPA_PMI

/*
 * LVT Performance Monitoring Counters register (Vol. 3A 10.5.1): the APIC
 * sets its mask bit when it delivers a PMI; only software clears it.
 */
#define LVTPC_MASKED		BIT(16)

/* IA32_VMX_MISC[14]: Intel PT may be used in VMX operation (33.5). */
#define VMX_MISC_PT_IN_VMX	BIT_ULL(14)

/* CPUID leaves and bits (Vol. 3C 33.3.1; Vol. 1 13.2). */
#define CPUID_LEAF_PT		0x14
#define CPUID_7_EBX_PT		BIT(25)
#define CPUID_LEAF_XSTATE	0x0d
#define CPUID_D1_EAX_XSAVES	BIT(3)
#define CPUID_D8_ECX_SUPERVISOR	BIT(0)
#define CPUID_LEAF_TSC		0x15

/*
 * XSAVE state component 8, PT state (Vol. 1 13.5.6): nine MSRs, 8 bytes
 * each, in this order; CPUID.(EAX=0DH,ECX=8):EAX gives the component's
 * size (128 bytes on the parts that have it), and every byte from offset
 * 72 on is reserved: XSAVES writes zeros there.  XSAVES clears TraceEn
 * after saving IA32_RTIT_CTL; XRSTORS with TraceEn set is a #GP and
 * writes IA32_RTIT_CTL last.  ADDR2/ADDR3 are not part of it.
 */
#define XFEATURE_PT_BIT		8
#define XSAVE_PT_MSRS		9
#define XSAVE_PT_MSR_BYTES	(XSAVE_PT_MSRS * 8)

/**
 * struct ptrec_pt_xstate - the architectural part of component 8
 * @ctl:	IA32_RTIT_CTL.
 * @output_base: IA32_RTIT_OUTPUT_BASE.
 * @output_mask: IA32_RTIT_OUTPUT_MASK_PTRS.
 * @status:	IA32_RTIT_STATUS.
 * @cr3_match:	IA32_RTIT_CR3_MATCH.
 * @addr01:	IA32_RTIT_ADDR0_A, ADDR0_B, ADDR1_A, ADDR1_B.
 */
struct ptrec_pt_xstate {
	u64 ctl;
	u64 output_base;
	u64 output_mask;
	u64 status;
	u64 cr3_match;
	u64 addr01[4];
};

/* The XSAVE area (Vol. 1 13.4): legacy region, header, extended region. */
#define XSAVE_LEGACY_BYTES	512
#define XSAVE_HDR_BYTES		64
#define XSAVE_EXT_OFFSET	(XSAVE_LEGACY_BYTES + XSAVE_HDR_BYTES)
#define XCOMP_BV_COMPACTED	BIT_ULL(63)

#endif /* PTREC_PT_H */
