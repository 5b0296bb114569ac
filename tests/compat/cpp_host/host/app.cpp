/* SPDX-License-Identifier: MIT */
// The SDK's C headers included from C++ without extern "C": the program
// links, DPU_CHECK reports an error through dpu_error_to_string, and two
// DPUs' per-tasklet sums match the host's.
#include <dpu.h>
#include <dpu_log.h>
#include <dpu_probe.h>

#include <cstdint>
#include <cstdio>
#include <vector>

int main()
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(2, nullptr, &set));
    DPU_ASSERT(dpu_load(set, "dpu_sum", nullptr));
    bool reported = false;
    uint32_t dummy = 0;
    DPU_CHECK(dpu_copy_to(set, "no_such_symbol", 0, &dummy, sizeof(dummy)), reported = true);
    int failures = reported ? 0 : 1;
    if (!reported)
        std::printf("[ERROR] copying to an unknown symbol was not reported\n");

    std::vector<uint32_t> values(256);
    uint32_t each;
    DPU_FOREACH (set, dpu, each) {
        for (uint32_t i = 0; i < values.size(); i++)
            values[i] = i * 7u + each * 1000u;
        DPU_ASSERT(dpu_copy_to(dpu, "values", 0, values.data(), values.size() * sizeof(uint32_t)));
    }
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    std::vector<uint64_t> sums(2 * NR_TASKLETS);
    DPU_FOREACH (set, dpu, each)
        DPU_ASSERT(dpu_prepare_xfer(dpu, &sums[each * NR_TASKLETS]));
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "sums", 0, NR_TASKLETS * sizeof(uint64_t), DPU_XFER_DEFAULT));
    for (uint32_t d = 0; d < 2; d++)
        for (uint32_t t = 0; t < NR_TASKLETS; t++) {
            uint64_t want = 0;
            for (uint32_t i = t; i < 256; i += NR_TASKLETS)
                want += i * 7u + d * 1000u;
            if (sums[d * NR_TASKLETS + t] != want) {
                std::printf("[ERROR] DPU %u tasklet %u: sum %llu, expected %llu\n", d, t,
                            (unsigned long long)sums[d * NR_TASKLETS + t], (unsigned long long)want);
                failures++;
            }
        }
    DPU_ASSERT(dpu_free(set));
    if (failures)
        return 1;
    std::printf("[OK] C++ host with the SDK's headers included as they are\n");
    return 0;
}
