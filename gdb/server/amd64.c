// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * GDB's amd64 Linux register set (GDB manual, "Target Descriptions",
 * "i386 Features"), numbered as the "g" and "p" packets number them: rax..gs
 * 0-23, st0-7 24-31, x87 control 32-39, xmm0-15 40-55, mxcsr 56, orig_rax
 * 57, fs_base 58, gs_base 59, and the upper halves of ymm0-15 (the avx
 * feature, from which GDB composes $ymm0..$ymm15 with the xmm registers)
 * 60-75, in the order GDB's own amd64-avx-linux description gives them;
 * with the avx512 feature (GDB composes $zmm0..$zmm31 and $ymm16..$ymm31
 * from its parts) xmm16-31 76-91, ymm16h-31h 92-107, k0-7 108-115 and
 * zmm0h-31h 116-147, as in GDB's amd64-avx-avx512-linux description.
 * One file, so that another architecture is another file.
 */
#include <stdio.h>

#include "amd64.h"
#include "replay.h"

int amd64_reg_size(unsigned int regno)
{
	if (regno <= 16)
		return 8;		/* rax..r15, rip */
	if (regno <= 23)
		return 4;		/* eflags, cs..gs */
	if (regno <= 31)
		return 10;		/* st0..st7 */
	if (regno <= 39)
		return 4;		/* fctrl..fop */
	if (regno <= 55)
		return 16;		/* xmm0..xmm15 */
	if (regno == 56)
		return 4;		/* mxcsr */
	if (regno <= 59)
		return 8;		/* orig_rax, fs_base, gs_base */
	if (regno < AMD64_K0)
		return 16;	/* ymm0h..ymm15h, xmm16..xmm31, ymm16h..ymm31h */
	if (regno < AMD64_ZMM0H)
		return 8;		/* k0..k7 */
	if (regno < AMD64_NREGS_AVX512)
		return 32;		/* zmm0h..zmm31h */
	return 0;
}

int amd64_rp_reg(unsigned int regno)
{
	if (regno <= 23)
		return (int)regno;	/* same order: rax..gs */
	if (regno == 57)
		return RP_REG_ORIG_RAX;
	if (regno == 58)
		return RP_REG_FS_BASE;
	if (regno == 59)
		return RP_REG_GS_BASE;
	return -1;
}

/* The vector types and the vec128 union of GDB's sse and avx512
 * features: types are the feature's own, so each declares them.
 */
static size_t add_vec128(char *xml, size_t n, size_t size)
{
	static const struct {
		const char *id, *type, *field;
		int count;
	} vec[] = {
		{ "v8bf16", "bfloat16", "v8_bfloat16", 8 },
		{ "v8h", "ieee_half", "v8_half", 8 },
		{ "v4f", "ieee_single", "v4_float", 4 },
		{ "v2d", "ieee_double", "v2_double", 2 },
		{ "v16i8", "int8", "v16_int8", 16 },
		{ "v8i16", "int16", "v8_int16", 8 },
		{ "v4i32", "int32", "v4_int32", 4 },
		{ "v2i64", "int64", "v2_int64", 2 },
	};
	int i;

	for (i = 0; i < (int)(sizeof(vec) / sizeof(vec[0])); i++)
		n += (size_t)snprintf(xml + n, size - n,
				      "<vector id=\"%s\" type=\"%s\" count=\"%d\"/>\n",
				      vec[i].id, vec[i].type, vec[i].count);
	n += (size_t)snprintf(xml + n, size - n, "<union id=\"vec128\">\n");
	for (i = 0; i < (int)(sizeof(vec) / sizeof(vec[0])); i++)
		n += (size_t)snprintf(xml + n, size - n,
				      "<field name=\"%s\" type=\"%s\"/>\n",
				      vec[i].field, vec[i].id);
	n += (size_t)snprintf(xml + n, size - n,
			      "<field name=\"uint128\" type=\"uint128\"/>\n</union>\n");
	return n;
}

