/* SPDX-License-Identifier: MIT */
/* dpu_get_profile_description(): chip clock, topology and memory sizes of the
 * machine a profile selects, checked against the published chip figures
 * (v1A: 350 MHz, 24 tasklets, 64 KB WRAM; v1B: 400 MHz, 16 tasklets, 62 KB;
 * 64 MB MRAM; 8 chips of 8 DPUs per rank) and against what dpu_alloc gives. */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <dpu_description.h>
#include <dpu_management.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;
#define EXPECT_EQ(a, b)                                                                                   \
    do {                                                                                                  \
        long long _a = (long long)(a), _b = (long long)(b);                                               \
        if (_a != _b) {                                                                                   \
            printf("[ERROR] %s:%d: %s is %lld, expected %lld\n", __FILE__, __LINE__, #a, _a, _b);         \
            failures++;                                                                                   \
        }                                                                                                 \
    } while (0)

static void check_chip(const char *profile, unsigned mhz, unsigned threads, unsigned wram_bytes, int v1b)
{
    dpu_description_t desc;
    DPU_ASSERT(dpu_get_profile_description(profile, &desc));
    /* the DPU clock, computed as programs do (UPMEM's UPIS host code) */
    double dpu_freq = desc->hw.timings.fck_frequency_in_mhz / desc->hw.timings.clock_division;
    EXPECT_EQ(dpu_freq, mhz);
    EXPECT_EQ(desc->hw.dpu.nr_of_threads, threads);
    EXPECT_EQ(desc->hw.memories.wram_size * 4, wram_bytes); /* in 32-bit words */
    EXPECT_EQ(desc->hw.memories.mram_size, 64u << 20);
    EXPECT_EQ(desc->hw.memories.iram_size, 4096); /* instructions */
    EXPECT_EQ(desc->hw.topology.nr_of_control_interfaces, 8);
    EXPECT_EQ(desc->hw.topology.nr_of_dpus_per_control_interface, 8);
    EXPECT_EQ(desc->hw.signature.chip_id, v1b ? vD_asic8_v1_4 : vD_asic8);
    EXPECT_EQ(desc->type, HW);
    dpu_free_description(desc);
}

int main(void)
{
    unsetenv("UPMEM_PROFILE");
    unsetenv("UPMEM_PROFILE_BASE");
    check_chip(NULL, 350, 24, 65536, 0);
    check_chip("chip=v1A", 350, 24, 65536, 0);
    check_chip("chip=v1B", 400, 16, 63488, 1);
    setenv("UPMEM_PROFILE", "chip=v1B", 1); /* the environment counts, as for dpu_alloc */
    check_chip(NULL, 400, 16, 63488, 1);
    unsetenv("UPMEM_PROFILE");

    /* topology follows the profile, and matches the ranks dpu_alloc makes */
    dpu_description_t desc;
    DPU_ASSERT(dpu_get_profile_description("nrRanks=2,nrDpusPerRank=4", &desc));
    uint32_t per_rank = desc->hw.topology.nr_of_control_interfaces * desc->hw.topology.nr_of_dpus_per_control_interface;
    EXPECT_EQ(per_rank, 4);
    dpu_acquire_description(desc); /* two references: the first free keeps it */
    dpu_free_description(desc);
    EXPECT_EQ(desc->refcount, 1);
    dpu_free_description(desc);

    struct dpu_set_t set, rank;
    DPU_ASSERT(dpu_alloc_ranks(1, "nrRanks=2,nrDpusPerRank=4", &set));
    DPU_RANK_FOREACH(set, rank) {
        uint32_t n;
        DPU_ASSERT(dpu_get_nr_dpus(rank, &n));
        EXPECT_EQ(n, per_rank);
    }
    DPU_ASSERT(dpu_free(set));

    /* a profile dpu_alloc refuses is refused here too */
    desc = NULL;
    EXPECT_EQ(dpu_get_profile_description("nrDpusPerRank=65", &desc), DPU_ERR_INVALID_PROFILE);
    EXPECT_EQ(desc == NULL, 1);
    EXPECT_EQ(dpu_alloc(1, "nrDpusPerRank=65", &set), DPU_ERR_INVALID_PROFILE);

    if (failures)
        return 1;
    printf("[OK] dpu_description.h matches the machine\n");
    return 0;
}
