/* SPDX-License-Identifier: MIT */
/* <mram_unaligned.h>.  mode 0: tasklet 0 reads and writes every size of the
 * host's list at every alignment 0..7 (the reads are copied to `readback`
 * for the host, the writes land in `warea`, which the host models), then the
 * 16 tasklets update neighbouring ints and bytes of shared words with the
 * atomic macros.  Modes 1-3 ask for what the SDK refuses: a WRAM source whose
 * alignment differs from the MRAM destination's, and more than 2048 bytes. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <mram_unaligned.h>
#include <stddef.h>
#include <stdint.h>

#define AREA 4096
#define NS 22
#define ROUNDS 10

__host uint32_t mode;
__host uint32_t sizes[NS];
__mram_noinit uint8_t rarea[AREA];
__mram_noinit uint8_t warea[AREA];
__mram_noinit uint8_t readback[8 * 5120];
__mram_noinit int ints[8];
__mram_noinit uint8_t counters[16];
__mram_noinit uint8_t shared_byte[8];
__mram_noinit uint8_t written_bytes[16];
__mram_noinit uint64_t odd_int[2];

uint8_t rbuf[2048 + 16] __dma_aligned;
uint8_t stage[2048 + 8] __dma_aligned;
uint8_t wbuf[2048 + 16] __dma_aligned;
BARRIER_INIT(all, NR_TASKLETS);

/* The offsets both sides use: reads and writes of case c start at
 * base(c) + alignment, so that the writes overlap each other. */
static uint32_t base(uint32_t c)
{
    return (c % 5) * 24;
}

static void add(int *value, void *args)
{
    *value += (int)(uintptr_t)args;
}

static void inc(uint8_t *value, void *args)
{
    (void)args;
    *value = (uint8_t)(*value + 1);
}

static void sweep(void)
{
    uint32_t out = 0;
    for (uint32_t s = 0; s < NS; s++) {
        for (uint32_t a = 0; a < 8; a++) {
            uint32_t c = s * 8 + a, n = sizes[s];
            const uint8_t *p = mram_read_unaligned(&rarea[base(c) + a], rbuf, n);
            uint32_t padded = (n + 7) & ~7u;
            if (out + padded > sizeof readback)
                halt(); /* the list outgrew readback: a fault, never a silent overlap */
            for (uint32_t k = 0; k < n; k++)
                stage[k] = p[k];
            for (uint32_t k = n; k < padded; k++)
                stage[k] = 0;
            for (uint32_t k = 0; k < padded; k += 2048)
                mram_write(&stage[k], &readback[out + k], padded - k < 2048 ? padded - k : 2048);
            out += padded;

            for (uint32_t k = 0; k < n; k++)
                wbuf[a + k] = (uint8_t)(c * 7 + k * 13 + 1);
            mram_write_unaligned(&wbuf[a], &warea[base(c) + a], n);
        }
    }
    /* whole words at an aligned address: a plain mram_write, whose WRAM
     * address is taken down to 8 (as the SDK's, which calls mram_write) */
    for (uint32_t k = 0; k < 24; k++)
        wbuf[k] = (uint8_t)(0xc0 + k);
    mram_write_unaligned(&wbuf[3], &warea[2048], 16);
}

int main(void)
{
    if (mode != 0) {
        if (me() != 0)
            return 0;
        if (mode == 1)
            mram_write_unaligned(&wbuf[1], &warea[2], 5);
        else if (mode == 2)
            mram_read_unaligned(&rarea[0], rbuf, 2049);
        else
            mram_write_unaligned(&wbuf[0], &warea[0], 2049);
        return 0;
    }
    if (me() == 0)
        sweep();
    barrier_wait(&all);
    for (int r = 0; r < ROUNDS; r++) {
        /* two tasklets per int, two ints per word */
        mram_update_int_atomic(&ints[me() % 8], add, (void *)(uintptr_t)(me() + 1));
        /* eight tasklets per word, one byte each */
        mram_update_byte_atomic(&counters[me()], inc, NULL);
        /* every tasklet, one byte */
        mram_update_byte_atomic(&shared_byte[3], inc, NULL);
    }
    mram_write_byte_atomic(&written_bytes[me()], 0xa0 + me());
    if (me() == 5) /* an int at an address that is not 8-aligned: the word's high half */
        mram_write_int_atomic((__mram_ptr int *)((uintptr_t)&odd_int[1] + 3), 0x11223344);
    return 0;
}
