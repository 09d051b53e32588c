// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptgen's program (tools/ptgen/ptgen.c): generated from the seed (main's
 * loop, three levels of functions, recursive functions), laid out, its
 * code bytes encoded and written as an ELF with one executable PT_LOAD
 * segment and a symbol table.
 */
#include "ptgen.h"

uint64_t rng_state;
bool with_ptwrite;

static const uint8_t term_len[] = {
	[T_NONE] = 0, [T_COND] = 6, [T_JMP] = 5, [T_CALL] = 5,
	[T_ICALL] = 7, [T_JTAB] = 7, [T_RET] = 1,
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, CMD ": out of memory\n");
		exit(1);
	}
	return p;
}

/* ---- the program ------------------------------------------------------------- */

static struct block *new_block(struct prog *p, uint32_t func)
{
	struct block *b;

	if (p->nb == p->capb) {
		p->capb = p->capb ? 2 * p->capb : 256;
		p->b = xrealloc(p->b, p->capb * sizeof(*p->b));
	}
	b = &p->b[p->nb++];
	memset(b, 0, sizeof(*b));
	b->func = func;
	return b;
}

static uint32_t add_tab(struct prog *p, uint32_t v)
{
	if (p->ntabs == p->captabs) {
		p->captabs = p->captabs ? 2 * p->captabs : 256;
		p->tabs = xrealloc(p->tabs, p->captabs * sizeof(*p->tabs));
	}
	p->tabs[p->ntabs] = v;
	return (uint32_t)p->ntabs++;
}

static void add_fillers(struct prog *p, struct block *b, unsigned int n)
{
	unsigned int i;

	b->first_insn = (uint32_t)p->nilen;
	for (i = 0; i < n; i++) {
		if (p->nilen == p->capilen) {
			p->capilen = p->capilen ? 2 * p->capilen : 1024;
			p->ilen = xrealloc(p->ilen, p->capilen);
		}
		p->ilen[p->nilen++] = (uint8_t)rndn(NFILL);
		/* About one PTWRITE in 64 fillers. */
		if (with_ptwrite && !rndn(64))
			p->ilen[p->nilen - 1] = PTW_FILL;
	}
	b->ninsn = n;
}

/* A random function of level @lv (its index in p->f). */
static uint32_t pick(struct prog *p, int lv)
{
	return p->levels[lv][rndn(p->nlevel[lv])];
}

static void set_term(struct block *b, enum term t)
{
	static const uint8_t cls[] = {
		[T_NONE] = IC_OTHER, [T_COND] = IC_COND, [T_JMP] = IC_JMP,
		[T_CALL] = IC_CALL, [T_ICALL] = IC_CALL_IND,
		[T_JTAB] = IC_JMP_IND, [T_RET] = IC_RET,
	};

	b->term = (uint8_t)t;
	b->tin.len = term_len[t];
	b->tin.cls = cls[t];
	if (t != T_NONE)
		b->ninsn++;
}

/* Calls from level @lv go to level @lv + 1; level 1 also calls the
 * recursive functions.
 */
static uint32_t callee(struct prog *p, int lv)
{
	if (lv == 1 && rndn(12) == 0)
		return pick(p, 4);
	return pick(p, lv + 1);
}

