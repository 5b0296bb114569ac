/* SPDX-License-Identifier: MIT */
/* Operations on polynomial arrays: argument and form checks on the host, then
 * one DPU launch each (the negacyclic product chains four). */
#include <stddef.h>

#include "he_internal.h"

static openpim_he_status check(openpim_he_context *ctx, const openpim_he_poly *const *polys, size_t nr)
{
    if (!ctx)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "ctx is NULL");
    for (size_t i = 0; i < nr; i++) {
        if (!polys[i])
            return he_fail(OPENPIM_HE_ERR_ARGUMENT, "polynomial array argument %zu is NULL", i);
        if (polys[i]->ctx != ctx)
            return he_fail(OPENPIM_HE_ERR_ARGUMENT, "polynomial array argument %zu belongs to another context", i);
        if (polys[i]->count != polys[0]->count)
            return he_fail(OPENPIM_HE_ERR_ARGUMENT, "polynomial arrays of %u and %u polynomials", polys[0]->count,
                           polys[i]->count);
    }
    return OPENPIM_HE_OK;
}

/* After the checks: the operation's modelled time starts from zero. */
static void begin(openpim_he_context *ctx)
{
    ctx->last_us = 0;
    ctx->last_cycles = 0;
}

static const char *form_name(enum openpim_he_form f)
{
    return f == OPENPIM_HE_NTT ? "NTT" : "coefficient";
}

static openpim_he_status need_form(const openpim_he_poly *p, enum openpim_he_form f, const char *op)
{
    if (p->form != f)
        return he_fail(OPENPIM_HE_ERR_FORM, "%s needs operands in %s form; this one is in %s form", op, form_name(f),
                       form_name(p->form));
    return OPENPIM_HE_OK;
}

static openpim_he_status run(openpim_he_context *ctx, enum he_op op, openpim_he_poly *dst, const openpim_he_poly *a,
                             const openpim_he_poly *b, enum openpim_he_form result_form)
{
    struct he_dpu_cmd cmd = {.op = op, .nr_polys = a->count};
    cmd.src[0] = a->offset;
    cmd.src[1] = b ? b->offset : a->offset;
    cmd.dst[0] = dst->offset;
    openpim_he_status st = he_launch(ctx, &cmd);
    if (st == OPENPIM_HE_OK)
        dst->form = result_form;
    return st;
}

static openpim_he_status binary(openpim_he_context *ctx, enum he_op op, openpim_he_poly *dst,
                                const openpim_he_poly *a, const openpim_he_poly *b, const char *name)
{
    const openpim_he_poly *all[] = {dst, a, b};
    openpim_he_status st = check(ctx, all, 3);
    if (st != OPENPIM_HE_OK)
        return st;
    if (op == HE_OP_MUL) {
        if ((st = need_form(a, OPENPIM_HE_NTT, name)) != OPENPIM_HE_OK ||
            (st = need_form(b, OPENPIM_HE_NTT, name)) != OPENPIM_HE_OK)
            return st;
    } else if (a->form != b->form) {
        return he_fail(OPENPIM_HE_ERR_FORM, "%s of a %s-form and an %s-form array", name, form_name(a->form),
                       form_name(b->form));
    }
    begin(ctx);
    return run(ctx, op, dst, a, b, a->form);
}

openpim_he_status openpim_he_add(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a,
                                 const openpim_he_poly *b)
{
    return binary(ctx, HE_OP_ADD, dst, a, b, "add");
}

openpim_he_status openpim_he_sub(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a,
                                 const openpim_he_poly *b)
{
    return binary(ctx, HE_OP_SUB, dst, a, b, "sub");
}

openpim_he_status openpim_he_mul_pointwise(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a,
                                           const openpim_he_poly *b)
{
    return binary(ctx, HE_OP_MUL, dst, a, b, "pointwise multiply");
}

openpim_he_status openpim_he_negate(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a)
{
    const openpim_he_poly *all[] = {dst, a};
    openpim_he_status st = check(ctx, all, 2);
    if (st != OPENPIM_HE_OK)
        return st;
    begin(ctx);
    return run(ctx, HE_OP_NEG, dst, a, NULL, a->form);
}

