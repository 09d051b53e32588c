/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The perf.data layout, as documented in the Linux sources
 * (tools/perf/Documentation/perf.data-file-format.txt and the record
 * layouts of include/uapi/linux/perf_event.h), written down here from those
 * documents.  Every integer is little-endian; readers copy fields out with
 * memcpy (the file gives no alignment guarantee to a mapped buffer).
 *
 * Shared by import/perf.c (the reader) and tests/tools/mkperf.c (the test
 * writer), so both follow one description of the format.
 */
#ifndef PTREC_PERF_FORMAT_H
#define PTREC_PERF_FORMAT_H

#include <stdint.h>

/* "PERFILE2" read as a little-endian u64. */
#define PF_MAGIC		0x32454c4946524550ull
/* The same bytes in the other byte order: a big-endian file. */
#define PF_MAGIC_SWAPPED	0x50455246494c4532ull

/* struct perf_file_section: where a piece of the file is. */
struct pf_section {
	uint64_t offset;
	uint64_t size;
};

/* struct perf_file_header: 104 bytes at offset 0. */
struct pf_header {
	uint64_t magic;
	uint64_t size;			/* of this header */
	uint64_t attr_size;		/* of one attrs[] entry */
	struct pf_section attrs;
	struct pf_section data;
	struct pf_section event_types;	/* unused since perf 2.6.38 */
	uint64_t features[4];		/* HEADER_FEAT_BITS = 256 */
};

/*
 * The pipe-mode header: magic and size 16, records follow.  The attrs come
 * as HEADER_ATTR records (a perf_event_attr, then the event's u64 ids), the
 * features as HEADER_FEATURE records (u64 feature bit, then what the
 * feature's section would hold).
 */
struct pf_pipe_header {
	uint64_t magic;
	uint64_t size;
};

/*
 * struct perf_event_attr, as far as ptrec reads it.  The file's attrs[]
 * entries are attr_size bytes: the attr (attr.size bytes, at least
 * PF_ATTR_SIZE_VER0) followed by a struct pf_section naming the u64 ids of
 * the event.
 */
#define PF_ATTR_SIZE_VER0	64
struct pf_attr {
	uint32_t type;
	uint32_t size;
	uint64_t config;
	uint64_t sample_period;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;			/* the bit-field word, PF_ATTR_* */
	uint32_t wakeup_events;
	uint32_t bp_type;
	uint64_t config1;		/* offset 56; VER0 ends at 64 */
};

/* Bits of the flags word of perf_event_attr. */
#define PF_ATTR_DISABLED	(1ull << 0)
#define PF_ATTR_INHERIT		(1ull << 1)
#define PF_ATTR_EXCLUDE_USER	(1ull << 4)
#define PF_ATTR_EXCLUDE_KERNEL	(1ull << 5)
#define PF_ATTR_EXCLUDE_HV	(1ull << 6)
#define PF_ATTR_MMAP		(1ull << 8)
#define PF_ATTR_COMM		(1ull << 9)
#define PF_ATTR_TASK		(1ull << 13)
#define PF_ATTR_SAMPLE_ID_ALL	(1ull << 18)
#define PF_ATTR_MMAP2		(1ull << 23)
#define PF_ATTR_COMM_EXEC	(1ull << 24)
#define PF_ATTR_CONTEXT_SWITCH	(1ull << 26)

/* perf_event_attr.type values. */
#define PF_TYPE_HARDWARE	0
#define PF_TYPE_SOFTWARE	1
#define PF_COUNT_SW_DUMMY	9

/* perf_event_attr.sample_type bits that shape the sample_id trailer. */
#define PF_SAMPLE_IP		(1ull << 0)
#define PF_SAMPLE_TID		(1ull << 1)
#define PF_SAMPLE_TIME		(1ull << 2)
#define PF_SAMPLE_ID		(1ull << 6)
#define PF_SAMPLE_CPU		(1ull << 7)
#define PF_SAMPLE_STREAM_ID	(1ull << 9)
#define PF_SAMPLE_IDENTIFIER	(1ull << 16)

