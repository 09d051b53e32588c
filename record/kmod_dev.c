// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kernel-module recorder's device (docs/kmod.md): opening /dev/ptrec
 * with errors that say what to do, the interface version, the
 * configuration from ptrec record's options checked against what the PT
 * unit offers, what an attach error means, and the manifest's PT part.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>

#include "kmod.h"

/* ---- the device ------------------------------------------------------- */

static void set_err(struct sb_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct sb_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* Opens /dev/ptrec and checks PTREC_IOC_INFO; returns the fd or -errno. */
int km_open(struct ptrec_info *info, struct sb_err *err)
{
	int fd, e;

	fd = open(PTREC_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		switch (e) {
		case ENOENT:
			set_err(err, "%s does not exist: the ptrec.ko kernel module is not loaded (modprobe ptrec, or install it: see docs/kmod.md)",
				PTREC_DEVICE);
			break;
		case ENODEV:
		case ENXIO:
			set_err(err, "%s: %s: the device node has no driver behind it (the module was unloaded?); modprobe ptrec, see docs/kmod.md",
				PTREC_DEVICE, strerror(e));
			break;
		case EACCES:
		case EPERM:
			set_err(err, "%s: %s: the module creates it mode 0666 and checks rights when tracing starts; check the node's mode (ls -l %s, udev rules)",
				PTREC_DEVICE, strerror(e), PTREC_DEVICE);
			break;
		default:
			set_err(err, "%s: %s", PTREC_DEVICE, strerror(e));
		}
		return -e;
	}
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->version = PTREC_UAPI_VERSION;
	if (ioctl(fd, PTREC_IOC_INFO, info) < 0) {
		e = errno;
		close(fd);
		if (e == EPROTO || e == EINVAL) {
			set_err(err, "%s: PTREC_IOC_INFO: %s: the loaded ptrec.ko does not speak interface version %d of this ptrec (struct size %zu); the module and ptrec come from different releases: install the module of this release (make kmod, or DKMS: see README, \"Installing the module with DKMS\") and reload it (rmmod ptrec; modprobe ptrec)",
				PTREC_DEVICE, strerror(e), PTREC_UAPI_VERSION,
				sizeof(*info));
			return -EPROTO;
		}
		if (e == ENOTTY) {
			set_err(err, "%s: PTREC_IOC_INFO: %s: this device is not ptrec.ko's /dev/ptrec",
				PTREC_DEVICE, strerror(e));
			return -ENOTTY;
		}
		set_err(err, "%s: PTREC_IOC_INFO: %s", PTREC_DEVICE,
			strerror(e));
		return -e;
	}
	if (info->version != PTREC_UAPI_VERSION) {
		close(fd);
		set_err(err, "%s: the module answers with interface version %u, this ptrec speaks %d: install the module of this release and reload it (see docs/kmod.md)",
			PTREC_DEVICE, info->version, PTREC_UAPI_VERSION);
		return -EPROTO;
	}
	if (!(info->flags & (PTREC_INFO_SIMULATED | PTREC_INFO_TOPA))) {
		close(fd);
		set_err(err, "%s: the module reports no usable Intel PT unit (no ToPA output, not simulated)",
			PTREC_DEVICE);
		return -EOPNOTSUPP;
	}
	return fd;
}

int rec_kmod_probe(struct ptrec_info *info, struct sb_err *err)
{
	int fd = km_open(info, err);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in the effective set. */
bool rec_kmod_capable(void)
{
	char line[256];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "re");
	bool found = false;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			found = true;
			break;
		}
	if (f)
		fclose(f);
	if (!found)
		return geteuid() == 0;
	return caps & ((1ull << 38) | (1ull << 21));
}

/* ---- configuration ------------------------------------------------------ */

