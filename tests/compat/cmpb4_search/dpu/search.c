/* SPDX-License-Identifier: MIT */
/* Each tasklet scans its slice of an MRAM text, 4 bytes at every position,
 * against a 4-byte key with cmpb4: it counts the positions where all four
 * bytes match (result 0x01010101) and adds up the matching bytes of every
 * position (the four 0/1 bytes folded by shifts). */
#include <built_ins.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define TEXT_BYTES 8192
#define SLICE (TEXT_BYTES / NR_TASKLETS)
#define CHUNK 256

__mram_noinit uint8_t text[TEXT_BYTES + CHUNK];
__host uint32_t key;
__host uint32_t full_matches[NR_TASKLETS];
__host uint32_t matching_bytes[NR_TASKLETS];

static uint8_t buffers[NR_TASKLETS][CHUNK + 8] __dma_aligned;

int main(void)
{
    uint32_t full = 0, bytes = 0;
    uint8_t *buf = buffers[me()];
    for (uint32_t base = me() * SLICE; base < (me() + 1) * SLICE; base += CHUNK - 8) {
        /* CHUNK bytes from base; the last 3 positions read into the next chunk */
        mram_read(&text[base], buf, CHUNK);
        uint32_t end = base + CHUNK - 8 < (me() + 1) * SLICE ? CHUNK - 8 : (me() + 1) * SLICE - base;
        for (uint32_t i = 0; i < end; i++) {
            uint32_t word = (uint32_t)buf[i] | (uint32_t)buf[i + 1] << 8 | (uint32_t)buf[i + 2] << 16 |
                            (uint32_t)buf[i + 3] << 24;
            uint32_t res;
            __builtin_cmpb4_rrr(res, word, key);
            if ((res ^ 0x01010101u) == 0)
                full++;
            uint32_t n = res + (res >> 16);
            n += n >> 8;
            bytes += n & 0xf;
        }
    }
    full_matches[me()] = full;
    matching_bytes[me()] = bytes;
    return 0;
}
