/* SPDX-License-Identifier: MIT */
/* Calibration kernels: mutex-heavy and streaming DPU kernels,
 * written for OpenPIM after the shapes of PrIM's HST-L, TRNS (step 3), VA
 * and RED (CMU-SAFARI/prim-benchmarks; read, not copied):
 *   mode 0  histogram, a mutex around every update, values generated in WRAM
 *           (xorshift): the critical section alone is the bottleneck
 *   mode 1  histogram as HST-L: n 32-bit values per tasklet read from MRAM in
 *           256-B blocks, bin = (v * bins) >> 12, a mutex around every update
 *   mode 2  TRNS step 3's synchronisation: a shared work counter under one
 *           mutex; per item an 8-B flag read (and one in two a write back)
 *           under a second mutex, as get_done / get_and_set_done do
 *   mode 3  vector add: C = A + B, 1024-B blocks per tasklet (VA)
 *   mode 4  reduction: sum of A, 1024-B blocks per tasklet (RED)
 * n: values per tasklet (modes 0, 1), items in all (mode 2, <= 4096), 32-bit elements
 * in all (modes 3, 4; a multiple of 256 * NR_TASKLETS). */
#include <defs.h>
#include <mram.h>
#include <mutex.h>
#include <stdint.h>

#define BINS 256
#define BLOCK 1024 /* bytes per VA/RED block */

__host uint32_t mode, n, seed;
__host uint32_t hist[BINS];
__host uint32_t done_count;          /* mode 2: flags found clear */
__host uint64_t partial[NR_TASKLETS]; /* mode 4 */
uint32_t next_item;                  /* mode 2 work counter */
MUTEX_INIT(hist_mtx);
MUTEX_INIT(item_mtx);
MUTEX_INIT(flag_mtx);

__dma_aligned uint32_t bufa[NR_TASKLETS][BLOCK / 4];
__dma_aligned uint32_t bufb[NR_TASKLETS][BLOCK / 4];
__dma_aligned uint64_t flag[NR_TASKLETS];
__mram_noinit uint32_t in_a[NR_TASKLETS * 16384];
__mram_noinit uint32_t in_b[NR_TASKLETS * 16384];
__mram_noinit uint32_t out_c[NR_TASKLETS * 16384];
__mram_noinit uint64_t flags[4096];

static void hist_wram(uint32_t t)
{
    uint32_t s = (seed ^ (t * 0x9E3779B9u)) | 1u;
    for (uint32_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        mutex_lock(hist_mtx);
        hist[s & (BINS - 1)]++;
        mutex_unlock(hist_mtx);
    }
}

static void hist_mram(uint32_t t)
{
    uint32_t *blk = bufa[t];
    for (uint32_t i = 0; i < n; i += 64) {
        mram_read(&in_a[t * 16384 + i], blk, 256);
        for (uint32_t j = 0; j < 64 && i + j < n; j++) {
            uint32_t bin = (blk[j] * BINS) >> 12;
            mutex_lock(hist_mtx);
            hist[bin]++;
            mutex_unlock(hist_mtx);
        }
    }
}

static void trns_sync(uint32_t t)
{
    for (;;) {
        mutex_lock(item_mtx);
        uint32_t item = next_item++;
        mutex_unlock(item_mtx);
        if (item >= n)
            break;
        mutex_lock(flag_mtx);
        mram_read(&flags[item], &flag[t], 8);
        if (flag[t] == 0)
            done_count++;
        if (item & 1) { /* get_and_set_done: write the flag back */
            flag[t] = item + 1;
            mram_write(&flag[t], &flags[item], 8);
        }
        mutex_unlock(flag_mtx);
    }
}

/* VA and RED index their blocks through opaque per-tasklet pointers, as
 * PrIM's kernels do (caches from mem_alloc): the compiler folds bufa[t][i]
 * back into one two-index address, and the counting pass charges the
 * loop-invariant t in every access (VA: 10 instructions per element instead
 * of 8).  The empty asm emits nothing and costs nothing. */
static inline uint32_t *opaque(uint32_t *p)
{
    __asm__("" : "+r"(p));
    return p;
}

static void vector_add(uint32_t t)
{
    uint32_t *a = opaque(bufa[t]), *b = opaque(bufb[t]);
    for (uint32_t e = t * (BLOCK / 4); e < n; e += NR_TASKLETS * (BLOCK / 4)) {
        mram_read(&in_a[e], a, BLOCK);
        mram_read(&in_b[e], b, BLOCK);
        for (uint32_t i = 0; i < BLOCK / 4; i++)
            b[i] += a[i];
        mram_write(b, &out_c[e], BLOCK);
    }
}

static void reduction(uint32_t t)
{
    uint32_t *a = opaque(bufa[t]);
    uint64_t sum = 0;
    for (uint32_t e = t * (BLOCK / 4); e < n; e += NR_TASKLETS * (BLOCK / 4)) {
        mram_read(&in_a[e], a, BLOCK);
        for (uint32_t i = 0; i < BLOCK / 4; i++)
            sum += a[i];
    }
    partial[t] = sum;
}

int main(void)
{
    uint32_t t = me();
    switch (mode) {
    case 0:
        hist_wram(t);
        break;
    case 1:
        hist_mram(t);
        break;
    case 2:
        trns_sync(t);
        break;
    case 3:
        vector_add(t);
        break;
    case 4:
        reduction(t);
        break;
    default:
        break;
    }
    return 0;
}
