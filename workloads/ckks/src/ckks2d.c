/* RNS-CKKS multiplication on the 2D layout (paper 000's): each limb spread
 * over g DPUs and resident between the steps (he's openpim_he_poly2d), the
 * (i)NTTs 2D NTTs with comm's All-to-All; the arithmetic is ckks.c's, step
 * for step (include/openpim_ckks.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpu.h>

#include "ckks_internal.h"

struct openpim_ckks2d_context {
    struct openpim_ckks_params params;
    struct openpim_he_params hp;
    openpim_he_ntt2d *ntt;
    uint32_t count;
    openpim_he_baseconv2d **up;    /* [dnum]: digit -> every other limb */
    openpim_he_baseconv2d *down;   /* P -> Q */
    openpim_he_baseconv2d *rescale; /* q_L -> q_0 .. q_{L-1} */
};

struct openpim_ckks2d_key {
    openpim_ckks2d_context *ctx;
    openpim_he_poly2d **ksk;       /* [dnum][2] */
    openpim_he_poly2d *p_inv;      /* P^-1 at the limbs j <= L, else 0 (NTT form, constant) */
    openpim_he_poly2d *ql_inv;     /* q_L^-1 at the limbs j < L, else 0 */
};

void openpim_ckks2d_context_destroy(openpim_ckks2d_context *ctx)
{
    if (!ctx)
        return;
    openpim_he_ntt2d_destroy(ctx->ntt); /* frees the conversions and arrays with it */
    free(ctx->up);
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
    if (!ctx || !(ctx->up = calloc(params->dnum, sizeof *ctx->up))) {
        free(ctx);
        return ckks_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory");
    }
    ctx->params = *params;
    ctx->count = config->count;
    const uint32_t l1 = params->levels + 1, k = l1 + params->ext_limbs, alpha = l1 / params->dnum;
    if ((st = openpim_he_params_generate(params->n, k, params->bits, &ctx->hp)) != OPENPIM_HE_OK) {
        st = ckks_he_failed(st, "moduli");
        goto fail;
    }
    const struct openpim_he_ntt2d_config nc = {.nr_dpus = config->group_dpus * k, .group_dpus = config->group_dpus,
                                               .count = config->count, .profile = config->profile,
                                               .mul = config->mul, .comm = config->comm,
                                               .dpu_dir = config->dpu_dir};
    if ((st = openpim_he_ntt2d_create(&ctx->hp, &nc, &ctx->ntt)) != OPENPIM_HE_OK) {
        st = ckks_he_failed(st, "2D HE object");
        goto fail;
    }
    uint32_t from[OPENPIM_HE_MAX_MODULI], to[OPENPIM_HE_MAX_MODULI];
    for (uint32_t d = 0; d < params->dnum; d++) {
        uint32_t nf = 0, nt = 0;
        for (uint32_t i = 0; i < k; i++) {
            if (i >= d * alpha && i < (d + 1) * alpha)
                from[nf++] = i;
            else
                to[nt++] = i;
        }
        if ((st = openpim_he_baseconv2d_create(ctx->ntt, from, nf, to, nt, &ctx->up[d])) != OPENPIM_HE_OK) {
            st = ckks_he_failed(st, "ModUp base conversion");
            goto fail;
        }
    }
    for (uint32_t i = 0; i < k; i++) {
        if (i < l1)
            to[i] = i;
        else
            from[i - l1] = i;
    }
    if ((st = openpim_he_baseconv2d_create(ctx->ntt, from, params->ext_limbs, to, l1, &ctx->down)) !=
        OPENPIM_HE_OK) {
        st = ckks_he_failed(st, "ModDown base conversion");
        goto fail;
    }
    from[0] = params->levels;
    if ((st = openpim_he_baseconv2d_create(ctx->ntt, from, 1, to, params->levels, &ctx->rescale)) != OPENPIM_HE_OK) {
        st = ckks_he_failed(st, "rescale base conversion");
        goto fail;
    }
    *out = ctx;
    return OPENPIM_HE_OK;
fail:
    openpim_ckks2d_context_destroy(ctx);
    return st;
}

