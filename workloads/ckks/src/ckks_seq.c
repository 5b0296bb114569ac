/* SPDX-License-Identifier: MIT */
/* The CKKS multiplication as one sequence of he operations (tensor, ModUp
 * per digit, inner product with the key, ModDown, rescaling; see
 * include/openpim_ckks.h), with the setup it needs, run over either layout
 * through its struct ckks_layout (ckks.c: 1D, ckks2d.c: 2D). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckks_internal.h"

openpim_he_status ckks_core_init(struct ckks_core *c, const struct openpim_ckks_params *params)
{
    openpim_he_status st;
    c->params = *params;
    if (!(c->up = calloc(params->dnum, sizeof *c->up)))
        return ckks_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory");
    if ((st = openpim_he_params_generate(params->n, params->levels + 1 + params->ext_limbs, params->bits, &c->hp)) !=
        OPENPIM_HE_OK)
        return ckks_he_failed(st, "moduli");
    return OPENPIM_HE_OK;
}

openpim_he_status ckks_core_conversions(struct ckks_core *c)
{
    const struct openpim_ckks_params *p = &c->params;
    const uint32_t l1 = p->levels + 1, k = l1 + p->ext_limbs, alpha = l1 / p->dnum;
    uint32_t from[OPENPIM_HE_MAX_MODULI], to[OPENPIM_HE_MAX_MODULI];
    openpim_he_status st;
    for (uint32_t d = 0; d < p->dnum; d++) {
        uint32_t nf = 0, nt = 0;
        for (uint32_t i = 0; i < k; i++) {
            if (i >= d * alpha && i < (d + 1) * alpha)
                from[nf++] = i;
            else
                to[nt++] = i;
        }
        if ((st = c->lay->conv_create(c->he, from, nf, to, nt, &c->up[d])) != OPENPIM_HE_OK)
            return ckks_he_failed(st, "ModUp base conversion");
    }
    for (uint32_t i = 0; i < k; i++) {
        if (i < l1)
            to[i] = i;
        else
            from[i - l1] = i;
    }
    if ((st = c->lay->conv_create(c->he, from, p->ext_limbs, to, l1, &c->down)) != OPENPIM_HE_OK)
        return ckks_he_failed(st, "ModDown base conversion");
    from[0] = p->levels;
    if ((st = c->lay->conv_create(c->he, from, 1, to, p->levels, &c->rescale)) != OPENPIM_HE_OK)
        return ckks_he_failed(st, "rescale base conversion");
    return OPENPIM_HE_OK;
}

void ckks_key_release(const struct ckks_core *c, struct ckks_key_core *key)
{
    for (uint32_t i = 0; key->ksk && i < 2 * c->params.dnum; i++)
        c->lay->free(c->he, key->ksk[i]);
    c->lay->free(c->he, key->p_inv);
    c->lay->free(c->he, key->ql_inv);
    free(key->ksk);
    memset(key, 0, sizeof *key);
}

/* A resident array of `rep` (NTT form). */
static openpim_he_status upload(const struct ckks_core *c, uint32_t count, const uint32_t *rep, void **p,
                                const char *what)
{
    openpim_he_status st = c->lay->alloc(c->he, count, p);
    if (st == OPENPIM_HE_OK)
        st = c->lay->upload(c->he, *p, rep);
    return st == OPENPIM_HE_OK ? st : ckks_he_failed(st, what);
}

