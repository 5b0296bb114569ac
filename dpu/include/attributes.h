/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <attributes.h>, the DPU-specific variable qualifiers.
 *
 * MRAM is its own address space, as on the DPU: a `__mram_ptr T *` holds a
 * DPU MRAM address (0x08000000 + offset) and is dereferenced through %gs, whose
 * base the worker sets to "current DPU's MRAM - 0x08000000".  So MRAM pointers
 * survive uint32_t round trips and direct dereferences work.
 */
#ifndef DPUSYSCORE_ATTRIBUTES_H
#define DPUSYSCORE_ATTRIBUTES_H

#if defined(__clang__)
#define __mram_ptr __attribute__((address_space(256)))
#elif defined(__GNUC__)
/* The empty attribute works around a gcc 12 parser bug: a declaration that
 * starts with __seg_gs right after an if/for statement is not recognised. */
#define __mram_ptr __attribute__(()) __seg_gs
#else
#error "OpenPIM DPU code needs gcc or clang"
#endif

/* Aligned for DMA (8 bytes). */
#define __dma_aligned __attribute__((aligned(8)))
/* WRAM data kept in the image even if no code uses it (images are linked with
 * --gc-sections, see toolchain/dpu.lds.in). */
#define __keep __attribute__((used, section(".data.__sys_keep")))
/* An initialised MRAM variable (loaded by dpu_load). */
#define __mram __mram_ptr __attribute__((section(".mram"), aligned(8), used))
/* An MRAM variable without initial value. */
#define __mram_noinit __mram_ptr __attribute__((section(".mram.noinit"), aligned(8), used))
/* Kept even if no DPU code uses them (plain __mram variables go with the code). */
#define __mram_keep __mram_ptr __attribute__((section(".mram.keep"), aligned(8), used))
#define __mram_noinit_keep __mram_ptr __attribute__((section(".mram.noinit.keep"), aligned(8), used))
/* A WRAM variable the host reads and writes by name. */
#define __host __attribute__((aligned(8), used, section(".dpu_host")))
/* A byte used as a hardware atomic bit (see atomic_bit.h, mutex.h). */
#define __atomic_bit __attribute__((section(".atomic")))

#define __section(s) __attribute__((section(s)))
#define __used __attribute__((used))
#define __weak __attribute__((weak))
#define __noinline __attribute__((noinline))
#define __aligned(n) __attribute__((aligned(n)))

#endif
