/* SPDX-License-Identifier: MIT */
/* Context: the DPU set, one RNS modulus per group of DPUs, its constants and
 * twiddle tables written once; launches and their modelled time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openpim_ext.h>

#include "he_internal.h"

#ifndef OPENPIM_HE_DPU_DIR
#error "OPENPIM_HE_DPU_DIR must name the directory of the HE DPU images"
#endif

static openpim_he_status sdk_error(dpu_error_t err, const char *what)
{
    char *s = dpu_error_to_string(err);
    openpim_he_status st = he_fail(OPENPIM_HE_ERR_DPU, "%s: %s", what, s ? s : "unknown SDK error");
    free(s);
    return st;
}

openpim_he_status he_fail_alloc(const char *what, uint32_t nr_dpus, dpu_error_t err)
{
    char why[512];
    snprintf(why, sizeof why, "%s", openpim_last_error()); /* before the next libdpu call clears it */
    char *s = dpu_error_to_string(err);
    openpim_he_status st = he_fail(OPENPIM_HE_ERR_DPUS, "%scould not allocate %u DPUs: %s%s%s", what, nr_dpus,
                                   s ? s : "?", why[0] ? ": " : "", why);
    free(s);
    return st;
}

openpim_he_status openpim_he_context_create(const struct openpim_he_params *params,
                                            const struct openpim_he_config *config, openpim_he_context **out)
{
    if (!out || !config)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "config or ctx is NULL");
    openpim_he_status st = openpim_he_params_validate(params);
    if (st != OPENPIM_HE_OK)
        return st;
    if (config->mul != OPENPIM_HE_MUL_CUSTOM && config->mul != OPENPIM_HE_MUL_NATIVE)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "unknown multiply variant %d", (int)config->mul);
    const uint32_t k = params->nr_moduli, n = params->n, groups = k + (params->special_modulus ? 1 : 0);
    if (config->nr_dpus < groups)
        return he_fail(OPENPIM_HE_ERR_DPUS, "%u DPUs for %u moduli: each modulus needs at least one DPU",
                       config->nr_dpus, groups);

    openpim_he_context *ctx = calloc(1, sizeof *ctx);
    uint32_t *tables = malloc((size_t)groups * 2 * n * sizeof(uint32_t));
    uint32_t *scratch = malloc((size_t)n * sizeof(uint32_t));
    struct he_dpu_consts *consts = calloc(groups, sizeof *consts);
    if (!ctx || !tables || !scratch || !consts) {
        st = he_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory creating a context");
        goto fail_free;
    }
    ctx->params = *params;
    ctx->nr_groups = groups;
    ctx->group_size = config->nr_dpus / groups;
    ctx->nr_dpus = ctx->group_size * groups;

    dpu_error_t err = dpu_alloc(ctx->nr_dpus, config->profile, &ctx->set);
    if (err != DPU_OK) {
        st = he_fail_alloc("", ctx->nr_dpus, err);
        goto fail_free;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", config->dpu_dir ? config->dpu_dir : OPENPIM_HE_DPU_DIR,
             config->image                        ? config->image
             : config->mul == OPENPIM_HE_MUL_CUSTOM ? "he_dpu_custom"
                                                    : "he_dpu_native",
             he_params_wide(params) ? "_wide" : "");
    struct dpu_program_t *program;
    if ((err = dpu_load(ctx->set, path, &program)) != DPU_OK) {
        st = sdk_error(err, path);
        goto fail_set;
    }
    struct dpu_symbol_t heap;
    if ((err = dpu_get_symbol(program, DPU_MRAM_HEAP_POINTER_NAME, &heap)) != DPU_OK) {
        st = sdk_error(err, "MRAM heap symbol");
        goto fail_set;
    }
    ctx->heap_size = heap.size & ~7ull;

    /* twiddles first in every heap: tw (n words) then itw (n words) */
    struct he_block *tw_block;
    if ((st = he_heap_alloc(ctx, 2ull * n * 4, &tw_block)) != OPENPIM_HE_OK)
        goto fail_set;
    for (uint32_t i = 0; i < groups; i++) {
        uint32_t q = i < k ? params->moduli[i] : params->special_modulus, bits = 0;
        while ((1ull << bits) <= q)
            bits++;
        uint32_t *tw = tables + (size_t)i * 2 * n;
        consts[i] = (struct he_dpu_consts){
            .q = q,
            .q_bits = bits,
            .barrett_mu = he_barrett_mu(q),
            .n = n,
            .tw_offset = (uint32_t)tw_block->offset,
            .itw_offset = (uint32_t)tw_block->offset + n * 4,
            .group_size = ctx->group_size,
            .modulus_index = i,
            .special_inv = i < k && params->special_modulus
                               ? he_pow_mod(params->special_modulus % q, q - 2, q) /* Fermat: q is prime */
                               : 0,
        };
        he_twiddles(q, n, tw, tw + n, scratch, &consts[i].n_inv);
    }
    struct he_dpu_consts *per_dpu = calloc(ctx->nr_dpus, sizeof *per_dpu);
    if (!per_dpu) {
        st = he_fail(OPENPIM_HE_ERR_NO_MEMORY, "out of host memory creating a context");
        goto fail_set;
    }
    struct dpu_set_t dpu;
    uint32_t d;
    DPU_FOREACH(ctx->set, dpu, d)
    {
        per_dpu[d] = consts[d / ctx->group_size];
        per_dpu[d].group_index = d % ctx->group_size;
        if ((err = dpu_prepare_xfer(dpu, &per_dpu[d])) != DPU_OK)
            break;
    }
    if (err == DPU_OK)
        err = dpu_push_xfer(ctx->set, DPU_XFER_TO_DPU, "he_consts", 0, sizeof(struct he_dpu_consts),
                            DPU_XFER_DEFAULT);
    if (err == DPU_OK) {
        DPU_FOREACH(ctx->set, dpu, d)
        {
            if ((err = dpu_prepare_xfer(dpu, tables + (size_t)(d / ctx->group_size) * 2 * n)) != DPU_OK)
                break;
        }
    }
    if (err == DPU_OK)
        err = dpu_push_xfer(ctx->set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, (uint32_t)tw_block->offset,
                            2ull * n * 4, DPU_XFER_DEFAULT);
    free(per_dpu);
    if (err != DPU_OK) {
        st = sdk_error(err, "writing the moduli and twiddles");
        goto fail_set;
    }
    free(tables);
    free(scratch);
    free(consts);
    *out = ctx;
    return OPENPIM_HE_OK;

