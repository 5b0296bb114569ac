/* SPDX-License-Identifier: MIT */
/* RNS-CKKS multiplication on the 2D layout ([Jonatan24]'s): each limb spread
 * over g DPUs and resident between the steps (he's openpim_he_poly2d), the
 * (i)NTTs 2D NTTs with comm's All-to-All.  This file is the layout's
 * operations; ckks_seq.c runs the one sequence over them. */
#include <stdio.h>
#include <stdlib.h>

#include "ckks_internal.h"

struct openpim_ckks2d_context {
    struct ckks_core c;            /* c.he: the openpim_he_ntt2d */
    uint32_t count;
};

struct openpim_ckks2d_key {
    struct ckks_key_core k;
};

static const struct ckks_layout layout_2d;

void openpim_ckks2d_context_destroy(openpim_ckks2d_context *ctx)
{
    if (!ctx)
        return;
    openpim_he_ntt2d_destroy(ctx->c.he); /* frees the conversions and arrays with it */
    free(ctx->c.up);
    free(ctx);
}

openpim_he_status openpim_ckks2d_context_create(const struct openpim_ckks_params *params,
                                                const struct openpim_ckks2d_config *config,
                                                openpim_ckks2d_context **out)
{
    openpim_he_status st = openpim_ckks_params_check(params);
    if (st != OPENPIM_HE_OK)
        return st;
    if (!config || !out)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "config or ctx is NULL");
    if (config->count == 0 || config->group_dpus == 0)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "2D CKKS: count and group_dpus must be at least 1");
    openpim_ckks2d_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return ckks_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory");
    ctx->c.lay = &layout_2d;
    ctx->count = config->count;
    if ((st = ckks_core_init(&ctx->c, params)) != OPENPIM_HE_OK)
        goto fail;
    const struct openpim_he_ntt2d_config nc = {.nr_dpus = config->group_dpus * ctx->c.hp.nr_moduli,
                                               .group_dpus = config->group_dpus, .count = config->count,
                                               .profile = config->profile, .mul = config->mul,
                                               .comm = config->comm, .dpu_dir = config->dpu_dir};
    openpim_he_ntt2d *h = NULL;
    if ((st = openpim_he_ntt2d_create(&ctx->c.hp, &nc, &h)) != OPENPIM_HE_OK) {
        st = ckks_he_failed(st, "2D HE object");
        goto fail;
    }
    ctx->c.he = h;
    if ((st = ckks_core_conversions(&ctx->c)) != OPENPIM_HE_OK)
        goto fail;
    *out = ctx;
    return OPENPIM_HE_OK;
fail:
    openpim_ckks2d_context_destroy(ctx);
    return st;
}

openpim_he_ntt2d *openpim_ckks2d_he(openpim_ckks2d_context *ctx)
{
    return ctx ? ctx->c.he : NULL;
}

const struct openpim_he_params *openpim_ckks2d_he_params(const openpim_ckks2d_context *ctx)
{
    return ctx ? &ctx->c.hp : NULL;
}

void openpim_ckks2d_key_free(openpim_ckks2d_context *ctx, openpim_ckks2d_key *key)
{
    if (!ctx || !key)
        return;
    ckks_key_release(&ctx->c, &key->k);
    free(key);
}

openpim_he_status openpim_ckks2d_key_upload(openpim_ckks2d_context *ctx, const uint32_t *data,
                                            openpim_ckks2d_key **out)
{
    if (!ctx || !data || !out)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, data or key is NULL");
    openpim_ckks2d_key *key = calloc(1, sizeof *key);
    if (!key)
        return ckks_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory for a switching key");
    openpim_he_status st = ckks_key_upload(&ctx->c, data, ctx->count, &key->k);
    if (st != OPENPIM_HE_OK) {
        free(key);
        return st;
    }
    *out = key;
    return OPENPIM_HE_OK;
}

/* ---- the 2D layout: each limb over g DPUs, resident ------------------------
 * Each he call reports its launches' and All-to-All's / relay's times. */

/* A single-launch call that ended with st: one step in cat. */
static openpim_he_status one(struct ckks_run *r, openpim_he_status st, const char *what,
                             const struct openpim_he_ntt2d_times *tt, enum openpim_ckks_category cat,
                             const char *name)
{
    if (st != OPENPIM_HE_OK)
        return ckks_he_failed(st, what);
    ckks_record(r->t, cat, tt->kernel1_us, tt->kernel1_dpu_us, "%s", name);
    return OPENPIM_HE_OK;
}

/* A two-launch call (2D (i)NTT or base conversion): its launches in `cat`,
 * the All-to-All or relay between them (`between`) Inter-DPU. */
static openpim_he_status two(struct ckks_run *r, openpim_he_status st, const char *what,
                             const struct openpim_he_ntt2d_times *tt, enum openpim_ckks_category cat,
                             const char *name, const char *between)
{
    if (st != OPENPIM_HE_OK)
        return ckks_he_failed(st, what);
    ckks_record(r->t, cat, tt->kernel1_us + tt->kernel2_us, tt->kernel1_dpu_us + tt->kernel2_dpu_us, "%s", name);
    ckks_record(r->t, OPENPIM_CKKS_INTER_DPU, tt->inter_dpu_us, 0, "%s %s", name, between);
    return OPENPIM_HE_OK;
}

