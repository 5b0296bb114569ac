/* SPDX-License-Identifier: MIT */
/* Connected components by min-label propagation, one round per launch
 * (PID-Comm §VII-D: the labels are MIN-AllReduce'd between rounds).  Every
 * PE holds all labels plus one dirty word per CC_WIN-label window (0: some PE
 * lowered a label in it last round, 1: none did; MIN-AllReduce'd with the
 * labels, so MIN acts as AND on the "unchanged" flags).  Each launch
 *   1. reads the dirty words (cc_changed = any window changed: the host stops
 *      at 0; that last launch copies the owned labels to `own` for Gather);
 *   2. lowers each owned vertex's label to the smallest label of its
 *      neighbours (pull: a PE only writes its own vertices), touching only
 *      the edges whose neighbour lies in a changed window: a vertex none of
 *      whose neighbours changed cannot change.  The host cut the PE's edges
 *      into items (one owned segment of <= CC_SEG vertices x one label
 *      window, <= CC_ITEM_EDGES edges); the owned segment's labels sit in
 *      WRAM, each tasklet takes its share of the items (split by the host),
 *      reads an item's span of the label window with one DMA and its edges
 *      in blocks;
 *   3. writes the segment's labels back and its dirty words out. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <mutex_pool.h>
#include <stdint.h>

#include "../graph_args.h"

#define CE 128u                              /* edges per DMA block */
#define MAX_WINS (CC_MAX_VERTICES / CC_WIN) /* dirty windows of the largest graph */
#define CL 256u                              /* labels per DMA chunk when copying */
#define DW 16u                               /* dirty words per tasklet chunk: spread over all tasklets */
#if NR_TASKLETS != CC_TASKLETS
#error "the host splits the items for CC_TASKLETS tasklets"
#endif

__host struct cc_args cc_args;
__host uint64_t cc_changed;

__dma_aligned uint32_t seg_lab[CC_SEG];   /* the owned segment's labels */
__dma_aligned uint32_t wlab[NR_TASKLETS][CC_WIN];
__dma_aligned uint32_t ebuf[NR_TASKLETS][CE];
__dma_aligned uint32_t item[NR_TASKLETS][4];
__dma_aligned uint32_t seg_items[NR_TASKLETS][4];
uint8_t dirty[MAX_WINS];   /* input: window changed last round */
uint8_t lowered[MAX_WINS]; /* output: this PE lowered a label in the window */
uint32_t changed[NR_TASKLETS];
BARRIER_INIT(cc_barrier, NR_TASKLETS);
MUTEX_POOL_INIT(cc_locks, 16);

#define MRAM(off) ((__mram_ptr void *)(uintptr_t)(0x08000000u + (uint32_t)(off)))

/* Copies n labels (n even) MRAM -> MRAM through the tasklet's window buffer. */
static void copy_labels(uint32_t id, uint32_t from, uint32_t to, uint32_t n)
{
    for (uint32_t c = id * CC_WIN; c < n; c += NR_TASKLETS * CC_WIN) {
        uint32_t k = n - c < CC_WIN ? n - c : CC_WIN;
        mram_read(MRAM(from + c * 4), wlab[id], k * 4);
        mram_write(wlab[id], MRAM(to + c * 4), k * 4);
    }
}

/* Lowers the label at byte offset uo of seg_lab to l. */
static inline __attribute__((always_inline)) void lower(uint32_t uo, uint32_t l, uint32_t seg_first)
{
    volatile uint32_t *m = (volatile uint32_t *)((uint8_t *)seg_lab + uo); /* reread under the lock */
    if (l >= *m) /* a 32-bit WRAM load is atomic; recheck under the lock */
        return;
    mutex_pool_lock(&cc_locks, (uint16_t)(uo >> 2));
    if (l < *m) {
        *m = l;
        lowered[(seg_first + (uo >> 2)) / CC_WIN] = 1;
    }
    mutex_pool_unlock(&cc_locks, (uint16_t)(uo >> 2));
}

