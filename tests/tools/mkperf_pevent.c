// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mkperf --pevent (tests/tools/mkperf.c): records a real perf session
 * wrote, copied byte for byte, and a real PT buffer, wrapped into a
 * perf.data.
 */
#include "mkperf.h"

/* ---- --pevent: real records around a real PT buffer ------------------- */

int pevent_main(const char *const *files, size_t nfiles, const char *pt,
		uint64_t sample_type, const char *outp)
{
	struct buf recs = { 0 }, feat = { 0 };
	uint64_t pt_id = 0, dummy_id = 0, tc[3] = { 0, 0, 0 };
	uint32_t aux_cpu = 0;
	struct pf_header hdr;
	size_t i, ptlen, off, data_off;
	uint8_t *d, *ptd;
	char path[4096], *at;
	uint64_t ptoff = 0;
	FILE *f;

	for (i = 0; i < nfiles; i++) {
		size_t n;

		d = slurp(files[i], &n);
		for (off = 0; off + 8 <= n; ) {
			struct pf_rec_header h;

			memcpy(&h, d + off, 8);
			if (h.size < 8 || off + h.size > n)
				die("a .pevent file with a bad record");
			if (h.type == PF_REC_TIME_CONV && h.size >= 32)
				memcpy(tc, d + off + 8, 24);
			if (h.type < 64 && h.size >= 8 + 32) {
				uint64_t id;

				memcpy(&id, d + off + h.size - 8, 8);
				if (h.type == PF_REC_ITRACE_START ||
				    h.type == PF_REC_AUX)
					pt_id = id;
				else
					dummy_id = id;
				if (h.type == PF_REC_AUX)
					memcpy(&aux_cpu, d + off + h.size - 16,
					       4);
			}
			off += h.size;
		}
		put(&recs, d, off);
		free(d);
	}
	snprintf(path, sizeof(path), "%s", pt);
	at = strrchr(path, '@');
	if (at) {
		*at = 0;
		ptoff = strtoull(at + 1, NULL, 0);
	}
	ptd = slurp(path, &ptlen);
	if (ptoff > ptlen)
		die("--pt: offset past the end");

	memset(&hdr, 0, sizeof(hdr));
	put(&out, &hdr, sizeof(hdr));
	{
		uint8_t a[128 + 16];
		struct pf_attr pa;
		struct pf_section ids;
		size_t k;

		for (k = 0; k < 2; k++) {
			memset(a, 0, sizeof(a));
			memset(&pa, 0, sizeof(pa));
			pa.size = 128;
			pa.sample_type = sample_type;
			pa.flags = PF_ATTR_EXCLUDE_KERNEL | PF_ATTR_EXCLUDE_HV |
				   PF_ATTR_SAMPLE_ID_ALL;
			if (!k) {
				pa.type = PMU_TYPE;
				pa.config = (1ull << PF_PT_CFG_PT) |
					    (1ull << PF_PT_CFG_TSC) |
					    (1ull << PF_PT_CFG_MTC) |
					    (3ull << PF_PT_CFG_MTC_PERIOD) |
					    (1ull << PF_PT_CFG_BRANCH);
			} else {
				pa.type = PF_TYPE_SOFTWARE;
				pa.config = PF_COUNT_SW_DUMMY;
				pa.flags |= PF_ATTR_MMAP | PF_ATTR_COMM |
					    PF_ATTR_TASK | PF_ATTR_MMAP2 |
					    PF_ATTR_COMM_EXEC |
					    PF_ATTR_CONTEXT_SWITCH;
			}
			memcpy(a, &pa, sizeof(pa));
			ids.offset = sizeof(hdr) + 2 * sizeof(a) + 8 * k;
			ids.size = 8;
			memcpy(a + 128, &ids, sizeof(ids));
			put(&out, a, sizeof(a));
		}
		put(&out, &pt_id, 8);
		put(&out, &dummy_id, 8);
	}
	hdr.magic = PF_MAGIC;
	hdr.size = sizeof(hdr);
	hdr.attr_size = 128 + 16;
	hdr.attrs.offset = sizeof(hdr);
	hdr.attrs.size = 2 * hdr.attr_size;
	data_off = out.len;
	{
		uint64_t priv[PF_PT_PRIV_MAX];
		struct pf_auxtrace_info ai = { .type = PF_AUXTRACE_INTEL_PT };
		struct pf_rec_header rh = { .type = PF_REC_AUXTRACE_INFO };

		memset(priv, 0, sizeof(priv));
		priv[PF_PT_PMU_TYPE] = PMU_TYPE;
		priv[PF_PT_TIME_SHIFT] = tc[0];
		priv[PF_PT_TIME_MULT] = tc[1];
		priv[PF_PT_TIME_ZERO] = tc[2];
		priv[PF_PT_CAP_USER_TIME_ZERO] = 1;
		priv[PF_PT_TSC_BIT] = PF_PT_CFG_TSC;
		priv[PF_PT_NORETCOMP_BIT] = PF_PT_CFG_NORETCOMP;
		priv[PF_PT_HAVE_SCHED_SWITCH] = 2;
		priv[PF_PT_PER_CPU_MMAPS] = 1;
		priv[PF_PT_MTC_BIT] = PF_PT_CFG_MTC;
		priv[PF_PT_MTC_FREQ_BITS] = PF_PT_CFG_MTC_PERIOD;
		priv[PF_PT_TSC_CTC_N] = 308;
		priv[PF_PT_TSC_CTC_D] = 2;
		priv[PF_PT_CYC_BIT] = PF_PT_CFG_CYC;
		priv[PF_PT_MAX_NONTURBO_RATIO] = 37;
		rh.size = 8 + sizeof(ai) + sizeof(priv);
		put(&out, &rh, sizeof(rh));
		put(&out, &ai, sizeof(ai));
		put(&out, priv, sizeof(priv));
	}
	put(&out, recs.p, recs.len);
	auxtrace(ptd + ptoff, ptlen - ptoff, 0, aux_cpu, (uint32_t)-1,
		 aux_cpu);
	hdr.data.offset = data_off;
	hdr.data.size = out.len - data_off;
	{
		static const char cpuid[] = "GenuineIntel,6,85,4";
		static const uint8_t z[8];
		struct pf_section sec;
		uint32_t l = (sizeof(cpuid) + 7) & ~7u;

		hdr.features[0] = 1ull << PF_FEAT_CPUID;
		sec.offset = out.len + sizeof(sec);
		sec.size = 4 + l;
		put(&out, &sec, sizeof(sec));
		put(&feat, &l, 4);
		put(&feat, cpuid, sizeof(cpuid) - 1);
		put(&feat, z, l - (sizeof(cpuid) - 1));
		put(&out, feat.p, feat.len);
	}
	memcpy(out.p, &hdr, sizeof(hdr));
	f = fopen(outp, "wb");
	if (!f || fwrite(out.p, 1, out.len, f) != out.len || fclose(f))
		die(outp);
	printf("pt-id %llu cpu %u\n", (unsigned long long)pt_id, aux_cpu);
	free(ptd);
	free(recs.p);
	free(feat.p);
	free(out.p);
	return 0;
}