/*
 * With attr.sample_id_all, every kernel record but SAMPLE ends in a
 * trailer holding, in this order and each only when its bit is set:
 * u32 pid, tid (TID); u64 time (TIME); u64 id (ID); u64 stream_id
 * (STREAM_ID); u32 cpu, reserved (CPU); u64 id (IDENTIFIER).
 */

/* struct perf_event_header: starts every record. */
struct pf_rec_header {
	uint32_t type;
	uint16_t misc;
	uint16_t size;			/* whole record; 0 is invalid */
};

/* Kernel record types. */
enum {
	PF_REC_MMAP		= 1,
	PF_REC_LOST		= 2,
	PF_REC_COMM		= 3,
	PF_REC_EXIT		= 4,
	PF_REC_FORK		= 7,
	PF_REC_SAMPLE		= 9,
	PF_REC_MMAP2		= 10,
	PF_REC_AUX		= 11,
	PF_REC_ITRACE_START	= 12,
	PF_REC_LOST_SAMPLES	= 13,
	PF_REC_SWITCH		= 14,
	PF_REC_SWITCH_CPU_WIDE	= 15,
};

/* Records the perf tool writes itself (type 64 and up). */
enum {
	PF_REC_HEADER_ATTR	= 64,
	PF_REC_HEADER_BUILD_ID	= 67,	/* pipe mode: one BUILD_ID entry */
	PF_REC_FINISHED_ROUND	= 68,
	PF_REC_ID_INDEX		= 69,
	PF_REC_AUXTRACE_INFO	= 70,
	PF_REC_AUXTRACE		= 71,
	PF_REC_AUXTRACE_ERROR	= 72,
	PF_REC_TIME_CONV	= 79,
	PF_REC_HEADER_FEATURE	= 80,
	PF_REC_COMPRESSED	= 81,
};

/* perf_event_header.misc bits. */
#define PF_MISC_CPUMODE_MASK	0x7
#define PF_MISC_MMAP_DATA	(1u << 13)	/* MMAP: not executable */
#define PF_MISC_COMM_EXEC	(1u << 13)	/* COMM: caused by exec */
#define PF_MISC_SWITCH_OUT	(1u << 13)
#define PF_MISC_SWITCH_OUT_PREEMPT (1u << 14)
#define PF_MISC_MMAP_BUILD_ID	(1u << 14)	/* MMAP2 carries a build-id */
#define PF_MISC_BUILD_ID_SIZE	(1u << 15)	/* BUILD_ID entry: size byte */

/* MMAP: u32 pid, tid; u64 addr, len, pgoff; char filename[]. */
struct pf_mmap {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
};

/*
 * MMAP2: u32 pid, tid; u64 addr, len, pgoff; then either u32 maj, min;
 * u64 ino, ino_generation or (PF_MISC_MMAP_BUILD_ID) u8 build_id_size,
 * u8, u16 reserved, u8 build_id[20]; then u32 prot, flags; filename.
 */
struct pf_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint8_t id[24];			/* maj/min/ino/gen or the build-id */
	uint32_t prot, flags;
};

/* COMM: u32 pid, tid; char comm[]. */
struct pf_comm {
	uint32_t pid, tid;
};

