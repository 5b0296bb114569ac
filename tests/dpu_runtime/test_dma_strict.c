/* SPDX-License-Identifier: MIT */
/* Strict DMA checks (-DOPENPIM_STRICT_DMA): every size or address the SDK
 * documents as invalid for mram_read/mram_write (a size that is not a multiple
 * of 8 from 8 to 2048, an MRAM or WRAM address that is not 8-aligned) is a
 * "dma" fault naming the call; valid ones move what they ask.  Without the
 * flag the same calls do what the DMA engine does: addresses rounded down to
 * 8, size ((((n >> 3) - 1) & 0xff) + 1) * 8, written here from that rule. */
#include <dpu.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static uint32_t engine_size(uint32_t n)
{
    return ((((n >> 3) - 1u) & 0xffu) + 1u) * 8u;
}

static int documented_valid(uint32_t n, uint32_t moff, uint32_t woff)
{
    return n >= 8 && n <= 2048 && n % 8 == 0 && moff % 8 == 0 && woff % 8 == 0;
}

static void set(struct dpu_set_t s, const char *name, uint32_t v)
{
    DPU_ASSERT(dpu_copy_to(s, name, 0, &v, 4));
}

/* bytes of buf a read changed from the sentinel */
static uint32_t changed(struct dpu_set_t s)
{
    static uint8_t buf[4096 + 16];
    DPU_ASSERT(dpu_copy_from(s, "buf", 0, buf, sizeof buf));
    uint32_t k = 0;
    for (size_t i = 0; i < sizeof buf; i++)
        k += buf[i] != 0xEE;
    return k;
}

int main(void)
{
    static const uint32_t sizes[] = {8, 16, 2048, 0, 4, 12, 2056, 4096, 1000, 2040};
    static const uint32_t offs[][2] = {{0, 0}, {8, 16}, {4, 0}, {0, 4}, {3, 5}};
    static uint8_t pattern[8192];
    for (size_t i = 0; i < sizeof pattern; i++)
        pattern[i] = (uint8_t)(i % 199); /* never 0xEE */
    for (int strict = 0; strict < 2; strict++) {
        struct dpu_set_t s;
        DPU_ASSERT(dpu_alloc(1, NULL, &s));
        DPU_ASSERT(dpu_load(s, strict ? "./dpu_dma_strict" : "./dpu_dma_engine", NULL));
        DPU_ASSERT(dpu_copy_to(s, "src", 0, pattern, sizeof pattern));
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (size_t o = 0; o < sizeof offs / sizeof *offs; o++)
                for (uint32_t write = 0; write < 2; write++) {
                    uint32_t n = sizes[i], moff = offs[o][0], woff = offs[o][1];
                    set(s, "n", n);
                    set(s, "mram_off", moff);
                    set(s, "wram_off", woff);
                    set(s, "write", write);
                    dpu_error_t rc = dpu_launch(s, DPU_SYNCHRONOUS);
                    struct dpu_set_t d;
                    DPU_FOREACH(s, d) {
                        struct openpim_fault f;
                        CHECK_EQ(openpim_get_fault(d, &f), DPU_OK);
                        if (strict && !documented_valid(n, moff, woff)) {
                            CHECK_EQ(rc, DPU_ERR_DPU_FAULT);
                            CHECK(f.faulted && strcmp(f.kind, "dma") == 0 &&
                                  strstr(f.message, write ? "mram_write of" : "mram_read of") &&
                                  strstr(f.message, "OPENPIM_STRICT_DMA"));
                            continue;
                        }
                        CHECK_EQ(rc, DPU_OK);
                        CHECK(!f.faulted);
                        if (!write) /* the bytes moved: the engine's size (equal to n when valid) */
                            CHECK_EQ(changed(d), engine_size(n));
                        if (!write && documented_valid(n, moff, woff))
                            CHECK_EQ(changed(d), n);
                    }
                    if (write) /* restore MRAM for the next reads */
                        DPU_ASSERT(dpu_copy_to(s, "src", 0, pattern, sizeof pattern));
                }
        DPU_ASSERT(dpu_free(s));
    }
    return check_done("test_dma_strict");
}