openpim_he_ntt2d *openpim_ckks2d_he(openpim_ckks2d_context *ctx)
{
    return ctx ? ctx->ntt : NULL;
}

const struct openpim_he_params *openpim_ckks2d_he_params(const openpim_ckks2d_context *ctx)
{
    return ctx ? &ctx->hp : NULL;
}

void openpim_ckks2d_key_free(openpim_ckks2d_context *ctx, openpim_ckks2d_key *key)
{
    if (!ctx || !key)
        return;
    for (uint32_t i = 0; key->ksk && i < 2 * ctx->params.dnum; i++)
        openpim_he_poly2d_free(ctx->ntt, key->ksk[i]);
    openpim_he_poly2d_free(ctx->ntt, key->p_inv);
    openpim_he_poly2d_free(ctx->ntt, key->ql_inv);
    free(key->ksk);
    free(key);
}

/* A resident array from `rep` (count copies of one polynomial, NTT form). */
static openpim_he_status upload(openpim_ckks2d_context *ctx, const uint32_t *rep, openpim_he_poly2d **p)
{
    openpim_he_status st = openpim_he_poly2d_alloc(ctx->ntt, p);
    if (st == OPENPIM_HE_OK)
        st = openpim_he_poly2d_upload(ctx->ntt, *p, rep, OPENPIM_HE_NTT, NULL);
    return st == OPENPIM_HE_OK ? st : ckks_he_failed(st, "switching key upload");
}

openpim_he_status openpim_ckks2d_key_upload(openpim_ckks2d_context *ctx, const uint32_t *data,
                                            openpim_ckks2d_key **out)
{
    if (!ctx || !data || !out)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, data or key is NULL");
    const uint32_t n = ctx->hp.n, k = ctx->hp.nr_moduli, dnum = ctx->params.dnum, l = ctx->params.levels;
    const uint32_t count = ctx->count;
    const size_t poly = (size_t)k * n;
    for (uint32_t i = 0; i < 2 * dnum; i++)
        for (uint32_t j = 0; j < k; j++)
            for (uint32_t x = 0; x < n; x++)
                if (data[i * poly + (size_t)j * n + x] >= ctx->hp.moduli[j])
                    return ckks_fail(OPENPIM_HE_ERR_ARGUMENT,
                                     "switching key digit %u, component %u, limb %u, coefficient %u: %u is not "
                                     "below its modulus %u", i / 2, i % 2, j, x, data[i * poly + (size_t)j * n + x],
                                     ctx->hp.moduli[j]);
    openpim_ckks2d_key *key = calloc(1, sizeof *key);
    uint32_t *rep = malloc((size_t)count * poly * 4);
    openpim_he_status st = OPENPIM_HE_ERR_NO_MEMORY;
    if (!key || !rep || !(key->ksk = calloc(2 * dnum, sizeof *key->ksk))) {
        ckks_fail(st, "out of host memory for a switching key");
        goto fail;
    }
    key->ctx = ctx;
    for (uint32_t i = 0; i < 2 * dnum; i++) {
        for (uint32_t c = 0; c < count; c++)
            memcpy(rep + c * poly, data + i * poly, poly * 4);
        if ((st = upload(ctx, rep, &key->ksk[i])) != OPENPIM_HE_OK)
            goto fail;
    }
    for (int which = 0; which < 2; which++) {
        for (uint32_t j = 0; j < k; j++) {
            const uint32_t v = ckks_constant(&ctx->hp, l, which, j);
            for (uint32_t c = 0; c < count; c++)
                for (uint32_t x = 0; x < n; x++)
                    rep[c * poly + (size_t)j * n + x] = v;
        }
        if ((st = upload(ctx, rep, which == 0 ? &key->p_inv : &key->ql_inv)) != OPENPIM_HE_OK)
            goto fail;
    }
    free(rep);
    *out = key;
    return OPENPIM_HE_OK;
fail:
    free(rep);
    if (key && key->ksk)
        openpim_ckks2d_key_free(ctx, key);
    else
        free(key);
    return st;
}

