/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU libc: <stddef.h>.
 *
 * DPU code is compiled with the DPU's data model (the driver's spir front end):
 * size_t, ptrdiff_t and pointers are 32-bit, as on a real DPU.
 */
#ifndef OPENPIM_DPU_STDDEF_H
#define OPENPIM_DPU_STDDEF_H

typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#ifndef __cplusplus
typedef __WCHAR_TYPE__ wchar_t; /* the compiler's (unsigned char, as the DPU's), so that L"" literals agree */
#endif

typedef struct {
    long long __op_ll __attribute__((aligned(__alignof__(long long))));
    long double __op_ld __attribute__((aligned(__alignof__(long double))));
} max_align_t;

#ifndef NULL
#define NULL ((void *)0)
#endif

#define offsetof(type, member) __builtin_offsetof(type, member)

#endif
