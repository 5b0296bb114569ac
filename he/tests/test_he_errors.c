/* SPDX-License-Identifier: MIT */
/* Bad parameters and misuse of the HE API give clear errors and change
 * nothing: non-NTT-friendly or composite or too wide moduli, n not a power of
 * two, arrays larger than MRAM, fewer DPUs than moduli, operands in the wrong
 * form, values not reduced, arrays of another context or of other sizes. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/check.h"
#include "openpim_he.h"

#define PROFILE "nrRanks=2"

static bool error_mentions(const char *word)
{
    bool found = strstr(openpim_he_last_error(), word) != NULL;
    if (!found)
        fprintf(stderr, "error message \"%s\" lacks \"%s\"\n", openpim_he_last_error(), word);
    return found;
}

static void test_params(void)
{
    struct openpim_he_params p = {.n = 4096, .nr_moduli = 1, .moduli = {40961}}; /* 40961 = 5 * 8192 + 1 */
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_OK);

    p.n = 3000; /* not a power of two */
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_ERR_DEGREE);
    CHECK(error_mentions("power of two"));
    p.n = 512; /* too small */
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_ERR_DEGREE);
    p.n = 1u << 17; /* too large */
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_ERR_DEGREE);
    p.n = 0;
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_ERR_DEGREE);

    p.n = 4096;
    p.moduli[0] = 1000003; /* prime, but 1000003 mod 8192 != 1 */
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_ERR_MODULUS);
    CHECK(error_mentions("NTT-friendly"));
    p.moduli[0] = 12289; /* prime, 1 mod 2048 but not mod 8192: friendly for n = 1024 only */
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_ERR_MODULUS);
    p.n = 1024;
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_OK);
    p.n = 4096;
    p.moduli[0] = 8193; /* = 1 mod 8192, but 3 * 2731 */
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_ERR_MODULUS);
    CHECK(error_mentions("not prime"));
    p.moduli[0] = 1073750017; /* a prime = 1 mod 8192 of 31 bits: accepted (moduli up to 32 bits) */
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_OK);
    p.moduli[0] = 4294475777u; /* 2^32 - 60 * 8192 + 1, prime: 32 bits */
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_OK);
    p.nr_moduli = 2;
    p.moduli[0] = p.moduli[1] = 40961;
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_ERR_MODULUS);
    CHECK(error_mentions("twice"));
    p.nr_moduli = 0;
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_ERR_MODULUS);
    p.nr_moduli = OPENPIM_HE_MAX_MODULI + 1;
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_ERR_MODULUS);
    CHECK_EQ(openpim_he_params_validate(NULL), OPENPIM_HE_ERR_ARGUMENT);

    /* generation: deterministic, valid, refused outside its range */
    struct openpim_he_params g1, g2;
    memset(&g1, 0xAB, sizeof g1);
    memset(&g2, 0xCD, sizeof g2);
    CHECK_EQ(openpim_he_params_generate(8192, 6, 30, &g1), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_params_generate(8192, 6, 30, &g2), OPENPIM_HE_OK);
    CHECK(memcmp(&g1, &g2, sizeof g1) == 0);
    CHECK_EQ(openpim_he_params_validate(&g1), OPENPIM_HE_OK);
    for (uint32_t i = 1; i < g1.nr_moduli; i++)
        CHECK(g1.moduli[i] > g1.moduli[i - 1]);
    struct openpim_he_params untouched = g1;
    CHECK_EQ(openpim_he_params_generate(8192, 6, 33, &g1), OPENPIM_HE_ERR_MODULUS);
    CHECK(error_mentions("[16, 32]"));
    CHECK_EQ(openpim_he_params_generate(8192, 6, 15, &g1), OPENPIM_HE_ERR_MODULUS);
    CHECK_EQ(openpim_he_params_generate(6000, 6, 30, &g1), OPENPIM_HE_ERR_DEGREE);
    CHECK_EQ(openpim_he_params_generate(65536, 1000, 20, &g1), OPENPIM_HE_ERR_MODULUS);
    CHECK(memcmp(&g1, &untouched, sizeof g1) == 0);

    CHECK_EQ(openpim_he_minimal_root(40961, 4096) != 0, 1);
    CHECK_EQ(openpim_he_minimal_root(1000003, 4096), 0);
}

