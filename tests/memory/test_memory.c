/* SPDX-License-Identifier: MIT */
/* The host memory limit: MRAM is sparse, reading never-written MRAM costs
 * nothing, and a write the host could not back is refused with a clear error
 * (from the host) or a host-memory fault (from a DPU), losing nothing.  (A
 * broadcast is stored once, test_shared_mram; the pushes here give each DPU
 * its own copy.) */
#include <dpu.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MB (1ull << 20)

/* buf to every DPU of the set, as per-DPU transfers */
static dpu_error_t push(struct dpu_set_t set, uint64_t off, uint8_t *buf, size_t len)
{
    struct dpu_set_t dpu;
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, buf));
    }
    return dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, off, len, DPU_XFER_DEFAULT);
}

/* Every DPU of the set fills mb MB of its MRAM: *ran counts those that
 * finished, *refused those stopped by a host-memory fault naming the limit
 * (limit_text, e.g. "200 MB limit"); any other outcome fails the test. */
static void launch_fill(struct dpu_set_t set, uint32_t mb, const char *limit_text, unsigned *ran, unsigned *refused)
{
    struct dpu_set_t dpu;
    DPU_ASSERT(dpu_broadcast_to(set, "megabytes", 0, &mb, 4, DPU_XFER_DEFAULT));
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    *ran = *refused = 0;
    DPU_FOREACH(set, dpu) {
        struct openpim_fault f;
        CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
        if (!f.faulted) {
            ++*ran;
        } else {
            ++*refused;
            CHECK(strcmp(f.kind, "host-memory") == 0);
            CHECK(strstr(f.message, limit_text) != NULL);
        }
    }
}

/* Many small DPUs far below the limit at first: the workers check a bound
 * on what the pool's memories can have grown since they last measured them,
 * and measure again only near the limit.  Filling every MRAM would pass the
 * limit: the runs near it are refused, the memories stay within it, and the
 * runs far below it all ran. */
static void bounded_checks(void)
{
    struct dpu_set_t set;
    uint64_t used0, used, limit;
    DPU_ASSERT(dpu_alloc(256, "nrRanks=4,mram_bytes=1048576,workers=2,hostMemoryLimitMB=160", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_fill", NULL));
    CHECK_EQ(openpim_memory_usage(&used0, &limit), DPU_OK);
    unsigned ran, refused;
    launch_fill(set, 1, "160 MB limit", &ran, &refused);
    CHECK_EQ(ran + refused, 256);
    CHECK(refused >= 256 - 160);
    /* each run backs 1 MB and 4 KB of WRAM: all those that fit, but for the
     * margin of one MRAM per worker, ran */
    CHECK(ran >= (limit - used0) / (MB + 4096) - 8);
    CHECK_EQ(openpim_memory_usage(&used, NULL), DPU_OK);
    CHECK(used <= limit);
    printf("256 DPUs of 1 MB under a 160 MB limit: %u ran, %u refused, %llu MB used\n", ran, refused,
           (unsigned long long)(used / MB));
    DPU_ASSERT(dpu_free(set));
}

int main(void)
{
    struct dpu_set_t set, dpu;
    uint64_t used0, used, limit;
    DPU_ASSERT(dpu_alloc(16, "nrRanks=1,workers=1,hostMemoryLimitMB=200", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_fill", NULL));
    CHECK_EQ(openpim_memory_usage(&used0, &limit), DPU_OK);
    CHECK_EQ(limit, 200 * MB);
    CHECK(used0 < 4 * MB); /* 64 DPUs x 64 MB of MRAM cost nothing until touched */

    uint8_t *buf = malloc(8 * MB);
    memset(buf, 0x5a, 8 * MB);
    CHECK_EQ(push(set, 0, buf, 8 * MB), DPU_OK);
    CHECK_EQ(openpim_memory_usage(&used, NULL), DPU_OK);
    CHECK(used >= used0 + 128 * MB && used < used0 + 132 * MB);

    /* reading MRAM nobody wrote returns zeros and backs nothing */
    uint8_t *back = malloc(8 * MB);
    DPU_FOREACH(set, dpu) {
        memset(back, 1, 8 * MB);
        CHECK_EQ(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 32 * MB, back, 8 * MB), DPU_OK);
        CHECK(back[0] == 0 && back[8 * MB - 1] == 0 && memcmp(back, back + 1, 8 * MB - 1) == 0);
    }
    uint64_t after_reads;
    CHECK_EQ(openpim_memory_usage(&after_reads, NULL), DPU_OK);
    CHECK(after_reads < used + MB);

    /* 128 MB more would pass the limit: refused, nothing written */
    CHECK_EQ(push(set, 8 * MB, buf, 8 * MB), DPU_ERR_SYSTEM);
    CHECK_EQ(openpim_memory_usage(&used, NULL), DPU_OK);
    CHECK(used < after_reads + MB);
    DPU_FOREACH(set, dpu) {
        CHECK_EQ(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 8 * MB, back, 64), DPU_OK);
        CHECK_EQ(back[0], 0);
        break;
    }
    /* rewriting memory that is already backed is fine */
    memset(buf, 0x33, 8 * MB);
    CHECK_EQ(push(set, 0, buf, 8 * MB), DPU_OK);

    /* DPUs filling 16 MB each: the worker stops before the limit */
    unsigned ran, refused;
    launch_fill(set, 16, "200 MB limit", &ran, &refused);
    CHECK(ran >= 1 && refused >= 1);
    CHECK_EQ(openpim_memory_usage(&used, NULL), DPU_OK);
    CHECK(used <= limit);
    free(buf);
    free(back);
    DPU_ASSERT(dpu_free(set));
    bounded_checks();
    return check_done("test_memory");
}
