/* SPDX-License-Identifier: MIT */
/* Test driver for the CKKS multiplication: reads ciphertexts and the switching
 * key from a file, multiplies on the DPUs, writes the product, so that
 * tests/test_ckks.py can compare it with its Python reference.
 *
 *   ckks_cli moduli N L K DNUM BITS      print the L + 1 + K moduli, one a line
 *   ckks_cli multiply IN.bin OUT.bin     (repeats the multiplication REPEAT times)
 *   ckks_cli baseconv IN.bin OUT.bin     he's base conversion alone (format at baseconv())
 *   ckks_cli multiply2d IN.bin OUT.bin G the 2D layout's multiplication, G DPUs per limb
 *                                        (IN's nr_dpus ignored: G (L + 1 + K) are used)
 *
 * IN.bin, little-endian uint32: n, L, K, dnum, bits, nr_dpus, mul (0 custom,
 * 1 native), count, repeat, then the arrays a0, a1, b0, b1 (count * k * n words
 * each, k = L + 1 + K, NTT form), then the key (dnum * 2 * k * n words).
 * OUT.bin: out0, out1 (count * k * n words each).  Prints one line per step
 * ("step NAME | CATEGORY | US | KERNEL_US") and "total US" of the last run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openpim_ckks.h"

#define CHECK(call)                                                                                        \
    do {                                                                                                   \
        openpim_he_status st_ = (call);                                                                    \
        if (st_ != OPENPIM_HE_OK) {                                                                        \
            fprintf(stderr, "%s failed: %s: %s\n", #call, openpim_he_status_name(st_), openpim_ckks_last_error()); \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)
#define CHECK_HE(call)                                                                                     \
    do {                                                                                                   \
        openpim_he_status st_ = (call);                                                                    \
        if (st_ != OPENPIM_HE_OK) {                                                                        \
            fprintf(stderr, "%s failed: %s: %s\n", #call, openpim_he_status_name(st_), openpim_he_last_error()); \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

static uint32_t *read_words(FILE *f, size_t nr)
{
    uint32_t *p = malloc(nr * 4 + 4);
    if (!p || fread(p, 4, nr, f) != nr) {
        fprintf(stderr, "short input file\n");
        exit(1);
    }
    return p;
}

/* he's base conversion alone: IN.bin = n, k, nr_dpus, count, nr_from, nr_to,
 * moduli[k], from[nr_from], to[nr_to], then count * k * n words (coefficient
 * form); OUT.bin = the converted array. */
static int baseconv(const char *in_path, const char *out_path)
{
    FILE *f = fopen(in_path, "rb");
    if (!f) {
        perror(in_path);
        return 1;
    }
    uint32_t *h = read_words(f, 6);
    struct openpim_he_params p = {.n = h[0], .nr_moduli = h[1]};
    if (h[1] > OPENPIM_HE_MAX_MODULI || h[4] > h[1] || h[5] > h[1]) {
        fprintf(stderr, "bad header\n");
        return 1;
    }
    uint32_t *mod = read_words(f, h[1]), *from = read_words(f, h[4]), *to = read_words(f, h[5]);
    memcpy(p.moduli, mod, h[1] * 4);
    struct openpim_he_config cfg = {.nr_dpus = h[2]};
    openpim_he_context *he;
    CHECK_HE(openpim_he_context_create(&p, &cfg, &he));
    const size_t words = (size_t)h[3] * h[1] * h[0];
    uint32_t *data = read_words(f, words);
    fclose(f);
    openpim_he_poly *a, *dst;
    openpim_he_baseconv *bc;
    CHECK_HE(openpim_he_poly_alloc(he, h[3], &a));
    CHECK_HE(openpim_he_poly_alloc(he, h[3], &dst));
    CHECK_HE(openpim_he_poly_upload(he, a, data, OPENPIM_HE_COEFF));
    CHECK_HE(openpim_he_baseconv_create(he, from, h[4], to, h[5], &bc));
    CHECK_HE(openpim_he_base_convert(he, bc, dst, a));
    CHECK_HE(openpim_he_poly_download(he, dst, data));
    FILE *o = fopen(out_path, "wb");
    if (!o || fwrite(data, 4, words, o) != words) {
        perror(out_path);
        return 1;
    }
    fclose(o);
    openpim_he_context_destroy(he);
    free(h), free(mod), free(from), free(to), free(data);
    return 0;
}

static void print_times(const struct openpim_ckks_times *t)
{
    for (uint32_t i = 0; i < t->nr_steps; i++)
        printf("step %s | %s | %.3f | %.3f\n", t->steps[i].name, openpim_ckks_category_name(t->steps[i].category),
               t->steps[i].us, t->steps[i].kernel_us);
    printf("total %.3f\n", t->total_us);
}

