// SPDX-License-Identifier: GPL-3.0-or-later
/* Symbols of executed instructions: one symbols.c module per image,
 * opened on first use.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rp_internal.h"
#include "symbols.h"

static struct sym_module *module(struct rp_session *s, uint32_t image)
{
	struct rp_image *im;

	if (!image || image > s->nimages)
		return NULL;
	im = &s->images[image - 1];
	if (!im->sym && !im->sym_failed &&
	    sym_module_open(&im->sym, im->path, im->origin))
		im->sym_failed = true;
	return im->sym;
}

int rp_symbolize(struct rp_session *s, const struct rp_insn *insn,
		 struct rp_sym *out)
{
	struct sym_module *m = module(s, insn->image);
	struct sym_info si;
	uint64_t vaddr;

	memset(out, 0, sizeof(*out));
	if (!m)
		return -RP_ERR_NOTFOUND;
	out->module = sym_module_name(m);
	if (sym_offset_to_vaddr(m, insn->image_off, &vaddr))
		return -RP_ERR_NOTFOUND;
	out->vaddr = vaddr;
	if (sym_lookup(m, vaddr, &si))
		return 0;
	out->function = si.function;
	out->func_vaddr = si.func_vaddr;
	out->offset = si.offset;
	out->file = si.file;
	out->line = si.line;
	out->inlined = si.inlined;
	out->func_file = si.func_file;
	return 0;
}

void rp_syms_close(struct rp_session *s)
{
	size_t i;

	for (i = 0; i < s->nimages; i++)
		sym_module_close(s->images[i].sym);
}

int rp_name_address(struct rp_session *s, const struct rp_insn *insn,
		    uint64_t addr, const char **name, uint64_t *offset)
{
	struct sym_module *m = module(s, insn->image);
	uint64_t vaddr;

	/* Only addresses in the same image: its layout is what we know. */
	if (!m || sym_offset_to_vaddr(m, insn->image_off, &vaddr))
		return -RP_ERR_NOTFOUND;
	if (sym_name_address(m, vaddr + (addr - insn->ip), name, offset))
		return -RP_ERR_NOTFOUND;
	return 0;
}

int rp_name_variable(struct rp_session *s, const struct rp_insn *insn,
		     int reg, int base, int64_t disp, const char **name)
{
	struct sym_module *m = module(s, insn->image);
	uint64_t vaddr;

	if (!m || sym_offset_to_vaddr(m, insn->image_off, &vaddr) ||
	    sym_var_at(m, vaddr, reg, base, disp, name))
		return -RP_ERR_NOTFOUND;
	return 0;
}

int rp_frame_rule(struct rp_session *s, const struct rp_insn *insn,
		  struct rp_cfi *out)
{
	struct sym_module *m = module(s, insn->image);
	uint64_t vaddr;

	memset(out, 0, sizeof(*out));
	if (!m || sym_offset_to_vaddr(m, insn->image_off, &vaddr) ||
	    sym_cfi_at(m, vaddr, out))
		return -RP_ERR_NOTFOUND;
	return 0;
}

int rp_name_object(struct rp_session *s, const struct rp_insn *insn,
		   uint64_t addr, char *out, size_t len)
{
	struct sym_module *m = module(s, insn->image);
	char suffix[96];
	const char *name;
	uint64_t vaddr, off, rest;

	if (!m || sym_offset_to_vaddr(m, insn->image_off, &vaddr))
		return -RP_ERR_NOTFOUND;
	vaddr += addr - insn->ip;
	if (sym_object_at(m, vaddr, &name, &off))
		return -RP_ERR_NOTFOUND;
	sym_object_path(m, vaddr - off, off, suffix, sizeof(suffix), &rest);
	if (rest)
		snprintf(out, len, "%s%s+%" PRIu64, name, suffix, rest);
	else
		snprintf(out, len, "%s%s", name, suffix);
	return 0;
}

/*
 * The address spaces as they were when instruction @pos of @t ran (@pos may
 * be one past the last): the checkpoint's sideband position, advanced to
 * the instruction's time.  Release with rp_world_fini() on success.
 */
static int world_at(struct rp_session *s, struct rp_thread *t, uint64_t pos,
		    struct rp_world *w)
{
	struct rp_cursor *c;
	struct rp_insn insn;
	uint64_t k, lo = 0, hi;
	int ret;

	if (!t->insns || pos > t->insns)
		return -RP_ERR_RANGE;
	if (pos == t->insns)
		pos--;		/* the end: the last instruction's mappings */
	ret = rp_cursor_new(s, t->tid, &c);
	if (!ret)
		ret = rp_cursor_peek(c, pos, &insn);
	rp_cursor_free(c);
	if (ret)
		return ret;
	for (hi = t->nckpts; hi - lo > 1;) {
		k = lo + (hi - lo) / 2;
		if (t->ckpts[k].insn <= pos)
			lo = k;
		else
			hi = k;
	}
	rp_world_init(w, s);
	ret = rp_world_seek(w, t->ckpts[lo].sb_next);
	if (!ret)
		ret = rp_world_advance(w, insn.tsc);
	if (ret)
		rp_world_fini(w);
	return ret;
}

