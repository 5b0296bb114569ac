/* SPDX-License-Identifier: MIT */
/* mram_read/mram_write follow the DPU's DMA rules: both addresses rounded down
 * to 8, size ((((n >> 3) - 1) & 0xff) + 1) * 8 (0 -> 2048, 12 -> 8, 2056 -> 8). */
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <string.h>

#define SENTINEL 0xEE
#define NR_CASES 6

/* Per read case: the first WRAM byte written, how many were, and whether they
 * hold the MRAM bytes from the rounded-down MRAM address. */
__host int32_t first[NR_CASES];
__host uint32_t count[NR_CASES];
__host uint32_t content_ok[NR_CASES];
__host uint64_t direct[2];
__mram uint64_t mram_init[2] = { 0x1122334455667788ull, 42 };

__dma_aligned uint8_t buf[2048 + 64];
__dma_aligned uint8_t src[64];

static const struct {
    uint32_t mram_off, wram_off, n;
} cases[NR_CASES] = {
    { 0, 0, 0 },     /* 2048 bytes */
    { 0, 0, 12 },    /* 8 */
    { 0, 0, 2056 },  /* 8 */
    { 5, 0, 16 },    /* MRAM address rounded down: bytes 0..15 */
    { 16, 3, 8 },    /* WRAM address rounded down: lands at buf[0] */
    { 8, 8, 2048 },  /* 2048 */
};

int main(void)
{
    const __mram_ptr uint8_t *heap = DPU_MRAM_HEAP_POINTER;
    for (int c = 0; c < NR_CASES; c++) {
        memset(buf, SENTINEL, sizeof(buf));
        mram_read(heap + cases[c].mram_off, buf + cases[c].wram_off, cases[c].n);
        int32_t f = -1;
        uint32_t n = 0;
        for (uint32_t i = 0; i < sizeof(buf); i++) {
            if (buf[i] != SENTINEL) {
                if (f < 0)
                    f = (int32_t)i;
                n++;
            }
        }
        first[c] = f;
        count[c] = n;
        uint32_t ok = f >= 0;
        uint32_t m = cases[c].mram_off & ~7u;
        for (uint32_t i = 0; ok && i < n; i++)
            ok = buf[(uint32_t)f + i] == heap[m + i]; /* direct MRAM loads through %gs */
        content_ok[c] = ok;
    }
    /* mram_write: WRAM bytes 0..7 go to MRAM bytes 4096+8 .. 4096+15 (13 & ~7). */
    memset(src, 0xA5, sizeof(src));
    mram_write(src, (__mram_ptr uint8_t *)heap + 4096 + 13, 8);
    direct[0] = mram_init[0];
    direct[1] = mram_init[1];
    return 0;
}