fail_set:
    while (ctx->blocks) {
        struct he_block *b = ctx->blocks;
        ctx->blocks = b->next;
        free(b);
    }
    dpu_free(ctx->set);
fail_free:
    free(tables);
    free(scratch);
    free(consts);
    free(ctx);
    return st;
}

void openpim_he_context_destroy(openpim_he_context *ctx)
{
    if (!ctx)
        return;
    while (ctx->polys) {
        openpim_he_poly *p = ctx->polys;
        ctx->polys = p->next_in_ctx;
        free(p);
    }
    while (ctx->keys) {
        openpim_he_relin_key *key = ctx->keys;
        ctx->keys = key->next_in_ctx;
        free(key);
    }
    while (ctx->convs) {
        openpim_he_baseconv *bc = ctx->convs;
        ctx->convs = bc->next_in_ctx;
        free(bc);
    }
    while (ctx->blocks) {
        struct he_block *b = ctx->blocks;
        ctx->blocks = b->next;
        free(b);
    }
    dpu_free(ctx->set);
    free(ctx);
}

uint32_t openpim_he_group_size(const openpim_he_context *ctx)
{
    return ctx ? ctx->group_size : 0;
}

uint32_t openpim_he_nr_dpus(const openpim_he_context *ctx)
{
    return ctx ? ctx->nr_dpus : 0;
}

double openpim_he_last_kernel_us(const openpim_he_context *ctx)
{
    return ctx ? ctx->last_us : 0;
}

uint64_t openpim_he_last_kernel_cycles(const openpim_he_context *ctx)
{
    return ctx ? ctx->last_cycles : 0;
}

openpim_he_status he_launch(openpim_he_context *ctx, struct he_dpu_cmd *cmd)
{
    cmd->nr_moduli = ctx->params.nr_moduli;
    if (cmd->nr_groups == 0)
        cmd->nr_groups = ctx->params.nr_moduli;
    dpu_error_t err = dpu_broadcast_to(ctx->set, "he_cmd", 0, cmd, sizeof *cmd, DPU_XFER_DEFAULT);
    if (err != DPU_OK)
        return sdk_error(err, "sending a command");
    err = dpu_launch(ctx->set, DPU_SYNCHRONOUS);
    struct dpu_set_t dpu;
    uint32_t d;
    if (err != DPU_OK) {
        DPU_FOREACH(ctx->set, dpu, d)
        {
            struct openpim_fault f;
            if (openpim_get_fault(dpu, &f) == DPU_OK && f.faulted)
                return he_fail(OPENPIM_HE_ERR_DPU, "DPU %u (op %u) stopped: %s: %s", d, cmd->op, f.kind, f.message);
        }
        return sdk_error(err, "launch");
    }
    uint64_t cycles = 0;
    double us = 0;
    DPU_FOREACH(ctx->set, dpu, d)
    {
        struct openpim_dpu_stats s;
        if ((err = openpim_get_dpu_stats(dpu, &s)) != DPU_OK)
            return sdk_error(err, "reading the modelled DPU time");
        if (s.cycles > cycles) {
            cycles = s.cycles;
            us = s.time_us;
        }
    }
    ctx->last_cycles += cycles;
    ctx->last_us += us;
    return OPENPIM_HE_OK;
}
