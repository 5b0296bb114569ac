/* SPDX-License-Identifier: MIT */
/* The optimised collectives on the rank's physical view (PID-Comm's
 * techniques).  Node n = 8 E + k is chip k of entangled group E (= rank * 8 +
 * group); a view line of E holds one 8-byte word of each of its 8 chips.
 *
 * Two layouts of a communicator over entangled groups (needs L[0] % 8 == 0):
 *   - dimension 0 not in the communicator: the 8 chips of a group belong to 8
 *     instances that move in lock-step, with the same rank P; whole lines move
 *     between groups unchanged;
 *   - dimension 0 in it: the 8 chips of group E are ranks 8P .. 8P + 7 of one
 *     instance; a line rotated by 8r bits hands chip k's word to chip k + r.
 *     For AlltoAll and AllGather, DPU kernels permute blocks before and after
 *     (comm_reorder.c) so that one rotation serves a whole line.
 * Reductions combine lines directly when the operation works byte by byte
 * (8-bit integers, bitwise operations); otherwise 8 lines at a time are
 * transposed in a 512-byte block into rows of whole elements, combined in
 * rank order and transposed back ("cross-domain").  Only those transposes are
 * charged as host work: moving lines is the view transfers themselves, which
 * the SDK charges. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct layout {
    bool rot;        /* dimension 0 in the communicator */
    uint32_t P;      /* group positions per group-communicator */
    uint32_t nr;     /* group-communicators */
    uint32_t *eg;    /* [k * P + pos] -> entangled group */
};

/* Builds the group-level layout; false if the communicator does not map onto
 * whole groups as described above (then the general path runs). */
static bool make_layout(const openpim_comm_t *m, struct layout *l)
{
    const openpim_cube_t *c = m->cube;
    memset(l, 0, sizeof *l);
    if (!c->view_ok)
        return false;
    l->rot = m->mask & 1;
    l->P = l->rot ? m->size / COMM_CHIPS : m->size;
    if (l->P == 0 || (l->rot && m->size % COMM_CHIPS))
        return false;
    uint32_t nr_eg = c->nr_nodes / COMM_CHIPS;
    l->nr = nr_eg / l->P;
    l->eg = malloc((size_t)nr_eg * sizeof *l->eg);
    uint32_t *slot = malloc((size_t)nr_eg * sizeof *slot); /* group -> k * P + pos */
    if (!l->eg || !slot)
        goto bad;
    for (uint32_t e = 0; e < nr_eg; e++)
        slot[e] = UINT32_MAX;
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->nr_instances; i++) {
        const uint32_t *node = m->node_of + (size_t)i * m->size;
        if (!l->rot && node[0] % COMM_CHIPS != 0)
            continue; /* chip j > 0: checked below against its chip-0 sibling */
        if (k == l->nr)
            goto bad;
        for (uint32_t pos = 0; pos < l->P; pos++) {
            uint32_t n0 = node[l->rot ? COMM_CHIPS * pos : pos];
            if (n0 % COMM_CHIPS || slot[n0 / COMM_CHIPS] != UINT32_MAX)
                goto bad;
            /* with dimension 0: the group's chips are ranks 8 pos .. 8 pos + 7 */
            for (uint32_t j = 1; l->rot && j < COMM_CHIPS; j++)
                if (node[COMM_CHIPS * pos + j] != n0 + j)
                    goto bad;
            l->eg[(size_t)k * l->P + pos] = n0 / COMM_CHIPS;
            slot[n0 / COMM_CHIPS] = k * l->P + pos;
        }
        k++;
    }
    if (k != l->nr)
        goto bad;
    if (!l->rot) {
        /* every instance: one chip j, and rank pos in the group listed at pos
         * of the same group-communicator */
        for (uint32_t i = 0; i < m->nr_instances; i++) {
            const uint32_t *node = m->node_of + (size_t)i * m->size;
            uint32_t j = node[0] % COMM_CHIPS, k0 = slot[node[0] / COMM_CHIPS] / l->P;
            for (uint32_t pos = 0; pos < m->size; pos++)
                if (node[pos] % COMM_CHIPS != j || slot[node[pos] / COMM_CHIPS] != k0 * l->P + pos)
                    goto bad;
        }
    }
    free(slot);
    return true;
bad:
    free(slot);
    free(l->eg);
    l->eg = NULL;
    return false;
}

static bool aligned(uint64_t a, uint64_t b, uint64_t c)
{
    return (a | b | c) % 8 == 0;
}

/* Whole view of [off, off + len) of every group, V + E * 8 * len: one
 * set-wide view transfer (all ranks, all groups in parallel). */
static openpim_comm_status view_io(openpim_cube_t *c, bool write, uint64_t off, uint64_t len, uint8_t *v)
{
    size_t egs = (size_t)c->nr_ranks * COMM_GROUPS;
    void **lines = malloc(egs * sizeof *lines);
    if (!lines)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    for (size_t e = 0; e < egs; e++)
        lines[e] = v + e * 8 * len;
    double t0 = comm_seen_start();
    dpu_error_t rc = openpim_rank_view_push(c->set, write ? DPU_XFER_TO_DPU : DPU_XFER_FROM_DPU, off, lines,
                                            (size_t)(8 * len));
    free(lines);
    if (rc != DPU_OK)
        return comm_dpu_fail(rc, write ? "openpim_rank_view_push to the DPUs" : "openpim_rank_view_push from the DPUs");
    comm_seen_end(&c->seen_view, write, len, t0);
    return OPENPIM_COMM_OK;
}

