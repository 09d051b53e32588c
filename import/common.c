// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Pieces every importer needs: the packet scan that finds PSBs and a cut
 * last packet, CPU parsing, and code images written as snapshot MMAPs.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

#include "import.h"
#include "ptkit.h"

static int scan_packet(void *ctx, uint64_t off, const struct pt_packet *pkt)
{
	struct import_scan *scan = ctx;

	if (!pkt)
		return PTKIT_SCAN_NEXT;	/* damage: on at the next PSB */
	switch (pkt->type) {
	case ppt_psb:
		if (!scan->npsb++)
			scan->first_psb = off;
		break;
	case ppt_tsc:
		scan->last_tsc = pkt->payload.tsc.tsc;
		scan->features |= SB_PT_TSC;
		break;
	case ppt_mtc:
		scan->features |= SB_PT_MTC;
		break;
	case ppt_cyc:
		scan->features |= SB_PT_CYC;
		break;
	case ppt_ptw:
		scan->features |= SB_PT_PTWRITE;
		break;
	case ppt_pwre:
	case ppt_pwrx:
	case ppt_exstop:
	case ppt_mwait:
		scan->features |= SB_PT_PWR_EVT;
		break;
	case ppt_tnt_8:
	case ppt_tnt_64:
	case ppt_tip:
		scan->features |= SB_PT_BRANCH;
		break;
	default:
		break;
	}
	return PTKIT_SCAN_NEXT;
}

int import_stream_scan(const uint8_t *buf, size_t len,
		       struct import_scan *scan)
{
	memset(scan, 0, sizeof(*scan));
	return ptkit_stream_scan(buf, len, scan_packet, scan, &scan->cut);
}

#define PROBE_BYTES	(64u << 10)

/* PSB: 02 82 repeated 8 times (SDM Vol. 3C 33.4.2.17). */
static const uint8_t psb_pattern[16] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};

/* The offset of the last PSB in @buf; @from is one. */
static size_t last_psb(const uint8_t *buf, size_t len, size_t from)
{
	size_t i = len - sizeof(psb_pattern);

	while (i > from && (buf[i] != 0x02 ||
			    memcmp(buf + i, psb_pattern, sizeof(psb_pattern))))
		i--;
	return i;
}

/*
 * Whether libipt's packet decoder rejects the whole packet at @p (@n
 * bytes, all in the buffer) though its header gives its size (pt_packet.c
 * of libipt 2.0): a PSB that is not the full pattern, a long TNT without
 * a payload, an MNT without its third byte, TMA's reserved bits, a MODE
 * of an unknown leaf, a CYC of more than 64 bits.  walk_tail() leaves
 * such a stream to libipt, which skips to the next PSB there.
 */
static bool pkt_rejected(const uint8_t *p, size_t n)
{
	size_t i;

	if (p[0] == 0x02) {
		switch (p[1]) {
		case 0x82:
			return memcmp(p, psb_pattern, sizeof(psb_pattern)) != 0;
		case 0xa3:
			for (i = 3; i < 8; i++)
				if (p[i])
					return false;
			return p[2] <= 1;
		case 0xc3:
			return p[2] != 0x88;
		case 0x73:
			return p[4] || (p[6] & 0xfe);
		default:
			return false;
		}
	}
	if (p[0] == 0x99)
		return (p[1] & 0xe0) > 0x20;
	return (p[0] & 0x03) == 0x03 && n >= 10;
}

/*
 * import_stream_scan() of a stream from its PSB @buf, by packet headers
 * (ptkit_pkt_len) instead of libipt's packet decoder: a stream with one
 * PSB is all tail (libxdc-style 1.4 MB: 195 M instructions through libipt,
 * the whole import's cost).  The same packet kinds count; returns 1, for
 * libipt to scan it instead, at a header not known there.
 */
static int walk_tail(const uint8_t *buf, size_t len, struct import_scan *scan)
{
	size_t off = 0;

	memset(scan, 0, sizeof(*scan));
	scan->cut = UINT64_MAX;
	while (off < len) {
		const uint8_t *p = buf + off;
		size_t left, n, i;
		uint8_t h = p[0];

		/* Most packets are one-byte TNTs and PADs. */
		if (!(h & 0x01) && h != 0x02) {
			if (h)
				scan->features |= SB_PT_BRANCH;
			off++;
			continue;
		}
		left = len - off;
		n = ptkit_pkt_len(p, left);
		if (!n)
			return 1;
		if (n > left) {
			scan->cut = off;
			break;
		}
		if (pkt_rejected(p, n))
			return 1;
		if (h == 0x02) {
			if (p[1] == 0x82 && !scan->npsb++)
				scan->first_psb = off;
			else if (p[1] == 0xa3)
				scan->features |= SB_PT_BRANCH;
			else if ((p[1] & 0x1f) == 0x12)
				scan->features |= SB_PT_PTWRITE;
			else if (p[1] == 0x22 || p[1] == 0xa2 ||
				 p[1] == 0x62 || p[1] == 0xe2 || p[1] == 0xc2)
				scan->features |= SB_PT_PWR_EVT;
		} else if (h == 0x19) {
			scan->last_tsc = 0;
			for (i = 7; i; i--)
				scan->last_tsc = scan->last_tsc << 8 | p[i];
			scan->features |= SB_PT_TSC;
		} else if (h == 0x59) {
			scan->features |= SB_PT_MTC;
		} else if ((h & 0x03) == 0x03) {
			scan->features |= SB_PT_CYC;
		} else if ((h && !(h & 0x01)) || (h & 0x1f) == 0x0d) {
			scan->features |= SB_PT_BRANCH;	/* TNT, TIP */
		}
		off += n;
	}
	return 0;
}

