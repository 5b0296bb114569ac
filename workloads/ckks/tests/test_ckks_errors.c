/* SPDX-License-Identifier: MIT */
/* Bad parameters and misuse of the CKKS multiplication give clear errors and
 * change nothing (the functional checks are in test_ckks.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openpim_ckks.h"

static int failures;

#define EXPECT(cond)                                                                                       \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            failures++;                                                                                    \
            fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond);                               \
        }                                                                                                  \
    } while (0)

/* status `want`, and the message mentions `word` */
static void expect_error(openpim_he_status got, openpim_he_status want, const char *word, const char *what)
{
    const char *msg = openpim_ckks_last_error();
    if (got != want || !strstr(msg, word)) {
        failures++;
        fprintf(stderr, "FAIL: %s: status %s (want %s), message \"%s\" (want \"%s\" in it)\n", what,
                openpim_he_status_name(got), openpim_he_status_name(want), msg, word);
    }
}

int main(void)
{
    const struct openpim_ckks_params good = {.n = 1024, .levels = 2, .ext_limbs = 1, .dnum = 3, .bits = 30};
    EXPECT(openpim_ckks_params_check(&good) == OPENPIM_HE_OK);
    struct openpim_ckks_params p;
    expect_error(openpim_ckks_params_check(NULL), OPENPIM_HE_ERR_ARGUMENT, "NULL", "NULL params");
    p = good, p.levels = 0;
    expect_error(openpim_ckks_params_check(&p), OPENPIM_HE_ERR_ARGUMENT, "L >= 1", "L = 0");
    p = good, p.ext_limbs = 0;
    expect_error(openpim_ckks_params_check(&p), OPENPIM_HE_ERR_ARGUMENT, "K >= 1", "K = 0");
    p = good, p.dnum = 2;
    expect_error(openpim_ckks_params_check(&p), OPENPIM_HE_ERR_ARGUMENT, "divide", "dnum not dividing L + 1");
    p = good, p.dnum = 0;
    expect_error(openpim_ckks_params_check(&p), OPENPIM_HE_ERR_ARGUMENT, "dnum", "dnum = 0");
    p = good, p.dnum = 4;
    expect_error(openpim_ckks_params_check(&p), OPENPIM_HE_ERR_ARGUMENT, "dnum", "dnum > L + 1");
    p = good, p.levels = 100, p.ext_limbs = 30, p.dnum = 1;
    expect_error(openpim_ckks_params_check(&p), OPENPIM_HE_ERR_ARGUMENT, "at most", "too many limbs");
    p = good, p.n = 1000;
    expect_error(openpim_ckks_params_check(&p), OPENPIM_HE_ERR_DEGREE, "moduli", "n not a power of two");
    p = good, p.n = 1 << 17;
    expect_error(openpim_ckks_params_check(&p), OPENPIM_HE_ERR_DEGREE, "moduli", "n too large");
    p = good, p.bits = 31;
    expect_error(openpim_ckks_params_check(&p), OPENPIM_HE_ERR_MODULUS, "moduli", "31-bit primes");

    struct openpim_he_config cfg = {.nr_dpus = 3};
    openpim_ckks_context *ctx = (openpim_ckks_context *)&cfg; /* must stay untouched on failure */
    expect_error(openpim_ckks_context_create(&good, &cfg, &ctx), OPENPIM_HE_ERR_DPUS, "HE context",
                 "fewer DPUs than limbs");
    EXPECT(ctx == (openpim_ckks_context *)&cfg);
    p = good, p.dnum = 2;
    expect_error(openpim_ckks_context_create(&p, &cfg, &ctx), OPENPIM_HE_ERR_ARGUMENT, "divide", "bad params");

    cfg.nr_dpus = 4;
    if (openpim_ckks_context_create(&good, &cfg, &ctx) != OPENPIM_HE_OK) {
        fprintf(stderr, "FAIL: context: %s\n", openpim_ckks_last_error());
        return 1;
    }
    openpim_he_context *he = openpim_ckks_he(ctx);
    const uint32_t n = good.n, k = openpim_ckks_he_params(ctx)->nr_moduli;
    EXPECT(k == 4);
    const size_t key_words = (size_t)good.dnum * 2 * k * n;
    uint32_t *kd = calloc(key_words, 4);
    openpim_ckks_key *key = NULL;
    kd[key_words - 1] = openpim_ckks_he_params(ctx)->moduli[k - 1]; /* not reduced */
    expect_error(openpim_ckks_key_upload(ctx, kd, 1, &key), OPENPIM_HE_ERR_ARGUMENT, "not below", "unreduced key");
    EXPECT(key == NULL);
    kd[key_words - 1] = 0;
    expect_error(openpim_ckks_key_upload(ctx, kd, 0, &key), OPENPIM_HE_ERR_ARGUMENT, "0 ciphertexts", "count 0");
    EXPECT(openpim_ckks_key_upload(ctx, kd, 2, &key) == OPENPIM_HE_OK);

    openpim_he_poly *a[2], *b[2], *out[2], *one;
    uint32_t *zeros = calloc((size_t)2 * k * n, 4);
    openpim_he_poly **all[6] = {&a[0], &a[1], &b[0], &b[1], &out[0], &out[1]};
    for (int i = 0; i < 6; i++) {
        EXPECT(openpim_he_poly_alloc(he, 2, all[i]) == OPENPIM_HE_OK);
        EXPECT(openpim_he_poly_upload(he, *all[i], zeros, i < 4 ? OPENPIM_HE_NTT : OPENPIM_HE_COEFF) == OPENPIM_HE_OK);
    }
    EXPECT(openpim_he_poly_alloc(he, 1, &one) == OPENPIM_HE_OK);
    const openpim_he_poly *ca[2] = {a[0], a[1]}, *cb[2] = {b[0], b[1]};
    expect_error(openpim_ckks_multiply(NULL, key, out, ca, cb, NULL), OPENPIM_HE_ERR_ARGUMENT, "NULL", "NULL ctx");
    expect_error(openpim_ckks_multiply(ctx, NULL, out, ca, cb, NULL), OPENPIM_HE_ERR_ARGUMENT, "NULL", "NULL key");
    const openpim_he_poly *wrong_count[2] = {one, a[1]};
    expect_error(openpim_ckks_multiply(ctx, key, out, wrong_count, cb, NULL), OPENPIM_HE_ERR_ARGUMENT, "holds 1",
                 "array of another count");
    const openpim_he_poly *coeff_form[2] = {out[0], a[1]};
    openpim_he_poly *other_out[2] = {a[0], b[1]};
    expect_error(openpim_ckks_multiply(ctx, key, other_out, coeff_form, cb, NULL), OPENPIM_HE_ERR_FORM, "NTT form",
                 "coefficient-form input");
    openpim_he_poly *alias_out[2] = {out[0], b[0]};
    expect_error(openpim_ckks_multiply(ctx, key, alias_out, ca, cb, NULL), OPENPIM_HE_ERR_ARGUMENT, "differ",
                 "output aliasing an input");
    openpim_he_poly *same_out[2] = {out[0], out[0]};
    expect_error(openpim_ckks_multiply(ctx, key, same_out, ca, cb, NULL), OPENPIM_HE_ERR_ARGUMENT, "differ",
                 "both outputs the same");
    /* the failed calls left the outputs untouched (still coefficient form) */
    EXPECT(openpim_he_poly_form(out[0]) == OPENPIM_HE_COEFF);
    /* he's base conversion (added for this workload): bad arguments */
    {
        openpim_he_baseconv *bc = NULL;
        const uint32_t f01[2] = {0, 1}, t2[1] = {2}, t9[1] = {9}, t1[1] = {1};
        EXPECT(openpim_he_baseconv_create(he, f01, 2, t9, 1, &bc) == OPENPIM_HE_ERR_ARGUMENT &&
               strstr(openpim_he_last_error(), "not below k"));
        EXPECT(openpim_he_baseconv_create(he, f01, 2, t1, 1, &bc) == OPENPIM_HE_ERR_ARGUMENT &&
               strstr(openpim_he_last_error(), "named twice"));
        EXPECT(openpim_he_baseconv_create(he, f01, 0, t2, 1, &bc) == OPENPIM_HE_ERR_ARGUMENT &&
               strstr(openpim_he_last_error(), ">= 1"));
        EXPECT(openpim_he_baseconv_create(he, NULL, 2, t2, 1, &bc) == OPENPIM_HE_ERR_ARGUMENT);
        EXPECT(bc == NULL);
        EXPECT(openpim_he_baseconv_create(he, f01, 2, t2, 1, &bc) == OPENPIM_HE_OK);
        EXPECT(openpim_he_base_convert(he, bc, out[1], a[0]) == OPENPIM_HE_ERR_FORM &&
               strstr(openpim_he_last_error(), "coefficient form"));
        EXPECT(openpim_he_base_convert(he, bc, out[0], out[0]) == OPENPIM_HE_ERR_ARGUMENT &&
               strstr(openpim_he_last_error(), "differ"));
        EXPECT(openpim_he_base_convert(he, bc, one, out[0]) == OPENPIM_HE_ERR_ARGUMENT);
        EXPECT(openpim_he_base_convert(he, NULL, out[1], out[0]) == OPENPIM_HE_ERR_ARGUMENT);
        openpim_he_baseconv_free(he, bc);
        openpim_he_baseconv_free(he, NULL);
    }

    /* and a good call works: zero times zero is zero */
    struct openpim_ckks_times t;
    EXPECT(openpim_ckks_multiply(ctx, key, out, ca, cb, &t) == OPENPIM_HE_OK);
    EXPECT(t.total_us > 0 && t.nr_steps > 10);
    uint32_t *res = malloc((size_t)2 * k * n * 4);
    for (int c = 0; c < 2; c++) {
        EXPECT(openpim_he_poly_download(he, out[c], res) == OPENPIM_HE_OK);
        for (size_t i = 0; i < (size_t)2 * k * n; i++)
            if (res[i]) {
                EXPECT(!"0 x 0 gave a nonzero word");
                break;
            }
    }
    free(res);
    free(zeros);
    free(kd);
    openpim_ckks_key_free(ctx, key);
    openpim_ckks_context_destroy(ctx);
    openpim_ckks_context_destroy(NULL);
    openpim_ckks_key_free(NULL, NULL);
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    else
        printf("ckks errors: all checks passed\n");
    return failures ? 1 : 0;
}
