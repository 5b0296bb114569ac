/* SPDX-License-Identifier: MIT */
/* Deterministic power-law graphs for the graph workloads (BFS, CC, GNN) and
 * the CSR form they are stored in.  Everything depends only on the seed, so a
 * test, a benchmark and the CPU reference see the same graph. */
#ifndef OPENPIM_POWERLAW_H
#define OPENPIM_POWERLAW_H

#include <stdint.h>

/* Compressed sparse rows: the neighbours of vertex u are col[rp[u] .. rp[u+1]). */
struct csr {
    uint32_t nr_vertices;
    uint32_t nr_edges; /* stored (directed) entries */
    uint32_t *rp;      /* nr_vertices + 1 */
    uint32_t *col;     /* nr_edges, sorted within each row */
};

void csr_free(struct csr *g);

/* The rows [*lo, *hi) of g that a PE owning [first, first + count) holds: a
 * partition pads the vertex count, so the range is clamped to g's vertices. */
static inline void csr_rows(const struct csr *g, uint32_t first, uint32_t count, uint32_t *lo, uint32_t *hi)
{
    const uint32_t V = g->nr_vertices;
    *lo = first < V ? first : V;
    *hi = first + count < V ? first + count : V;
}

/* splitmix64: the workloads' random numbers. */
uint64_t pl_rand(uint64_t *state);

/* R-MAT graph (Graph500 parameters a = 0.57, b = c = 0.19), the usual model of
 * social graphs such as LiveJournal: 2^scale vertices, edge_factor * 2^scale
 * sampled edges, vertices relabelled by a random permutation (so that
 * contiguous vertex ranges carry similar numbers of edges), self-loops and
 * duplicates removed.  undirected != 0 stores every edge in both directions.
 * Returns 0, or -1 (with errno) when out of memory or scale is not 1..24. */
int pl_rmat(uint32_t scale, uint32_t edge_factor, int undirected, uint64_t seed, struct csr *g);

/* Undirected Chung-Lu graph with exactly nr_edges distinct edges (no
 * self-loops) on nr_vertices vertices, expected degrees following a power
 * law of exponent 2.5 (vertex i has weight (i+1)^(-1/1.5)), vertices shuffled;
 * with_self_loops adds (u, u) for every u (the A + I of graph convolution).
 * Returns 0, or -1 when out of memory or nr_edges is more than a quarter of
 * all possible edges. */
int pl_chung_lu(uint32_t nr_vertices, uint32_t nr_edges, int with_self_loops, uint64_t seed, struct csr *g);

#endif
