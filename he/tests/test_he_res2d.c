/* SPDX-License-Identifier: MIT */
/* Resident 2D arrays (openpim_he_poly2d_*): every operation on data that
 * stays spread over the DPUs of each group, checked exactly against
 * independent answers: the layout round trip (upload, download), the forward
 * and inverse NTT against the 1D library's openpim_he_ntt / _intt (checked in
 * turn against he_ref.py and SEAL by test_he.py), the element-wise operations
 * and the fast base conversion against plain modular arithmetic on the host,
 * a chain of operations without the host in between; then misuse and
 * hostile arguments (clear errors, nothing changed).  Shapes: one modulus per
 * group (the CKKS layout), groups holding several residues of several
 * polynomials (uneven), g = 1 and g = n2, moduli of different bit sizes (the
 * base conversion's reduction before weighing; 32-bit moduli converted to
 * and from 14- and 16-bit ones), both multiply variants; the 2D conversions
 * also through the 1D library's openpim_he_base_convert. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/check.h"
#include "openpim_he.h"

#define PROFILE "nrRanks=4" /* room for the 1D reference beside the 2D object */

#define OK(call) CHECK_EQ((call), OPENPIM_HE_OK)

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint32_t rnd(uint32_t q)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng % q);
}

static uint32_t mulm(uint32_t a, uint32_t b, uint32_t q)
{
    return (uint32_t)((uint64_t)a * b % q);
}

static uint32_t invm(uint32_t a, uint32_t q)
{
    uint32_t r = 1;
    for (uint32_t e = q - 2; e; e >>= 1, a = mulm(a, a, q))
        if (e & 1)
            r = mulm(r, a, q);
    return r;
}

static void fill(uint32_t *w, uint32_t count, const struct openpim_he_params *p, bool edges)
{
    for (uint32_t c = 0; c < count; c++)
        for (uint32_t j = 0; j < p->nr_moduli; j++)
            for (uint32_t x = 0; x < p->n; x++) {
                uint32_t v = rnd(p->moduli[j]);
                if (edges && x < 4) /* 0, 1, q - 1, q - 2 */
                    v = x < 2 ? x : p->moduli[j] - (x - 1);
                *w++ = v;
            }
}

static bool equal(const uint32_t *a, const uint32_t *b, size_t words, const char *what)
{
    for (size_t i = 0; i < words; i++)
        if (a[i] != b[i]) {
            fprintf(stderr, "%s: word %zu: %u, expected %u\n", what, i, a[i], b[i]);
            return false;
        }
    return true;
}

/* The 1D library's NTT or iNTT of `in` (count polynomials). */
static void ntt_1d(const struct openpim_he_params *p, uint32_t count, const uint32_t *in, uint32_t *out, bool inverse)
{
    struct openpim_he_config c = {.nr_dpus = p->nr_moduli, .profile = PROFILE};
    openpim_he_context *ctx;
    openpim_he_poly *a;
    OK(openpim_he_context_create(p, &c, &ctx));
    OK(openpim_he_poly_alloc(ctx, count, &a));
    OK(openpim_he_poly_upload(ctx, a, in, inverse ? OPENPIM_HE_NTT : OPENPIM_HE_COEFF));
    OK(inverse ? openpim_he_intt(ctx, a, a) : openpim_he_ntt(ctx, a, a));
    OK(openpim_he_poly_download(ctx, a, out));
    openpim_he_context_destroy(ctx);
}

/* The 1D library's fast base conversion of `in` (count polynomials). */
static void convert_1d(const struct openpim_he_params *p, uint32_t count, const uint32_t *from, uint32_t nf,
                       const uint32_t *to, uint32_t nt, const uint32_t *in, uint32_t *out)
{
    struct openpim_he_config c = {.nr_dpus = p->nr_moduli, .profile = PROFILE};
    openpim_he_context *ctx;
    openpim_he_poly *a, *d;
    openpim_he_baseconv *bc;
    OK(openpim_he_context_create(p, &c, &ctx));
    OK(openpim_he_poly_alloc(ctx, count, &a));
    OK(openpim_he_poly_alloc(ctx, count, &d));
    OK(openpim_he_poly_upload(ctx, a, in, OPENPIM_HE_COEFF));
    OK(openpim_he_baseconv_create(ctx, from, nf, to, nt, &bc));
    OK(openpim_he_base_convert(ctx, bc, d, a));
    OK(openpim_he_poly_download(ctx, d, out));
    openpim_he_baseconv_free(ctx, bc);
    openpim_he_context_destroy(ctx);
}

