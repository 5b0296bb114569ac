/* SPDX-License-Identifier: MIT */
/* Polynomial arrays: the MRAM heap they live in (same offsets on every DPU),
 * and the only host <-> DPU data movement (upload, download). */
#include <stdlib.h>
#include <string.h>

#include "he_internal.h"

openpim_he_status he_heap_alloc(openpim_he_context *ctx, uint64_t size, struct he_block **out)
{
    size = (size + 7) & ~7ull;
    uint64_t start = 0, free_total = ctx->heap_size;
    struct he_block **link = &ctx->blocks;
    for (struct he_block *b = ctx->blocks; b; b = b->next) {
        free_total -= b->size;
        if (b->offset - start >= size)
            break;
        start = b->offset + b->size;
        link = &b->next;
    }
    if (*link == NULL && ctx->heap_size - start < size)
        return he_fail(OPENPIM_HE_ERR_MRAM,
                       "%llu bytes of MRAM per DPU needed; the DPUs' MRAM heap has %llu bytes, %llu of them free",
                       (unsigned long long)size, (unsigned long long)ctx->heap_size,
                       (unsigned long long)free_total);
    struct he_block *nb = malloc(sizeof *nb);
    if (!nb)
        return he_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory");
    *nb = (struct he_block){start, size, *link};
    *link = nb;
    *out = nb;
    return OPENPIM_HE_OK;
}

void he_heap_free(openpim_he_context *ctx, struct he_block *block)
{
    for (struct he_block **link = &ctx->blocks; *link; link = &(*link)->next)
        if (*link == block) {
            *link = block->next;
            free(block);
            return;
        }
}

openpim_he_status he_array_alloc(openpim_he_context *ctx, uint32_t count, uint32_t slot_words, openpim_he_poly **out)
{
    uint32_t slots = (count + ctx->group_size - 1) / ctx->group_size;
    openpim_he_poly *p = calloc(1, sizeof *p);
    if (!p)
        return he_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory");
    openpim_he_status st = he_heap_alloc(ctx, (uint64_t)slots * slot_words * 4, &p->block);
    if (st != OPENPIM_HE_OK) {
        free(p);
        return st;
    }
    p->ctx = ctx;
    p->count = count;
    p->slots = slots;
    p->slot_words = slot_words;
    p->offset = (uint32_t)p->block->offset;
    p->form = OPENPIM_HE_COEFF;
    *out = p;
    return OPENPIM_HE_OK;
}

void he_array_free(openpim_he_context *ctx, openpim_he_poly *poly)
{
    if (poly) {
        he_heap_free(ctx, poly->block);
        free(poly);
    }
}

openpim_he_status openpim_he_poly_alloc(openpim_he_context *ctx, uint32_t count, openpim_he_poly **out)
{
    if (!ctx || !out)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx or poly is NULL");
    if (count == 0)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "a polynomial array needs at least one polynomial");
    openpim_he_poly *p;
    openpim_he_status st = he_array_alloc(ctx, count, ctx->params.n, &p);
    if (st != OPENPIM_HE_OK)
        return st;
    p->next_in_ctx = ctx->polys;
    ctx->polys = p;
    *out = p;
    return OPENPIM_HE_OK;
}

void openpim_he_poly_free(openpim_he_context *ctx, openpim_he_poly *poly)
{
    if (!ctx || !poly)
        return;
    for (openpim_he_poly **link = &ctx->polys; *link; link = &(*link)->next_in_ctx)
        if (*link == poly) {
            *link = poly->next_in_ctx;
            he_array_free(ctx, poly);
            return;
        }
}

uint32_t openpim_he_poly_count(const openpim_he_poly *poly)
{
    return poly ? poly->count : 0;
}

enum openpim_he_form openpim_he_poly_form(const openpim_he_poly *poly)
{
    return poly ? poly->form : OPENPIM_HE_COEFF;
}

