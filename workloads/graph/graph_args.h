/* SPDX-License-Identifier: MIT */
/* Arguments of the BFS and CC DPU kernels (dpu/bfs.c, dpu/cc.c), shared by
 * the host program.  Offsets are MRAM byte offsets from the start of MRAM,
 * as comm/ takes them; all are multiples of 8. */
#ifndef OPENPIM_GRAPH_ARGS_H
#define OPENPIM_GRAPH_ARGS_H

#include <stdint.h>

/* Vertices a PE owns come in whole 64-vertex words (bitmap words, label
 * chunks), so no two tasklets or PEs write the same 8-byte MRAM word. */
#define GRAPH_CHUNK 64u
/* BFS keeps the visited and next bitmaps of the whole graph in WRAM. */
#define BFS_MAX_VERTICES 65536u

struct bfs_args {
    uint32_t rp, col;          /* CSR of the owned vertices (local rows, global columns) */
    uint32_t next;             /* bitmap, V bits: in: the AllReduce'd next frontier; out: this PE's next */
    uint32_t vis;              /* bitmap, V bits: visited (identical on every PE) */
    uint32_t level;            /* owned vertices' BFS levels (uint32, ~0 = not reached) */
    uint32_t nr_words;         /* V / 64 */
    uint32_t first_word;       /* first owned vertex / 64 */
    uint32_t nr_owned_words;   /* owned vertices / 64 */
};

/* CC: labels are pulled per item = (owned segment of <= CC_SEG vertices, held
 * in WRAM) x (label window of CC_WIN labels, one dirty word each), at most
 * CC_ITEM_EDGES edges; an edge is stored as the WRAM byte offsets
 * (segment-local vertex * 4) << 10 | (neighbour - item's lo) * 4, so CC_WIN
 * must stay <= 256. */
#define CC_MAX_VERTICES (1u << 20)
#define CC_SEG 4096u
#define CC_WIN 256u
#define CC_ITEM_EDGES 256u
_Static_assert(CC_WIN <= 256 && CC_SEG <= (1u << 20), "an edge packs (vertex * 4) << 10 | (neighbour - lo) * 4");
/* The host splits each segment's items among the tasklets statically (the
 * split the timing model sees is the one the functional run makes; a shared
 * work counter would be fair on hardware but not under the emulator's
 * coroutine order): equal shares of edges + CC_ITEM_COST per item (its item
 * and label DMAs, in edge-equivalents). */
#define CC_TASKLETS 16u
#define CC_ITEM_COST 16u
#define CC_SEG_WORDS 18u /* CC_TASKLETS + 1 item indices, padded to even */

struct cc_args {
    uint32_t items;        /* nr items x {first edge, end edge, lo (even), labels to read (even, <= CC_WIN)} */
    uint32_t segs;         /* nr_segs x CC_SEG_WORDS: tasklet t's items are [segs[t], segs[t + 1]) */
    uint32_t edges;        /* the items' edges, both directions of every graph edge */
    uint32_t lab;          /* V labels then nr_wins dirty words (uint32): in: AllReduce'd (min); out: this PE's */
    uint32_t own;          /* out: the owned vertices' labels (for the final Gather) */
    uint32_t nr_vertices;  /* V (a multiple of 64) */
    uint32_t nr_wins;      /* dirty words: V / CC_WIN rounded up to even */
    uint32_t first;        /* first owned vertex (a multiple of 64) */
    uint32_t nr_owned;     /* owned vertices (a multiple of 64) */
    uint32_t nr_segs;      /* ceil(nr_owned / CC_SEG) */
};

#endif