/* The fast base conversion on the host, as openpim_he_base_convert defines it. */
static void convert_ref(const struct openpim_he_params *p, uint32_t count, const uint32_t *from, uint32_t nf,
                        const uint32_t *to, uint32_t nt, const uint32_t *in, uint32_t *out)
{
    const uint32_t n = p->n, k = p->nr_moduli;
    memset(out, 0, (size_t)count * k * n * 4);
    for (uint32_t c = 0; c < count; c++) {
        const uint32_t *x = in + (size_t)c * k * n;
        uint32_t *y = out + (size_t)c * k * n;
        for (uint32_t f = 0; f < nf; f++) {
            const uint32_t qf = p->moduli[from[f]];
            uint32_t hat = 1; /* Q_F / q_f mod q_f */
            for (uint32_t e = 0; e < nf; e++)
                if (e != f)
                    hat = mulm(hat, p->moduli[from[e]] % qf, qf);
            const uint32_t hat_inv = invm(hat, qf);
            memcpy(y + (size_t)from[f] * n, x + (size_t)from[f] * n, (size_t)n * 4);
            for (uint32_t t = 0; t < nt; t++) {
                const uint32_t q = p->moduli[to[t]];
                uint32_t w = 1; /* Q_F / q_f mod q */
                for (uint32_t e = 0; e < nf; e++)
                    if (e != f)
                        w = mulm(w, p->moduli[from[e]] % q, q);
                for (uint32_t i = 0; i < n; i++) {
                    const uint32_t s = mulm(x[(size_t)from[f] * n + i], hat_inv, qf);
                    uint32_t *dst = y + (size_t)to[t] * n + i;
                    *dst = (uint32_t)(((uint64_t)*dst + mulm(s % q, w, q)) % q);
                }
            }
        }
    }
}

struct shape {
    uint32_t n, k, bits_lo, g, nr_dpus, count;
    enum openpim_he_mul mul;
    uint32_t bits_hi; /* the other moduli's bits; 0: 30 */
};

