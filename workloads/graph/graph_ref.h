/* SPDX-License-Identifier: MIT */
/* CPU references of the graph workloads, written independently of the PIM
 * versions (no partitioning, no bitmaps): a queue BFS and union-find. */
#ifndef OPENPIM_GRAPH_REF_H
#define OPENPIM_GRAPH_REF_H

#include "powerlaw.h"

#define GRAPH_UNREACHED 0xFFFFFFFFu

/* level[v] = hops from `source` along edges u -> col, GRAPH_UNREACHED if none.
 * Returns 0, -1 when out of memory. */
int ref_bfs(const struct csr *g, uint32_t source, uint32_t *level);
/* label[v] = the smallest vertex of v's connected component (g undirected).
 * Returns the number of components, -1 when out of memory. */
long ref_cc(const struct csr *g, uint32_t *label);

#endif