struct views {
    uint8_t *in, *out;
    size_t in_eg, out_eg; /* bytes of view per group */
};

static openpim_comm_status views_open(openpim_cube_t *c, uint64_t src, uint64_t in_len, uint64_t out_len,
                                      struct views *v)
{
    size_t egs = (size_t)c->nr_ranks * COMM_GROUPS;
    v->in_eg = 8 * in_len;
    v->out_eg = 8 * out_len;
    v->in = comm_buffer(c, 0, egs * v->in_eg);
    v->out = comm_buffer(c, 1, egs * v->out_eg);
    if (!v->in || !v->out)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory for the view buffers");
    return view_io(c, false, src, in_len, v->in);
}

static openpim_comm_status views_close(openpim_cube_t *c, uint64_t dst, uint64_t out_len, struct views *v)
{
    return view_io(c, true, dst, out_len, v->out);
}

/* ---- AlltoAll / AllGather --------------------------------------------------------- */

static void load_rows(const struct comm_simd *s, const uint8_t *lines, size_t n_valid, uint8_t rows[8][64]);
static void store_rows(const struct comm_simd *s, uint8_t rows[8][64], uint8_t *lines, size_t n_valid);

/* out lines = in lines with chip k's word moved to chip k + r.  With CM, one
 * rotation of each 64-bit lane; without, what PID-Comm does before CM: to
 * the host domain (8x8 transpose), whole words moved, back. */
static void move_lines(const struct comm_args *a, const struct comm_simd *s, uint8_t *out, const uint8_t *in,
                       size_t lines, unsigned r, double *transposed)
{
    if (a->tech & OPENPIM_COMM_CM) {
        s->rotate(out, in, lines, r);
        return;
    }
    for (size_t b = 0; b < lines; b += 8) {
        size_t n = lines - b < 8 ? lines - b : 8;
        uint8_t rows[8][64], moved[8][64];
        load_rows(s, in + 64 * b, n, rows);
        for (unsigned k = 0; k < COMM_CHIPS; k++)
            memcpy(moved[(k + r) % COMM_CHIPS], rows[k], 64);
        store_rows(s, moved, out + 64 * b, n);
    }
    *transposed += 2.0 * 64.0 * (double)lines;
}

/* Node buffers of the staged variant (PR without IM): node 8 E + k is chip k
 * of group E, each node's data at buf + node * stride. */
static uint8_t *node_at(uint8_t *buf, size_t stride, uint32_t eg, uint32_t chip)
{
    return buf + ((size_t)eg * COMM_CHIPS + chip) * stride;
}

/* PR without IM: the same local moves as the view path, but between host
 * buffers that SDK pushes fill and empty (domain transfer included), as
 * PID-Comm's first step does.  gather: AllGather (source = one block). */
static openpim_comm_status staged_moves(const struct comm_args *a, const struct layout *l, uint64_t from,
                                        uint64_t in_len, uint64_t out_len, uint64_t blk, bool gather)
{
    openpim_cube_t *c = a->comm->cube;
    uint8_t *in = comm_buffer(c, 0, (size_t)in_len * c->nr_nodes);
    uint8_t *out = comm_buffer(c, 1, (size_t)out_len * c->nr_nodes);
    if (!in || !out)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory for the staging buffers");
    openpim_comm_status st = comm_read_nodes(c, from, in_len, in, (size_t)in_len);
    if (st != OPENPIM_COMM_OK)
        return st;
    double t0 = comm_now_us();
    for (uint32_t k = 0; k < l->nr; k++) {
        const uint32_t *eg = l->eg + (size_t)k * l->P;
        for (uint32_t ps = 0; ps < l->P; ps++)
            for (uint32_t pd = 0; pd < l->P; pd++)
                for (uint32_t j = 0; j < COMM_CHIPS; j++) {
                    if (!l->rot) {
                        memcpy(node_at(out, out_len, eg[pd], j) + ps * blk,
                               node_at(in, in_len, eg[ps], j) + (gather ? 0 : pd * blk), blk);
                        continue;
                    }
                    for (unsigned r = 0; r < COMM_CHIPS; r++)
                        memcpy(node_at(out, out_len, eg[pd], j) + (8 * ps + r) * blk,
                               node_at(in, in_len, eg[ps], (j - r) % COMM_CHIPS) + (gather ? 0 : (8 * pd + r) * blk),
                               blk);
                }
    }
    c->last_host_us += comm_now_us() - t0;
    comm_charge_pass(gather ? "comm PR allgather: local moves in host memory" : "comm PR alltoall: local moves in host memory",
                     false, (double)in_len * c->nr_nodes, (double)out_len * c->nr_nodes, 0);
    return comm_write_nodes(c, a->dst, out_len, out, (size_t)out_len);
}