int km_config(struct km *k, struct ptrec_config *c)
{
	const struct rec_kmod_options *ko = &k->o->kmod;
	const struct ptrec_info *in = &k->info;
	uint64_t psb = k->o->psb_period;
	unsigned int enc;

	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->version = PTREC_UAPI_VERSION;
	c->flags = PTREC_CFG_USER;
	if (ko->kernel)
		c->flags |= PTREC_CFG_KERNEL;
	if (!ko->stop_on_full)
		c->flags |= PTREC_CFG_RING;
	if (ko->follow_fork)
		c->flags |= PTREC_CFG_FOLLOW_FORK;
	if (ko->no_sysregs)
		c->flags |= PTREC_CFG_NO_SYSREGS;
	if (!ko->no_tsc)
		c->flags |= PTREC_CFG_TSC;
	if (ko->ptwrite) {
		if (!(in->flags & PTREC_INFO_PTWRITE))
			return km_fail(k, -EOPNOTSUPP, "--ptwrite: this PT unit has no PTWRITE (CPUID.14H.0:EBX[4])");
		c->flags |= PTREC_CFG_PTWRITE;
	}
	if (ko->mtc >= 0) {
		if (!(in->flags & PTREC_INFO_MTC))
			return km_fail(k, -EOPNOTSUPP, "--mtc: this PT unit has no MTC packets");
		if (ko->mtc > 15 || !(in->mtc_periods & (1u << ko->mtc)))
			return km_fail(k, -EINVAL, "--mtc %d: not a period this unit offers (bitmap 0x%x)",
				       ko->mtc, in->mtc_periods);
		c->flags |= PTREC_CFG_MTC;
		c->mtc_period = (uint32_t)ko->mtc;
	}
	if (ko->cyc >= 0) {
		if (!(in->flags & PTREC_INFO_PSB_CYC))
			return km_fail(k, -EOPNOTSUPP, "--cyc: this PT unit has no cycle-accurate mode");
		if (ko->cyc > 15 ||
		    (ko->cyc && !(in->cyc_thresholds & (1u << ko->cyc))))
			return km_fail(k, -EINVAL, "--cyc %d: not a threshold this unit offers (bitmap 0x%x)",
				       ko->cyc, in->cyc_thresholds);
		c->flags |= PTREC_CFG_CYC;
		c->cyc_threshold = (uint32_t)ko->cyc;
	}
	/* PSBFreq n: a PSB about every 2^(n + 11) bytes (SDM 33.2.7.2) */
	enc = 0;
	if (psb) {
		if (psb & (psb - 1) || psb < 2048 || psb > (2048ull << 15))
			return km_fail(k, -EINVAL, "--psb-period %" PRIu64 ": with --backend=kmod a power of two from 2048 to 67108864",
				       psb);
		while ((2048ull << enc) < psb)
			enc++;
		if (enc && !(in->psb_periods & (1u << enc)))
			return km_fail(k, -EINVAL, "--psb-period %" PRIu64 ": not a period this unit offers (PSBFreq bitmap 0x%x)",
				       psb, in->psb_periods);
	}
	c->psb_period = enc;
	c->buf_size = ko->buf_size ? ko->buf_size : 1u << 20;
	if (c->buf_size & (c->buf_size - 1) || c->buf_size < 8192)
		return km_fail(k, -EINVAL, "--buffer-size %" PRIu64 ": a power of two of at least 8192 bytes",
			       (uint64_t)c->buf_size);
	c->nr_regions = ko->nr_regions;
	if (!c->nr_regions)
		c->nr_regions = in->flags & PTREC_INFO_TOPA_MULTI ? 8 : 1;
	while (c->nr_regions > 1 && c->buf_size / c->nr_regions < 4096)
		c->nr_regions /= 2;
	if (c->nr_regions & (c->nr_regions - 1))
		return km_fail(k, -EINVAL, "--regions %u: a power of two",
			       c->nr_regions);
	c->sim_rate = ko->sim_rate;
	return 0;
}

const char *km_attach_errstr(int e)
{
	switch (e) {
	case EPERM:
	case EACCES:
		return "tracing needs CAP_PERFMON (or CAP_SYS_ADMIN) and the right to ptrace the process: run ptrec as root, give it the capability (setcap cap_perfmon+ep), or record with --backend=emu";
	case ESRCH:
		return "no such process, or it is exiting (give the process id, not a thread id)";
	case EBUSY:
		return "the process is already traced by another ptrec session, or another tracer (perf's intel_pt) uses Intel PT now; the kernel log (dmesg) says which";
	case EOPNOTSUPP:
		return "the PT unit lacks a requested feature (--regions > 1 needs multi-entry ToPA; --mtc, --cyc, --ptwrite need the unit's support)";
	case EINVAL:
		return "the module refused the configuration: the buffer must be a power of two, at least 8192 bytes and at most the module's max_buf_size (/sys/module/ptrec/parameters/max_buf_size), each region at least a page";
	case ENOMEM:
		return "the module could not allocate the per-thread buffers: try a smaller --buffer-size";
	case EPROTO:
		return "interface version mismatch: install the module of this ptrec release and reload it";
	default:
		return strerror(e);
	}
}

/* ---- the manifest -------------------------------------------------------- */

void km_fill_manifest(struct km *k, const struct ptrec_config *c)
{
	struct sb_manifest *m = k->m;

	m->cpu.family = k->info.family;
	m->cpu.model = k->info.model;
	m->cpu.stepping = k->info.stepping;

	m->pt.emulated = k->info.flags & PTREC_INFO_SIMULATED;
	m->pt.features = SB_PT_BRANCH;
	if (c->flags & PTREC_CFG_USER)
		m->pt.features |= SB_PT_USER;
	if (c->flags & PTREC_CFG_KERNEL)
		m->pt.features |= SB_PT_KERNEL;
	if (c->flags & PTREC_CFG_TSC)
		m->pt.features |= SB_PT_TSC;
	if (c->flags & PTREC_CFG_MTC)
		m->pt.features |= SB_PT_MTC;
	if (c->flags & PTREC_CFG_CYC)
		m->pt.features |= SB_PT_CYC;
	if (c->flags & PTREC_CFG_PTWRITE)
		m->pt.features |= SB_PT_PTWRITE;
	if (!(c->flags & PTREC_CFG_NO_RETCOMP))
		m->pt.features |= SB_PT_RET_COMPRESSION;
	if (c->flags & PTREC_CFG_CR3_FILTER)
		m->pt.features |= SB_PT_CR3_FILTER;
	m->pt.psb_period = 2048ull << c->psb_period;
	m->pt.mtc_freq = c->flags & PTREC_CFG_MTC ? c->mtc_period : 0;
	m->pt.cyc_thresh = c->flags & PTREC_CFG_CYC ? c->cyc_threshold : 0;
	m->pt.nom_freq = k->info.nom_freq;
	m->pt.cpuid_15_eax = k->info.cpuid_15_eax;
	m->pt.cpuid_15_ebx = k->info.cpuid_15_ebx;

	/* until the module's TIME record: from tsc_khz, as the module does */
	m->time.tsc_hz = k->info.tsc_khz * 1000;
	if (k->info.tsc_khz) {
		unsigned int shift = 32;
		uint64_t mult = 0;

		while (shift > 0) {
			mult = (1000000ull << shift) / k->info.tsc_khz;
			if (mult < (1ull << 32))
				break;
			shift--;
		}
		m->time.time_shift = (uint16_t)shift;
		m->time.time_mult = (uint32_t)mult;
	} else {
		m->time.time_mult = 1;
	}
}
