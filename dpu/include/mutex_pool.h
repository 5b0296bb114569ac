/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <mutex_pool.h>, a power-of-two pool of mutexes indexed by
 * the low bits of an element id. */
#ifndef DPUSYSCORE_MUTEX_POOL_H
#define DPUSYSCORE_MUTEX_POOL_H

#include <stdint.h>
#include <mutex.h>
#include <assert.h>

struct mutex_pool {
    uint8_t *hw_mutexes;     /* the pool's atomic bits */
    uint8_t hw_mutexes_mask; /* pool size - 1 */
};

/* Defines the pool `NAME` of NB_MUTEXES mutexes (a power of two).  The
 * definition ends with its own ';', as the SDK's: programs write the macro with
 * or without one. */
#define MUTEX_POOL_INIT(NAME, NB_MUTEXES)                                                                              \
    _Static_assert((NB_MUTEXES) > 0 && ((NB_MUTEXES) & ((NB_MUTEXES)-1)) == 0,                                         \
        "the number of mutexes of a pool must be a power of 2");                                                       \
    uint8_t __atomic_bit hw_mutexes_##NAME[NB_MUTEXES] = { 0 };                                                        \
    struct mutex_pool NAME = { .hw_mutexes = hw_mutexes_##NAME, .hw_mutexes_mask = (NB_MUTEXES)-1 };

/* Locks the mutex guarding element `id`. */
static inline void mutex_pool_lock(struct mutex_pool *mp, uint16_t id)
{
    mutex_lock(&mp->hw_mutexes[id & mp->hw_mutexes_mask]);
}

/* Unlocks the mutex guarding element `id`. */
static inline void mutex_pool_unlock(struct mutex_pool *mp, uint16_t id)
{
    mutex_unlock(&mp->hw_mutexes[id & mp->hw_mutexes_mask]);
}

#endif