/* ---- the kernel paths' size threshold ---------------------------------------------
 * With dimension 0 in the communicator, AlltoAll and AllGather run the
 * reordering kernel (twice and once): a load (AlltoAll's second run finds
 * it loaded), an argument push and a launch each, and the first MRAM access
 * after a launch hands the memory back.  At
 * small sizes that costs more than the general path (baseline.c's algorithm
 * on the optimised threads: a push from every node, the host's pass, a push
 * back).  kernel_path_cheaper predicts both from the SDK's estimates of each
 * call (openpim_estimate_us: the same model that charges them) and this
 * library's cost model of the host work, and the cheaper one runs: the
 * threshold is where the two cross, for this set, communicator and size.
 * Predictions are exact but for the kernel's own cycles, which follow its
 * last run on the cube (comm_kernel_estimate_us; 0 before the first). */

static double estimate(const openpim_cube_t *c, enum openpim_estimate_kind kind, dpu_xfer_t dir, uint64_t bytes,
                       enum openpim_estimate_when when)
{
    double us = 0;
    (void)openpim_estimate_us(c->set, kind, dir, (size_t)bytes, when, &us); /* a refusal: the call fails later */
    return us;
}

/* AlltoAll (gather false: bytes in and out per node) or AllGather (bytes in,
 * N bytes out) with dimension 0 in the communicator, offsets and blocks
 * multiples of 8: whether the kernel path is predicted cheaper. */
static bool kernel_path_cheaper(const struct comm_args *a, bool gather)
{
    openpim_comm_t *m = a->comm;
    openpim_cube_t *c = m->cube;
    uint64_t in = a->bytes, out = gather ? a->bytes * m->size : a->bytes, blk = gather ? a->bytes : a->bytes / m->size;
    double nodes = c->nr_nodes;
    double kernel = (gather ? 0 : comm_kernel_estimate_us(c, m->size, blk, true)) +
                    estimate(c, OPENPIM_ESTIMATE_VIEW, DPU_XFER_FROM_DPU, in,
                             gather ? OPENPIM_ESTIMATE_NOW : OPENPIM_ESTIMATE_AFTER_LAUNCH) +
                    (a->tech & OPENPIM_COMM_CM ? 0 : comm_transpose_us(2.0 * nodes * (double)out)) +
                    estimate(c, OPENPIM_ESTIMATE_VIEW, DPU_XFER_TO_DPU, out, OPENPIM_ESTIMATE_HOST_SIDE) +
                    comm_kernel_estimate_us(c, m->size, blk, gather);
    double rd = (double)in * nodes, wr = (double)out * nodes;
    double host = gather ? openpim_comm_host_pass_us(0, rd, wr, 0)
                         : comm_reorder_us(false, rd, wr, (double)m->nr_instances * m->size * m->size,
                                           (double)comm_span(a->src, in));
    double general = estimate(c, OPENPIM_ESTIMATE_PUSH, DPU_XFER_FROM_DPU, in, OPENPIM_ESTIMATE_NOW) + host +
                     estimate(c, OPENPIM_ESTIMATE_PUSH, DPU_XFER_TO_DPU, out, OPENPIM_ESTIMATE_HOST_SIDE);
    return kernel <= general;
}

openpim_comm_status comm_view_alltoall(const struct comm_args *a, int *done)
{
    openpim_comm_t *m = a->comm;
    openpim_cube_t *c = m->cube;
    uint64_t blk = a->bytes / m->size;
    struct layout l;
    if (!aligned(a->src, a->dst, blk) || !make_layout(m, &l))
        return OPENPIM_COMM_OK;
    if (l.rot && (a->tech & OPENPIM_COMM_IM) && !kernel_path_cheaper(a, false)) {
        free(l.eg);
        return OPENPIM_COMM_OK; /* the general path */
    }
    *done = 1;
    openpim_comm_status st = OPENPIM_COMM_OK;
    uint64_t from = a->src;
    if (l.rot) {
        st = comm_run_kernel(c, COMM_KERNEL_PRE, a->src, a->dst, m->size, blk, true);
        from = a->dst;
    }
    if (!(a->tech & OPENPIM_COMM_IM)) {
        if (st == OPENPIM_COMM_OK)
            st = staged_moves(a, &l, from, a->bytes, a->bytes, blk, false);
        free(l.eg);
        if (st == OPENPIM_COMM_OK && l.rot)
            st = comm_run_kernel(c, COMM_KERNEL_POST, a->dst, a->dst, m->size, blk, false);
        return st;
    }
    struct views v;
    if (st == OPENPIM_COMM_OK)
        st = views_open(c, from, a->bytes, a->bytes, &v);
    if (st != OPENPIM_COMM_OK) {
        free(l.eg);
        return st;
    }
    const struct comm_simd *s = comm_simd();
    size_t vb = 8 * blk, lines = blk / 8; /* view bytes and lines of a block */
    double transposed = 0;
    double t0 = comm_now_us();
    for (uint32_t k = 0; k < l.nr; k++) {
        const uint32_t *eg = l.eg + (size_t)k * l.P;
        for (uint32_t ps = 0; ps < l.P; ps++)
            for (uint32_t pd = 0; pd < l.P; pd++) {
                const uint8_t *in = v.in + eg[ps] * v.in_eg;
                uint8_t *out = v.out + eg[pd] * v.out_eg;
                if (!l.rot)
                    move_lines(a, s, out + ps * vb, in + pd * vb, lines, 0, &transposed);
                else
                    for (unsigned r = 0; r < COMM_CHIPS; r++)
                        move_lines(a, s, out + (8 * ps + r) * vb, in + (8 * pd + r) * vb, lines, r, &transposed);
            }
    }
    c->last_host_us += comm_now_us() - t0;
    free(l.eg);
    comm_charge_transpose("comm IM alltoall: domain transfer in registers", transposed);
    st = views_close(c, a->dst, a->bytes, &v);
    if (st == OPENPIM_COMM_OK && l.rot)
        st = comm_run_kernel(c, COMM_KERNEL_POST, a->dst, a->dst, m->size, blk, false);
    return st;
}

