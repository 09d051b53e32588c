/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What holes.c (the cases of instructions, threads and escapes, and
 * main) and holes_mem.c (memory changed by no store of the program's)
 * share: their globals and holes_mem.c's cases for main's table.
 */
#ifndef HOLES_H
#define HOLES_H

#include "rawclone.h"

extern long holes_g, holes_go, holes_done;
/* main's second argument (fshmext's and shmwriter's path), or NULL */
extern const char *holes_arg;

int procmem_case(void);
int procdup_case(void);
int procreopen_case(void);
int procwritev_case(void);
int stdout_case(void);
int procint80_case(void);
int vmwrite_case(void);
int rseq_case(void);
int rseqstack_case(void);
int fpwrite_case(void);
int fwrite_case(void);
int flink_case(void);
int fprocfd_case(void);
int fshlink_case(void);
int fshgone_case(void);
int fbefore_case(void);
int fshmext_case(void);
int shmwriter_case(void);
int fchild_case(void);
int fchildsh_case(void);

#endif
