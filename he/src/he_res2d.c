/* SPDX-License-Identifier: MIT */
/* Resident 2D arrays (each residue polynomial spread over the g DPUs of a
 * group, kept in MRAM between operations) and their operations: the 2D NTT
 * both ways on resident data, element-wise launches, and the fast base
 * conversion with the host relaying the scaled sources between groups.
 * Layouts in dpu/he_ntt2d_abi.h and the header's "resident 2D arrays". */
#include <stdlib.h>
#include <string.h>

#include <openpim_ext.h>

#include "he_internal.h"
#include "he_ntt2d_internal.h"

/* As he_ntt2d.c's gather (calibration-sources §5). */
#define HE2D_HOST_GATHER_GBPS 9.9

/* ---- MRAM blocks above the fixed regions ----------------------------------- */

openpim_he_status he2d_heap_alloc(openpim_he_ntt2d *h, uint64_t size, struct he2d_block **out)
{
    size = (size + 7) & ~7ull;
    uint64_t at = (h->heap_end + 7) & ~7ull;
    struct he2d_block **link = &h->blocks;
    for (; *link && (*link)->offset < at + size; link = &(*link)->next)
        if ((*link)->offset + (*link)->size > at)
            at = (*link)->offset + (*link)->size;
    if (at + size > h->heap_size || at + size > UINT32_MAX)
        return he_fail(OPENPIM_HE_ERR_MRAM, "2D arrays: %llu more bytes of MRAM per DPU do not fit (heap %llu bytes, "
                       "%llu in use up to the first gap that fits none)", (unsigned long long)size,
                       (unsigned long long)h->heap_size, (unsigned long long)at);
    struct he2d_block *b = malloc(sizeof *b);
    if (!b)
        return he_fail(OPENPIM_HE_ERR_NO_MEMORY, "2D arrays: out of host memory");
    *b = (struct he2d_block){at, size, *link};
    *link = b;
    *out = b;
    return OPENPIM_HE_OK;
}

void he2d_heap_free(openpim_he_ntt2d *h, struct he2d_block *block)
{
    for (struct he2d_block **link = &h->blocks; block && *link; link = &(*link)->next)
        if (*link == block) {
            *link = block->next;
            free(block);
            return;
        }
}

void he2d_free_resident(openpim_he_ntt2d *h)
{
    while (h->polys)
        openpim_he_poly2d_free(h, h->polys);
    while (h->convs)
        openpim_he_baseconv2d_free(h, h->convs);
}

/* ---- arrays ------------------------------------------------------------------ */

static uint64_t poly_bytes(const openpim_he_ntt2d *h)
{
    return (uint64_t)h->slots * (h->params.n / h->g) * 4;
}

/* Whether p is a live array of h. */
static bool owns(const openpim_he_ntt2d *h, const openpim_he_poly2d *p)
{
    for (const openpim_he_poly2d *q = h->polys; q; q = q->next)
        if (q == p)
            return true;
    return false;
}

openpim_he_status openpim_he_poly2d_alloc(openpim_he_ntt2d *h, openpim_he_poly2d **out)
{
    if (!h || !out)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D arrays: NULL argument");
    openpim_he_poly2d *p = calloc(1, sizeof *p);
    if (!p)
        return he_fail(OPENPIM_HE_ERR_NO_MEMORY, "2D arrays: out of host memory");
    openpim_he_status st = he2d_heap_alloc(h, poly_bytes(h), &p->block);
    if (st != OPENPIM_HE_OK) {
        free(p);
        return st;
    }
    p->ntt = h;
    p->form = OPENPIM_HE_COEFF;
    p->next = h->polys;
    h->polys = p;
    *out = p;
    return OPENPIM_HE_OK;
}

void openpim_he_poly2d_free(openpim_he_ntt2d *h, openpim_he_poly2d *p)
{
    if (!h || !p)
        return;
    for (openpim_he_poly2d **link = &h->polys; *link; link = &(*link)->next)
        if (*link == p) {
            *link = p->next;
            he2d_heap_free(h, p->block);
            free(p);
            return;
        }
}

enum openpim_he_form openpim_he_poly2d_form(const openpim_he_poly2d *p)
{
    return p ? p->form : OPENPIM_HE_COEFF;
}

