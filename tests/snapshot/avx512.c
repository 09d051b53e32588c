// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * AVX-512 state at the end of a history: zmm0 (its upper 256 bits in the
 * XSAVE ZMM_Hi256 component), zmm16 and zmm31 (Hi16_ZMM), k1 and k7
 * (opmask) hold known patterns when the program crashes, with no call in
 * between that could change them.  Run only where the CPU has AVX-512F
 * and AVX-512BW (tests/snapshot/run.sh checks /proc/cpuinfo).
 */
static const unsigned long long z0[8] = {
	0x0011223344556677ull, 0x8899aabbccddeeffull, 0xdeadbeefcafef00dull,
	0x0123456789abcdefull, 0x1000000000000001ull, 0x2000000000000002ull,
	0x3000000000000003ull, 0x4000000000000004ull,
};
static const unsigned long long z16[8] = {
	0x1616161616161616ull, 0x1717171717171717ull, 0x1818181818181818ull,
	0x1919191919191919ull, 0x2020202020202020ull, 0x2121212121212121ull,
	0x2222222222222222ull, 0x2323232323232323ull,
};
static const unsigned long long z31[8] = {
	0xf1f1f1f1f1f1f1f1ull, 0xf2f2f2f2f2f2f2f2ull, 0xf3f3f3f3f3f3f3f3ull,
	0xf4f4f4f4f4f4f4f4ull, 0xf5f5f5f5f5f5f5f5ull, 0xf6f6f6f6f6f6f6f6ull,
	0xf7f7f7f7f7f7f7f7ull, 0xf8f8f8f8f8f8f8f8ull,
};

__attribute__((target("avx512f,avx512bw"))) int main(void)
{
	__asm__ volatile("vmovdqu64 %0, %%zmm0\n\t"
			 "vmovdqu64 %1, %%zmm16\n\t"
			 "vmovdqu64 %2, %%zmm31\n\t"
			 "movabsq $0xa5a5a5a5c3c3c3c3, %%rax\n\t"
			 "kmovq %%rax, %%k1\n\t"
			 "movabsq $0x8000000000000001, %%rax\n\t"
			 "kmovq %%rax, %%k7"
			 : : "m"(z0), "m"(z16), "m"(z31)
			 : "rax", "xmm0", "xmm16", "xmm31", "k1", "k7");
	*(volatile int *)0 = 1;
	return 0;
}
