/* SPDX-License-Identifier: MIT */
/* Broadcast data is shared between DPUs until written (machine/mram.c): a
 * broadcast costs its size once, not once per DPU; a DPU's write -- by its
 * code (directly, through a wrapped address, by DMA) or by the host -- gives
 * that DPU its own copy and changes no other DPU; partly written chunks are
 * shared only where the rest is blank; freed ranks come back zeroed and the
 * store empties. */
#include <dpu.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MB (1ull << 20)
#define NR 640 /* 10 ranks: 60 MB to each would be 37.5 GB without sharing */

static uint32_t at(struct dpu_set_t dpu, uint64_t off)
{
    uint32_t v = 0xdeadbeef;
    CHECK_EQ(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, off, &v, 4), DPU_OK);
    return v;
}

static uint64_t usage(void)
{
    uint64_t used = 0;
    CHECK_EQ(openpim_memory_usage(&used, NULL), DPU_OK);
    return used;
}

static struct dpu_set_t nth(struct dpu_set_t set, uint32_t n)
{
    struct dpu_set_t dpu;
    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        if (i == n)
            return dpu;
    }
    return dpu;
}

static void set_u32(struct dpu_set_t set, const char *sym, uint32_t v)
{
    CHECK_EQ(dpu_broadcast_to(set, sym, 0, &v, 4, DPU_XFER_DEFAULT), DPU_OK);
}

