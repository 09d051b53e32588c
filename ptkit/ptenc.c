// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * PT packet generation.  Packet formats and generation rules from the Intel
 * SDM Vol. 3C, chapter 33 ("Intel Processor Trace"): 33.4.2 packet
 * descriptions, 33.4.2.2 return compression, 33.4.2.7 PSB+ contents.
 */
#include <errno.h>
#include <fcntl.h>
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptenc.h"

#define BUF_SIZE (256u << 10)
#define MAX_PACKET 32		/* PSB is 16; leave room for any packet */

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static uint64_t buffered(const struct ptenc *e)
{
	uint64_t off = 0;

	if (e->enc)
		pt_enc_get_offset(e->enc, &off);
	return off;
}

static int flush(struct ptenc *e)
{
	int ret;

	if (e->error)
		return e->error;
	ret = write_all(e->fd, e->buf, buffered(e));
	if (ret)
		return e->error = ret;
	e->written += buffered(e);
	pt_enc_sync_set(e->enc, 0);
	return 0;
}

int ptenc_flush(struct ptenc *e)
{
	return flush(e);
}

static int put(struct ptenc *e, const struct pt_packet *pkt)
{
	int ret;

	if (e->error)
		return e->error;
	if (e->bufsz - buffered(e) < MAX_PACKET) {
		ret = flush(e);
		if (ret)
			return ret;
	}
	ret = pt_enc_next(e->enc, pkt);
	if (ret < 0)
		return e->error = -EPROTO;	/* a packet we built is bad */
	return 0;
}

int ptenc_open(struct ptenc *e, const char *path, uint64_t psb_period,
	       bool long_tnt)
{
	struct pt_config cfg;

	memset(e, 0, sizeof(*e));
	e->fd = -1;
	e->psb_period = psb_period ? psb_period : 4096;
	e->tnt_max = long_tnt ? 47 : 6;
	e->tsc_period = 4096;
	e->path = strdup(path);
	e->buf = malloc(BUF_SIZE);
	e->bufsz = BUF_SIZE;
	if (!e->path || !e->buf)
		goto out_nomem;
	pt_config_init(&cfg);
	cfg.begin = e->buf;
	cfg.end = e->buf + BUF_SIZE;
	e->enc = pt_alloc_encoder(&cfg);
	if (!e->enc)
		goto out_nomem;
	e->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (e->fd < 0) {
		int ret = -errno;

		ptenc_close(e);
		return ret;
	}
	return 0;
out_nomem:
	ptenc_close(e);
	return -ENOMEM;
}

static int flush_tnt(struct ptenc *e)
{
	struct pt_packet pkt = { 0 };
	int ret;

	if (!e->ntnt)
		return 0;
	/* 33.4.2.1: the first branch is the most significant bit. */
	pkt.type = e->ntnt <= 6 ? ppt_tnt_8 : ppt_tnt_64;
	pkt.payload.tnt.bit_size = (uint8_t)e->ntnt;
	pkt.payload.tnt.payload = e->tnt;
	ret = put(e, &pkt);
	e->tnt = 0;
	e->ntnt = 0;
	return ret;
}

static int tnt(struct ptenc *e, bool taken)
{
	e->tnt = e->tnt << 1 | taken;
	if (++e->ntnt == e->tnt_max)
		return flush_tnt(e);
	return 0;
}

/* IP packets with last-IP compression (33.4.2.2, Table 33-6). */
static int ip_packet(struct ptenc *e, enum pt_packet_type type, uint64_t ip)
{
	struct pt_packet pkt = { .type = type };
	uint64_t diff = ip ^ e->last_ip;
	int ret;

	ret = flush_tnt(e);
	if (ret)
		return ret;
	pkt.payload.ip.ip = ip;
	if (e->have_ip && !(diff >> 16))
		pkt.payload.ip.ipc = pt_ipc_update_16;
	else if (e->have_ip && !(diff >> 32))
		pkt.payload.ip.ipc = pt_ipc_update_32;
	else if ((uint64_t)((int64_t)(ip << 16) >> 16) == ip)
		pkt.payload.ip.ipc = pt_ipc_sext_48;
	else
		pkt.payload.ip.ipc = pt_ipc_full;
	e->last_ip = ip;
	e->have_ip = true;
	return put(e, &pkt);
}

static int suppressed(struct ptenc *e, enum pt_packet_type type)
{
	struct pt_packet pkt = { .type = type };
	int ret = flush_tnt(e);

	pkt.payload.ip.ipc = pt_ipc_suppressed;
	return ret ? ret : put(e, &pkt);
}

