// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * holes.c's cases (its opening comment says what each tried) whose
 * memory changes by no store of the program's own: the kernel writing
 * through /proc/self/mem, process_vm_writev or a descriptor that may
 * be the memory file, the kernel's rseq updates, and files mapped into
 * the program that it, a child or another process writes.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#include "holes.h"

int procmem_case(void)
{
	static long val = 0x2222;
	int fd = open("/proc/self/mem", O_RDWR);

	if (fd < 0)
		return 2;
	/* r12 = g (0x1111), then pwrite64(fd, &val, 8, &g). */
	__asm__ volatile("mov holes_g(%%rip), %%r12\n"
			 "\tmov $18, %%eax\n"
			 "\tlea %1, %%rsi\n"
			 "\tmov $8, %%edx\n"
			 "\tlea holes_g(%%rip), %%r10\n"
			 "\tsyscall\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : "D"(fd), "m"(val)
			 : "rax", "rcx", "rdx", "rsi", "r10", "r11", "r12",
			 "memory");
	return 1;
}

/* r12 = g (0x1111); then the asm in @write writes 0x2222 there (val). */
#define PROC_CASE(write, ...)						\
	__asm__ volatile("mov holes_g(%%rip), %%r12\n"			\
			 write						\
			 "\txor %%r12d, %%r12d\n"			\
			 EXIT_NOW					\
			 : : __VA_ARGS__				\
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9",	\
			 "r10", "r11", "r12", "memory")

static long holes_val = 0x2222;

/* lseek(fd, &g) on /proc/self/mem, for write(2) and writev. */
static int mem_at_g(void)
{
	int fd = open("/proc/self/mem", O_RDWR);

	if (fd < 0 || lseek(fd, (off_t)(long)&holes_g, SEEK_SET) < 0)
		return -1;
	return fd;
}

int procdup_case(void)
{
	int fd = mem_at_g(), out = dup(1);

	if (fd < 0 || out < 0 || dup2(fd, 1) != 1 || close(fd))
		return 2;
	/* write(1, &val, 8), then dup2(out, 1), close(out) */
	PROC_CASE("\tmov $1, %%eax\n\tmov $1, %%edi\n"
		  "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
		  "\tsyscall\n"
		  "\tmov $33, %%eax\n\tmov %%ebx, %%edi\n\tmov $1, %%esi\n"
		  "\tsyscall\n"
		  "\tmov $3, %%eax\n\tmov %%ebx, %%edi\n\tsyscall\n",
		  "b"(out));
	return 1;
}

int procreopen_case(void)
{
	int fd = mem_at_g();

	if (fd < 0)
		return 2;
	/* write(fd, &val, 8), close(fd), open("/dev/null"): fd again */
	PROC_CASE("\tmov $1, %%eax\n\tmov %%ebx, %%edi\n"
		  "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
		  "\tsyscall\n"
		  "\tmov $3, %%eax\n\tmov %%ebx, %%edi\n\tsyscall\n"
		  "\tmov $2, %%eax\n\tlea holes_null(%%rip), %%rdi\n"
		  "\txor %%esi, %%esi\n\tsyscall\n",
		  "b"(fd));
	return 1;
}

const char holes_null[] = "/dev/null";
struct iovec_ { void *base; unsigned long len; };
struct iovec_ holes_iov = { &holes_val, 8 }, holes_riov = { &holes_g, 8 };

int procwritev_case(void)
{
	int fd = mem_at_g();

	if (fd < 0)
		return 2;
	/* writev(fd, &iov, 1) */
	PROC_CASE("\tmov $20, %%eax\n\tmov %%ebx, %%edi\n"
		  "\tlea holes_iov(%%rip), %%rsi\n\tmov $1, %%edx\n"
		  "\tsyscall\n",
		  "b"(fd));
	return 1;
}

int stdout_case(void)
{
	/* write(1, &val, 8) */
	PROC_CASE("\tmov $1, %%eax\n\tmov $1, %%edi\n"
		  "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
		  "\tsyscall\n", "b"(0));
	return 1;
}

/* The memory file closed by int 0x80 (close is 6 there), /dev/null
 * opened on its number.  g is stored (0x1111) before the write and
 * loaded into r13 after it, before the int: the write must not be taken
 * as harmless, or r13 is 0x1111 forward from the store (int is a
 * barrier: nothing after it flows back).
 */
int procint80_case(void)
{
	int fd = mem_at_g();

	if (fd < 0)
		return 2;
	__asm__ volatile("movq $0x1111, holes_g(%%rip)\n"
			 "\tmov $1, %%eax\n\tmov %%ebx, %%edi\n"
			 "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
			 "\tsyscall\n"
			 "\tmov holes_g(%%rip), %%r13\n"
			 "\tnop\n\tnop\n"
			 "\tmov $6, %%eax\n\tint $0x80\n"
			 "\tmov $2, %%eax\n\tlea holes_null(%%rip), %%rdi\n"
			 "\txor %%esi, %%esi\n\tsyscall\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : "b"(fd)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9",
			 "r10", "r11", "r12", "r13", "memory");
	return 1;
}

int vmwrite_case(void)
{
	/* process_vm_writev(getpid(), &iov, 1, &riov, 1, 0) */
	PROC_CASE("\tmov $311, %%eax\n\tmov %%ebx, %%edi\n"
		  "\tlea holes_iov(%%rip), %%rsi\n\tmov $1, %%edx\n"
		  "\tlea holes_riov(%%rip), %%r10\n\tmov $1, %%r8d\n"
		  "\txor %%r9d, %%r9d\n\tsyscall\n",
		  "b"(getpid()));
	return 1;
}

struct holes_rseq {
	unsigned int cpu_id_start, cpu_id;
	unsigned long rseq_cs;
	unsigned int flags, pad[3];
} __attribute__((aligned(32)));
struct holes_rseq_cs {
	unsigned int version, flags;
	unsigned long start_ip, post_commit_offset, abort_ip;
} __attribute__((aligned(32)));
struct holes_rseq holes_rs;
struct holes_rseq_cs holes_cs;
extern char holes_cs_start[], holes_cs_abort[];
extern const ptrdiff_t __rseq_offset;
extern const unsigned int __rseq_size;

__asm__(".text\n"
	"holes_cs_start:\n\tnop\n"
	"\t.long 0x53053053\n"
	"holes_cs_abort:\n\tud2\n");

int rseq_case(void)
{
	long z = (long)getpid() >> 31;

	if (__rseq_size &&
	    syscall(334, (char *)__builtin_thread_pointer() + __rseq_offset,
		    32, 1, 0x53053053))	/* glibc registers 32 bytes */
		return 2;
	if (syscall(334, &holes_rs, sizeof(holes_rs), 0, 0x53053053))
		return 2;
	holes_cs.start_ip = (unsigned long)holes_cs_start;
	holes_cs.post_commit_offset = 1;
	holes_cs.abort_ip = (unsigned long)holes_cs_abort;
	/* rseq_cs = &cs (outside it: the kernel clears it), r12 = rseq_cs
	 * (0), then an unknown store of 0 there (z).
	 */
	__asm__ volatile("lea holes_cs(%%rip), %%rax\n"
			 "\tmov %%rax, holes_rs+8(%%rip)\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\tmov holes_rs+8(%%rip), %%r12\n"
			 "\tmov %0, holes_rs+8(%%rip)\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : "r"(z) : "rax", "rcx", "rdi", "r11", "r12",
			 "memory");
	return 1;
}

/*
 * An rseq area on the stack (glibc's unregistered), a push into its
 * cpu_id_start/cpu_id words, nops (each step a preemption for the
 * recorder: the kernel rewrites them), then the pop: r13 holds the CPU
 * numbers, not the pushed r12 (push/pop pairs must not be kept).
 */
int rseqstack_case(void)
{
	if (__rseq_size &&
	    syscall(334, (char *)__builtin_thread_pointer() + __rseq_offset,
		    32, 1, 0x53053053))
		return 2;
	__asm__ volatile("mov %%rsp, %%r15\n"
			 "\tlea -256(%%rsp), %%rdi\n"
			 "\tand $-32, %%rdi\n"
			 "\tmov $334, %%eax\n\tmov $32, %%esi\n"
			 "\txor %%edx, %%edx\n\tmov $0x53053053, %%r10d\n"
			 "\tsyscall\n"
			 "\ttest %%rax, %%rax\n\tjnz 1f\n"
			 "\tlea 8(%%rdi), %%rsp\n"
			 "\tmov $0x7fffffff7fffffff, %%r12\n"
			 "\tpush %%r12\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\tpop %%r13\n"
			 "\tnop\n\tnop\n"
			 "\txor %%r13d, %%r13d\n"
			 "1:\tmov %%r15, %%rsp\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : : "rax", "rcx", "rdx", "rsi", "rdi", "r10", "r11",
			 "r12", "r13", "r15", "memory");
	return 1;
}

/*
 * A file of one page under $TMPDIR (run.sh's), holes_g's first value
 * (0x1111) at offset 0, open read-write at offset 0; its path in @path.
 */
static int file_page(char *path, size_t cap)
{
	const char *dir = getenv("TMPDIR");
	static char page[4096];
	int fd;

	snprintf(path, cap, "%s/holesXXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	memcpy(page, &holes_g, sizeof(holes_g));
	if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page) ||
	    lseek(fd, 0, SEEK_SET))
		return -1;
	return fd;
}