static void test_shape(const struct shape *s)
{
    /* moduli: k - k/2 of bits_hi bits, then k/2 of bits_lo bits (distinct primes of different sizes) */
    struct openpim_he_params p, lo;
    const uint32_t k_lo = s->k / 2;
    OK(openpim_he_params_generate(s->n, s->k - k_lo, s->bits_hi ? s->bits_hi : 30, &p));
    if (k_lo) {
        OK(openpim_he_params_generate(s->n, k_lo, s->bits_lo, &lo));
        memcpy(p.moduli + p.nr_moduli, lo.moduli, k_lo * 4);
        p.nr_moduli = s->k;
    }
    OK(openpim_he_params_validate(&p));
    const uint32_t n = s->n, k = s->k, count = s->count;
    const size_t words = (size_t)count * k * n;
    uint32_t *x = malloc(words * 4), *y = malloc(words * 4), *z = malloc(words * 4), *got = malloc(words * 4);
    uint32_t *want = malloc(words * 4);
    struct openpim_he_ntt2d_config cfg = {.nr_dpus = s->nr_dpus, .group_dpus = s->g, .count = count,
                                          .profile = PROFILE, .mul = s->mul};
    openpim_he_ntt2d *h;
    if (openpim_he_params_validate(&p) != OPENPIM_HE_OK || openpim_he_ntt2d_create(&p, &cfg, &h) != OPENPIM_HE_OK) {
        fprintf(stderr, "shape n=%u k=%u: %s\n", n, k, openpim_he_last_error());
        exit(1);
    }
    openpim_he_poly2d *a, *b, *c, *d;
    OK(openpim_he_poly2d_alloc(h, &a));
    OK(openpim_he_poly2d_alloc(h, &b));
    OK(openpim_he_poly2d_alloc(h, &c));
    OK(openpim_he_poly2d_alloc(h, &d));
    char what[160];
    snprintf(what, sizeof what, "n=%u k=%u g=%u dpus=%u count=%u mul=%d", n, k, s->g, s->nr_dpus, count, (int)s->mul);

    /* layout round trips, both forms */
    fill(x, count, &p, true);
    struct openpim_he_ntt2d_times t;
    OK(openpim_he_poly2d_upload(h, a, x, OPENPIM_HE_COEFF, &t));
    CHECK(t.cpu_dpu_us > 0 && t.kernel1_us == 0);
    CHECK_EQ(openpim_he_poly2d_form(a), OPENPIM_HE_COEFF);
    OK(openpim_he_poly2d_download(h, a, got, NULL));
    CHECK(equal(got, x, words, what));
    OK(openpim_he_poly2d_upload(h, b, x, OPENPIM_HE_NTT, NULL));
    OK(openpim_he_poly2d_download(h, b, got, NULL));
    CHECK(equal(got, x, words, what));

    /* forward NTT on resident data (out of place, then in place) = the 1D NTT */
    ntt_1d(&p, count, x, want, false);
    OK(openpim_he_poly2d_ntt(h, c, a, &t));
    CHECK(t.kernel1_us > 0 && t.inter_dpu_us > 0 && t.kernel2_us > 0 && t.cpu_dpu_us == 0 && t.dpu_cpu_us == 0);
    CHECK_EQ(openpim_he_poly2d_form(c), OPENPIM_HE_NTT);
    OK(openpim_he_poly2d_download(h, c, got, NULL));
    CHECK(equal(got, want, words, what));
    OK(openpim_he_poly2d_download(h, a, got, NULL)); /* the source is kept */
    CHECK(equal(got, x, words, what));
    OK(openpim_he_poly2d_ntt(h, a, a, NULL));
    OK(openpim_he_poly2d_download(h, a, got, NULL));
    CHECK(equal(got, want, words, what));
    /* the non-resident forward gives the same */
    OK(openpim_he_ntt2d_forward(h, x, got, NULL));
    CHECK(equal(got, want, words, what));

    /* inverse on resident data = the 1D iNTT, and inverse(forward(x)) = x */
    fill(y, count, &p, true);
    ntt_1d(&p, count, y, want, true);
    OK(openpim_he_poly2d_upload(h, b, y, OPENPIM_HE_NTT, NULL));
    OK(openpim_he_poly2d_intt(h, d, b, &t));
    CHECK(t.kernel1_us > 0 && t.inter_dpu_us > 0 && t.kernel2_us > 0);
    CHECK_EQ(openpim_he_poly2d_form(d), OPENPIM_HE_COEFF);
    OK(openpim_he_poly2d_download(h, d, got, NULL));
    CHECK(equal(got, want, words, what));
    OK(openpim_he_poly2d_intt(h, a, a, NULL));
    OK(openpim_he_poly2d_download(h, a, got, NULL));
    CHECK(equal(got, x, words, what));

    /* element-wise, NTT form: add, sub, mul, mac against the host */
    fill(x, count, &p, true);
    fill(y, count, &p, false);
    fill(z, count, &p, false);
    OK(openpim_he_poly2d_upload(h, a, x, OPENPIM_HE_NTT, NULL));
    OK(openpim_he_poly2d_upload(h, b, y, OPENPIM_HE_NTT, NULL));
    OK(openpim_he_poly2d_upload(h, c, z, OPENPIM_HE_NTT, NULL));
    for (int op = 0; op < 4; op++) {
        openpim_he_status st;
        if (op == 0)
            st = openpim_he_poly2d_add(h, d, a, b, &t);
        else if (op == 1)
            st = openpim_he_poly2d_sub(h, d, a, b, &t);
        else if (op == 2)
            st = openpim_he_poly2d_mul(h, d, a, b, &t);
        else
            st = openpim_he_poly2d_mac(h, c, a, b, &t); /* c = z + x y */
        CHECK_EQ(st, OPENPIM_HE_OK);
        CHECK(t.kernel1_us > 0 && t.kernel1_dpu_us > 0 && t.inter_dpu_us == 0 && t.kernel2_us == 0);
        for (size_t w = 0; w < words; w++) {
            const uint64_t q = p.moduli[(w / n) % k];
            want[w] = op == 0   ? (uint32_t)((x[w] + (uint64_t)y[w]) % q)
                      : op == 1 ? (uint32_t)((x[w] + q - y[w]) % q)
                      : op == 2 ? mulm(x[w], y[w], (uint32_t)q)
                                : (uint32_t)((z[w] + (uint64_t)x[w] * y[w] % q) % q);
        }
        OK(openpim_he_poly2d_download(h, op == 3 ? c : d, got, NULL));
        CHECK(equal(got, want, words, what));
    }
    /* in coefficient form add and sub work too (dst = a) */
    OK(openpim_he_poly2d_upload(h, a, x, OPENPIM_HE_COEFF, NULL));
    OK(openpim_he_poly2d_upload(h, b, y, OPENPIM_HE_COEFF, NULL));
    OK(openpim_he_poly2d_sub(h, a, a, b, NULL));
    CHECK_EQ(openpim_he_poly2d_form(a), OPENPIM_HE_COEFF);
    OK(openpim_he_poly2d_download(h, a, got, NULL));
    for (size_t w = 0; w < words; w++)
        want[w] = (uint32_t)((x[w] + (uint64_t)p.moduli[(w / n) % k] - y[w]) % p.moduli[(w / n) % k]);
    CHECK(equal(got, want, words, what));

    /* base conversions: a digit to the rest, the last moduli to the first, one to some (others zeroed) */
    const uint32_t half = (k + 1) / 2;
    uint32_t from[3][OPENPIM_HE_MAX_MODULI], to[3][OPENPIM_HE_MAX_MODULI], nf[3] = {0}, nt[3] = {0};
    for (uint32_t j = 0; j < k; j++) {
        if (j < half)
            from[0][nf[0]++] = j;
        else
            to[0][nt[0]++] = j;
        if (j >= half)
            from[1][nf[1]++] = j;
        else
            to[1][nt[1]++] = j;
    }
    from[2][nf[2]++] = k - 1;
    for (uint32_t j = 0; j + 2 < k; j++)
        to[2][nt[2]++] = j;
    fill(x, count, &p, true);
    OK(openpim_he_poly2d_upload(h, a, x, OPENPIM_HE_COEFF, NULL));
    for (int v = 0; v < (k > 2 ? 3 : 2); v++) { /* the third needs a modulus neither source nor target */
        openpim_he_baseconv2d *bc;
        OK(openpim_he_baseconv2d_create(h, from[v], nf[v], to[v], nt[v], &bc));
        fill(got, count, &p, false); /* dst's old contents must not matter */
        OK(openpim_he_poly2d_upload(h, d, got, OPENPIM_HE_NTT, NULL));
        OK(openpim_he_poly2d_base_convert(h, bc, d, a, &t));
        CHECK(t.kernel1_us > 0 && t.inter_dpu_us > 0 && t.kernel2_us > 0);
        CHECK_EQ(openpim_he_poly2d_form(d), OPENPIM_HE_COEFF);
        convert_ref(&p, count, from[v], nf[v], to[v], nt[v], x, want);
        OK(openpim_he_poly2d_download(h, d, got, NULL));
        CHECK(equal(got, want, words, what));
        convert_1d(&p, count, from[v], nf[v], to[v], nt[v], x, got); /* and the 1D library's */
        CHECK(equal(got, want, words, what));
        openpim_he_baseconv2d_free(h, bc);
    }

    /* a chain without the host: iNTT, convert, NTT, multiply, add (the key switching's pattern) */
    fill(x, count, &p, false);
    fill(y, count, &p, false);
    OK(openpim_he_poly2d_upload(h, a, x, OPENPIM_HE_NTT, NULL));
    OK(openpim_he_poly2d_upload(h, b, y, OPENPIM_HE_NTT, NULL));
    openpim_he_baseconv2d *bc;
    OK(openpim_he_baseconv2d_create(h, from[0], nf[0], to[0], nt[0], &bc));
    OK(openpim_he_poly2d_intt(h, c, a, NULL));
    OK(openpim_he_poly2d_base_convert(h, bc, d, c, NULL));
    OK(openpim_he_poly2d_ntt(h, d, d, NULL));
    OK(openpim_he_poly2d_mul(h, d, d, b, NULL));
    OK(openpim_he_poly2d_add(h, d, d, a, NULL));
    OK(openpim_he_poly2d_download(h, d, got, NULL));
    ntt_1d(&p, count, x, z, true);
    convert_ref(&p, count, from[0], nf[0], to[0], nt[0], z, want);
    ntt_1d(&p, count, want, z, false);
    for (size_t w = 0; w < words; w++) {
        const uint32_t q = p.moduli[(w / n) % k];
        want[w] = (uint32_t)((mulm(z[w], y[w], q) + (uint64_t)x[w]) % q);
    }
    CHECK(equal(got, want, words, what));
    printf("%s: exact\n", what);
    fflush(stdout);
    openpim_he_ntt2d_destroy(h); /* frees the arrays and the conversion */
    free(x), free(y), free(z), free(got), free(want);
}

