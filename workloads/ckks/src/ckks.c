/* SPDX-License-Identifier: MIT */
/* RNS-CKKS homomorphic multiplication (tensor, hybrid key switching,
 * rescaling) on the HE library's DPU-resident polynomial arrays (he's 1D
 * split): the layout's operations for ckks_seq.c's sequence, and what both
 * layouts share (errors, the breakdown's records, the constants); see
 * include/openpim_ckks.h for the arithmetic. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <dpu.h>

#include "openpim_ckks.h"

#include "ckks_internal.h"

static _Thread_local char last_error[512];

const char *openpim_ckks_last_error(void)
{
    return last_error;
}

openpim_he_status ckks_fail(openpim_he_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return st;
}

openpim_he_status ckks_he_failed(openpim_he_status st, const char *what)
{
    return ckks_fail(st, "%s: %s", what, openpim_he_last_error());
}

struct openpim_ckks_context {
    struct ckks_core c;             /* c.he: the openpim_he_context */
};

struct openpim_ckks_key {
    struct ckks_key_core k;         /* the key and constants, stored k.count times */
};

static const struct ckks_layout layout_1d;

const char *openpim_ckks_category_name(enum openpim_ckks_category c)
{
    static const char *const names[] = {"poly add", "poly mult", "NTT/iNTT", "key switching", "Inter-DPU"};
    return (unsigned)c < OPENPIM_CKKS_NR_CATEGORIES ? names[c] : "?";
}

openpim_he_status openpim_ckks_params_check(const struct openpim_ckks_params *p)
{
    if (!p)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "params is NULL");
    if (p->levels < 1)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "levels L = %u: a multiplication needs L >= 1 (it rescales by q_L)",
                    p->levels);
    if (p->ext_limbs < 1)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "extension limbs K = %u: hybrid key switching needs K >= 1",
                    p->ext_limbs);
    if ((uint64_t)p->levels + 1 + p->ext_limbs > OPENPIM_HE_MAX_MODULI)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "L + 1 + K = %llu limbs: the HE library holds at most %d moduli",
                    (unsigned long long)p->levels + 1 + p->ext_limbs, OPENPIM_HE_MAX_MODULI);
    if (p->dnum < 1 || p->dnum > p->levels + 1 || (p->levels + 1) % p->dnum)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "dnum = %u: must be in [1, L + 1 = %u] and divide L + 1", p->dnum,
                    p->levels + 1);
    if (p->bits > OPENPIM_CKKS_MAX_PRIME_BITS)
        return ckks_fail(OPENPIM_HE_ERR_MODULUS, "moduli: %u-bit primes: this CKKS is checked with primes of at most "
                         "%d bits (the HE library takes 32)", p->bits, OPENPIM_CKKS_MAX_PRIME_BITS);
    struct openpim_he_params hp;
    openpim_he_status st = openpim_he_params_generate(p->n, p->levels + 1 + p->ext_limbs, p->bits, &hp);
    if (st != OPENPIM_HE_OK)
        return ckks_he_failed(st, "moduli");
    return OPENPIM_HE_OK;
}

void openpim_ckks_context_destroy(openpim_ckks_context *ctx)
{
    if (!ctx)
        return;
    openpim_he_context_destroy(ctx->c.he); /* frees the conversions and arrays with it */
    free(ctx->c.up);
    free(ctx);
}

openpim_he_status openpim_ckks_context_create(const struct openpim_ckks_params *params,
                                              const struct openpim_he_config *config, openpim_ckks_context **out)
{
    openpim_he_status st = openpim_ckks_params_check(params);
    if (st != OPENPIM_HE_OK)
        return st;
    if (!config || !out)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "config or ctx is NULL");
    openpim_ckks_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return ckks_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory");
    ctx->c.lay = &layout_1d;
    openpim_he_context *he = NULL;
    if ((st = ckks_core_init(&ctx->c, params)) != OPENPIM_HE_OK)
        goto fail;
    if ((st = openpim_he_context_create(&ctx->c.hp, config, &he)) != OPENPIM_HE_OK) {
        st = ckks_he_failed(st, "HE context");
        goto fail;
    }
    ctx->c.he = he;
    if ((st = ckks_core_conversions(&ctx->c)) != OPENPIM_HE_OK)
        goto fail;
    *out = ctx;
    return OPENPIM_HE_OK;
fail:
    openpim_ckks_context_destroy(ctx);
    return st;
}

openpim_he_context *openpim_ckks_he(openpim_ckks_context *ctx)
{
    return ctx ? ctx->c.he : NULL;
}