openpim_comm_status comm_view_allgather(const struct comm_args *a, int *done)
{
    openpim_comm_t *m = a->comm;
    openpim_cube_t *c = m->cube;
    struct layout l;
    if (!aligned(a->src, a->dst, a->bytes) || !make_layout(m, &l))
        return OPENPIM_COMM_OK;
    if (l.rot && (a->tech & OPENPIM_COMM_IM) && !kernel_path_cheaper(a, true)) {
        free(l.eg);
        return OPENPIM_COMM_OK; /* the general path */
    }
    *done = 1;
    uint64_t out_len = a->bytes * m->size;
    openpim_comm_status st;
    if (!(a->tech & OPENPIM_COMM_IM)) {
        st = staged_moves(a, &l, a->src, a->bytes, out_len, a->bytes, true);
        free(l.eg);
        if (st == OPENPIM_COMM_OK && l.rot)
            st = comm_run_kernel(c, COMM_KERNEL_POST, a->dst, a->dst, m->size, a->bytes, true);
        return st;
    }
    struct views v;
    st = views_open(c, a->src, a->bytes, out_len, &v);
    if (st != OPENPIM_COMM_OK) {
        free(l.eg);
        return st;
    }
    const struct comm_simd *s = comm_simd();
    size_t vb = 8 * a->bytes, lines = a->bytes / 8;
    double transposed = 0;
    double t0 = comm_now_us();
    for (uint32_t k = 0; k < l.nr; k++) {
        const uint32_t *eg = l.eg + (size_t)k * l.P;
        for (uint32_t ps = 0; ps < l.P; ps++) {
            const uint8_t *in = v.in + eg[ps] * v.in_eg;
            for (uint32_t pd = 0; pd < l.P; pd++) {
                uint8_t *out = v.out + eg[pd] * v.out_eg;
                if (!l.rot)
                    move_lines(a, s, out + ps * vb, in, lines, 0, &transposed);
                else
                    for (unsigned r = 0; r < COMM_CHIPS; r++)
                        move_lines(a, s, out + (8 * ps + r) * vb, in, lines, r, &transposed);
            }
        }
    }
    c->last_host_us += comm_now_us() - t0;
    free(l.eg);
    comm_charge_transpose("comm IM allgather: domain transfer in registers", transposed);
    st = views_close(c, a->dst, out_len, &v);
    if (st == OPENPIM_COMM_OK && l.rot)
        st = comm_run_kernel(c, COMM_KERNEL_POST, a->dst, a->dst, m->size, a->bytes, true);
    return st;
}

/* ---- reductions ------------------------------------------------------------------- */

/* 8 lines from `lines` (n_valid of them, the rest zeros) as rows of elements. */
static void load_rows(const struct comm_simd *s, const uint8_t *lines, size_t n_valid, uint8_t rows[8][64])
{
    if (n_valid >= 8) {
        s->lines_to_rows(lines, rows);
        return;
    }
    uint8_t tmp[8 * 64] = {0};
    memcpy(tmp, lines, n_valid * 64);
    s->lines_to_rows(tmp, rows);
}

static void store_rows(const struct comm_simd *s, uint8_t rows[8][64], uint8_t *lines, size_t n_valid)
{
    if (n_valid >= 8) {
        s->rows_to_lines(rows, lines);
        return;
    }
    uint8_t tmp[8 * 64];
    s->rows_to_lines(rows, tmp);
    memcpy(lines, tmp, n_valid * 64);
}

/* out (lines) = op over pos of in[pos] (lines), rank order, every chip lane on
 * its own: groups whose chips are 8 different instances. */
static void reduce_vertical(const struct comm_args *a, const struct comm_simd *s, const uint8_t *const *in,
                            uint32_t count, size_t lines, uint8_t *out, double *transposed)
{
    size_t esz = openpim_comm_type_size(a->type);
    if ((a->tech & OPENPIM_COMM_CM) && comm_bytewise(a->type, a->op)) {
        openpim_comm_type bt = a->type == OPENPIM_INT8 ? OPENPIM_INT8 : OPENPIM_UINT8;
        memcpy(out, in[0], lines * 64);
        for (uint32_t p = 1; p < count; p++)
            s->reduce(bt, a->op, out, in[p], lines * 64);
        return;
    }
    for (size_t b = 0; b < lines; b += 8) {
        size_t n = lines - b < 8 ? lines - b : 8;
        uint8_t acc[8][64], rows[8][64];
        load_rows(s, in[0] + 64 * b, n, acc);
        for (uint32_t p = 1; p < count; p++) {
            load_rows(s, in[p] + 64 * b, n, rows);
            s->reduce(a->type, a->op, acc, rows, 512 / esz);
        }
        store_rows(s, acc, out + 64 * b, n);
        *transposed += 512.0 * (count + 1);
    }
}

/* All 8 chips of a group in one instance: for dst chip i, in_i[pos] are the
 * lines whose lane j holds rank 8 pos + j's contribution to chip i.  With
 * all_same, every chip receives the reduction over all lanes (AllReduce). */