static openpim_he_status check_arrays(const openpim_he_ntt2d *h, const openpim_he_poly2d *const *ps, int nr)
{
    if (!h)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D arrays: the 2D NTT object is NULL");
    for (int i = 0; i < nr; i++) {
        if (!ps[i])
            return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D arrays: operand %d is NULL", i);
        if (!owns(h, ps[i]))
            return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D arrays: operand %d is not a live array of this object", i);
    }
    return OPENPIM_HE_OK;
}

static uint32_t offset_of(const openpim_he_poly2d *p)
{
    return (uint32_t)p->block->offset;
}

openpim_he_status openpim_he_poly2d_upload(openpim_he_ntt2d *h, openpim_he_poly2d *p, const uint32_t *data,
                                           enum openpim_he_form form, struct openpim_he_ntt2d_times *times)
{
    const openpim_he_poly2d *ps[1] = {p};
    openpim_he_status st = check_arrays(h, ps, 1);
    if (st != OPENPIM_HE_OK)
        return st;
    if (!data)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D upload: data is NULL");
    if (form != OPENPIM_HE_COEFF && form != OPENPIM_HE_NTT)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D upload: unknown form %d", (int)form);
    const uint32_t n = h->params.n, k = h->params.nr_moduli, S = h->slots, share = n / h->g;
    for (size_t w = 0; w < (size_t)h->nr_ntts * n; w++)
        if (data[w] >= h->params.moduli[(w / n) % k])
            return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D upload: polynomial %zu, residue %zu, coefficient %zu: %u is "
                           "not below its modulus %u", w / n / k, (w / n) % k, w % n, data[w],
                           h->params.moduli[(w / n) % k]);
    struct openpim_he_ntt2d_times t = {0};
    double mark = openpim_modelled_time_us(), start = mark;
    const size_t per_dpu = (size_t)S * share;
    if ((st = he2d_stage_in(h, data, form, "he 2D arrays: inputs into columns")) != OPENPIM_HE_OK)
        return st;
    if ((st = he2d_push(h, DPU_XFER_TO_DPU, offset_of(p), per_dpu * 4, h->stage, per_dpu, false, "2D upload")) !=
        OPENPIM_HE_OK)
        return st;
    p->form = form;
    t.cpu_dpu_us = he2d_since(&mark);
    t.total_us = mark - start;
    if (times)
        *times = t;
    return OPENPIM_HE_OK;
}

openpim_he_status openpim_he_poly2d_download(openpim_he_ntt2d *h, const openpim_he_poly2d *p, uint32_t *data,
                                             struct openpim_he_ntt2d_times *times)
{
    const openpim_he_poly2d *ps[1] = {p};
    openpim_he_status st = check_arrays(h, ps, 1);
    if (st != OPENPIM_HE_OK)
        return st;
    if (!data)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D download: data is NULL");
    const uint32_t n = h->params.n, S = h->slots, share = n / h->g;
    const size_t per_dpu = (size_t)S * share;
    struct openpim_he_ntt2d_times t = {0};
    double mark = openpim_modelled_time_us(), start = mark;
    if ((st = he2d_push(h, DPU_XFER_FROM_DPU, offset_of(p), per_dpu * 4, h->stage, per_dpu, false,
                        "2D download")) != OPENPIM_HE_OK)
        return st;
    if ((st = he2d_stage_out(h, data, p->form, "he 2D arrays: outputs out of columns")) != OPENPIM_HE_OK)
        return st;
    t.dpu_cpu_us = he2d_since(&mark);
    t.total_us = mark - start;
    if (times)
        *times = t;
    return OPENPIM_HE_OK;
}

/* One transfer of `bytes` per node, only to or from the nodes whose group has want[group] set (the
 * others are not prepared, so the SDK moves nothing for them): node i's data at base + i * stride. */
static openpim_he_status push_some(openpim_he_ntt2d *h, dpu_xfer_t dir, uint32_t offset, uint64_t bytes,
                                   uint32_t *base, size_t stride_words, const bool *want, const char *what)
{
    dpu_error_t err = DPU_OK;
    for (uint32_t i = 0; i < h->nr_dpus && err == DPU_OK; i++)
        if (want[i / h->g])
            err = dpu_prepare_xfer(h->node_dpu[i], base + i * stride_words);
    if (err == DPU_OK)
        err = dpu_push_xfer(h->set, dir, DPU_MRAM_HEAP_POINTER_NAME, offset, bytes, DPU_XFER_DEFAULT);
    return err == DPU_OK ? OPENPIM_HE_OK : he2d_sdk_fail(err, what);
}

