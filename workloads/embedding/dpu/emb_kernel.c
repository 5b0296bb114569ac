/* SPDX-License-Identifier: MIT */
/* Embedding lookup with sum pooling ([Jonatan24] §4.1) on one DPU.
 *
 * Work items are (shard, sample) pairs, dealt round-robin to the tasklets, so
 * that a small batch over several tables still keeps every tasklet busy.  For
 * its item a tasklet reads the bag's header, then its indices (EMB_IDX_CHUNK
 * per DMA) into WRAM, DMAs each referenced row (EMB_CHUNK_COLS columns at a
 * time) into its WRAM row buffer and adds it into its WRAM accumulator, and
 * writes the pooled vector to MRAM.  Rows are summed in bag order starting
 * from 0, so results are deterministic; int32 sums wrap around, float sums are
 * IEEE single precision (software-emulated on the DPU, as the timing model
 * charges).  An index outside the shard halts the DPU: the host checks every
 * index first, so this only guards against a host bug. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#include "emb_abi.h"

__host uint32_t emb_args_at; /* MRAM offset of the arguments (emb_abi.h) */

__dma_aligned static uint32_t acc[NR_TASKLETS][EMB_CHUNK_COLS];
__dma_aligned static uint32_t rowbuf[NR_TASKLETS][EMB_CHUNK_COLS];
__dma_aligned static uint32_t idxbuf[NR_TASKLETS][EMB_IDX_CHUNK];
__dma_aligned static uint32_t hdrbuf[NR_TASKLETS][2];
__dma_aligned static struct emb_header headbuf[NR_TASKLETS];
__dma_aligned static struct emb_shard_args shardbuf[NR_TASKLETS];

#define MRAM(off) ((__mram_ptr void *)(uintptr_t)(0x08000000u + (uint32_t)(off)))

static void add_int(uint32_t *a, const uint32_t *r, uint32_t w)
{
    for (uint32_t j = 0; j < w; j++)
        a[j] += r[j];
}

static void add_float(float *a, const float *r, uint32_t w)
{
    for (uint32_t j = 0; j < w; j++)
        a[j] += r[j];
}

static void pool(const struct emb_shard_args *sh, uint32_t b, int is_float, uint32_t id)
{
    uint32_t *hdr = hdrbuf[id], *idx = idxbuf[id], *a = acc[id], *row = rowbuf[id];
    mram_read(MRAM(sh->hdr_off + 8 * b), hdr, 8);
    const uint32_t start = hdr[0], count = hdr[1];
    if ((start & 1u) || start > sh->nr_indices || count > sh->nr_indices - start)
        halt();
    for (uint32_t c0 = 0; c0 < sh->cols_pad; c0 += EMB_CHUNK_COLS) {
        const uint32_t w = sh->cols_pad - c0 < EMB_CHUNK_COLS ? sh->cols_pad - c0 : EMB_CHUNK_COLS;
        const uint32_t wr = sh->cols - c0 < w ? sh->cols - c0 : w; /* without the pad column */
        for (uint32_t j = 0; j < w; j++)
            a[j] = 0;
        for (uint32_t k = 0; k < count; k += EMB_IDX_CHUNK) {
            const uint32_t n = count - k < EMB_IDX_CHUNK ? count - k : EMB_IDX_CHUNK;
            mram_read(MRAM(sh->idx_off + 4 * (start + k)), idx, 4 * ((n + 1) & ~1u));
            for (uint32_t q = 0; q < n; q++) {
                const uint32_t r = idx[q];
                if (r >= sh->rows)
                    halt();
                mram_read(MRAM(sh->table_off + 4 * (r * sh->cols_pad + c0)), row, 4 * w);
                if (is_float)
                    add_float((float *)a, (const float *)row, wr);
                else
                    add_int(a, row, wr);
            }
        }
        mram_write(a, MRAM(sh->out_off + 4 * (b * sh->cols_pad + c0)), 4 * w);
    }
}

int main(void)
{
    const uint32_t id = me(), at = emb_args_at;
    mram_read(MRAM(at), &headbuf[id], sizeof headbuf[id]);
    const uint32_t batch = headbuf[id].batch, nr = headbuf[id].nr_shards;
    const int is_float = headbuf[id].type == EMB_TYPE_FLOAT;
    if (batch == 0 || nr > EMB_MAX_SHARDS)
        return 0;
    uint32_t loaded = ~0u; /* the shard whose arguments are in shardbuf[id] */
    /* item i = s * batch + b, without a division per item */
    uint32_t s = 0, b = id;
    while (b >= batch) {
        b -= batch;
        s++;
    }
    while (s < nr) {
        if (s != loaded) { /* items come shard by shard: one 32-byte DMA per shard change */
            mram_read(MRAM(at + sizeof(struct emb_header) + s * sizeof(struct emb_shard_args)), &shardbuf[id],
                      sizeof shardbuf[id]);
            loaded = s;
        }
        pool(&shardbuf[id], b, is_float, id);
        b += NR_TASKLETS;
        while (b >= batch) {
            b -= batch;
            s++;
        }
    }
    return 0;
}
