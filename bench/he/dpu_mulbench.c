/* SPDX-License-Identifier: MIT */
/* Multiply micro-benchmark (DRAMatic Figure 3 analogue): one tasklet runs
 * `reps` operations `op` on (a, b); the host reads the modelled instruction
 * count of the launch. */
#include <stdint.h>

#include <defs.h>

/* for struct he_mod (the variant does not matter here, nor HE_MUL_METHOD, which whatif.sh passes to
 * every file for the custom routines) */
#undef HE_MUL_METHOD
#define HE_MUL_NATIVE
#include "../../he/dpu/he_modarith.h"

__host uint32_t mb_op, mb_reps, mb_q, mb_bits, mb_mu;
__host uint32_t mb_operands[2];
__host uint64_t mb_result;

uint64_t bench_mul64_custom(const volatile uint32_t *v, uint32_t reps);
uint64_t bench_mul32_custom(const volatile uint32_t *v, uint32_t reps);
uint64_t bench_mulmod_custom(const volatile uint32_t *v, uint32_t reps, struct he_mod m);
uint64_t bench_mul64_native(const volatile uint32_t *v, uint32_t reps);
uint64_t bench_mul32_native(const volatile uint32_t *v, uint32_t reps);
uint64_t bench_mulmod_native(const volatile uint32_t *v, uint32_t reps, struct he_mod m);

static uint64_t bench_add(const volatile uint32_t *v, uint32_t reps)
{
    uint32_t acc = 0;
    for (uint32_t i = 0; i < reps; i++)
        acc ^= v[0] + v[1];
    return acc;
}

int main(void)
{
    const volatile uint32_t *v = mb_operands;
    struct he_mod m = {mb_q, mb_bits, mb_mu};
    switch (mb_op) {
    case 0: mb_result = bench_add(v, mb_reps); break;
    case 1: mb_result = bench_mul32_native(v, mb_reps); break;
    case 2: mb_result = bench_mul32_custom(v, mb_reps); break;
    case 3: mb_result = bench_mul64_native(v, mb_reps); break;
    case 4: mb_result = bench_mul64_custom(v, mb_reps); break;
    case 5: mb_result = bench_mulmod_native(v, mb_reps, m); break;
    case 6: mb_result = bench_mulmod_custom(v, mb_reps, m); break;
    default: mb_result = 0;
    }
    return 0;
}