static void gen_func(struct prog *p, uint32_t fi)
{
	struct func *f = &p->f[fi];
	int lv = f->level;
	unsigned int nb = lv == 0 ? 8 + rndn(6) : 3 + rndn(12);
	unsigned int i, backs = 0;

	f->first = (uint32_t)p->nb;
	f->nblocks = nb;
	for (i = 0; i < nb; i++) {
		struct block *b = new_block(p, fi);
		unsigned int r = rndn(100), k, n;

		/* A few blocks end in their branch alone. */
		add_fillers(p, b, rndn(10) ? 1 + rndn(8) : 0);
		if (i == nb - 1) {
			if (lv == 0) {
				/* main loops forever */
				set_term(b, T_JMP);
				b->target = f->first;
			} else {
				set_term(b, T_RET);
			}
			continue;
		}
		if (lv == 0 && r < 60) {
			/* main: calls, directly and through pointers */
			r = r < 40 ? 35 : 50;
		}
		if (r < 30) {
			set_term(b, T_COND);
			b->cc = (uint8_t)rndn(16);
			if (i && backs < 2 && lv && rndn(3) == 0) {
				/* a loop: back to this block or one before */
				b->target = f->first + i - rndn(i < 3 ? i + 1 : 4);
				b->taken = (uint32_t)(0.7 * 4294967296.0);
				backs++;
			} else {
				n = nb - 1 - i;	/* blocks after this one */
				b->target = f->first + i + 1 + rndn(n);
				b->taken = (uint32_t)rnd();
			}
		} else if ((r < 45 && lv < 3) || (lv == 0 && !i)) {
			/* main's first call recurses: every seed recurses */
			set_term(b, T_CALL);
			b->target = lv == 0 && !i ? pick(p, 4) : callee(p, lv);
		} else if (r < 57 && lv < 3) {
			set_term(b, T_ICALL);
			n = 2 + rndn(4);
			b->ntab = n;
			for (k = 0; k < n; k++) {
				uint32_t t = add_tab(p, callee(p, lv));

				if (!k)
					b->tab = t;
			}
		} else if (r < 67) {
			set_term(b, T_JTAB);
			n = 2 + rndn(5);
			b->ntab = n;
			for (k = 0; k < n; k++) {
				uint32_t t = add_tab(p, f->first + i + 1 +
						     rndn(nb - 1 - i));

				if (!k)
					b->tab = t;
			}
		} else if (r < 75) {
			set_term(b, T_JMP);
			b->target = f->first + i + 1 + rndn(nb - 1 - i);
		} else {
			set_term(b, T_NONE);
		}
		if (!b->ninsn)
			add_fillers(p, b, 1);
	}
}

/*
 * rec: b0: jcc b3 (taken once deep enough); b1: call rec; b2: jmp b4;
 *      b3: call *leaves[i]; b4: ret
 */
static void gen_rec(struct prog *p, uint32_t fi)
{
	struct func *f = &p->f[fi];
	struct block *b;
	unsigned int i, k;

	f->first = (uint32_t)p->nb;
	f->nblocks = 5;
	for (i = 0; i < 5; i++) {
		b = new_block(p, fi);
		add_fillers(p, b, 1 + rndn(6));
		switch (i) {
		case 0:
			set_term(b, T_COND);
			b->cc = (uint8_t)rndn(16);
			b->rec_cond = true;
			b->target = f->first + 3;
			break;
		case 1:
			set_term(b, T_CALL);
			b->target = fi;
			break;
		case 2:
			set_term(b, T_JMP);
			b->target = f->first + 4;
			break;
		case 3:
			set_term(b, T_ICALL);
			b->ntab = 3;
			for (k = 0; k < 3; k++) {
				uint32_t t = add_tab(p, pick(p, 3));

				if (!k)
					b->tab = t;
			}
			break;
		default:
			set_term(b, T_RET);
			break;
		}
	}
}

void gen_prog(struct prog *p)
{
	static const char *const prefix[] = { "main", "dispatch", "work",
					      "leaf", "recurse" };
	unsigned int n[5], lv, i;

	n[0] = 1;
	n[1] = 4 + rndn(5);
	n[2] = 8 + rndn(9);
	n[3] = 8 + rndn(9);
	n[4] = 2;
	for (lv = 0; lv < 5; lv++)
		p->nf += n[lv];
	p->f = calloc(p->nf, sizeof(*p->f));
	if (!p->f)
		exit(1);
	p->nf = 0;
	for (lv = 0; lv < 5; lv++)
		for (i = 0; i < n[lv]; i++) {
			struct func *f = &p->f[p->nf];

			f->level = (int)lv;
			if (lv)
				snprintf(f->name, sizeof(f->name), "%s_%u",
					 prefix[lv], i);
			else
				strcpy(f->name, "main");
			p->levels[lv][p->nlevel[lv]++] = (uint32_t)p->nf++;
		}
	/* Callees exist before callers are generated: only indices matter. */
	for (i = 0; i < p->nf; i++) {
		if (p->f[i].level == 4)
			gen_rec(p, i);
		else
			gen_func(p, i);
	}
}