/* FORK and EXIT. */
struct pf_fork {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* LOST: events the kernel dropped. */
struct pf_lost {
	uint64_t id, lost;
};

/* AUX: data was written to the AUX area. */
struct pf_aux {
	uint64_t aux_offset, aux_size, flags;
};

#define PF_AUX_FLAG_TRUNCATED	0x01
#define PF_AUX_FLAG_OVERWRITE	0x02
#define PF_AUX_FLAG_PARTIAL	0x04
#define PF_AUX_FLAG_COLLISION	0x08

/* ITRACE_START: tracing began for this thread. */
struct pf_itrace_start {
	uint32_t pid, tid;
};

/* SWITCH_CPU_WIDE: the other thread of the switch. */
struct pf_switch_cpu_wide {
	uint32_t next_prev_pid, next_prev_tid;
};

/* AUXTRACE_INFO: u32 type, reserved; u64 priv[]. */
struct pf_auxtrace_info {
	uint32_t type;
	uint32_t reserved;
};

#define PF_AUXTRACE_INTEL_PT	1
#define PF_AUXTRACE_INTEL_BTS	2

/* The intel_pt priv[] entries of AUXTRACE_INFO, by index. */
enum {
	PF_PT_PMU_TYPE,
	PF_PT_TIME_SHIFT,
	PF_PT_TIME_MULT,
	PF_PT_TIME_ZERO,
	PF_PT_CAP_USER_TIME_ZERO,
	PF_PT_TSC_BIT,
	PF_PT_NORETCOMP_BIT,
	PF_PT_HAVE_SCHED_SWITCH,
	PF_PT_SNAPSHOT_MODE,
	PF_PT_PER_CPU_MMAPS,		/* the oldest layout ends here */
	PF_PT_MTC_BIT,
	PF_PT_MTC_FREQ_BITS,
	PF_PT_TSC_CTC_N,
	PF_PT_TSC_CTC_D,
	PF_PT_CYC_BIT,
	PF_PT_MAX_NONTURBO_RATIO,
	PF_PT_FILTER_STR_LEN,
	PF_PT_PRIV_MAX
};

/*
 * AUXTRACE: u64 size, offset, reference; u32 idx, tid, cpu, reserved.
 * The record's header.size does not count the size bytes of trace data
 * that follow it.
 */
struct pf_auxtrace {
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu, reserved;
};

/* TIME_CONV. */
struct pf_time_conv {
	uint64_t time_shift, time_mult, time_zero;
	uint64_t time_cycles, time_mask;	/* newer files */
	uint8_t cap_user_time_zero, cap_user_time_short, reserved[6];
};

/*
 * IA32_RTIT_CTL bits, which the intel_pt PMU's config uses; priv[] of
 * AUXTRACE_INFO gives the TSC, MTC, CYC and NORETCOMP positions and the
 * MTC period shift for the file at hand.
 */
#define PF_PT_CFG_PT		0
#define PF_PT_CFG_CYC		1
#define PF_PT_CFG_PWR_EVT	4
#define PF_PT_CFG_MTC		9
#define PF_PT_CFG_TSC		10
#define PF_PT_CFG_NORETCOMP	11
#define PF_PT_CFG_PTW		12
#define PF_PT_CFG_BRANCH	13
#define PF_PT_CFG_MTC_PERIOD	14	/* 4 bits */
#define PF_PT_CFG_CYC_THRESH	19	/* 4 bits */
#define PF_PT_CFG_PSB_PERIOD	24	/* 4 bits: 2^(n + 11) bytes */

/* Header feature bits (the features bitmap), each with one section. */
enum {
	PF_FEAT_TRACING_DATA	= 1,
	PF_FEAT_BUILD_ID	= 2,
	PF_FEAT_HOSTNAME	= 3,
	PF_FEAT_OSRELEASE	= 4,
	PF_FEAT_VERSION		= 5,
	PF_FEAT_ARCH		= 6,
	PF_FEAT_NRCPUS		= 7,
	PF_FEAT_CPUDESC		= 8,
	PF_FEAT_CPUID		= 9,
	PF_FEAT_TOTAL_MEM	= 10,
	PF_FEAT_CMDLINE		= 11,
	PF_FEAT_AUXTRACE	= 18,
	PF_FEAT_LAST_KNOWN	= 31,	/* HEADER_PMU_CAPS */
};

/*
 * Strings in feature sections: u32 len, then len bytes (NUL-terminated,
 * zero-padded).  CMDLINE: u32 nr, then nr strings.  NRCPUS: u32 available,
 * u32 online.  CPUID: one string, "GenuineIntel,6,85,4" on x86.
 * BUILD_ID: entries of a pf_rec_header (size = the entry's size), s32 pid,
 * u8 build_id[24] (with PF_MISC_BUILD_ID_SIZE, byte 20 holds the length;
 * otherwise 20 bytes), then the NUL-terminated file name.
 */
struct pf_build_id {
	struct pf_rec_header hdr;
	int32_t pid;
	uint8_t build_id[24];
};

#endif /* PTREC_PERF_FORMAT_H */