int import_stream_probe(const uint8_t *buf, size_t len,
			struct import_scan *scan)
{
	const uint8_t *first = memmem(buf, len, psb_pattern,
				      sizeof(psb_pattern));
	struct import_scan tail;
	size_t off, end;
	int ret;

	if (!first || len - (size_t)(first - buf) <= 2 * PROBE_BYTES) {
		/*
		 * By packet headers too when the stream starts with its PSB
		 * (kAFL's and DynamoRIO's do), where libipt's sync search
		 * finds that same PSB: libipt's packet decoder was half of
		 * a 16.9 KB import (libxdc's Unzip: 2.1 M instructions).
		 */
		if (first == buf && !(len >= 18 && buf[16] == 0x02 &&
				      buf[17] == 0x82) &&
		    !walk_tail(buf, len, scan))
			return 0;
		return import_stream_scan(buf, len, scan);
	}
	off = (size_t)(first - buf);
	memset(scan, 0, sizeof(*scan));
	scan->cut = UINT64_MAX;
	/* The head: its end may cut a packet, which is no damage. */
	ret = ptkit_stream_scan(buf, off + PROBE_BYTES, scan_packet, scan,
				NULL);
	if (ret)
		return ret;
	/* The last PSB (a long stream with one PSB: all of it again, by
	 * packet headers when that is long).
	 */
	off = last_psb(buf, len, off);
	end = len - off;
	ret = end > 2 * PROBE_BYTES ? walk_tail(buf + off, end, &tail) : 1;
	if (ret)
		ret = import_stream_scan(buf + off, end, &tail);
	if (ret)
		return ret;
	scan->npsb += tail.npsb;
	scan->features |= tail.features;
	if (tail.last_tsc)
		scan->last_tsc = tail.last_tsc;
	if (tail.cut != UINT64_MAX)
		scan->cut = off + tail.cut;
	return 0;
}

int import_set_argv(struct sb_manifest *m, int argc, char **argv)
{
	const char **av = calloc((size_t)argc + 2, sizeof(*av));
	int i, ret;

	if (!av)
		return -ENOMEM;
	av[0] = "ptrec";
	av[1] = "import";
	for (i = 0; i < argc; i++)
		av[i + 2] = argv[i];
	ret = sb_manifest_set_argv(m, argc + 2, av);
	free(av);
	return ret;
}