const struct openpim_he_params *openpim_ckks_he_params(const openpim_ckks_context *ctx)
{
    return ctx ? &ctx->c.hp : NULL;
}

uint32_t ckks_mul_mod(uint32_t a, uint32_t b, uint32_t q)
{
    return (uint32_t)((uint64_t)a * b % q);
}

uint32_t ckks_inv_mod(uint32_t a, uint32_t q) /* q prime */
{
    uint32_t r = 1, e = q - 2;
    for (a %= q; e; e >>= 1, a = ckks_mul_mod(a, a, q))
        if (e & 1)
            r = ckks_mul_mod(r, a, q);
    return r;
}

uint32_t ckks_constant(const struct openpim_he_params *hp, uint32_t l, int which, uint32_t j)
{
    const uint32_t k = hp->nr_moduli, q = hp->moduli[j];
    if (which == 0 && j <= l) {
        uint32_t pm = 1;
        for (uint32_t e = l + 1; e < k; e++)
            pm = ckks_mul_mod(pm, hp->moduli[e] % q, q);
        return ckks_inv_mod(pm, q);
    }
    if (which == 1 && j < l)
        return ckks_inv_mod(hp->moduli[l], q);
    return 0;
}

void openpim_ckks_key_free(openpim_ckks_context *ctx, openpim_ckks_key *key)
{
    if (!ctx || !key)
        return;
    ckks_key_release(&ctx->c, &key->k);
    free(key);
}

openpim_he_status openpim_ckks_key_upload(openpim_ckks_context *ctx, const uint32_t *data, uint32_t count,
                                          openpim_ckks_key **out)
{
    if (!ctx || !data || !out)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, data or key is NULL");
    if (count == 0)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "a key for 0 ciphertexts");
    openpim_ckks_key *key = calloc(1, sizeof *key);
    if (!key)
        return ckks_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory for a switching key");
    openpim_he_status st = ckks_key_upload(&ctx->c, data, count, &key->k);
    if (st != OPENPIM_HE_OK) {
        free(key);
        return st;
    }
    *out = key;
    return OPENPIM_HE_OK;
}

/* ---- the multiplication --------------------------------------------------- */

void ckks_record(struct openpim_ckks_times *t, enum openpim_ckks_category cat, double us, double kernel_us,
                 const char *fmt, ...)
{
    t->us[cat] += us;
    t->total_us += us;
    if (t->nr_steps < OPENPIM_CKKS_MAX_STEPS) {
        struct openpim_ckks_step *s = &t->steps[t->nr_steps++];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->name, sizeof s->name, fmt, ap);
        va_end(ap);
        s->category = cat;
        s->us = us;
        s->kernel_us = kernel_us;
    }
}

/* ---- the 1D layout: he's arrays, a DPU group per limb ------------------------
 * Each step is one he call, timed by the modelled clock. */

/* A single-launch he call `what` that started at t0 and ended with st: one
 * step, all of its time in cat. */
static openpim_he_status one(struct ckks_run *r, openpim_he_status st, const char *what, double t0,
                             enum openpim_ckks_category cat, const char *name)
{
    if (st != OPENPIM_HE_OK)
        return ckks_he_failed(st, what);
    const double all = openpim_modelled_time_us() - t0, k = openpim_he_last_kernel_us(r->he);
    r->launch_us = all - k; /* one launch: its host-side overhead */
    ckks_record(r->t, cat, all, k, "%s", name);
    return OPENPIM_HE_OK;
}

static openpim_he_status tensor_1d(struct ckks_run *r, void *const d[3], const void *const a[2],
                                   const void *const b[2])
{
    openpim_he_poly *const dd[3] = {d[0], d[1], d[2]};
    const openpim_he_poly *const aa[2] = {a[0], a[1]}, *const bb[2] = {b[0], b[1]};
    const double t0 = openpim_modelled_time_us();
    return one(r, openpim_he_bgv_multiply(r->he, dd, aa, bb), "openpim_he_bgv_multiply", t0, OPENPIM_CKKS_POLY_MULT,
               "tensor");
}

static openpim_he_status ntt_1d(struct ckks_run *r, int inverse, void *dst, const void *src, const char *name)
{
    const double t0 = openpim_modelled_time_us();
    const openpim_he_status st = inverse ? openpim_he_intt(r->he, dst, src) : openpim_he_ntt(r->he, dst, src);
    return one(r, st, inverse ? "openpim_he_intt" : "openpim_he_ntt", t0, OPENPIM_CKKS_NTT, name);
}

