/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ptrec kernel module interface: /dev/ptrec.
 *
 * One tracing session per open file.  A session traces one process: every
 * thread it has when PTREC_IOC_ATTACH runs, every thread it creates later,
 * and (PTREC_CFG_FOLLOW_FORK) its children.  Each traced thread owns its
 * ToPA table, output regions and PT state save area; the module saves and
 * restores that state at context switch.
 *
 * Data reaches user space through read(): a stream of messages, each
 * starting with struct ptrec_sb_header (sideband/uapi/ptrec_sideband.h).
 * A message whose type is a PTREC_SB_* type is a sideband record, written
 * by the module in exactly the sideband stream format.  A message of type
 * PTREC_MSG_TRACE carries bytes of one thread's PT stream.  Messages are
 * in the order the module produced them; hdr.time is non-decreasing within
 * sideband records.  read() returns whole messages only; a buffer smaller
 * than PTREC_READ_MIN gets -EINVAL.  poll() reports POLLIN when a message
 * is ready and POLLHUP once the traced process has exited and everything
 * has been read (read() then returns 0).
 *
 * Every ioctl struct starts with @size (sizeof the struct as user space
 * knows it) and @version (PTREC_UAPI_VERSION).  The module rejects a
 * @size it does not know with -EINVAL and a @version it does not know with
 * -EPROTO; reserved fields must be zero (-EINVAL otherwise), so they can
 * gain a meaning later.  Any layout change bumps PTREC_UAPI_VERSION.
 *
 * Permission: CAP_PERFMON or CAP_SYS_ADMIN, and the target must be a
 * process the caller could ptrace (same uids, or CAP_SYS_PTRACE).
 */
#ifndef _UAPI_PTREC_H
#define _UAPI_PTREC_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PTREC_DEVICE		"/dev/ptrec"
/*
 * 2: the read() stream's CR3 records are sideband format 2's (40 bytes,
 * with kernel_cr3); 1 had format 1's.  The stream carries no version of
 * its own, so its records' layout is part of this one.
 */
#define PTREC_UAPI_VERSION	2

/* Smallest buffer read() accepts: the largest message. */
#define PTREC_MSG_TRACE_MAX	65536
#define PTREC_READ_MIN		(PTREC_MSG_TRACE_MAX + 32)

/* enum ptrec_info_flag: what this machine (or the simulated unit) has. */
enum ptrec_info_flag {
	PTREC_INFO_SIMULATED	= 1 << 0,  /* the simulated PT unit runs */
	PTREC_INFO_XSAVES	= 1 << 1,  /* XSAVES manages component 8 */
	PTREC_INFO_TOPA		= 1 << 2,  /* CPUID.14H.0:ECX[0] */
	PTREC_INFO_TOPA_MULTI	= 1 << 3,  /* CPUID.14H.0:ECX[1] */
	PTREC_INFO_SINGLE_RANGE	= 1 << 4,  /* CPUID.14H.0:ECX[2] */
	PTREC_INFO_CR3_FILTER	= 1 << 5,  /* CPUID.14H.0:EBX[0] */
	PTREC_INFO_PSB_CYC	= 1 << 6,  /* CPUID.14H.0:EBX[1] */
	PTREC_INFO_IP_FILTER	= 1 << 7,  /* CPUID.14H.0:EBX[2] */
	PTREC_INFO_MTC		= 1 << 8,  /* CPUID.14H.0:EBX[3] */
	PTREC_INFO_PTWRITE	= 1 << 9,  /* CPUID.14H.0:EBX[4] */
	PTREC_INFO_POWER_EVENTS	= 1 << 10, /* CPUID.14H.0:EBX[5] */
	PTREC_INFO_LIP		= 1 << 11, /* CPUID.14H.0:ECX[31] */
	PTREC_INFO_IN_VMX	= 1 << 12, /* IA32_VMX_MISC[14] */
	PTREC_INFO_HYPERVISOR	= 1 << 13, /* CPUID.1:ECX[31] */
};

