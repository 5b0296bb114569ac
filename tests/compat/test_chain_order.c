/* SPDX-License-Identifier: MIT */
/* DMA order along a handshake chain (see dpu_chain_order.c). */
#include <dpu.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define ROUNDS 5

int main(int argc, char **argv)
{
    const char *binary = argc > 1 ? argv[1] : "./dpu_chain_order_t4";
    unsigned nr = argc > 2 ? (unsigned)atoi(argv[2]) : 4;
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(2, NULL, &set));
    DPU_ASSERT(dpu_load(set, binary, NULL));
    uint64_t input[16 * 8];
    for (unsigned k = 0; k < nr; k++)
        input[k * 8] = 1000 + k;
    DPU_ASSERT(dpu_copy_to(set, "input", 0, input, nr * 8 * sizeof(uint64_t)));
    for (int launch = 0; launch < 2; launch++) {
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        DPU_FOREACH(set, dpu) {
            uint32_t done = 0;
            DPU_ASSERT(dpu_copy_from(dpu, "rounds_done", 0, &done, sizeof done));
            CHECK_EQ(done, ROUNDS);
            uint64_t slots[ROUNDS][17];
            DPU_ASSERT(dpu_copy_from(dpu, "slots", 0, slots, ROUNDS * (nr + 1) * sizeof(uint64_t)));
            uint64_t *s = &slots[0][0];
            for (unsigned r = 0; r < ROUNDS; r++) {
                for (unsigned k = 0; k < nr; k++)
                    CHECK_EQ(s[r * (nr + 1) + k], 1000 + k + r);
                CHECK_EQ(s[r * (nr + 1) + nr], 0xDEAD);
            }
        }
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_compat_chain_order");
}
