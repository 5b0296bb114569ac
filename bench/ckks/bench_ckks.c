/* CKKS homomorphic multiplication (paper 000 Fig. 16) on the emulated server:
 * modelled time of each step and of the figure's categories, as CSV.
 *
 *   bench_ckks header
 *   bench_ckks N L K DNUM BITS DPUS_PER_LIMB COUNT [DUMP_PREFIX]
 *   bench_ckks ntt2d N K_LIMBS DPUS_PER_LIMB
 *   bench_ckks conv N L K DNUM BITS DPUS_PER_LIMB
 *
 * COUNT ciphertext pairs are multiplied at once (he's arrays), on
 * DPUS_PER_LIMB x (L + 1 + K) DPUs.  Inputs and key are pseudo-random words
 * (a fixed seed).  With
 * DUMP_PREFIX the inputs go to PREFIX.in (ckks_cli's format) and the product
 * to PREFIX.out, for bench/ckks/check.py to compare with the Python reference.
 * Rows: ckks,N,L,K,dnum,dpus,count,kind,name,category,modelled_us,kernel_us,wall_s
 * (kind: step / category / total); ntt2d rows: kind = comm path, name = the
 * fields of the space-separated modelled_us column, category = g; conv rows:
 * count = g, kind = launch / conv. */
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

/* he's 2D NTT (Jonatan et al. section 5.2.3) of one RNS polynomial of the
 * same k limbs on g DPUs per limb (g k DPUs, one limb per group), both of
 * comm's All-to-All paths: the NTT the paper's Figure 16 uses, for the
 * composition in table.py.  Checked against he's 1D NTT. */
static int ntt2d(uint32_t n, uint32_t k, uint32_t g)
{
    struct openpim_he_params p;
    CHECK(openpim_he_params_generate(n, k, 30, &p));
    const size_t words = (size_t)k * n;
    uint32_t *in = malloc(words * 4), *out = malloc(words * 4), *ref = malloc(words * 4);
    if (!in || !out || !ref)
        return 1;
    for (uint32_t j = 0; j < k; j++)
        for (uint32_t x = 0; x < n; x++)
            in[(size_t)j * n + x] = rnd(p.moduli[j]);
    struct openpim_he_config c1 = {.nr_dpus = k};
    openpim_he_context *ctx;
    openpim_he_poly *poly;
    CHECK(openpim_he_context_create(&p, &c1, &ctx));
    CHECK(openpim_he_poly_alloc(ctx, 1, &poly));
    CHECK(openpim_he_poly_upload(ctx, poly, in, OPENPIM_HE_COEFF));
    CHECK(openpim_he_ntt(ctx, poly, poly));
    CHECK(openpim_he_poly_download(ctx, poly, ref));
    openpim_he_context_destroy(ctx);
    for (int impl = 0; impl < 2; impl++) {
        struct openpim_he_ntt2d_config c = {.nr_dpus = g * k, .group_dpus = g, .count = 1,
                                            .comm = impl ? OPENPIM_HE_COMM_OPTIMISED : OPENPIM_HE_COMM_BASELINE};
        openpim_he_ntt2d *h;
        struct openpim_he_ntt2d_times t;
        CHECK(openpim_he_ntt2d_create(&p, &c, &h));
        CHECK(openpim_he_ntt2d_forward(h, in, out, &t));
        openpim_he_ntt2d_destroy(h);
        if (memcmp(out, ref, words * 4)) {
            fprintf(stderr, "bench_ckks ntt2d: %u DPUs per limb: result differs from the 1D NTT\n", g);
            return 1;
        }
        printf("ntt2d,%u,,,,%u,1,%s,kernel1 inter_dpu kernel2 cpu_dpu dpu_cpu kernel1_dpu kernel2_dpu,%u,"
               "%.3f %.3f %.3f %.3f %.3f %.3f %.3f,,\n", n, g * k, impl ? "optimised" : "baseline", g, t.kernel1_us,
               t.inter_dpu_us, t.kernel2_us, t.cpu_dpu_us, t.dpu_cpu_us, t.kernel1_dpu_us, t.kernel2_dpu_us);
    }
    fflush(stdout);
    free(in);
    free(out);
    free(ref);
    return 0;
}

/* The multiplication's base conversions alone (no NTTs: cheap to emulate at
 * large DPU counts), on the same moduli and DPUs as the multiplication: g
 * polynomials on g DPUs per limb, each conversion's modelled time and kernel
 * time, and one launch's overhead (an addition's time less its kernel). */
