/* SPDX-License-Identifier: MIT */
/* Host side of prim_shapes_dpu.c: runs each kernel on one DPU, checks its
 * result exactly against the same computation on the host, and prints one
 * record per kernel:
 *   shape,<name>,<tasklets>,<elements>,<cycles>,<ok>
 * (cycles: the DPU's modelled cycles of the launch, launch overhead excluded).
 * usage: prim_shapes_host BINARY TASKLETS */
#define _POSIX_C_SOURCE 200809L /* bench.h: clock_gettime */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

#define BINS 256
#define MAXT 24

static uint32_t xs(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: prim_shapes_host BINARY TASKLETS\n");
        return 2;
    }
    unsigned long nt = (unsigned long)bench_parse_u64("TASKLETS", argv[2], 1, MAXT);
    static const char *const names[3] = {"va", "red", "hst_s"};
    static const uint32_t elements[3] = {262144, 131072, 262144}; /* 1 MB of int32 / int64 */
    static uint32_t a[262144 * 2], b[262144], c[262144];
    int all_ok = 1;
    for (uint32_t mode = 0; mode < 3; mode++) {
        uint32_t n = elements[mode], words = mode == 1 ? 2 * n : n, seed = 2463534242u;
        for (uint32_t i = 0; i < words; i++) {
            a[i] = mode == 2 ? xs(&seed) & 0xfff : xs(&seed); /* HST: 12-bit pixels */
            b[i] = xs(&seed);
        }
        struct dpu_set_t set, dpu;
        DPU_ASSERT(dpu_alloc(1, "nrRanks=1", &set));
        DPU_ASSERT(dpu_load(set, argv[1], NULL));
        DPU_FOREACH(set, dpu) {
            DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, &mode, sizeof mode));
            DPU_ASSERT(dpu_copy_to(dpu, "n", 0, &n, sizeof n));
            const uint32_t bins = BINS;
            DPU_ASSERT(dpu_copy_to(dpu, "bins", 0, &bins, sizeof bins));
            DPU_ASSERT(dpu_copy_to(dpu, "in_a", 0, a, words * 4));
            if (mode == 0)
                DPU_ASSERT(dpu_copy_to(dpu, "in_b", 0, b, words * 4));
        }
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        int ok = 1;
        uint64_t cycles = 0;
        DPU_FOREACH(set, dpu) {
            struct openpim_dpu_stats st;
            memset(&st, 0, sizeof st);
            DPU_ASSERT(openpim_get_dpu_stats(dpu, &st));
            cycles = st.cycles;
            if (mode == 0) {
                DPU_ASSERT(dpu_copy_from(dpu, "in_b", 0, c, n * 4));
                for (uint32_t i = 0; i < n; i++)
                    ok &= c[i] == (uint32_t)(a[i] + b[i]);
            } else if (mode == 1) {
                uint64_t p[MAXT], sum = 0, ref = 0;
                DPU_ASSERT(dpu_copy_from(dpu, "partial", 0, p, nt * sizeof p[0]));
                for (unsigned t = 0; t < nt; t++)
                    sum += p[t];
                for (uint32_t i = 0; i < n; i++)
                    ref += (uint64_t)a[2 * i] | (uint64_t)a[2 * i + 1] << 32; /* little-endian int64 */
                ok = sum == ref;
            } else {
                uint32_t h[BINS], ref[BINS] = {0};
                DPU_ASSERT(dpu_copy_from(dpu, "histo", 0, h, sizeof h));
                for (uint32_t i = 0; i < n; i++)
                    ref[(a[i] * BINS) >> 12]++;
                ok = memcmp(h, ref, sizeof h) == 0;
            }
        }
        printf("shape,%s,%lu,%u,%llu,%d\n", names[mode], nt, n, (unsigned long long)cycles, ok);
        all_ok &= ok;
        DPU_ASSERT(dpu_free(set));
    }
    return all_ok ? 0 : 1;
}
