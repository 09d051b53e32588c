// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptgen: synthetic traces at scale (issue #7, docs/scale.md).
 *
 * Generates an x86-64 program from a seed (an ELF written byte by byte:
 * one executable PT_LOAD segment and a symbol table), walks it
 * pseudo-randomly for exactly N instructions, and writes a trace bundle as
 * the software recorder would: the image in the store, snapshot sideband,
 * one thread whose PT stream comes from ptkit/ptenc.c (PSB+ every
 * --psb-period bytes, TSC, TNT-8 or long TNT, TIP for indirect branches and
 * for returns that return compression does not cover), and a compact
 * ground truth (tools/ptgen/truth.h).
 *
 * The walk works per basic block: each block's instruction count, address
 * hash contribution and terminating branch are computed once, so the hot
 * loop costs a few operations per block and one encoder call per branch.
 *
 * The program: main loops forever calling level-1 functions (directly and
 * through pointer tables); level-1 functions call level-2 ones and the
 * recursive functions; level 2 calls the leaves.  Functions have
 * conditional branches (forward, and backward ones that make loops), jump
 * tables, direct jumps and returns.  main's first call goes to a recursive
 * function.  The recursive functions recurse to a depth drawn per
 * outermost call (up to --max-depth, beyond the 64 entries of the
 * return-compression stack).
 *
 * --events K adds about one group of event packets per K blocks, at a
 * block's first instruction (where the decoder binds each, issue #21):
 * TSX begin or commit (MODE.TSX + FUP), an MWAIT sleep (MWAIT, PWRE,
 * EXSTOP + FUP, PWRX), either followed by a core:bus ratio change (CBR);
 * and PTWRITE instructions among the fillers (about one in 64), each with
 * its PTW + FUP.  DIR.events lists them as `ptrec insns` prints them,
 * "N [TEXT]", N the number of the instruction they come before.
 */
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "ptenc.h"
#include "sideband.h"
#include "truth.h"

#define CMD "ptgen"
#define BASE 0x400000ull
#define TEXT_OFF 0x1000ull
#define PID 4242
#define TSC0 1000ull
#define MAX_STACK 65536

enum term { T_NONE, T_COND, T_JMP, T_CALL, T_ICALL, T_JTAB, T_RET };

struct block {
	uint64_t ip, term_ip;
	uint64_t hmul, hadd;	/* hash: h' = h * hmul + hadd */
	uint32_t ninsn, nbytes;	/* terminator included */
	uint32_t func;
	uint32_t target;	/* COND/JMP: block; CALL: function */
	uint32_t tab, ntab;	/* JTAB: blocks, ICALL: functions, in tabs[] */
	uint32_t taken;		/* COND: P(taken) in 1/2^32 */
	uint32_t first_insn;	/* filler lengths in ilen[] */
	uint8_t term;
	bool rec_cond;		/* COND taken when the recursion is deep enough */
	uint8_t cc;		/* COND: condition code */
	struct insn tin;
};

struct func {
	char name[32];
	uint32_t first, nblocks;
	int level;		/* 0 main, 1, 2, 3 leaves, 4 recursive */
	uint64_t ip, size;
	uint64_t table_ip;	/* its pointer tables, after the code */
};

struct prog {
	struct block *b;
	size_t nb, capb;
	struct func *f;
	size_t nf;
	uint32_t *tabs;
	size_t ntabs, captabs;
	uint8_t *ilen;		/* filler instruction kinds, see fillers[] */
	size_t nilen, capilen;
	uint64_t text_end;	/* vaddr */
	uint8_t *elf;
	size_t elf_size;
	uint32_t levels[5][64];	/* function indices per level */
	uint32_t nlevel[5];
};