static openpim_he_status tensor_2d(struct ckks_run *r, void *const d[3], const void *const a[2],
                                   const void *const b[2])
{
    struct openpim_he_ntt2d_times tt;
    const enum openpim_ckks_category cat = OPENPIM_CKKS_POLY_MULT;
    openpim_he_status st;
    if ((st = one(r, openpim_he_poly2d_mul(r->he, d[0], a[0], b[0], &tt), "openpim_he_poly2d_mul", &tt, cat,
                  "tensor d0")) != OPENPIM_HE_OK ||
        (st = one(r, openpim_he_poly2d_mul(r->he, d[1], a[0], b[1], &tt), "openpim_he_poly2d_mul", &tt, cat,
                  "tensor d1")) != OPENPIM_HE_OK ||
        (st = one(r, openpim_he_poly2d_mac(r->he, d[1], a[1], b[0], &tt), "openpim_he_poly2d_mac", &tt, cat,
                  "tensor d1 mac")) != OPENPIM_HE_OK)
        return st;
    return one(r, openpim_he_poly2d_mul(r->he, d[2], a[1], b[1], &tt), "openpim_he_poly2d_mul", &tt, cat,
               "tensor d2");
}

static openpim_he_status ntt_2d(struct ckks_run *r, int inverse, void *dst, const void *src, const char *name)
{
    struct openpim_he_ntt2d_times tt;
    const openpim_he_status st = inverse ? openpim_he_poly2d_intt(r->he, dst, src, &tt)
                                         : openpim_he_poly2d_ntt(r->he, dst, src, &tt);
    return two(r, st, inverse ? "openpim_he_poly2d_intt" : "openpim_he_poly2d_ntt", &tt, OPENPIM_CKKS_NTT, name,
               "all-to-all");
}

static openpim_he_status convert_2d(struct ckks_run *r, enum openpim_ckks_category cat, const void *bc, void *dst,
                                    const void *src, const char *name)
{
    struct openpim_he_ntt2d_times tt;
    return two(r, openpim_he_poly2d_base_convert(r->he, bc, dst, src, &tt), "openpim_he_poly2d_base_convert", &tt,
               cat, name, "relay");
}

static openpim_he_status elem_2d(struct ckks_run *r, enum openpim_ckks_category cat, enum ckks_elem op, void *dst,
                                 const void *a, const void *b, const char *name)
{
    struct openpim_he_ntt2d_times tt;
    switch (op) {
    case CKKS_ADD:
        return one(r, openpim_he_poly2d_add(r->he, dst, a, b, &tt), "openpim_he_poly2d_add", &tt, cat, name);
    case CKKS_SUB:
        return one(r, openpim_he_poly2d_sub(r->he, dst, a, b, &tt), "openpim_he_poly2d_sub", &tt, cat, name);
    case CKKS_MUL:
        return one(r, openpim_he_poly2d_mul(r->he, dst, a, b, &tt), "openpim_he_poly2d_mul", &tt, cat, name);
    }
    return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "element-wise operation %d unknown", (int)op);
}

static openpim_he_status mac_2d(struct ckks_run *r, enum openpim_ckks_category cat, void *dst, const void *a,
                                const void *b, void *tmp, const char *stem)
{
    (void)tmp; /* one launch: he's multiply-accumulate */
    struct openpim_he_ntt2d_times tt;
    char name[40];
    snprintf(name, sizeof name, "%s mac", stem);
    return one(r, openpim_he_poly2d_mac(r->he, dst, a, b, &tt), "openpim_he_poly2d_mac", &tt, cat, name);
}

static openpim_he_status conv_create_2d(void *he, const uint32_t *from, uint32_t nr_from, const uint32_t *to,
                                        uint32_t nr_to, void **bc)
{
    openpim_he_baseconv2d *p = NULL;
    const openpim_he_status st = openpim_he_baseconv2d_create(he, from, nr_from, to, nr_to, &p);
    *bc = p;
    return st;
}

static openpim_he_status alloc_2d(void *he, uint32_t count, void **p)
{
    (void)count; /* the 2D object's, fixed at its creation */
    openpim_he_poly2d *q = NULL;
    const openpim_he_status st = openpim_he_poly2d_alloc(he, &q);
    *p = q;
    return st;
}

static openpim_he_status upload_2d(void *he, void *p, const uint32_t *data)
{
    return openpim_he_poly2d_upload(he, p, data, OPENPIM_HE_NTT, NULL);
}

static void free_2d(void *he, void *p)
{
    openpim_he_poly2d_free(he, p);
}

static enum openpim_he_form form_2d(const void *p)
{
    return openpim_he_poly2d_form(p);
}

static const struct ckks_layout layout_2d = {
    .conv_create = conv_create_2d, .alloc = alloc_2d, .upload = upload_2d, .free = free_2d, .count = NULL,
    .form = form_2d, .mac_needs_tmp = 0, .tensor = tensor_2d, .ntt = ntt_2d, .convert = convert_2d,
    .elem = elem_2d, .mac = mac_2d,
};

openpim_he_status openpim_ckks2d_multiply(openpim_ckks2d_context *ctx, const openpim_ckks2d_key *key,
                                          openpim_he_poly2d *const out[2], const openpim_he_poly2d *const a[2],
                                          const openpim_he_poly2d *const b[2], struct openpim_ckks_times *times)
{
    if (!out || !a || !b)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, key, out, a or b is NULL");
    void *const o[2] = {out[0], out[1]};
    const void *const aa[2] = {a[0], a[1]}, *const bb[2] = {b[0], b[1]};
    return ckks_multiply(ctx ? &ctx->c : NULL, key ? &key->k : NULL, o, aa, bb, times);
}
