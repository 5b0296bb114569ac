/* SPDX-License-Identifier: MIT */
/* The public collectives: argument checks (a refused call touches nothing),
 * then the implementation the cube is set to.  The rooted primitives: the
 * baseline pushes straight from or into the host's buffers (already in
 * per-node order; staged only when the region is not 8-byte aligned); with
 * IM they stream through the physical view (optimised.c), else the same
 * pushes.  A Broadcast to one instance is the SDK's broadcast in both. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static openpim_comm_status check_comm(const openpim_comm_t *m, const char *fn)
{
    comm_clear_error();
    if (!m)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "%s: NULL communicator", fn);
    return OPENPIM_COMM_OK;
}

static openpim_comm_status check_multiple(uint64_t bytes, uint64_t unit, const char *what)
{
    if (bytes % unit)
        return comm_fail(OPENPIM_COMM_ERR_SIZE, "%llu bytes is not a multiple of %s (%llu)",
                         (unsigned long long)bytes, what, (unsigned long long)unit);
    return OPENPIM_COMM_OK;
}

/* Source and destination checks shared by the four DPU-to-DPU primitives. */
static openpim_comm_status check_regions(const openpim_comm_t *m, uint64_t src, uint64_t in_len, uint64_t dst,
                                         uint64_t out_len)
{
    openpim_comm_status st = comm_check_region(m->cube, src, in_len, "source");
    if (st == OPENPIM_COMM_OK)
        st = comm_check_region(m->cube, dst, out_len, "destination");
    if (st == OPENPIM_COMM_OK)
        st = comm_check_overlap(src, in_len, dst, out_len);
    return st;
}

static struct comm_args args(openpim_comm_t *m, uint64_t src, uint64_t dst, uint64_t bytes, openpim_comm_type type,
                             openpim_comm_op op)
{
    struct comm_args a = {m, src, dst, bytes, type, op, comm_simd(), m->cube->tech};
    if (a.tech == 0)
        a.simd = comm_simd_scalar();
    return a;
}

typedef openpim_comm_status (*view_fn)(const struct comm_args *, int *);
typedef openpim_comm_status (*base_fn)(const struct comm_args *);

static openpim_comm_status run_path(const struct comm_args *a, view_fn view, base_fn base)
{
    openpim_cube_t *c = a->comm->cube;
    if (a->tech != 0) {
        int done = 0;
        openpim_comm_status st = view(a, &done);
        if (done || st != OPENPIM_COMM_OK) {
            c->last_view = done;
            return st;
        }
    }
    return base(a);
}

static openpim_comm_status run(const struct comm_args *a, view_fn view, base_fn base, openpim_comm_prim prim)
{
    openpim_cube_t *c = a->comm->cube;
    c->last_view = 0;
    c->last_host_us = 0;
    if (a->bytes == 0)
        return OPENPIM_COMM_OK;
    if (a->comm->size == 1 && a->src == a->dst)
        return OPENPIM_COMM_OK; /* one node per instance, in place: every primitive leaves the data as it is */
    if (c->transport == OPENPIM_COMM_INTERCONNECT)
        return comm_interconnect_run(a, base, prim);
    return run_path(a, view, base);
}

openpim_comm_status openpim_alltoall(openpim_comm_t *m, uint64_t src, uint64_t dst, uint64_t bytes)
{
    openpim_comm_status st = check_comm(m, "openpim_alltoall");
    if (st == OPENPIM_COMM_OK)
        st = check_multiple(bytes, m->size, "the communicator size");
    if (st == OPENPIM_COMM_OK)
        st = check_regions(m, src, bytes, dst, bytes);
    if (st != OPENPIM_COMM_OK)
        return st;
    struct comm_args a = args(m, src, dst, bytes, OPENPIM_UINT8, OPENPIM_SUM);
    return run(&a, comm_view_alltoall, comm_base_alltoall, OPENPIM_PRIM_ALLTOALL);
}

openpim_comm_status openpim_reduce_scatter(openpim_comm_t *m, uint64_t src, uint64_t dst, uint64_t bytes,
                                           openpim_comm_type type, openpim_comm_op op)
{
    openpim_comm_status st = check_comm(m, "openpim_reduce_scatter");
    if (st == OPENPIM_COMM_OK)
        st = comm_check_type_op(type, op);
    if (st == OPENPIM_COMM_OK)
        st = check_multiple(bytes, (uint64_t)m->size * openpim_comm_type_size(type),
                            "the communicator size times the element size");
    if (st == OPENPIM_COMM_OK)
        st = check_regions(m, src, bytes, dst, bytes / m->size);
    if (st != OPENPIM_COMM_OK)
        return st;
    struct comm_args a = args(m, src, dst, bytes, type, op);
    return run(&a, comm_view_reduce_scatter, comm_base_reduce_scatter, OPENPIM_PRIM_REDUCE_SCATTER);
}