/* Instructions without control flow: bytes and length. */
static const struct {
	uint8_t len;
	uint8_t bytes[9];
} fillers[] = {
	{ 1, { 0x90 } },					/* nop */
	{ 3, { 0x48, 0x89, 0xc3 } },				/* mov %rax,%rbx */
	{ 4, { 0x48, 0x83, 0xc0, 0x07 } },			/* add $7,%rax */
	{ 5, { 0xb8, 0x2a, 0x00, 0x00, 0x00 } },		/* mov $42,%eax */
	{ 5, { 0x48, 0x8d, 0x44, 0x24, 0x08 } },		/* lea 8(%rsp),%rax */
	{ 4, { 0x48, 0x8b, 0x45, 0xf8 } },			/* mov -8(%rbp),%rax */
	{ 7, { 0x48, 0xc7, 0xc1, 0x10, 0x00, 0x00, 0x00 } },	/* mov $16,%rcx */
	{ 2, { 0x31, 0xc0 } },					/* xor %eax,%eax */
	{ 3, { 0x48, 0x39, 0xd8 } },				/* cmp %rbx,%rax */
	{ 9, { 0x66, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 } },	/* nopw 0(%rax,%rax) */
	{ 3, { 0x48, 0xff, 0xc9 } },				/* dec %rcx */
	{ 4, { 0x48, 0x83, 0xe1, 0x03 } },			/* and $3,%rcx */
	{ 5, { 0xf3, 0x48, 0x0f, 0xae, 0xe0 } },		/* ptwrite %rax */
};
/* The last is drawn only with --events (the programs stay the same). */
#define NFILL (sizeof(fillers) / sizeof(fillers[0]) - 1)
#define PTW_FILL NFILL
static bool with_ptwrite;

static const uint8_t term_len[] = {
	[T_NONE] = 0, [T_COND] = 6, [T_JMP] = 5, [T_CALL] = 5,
	[T_ICALL] = 7, [T_JTAB] = 7, [T_RET] = 1,
};

/* ---- pseudo-random numbers (xorshift64*) ---------------------------------- */

static uint64_t rng_state;

static inline uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static inline uint32_t rndn(uint32_t n)
{
	return (uint32_t)(((rnd() >> 32) * n) >> 32);
}

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

static void gen_prog(struct prog *p)
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

static void layout(struct prog *p)
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
static void block_hashes(struct prog *p)
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
static void build_elf(struct prog *p)
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

/* ---- the walk ------------------------------------------------------------------ */

struct stats {
	uint64_t blocks, cond_taken, cond_not, loops, jmp, call, icall, jtab;
	uint64_t ret, max_depth, max_rec, psbs, samples;
};

struct frame {
	uint64_t call_pos;
	uint32_t ret_block;
	bool rec;
};

struct walker {
	struct prog *p;
	struct ptenc enc;
	FILE *truth;
	uint64_t n, pos;
	uint64_t *last_pos;
	struct frame *stack;
	size_t depth;
	uint64_t rec_depth, rec_target, max_depth_arg;
	struct ptgen_seg seg;
	uint64_t sample_gap, next_sample;
	struct stats st;
	uint64_t end_ip;	/* where the history stops: not executed */
	int err;
	uint64_t events_every;	/* --events K: 0 none */
	FILE *events;		/* DIR.events */
	uint64_t nevents;
	bool in_tsx;
	uint8_t cbr;
	/* The number of the instruction before which the decoder reads the
	 * next packet: after the last one that took a packet (TNT, TIP) or
	 * the last event group.  Events bound to no address (PWRE) are
	 * reported there.
	 */
	uint64_t read_at;
};

/*
 * The PTWRITEs among the first @k instructions of block @b (at w->pos):
 * PTW + FUP each, written at the block's start, bound by the decoder to
 * its instruction (the block has no other packet before its end).
 */
static int ptwrites(struct walker *w, const struct block *b, uint32_t k)
{
	uint64_t ip = b->ip;
	uint32_t j;
	int ret = 0;

	for (j = 0; j < k && j < b->ninsn && !ret; j++) {
		unsigned int kind = w->p->ilen[b->first_insn + j];

		if (j + 1 < b->ninsn || b->term == T_NONE) {
			if (kind == PTW_FILL) {
				uint64_t v = (w->pos + j) * 0x9e3779b97f4a7c15ull;

				ret = ptenc_ptwrite(&w->enc, ip, v, 8);
				fprintf(w->events, "%" PRIu64
					" [ptwrite: 0x%" PRIx64 "]\n",
					w->pos + j + 2, v);
				w->nevents++;
				w->read_at = w->pos + j + 2;
			}
			ip += fillers[kind].len;
		}
	}
	return ret;
}

