/* SPDX-License-Identifier: MIT */
/* A run with a known shape for the report test: on 130 DPUs (3 ranks), one
 * push to the DPUs, a launch, an exchange between launches, a second launch
 * and one push back. */
#include <dpu.h>

int main(int argc, char **argv)
{
    struct dpu_set_t set, dpu;
    uint32_t in[16] = {1, 2}, out[130][16];
    DPU_ASSERT(dpu_alloc(130, "nrRanks=4", &set));
    DPU_ASSERT(dpu_load(set, argc > 1 ? argv[1] : "../api/dpu_api", NULL));
    DPU_ASSERT(dpu_broadcast_to(set, "w_in", 0, in, sizeof in, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    uint32_t i;
    DPU_FOREACH(set, dpu, i)
        DPU_ASSERT(dpu_prepare_xfer(dpu, out[i]));
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "w_out", 0, 64, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_broadcast_to(set, "w_in", 0, in, sizeof in, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu, i)
        DPU_ASSERT(dpu_prepare_xfer(dpu, out[i]));
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "w_out", 0, 64, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_free(set));
    return 0;
}
