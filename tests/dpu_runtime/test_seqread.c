/* SPDX-License-Identifier: MIT */
/* Sequential readers over a buffer that spans many cache pages. */
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
#define N 5000u

int main(void)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_seqread", NULL));
    static uint32_t data[N + 2];
    data[0] = 0xdeadbeef; /* the 4 bytes before the array */
    for (uint32_t i = 0; i < N; i++)
        data[1 + i] = i * 2654435761u;
    DPU_ASSERT(dpu_copy_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, data, sizeof(data)));
    uint32_t n = N;
    DPU_ASSERT(dpu_copy_to(set, "nr_elements", 0, &n, 4));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));

    uint64_t sums[T];
    uint32_t errors[T], seek[T];
    DPU_ASSERT(dpu_copy_from(only_dpu(set), "sums", 0, sums, sizeof(sums)));
    DPU_ASSERT(dpu_copy_from(only_dpu(set), "tell_errors", 0, errors, sizeof(errors)));
    DPU_ASSERT(dpu_copy_from(only_dpu(set), "seek_values", 0, seek, sizeof(seek)));
    uint32_t per = (N + T - 1) / T;
    for (uint32_t t = 0; t < T; t++) {
        uint64_t want = 0;
        for (uint32_t i = t * per; i < (t + 1) * per && i < N; i++)
            want += data[1 + i];
        CHECK_EQ(sums[t], want);
        CHECK_EQ(errors[t], 0);
        CHECK_EQ(seek[t], data[1 + t * per]);
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_seqread");
}