static void test_context(void)
{
    struct openpim_he_params p;
    CHECK_EQ(openpim_he_params_generate(1024, 3, 30, &p), OPENPIM_HE_OK);
    openpim_he_context *ctx = (openpim_he_context *)(uintptr_t)1;
    struct openpim_he_config c = {.nr_dpus = 2, .profile = PROFILE};
    CHECK_EQ(openpim_he_context_create(&p, &c, &ctx), OPENPIM_HE_ERR_DPUS);
    CHECK(error_mentions("at least one DPU"));
    CHECK(ctx == (openpim_he_context *)(uintptr_t)1);
    c.nr_dpus = 4;
    c.dpu_dir = "/nonexistent";
    CHECK_EQ(openpim_he_context_create(&p, &c, &ctx), OPENPIM_HE_ERR_DPU);
    c.dpu_dir = NULL;
    c.nr_dpus = 300; /* 300 of 3 groups, on the profile's 128 DPUs */
    CHECK_EQ(openpim_he_context_create(&p, &c, &ctx), OPENPIM_HE_ERR_DPUS);
    CHECK(error_mentions("could not allocate 300 DPUs: "));
    CHECK(error_mentions("128 free in 2 rank(s)"));
    CHECK(ctx == (openpim_he_context *)(uintptr_t)1);
    c.nr_dpus = 4;
    p.moduli[1] = 1000003;
    CHECK_EQ(openpim_he_context_create(&p, &c, &ctx), OPENPIM_HE_ERR_MODULUS);
}

/* n = 2^16 (256 KB per sub-polynomial) on one DPU: a 300-polynomial array
 * (75 MB) cannot fit 64 MB of MRAM; what fits still works afterwards. */
static void test_mram(void)
{
    struct openpim_he_params p;
    CHECK_EQ(openpim_he_params_generate(65536, 1, 30, &p), OPENPIM_HE_OK);
    struct openpim_he_config c = {.nr_dpus = 1, .profile = PROFILE};
    openpim_he_context *ctx;
    CHECK_EQ(openpim_he_context_create(&p, &c, &ctx), OPENPIM_HE_OK);
    if (!ctx)
        return;
    openpim_he_poly *big = NULL, *a = NULL, *b = NULL;
    CHECK_EQ(openpim_he_poly_alloc(ctx, 300, &big), OPENPIM_HE_ERR_MRAM);
    CHECK(error_mentions("MRAM"));
    CHECK(big == NULL);
    CHECK_EQ(openpim_he_poly_alloc(ctx, 200, &a), OPENPIM_HE_OK); /* 50 MB */
    CHECK_EQ(openpim_he_poly_alloc(ctx, 100, &b), OPENPIM_HE_ERR_MRAM);
    openpim_he_poly_free(ctx, a);
    CHECK_EQ(openpim_he_poly_alloc(ctx, 100, &b), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_poly_alloc(ctx, 0, &a), OPENPIM_HE_ERR_ARGUMENT);
    openpim_he_context_destroy(ctx); /* frees b too */
}

