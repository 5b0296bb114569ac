/* SPDX-License-Identifier: MIT */
/* Each tasklet adds (id + 1) * round to a shared total, NR_ROUNDS times, the
 * read-modify-write guarded by a semaphore of one unit with a DMA (a tasklet
 * switch) inside; a barrier ends every round, and the tasklet that arrives
 * last at it records the total of that round.  Both objects are declared
 * without a trailing `;`. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <sem.h>
#include <stdint.h>

#define NR_ROUNDS 5

BARRIER_INIT(round_end, NR_TASKLETS)
SEMAPHORE_INIT(guard, 1)
BARRIER_INIT(second, NR_TASKLETS)
__host uint64_t round_totals[NR_ROUNDS];
__mram_noinit uint64_t total;

int main(void)
{
    if (me() == 0) {
        uint64_t zero __dma_aligned = 0;
        mram_write(&zero, &total, sizeof(zero));
    }
    barrier_wait(&second);
    for (uint32_t round = 1; round <= NR_ROUNDS; round++) {
        sem_take(&guard);
        uint64_t t __dma_aligned;
        mram_read(&total, &t, sizeof(t));
        t += (uint64_t)(me() + 1) * round;
        mram_write(&t, &total, sizeof(t));
        sem_give(&guard);
        barrier_wait(&round_end);
        if (me() == 0) {
            mram_read(&total, &t, sizeof(t));
            round_totals[round - 1] = t;
        }
        barrier_wait(&second);
    }
    return 0;
}