openpim_he_status openpim_he_ntt(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a)
{
    const openpim_he_poly *all[] = {dst, a};
    openpim_he_status st = check(ctx, all, 2);
    if (st == OPENPIM_HE_OK)
        st = need_form(a, OPENPIM_HE_COEFF, "NTT");
    if (st != OPENPIM_HE_OK)
        return st;
    begin(ctx);
    return run(ctx, HE_OP_NTT, dst, a, NULL, OPENPIM_HE_NTT);
}

openpim_he_status openpim_he_intt(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a)
{
    const openpim_he_poly *all[] = {dst, a};
    openpim_he_status st = check(ctx, all, 2);
    if (st == OPENPIM_HE_OK)
        st = need_form(a, OPENPIM_HE_NTT, "inverse NTT");
    if (st != OPENPIM_HE_OK)
        return st;
    begin(ctx);
    return run(ctx, HE_OP_INTT, dst, a, NULL, OPENPIM_HE_COEFF);
}

openpim_he_status openpim_he_poly_mul(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a,
                                      const openpim_he_poly *b)
{
    const openpim_he_poly *all[] = {dst, a, b};
    openpim_he_status st = check(ctx, all, 3);
    if (st != OPENPIM_HE_OK || (st = need_form(a, OPENPIM_HE_COEFF, "polynomial multiply")) != OPENPIM_HE_OK ||
        (st = need_form(b, OPENPIM_HE_COEFF, "polynomial multiply")) != OPENPIM_HE_OK)
        return st;
    openpim_he_poly *tmp;
    if ((st = he_array_alloc(ctx, a->count, ctx->params.n, &tmp)) != OPENPIM_HE_OK)
        return st;
    begin(ctx);
    if ((st = run(ctx, HE_OP_NTT, tmp, a, NULL, OPENPIM_HE_NTT)) == OPENPIM_HE_OK &&
        (st = run(ctx, HE_OP_NTT, dst, b, NULL, OPENPIM_HE_NTT)) == OPENPIM_HE_OK &&
        (st = run(ctx, HE_OP_MUL, dst, tmp, dst, OPENPIM_HE_NTT)) == OPENPIM_HE_OK)
        st = run(ctx, HE_OP_INTT, dst, dst, NULL, OPENPIM_HE_COEFF);
    he_array_free(ctx, tmp);
    return st;
}

openpim_he_status openpim_he_bgv_multiply(openpim_he_context *ctx, openpim_he_poly *const out[3],
                                          const openpim_he_poly *const a[2], const openpim_he_poly *const b[2])
{
    if (!out || !a || !b)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "out, a or b is NULL");
    const openpim_he_poly *all[] = {a[0], a[1], b[0], b[1], out[0], out[1], out[2]};
    openpim_he_status st = check(ctx, all, 7);
    if (st != OPENPIM_HE_OK)
        return st;
    for (int i = 0; i < 7; i++)
        for (int j = 4; j < 7; j++)
            if (i != j && all[i] == all[j])
                return he_fail(OPENPIM_HE_ERR_ARGUMENT,
                               "BGV multiply: each output array must be distinct from the inputs and each other");
    for (int i = 0; i < 4; i++)
        if ((st = need_form(all[i], OPENPIM_HE_NTT, "BGV multiply")) != OPENPIM_HE_OK)
            return st;
    struct he_dpu_cmd cmd = {.op = HE_OP_BGV_TENSOR, .nr_polys = a[0]->count};
    for (int i = 0; i < 4; i++)
        cmd.src[i] = all[i]->offset;
    for (int i = 0; i < 3; i++)
        cmd.dst[i] = out[i]->offset;
    begin(ctx);
    if ((st = he_launch(ctx, &cmd)) != OPENPIM_HE_OK)
        return st;
    for (int i = 0; i < 3; i++)
        out[i]->form = OPENPIM_HE_NTT;
    return OPENPIM_HE_OK;
}