openpim_comm_status openpim_allgather(openpim_comm_t *m, uint64_t src, uint64_t dst, uint64_t bytes)
{
    openpim_comm_status st = check_comm(m, "openpim_allgather");
    if (st == OPENPIM_COMM_OK && bytes > m->cube->mram_bytes)
        st = comm_check_region(m->cube, dst, bytes, "destination");
    if (st == OPENPIM_COMM_OK)
        st = check_regions(m, src, bytes, dst, bytes * m->size);
    if (st != OPENPIM_COMM_OK)
        return st;
    struct comm_args a = args(m, src, dst, bytes, OPENPIM_UINT8, OPENPIM_SUM);
    return run(&a, comm_view_allgather, comm_base_allgather, OPENPIM_PRIM_ALLGATHER);
}

openpim_comm_status openpim_allreduce(openpim_comm_t *m, uint64_t src, uint64_t dst, uint64_t bytes,
                                      openpim_comm_type type, openpim_comm_op op)
{
    openpim_comm_status st = check_comm(m, "openpim_allreduce");
    if (st == OPENPIM_COMM_OK)
        st = comm_check_type_op(type, op);
    if (st == OPENPIM_COMM_OK)
        st = check_multiple(bytes, openpim_comm_type_size(type), "the element size");
    if (st == OPENPIM_COMM_OK)
        st = check_regions(m, src, bytes, dst, bytes);
    if (st != OPENPIM_COMM_OK)
        return st;
    struct comm_args a = args(m, src, dst, bytes, type, op);
    return run(&a, comm_view_allreduce, comm_base_allreduce, OPENPIM_PRIM_ALLREDUCE);
}

/* ---- rooted: host-routed with either transport --------------------------------- */

typedef openpim_comm_status (*rooted_view_fn)(const struct comm_args *, void *, int *);

/* The view path of a rooted primitive when the techniques allow it; *done
 * tells whether it ran (else the caller runs the pushes). */
static openpim_comm_status try_view(const struct comm_args *a, rooted_view_fn view, void *host, int *done)
{
    *done = 0;
    if (a->tech == 0)
        return OPENPIM_COMM_OK;
    openpim_comm_status st = view(a, host, done);
    a->comm->cube->last_view = *done;
    if (st != OPENPIM_COMM_OK)
        *done = 1;
    return st;
}

static openpim_comm_status view_broadcast(const struct comm_args *a, void *host, int *done)
{
    return comm_view_broadcast(a, host, done);
}

static openpim_comm_status view_scatter(const struct comm_args *a, void *host, int *done)
{
    return comm_view_scatter(a, host, done);
}

/* Pushes host bytes to dst of every node: node's data at host + offset_of(node). */
static openpim_comm_status push_from_host(openpim_comm_t *m, uint64_t dst, const uint8_t *host, uint64_t bytes,
                                          bool per_rank)
{
    openpim_cube_t *c = m->cube;
    uint8_t **ptrs = malloc((size_t)c->nr_nodes * sizeof *ptrs);
    if (!ptrs)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    for (uint32_t i = 0; i < m->nr_instances; i++)
        for (uint32_t p = 0; p < m->size; p++) {
            size_t k = per_rank ? (size_t)i * m->size + p : i;
            /* the push only reads host memory in this direction */
            ptrs[m->node_of[(size_t)i * m->size + p]] = (uint8_t *)(uintptr_t)(host + k * bytes);
        }
    openpim_comm_status st;
    if (dst % 8 == 0 && bytes % 8 == 0) {
        st = comm_push(c, DPU_XFER_TO_DPU, dst, bytes, ptrs);
    } else {
        size_t stride = comm_span(dst, bytes);
        uint8_t *stage = malloc(stride * c->nr_nodes);
        if (!stage) {
            free(ptrs);
            return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
        }
        for (uint32_t n = 0; n < c->nr_nodes; n++)
            memcpy(stage + n * stride + (dst & 7), ptrs[n], bytes);
        comm_charge_pass("comm: staging an unaligned region", c->tech == 0, (double)bytes * c->nr_nodes,
                             (double)bytes * c->nr_nodes, 0);
        st = comm_write_nodes(c, dst, bytes, stage, stride);
        free(stage);
    }
    free(ptrs);
    return st;
}

static openpim_comm_status check_rooted(const openpim_comm_t *m, const void *host, uint64_t off, uint64_t bytes,
                                        const char *fn, const char *what)
{
    openpim_comm_status st = check_comm(m, fn);
    if (st == OPENPIM_COMM_OK && !host)
        st = comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "%s: NULL host buffer", fn);
    if (st == OPENPIM_COMM_OK)
        st = comm_check_region(m->cube, off, bytes, what);
    return st;
}