/* ---- layout, code bytes, ELF ------------------------------------------------ */

static void put32(uint8_t *q, uint64_t v)
{
	uint32_t x = (uint32_t)v;

	memcpy(q, &x, 4);
}

void layout(struct prog *p)
{
	uint64_t ip = BASE + TEXT_OFF;
	size_t i, k;

	for (i = 0; i < p->nf; i++) {
		struct func *f = &p->f[i];
		size_t ntab = 0;

		ip = (ip + 15) & ~15ull;
		f->ip = ip;
		for (k = f->first; k < f->first + f->nblocks; k++) {
			struct block *b = &p->b[k];
			unsigned int j, nfill = b->ninsn - (b->term != T_NONE);

			b->ip = ip;
			b->nbytes = 0;
			for (j = 0; j < nfill; j++)
				b->nbytes += fillers[p->ilen[b->first_insn + j]].len;
			b->term_ip = ip + b->nbytes;
			b->nbytes += term_len[b->term];
			ip += b->nbytes;
			if (b->term == T_ICALL || b->term == T_JTAB)
				ntab += b->ntab;
		}
		f->size = ip - f->ip;
		/* Pointer tables (8 bytes per entry) after the code. */
		ip = (ip + 7) & ~7ull;
		f->table_ip = ip;
		ip += 8 * ntab;
	}
	p->text_end = ip;
}

/* The hash contribution of each block, per truth.h. */
void block_hashes(struct prog *p)
{
	size_t i;

	for (i = 0; i < p->nb; i++) {
		struct block *b = &p->b[i];
		uint64_t h = 0, m = 1, ip = b->ip;
		unsigned int j, nfill = b->ninsn - (b->term != T_NONE);

		for (j = 0; j < b->ninsn; j++) {
			h = h * PTGEN_HASH_MUL + ip;
			m *= PTGEN_HASH_MUL;
			if (j < nfill)
				ip += fillers[p->ilen[b->first_insn + j]].len;
		}
		b->hmul = m;
		b->hadd = h;
	}
}

static void emit_code(struct prog *p, uint8_t *img)
{
	size_t i, k, j;

	for (i = 0; i < p->nf; i++) {
		struct func *f = &p->f[i];
		uint64_t tab_ip = f->table_ip;

		for (k = f->first; k < f->first + f->nblocks; k++) {
			struct block *b = &p->b[k];
			unsigned int nfill = b->ninsn - (b->term != T_NONE);
			uint8_t *q = img + (b->ip - BASE);
			uint64_t *tab;

			for (j = 0; j < nfill; j++) {
				unsigned int kind = p->ilen[b->first_insn + j];

				memcpy(q, fillers[kind].bytes, fillers[kind].len);
				q += fillers[kind].len;
			}
			switch (b->term) {
			case T_COND:
				q[0] = 0x0f;
				q[1] = (uint8_t)(0x80 | b->cc);
				put32(q + 2, p->b[b->target].ip -
				      (b->term_ip + 6));
				break;
			case T_JMP:
				q[0] = 0xe9;
				put32(q + 1, p->b[b->target].ip -
				      (b->term_ip + 5));
				break;
			case T_CALL:
				q[0] = 0xe8;
				put32(q + 1, p->f[b->target].ip -
				      (b->term_ip + 5));
				break;
			case T_ICALL:	/* call *disp32(,%rcx,8) */
			case T_JTAB:	/* jmp *disp32(,%rax,8) */
				q[0] = 0xff;
				q[1] = b->term == T_ICALL ? 0x14 : 0x24;
				q[2] = b->term == T_ICALL ? 0xcd : 0xc5;
				put32(q + 3, tab_ip);
				tab = (uint64_t *)(img + (tab_ip - BASE));
				for (j = 0; j < b->ntab; j++)
					tab[j] = b->term == T_ICALL ?
						 p->f[p->tabs[b->tab + j]].ip :
						 p->b[p->tabs[b->tab + j]].ip;
				tab_ip += 8 * b->ntab;
				break;
			case T_RET:
				q[0] = 0xc3;
				break;
			default:
				break;
			}
		}
	}
}

