/* SPDX-License-Identifier: MIT */
/* Each round, every tasklet reads a block, then passes a handshake chain
 * (k waits for k-1, then notifies k+1) and writes 16 bytes at slot k: its own
 * word and a stale word that lands on slot k+1.  On the DPU the tasklet ahead in
 * the chain reaches its DMA first, so slot k+1 ends up holding tasklet k+1's
 * word; the last tasklet's stale word stays in the spare slot. */
#include <barrier.h>
#include <defs.h>
#include <handshake.h>
#include <mram.h>
#include <stdint.h>

#define ROUNDS 5
#define STALE 0xDEADull

BARRIER_INIT(all, NR_TASKLETS);
__mram_noinit uint64_t slots[ROUNDS][NR_TASKLETS + 1];
__mram_noinit uint64_t input[NR_TASKLETS * 8];
__host uint32_t rounds_done;

int main(void)
{
    uint32_t t = me();
    __dma_aligned uint64_t in[8], out[2];
    for (uint32_t r = 0; r < ROUNDS; r++) {
        mram_read(&input[t * 8], in, sizeof in);
        if (t > 0)
            handshake_wait_for(t - 1);
        if (t + 1 < NR_TASKLETS)
            handshake_notify();
        out[0] = in[0] + r;
        out[1] = STALE;
        mram_write(out, &slots[r][t], sizeof out);
        barrier_wait(&all);
    }
    if (t == 0)
        rounds_done = ROUNDS;
    return 0;
}
