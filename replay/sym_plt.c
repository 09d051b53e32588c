// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Symbols of one ELF image, step 2: the synthetic "foo@plt" symbols BFD
 * makes for PLT stubs (GDB shows them in backtraces and call histories),
 * from the relocations of the GOT slots each stub jumps through.
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

/* ---- PLT stubs ----------------------------------------------------------- */

struct slot {
	uint64_t got;
	uint64_t addend;
	const char *name;
	bool used;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static struct slot *find_slot(struct slot *v, size_t n, uint64_t got)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].got == got ? &v[lo] : NULL;
}

/* The GOT slots that dynamic relocations fill, with their symbols' names. */
static int read_slots(struct sym_module *m, Elf_Scn *dynsym,
		      struct slot **out, size_t *nout)
{
	size_t dynndx = elf_ndxscn(dynsym), n = 0, cap = 0;
	Elf_Data *symd;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, dsh;
	struct slot *v = NULL;

	if (!gelf_getshdr(dynsym, &dsh))
		return 0;
	symd = sym_scn_data(dynsym, &dsh);
	while ((scn = elf_nextscn(m->elf, scn))) {
		Elf_Data *d;
		size_t i, nrel;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    sh.sh_link != dynndx ||
		    sh.sh_entsize != gelf_fsize(m->elf, ELF_T_RELA, 1,
						EV_CURRENT))
			continue;
		d = sym_scn_data(scn, &sh);
		nrel = d ? d->d_size / sh.sh_entsize : 0;
		for (i = 0; i < nrel && i <= INT_MAX; i++) {
			const char *name = "*ABS*";
			unsigned long type;
			GElf_Rela r;
			GElf_Sym s;

			if (!gelf_getrela(d, (int)i, &r))
				continue;
			type = GELF_R_TYPE(r.r_info);
			if (type != R_X86_64_JUMP_SLOT &&
			    type != R_X86_64_GLOB_DAT &&
			    type != R_X86_64_IRELATIVE)
				continue;
			if (GELF_R_SYM(r.r_info)) {
				if (!symd || GELF_R_SYM(r.r_info) > INT_MAX ||
				    !gelf_getsym(symd, (int)GELF_R_SYM(r.r_info),
						 &s))
					continue;
				name = elf_strptr(m->elf, dsh.sh_link,
						  s.st_name);
				if (!name || !*name)
					continue;
			}
			if (n == cap) {
				struct slot *t;

				cap = cap ? 2 * cap : 64;
				t = realloc(v, cap * sizeof(*v));
				if (!t) {
					free(v);
					return -ENOMEM;
				}
				v = t;
			}
			v[n].got = r.r_offset;
			v[n].addend = (uint64_t)r.r_addend;
			v[n].name = name;
			v[n++].used = false;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_slot);
	*out = v;
	*nout = n;
	return 0;
}

/*
 * Names the stubs of one PLT section.  Every x86-64 PLT entry that can be
 * called jumps through its GOT slot with "[endbr64] [bnd] jmp
 * *disp32(%rip)" at its start; the slot's relocation names the symbol.
 * PLT0 and the lazy entries of an IBT PLT (endbr64; push; jmp) start
 * otherwise and stay nameless, as in BFD.
 */
static int name_plt(struct sym_module *m, Elf_Scn *scn, const GElf_Shdr *sh,
		    const char *secname, struct slot *slots, size_t nslots)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const unsigned char *p;
	Elf_Data *d = sym_scn_data(scn, sh);
	size_t size, ent, off;
	uint32_t idx = (uint32_t)elf_ndxscn(scn);

	if (!d || !(sh->sh_flags & SHF_EXECINSTR) || idx >= m->nscns)
		return 0;
	p = d->d_buf;
	size = d->d_size < sh->sh_size ? d->d_size : sh->sh_size;
	/* .plt and .plt.sec entries are 16 bytes; .plt.got and .plt.bnd
	 * ones 8, or 16 with IBT.
	 */
	if (!strcmp(secname, ".plt") || !strcmp(secname, ".plt.sec") ||
	    (size >= 4 && !memcmp(p, endbr64, 4)))
		ent = 16;
	else
		ent = 8;
	for (off = 0; off + ent <= size; off += ent) {
		const unsigned char *e = p + off;
		size_t i = 0;
		int32_t disp;
		uint64_t got;
		struct slot *sl;
		char buf[40];
		const char *name;
		int ret;

		if (!memcmp(e, endbr64, 4))
			i = 4;
		if (e[i] == 0xf2)	/* bnd */
			i++;
		if (i + 6 > ent || e[i] != 0xff || e[i + 1] != 0x25)
			continue;
		disp = (int32_t)((uint32_t)e[i + 2] | (uint32_t)e[i + 3] << 8 |
				 (uint32_t)e[i + 4] << 16 |
				 (uint32_t)e[i + 5] << 24);
		got = sh->sh_addr + off + i + 6 + (uint64_t)(int64_t)disp;
		sl = find_slot(slots, nslots, got);
		/* One stub per slot, as BFD guards against corrupt PLTs. */
		if (!sl || sl->used)
			continue;
		sl->used = true;
		/* BFD's name: symbol, "+0x<addend>" if any, "@plt". */
		if (sl->addend)
			snprintf(buf, sizeof(buf), "+0x%llx@plt",
				 (unsigned long long)sl->addend);
		else
			snprintf(buf, sizeof(buf), "@plt");
		name = sym_str_cat(m, sl->name, strlen(sl->name), buf);
		if (!name)
			return -ENOMEM;
		ret = sym_add_sym(&m->own, sh->sh_addr + off, 0, name, idx, SK_TEXT,
			      (uint8_t)ent);
		if (ret)
			return ret;
	}
	return 0;
}

/* BFD's synthetic "foo@plt" symbols (elf_x86_64_get_synthetic_symtab). */
int sym_read_plt(struct sym_module *m)
{
	static const char *const names[] = {
		".plt", ".plt.sec", ".plt.bnd", ".plt.got"
	};
	struct slot *slots = NULL;
	Elf_Scn *scn = NULL, *dynsym = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t nslots = 0, i;
	int ret;

	if (!gelf_getehdr(m->elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	while ((scn = elf_nextscn(m->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			break;
		}
	/* Like BFD: no dynamic symbols (a static program), no stubs. */
	if (!dynsym)
		return 0;
	ret = read_slots(m, dynsym, &slots, &nslots);
	for (i = 0; !ret && nslots && i < sizeof(names) / sizeof(*names);
	     i++) {
		scn = sym_find_scn(m->elf, names[i], &sh);
		if (scn && sh.sh_type == SHT_PROGBITS)
			ret = name_plt(m, scn, &sh, names[i], slots, nslots);
	}
	free(slots);
	return ret;
}

