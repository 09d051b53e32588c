// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Write extents (replay/rcv_extent.c, rcv_alias.c stos_refutes();
 * docs/values.md "Write extents: xsave and string stores"), for
 * tests/values/run.sh to check against the ground truth.  A buffer in
 * .bss (its address known) is filled by read(2) from /dev/zero (zeros,
 * not known to the engine); each case loads words of it into r12 and r13,
 * then runs one xsave or string store and leaves by exit_group, every
 * register overwritten first: r12 and r13 are known only where the end's
 * bytes are what the loads read, across that store.
 *
 * xsave (S: CPUID.(0xD,0).EBX, the standard size for XCR0, one of those
 * xsave_case() lists, else exit status 3; X = buf + 64; ymm0 all ones,
 * so the AVX component is in use):
 * - xsfar: r12 from X + S, the first byte past the area: known (0);
 * - xsnext: r12 from X + the AVX component's offset (576), which xsave
 *   writes (all ones): not known; a bound of 576 bytes gives 0xffffffff;
 * - xsc: xsavec, with r13 loaded back from X + 520 (XCOMP_BV) after it,
 *   where a store of known value wrote 0x1111... before, and the word
 *   rewritten by rdtsc after: r13 not known (a bound of the operand's
 *   64 bytes gives 0x11111111); r12 from X + S known (0).
 *
 * rep stos (g: buf + 4096):
 * - stdown: std; rep stosq of -1, rcx 4, rdi = g + 16 known: it writes
 *   [g - 8, g + 24): r12 from g not known (taken upward, the run misses
 *   it: 0 for -1), r13 from g + 24 known (0);
 * - stnone: rep stosb, rcx 0, rdi not known: r12 from g known (0);
 * - stsame: rep stosb of 0, rcx 32, rdi not known (g - 8 at run time),
 *   g 0x55555555 (not known) before: the end's 0 is the stored value,
 *   r12 not known (0 if the store were ignored);
 * - stdiff: rep stosb of 0xaa, rcx 32, rdi not known (far from g): g's
 *   end 0 is no byte of it, r12 known (0);
 * - stnear: std; rep stosq of 0xaaaa...aa, rcx 4, rdi not known (far):
 *   g holds 0xaaaaaaaa (not known) with zeros around: every run of 32
 *   bytes over g meets a zero, r12 known (0xaaaaaaaa);
 * - stgap: rep stosb of 0xaa, rcx 32, rdi not known (g - 8 at run time),
 *   [g - 8, g + 24) 0xaa before but g 0x55555555: at the end exactly 32
 *   bytes of 0xaa with zeros around, one run fits: r12 not known (a
 *   bound off by one gives 0xaaaaaaaa).
 *
 * valcheck finds no wrong value in any of them.  With "size" it prints S,
 * which run.sh compares with the snapshot's NT_X86_XSTATE length (the
 * engine's bound: at least S).
 */
#include <cpuid.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "unknown.h"

#define OUT	"rdtsc\n\t" \
		"mov %%rax, %%rbx\n\tmov %%rax, %%rbp\n\t" \
		"mov %%rax, %%rcx\n\tmov %%rax, %%rdx\n\t" \
		"mov %%rax, %%rsi\n\tmov %%rax, %%r8\n\t" \
		"mov %%rax, %%r9\n\tmov %%rax, %%r10\n\t" \
		"mov %%rax, %%r11\n\tmov %%rax, %%r12\n\t" \
		"mov %%rax, %%r13\n\tmov %%rax, %%rdi\n\t" \
		"mov %%rax, %%r14\n\tmov %%rax, %%r15\n\t" \
		"mov $231, %%eax\n\txor %%edi, %%edi\n\tsyscall"

static uint8_t buf[16384] __attribute__((aligned(64)));

static void fill(void)
{
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0 || read(fd, buf, sizeof(buf)) != sizeof(buf))
		memset(buf, 1, sizeof(buf));
	if (fd >= 0)
		close(fd);
}

/*
 * The loads' addresses must be known to the engine, which does not know
 * what cpuid returns: one branch per size seen on x86-64 machines, each
 * with its size as a displacement (3: another size, the case skipped).
 */
#define XS_FAR(o) \
	__asm__ volatile("vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n\t" \
			 "movl %c[off](%%rdi), %%r12d\n\t" \
			 "mov $-1, %%eax\n\tmov $-1, %%edx\n\t" \
			 "xsave (%%rdi)\n\t" \
			 OUT \
			 : : "D"(x), [off] "i"(o) \
			 : "r12", "rax", "rdx", "memory")
