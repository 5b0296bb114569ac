/* SPDX-License-Identifier: MIT */
/* HE benchmark, modelled DPU time (deterministic):
 *   1. multiply routines by operand size (DRAMatic Figure 3 analogue): modelled
 *      DPU instructions per operation of the custom and native 32->32, 32->64
 *      multiplies and of the Barrett modular multiply;
 *   2. NTT, iNTT, BGV multiply (tensor) and the combined test (NTT of both
 *      ciphertexts, tensor, iNTT of the product) on `dpus` DPUs, DRAMatic's 1D
 *      split, for n = 2^12, 2^13, 2^14 at DRAMatic's parameters (section 4.2:
 *      SEAL's default coefficient modulus for 128-bit security), in moduli of
 *      32 bits as DRAMatic's (the library's wide kernels), and `slots`
 *      sub-polynomials per DPU and array (16 = one per tasklet).  Part 1's
 *      Barrett row is the 30-bit kernels' reduction.
 *
 *   bench_he MULBENCH_IMAGE [dpus [slots [max_log_n [kernel_group]]]]
 * BENCH_HE_KERNELS_ONLY=1 prints part 2 only.  BENCH_HE_MUL_METHOD=custom_call,
 * dummy_call or dummy_inline (DRAMatic's Fig. 10 method, he/dpu/he_modarith.h)
 * runs part 2 with the image he_dpu_<method> alone (its _wide build), its rows labelled so;
 * BENCH_HE_MULCOST=1 prints the custom routines' instructions per operation
 * of MULBENCH_IMAGE at 32-bit operands (one RESULT_MULCOST line) and exits.
 * The combined test's product is checked against its definition, except for
 * the dummy methods (wrong products on purpose), which say so.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in bench.h under -std=c11 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpu.h>

#include "openpim_he.h"

#include "../bench.h"

/* DRAMatic's moduli: 32 bits (the library's HE_WIDE kernels) */
#define BENCH_MODULUS_BITS 32

#define CHECK_HE(call)                                                                                          \
    do {                                                                                                        \
        openpim_he_status st_ = (call);                                                                         \
        if (st_ != OPENPIM_HE_OK) {                                                                             \
            fprintf(stderr, "%s: %s\n", #call, openpim_he_last_error());                                        \
            exit(1);                                                                                            \
        }                                                                                                       \
    } while (0)

static uint64_t mulbench_instr(struct dpu_set_t set, uint32_t op, uint32_t a, uint32_t b, uint32_t reps)
{
    uint32_t operands[2] = {a, b};
    DPU_ASSERT(dpu_copy_to(set, "mb_op", 0, &op, 4));
    DPU_ASSERT(dpu_copy_to(set, "mb_reps", 0, &reps, 4));
    DPU_ASSERT(dpu_copy_to(set, "mb_operands", 0, operands, 8));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    struct dpu_set_t dpu;
    struct openpim_dpu_stats s = {0};
    DPU_FOREACH(set, dpu)
    {
        DPU_ASSERT(openpim_get_dpu_stats(dpu, &s));
    }
    return s.instructions;
}

#define MULBENCH_Q 1073692673u
#define MULBENCH_REPS 4096

static struct dpu_set_t mulbench_load(const char *image)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(1, "nrRanks=1", &set));
    DPU_ASSERT(dpu_load(set, image, NULL));
    const uint32_t q = MULBENCH_Q, bits = 30, mu = (uint32_t)((1ull << 60) / q);
    DPU_ASSERT(dpu_copy_to(set, "mb_q", 0, &q, 4));
    DPU_ASSERT(dpu_copy_to(set, "mb_bits", 0, &bits, 4));
    DPU_ASSERT(dpu_copy_to(set, "mb_mu", 0, &mu, 4));
    return set;
}

/* Instructions per operation `op` (1..6) on x (the modular multiplies on min(x, q - 1)): the loop minus
 * the same loop with an add, + 1 (the add). */