/* The 2D layout: the same input and output files as multiply. */
static int multiply2d(const char *in_path, const char *out_path, uint32_t g)
{
    FILE *f = fopen(in_path, "rb");
    if (!f) {
        perror(in_path);
        return 1;
    }
    uint32_t *h = read_words(f, 9);
    struct openpim_ckks_params p = {h[0], h[1], h[2], h[3], h[4]};
    const uint32_t count = h[7], repeat = h[8] ? h[8] : 1;
    struct openpim_ckks2d_config cfg = {.group_dpus = g, .count = count,
                                        .mul = h[6] ? OPENPIM_HE_MUL_NATIVE : OPENPIM_HE_MUL_CUSTOM};
    openpim_ckks2d_context *ctx;
    CHECK(openpim_ckks2d_context_create(&p, &cfg, &ctx));
    openpim_he_ntt2d *he = openpim_ckks2d_he(ctx);
    const uint32_t k = openpim_ckks2d_he_params(ctx)->nr_moduli;
    const size_t words = (size_t)count * k * p.n;
    openpim_he_poly2d *a[2], *b[2], *out[2];
    openpim_he_poly2d **in[4] = {&a[0], &a[1], &b[0], &b[1]};
    for (int i = 0; i < 4; i++) {
        uint32_t *data = read_words(f, words);
        CHECK_HE(openpim_he_poly2d_alloc(he, in[i]));
        CHECK_HE(openpim_he_poly2d_upload(he, *in[i], data, OPENPIM_HE_NTT, NULL));
        free(data);
    }
    uint32_t *kd = read_words(f, (size_t)p.dnum * 2 * k * p.n);
    fclose(f);
    openpim_ckks2d_key *key;
    CHECK(openpim_ckks2d_key_upload(ctx, kd, &key));
    free(kd);
    CHECK_HE(openpim_he_poly2d_alloc(he, &out[0]));
    CHECK_HE(openpim_he_poly2d_alloc(he, &out[1]));
    struct openpim_ckks_times t;
    for (uint32_t r = 0; r < repeat; r++)
        CHECK(openpim_ckks2d_multiply(ctx, key, out, (const openpim_he_poly2d *const *)a,
                                      (const openpim_he_poly2d *const *)b, &t));
    uint32_t *res = malloc(words * 4);
    FILE *o = fopen(out_path, "wb");
    if (!res || !o) {
        perror(out_path);
        return 1;
    }
    for (int c = 0; c < 2; c++) {
        CHECK_HE(openpim_he_poly2d_download(he, out[c], res, NULL));
        if (fwrite(res, 4, words, o) != words) {
            perror(out_path);
            return 1;
        }
    }
    fclose(o);
    free(res);
    print_times(&t);
    openpim_ckks2d_key_free(ctx, key);
    openpim_ckks2d_context_destroy(ctx);
    free(h);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 7 && strcmp(argv[1], "moduli") == 0) {
        struct openpim_ckks_params p = {(uint32_t)atol(argv[2]), (uint32_t)atol(argv[3]), (uint32_t)atol(argv[4]),
                                        (uint32_t)atol(argv[5]), (uint32_t)atol(argv[6])};
        CHECK(openpim_ckks_params_check(&p));
        struct openpim_he_params hp;
        CHECK_HE(openpim_he_params_generate(p.n, p.levels + 1 + p.ext_limbs, p.bits, &hp));
        for (uint32_t i = 0; i < hp.nr_moduli; i++)
            printf("%u\n", hp.moduli[i]);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "baseconv") == 0)
        return baseconv(argv[2], argv[3]);
    if (argc == 5 && strcmp(argv[1], "multiply2d") == 0)
        return multiply2d(argv[2], argv[3], (uint32_t)atol(argv[4]));
    if (argc != 4 || strcmp(argv[1], "multiply") != 0) {
        fprintf(stderr, "usage: ckks_cli moduli N L K DNUM BITS | multiply IN.bin OUT.bin | baseconv IN.bin OUT.bin | "
                "multiply2d IN.bin OUT.bin G\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    uint32_t *h = read_words(f, 9);
    struct openpim_ckks_params p = {h[0], h[1], h[2], h[3], h[4]};
    struct openpim_he_config cfg = {.nr_dpus = h[5], .mul = h[6] ? OPENPIM_HE_MUL_NATIVE : OPENPIM_HE_MUL_CUSTOM};
    const uint32_t count = h[7], repeat = h[8] ? h[8] : 1;
    openpim_ckks_context *ctx;
    CHECK(openpim_ckks_context_create(&p, &cfg, &ctx));
    openpim_he_context *he = openpim_ckks_he(ctx);
    const uint32_t k = openpim_ckks_he_params(ctx)->nr_moduli;
    const size_t words = (size_t)count * k * p.n;
    openpim_he_poly *a[2], *b[2], *out[2];
    openpim_he_poly **in[4] = {&a[0], &a[1], &b[0], &b[1]};
    for (int i = 0; i < 4; i++) {
        uint32_t *data = read_words(f, words);
        CHECK_HE(openpim_he_poly_alloc(he, count, in[i]));
        CHECK_HE(openpim_he_poly_upload(he, *in[i], data, OPENPIM_HE_NTT));
        free(data);
    }
    uint32_t *kd = read_words(f, (size_t)p.dnum * 2 * k * p.n);
    fclose(f);
    openpim_ckks_key *key;
    CHECK(openpim_ckks_key_upload(ctx, kd, count, &key));
    free(kd);
    CHECK_HE(openpim_he_poly_alloc(he, count, &out[0]));
    CHECK_HE(openpim_he_poly_alloc(he, count, &out[1]));
    struct openpim_ckks_times t;
    for (uint32_t r = 0; r < repeat; r++)
        CHECK(openpim_ckks_multiply(ctx, key, out, (const openpim_he_poly *const *)a,
                                    (const openpim_he_poly *const *)b, &t));
    uint32_t *res = malloc(words * 4);
    FILE *o = fopen(argv[3], "wb");
    if (!res || !o) {
        perror(argv[3]);
        return 1;
    }
    for (int c = 0; c < 2; c++) {
        CHECK_HE(openpim_he_poly_download(he, out[c], res));
        if (fwrite(res, 4, words, o) != words) {
            perror(argv[3]);
            return 1;
        }
    }
    fclose(o);
    free(res);
    print_times(&t);
    openpim_ckks_key_free(ctx, key);
    openpim_ckks_context_destroy(ctx);
    free(h);
    return 0;
}
