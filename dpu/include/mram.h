/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <mram.h>, DMA between WRAM and MRAM.
 *
 * mram_read/mram_write behave like the DPU's ldma/sdma instructions:
 *   - the MRAM address and the WRAM address are rounded down to a multiple of 8;
 *   - the size is taken as ((((n >> 3) - 1) & 0xff) + 1) * 8 bytes: a multiple of
 *     8 between 8 and 2048, so n = 0 moves 2048 bytes, n = 12 moves 8 and
 *     n = 2056 moves 8;
 *   - the whole transfer must lie inside the DPU's MRAM and inside WRAM (or a
 *     tasklet stack), else the DPU stops with OP_FAULT_DMA;
 *   - as on the DPU, the MRAM address may omit the 0x08000000 tag: an offset
 *     below the MRAM size reaches the same byte as 0x08000000 + offset.
 * Each call is one DMA for the timing model; the tasklet then waits for the
 * DMA engine and gives way to the tasklet whose modelled clock is earliest.
 */
#ifndef DPUSYSCORE_MRAM_H
#define DPUSYSCORE_MRAM_H

#include <stdint.h>
#include <attributes.h>

/* End of the MRAM variables (8-aligned): the start of the free MRAM "heap". */
extern __mram_ptr uint8_t __sys_used_mram_end[];

/* Name of the heap pseudo-symbol, for dpu_copy_to/dpu_push_xfer on the host. */
#define DPU_MRAM_HEAP_POINTER_NAME "__sys_used_mram_end"
/* First MRAM byte not used by MRAM variables. */
#define DPU_MRAM_HEAP_POINTER ((__mram_ptr void *)(__sys_used_mram_end))

/* The sizes the SDK documents: at least 8, at most 2048, a multiple of 8
 * ([UPMEM-SDK], "Unaligned MRAM Accesses": with 8-aligned MRAM and WRAM
 * addresses).  A call whose size is a compile-time constant outside them
 * does not build, as with the SDK 2025.1 (clang's diagnose_if here, evaluated
 * only when the argument is a constant; the SDK's own mechanism and words
 * are not public: its 2020 mram.h passes the size to __builtin_dpu_ldma/sdma
 * unchecked); a size known only at run time gets the DMA engine's encoding
 * above. */
#define __OP_DMA_SIZE_INVALID(n) ((n) < 8 || (n) > 2048 || (n) % 8 != 0)
#if defined(__clang__)
#define __OP_DMA_SIZE_CHECK(who, n)                                                                   \
    __attribute__((diagnose_if(__OP_DMA_SIZE_INVALID(n),                                              \
                               who ": invalid number of bytes: the size of a DMA transfer must be a " \
                               "multiple of 8, at least 8 and at most 2048",                          \
                               "error")))
#else
#define __OP_DMA_SIZE_CHECK(who, n)
#endif

/* Copies nb_of_bytes (DMA-encoded, see above) from MRAM `from` to WRAM `to`. */
void mram_read(const __mram_ptr void *from, void *to, unsigned int nb_of_bytes)
    __OP_DMA_SIZE_CHECK("mram_read", nb_of_bytes);
/* Copies nb_of_bytes (DMA-encoded, see above) from WRAM `from` to MRAM `dest`. */
void mram_write(const void *from, __mram_ptr void *dest, unsigned int nb_of_bytes)
    __OP_DMA_SIZE_CHECK("mram_write", nb_of_bytes);

/* Strict DMA checks (build the DPU program with -DOPENPIM_STRICT_DMA): every
 * mram_read/mram_write whose size or addresses the SDK documents as invalid
 * (a size outside the rule above, an MRAM or WRAM address that is not a
 * multiple of 8) stops the DPU with a "dma" fault naming the call, instead of
 * doing what the DMA engine does with it (rounding and size encoding). */
#ifdef OPENPIM_STRICT_DMA
#include <openpim_rt.h>
static inline void __op_strict_dma(const char *who, uintptr_t mram, uintptr_t wram, unsigned int n)
{
    if (__OP_DMA_SIZE_INVALID(n) || ((mram | wram) & 7u))
        __op_faultf(OP_FAULT_DMA,
                    "%s of %u bytes between MRAM %x and WRAM %x: the SDK requires a size that is a multiple of 8 "
                    "from 8 to 2048 and 8-aligned addresses (OPENPIM_STRICT_DMA)",
                    who, (uint64_t)n, (uint64_t)mram, (uint64_t)wram);
}
static inline void __op_strict_mram_read(const __mram_ptr void *from, void *to, unsigned int n)
{
    __op_strict_dma("mram_read", (uintptr_t)from, (uintptr_t)to, n);
    (mram_read)(from, to, n);
}
static inline void __op_strict_mram_write(const void *from, __mram_ptr void *dest, unsigned int n)
{
    __op_strict_dma("mram_write", (uintptr_t)dest, (uintptr_t)from, n);
    (mram_write)(from, dest, n);
}
#define mram_read(from, to, n) __op_strict_mram_read((from), (to), (n))
#define mram_write(from, dest, n) __op_strict_mram_write((from), (dest), (n))
#endif

#endif
