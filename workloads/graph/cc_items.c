/* SPDX-License-Identifier: MIT */
/* CC's per-PE work items (see cc_items.h and dpu/cc.c).  Per owned segment,
 * the edges are bucketed by the label window of their neighbour (counting
 * sort), and each bucket is cut into items of at most CC_ITEM_EDGES edges, so
 * the kernel reads one span of labels per item instead of one label per edge. */
#include "cc_items.h"

#include <stdlib.h>
#include <string.h>

#include "graph_args.h"

struct sizes {
    uint32_t segs, items, edges;
};

/* A run of edges and items in edge-equivalents (the tasklets' shares). */
static uint64_t work(uint32_t edges, uint32_t items)
{
    return (uint64_t)edges + (uint64_t)items * CC_ITEM_COST;
}

/* Fills PE p's block when blk != NULL; returns its sizes either way. */
static struct sizes build_pe(const struct csr *g, uint32_t lo, uint32_t hi, uint32_t nr_owned, uint32_t nr_wins,
                             uint32_t *cnt, uint32_t *su, uint32_t *sd, uint32_t *blk, const struct cc_blocks *b)
{
    struct sizes z = {(nr_owned + CC_SEG - 1) / CC_SEG, 0, 0};
    uint32_t *segs = blk, *items = blk ? blk + b->items_off / 4 : NULL, *edges = blk ? blk + b->edges_off / 4 : NULL;
    for (uint32_t s = 0; s < z.segs; s++) {
        uint32_t slo = lo + s * CC_SEG < hi ? lo + s * CC_SEG : hi, shi = slo + CC_SEG < hi ? slo + CC_SEG : hi;
        const uint32_t seg_first_item = z.items, seg_first_edge = z.edges;
        memset(cnt, 0, (size_t)(nr_wins + 1) * 4);
        for (uint32_t e = g->rp[slo]; e < g->rp[shi]; e++)
            cnt[g->col[e] / CC_WIN + 1]++;
        for (uint32_t w = 0; w < nr_wins; w++)
            cnt[w + 1] += cnt[w];
        for (uint32_t u = slo; u < shi; u++) /* stable: by window, then by vertex */
            for (uint32_t e = g->rp[u]; e < g->rp[u + 1]; e++) {
                uint32_t i = cnt[g->col[e] / CC_WIN]++;
                su[i] = u - slo;
                sd[i] = g->col[e];
            }
        /* cnt[w] is now the end of window w's bucket */
        for (uint32_t w = 0, i = 0; w < nr_wins; w++)
            for (; i < cnt[w]; z.items++) {
                uint32_t k = cnt[w] - i < CC_ITEM_EDGES ? cnt[w] - i : CC_ITEM_EDGES, mn = sd[i], mx = sd[i];
                for (uint32_t j = i; j < i + k; j++) {
                    mn = sd[j] < mn ? sd[j] : mn;
                    mx = sd[j] > mx ? sd[j] : mx;
                }
                mn &= ~1u; /* 8-byte aligned DMA of an even number of labels, inside the window */
                if (items) {
                    uint32_t *it = items + 4 * z.items;
                    it[0] = z.edges;
                    it[1] = z.edges + k;
                    it[2] = mn;
                    it[3] = (mx - mn + 2) & ~1u;
                    for (uint32_t j = 0; j < k; j++)
                        edges[z.edges + j] = su[i + j] << 12 | (sd[i + j] - mn) << 2; /* byte offsets (dpu/cc.c) */
                }
                z.edges += k;
                i += k;
            }
        if (items) /* tasklet t takes items [segs[t], segs[t + 1]): equal shares of edges + per-item work */
            for (uint32_t t = 0, it = seg_first_item; t <= CC_TASKLETS; t++) {
                const uint64_t goal = work(z.edges - seg_first_edge, z.items - seg_first_item) * t / CC_TASKLETS;
                while (it < z.items && t > 0 && work(items[4 * it] - seg_first_edge, it - seg_first_item) < goal)
                    it++;
                segs[CC_SEG_WORDS * s + t] = t == CC_TASKLETS ? z.items : it;
            }
    }
    return z;
}

int cc_blocks_build(const struct csr *g, uint32_t P, const uint32_t *first, const uint32_t *count, uint32_t nr_wins,
                    struct cc_blocks *b)
{
    uint32_t *cnt = malloc((size_t)(nr_wins + 1) * 4), *su = malloc((size_t)g->nr_edges * 4 + 4),
             *sd = malloc((size_t)g->nr_edges * 4 + 4);
    memset(b, 0, sizeof *b);
    b->nr_segs = malloc((size_t)P * 4);
    if (!cnt || !su || !sd || !b->nr_segs)
        goto fail;
    struct sizes max = {0, 0, 0};
    for (int fill = 0; fill < 2; fill++) {
        if (fill) { /* equal blocks: the largest segment table, item table and edge list */
            b->items_off = (uint64_t)max.segs * CC_SEG_WORDS * 4;
            b->edges_off = b->items_off + (uint64_t)max.items * 16;
            b->blk = b->edges_off + ((((uint64_t)max.edges + 2) * 4 + 7) & ~7ull); /* + 1 edge: even-sized DMA */
            b->host = calloc((size_t)P, b->blk);
            if (!b->host)
                goto fail;
        }
        for (uint32_t p = 0; p < P; p++) {
            uint32_t lo, hi;
            csr_rows(g, first[p], count[p], &lo, &hi);
            struct sizes z = build_pe(g, lo, hi, count[p], nr_wins, cnt, su, sd,
                                      fill ? b->host + (size_t)p * (b->blk / 4) : NULL, b);
            b->nr_segs[p] = z.segs;
            max.segs = z.segs > max.segs ? z.segs : max.segs;
            max.items = z.items > max.items ? z.items : max.items;
            max.edges = z.edges > max.edges ? z.edges : max.edges;
        }
    }
    free(cnt);
    free(su);
    free(sd);
    return 0;
fail:
    free(cnt);
    free(su);
    free(sd);
    cc_blocks_free(b);
    return -1;
}

void cc_blocks_free(struct cc_blocks *b)
{
    free(b->nr_segs);
    free(b->host);
    b->nr_segs = NULL;
    b->host = NULL;
}
