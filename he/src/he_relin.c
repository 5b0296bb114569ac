/* SPDX-License-Identifier: MIT */
/* BGV relinearisation (SEAL's key switching with a special modulus p) on the
 * 1D split.  Each modulus group holds only its own residues, so the host
 * relays data twice:
 *   1. DPUs: c2 to coefficient form; host: every group gets all k RNS digits;
 *   2. DPUs (all k + 1 groups): sum_j NTT(digit_j) * key_j; the special
 *      group's sums back to coefficient form; host: BGV's correction
 *      delta = tlast + p * ((-tlast * p^-1) mod t), per data modulus;
 *   3. DPUs (data groups): out_c = c_c + (sum_c - NTT(delta_c)) * p^-1. */
#include <stdlib.h>
#include <string.h>

#include "he_internal.h"

openpim_he_status openpim_he_relin_key_upload(openpim_he_context *ctx, const uint32_t *data,
                                              openpim_he_relin_key **out)
{
    if (!ctx || !data || !out)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, data or key is NULL");
    const struct openpim_he_params *p = &ctx->params;
    if (!p->special_modulus)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "relinearisation needs parameters with a special modulus");
    const uint32_t n = p->n, k = p->nr_moduli, g = ctx->group_size;
    for (uint32_t j = 0; j < k; j++)
        for (uint32_t c = 0; c < 2; c++)
            for (uint32_t i = 0; i <= k; i++) {
                uint32_t q = i < k ? p->moduli[i] : p->special_modulus;
                const uint32_t *r = data + (((size_t)j * 2 + c) * (k + 1) + i) * n;
                for (uint32_t x = 0; x < n; x++)
                    if (r[x] >= q)
                        return he_fail(OPENPIM_HE_ERR_ARGUMENT,
                                       "relinearisation key %u, polynomial %u, residue %u, coefficient %u: %u is "
                                       "not below its modulus %u", j, c, i, x, r[x], q);
            }
    const size_t per_dpu = (size_t)2 * k * n;
    openpim_he_relin_key *key = calloc(1, sizeof *key);
    uint32_t *stage = malloc((size_t)ctx->nr_dpus * per_dpu * 4);
    openpim_he_status st = OPENPIM_HE_ERR_NO_MEMORY;
    if (!key || !stage) {
        he_fail(st, "out of host memory for a relinearisation key");
        goto fail;
    }
    if ((st = he_heap_alloc(ctx, per_dpu * 4, &key->block)) != OPENPIM_HE_OK)
        goto fail;
    for (uint32_t d = 0; d < ctx->nr_dpus; d++)
        for (uint32_t j = 0; j < k; j++)
            for (uint32_t c = 0; c < 2; c++)
                memcpy(stage + d * per_dpu + ((size_t)j * 2 + c) * n,
                       data + (((size_t)j * 2 + c) * (k + 1) + d / g) * n, n * 4);
    if ((st = he_stage_xfer(ctx, (uint32_t)key->block->offset, per_dpu, stage, true)) != OPENPIM_HE_OK) {
        he_heap_free(ctx, key->block);
        goto fail;
    }
    free(stage);
    key->ctx = ctx;
    key->next_in_ctx = ctx->keys;
    ctx->keys = key;
    *out = key;
    return OPENPIM_HE_OK;
fail:
    free(stage);
    free(key);
    return st;
}

void openpim_he_relin_key_free(openpim_he_context *ctx, openpim_he_relin_key *key)
{
    if (!ctx || !key)
        return;
    for (openpim_he_relin_key **link = &ctx->keys; *link; link = &(*link)->next_in_ctx)
        if (*link == key) {
            *link = key->next_in_ctx;
            he_heap_free(ctx, key->block);
            free(key);
            return;
        }
}

