/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <mram_unaligned.h>, MRAM accesses without alignment rules,
 * and tasklet-safe updates of values smaller than 8 bytes.
 *
 * Each function is atomic with respect to the other tasklets (they only switch
 * at the end) and yields once, like a DMA.
 */
#ifndef DPUSYSCORE_MRAM_UNALIGNED_H
#define DPUSYSCORE_MRAM_UNALIGNED_H

#include <stdint.h>
#include <vmutex.h> /* as the SDK's header, whose macros use virtual mutexes */
#include <attributes.h>
#include <mram.h>
#include <defs.h>

/* Reads nb_of_bytes (at most 2048, any alignment; more faults) from MRAM into
 * `buffer`, which must be 8-aligned and hold nb_of_bytes + 16 bytes.  Returns
 * the address in `buffer` of the byte read from `from`. */
void *mram_read_unaligned(const __mram_ptr void *from, void *buffer, unsigned int nb_of_bytes);
/* Writes exactly nb_of_bytes (at most 2048, any alignment; more faults) from
 * WRAM to MRAM.  `from` must have the alignment of `dest` modulo 8 (a fault
 * otherwise, as the SDK's), except for whole words at an 8-aligned `dest`,
 * which are a plain mram_write (whose WRAM address is taken down to 8). */
void mram_write_unaligned(const void *from, __mram_ptr void *dest, unsigned int nb_of_bytes);

/* Runtime helpers for the macros below: begin returns a host pointer to the
 * MRAM bytes [addr, addr+size); end accounts the 8-byte read and write and yields. */
void *__op_mram_rmw_begin(uint32_t addr, uint32_t size);
void __op_mram_rmw_end(uint32_t addr);

/* As on the DPU, an int is addressed by the 8-byte word holding `dest`: its low
 * half if dest is 8-aligned, its high half otherwise. */
#define __OP_MRAM_INT_ADDR(dest) ((((uint32_t)(uintptr_t)(dest)) & ~7u) | ((((uint32_t)(uintptr_t)(dest)) & 7u) ? 4u : 0u))

/* Atomically applies update_func(int *value, args) to the int at `dest` in MRAM. */
#define mram_update_int_atomic(dest, update_func, args)                                                                \
    do {                                                                                                               \
        uint32_t __op_a = __OP_MRAM_INT_ADDR(dest);                                                                    \
        (*(update_func))((int *)__op_mram_rmw_begin(__op_a, 4), (args));                                               \
        __op_mram_rmw_end(__op_a);                                                                                     \
    } while (0)

/* Atomically stores the int `val` at `dest` in MRAM. */
#define mram_write_int_atomic(dest, val)                                                                               \
    do {                                                                                                               \
        uint32_t __op_a = __OP_MRAM_INT_ADDR(dest);                                                                    \
        int __op_v = (val);                                                                                            \
        __builtin_memcpy(__op_mram_rmw_begin(__op_a, 4), &__op_v, 4);                                                  \
        __op_mram_rmw_end(__op_a);                                                                                     \
    } while (0)

/* Atomically applies update_func(uint8_t *value, args) to the byte at `dest` in MRAM. */
#define mram_update_byte_atomic(dest, update_func, args)                                                               \
    do {                                                                                                               \
        uint32_t __op_a = (uint32_t)(uintptr_t)(dest);                                                                 \
        (*(update_func))((uint8_t *)__op_mram_rmw_begin(__op_a, 1), (args));                                           \
        __op_mram_rmw_end(__op_a);                                                                                     \
    } while (0)

/* Atomically stores the byte `val` at `dest` in MRAM. */
#define mram_write_byte_atomic(dest, val)                                                                              \
    do {                                                                                                               \
        uint32_t __op_a = (uint32_t)(uintptr_t)(dest);                                                                 \
        *(uint8_t *)__op_mram_rmw_begin(__op_a, 1) = (uint8_t)(val);                                                   \
        __op_mram_rmw_end(__op_a);                                                                                     \
    } while (0)

#endif