int main(void)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(NR, "nrRanks=10,workers=2,hostMemoryLimitMB=1024", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_cow", NULL));
    uint64_t used0 = usage();

    /* 60 MB to 640 DPUs: about 60 MB of host memory */
    uint32_t *big = malloc(60 * MB);
    for (uint64_t i = 0; i < 60 * MB / 4; i++)
        big[i] = (uint32_t)(i * 2654435761u);
    CHECK_EQ(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, big, 60 * MB, DPU_XFER_DEFAULT), DPU_OK);
    uint64_t used1 = usage();
    CHECK(used1 >= used0 + 60 * MB && used1 < used0 + 64 * MB);
    for (uint32_t d = 0; d < NR; d += 211)
        for (uint64_t w = 0; w < 60 * MB / 4; w += 1234567)
            CHECK_EQ(at(nth(set, d), 4 * w), big[w]);

    /* DPU code writes: DPU d writes word 1000 + d of chunk 3, directly, through
     * a wrapped address or by DMA; only the writers get copies */
    const uint32_t base = 3 * MB;
    uint32_t writers[] = {0, 1, 64, 333, 639};
    for (uint32_t mode = 1; mode <= 3; mode++) {
        set_u32(set, "mode", 0);
        set_u32(set, "probe_off", base + 8);
        for (unsigned k = 0; k < sizeof writers / sizeof *writers; k++) {
            struct dpu_set_t w = nth(set, writers[k]);
            uint32_t m = mode, t = base + 4096 * mode + 8 * writers[k], v = 0xabc00000u + writers[k] * 16 + mode;
            CHECK_EQ(dpu_copy_to(w, "mode", 0, &m, 4), DPU_OK);
            CHECK_EQ(dpu_copy_to(w, "target_off", 0, &t, 4), DPU_OK);
            CHECK_EQ(dpu_copy_to(w, "value", 0, &v, 4), DPU_OK);
        }
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
        for (unsigned k = 0; k < sizeof writers / sizeof *writers; k++) {
            struct dpu_set_t w = nth(set, writers[k]);
            uint32_t t = base + 4096 * mode + 8 * writers[k], seen = 0;
            CHECK_EQ(at(w, t), 0xabc00000u + writers[k] * 16 + mode);
            CHECK_EQ(dpu_copy_from(w, "seen", 0, &seen, 4), DPU_OK);
            CHECK_EQ(seen, big[(base + 8) / 4]);
            /* the rest of its copy is the broadcast */
            CHECK_EQ(at(w, t + 8), big[(t + 8) / 4]);
            CHECK_EQ(at(w, base + MB - 4), big[(base + MB - 4) / 4]);
            /* nobody else sees the write */
            for (uint32_t o = 2; o < NR; o += 97)
                if (o != writers[k])
                    CHECK_EQ(at(nth(set, o), t), big[t / 4]);
        }
    }
    uint64_t used2 = usage();
    CHECK(used2 < used1 + 6 * MB); /* 5 copies of one chunk */

    /* the host writes one DPU inside shared data */
    uint32_t mine = 0x77777777;
    CHECK_EQ(dpu_copy_to(nth(set, 5), DPU_MRAM_HEAP_POINTER_NAME, 17 * MB + 12, &mine, 4), DPU_OK);
    CHECK_EQ(at(nth(set, 5), 17 * MB + 12), mine);
    CHECK_EQ(at(nth(set, 5), 17 * MB + 16), big[(17 * MB + 16) / 4]);
    CHECK_EQ(at(nth(set, 6), 17 * MB + 12), big[(17 * MB + 12) / 4]);
    CHECK_EQ(at(nth(set, 4), 17 * MB + 12), big[(17 * MB + 12) / 4]);

    /* a broadcast again over the same range: the old copies are freed */
    for (uint64_t i = 0; i < 60 * MB / 4; i++)
        big[i] ^= 0x5555aaaau;
    CHECK_EQ(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, big, 60 * MB, DPU_XFER_DEFAULT), DPU_OK);
    CHECK(usage() < used1 + MB);
    CHECK_EQ(at(nth(set, 5), 17 * MB + 12), big[(17 * MB + 12) / 4]);
    CHECK_EQ(at(nth(set, 333), base + 4096 + 8 * 333), big[(base + 4096 + 8 * 333) / 4]);

    /* unaligned broadcasts: chunks written in part are shared where the rest
     * is blank; DPU 7 has a byte of its own in the first one */
    uint8_t own = 0x42;
    const uint64_t off = 61 * MB + 3000, len = 2 * MB + 500 * 1024;
    CHECK_EQ(dpu_copy_to(nth(set, 7), DPU_MRAM_HEAP_POINTER_NAME, 61 * MB + 8, &own, 1), DPU_OK);
    uint64_t used3 = usage();
    CHECK_EQ(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, off, big, len, DPU_XFER_DEFAULT), DPU_OK);
    CHECK(usage() < used3 + 4 * MB);
    for (uint32_t d = 3; d < NR; d += 101) {
        uint8_t got[16];
        CHECK_EQ(dpu_copy_from(nth(set, d), DPU_MRAM_HEAP_POINTER_NAME, 61 * MB, got, 16), DPU_OK);
        CHECK_EQ(got[8], 0);
        CHECK_EQ(at(nth(set, d), off), big[0]);
        CHECK_EQ(at(nth(set, d), off + len - 4), big[(len - 4) / 4]);
        CHECK_EQ(at(nth(set, d), off + len), 0);
    }
    /* the same unaligned broadcast again: the partly written chunks are still
     * blank around it (the pages across its ends hold zeros there), so no copy */
    uint64_t used4 = usage();
    for (uint64_t i = 0; i < len / 4; i++)
        big[i] += 1;
    CHECK_EQ(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, off, big, len, DPU_XFER_DEFAULT), DPU_OK);
    CHECK(usage() < used4 + MB);
    CHECK_EQ(at(nth(set, 600), off + len - 4), big[(len - 4) / 4]);
    CHECK_EQ(at(nth(set, 600), off - 4), 0);
    uint8_t got7 = 0;
    CHECK_EQ(dpu_copy_from(nth(set, 7), DPU_MRAM_HEAP_POINTER_NAME, 61 * MB + 8, &got7, 1), DPU_OK);
    CHECK_EQ(got7, own);
    CHECK_EQ(at(nth(set, 7), off), big[0]);

    /* freed: the next owner of the ranks sees zeros, and the store empties */
    DPU_ASSERT(dpu_free(set));
    DPU_ASSERT(dpu_alloc(NR, "nrRanks=10,workers=2,hostMemoryLimitMB=1024", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_cow", NULL));
    CHECK_EQ(at(nth(set, 0), 5 * MB), 0);
    CHECK_EQ(at(nth(set, 639), 61 * MB + 3000), 0);
    CHECK(usage() < used0 + MB);
    DPU_ASSERT(dpu_free(set));
    free(big);
    return check_done("test_shared_mram");
}
