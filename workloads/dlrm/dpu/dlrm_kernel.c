/* SPDX-License-Identifier: MIT */
/* DLRM's three DPU steps (see ../dlrm.h): pack the AlltoAll's send blocks,
 * look up and pool the node's rows and columns, and DLRM's dot interaction.
 * Tasklets take samples round-robin; every MRAM access is one DMA of at most
 * 2 KB through the tasklet's WRAM buffers (the host checks the sizes). */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#include "../dlrm_kernel_abi.h"

#define NT 26 /* DLRM_TABLES */
#define MAXD 32

__host struct dlrm_args dlrm_args;

/* Per tasklet: buf (indices, DMA staging, interaction output) and vec (pooled vectors) for the first
 * three modes; the top MLP's activations and weight rows in the same bytes. */
#define SCRATCH (512 + NT * MAXD)
__dma_aligned static uint32_t scratch[NR_TASKLETS][SCRATCH];
#define buf(id) (scratch[id])
#define vec(id) (scratch[id] + 512)
__dma_aligned static uint32_t rowbuf[NR_TASKLETS][MAXD];
__dma_aligned static struct dlrm_node_header hdr_w[NR_TASKLETS];

#define MRAM(off) ((__mram_ptr void *)(uintptr_t)(0x08000000u + (uint32_t)(off)))

/* Block p of the send buffer: this node's samples' indices for node p's table group. */
static void pack(const struct dlrm_args *a, uint32_t id)
{
    const uint32_t row = a->X * a->Tx * a->pool, blk = a->Tx * a->pool;
    for (uint32_t s = id; s < a->S; s += NR_TASKLETS) {
        mram_read(MRAM(a->off_idx_local + s * row * 4), buf(id), row * 4);
        for (uint32_t p = 0; p < a->P; p++) {
            uint32_t x = p % a->X;
            mram_write(&buf(id)[x * blk], MRAM(a->off_send + ((p * a->S + s) * blk) * 4), blk * 4);
        }
    }
}

/* part[b][t] = sum over the pooled indices that fall in this node's row shard of the row's Dz columns. */
static void lookup(const struct dlrm_args *a, const struct dlrm_node_header *h, uint32_t id)
{
    const uint32_t blk = a->Tx * a->pool, out = a->Tx * a->Dz;
    for (uint32_t b = id; b < a->B; b += NR_TASKLETS) {
        mram_read(MRAM(a->off_idx_all + b * blk * 4), buf(id), blk * 4);
        for (uint32_t t = 0; t < a->Tx; t++) {
            uint32_t *acc = &vec(id)[t * a->Dz];
            for (uint32_t d = 0; d < a->Dz; d++)
                acc[d] = 0;
            uint32_t rg = h->shard_rows[t];
            if (rg == 0)
                continue;
            for (uint32_t k = 0; k < a->pool; k++) {
                uint32_t r = buf(id)[t * a->pool + k];
                if (r / rg != h->y)
                    continue;
                uint32_t local = r - h->y * rg;
                mram_read(MRAM(h->slot_off[t] + local * a->Dz * 4), rowbuf[id], a->Dz * 4);
                for (uint32_t d = 0; d < a->Dz; d++)
                    acc[d] += rowbuf[id][d];
            }
        }
        mram_write(vec(id), MRAM(a->off_part + b * out * 4), out * 4);
    }
}

/* For each local sample: assemble its 26 pooled vectors from the X*Z blocks
 * (block x' + X*z' holds the tables of group x', columns of shard z'), then
 * the 325 dot products, pairs (i, j) with i < j in row-major order. */
static void interact(const struct dlrm_args *a, uint32_t id)
{
    const uint32_t out = a->Tx * a->Dz, dim = a->Dz * a->Z;
    uint32_t *v = vec(id);
    for (uint32_t s = id; s < a->S; s += NR_TASKLETS) {
        for (uint32_t z = 0; z < a->Z; z++)
            for (uint32_t x = 0; x < a->X; x++) {
                uint32_t blk = x + a->X * z;
                mram_read(MRAM(a->off_emb + ((blk * a->S + s) * out) * 4), buf(id), out * 4);
                for (uint32_t t = 0; t < a->Tx; t++) {
                    uint32_t g = x + t * a->X;
                    if (g >= NT)
                        continue;
                    for (uint32_t d = 0; d < a->Dz; d++)
                        v[g * dim + z * a->Dz + d] = buf(id)[t * a->Dz + d];
                }
            }
        uint32_t k = 0;
        for (uint32_t i = 0; i < NT; i++)
            for (uint32_t j = i + 1; j < NT; j++) {
                uint32_t acc = 0;
                for (uint32_t d = 0; d < dim; d++)
                    acc += v[i * dim + d] * v[j * dim + d];
                buf(id)[k++] = acc;
            }
        buf(id)[k] = 0; /* the padding word */
        mram_write(buf(id), MRAM(a->off_inter + s * DLRM_INTER_STRIDE * 4), DLRM_INTER_STRIDE * 4);
    }
}

static int32_t requant(int32_t v, uint32_t shift)
{
    if (v <= 0)
        return 0;
    v >>= shift;
    return v > 255 ? 255 : v;
}