static double mulbench_per_op(struct dpu_set_t set, uint32_t op, uint32_t x)
{
    const uint32_t v = op >= 5 && x >= MULBENCH_Q ? MULBENCH_Q - 1 : x, reps = MULBENCH_REPS;
    return (double)(mulbench_instr(set, op, v, v, reps) - mulbench_instr(set, 0, v, v, reps)) / reps + 1;
}

/* The custom routines' costs (32x32->32, 32x32->64, modular multiply) at 32-bit factors, as the image was
 * built (whatif.sh builds one per HE_MUL_METHOD: the difference is the call). */
static void mulcost_line(const char *image)
{
    struct dpu_set_t set = mulbench_load(image);
    printf("RESULT_MULCOST %.1f %.1f %.1f\n", mulbench_per_op(set, 2, 0xffffffffu),
           mulbench_per_op(set, 4, 0xffffffffu), mulbench_per_op(set, 6, 0xffffffffu));
    DPU_ASSERT(dpu_free(set));
}

static void multiply_table(const char *image)
{
    struct dpu_set_t set = mulbench_load(image);
    const uint32_t q = MULBENCH_Q;
    printf("## Multiply routines: modelled DPU instructions per operation (= cycles at >= 11 tasklets)\n");
    printf("## operands a = b = 2^bits - 1 (mulmod: min(that, q - 1), q = %u); loop minus the same loop with an add, + 1\n", q);
    printf("%5s %10s %10s %10s %10s %12s %12s\n", "bits", "32x32->32", "32x32->32", "32x32->64", "32x32->64",
           "mulmod", "mulmod");
    printf("%5s %10s %10s %10s %10s %12s %12s\n", "", "native", "custom", "native", "custom", "native", "custom");
    for (uint32_t b = 1; b <= 32; b++) {
        double per[6];
        for (uint32_t op = 1; op <= 6; op++)
            per[op - 1] = mulbench_per_op(set, op, b == 32 ? 0xffffffffu : (1u << b) - 1);
        printf("%5u %10.1f %10.1f %10.1f %10.1f %12.1f %12.1f\n", b, per[0], per[1], per[2], per[3], per[4], per[5]);
    }
    printf("## DRAMatic (Sec. 3.1.1, real v1B DPU): custom 32->64 35 cycles, custom 32->32 21 cycles, native 32->32 "
           "data-dependent (custom faster when both factors exceed 16 bits)\n\n");
    DPU_ASSERT(dpu_free(set));
}

/* Moduli per ciphertext at DRAMatic's parameters.  It uses SEAL's default
 * coefficient modulus (CoeffModulus::BFVDefault: 36+36+37, 43+43+44+44+44 and
 * 3 x 48 + 6 x 49 bits for n = 4096, 8192, 16384), whose last prime is SEAL's
 * special prime: ciphertexts carry 72, 174, 389 bits, in 2, 4, 8 residues of
 * 64-bit words on SEAL's side, and DRAMatic splits them into 32-bit RNS words
 * (section 3.1; for n = 4096 it needs multiples of 3 ranks, section 4.4:
 * 3 moduli).  Here the same bits in moduli of 32 bits, as DRAMatic's:
 * 3, 6, 13.  seal_bench.py checks the bit counts against SEAL's. */
static uint32_t dramatic_moduli(uint32_t log_n)
{
    static const uint32_t data_bits[] = {[12] = 72, [13] = 174, [14] = 389};
    if (log_n < 12 || log_n > 14) {
        fprintf(stderr, "bench_he: n = 2^%u: DRAMatic's parameters are known for n = 2^12 ... 2^14\n", log_n);
        exit(2);
    }
    return (data_bits[log_n] + BENCH_MODULUS_BITS - 1) / BENCH_MODULUS_BITS;
}

struct times {
    double ntt, intt, bgv, combined, upload, download;
};

static double sdk_us_since(double *mark)
{
    double now = openpim_modelled_time_us(), d = now - *mark;
    *mark = now;
    return d;
}

/* The kernels' build: mul's image, or with image set (he_dpu_<method>) a build of DRAMatic's Fig. 10 method. */
struct variant {
    enum openpim_he_mul mul;
    const char *name;  /* the rows' label */
    const char *image; /* NULL: mul's */
    bool dummy;        /* wrong products on purpose: outputs not checked */
};

