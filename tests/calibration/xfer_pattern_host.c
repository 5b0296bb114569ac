/* SPDX-License-Identifier: MIT */
/* A PrIM-like sequence of host transfers and launches on N DPUs (every kind the
 * PrIM apps use: __host arguments pushed in parallel, MRAM pushes, a broadcast,
 * dpu_copy_to/from one DPU at a time, results read back from WRAM and MRAM
 * after launches), run under OPENPIM_TRACE by test_prim_calibration.py: the
 * trace's modelled time of every call must equal what xfer_replay computes
 * from the recorded calls, so that the replayed accuracy figures are the
 * SDK's.  usage: xfer_pattern_host SHAPES_BINARY NR_DPUS */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: xfer_pattern_host SHAPES_BINARY NR_DPUS\n");
        return 2;
    }
    unsigned ndpus = (unsigned)strtoul(argv[2], NULL, 10);
    if (ndpus == 0 || ndpus > 256) {
        fprintf(stderr, "xfer_pattern_host: NR_DPUS must be 1..256\n");
        return 2;
    }
    static uint8_t big[1 << 20], back[256 << 10];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    struct dpu_set_t set, dpu;
    uint32_t i, mode = 1, n = 2048; /* RED on 2,048 int64 per DPU */
    uint64_t partial[16 * 256];
    DPU_ASSERT(dpu_alloc(ndpus, NULL, &set));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    DPU_FOREACH(set, dpu, i) DPU_ASSERT(dpu_prepare_xfer(dpu, &n));
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "n", 0, sizeof n, DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, i) DPU_ASSERT(dpu_prepare_xfer(dpu, big));
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "in_a", 0, sizeof big, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_broadcast_to(set, "mode", 0, &mode, sizeof mode, DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu) DPU_ASSERT(dpu_copy_to(dpu, "in_b", 0, big, 64 << 10));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu, i) DPU_ASSERT(dpu_prepare_xfer(dpu, &partial[16 * i]));
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "partial", 0, 16 * sizeof partial[0], DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, i) DPU_ASSERT(dpu_prepare_xfer(dpu, back));
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "in_a", 0, sizeof back, DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu) DPU_ASSERT(dpu_copy_from(dpu, "in_a", 0, back, 4096));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu, i) DPU_ASSERT(dpu_prepare_xfer(dpu, back));
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "in_a", 0, 8, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_free(set));
    return 0;
}