/* ---- the multiplication --------------------------------------------------- */

/* A two-launch operation (2D (i)NTT or base conversion): its launches in
 * `cat`, the All-to-All or relay between them Inter-DPU. */
static void two_steps(struct openpim_ckks_times *t, enum openpim_ckks_category cat, const char *name,
                      const struct openpim_he_ntt2d_times *tt, const char *between)
{
    ckks_record(t, cat, tt->kernel1_us + tt->kernel2_us, tt->kernel1_dpu_us + tt->kernel2_dpu_us, "%s", name);
    ckks_record(t, OPENPIM_CKKS_INTER_DPU, tt->inter_dpu_us, 0, "%s %s", name, between);
}

openpim_he_status openpim_ckks2d_multiply(openpim_ckks2d_context *ctx, const openpim_ckks2d_key *key,
                                          openpim_he_poly2d *const out[2], const openpim_he_poly2d *const a[2],
                                          const openpim_he_poly2d *const b[2], struct openpim_ckks_times *times)
{
    if (!ctx || !key || !out || !a || !b)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, key, out, a or b is NULL");
    if (key->ctx != ctx)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "the switching key belongs to another context");
    const openpim_he_poly2d *all[6] = {a[0], a[1], b[0], b[1], out[0], out[1]};
    for (int i = 0; i < 6; i++) {
        if (!all[i])
            return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ciphertext array %d is NULL", i);
        if (i < 4 && openpim_he_poly2d_form(all[i]) != OPENPIM_HE_NTT)
            return ckks_fail(OPENPIM_HE_ERR_FORM, "CKKS multiply needs its inputs in NTT form (array %d is not)", i);
        for (int j = 0; j < i; j++)
            if (i >= 4 && all[i] == all[j])
                return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "CKKS multiply: out[%d] must differ from the inputs and "
                                 "the other output", i - 4);
    }
    struct openpim_ckks_times scratch_times;
    struct openpim_ckks_times *t = times ? times : &scratch_times;
    memset(t, 0, sizeof *t);
    openpim_he_ntt2d *h = ctx->ntt;
    const uint32_t dnum = ctx->params.dnum;
    enum { D0, D1, D2, X, E, S0, S1, Y, Z, NR_TMP };
    openpim_he_poly2d *v[NR_TMP] = {0};
    openpim_he_status st = OPENPIM_HE_OK;
    struct openpim_he_ntt2d_times tt;
    char name[32];
    for (int i = 0; i < NR_TMP; i++)
        if ((st = openpim_he_poly2d_alloc(h, &v[i])) != OPENPIM_HE_OK) {
            st = ckks_he_failed(st, "temporary arrays");
            goto done;
        }
    openpim_he_poly2d *d[3] = {v[D0], v[D1], v[D2]}, *s[2] = {v[S0], v[S1]};

