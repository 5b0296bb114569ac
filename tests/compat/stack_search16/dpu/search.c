/* SPDX-License-Identifier: MIT */
/* Each tasklet looks up its share of the queries in a sorted MRAM table of
 * 64-bit keys: a binary search over 160-byte windows read by DMA into a
 * buffer on its stack, then a scan of the window. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define WINDOW 20 /* keys per DMA: 160 bytes */
#define MAX_QUERIES 512

__host uint32_t nr_keys, nr_queries;
__host uint64_t queries[MAX_QUERIES];
__host int32_t found[MAX_QUERIES];
__mram_noinit uint64_t table[(1 << 14) + WINDOW];
BARRIER_INIT(start, NR_TASKLETS);

/* The index of `key` in table[0, n), or -1. */
static __attribute__((noinline)) int32_t lookup(uint64_t key, uint32_t n)
{
    uint64_t window[WINDOW];
    uint32_t lo = 0, hi = (n + WINDOW - 1) / WINDOW; /* windows [lo, hi) */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        mram_read(&table[mid * WINDOW], window, sizeof(window));
        uint32_t last = n - mid * WINDOW < WINDOW ? n - mid * WINDOW : WINDOW;
        if (key < window[0]) {
            hi = mid;
        } else if (key > window[last - 1]) {
            lo = mid + 1;
        } else {
            for (uint32_t i = 0; i < last; i++)
                if (window[i] == key)
                    return (int32_t)(mid * WINDOW + i);
            return -1;
        }
    }
    return -1;
}

int main(void)
{
    barrier_wait(&start);
    for (uint32_t q = me(); q < nr_queries && q < MAX_QUERIES; q += NR_TASKLETS)
        found[q] = lookup(queries[q], nr_keys);
    return 0;
}
