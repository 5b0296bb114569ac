/* SPDX-License-Identifier: MIT */
/* Gather from chosen nodes, each at its own MRAM offset
 * (openpim_gather_nodes): the nodes that share an offset are read together,
 * by one transfer per offset: on the physical view with IM (as Gather: full
 * ranks, offset and size multiples of 8; only the groups holding a chosen
 * node are transposed), else one SDK push from the chosen DPUs, into the
 * caller's buffer directly or through a staging buffer when unaligned. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static openpim_comm_status check(const openpim_cube_t *c, uint32_t nr, const uint32_t *nodes, const uint64_t *src,
                                 const void *host, uint64_t bytes)
{
    comm_clear_error();
    if (!c)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_gather_nodes: NULL cube");
    if (nr == 0)
        return OPENPIM_COMM_OK;
    if (!src || !host)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_gather_nodes: NULL %s", src ? "host buffer" : "offsets");
    if (!nodes && nr > c->nr_nodes)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_gather_nodes: %u nodes, the cube has %u", nr,
                         c->nr_nodes);
    if (bytes && nr > SIZE_MAX / bytes)
        return comm_fail(OPENPIM_COMM_ERR_SIZE, "openpim_gather_nodes: %u x %llu bytes do not fit in host memory", nr,
                         (unsigned long long)bytes);
    openpim_comm_status st = OPENPIM_COMM_OK;
    if (nodes) {
        uint8_t *seen = calloc(c->nr_nodes, 1);
        if (!seen)
            return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
        for (uint32_t k = 0; k < nr && st == OPENPIM_COMM_OK; k++) {
            if (nodes[k] >= c->nr_nodes)
                st = comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_gather_nodes: node %u (entry %u): the cube has %u",
                               nodes[k], k, c->nr_nodes);
            else if (seen[nodes[k]]++)
                st = comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_gather_nodes: node %u listed twice (entry %u)",
                               nodes[k], k);
        }
        free(seen);
    }
    for (uint32_t k = 0; k < nr && st == OPENPIM_COMM_OK; k++)
        st = comm_check_region(c, src[k], bytes, "source");
    return st;
}

struct pick {
    uint64_t off;
    uint32_t k; /* entry of the caller's lists */
};

static int by_offset(const void *a, const void *b)
{
    const struct pick *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

/* One SDK push of `bytes` at `off` from the nodes node[0..n-1] into
 * host + at[k] * bytes (staged when the region is not 8-byte aligned). */
static openpim_comm_status push_group(openpim_cube_t *c, uint64_t off, uint64_t bytes, const uint32_t *node,
                                      const uint32_t *at, uint32_t n, uint8_t *host)
{
    bool aligned = off % 8 == 0 && bytes % 8 == 0;
    size_t span = comm_span(off, bytes);
    uint8_t *stage = aligned ? NULL : malloc((size_t)n * span);
    if (!aligned && !stage)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    dpu_error_t rc = dpu_prepare_xfer(c->set, NULL); /* only the chosen DPUs take part */
    for (uint32_t k = 0; k < n && rc == DPU_OK; k++)
        rc = dpu_prepare_xfer(c->node_dpu[node[k]], aligned ? host + (size_t)at[k] * bytes : stage + (size_t)k * span);
    if (rc == DPU_OK) {
        struct dpu_symbol_t mram = {MRAM_TAG, (uint32_t)c->mram_bytes};
        rc = dpu_push_xfer_symbol(c->set, DPU_XFER_FROM_DPU, mram, (uint32_t)(off & ~(uint64_t)7), span,
                                  DPU_XFER_DEFAULT);
    }
    if (rc != DPU_OK) {
        free(stage);
        return comm_dpu_fail(rc, "dpu_push_xfer from the chosen DPUs");
    }
    if (!aligned) {
        for (uint32_t k = 0; k < n; k++)
            memcpy(host + (size_t)at[k] * bytes, stage + (size_t)k * span + (off & 7), bytes);
        comm_charge_pass("comm: staging an unaligned region", c->tech == 0, (double)bytes * n, (double)bytes * n, 0);
        free(stage);
    }
    return OPENPIM_COMM_OK;
}

openpim_comm_status openpim_gather_nodes(openpim_cube_t *c, uint32_t nr, const uint32_t *nodes, const uint64_t *src,
                                         void *host, uint64_t bytes)
{
    openpim_comm_status st = check(c, nr, nodes, src, host, bytes);
    if (st != OPENPIM_COMM_OK || nr == 0 || bytes == 0)
        return st;
    c->last_view = 0;
    c->last_host_us = 0;
    struct pick *order = malloc((size_t)nr * sizeof *order);
    uint32_t *node = malloc((size_t)nr * sizeof *node), *at = malloc((size_t)nr * sizeof *at);
    size_t *node_off = malloc((size_t)c->nr_nodes * sizeof *node_off);
    if (!order || !node || !at || !node_off) {
        free(order), free(node), free(at), free(node_off);
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    }
    for (uint32_t k = 0; k < nr; k++)
        order[k] = (struct pick){src[k], k};
    qsort(order, nr, sizeof *order, by_offset);
    for (uint32_t g = 0, e; g < nr && st == OPENPIM_COMM_OK; g = e) {
        uint64_t off = order[g].off;
        for (e = g; e < nr && order[e].off == off; e++) {
            node[e - g] = nodes ? nodes[order[e].k] : order[e].k;
            at[e - g] = order[e].k;
        }
        int done = 0;
        if (c->tech & OPENPIM_COMM_IM) {
            for (uint32_t n = 0; n < c->nr_nodes; n++)
                node_off[n] = COMM_NO_HOST;
            for (uint32_t k = 0; k < e - g; k++)
                node_off[node[k]] = (size_t)at[k] * bytes;
            struct comm_hostmap h = {host, node_off, bytes, 1, 0, 0};
            st = comm_view_gather_map(c, c->tech, off, bytes, &h, "comm IM gather_nodes: domain transfer in registers",
                                      &done);
            c->last_view |= done;
        }
        if (st == OPENPIM_COMM_OK && !done)
            st = push_group(c, off, bytes, node, at, e - g, host);
    }
    free(order), free(node), free(at), free(node_off);
    return st;
}