/**
 * struct ptrec_info - PTREC_IOC_INFO: what the module and the PT unit offer
 * @size:	sizeof(struct ptrec_info), set by the caller.
 * @version:	PTREC_UAPI_VERSION, set by the caller.
 * @flags:	enum ptrec_info_flag.
 * @nr_addr_ranges: IP filter ranges (CPUID.14H.1:EAX[2:0]).
 * @mtc_periods: bitmap of valid MTC periods (CPUID.14H.1:EAX[31:16]).
 * @cyc_thresholds: bitmap of valid CYC thresholds (CPUID.14H.1:EBX[15:0]).
 * @psb_periods: bitmap of valid PSB periods (CPUID.14H.1:EBX[31:16]).
 * @xsave_size:	size of the PT state component (CPUID.(0DH,8):EAX), or of
 *		the module's MSR save area without XSAVES.
 * @cpuid_15_eax: TSC/core crystal clock ratio denominator (CPUID.15H:EAX).
 * @cpuid_15_ebx: its numerator (CPUID.15H:EBX).
 * @family:	display family, for the decoder's errata table.
 * @model:	display model.
 * @stepping:	stepping.
 * @nom_freq:	maximum non-turbo ratio (MSR_PLATFORM_INFO[15:8]) or 0.
 * @tsc_khz:	TSC frequency the kernel measured.
 * @reserved:	zero.
 */
struct ptrec_info {
	__u32 size;
	__u32 version;
	__u32 flags;
	__u32 nr_addr_ranges;
	__u32 mtc_periods;
	__u32 cyc_thresholds;
	__u32 psb_periods;
	__u32 xsave_size;
	__u32 cpuid_15_eax;
	__u32 cpuid_15_ebx;
	__u16 family;
	__u8 model;
	__u8 stepping;
	__u32 nom_freq;
	__u64 tsc_khz;
	__u64 reserved[6];
};

/* enum ptrec_cfg_flag: how a session traces. */
enum ptrec_cfg_flag {
	PTREC_CFG_USER		= 1 << 0,  /* RTIT_CTL.User: trace CPL > 0 */
	PTREC_CFG_KERNEL	= 1 << 1,  /* RTIT_CTL.OS: trace CPL 0 */
	/*
	 * overwrite the oldest data when full; without it tracing stops
	 * (STOP ToPA entry) and says so
	 */
	PTREC_CFG_RING		= 1 << 2,
	PTREC_CFG_FOLLOW_FORK	= 1 << 3,  /* trace children too */
	PTREC_CFG_TSC		= 1 << 4,  /* RTIT_CTL.TSCEn */
	PTREC_CFG_MTC		= 1 << 5,  /* RTIT_CTL.MTCEn, @mtc_period */
	PTREC_CFG_CYC		= 1 << 6,  /* RTIT_CTL.CYCEn, @cyc_threshold */
	PTREC_CFG_PTWRITE	= 1 << 7,  /* RTIT_CTL.PTWEn */
	PTREC_CFG_NO_RETCOMP	= 1 << 8,  /* RTIT_CTL.DisRETC */
	PTREC_CFG_CR3_FILTER	= 1 << 9,  /* RTIT_CTL.CR3Filter on the mm */
	/* no REGS records of system calls (sys_exit probe: docs/kmod.md) */
	PTREC_CFG_NO_SYSREGS	= 1 << 10,
};

#define PTREC_MAX_ADDR_RANGES	4

/**
 * struct ptrec_addr_range - one IP filter range, RTIT_ADDRn_A/B
 * @start:	first byte (inclusive).
 * @end:	last byte (inclusive), as the SDM's ADDRn_B.
 * @mode:	1 = trace only inside (FilterEn), 2 = stop when reached
 *		(TraceStop); RTIT_CTL.ADDRn_CFG.
 * @reserved:	zero.
 */
struct ptrec_addr_range {
	__u64 start;
	__u64 end;
	__u32 mode;
	__u32 reserved;
};

