/* SPDX-License-Identifier: MIT */
/* The CPU reference and baseline: the same lookups on the host, one thread,
 * each bag summed left to right from 0. */
#include <string.h>

#include "internal.h"

openpim_emb_status openpim_emb_cpu_lookup(openpim_emb_type type, uint32_t nr_tables,
                                          const struct openpim_emb_table *tables, uint32_t batch,
                                          const uint32_t *const *indices, void *out)
{
    emb_clear_error();
    if (type != OPENPIM_EMB_INT32 && type != OPENPIM_EMB_FLOAT)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "unknown element type %d", (int)type);
    if (!out || batch == 0)
        return emb_fail(OPENPIM_EMB_ERR_ARGUMENT, "out is NULL or batch is 0");
    openpim_emb_status st = emb_check_tables(nr_tables, tables, 1);
    if (st || (st = emb_check_indices(nr_tables, tables, batch, indices)))
        return st;
    size_t total = 0;
    for (uint32_t t = 0; t < nr_tables; t++)
        total += tables[t].dim;
    size_t col = 0;
    for (uint32_t t = 0; t < nr_tables; t++) {
        const uint32_t dim = tables[t].dim, P = tables[t].pooling;
        for (uint32_t b = 0; b < batch; b++) {
            const uint32_t *bag = indices[t] + (size_t)b * P;
            if (type == OPENPIM_EMB_FLOAT) {
                float *o = (float *)out + (size_t)b * total + col;
                const float *data = tables[t].data;
                for (uint32_t j = 0; j < dim; j++)
                    o[j] = 0.0f;
                for (uint32_t p = 0; p < P; p++) {
                    const float *row = data + (size_t)bag[p] * dim;
                    for (uint32_t j = 0; j < dim; j++)
                        o[j] += row[j];
                }
            } else { /* unsigned: two's-complement wrap-around without undefined behaviour */
                uint32_t *o = (uint32_t *)out + (size_t)b * total + col;
                const uint32_t *data = tables[t].data;
                for (uint32_t j = 0; j < dim; j++)
                    o[j] = 0;
                for (uint32_t p = 0; p < P; p++) {
                    const uint32_t *row = data + (size_t)bag[p] * dim;
                    for (uint32_t j = 0; j < dim; j++)
                        o[j] += row[j];
                }
            }
        }
        col += tables[t].dim;
    }
    return OPENPIM_EMB_OK;
}