static void test_misuse(void)
{
    struct openpim_he_params p;
    CHECK_EQ(openpim_he_params_generate(1024, 2, 30, &p), OPENPIM_HE_OK);
    struct openpim_he_config c = {.nr_dpus = 4, .profile = PROFILE};
    openpim_he_context *ctx, *other;
    CHECK_EQ(openpim_he_context_create(&p, &c, &ctx), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_context_create(&p, &c, &other), OPENPIM_HE_OK);
    const size_t words = 3 * 2 * 1024;
    uint32_t *data = malloc(words * 4), *back = malloc(words * 4);
    for (size_t i = 0; i < words; i++)
        data[i] = (uint32_t)(i * 7919 % 1000);
    openpim_he_poly *a, *b, *d, *small, *foreign;
    CHECK_EQ(openpim_he_poly_alloc(ctx, 3, &a), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_poly_alloc(ctx, 3, &b), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_poly_alloc(ctx, 3, &d), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_poly_alloc(ctx, 2, &small), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_poly_alloc(other, 3, &foreign), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_poly_upload(ctx, a, data, OPENPIM_HE_COEFF), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_poly_upload(ctx, b, data, OPENPIM_HE_NTT), OPENPIM_HE_OK);

    /* an unreduced value is refused and the DPUs keep the old data */
    data[2 * 1024 + 5] = p.moduli[0];
    CHECK_EQ(openpim_he_poly_upload(ctx, a, data, OPENPIM_HE_NTT), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("not below its modulus"));
    CHECK_EQ(openpim_he_poly_form(a), OPENPIM_HE_COEFF);
    CHECK_EQ(openpim_he_poly_download(ctx, a, back), OPENPIM_HE_OK);
    data[2 * 1024 + 5] = (uint32_t)((2 * 1024 + 5) * 7919 % 1000);
    CHECK(memcmp(data, back, words * 4) == 0);

    /* forms */
    CHECK_EQ(openpim_he_ntt(ctx, d, b), OPENPIM_HE_ERR_FORM);
    CHECK(error_mentions("coefficient form"));
    CHECK_EQ(openpim_he_intt(ctx, d, a), OPENPIM_HE_ERR_FORM);
    CHECK_EQ(openpim_he_mul_pointwise(ctx, d, a, a), OPENPIM_HE_ERR_FORM);
    CHECK_EQ(openpim_he_add(ctx, d, a, b), OPENPIM_HE_ERR_FORM);
    CHECK_EQ(openpim_he_sub(ctx, d, b, a), OPENPIM_HE_ERR_FORM);
    CHECK_EQ(openpim_he_poly_mul(ctx, d, a, b), OPENPIM_HE_ERR_FORM);
    openpim_he_poly *const out_bad[3] = {d, d, a};
    const openpim_he_poly *const x[2] = {b, b}, *const y[2] = {a, b};
    CHECK_EQ(openpim_he_bgv_multiply(ctx, out_bad, x, x), OPENPIM_HE_ERR_ARGUMENT);
    openpim_he_poly *e, *f;
    CHECK_EQ(openpim_he_poly_alloc(ctx, 3, &e), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_poly_alloc(ctx, 3, &f), OPENPIM_HE_OK);
    openpim_he_poly *const out[3] = {d, e, f};
    CHECK_EQ(openpim_he_bgv_multiply(ctx, out, x, y), OPENPIM_HE_ERR_FORM);
    CHECK_EQ(openpim_he_bgv_multiply(ctx, out, x, x), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_poly_form(d), OPENPIM_HE_NTT);

    /* sizes and owners */
    CHECK_EQ(openpim_he_add(ctx, d, a, small), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("polynomial arrays of"));
    CHECK_EQ(openpim_he_add(ctx, d, a, foreign), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("another context"));
    CHECK_EQ(openpim_he_poly_download(ctx, foreign, back), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_ntt(ctx, NULL, a), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_poly_upload(ctx, a, data, (enum openpim_he_form)7), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_group_size(ctx), 2);
    CHECK_EQ(openpim_he_nr_dpus(ctx), 4);

    free(data);
    free(back);
    openpim_he_context_destroy(other);
    openpim_he_context_destroy(ctx);
}

/* Relinearisation: needs a special modulus (validated like the others, with a
 * DPU group of its own), a reduced key, a usable plain modulus, NTT-form
 * inputs and distinct outputs. */