static void reduce_across(const struct comm_args *a, const struct comm_simd *s, const uint8_t *const *in,
                          size_t in_stride_i, uint32_t count, size_t lines, uint8_t *out, bool all_same,
                          double *transposed)
{
    size_t esz = openpim_comm_type_size(a->type);
    bool is_float = a->type == OPENPIM_FLOAT || a->type == OPENPIM_DOUBLE;
    if ((a->tech & OPENPIM_COMM_CM) && comm_bytewise(a->type, a->op)) {
        /* integer op: the order does not change the result; lanes folded with rotations */
        openpim_comm_type bt = a->type == OPENPIM_INT8 ? OPENPIM_INT8 : OPENPIM_UINT8;
        uint8_t acc[8][512];
        for (size_t b = 0; b < lines; b += 8) {
            size_t n = lines - b < 8 ? lines - b : 8;
            unsigned nchips = all_same ? 1 : COMM_CHIPS;
            for (unsigned i = 0; i < nchips; i++) {
                memcpy(acc[i], in[0] + i * in_stride_i + 64 * b, n * 64);
                for (uint32_t p = 1; p < count; p++)
                    s->reduce(bt, a->op, acc[i], in[p] + i * in_stride_i + 64 * b, n * 64);
                s->hreduce8(bt, a->op, acc[i], n);
            }
            if (all_same) {
                memcpy(out + 64 * b, acc[0], n * 64);
                continue;
            }
            /* chip i's lane comes from acc[i] */
            for (size_t w = 0; w < n * 8; w++) {
                uint64_t o = 0;
                for (unsigned i = 0; i < COMM_CHIPS; i++) {
                    uint64_t x;
                    memcpy(&x, acc[i] + 8 * w, 8);
                    o |= x & (0xFFull << (8 * i));
                }
                memcpy(out + 64 * b + 8 * w, &o, 8);
            }
        }
        return;
    }
    for (size_t b = 0; b < lines; b += 8) {
        size_t n = lines - b < 8 ? lines - b : 8;
        uint8_t outrows[8][64], rows[8][64], acc[64];
        unsigned nchips = all_same ? 1 : COMM_CHIPS;
        for (unsigned i = 0; i < nchips; i++) {
            if (!is_float) {
                /* integers: any order gives the same result; fold the
                 * positions 512 bytes at a time, then the 8 chips */
                uint8_t fold[8][64];
                load_rows(s, in[0] + i * in_stride_i + 64 * b, n, fold);
                for (uint32_t p = 1; p < count; p++) {
                    load_rows(s, in[p] + i * in_stride_i + 64 * b, n, rows);
                    s->reduce(a->type, a->op, fold, rows, 512 / esz);
                }
                for (unsigned j = 1; j < COMM_CHIPS; j++)
                    s->reduce(a->type, a->op, fold[0], fold[j], 64 / esz);
                memcpy(acc, fold[0], 64);
            } else {
                /* floating point: rank order 8 p + j exactly */
                for (uint32_t p = 0; p < count; p++) {
                    load_rows(s, in[p] + i * in_stride_i + 64 * b, n, rows);
                    for (unsigned j = 0; j < COMM_CHIPS; j++) {
                        if (p == 0 && j == 0)
                            memcpy(acc, rows[0], 64);
                        else
                            s->reduce(a->type, a->op, acc, rows[j], 64 / esz);
                    }
                }
            }
            memcpy(outrows[i], acc, 64);
            *transposed += 512.0 * count;
        }
        if (all_same)
            for (unsigned i = 1; i < COMM_CHIPS; i++)
                memcpy(outrows[i], outrows[0], 64);
        store_rows(s, outrows, out + 64 * b, n);
        *transposed += 512.0;
    }
}

openpim_comm_status comm_view_reduce_scatter(const struct comm_args *a, int *done)
{
    /* PR alone: in the host domain, the elements to combine already sit in
     * the same lanes of the staging buffers (what PR arranges for PID-Comm's
     * vertical SIMD reductions): the general path, SIMD on every thread */
    if (!(a->tech & OPENPIM_COMM_IM))
        return OPENPIM_COMM_OK;
    openpim_comm_t *m = a->comm;
    openpim_cube_t *c = m->cube;
    uint64_t blk = a->bytes / m->size;
    struct layout l;
    if (!aligned(a->src, a->dst, blk) || !make_layout(m, &l))
        return OPENPIM_COMM_OK;
    const uint8_t **in = malloc((size_t)l.P * sizeof *in);
    if (!in) {
        free(l.eg);
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    }
    *done = 1;
    struct views v;
    openpim_comm_status st = views_open(c, a->src, a->bytes, blk, &v);
    if (st != OPENPIM_COMM_OK) {
        free(in);
        free(l.eg);
        return st;
    }
    const struct comm_simd *s = comm_simd();
    size_t vb = 8 * blk, lines = blk / 8;
    double transposed = 0;
    double t0 = comm_now_us();
    for (uint32_t k = 0; k < l.nr; k++) {
        const uint32_t *eg = l.eg + (size_t)k * l.P;
        for (uint32_t pd = 0; pd < l.P; pd++) {
            uint8_t *out = v.out + eg[pd] * v.out_eg;
            for (uint32_t ps = 0; ps < l.P; ps++)
                in[ps] = v.in + eg[ps] * v.in_eg + (l.rot ? 8 * pd : pd) * vb;
            if (!l.rot)
                reduce_vertical(a, s, in, l.P, lines, out, &transposed);
            else
                reduce_across(a, s, in, vb, l.P, lines, out, false, &transposed);
        }
    }
    c->last_host_us += comm_now_us() - t0;
    free(in);
    free(l.eg);
    /* domain transfer, combine and back, charged by input bytes (none when the
     * operation works on PIM-domain bytes: CM) */
    comm_charge_reduce("comm IM reduce_scatter: reduction in registers",
                       transposed > 0 ? (double)a->bytes * c->nr_nodes : 0);
    return views_close(c, a->dst, blk, &v);
}