/* One item: the labels of its window span, then its edges. */
static void run_item(const struct cc_args *a, uint32_t id, uint32_t seg_first)
{
    const uint32_t e0 = item[id][0], e1 = item[id][1], lo = item[id][2], n = item[id][3];
    if (!dirty[lo / CC_WIN])
        return;
    mram_read(MRAM(a->lab + lo * 4), wlab[id], n * 4);
    for (uint32_t e = e0; e < e1;) {
        uint32_t base = e & ~1u, k = e1 - base < CE ? e1 - base : CE;
        mram_read(MRAM(a->edges + base * 4), ebuf[id], (k * 4 + 7) & ~7u);
#pragma clang loop unroll_count(4)
        for (uint32_t j = e - base; j < k; j++) {
            /* byte offsets: (u * 4) << 10 | (dst - lo) * 4, no shifts to index with */
            uint32_t x = ebuf[id][j];
            lower(x >> 10, *(const uint32_t *)((const uint8_t *)wlab[id] + (x & 0x3FCu)), seg_first);
        }
        e = base + k;
    }
}

int main(void)
{
    const uint32_t id = me();
    const struct cc_args a = cc_args;
    /* 1: which windows changed in the last AllReduce */
    uint32_t ch = 0;
    for (uint32_t c = id * DW; c < a.nr_wins; c += NR_TASKLETS * DW) {
        uint32_t k = a.nr_wins - c < DW ? a.nr_wins - c : DW;
        mram_read(MRAM(a.lab + (a.nr_vertices + c) * 4), wlab[id], (k * 4 + 7) & ~7u);
        for (uint32_t i = 0; i < k; i++) {
            dirty[c + i] = wlab[id][i] == 0;
            lowered[c + i] = 0;
            ch |= wlab[id][i] == 0;
        }
    }
    changed[id] = ch;
    barrier_wait(&cc_barrier);
    uint32_t any = 0;
    for (uint32_t t = 0; t < NR_TASKLETS; t++)
        any |= changed[t];
    if (!any) { /* the fixpoint: the owned labels are final */
        copy_labels(id, a.lab + a.first * 4, a.own, a.nr_owned);
        if (id == 0)
            cc_changed = 0;
        return 0;
    }

    /* 2: segment by segment */
    for (uint32_t s = 0; s < a.nr_segs; s++) {
        const uint32_t sf = s * CC_SEG, sn = a.nr_owned - sf < CC_SEG ? a.nr_owned - sf : CC_SEG;
        for (uint32_t c = id * CL; c < sn; c += NR_TASKLETS * CL) {
            uint32_t k = sn - c < CL ? sn - c : CL;
            mram_read(MRAM(a.lab + (a.first + sf + c) * 4), &seg_lab[c], k * 4);
        }
        /* this tasklet's items (the host's static split), from an even index */
        mram_read(MRAM(a.segs + (s * CC_SEG_WORDS + (id & ~1u)) * 4), seg_items[id], 16);
        const uint32_t k0 = seg_items[id][id & 1], k1 = seg_items[id][(id & 1) + 1];
        barrier_wait(&cc_barrier); /* seg_lab loaded */
        for (uint32_t k = k0; k < k1; k++) {
            mram_read(MRAM(a.items + k * 16), item[id], 16);
            run_item(&a, id, a.first + sf);
        }
        barrier_wait(&cc_barrier);
        for (uint32_t c = id * CL; c < sn; c += NR_TASKLETS * CL) {
            uint32_t k = sn - c < CL ? sn - c : CL;
            mram_write(&seg_lab[c], MRAM(a.lab + (a.first + sf + c) * 4), k * 4);
        }
        barrier_wait(&cc_barrier); /* seg_lab is reused */
    }

    /* 3: this PE's dirty words (1 where it lowered nothing: MIN keeps others' 0s) */
    for (uint32_t c = id * DW; c < a.nr_wins; c += NR_TASKLETS * DW) {
        uint32_t k = a.nr_wins - c < DW ? a.nr_wins - c : DW;
        for (uint32_t i = 0; i < k; i++)
            wlab[id][i] = lowered[c + i] ? 0 : 1;
        mram_write(wlab[id], MRAM(a.lab + (a.nr_vertices + c) * 4), (k * 4 + 7) & ~7u);
    }
    if (id == 0)
        cc_changed = 1;
    return 0;
}