/* One he call filling tt, then its record(s). */
#define CALL(call)                                                                                             \
    do {                                                                                                       \
        if ((st = (call)) != OPENPIM_HE_OK) {                                                                  \
            st = ckks_he_failed(st, #call);                                                                    \
            goto done;                                                                                         \
        }                                                                                                      \
    } while (0)
#define ONE(cat, call, ...)                                                                                    \
    do {                                                                                                       \
        CALL(call);                                                                                            \
        ckks_record(t, cat, tt.kernel1_us, tt.kernel1_dpu_us, __VA_ARGS__);                                    \
    } while (0)
#define TWO(cat, between, call, ...)                                                                           \
    do {                                                                                                       \
        CALL(call);                                                                                            \
        snprintf(name, sizeof name, __VA_ARGS__);                                                              \
        two_steps(t, cat, name, &tt, between);                                                                 \
    } while (0)

    /* tensor product: (a0 b0, a0 b1 + a1 b0, a1 b1) */
    ONE(OPENPIM_CKKS_POLY_MULT, openpim_he_poly2d_mul(h, d[0], a[0], b[0], &tt), "tensor d0");
    ONE(OPENPIM_CKKS_POLY_MULT, openpim_he_poly2d_mul(h, d[1], a[0], b[1], &tt), "tensor d1");
    ONE(OPENPIM_CKKS_POLY_MULT, openpim_he_poly2d_mac(h, d[1], a[1], b[0], &tt), "tensor d1 mac");
    ONE(OPENPIM_CKKS_POLY_MULT, openpim_he_poly2d_mul(h, d[2], a[1], b[1], &tt), "tensor d2");
    /* key switching of d2: ModUp each digit, inner product with the key */
    TWO(OPENPIM_CKKS_NTT, "all-to-all", openpim_he_poly2d_intt(h, v[X], d[2], &tt), "intt d2");
    for (uint32_t dg = 0; dg < dnum; dg++) {
        TWO(OPENPIM_CKKS_KEY_SWITCH, "relay", openpim_he_poly2d_base_convert(h, ctx->up[dg], v[E], v[X], &tt),
            "modup[%u] conv", dg);
        TWO(OPENPIM_CKKS_NTT, "all-to-all", openpim_he_poly2d_ntt(h, v[E], v[E], &tt), "modup[%u] ntt", dg);
        for (int c = 0; c < 2; c++) {
            if (dg == 0)
                ONE(OPENPIM_CKKS_KEY_SWITCH, openpim_he_poly2d_mul(h, s[c], v[E], key->ksk[2 * dg + c], &tt),
                    "inner[%u] mult", dg);
            else
                ONE(OPENPIM_CKKS_KEY_SWITCH, openpim_he_poly2d_mac(h, s[c], v[E], key->ksk[2 * dg + c], &tt),
                    "inner[%u] mac", dg);
        }
    }
    /* ModDown, then add to (d0, d1) */
    for (int c = 0; c < 2; c++) {
        TWO(OPENPIM_CKKS_NTT, "all-to-all", openpim_he_poly2d_intt(h, v[Y], s[c], &tt), "moddown[%d] intt", c);
        TWO(OPENPIM_CKKS_KEY_SWITCH, "relay", openpim_he_poly2d_base_convert(h, ctx->down, v[Z], v[Y], &tt),
            "moddown[%d] conv", c);
        TWO(OPENPIM_CKKS_NTT, "all-to-all", openpim_he_poly2d_ntt(h, v[Z], v[Z], &tt), "moddown[%d] ntt", c);
        ONE(OPENPIM_CKKS_KEY_SWITCH, openpim_he_poly2d_sub(h, v[Y], s[c], v[Z], &tt), "moddown[%d] sub", c);
        ONE(OPENPIM_CKKS_KEY_SWITCH, openpim_he_poly2d_mul(h, v[Y], v[Y], key->p_inv, &tt), "moddown[%d] mult", c);
        ONE(OPENPIM_CKKS_POLY_ADD, openpim_he_poly2d_add(h, d[c], d[c], v[Y], &tt), "add[%d]", c);
    }
    /* rescale by q_L */
    for (int c = 0; c < 2; c++) {
        TWO(OPENPIM_CKKS_NTT, "all-to-all", openpim_he_poly2d_intt(h, v[Y], d[c], &tt), "rescale[%d] intt", c);
        TWO(OPENPIM_CKKS_POLY_MULT, "relay", openpim_he_poly2d_base_convert(h, ctx->rescale, v[Z], v[Y], &tt),
            "rescale[%d] conv", c);
        TWO(OPENPIM_CKKS_NTT, "all-to-all", openpim_he_poly2d_ntt(h, v[Z], v[Z], &tt), "rescale[%d] ntt", c);
        ONE(OPENPIM_CKKS_POLY_ADD, openpim_he_poly2d_sub(h, v[Y], d[c], v[Z], &tt), "rescale[%d] sub", c);
        ONE(OPENPIM_CKKS_POLY_MULT, openpim_he_poly2d_mul(h, out[c], v[Y], key->ql_inv, &tt), "rescale[%d] mult",
            c);
    }
#undef CALL
#undef ONE
#undef TWO
done:
    for (int i = 0; i < NR_TMP; i++)
        openpim_he_poly2d_free(h, v[i]);
    return st;
}