openpim_comm_status comm_view_allreduce(const struct comm_args *a, int *done)
{
    /* PR alone: in the host domain, the elements to combine already sit in
     * the same lanes of the staging buffers (what PR arranges for PID-Comm's
     * vertical SIMD reductions): the general path, SIMD on every thread */
    if (!(a->tech & OPENPIM_COMM_IM))
        return OPENPIM_COMM_OK;
    openpim_comm_t *m = a->comm;
    openpim_cube_t *c = m->cube;
    struct layout l;
    if (!aligned(a->src, a->dst, a->bytes) || !make_layout(m, &l))
        return OPENPIM_COMM_OK;
    const uint8_t **in = malloc((size_t)l.P * sizeof *in);
    if (!in) {
        free(l.eg);
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    }
    *done = 1;
    struct views v;
    openpim_comm_status st = views_open(c, a->src, a->bytes, a->bytes, &v);
    if (st != OPENPIM_COMM_OK) {
        free(in);
        free(l.eg);
        return st;
    }
    const struct comm_simd *s = comm_simd();
    size_t lines = a->bytes / 8;
    double transposed = 0;
    double t0 = comm_now_us();
    for (uint32_t k = 0; k < l.nr; k++) {
        const uint32_t *eg = l.eg + (size_t)k * l.P;
        for (uint32_t ps = 0; ps < l.P; ps++)
            in[ps] = v.in + eg[ps] * v.in_eg;
        uint8_t *first = v.out + eg[0] * v.out_eg;
        if (!l.rot)
            reduce_vertical(a, s, in, l.P, lines, first, &transposed);
        else
            reduce_across(a, s, in, 0, l.P, lines, first, true, &transposed);
        for (uint32_t pd = 1; pd < l.P; pd++)
            s->rotate(v.out + eg[pd] * v.out_eg, first, lines, 0);
    }
    c->last_host_us += comm_now_us() - t0;
    free(in);
    free(l.eg);
    /* domain transfer, combine and back, charged by input bytes (none when the
     * operation works on PIM-domain bytes: CM) */
    comm_charge_reduce("comm IM allreduce: reduction in registers",
                       transposed > 0 ? (double)a->bytes * c->nr_nodes : 0);
    return views_close(c, a->dst, a->bytes, &v);
}

/* ---- rooted primitives (the host as root) ------------------------------------------
 * PID-Comm builds them from halves of the others ([PIDComm] §V-C): Scatter is
 * ReduceScatter's last steps (domain transfer in registers, lines streamed to
 * the PEs), Gather AllGather's first step followed by a domain transfer,
 * Reduce ReduceScatter's first steps (lines streamed in, combined in
 * registers), Broadcast one transfer.  The host buffers hold whole elements
 * ([instance][rank][bytes], the host domain), so Scatter, Gather and
 * Broadcast always transpose 8x8 (no arithmetic, but a change of domain: CM
 * has nothing to remove there).  The words of a line's 8 chips are picked
 * from (or put at) their nodes' places in the host buffer as the lines are
 * built, a reordering in registers: no staging copy and no DPU kernel.
 * Reduce combines as ReduceScatter does (bytewise operations in the PIM
 * domain with CM, else whole elements) and only its result, 1/N of the
 * input, goes to host memory. */

/* Every rank full, node n = chip n % 8 of group n / 8: the view covers every
 * node whatever the communicator (Scatter, Gather and Broadcast need no
 * group layout, so no condition on L[0]). */
static bool nodes_on_view(const openpim_cube_t *c)
{
    if (c->nr_nodes != c->nr_ranks * COMM_CHIPS * COMM_GROUPS)
        return false;
    for (uint32_t n = 0; n < c->nr_nodes; n++) {
        const struct comm_place *p = &c->node_place[n];
        if (p->rank != n / (COMM_CHIPS * COMM_GROUPS) || p->chip != n % COMM_CHIPS ||
            p->bank != n / COMM_CHIPS % COMM_GROUPS)
            return false;
    }
    return true;
}

/* Copies len bytes of node n's data from offset o between row and the host
 * places h gives them (to_host: row -> host). */
static void map_copy(const struct comm_hostmap *h, uint32_t n, uint64_t o, uint8_t *row, size_t len, bool to_host)
{
    while (len) {
        uint64_t q = o / h->blk, in = o % h->blk;
        size_t k = h->blk - in < len ? (size_t)(h->blk - in) : len;
        uint8_t *at = h->base + h->node_off[n] + (size_t)(q / h->grp) * h->s1 + (size_t)(q % h->grp) * h->s2 + in;
        if (to_host)
            memcpy(at, row, k);
        else
            memcpy(row, at, k);
        row += k;
        o += k;
        len -= k;
    }
}

