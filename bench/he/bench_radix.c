/* SPDX-License-Identifier: MIT */
/* Single-DPU radix study (Jonatan et al., Fig. 12 / Table 4 analogue): one
 * 256-point NTT per launch with radix 2, 4, 16 butterflies and 1..24
 * tasklets; modelled DPU time and pipeline utilisation (instructions per
 * cycle).  Every output is checked against a naive evaluation.
 *   bench_radix IMAGE_DIR   (images rx_<radix>_<tasklets>, from radix.sh) */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <dpu.h>

#define N 256

static uint32_t mulmod(uint32_t a, uint32_t b, uint32_t q)
{
    return (uint32_t)((uint64_t)a * b % q);
}

static uint32_t powmod(uint32_t b, uint64_t e, uint32_t q)
{
    uint32_t r = 1;
    for (; e; e >>= 1, b = mulmod(b, b, q))
        if (e & 1)
            r = mulmod(r, b, q);
    return r;
}

static bool is_prime(uint32_t q)
{
    for (uint32_t d = 2; (uint64_t)d * d <= q; d++)
        if (q % d == 0)
            return false;
    return q > 1;
}

static uint32_t bitrev8(uint32_t x)
{
    uint32_t r = 0;
    for (int i = 0; i < 8; i++, x >>= 1)
        r = (r << 1) | (x & 1);
    return r;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_radix IMAGE_DIR\n");
        return 2;
    }
    /* the largest 30-bit prime = 1 mod 2N, its smallest primitive 2N-th root */
    uint32_t q = ((1u << 30) - 1) / (2 * N) * (2 * N) + 1;
    while (!is_prime(q))
        q -= 2 * N;
    uint32_t r = 0;
    for (uint32_t g = 2; !r; g++) {
        uint32_t c = powmod(g, (q - 1) / (2 * N), q);
        if (powmod(c, N, q) == q - 1)
            r = c;
    }
    uint32_t psi = r;
    for (uint32_t k = 3, p = mulmod(r, mulmod(r, r, q), q); k < 2 * N; k += 2, p = mulmod(p, mulmod(r, r, q), q))
        if (p < psi)
            psi = p;
    uint32_t bits = 30, mu = (uint32_t)((1ull << 60) / q), tw[N], in[N], want[N], got[N];
    for (uint32_t e = 0; e < N; e++)
        tw[bitrev8(e)] = powmod(psi, e, q);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (uint32_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        in[i] = (uint32_t)(x % q);
    }
    for (uint32_t j = 0; j < N; j++) { /* slot bitrev(j) = a(psi^(2j+1)) */
        uint32_t z = powmod(psi, 2 * j + 1, q), acc = 0;
        for (int i = N - 1; i >= 0; i--)
            acc = (uint32_t)(((uint64_t)acc * z + in[i]) % q);
        want[bitrev8(j)] = acc;
    }

    /* "16c": radix 16 with its modular multiply out of line (dpu_radix.c, RADIX16_CALL) */
    static const char *const radices[] = {"2", "4", "16", "16c"};
    static const uint32_t tasklets[] = {1, 2, 4, 6, 8, 10, 11, 12, 14, 16, 20, 24};
    const int nr_radices = (int)(sizeof radices / sizeof radices[0]);
    printf("## 256-point NTT on one DPU (v1A, 350 MHz), modelled: time in us / utilisation (instructions per cycle)\n");
    printf("## stages: radix 2: 8 x 128 butterflies, radix 4: 4 x 64, radix 16: 2 x 16; a barrier after each stage; "
           "16c: radix 16 with its multiply out of line (16 inlines it: over a real DPU's IRAM)\n");
    printf("%8s", "tasklets");
    for (int ri = 0; ri < nr_radices; ri++)
        printf("  radix %-3s us  util", radices[ri]);
    printf("\n");
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, "nrRanks=1", &set));
    int failures = 0;
    for (size_t ti = 0; ti < sizeof tasklets / sizeof tasklets[0]; ti++) {
        printf("%8u", tasklets[ti]);
        for (int ri = 0; ri < nr_radices; ri++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/rx_%s_%u", argv[1], radices[ri], tasklets[ti]);
            DPU_ASSERT(dpu_load(set, path, NULL));
            DPU_ASSERT(dpu_copy_to(set, "rx_q", 0, &q, 4));
            DPU_ASSERT(dpu_copy_to(set, "rx_bits", 0, &bits, 4));
            DPU_ASSERT(dpu_copy_to(set, "rx_mu", 0, &mu, 4));
            DPU_ASSERT(dpu_copy_to(set, "rx_tw", 0, tw, sizeof tw));
            DPU_ASSERT(dpu_copy_to(set, "rx_data", 0, in, sizeof in));
            DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
            struct openpim_dpu_stats s = {0};
            DPU_FOREACH(set, dpu)
            {
                DPU_ASSERT(dpu_copy_from(dpu, "rx_data", 0, got, sizeof got));
                DPU_ASSERT(openpim_get_dpu_stats(dpu, &s));
            }
            bool ok = true;
            for (uint32_t i = 0; i < N; i++)
                ok &= got[i] == want[i];
            failures += !ok;
            printf("   %11.1f %5.2f%s", s.time_us, (double)s.instructions / (double)s.cycles, ok ? "" : " WRONG");
        }
        printf("\n");
    }
    DPU_ASSERT(dpu_free(set));
    if (failures)
        fprintf(stderr, "bench_radix: %d wrong results\n", failures);
    return failures ? 1 : 0;
}
