/* SPDX-License-Identifier: MIT */
#include "graph_ref.h"

#include <stdlib.h>

int ref_bfs(const struct csr *g, uint32_t source, uint32_t *level)
{
    uint32_t n = g->nr_vertices, *queue = malloc((size_t)(n ? n : 1) * sizeof *queue), head = 0, tail = 0;
    if (!queue)
        return -1;
    for (uint32_t v = 0; v < n; v++)
        level[v] = GRAPH_UNREACHED;
    level[source] = 0;
    queue[tail++] = source;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t e = g->rp[u]; e < g->rp[u + 1]; e++)
            if (level[g->col[e]] == GRAPH_UNREACHED) {
                level[g->col[e]] = level[u] + 1;
                queue[tail++] = g->col[e];
            }
    }
    free(queue);
    return 0;
}

static uint32_t find(uint32_t *parent, uint32_t v)
{
    while (parent[v] != v) {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    return v;
}

long ref_cc(const struct csr *g, uint32_t *label)
{
    uint32_t n = g->nr_vertices;
    for (uint32_t v = 0; v < n; v++)
        label[v] = v; /* union-find parents; the smaller root wins, so roots are the minima */
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t e = g->rp[u]; e < g->rp[u + 1]; e++) {
            uint32_t a = find(label, u), b = find(label, g->col[e]);
            if (a < b)
                label[b] = a;
            else if (b < a)
                label[a] = b;
        }
    long comps = 0;
    for (uint32_t v = 0; v < n; v++) {
        label[v] = find(label, v);
        comps += label[v] == v;
    }
    return comps;
}
