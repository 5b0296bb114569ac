/* SPDX-License-Identifier: MIT */
/* BFS, one level per launch (PID-Comm §VII-C: the frontier is AllReduce'd
 * between levels).  Every PE holds the whole visited bitmap and the
 * AllReduce'd bitmap of vertices reached in the last level; it
 *   1. takes the new frontier (reached and not yet visited), marks it
 *      visited, counts it (bfs_count: the host stops at 0) and records the
 *      level of its own frontier vertices;
 *   2. marks the unvisited neighbours of its own frontier vertices in a fresh
 *      next bitmap, which the host OR-AllReduces before the next launch
 *      (the frontier vertices are dealt out to the tasklets in turn; the edges
 *      of a vertex with HUB_EDGES or more are split among all tasklets, each
 *      updating the bitmap words only its share reaches without a lock). */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <mutex_pool.h>
#include <stdint.h>

#include "../graph_args.h"

#define MAXW (BFS_MAX_VERTICES / 64)
#define CW 64u /* bitmap words per DMA chunk */

__host struct bfs_args bfs_args;
__host uint64_t bfs_count;
__host uint32_t bfs_level; /* the frontier's level: 0 at dpu_load, one more after each launch */

uint64_t vis_w[MAXW];   /* visited, whole graph */
uint64_t next_w[MAXW];  /* next frontier being built, whole graph */
uint64_t front_w[MAXW]; /* this level's frontier, owned words */
__dma_aligned uint64_t chunk[NR_TASKLETS][CW];
__dma_aligned uint32_t lv[NR_TASKLETS][64];
__dma_aligned uint32_t rpb[NR_TASKLETS][4];
__dma_aligned uint32_t colb[NR_TASKLETS][64];
uint64_t counts[NR_TASKLETS];
/* Frontier vertices with many edges (hubs of the power-law graph): their
 * edges are shared by all tasklets after the others are done. */
#define HUB_EDGES 256u
#define MAX_HUBS 128u
uint32_t hubs[MAX_HUBS];
uint32_t nr_hubs;

BARRIER_INIT(bfs_barrier, NR_TASKLETS);
MUTEX_POOL_INIT(bfs_locks, 16);

#define MRAM(off) ((__mram_ptr void *)(uintptr_t)(0x08000000u + (uint32_t)(off)))

/* Edges [*e, *end) of owned vertex u_local. */
static void edges_of(const struct bfs_args *a, uint32_t id, uint32_t u_local, uint32_t *e, uint32_t *end)
{
    uint32_t first = u_local & ~1u;
    mram_read(MRAM(a->rp + first * 4), rpb[id], 16);
    *e = rpb[id][u_local - first];
    *end = rpb[id][u_local - first + 1];
}

/* Marks the unvisited neighbours col[e .. end) in next_w.  32-bit words
 * xlo < w < xlo + 1 + span are this tasklet's alone (a hub's share: rows are
 * sorted, so the other shares' targets lie at or outside them) and need no
 * lock; span 0 (inlined as a constant) locks every update. */
static inline __attribute__((always_inline)) void expand(const struct bfs_args *a, uint32_t id, uint32_t e,
                                                         uint32_t end, uint32_t xlo, uint32_t span)
{
    while (e < end) {
        uint32_t base = e & ~1u, n = end - base < 64 ? end - base : 64;
        mram_read(MRAM(a->col + base * 4), colb[id], (n * 4 + 7) & ~7u);
        for (uint32_t k = e - base; k < n; k++) {
            /* 32-bit halves of the little-endian 64-bit bitmap words: the DPU's native width */
            uint32_t v = colb[id][k], w = v >> 5, bit = 1u << (v & 31);
            if (((const uint32_t *)vis_w)[w] & bit)
                continue;
            if (w - xlo - 1 < span) {
                ((uint32_t *)next_w)[w] |= bit;
                continue;
            }
            mutex_pool_lock(&bfs_locks, (uint16_t)w);
            ((uint32_t *)next_w)[w] |= bit;
            mutex_pool_unlock(&bfs_locks, (uint16_t)w);
        }
        e = base + n;
    }
}

