/* SPDX-License-Identifier: MIT */
/* A graph builder's first step: vertex degrees from an edge list in MRAM.
 * 24 tasklets with 256-byte stacks; the degree table fills the WRAM they
 * leave.  Tasklet t counts the endpoints of the vertices v with
 * v % NR_TASKLETS == t, reading 28 edges per DMA into its stack. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#ifndef VERTICES
#define VERTICES 14575
#endif
#define EDGES_PER_DMA 28
#define MAX_EDGES 8400 /* a multiple of EDGES_PER_DMA */

__host uint32_t nr_vertices, nr_edges;
__host uint32_t degrees[VERTICES];
__mram_noinit uint32_t edges[2 * MAX_EDGES];
BARRIER_INIT(start, NR_TASKLETS);

static __attribute__((noinline)) void count_edges(uint32_t first, uint32_t n)
{
    uint32_t pairs[2 * EDGES_PER_DMA];
    for (uint32_t e = first; e < first + n; e += EDGES_PER_DMA) {
        mram_read(&edges[2 * e], pairs, sizeof(pairs));
        uint32_t k = first + n - e < EDGES_PER_DMA ? first + n - e : EDGES_PER_DMA;
        for (uint32_t i = 0; i < 2 * k; i++) {
            uint32_t v = pairs[i];
            if (v < nr_vertices && v % NR_TASKLETS == me())
                degrees[v]++;
        }
    }
}

int main(void)
{
    for (uint32_t v = me(); v < nr_vertices; v += NR_TASKLETS)
        degrees[v] = 0;
    barrier_wait(&start);
    count_edges(0, nr_edges < MAX_EDGES ? nr_edges : MAX_EDGES);
    return 0;
}