static openpim_he_context *make_context(uint32_t log_n, uint32_t k, uint32_t dpus, enum openpim_he_mul mul,
                                        const char *image)
{
    struct openpim_he_params p;
    CHECK_HE(openpim_he_params_generate(1u << log_n, k, BENCH_MODULUS_BITS, &p));
    struct openpim_he_config c = {.nr_dpus = dpus, .mul = mul, .dpu_dir = getenv("OPENPIM_HE_DPU_DIR"), .image = image};
    openpim_he_context *ctx;
    CHECK_HE(openpim_he_context_create(&p, &c, &ctx));
    return ctx;
}

/* Random data, reduced mod the moduli of p, for an array of `count` polynomials. */
static uint32_t *random_data(const struct openpim_he_params *pp, uint32_t count, uint64_t seed)
{
    const struct openpim_he_params p = *pp;
    const uint32_t k = p.nr_moduli;
    const size_t words = (size_t)count * k * p.n;
    uint32_t *data = malloc(words * 4);
    if (!data)
        exit(1);
    for (size_t w = 0; w < words; w++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        data[w] = (uint32_t)(seed % p.moduli[(w / p.n) % k]);
    }
    return data;
}

/* Coefficients 0, n/2 + 1 and n - 1 of a^2 mod (X^n + 1) in every residue, by the definition (c_j = sum
 * over t <= j of a_t a_(j-t) minus sum over t > j of a_t a_(n+j-t)), against c: the NTT, tensor and iNTT
 * together (every coefficient takes the same code path). */
static bool square_ok(const struct openpim_he_params *p, const uint32_t *a, const uint32_t *c)
{
    const uint32_t n = p->n, js[3] = {0, n / 2 + 1, n - 1};
    for (uint32_t i = 0; i < p->nr_moduli; i++) {
        const uint64_t q = p->moduli[i];
        const uint32_t *x = a + (size_t)i * n, *y = c + (size_t)i * n;
        for (int jj = 0; jj < 3; jj++) {
            const uint32_t j = js[jj];
            uint64_t s = 0;
            for (uint32_t t = 0; t < n; t++) {
                const uint64_t prod = (uint64_t)x[t] * x[(j - t) & (n - 1)] % q;
                s = (t <= j ? s + prod : s + q - prod) % q;
            }
            if (s != y[j])
                return false;
        }
    }
    return true;
}

/* The kernels of the combined test (NTT of both ciphertexts' 4 arrays, tensor,
 * iNTT of the product's 3 arrays) on `dpus` DPUs, `slots` sub-polynomials per
 * DPU and array; then the product is checked (not for a dummy multiply). */
static void kernels(uint32_t log_n, uint32_t k, uint32_t dpus, uint32_t slots, const struct variant *v,
                    struct times *t)
{
    struct openpim_he_params p;
    CHECK_HE(openpim_he_params_generate(1u << log_n, k, BENCH_MODULUS_BITS, &p));
    openpim_he_context *ctx = make_context(log_n, k, dpus, v->mul, v->image);
    const uint32_t count = slots * openpim_he_group_size(ctx);
    uint32_t *data = random_data(&p, count, 88172645463325252ull);
    /* every input array holds `data`: out[0] = in[0] in[2] is the square of its first polynomial */
    uint32_t *first = malloc((size_t)k * p.n * 4);
    if (!first)
        exit(1);
    memcpy(first, data, (size_t)k * p.n * 4);
    openpim_he_poly *in[4], *out[3];
    for (int i = 0; i < 4; i++) {
        CHECK_HE(openpim_he_poly_alloc(ctx, count, &in[i]));
        CHECK_HE(openpim_he_poly_upload(ctx, in[i], data, OPENPIM_HE_COEFF));
    }
    for (int i = 0; i < 3; i++)
        CHECK_HE(openpim_he_poly_alloc(ctx, count, &out[i]));
    double mark = openpim_modelled_time_us();
    for (int i = 0; i < 4; i++) {
        CHECK_HE(openpim_he_ntt(ctx, in[i], in[i]));
        if (i == 0)
            t->ntt = openpim_he_last_kernel_us(ctx);
    }
    openpim_he_poly *const o[3] = {out[0], out[1], out[2]};
    const openpim_he_poly *const a[2] = {in[0], in[1]}, *const b[2] = {in[2], in[3]};
    CHECK_HE(openpim_he_bgv_multiply(ctx, o, a, b));
    t->bgv = openpim_he_last_kernel_us(ctx);
    for (int i = 0; i < 3; i++) {
        CHECK_HE(openpim_he_intt(ctx, out[i], out[i]));
        if (i == 0)
            t->intt = openpim_he_last_kernel_us(ctx);
    }
    t->combined = sdk_us_since(&mark); /* launches with their command broadcasts */
    if (v->dummy) {
        printf("## dummy multiply (%s): outputs not checked\n", v->name);
    } else {
        CHECK_HE(openpim_he_poly_download(ctx, out[0], data));
        if (!square_ok(&p, first, data)) {
            fprintf(stderr, "bench_he: n = %u, %s: the combined test's product is wrong\n", p.n, v->name);
            exit(1);
        }
    }
    free(first);
    free(data);
    openpim_he_context_destroy(ctx);
}

