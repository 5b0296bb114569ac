/* Connected components by min-label propagation, one round per launch
 * (PID-Comm §VII-D: the labels are AllReduce'd (min) between rounds).  Every
 * PE holds all labels; it
 *   1. compares the AllReduce'd labels with the previous round's
 *      (cc_changed: the host stops when nothing changed) and keeps them;
 *   2. lowers each owned vertex's label to the smallest label of its
 *      neighbours (pull: a PE only writes its own vertices).  The tasklets
 *      split the PE's edges evenly (a hub's edges are shared out), each
 *      lowering a vertex's label under a lock on its 8-byte word;
 *   3. copies its own vertices' labels to `own` (the final Gather). */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <mutex_pool.h>
#include <stdint.h>

#include "../graph_args.h"

#define CL 256u /* labels per DMA chunk */

__host struct cc_args cc_args;
__host uint64_t cc_changed;

__dma_aligned uint32_t cur[NR_TASKLETS][CL];
__dma_aligned uint32_t prev[NR_TASKLETS][CL];
__dma_aligned uint32_t rpb[NR_TASKLETS][66];
__dma_aligned uint32_t colb[NR_TASKLETS][64];
__dma_aligned uint32_t nb[NR_TASKLETS][2];
uint32_t changed[NR_TASKLETS];

BARRIER_INIT(cc_barrier, NR_TASKLETS);
MUTEX_POOL_INIT(cc_locks, 16);

#define MRAM(off) ((__mram_ptr void *)(uintptr_t)(0x08000000u + (uint32_t)(off)))

static uint32_t label_of(const struct cc_args *a, uint32_t id, uint32_t v)
{
    mram_read(MRAM(a->lab + (v & ~1u) * 4), nb[id], 8);
    return nb[id][v & 1];
}

static uint32_t rp_at(const struct cc_args *a, uint32_t id, uint32_t u)
{
    mram_read(MRAM(a->rp + (u & ~1u) * 4), nb[id], 8);
    return nb[id][u & 1];
}

/* The owned vertex whose edges contain edge e: the last u with rp[u] <= e. */
static uint32_t vertex_of_edge(const struct cc_args *a, uint32_t id, uint32_t e)
{
    uint32_t lo = 0, hi = a->nr_owned; /* rp[lo] <= e < rp[hi] */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (rp_at(a, id, mid) <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void lower(const struct cc_args *a, uint32_t id, uint32_t u_local, uint32_t m)
{
    const uint32_t v = a->first + u_local;
    mutex_pool_lock(&cc_locks, (uint16_t)(v >> 1));
    mram_read(MRAM(a->lab + (v & ~1u) * 4), nb[id], 8);
    if (m < nb[id][v & 1]) {
        nb[id][v & 1] = m;
        mram_write(nb[id], MRAM(a->lab + (v & ~1u) * 4), 8);
    }
    mutex_pool_unlock(&cc_locks, (uint16_t)(v >> 1));
}

int main(void)
{
    const uint32_t id = me();
    const struct cc_args a = cc_args;
    uint32_t ch = 0;
    for (uint32_t c = id * CL; c < a.nr_vertices; c += NR_TASKLETS * CL) {
        uint32_t n = a.nr_vertices - c < CL ? a.nr_vertices - c : CL, diff = 0;
        mram_read(MRAM(a.lab + c * 4), cur[id], n * 4);
        mram_read(MRAM(a.old + c * 4), prev[id], n * 4);
        for (uint32_t i = 0; i < n; i++)
            diff |= cur[id][i] != prev[id][i];
        if (diff)
            mram_write(cur[id], MRAM(a.old + c * 4), n * 4);
        ch |= diff;
    }
    changed[id] = ch;
    barrier_wait(&cc_barrier);

    const uint32_t edges = a.nr_owned ? rp_at(&a, id, a.nr_owned) : 0;
    const uint32_t e0 = (uint32_t)((uint64_t)edges * id / NR_TASKLETS);
    const uint32_t e1 = (uint32_t)((uint64_t)edges * (id + 1) / NR_TASKLETS);
    if (e0 < e1) {
        uint32_t u = vertex_of_edge(&a, id, e0), e = e0;
        while (e < e1) {
            /* rp[u .. u + 64] in WRAM (from an even index) */
            const uint32_t rb = u & ~1u;
            mram_read(MRAM(a.rp + rb * 4), rpb[id], 66 * 4); /* rp has nr_owned + 4 entries, padded */
            for (; u < rb + 64 && e < e1; u++) {
                const uint32_t end = rpb[id][u - rb + 1] < e1 ? rpb[id][u - rb + 1] : e1;
                if (e >= end)
                    continue;
                uint32_t m = UINT32_MAX;
                while (e < end) {
                    uint32_t base = e & ~1u, n = end - base < 64 ? end - base : 64;
                    mram_read(MRAM(a.col + base * 4), colb[id], (n * 4 + 7) & ~7u);
                    for (uint32_t k = e - base; k < n; k++) {
                        uint32_t l = label_of(&a, id, colb[id][k]);
                        m = l < m ? l : m;
                    }
                    e = base + n;
                }
                lower(&a, id, u, m);
            }
        }
    }
    barrier_wait(&cc_barrier);

    for (uint32_t c = id * CL; c < a.nr_owned; c += NR_TASKLETS * CL) {
        uint32_t n = a.nr_owned - c < CL ? a.nr_owned - c : CL;
        mram_read(MRAM(a.lab + (a.first + c) * 4), cur[id], n * 4);
        mram_write(cur[id], MRAM(a.own + c * 4), n * 4);
    }
    if (id == 0) {
        uint32_t any = 0;
        for (uint32_t t = 0; t < NR_TASKLETS; t++)
            any |= changed[t];
        cc_changed = any;
    }
    return 0;
}