static void test_relin(void)
{
    struct openpim_he_params p;
    CHECK_EQ(openpim_he_params_generate(1024, 3, 30, &p), OPENPIM_HE_OK);
    p.special_modulus = 1000003; /* prime, not NTT-friendly */
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_ERR_MODULUS);
    CHECK(error_mentions("special"));
    p.special_modulus = p.moduli[1];
    CHECK_EQ(openpim_he_params_validate(&p), OPENPIM_HE_ERR_MODULUS);
    CHECK(error_mentions("twice"));
    struct openpim_he_params with_special;
    CHECK_EQ(openpim_he_params_generate(1024, 4, 30, &with_special), OPENPIM_HE_OK);
    with_special.nr_moduli = 3;
    with_special.special_modulus = with_special.moduli[3];
    with_special.moduli[3] = 0;
    CHECK_EQ(openpim_he_params_validate(&with_special), OPENPIM_HE_OK);

    openpim_he_context *ctx;
    struct openpim_he_config c = {.nr_dpus = 3, .profile = PROFILE};
    CHECK_EQ(openpim_he_context_create(&with_special, &c, &ctx), OPENPIM_HE_ERR_DPUS); /* 3 + 1 groups */
    c.nr_dpus = 4;
    CHECK_EQ(openpim_he_context_create(&with_special, &c, &ctx), OPENPIM_HE_OK);
    const uint32_t n = 1024, k = 3;
    const size_t key_words = (size_t)k * 2 * (k + 1) * n;
    uint32_t *key = calloc(key_words, 4), *data = calloc((size_t)k * n, 4);
    openpim_he_relin_key *rk = NULL;
    key[((size_t)(1 * 2 + 1) * (k + 1) + 3) * n + 7] = with_special.special_modulus; /* j=1, c=1, special residue */
    CHECK_EQ(openpim_he_relin_key_upload(ctx, key, &rk), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("not below its modulus"));
    CHECK(rk == NULL);
    key[((size_t)(1 * 2 + 1) * (k + 1) + 3) * n + 7] = 0;
    CHECK_EQ(openpim_he_relin_key_upload(ctx, key, &rk), OPENPIM_HE_OK);

    openpim_he_poly *a[3], *coeff;
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(openpim_he_poly_alloc(ctx, 1, &a[i]), OPENPIM_HE_OK);
        CHECK_EQ(openpim_he_poly_upload(ctx, a[i], data, OPENPIM_HE_NTT), OPENPIM_HE_OK);
    }
    CHECK_EQ(openpim_he_poly_alloc(ctx, 1, &coeff), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_poly_upload(ctx, coeff, data, OPENPIM_HE_COEFF), OPENPIM_HE_OK);
    const openpim_he_poly *const in[3] = {a[0], a[1], a[2]}, *const in_coeff[3] = {a[0], a[1], coeff};
    openpim_he_poly *const out[2] = {a[0], a[1]}, *const out_same[2] = {a[0], a[0]}, *const out_swap[2] = {a[1], a[0]};
    CHECK_EQ(openpim_he_relinearize(ctx, rk, 1, out, in), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("plain modulus"));
    CHECK_EQ(openpim_he_relinearize(ctx, rk, 1ull << 32, out, in), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_relinearize(ctx, rk, with_special.special_modulus, out, in), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_relinearize(ctx, rk, 65537, out, in_coeff), OPENPIM_HE_ERR_FORM);
    CHECK_EQ(openpim_he_relinearize(ctx, rk, 65537, out_same, in), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_relinearize(ctx, rk, 65537, out_swap, in), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_relinearize(ctx, NULL, 65537, out, in), OPENPIM_HE_ERR_ARGUMENT);
    /* zero in, zero key: zero out (values are checked against SEAL in test_he.py) */
    CHECK_EQ(openpim_he_relinearize(ctx, rk, 65537, out, in), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_poly_download(ctx, a[0], data), OPENPIM_HE_OK);
    size_t nonzero = 0;
    for (size_t i = 0; i < (size_t)k * n; i++)
        nonzero += data[i] != 0;
    CHECK_EQ(nonzero, 0);
    openpim_he_relin_key_free(ctx, rk);

    /* without a special modulus there is no key */
    openpim_he_context *plain;
    CHECK_EQ(openpim_he_params_generate(1024, 3, 30, &p), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_context_create(&p, &c, &plain), OPENPIM_HE_OK);
    CHECK_EQ(openpim_he_relin_key_upload(plain, key, &rk), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("special modulus"));
    openpim_he_context_destroy(plain);
    free(key);
    free(data);
    openpim_he_context_destroy(ctx); /* frees the arrays */
}

