/* SPDX-License-Identifier: MIT */
/* Handshake rendezvous and EALREADY. */
#include <dpu.h>
#include <stdint.h>

#include "check.h"

static struct dpu_set_t only_dpu(struct dpu_set_t set)
{
    struct dpu_set_t dpu, first = set;
    int seen = 0;
    DPU_FOREACH(set, dpu) {
        if (!seen++)
            first = dpu;
    }
    return first;
}

#define T 4
#define EALREADY_VALUE 114 /* dpu/libc/errno.h */

int main(void)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_handshake", NULL));
    for (int launch = 0; launch < 2; launch++) { /* handshake state is per launch */
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        int32_t res[T], err[T];
        uint32_t chain[T];
        DPU_ASSERT(dpu_copy_from(only_dpu(set), "wait_result", 0, res, sizeof(res)));
        DPU_ASSERT(dpu_copy_from(only_dpu(set), "errno_seen", 0, err, sizeof(err)));
        DPU_ASSERT(dpu_copy_from(only_dpu(set), "chain", 0, chain, sizeof(chain)));
        CHECK_EQ(res[1], 0);
        CHECK_EQ(err[1], 0);
        CHECK_EQ(res[2], EALREADY_VALUE);
        CHECK_EQ(err[2], EALREADY_VALUE);
        for (uint32_t k = 0; k < T; k++)
            CHECK_EQ(chain[k], k);
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_handshake");
}