static int tsc_packet(struct ptenc *e, uint64_t tsc)
{
	struct pt_packet pkt = { .type = ppt_tsc };
	int ret = flush_tnt(e);

	pkt.payload.tsc.tsc = tsc & ((1ull << 56) - 1);	/* 7 bytes */
	e->since_tsc = 0;
	return ret ? ret : put(e, &pkt);
}

static int mode_exec(struct ptenc *e)
{
	struct pt_packet pkt = { .type = ppt_mode };

	pkt.payload.mode.leaf = pt_mol_exec;
	/* 33.4.2.8: CS.L 1 is 64-bit code; CS.L 0, CS.D 1 32-bit. */
	pkt.payload.mode.bits.exec.csl = !e->mode32;
	pkt.payload.mode.bits.exec.csd = e->mode32;
	return put(e, &pkt);
}

/* PSB+ (33.4.2.7): PSB, TSC, [MODE.Exec, FUP when PacketEn], PSBEND.  The
 * decoder may start here, so IP compression and the return stack restart.
 */
static int psb(struct ptenc *e, uint64_t ip, uint64_t tsc)
{
	struct pt_packet pkt = { .type = ppt_psb };
	int ret = flush_tnt(e);

	e->psb_mark = ptenc_bytes(e);
	if (!ret)
		ret = put(e, &pkt);
	e->have_ip = false;
	e->last_ip = 0;
	e->rs_n = 0;
	if (!ret)
		ret = tsc_packet(e, tsc);
	if (!ret && e->enabled) {
		ret = mode_exec(e);
		if (!ret)
			ret = ip_packet(e, ppt_fup, ip);
	}
	pkt.type = ppt_psbend;
	return ret ? ret : put(e, &pkt);
}

int ptenc_start(struct ptenc *e, uint64_t tsc)
{
	e->enabled = false;
	return psb(e, 0, tsc);
}

int ptenc_enable(struct ptenc *e, uint64_t ip, uint64_t tsc)
{
	int ret;

	if (e->enabled)
		return 0;
	ret = tsc_packet(e, tsc);
	if (!ret)
		ret = mode_exec(e);
	if (!ret)
		ret = ip_packet(e, ppt_tip_pge, ip);
	e->enabled = true;
	return ret;
}

int ptenc_disable_sync(struct ptenc *e)
{
	if (!e->enabled)
		return e->error;
	e->enabled = false;
	return suppressed(e, ppt_tip_pgd);
}

int ptenc_disable_async(struct ptenc *e, uint64_t ip)
{
	int ret;

	if (!e->enabled)
		return e->error;
	e->enabled = false;
	ret = ip_packet(e, ppt_fup, ip);
	return ret ? ret : suppressed(e, ppt_tip_pgd);
}

int ptenc_overflow(struct ptenc *e)
{
	struct pt_packet pkt = { .type = ppt_ovf };
	int ret = flush_tnt(e);

	/* The decoder starts afresh: a full IP next, no return stack. */
	e->have_ip = false;
	e->last_ip = 0;
	e->rs_n = 0;
	return ret ? ret : put(e, &pkt);
}

int ptenc_ptwrite(struct ptenc *e, uint64_t ip, uint64_t payload,
		  unsigned int size)
{
	struct pt_packet pkt = { .type = ppt_ptw };
	int ret;

	if (!e->enabled)
		return e->error;
	ret = flush_tnt(e);
	/* 33.4.2.21: PLC 0 is 4 bytes, 1 is 8; IP set: a FUP follows. */
	pkt.payload.ptw.plc = size == 8 ? 1 : 0;
	pkt.payload.ptw.payload = size == 8 ? payload : (uint32_t)payload;
	pkt.payload.ptw.ip = 1;
	if (!ret)
		ret = put(e, &pkt);
	return ret ? ret : ip_packet(e, ppt_fup, ip);
}

int ptenc_tsx(struct ptenc *e, uint64_t ip, bool intx, bool abrt)
{
	struct pt_packet pkt = { .type = ppt_mode };
	int ret;

	if (!e->enabled)
		return e->error;
	ret = flush_tnt(e);
	/* 33.4.2.8: MODE.TSX, then a FUP of the instruction it binds to. */
	pkt.payload.mode.leaf = pt_mol_tsx;
	pkt.payload.mode.bits.tsx.intx = intx;
	pkt.payload.mode.bits.tsx.abrt = abrt;
	if (!ret)
		ret = put(e, &pkt);
	return ret ? ret : ip_packet(e, ppt_fup, ip);
}