int main(void)
{
    const uint32_t id = me();
    const struct bfs_args a = bfs_args;
    uint64_t count = 0;
    /* 1: frontier = next & ~visited over the whole graph */
    for (uint32_t c = id * CW; c < a.nr_words; c += NR_TASKLETS * CW) {
        uint32_t n = a.nr_words - c < CW ? a.nr_words - c : CW;
        mram_read(MRAM(a.next + c * 8), chunk[id], n * 8);
        mram_read(MRAM(a.vis + c * 8), &vis_w[c], n * 8);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t w = c + i;
            uint64_t f = chunk[id][i] & ~vis_w[w];
            count += (uint64_t)__builtin_popcountll(f);
            vis_w[w] |= f;
            next_w[w] = 0;
            if (w >= a.first_word && w < a.first_word + a.nr_owned_words)
                front_w[w - a.first_word] = f;
        }
        mram_write(&vis_w[c], MRAM(a.vis + c * 8), n * 8);
    }
    counts[id] = count;
    if (id == 0)
        nr_hubs = 0;
    barrier_wait(&bfs_barrier);
    /* 2: levels of the owned frontier, one word per tasklet at a time */
    for (uint32_t w = id; w < a.nr_owned_words; w += NR_TASKLETS) {
        uint64_t f = front_w[w];
        if (!f)
            continue;
        mram_read(MRAM(a.level + w * 256), lv[id], 256);
        /* the set bits only, 32 at a time (the DPU's width) */
        for (uint32_t h = 0; h < 2; h++)
            for (uint32_t m = (uint32_t)(f >> (32 * h)); m; m &= m - 1)
                lv[id][32 * h + __builtin_ctz(m)] = bfs_level;
        mram_write(lv[id], MRAM(a.level + w * 256), 256);
    }
    /* ... and their neighbours: the frontier vertices are dealt out in turn
     * (by word, one tasklet could get a word of 64 busy vertices) */
    for (uint32_t w = 0, j = 0; w < a.nr_owned_words; w++) {
        uint64_t f = front_w[w];
        for (uint32_t h = 0; h < 2; h++)
            for (uint32_t m = (uint32_t)(f >> (32 * h)); m; m &= m - 1) {
                if (j++ % NR_TASKLETS != id)
                    continue;
                const uint32_t u = w * 64 + 32 * h + __builtin_ctz(m);
                uint32_t e, end;
                edges_of(&a, id, u, &e, &end);
                int shared = 0;
                if (end - e >= HUB_EDGES) {
                    mutex_pool_lock(&bfs_locks, 0);
                    if (nr_hubs < MAX_HUBS) {
                        hubs[nr_hubs++] = u;
                        shared = 1;
                    }
                    mutex_pool_unlock(&bfs_locks, 0);
                }
                if (!shared)
                    expand(&a, id, e, end, 0, 0);
            }
    }
    barrier_wait(&bfs_barrier);
    for (uint32_t h = 0; h < nr_hubs; h++) {
        uint32_t e, end;
        edges_of(&a, id, hubs[h], &e, &end);
        const uint32_t d = end - e, lo = e + (uint32_t)((uint64_t)d * id / NR_TASKLETS),
                       hi = e + (uint32_t)((uint64_t)d * (id + 1) / NR_TASKLETS);
        uint32_t xlo = 0, span = 0;
        if (hi - lo >= 2) { /* the words strictly between the share's first and last target */
            mram_read(MRAM(a.col + (lo & ~1u) * 4), colb[id], 8);
            xlo = colb[id][lo & 1] >> 5;
            mram_read(MRAM(a.col + ((hi - 1) & ~1u) * 4), colb[id], 8);
            uint32_t xhi = colb[id][(hi - 1) & 1] >> 5;
            span = xhi > xlo ? xhi - xlo - 1 : 0;
        }
        expand(&a, id, lo, hi, xlo, span);
        barrier_wait(&bfs_barrier); /* the next hub's shares overlap this one's */
    }
    for (uint32_t c = id * CW; c < a.nr_words; c += NR_TASKLETS * CW) {
        uint32_t n = a.nr_words - c < CW ? a.nr_words - c : CW;
        mram_write(&next_w[c], MRAM(a.next + c * 8), n * 8);
    }
    if (id == 0) {
        uint64_t total = 0;
        for (uint32_t t = 0; t < NR_TASKLETS; t++)
            total += counts[t];
        bfs_count = total;
        bfs_level++;
    }
    return 0;
}
