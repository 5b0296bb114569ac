/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU libc: <strings.h>. */
#ifndef OPENPIM_DPU_STRINGS_H
#define OPENPIM_DPU_STRINGS_H

#include <stddef.h>

int strcasecmp(const char *a, const char *b);
int strncasecmp(const char *a, const char *b, size_t n);

#endif
