/* SPDX-License-Identifier: MIT */
/* Test driver for the HE library: runs one operation on inputs read from a
 * file and writes the results, so that tests/test_he.py can check them
 * against references written in Python (pure Python and SEAL).
 *
 *   he_cli primes N K BITS          print openpim_he_params_generate's moduli
 *   he_cli root Q N                 print the minimal primitive 2N-th root
 *   he_cli OP IN.bin OUT.bin        OP: ntt intt ntt_intt add sub neg mul polymul bgv relin ntt2d
 *                                       intt2d ntt2d_intt2d
 *
 * IN.bin, little-endian uint32: n, k, nr_dpus, mul (0 custom, 1 native), count,
 * nr_inputs, special modulus (0: none), plain modulus t, moduli[k], then
 * nr_inputs arrays of count*k*n words, then for relin the relinearisation key
 * (k*2*(k+1)*n words).  OUT.bin: the result arrays.  Prints "cycles C"
 * (modelled cycles of the operation).  ntt2d: the 2D NTT across DPUs, with
 * the plain-modulus word giving group_dpus (0: automatic) and the collective
 * implementation from OPENPIM_COMM_IMPL; prints "cycles C1 C2" (the steps)
 * and "view V" (whether comm used its physical-view path).  intt2d: the
 * inverse 2D NTT alone; ntt2d_intt2d: the forward then, on the same object,
 * the inverse of its output in place (two output arrays), printing the
 * inverse's steps as "icycles C1 C2". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openpim_he.h"

#define CHECK(call)                                                                                    \
    do {                                                                                               \
        openpim_he_status st_ = (call);                                                                \
        if (st_ != OPENPIM_HE_OK) {                                                                    \
            fprintf(stderr, "%s failed: %s: %s\n", #call, openpim_he_status_name(st_), openpim_he_last_error()); \
            exit(1);                                                                                   \
        }                                                                                              \
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

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "primes") == 0) {
        struct openpim_he_params p;
        CHECK(openpim_he_params_generate((uint32_t)atol(argv[2]), (uint32_t)atol(argv[3]), (uint32_t)atol(argv[4]),
                                         &p));
        for (uint32_t i = 0; i < p.nr_moduli; i++)
            printf("%u\n", p.moduli[i]);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "root") == 0) {
        printf("%u\n", openpim_he_minimal_root((uint32_t)atol(argv[2]), (uint32_t)atol(argv[3])));
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: he_cli primes N K BITS | root Q N | OP IN.bin OUT.bin\n");
        return 2;
    }
    const char *op = argv[1];
    FILE *in = fopen(argv[2], "rb");
    if (!in) {
        perror(argv[2]);
        return 1;
    }
    uint32_t *hdr = read_words(in, 8);
    struct openpim_he_params params = {.n = hdr[0], .nr_moduli = hdr[1], .special_modulus = hdr[6]};
    if (params.nr_moduli > OPENPIM_HE_MAX_MODULI) {
        fprintf(stderr, "too many moduli\n");
        return 1;
    }
    uint32_t *moduli = read_words(in, params.nr_moduli);
    memcpy(params.moduli, moduli, params.nr_moduli * 4);
    const uint32_t count = hdr[4], nr_inputs = hdr[5];
    const size_t words = (size_t)count * params.nr_moduli * params.n;
    uint32_t *inputs[4] = {0};
    if (nr_inputs > 4) {
        fprintf(stderr, "too many inputs\n");
        return 1;
    }
    for (uint32_t i = 0; i < nr_inputs; i++)
        inputs[i] = read_words(in, words);
    uint32_t *key = NULL;
    if (strcmp(op, "relin") == 0)
        key = read_words(in, (size_t)params.nr_moduli * 2 * (params.nr_moduli + 1) * params.n);
    fclose(in);

    const int fwd2d = strcmp(op, "ntt2d") == 0, inv2d = strcmp(op, "intt2d") == 0;
    const int both2d = strcmp(op, "ntt2d_intt2d") == 0;
    if (fwd2d || inv2d || both2d) {
        struct openpim_he_ntt2d_config c2 = {
            .nr_dpus = hdr[2], .group_dpus = hdr[7], .count = count, .mul = (enum openpim_he_mul)hdr[3]};
        openpim_he_ntt2d *h;
        struct openpim_he_ntt2d_times t;
        struct openpim_he_ntt2d_shape shape;
        uint32_t *res = malloc(words * 4 + 4);
        CHECK(openpim_he_ntt2d_create(&params, &c2, &h));
        if (inv2d)
            CHECK(openpim_he_ntt2d_inverse(h, inputs[0], res, &t));
        else
            CHECK(openpim_he_ntt2d_forward(h, inputs[0], res, &t));
        CHECK(openpim_he_ntt2d_shape(h, &shape));
        FILE *o2 = fopen(argv[3], "wb");
        if (!res || !o2 || fwrite(res, 4, words, o2) != words) {
            perror(argv[3]);
            return 1;
        }
        struct openpim_he_ntt2d_times ti = {0};
        if (both2d) {
            CHECK(openpim_he_ntt2d_inverse(h, res, res, &ti));
            if (fwrite(res, 4, words, o2) != words) {
                perror(argv[3]);
                return 1;
            }
        }
        fclose(o2);
        printf("groups %u group_dpus %u slots %u view %d\ncycles %" PRIu64 " %" PRIu64 "\n", shape.nr_groups,
               shape.group_dpus, shape.slots, shape.comm_view, t.kernel1_cycles, t.kernel2_cycles);
        if (both2d)
            printf("icycles %" PRIu64 " %" PRIu64 "\n", ti.kernel1_cycles, ti.kernel2_cycles);
        openpim_he_ntt2d_destroy(h);
        free(res);
        free(inputs[0]);
        free(moduli);
        free(hdr);
        return 0;
    }
    struct openpim_he_config config = {.nr_dpus = hdr[2], .mul = (enum openpim_he_mul)hdr[3]};
    openpim_he_context *ctx;
    CHECK(openpim_he_context_create(&params, &config, &ctx));
    openpim_he_poly *p[7];
    for (int i = 0; i < 7; i++)
        CHECK(openpim_he_poly_alloc(ctx, count, &p[i]));
    int nr_out = 1;
    uint64_t cycles = 0;
    if (strcmp(op, "ntt") == 0) { /* out of place */
        CHECK(openpim_he_poly_upload(ctx, p[0], inputs[0], OPENPIM_HE_COEFF));
        CHECK(openpim_he_ntt(ctx, p[4], p[0]));
        cycles = openpim_he_last_kernel_cycles(ctx);
    } else if (strcmp(op, "intt") == 0) { /* in place */
        CHECK(openpim_he_poly_upload(ctx, p[4], inputs[0], OPENPIM_HE_NTT));
        CHECK(openpim_he_intt(ctx, p[4], p[4]));
        cycles = openpim_he_last_kernel_cycles(ctx);
    } else if (strcmp(op, "ntt_intt") == 0) { /* in place both ways: out = NTT(a), iNTT(NTT(a)) */
        CHECK(openpim_he_poly_upload(ctx, p[4], inputs[0], OPENPIM_HE_COEFF));
        CHECK(openpim_he_ntt(ctx, p[4], p[4]));
        cycles = openpim_he_last_kernel_cycles(ctx);
        CHECK(openpim_he_intt(ctx, p[5], p[4]));
        nr_out = 2;
    } else if (strcmp(op, "add") == 0 || strcmp(op, "sub") == 0 || strcmp(op, "mul") == 0) {
        enum openpim_he_form f = strcmp(op, "mul") == 0 ? OPENPIM_HE_NTT : OPENPIM_HE_COEFF;
        CHECK(openpim_he_poly_upload(ctx, p[0], inputs[0], f));
        CHECK(openpim_he_poly_upload(ctx, p[1], inputs[1], f));
        if (strcmp(op, "add") == 0) { /* in place into the first operand, then copied to the output */
            CHECK(openpim_he_add(ctx, p[0], p[0], p[1]));
            cycles = openpim_he_last_kernel_cycles(ctx);
            CHECK(openpim_he_negate(ctx, p[4], p[0]));
            CHECK(openpim_he_negate(ctx, p[4], p[4]));
        } else if (strcmp(op, "sub") == 0) {
            CHECK(openpim_he_sub(ctx, p[4], p[0], p[1]));
            cycles = openpim_he_last_kernel_cycles(ctx);
        } else {
            CHECK(openpim_he_mul_pointwise(ctx, p[4], p[0], p[1]));
            cycles = openpim_he_last_kernel_cycles(ctx);
        }
    } else if (strcmp(op, "neg") == 0) {
        CHECK(openpim_he_poly_upload(ctx, p[0], inputs[0], OPENPIM_HE_COEFF));
        CHECK(openpim_he_negate(ctx, p[4], p[0]));
        cycles = openpim_he_last_kernel_cycles(ctx);
    } else if (strcmp(op, "polymul") == 0) {
        CHECK(openpim_he_poly_upload(ctx, p[0], inputs[0], OPENPIM_HE_COEFF));
        CHECK(openpim_he_poly_upload(ctx, p[1], inputs[1], OPENPIM_HE_COEFF));
        CHECK(openpim_he_poly_mul(ctx, p[4], p[0], p[1]));
        cycles = openpim_he_last_kernel_cycles(ctx);
    } else if (strcmp(op, "bgv") == 0) {
        for (int i = 0; i < 4; i++)
            CHECK(openpim_he_poly_upload(ctx, p[i], inputs[i], OPENPIM_HE_NTT));
        openpim_he_poly *const out[3] = {p[4], p[5], p[6]};
        const openpim_he_poly *const a[2] = {p[0], p[1]}, *const b[2] = {p[2], p[3]};
        CHECK(openpim_he_bgv_multiply(ctx, out, a, b));
        cycles = openpim_he_last_kernel_cycles(ctx);
        nr_out = 3;
    } else if (strcmp(op, "relin") == 0) { /* in place into c0, c1 */
        for (int i = 0; i < 3; i++)
            CHECK(openpim_he_poly_upload(ctx, p[i], inputs[i], OPENPIM_HE_NTT));
        openpim_he_relin_key *rk;
        CHECK(openpim_he_relin_key_upload(ctx, key, &rk));
        openpim_he_poly *const out[2] = {p[0], p[1]};
        const openpim_he_poly *const in3[3] = {p[0], p[1], p[2]};
        CHECK(openpim_he_relinearize(ctx, rk, hdr[7], out, in3));
        cycles = openpim_he_last_kernel_cycles(ctx);
        CHECK(openpim_he_negate(ctx, p[4], p[0]));
        CHECK(openpim_he_negate(ctx, p[4], p[4]));
        CHECK(openpim_he_negate(ctx, p[5], p[1]));
        CHECK(openpim_he_negate(ctx, p[5], p[5]));
        nr_out = 2;
    } else {
        fprintf(stderr, "unknown operation %s\n", op);
        return 2;
    }
    FILE *out = fopen(argv[3], "wb");
    uint32_t *buf = malloc(words * 4);
    if (!out || !buf) {
        perror(argv[3]);
        return 1;
    }
    for (int i = 0; i < nr_out; i++) {
        CHECK(openpim_he_poly_download(ctx, p[4 + i], buf));
        if (fwrite(buf, 4, words, out) != words) {
            perror("write");
            return 1;
        }
    }
    fclose(out);
    printf("cycles %" PRIu64 "\n", cycles);
    free(buf);
    for (uint32_t i = 0; i < nr_inputs; i++)
        free(inputs[i]);
    free(key);
    free(moduli);
    free(hdr);
    openpim_he_context_destroy(ctx);
    return 0;
}
