/* SPDX-License-Identifier: MIT */
/* CKKS homomorphic multiplication ([Jonatan24] Fig. 16) on the emulated server:
 * modelled time of each step and of the figure's categories, as CSV.
 *
 *   bench_ckks header
 *   bench_ckks N L K DNUM BITS DPUS_PER_LIMB COUNT [DUMP_PREFIX]    the 1D layout
 *   bench_ckks 2d N L K DNUM BITS DPUS_PER_LIMB [DUMP_PREFIX]       the 2D layout
 *
 * 1D: COUNT ciphertext pairs are multiplied at once (he's arrays), on
 * DPUS_PER_LIMB x (L + 1 + K) DPUs, each limb polynomial whole on one DPU.
 * 2D: one pair, each limb over DPUS_PER_LIMB DPUs (the same DPU count).
 * Inputs and key are pseudo-random words (a fixed seed).  With DUMP_PREFIX
 * the inputs go to PREFIX.in (ckks_cli's format) and the product to
 * PREFIX.out, for bench/ckks/check.py to compare with the Python reference.
 * Rows: BENCH,N,L,K,dnum,dpus,count,kind,name,category,modelled_us,kernel_us,wall_s
 * (BENCH ckks or ckks2d; kind: step / category / total; 2D: count = g). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpu.h>

#include "../bench.h"
#include "openpim_ckks.h"

#define CHECK(call)                                                                                        \
    do {                                                                                                   \
        openpim_he_status st_ = (call);                                                                    \
        if (st_ != OPENPIM_HE_OK) {                                                                        \
            fprintf(stderr, "%s failed: %s: %s | %s\n", #call, openpim_he_status_name(st_),               \
                    openpim_ckks_last_error(), openpim_he_last_error());                                  \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t q)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % q);
}

static void fill(uint32_t *w, size_t polys, const struct openpim_he_params *hp)
{
    for (size_t p = 0; p < polys; p++)
        for (uint32_t j = 0; j < hp->nr_moduli; j++)
            for (uint32_t x = 0; x < hp->n; x++)
                *w++ = rnd(hp->moduli[j]);
}

static void put(FILE *f, const void *p, size_t words)
{
    if (f && fwrite(p, 4, words, f) != words) {
        perror("dump");
        exit(1);
    }
}

/* The 2D layout's multiplication (openpim_ckks2d_*): one ciphertext pair,
 * each limb over g DPUs (g (L + 1 + K) DPUs), resident from upload to
 * download; rows kind step / category / total as the 1D's, bench = ckks2d,
 * count = g.  With DUMP_PREFIX the inputs and product go to files as above. */
