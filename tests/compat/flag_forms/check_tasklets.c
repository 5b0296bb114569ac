/* SPDX-License-Identifier: MIT */
/* check_tasklets IMAGE NR_TASKLETS [fault]: runs the image on one DPU and
 * checks that it was compiled for and ran exactly NR_TASKLETS tasklets (or,
 * with "fault", that the launch faults on a tasklet stack overflow). */
#include <dpu.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s IMAGE NR_TASKLETS [fault]\n", argv[0]);
        return 2;
    }
    uint32_t want = (uint32_t)strtoul(argv[2], NULL, 0);
    int want_fault = argc > 3 && strcmp(argv[3], "fault") == 0;
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    DPU_FOREACH(set, dpu) {
        break;
    }
    dpu_error_t rc = dpu_launch(set, DPU_SYNCHRONOUS);
    if (want_fault) {
        CHECK_EQ(rc, DPU_ERR_DPU_FAULT);
        struct openpim_fault f;
        CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
        CHECK(f.kind && strcmp(f.kind, "stack") == 0);
    } else {
        CHECK_EQ(rc, DPU_OK);
        uint32_t nr = 0, ran[24], sums[24];
        DPU_ASSERT(dpu_copy_from(dpu, "compiled_nr_tasklets", 0, &nr, 4));
        DPU_ASSERT(dpu_copy_from(dpu, "ran", 0, ran, sizeof ran));
        DPU_ASSERT(dpu_copy_from(dpu, "frame_sum", 0, sums, sizeof sums));
        CHECK_EQ(nr, want);
        for (uint32_t t = 0; t < 24; t++)
            CHECK_EQ(ran[t], t < want ? 100 + t : 0);
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("check_tasklets");
}
