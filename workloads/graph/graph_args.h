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

struct cc_args {
    uint32_t rp, col;      /* CSR of the owned vertices, both directions of every edge */
    uint32_t lab;          /* labels, V x uint32: in: the AllReduce'd (min) labels; out: this PE's */
    uint32_t old;          /* the labels of the previous iteration */
    uint32_t own;          /* out: the owned vertices' labels (for the final Gather) */
    uint32_t nr_vertices;  /* V (a multiple of 64) */
    uint32_t first;        /* first owned vertex (a multiple of 64) */
    uint32_t nr_owned;     /* owned vertices (a multiple of 64) */
};

#endif