openpim_he_status he_stage_xfer(openpim_he_context *ctx, uint32_t offset, size_t per_dpu_words, uint32_t *stage,
                                bool to_dpu)
{
    struct dpu_set_t dpu;
    uint32_t d;
    dpu_error_t err = DPU_OK;
    DPU_FOREACH(ctx->set, dpu, d)
    {
        if ((err = dpu_prepare_xfer(dpu, stage + d * per_dpu_words)) != DPU_OK)
            break;
    }
    if (err == DPU_OK)
        err = dpu_push_xfer(ctx->set, to_dpu ? DPU_XFER_TO_DPU : DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, offset,
                            per_dpu_words * 4, DPU_XFER_DEFAULT);
    if (err != DPU_OK) {
        char *s = dpu_error_to_string(err);
        openpim_he_status st = he_fail(OPENPIM_HE_ERR_DPU, "%s: %s", to_dpu ? "upload" : "download", s ? s : "?");
        free(s);
        return st;
    }
    return OPENPIM_HE_OK;
}

/* Moves a data-level array between `data` ([count][k][n]) and the DPUs of the
 * k data groups through a staging buffer of one equal-sized block per DPU. */
static openpim_he_status transfer(openpim_he_context *ctx, const openpim_he_poly *poly, uint32_t *data, bool to_dpu)
{
    const uint32_t n = ctx->params.n, k = ctx->params.nr_moduli, g = ctx->group_size;
    const size_t per_dpu = (size_t)poly->slots * n;
    uint32_t *stage = calloc((size_t)ctx->nr_dpus * per_dpu, sizeof(uint32_t));
    if (!stage)
        return he_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory staging %u polynomials", poly->count);
    if (to_dpu)
        for (uint32_t d = 0; d < k * g; d++)
            for (uint32_t s = 0, p = d % g; s < poly->slots && p < poly->count; s++, p += g)
                memcpy(stage + d * per_dpu + (size_t)s * n, data + ((size_t)p * k + d / g) * n, n * 4);
    openpim_he_status st = he_stage_xfer(ctx, poly->offset, per_dpu, stage, to_dpu);
    if (st == OPENPIM_HE_OK && !to_dpu)
        for (uint32_t d = 0; d < k * g; d++)
            for (uint32_t s = 0, p = d % g; s < poly->slots && p < poly->count; s++, p += g)
                memcpy(data + ((size_t)p * k + d / g) * n, stage + d * per_dpu + (size_t)s * n, n * 4);
    free(stage);
    return st;
}

static openpim_he_status check_poly(const openpim_he_context *ctx, const openpim_he_poly *poly, const void *data)
{
    if (!ctx || !poly || !data)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx, poly or data is NULL");
    if (poly->ctx != ctx)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "the polynomial array belongs to another context");
    return OPENPIM_HE_OK;
}

openpim_he_status openpim_he_poly_upload(openpim_he_context *ctx, openpim_he_poly *poly, const uint32_t *data,
                                         enum openpim_he_form form)
{
    openpim_he_status st = check_poly(ctx, poly, data);
    if (st != OPENPIM_HE_OK)
        return st;
    if (form != OPENPIM_HE_COEFF && form != OPENPIM_HE_NTT)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "unknown form %d", (int)form);
    const uint32_t n = ctx->params.n, k = ctx->params.nr_moduli;
    for (uint32_t p = 0; p < poly->count; p++)
        for (uint32_t i = 0; i < k; i++)
            for (uint32_t j = 0; j < n; j++) {
                uint32_t v = data[((size_t)p * k + i) * n + j];
                if (v >= ctx->params.moduli[i])
                    return he_fail(OPENPIM_HE_ERR_ARGUMENT,
                                   "polynomial %u, residue %u, coefficient %u: %u is not below its modulus %u", p, i,
                                   j, v, ctx->params.moduli[i]);
            }
    if ((st = transfer(ctx, poly, (uint32_t *)data, true)) != OPENPIM_HE_OK)
        return st;
    poly->form = form;
    return OPENPIM_HE_OK;
}

openpim_he_status openpim_he_poly_download(openpim_he_context *ctx, const openpim_he_poly *poly, uint32_t *data)
{
    openpim_he_status st = check_poly(ctx, poly, data);
    if (st != OPENPIM_HE_OK)
        return st;
    return transfer(ctx, poly, data, false);
}
