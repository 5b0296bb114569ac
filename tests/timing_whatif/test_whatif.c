/* SPDX-License-Identifier: MIT */
/* The machine description is the only place a what-if lives: the DPU binary
 * reads its multiply/divide/soft-float costs at run time from a table the
 * worker fills from the description (timing/op_cost_slots.h).  One binary,
 * several descriptions:
 *   - default v1A: a 32-bit multiply costs op_int32_mul_base 8 + op_int32_mul_per_bit 1
 *     x bitlen(min(a, b)) instructions (timing/presets/v1A.desc);
 *   - desc_file=timing/presets/mul1.desc (one-cycle multiplier): 1 + 0 x bitlen;
 *   - the same through profile keys, and a per-bit cost of 2.
 * Results must be identical, modelled cycles strictly fewer with the fast
 * multiplier, and the instruction difference exactly the multiplies' cost
 * difference summed over the multiplies the program executes. */
#include <dpu.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define TASKLETS 16
#define V1A_MUL_BASE 8    /* v1A.desc op_int32_mul_base */
#define V1A_MUL_PER_BIT 1 /* v1A.desc op_int32_mul_per_bit */
#define MUL1_MUL_BASE 1   /* mul1.desc op_int32_mul_base (op_int32_mul_per_bit = 0) */

struct result {
    struct openpim_dpu_stats st;
    uint32_t out[TASKLETS];
};

static uint32_t seeds[TASKLETS];

static struct result run(const char *profile, uint32_t mode, uint32_t n)
{
    struct dpu_set_t set, dpu;
    struct result r;
    memset(&r, 0, sizeof r);
    DPU_ASSERT(dpu_alloc(1, profile, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_whatif", NULL));
    DPU_ASSERT(dpu_copy_to(set, "mode", 0, &mode, 4));
    DPU_ASSERT(dpu_copy_to(set, "n", 0, &n, 4));
    DPU_ASSERT(dpu_copy_to(set, "seed", 0, seeds, sizeof seeds));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(openpim_get_dpu_stats(dpu, &r.st));
        DPU_ASSERT(dpu_copy_from(dpu, "out", 0, r.out, sizeof r.out));
    }
    DPU_ASSERT(dpu_free(set));
    return r;
}

static unsigned bitlen(uint32_t v)
{
    return v ? 32u - (unsigned)__builtin_clz(v) : 0u;
}

/* mode 2 replayed: the number of multiplies and the sum of bitlen(min(a, s)) */
static void replay_mode2(uint32_t n, uint64_t *muls, uint64_t *bits)
{
    *muls = *bits = 0;
    for (int t = 0; t < TASKLETS; t++) {
        uint32_t s = seeds[t] | 1u;
        for (uint32_t i = 0; i < n; i++) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            uint32_t a = s >> (s & 31u);
            *bits += bitlen(a < s ? a : s);
            ++*muls;
        }
    }
}

static void same_results(const struct result *a, const struct result *b)
{
    for (int t = 0; t < TASKLETS; t++)
        CHECK_EQ(a->out[t], b->out[t]);
}

int main(void)
{
    uint32_t s = 12345u;
    for (int t = 0; t < TASKLETS; t++) {
        s = s * 1103515245u + 12345u;
        seeds[t] = s;
    }
    const char *v1a = "nrRanks=1";
    const char *mul1 = "desc_file=" MUL1_DESC ",nrRanks=1";
    const char *keys = "op_int32_mul_base=1,op_int32_mul_per_bit=0,nrRanks=1";
    const char *per_bit2 = "op_int32_mul_per_bit=2,nrRanks=1";

    /* mode 1: 2 n multiplies per tasklet, each of bitlen 32 */
    const uint32_t n1 = 500;
    struct result a = run(v1a, 1, n1), b = run(mul1, 1, n1), c = run(keys, 1, n1);
    uint64_t muls1 = 2ull * n1 * TASKLETS;
    same_results(&a, &b);
    same_results(&a, &c);
    CHECK(a.out[0] != 0);
    CHECK(b.st.cycles < a.st.cycles);
    CHECK(b.st.instructions < a.st.instructions);
    CHECK_EQ(a.st.instructions - b.st.instructions,
             muls1 * ((V1A_MUL_BASE + V1A_MUL_PER_BIT * 32) - MUL1_MUL_BASE));
    for (int t = 0; t < TASKLETS; t++)
        CHECK_EQ(a.st.tasklet_instructions[t] - b.st.tasklet_instructions[t],
                 2ull * n1 * ((V1A_MUL_BASE + V1A_MUL_PER_BIT * 32) - MUL1_MUL_BASE));
    /* mul1.desc and the equivalent profile keys model the same machine here
     * (mul1.desc also changes op_int64_mul, which this program does not use) */
    CHECK_EQ(c.st.instructions, b.st.instructions);
    CHECK_EQ(c.st.cycles, b.st.cycles);

    /* mode 2: data-dependent operands: the difference follows bitlen(min) */
    const uint32_t n2 = 700;
    uint64_t muls2, bits2;
    replay_mode2(n2, &muls2, &bits2);
    struct result d = run(v1a, 2, n2), e = run(mul1, 2, n2), f = run(per_bit2, 2, n2);
    same_results(&d, &e);
    same_results(&d, &f);
    CHECK(e.st.cycles < d.st.cycles);
    CHECK_EQ(d.st.instructions - e.st.instructions,
             muls2 * (V1A_MUL_BASE - MUL1_MUL_BASE) + V1A_MUL_PER_BIT * bits2);
    /* one more instruction per bit of the smaller operand */
    CHECK_EQ(f.st.instructions - d.st.instructions, bits2);
    CHECK(f.st.cycles > d.st.cycles);

    printf("mode 1: %llu multiplies: v1A %llu instr / %llu cycles, one-cycle multiplier %llu instr / %llu cycles\n",
           (unsigned long long)muls1, (unsigned long long)a.st.instructions, (unsigned long long)a.st.cycles,
           (unsigned long long)b.st.instructions, (unsigned long long)b.st.cycles);
    printf("mode 2: %llu multiplies (sum of bit lengths %llu): v1A %llu cycles, one-cycle multiplier %llu cycles\n",
           (unsigned long long)muls2, (unsigned long long)bits2, (unsigned long long)d.st.cycles,
           (unsigned long long)e.st.cycles);
    return check_done("test_whatif");
}
