/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <vmutex.h>, virtual mutexes: one state bit each in WRAM,
 * for programs that need more mutexes than the hardware has.
 *
 * The state bits live in the program's WRAM (set at dpu_load, cleared by
 * unlocks); a tasklet finding its bit set blocks until the unlock.
 */
#ifndef DPUSYSCORE_VMUTEX_H
#define DPUSYSCORE_VMUTEX_H

#include <stdint.h>
#include <mutex.h>
#include <assert.h>

struct vmutex {
    uint8_t *vm;             /* one bit per virtual mutex */
    uint8_t *hw_mutexes;     /* hardware mutexes (unused by the emulator) */
    uint8_t hw_mutexes_mask; /* their number - 1 */
};

/* Defines `NAME`: NB_VMUTEXES (a multiple of 8) virtual mutexes over NB_MUTEXES
 * (a power of two) hardware ones. */
#define VMUTEX_INIT(NAME, NB_VMUTEXES, NB_MUTEXES)                                                                     \
    _Static_assert((NB_MUTEXES) > 0 && ((NB_MUTEXES) & ((NB_MUTEXES)-1)) == 0,                                         \
        "the number of hardware mutexes must be a power of 2");                                                        \
    _Static_assert(((NB_VMUTEXES)&7) == 0, "the number of virtual mutexes must be a multiple of 8");                   \
    uint8_t __atomic_bit hw_mutexes_##NAME[NB_MUTEXES] = { 0 };                                                        \
    uint8_t vmutex_##NAME[(NB_VMUTEXES) >> 3] = { 0 };                                                                 \
    struct vmutex NAME = { .vm = vmutex_##NAME, .hw_mutexes = hw_mutexes_##NAME, .hw_mutexes_mask = (NB_MUTEXES)-1 };

void __op_vmutex_lock(uint8_t *bits, uint16_t id);
void __op_vmutex_unlock(uint8_t *bits, uint16_t id);

/* Takes virtual mutex `id`. */
static inline void vmutex_lock(struct vmutex *vm, uint16_t id)
{
    __op_vmutex_lock(vm->vm, id);
}

/* Releases virtual mutex `id`. */
static inline void vmutex_unlock(struct vmutex *vm, uint16_t id)
{
    __op_vmutex_unlock(vm->vm, id);
}

#endif