static bool error_mentions(const char *word)
{
    bool found = strstr(openpim_he_last_error(), word) != NULL;
    if (!found)
        fprintf(stderr, "error message \"%s\" lacks \"%s\"\n", openpim_he_last_error(), word);
    return found;
}

static void test_errors(void)
{
    struct openpim_he_params p;
    OK(openpim_he_params_generate(4096, 3, 30, &p));
    const uint32_t n = 4096, k = 3;
    struct openpim_he_ntt2d_config cfg = {.nr_dpus = 3, .group_dpus = 1, .count = 1, .profile = PROFILE};
    openpim_he_ntt2d *h, *other;
    OK(openpim_he_ntt2d_create(&p, &cfg, &h));
    OK(openpim_he_ntt2d_create(&p, &cfg, &other));
    openpim_he_poly2d *a, *b, *c, *foreign;
    OK(openpim_he_poly2d_alloc(h, &a));
    OK(openpim_he_poly2d_alloc(h, &b));
    OK(openpim_he_poly2d_alloc(h, &c));
    OK(openpim_he_poly2d_alloc(other, &foreign));
    uint32_t *x = malloc((size_t)k * n * 4), *got = malloc((size_t)k * n * 4);
    fill(x, 1, &p, false);
    OK(openpim_he_poly2d_upload(h, a, x, OPENPIM_HE_COEFF, NULL));
    OK(openpim_he_poly2d_upload(h, b, x, OPENPIM_HE_NTT, NULL));

    CHECK_EQ(openpim_he_poly2d_alloc(NULL, &c), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_poly2d_alloc(h, NULL), OPENPIM_HE_ERR_ARGUMENT);
    /* an unreduced word: refused, the array unchanged */
    uint32_t saved = x[k * n - 1];
    x[k * n - 1] = p.moduli[k - 1];
    CHECK_EQ(openpim_he_poly2d_upload(h, a, x, OPENPIM_HE_NTT, NULL), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("not below"));
    x[k * n - 1] = saved;
    CHECK_EQ(openpim_he_poly2d_form(a), OPENPIM_HE_COEFF);
    OK(openpim_he_poly2d_download(h, a, got, NULL));
    CHECK(equal(got, x, (size_t)k * n, "after a refused upload"));
    CHECK_EQ(openpim_he_poly2d_upload(h, a, x, (enum openpim_he_form)7, NULL), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_poly2d_upload(h, a, NULL, OPENPIM_HE_COEFF, NULL), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_poly2d_download(h, a, NULL, NULL), OPENPIM_HE_ERR_ARGUMENT);
    /* arrays of another object, freed arrays */
    CHECK_EQ(openpim_he_poly2d_add(h, c, a, foreign, NULL), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("not a live array"));
    CHECK_EQ(openpim_he_poly2d_download(h, foreign, got, NULL), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_poly2d_ntt(h, c, NULL, NULL), OPENPIM_HE_ERR_ARGUMENT);
    /* forms */
    CHECK_EQ(openpim_he_poly2d_ntt(h, c, b, NULL), OPENPIM_HE_ERR_FORM);
    CHECK_EQ(openpim_he_poly2d_intt(h, c, a, NULL), OPENPIM_HE_ERR_FORM);
    CHECK_EQ(openpim_he_poly2d_add(h, c, a, b, NULL), OPENPIM_HE_ERR_FORM);
    CHECK(error_mentions("different forms"));
    CHECK_EQ(openpim_he_poly2d_mul(h, c, a, a, NULL), OPENPIM_HE_ERR_FORM);
    CHECK_EQ(openpim_he_poly2d_mac(h, a, b, b, NULL), OPENPIM_HE_ERR_FORM); /* accumulator in coefficient form */
    CHECK(error_mentions("accumulator"));
    /* base conversions: bad indices, repeated, empty, NTT-form source, dst = source, foreign conversion */
    openpim_he_baseconv2d *bc, *bc_other;
    const uint32_t from[2] = {0, 1}, to[1] = {2}, bad[1] = {3}, twice[1] = {1};
    CHECK_EQ(openpim_he_baseconv2d_create(h, from, 2, bad, 1, &bc), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("not below"));
    CHECK_EQ(openpim_he_baseconv2d_create(h, from, 2, twice, 1, &bc), OPENPIM_HE_ERR_ARGUMENT);
    CHECK(error_mentions("twice"));
    CHECK_EQ(openpim_he_baseconv2d_create(h, from, 0, to, 1, &bc), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_baseconv2d_create(h, from, 2, to, 2, &bc), OPENPIM_HE_ERR_ARGUMENT);
    OK(openpim_he_baseconv2d_create(h, from, 2, to, 1, &bc));
    OK(openpim_he_baseconv2d_create(other, from, 2, to, 1, &bc_other));
    CHECK_EQ(openpim_he_poly2d_base_convert(h, bc, c, b, NULL), OPENPIM_HE_ERR_FORM);
    CHECK_EQ(openpim_he_poly2d_base_convert(h, bc, a, a, NULL), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_poly2d_base_convert(h, bc_other, c, a, NULL), OPENPIM_HE_ERR_ARGUMENT);
    CHECK_EQ(openpim_he_poly2d_base_convert(h, NULL, c, a, NULL), OPENPIM_HE_ERR_ARGUMENT);
    OK(openpim_he_poly2d_download(h, a, got, NULL));
    CHECK(equal(got, x, (size_t)k * n, "after refused operations"));
    /* MRAM: arrays until it is full, then a clear error; the others still work */
    static openpim_he_poly2d *many[20000];
    uint32_t nr = 0;
    openpim_he_status st = OPENPIM_HE_OK;
    while (nr < 20000 && (st = openpim_he_poly2d_alloc(h, &many[nr])) == OPENPIM_HE_OK)
        nr++;
    CHECK_EQ(st, OPENPIM_HE_ERR_MRAM);
    CHECK(nr > 100);
    CHECK_EQ(openpim_he_poly2d_base_convert(h, bc, c, a, NULL), OPENPIM_HE_ERR_MRAM); /* no room for its relay */
    openpim_he_poly2d_free(h, many[nr / 2]); /* a gap in the middle is found again */
    OK(openpim_he_poly2d_alloc(h, &many[nr / 2]));
    for (uint32_t i = 0; i < nr; i++)
        openpim_he_poly2d_free(h, many[i]);
    OK(openpim_he_poly2d_base_convert(h, bc, c, a, NULL));
    OK(openpim_he_poly2d_download(h, a, got, NULL));
    CHECK(equal(got, x, (size_t)k * n, "after a full MRAM"));
    openpim_he_poly2d_free(h, NULL);
    openpim_he_baseconv2d_free(h, NULL);
    openpim_he_poly2d_free(h, foreign); /* not h's: ignored */
    OK(openpim_he_poly2d_download(other, foreign, got, NULL));
    openpim_he_ntt2d_destroy(other);
    openpim_he_ntt2d_destroy(h);
    free(x), free(got);
}

