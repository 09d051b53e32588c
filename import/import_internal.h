/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to import/. */
#ifndef PTREC_IMPORT_INTERNAL_H
#define PTREC_IMPORT_INTERNAL_H

#include "sideband.h"

/* Formats a message into @err (may be NULL) and returns @code. */
int imp_fail(struct sb_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