int rp_read_code(struct rp_session *s, uint32_t tid, uint64_t pos,
		 uint64_t addr, void *buf, size_t len)
{
	struct rp_thread *t = rp_find_thread(s, tid);
	const struct rp_map *mp;
	struct rp_world w;
	uint64_t off;
	ssize_t n = -1;
	int fd, ret;

	if (!t)
		return -RP_ERR_NOTHREAD;
	ret = world_at(s, t, pos, &w);
	mp = ret ? NULL : rp_world_lookup(&w, t->pid, addr);
	if (mp && mp->image >= 0) {
		off = mp->pgoff + (addr - mp->start);
		if (len > mp->end - addr)
			len = (size_t)(mp->end - addr);
		fd = rp_image_open(s, (size_t)mp->image);
		if (fd >= 0) {
			n = pread(fd, buf, len, (off_t)off);
			close(fd);
		}
	}
	if (ret)
		return ret;
	rp_world_fini(&w);
	return n > 0 ? (int)n : -RP_ERR_NOTFOUND;
}

struct elf_layout {
	uint64_t lowest;	/* lowest PT_LOAD address, page-aligned */
	uint64_t dynamic;	/* PT_DYNAMIC address, 0 if none */
	uint64_t entry, phoff, phnum;
	uint64_t interp_off, interp_size;	/* PT_INTERP, 0 if none */
};

