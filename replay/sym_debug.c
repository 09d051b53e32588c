// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Symbols of one ELF image: finding its separate debug file the way GDB
 * does (build id under the debug-file directory, then .gnu_debuglink next
 * to the file, in .debug/ and under the debug root, checked by CRC), and
 * mapping its sections onto the image's.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym_internal.h"

/* ---- separate debug files ------------------------------------------------ */

/* The GNU build-id note of @e, pointing into its mapping. */
bool sym_get_build_id(Elf *e, const void **id, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Nhdr nh;
		size_t off = 0, next, name_off, desc_off;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = sym_scn_data(scn, &sh);
		while (d && off < d->d_size &&
		       (next = gelf_getnote(d, off, &nh, &name_off,
					    &desc_off)) > off) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_off, "GNU",
				    4) &&
			    nh.n_descsz >= 2 && nh.n_descsz <= 64) {
				*id = (const char *)d->d_buf + desc_off;
				*len = nh.n_descsz;
				return true;
			}
			off = next;
		}
	}
	return false;
}

/* The CRC-32 that .gnu_debuglink carries (GDB's gnu_debuglink_crc32). */
static bool file_crc32(int fd, uint32_t *crc)
{
	uint32_t table[256], c = 0xffffffff;
	unsigned char buf[16384];
	off_t pos = 0;
	ssize_t n;
	unsigned int i, k;

	for (i = 0; i < 256; i++) {
		uint32_t v = i;

		for (k = 0; k < 8; k++)
			v = v & 1 ? 0xedb88320 ^ (v >> 1) : v >> 1;
		table[i] = v;
	}
	while ((n = pread(fd, buf, sizeof(buf), pos)) > 0) {
		for (i = 0; i < (size_t)n; i++)
			c = table[(c ^ buf[i]) & 0xff] ^ (c >> 8);
		pos += n;
	}
	*crc = ~c;
	return n == 0;
}

/*
 * Takes @file as the debug file if it is an ELF file of the same machine
 * that is not the image itself, and matches: the same build-id when both
 * have one, else (for .gnu_debuglink, @crc non-NULL) the CRC.
 */
static bool try_debug(struct sym_module *m, const char *file,
		      const uint32_t *crc)
{
	struct stat st, mine;
	GElf_Ehdr a, b;
	const void *id;
	size_t len;
	uint32_t c;
	bool ok = false, have_id;
	Elf *e;
	/* A debug link names any file here: never block on a FIFO. */
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || fstat(m->fd, &mine) ||
	    (st.st_dev == mine.st_dev && st.st_ino == mine.st_ino)) {
		close(fd);
		return false;
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (sym_is_elf(e) && gelf_getehdr(e, &a) && gelf_getehdr(m->elf, &b) &&
	    a.e_machine == b.e_machine &&
	    gelf_getclass(e) == gelf_getclass(m->elf)) {
		have_id = m->build_id && sym_get_build_id(e, &id, &len);
		if (have_id)
			ok = len == m->build_id_len &&
			     !memcmp(id, m->build_id, len);
		else if (crc)
			ok = file_crc32(fd, &c) && c == *crc;
		else
			ok = true;
	}
	if (!ok) {
		if (e)
			elf_end(e);
		close(fd);
		return false;
	}
	m->dbg = e;
	m->dbg_fd = fd;
	return true;
}

bool sym_try_build_id(struct sym_module *m)
{
	const unsigned char *id = m->build_id;
	char file[PATH_MAX];
	size_t i, n;

	if (!id)
		return false;
	n = (size_t)snprintf(file, sizeof(file), "%s/.build-id/%02x/",
			     DEBUG_ROOT, id[0]);
	for (i = 1; i < m->build_id_len; i++)
		n += (size_t)snprintf(file + n, sizeof(file) - n, "%02x",
				      id[i]);
	snprintf(file + n, sizeof(file) - n, ".debug");
	return try_debug(m, file, NULL);
}

/*
 * GDB's places for a debuglink @name next to @path: its directory, that
 * directory's .debug/, and the directory under DEBUG_ROOT.  A path without
 * a directory (such as "[vdso]") has none.
 */
static bool try_debuglink_near(struct sym_module *m, const char *path,
			       const char *name, uint32_t crc)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 0;
	char file[PATH_MAX];

	if (!slash)
		return false;
	if (snprintf(file, sizeof(file), "%.*s/%s", dirlen, path, name) <
		    (int)sizeof(file) && try_debug(m, file, &crc))
		return true;
	if (snprintf(file, sizeof(file), "%.*s/.debug/%s", dirlen, path,
		     name) < (int)sizeof(file) && try_debug(m, file, &crc))
		return true;
	return path[0] == '/' &&
	       snprintf(file, sizeof(file), "%s%.*s/%s", DEBUG_ROOT, dirlen,
			path, name) < (int)sizeof(file) &&
	       try_debug(m, file, &crc);
}

bool sym_try_debuglink(struct sym_module *m, const char *path)
{
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;
	const char *name;
	size_t len;
	uint32_t crc;
	unsigned char *c;
	char *ident = elf_getident(m->elf, NULL);

	scn = sym_find_scn(m->elf, ".gnu_debuglink", &sh);
	d = scn ? sym_scn_data(scn, &sh) : NULL;
	if (!d || !ident)
		return false;
	name = d->d_buf;
	len = strnlen(name, d->d_size);
	/* A name, NUL, padding to 4, then the CRC in file byte order. */
	if (!len || len == d->d_size || strchr(name, '/') ||
	    ((len + 4) & ~(size_t)3) + 4 > d->d_size)
		return false;
	c = (unsigned char *)d->d_buf + ((len + 4) & ~(size_t)3);
	if (ident[EI_DATA] == ELFDATA2MSB)
		crc = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 |
		      (uint32_t)c[2] << 8 | c[3];
	else
		crc = (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 |
		      (uint32_t)c[1] << 8 | c[0];
	return try_debuglink_near(m, m->display, name, crc) ||
	       (strcmp(path, m->display) &&
		try_debuglink_near(m, path, name, crc));
}

/* The debug file's section indices in the image: same name and address. */
uint32_t *sym_map_sections(struct sym_module *m, size_t *nmap)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint32_t *map;
	size_t n, j;

	if (elf_getshdrnum(m->dbg, &n) || !n || n > 65536)
		return NULL;
	map = malloc(n * sizeof(*map));
	if (!map)
		return NULL;
	for (j = 0; j < n; j++)
		map[j] = NO_SCN;
	while ((scn = elf_nextscn(m->dbg, scn))) {
		size_t i = elf_ndxscn(scn), k;
		const char *name = sym_scn_name(m->dbg, scn, &sh);

		if (!name || i >= n || !m->nscns)
			continue;
		/* Usually the same index: look there first, and search the
		 * others only in files of ordinary size.
		 */
		for (j = 0; j < (m->nscns <= 1024 ? m->nscns : 1); j++) {
			k = (i + j) % m->nscns;
			if (m->scns[k].name && m->scns[k].addr == sh.sh_addr &&
			    !strcmp(m->scns[k].name, name)) {
				map[i] = (uint32_t)k;
				break;
			}
		}
	}
	*nmap = n;
	return map;
}

