/* SPDX-License-Identifier: MIT */
/* MRAM regions of every node: bounds and overlap checks, and parallel pushes
 * of whole 8-byte words (what the SDK moves) around regions of any alignment. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

openpim_comm_status comm_check_region(const openpim_cube_t *c, uint64_t off, uint64_t len, const char *what)
{
    if (off > c->mram_bytes || len > c->mram_bytes - off)
        return comm_fail(OPENPIM_COMM_ERR_RANGE,
                         "%s [%llu, +%llu) runs past the end of MRAM (%llu bytes)", what, (unsigned long long)off,
                         (unsigned long long)len, (unsigned long long)c->mram_bytes);
    return OPENPIM_COMM_OK;
}

openpim_comm_status comm_check_overlap(uint64_t src, uint64_t src_len, uint64_t dst, uint64_t dst_len)
{
    if (src == dst)
        return OPENPIM_COMM_OK; /* in place */
    if (src < dst + dst_len && dst < src + src_len)
        return comm_fail(OPENPIM_COMM_ERR_OVERLAP,
                         "source [%llu, +%llu) and destination [%llu, +%llu) overlap without being in place "
                         "(in place: equal offsets)",
                         (unsigned long long)src, (unsigned long long)src_len, (unsigned long long)dst,
                         (unsigned long long)dst_len);
    return OPENPIM_COMM_OK;
}

size_t comm_span(uint64_t off, uint64_t len)
{
    uint64_t a = off & ~(uint64_t)7, b = (off + len + 7) & ~(uint64_t)7;
    return (size_t)(b - a);
}

openpim_comm_status comm_push(openpim_cube_t *c, dpu_xfer_t dir, uint64_t off, uint64_t len, uint8_t *const *ptrs)
{
    if (len == 0)
        return OPENPIM_COMM_OK;
    for (uint32_t n = 0; n < c->nr_nodes; n++) {
        dpu_error_t rc = dpu_prepare_xfer(c->node_dpu[n], ptrs[n]);
        if (rc != DPU_OK)
            return comm_dpu_fail(rc, "dpu_prepare_xfer");
    }
    struct dpu_symbol_t mram = {MRAM_TAG, (uint32_t)c->mram_bytes};
    double t0 = comm_seen_start();
    dpu_error_t rc = dpu_push_xfer_symbol(c->set, dir, mram, (uint32_t)off, (size_t)len, DPU_XFER_DEFAULT);
    if (rc != DPU_OK)
        return comm_dpu_fail(rc, dir == DPU_XFER_TO_DPU ? "dpu_push_xfer to the DPUs" : "dpu_push_xfer from the DPUs");
    comm_seen_end(&c->seen_push, dir == DPU_XFER_TO_DPU, len, t0);
    return OPENPIM_COMM_OK;
}

double comm_seen_start(void)
{
    return openpim_modelled_time_us();
}

void comm_seen_end(struct comm_seen *seen, bool write, uint64_t bytes, double t0)
{
    if (write) {
        seen->bytes = bytes;
        seen->us = openpim_modelled_time_us() - t0;
    }
}

/* ptrs[n] = base + n * stride */
static uint8_t **node_ptrs(openpim_cube_t *c, uint8_t *base, size_t stride)
{
    uint8_t **p = malloc((size_t)c->nr_nodes * sizeof *p);
    if (p)
        for (uint32_t n = 0; n < c->nr_nodes; n++)
            p[n] = base + (size_t)n * stride;
    return p;
}

openpim_comm_status comm_read_nodes(openpim_cube_t *c, uint64_t off, uint64_t len, uint8_t *buf, size_t stride)
{
    if (len == 0)
        return OPENPIM_COMM_OK;
    uint8_t **p = node_ptrs(c, buf, stride);
    if (!p)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    openpim_comm_status st = comm_push(c, DPU_XFER_FROM_DPU, off & ~(uint64_t)7, comm_span(off, len), p);
    free(p);
    return st;
}

openpim_comm_status comm_write_nodes(openpim_cube_t *c, uint64_t off, uint64_t len, uint8_t *buf, size_t stride)
{
    if (len == 0)
        return OPENPIM_COMM_OK;
    uint64_t a = off & ~(uint64_t)7;
    size_t span = comm_span(off, len);
    unsigned head = (unsigned)(off & 7), tail = (unsigned)((off + len) & 7);
    openpim_comm_status st = OPENPIM_COMM_OK;
    if (head || tail) {
        /* keep the bytes of the first and last words that lie outside the region */
        uint8_t *words = malloc((size_t)c->nr_nodes * 16);
        uint8_t **p = words ? node_ptrs(c, words, 16) : NULL;
        if (!p) {
            free(words);
            return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
        }
        if (head)
            st = comm_push(c, DPU_XFER_FROM_DPU, a, 8, p);
        if (st == OPENPIM_COMM_OK && tail) {
            for (uint32_t n = 0; n < c->nr_nodes; n++)
                p[n] += 8;
            st = comm_push(c, DPU_XFER_FROM_DPU, a + span - 8, 8, p);
        }
        if (st == OPENPIM_COMM_OK)
            for (uint32_t n = 0; n < c->nr_nodes; n++) {
                uint8_t *b = buf + (size_t)n * stride;
                if (head)
                    memcpy(b, words + 16 * (size_t)n, head);
                if (tail)
                    memcpy(b + span - 8 + tail, words + 16 * (size_t)n + 8 + tail, 8 - tail);
            }
        free(p);
        free(words);
        if (st != OPENPIM_COMM_OK)
            return st;
    }
    uint8_t **p = node_ptrs(c, buf, stride);
    if (!p)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    st = comm_push(c, DPU_XFER_TO_DPU, a, span, p);
    free(p);
    return st;
}