/* One group of events before instruction w->pos, at @ip. */
static int events(struct walker *w, uint64_t ip)
{
	uint64_t r = rnd();
	uint64_t n = w->pos + 1;
	int ret;

	if (r & 1) {
		ret = ptenc_tsx(&w->enc, ip, !w->in_tsx, false);
		fprintf(w->events, "%" PRIu64 " [tsx: %s]\n", n,
			w->in_tsx ? "commit" : "begin");
		w->in_tsx = !w->in_tsx;
		w->nevents++;
	} else {
		ret = ptenc_power(&w->enc, ip, 0x20, 1, 0, 2);
		fprintf(w->events, "%" PRIu64 " [pwre: state 0x1, sub-state 0x0]\n"
			"%" PRIu64 " [mwait: hints 0x20, ext 0x0]\n"
			"%" PRIu64 " [exstop: at 0x%" PRIx64 "]\n"
			"%" PRIu64 " [pwrx: last 0x1, deepest 0x2, woken by an interrupt]\n",
			w->read_at, n, n, ip, n);
		w->nevents += 4;
	}
	if (!ret && (r & 2)) {
		w->cbr = (uint8_t)(w->cbr % 32 + 8);	/* 8..39, never 0 */
		ret = ptenc_cbr(&w->enc, w->cbr);
		fprintf(w->events, "%" PRIu64 " [cbr: %u]\n", n, w->cbr);
		w->nevents++;
	}
	w->read_at = n;
	return ret;
}

static void put_seg(struct walker *w, uint64_t next_first)
{
	w->seg.n = next_first - w->seg.first;
	if (fwrite(&w->seg, sizeof(w->seg), 1, w->truth) != 1)
		w->err = -EIO;
	w->seg.first = next_first;
	w->seg.hash = 0;
}

/* Samples go to a temporary file: the header comes first, their count
 * is known at the end.
 */
static FILE *sample_file;

static void sample(struct walker *w, uint32_t bi, bool by_ret)
{
	struct ptgen_sample s;

	s.index = w->pos;
	s.ip = w->p->b[bi].ip;
	s.prev = w->last_pos[bi];
	s.frame_call = w->depth ? w->stack[w->depth - 1].call_pos :
		       PTGEN_NONE;
	s.ret_call = by_ret ? w->stack[w->depth].call_pos : PTGEN_NONE;
	if (fwrite(&s, sizeof(s), 1, sample_file) != 1)
		w->err = -EIO;
	w->st.samples++;
	w->next_sample = w->pos + 1 + rnd() % w->sample_gap;
}

