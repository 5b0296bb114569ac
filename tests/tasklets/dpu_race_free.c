/* SPDX-License-Identifier: MIT */
/* Shared data that every synchronisation of the DPU runtime orders: a counter
 * under a mutex, per-tasklet sums gathered after a barrier, a value handed
 * down a handshake chain, and one given through a semaphore.  No race. */
#include <barrier.h>
#include <defs.h>
#include <handshake.h>
#include <mram.h>
#include <mutex.h>
#include <sem.h>
#include <stdint.h>

MUTEX_INIT(counter_lock);
BARRIER_INIT(all, NR_TASKLETS);
SEMAPHORE_INIT(handed, 0);

__host uint32_t iterations, counter, total, chain, token;
uint32_t partial[NR_TASKLETS];
__dma_aligned uint64_t staging[NR_TASKLETS][2];
__mram_noinit uint64_t mailbox[2];

int main(void)
{
    unsigned t = me();
    for (uint32_t i = 0; i < iterations; i++) {
        mutex_lock(counter_lock);
        counter++;
        mutex_unlock(counter_lock);
    }
    partial[t] = t + 1;
    if (t == 0) { /* MRAM too: written before the barrier, read after it */
        staging[t][0] = 7;
        mram_write(staging[t], mailbox, sizeof staging[t]);
    }
    barrier_wait(&all);
    if (t == 1)
        mram_read(mailbox, staging[t], sizeof staging[t]);
    if (t == 0) {
        uint32_t s = 0;
        for (unsigned k = 0; k < NR_TASKLETS; k++)
            s += partial[k];
        total = s;
    }
    /* a handshake chain: t waits for t - 1, adds, notifies t + 1 */
    if (t > 0)
        handshake_wait_for(t - 1);
    chain += t;
    if (t + 1 < NR_TASKLETS)
        handshake_notify();
    /* a semaphore: the last tasklet gives token to tasklet 0 */
    if (t == NR_TASKLETS - 1) {
        token = 99;
        sem_give(&handed);
    } else if (t == 0) {
        sem_take(&handed);
        token++;
    }
    return 0;
}