/**
 * struct ptrec_config - PTREC_IOC_ATTACH: trace a process
 * @size:	sizeof(struct ptrec_config).
 * @version:	PTREC_UAPI_VERSION.
 * @pid:	the process (thread group id) to trace.
 * @flags:	enum ptrec_cfg_flag; at least one of USER and KERNEL.
 * @buf_size:	output bytes per thread: a power of two, at least two pages,
 *		at most the module's max_buf_size parameter.
 * @nr_regions: ToPA output regions per thread, a power of two dividing
 *		@buf_size into regions of at least one page; each region's
 *		entry interrupts (INT) so it is drained as soon as it fills.
 * @psb_period: RTIT_CTL.PSBFreq encoding (0..15), valid in
 *		ptrec_info.psb_periods.
 * @mtc_period: RTIT_CTL.MTCFreq encoding, with PTREC_CFG_MTC.
 * @cyc_threshold: RTIT_CTL.CycThresh encoding, with PTREC_CFG_CYC.
 * @nr_addr_ranges: used entries of @addr_ranges, at most
 *		ptrec_info.nr_addr_ranges.
 * @addr_ranges: IP filter ranges.
 * @sim_rate:	simulated unit only: PTW packets per millisecond of a
 *		traced thread's run time (0 = module default).
 * @reserved:	zero.
 */
struct ptrec_config {
	__u32 size;
	__u32 version;
	__u32 pid;
	__u32 flags;
	__u64 buf_size;
	__u32 nr_regions;
	__u32 psb_period;
	__u32 mtc_period;
	__u32 cyc_threshold;
	__u32 nr_addr_ranges;
	__u32 sim_rate;
	struct ptrec_addr_range addr_ranges[PTREC_MAX_ADDR_RANGES];
	__u64 reserved[8];
};

/**
 * struct ptrec_stats - PTREC_IOC_STATS: counters of the session
 * @size:	sizeof(struct ptrec_stats).
 * @version:	PTREC_UAPI_VERSION.
 * @threads:	threads traced so far.
 * @switches:	context switches of traced threads (switch-ins).
 * @pmis:	ToPA PMIs handled.
 * @trace_bytes: PT bytes delivered to read().
 * @lost_bytes:	PT bytes lost (each loss also has a PTREC_SB_LOST record).
 * @sideband_records: sideband records produced.
 * @lost_records: sideband records dropped (PTREC_SB_LOST_SIDEBAND).
 * @stopped:	1 once stop-on-full stopped a thread's tracing.
 * @reserved:	zero.
 */
struct ptrec_stats {
	__u32 size;
	__u32 version;
	__u64 threads;
	__u64 switches;
	__u64 pmis;
	__u64 trace_bytes;
	__u64 lost_bytes;
	__u64 sideband_records;
	__u64 lost_records;
	__u32 stopped;
	__u32 reserved0;
	__u64 reserved[6];
};

/*
 * Message type of PT data in the read() stream; outside the sideband type
 * range so the two never collide.
 */
#define PTREC_MSG_TRACE		0x8001

/**
 * struct ptrec_msg_trace - PTREC_MSG_TRACE: bytes of a thread's PT stream
 * @hdr:	type PTREC_MSG_TRACE; size covers header, data and padding to 8;
 *		time is the TSC when the module drained the data.
 * @pid:	process of the thread.
 * @tid:	thread whose stream this continues.
 * @offset:	byte offset of the first data byte in that thread's stream
 *		(a PTREC_SB_LOST record accounts for any jump).
 * @len:	data bytes that follow, at most PTREC_MSG_TRACE_MAX.
 * @reserved:	zero.
 */
struct ptrec_msg_trace {
	__u16 type;
	__u16 flags;
	__u32 size;
	__u64 time;
	__u32 pid;
	__u32 tid;
	__u64 offset;
	__u32 len;
	__u32 reserved;
};

#define PTREC_IOC_MAGIC		0xE7

/* Capabilities of the PT unit; works without a session. */
#define PTREC_IOC_INFO		_IOWR(PTREC_IOC_MAGIC, 0x01, struct ptrec_info)
/* Start tracing a process; once per open file. */
#define PTREC_IOC_ATTACH	_IOW(PTREC_IOC_MAGIC, 0x02, struct ptrec_config)
/* Stop tracing, drain what is left, then read() returns 0 at the end. */
#define PTREC_IOC_DETACH	_IO(PTREC_IOC_MAGIC, 0x03)
/* Counters of this session. */
#define PTREC_IOC_STATS		_IOWR(PTREC_IOC_MAGIC, 0x04, struct ptrec_stats)

#endif /* _UAPI_PTREC_H */