int main(void)
{
    const struct shape shapes[] = {
        {1024, 4, 24, 2, 8, 1, OPENPIM_HE_MUL_CUSTOM, 0},   /* one modulus per group, mixed bit sizes */
        {2048, 5, 22, 1, 5, 1, OPENPIM_HE_MUL_NATIVE, 0},   /* g = 1: the All-to-All of one DPU */
        {2048, 3, 26, 32, 96, 1, OPENPIM_HE_MUL_CUSTOM, 0},  /* g = n2 */
        {1024, 3, 29, 4, 8, 2, OPENPIM_HE_MUL_CUSTOM, 0},   /* 6 residues over 2 groups: 3 slots, mixed polynomials */
        {2048, 4, 25, 2, 6, 3, OPENPIM_HE_MUL_NATIVE, 0},   /* 12 residues over 3 groups: uneven */
        {1024, 6, 28, 8, 40, 2, OPENPIM_HE_MUL_CUSTOM, 0},  /* 12 residues over 5 groups: the last holds fewer */
        {4096, 2, 27, 64, 128, 3, OPENPIM_HE_MUL_NATIVE, 0}, /* g = n1 = n2: one column each, odd rows (3 slots) */
        /* 32-bit moduli to and from 14- and 16-bit ones (a 32-bit target hung in he_log2) */
        {1024, 2, 14, 2, 4, 1, OPENPIM_HE_MUL_CUSTOM, 32},
        {1024, 3, 16, 2, 6, 1, OPENPIM_HE_MUL_NATIVE, 32},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        test_shape(&shapes[i]);
    test_errors();
    return check_done("test_he_res2d");
}
