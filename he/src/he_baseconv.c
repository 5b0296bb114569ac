/* SPDX-License-Identifier: MIT */
/* RNS fast base conversion (Bajard et al.; the ModUp / ModDown of hybrid key
 * switching and CKKS rescaling) on the 1D split.  A target group needs the
 * source groups' residues of the same polynomials, so the host relays them:
 *   1. DPUs (source groups): t_f = x_f (Q_F / q_f)^-1 mod q_f; x_f copied to dst;
 *   2. host: the t_f of every polynomial to the DPU of each target group that
 *      holds it (nr_from times the data of one residue per target DPU);
 *   3. DPUs (target groups): dst = sum_f (t_f mod q) ((Q_F / q_f) mod q).
 * Added for workloads/ckks; the transfers are modelled like every
 * other. */
#include <stdlib.h>
#include <string.h>

#include "he_internal.h"

/* prod_{f in from, f != skip} q_f mod q */
static uint32_t prod_mod(const struct openpim_he_params *p, const uint32_t *from, uint32_t nf, uint32_t skip,
                         uint32_t q)
{
    uint32_t r = 1 % q;
    for (uint32_t f = 0; f < nf; f++)
        if (from[f] != skip)
            r = he_mul_mod(r, p->moduli[from[f]] % q, q);
    return r;
}

openpim_he_status he_baseconv_roles(const struct openpim_he_params *p, const uint32_t *from, uint32_t nr_from,
                                    const uint32_t *to, uint32_t nr_to, uint8_t *role, const char *what)
{
    const uint32_t k = p->nr_moduli;
    if (nr_from == 0 || nr_to == 0 || nr_from + nr_to > k)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT,
                       "%s from %u to %u moduli: both must be >= 1 and together at most k = %u", what, nr_from, nr_to,
                       k);
    memset(role, 0, OPENPIM_HE_MAX_MODULI);
    for (uint32_t i = 0; i < nr_from + nr_to; i++) {
        uint32_t idx = i < nr_from ? from[i] : to[i - nr_from];
        if (idx >= k)
            return he_fail(OPENPIM_HE_ERR_ARGUMENT, "%s: modulus index %u is not below k = %u", what, idx, k);
        if (role[idx])
            return he_fail(OPENPIM_HE_ERR_ARGUMENT, "%s: modulus index %u named twice", what, idx);
        role[idx] = i < nr_from ? HE_BCONV_FROM : HE_BCONV_TO;
    }
    return OPENPIM_HE_OK;
}

uint32_t he_baseconv_scale(const struct openpim_he_params *p, const uint32_t *from, uint32_t nr_from, uint32_t j)
{
    const uint32_t q = p->moduli[j];
    return he_pow_mod(prod_mod(p, from, nr_from, j, q), q - 2, q); /* q prime */
}

uint32_t he_baseconv_weights(const struct openpim_he_params *p, const uint32_t *from, uint32_t nr_from, uint32_t j,
                             uint32_t *w)
{
    const uint32_t q = p->moduli[j];
    uint32_t fits = 1;
    for (uint32_t f = 0; f < nr_from; f++) {
        w[f] = prod_mod(p, from, nr_from, from[f], q);
        if (he_log2(q) < 32 && p->moduli[from[f]] >> he_log2(q))
            fits = 0; /* a source residue may exceed q's bits */
    }
    return fits;
}

openpim_he_status openpim_he_baseconv_create(openpim_he_context *ctx, const uint32_t *from, uint32_t nr_from,
                                             const uint32_t *to, uint32_t nr_to, openpim_he_baseconv **out)
{
    if (!ctx || !from || !to || !out)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, from, to or baseconv is NULL");
    const struct openpim_he_params *p = &ctx->params;
    const uint32_t k = p->nr_moduli, g = ctx->group_size;
    uint8_t role[OPENPIM_HE_MAX_MODULI];
    openpim_he_status st = he_baseconv_roles(p, from, nr_from, to, nr_to, role, "base conversion");
    if (st != OPENPIM_HE_OK)
        return st;
    openpim_he_baseconv *bc = calloc(1, sizeof *bc);
    const uint32_t words = (HE_BCONV_HEADER + nr_from + 1) & ~1u;
    uint32_t *stage = calloc((size_t)ctx->nr_dpus * words, 4);
    st = OPENPIM_HE_ERR_NO_MEMORY;
    if (!bc || !stage) {
        he_fail(st, "out of host memory for a base conversion");
        goto fail;
    }
    for (uint32_t d = 0; d < k * g; d++) {
        const uint32_t i = d / g;
        uint32_t *c = stage + (size_t)d * words;
        c[0] = role[i];
        c[2] = nr_from;
        if (role[i] == HE_BCONV_FROM)
            c[1] = he_baseconv_scale(p, from, nr_from, i);
        else if (role[i] == HE_BCONV_TO)
            c[3] = he_baseconv_weights(p, from, nr_from, i, c + HE_BCONV_HEADER);
    }
    if ((st = he_heap_alloc(ctx, (uint64_t)words * 4, &bc->block)) != OPENPIM_HE_OK)
        goto fail;
    if ((st = he_stage_xfer(ctx, (uint32_t)bc->block->offset, words, stage, true)) != OPENPIM_HE_OK) {
        he_heap_free(ctx, bc->block);
        goto fail;
    }
    free(stage);
    bc->ctx = ctx;
    bc->nr_from = nr_from;
    bc->nr_to = nr_to;
    memcpy(bc->from, from, nr_from * sizeof *from);
    memcpy(bc->role, role, sizeof role);
    bc->next_in_ctx = ctx->convs;
    ctx->convs = bc;
    *out = bc;
    return OPENPIM_HE_OK;
fail:
    free(stage);
    free(bc);
    return st;
}