openpim_he_status ckks_key_upload(const struct ckks_core *c, const uint32_t *data, uint32_t count,
                                  struct ckks_key_core *key)
{
    const uint32_t n = c->hp.n, k = c->hp.nr_moduli, dnum = c->params.dnum, l = c->params.levels;
    const size_t poly = (size_t)k * n;
    for (uint32_t i = 0; i < 2 * dnum; i++)
        for (uint32_t j = 0; j < k; j++)
            for (uint32_t x = 0; x < n; x++)
                if (data[i * poly + (size_t)j * n + x] >= c->hp.moduli[j])
                    return ckks_fail(OPENPIM_HE_ERR_ARGUMENT,
                                     "switching key digit %u, component %u, limb %u, coefficient %u: %u is not "
                                     "below its modulus %u", i / 2, i % 2, j, x, data[i * poly + (size_t)j * n + x],
                                     c->hp.moduli[j]);
    memset(key, 0, sizeof *key);
    key->owner = c;
    key->count = count;
    uint32_t *rep = malloc((size_t)count * poly * 4);
    openpim_he_status st = OPENPIM_HE_ERR_NO_MEMORY;
    if (!rep || !(key->ksk = calloc(2 * dnum, sizeof *key->ksk))) {
        ckks_fail(st, "out of host memory for a switching key");
        goto fail;
    }
    for (uint32_t i = 0; i < 2 * dnum; i++) {
        for (uint32_t cc = 0; cc < count; cc++)
            memcpy(rep + cc * poly, data + i * poly, poly * 4);
        if ((st = upload(c, count, rep, &key->ksk[i], "switching key upload")) != OPENPIM_HE_OK)
            goto fail;
    }
    /* the constants of ModDown and rescaling, as constant NTT-form arrays
     * (a constant's NTT is the constant) */
    for (int which = 0; which < 2; which++) {
        for (uint32_t j = 0; j < k; j++) {
            const uint32_t v = ckks_constant(&c->hp, l, which, j);
            for (uint32_t cc = 0; cc < count; cc++)
                for (uint32_t x = 0; x < n; x++)
                    rep[cc * poly + (size_t)j * n + x] = v;
        }
        if ((st = upload(c, count, rep, which == 0 ? &key->p_inv : &key->ql_inv, "constants upload")) !=
            OPENPIM_HE_OK)
            goto fail;
    }
    free(rep);
    return OPENPIM_HE_OK;
fail:
    free(rep);
    ckks_key_release(c, key);
    return st;
}

/* The inputs in NTT form, the outputs distinct from them and each other,
 * every array of the key's count. */
static openpim_he_status check_arrays(const struct ckks_core *c, const struct ckks_key_core *key,
                                      void *const out[2], const void *const a[2], const void *const b[2])
{
    const void *all[6] = {a[0], a[1], b[0], b[1], out[0], out[1]};
    for (int i = 0; i < 6; i++) {
        if (!all[i])
            return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ciphertext array %d is NULL", i);
        if (c->lay->count && c->lay->count(all[i]) != key->count)
            return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ciphertext array %d holds %u polynomials, the key is for %u",
                             i, c->lay->count(all[i]), key->count);
        if (i < 4 && c->lay->form(all[i]) != OPENPIM_HE_NTT)
            return ckks_fail(OPENPIM_HE_ERR_FORM, "CKKS multiply needs its inputs in NTT form (array %d is not)", i);
        for (int j = 0; j < i; j++)
            if (i >= 4 && all[i] == all[j])
                return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "CKKS multiply: out[%d] must differ from the inputs and "
                                 "the other output", i - 4);
    }
    return OPENPIM_HE_OK;
}