static int multiply2d(struct openpim_ckks_params p, uint32_t g, const char *dump_prefix)
{
    const uint32_t k = p.levels + 1 + p.ext_limbs;
    struct openpim_ckks2d_config cfg = {.group_dpus = g, .count = 1, .mul = OPENPIM_HE_MUL_CUSTOM};
    openpim_ckks2d_context *ctx;
    CHECK(openpim_ckks2d_context_create(&p, &cfg, &ctx));
    const struct openpim_he_params *hp = openpim_ckks2d_he_params(ctx);
    openpim_he_ntt2d *he = openpim_ckks2d_he(ctx);
    const size_t words = (size_t)k * p.n, key_words = (size_t)p.dnum * 2 * k * p.n;
    uint32_t *buf = malloc(key_words * 4);
    FILE *dump = NULL;
    char path[4096];
    if (!buf)
        return 1;
    if (dump_prefix) {
        snprintf(path, sizeof path, "%s.in", dump_prefix);
        if (!(dump = fopen(path, "wb"))) {
            perror(path);
            return 1;
        }
        uint32_t hdr[9] = {p.n, p.levels, p.ext_limbs, p.dnum, p.bits, g * k, 0, 1, 1};
        put(dump, hdr, 9);
    }
    openpim_he_poly2d *in[4], *out[2];
    for (int i = 0; i < 4; i++) {
        fill(buf, 1, hp);
        put(dump, buf, words);
        CHECK(openpim_he_poly2d_alloc(he, &in[i]));
        CHECK(openpim_he_poly2d_upload(he, in[i], buf, OPENPIM_HE_NTT, NULL));
    }
    fill(buf, (size_t)p.dnum * 2, hp);
    put(dump, buf, key_words);
    if (dump)
        fclose(dump);
    openpim_ckks2d_key *key;
    CHECK(openpim_ckks2d_key_upload(ctx, buf, &key));
    CHECK(openpim_he_poly2d_alloc(he, &out[0]));
    CHECK(openpim_he_poly2d_alloc(he, &out[1]));
    const openpim_he_poly2d *a[2] = {in[0], in[1]}, *b[2] = {in[2], in[3]};
    struct openpim_ckks_times t;
    double t0 = bench_now();
    CHECK(openpim_ckks2d_multiply(ctx, key, out, a, b, &t));
    const double wall = bench_now() - t0;
    char cfgs[128];
    snprintf(cfgs, sizeof cfgs, "%u,%u,%u,%u,%u,%u", p.n, p.levels, p.ext_limbs, p.dnum, g * k, g);
    for (uint32_t i = 0; i < t.nr_steps; i++)
        printf("ckks2d,%s,step,%s,%s,%.3f,%.3f,\n", cfgs, t.steps[i].name,
               openpim_ckks_category_name(t.steps[i].category), t.steps[i].us, t.steps[i].kernel_us);
    for (int c = 0; c < OPENPIM_CKKS_NR_CATEGORIES; c++)
        printf("ckks2d,%s,category,%s,%s,%.3f,,\n", cfgs, openpim_ckks_category_name(c),
               openpim_ckks_category_name(c), t.us[c]);
    printf("ckks2d,%s,total,total,total,%.3f,,%.3f\n", cfgs, t.total_us, wall);
    if (dump_prefix) {
        snprintf(path, sizeof path, "%s.out", dump_prefix);
        FILE *o = fopen(path, "wb");
        if (!o) {
            perror(path);
            return 1;
        }
        for (int c = 0; c < 2; c++) {
            CHECK(openpim_he_poly2d_download(he, out[c], buf, NULL));
            put(o, buf, words);
        }
        fclose(o);
    }
    fflush(stdout);
    openpim_ckks2d_key_free(ctx, key);
    openpim_ckks2d_context_destroy(ctx);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    if ((argc == 8 || argc == 9) && strcmp(argv[1], "2d") == 0) {
        struct openpim_ckks_params p = {(uint32_t)atol(argv[2]), (uint32_t)atol(argv[3]), (uint32_t)atol(argv[4]),
                                        (uint32_t)atol(argv[5]), (uint32_t)atol(argv[6])};
        return multiply2d(p, (uint32_t)atol(argv[7]), argc == 9 ? argv[8] : NULL);
    }
    if (argc == 2 && strcmp(argv[1], "header") == 0) {
        printf("bench,n,L,K,dnum,dpus,count,kind,name,category,modelled_us,kernel_us,wall_s\n");
        return 0;
    }
    if (argc != 8 && argc != 9) {
        fprintf(stderr, "usage: bench_ckks header | N L K DNUM BITS DPUS_PER_LIMB COUNT [DUMP_PREFIX] | "
                "2d N L K DNUM BITS DPUS_PER_LIMB [DUMP_PREFIX]\n");
        return 2;
    }
    struct openpim_ckks_params p = {(uint32_t)atol(argv[1]), (uint32_t)atol(argv[2]), (uint32_t)atol(argv[3]),
                                    (uint32_t)atol(argv[4]), (uint32_t)atol(argv[5])};
    const uint32_t g = (uint32_t)atol(argv[6]), count = (uint32_t)atol(argv[7]);
    const uint32_t k = p.levels + 1 + p.ext_limbs;
    struct openpim_he_config cfg = {.nr_dpus = g * k, .mul = OPENPIM_HE_MUL_CUSTOM};
    openpim_ckks_context *ctx;
    CHECK(openpim_ckks_context_create(&p, &cfg, &ctx));
    const struct openpim_he_params *hp = openpim_ckks_he_params(ctx);
    openpim_he_context *he = openpim_ckks_he(ctx);
    const size_t words = (size_t)count * k * p.n, key_words = (size_t)p.dnum * 2 * k * p.n;
    uint32_t *buf = malloc((words > key_words ? words : key_words) * 4);
    FILE *dump = NULL;
    char path[4096];
    if (argc == 9) {
        snprintf(path, sizeof path, "%s.in", argv[8]);
        if (!(dump = fopen(path, "wb"))) {
            perror(path);
            return 1;
        }
        uint32_t hdr[9] = {p.n, p.levels, p.ext_limbs, p.dnum, p.bits, g * k, 0, count, 1};
        put(dump, hdr, 9);
    }
    openpim_he_poly *in[4], *out[2];
    for (int i = 0; i < 4; i++) {
        fill(buf, count, hp);
        put(dump, buf, words);
        CHECK(openpim_he_poly_alloc(he, count, &in[i]));
        CHECK(openpim_he_poly_upload(he, in[i], buf, OPENPIM_HE_NTT));
    }
    fill(buf, (size_t)p.dnum * 2, hp);
    put(dump, buf, key_words);
    if (dump)
        fclose(dump);
    openpim_ckks_key *key;
    CHECK(openpim_ckks_key_upload(ctx, buf, count, &key));
    CHECK(openpim_he_poly_alloc(he, count, &out[0]));
    CHECK(openpim_he_poly_alloc(he, count, &out[1]));
    const openpim_he_poly *a[2] = {in[0], in[1]}, *b[2] = {in[2], in[3]};
    struct openpim_ckks_times t;
    double t0 = bench_now();
    CHECK(openpim_ckks_multiply(ctx, key, out, a, b, &t));
    const double wall = bench_now() - t0;
    const char *pre = "ckks";
    char cfgs[128];
    snprintf(cfgs, sizeof cfgs, "%u,%u,%u,%u,%u,%u", p.n, p.levels, p.ext_limbs, p.dnum, g * k, count);
    for (uint32_t i = 0; i < t.nr_steps; i++)
        printf("%s,%s,step,%s,%s,%.3f,%.3f,\n", pre, cfgs, t.steps[i].name,
               openpim_ckks_category_name(t.steps[i].category), t.steps[i].us, t.steps[i].kernel_us);
    for (int c = 0; c < OPENPIM_CKKS_NR_CATEGORIES; c++)
        printf("%s,%s,category,%s,%s,%.3f,,\n", pre, cfgs, openpim_ckks_category_name(c),
               openpim_ckks_category_name(c), t.us[c]);
    printf("%s,%s,total,total,total,%.3f,,%.3f\n", pre, cfgs, t.total_us, wall);
    if (argc == 9) {
        snprintf(path, sizeof path, "%s.out", argv[8]);
        FILE *o = fopen(path, "wb");
        if (!o) {
            perror(path);
            return 1;
        }
        for (int c = 0; c < 2; c++) {
            CHECK(openpim_he_poly_download(he, out[c], buf));
            put(o, buf, words);
        }
        fclose(o);
    }
    fflush(stdout);
    openpim_ckks_key_free(ctx, key);
    openpim_ckks_context_destroy(ctx);
    free(buf);
    return 0;
}
