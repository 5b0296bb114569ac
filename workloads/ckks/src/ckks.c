/* RNS-CKKS homomorphic multiplication (tensor, hybrid key switching,
 * rescaling) composed from the HE library's operations on DPU-resident
 * polynomial arrays; see include/openpim_ckks.h for the arithmetic.  Every
 * step is one he call, timed by the modelled clock for the breakdown. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    struct openpim_ckks_params params;
    struct openpim_he_params hp;
    openpim_he_context *he;
    uint32_t alpha;                 /* limbs per digit */
    openpim_he_baseconv **up;       /* [dnum]: digit -> every other limb */
    openpim_he_baseconv *down;      /* P -> Q */
    openpim_he_baseconv *rescale;   /* q_L -> q_0 .. q_{L-1} */
};

struct openpim_ckks_key {
    openpim_ckks_context *ctx;
    uint32_t count;
    openpim_he_poly **ksk;          /* [dnum][2] */
    openpim_he_poly *p_inv;         /* P^-1 mod q_j at the limbs j < L + 1, else 0 (NTT form, constant) */
    openpim_he_poly *ql_inv;        /* q_L^-1 mod q_j at the limbs j < L, else 0 */
};

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
    openpim_he_context_destroy(ctx->he); /* frees the conversions and arrays with it */
    free(ctx->up);
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
    if (!ctx || !(ctx->up = calloc(params->dnum, sizeof *ctx->up))) {
        free(ctx);
        return ckks_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory");
    }
    ctx->params = *params;
    const uint32_t l1 = params->levels + 1, k = l1 + params->ext_limbs;
    ctx->alpha = l1 / params->dnum;
    if ((st = openpim_he_params_generate(params->n, k, params->bits, &ctx->hp)) != OPENPIM_HE_OK) {
        st = ckks_he_failed(st, "moduli");
        goto fail;
    }
    if ((st = openpim_he_context_create(&ctx->hp, config, &ctx->he)) != OPENPIM_HE_OK) {
        st = ckks_he_failed(st, "HE context");
        goto fail;
    }
    uint32_t from[OPENPIM_HE_MAX_MODULI], to[OPENPIM_HE_MAX_MODULI];
    for (uint32_t d = 0; d < params->dnum; d++) {
        uint32_t nf = 0, nt = 0;
        for (uint32_t i = 0; i < k; i++) {
            if (i >= d * ctx->alpha && i < (d + 1) * ctx->alpha)
                from[nf++] = i;
            else
                to[nt++] = i;
        }
        if ((st = openpim_he_baseconv_create(ctx->he, from, nf, to, nt, &ctx->up[d])) != OPENPIM_HE_OK) {
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
    if ((st = openpim_he_baseconv_create(ctx->he, from, params->ext_limbs, to, l1, &ctx->down)) != OPENPIM_HE_OK) {
        st = ckks_he_failed(st, "ModDown base conversion");
        goto fail;
    }
    from[0] = params->levels;
    if ((st = openpim_he_baseconv_create(ctx->he, from, 1, to, params->levels, &ctx->rescale)) != OPENPIM_HE_OK) {
        st = ckks_he_failed(st, "rescale base conversion");
        goto fail;
    }
    *out = ctx;
    return OPENPIM_HE_OK;
fail:
    openpim_ckks_context_destroy(ctx);
    return st;
}

openpim_he_context *openpim_ckks_he(openpim_ckks_context *ctx)
{
    return ctx ? ctx->he : NULL;
}

const struct openpim_he_params *openpim_ckks_he_params(const openpim_ckks_context *ctx)
{
    return ctx ? &ctx->hp : NULL;
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
    for (uint32_t i = 0; i < 2 * ctx->params.dnum; i++)
        openpim_he_poly_free(ctx->he, key->ksk[i]);
    openpim_he_poly_free(ctx->he, key->p_inv);
    openpim_he_poly_free(ctx->he, key->ql_inv);
    free(key->ksk);
    free(key);
}

openpim_he_status openpim_ckks_key_upload(openpim_ckks_context *ctx, const uint32_t *data, uint32_t count,
                                          openpim_ckks_key **out)
{
    if (!ctx || !data || !out)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, data or key is NULL");
    if (count == 0)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "a key for 0 ciphertexts");
    const uint32_t n = ctx->hp.n, k = ctx->hp.nr_moduli, dnum = ctx->params.dnum, l = ctx->params.levels;
    const size_t poly = (size_t)k * n;
    for (uint32_t i = 0; i < 2 * dnum; i++)
        for (uint32_t j = 0; j < k; j++)
            for (uint32_t x = 0; x < n; x++)
                if (data[i * poly + (size_t)j * n + x] >= ctx->hp.moduli[j])
                    return ckks_fail(OPENPIM_HE_ERR_ARGUMENT,
                                "switching key digit %u, component %u, limb %u, coefficient %u: %u is not below "
                                "its modulus %u", i / 2, i % 2, j, x, data[i * poly + (size_t)j * n + x],
                                ctx->hp.moduli[j]);
    openpim_ckks_key *key = calloc(1, sizeof *key);
    uint32_t *rep = malloc((size_t)count * poly * 4);
    openpim_he_status st = OPENPIM_HE_ERR_NO_MEMORY;
    if (!key || !rep || !(key->ksk = calloc(2 * dnum, sizeof *key->ksk))) {
        ckks_fail(st, "out of host memory for a switching key");
        goto fail;
    }
    key->ctx = ctx;
    key->count = count;
    for (uint32_t i = 0; i < 2 * dnum; i++) {
        for (uint32_t c = 0; c < count; c++)
            memcpy(rep + c * poly, data + i * poly, poly * 4);
        if ((st = openpim_he_poly_alloc(ctx->he, count, &key->ksk[i])) != OPENPIM_HE_OK ||
            (st = openpim_he_poly_upload(ctx->he, key->ksk[i], rep, OPENPIM_HE_NTT)) != OPENPIM_HE_OK) {
            st = ckks_he_failed(st, "switching key upload");
            goto fail;
        }
    }
    /* the constants of ModDown and rescaling, as constant NTT-form arrays
     * (a constant's NTT is the constant) */
    for (int which = 0; which < 2; which++) {
        for (uint32_t j = 0; j < k; j++) {
            const uint32_t v = ckks_constant(&ctx->hp, l, which, j);
            for (uint32_t c = 0; c < count; c++)
                for (uint32_t x = 0; x < n; x++)
                    rep[c * poly + (size_t)j * n + x] = v;
        }
        openpim_he_poly **dst = which == 0 ? &key->p_inv : &key->ql_inv;
        if ((st = openpim_he_poly_alloc(ctx->he, count, dst)) != OPENPIM_HE_OK ||
            (st = openpim_he_poly_upload(ctx->he, *dst, rep, OPENPIM_HE_NTT)) != OPENPIM_HE_OK) {
            st = ckks_he_failed(st, "constants upload");
            goto fail;
        }
    }
    free(rep);
    *out = key;
    return OPENPIM_HE_OK;
fail:
    free(rep);
    if (key && key->ksk)
        openpim_ckks_key_free(ctx, key);
    else
        free(key);
    return st;
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

/* One he call as one step of the breakdown. */
#define STEP(cat, call, ...)                                                                                   \
    do {                                                                                                       \
        double t0_ = openpim_modelled_time_us();                                                               \
        if ((st = (call)) != OPENPIM_HE_OK) {                                                                  \
            st = ckks_he_failed(st, #call);                                                                         \
            goto done;                                                                                         \
        }                                                                                                      \
        double all_ = openpim_modelled_time_us() - t0_, k_ = openpim_he_last_kernel_us(he);                    \
        launch_us = all_ - k_; /* one launch: its host-side overhead */                                        \
        ckks_record(t, cat, all_, k_, __VA_ARGS__);                                                                 \
    } while (0)

/* A base conversion: its two launches in `cat` (kernels, and the launch
 * overhead of the previous single-launch step, the same DPU set, twice), the
 * rest (the host relay's transfers) Inter-DPU. */
#define CONVERT(cat, bc, dst, src, ...)                                                                        \
    do {                                                                                                       \
        double t0_ = openpim_modelled_time_us();                                                               \
        if ((st = openpim_he_base_convert(he, bc, dst, src)) != OPENPIM_HE_OK) {                               \
            st = ckks_he_failed(st, "base conversion");                                                             \
            goto done;                                                                                         \
        }                                                                                                      \
        double all_ = openpim_modelled_time_us() - t0_, k_ = openpim_he_last_kernel_us(he);                    \
        ckks_record(t, cat, k_ + 2 * launch_us, k_, __VA_ARGS__);                                                   \
        ckks_record(t, OPENPIM_CKKS_INTER_DPU, all_ - k_ - 2 * launch_us, 0, "relay");                              \
    } while (0)

openpim_he_status openpim_ckks_multiply(openpim_ckks_context *ctx, const openpim_ckks_key *key,
                                        openpim_he_poly *const out[2], const openpim_he_poly *const a[2],
                                        const openpim_he_poly *const b[2], struct openpim_ckks_times *times)
{
    if (!ctx || !key || !out || !a || !b)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, key, out, a or b is NULL");
    if (key->ctx != ctx)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "the switching key belongs to another context");
    const openpim_he_poly *all[6] = {a[0], a[1], b[0], b[1], out[0], out[1]};
    for (int i = 0; i < 6; i++) {
        if (!all[i])
            return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ciphertext array %d is NULL", i);
        if (openpim_he_poly_count(all[i]) != key->count)
            return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ciphertext array %d holds %u polynomials, the key is for %u", i,
                        openpim_he_poly_count(all[i]), key->count);
        if (i < 4 && openpim_he_poly_form(all[i]) != OPENPIM_HE_NTT)
            return ckks_fail(OPENPIM_HE_ERR_FORM, "CKKS multiply needs its inputs in NTT form (array %d is not)", i);
        for (int j = 0; j < i; j++)
            if (i >= 4 && all[i] == all[j])
                return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "CKKS multiply: out[%d] must differ from the inputs and the "
                            "other output", i - 4);
    }
    struct openpim_ckks_times scratch_times;
    struct openpim_ckks_times *t = times ? times : &scratch_times;
    memset(t, 0, sizeof *t);
    openpim_he_context *he = ctx->he;
    const uint32_t count = key->count, dnum = ctx->params.dnum;
    enum { D0, D1, D2, X, E, T, S0, S1, Y, Z, NR_TMP };
    openpim_he_poly *v[NR_TMP] = {0};
    openpim_he_status st = OPENPIM_HE_OK;
    double launch_us = 0; /* host-side overhead of the last single-launch step */
    for (int i = 0; i < NR_TMP; i++)
        if ((st = openpim_he_poly_alloc(he, count, &v[i])) != OPENPIM_HE_OK) {
            st = ckks_he_failed(st, "temporary arrays");
            goto done;
        }
    openpim_he_poly *d[3] = {v[D0], v[D1], v[D2]}, *s[2] = {v[S0], v[S1]};

    /* tensor product */
    STEP(OPENPIM_CKKS_POLY_MULT, openpim_he_bgv_multiply(he, d, a, b), "tensor");
    /* key switching of d2: ModUp each digit, inner product with the key */
    STEP(OPENPIM_CKKS_NTT, openpim_he_intt(he, v[X], d[2]), "intt d2");
    for (uint32_t dg = 0; dg < dnum; dg++) {
        CONVERT(OPENPIM_CKKS_KEY_SWITCH, ctx->up[dg], v[E], v[X], "modup[%u] conv", dg);
        STEP(OPENPIM_CKKS_NTT, openpim_he_ntt(he, v[E], v[E]), "modup[%u] ntt", dg);
        for (int c = 0; c < 2; c++) {
            if (dg == 0) {
                STEP(OPENPIM_CKKS_KEY_SWITCH, openpim_he_mul_pointwise(he, s[c], v[E], key->ksk[2 * dg + c]),
                     "inner[%u] mult", dg);
            } else {
                STEP(OPENPIM_CKKS_KEY_SWITCH, openpim_he_mul_pointwise(he, v[T], v[E], key->ksk[2 * dg + c]),
                     "inner[%u] mult", dg);
                STEP(OPENPIM_CKKS_KEY_SWITCH, openpim_he_add(he, s[c], s[c], v[T]), "inner[%u] add", dg);
            }
        }
    }
    /* ModDown, then add to (d0, d1) */
    for (int c = 0; c < 2; c++) {
        STEP(OPENPIM_CKKS_NTT, openpim_he_intt(he, v[Y], s[c]), "moddown[%d] intt", c);
        CONVERT(OPENPIM_CKKS_KEY_SWITCH, ctx->down, v[Z], v[Y], "moddown[%d] conv", c);
        STEP(OPENPIM_CKKS_NTT, openpim_he_ntt(he, v[Z], v[Z]), "moddown[%d] ntt", c);
        STEP(OPENPIM_CKKS_KEY_SWITCH, openpim_he_sub(he, v[Y], s[c], v[Z]), "moddown[%d] sub", c);
        STEP(OPENPIM_CKKS_KEY_SWITCH, openpim_he_mul_pointwise(he, v[Y], v[Y], key->p_inv), "moddown[%d] mult", c);
        STEP(OPENPIM_CKKS_POLY_ADD, openpim_he_add(he, d[c], d[c], v[Y]), "add[%d]", c);
    }
    /* rescale by q_L */
    for (int c = 0; c < 2; c++) {
        STEP(OPENPIM_CKKS_NTT, openpim_he_intt(he, v[Y], d[c]), "rescale[%d] intt", c);
        CONVERT(OPENPIM_CKKS_POLY_MULT, ctx->rescale, v[Z], v[Y], "rescale[%d] conv", c);
        STEP(OPENPIM_CKKS_NTT, openpim_he_ntt(he, v[Z], v[Z]), "rescale[%d] ntt", c);
        STEP(OPENPIM_CKKS_POLY_ADD, openpim_he_sub(he, v[Y], d[c], v[Z]), "rescale[%d] sub", c);
        STEP(OPENPIM_CKKS_POLY_MULT, openpim_he_mul_pointwise(he, out[c], v[Y], key->ql_inv), "rescale[%d] mult", c);
    }
done:
    for (int i = 0; i < NR_TMP; i++)
        openpim_he_poly_free(he, v[i]);
    return st;
}