static int walk(struct walker *w)
{
	struct prog *p = w->p;
	struct block *blocks = p->b;
	uint32_t cur = p->f[0].first, next;
	uint64_t mark = w->enc.psb_mark, h = 0;
	bool by_ret = false;
	int ret;

	ret = ptenc_start(&w->enc, TSC0);
	if (!ret)
		ret = ptenc_enable(&w->enc, blocks[cur].ip, TSC0);
	mark = w->enc.psb_mark;
	w->read_at = 1;
	if (w->events)
		fprintf(w->events, "1 [enabled]\n");
	while (!ret && w->pos < w->n) {
		struct block *b = &blocks[cur];

		ret = ptenc_boundary(&w->enc, b->ip, TSC0 + w->pos);
		if (w->enc.psb_mark != mark) {
			mark = w->enc.psb_mark;
			w->seg.hash = h;
			put_seg(w, w->pos);
			h = 0;
			w->st.psbs++;
			/* Its FUP binds here: read on from here. */
			w->read_at = w->pos + 1;
		}
		if (w->pos >= w->next_sample)
			sample(w, cur, by_ret);
		if (!ret && w->events_every && !(rnd() % w->events_every))
			ret = events(w, b->ip);
		if (!ret && w->events_every)
			ret = ptwrites(w, b, (uint32_t)(w->n - w->pos < b->ninsn ?
					       w->n - w->pos : b->ninsn));
		w->last_pos[cur] = w->pos;
		if (w->pos + b->ninsn > w->n) {
			/* The last block, cut: its first n - pos insns. */
			uint64_t ip = b->ip;
			uint32_t j, k = (uint32_t)(w->n - w->pos);

			for (j = 0; j < k; j++) {
				h = h * PTGEN_HASH_MUL + ip;
				ip += fillers[p->ilen[b->first_insn + j]].len;
			}
			w->pos = w->n;
			w->seg.hash = h;
			w->end_ip = ip;
			if (!ret)
				ret = ptenc_disable_async(&w->enc, ip);
			if (w->events)
				fprintf(w->events, "%" PRIu64
					" [disabled: at 0x%" PRIx64 "]\n",
					w->pos + 1, ip);
			return ret;
		}
		h = h * b->hmul + b->hadd;
		w->pos += b->ninsn;
		w->st.blocks++;
		by_ret = false;
		/* ptenc counts retired instructions for its TSC period. */
		w->enc.since_tsc += b->ninsn - (b->term != T_NONE);
		switch (b->term) {
		case T_NONE:
			next = cur + 1;
			break;
		case T_COND: {
			bool taken = b->rec_cond ?
				     w->rec_depth >= w->rec_target :
				     (uint32_t)(rnd() >> 32) < b->taken;

			next = taken ? b->target : cur + 1;
			if (taken) {
				w->st.cond_taken++;
				if (b->target <= cur)
					w->st.loops++;
			} else {
				w->st.cond_not++;
			}
			break;
		}
		case T_JMP:
			next = b->target;
			w->st.jmp++;
			break;
		case T_JTAB:
			next = p->tabs[b->tab + rndn(b->ntab)];
			w->st.jtab++;
			break;
		case T_CALL:
		case T_ICALL: {
			uint32_t fi = b->term == T_CALL ? b->target :
				      p->tabs[b->tab + rndn(b->ntab)];
			struct frame *fr = &w->stack[w->depth++];

			if (w->depth == MAX_STACK) {
				fprintf(stderr, CMD ": call stack overflow\n");
				return -EOVERFLOW;
			}
			fr->call_pos = w->pos - 1;
			fr->ret_block = cur + 1;
			fr->rec = p->f[fi].level == 4;
			/* Mostly shallow, one in four up to --max-depth. */
			if (fr->rec && !w->rec_depth++)
				w->rec_target = 1 + rnd() % (rnd() & 3 ? 8 :
							      w->max_depth_arg);
			if (fr->rec && w->rec_depth > w->st.max_rec)
				w->st.max_rec = w->rec_depth;
			if (w->depth > w->st.max_depth)
				w->st.max_depth = w->depth;
			next = p->f[fi].first;
			if (b->term == T_CALL)
				w->st.call++;
			else
				w->st.icall++;
			break;
		}
		case T_RET: {
			struct frame *fr = &w->stack[--w->depth];

			next = fr->ret_block;
			if (fr->rec)
				w->rec_depth--;
			by_ret = true;
			w->st.ret++;
			break;
		}
		default:
			return -EINVAL;
		}
		if (!ret && b->term != T_NONE)
			ret = ptenc_retire(&w->enc, &b->tin, b->term_ip,
					   blocks[next].ip);
		if (b->term != T_NONE && b->term != T_JMP &&
		    b->term != T_CALL)
			w->read_at = w->pos + 1;
		if (ret > 0) {
			fprintf(stderr, CMD ": encoder refused a transfer\n");
			return -EPROTO;
		}
		cur = next;
	}
	w->seg.hash = h;
	w->end_ip = blocks[cur].ip;
	if (!ret)
		ret = ptenc_disable_async(&w->enc, blocks[cur].ip);
	if (w->events)
		fprintf(w->events, "%" PRIu64 " [disabled: at 0x%" PRIx64 "]\n",
			w->pos + 1, blocks[cur].ip);
	return ret;
}

/* ---- the bundle ------------------------------------------------------------------ */