/* What a loader and a debugger need of an ELF file's layout. */
static int elf_layout(const struct rp_session *s, size_t image,
		      struct elf_layout *l)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t k, n = 0;
	Elf *elf;
	int fd = rp_image_open(s, image), ret = -1;
	uint64_t *lowest = &l->lowest, *dynamic = &l->dynamic;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	*lowest = UINT64_MAX;
	*dynamic = 0;
	l->interp_off = l->interp_size = 0;
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) &&
	    !elf_getphdrnum(elf, &n)) {
		l->entry = eh.e_entry;
		l->phoff = eh.e_phoff;
		l->phnum = eh.e_phnum;
		for (k = 0; k < n; k++) {
			if (!gelf_getphdr(elf, (int)k, &ph))
				continue;
			if (ph.p_type == PT_LOAD && ph.p_vaddr < *lowest)
				*lowest = ph.p_vaddr & ~0xfffull;
			if (ph.p_type == PT_DYNAMIC)
				*dynamic = ph.p_vaddr;
			if (ph.p_type == PT_INTERP) {
				l->interp_off = ph.p_offset;
				l->interp_size = ph.p_filesz;
			}
		}
		ret = *lowest == UINT64_MAX ? -1 : 0;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/*
 * The main program of @pid in world @w: the manifest's (the process's last
 * program) when it is mapped there; before an exec, the image of the
 * lowest code mapping (a program is mapped below its libraries).
 */
static const char *world_exe(struct rp_session *s, struct rp_world *w,
			     uint32_t pid)
{
	const char *exe = NULL, *low = NULL, *origin;
	uint64_t lowest = UINT64_MAX;
	struct rp_aspace *as = NULL;
	size_t i;

	for (i = 0; i < s->m->nprocs; i++)
		if (s->m->procs[i].pid == pid)
			exe = s->m->procs[i].exe;
	for (i = 0; i < w->nas; i++)
		if (w->as[i].pid == pid)
			as = &w->as[i];
	for (i = 0; as && i < as->n; i++) {
		if (as->v[i].image < 0)
			continue;
		origin = s->images[as->v[i].image].origin;
		if (exe && !strcmp(origin, exe))
			return exe;
		if (origin[0] == '/' && as->v[i].start < lowest) {
			lowest = as->v[i].start;
			low = origin;
		}
	}
	return low ? low : exe;
}

int rp_process_exe_at(struct rp_session *s, uint32_t tid, uint64_t pos,
		      char *buf, size_t size)
{
	struct rp_thread *t = rp_find_thread(s, tid);
	const char *exe;
	struct rp_world w;
	int ret;

	if (!t)
		return -RP_ERR_NOTHREAD;
	ret = world_at(s, t, pos, &w);
	if (ret)
		return ret;
	exe = world_exe(s, &w, t->pid);
	ret = exe && (size_t)snprintf(buf, size, "%s", exe) < size ? 0 :
		-RP_ERR_NOTFOUND;
	rp_world_fini(&w);
	return ret;
}

int rp_libraries(struct rp_session *s, uint32_t tid, uint64_t pos,
		 rp_library_fn fn, void *ctx)
{
	struct rp_thread *t = rp_find_thread(s, tid);
	const char *exe = NULL;
	struct rp_world w;
	struct rp_aspace *as = NULL;
	size_t i;
	int ret, count = 0;

	if (!t)
		return -RP_ERR_NOTHREAD;
	ret = world_at(s, t, pos, &w);
	if (ret)
		return ret;
	exe = world_exe(s, &w, t->pid);
	for (i = 0; i < w.nas; i++)
		if (w.as[i].pid == t->pid)
			as = &w.as[i];
	/*
	 * Code mappings carry the image: the load bias is the mapping's start
	 * minus the link-time address of its file offset.  Each image once.
	 */
	for (i = 0; as && i < as->n; i++) {
		const struct rp_map *mp = &as->v[i];
		const struct rp_image *im;
		struct sym_module *m;
		struct elf_layout l;
		uint64_t vaddr, bias;
		size_t j;

		if (mp->image < 0)
			continue;
		for (j = 0; j < i; j++)
			if (as->v[j].image == mp->image)
				break;
		im = &s->images[mp->image];
		m = module(s, (uint32_t)mp->image + 1);
		if (j < i || im->origin[0] != '/' || !m ||
		    sym_offset_to_vaddr(m, mp->pgoff, &vaddr) ||
		    elf_layout(s, (size_t)mp->image, &l))
			continue;
		bias = mp->start - vaddr;
		fn(ctx, im->origin, bias, l.dynamic ? bias + l.dynamic : 0,
		   exe && !strcmp(exe, im->origin));
		count++;
	}
	rp_world_fini(&w);
	return count;
}


static int entry_of(struct rp_session *s, uint32_t pid, const char *exe,
		    uint64_t *entry, uint64_t *phdr, uint64_t *phnum);

int rp_process_entry(struct rp_session *s, uint32_t pid, uint64_t *entry,
		     uint64_t *phdr, uint64_t *phnum)
{
	const char *exe = NULL;
	size_t i;

	for (i = 0; i < s->m->nprocs; i++)
		if (s->m->procs[i].pid == pid)
			exe = s->m->procs[i].exe;
	return entry_of(s, pid, exe, entry, phdr, phnum);
}

int rp_process_entry_at(struct rp_session *s, uint32_t tid, uint64_t pos,
			uint64_t *entry, uint64_t *phdr, uint64_t *phnum)
{
	struct rp_thread *t = rp_find_thread(s, tid);
	struct rp_world w;
	int ret;

	if (!t)
		return -RP_ERR_NOTHREAD;
	ret = world_at(s, t, pos, &w);
	if (ret)
		return ret;
	ret = entry_of(s, t->pid, world_exe(s, &w, t->pid), entry, phdr,
		       phnum);
	rp_world_fini(&w);
	return ret;
}

static int entry_of(struct rp_session *s, uint32_t pid, const char *exe,
		    uint64_t *entry, uint64_t *phdr, uint64_t *phnum)
{
	struct elf_layout l;
	size_t i, j;

	if (!exe)
		return -RP_ERR_NOTFOUND;
	/* The last mapping of the program's first page (an exec may replace
	 * an earlier image): where its lowest segment was loaded.
	 */
	for (i = s->nrecs; i-- > 0;) {
		const struct ptrec_sb_mmap *m = (const void *)s->recs[i];

		if (s->recs[i]->type != PTREC_SB_MMAP || m->pid != pid ||
		    m->pgoff || m->path_len != strlen(exe) ||
		    memcmp(sb_mmap_path(m), exe, m->path_len))
			continue;
		for (j = 0; j < s->nimages; j++)
			if (!strcmp(s->images[j].origin, exe) &&
			    !elf_layout(s, j, &l)) {
				uint64_t bias = m->start - l.lowest;

				*entry = l.entry + bias;
				*phdr = l.lowest + l.phoff + bias;
				*phnum = l.phnum;
				return 0;
			}
		break;
	}
	return -RP_ERR_NOTFOUND;
}

int rp_process_interp(struct rp_session *s, uint32_t pid, char *buf,
		      size_t size)
{
	const char *exe = NULL;
	struct elf_layout l;
	size_t i;
	ssize_t n;
	int fd;

	for (i = 0; i < s->m->nprocs; i++)
		if (s->m->procs[i].pid == pid)
			exe = s->m->procs[i].exe;
	for (i = 0; exe && size && i < s->nimages; i++) {
		if (strcmp(s->images[i].origin, exe) ||
		    elf_layout(s, i, &l) || !l.interp_size)
			continue;
		fd = rp_image_open(s, i);
		if (fd < 0)
			continue;
		n = pread(fd, buf, l.interp_size < size ? l.interp_size :
			  size - 1, (off_t)l.interp_off);
		close(fd);
		if (n <= 0)
			continue;
		buf[n < (ssize_t)size ? n : (ssize_t)size - 1] = '\0';
		return buf[0] ? 0 : -RP_ERR_NOTFOUND;
	}
	return -RP_ERR_NOTFOUND;
}