/* DLRM's top MLP, G samples at a time: their activations are shared in WRAM,
 * the tasklets split each layer's outputs (each weight row is read once per G
 * samples), with a barrier between layers.  The scratch buffers of the other
 * modes hold the activations and, per tasklet, a staging area. */
#define G 16
#define STAGE 1312 /* per tasklet: one sample's interactions (1304 B) or one weight row */
#define ACTS (G * (DLRM_TOP_ROW0 + DLRM_TOP_N1 + DLRM_TOP_N2))
_Static_assert(ACTS + NR_TASKLETS * STAGE <= sizeof scratch, "WRAM");
_Static_assert(ACTS % 8 == 0 && STAGE % 8 == 0 && DLRM_INTER_STRIDE * 4 <= STAGE, "layout");
BARRIER_INIT(layer_done, NR_TASKLETS);

static void top_mlp(const struct dlrm_args *a, uint32_t id)
{
    uint8_t *a0 = (uint8_t *)scratch, *a1 = a0 + G * DLRM_TOP_ROW0, *a2 = a1 + G * DLRM_TOP_N1;
    uint8_t *stage = a0 + ACTS + id * STAGE;
    const uint8_t *w = stage; /* weights + DLRM_TOP_ZP: both factors 8-bit unsigned (the DPU's 8x8 multiply) */
    const uint32_t l2 = a->off_top + DLRM_TOP_N1 * DLRM_TOP_ROW0, l3 = l2 + DLRM_TOP_N2 * DLRM_TOP_N1;
    for (uint32_t s0 = 0; s0 < a->S; s0 += G) {
        const uint32_t g = a->S - s0 < G ? a->S - s0 : G;
        for (uint32_t i = id; i < g; i += NR_TASKLETS) {
            const int32_t *inter = (const int32_t *)stage;
            mram_read(MRAM(a->off_inter + (s0 + i) * DLRM_INTER_STRIDE * 4), stage, DLRM_INTER_STRIDE * 4);
            for (uint32_t k = 0; k < DLRM_TOP_IN0; k++)
                a0[i * DLRM_TOP_ROW0 + k] = (uint8_t)requant(inter[k], DLRM_TOP_SHIFT0);
        }
        barrier_wait(&layer_done);
        for (uint32_t o = id; o < DLRM_TOP_N1; o += NR_TASKLETS) {
            mram_read(MRAM(a->off_top + o * DLRM_TOP_ROW0), stage, DLRM_TOP_ROW0);
            for (uint32_t i = 0; i < g; i++) {
                const uint8_t *x = &a0[i * DLRM_TOP_ROW0];
                int32_t acc = 0, sx = 0;
                for (uint32_t k = 0; k < DLRM_TOP_IN0; k++) {
                    acc += w[k] * x[k];
                    sx += x[k];
                }
                acc -= DLRM_TOP_ZP * sx;
                a1[i * DLRM_TOP_N1 + o] = (uint8_t)requant(acc, DLRM_TOP_SHIFT1);
            }
        }
        barrier_wait(&layer_done);
        for (uint32_t o = id; o < DLRM_TOP_N2; o += NR_TASKLETS) {
            mram_read(MRAM(l2 + o * DLRM_TOP_N1), stage, DLRM_TOP_N1);
            for (uint32_t i = 0; i < g; i++) {
                const uint8_t *x = &a1[i * DLRM_TOP_N1];
                int32_t acc = 0, sx = 0;
                for (uint32_t k = 0; k < DLRM_TOP_N1; k++) {
                    acc += w[k] * x[k];
                    sx += x[k];
                }
                acc -= DLRM_TOP_ZP * sx;
                a2[i * DLRM_TOP_N2 + o] = (uint8_t)requant(acc, DLRM_TOP_SHIFT2);
            }
        }
        barrier_wait(&layer_done);
        if (id < g) {
            mram_read(MRAM(l3), stage, DLRM_TOP_N2);
            int32_t *out = (int32_t *)(stage + DLRM_TOP_N2);
            for (uint32_t i = id; i < g; i += NR_TASKLETS) {
                const uint8_t *x = &a2[i * DLRM_TOP_N2];
                int32_t acc = 0, sx = 0;
                for (uint32_t k = 0; k < DLRM_TOP_N2; k++) {
                    acc += w[k] * x[k];
                    sx += x[k];
                }
                out[0] = acc - DLRM_TOP_ZP * sx;
                out[1] = 0;
                mram_write(out, MRAM(a->off_logit + (s0 + i) * 8), 8);
            }
        }
        barrier_wait(&layer_done); /* a0..a2 are reused by the next group */
    }
}

int main(void)
{
    const uint32_t id = me();
    const struct dlrm_args a = dlrm_args;
    switch (a.mode) {
    case DLRM_PACK: pack(&a, id); break;
    case DLRM_LOOKUP:
        mram_read(MRAM(0), &hdr_w[id], sizeof hdr_w[id]);
        lookup(&a, &hdr_w[id], id);
        break;
    case DLRM_INTERACT: interact(&a, id); break;
    case DLRM_TOP: top_mlp(&a, id); break;
    default: return 1;
    }
    return 0;
}