/* ELF64: headers, the code (one R+X PT_LOAD from offset 0, page-padded),
 * .symtab with one FUNC symbol per function, .strtab, .shstrtab.
 */
void build_elf(struct prog *p)
{
	static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	uint64_t load = ((p->text_end - BASE) + 0xfff) & ~0xfffull;
	uint64_t symoff = load, stroff, shstroff, shoff, strsz = 1;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	Elf64_Shdr *sh;
	Elf64_Sym *sym;
	uint8_t *img;
	size_t i;

	for (i = 0; i < p->nf; i++)
		strsz += strlen(p->f[i].name) + 1;
	stroff = symoff + (p->nf + 1) * sizeof(Elf64_Sym);
	shstroff = stroff + strsz;
	shoff = (shstroff + sizeof(shstr) + 7) & ~7ull;
	p->elf_size = shoff + 5 * sizeof(Elf64_Shdr);
	img = calloc(1, p->elf_size);
	if (!img)
		exit(1);
	eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = p->f[0].ip;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = shoff;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 5;
	eh->e_shstrndx = 4;
	ph = (Elf64_Phdr *)(img + sizeof(*eh));
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_vaddr = ph->p_paddr = BASE;
	ph->p_filesz = ph->p_memsz = load;
	ph->p_align = 0x1000;
	emit_code(p, img);
	sym = (Elf64_Sym *)(img + symoff);
	strsz = 1;
	for (i = 0; i < p->nf; i++) {
		Elf64_Sym *s = &sym[i + 1];

		s->st_name = (uint32_t)strsz;
		s->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		s->st_shndx = 1;
		s->st_value = p->f[i].ip;
		s->st_size = p->f[i].size;
		strcpy((char *)img + stroff + strsz, p->f[i].name);
		strsz += strlen(p->f[i].name) + 1;
	}
	memcpy(img + shstroff, shstr, sizeof(shstr));
	sh = (Elf64_Shdr *)(img + shoff);
	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_PROGBITS;
	sh[1].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[1].sh_addr = BASE + TEXT_OFF;
	sh[1].sh_offset = TEXT_OFF;
	sh[1].sh_size = p->text_end - BASE - TEXT_OFF;
	sh[1].sh_addralign = 16;
	sh[2].sh_name = 7;
	sh[2].sh_type = SHT_SYMTAB;
	sh[2].sh_offset = symoff;
	sh[2].sh_size = (p->nf + 1) * sizeof(Elf64_Sym);
	sh[2].sh_link = 3;
	sh[2].sh_info = 1;
	sh[2].sh_addralign = 8;
	sh[2].sh_entsize = sizeof(Elf64_Sym);
	sh[3].sh_name = 15;
	sh[3].sh_type = SHT_STRTAB;
	sh[3].sh_offset = stroff;
	sh[3].sh_size = strsz;
	sh[3].sh_addralign = 1;
	sh[4].sh_name = 23;
	sh[4].sh_type = SHT_STRTAB;
	sh[4].sh_offset = shstroff;
	sh[4].sh_size = sizeof(shstr);
	sh[4].sh_addralign = 1;
	p->elf = img;
}