static int conversions(struct openpim_ckks_params p, uint32_t g)
{
    CHECK(openpim_ckks_params_check(&p));
    const uint32_t l1 = p.levels + 1, k = l1 + p.ext_limbs, alpha = l1 / p.dnum;
    struct openpim_he_params hp;
    CHECK(openpim_he_params_generate(p.n, k, p.bits, &hp));
    struct openpim_he_config cfg = {.nr_dpus = g * k};
    openpim_he_context *he;
    CHECK(openpim_he_context_create(&hp, &cfg, &he));
    const size_t words = (size_t)g * k * p.n;
    uint32_t *buf = malloc(words * 4);
    if (!buf)
        return 1;
    fill(buf, g, &hp);
    openpim_he_poly *x, *y;
    CHECK(openpim_he_poly_alloc(he, g, &x));
    CHECK(openpim_he_poly_alloc(he, g, &y));
    CHECK(openpim_he_poly_upload(he, x, buf, OPENPIM_HE_COEFF));
    char cfgs[128];
    snprintf(cfgs, sizeof cfgs, "%u,%u,%u,%u,%u,%u", p.n, p.levels, p.ext_limbs, p.dnum, g * k, g);
    double t0 = openpim_modelled_time_us();
    CHECK(openpim_he_add(he, y, x, x));
    printf("conv,%s,launch,launch,poly add,%.3f,%.3f,\n", cfgs, openpim_modelled_time_us() - t0,
           openpim_he_last_kernel_us(he));
    uint32_t from[OPENPIM_HE_MAX_MODULI], to[OPENPIM_HE_MAX_MODULI];
    for (uint32_t c = 0; c < p.dnum + 4; c++) {
        uint32_t nf = 0, nt = 0;
        char name[32];
        for (uint32_t i = 0; i < k; i++) {
            int src, dst;
            if (c < p.dnum) { /* ModUp of digit c */
                src = i >= c * alpha && i < (c + 1) * alpha, dst = !src;
                snprintf(name, sizeof name, "modup[%u] conv", c);
            } else if (c < p.dnum + 2) { /* ModDown: P -> Q */
                src = i >= l1, dst = i < l1;
                snprintf(name, sizeof name, "moddown[%u] conv", c - p.dnum);
            } else { /* rescale: q_L -> q_0 .. q_{L-1} */
                src = i == p.levels, dst = i < p.levels;
                snprintf(name, sizeof name, "rescale[%u] conv", c - p.dnum - 2);
            }
            if (src)
                from[nf++] = i;
            else if (dst)
                to[nt++] = i;
        }
        openpim_he_baseconv *bc;
        CHECK(openpim_he_baseconv_create(he, from, nf, to, nt, &bc));
        t0 = openpim_modelled_time_us();
        CHECK(openpim_he_base_convert(he, bc, y, x));
        printf("conv,%s,conv,%s,%s,%.3f,%.3f,\n", cfgs, name, c < p.dnum + 2 ? "key switching" : "poly mult",
               openpim_modelled_time_us() - t0, openpim_he_last_kernel_us(he));
        openpim_he_baseconv_free(he, bc);
    }
    fflush(stdout);
    openpim_he_context_destroy(he);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 8 && strcmp(argv[1], "conv") == 0) {
        struct openpim_ckks_params p = {(uint32_t)atol(argv[2]), (uint32_t)atol(argv[3]), (uint32_t)atol(argv[4]),
                                        (uint32_t)atol(argv[5]), (uint32_t)atol(argv[6])};
        return conversions(p, (uint32_t)atol(argv[7]));
    }
    if (argc == 5 && strcmp(argv[1], "ntt2d") == 0)
        return ntt2d((uint32_t)atol(argv[2]), (uint32_t)atol(argv[3]), (uint32_t)atol(argv[4]));
    if (argc == 2 && strcmp(argv[1], "header") == 0) {
        printf("bench,n,L,K,dnum,dpus,count,kind,name,category,modelled_us,kernel_us,wall_s\n");
        return 0;
    }
    if (argc != 8 && argc != 9) {
        fprintf(stderr, "usage: bench_ckks header | N L K DNUM BITS DPUS_PER_LIMB COUNT [DUMP_PREFIX] | ntt2d N K G | conv N L K DNUM BITS G\n");
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