/* @fd's page mapped private at 0x20000000, @prot. */
static int map_page(int fd, int prot)
{
	return mmap((void *)0x20000000, 4096, prot,
		    MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0) ==
	       (void *)0x20000000 ? 0 : -1;
}

/* file_page() with its page mapped by map_page(): the descriptor, or -1;
 * its path in @path (or nowhere: NULL).
 */
static int mapped_page(char *path, size_t cap, int prot)
{
	char tmp[4096];
	int fd;

	if (!path) {
		path = tmp;
		cap = sizeof(tmp);
	}
	fd = file_page(path, cap);

	return fd < 0 || map_page(fd, prot) ? -1 : fd;
}

/* r12 = the private page's first word (0x1111); then the asm in @write
 * (rbx holds a descriptor) writes 0x2222 into the file at offset 0;
 * r13 = the word again (0x2222).
 */
#define FILE_CASE(write, ...)						\
	__asm__ volatile("mov 0x20000000, %%r12\n"			\
			 write						\
			 "\tmov 0x20000000, %%r13\n"			\
			 "\tnop\n\tnop\n"				\
			 "\txor %%r12d, %%r12d\n"			\
			 "\txor %%r13d, %%r13d\n"			\
			 EXIT_NOW					\
			 : : __VA_ARGS__				\
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9",	\
			 "r10", "r11", "r12", "r13", "memory")

int holes_fd;

/*
 * r12 = the private page's first word; write(@w, &holes_val, 1), then
 * read(@r8, &holes_go, 1) (@r8 a register variable of r8) while another
 * process writes the file; r13 = the word again; exit_group.
 */
#define HANDSHAKE_CASE(w, r8)						\
	__asm__ volatile("mov 0x20000000, %%r12\n"			\
			 "\tmov $1, %%eax\n\tmov %%ebx, %%edi\n" \
			 "\tlea holes_val(%%rip), %%rsi\n\tmov $1, %%edx\n" \
			 "\tsyscall\n"					\
			 "\txor %%eax, %%eax\n\tmov %%r8d, %%edi\n"	\
			 "\tlea holes_go(%%rip), %%rsi\n\tmov $1, %%edx\n" \
			 "\tsyscall\n"					\
			 "\tmov 0x20000000, %%r13\n"			\
			 "\tnop\n\tnop\n"				\
			 "\txor %%r12d, %%r12d\n"			\
			 "\txor %%r13d, %%r13d\n"			\
			 EXIT_NOW					\
			 : : "b"(w), "r"(r8)				\
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "r12", \
			 "r13", "memory")

int fpwrite_case(void)
{
	int fd = mapped_page(NULL, 0, PROT_READ | PROT_EXEC);

	if (fd < 0)
		return 2;
	/* pwrite64(fd, &val, 8, 0) */
	FILE_CASE("\tmov $18, %%eax\n\tmov %%ebx, %%edi\n"
		  "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
		  "\txor %%r10d, %%r10d\n\tsyscall\n", "b"(fd));
	return 1;
}

int fwrite_case(void)
{
	int fd = mapped_page(NULL, 0, PROT_READ | PROT_WRITE);

	if (fd < 0)
		return 2;
	/* write(fd, &val, 8) at offset 0 */
	FILE_CASE("\tmov $1, %%eax\n\tmov %%ebx, %%edi\n"
		  "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
		  "\tsyscall\n", "b"(fd));
	return 1;
}

int flink_case(void)
{
	char path[4096], link2[4200];
	int fd = mapped_page(path, sizeof(path), PROT_READ | PROT_EXEC), fd2;

	snprintf(link2, sizeof(link2), "%s.link", path);
	if (fd < 0 || close(fd) || link(path, link2))
		return 2;
	fd2 = open(link2, O_WRONLY);
	if (fd2 < 0)
		return 2;
	/* writev(fd2, &iov, 1): its offset is 0 */
	FILE_CASE("\tmov $20, %%eax\n\tmov %%ebx, %%edi\n"
		  "\tlea holes_iov(%%rip), %%rsi\n\tmov $1, %%edx\n"
		  "\tsyscall\n", "b"(fd2));
	return 1;
}

int fprocfd_case(void)
{
	char self[64];
	int fd = mapped_page(NULL, 0, PROT_READ | PROT_WRITE);

	if (fd < 0)
		return 2;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	holes_fd = open(self, O_WRONLY);
	if (holes_fd < 0)
		return 2;
	/* pwrite64(holes_fd, &val, 8, 0), then holes_fd = -1 */
	FILE_CASE("\tmov $18, %%eax\n\tmov holes_fd(%%rip), %%edi\n"
		  "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
		  "\txor %%r10d, %%r10d\n\tsyscall\n"
		  "\tmovl $-1, holes_fd(%%rip)\n", "b"(0));
	return 1;
}

int fshlink_case(void)
{
	char path[4096], link2[4200];
	int fd = mapped_page(path, sizeof(path), PROT_READ | PROT_WRITE), fd2;
	volatile long *sh;

	snprintf(link2, sizeof(link2), "%s.link", path);
	if (fd < 0 || link(path, link2))
		return 2;
	fd2 = open(link2, O_RDWR);
	sh = mmap((void *)0x20001000, 4096, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_FIXED_NOREPLACE, fd2, 0);
	if (fd2 < 0 || sh != (void *)0x20001000 || close(fd) || close(fd2))
		return 2;
	*sh = 0x1111 + ((long)getpid() >> 31);	/* unknown to the engine */
	__asm__ volatile("mov 0x20000000, %%r12\n"
			 "\tmovq $0x2222, 0x20001000\n"
			 "\tmov 0x20000000, %%r13\n"
			 "\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 "\txor %%r13d, %%r13d\n"
			 EXIT_NOW
			 : : : "rax", "rcx", "rdi", "r11", "r12", "r13",
			 "memory");
	return 1;
}

/*
 * fshlink with the shared mapping gone by the end (munmap after the
 * store): the snapshot shows no shared mapping of the file.
 */
int fshgone_case(void)
{
	int fd = mapped_page(NULL, 0, PROT_READ | PROT_WRITE);
	volatile long *sh;

	if (fd < 0)
		return 2;
	sh = mmap((void *)0x20001000, 4096, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	if (sh != (void *)0x20001000 || close(fd))
		return 2;
	*sh = 0x1111 + ((long)getpid() >> 31);	/* unknown to the engine */
	/* munmap(0x20001000, 4096) */
	__asm__ volatile("mov 0x20000000, %%r12\n"
			 "\tmovq $0x2222, 0x20001000\n"
			 "\tmov $11, %%eax\n\tmov $0x20001000, %%edi\n"
			 "\tmov $4096, %%esi\n\tsyscall\n"
			 "\tmov 0x20000000, %%r13\n"
			 "\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 "\txor %%r13d, %%r13d\n"
			 EXIT_NOW
			 : : : "rax", "rcx", "rdi", "rsi", "r11", "r12", "r13",
			 "memory");
	return 1;
}

/*
 * fchild, fchildsh: the file written by another process, a forked child,
 * between main's two loads (the page mapped private and writable, never
 * written: the snapshot holds it): pwrite64 on its copy of the
 * descriptor, or a store through a shared mapping of its own.  Main's
 * history shows only a write(2) and a read(2) on pipes (neither writes
 * the mapping): main sends a byte after its first load, the child
 * writes the file and answers with a byte, which main reads into
 * holes_go.  The snapshot's file times show the write (snapshot 5,
 * docs/values.md "Files").
 */
static int fchild(bool shm)
{
	char path[4096], c;
	int fd = mapped_page(path, sizeof(path), PROT_READ | PROT_WRITE);
	int p[2], q[2];
	register int r8 __asm__("r8");

	if (fd < 0 || pipe(p) || pipe(q))
		return 2;
	switch (fork()) {
	case -1:
		return 2;
	case 0:
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		if (shm) {
			volatile long *m = mmap(NULL, 4096,
						PROT_READ | PROT_WRITE,
						MAP_SHARED, fd, 0);

			if (m == MAP_FAILED)
				_exit(1);
			*m = holes_val;
		} else if (pwrite(fd, &holes_val, 8, 0) != 8) {
			_exit(1);
		}
		if (write(q[1], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	r8 = q[0];
	HANDSHAKE_CASE(p[1], r8);
	return 1;
}

/*
 * fbefore: the file changed (by a forked child, waited for) before the
 * process maps it, read-only and executable (the image store copies it
 * then), with no MAP_FIXED, in the middle of the history; r12 loads it.
 * The read-only rule takes such an mmap as changing nothing
 * (docs/values.md "Files", the rtldro edge): before it the page reads as
 * the snapshot's where nothing was mapped, which no load can see.
 */
int fbefore_case(void)
{
	char path[4096];
	int fd = file_page(path, sizeof(path)), st;
	register int r8 __asm__("r8");
	pid_t c;

	if (fd < 0)
		return 2;
	c = fork();
	if (c < 0)
		return 2;
	if (!c)
		_exit(pwrite(fd, &holes_val, 8, 0) != 8);
	if (waitpid(c, &st, 0) != c || st)
		return 2;
	r8 = fd;
	/* mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) */
	__asm__ volatile("mov $9, %%eax\n\txor %%edi, %%edi\n"
			 "\tmov $4096, %%esi\n\tmov $5, %%edx\n"
			 "\tmov $2, %%r10d\n\txor %%r9d, %%r9d\n"
			 "\tsyscall\n"
			 "\tmov (%%rax), %%r12\n"
			 "\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : "r"(r8)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r9", "r10",
			 "r11", "r12", "memory");
	return 1;
}

/*
 * fshmext PATH (with a shmwriter PATH started before the recording):
 * PATH, on tmpfs, its first word 0x1111, is mapped private and writable
 * at 0x20000000 and never written; another process, not recorded,
 * stored into it through a shared mapping before the recording (so its
 * page table maps the page writable and dirty), and between main's two
 * loads stores 0x2222 there again: no fault, so no new time (tmpfs
 * never write-protects the page again; a disk file system does at its
 * next writeback).  The FIFOs PATH.p and PATH.q carry one byte each
 * way; the writer is still alive, mapping the file, at main's snapshot.
 */

static int shmwriter(void)
{
	char path[4200], c;
	int fd = open(holes_arg, O_RDWR), p, q;
	volatile long *m;

	m = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_SHARED, fd, 0);
	snprintf(path, sizeof(path), "%s.p", holes_arg);
	p = open(path, O_RDWR);		/* a FIFO: neither end waits */
	snprintf(path, sizeof(path), "%s.q", holes_arg);
	q = open(path, O_RDWR);
	if (m == MAP_FAILED || p < 0 || q < 0)
		return 2;
	*m = holes_g;			/* the page writable from now on */
	snprintf(path, sizeof(path), "%s.ready", holes_arg);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	if (read(p, &c, 1) != 1)
		return 2;
	*m = holes_val;
	if (write(q, &c, 1) != 1)
		return 2;
	for (;;)
		pause();		/* until the test kills it */
}

int fshmext_case(void)
{
	char path[4200];
	int fd = holes_arg ? open(holes_arg, O_RDONLY) : -1, p, q;
	register int r8 __asm__("r8");

	if (fd < 0 || map_page(fd, PROT_READ | PROT_WRITE))
		return 2;
	snprintf(path, sizeof(path), "%s.p", holes_arg);
	p = open(path, O_WRONLY);
	snprintf(path, sizeof(path), "%s.q", holes_arg);
	q = open(path, O_RDONLY);
	if (p < 0 || q < 0)
		return 2;
	r8 = q;
	HANDSHAKE_CASE(p, r8);
	return 1;
}

int shmwriter_case(void)
{
	return holes_arg ? shmwriter() : 2;
}

int fchild_case(void)
{
	return fchild(false);
}

int fchildsh_case(void)
{
	return fchild(true);
}