const char *amd64_target_xml(bool avx512, size_t *len)
{
	static const char *const gp[] = {
		"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};
	static const char *const seg[] = { "cs", "ss", "ds", "es", "fs", "gs" };
	static const char *const x87[] = { "fctrl", "fstat", "ftag", "fiseg",
					   "fioff", "foseg", "fooff", "fop" };
	static const struct {
		const char *name;
		int bit;
	} eflags[] = {
		{ "CF", 0 }, { "", 1 }, { "PF", 2 }, { "AF", 4 }, { "ZF", 6 },
		{ "SF", 7 }, { "TF", 8 }, { "IF", 9 }, { "DF", 10 },
		{ "OF", 11 }, { "NT", 14 }, { "RF", 16 }, { "VM", 17 },
		{ "AC", 18 }, { "VIF", 19 }, { "VIP", 20 }, { "ID", 21 },
	};
	static const struct {
		const char *name;
		int bit;
	} mxcsr[] = {
		{ "IE", 0 }, { "DE", 1 }, { "ZE", 2 }, { "OE", 3 }, { "UE", 4 },
		{ "PE", 5 }, { "DAZ", 6 }, { "IM", 7 }, { "DM", 8 }, { "ZM", 9 },
		{ "OM", 10 }, { "UM", 11 }, { "PM", 12 }, { "FZ", 15 },
	};
	static char xmls[2][24576];
	static size_t ns[2];
	char *xml = xmls[avx512];
	size_t n = ns[avx512];
	const size_t size = sizeof(xmls[0]);
	int i;

	if (n) {
		*len = n;
		return xml;
	}
#define ADD(...) (n += (size_t)snprintf(xml + n, size - n, __VA_ARGS__))
	ADD("<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
	    "<target>\n<architecture>i386:x86-64</architecture>\n"
	    "<osabi>GNU/Linux</osabi>\n"
	    "<feature name=\"org.gnu.gdb.i386.core\">\n"
	    "<flags id=\"i386_eflags\" size=\"4\">\n");
	/* EFLAGS bits (Intel SDM Vol. 1, 3.4.3), so GDB prints their names. */
	for (i = 0; i < (int)(sizeof(eflags) / sizeof(eflags[0])); i++)
		ADD("<field name=\"%s\" start=\"%d\" end=\"%d\"/>\n",
		    eflags[i].name, eflags[i].bit, eflags[i].bit);
	ADD("</flags>\n");
	for (i = 0; i < 16; i++)
		ADD("<reg name=\"%s\" bitsize=\"64\" type=\"%s\"/>\n", gp[i],
		    i == 6 || i == 7 ? "data_ptr" : "int64");
	ADD("<reg name=\"rip\" bitsize=\"64\" type=\"code_ptr\"/>\n"
	    "<reg name=\"eflags\" bitsize=\"32\" type=\"i386_eflags\"/>\n");
	for (i = 0; i < 6; i++)
		ADD("<reg name=\"%s\" bitsize=\"32\" type=\"int32\"/>\n",
		    seg[i]);
	for (i = 0; i < 8; i++)
		ADD("<reg name=\"st%d\" bitsize=\"80\" type=\"i387_ext\"/>\n",
		    i);
	for (i = 0; i < 8; i++)
		ADD("<reg name=\"%s\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n",
		    x87[i]);
	ADD("</feature>\n<feature name=\"org.gnu.gdb.i386.sse\">\n");
	/* The types GDB's own amd64 description gives xmm and mxcsr, so
	 * they print as on a core file or a live process.
	 */
	n = add_vec128(xml, n, size);
	ADD("<flags id=\"i386_mxcsr\" size=\"4\">\n");
	for (i = 0; i < (int)(sizeof(mxcsr) / sizeof(mxcsr[0])); i++)
		ADD("<field name=\"%s\" start=\"%d\" end=\"%d\"/>\n",
		    mxcsr[i].name, mxcsr[i].bit, mxcsr[i].bit);
	ADD("</flags>\n");
	for (i = 0; i < 16; i++)
		ADD("<reg name=\"xmm%d\" bitsize=\"128\" type=\"vec128\"/>\n",
		    i);
	ADD("<reg name=\"mxcsr\" bitsize=\"32\" type=\"i386_mxcsr\" group=\"vector\"/>\n"
	    "</feature>\n<feature name=\"org.gnu.gdb.i386.linux\">\n"
	    "<reg name=\"orig_rax\" bitsize=\"64\" type=\"int\" regnum=\"57\"/>\n"
	    "</feature>\n<feature name=\"org.gnu.gdb.i386.segments\">\n"
	    "<reg name=\"fs_base\" bitsize=\"64\" type=\"int\"/>\n"
	    "<reg name=\"gs_base\" bitsize=\"64\" type=\"int\"/>\n"
	    "</feature>\n<feature name=\"org.gnu.gdb.i386.avx\">\n");
	for (i = 0; i < 16; i++)
		ADD("<reg name=\"ymm%dh\" bitsize=\"128\" type=\"uint128\"/>\n",
		    i);
	ADD("</feature>\n");
	if (avx512) {
		ADD("<feature name=\"org.gnu.gdb.i386.avx512\">\n");
		n = add_vec128(xml, n, size);
		ADD("<vector id=\"v2ui128\" type=\"uint128\" count=\"2\"/>\n");
		for (i = 16; i < 32; i++)
			ADD("<reg name=\"xmm%d\" bitsize=\"128\" type=\"vec128\"/>\n",
			    i);
		for (i = 16; i < 32; i++)
			ADD("<reg name=\"ymm%dh\" bitsize=\"128\" type=\"uint128\"/>\n",
			    i);
		for (i = 0; i < 8; i++)
			ADD("<reg name=\"k%d\" bitsize=\"64\" type=\"uint64\"/>\n",
			    i);
		for (i = 0; i < 32; i++)
			ADD("<reg name=\"zmm%dh\" bitsize=\"256\" type=\"v2ui128\"/>\n",
			    i);
		ADD("</feature>\n");
	}
	ADD("</target>\n");
#undef ADD
	ns[avx512] = n;
	*len = n;
	return xml;
}