static openpim_he_status check_relin(openpim_he_context *ctx, const openpim_he_relin_key *key, uint64_t t,
                                     openpim_he_poly *const out[2], const openpim_he_poly *const in[3])
{
    if (!ctx || !key || !out || !in)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, key, out or in is NULL");
    if (key->ctx != ctx)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "the relinearisation key belongs to another context");
    if (t < 2 || t >= (1ull << 32) || t % ctx->params.special_modulus == 0)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT,
                       "plain modulus %llu: must be in [2, 2^32) and not a multiple of the special modulus",
                       (unsigned long long)t);
    const openpim_he_poly *all[5] = {in[0], in[1], in[2], out[0], out[1]};
    for (int i = 0; i < 5; i++) {
        if (!all[i] || all[i]->ctx != ctx)
            return he_fail(OPENPIM_HE_ERR_ARGUMENT, "relinearise: array %d is NULL or of another context", i);
        if (all[i]->count != in[0]->count)
            return he_fail(OPENPIM_HE_ERR_ARGUMENT, "polynomial arrays of %u and %u polynomials", in[0]->count,
                           all[i]->count);
        if (i < 3 && all[i]->form != OPENPIM_HE_NTT)
            return he_fail(OPENPIM_HE_ERR_FORM, "relinearise needs operands in NTT form");
    }
    if (out[0] == out[1] || out[0] == in[2] || out[1] == in[2] || out[0] == in[1] || out[1] == in[0])
        return he_fail(OPENPIM_HE_ERR_ARGUMENT,
                       "relinearise: out[0] and out[1] must differ from each other, from in[2] and from the other "
                       "input component");
    return OPENPIM_HE_OK;
}

