/* SPDX-License-Identifier: MIT */
/* DRAMatic's Fig. 10 method (he/dpu/he_modarith.h, HE_MUL_METHOD): the
 * kernels built with the custom routines out of line (he_dpu_custom_call) and
 * with its dummies (he_dpu_dummy_call, he_dpu_dummy_inline) beside the
 * library's own build (he_dpu_custom), on a small NTT, BGV tensor and iNTT.
 * Modelled cycles are deterministic, so they are asserted exactly: the
 * library's build's (unchanged by the method's existence), and each
 * method's; then the order the method exists to show (a call per multiply
 * costs, the dummies are cheaper, inlined ones cheapest).  The out-of-line
 * custom routines compute the library's very outputs; the dummies do not
 * (wrong products on purpose: a dummy build that matched would not be one).
 * The exact values move with the counting pass's rules (timing/llvm): when
 * those change, re-measure (this test prints what it got). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/check.h"
#include "openpim_he.h"

#define N 1024
#define K 2
#define COUNT 16 /* one sub-polynomial per tasklet */

enum { CUSTOM, CUSTOM_CALL, DUMMY_CALL, DUMMY_INLINE, VARIANTS };
static const char *const image[VARIANTS] = {NULL, "he_dpu_custom_call", "he_dpu_dummy_call", "he_dpu_dummy_inline"};
static const char *const name[VARIANTS] = {"custom", "custom_call", "dummy_call", "dummy_inline"};

/* Modelled cycles of the slowest DPU: NTT of one array, BGV tensor, iNTT of one array. */
static const uint64_t expected[VARIANTS][3] = {
    [CUSTOM] = {10897739, 7380908, 11810629},
    [CUSTOM_CALL] = {11878684, 8429372, 12916723},
    [DUMMY_CALL] = {4751644, 2727000, 5075241},
    [DUMMY_INLINE] = {3277084, 1514584, 3453225},
};

struct run {
    uint64_t cycles[3];
    uint32_t *ntt, *product; /* the first array after the NTT; the tensor's first output after the iNTT */
};

static void run(int v, const uint32_t *data, struct run *r)
{
    struct openpim_he_params p;
    CHECK_EQ(openpim_he_params_generate(N, K, 30, &p), OPENPIM_HE_OK);
    struct openpim_he_config c = {.nr_dpus = K, .profile = "nrRanks=1", .mul = OPENPIM_HE_MUL_CUSTOM,
                                  .image = image[v]};
    openpim_he_context *ctx;
    if (openpim_he_context_create(&p, &c, &ctx) != OPENPIM_HE_OK) {
        fprintf(stderr, "%s: %s\n", name[v], openpim_he_last_error());
        exit(1);
    }
    openpim_he_poly *in[4], *out[3];
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(openpim_he_poly_alloc(ctx, COUNT, &in[i]), OPENPIM_HE_OK);
        CHECK_EQ(openpim_he_poly_upload(ctx, in[i], data + (size_t)i * COUNT * K * N, OPENPIM_HE_COEFF),
                 OPENPIM_HE_OK);
        CHECK_EQ(openpim_he_ntt(ctx, in[i], in[i]), OPENPIM_HE_OK);
        if (i == 0)
            r->cycles[0] = openpim_he_last_kernel_cycles(ctx);
    }
    for (int i = 0; i < 3; i++)
        CHECK_EQ(openpim_he_poly_alloc(ctx, COUNT, &out[i]), OPENPIM_HE_OK);
    openpim_he_poly *const o[3] = {out[0], out[1], out[2]};
    const openpim_he_poly *const a[2] = {in[0], in[1]}, *const b[2] = {in[2], in[3]};
    CHECK_EQ(openpim_he_bgv_multiply(ctx, o, a, b), OPENPIM_HE_OK);
    r->cycles[1] = openpim_he_last_kernel_cycles(ctx);
    CHECK_EQ(openpim_he_intt(ctx, out[0], out[0]), OPENPIM_HE_OK);
    r->cycles[2] = openpim_he_last_kernel_cycles(ctx);
    const size_t words = (size_t)COUNT * K * N;
    r->ntt = malloc(words * 4);
    r->product = malloc(words * 4);
    if (!r->ntt || !r->product)
        exit(1);
    CHECK_EQ(openpim_he_poly_download(ctx, in[0], r->ntt), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_poly_download(ctx, out[0], r->product), OPENPIM_HE_OK);
    openpim_he_context_destroy(ctx);
    printf("%-12s NTT %llu, BGV %llu, iNTT %llu cycles\n", name[v], (unsigned long long)r->cycles[0],
           (unsigned long long)r->cycles[1], (unsigned long long)r->cycles[2]);
}

int main(void)
{
    struct openpim_he_params p;
    CHECK_EQ(openpim_he_params_generate(N, K, 30, &p), OPENPIM_HE_OK);
    const size_t words = (size_t)4 * COUNT * K * N;
    uint32_t *data = malloc(words * 4);
    if (!data)
        return 1;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t w = 0; w < words; w++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        data[w] = (uint32_t)(s % p.moduli[(w / N) % K]);
    }
    struct run r[VARIANTS], again;
    for (int v = 0; v < VARIANTS; v++)
        run(v, data, &r[v]);
    run(CUSTOM, data, &again); /* deterministic: the same cycles and outputs a second time */
    const size_t bytes = (size_t)COUNT * K * N * 4;
    for (int op = 0; op < 3; op++) {
        CHECK_EQ(again.cycles[op], r[CUSTOM].cycles[op]);
        for (int v = 0; v < VARIANTS; v++)
            CHECK_EQ(r[v].cycles[op], expected[v][op]);
        /* a call per product costs; the dummies save most of a product, inlining them the calls */
        CHECK(r[CUSTOM_CALL].cycles[op] > r[CUSTOM].cycles[op]);
        CHECK(r[CUSTOM_CALL].cycles[op] > r[DUMMY_CALL].cycles[op]);
        CHECK(r[DUMMY_CALL].cycles[op] > r[DUMMY_INLINE].cycles[op]);
    }
    CHECK(!memcmp(again.ntt, r[CUSTOM].ntt, bytes) && !memcmp(again.product, r[CUSTOM].product, bytes));
    CHECK(!memcmp(r[CUSTOM_CALL].ntt, r[CUSTOM].ntt, bytes));
    CHECK(!memcmp(r[CUSTOM_CALL].product, r[CUSTOM].product, bytes));
    CHECK(memcmp(r[DUMMY_CALL].ntt, r[CUSTOM].ntt, bytes) && memcmp(r[DUMMY_INLINE].ntt, r[CUSTOM].ntt, bytes));
    for (int v = 0; v < VARIANTS; v++)
        free(r[v].ntt), free(r[v].product);
    free(again.ntt), free(again.product);
    free(data);
    return check_done("test_he_mul_method");
}
