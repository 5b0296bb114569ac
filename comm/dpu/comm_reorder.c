/* SPDX-License-Identifier: MIT */
/* PE-assisted reordering for the optimised collectives (comm/src/kernel.c).
 * The region at src holds nr_blocks blocks of block_bytes (a multiple of 8);
 * in each group of 8 consecutive blocks, block t moves to
 *     PRE:  slot (t - chip) mod 8    (so that one rotation of a physical-view
 *                                     line sends every chip the block meant for it)
 *     POST: slot (chip - t) mod 8    (puts the rotated blocks back in rank order)
 * of the region at dst.  Each tasklet takes whole (group, chunk) items: it
 * reads the chunk of all 8 blocks of the group before writing any, so src ==
 * dst (in place) is safe. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

/* 512-B DMAs (77 + 0.5 B cycles each: 1.5 B/cycle, 1.25 at 256 B, 1.7 at 1 KB)
 * on 2 tasklets keep the one DMA engine busy with 8 KB of WRAM buffers: a
 * dpu_load writes the WRAM image to every rank at the control interface's
 * rate (.bss included), so a smaller image is a cheaper load (AlltoAll at
 * 1 MB per PE on 1,024 DPUs, bench/comm/run.sh: 4 x 1 KB buffers 3.97x over
 * the baseline, 2 x 1 KB 4.07x, 2 x 512 B 4.10x, 2 x 256 B 4.05x) */
#define CHUNK 512u

struct comm_kernel_args {
    uint32_t src, dst, nr_blocks, block_bytes, chip, mode;
};

__host struct comm_kernel_args comm_args;

__dma_aligned uint8_t buf[NR_TASKLETS][8][CHUNK];

#define MRAM(off) ((__mram_ptr void *)(uintptr_t)(0x08000000u + (uint32_t)(off)))

int main(void)
{
    const uint32_t id = me();
    const struct comm_kernel_args a = comm_args;
    const uint32_t groups = a.nr_blocks / 8, chunks = (a.block_bytes + CHUNK - 1) / CHUNK;
    for (uint32_t item = id; item < groups * chunks; item += NR_TASKLETS) {
        uint32_t g = item / chunks, off = (item % chunks) * CHUNK;
        uint32_t w = a.block_bytes - off < CHUNK ? a.block_bytes - off : CHUNK;
        for (uint32_t t = 0; t < 8; t++)
            mram_read(MRAM(a.src + (8 * g + t) * a.block_bytes + off), buf[id][t], w);
        for (uint32_t t = 0; t < 8; t++) {
            uint32_t slot = a.mode == 0 ? (t - a.chip) & 7u : (a.chip - t) & 7u;
            mram_write(buf[id][t], MRAM(a.dst + (8 * g + slot) * a.block_bytes + off), w);
        }
    }
    return 0;
}