/* `ins` uploads then `outs` downloads of one array on `dpus` DPUs. */
static void transfers_of(uint32_t log_n, uint32_t k, uint32_t dpus, uint32_t slots, int ins, int outs,
                         struct times *t)
{
    struct openpim_he_params p;
    CHECK_HE(openpim_he_params_generate(1u << log_n, k, BENCH_MODULUS_BITS, &p));
    openpim_he_context *ctx = make_context(log_n, k, dpus, OPENPIM_HE_MUL_CUSTOM, NULL);
    const uint32_t count = slots * openpim_he_group_size(ctx);
    uint32_t *data = random_data(&p, count, 1);
    openpim_he_poly *arr;
    CHECK_HE(openpim_he_poly_alloc(ctx, count, &arr));
    double mark = openpim_modelled_time_us();
    for (int i = 0; i < ins; i++)
        CHECK_HE(openpim_he_poly_upload(ctx, arr, data, OPENPIM_HE_COEFF));
    t->upload = sdk_us_since(&mark);
    for (int i = 0; i < outs; i++)
        CHECK_HE(openpim_he_poly_download(ctx, arr, data));
    t->download = sdk_us_since(&mark);
    free(data);
    openpim_he_context_destroy(ctx);
}

/* The combined test's transfers on `dpus` DPUs: 4 arrays in, 3 out. */
static void transfers(uint32_t log_n, uint32_t k, uint32_t dpus, uint32_t slots, struct times *t)
{
    transfers_of(log_n, k, dpus, slots, 4, 3, t);
}

/* DRAMatic section 6's absolute figure (its BMP+ comparison): 2^16-point NTTs
 * of 1241-bit polynomials on 256 DPUs take 32.6 ms per polynomial with their
 * transfers (23 ms on 509 DPUs).  Here: ceil(1241 / 32) = 39 moduli, `slots`
 * sub-polynomials per DPU (16: every tasklet busy, as DRAMatic's 4096
 * polynomials keep them), the NTT on one DPU per modulus (its modelled time
 * is the same on every DPU of a group), one array's upload and download on
 * all `dpus` DPUs; per polynomial = (kernel + up + down) / polynomials. */
