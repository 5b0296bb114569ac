/* SPDX-License-Identifier: MIT */
/* Output that depends on the order in which tasklets run: every tasklet appends
 * to a shared log under a mutex between DMAs, meets the others at barriers and
 * in a handshake chain.  The emulator must produce the same log and the same
 * modelled cycles on every run, whatever the number of host workers. */
#include <barrier.h>
#include <defs.h>
#include <handshake.h>
#include <mram.h>
#include <mutex.h>
#include <perfcounter.h>
#include <stdint.h>

#define ROUNDS 6
__host uint32_t log_len;
__host uint8_t order_log[NR_TASKLETS * ROUNDS * 2 + 8];
__host uint64_t cycles, instructions;
__host uint32_t seed;
__mram_noinit uint64_t scratch[NR_TASKLETS * 64];
MUTEX_INIT(log_lock);
BARRIER_INIT(sync_all, NR_TASKLETS);

int main(void)
{
    unsigned t = me();
    if (t == 0) {
        log_len = 0;
        perfcounter_config(COUNT_CYCLES, true);
    }
    barrier_wait(&sync_all);
    uint64_t buf[8];
    for (int r = 0; r < ROUNDS; r++) {
        /* a data-dependent number of DMAs (each a switch point) before the
           lock changes the arrival order from round to round */
        uint32_t x = (seed + t * 2654435761u + (uint32_t)r) * 1103515245u + 12345u;
        for (uint32_t k = 0; k <= ((x >> 16) & 3); k++) {
            buf[0] = x + k;
            mram_write(buf, &scratch[t * 64 + (unsigned)r * 8], 64);
        }
        mutex_lock(log_lock);
        order_log[log_len++] = (uint8_t)t;
        mutex_unlock(log_lock);
        if (r % 2)
            barrier_wait(&sync_all);
    }
    if (t > 0)
        handshake_wait_for(t - 1);
    mutex_lock(log_lock);
    order_log[log_len++] = (uint8_t)(100 + t);
    mutex_unlock(log_lock);
    if (t + 1 < NR_TASKLETS)
        handshake_notify();
    barrier_wait(&sync_all);
    if (t == 0) {
        cycles = perfcounter_get();
        perfcounter_config(COUNT_INSTRUCTIONS, false);
        instructions = perfcounter_get();
    }
    return 0;
}
