/* SPDX-License-Identifier: MIT */
/* <mutex_pool.h> and <vmutex.h> with 16 tasklets: histograms of the host's
 * input whose every update yields inside its critical section (a DMA), so
 * only real exclusion gives the host's counts; the same loop without a lock,
 * for comparison, loses updates.  Also: a pool maps an element to the mutex
 * of its low bits (id & (N - 1)), virtual mutexes are independent of each
 * other, and both macros work with and without a ';' after them. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <mutex.h>
#include <mutex_pool.h>
#include <stdint.h>
#include <vmutex.h>

#define N 4096 /* input bytes */
#define BINS 64

__mram_noinit uint8_t input[N];
__host uint32_t hist_pool[BINS], hist_vmutex[BINS], hist_none[BINS];
__host uint32_t checks[8];
__mram_noinit uint64_t scratch[NR_TASKLETS];

MUTEX_POOL_INIT(pool, 8)
MUTEX_POOL_INIT(single, 1);
VMUTEX_INIT(vm, BINS, 4)
BARRIER_INIT(all, NR_TASKLETS);

/* One update that yields between its read and its write. */
#define UPDATE(hist, bin)                                 \
    do {                                                  \
        uint32_t seen = (hist)[bin];                      \
        mram_write(&word, &scratch[me()], sizeof word);   \
        (hist)[bin] = seen + 1;                           \
    } while (0)

int main(void)
{
    uint64_t word = me();
    if (me() == 0) {
        for (int b = 0; b < BINS; b++)
            hist_pool[b] = hist_vmutex[b] = hist_none[b] = 0;
        /* element 3 and element 11 share mutex 3 of an 8-mutex pool; 4 does not */
        mutex_pool_lock(&pool, 3);
        checks[0] = mutex_trylock(&pool.hw_mutexes[11 & pool.hw_mutexes_mask]); /* 0: held */
        checks[1] = mutex_trylock(&pool.hw_mutexes[4 & pool.hw_mutexes_mask]);  /* 1 */
        mutex_unlock(&pool.hw_mutexes[4]);
        mutex_pool_unlock(&pool, 11); /* the same mutex as 3 */
        checks[2] = mutex_trylock(&pool.hw_mutexes[3]); /* 1: free again */
        mutex_unlock(&pool.hw_mutexes[3]);
        checks[3] = pool.hw_mutexes_mask;   /* 7 */
        checks[4] = single.hw_mutexes_mask; /* 0 */
        vmutex_lock(&vm, 5); /* held by tasklet 0 across the barrier below */
    }
    barrier_wait(&all);
    if (me() == 1) {
        /* other virtual mutexes, on the same hardware mutex or not, are free */
        vmutex_lock(&vm, 6);
        vmutex_lock(&vm, 13);
        checks[5] = vmutex_vm[0] | (uint32_t)vmutex_vm[1] << 8; /* bits 5, 6 and 13 */
        vmutex_unlock(&vm, 6);
        vmutex_unlock(&vm, 13);
    }
    barrier_wait(&all);
    if (me() == 0)
        vmutex_unlock(&vm, 5);
    barrier_wait(&all);

    /* three passes, each with all 16 tasklets in step: the pool, the virtual
     * mutexes, no lock */
    uint8_t buf[64] __dma_aligned;
    for (int pass = 0; pass < 3; pass++) {
        for (uint32_t at = me() * 64; at < N; at += NR_TASKLETS * 64) {
            mram_read(&input[at], buf, sizeof buf);
            for (int k = 0; k < 64; k++) {
                uint32_t bin = buf[k] % BINS;
                if (pass == 0) {
                    mutex_pool_lock(&pool, (uint16_t)bin);
                    UPDATE(hist_pool, bin);
                    mutex_pool_unlock(&pool, (uint16_t)bin);
                } else if (pass == 1) {
                    vmutex_lock(&vm, (uint16_t)bin);
                    UPDATE(hist_vmutex, bin);
                    vmutex_unlock(&vm, (uint16_t)bin);
                } else {
                    UPDATE(hist_none, bin);
                }
            }
        }
        barrier_wait(&all);
    }
    barrier_wait(&all);
    if (me() == 0) {
        uint32_t left = 0; /* every state bit is clear again */
        for (int i = 0; i < BINS / 8; i++)
            left |= vmutex_vm[i];
        checks[6] = left;
    }
    return 0;
}