static void bmp_anchor(uint32_t dpus, uint32_t slots)
{
    const uint32_t log_n = 16, k = (1241 + BENCH_MODULUS_BITS - 1) / BENCH_MODULUS_BITS;
    struct openpim_he_params p;
    CHECK_HE(openpim_he_params_generate(1u << log_n, k, BENCH_MODULUS_BITS, &p));
    openpim_he_context *ctx = make_context(log_n, k, k, OPENPIM_HE_MUL_CUSTOM, NULL);
    uint32_t *data = random_data(&p, slots, 5);
    openpim_he_poly *arr;
    CHECK_HE(openpim_he_poly_alloc(ctx, slots, &arr));
    CHECK_HE(openpim_he_poly_upload(ctx, arr, data, OPENPIM_HE_COEFF));
    CHECK_HE(openpim_he_ntt(ctx, arr, arr));
    const double kernel = openpim_he_last_kernel_us(ctx);
    free(data);
    openpim_he_context_destroy(ctx);
    struct times xfer = {0};
    transfers_of(log_n, k, dpus, slots, 1, 1, &xfer);
    const uint32_t polys = slots * (dpus / k);
    printf("%6u %3u %5u %7u %12.3f %9.3f %9.3f %12.2f\n", 1u << log_n, k, dpus / k * k, polys, kernel / 1e3,
           xfer.upload / 1e3, xfer.download / 1e3, (kernel + xfer.upload + xfer.download) / polys / 1e3);
    printf("RESULT_BMP %u %u %.4f %.4f %.4f %.4f\n", dpus, polys, kernel / 1e3, xfer.upload / 1e3,
           xfer.download / 1e3, (kernel + xfer.upload + xfer.download) / polys / 1e3);
    fflush(stdout);
}

/* DRAMatic Fig. 7's single ciphertext: the NTT of one ciphertext (2
 * polynomials) at n = 2048, 54-bit coefficients (2 moduli here), on 128 DPUs
 * takes 42 ms of computation.  Coarse-grained, each sub-polynomial is one
 * tasklet's on its own DPU, so this is the one-tasklet speed. */
static void fig7_anchor(void)
{
    const uint32_t log_n = 11, k = (54 + BENCH_MODULUS_BITS - 1) / BENCH_MODULUS_BITS;
    struct openpim_he_params p;
    CHECK_HE(openpim_he_params_generate(1u << log_n, k, BENCH_MODULUS_BITS, &p));
    openpim_he_context *ctx = make_context(log_n, k, 128, OPENPIM_HE_MUL_CUSTOM, NULL);
    uint32_t *data = random_data(&p, 2, 3);
    openpim_he_poly *arr;
    CHECK_HE(openpim_he_poly_alloc(ctx, 2, &arr));
    CHECK_HE(openpim_he_poly_upload(ctx, arr, data, OPENPIM_HE_COEFF));
    CHECK_HE(openpim_he_ntt(ctx, arr, arr));
    const double kernel = openpim_he_last_kernel_us(ctx);
    free(data);
    openpim_he_context_destroy(ctx);
    printf("## DRAMatic Fig. 7: NTT of 1 ciphertext, n = 2048, %u moduli, 128 DPUs (one sub-polynomial per DPU, "
           "one tasklet): %.3f ms; published 42 ms\n", k, kernel / 1e3);
    printf("RESULT_FIG7 %.4f\n", kernel / 1e3);
    fflush(stdout);
}

/* Relinearisation of `slots` * g ciphertexts (SEAL's scheme with a special
 * modulus, random reduced data and key): modelled kernels and the whole call
 * (kernels + the host relays of the 1D split), on k + 1 groups of g DPUs. */
