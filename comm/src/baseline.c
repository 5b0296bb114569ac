/* SPDX-License-Identifier: MIT */
/* The host-mediated algorithm (what SimplePIM does): one parallel push of
 * every node's source into a host buffer, the host reorders or reduces into a
 * second host buffer, one push back.  It is the baseline implementation (with
 * portable-C reductions) and the optimised implementation's general path
 * (with its SIMD reductions) for the cases the physical view does not cover. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct bufs {
    uint8_t *in, *out;
    size_t in_stride, out_stride;
    unsigned in_shift, out_shift; /* offset % 8: where a node's bytes start in its stride */
};

/* The buffers belong to the cube (comm_buffer): nothing to free. */
static void free_bufs(struct bufs *b)
{
    b->in = b->out = NULL;
}

/* Reads in_len bytes at src of every node; makes room for out_len at dst. */
static openpim_comm_status load(const struct comm_args *a, uint64_t in_len, uint64_t out_len, struct bufs *b)
{
    openpim_cube_t *c = a->comm->cube;
    memset(b, 0, sizeof *b);
    b->in_stride = comm_span(a->src, in_len);
    b->out_stride = comm_span(a->dst, out_len);
    b->in_shift = (unsigned)(a->src & 7);
    b->out_shift = (unsigned)(a->dst & 7);
    b->in = comm_buffer(c, 0, b->in_stride * c->nr_nodes);
    b->out = out_len ? comm_buffer(c, 1, b->out_stride * c->nr_nodes) : NULL;
    if (!b->in || (out_len && !b->out)) {
        free_bufs(b);
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory for %zu + %zu bytes per DPU", b->in_stride,
                         b->out_stride);
    }
    openpim_comm_status st = comm_read_nodes(c, a->src, in_len, b->in, b->in_stride);
    if (st != OPENPIM_COMM_OK)
        free_bufs(b);
    return st;
}

static inline uint8_t *in_of(const struct bufs *b, uint32_t node)
{
    return b->in + (size_t)node * b->in_stride + b->in_shift;
}

static inline uint8_t *out_of(const struct bufs *b, uint32_t node)
{
    return b->out + (size_t)node * b->out_stride + b->out_shift;
}

static openpim_comm_status store(const struct comm_args *a, uint64_t out_len, struct bufs *b)
{
    openpim_comm_status st = comm_write_nodes(a->comm->cube, a->dst, out_len, b->out, b->out_stride);
    free_bufs(b);
    return st;
}

static const char *label(const struct comm_args *a, const char *base, const char *general)
{
    return a->tech == 0 ? base : general;
}

/* Charges the host pass between the pushes: rd bytes read and wr written in
 * host DRAM, and (baseline only: SimplePIM's scalar combine loop; the
 * general path's SIMD loop keeps up with memory) `reduced` bytes of input
 * combined by scalar code. */
static void charge(const struct comm_args *a, const char *name, double rd, double wr, double reduced)
{
    comm_charge_pass(name, a->tech == 0, rd, wr, a->tech == 0 ? reduced : 0);
}

openpim_comm_status comm_base_alltoall(const struct comm_args *a)
{
    const openpim_comm_t *m = a->comm;
    uint64_t c = a->bytes / m->size;
    struct bufs b;
    openpim_comm_status st = load(a, a->bytes, a->bytes, &b);
    if (st != OPENPIM_COMM_OK)
        return st;
    double t0 = comm_now_us();
    for (uint32_t i = 0; i < m->nr_instances; i++) {
        const uint32_t *node = m->node_of + (size_t)i * m->size;
        for (uint32_t p = 0; p < m->size; p++)
            for (uint32_t q = 0; q < m->size; q++)
                memcpy(out_of(&b, node[p]) + q * c, in_of(&b, node[q]) + p * c, c);
    }
    m->cube->last_host_us += comm_now_us() - t0;
    double all = (double)a->bytes * m->cube->nr_nodes;
    /* consecutive pieces are read from different nodes: at least one node's
     * stride apart */
    comm_charge_reorder(label(a, "comm baseline alltoall: host reorder", "comm general alltoall: host reorder"),
                        a->tech == 0, all, all, (double)m->nr_instances * m->size * m->size, (double)b.in_stride);
    return store(a, a->bytes, &b);
}

