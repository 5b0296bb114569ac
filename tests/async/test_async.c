/* DPU_ASYNCHRONOUS launches are queued and run in the background: dpu_launch
 * returns while the DPUs run, dpu_status says so, other ranks stay usable, a
 * call on the busy rank waits for it, jobs of a rank keep their order, and
 * dpu_sync returns the launch's error once. */
#include <dpu.h>
#include <string.h>

#include "check.h"

#define LONG 600000000u /* a launch of about a second here: dpu_status sees it running */

static uint32_t expect(uint32_t n)
{
    uint32_t x = 1;
    for (uint32_t i = 0; i < n; i++)
        x = x * 3 + i;
    return x;
}

static void set_u32(struct dpu_set_t s, const char *sym, uint32_t v)
{
    DPU_ASSERT(dpu_broadcast_to(s, sym, 0, &v, 4, DPU_XFER_DEFAULT));
}

static uint32_t get_u32(struct dpu_set_t rank, const char *sym)
{
    struct dpu_set_t dpu;
    uint32_t v = 0;
    DPU_FOREACH(rank, dpu) {
        DPU_ASSERT(dpu_copy_from(dpu, sym, 0, &v, 4));
    }
    return v;
}

int main(void)
{
    struct dpu_set_t set, rank, ranks[2];
    uint32_t i = 0;
    DPU_ASSERT(dpu_alloc(2, "nrRanks=2,nrDpusPerRank=1", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_busy", NULL));
    DPU_RANK_FOREACH(set, rank) {
        ranks[i++] = rank;
    }
    set_u32(set, "halt_now", 0);
    set_u32(ranks[0], "iterations", LONG);
    set_u32(ranks[1], "iterations", 1000);

    /* the launch runs in the background */
    CHECK_EQ(dpu_launch(ranks[0], DPU_ASYNCHRONOUS), DPU_OK);
    bool done = true, fault = true;
    CHECK_EQ(dpu_status(ranks[0], &done, &fault), DPU_OK);
    CHECK(!done && !fault);
    /* the other rank is usable meanwhile, synchronously */
    set_u32(ranks[1], "iterations", 2000);
    CHECK_EQ(dpu_launch(ranks[1], DPU_SYNCHRONOUS), DPU_OK);
    CHECK_EQ(get_u32(ranks[1], "result"), expect(2000));
    /* a read of the busy rank waits for its launch */
    CHECK_EQ(get_u32(ranks[0], "result"), expect(LONG));
    CHECK_EQ(dpu_status(ranks[0], &done, &fault), DPU_OK);
    CHECK(done && !fault);
    CHECK_EQ(dpu_sync(set), DPU_OK);

    /* jobs of a rank keep their order, and a transfer to it waits for the jobs queued before it */
    set_u32(ranks[0], "iterations", 3000);
    CHECK_EQ(dpu_launch(ranks[0], DPU_ASYNCHRONOUS), DPU_OK);
    set_u32(ranks[0], "iterations", 4000); /* waits for the queued launch, then changes the input */
    CHECK_EQ(dpu_launch(ranks[0], DPU_ASYNCHRONOUS), DPU_OK);
    CHECK_EQ(dpu_sync(ranks[0]), DPU_OK);
    CHECK_EQ(get_u32(ranks[0], "result"), expect(4000));

    /* a fault surfaces at dpu_sync, once */
    set_u32(ranks[1], "halt_now", 1);
    CHECK_EQ(dpu_launch(ranks[1], DPU_ASYNCHRONOUS), DPU_OK);
    CHECK_EQ(dpu_sync(ranks[1]), DPU_ERR_DPU_FAULT);
    CHECK_EQ(dpu_status(ranks[1], &done, &fault), DPU_OK);
    CHECK(done && fault);
    CHECK_EQ(dpu_sync(ranks[1]), DPU_OK);

    /* freeing a set with queued work waits for it */
    set_u32(ranks[1], "halt_now", 0);
    CHECK_EQ(dpu_launch(set, DPU_ASYNCHRONOUS), DPU_OK);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_async");
}
