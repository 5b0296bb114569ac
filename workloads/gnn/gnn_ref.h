/* SPDX-License-Identifier: MIT */
/* CPU reference of the GNN (graph convolution) inference: for each layer l,
 *     H(l+1) = ReLU(A . H(l) . W(l))
 * with A the adjacency (with self-loops) in CSR, all arithmetic modulo
 * 2^(8 elem_bytes) on two's-complement elements (sums in uint32, then
 * truncated; ReLU on the signed value).  Written independently of the PIM
 * version: whole matrices, no tiles, no blocked layouts. */
#ifndef OPENPIM_GNN_REF_H
#define OPENPIM_GNN_REF_H

#include <stdint.h>

#include "powerlaw.h"

/* h: V x F elements (elem_bytes each, row-major), replaced by the output;
 * w: layers matrices F x F.  Returns 0, -1 when out of memory. */
int gnn_ref(const struct csr *a, uint32_t F, uint32_t elem_bytes, uint32_t layers, const void *const *w,
            void *h);

#endif