openpim_comm_status comm_base_reduce_scatter(const struct comm_args *a)
{
    const openpim_comm_t *m = a->comm;
    uint64_t c = a->bytes / m->size;
    size_t count = c / openpim_comm_type_size(a->type);
    struct bufs b;
    openpim_comm_status st = load(a, a->bytes, c, &b);
    if (st != OPENPIM_COMM_OK)
        return st;
    double t0 = comm_now_us();
    for (uint32_t i = 0; i < m->nr_instances; i++) {
        const uint32_t *node = m->node_of + (size_t)i * m->size;
        for (uint32_t p = 0; p < m->size; p++) {
            uint8_t *acc = out_of(&b, node[p]);
            memcpy(acc, in_of(&b, node[0]) + p * c, c);
            for (uint32_t q = 1; q < m->size; q++)
                a->simd->reduce(a->type, a->op, acc, in_of(&b, node[q]) + p * c, count);
        }
    }
    m->cube->last_host_us += comm_now_us() - t0;
    const char *name = label(a, "comm baseline reduce_scatter: host reduce", "comm general reduce_scatter: host reduce");
    double nodes = m->cube->nr_nodes;
    charge(a, name, (double)a->bytes * nodes, (double)c * nodes, (double)a->bytes * nodes);
    return store(a, c, &b);
}

openpim_comm_status comm_base_allgather(const struct comm_args *a)
{
    const openpim_comm_t *m = a->comm;
    uint64_t out_len = a->bytes * m->size;
    struct bufs b;
    openpim_comm_status st = load(a, a->bytes, out_len, &b);
    if (st != OPENPIM_COMM_OK)
        return st;
    double t0 = comm_now_us();
    for (uint32_t i = 0; i < m->nr_instances; i++) {
        const uint32_t *node = m->node_of + (size_t)i * m->size;
        for (uint32_t p = 0; p < m->size; p++)
            for (uint32_t q = 0; q < m->size; q++)
                memcpy(out_of(&b, node[p]) + q * a->bytes, in_of(&b, node[q]), a->bytes);
    }
    m->cube->last_host_us += comm_now_us() - t0;
    charge(a, label(a, "comm baseline allgather: host fan-out", "comm general allgather: host fan-out"),
           (double)a->bytes * m->cube->nr_nodes, (double)out_len * m->cube->nr_nodes, 0);
    return store(a, out_len, &b);
}

openpim_comm_status comm_base_allreduce(const struct comm_args *a)
{
    const openpim_comm_t *m = a->comm;
    size_t count = a->bytes / openpim_comm_type_size(a->type);
    struct bufs b;
    openpim_comm_status st = load(a, a->bytes, a->bytes, &b);
    if (st != OPENPIM_COMM_OK)
        return st;
    double t0 = comm_now_us();
    for (uint32_t i = 0; i < m->nr_instances; i++) {
        const uint32_t *node = m->node_of + (size_t)i * m->size;
        uint8_t *acc = out_of(&b, node[0]);
        memcpy(acc, in_of(&b, node[0]), a->bytes);
        for (uint32_t q = 1; q < m->size; q++)
            a->simd->reduce(a->type, a->op, acc, in_of(&b, node[q]), count);
        for (uint32_t p = 1; p < m->size; p++)
            memcpy(out_of(&b, node[p]), acc, a->bytes);
    }
    m->cube->last_host_us += comm_now_us() - t0;
    const char *name = label(a, "comm baseline allreduce: host reduce", "comm general allreduce: host reduce");
    double nodes = m->cube->nr_nodes;
    charge(a, name, (double)a->bytes * nodes, (double)a->bytes * nodes, (double)a->bytes * nodes);
    return store(a, a->bytes, &b);
}

openpim_comm_status comm_base_reduce(const struct comm_args *a, void *host)
{
    const openpim_comm_t *m = a->comm;
    size_t count = a->bytes / openpim_comm_type_size(a->type);
    struct bufs b;
    openpim_comm_status st = load(a, a->bytes, 0, &b);
    if (st != OPENPIM_COMM_OK)
        return st;
    double t0 = comm_now_us();
    for (uint32_t i = 0; i < m->nr_instances; i++) {
        const uint32_t *node = m->node_of + (size_t)i * m->size;
        uint8_t *acc = (uint8_t *)host + (size_t)i * a->bytes;
        memcpy(acc, in_of(&b, node[0]), a->bytes);
        for (uint32_t q = 1; q < m->size; q++)
            a->simd->reduce(a->type, a->op, acc, in_of(&b, node[q]), count);
    }
    m->cube->last_host_us += comm_now_us() - t0;
    const char *name = label(a, "comm baseline reduce: host reduce", "comm general reduce: host reduce");
    double nodes = m->cube->nr_nodes;
    charge(a, name, (double)a->bytes * nodes, (double)a->bytes * m->nr_instances, (double)a->bytes * nodes);
    free_bufs(&b);
    return OPENPIM_COMM_OK;
}