openpim_he_status openpim_he_relinearize(openpim_he_context *ctx, const openpim_he_relin_key *key,
                                         uint64_t plain_modulus, openpim_he_poly *const out[2],
                                         const openpim_he_poly *const in[3])
{
    openpim_he_status st = check_relin(ctx, key, plain_modulus, out, in);
    if (st != OPENPIM_HE_OK)
        return st;
    ctx->last_us = 0;
    ctx->last_cycles = 0;
    const struct openpim_he_params *par = &ctx->params;
    const uint32_t n = par->n, k = par->nr_moduli, g = ctx->group_size, count = in[0]->count;
    const uint64_t p = par->special_modulus, t = plain_modulus;
    openpim_he_poly *c2 = NULL, *digits = NULL, *acc[2] = {NULL, NULL}, *delta[2] = {NULL, NULL};
    uint32_t *host = malloc((size_t)count * k * n * 4), *stage = NULL;
    if (!host) {
        st = he_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory");
        goto done;
    }
    if ((st = he_array_alloc(ctx, count, n, &c2)) != OPENPIM_HE_OK ||
        (st = he_array_alloc(ctx, count, k * n, &digits)) != OPENPIM_HE_OK ||
        (st = he_array_alloc(ctx, count, n, &acc[0])) != OPENPIM_HE_OK ||
        (st = he_array_alloc(ctx, count, n, &acc[1])) != OPENPIM_HE_OK ||
        (st = he_array_alloc(ctx, count, n, &delta[0])) != OPENPIM_HE_OK ||
        (st = he_array_alloc(ctx, count, n, &delta[1])) != OPENPIM_HE_OK)
        goto done;

    /* 1. c2 in coefficient form, its digits to every group (k + 1) */
    struct he_dpu_cmd cmd = {.op = HE_OP_INTT, .nr_polys = count};
    cmd.src[0] = in[2]->offset;
    cmd.dst[0] = c2->offset;
    if ((st = he_launch(ctx, &cmd)) != OPENPIM_HE_OK ||
        (st = openpim_he_poly_download(ctx, c2, host)) != OPENPIM_HE_OK)
        goto done;
    const size_t per_dpu = (size_t)digits->slots * k * n;
    if (!(stage = calloc((size_t)ctx->nr_dpus * per_dpu, 4))) {
        st = he_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory");
        goto done;
    }
    for (uint32_t d = 0; d < ctx->nr_dpus; d++)
        for (uint32_t s = 0, q = d % g; s < digits->slots && q < count; s++, q += g)
            memcpy(stage + d * per_dpu + (size_t)s * k * n, host + (size_t)q * k * n, (size_t)k * n * 4);
    if ((st = he_stage_xfer(ctx, digits->offset, per_dpu, stage, true)) != OPENPIM_HE_OK)
        goto done;

    /* 2. key switching on all groups; the special group's sums come back */
    cmd = (struct he_dpu_cmd){.op = HE_OP_RELIN_KEYSWITCH, .nr_polys = count, .nr_groups = k + 1};
    cmd.src[0] = digits->offset;
    cmd.src[1] = (uint32_t)key->block->offset;
    cmd.dst[0] = acc[0]->offset;
    cmd.dst[1] = acc[1]->offset;
    if ((st = he_launch(ctx, &cmd)) != OPENPIM_HE_OK)
        goto done;
    /* p^-1 mod t by extended Euclid (t need not be prime) */
    int64_t r0 = (int64_t)t, r1 = (int64_t)(p % t), s0 = 0, s1 = 1;
    while (r1) {
        int64_t qt = r0 / r1, tmp = r0 - qt * r1;
        r0 = r1, r1 = tmp;
        tmp = s0 - qt * s1;
        s0 = s1, s1 = tmp;
    }
    if (r0 != 1) {
        st = he_fail(OPENPIM_HE_ERR_ARGUMENT, "plain modulus %llu shares a factor with the special modulus",
                     (unsigned long long)t);
        goto done;
    }
    const uint64_t pinv = (uint64_t)((s0 % (int64_t)t + (int64_t)t) % (int64_t)t);
    const size_t acc_per_dpu = (size_t)acc[0]->slots * n;
    for (uint32_t c = 0; c < 2; c++) {
        if ((st = he_stage_xfer(ctx, acc[c]->offset, acc_per_dpu, stage, false)) != OPENPIM_HE_OK)
            goto done;
        /* the special group is the last k * g .. (k + 1) * g - 1 DPUs */
        for (uint32_t d = k * g; d < (k + 1) * g; d++)
            for (uint32_t s = 0, q = d % g; s < acc[c]->slots && q < count; s++, q += g) {
                const uint32_t *tlast = stage + d * acc_per_dpu + (size_t)s * n;
                for (uint32_t x = 0; x < n; x++) {
                    uint64_t kk = (t - tlast[x] % t) % t * pinv % t;
                    uint64_t v = kk * p + tlast[x]; /* < 2^32 * 2^30 + 2^30 */
                    for (uint32_t i = 0; i < k; i++)
                        host[((size_t)q * k + i) * n + x] = (uint32_t)(v % par->moduli[i]);
                }
            }
        if ((st = openpim_he_poly_upload(ctx, delta[c], host, OPENPIM_HE_COEFF)) != OPENPIM_HE_OK)
            goto done;
    }

    /* 3. out_c = c_c + (acc_c - NTT(delta_c)) p^-1 */
    cmd = (struct he_dpu_cmd){.op = HE_OP_RELIN_FINISH, .nr_polys = count};
    cmd.src[0] = delta[0]->offset;
    cmd.src[1] = delta[1]->offset;
    cmd.src[2] = in[0]->offset;
    cmd.src[3] = in[1]->offset;
    cmd.src[4] = acc[0]->offset;
    cmd.src[5] = acc[1]->offset;
    cmd.dst[0] = out[0]->offset;
    cmd.dst[1] = out[1]->offset;
    if ((st = he_launch(ctx, &cmd)) != OPENPIM_HE_OK)
        goto done;
    out[0]->form = out[1]->form = OPENPIM_HE_NTT;
done:
    free(host);
    free(stage);
    he_array_free(ctx, c2);
    he_array_free(ctx, digits);
    for (int c = 0; c < 2; c++) {
        he_array_free(ctx, acc[c]);
        he_array_free(ctx, delta[c]);
    }
    return st;
}