/* ---- operations ---------------------------------------------------------------- */

static openpim_he_status transform(openpim_he_ntt2d *h, bool inverse, openpim_he_poly2d *dst,
                                   const openpim_he_poly2d *a, struct openpim_he_ntt2d_times *times)
{
    const openpim_he_poly2d *ps[2] = {dst, a};
    openpim_he_status st = check_arrays(h, ps, 2);
    if (st != OPENPIM_HE_OK)
        return st;
    if (a->form != (inverse ? OPENPIM_HE_NTT : OPENPIM_HE_COEFF))
        return he_fail(OPENPIM_HE_ERR_FORM, "2D %s: the operand must be in %s form", inverse ? "iNTT" : "NTT",
                       inverse ? "NTT" : "coefficient");
    struct openpim_he_ntt2d_times t = {0};
    double mark = openpim_modelled_time_us(), start = mark;
    if ((st = he2d_transform(h, inverse, offset_of(dst), offset_of(a), &t, &mark)) != OPENPIM_HE_OK)
        return st;
    dst->form = inverse ? OPENPIM_HE_COEFF : OPENPIM_HE_NTT;
    t.total_us = mark - start;
    if (times)
        *times = t;
    return OPENPIM_HE_OK;
}

openpim_he_status openpim_he_poly2d_ntt(openpim_he_ntt2d *h, openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                        struct openpim_he_ntt2d_times *times)
{
    return transform(h, false, dst, a, times);
}

openpim_he_status openpim_he_poly2d_intt(openpim_he_ntt2d *h, openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                         struct openpim_he_ntt2d_times *times)
{
    return transform(h, true, dst, a, times);
}

static openpim_he_status elemwise(openpim_he_ntt2d *h, enum he2d_ew_op op, openpim_he_poly2d *dst,
                                  const openpim_he_poly2d *a, const openpim_he_poly2d *b,
                                  struct openpim_he_ntt2d_times *times)
{
    static const char *const names[] = {"add", "sub", "mul", "mac"};
    const openpim_he_poly2d *ps[3] = {dst, a, b};
    openpim_he_status st = check_arrays(h, ps, 3);
    if (st != OPENPIM_HE_OK)
        return st;
    if (a->form != b->form)
        return he_fail(OPENPIM_HE_ERR_FORM, "2D %s: operands in different forms", names[op]);
    if ((op == HE2D_EW_MUL || op == HE2D_EW_MAC) && a->form != OPENPIM_HE_NTT)
        return he_fail(OPENPIM_HE_ERR_FORM, "2D %s: operands must be in NTT form (a coefficient-wise product is "
                       "not a ring operation in coefficient form)", names[op]);
    if (op == HE2D_EW_MAC && dst->form != OPENPIM_HE_NTT)
        return he_fail(OPENPIM_HE_ERR_FORM, "2D mac: the accumulator must be in NTT form");
    struct openpim_he_ntt2d_times t = {0};
    double mark = openpim_modelled_time_us(), start = mark;
    const struct he2d_args args = {.step = HE2D_STEP_ELEMWISE, .op = op, .dst = offset_of(dst), .a = offset_of(a),
                                   .b = offset_of(b)};
    if ((st = he2d_launch(h, &args, &t.kernel1_cycles, &t.kernel1_dpu_us)) != OPENPIM_HE_OK)
        return st;
    dst->form = a->form;
    t.kernel1_us = he2d_since(&mark);
    t.total_us = mark - start;
    if (times)
        *times = t;
    return OPENPIM_HE_OK;
}

openpim_he_status openpim_he_poly2d_add(openpim_he_ntt2d *h, openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                        const openpim_he_poly2d *b, struct openpim_he_ntt2d_times *times)
{
    return elemwise(h, HE2D_EW_ADD, dst, a, b, times);
}

openpim_he_status openpim_he_poly2d_sub(openpim_he_ntt2d *h, openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                        const openpim_he_poly2d *b, struct openpim_he_ntt2d_times *times)
{
    return elemwise(h, HE2D_EW_SUB, dst, a, b, times);
}

openpim_he_status openpim_he_poly2d_mul(openpim_he_ntt2d *h, openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                        const openpim_he_poly2d *b, struct openpim_he_ntt2d_times *times)
{
    return elemwise(h, HE2D_EW_MUL, dst, a, b, times);
}