/* A base conversion: its two launches in `cat` (kernels, and the launch
 * overhead of the previous single-launch step, the same DPU set, twice), the
 * rest (the host relay's transfers) Inter-DPU. */
static openpim_he_status convert_1d(struct ckks_run *r, enum openpim_ckks_category cat, const void *bc, void *dst,
                                    const void *src, const char *name)
{
    const double t0 = openpim_modelled_time_us();
    const openpim_he_status st = openpim_he_base_convert(r->he, bc, dst, src);
    if (st != OPENPIM_HE_OK)
        return ckks_he_failed(st, "base conversion");
    const double all = openpim_modelled_time_us() - t0, k = openpim_he_last_kernel_us(r->he);
    ckks_record(r->t, cat, k + 2 * r->launch_us, k, "%s", name);
    ckks_record(r->t, OPENPIM_CKKS_INTER_DPU, all - k - 2 * r->launch_us, 0, "relay");
    return OPENPIM_HE_OK;
}

static openpim_he_status elem_1d(struct ckks_run *r, enum openpim_ckks_category cat, enum ckks_elem op, void *dst,
                                 const void *a, const void *b, const char *name)
{
    const double t0 = openpim_modelled_time_us();
    switch (op) {
    case CKKS_ADD:
        return one(r, openpim_he_add(r->he, dst, a, b), "openpim_he_add", t0, cat, name);
    case CKKS_SUB:
        return one(r, openpim_he_sub(r->he, dst, a, b), "openpim_he_sub", t0, cat, name);
    case CKKS_MUL:
        return one(r, openpim_he_mul_pointwise(r->he, dst, a, b), "openpim_he_mul_pointwise", t0, cat, name);
    }
    return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "element-wise operation %d unknown", (int)op);
}

/* he has no multiply-accumulate on 1D arrays: the product into tmp, then the sum. */
static openpim_he_status mac_1d(struct ckks_run *r, enum openpim_ckks_category cat, void *dst, const void *a,
                                const void *b, void *tmp, const char *stem)
{
    char name[40];
    snprintf(name, sizeof name, "%s mult", stem);
    openpim_he_status st = elem_1d(r, cat, CKKS_MUL, tmp, a, b, name);
    if (st != OPENPIM_HE_OK)
        return st;
    snprintf(name, sizeof name, "%s add", stem);
    return elem_1d(r, cat, CKKS_ADD, dst, dst, tmp, name);
}

static openpim_he_status conv_create_1d(void *he, const uint32_t *from, uint32_t nr_from, const uint32_t *to,
                                        uint32_t nr_to, void **bc)
{
    openpim_he_baseconv *p = NULL;
    const openpim_he_status st = openpim_he_baseconv_create(he, from, nr_from, to, nr_to, &p);
    *bc = p;
    return st;
}

static openpim_he_status alloc_1d(void *he, uint32_t count, void **p)
{
    openpim_he_poly *q = NULL;
    const openpim_he_status st = openpim_he_poly_alloc(he, count, &q);
    *p = q;
    return st;
}

static openpim_he_status upload_1d(void *he, void *p, const uint32_t *data)
{
    return openpim_he_poly_upload(he, p, data, OPENPIM_HE_NTT);
}

static void free_1d(void *he, void *p)
{
    openpim_he_poly_free(he, p);
}

static uint32_t count_1d(const void *p)
{
    return openpim_he_poly_count(p);
}

static enum openpim_he_form form_1d(const void *p)
{
    return openpim_he_poly_form(p);
}

static const struct ckks_layout layout_1d = {
    .conv_create = conv_create_1d, .alloc = alloc_1d, .upload = upload_1d, .free = free_1d, .count = count_1d,
    .form = form_1d, .mac_needs_tmp = 1, .tensor = tensor_1d, .ntt = ntt_1d, .convert = convert_1d,
    .elem = elem_1d, .mac = mac_1d,
};

openpim_he_status openpim_ckks_multiply(openpim_ckks_context *ctx, const openpim_ckks_key *key,
                                        openpim_he_poly *const out[2], const openpim_he_poly *const a[2],
                                        const openpim_he_poly *const b[2], struct openpim_ckks_times *times)
{
    if (!out || !a || !b)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, key, out, a or b is NULL");
    void *const o[2] = {out[0], out[1]};
    const void *const aa[2] = {a[0], a[1]}, *const bb[2] = {b[0], b[1]};
    return ckks_multiply(ctx ? &ctx->c : NULL, key ? &key->k : NULL, o, aa, bb, times);
}