static int add_sideband(struct sb_bundle *bn, const char *key,
			const char *origin, uint64_t len, struct sb_err *err)
{
	struct ptrec_sb_time tm = {
		.hdr = { .type = PTREC_SB_TIME, .time = 1 },
		.time_mult = 1, .tsc_hz = 1000000000ull };
	struct ptrec_sb_comm comm = {
		.hdr = { .type = PTREC_SB_COMM, .time = 1,
			 .flags = PTREC_SB_F_SNAPSHOT },
		.pid = PID, .tid = PID, .comm = "ptgen" };
	struct ptrec_sb_mmap mm = {
		.hdr = { .type = PTREC_SB_MMAP, .time = 1,
			 .flags = PTREC_SB_F_SNAPSHOT },
		.pid = PID, .tid = PID, .start = BASE, .len = len,
		.pgoff = 0, .prot = PROT_READ | PROT_EXEC,
		.mflags = MAP_PRIVATE };
	struct sb_writer *w;
	int ret;

	ret = sb_bundle_open_sideband(bn, &w, err);
	if (!ret)
		ret = sb_writer_add(w, &tm.hdr, err);
	if (!ret)
		ret = sb_writer_add(w, &comm.hdr, err);
	if (!ret)
		ret = sb_writer_add_mmap(w, &mm, key, origin, err);
	return ret;
}