openpim_he_status openpim_he_poly2d_mac(openpim_he_ntt2d *h, openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                        const openpim_he_poly2d *b, struct openpim_he_ntt2d_times *times)
{
    return elemwise(h, HE2D_EW_MAC, dst, a, b, times);
}

/* ---- base conversion ------------------------------------------------------------ */

/* roles and constants as the 1D conversion's (he_baseconv.c) */
_Static_assert((int)HE2D_CONV_FROM == (int)HE_BCONV_FROM && (int)HE2D_CONV_TO == (int)HE_BCONV_TO, "one role encoding");

openpim_he_status openpim_he_baseconv2d_create(openpim_he_ntt2d *h, const uint32_t *from, uint32_t nr_from,
                                               const uint32_t *to, uint32_t nr_to, openpim_he_baseconv2d **out)
{
    if (!h || !from || !to || !out)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D base conversion: NULL argument");
    const struct openpim_he_params *p = &h->params;
    const uint32_t S = h->slots;
    uint8_t role[OPENPIM_HE_MAX_MODULI];
    openpim_he_status st = he_baseconv_roles(p, from, nr_from, to, nr_to, role, "2D base conversion");
    if (st != OPENPIM_HE_OK)
        return st;
    /* per group: [S] struct he2d_conv_slot, then [S][nw] weights */
    const uint32_t nw = (nr_from + 1) & ~1u, words = S * 4 + S * nw;
    openpim_he_baseconv2d *bc = calloc(1, sizeof *bc);
    uint32_t *table = calloc((size_t)h->groups * words, 4);
    st = OPENPIM_HE_ERR_NO_MEMORY;
    if (!bc || !table) {
        he_fail(st, "2D base conversion: out of host memory");
        goto fail;
    }
    for (uint32_t grp = 0; grp < h->groups; grp++)
        for (uint32_t slot = 0; slot < S && grp * S + slot < h->nr_ntts; slot++) {
            const uint32_t j = he2d_modulus_index(h, grp, slot);
            uint32_t *cs = table + (size_t)grp * words + slot * 4, *w = table + (size_t)grp * words + S * 4 + slot * nw;
            cs[0] = role[j];
            cs[2] = nr_from;
            cs[3] = 1;
            if (role[j] == HE2D_CONV_FROM)
                cs[1] = he_baseconv_scale(p, from, nr_from, j);
            else if (role[j] == HE2D_CONV_TO)
                cs[3] = he_baseconv_weights(p, from, nr_from, j, w);
        }
    if ((st = he2d_heap_alloc(h, (uint64_t)words * 4, &bc->block)) != OPENPIM_HE_OK)
        goto fail;
    if ((st = he2d_push(h, DPU_XFER_TO_DPU, (uint32_t)bc->block->offset, (uint64_t)words * 4, table, words, true,
                        "writing a base conversion's table")) != OPENPIM_HE_OK) {
        he2d_heap_free(h, bc->block);
        goto fail;
    }
    free(table);
    bc->ntt = h;
    bc->nr_from = nr_from;
    memcpy(bc->from, from, nr_from * sizeof *from);
    memcpy(bc->role, role, sizeof role);
    bc->next = h->convs;
    h->convs = bc;
    *out = bc;
    return OPENPIM_HE_OK;
fail:
    free(table);
    free(bc);
    return st;
}

void openpim_he_baseconv2d_free(openpim_he_ntt2d *h, openpim_he_baseconv2d *bc)
{
    if (!h || !bc)
        return;
    for (openpim_he_baseconv2d **link = &h->convs; *link; link = &(*link)->next)
        if (*link == bc) {
            *link = bc->next;
            he2d_heap_free(h, bc->block);
            free(bc);
            return;
        }
}