openpim_he_status ckks_multiply(const struct ckks_core *c, const struct ckks_key_core *key, void *const out[2],
                                const void *const a[2], const void *const b[2], struct openpim_ckks_times *times)
{
    if (!c || !key)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, key, out, a or b is NULL");
    if (key->owner != c)
        return ckks_fail(OPENPIM_HE_ERR_ARGUMENT, "the switching key belongs to another context");
    openpim_he_status st = check_arrays(c, key, out, a, b);
    if (st != OPENPIM_HE_OK)
        return st;
    struct openpim_ckks_times scratch_times;
    struct openpim_ckks_times *t = times ? times : &scratch_times;
    memset(t, 0, sizeof *t);
    const struct ckks_layout *lay = c->lay;
    struct ckks_run r = {.he = c->he, .t = t};
    const uint32_t dnum = c->params.dnum;
    enum { D0, D1, D2, X, E, T, S0, S1, Y, Z, NR_TMP };
    void *v[NR_TMP] = {0};
    char name[32];
    for (int i = 0; i < NR_TMP; i++)
        if ((i != T || lay->mac_needs_tmp) && (st = lay->alloc(c->he, key->count, &v[i])) != OPENPIM_HE_OK) {
            st = ckks_he_failed(st, "temporary arrays");
            goto done;
        }
    void *d[3] = {v[D0], v[D1], v[D2]}, *s[2] = {v[S0], v[S1]};
#define DO(call)                                                                                               \
    do {                                                                                                       \
        if ((st = (call)) != OPENPIM_HE_OK)                                                                    \
            goto done;                                                                                         \
    } while (0)
#define NAME(...) (snprintf(name, sizeof name, __VA_ARGS__), name)

    /* tensor product: (a0 b0, a0 b1 + a1 b0, a1 b1) */
    DO(lay->tensor(&r, d, a, b));
    /* key switching of d2: ModUp each digit, inner product with the key */
    DO(lay->ntt(&r, 1, v[X], d[2], "intt d2"));
    for (uint32_t dg = 0; dg < dnum; dg++) {
        DO(lay->convert(&r, OPENPIM_CKKS_KEY_SWITCH, c->up[dg], v[E], v[X], NAME("modup[%u] conv", dg)));
        DO(lay->ntt(&r, 0, v[E], v[E], NAME("modup[%u] ntt", dg)));
        for (int cc = 0; cc < 2; cc++) {
            if (dg == 0)
                DO(lay->elem(&r, OPENPIM_CKKS_KEY_SWITCH, CKKS_MUL, s[cc], v[E], key->ksk[2 * dg + cc],
                             NAME("inner[%u] mult", dg)));
            else
                DO(lay->mac(&r, OPENPIM_CKKS_KEY_SWITCH, s[cc], v[E], key->ksk[2 * dg + cc], v[T],
                            NAME("inner[%u]", dg)));
        }
    }
    /* ModDown, then add to (d0, d1) */
    for (int cc = 0; cc < 2; cc++) {
        DO(lay->ntt(&r, 1, v[Y], s[cc], NAME("moddown[%d] intt", cc)));
        DO(lay->convert(&r, OPENPIM_CKKS_KEY_SWITCH, c->down, v[Z], v[Y], NAME("moddown[%d] conv", cc)));
        DO(lay->ntt(&r, 0, v[Z], v[Z], NAME("moddown[%d] ntt", cc)));
        DO(lay->elem(&r, OPENPIM_CKKS_KEY_SWITCH, CKKS_SUB, v[Y], s[cc], v[Z], NAME("moddown[%d] sub", cc)));
        DO(lay->elem(&r, OPENPIM_CKKS_KEY_SWITCH, CKKS_MUL, v[Y], v[Y], key->p_inv, NAME("moddown[%d] mult", cc)));
        DO(lay->elem(&r, OPENPIM_CKKS_POLY_ADD, CKKS_ADD, d[cc], d[cc], v[Y], NAME("add[%d]", cc)));
    }
    /* rescale by q_L */
    for (int cc = 0; cc < 2; cc++) {
        DO(lay->ntt(&r, 1, v[Y], d[cc], NAME("rescale[%d] intt", cc)));
        DO(lay->convert(&r, OPENPIM_CKKS_POLY_MULT, c->rescale, v[Z], v[Y], NAME("rescale[%d] conv", cc)));
        DO(lay->ntt(&r, 0, v[Z], v[Z], NAME("rescale[%d] ntt", cc)));
        DO(lay->elem(&r, OPENPIM_CKKS_POLY_ADD, CKKS_SUB, v[Y], d[cc], v[Z], NAME("rescale[%d] sub", cc)));
        DO(lay->elem(&r, OPENPIM_CKKS_POLY_MULT, CKKS_MUL, out[cc], v[Y], key->ql_inv, NAME("rescale[%d] mult", cc)));
    }
#undef DO
#undef NAME
done:
    for (int i = 0; i < NR_TMP; i++)
        lay->free(c->he, v[i]);
    return st;
}
