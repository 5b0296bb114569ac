/* SPDX-License-Identifier: MIT */
/* CC's per-PE work items (dpu/cc.c): each PE's edges cut into (owned segment
 * x label window) items, laid out in equal-sized blocks for one Scatter. */
#ifndef OPENPIM_GRAPH_CC_ITEMS_H
#define OPENPIM_GRAPH_CC_ITEMS_H

#include <stdint.h>

#include "powerlaw.h"

struct cc_blocks {
    uint64_t blk;                 /* bytes per PE block (a multiple of 8) */
    uint64_t items_off, edges_off; /* offsets in a block; the segment table is at 0 */
    uint32_t *nr_segs;            /* per PE */
    uint32_t *host;               /* P blocks */
};

/* PE p owns [first[p], first[p] + count[p]) (multiples of 64) with their rows
 * of g; nr_wins dirty windows of CC_WIN labels.  Returns 0, -1 when out of
 * memory. */
int cc_blocks_build(const struct csr *g, uint32_t P, const uint32_t *first, const uint32_t *count, uint32_t nr_wins,
                    struct cc_blocks *b);
void cc_blocks_free(struct cc_blocks *b);

#endif