int ptenc_tsx_abort(struct ptenc *e, uint64_t ip, uint64_t to)
{
	int ret = ptenc_tsx(e, ip, false, true);

	/* the abort's transfer: a TIP, the FUP having bound it to @ip */
	return ret ? ret : ip_packet(e, ppt_tip, to);
}

int ptenc_power(struct ptenc *e, uint64_t ip, uint32_t hints,
		uint8_t state, uint8_t sub, uint8_t deepest)
{
	struct pt_packet pkt = { .type = ppt_mwait };
	int ret;

	if (!e->enabled)
		return e->error;
	/* 33.4.2.24-27: MWAIT, PWRE, EXSTOP (IP) + FUP; PWRX on the wake. */
	ret = flush_tnt(e);
	pkt.payload.mwait.hints = hints;
	if (!ret)
		ret = put(e, &pkt);
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_pwre;
	pkt.payload.pwre.state = state;
	pkt.payload.pwre.sub_state = sub;
	if (!ret)
		ret = put(e, &pkt);
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_exstop;
	pkt.payload.exstop.ip = 1;
	if (!ret)
		ret = put(e, &pkt);
	if (!ret)
		ret = ip_packet(e, ppt_fup, ip);
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_pwrx;
	pkt.payload.pwrx.last = state;
	pkt.payload.pwrx.deepest = deepest;
	pkt.payload.pwrx.interrupt = 1;
	return ret ? ret : put(e, &pkt);
}

int ptenc_cbr(struct ptenc *e, uint8_t ratio)
{
	struct pt_packet pkt = { .type = ppt_cbr };
	int ret = flush_tnt(e);

	pkt.payload.cbr.ratio = ratio;
	return ret ? ret : put(e, &pkt);
}

static void rs_push(struct ptenc *e, uint64_t nlip)
{
	/* A full stack drops its oldest entry, as the decoder's does. */
	e->rs_top = (e->rs_top + 1) % PTENC_RETSTACK;
	e->rs[e->rs_top] = nlip;
	if (e->rs_n < PTENC_RETSTACK)
		e->rs_n++;
}

int ptenc_retire(struct ptenc *e, const struct insn *in, uint64_t ip,
		 uint64_t next)
{
	uint64_t nlip = ip + in->len;

	e->since_tsc++;
	switch (in->cls) {
	case IC_OTHER:
		return next == nlip ? 0 : 1;
	case IC_COND:
		return tnt(e, next != nlip);
	case IC_JMP:
		return 0;
	case IC_JMP_IND:
		return ip_packet(e, ppt_tip, next);
	case IC_CALL:
		rs_push(e, nlip);
		return 0;
	case IC_CALL_IND:
		rs_push(e, nlip);
		return ip_packet(e, ppt_tip, next);
	case IC_RET:
		/* 33.4.2.2: compress when the target is the pushed NLIP. */
		if (!e->no_retcomp && e->rs_n && e->rs[e->rs_top] == next) {
			e->rs_top = (e->rs_top + PTENC_RETSTACK - 1) %
				    PTENC_RETSTACK;
			e->rs_n--;
			return tnt(e, true);
		}
		return ip_packet(e, ppt_tip, next);
	default:
		return 1;	/* far transfers are handled by the caller */
	}
}

int ptenc_boundary(struct ptenc *e, uint64_t ip, uint64_t tsc)
{
	if (!e->enabled)
		return e->error;
	if (ptenc_bytes(e) - e->psb_mark >= e->psb_period)
		return psb(e, ip, tsc);
	if (e->since_tsc >= e->tsc_period)
		return tsc_packet(e, tsc);
	return e->error;
}

uint64_t ptenc_bytes(const struct ptenc *e)
{
	return e->written + buffered(e);
}

int ptenc_close(struct ptenc *e)
{
	int ret = 0;

	if (e->fd >= 0) {
		ret = flush_tnt(e);
		if (!ret)
			ret = flush(e);
		if (!ret && fsync(e->fd) < 0 && errno != EINVAL)
			ret = -errno;
		if (close(e->fd) < 0 && !ret)
			ret = -errno;
		e->fd = -1;
	}
	if (e->enc)
		pt_free_encoder(e->enc);
	e->enc = NULL;
	free(e->buf);
	e->buf = NULL;
	free(e->path);
	e->path = NULL;
	return ret ? ret : e->error;
}
