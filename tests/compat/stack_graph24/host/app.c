/* SPDX-License-Identifier: MIT */
/* Random graphs (several sizes, an uneven edge count, self-loops and repeated
 * edges included): every vertex degree equals the host's count. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>

#define VERTICES 14575
#define MAX_EDGES 8400

static uint32_t edges[2 * MAX_EDGES], degrees[VERTICES], want[VERTICES];

int main(void)
{
    struct dpu_set_t set;
    int failures = 0;
    uint32_t seed = 2024;
    const uint32_t shapes[][2] = { { VERTICES, MAX_EDGES }, { 1000, 4099 }, { 24, 25 }, { 1, 3 } };
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "dpu_graph24", NULL));
    for (unsigned s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        uint32_t nv = shapes[s][0], ne = shapes[s][1];
        for (uint32_t v = 0; v < nv; v++)
            want[v] = 0;
        for (uint32_t i = 0; i < 2 * ne; i++) {
            seed = seed * 1664525u + 1013904223u;
            edges[i] = (seed >> 8) % nv;
            want[edges[i]]++;
        }
        DPU_ASSERT(dpu_copy_to(set, "edges", 0, edges, sizeof(edges)));
        DPU_ASSERT(dpu_copy_to(set, "nr_vertices", 0, &nv, sizeof(nv)));
        DPU_ASSERT(dpu_copy_to(set, "nr_edges", 0, &ne, sizeof(ne)));
        if (dpu_launch(set, DPU_SYNCHRONOUS) != DPU_OK) {
            struct dpu_set_t dpu;
            DPU_FOREACH (set, dpu) {
                struct openpim_fault f;
                DPU_ASSERT(openpim_get_fault(dpu, &f));
                printf("[ERROR] %u vertices: the launch faulted: %s\n", nv, f.message);
            }
            failures++;
            continue;
        }
        struct dpu_set_t dpu;
        DPU_FOREACH (set, dpu)
            DPU_ASSERT(dpu_copy_from(dpu, "degrees", 0, degrees, sizeof(uint32_t) * nv));
        for (uint32_t v = 0; v < nv; v++)
            if (degrees[v] != want[v]) {
                printf("[ERROR] %u vertices: vertex %u has degree %u, expected %u\n", nv, v, degrees[v], want[v]);
                failures++;
                break;
            }
    }
    DPU_ASSERT(dpu_free(set));
    if (failures)
        return 1;
    printf("[OK] 24 tasklets with 256-byte stacks counted every degree\n");
    return 0;
}
