/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What review 7's program shares between its files (review7.c: the sweeps
 * and main; review7_launder.c: the laundering modes; review7_cases.c: the
 * other cases).  Each mode's function returns -1 for a mode it does not
 * have; most modes end the process with exit_group (EXIT_NOW).
 */
#ifndef REVIEW7_H
#define REVIEW7_H

#include <signal.h>
#include <stdbool.h>

#include "rawclone.h"

/* The AVX-512 and other extensions the sweeps' rows use (else exit 7). */
bool r7_cpu_has_sweep(void);

/* review7.c's globals the cases use too. */
extern volatile long r7_g[4];
extern unsigned char r7_sc[64], r7_y[64];
extern unsigned int r7_idx[16];

/* @h for SIGUSR1 on review7_cases.c's alternate signal stack (altsig,
 * laltsig); -1 if not.
 */
int r7_on_altstack(void (*h)(int, siginfo_t *, void *));

int r7_cases(const char *m);
int r7_launder(const char *m);

#endif