static bool map_view_ok(const openpim_cube_t *c, unsigned tech, uint64_t off, uint64_t bytes)
{
    return (tech & OPENPIM_COMM_IM) && aligned(off, bytes, 0) && nodes_on_view(c);
}

openpim_comm_status comm_view_put_map(openpim_cube_t *c, unsigned tech, uint64_t dst, uint64_t bytes,
                                      const struct comm_hostmap *h, bool share, const char *name, int *done)
{
    if (!map_view_ok(c, tech, dst, bytes))
        return OPENPIM_COMM_OK;
    size_t egs = (size_t)c->nr_ranks * COMM_GROUPS, veg = 8 * bytes, lines = bytes / 8;
    uint8_t *v = comm_buffer(c, 1, egs * veg);
    if (!v)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory for the view buffer");
    *done = 1;
    const struct comm_simd *s = comm_simd();
    double transposed = 0, t0 = comm_now_us();
    for (size_t e = 0; e < egs; e++) {
        const size_t *g = h->node_off + e * COMM_CHIPS;
        size_t f = 0;
        while (share && f < e && memcmp(h->node_off + f * COMM_CHIPS, g, COMM_CHIPS * sizeof *g) != 0)
            f++;
        if (share && f < e) {
            memcpy(v + e * veg, v + f * veg, veg);
            continue;
        }
        for (size_t b = 0; b < lines; b += 8) {
            size_t n = lines - b < 8 ? lines - b : 8;
            uint8_t rows[8][64];
            if (n < 8)
                memset(rows, 0, sizeof rows);
            for (unsigned k = 0; k < COMM_CHIPS; k++)
                map_copy(h, (uint32_t)(e * COMM_CHIPS + k), 8 * b, rows[k], 8 * n, false);
            store_rows(s, rows, v + e * veg + 64 * b, n);
        }
        transposed += (double)veg;
    }
    c->last_host_us += comm_now_us() - t0;
    comm_charge_transpose(name, transposed);
    return view_io(c, true, dst, bytes, v);
}

openpim_comm_status comm_view_gather_map(openpim_cube_t *c, unsigned tech, uint64_t src, uint64_t bytes,
                                         const struct comm_hostmap *h, const char *name, int *done)
{
    if (!map_view_ok(c, tech, src, bytes))
        return OPENPIM_COMM_OK;
    size_t egs = (size_t)c->nr_ranks * COMM_GROUPS, veg = 8 * bytes, lines = bytes / 8;
    uint8_t *v = comm_buffer(c, 0, egs * veg);
    if (!v)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory for the view buffer");
    *done = 1;
    openpim_comm_status st = view_io(c, false, src, bytes, v);
    if (st != OPENPIM_COMM_OK)
        return st;
    const struct comm_simd *s = comm_simd();
    double t0 = comm_now_us(), transposed = 0;
    for (size_t e = 0; e < egs; e++) {
        const size_t *g = h->node_off + e * COMM_CHIPS;
        unsigned wanted = 0;
        for (unsigned k = 0; k < COMM_CHIPS; k++)
            wanted += g[k] != COMM_NO_HOST;
        if (!wanted)
            continue; /* no line of this group is transposed */
        for (size_t b = 0; b < lines; b += 8) {
            size_t n = lines - b < 8 ? lines - b : 8;
            uint8_t rows[8][64];
            load_rows(s, v + e * veg + 64 * b, n, rows);
            for (unsigned k = 0; k < COMM_CHIPS; k++)
                if (g[k] != COMM_NO_HOST)
                    map_copy(h, (uint32_t)(e * COMM_CHIPS + k), 8 * b, rows[k], 8 * n, true);
        }
        transposed += (double)veg;
    }
    c->last_host_us += comm_now_us() - t0;
    comm_charge_transpose(name, transposed);
    return OPENPIM_COMM_OK;
}

/* The public layouts: node n's bytes at host + node_off[n], one block. */
static size_t *plain_offsets(const openpim_comm_t *m, uint64_t bytes, bool per_rank)
{
    size_t *off = malloc((size_t)m->cube->nr_nodes * sizeof *off);
    if (!off)
        return NULL;
    for (uint32_t i = 0; i < m->nr_instances; i++)
        for (uint32_t p = 0; p < m->size; p++)
            off[m->node_of[(size_t)i * m->size + p]] = (per_rank ? (size_t)i * m->size + p : i) * (size_t)bytes;
    return off;
}

static openpim_comm_status plain(const struct comm_args *a, void *host, int kind, int *done)
{
    openpim_cube_t *c = a->comm->cube;
    uint64_t off = kind == 2 ? a->src : a->dst;
    if (!map_view_ok(c, a->tech, off, a->bytes))
        return OPENPIM_COMM_OK;
    size_t *node_off = plain_offsets(a->comm, a->bytes, kind != 1);
    if (!node_off)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    struct comm_hostmap h = {host, node_off, a->bytes, 1, 0, 0};
    openpim_comm_status st;
    if (kind == 2)
        st = comm_view_gather_map(c, a->tech, off, a->bytes, &h, "comm IM gather: domain transfer in registers",
                                  done);
    else
        st = comm_view_put_map(c, a->tech, off, a->bytes, &h, kind == 1,
                               kind == 1 ? "comm IM broadcast: domain transfer in registers"
                                         : "comm IM scatter: domain transfer in registers",
                               done);
    free(node_off);
    return st;
}

