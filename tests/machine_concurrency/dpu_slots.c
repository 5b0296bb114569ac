/* SPDX-License-Identifier: MIT */
/* The DPU side of the launch-slot tests.  mode 0 hashes its MRAM data (each
 * tasklet its own part) into sums[]; mode 1 counts its run in `started`, then
 * waits until the host sets `go` and copies it to `seen`; mode 2 counts its run
 * and spins until its time budget ends it. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define WORDS 512 /* per tasklet */
#define BLOCK 32

__host uint32_t mode;
__host uint64_t sums[NR_TASKLETS];
__mram_noinit uint64_t data[NR_TASKLETS * WORDS];
__mram_noinit uint64_t started;
__mram_noinit uint64_t go;
__mram_noinit uint64_t seen;

static volatile uint64_t sink;

int main(void)
{
    if (mode == 0) {
        __dma_aligned uint64_t buf[BLOCK];
        uint64_t h = me() + 1;
        for (uint32_t i = 0; i < WORDS; i += BLOCK) {
            mram_read(&data[me() * WORDS + i], buf, sizeof buf);
            for (uint32_t j = 0; j < BLOCK; j++)
                h = h * 31 + (buf[j] ^ (i + j));
        }
        sums[me()] = h;
        return 0;
    }
    if (me() != 0)
        return 0;
    __dma_aligned uint64_t v;
    mram_read(&started, &v, 8);
    v++;
    mram_write(&v, &started, 8);
    if (mode == 1) {
        do
            mram_read(&go, &v, 8);
        while (v == 0);
        mram_write(&v, &seen, 8);
        return 0;
    }
    for (;;)
        sink++;
}