#define XS_C(o) \
	__asm__ volatile("vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n\t" \
			 "movabs $0x1111111111111111, %%rax\n\t" \
			 "mov %%rax, 520(%%rdi)\n\t" \
			 "movl %c[off](%%rdi), %%r12d\n\t" \
			 "mov $-1, %%eax\n\tmov $-1, %%edx\n\t" \
			 "xsavec (%%rdi)\n\t" \
			 "mov 520(%%rdi), %%r13\n\t" \
			 "rdtsc\n\t" \
			 "mov %%rax, 520(%%rdi)\n\t" \
			 OUT \
			 : : "D"(x), [off] "i"(o) \
			 : "r12", "r13", "rax", "rdx", "memory")
#define XS_SIZE(o) \
	case o: \
		if (far) \
			XS_FAR(o); \
		else \
			XS_C(o); \
		break

static int xsave_case(const char *c)
{
	unsigned int a, s, cx, d, avx;
	uint8_t *x = buf + 64;
	int far = !strcmp(c, "xsfar");

	if (!__get_cpuid_count(0xd, 0, &a, &s, &cx, &d) ||
	    !__get_cpuid_count(0xd, 2, &a, &avx, &cx, &d) || avx != 576)
		return 3;
	if (!strcmp(c, "xsnext"))
		__asm__ volatile("vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n\t"
				 "movl 576(%%rdi), %%r12d\n\t"
				 "mov $-1, %%eax\n\tmov $-1, %%edx\n\t"
				 "xsave (%%rdi)\n\t"
				 OUT
				 : : "D"(x) : "r12", "rax", "rdx", "memory");
	switch (s) {
	XS_SIZE(832);
	XS_SIZE(1088);
	XS_SIZE(2440);
	XS_SIZE(2688);
	XS_SIZE(2696);
	XS_SIZE(11008);
	default:
		break;
	}
	return 3;
}

int main(int argc, char **argv)
{
	uint64_t z = zero();
	uint8_t *g = buf + 4096;
	int k;

	fill();
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "size")) {	/* for run.sh: S */
		unsigned int a, b, c, d;

		if (!__get_cpuid_count(0xd, 0, &a, &b, &c, &d))
			return 3;
		printf("%u\n", b);
		return 0;
	}
	if (!strncmp(argv[1], "xs", 2))
		return xsave_case(argv[1]);
	if (!strcmp(argv[1], "stdown"))
		__asm__ volatile("movl (%%rsi), %%r12d\n\t"
				 "movl 24(%%rsi), %%r13d\n\t"
				 "mov $-1, %%rax\n\tmov $4, %%ecx\n\t"
				 "std\n\trep stosq\n\tcld\n\t"
				 OUT
				 : : "S"(g), "D"(g + 16)
				 : "r12", "r13", "rax", "rcx", "memory");
	if (!strcmp(argv[1], "stnone"))
		__asm__ volatile("movl (%%rsi), %%r12d\n\t"
				 "mov $0x77, %%eax\n\txor %%ecx, %%ecx\n\t"
				 "rep stosb\n\t"
				 OUT
				 : : "S"(g), "D"(g + z)
				 : "r12", "rax", "rcx", "memory");
	if (!strcmp(argv[1], "stsame")) {
		*(volatile uint32_t *)g = (uint32_t)(0x55555555 + z);
		__asm__ volatile("movl (%%rsi), %%r12d\n\t"
				 "xor %%eax, %%eax\n\tmov $32, %%ecx\n\t"
				 "rep stosb\n\t"
				 OUT
				 : : "S"(g), "D"(g - 8 + z)
				 : "r12", "rax", "rcx", "memory");
	}
	if (!strcmp(argv[1], "stdiff"))
		__asm__ volatile("movl (%%rsi), %%r12d\n\t"
				 "mov $0xaa, %%eax\n\tmov $32, %%ecx\n\t"
				 "rep stosb\n\t"
				 OUT
				 : : "S"(g), "D"(g + 2048 + z)
				 : "r12", "rax", "rcx", "memory");
	if (!strcmp(argv[1], "stnear")) {
		*(volatile uint32_t *)g = (uint32_t)(0xaaaaaaaa + z);
		__asm__ volatile("movl (%%rsi), %%r12d\n\t"
				 "movabs $0xaaaaaaaaaaaaaaaa, %%rax\n\t"
				 "mov $4, %%ecx\n\t"
				 "std\n\trep stosq\n\tcld\n\t"
				 OUT
				 : : "S"(g), "D"(g + 2048 + z)
				 : "r12", "rax", "rcx", "memory");
	}
	if (!strcmp(argv[1], "stgap")) {
		for (k = -8; k < 24; k += 4)
			*(volatile uint32_t *)(g + k) =
				(uint32_t)((k ? 0xaaaaaaaa : 0x55555555) + z);
		__asm__ volatile("movl (%%rsi), %%r12d\n\t"
				 "mov $0xaa, %%eax\n\tmov $32, %%ecx\n\t"
				 "rep stosb\n\t"
				 OUT
				 : : "S"(g), "D"(g - 8 + z)
				 : "r12", "rax", "rcx", "memory");
	}
	return 1;
}