void openpim_he_baseconv_free(openpim_he_context *ctx, openpim_he_baseconv *bc)
{
    if (!ctx || !bc)
        return;
    for (openpim_he_baseconv **link = &ctx->convs; *link; link = &(*link)->next_in_ctx)
        if (*link == bc) {
            *link = bc->next_in_ctx;
            he_heap_free(ctx, bc->block);
            free(bc);
            return;
        }
}

openpim_he_status openpim_he_base_convert(openpim_he_context *ctx, const openpim_he_baseconv *bc,
                                          openpim_he_poly *dst, const openpim_he_poly *a)
{
    if (!ctx || !bc || !dst || !a)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, baseconv, dst or a is NULL");
    if (bc->ctx != ctx || dst->ctx != ctx || a->ctx != ctx)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "base conversion: an argument belongs to another context");
    if (dst == a)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "base conversion: dst must differ from the source array");
    if (dst->count != a->count)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "polynomial arrays of %u and %u polynomials", a->count, dst->count);
    if (a->form != OPENPIM_HE_COEFF)
        return he_fail(OPENPIM_HE_ERR_FORM, "base conversion needs its source in coefficient form");
    ctx->last_us = 0;
    ctx->last_cycles = 0;
    const uint32_t n = ctx->params.n, k = ctx->params.nr_moduli, g = ctx->group_size, count = a->count;
    const uint32_t nf = bc->nr_from;
    openpim_he_poly *tmp = NULL, *relay = NULL;
    uint32_t *down = NULL, *up = NULL;
    openpim_he_status st;
    if ((st = he_array_alloc(ctx, count, n, &tmp)) != OPENPIM_HE_OK ||
        (st = he_array_alloc(ctx, count, nf * n, &relay)) != OPENPIM_HE_OK)
        goto done;
    const size_t per_down = (size_t)tmp->slots * n, per_up = (size_t)relay->slots * nf * n;
    if (!(down = malloc((size_t)ctx->nr_dpus * per_down * 4)) || !(up = calloc((size_t)ctx->nr_dpus * per_up, 4))) {
        st = he_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory relaying a base conversion");
        goto done;
    }

    /* 1. source groups scale (and copy) their residues */
    struct he_dpu_cmd cmd = {.op = HE_OP_BCONV_SCALE, .nr_polys = count};
    cmd.src[0] = a->offset;
    cmd.src[1] = (uint32_t)bc->block->offset;
    cmd.dst[0] = dst->offset;
    cmd.dst[1] = tmp->offset;
    if ((st = he_launch(ctx, &cmd)) != OPENPIM_HE_OK)
        goto done;

    /* 2. relay: DPU (target j, index x) gets, per slot, the scaled residues
     * of the sources at index x (the same polynomials) */
    if ((st = he_stage_xfer(ctx, tmp->offset, per_down, down, false)) != OPENPIM_HE_OK)
        goto done;
    for (uint32_t d = 0; d < k * g; d++) {
        const uint32_t x = d % g;
        if (bc->role[d / g] != HE_BCONV_TO)
            continue;
        for (uint32_t s = 0; s < relay->slots; s++)
            for (uint32_t f = 0; f < nf; f++)
                memcpy(up + d * per_up + ((size_t)s * nf + f) * n, down + ((size_t)bc->from[f] * g + x) * per_down +
                       (size_t)s * n, (size_t)n * 4);
    }
    if ((st = he_stage_xfer(ctx, relay->offset, per_up, up, true)) != OPENPIM_HE_OK)
        goto done;

    /* 3. target groups sum the weighted residues */
    cmd = (struct he_dpu_cmd){.op = HE_OP_BCONV_SUM, .nr_polys = count};
    cmd.src[0] = relay->offset;
    cmd.src[1] = (uint32_t)bc->block->offset;
    cmd.dst[0] = dst->offset;
    if ((st = he_launch(ctx, &cmd)) != OPENPIM_HE_OK)
        goto done;
    dst->form = OPENPIM_HE_COEFF;
done:
    free(down);
    free(up);
    he_array_free(ctx, tmp);
    he_array_free(ctx, relay);
    return st;
}
