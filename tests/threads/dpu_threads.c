/* SPDX-License-Identifier: MIT */
/* DPU side of the threads test: each tasklet transforms its share of a WRAM
 * array and of an MRAM array with a host-given key, so that every host thread
 * can check that its own data, and only its own, came back. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define WORDS 16 /* per tasklet */
#define QWORDS 32

__host uint32_t key;
__host uint32_t launches;
__host uint32_t in_words[NR_TASKLETS * WORDS];
__host uint32_t out_words[NR_TASKLETS * WORDS];
__mram_noinit uint64_t m_in[NR_TASKLETS * QWORDS];
__mram_noinit uint64_t m_out[NR_TASKLETS * QWORDS];

int main(void)
{
    unsigned t = me();
    if (t == 0)
        launches++;
    for (unsigned i = t * WORDS; i < (t + 1) * WORDS; i++)
        out_words[i] = (in_words[i] * 2654435761u) ^ key;
    __dma_aligned uint64_t buf[QWORDS];
    mram_read(&m_in[t * QWORDS], buf, sizeof buf);
    for (unsigned k = 0; k < QWORDS; k++)
        buf[k] = buf[k] * 3 + key + t;
    mram_write(buf, &m_out[t * QWORDS], sizeof buf);
    return 0;
}