/* Whether Scatter should take the view path: its view write plus the
 * transposes charged after it against the SDK push the baseline takes
 * (whose copy path transposes within its measured rate), as the model
 * predicts them: each write's modelled cost as last seen on this cube for
 * these bytes per node (transfers are deterministic), the transposes by the
 * cost model.  Until both are known it tries each once, the view first (so
 * what one program gets does not depend on whether it also ran the
 * baseline), then takes the cheaper path (comm/README.md, "Scatter"). */
static bool scatter_view_cheaper(const openpim_cube_t *c, uint64_t bytes)
{
    if (c->seen_view.bytes != bytes)
        return true;
    if (c->seen_push.bytes != bytes)
        return false;
    return c->seen_view.us + comm_transpose_us((double)bytes * c->nr_nodes) < c->seen_push.us;
}

openpim_comm_status comm_view_scatter(const struct comm_args *a, const void *host, int *done)
{
    if (!scatter_view_cheaper(a->comm->cube, a->bytes))
        return OPENPIM_COMM_OK; /* the SDK push */
    return plain(a, (void *)(uintptr_t)host, 0, done); /* only read */
}

openpim_comm_status comm_view_broadcast(const struct comm_args *a, const void *host, int *done)
{
    return plain(a, (void *)(uintptr_t)host, 1, done); /* only read */
}

openpim_comm_status comm_view_gather(const struct comm_args *a, void *host, int *done)
{
    return plain(a, host, 2, done);
}

openpim_comm_status comm_view_reduce(const struct comm_args *a, void *host, int *done)
{
    /* PR alone: the general path with SIMD on every thread, as ReduceScatter */
    if (!(a->tech & OPENPIM_COMM_IM))
        return OPENPIM_COMM_OK;
    openpim_comm_t *m = a->comm;
    openpim_cube_t *c = m->cube;
    struct layout l;
    if (!aligned(a->src, a->bytes, 0) || !make_layout(m, &l))
        return OPENPIM_COMM_OK;
    size_t egs = (size_t)c->nr_ranks * COMM_GROUPS, veg = 8 * a->bytes, lines = a->bytes / 8;
    /* instance of chip j of group-communicator k ([k * 8 + j]; with dimension
     * 0 in the communicator, all 8 chips are one instance, at j = 0) */
    uint32_t *inst = malloc((size_t)l.nr * COMM_CHIPS * sizeof *inst);
    uint32_t *k_of = malloc(egs * sizeof *k_of);
    const uint8_t **in = malloc((size_t)l.P * sizeof *in);
    uint8_t *acc = malloc(veg);
    uint8_t *vin = inst && k_of && in && acc ? comm_buffer(c, 0, egs * veg) : NULL;
    openpim_comm_status st = OPENPIM_COMM_OK;
    if (!vin) {
        st = comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory for the view buffer");
        goto out;
    }
    *done = 1;
    for (uint32_t k = 0; k < l.nr; k++)
        k_of[l.eg[(size_t)k * l.P]] = k;
    for (uint32_t i = 0; i < m->nr_instances; i++) {
        uint32_t n0 = m->node_of[(size_t)i * m->size]; /* rank 0: position 0 of its group-communicator */
        inst[(size_t)k_of[n0 / COMM_CHIPS] * COMM_CHIPS + n0 % COMM_CHIPS] = i;
    }
    st = view_io(c, false, a->src, a->bytes, vin);
    if (st != OPENPIM_COMM_OK)
        goto out;
    const struct comm_simd *s = comm_simd();
    double transposed = 0, t0 = comm_now_us();
    for (uint32_t k = 0; k < l.nr; k++) {
        const uint32_t *eg = l.eg + (size_t)k * l.P;
        for (uint32_t ps = 0; ps < l.P; ps++)
            in[ps] = vin + eg[ps] * veg;
        if (!l.rot)
            reduce_vertical(a, s, in, l.P, lines, acc, &transposed);
        else
            reduce_across(a, s, in, 0, l.P, lines, acc, true, &transposed);
        /* to the host domain; with dimension 0 every chip holds the whole result */
        for (size_t b = 0; b < lines; b += 8) {
            size_t n = lines - b < 8 ? lines - b : 8;
            uint8_t rows[8][64];
            load_rows(s, acc + 64 * b, n, rows);
            for (unsigned j = 0; j < (l.rot ? 1u : COMM_CHIPS); j++)
                memcpy((uint8_t *)host + (size_t)inst[(size_t)k * COMM_CHIPS + j] * a->bytes + 8 * b, rows[j], 8 * n);
        }
    }
    c->last_host_us += comm_now_us() - t0;
    double out_bytes = (double)a->bytes * m->nr_instances;
    if (transposed > 0) /* domain transfer and combine, by input bytes, as ReduceScatter */
        comm_charge_reduce("comm IM reduce: reduction in registers", (double)a->bytes * c->nr_nodes);
    else /* CM: combined in the PIM domain; only the result changes domain */
        comm_charge_transpose("comm CM reduce: result to the host domain", out_bytes);
    comm_charge_pass("comm IM reduce: result into host memory", false, 0, out_bytes, 0);
out:
    free(inst);
    free(k_of);
    free(in);
    free(acc);
    free(l.eg);
    return st;
}