/* The 2D NTT and its inverse: bad configurations, inputs not reduced (output untouched), MRAM. */
static void test_ntt2d(void)
{
    struct openpim_he_params p;
    CHECK_EQ(openpim_he_params_generate(4096, 2, 30, &p), OPENPIM_HE_OK); /* n1 = n2 = 64 */
    struct openpim_he_ntt2d_config c = {.nr_dpus = 8, .group_dpus = 4, .count = 1, .profile = PROFILE};
    openpim_he_ntt2d *h = NULL;
    CHECK_EQ(openpim_he_ntt2d_create(&p, NULL, &h), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_ntt2d_create(&p, &c, NULL), OPENPIM_HE_ERR_ARGUMENT);
    c.group_dpus = 3;
    CHECK_EQ(openpim_he_ntt2d_create(&p, &c, &h), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("power of two"));
    c.group_dpus = 128, c.nr_dpus = 128; /* more DPUs per NTT than columns */
    CHECK_EQ(openpim_he_ntt2d_create(&p, &c, &h), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("n2 = 64"));
    c.group_dpus = 4, c.nr_dpus = 6;
    CHECK_EQ(openpim_he_ntt2d_create(&p, &c, &h), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("multiple"));
    c.nr_dpus = 0;
    CHECK_EQ(openpim_he_ntt2d_create(&p, &c, &h), OPENPIM_HE_ERR_DPUS);
    c.nr_dpus = 256; /* the profile's machine has 128: the SDK's reason is in the message, not only on stderr */
    CHECK_EQ(openpim_he_ntt2d_create(&p, &c, &h), OPENPIM_HE_ERR_DPUS);
    CHECK(error_mentions("could not allocate 256 DPUs"));
    CHECK(error_mentions("128 free in 2 rank(s)"));
    c.nr_dpus = 8, c.count = 0;
    CHECK_EQ(openpim_he_ntt2d_create(&p, &c, &h), OPENPIM_HE_ERR_ARGUMENT);
    c.count = 1, c.mul = (enum openpim_he_mul)7;
    CHECK_EQ(openpim_he_ntt2d_create(&p, &c, &h), OPENPIM_HE_ERR_ARGUMENT);
    c.mul = OPENPIM_HE_MUL_CUSTOM, c.comm = (enum openpim_he_comm)9;
    CHECK_EQ(openpim_he_ntt2d_create(&p, &c, &h), OPENPIM_HE_ERR_ARGUMENT);
    c.comm = OPENPIM_HE_COMM_BASELINE;
    struct openpim_he_params bad;
    CHECK_EQ(openpim_he_params_generate(4096, 3, 30, &bad), OPENPIM_HE_OK);
    bad.special_modulus = bad.moduli[2], bad.nr_moduli = 2;
    CHECK_EQ(openpim_he_ntt2d_create(&bad, &c, &h), OPENPIM_HE_ERR_ARGUMENT);
    bad = p;
    bad.moduli[1] = 8193; /* not prime */
    CHECK_EQ(openpim_he_ntt2d_create(&bad, &c, &h), OPENPIM_HE_ERR_MODULUS);
    CHECK(h == NULL);
    /* one DPU per NTT, 2^16 points: about 1 MB of MRAM per residue NTT, 70 do not fit 64 MB */
    struct openpim_he_params big;
    CHECK_EQ(openpim_he_params_generate(65536, 1, 30, &big), OPENPIM_HE_OK);
    struct openpim_he_ntt2d_config one = {.nr_dpus = 1, .group_dpus = 1, .count = 70, .profile = PROFILE};
    CHECK_EQ(openpim_he_ntt2d_create(&big, &one, &h), OPENPIM_HE_ERR_MRAM);
    CHECK(error_mentions("MRAM"));

    CHECK_EQ(openpim_he_ntt2d_create(&p, &c, &h), OPENPIM_HE_OK);
    struct openpim_he_ntt2d_shape shape;
    CHECK_EQ(openpim_he_ntt2d_shape(h, &shape), OPENPIM_HE_OK);
    CHECK_EQ(shape.n1, 64);
    CHECK_EQ(shape.n2, 64);
    CHECK_EQ(shape.group_dpus, 4);
    CHECK_EQ(shape.nr_groups, 2);
    CHECK_EQ(shape.slots, 1);
    CHECK_EQ(shape.comm_view, -1);
    CHECK_EQ(openpim_he_ntt2d_shape(h, NULL), OPENPIM_HE_ERR_ARGUMENT);
    const size_t words = 2 * 4096;
    uint32_t *in = calloc(words, 4), *out = malloc(words * 4);
    CHECK(in && out);
    memset(out, 0xab, words * 4);
    in[4096 + 17] = p.moduli[1]; /* residue 1, coefficient 17: not reduced */
    CHECK_EQ(openpim_he_ntt2d_forward(h, in, out, NULL), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("coefficient 17"));
    size_t untouched = 0;
    for (size_t i = 0; i < words; i++)
        untouched += out[i] == 0xabababab;
    CHECK_EQ(untouched, words);
    CHECK_EQ(openpim_he_ntt2d_forward(h, NULL, out, NULL), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_ntt2d_forward(NULL, in, out, NULL), OPENPIM_HE_ERR_ARGUMENT);
    /* still usable: NTT(0) = 0, in place */
    in[4096 + 17] = 0;
    struct openpim_he_ntt2d_times t;
    CHECK_EQ(openpim_he_ntt2d_forward(h, in, in, &t), OPENPIM_HE_OK);
    size_t zeros = 0;
    for (size_t i = 0; i < words; i++)
        zeros += in[i] == 0;
    CHECK_EQ(zeros, words);
    CHECK(t.kernel1_cycles > 0 && t.kernel2_cycles > 0 && t.inter_dpu_us > 0 && t.cpu_dpu_us > 0 &&
          t.dpu_cpu_us > 0);
    CHECK(t.total_us == t.cpu_dpu_us + t.kernel1_us + t.inter_dpu_us + t.kernel2_us + t.dpu_cpu_us);
    CHECK_EQ(openpim_he_ntt2d_shape(h, &shape), OPENPIM_HE_OK);
    CHECK_EQ(shape.comm_view, 0); /* 8 DPUs: not whole ranks */

    /* the inverse: the same checks, nothing written; then iNTT(0) = 0 in place, times as the forward's */
    memset(out, 0xab, words * 4);
    in[4096 * 0 + 4095] = p.moduli[0] + 5; /* residue 0, coefficient 4095: not reduced */
    CHECK_EQ(openpim_he_ntt2d_inverse(h, in, out, &t), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("coefficient 4095"));
    untouched = 0;
    for (size_t i = 0; i < words; i++)
        untouched += out[i] == 0xabababab;
    CHECK_EQ(untouched, words);
    CHECK_EQ(openpim_he_ntt2d_inverse(h, NULL, out, NULL), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_ntt2d_inverse(h, in, NULL, NULL), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_ntt2d_inverse(NULL, in, out, NULL), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("NULL"));
    in[4095] = 0;
    memset(&t, 0, sizeof t);
    CHECK_EQ(openpim_he_ntt2d_inverse(h, in, in, &t), OPENPIM_HE_OK);
    zeros = 0;
    for (size_t i = 0; i < words; i++)
        zeros += in[i] == 0;
    CHECK_EQ(zeros, words);
    CHECK(t.kernel1_cycles > 0 && t.kernel2_cycles > 0 && t.inter_dpu_us > 0 && t.cpu_dpu_us > 0 &&
          t.dpu_cpu_us > 0 && t.kernel1_us > 0 && t.kernel2_us > 0);
    CHECK(t.total_us == t.cpu_dpu_us + t.kernel1_us + t.inter_dpu_us + t.kernel2_us + t.dpu_cpu_us);
    /* inverse of all ones (NTT(delta)) = delta, a result the zeros cannot fake; times may be NULL */
    for (size_t i = 0; i < words; i++)
        in[i] = 1;
    CHECK_EQ(openpim_he_ntt2d_inverse(h, in, out, NULL), OPENPIM_HE_OK);
    size_t delta = 0;
    for (size_t i = 0; i < words; i++)
        delta += out[i] == (i % 4096 == 0);
    CHECK_EQ(delta, words);
    openpim_he_ntt2d_destroy(h);
    openpim_he_ntt2d_destroy(NULL);
    free(in);
    free(out);
}

int main(void)
{
    test_params();
    test_context();
    test_mram();
    test_misuse();
    test_relin();
    test_ntt2d();
    return check_done("test_he_errors");
}
