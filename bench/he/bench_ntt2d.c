/* SPDX-License-Identifier: MIT */
/* 2D NTT across DPUs (Jonatan et al., section 5.2.3), modelled time by the
 * paper's categories, one CSV row per run:
 *   bench_ntt2d scaling [dpus ...]   Fig. 14: 8 residue NTTs of n = 2^16
 *                                    (8 moduli of 30 bits) on 32 ... 2048 DPUs,
 *                                    forward, then the inverse of its result
 *   bench_ntt2d logq LOGQ DPUS       Fig. 15: ceil(LOGQ / 30) residue NTTs
 *                                    (forward only)
 * Groups of min(DPUs, 256) DPUs share each NTT (model-level parallelism up
 * to 256 DPUs, then input-level: the paper's "hybrid").  Every run uses all
 * its DPUs, kernels and All-to-All alike, with both of comm's All-to-All
 * implementations (the baseline is the paper's host-mediated exchange).
 * Each forward result is checked against the library's 1D NTT on a small
 * sample, each inverse result against the forward's input (all of it). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in bench.h under -std=c11 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpu.h>

#include "openpim_he.h"

#include "../bench.h"

#define LOG_N 16
#define MODULUS_BITS 30

#define CHECK_HE(call)                                                                                          \
    do {                                                                                                        \
        openpim_he_status st_ = (call);                                                                         \
        if (st_ != OPENPIM_HE_OK) {                                                                             \
            fprintf(stderr, "%s: %s\n", #call, openpim_he_last_error());                                        \
            exit(1);                                                                                            \
        }                                                                                                       \
    } while (0)

/* One polynomial of k residues: count * k NTTs with count = 1 as long as k
 * fits OPENPIM_HE_MAX_MODULI (always, up to log Q = 3840). */
static void print_row(const char *fig, const char *dir, uint32_t dpus, uint32_t limbs, uint32_t logq, int impl,
                      const struct openpim_he_ntt2d_shape *s, const struct openpim_he_ntt2d_times *t)
{
    printf("%s,%u,%u,%u,%u,%u,%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%s\n", fig, dpus, s->group_dpus,
           s->nr_groups, limbs, logq, impl ? "optimised" : "baseline", s->comm_view, t->cpu_dpu_us, t->kernel1_us,
           t->inter_dpu_us, t->kernel2_us, t->dpu_cpu_us, t->total_us, t->kernel1_dpu_us, t->kernel2_dpu_us, dir);
    fflush(stdout);
}

