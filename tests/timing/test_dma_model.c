/* SPDX-License-Identifier: MIT */
/* DMA-bound kernels through the whole stack: exact functional results
 * against the host, and per-DPU modelled statistics printed one line per DPU.
 * CTest runs this twice, with the model's analytic jumps (default) and with
 * OPENPIM_MODEL_STEPPING=1 (every cycle simulated), and compares the two
 * outputs byte for byte: the jumps must not move a single cycle. */
#include <dpu.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define NR_DPUS 4

static uint32_t f(uint32_t a, uint32_t b, uint32_t work)
{
    uint32_t v = a + b;
    for (uint32_t r = 0; r < work; r++)
        v = v ^ (v >> 3);
    return v;
}

static void run(const char *bin, uint32_t chunk, uint32_t work)
{
    static uint32_t in[NR_DPUS][2 * 8192], out[8192];
    struct dpu_set_t set, dpu;
    uint32_t i = 0;
    DPU_ASSERT(dpu_alloc(NR_DPUS, "nrRanks=1", &set));
    DPU_ASSERT(dpu_load(set, bin, NULL));
    DPU_FOREACH(set, dpu, i) {
        uint32_t words = 2048 * (i + 1); /* DPUs of different lengths */
        for (uint32_t k = 0; k < 2 * words; k++)
            in[i][k] = k * 2654435761u + i;
        DPU_ASSERT(dpu_copy_to(dpu, "words", 0, &words, 4));
        DPU_ASSERT(dpu_copy_to(dpu, "chunk", 0, &chunk, 4));
        DPU_ASSERT(dpu_copy_to(dpu, "work", 0, &work, 4));
        DPU_ASSERT(dpu_copy_to(dpu, DPU_MRAM_HEAP_POINTER_NAME, 0, in[i], 8 * words));
    }
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu, i) {
        uint32_t words = 2048 * (i + 1), bad = 0;
        DPU_ASSERT(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 8 * words, out, 4 * words));
        for (uint32_t k = 0; k < words; k++)
            bad += out[k] != f(in[i][k], in[i][words + k], work);
        CHECK_EQ(bad, 0);
        struct openpim_dpu_stats st;
        DPU_ASSERT(openpim_get_dpu_stats(dpu, &st));
        CHECK(st.dma_read_bytes == 8ull * words && st.dma_write_bytes == 4ull * words);
        printf("%s chunk %u work %u dpu %u: cycles %llu instructions %llu dma %llu/%llu tasklets", bin, chunk, work,
               i, (unsigned long long)st.cycles, (unsigned long long)st.instructions,
               (unsigned long long)st.dma_read_bytes, (unsigned long long)st.dma_write_bytes);
        for (int t = 0; t < 24; t++)
            printf(" %llu", (unsigned long long)st.tasklet_instructions[t]);
        printf("\n");
    }
    DPU_ASSERT(dpu_free(set));
}

int main(void)
{
    static const char *bins[] = {"./dpu_dma_model_t1", "./dpu_dma_model_t11", "./dpu_dma_model_t16",
                                 "./dpu_dma_model_t24"};
    for (unsigned b = 0; b < sizeof bins / sizeof *bins; b++) {
        run(bins[b], 1024, 0);
        run(bins[b], 256, 0);
        run(bins[b], 2048, 1);
        run(bins[b], 512, 6);
    }
    return check_done("test_dma_model");
}
