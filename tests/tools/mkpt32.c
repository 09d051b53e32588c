// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mkpt32 DIR: a 32-bit program and the Intel PT stream of one run of it,
 * for the import test (issue #8: 32-bit code decodes).  No 32-bit trace
 * from hardware is at hand, so both are built here, by hand:
 *
 *   DIR/prog32   an ELF32 i386 executable (code at 0x8049000, symbols
 *                _start and f)
 *   DIR/pt.bin   PSB, MODE.Exec (CS.D = 1, CS.L = 0: 32-bit), FUP, PSBEND,
 *                one TNT, TIP.PGD -- as a CPU tracing CPL > 0 writes them
 *   DIR/expect   the 11 addresses that run executes, one per line
 *
 * The code starts with "dec %ecx" (0x49), which in 64-bit mode is a REX
 * prefix: decoding it as 64-bit code goes wrong at once.
 */
#include <elf.h>
#include <intel-pt.h>
#include <stdio.h>
#include <string.h>

#define BASE	0x08048000u
#define TEXT	0x08049000u

/* _start: mov $3,%ecx; 1: dec %ecx; jne 1b; call f; mov $1,%eax;
 * int $0x80.  f: ret.
 */
static const unsigned char code[] = {
	0xb9, 0x03, 0x00, 0x00, 0x00,	/* 8049000 mov $0x3,%ecx */
	0x49,				/* 8049005 dec %ecx */
	0x75, 0xfd,			/* 8049006 jne 8049005 */
	0xe8, 0x07, 0x00, 0x00, 0x00,	/* 8049008 call 8049014 <f> */
	0xb8, 0x01, 0x00, 0x00, 0x00,	/* 804900d mov $0x1,%eax */
	0xcd, 0x80,			/* 8049012 int $0x80 */
	0xc3,				/* 8049014 ret */
};

static const unsigned int expect[] = {
	0x8049000, 0x8049005, 0x8049006, 0x8049005, 0x8049006, 0x8049005,
	0x8049006, 0x8049008, 0x8049014, 0x804900d, 0x8049012,
};

static const char strtab[] = "\0_start\0f";
static const char shstrtab[] = "\0.text\0.symtab\0.strtab\0.shstrtab";

static int write_elf(const char *path)
{
	unsigned char img[0x1200];
	Elf32_Ehdr *eh = (void *)img;
	Elf32_Phdr *ph = (void *)(img + sizeof(*eh));
	Elf32_Sym *sym = (void *)(img + 0x1040);
	Elf32_Shdr *sh = (void *)(img + 0x1100);
	FILE *f;

	memset(img, 0, sizeof(img));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS32;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_386;
	eh->e_version = EV_CURRENT;
	eh->e_entry = TEXT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = 0x1100;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 5;
	eh->e_shstrndx = 4;
	ph->p_type = PT_LOAD;
	ph->p_offset = 0;
	ph->p_vaddr = ph->p_paddr = BASE;
	ph->p_filesz = ph->p_memsz = 0x1000 + sizeof(code);
	ph->p_flags = PF_R | PF_X;
	ph->p_align = 0x1000;
	memcpy(img + 0x1000, code, sizeof(code));
	/* symbols: null, _start (20 bytes), f (1 byte) */
	sym[1].st_name = 1;
	sym[1].st_value = TEXT;
	sym[1].st_size = 0x14;
	sym[1].st_info = ELF32_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[1].st_shndx = 1;
	sym[2].st_name = 8;
	sym[2].st_value = TEXT + 0x14;
	sym[2].st_size = 1;
	sym[2].st_info = ELF32_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[2].st_shndx = 1;
	memcpy(img + 0x1080, strtab, sizeof(strtab));
	memcpy(img + 0x10a0, shstrtab, sizeof(shstrtab));
	sh[1] = (Elf32_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS,
		.sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_addr = TEXT,
		.sh_offset = 0x1000, .sh_size = sizeof(code),
		.sh_addralign = 16 };
	sh[2] = (Elf32_Shdr){ .sh_name = 7, .sh_type = SHT_SYMTAB,
		.sh_offset = 0x1040, .sh_size = 3 * sizeof(Elf32_Sym),
		.sh_link = 3, .sh_info = 1, .sh_addralign = 4,
		.sh_entsize = sizeof(Elf32_Sym) };
	sh[3] = (Elf32_Shdr){ .sh_name = 15, .sh_type = SHT_STRTAB,
		.sh_offset = 0x1080, .sh_size = sizeof(strtab),
		.sh_addralign = 1 };
	sh[4] = (Elf32_Shdr){ .sh_name = 23, .sh_type = SHT_STRTAB,
		.sh_offset = 0x10a0, .sh_size = sizeof(shstrtab),
		.sh_addralign = 1 };
	f = fopen(path, "wb");
	if (!f || fwrite(img, 1, 0x1100 + 5 * sizeof(*sh), f) !=
	    0x1100 + 5 * sizeof(*sh) || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static int write_pt(const char *path)
{
	static uint8_t buf[256];
	struct pt_encoder *enc;
	struct pt_config cfg;
	struct pt_packet p[6];
	uint64_t len = 0;
	size_t i;
	FILE *f;
	int ret = 0;

	memset(p, 0, sizeof(p));
	p[0].type = ppt_psb;
	/* SDM Vol. 3C 33.4.2.8: MODE.Exec, CS.D = 1 and CS.L = 0 is 32-bit. */
	p[1].type = ppt_mode;
	p[1].payload.mode.leaf = pt_mol_exec;
	p[1].payload.mode.bits.exec.csd = 1;
	p[2].type = ppt_fup;
	p[2].payload.ip.ipc = pt_ipc_sext_48;
	p[2].payload.ip.ip = TEXT;
	p[3].type = ppt_psbend;
	/* jne taken, taken, not taken; ret compressed: taken (1101b). */
	p[4].type = ppt_tnt_8;
	p[4].payload.tnt.bit_size = 4;
	p[4].payload.tnt.payload = 0xd;
	/* int $0x80 enters CPL 0, which is not traced: TIP.PGD, no IP. */
	p[5].type = ppt_tip_pgd;
	p[5].payload.ip.ipc = pt_ipc_suppressed;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + sizeof(buf);
	enc = pt_alloc_encoder(&cfg);
	if (!enc)
		return -1;
	for (i = 0; i < sizeof(p) / sizeof(p[0]) && ret >= 0; i++)
		ret = pt_enc_next(enc, &p[i]);
	pt_enc_get_offset(enc, &len);
	pt_free_encoder(enc);
	if (ret < 0) {
		fprintf(stderr, "mkpt32: encoding: %s\n",
			pt_errstr(pt_errcode(ret)));
		return -1;
	}
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char path[4096];
	size_t i;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: mkpt32 DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/prog32", argv[1]);
	if (write_elf(path))
		return 1;
	snprintf(path, sizeof(path), "%s/pt.bin", argv[1]);
	if (write_pt(path))
		return 1;
	snprintf(path, sizeof(path), "%s/expect", argv[1]);
	f = fopen(path, "w");
	for (i = 0; f && i < sizeof(expect) / sizeof(expect[0]); i++)
		fprintf(f, "0x%x\n", expect[i]);
	if (!f || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}
