/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What ptgen's two parts share (tools/ptgen/ptgen.c: the walk, the bundle
 * and main; ptgen_prog.c: the program generated from the seed, laid out
 * and written as an ELF): the program's blocks and functions, the filler
 * instructions and the pseudo-random numbers both draw from.
 */
#ifndef PTREC_PTGEN_H
#define PTREC_PTGEN_H

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
/* --events: PTWRITE among the fillers (set by main). */
extern bool with_ptwrite;

/* ---- pseudo-random numbers (xorshift64*) ---------------------------------- */

/* The generator's state: main seeds it, the program and the walk draw. */
extern uint64_t rng_state;

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

/* The program from the seed: functions and blocks (ptgen_prog.c). */
void gen_prog(struct prog *p);
/* Addresses of blocks, functions and tables. */
void layout(struct prog *p);
/* Each block's address hash contribution. */
void block_hashes(struct prog *p);
/* The ELF image, code bytes included, in p->elf. */
void build_elf(struct prog *p);

#endif
