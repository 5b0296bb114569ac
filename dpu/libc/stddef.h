/* OpenPIM DPU libc: <stddef.h>.
 *
 * DPU programs are compiled natively for x86-64, so the basic types take the
 * host's sizes (size_t, ptrdiff_t and pointers are 64-bit here, 32-bit on a real
 * DPU).  All values a DPU program can hold in them (WRAM/MRAM addresses, sizes)
 * fit in 32 bits anyway.
 */
#ifndef OPENPIM_DPU_STDDEF_H
#define OPENPIM_DPU_STDDEF_H

typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#ifndef __cplusplus
typedef __WCHAR_TYPE__ wchar_t; /* the compiler's, so that L"" literals agree */
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