static void run(const char *fig, uint32_t dpus, uint32_t limbs, uint32_t logq, int inverse)
{
    struct openpim_he_params p;
    CHECK_HE(openpim_he_params_generate(1u << LOG_N, limbs, MODULUS_BITS, &p));
    const size_t words = (size_t)limbs << LOG_N;
    uint32_t *in = malloc(words * 4), *out = malloc(words * 4), *back = malloc(words * 4);
    if (!in || !out || !back)
        exit(1);
    uint64_t x = 88172645463325252ull;
    for (size_t w = 0; w < words; w++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        in[w] = (uint32_t)(x % p.moduli[w >> LOG_N]);
    }
    /* reference: the 1D NTT of the first and last residues on 2 DPUs */
    struct openpim_he_params two = {.n = p.n, .nr_moduli = limbs > 1 ? 2 : 1, .moduli = {p.moduli[0], p.moduli[limbs - 1]}};
    uint32_t *ref_in = malloc(two.nr_moduli * 4ull << LOG_N), *ref = malloc(two.nr_moduli * 4ull << LOG_N);
    if (!ref_in || !ref)
        exit(1);
    memcpy(ref_in, in, 4ull << LOG_N);
    memcpy(ref_in + (two.nr_moduli - 1) * (1u << LOG_N), in + (size_t)(limbs - 1) * (1u << LOG_N), 4ull << LOG_N);
    struct openpim_he_config c1 = {.nr_dpus = two.nr_moduli, .dpu_dir = getenv("OPENPIM_HE_DPU_DIR")};
    openpim_he_context *ctx;
    openpim_he_poly *poly;
    CHECK_HE(openpim_he_context_create(&two, &c1, &ctx));
    CHECK_HE(openpim_he_poly_alloc(ctx, 1, &poly));
    CHECK_HE(openpim_he_poly_upload(ctx, poly, ref_in, OPENPIM_HE_COEFF));
    CHECK_HE(openpim_he_ntt(ctx, poly, poly));
    CHECK_HE(openpim_he_poly_download(ctx, poly, ref));
    openpim_he_context_destroy(ctx);

    for (int impl = 0; impl < 2; impl++) {
        struct openpim_he_ntt2d_config c = {
            .nr_dpus = dpus, .group_dpus = dpus < 256 ? dpus : 256, .count = 1,
            .comm = impl ? OPENPIM_HE_COMM_OPTIMISED : OPENPIM_HE_COMM_BASELINE,
            .dpu_dir = getenv("OPENPIM_HE_DPU_DIR")};
        openpim_he_ntt2d *h;
        struct openpim_he_ntt2d_times t;
        struct openpim_he_ntt2d_shape s;
        CHECK_HE(openpim_he_ntt2d_create(&p, &c, &h));
        CHECK_HE(openpim_he_ntt2d_forward(h, in, out, &t));
        CHECK_HE(openpim_he_ntt2d_shape(h, &s));
        if (memcmp(out, ref, 4ull << LOG_N) ||
            memcmp(out + (size_t)(limbs - 1) * (1u << LOG_N), ref + (two.nr_moduli - 1) * (1u << LOG_N),
                   4ull << LOG_N)) {
            fprintf(stderr, "bench_ntt2d: %u DPUs, %u NTTs: result differs from the 1D NTT\n", dpus, limbs);
            exit(1);
        }
        print_row(fig, "forward", dpus, limbs, logq, impl, &s, &t);
        if (inverse) {
            CHECK_HE(openpim_he_ntt2d_inverse(h, out, back, &t));
            CHECK_HE(openpim_he_ntt2d_shape(h, &s));
            if (memcmp(back, in, words * 4)) {
                fprintf(stderr, "bench_ntt2d: %u DPUs, %u NTTs: the inverse does not give the input back\n", dpus,
                        limbs);
                exit(1);
            }
            print_row(fig, "inverse", dpus, limbs, logq, impl, &s, &t);
        }
        openpim_he_ntt2d_destroy(h);
    }
    free(in);
    free(out);
    free(back);
    free(ref_in);
    free(ref);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "header") == 0) {
        printf("fig,dpus,group_dpus,groups,ntts,logq,comm,view,cpu_dpu_us,kernel1_us,inter_dpu_us,kernel2_us,"
               "dpu_cpu_us,total_us,kernel1_dpu_us,kernel2_dpu_us,dir\n");
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "scaling") == 0) {
        static const uint32_t all[] = {32, 64, 128, 256, 512, 1024, 2048};
        if (argc == 2)
            for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
                run("fig14", all[i], 8, 8 * MODULUS_BITS, 1);
        for (int i = 2; i < argc; i++)
            run("fig14", (uint32_t)bench_parse_u64("dpus", argv[i], 1, 2560), 8, 8 * MODULUS_BITS, 1);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "logq") == 0) {
        uint32_t logq = (uint32_t)bench_parse_u64("LOGQ", argv[2], 1, 1u << 16);
        run("fig15", (uint32_t)bench_parse_u64("DPUS", argv[3], 1, 2560), (logq + MODULUS_BITS - 1) / MODULUS_BITS, logq,
            0);
        return 0;
    }
    fprintf(stderr, "usage: bench_ntt2d header | scaling [dpus ...] | logq LOGQ DPUS\n");
    return 2;
}