openpim_he_status openpim_he_poly2d_base_convert(openpim_he_ntt2d *h, const openpim_he_baseconv2d *bc,
                                                 openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                                 struct openpim_he_ntt2d_times *times)
{
    const openpim_he_poly2d *ps[2] = {dst, a};
    openpim_he_status st = check_arrays(h, ps, 2);
    if (st != OPENPIM_HE_OK)
        return st;
    bool live = false;
    for (const openpim_he_baseconv2d *c = bc ? h->convs : NULL; c && !live; c = c->next)
        live = c == bc;
    if (!live)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D base conversion: not a live conversion of this object");
    if (dst == a)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D base conversion: dst must differ from the source array");
    if (a->form != OPENPIM_HE_COEFF)
        return he_fail(OPENPIM_HE_ERR_FORM, "2D base conversion needs its source in coefficient form");
    const uint32_t n = h->params.n, k = h->params.nr_moduli, S = h->slots, share = n / h->g, nf = bc->nr_from;
    const size_t per_down = (size_t)S * share, per_up = per_down * nf;
    struct he2d_block *tmp = NULL, *relay = NULL;
    uint32_t *up = NULL;
    bool *has_from = NULL, *has_to = NULL;
    struct openpim_he_ntt2d_times t = {0};
    double mark = openpim_modelled_time_us(), start = mark;
    if ((st = he2d_heap_alloc(h, per_down * 4, &tmp)) != OPENPIM_HE_OK ||
        (st = he2d_heap_alloc(h, per_up * 4, &relay)) != OPENPIM_HE_OK)
        goto done;
    if (!(up = calloc((size_t)h->nr_dpus * per_up, 4)) || !(has_from = malloc(h->groups * sizeof *has_from)) ||
        !(has_to = malloc(h->groups * sizeof *has_to))) {
        st = he_fail(OPENPIM_HE_ERR_NO_MEMORY, "2D base conversion: out of host memory for the relay");
        goto done;
    }
    /* 1. sources scale (and copy), the other moduli's slots are zeroed */
    struct he2d_args args = {.step = HE2D_STEP_BCONV_SCALE, .dst = offset_of(dst), .a = offset_of(a),
                             .conv = (uint32_t)bc->block->offset, .tmp = (uint32_t)tmp->offset,
                             .relay = (uint32_t)relay->offset};
    if ((st = he2d_launch(h, &args, &t.kernel1_cycles, &t.kernel1_dpu_us)) != OPENPIM_HE_OK)
        goto done;
    t.kernel1_us = he2d_since(&mark);

    /* 2. relay: the target residue (polynomial p, modulus j) on DPU x of its group gets the scaled
     * source residues (p, from[f]) from DPU x of their groups: the same coefficient positions.  Only
     * the groups holding a source are read and only those holding a target written. */
    for (uint32_t grp = 0; grp < h->groups; grp++) {
        has_from[grp] = has_to[grp] = false;
        for (uint32_t slot = 0; slot < S && grp * S + slot < h->nr_ntts; slot++) {
            const uint8_t role = bc->role[he2d_modulus_index(h, grp, slot)];
            has_from[grp] |= role == HE2D_CONV_FROM;
            has_to[grp] |= role == HE2D_CONV_TO;
        }
    }
    if ((st = push_some(h, DPU_XFER_FROM_DPU, (uint32_t)tmp->offset, per_down * 4, h->stage, per_down, has_from,
                        "2D base conversion: reading the scaled sources")) != OPENPIM_HE_OK)
        goto done;
    for (uint32_t i = 0; i < h->nr_dpus; i++) {
        const uint32_t x = i % h->g, grp = i / h->g;
        for (uint32_t slot = 0; slot < S && grp * S + slot < h->nr_ntts; slot++) {
            if (bc->role[he2d_modulus_index(h, grp, slot)] != HE2D_CONV_TO)
                continue;
            const uint32_t poly = (grp * S + slot) / k;
            for (uint32_t f = 0; f < nf; f++) {
                const uint32_t m = poly * k + bc->from[f], sgrp = m / S, sslot = m % S;
                memcpy(up + i * per_up + ((size_t)slot * nf + f) * share,
                       h->stage + (size_t)(x + h->g * sgrp) * per_down + (size_t)sslot * share, (size_t)share * 4);
            }
        }
    }
    if ((st = push_some(h, DPU_XFER_TO_DPU, (uint32_t)relay->offset, per_up * 4, up, per_up, has_to,
                        "2D base conversion: relaying the sources")) != OPENPIM_HE_OK)
        goto done;
    t.inter_dpu_us = he2d_since(&mark);

    /* 3. targets sum the weighted sources */
    args.step = HE2D_STEP_BCONV_SUM;
    if ((st = he2d_launch(h, &args, &t.kernel2_cycles, &t.kernel2_dpu_us)) != OPENPIM_HE_OK)
        goto done;
    t.kernel2_us = he2d_since(&mark);
    dst->form = OPENPIM_HE_COEFF;
    t.total_us = mark - start;
    if (times)
        *times = t;
done:
    free(up);
    free(has_from);
    free(has_to);
    he2d_heap_free(h, tmp);
    he2d_heap_free(h, relay);
    return st;
}