static int parse_num(const char *s, const char *end, uint64_t *v)
{
	char *e;

	if (s == end || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*v = strtoull(s, &e, 0);
	return errno || e != end ? -1 : 0;
}

int import_parse_cpu(const char *arg, struct sb_cpu *cpu, struct sb_err *err)
{
	uint64_t v[3] = { 0, 0, 0 };
	const char *p = arg;
	int n = 0;

	while (n < 3) {
		const char *e = strchr(p, '/');

		if (!e)
			e = p + strlen(p);
		if (parse_num(p, e, &v[n]) || v[n] > 0xffff)
			break;
		n++;
		if (!*e) {
			p = e;
			break;
		}
		p = e + 1;
	}
	if (n < 2 || *p)
		return sb_fail(err, -EINVAL,
				"--cpu %s: expected FAMILY/MODEL[/STEPPING], e.g. 6/85/4",
				arg);
	memset(cpu, 0, sizeof(*cpu));
	strcpy(cpu->vendor, "GenuineIntel");
	cpu->family = v[0];
	cpu->model = v[1];
	cpu->stepping = v[2];
	return 0;
}

static int add_map(struct sb_writer *w, uint32_t pid, uint64_t start,
		   uint64_t len, uint64_t pgoff, const char *key,
		   const char *path, struct sb_err *err)
{
	struct ptrec_sb_mmap mm;

	memset(&mm, 0, sizeof(mm));
	mm.hdr.type = PTREC_SB_MMAP;
	mm.hdr.flags = PTREC_SB_F_SNAPSHOT;
	mm.pid = pid;
	mm.tid = pid;
	mm.start = start;
	mm.len = len;
	mm.pgoff = pgoff;
	mm.prot = PROT_READ | PROT_EXEC;
	mm.mflags = MAP_PRIVATE;
	return sb_writer_add_mmap(w, &mm, key, path, err);
}

int import_add_elf(struct sb_bundle *b, struct sb_writer *w, uint32_t pid,
		   const char *path, uint64_t base, struct sb_err *err)
{
	char key[SB_IMAGE_KEY_MAX];
	uint64_t lowest = UINT64_MAX, bias = 0;
	size_t i, nph = 0, nexec = 0;
	struct stat st;
	GElf_Phdr ph;
	Elf *e = NULL;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sb_fail(err, -errno, "%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ret = sb_fail(err, -EINVAL, "%s: not a regular file", path);
		goto out_close;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph)) {
		ret = sb_fail(err, -ENOEXEC,
			       "%s: not an ELF file (use --raw FILE:ADDRESS for a memory dump)",
			       path);
		goto out_elf;
	}
	for (i = 0; i < nph; i++)
		if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_vaddr < lowest)
			lowest = ph.p_vaddr & ~0xfffull;
	if (base != UINT64_MAX && lowest != UINT64_MAX)
		bias = base - lowest;
	ret = sb_bundle_add_image_file(b, path, key, sizeof(key), err);
	if (ret)
		goto out_elf;
	for (i = 0; i < nph && !ret; i++) {
		uint64_t start, off;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		/* mmap() maps whole pages: the segment's page from its
		 * page-aligned file offset (ELF gABI, "Program Loading").
		 */
		start = (ph.p_vaddr & ~0xfffull) + bias;
		off = ph.p_offset & ~0xfffull;
		/* Written so that no sum can wrap (review). */
		if (ph.p_filesz > (uint64_t)st.st_size ||
		    ph.p_offset > (uint64_t)st.st_size - ph.p_filesz ||
		    start + (ph.p_offset + ph.p_filesz - off) < start) {
			ret = sb_fail(err, -ENOEXEC,
				       "%s: program header %zu lies beyond the file's end",
				       path, i);
			break;
		}
		ret = add_map(w, pid, start,
			      ph.p_offset + ph.p_filesz - off, off, key, path,
			      err);
		nexec++;
	}
	if (!ret && !nexec)
		ret = sb_fail(err, -ENOEXEC,
			       "%s: no executable PT_LOAD segment", path);
out_elf:
	if (e)
		elf_end(e);
out_close:
	close(fd);
	return ret;
}

/*
 * The file import_add_blob() stored last, and its key: a page dump lists
 * the same file once per page (libxdc's mruby: 364 lines), and reading
 * and hashing its 745 KB again for each cost the import 135 MB of reads.
 */
static struct {
	const struct sb_bundle *b;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char key[SB_IMAGE_KEY_MAX];
} last_blob;

int import_add_blob(struct sb_bundle *b, struct sb_writer *w, uint32_t pid,
		    const char *path, uint64_t addr, uint64_t off,
		    uint64_t size, struct sb_err *err)
{
	char key[SB_IMAGE_KEY_MAX];
	struct stat st;
	int ret;

	if (stat(path, &st))
		return sb_fail(err, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return sb_fail(err, -EINVAL, "%s: not a regular file", path);
	if (off > (uint64_t)st.st_size ||
	    (size && size > (uint64_t)st.st_size - off))
		return sb_fail(err, -EINVAL,
				"%s: offset 0x%llx size 0x%llx lies beyond the file's %llu bytes",
				path, (unsigned long long)off,
				(unsigned long long)size,
				(unsigned long long)st.st_size);
	if (!size)
		size = st.st_size - off;
	if (!size)
		return sb_fail(err, -EINVAL, "%s: empty image", path);
	if (addr + size < addr)
		return sb_fail(err, -EINVAL,
				"%s: address 0x%llx + size wraps around",
				path, (unsigned long long)addr);
	if (last_blob.b == b && last_blob.dev == st.st_dev &&
	    last_blob.ino == st.st_ino && last_blob.size == st.st_size &&
	    last_blob.mtime.tv_sec == st.st_mtim.tv_sec &&
	    last_blob.mtime.tv_nsec == st.st_mtim.tv_nsec)
		return add_map(w, pid, addr, size, off, last_blob.key, path,
			       err);
	ret = sb_bundle_add_image_file(b, path, key, sizeof(key), err);
	if (ret)
		return ret;
	last_blob.b = b;
	last_blob.dev = st.st_dev;
	last_blob.ino = st.st_ino;
	last_blob.size = st.st_size;
	last_blob.mtime = st.st_mtim;
	memcpy(last_blob.key, key, sizeof(key));
	return add_map(w, pid, addr, size, off, key, path, err);
}