static void relin(uint32_t log_n, uint32_t k, uint32_t g, uint32_t slots, enum openpim_he_mul mul, double *kernel_us,
                  double *total_us, uint32_t *cts)
{
    struct openpim_he_params p;
    CHECK_HE(openpim_he_params_generate(1u << log_n, k + 1, 28, &p));
    p.special_modulus = p.moduli[k];
    p.moduli[k] = 0;
    p.nr_moduli = k;
    struct openpim_he_config c = {.nr_dpus = g * (k + 1), .mul = mul, .dpu_dir = getenv("OPENPIM_HE_DPU_DIR")};
    openpim_he_context *ctx;
    CHECK_HE(openpim_he_context_create(&p, &c, &ctx));
    const uint32_t n = p.n, count = slots * g;
    uint32_t *data = random_data(&p, count, 7);
    openpim_he_poly *in[3];
    for (int i = 0; i < 3; i++) {
        CHECK_HE(openpim_he_poly_alloc(ctx, count, &in[i]));
        CHECK_HE(openpim_he_poly_upload(ctx, in[i], data, OPENPIM_HE_NTT));
    }
    uint32_t *key = calloc((size_t)k * 2 * (k + 1) * n, 4);
    if (!key)
        exit(1);
    for (size_t w = 0; w < (size_t)k * 2 * (k + 1) * n; w++)
        key[w] = (uint32_t)(w * 2654435761u % 1000003u); /* below every 28-bit modulus */
    openpim_he_relin_key *rk;
    CHECK_HE(openpim_he_relin_key_upload(ctx, key, &rk));
    double mark = openpim_modelled_time_us();
    openpim_he_poly *const out[2] = {in[0], in[1]};
    const openpim_he_poly *const args[3] = {in[0], in[1], in[2]};
    CHECK_HE(openpim_he_relinearize(ctx, rk, 65537, out, args));
    *kernel_us = openpim_he_last_kernel_us(ctx);
    *total_us = sdk_us_since(&mark);
    *cts = count;
    free(key);
    free(data);
    openpim_he_context_destroy(ctx);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_he MULBENCH_IMAGE [dpus [slots [max_log_n [kernel_group]]]]\n");
        return 2;
    }
    uint32_t dpus = argc > 2 ? (uint32_t)bench_parse_u64("dpus", argv[2], 1, 2560) : 383;
    uint32_t slots = argc > 3 ? (uint32_t)bench_parse_u64("slots", argv[3], 1, 1u << 16) : 16;
    /* the kernel table runs n = 2^12 .. 2^max_log_n: below 12 it would be empty */
    uint32_t max_log_n = argc > 4 ? (uint32_t)bench_parse_u64("max_log_n", argv[4], 12, 16) : 14;
    uint32_t kernel_group = argc > 5 ? (uint32_t)bench_parse_u64("kernel_group", argv[5], 0, 2560) : 0;
    /* BENCH_HE_KERNELS_ONLY=1: the kernel table alone (the what-if runs of whatif.sh) */
    const bool kernels_only = getenv("BENCH_HE_KERNELS_ONLY") && atoi(getenv("BENCH_HE_KERNELS_ONLY"));
    if (getenv("BENCH_HE_MULCOST") && atoi(getenv("BENCH_HE_MULCOST"))) {
        mulcost_line(argv[1]);
        return 0;
    }
    /* the library's two builds, or one build of DRAMatic's Fig. 10 method */
    struct variant variants[2] = {{OPENPIM_HE_MUL_CUSTOM, "custom", NULL, false},
                                  {OPENPIM_HE_MUL_NATIVE, "native", NULL, false}};
    int nr_variants = 2;
    static char method_image[64];
    const char *method = getenv("BENCH_HE_MUL_METHOD");
    if (method && *method) {
        if (strcmp(method, "custom_call") && strcmp(method, "dummy_call") && strcmp(method, "dummy_inline")) {
            fprintf(stderr, "bench_he: BENCH_HE_MUL_METHOD=%s: one of custom_call, dummy_call, dummy_inline\n",
                    method);
            return 2;
        }
        snprintf(method_image, sizeof method_image, "he_dpu_%s", method);
        variants[0] = (struct variant){OPENPIM_HE_MUL_CUSTOM, method, method_image, !strncmp(method, "dummy", 5)};
        nr_variants = 1;
        if (!kernels_only) {
            fprintf(stderr, "bench_he: BENCH_HE_MUL_METHOD needs BENCH_HE_KERNELS_ONLY=1 (the other parts use the "
                            "library's builds)\n");
            return 2;
        }
    }
    if (!kernels_only)
        multiply_table(argv[1]);

    printf("## HE kernels, modelled: %u DPUs, %u sub-polynomials per DPU and array (%s tasklets busy in the (i)NTT), "
           "%u-bit moduli, as many as DRAMatic's parameters need (SEAL's default coefficient modulus less its "
           "special prime)\n", dpus, slots, slots >= 16 ? "all 16" : "not all", BENCH_MODULUS_BITS);
    if (kernel_group)
        printf("## kernels run on %u DPU(s) per modulus (each DPU's modelled time depends only on its own "
               "sub-polynomials: the same at %u DPUs, up to the few cycles in 10^5 that the values of other "
               "DPUs' data would move it); transfers run on all %u DPUs\n", kernel_group, dpus, dpus);
    printf("## times in ms; per-ct = (combined + up + down) / ciphertext pairs, in us\n");
    printf("%6s %3s %5s %7s %7s %9s %9s %9s %10s %9s %9s %10s\n", "n", "k", "DPUs", "mul", "ct", "NTT", "iNTT", "BGV",
           "combined", "up", "down", "per-ct us");
    for (uint32_t log_n = 12; log_n <= max_log_n; log_n++) {
        uint32_t k = dramatic_moduli(log_n);
        struct times xfer = {0};
        transfers(log_n, k, dpus, slots, &xfer);
        uint32_t used = dpus / k * k, cts = slots * (dpus / k);
        for (int v = 0; v < nr_variants; v++) {
            struct times t = {0};
            kernels(log_n, k, kernel_group ? kernel_group * k : dpus, slots, &variants[v], &t);
            printf("%6u %3u %5u %7s %7u %9.3f %9.3f %9.3f %10.3f %9.3f %9.3f %10.2f\n", 1u << log_n, k, used,
                   variants[v].name, cts, t.ntt / 1e3, t.intt / 1e3, t.bgv / 1e3, t.combined / 1e3,
                   xfer.upload / 1e3, xfer.download / 1e3, (t.combined + xfer.upload + xfer.download) / cts);
            /* per ciphertext: NTT of one ciphertext (2 polynomials), iNTT of one product (3), tensor of one
             * pair, combined test of one pair, transfers of one pair */
            printf("RESULT %u %u %s %.4f %.4f %.4f %.4f %.4f %.4f\n", 1u << log_n, k, variants[v].name,
                   2 * t.ntt / cts, 3 * t.intt / cts, t.bgv / cts, t.combined / cts, xfer.upload / cts,
                   xfer.download / cts);
            fflush(stdout);
        }
    }
    if (kernels_only)
        return 0;
    /* BENCH_HE_BMP=0 leaves out the 2^16-point anchor (minutes of host time) */
    if (!getenv("BENCH_HE_BMP") || atoi(getenv("BENCH_HE_BMP"))) {
        printf("\n## DRAMatic section 6 (its BMP+ comparison): 2^16-point NTT, 1241-bit polynomials in %u-bit "
               "moduli, %u sub-polynomials per DPU; published: 32.6 ms per polynomial on 256 DPUs, 23 ms on 509, "
               "with transfers\n", BENCH_MODULUS_BITS, slots);
        printf("%6s %3s %5s %7s %12s %9s %9s %12s\n", "n", "k", "DPUs", "polys", "NTT ms", "up ms", "down ms",
               "ms per poly");
        bmp_anchor(256, slots);
        bmp_anchor(509, slots);
    }
    fig7_anchor();
    printf("\n## Relinearisation (not in DRAMatic), modelled: k + 1 groups of 1 DPU (the special modulus has its own), "
           "%u ciphertexts per DPU\n", slots);
    printf("## total = kernels + transfers of the host relays (c2's RNS digits to every group; the special group's "
           "sums back; the BGV corrections out)\n");
    printf("%6s %3s %7s %12s %12s %16s\n", "n", "k", "mul", "kernels ms", "total ms", "per-ct total us");
    for (uint32_t log_n = 12; log_n <= (max_log_n < 13 ? max_log_n : 13); log_n++)
        for (int v = 0; v < 2; v++) {
            double kus, tus;
            uint32_t cts, k = 1u << (log_n - 10);
            relin(log_n, k, 1, slots, v ? OPENPIM_HE_MUL_NATIVE : OPENPIM_HE_MUL_CUSTOM, &kus, &tus, &cts);
            printf("%6u %3u %7s %12.3f %12.3f %16.2f\n", 1u << log_n, k, v ? "native" : "custom", kus / 1e3, tus / 1e3,
                   tus / cts);
            fflush(stdout);
        }
    return 0;
}
