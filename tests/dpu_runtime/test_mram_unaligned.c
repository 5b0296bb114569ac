/* SPDX-License-Identifier: MIT */
/* mram_unaligned.h (dpu_mram_unaligned.c) against a host model of MRAM:
 * reads at every alignment 0..7 and sizes across 8-byte boundaries return the
 * bytes; writes change exactly their bytes (neighbours, overlapping earlier
 * writes included, as modelled); the atomic macros lose no update of
 * neighbouring ints and bytes; an int at an unaligned address is the word's
 * high half.  Refused: a source whose alignment differs from the
 * destination's, more than 2048 bytes: a DPU fault naming the rule, nothing
 * written. */
#include <dpu.h>
#include <openpim_ext.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

#define AREA 4096
#define NS 22
#define ROUNDS 10
#define TASKLETS 16

static const uint32_t sizes[NS] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 23, 24, 31, 33, 64, 100, 257, 2047, 2048};

static uint32_t base(uint32_t c)
{
    return (c % 5) * 24;
}

static void pattern(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t k = 0; k < n; k++)
        p[k] = (uint8_t)((k * 31 + seed) ^ (k >> 8));
}

static struct dpu_set_t load(uint32_t mode, uint8_t *rarea, uint8_t *warea)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_mram_unaligned", NULL));
    DPU_ASSERT(dpu_copy_to(set, "mode", 0, &mode, sizeof mode));
    DPU_ASSERT(dpu_copy_to(set, "sizes", 0, sizes, sizeof sizes));
    DPU_ASSERT(dpu_copy_to(set, "rarea", 0, rarea, AREA));
    DPU_ASSERT(dpu_copy_to(set, "warea", 0, warea, AREA));
    uint8_t zero[64] = {0}, words[16];
    pattern(words, sizeof words, 99);
    DPU_ASSERT(dpu_copy_to(set, "ints", 0, zero, 32));
    DPU_ASSERT(dpu_copy_to(set, "counters", 0, zero, 16));
    DPU_ASSERT(dpu_copy_to(set, "shared_byte", 0, words, 8));
    DPU_ASSERT(dpu_copy_to(set, "written_bytes", 0, zero, 16));
    DPU_ASSERT(dpu_copy_to(set, "odd_int", 0, words, 16));
    return set;
}

static void refused(uint32_t mode, const char *message)
{
    static uint8_t rarea[AREA], warea[AREA], after[AREA];
    pattern(rarea, AREA, 1);
    pattern(warea, AREA, 2);
    struct dpu_set_t set = load(mode, rarea, warea), dpu;
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    DPU_FOREACH(set, dpu) {
        struct openpim_fault f;
        DPU_ASSERT(openpim_get_fault(dpu, &f));
        CHECK(f.faulted);
        CHECK(strstr(f.message, message) != NULL);
        if (!strstr(f.message, message))
            fprintf(stderr, "mode %u: fault message \"%s\" lacks \"%s\"\n", mode, f.message, message);
        DPU_ASSERT(dpu_copy_from(dpu, "warea", 0, after, AREA));
        CHECK(memcmp(after, warea, AREA) == 0);
    }
    DPU_ASSERT(dpu_free(set));
}

int main(void)
{
    static uint8_t rarea[AREA], warea[AREA], model[AREA], got[AREA], readback[8 * 5120];
    pattern(rarea, AREA, 1);
    pattern(warea, AREA, 2);
    memcpy(model, warea, AREA);
    struct dpu_set_t set = load(0, rarea, warea), dpu;
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_copy_from(dpu, "readback", 0, readback, sizeof readback));
        DPU_ASSERT(dpu_copy_from(dpu, "warea", 0, got, AREA));
        uint32_t out = 0, bad = 0;
        for (uint32_t s = 0; s < NS; s++) {
            for (uint32_t a = 0; a < 8; a++) {
                uint32_t c = s * 8 + a, n = sizes[s], at = base(c) + a;
                if (memcmp(&readback[out], &rarea[at], n) != 0 && bad++ < 5)
                    fprintf(stderr, "read of %u bytes at alignment %u differs\n", n, a);
                CHECK(memcmp(&readback[out], &rarea[at], n) == 0);
                out += (n + 7) & ~7u;
                for (uint32_t k = 0; k < n; k++) /* the write, in the model */
                    model[at + k] = (uint8_t)(c * 7 + k * 13 + 1);
            }
        }
        for (uint32_t k = 0; k < 16; k++) /* from wbuf[0] (3 rounded down to 8) */
            model[2048 + k] = (uint8_t)(0xc0 + k);
        for (uint32_t k = 0; k < AREA; k++)
            if (got[k] != model[k] && bad++ < 10)
                fprintf(stderr, "warea[%u] = 0x%02x, model 0x%02x\n", k, got[k], model[k]);
        CHECK(memcmp(got, model, AREA) == 0);

        int ints[8];
        uint8_t counters[16], shared_byte[8], written[16], odd[16], words[16];
        DPU_ASSERT(dpu_copy_from(dpu, "ints", 0, ints, sizeof ints));
        DPU_ASSERT(dpu_copy_from(dpu, "counters", 0, counters, sizeof counters));
        DPU_ASSERT(dpu_copy_from(dpu, "shared_byte", 0, shared_byte, sizeof shared_byte));
        DPU_ASSERT(dpu_copy_from(dpu, "written_bytes", 0, written, sizeof written));
        DPU_ASSERT(dpu_copy_from(dpu, "odd_int", 0, odd, sizeof odd));
        for (int i = 0; i < 8; i++) /* tasklets i and i + 8 add i + 1 and i + 9 */
            CHECK_EQ(ints[i], ROUNDS * ((i + 1) + (i + 9)));
        for (int t = 0; t < TASKLETS; t++) {
            CHECK_EQ(counters[t], ROUNDS);
            CHECK_EQ(written[t], 0xa0 + t);
        }
        pattern(words, sizeof words, 99);
        for (int k = 0; k < 8; k++)
            CHECK_EQ(shared_byte[k], k == 3 ? (uint8_t)(words[3] + TASKLETS * ROUNDS) : words[k]);
        uint8_t want_odd[16];
        memcpy(want_odd, words, 16);
        const int32_t v = 0x11223344;
        memcpy(&want_odd[8 + 4], &v, 4); /* the high half of word 1 (little-endian) */
        CHECK(memcmp(odd, want_odd, 16) == 0);
    }
    DPU_ASSERT(dpu_free(set));

    refused(1, "differ modulo 8");
    refused(2, "mram_read_unaligned: 2049 bytes (at most 2048)");
    refused(3, "mram_write_unaligned: 2049 bytes (at most 2048)");
    return check_done("test_mram_unaligned");
}