openpim_comm_status openpim_broadcast(openpim_comm_t *m, uint64_t dst, const void *host, uint64_t bytes)
{
    openpim_comm_status st = check_rooted(m, host, dst, bytes, "openpim_broadcast", "destination");
    if (st != OPENPIM_COMM_OK || bytes == 0)
        return st;
    m->cube->last_view = 0;
    m->cube->last_host_us = 0;
    if (m->nr_instances == 1 && dst % 8 == 0 && bytes % 8 == 0) {
        struct dpu_symbol_t mram = {MRAM_TAG, (uint32_t)m->cube->mram_bytes};
        dpu_error_t rc = dpu_broadcast_to_symbol(m->cube->set, mram, (uint32_t)dst, host, (size_t)bytes,
                                                 DPU_XFER_DEFAULT);
        return rc == DPU_OK ? OPENPIM_COMM_OK : comm_dpu_fail(rc, "dpu_broadcast_to");
    }
    struct comm_args a = args(m, dst, dst, bytes, OPENPIM_UINT8, OPENPIM_SUM);
    int done;
    st = try_view(&a, view_broadcast, (void *)(uintptr_t)host, &done); /* reads host only */
    if (done)
        return st;
    return push_from_host(m, dst, host, bytes, false);
}

openpim_comm_status openpim_scatter(openpim_comm_t *m, uint64_t dst, const void *host, uint64_t bytes)
{
    openpim_comm_status st = check_rooted(m, host, dst, bytes, "openpim_scatter", "destination");
    if (st != OPENPIM_COMM_OK || bytes == 0)
        return st;
    m->cube->last_view = 0;
    m->cube->last_host_us = 0;
    struct comm_args a = args(m, dst, dst, bytes, OPENPIM_UINT8, OPENPIM_SUM);
    int done;
    st = try_view(&a, view_scatter, (void *)(uintptr_t)host, &done); /* reads host only */
    if (done)
        return st;
    return push_from_host(m, dst, host, bytes, true);
}

openpim_comm_status openpim_gather(openpim_comm_t *m, uint64_t src, void *host, uint64_t bytes)
{
    openpim_comm_status st = check_rooted(m, host, src, bytes, "openpim_gather", "source");
    if (st != OPENPIM_COMM_OK || bytes == 0)
        return st;
    openpim_cube_t *c = m->cube;
    c->last_view = 0;
    m->cube->last_host_us = 0;
    struct comm_args a = args(m, src, src, bytes, OPENPIM_UINT8, OPENPIM_SUM);
    int done;
    st = try_view(&a, comm_view_gather, host, &done);
    if (done)
        return st;
    uint8_t **ptrs = malloc((size_t)c->nr_nodes * sizeof *ptrs);
    if (!ptrs)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    for (uint32_t i = 0; i < m->nr_instances; i++)
        for (uint32_t p = 0; p < m->size; p++)
            ptrs[m->node_of[(size_t)i * m->size + p]] = (uint8_t *)host + ((size_t)i * m->size + p) * bytes;
    if (src % 8 == 0 && bytes % 8 == 0) {
        st = comm_push(c, DPU_XFER_FROM_DPU, src, bytes, ptrs);
    } else {
        size_t stride = comm_span(src, bytes);
        uint8_t *stage = malloc(stride * c->nr_nodes);
        if (!stage) {
            free(ptrs);
            return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
        }
        st = comm_read_nodes(c, src, bytes, stage, stride);
        if (st == OPENPIM_COMM_OK) {
            for (uint32_t n = 0; n < c->nr_nodes; n++)
                memcpy(ptrs[n], stage + n * stride + (src & 7), bytes);
            comm_charge_pass("comm: staging an unaligned region", c->tech == 0, (double)bytes * c->nr_nodes,
                             (double)bytes * c->nr_nodes, 0);
        }
        free(stage);
    }
    free(ptrs);
    return st;
}

openpim_comm_status openpim_reduce(openpim_comm_t *m, uint64_t src, void *host, uint64_t bytes,
                                   openpim_comm_type type, openpim_comm_op op)
{
    openpim_comm_status st = check_rooted(m, host, src, bytes, "openpim_reduce", "source");
    if (st == OPENPIM_COMM_OK)
        st = comm_check_type_op(type, op);
    if (st == OPENPIM_COMM_OK)
        st = check_multiple(bytes, openpim_comm_type_size(type), "the element size");
    if (st != OPENPIM_COMM_OK || bytes == 0)
        return st;
    m->cube->last_view = 0;
    m->cube->last_host_us = 0;
    struct comm_args a = args(m, src, src, bytes, type, op);
    int done;
    st = try_view(&a, comm_view_reduce, host, &done);
    if (done)
        return st;
    return comm_base_reduce(&a, host);
}
