/* SPDX-License-Identifier: MIT */
/* handshake_wait_for returns EALREADY to a second waiter on the same notifier;
 * a handshake chain (as in SEL/UNI/SCAN) runs the tasklets in order. */
#include <barrier.h>
#include <defs.h>
#include <errno.h>
#include <handshake.h>
#include <mram.h>
#include <stdint.h>

BARRIER_INIT(all, NR_TASKLETS);

__host int32_t wait_result[NR_TASKLETS];
__host int32_t errno_seen[NR_TASKLETS];
__host uint32_t chain[NR_TASKLETS];
__mram_noinit uint64_t scratch[8];
static uint32_t chain_len;

int main(void)
{
    uint32_t tid = me();
    uint64_t v = tid;
    if (tid == 0) {
        chain_len = 0;
        /* let tasklets 1 and 2 reach handshake_wait_for(0) first */
        for (int i = 0; i < 4; i++)
            mram_write(&v, &scratch[0], 8);
        handshake_notify();
        wait_result[0] = 0;
        errno_seen[0] = 0;
    } else if (tid <= 2) {
        errno = 0;
        wait_result[tid] = handshake_wait_for(0);
        errno_seen[tid] = errno;
    }
    barrier_wait(&all);

    /* chain: tasklet k waits for k-1, then notifies k+1 */
    if (tid > 0)
        handshake_wait_for(tid - 1);
    mram_write(&v, &scratch[1], 8); /* a yield between the two */
    chain[chain_len++] = tid;
    if (tid < NR_TASKLETS - 1)
        handshake_notify();
    return 0;
}