/* The register snapshot at the end: the PC only (nothing else ran). */
static int write_regs(struct sb_bundle *bn, const struct sb_thread *th,
		      uint64_t ip)
{
	struct sb_regs regs;
	struct sb_err err;
	char path[4096];
	int ret;

	memset(&regs, 0, sizeof(regs));
	regs.tid = th->tid;
	regs.valid = 1ull << SB_REG_RIP;
	regs.val[SB_REG_RIP] = ip;
	if (!th->regs || sb_bundle_path(bn, th->regs, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	ret = sb_regs_save(&regs, path, &err);
	if (ret)
		fprintf(stderr, CMD ": %s\n", err.msg);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " CMD " -o DIR [--insns N] [--seed S] [--truth FILE] [--elf FILE]\n"
		"             [--psb-period BYTES] [--long-tnt] [--samples K] [--max-depth D]\n"
		"             [--events K]\n"
		"\n"
		"  -o DIR            the bundle to write (must not exist or be empty)\n"
		"  --insns N         instructions in the history (default 1000000; 1e9 works)\n"
		"  --seed S          program and walk seed (default 1)\n"
		"  --truth FILE      compact ground truth (default DIR.truth)\n"
		"  --elf FILE        also write the generated program there\n"
		"  --psb-period B    bytes between PSBs (default 4096)\n"
		"  --long-tnt        long TNT packets (47 bits) instead of TNT-8\n"
		"  --samples K       about K sampled positions (default 1024)\n"
		"  --max-depth D     deepest recursion (default 200)\n"
		"  --events K        event packets about every K blocks, listed in DIR.events\n");
}

static int parse_num(const char *opt, const char *arg, uint64_t *v)
{
	char *e;
	double d;

	errno = 0;
	*v = strtoull(arg, &e, 0);
	if (!errno && !*e && arg[0] != '-')
		return 0;
	/* 1e9 */
	d = strtod(arg, &e);
	if (!*e && d >= 0 && d < 1.8e19 && arg[0] != '-') {
		*v = (uint64_t)d;
		return 0;
	}
	fprintf(stderr, CMD ": %s %s: not a number\n", opt, arg);
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "insns", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "truth", required_argument, NULL, 't' },
		{ "elf", required_argument, NULL, 'e' },
		{ "psb-period", required_argument, NULL, 'P' },
		{ "long-tnt", no_argument, NULL, 'L' },
		{ "samples", required_argument, NULL, 'k' },
		{ "max-depth", required_argument, NULL, 'd' },
		{ "events", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t insns = 1000000, seed = 1, psb = 4096, nsamples = 1024;
	uint64_t maxdepth = 200, events_every = 0;
	const char *out = NULL, *truth = NULL, *elf = NULL;
	char truth_buf[4096], key[SB_IMAGE_KEY_MAX], path[4096];
	const struct sb_thread *th;
	struct ptgen_truth_hdr hdr;
	struct walker w;
	struct prog p;
	struct sb_bundle *bn;
	struct sb_manifest *m;
	struct sb_err err;
	struct timespec t0, t1;
	bool long_tnt = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'n':
			if (parse_num("--insns", optarg, &insns))
				return 2;
			break;
		case 's':
			if (parse_num("--seed", optarg, &seed))
				return 2;
			break;
		case 't':
			truth = optarg;
			break;
		case 'e':
			elf = optarg;
			break;
		case 'P':
			if (parse_num("--psb-period", optarg, &psb))
				return 2;
			if (psb < 64) {
				fprintf(stderr, CMD ": --psb-period %s: at least 64\n",
					optarg);
				return 2;
			}
			break;
		case 'L':
			long_tnt = true;
			break;
		case 'k':
			if (parse_num("--samples", optarg, &nsamples))
				return 2;
			break;
		case 'd':
			if (parse_num("--max-depth", optarg, &maxdepth))
				return 2;
			if (!maxdepth || maxdepth > MAX_STACK / 2) {
				fprintf(stderr, CMD ": --max-depth %s: 1 to %d\n",
					optarg, MAX_STACK / 2);
				return 2;
			}
			break;
		case 'E':
			if (parse_num("--events", optarg, &events_every))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!out || optind < argc) {
		fprintf(stderr, CMD ": %s\n", out ? "unexpected argument" :
			"-o DIR is required");
		usage(stderr);
		return 2;
	}
	if (!insns) {
		fprintf(stderr, CMD ": --insns 0: nothing to generate\n");
		return 2;
	}
	if (!truth) {
		snprintf(truth_buf, sizeof(truth_buf), "%s.truth", out);
		truth = truth_buf;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(&p, 0, sizeof(p));
	with_ptwrite = events_every > 0;
	rng_state = seed * 0x9e3779b97f4a7c15ull + 0x1234567;
	if (!rng_state)
		rng_state = 1;
	gen_prog(&p);
	layout(&p);
	block_hashes(&p);
	build_elf(&p);
	if (elf) {
		FILE *f = fopen(elf, "wb");

		if (!f || fwrite(p.elf, 1, p.elf_size, f) != p.elf_size ||
		    fclose(f)) {
			fprintf(stderr, CMD ": --elf %s: %s\n", elf,
				strerror(errno));
			return 1;
		}
	}

	ret = sb_bundle_create(&bn, out, &err);
	if (ret) {
		fprintf(stderr, CMD ": -o %s: %s\n", out, err.msg);
		return 1;
	}
	m = sb_bundle_manifest(bn);
	ret = sb_bundle_add_image_mem(bn, p.elf, p.elf_size,
				      elf ? elf : "ptgen-program", key,
				      sizeof(key), &err);
	if (!ret)
		ret = add_sideband(bn, key, elf ? elf : "ptgen-program",
				   ((p.text_end - BASE) + 0xfff) & ~0xfffull,
				   &err);
	if (ret) {
		fprintf(stderr, CMD ": %s\n", err.msg);
		goto fail;
	}
	if (sb_bundle_add_thread(bn, PID, PID, false, &th) ||
	    sb_bundle_path(bn, th->pt, path, sizeof(path)) < 0) {
		fprintf(stderr, CMD ": cannot add the thread\n");
		goto fail;
	}

	memset(&w, 0, sizeof(w));
	w.p = &p;
	w.n = insns;
	w.max_depth_arg = maxdepth;
	w.sample_gap = nsamples ? 2 * insns / nsamples + 1 : UINT64_MAX;
	w.next_sample = nsamples ? rnd() % w.sample_gap : UINT64_MAX;
	w.last_pos = malloc(p.nb * sizeof(*w.last_pos));
	w.stack = calloc(MAX_STACK, sizeof(*w.stack));
	if (!w.last_pos || !w.stack)
		return 1;
	memset(w.last_pos, 0xff, p.nb * sizeof(*w.last_pos));
	ret = ptenc_open(&w.enc, path, psb, long_tnt);
	if (ret) {
		fprintf(stderr, CMD ": %s: %s\n", path, strerror(-ret));
		goto fail;
	}
	w.truth = fopen(truth, "wb");
	sample_file = tmpfile();
	if (!w.truth || !sample_file) {
		fprintf(stderr, CMD ": %s: %s\n", truth, strerror(errno));
		goto fail;
	}
	memset(&hdr, 0, sizeof(hdr));
	if (fwrite(&hdr, sizeof(hdr), 1, w.truth) != 1)
		w.err = -EIO;
	w.events_every = events_every;
	if (events_every) {
		char evpath[4096];

		snprintf(evpath, sizeof(evpath), "%s.events", out);
		w.events = fopen(evpath, "w");
		if (!w.events) {
			fprintf(stderr, CMD ": %s: %s\n", evpath,
				strerror(errno));
			goto fail;
		}
	}
	ret = walk(&w);
	if (w.events && fclose(w.events) && !ret)
		ret = -EIO;
	if (ret) {
		fprintf(stderr, CMD ": walk: %s\n", strerror(ret < 0 ? -ret : ret));
		goto fail;
	}
	put_seg(&w, w.pos);
	ret = write_regs(bn, th, w.end_ip);
	if (!ret)
		ret = ptenc_close(&w.enc);
	if (ret) {
		fprintf(stderr, CMD ": %s: %s\n", path, strerror(-ret));
		goto fail;
	}
	/* Header, segments, then the samples. */
	memcpy(hdr.magic, PTGEN_TRUTH_MAGIC, 8);
	hdr.version = PTGEN_TRUTH_VERSION;
	hdr.tid = PID;
	hdr.seed = seed;
	hdr.insns = w.pos;
	hdr.nsegs = w.st.psbs + 1;
	hdr.nsamples = w.st.samples;
	rewind(sample_file);
	for (;;) {
		char buf[65536];
		size_t k = fread(buf, 1, sizeof(buf), sample_file);

		if (!k)
			break;
		if (fwrite(buf, 1, k, w.truth) != k)
			w.err = -EIO;
	}
	if (fseek(w.truth, 0, SEEK_SET) ||
	    fwrite(&hdr, sizeof(hdr), 1, w.truth) != 1 || w.err ||
	    fclose(w.truth)) {
		fprintf(stderr, CMD ": %s: write failed\n", truth);
		goto fail;
	}
	fclose(sample_file);

	free(m->backend);
	m->backend = strdup("ptgen");
	strcpy(m->cpu.vendor, "GenuineIntel");
	m->pt.emulated = true;
	m->pt.features = SB_PT_USER | SB_PT_BRANCH | SB_PT_TSC |
			 SB_PT_RET_COMPRESSION;
	m->pt.psb_period = psb;
	m->time.time_mult = 1;
	m->time.tsc_hz = 1000000000ull;
	sb_manifest_set_argv(m, argc, (const char *const *)argv);
	{
		struct sb_process *pr = sb_manifest_add_process(m);

		if (!pr)
			goto fail;
		pr->pid = PID;
		pr->exe = strdup(elf ? elf : "ptgen-program");
	}
	ret = sb_bundle_finish(bn, &err);
	if (ret) {
		fprintf(stderr, CMD ": %s\n", err.msg);
		goto fail;
	}
	sb_bundle_free(bn);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("insns=%" PRIu64 " blocks=%" PRIu64 " functions=%zu code_blocks=%zu"
	       " text_bytes=%" PRIu64 " pt_bytes=%" PRIu64 " psbs=%" PRIu64
	       " samples=%" PRIu64 "\n",
	       w.pos, w.st.blocks, p.nf, p.nb,
	       (uint64_t)(p.text_end - BASE - TEXT_OFF),
	       w.enc.written, w.st.psbs, w.st.samples);
	printf("cond_taken=%" PRIu64 " cond_not=%" PRIu64 " loops=%" PRIu64
	       " jmp=%" PRIu64 " call=%" PRIu64 " icall=%" PRIu64
	       " jtab=%" PRIu64 " ret=%" PRIu64 " max_depth=%" PRIu64
	       " max_recursion=%" PRIu64 "\n",
	       w.st.cond_taken, w.st.cond_not, w.st.loops, w.st.jmp,
	       w.st.call, w.st.icall, w.st.jtab, w.st.ret, w.st.max_depth,
	       w.st.max_rec);
	if (events_every)
		printf("events=%" PRIu64 "\n", w.nevents);
	printf("seconds=%.3f\n", (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	free(w.last_pos);
	free(w.stack);
	free(p.elf);
	free(p.b);
	free(p.f);
	free(p.tabs);
	free(p.ilen);
	return 0;
fail:
	sb_bundle_free(bn);
	return 1;
}
