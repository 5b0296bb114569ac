/* SPDX-License-Identifier: MIT */
/* The 2D NTT's DPU program (layouts in he_ntt2d_abi.h): one launch runs one
 * step on this DPU's sub-NTTs.  The sub-NTTs are taken HE2D_BATCH at a time
 * into WRAM and all tasklets share each batch (fine-grained), so that even
 * one 256-point sub-NTT per DPU keeps 16 tasklets busy, as Jonatan et al. do:
 * log2(size) Cooley-Tukey layers merged four at a time (radix-16 butterflies,
 * one per tasklet and stage for a 256-point NTT; a smaller radix for the
 * last layers of other sizes), a barrier between stages.  Consts live in MRAM
 * because the host reloads this program after the All-to-All (comm may load
 * its own kernel on the set), which resets WRAM. */
#include <barrier.h>
#include <stdbool.h>
#include <defs.h>
#include <mram.h>

#include "he_modarith.h"
#include "he_ntt2d_abi.h"

#if NR_TASKLETS != HE2D_NR_TASKLETS
#error "build with NR_TASKLETS == HE2D_NR_TASKLETS"
#endif

#define BW HE2D_BATCH
#define SIDE HE2D_MAX_SIDE

typedef __mram_ptr uint32_t *mram_words;

__host struct he2d_args he2d_args;

static uint32_t data[BW * SIDE] __attribute__((aligned(8)));  /* the batch's sub-NTTs, [b][size] */
static uint32_t tw[BW * SIDE] __attribute__((aligned(8)));    /* their twiddle tables, [b][size] */
/* step 1: the columns' twists [b][n2]; step 2: the gathered All-to-All rows, [q][BW c1] (2 BW c1 when
 * row_words is odd) */
static uint32_t aux[2 * BW * SIDE + 2] __attribute__((aligned(8)));
static struct he_mod mods[BW];
static uint32_t out_words[NR_TASKLETS][2 * BW] __attribute__((aligned(8)));

BARRIER_INIT(sync_all, NR_TASKLETS);

static mram_words at(uint32_t offset)
{
    return (mram_words)((__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER + offset);
}

/* MRAM -> WRAM of `words` words (even), in DMAs of at most 2 KB. */
static void read_words(mram_words src, uint32_t *dst, uint32_t words)
{
    for (uint32_t w = 0; w < words; w += 512)
        mram_read(src + w, dst + w, (words - w < 512 ? words - w : 512) * 4);
}

static void write_words(const uint32_t *src, mram_words dst, uint32_t words)
{
    for (uint32_t w = 0; w < words; w += 512)
        mram_write(src + w, dst + w, (words - w < 512 ? words - w : 512) * 4);
}

/* Tasklets share the loads of `rows` rows of `words` words (a multiple of
 * 16): row b from src + b * stride words into dst + b * words, in pieces of
 * words / 8 words (at least 2). */
static void load_rows(mram_words src, uint32_t stride, uint32_t *dst, uint32_t rows, uint32_t words)
{
    const uint32_t piece = words / 8;
    for (uint32_t p = me(); p < rows * 8; p += NR_TASKLETS) {
        const uint32_t b = p / 8, off = (p % 8) * piece;
        read_words(src + b * stride + off, dst + b * words + off, piece);
    }
}

/* Negacyclic Cooley-Tukey NTTs (natural order in, bit-reversed out) of `rows`
 * rows of 2^log_n words in place, row b with twiddles tws + b * 2^log_n and
 * modulus mods[b]; ends with a barrier. */
static void ntt_rows(uint32_t *x0, const uint32_t *tws, uint32_t rows, uint32_t log_n)
{
    for (uint32_t layer = 0; layer < log_n; layer += 4) {
        const uint32_t log_r = log_n - layer < 4 ? log_n - layer : 4, radix = 1u << log_r;
        const uint32_t log_stride = log_n - layer - log_r, log_units = log_n - log_r;
        for (uint32_t u = me(); u < rows << log_units; u += NR_TASKLETS) {
            const uint32_t b = u >> log_units, unit = u & ((1u << log_units) - 1);
            const uint32_t base = ((unit >> log_stride) << (log_n - layer)) + (unit & ((1u << log_stride) - 1));
            uint32_t *x = x0 + (b << log_n);
            const uint32_t *w = tws + (b << log_n);
            const struct he_mod m = mods[b];
            uint32_t v[16];
            for (uint32_t e = 0; e < radix; e++)
                v[e] = x[base + (e << log_stride)];
            for (uint32_t l = 0; l < log_r; l++) {
                const uint32_t h = radix >> (l + 1), shift = log_n - layer - l;
                for (uint32_t e = 0; e < radix; e++) {
                    if (e & h)
                        continue;
                    const uint32_t t = w[(1u << (layer + l)) + ((base + (e << log_stride)) >> shift)];
                    const uint32_t p = v[e], q = he_mulmod(v[e + h], t, m);
                    v[e] = he_addmod(p, q, m);
                    v[e + h] = he_submod(p, q, m);
                }
            }
            for (uint32_t e = 0; e < radix; e++)
                x[base + (e << log_stride)] = v[e];
        }
        barrier_wait(&sync_all);
    }
}

/* The inverse of ntt_rows without its scaling (2^-log_n, folded into the
 * host's tables): the same groups of layers last to first, each layer's
 * butterflies undone by Gentleman-Sande ones (u + v, (u - v) t^-1) with
 * the inverse twiddles itws (same layout); ends with a barrier. */
static void intt_rows(uint32_t *x0, const uint32_t *itws, uint32_t rows, uint32_t log_n)
{
    for (uint32_t group = (log_n + 3) / 4; group-- > 0;) {
        const uint32_t layer = 4 * group;
        const uint32_t log_r = log_n - layer < 4 ? log_n - layer : 4, radix = 1u << log_r;
        const uint32_t log_stride = log_n - layer - log_r, log_units = log_n - log_r;
        for (uint32_t u = me(); u < rows << log_units; u += NR_TASKLETS) {
            const uint32_t b = u >> log_units, unit = u & ((1u << log_units) - 1);
            const uint32_t base = ((unit >> log_stride) << (log_n - layer)) + (unit & ((1u << log_stride) - 1));
            uint32_t *x = x0 + (b << log_n);
            const uint32_t *w = itws + (b << log_n);
            const struct he_mod m = mods[b];
            uint32_t v[16];
            for (uint32_t e = 0; e < radix; e++)
                v[e] = x[base + (e << log_stride)];
            for (uint32_t l = log_r; l-- > 0;) {
                const uint32_t h = radix >> (l + 1), shift = log_n - layer - l;
                for (uint32_t e = 0; e < radix; e++) {
                    if (e & h)
                        continue;
                    const uint32_t t = w[(1u << (layer + l)) + ((base + (e << log_stride)) >> shift)];
                    const uint32_t p = v[e], q = v[e + h];
                    v[e] = he_addmod(p, q, m);
                    v[e + h] = he_mulmod(he_submod(p, q, m), t, m);
                }
            }
            for (uint32_t e = 0; e < radix; e++)
                x[base + (e << log_stride)] = v[e];
        }
        barrier_wait(&sync_all);
    }
}

static void load_mods(const struct he2d_consts *c, uint32_t first_slot, const uint32_t *slot_of_row, uint32_t rows)
{
    if (me() == 0)
        for (uint32_t b = 0; b < rows; b++) {
            struct he2d_mod md __attribute__((aligned(8)));
            uint32_t s = slot_of_row ? slot_of_row[b] : first_slot + b;
            mram_read((__mram_ptr struct he2d_mod *)at(c->mods) + s, &md, sizeof md);
            mods[b] = he_mod_make(md.q, md.bits, md.mu);
        }
}

/* Step 1: the columns kappa (sub-NTTs of size n2), twisted, written
 * transposed into b: word kappa of row s. */
static void step_columns(const struct he2d_consts *c)
{
    const uint32_t n2 = c->n2, cols = c->valid * c->c1;
    for (uint32_t k0 = 0; k0 < cols; k0 += BW) {
        const uint32_t bw = cols - k0 < BW ? cols - k0 : BW;
        uint32_t slot_of_row[BW];
        for (uint32_t b = 0; b < bw; b++)
            slot_of_row[b] = (k0 + b) >> c->log_c1;
        load_mods(c, 0, slot_of_row, bw);
        load_rows(at(he2d_args.a) + k0 * n2, n2, data, bw, n2);
        load_rows(at(c->twist) + k0 * n2, n2, aux, bw, n2);
        for (uint32_t b = 0; b < bw; b++) /* consecutive columns mostly share a slot: tables loaded per row anyway */
            if (me() == b % NR_TASKLETS)
                read_words(at(c->tw1) + slot_of_row[b] * n2, tw + b * n2, n2);
        barrier_wait(&sync_all);
        ntt_rows(data, tw, bw, c->log_n2);
        uint32_t *o = out_words[me()];
        if (c->row_words & 1) {
            /* odd rows (the host allows them only when one batch holds every column): rows s, s + 1
             * together are 2 row_words words from an even offset */
            const uint32_t rw = c->row_words;
            for (uint32_t s = 2 * me(); s < n2; s += 2 * NR_TASKLETS) {
                for (uint32_t b = 0; b < rw; b++) {
                    o[b] = b < bw ? he_mulmod(data[b * n2 + s], aux[b * n2 + s], mods[b]) : 0;
                    o[rw + b] = b < bw ? he_mulmod(data[b * n2 + s + 1], aux[b * n2 + s + 1], mods[b]) : 0;
                }
                mram_write(o, at(c->b) + s * rw, 2 * rw * 4);
            }
            barrier_wait(&sync_all);
            continue;
        }
        /* row s of b gets words k0 .. k0 + bw - 1 (rounded up to even: the
         * extra word lands in a padding or not-valid column) */
        const uint32_t run = (bw + 1) & ~1u;
        const uint32_t row_step = NR_TASKLETS * c->row_words;
        mram_words row = at(c->b) + me() * c->row_words + k0;
        for (uint32_t s = me(); s < n2; s += NR_TASKLETS, row += row_step) {
            for (uint32_t b = 0; b < bw; b++)
                o[b] = he_mulmod(data[b * n2 + s], aux[b * n2 + s], mods[b]);
            mram_write(o, row, run * 4);
        }
        barrier_wait(&sync_all);
    }
}

/* Step 2: the rows (s_loc, slot), s_loc-major, HE2D_BATCH at a time (sub-NTTs
 * of size n1), gathered from the All-to-All's output, written in place of the
 * input as [slot][r2][n1]. */
static void step_rows(const struct he2d_consts *c)
{
    const uint32_t n1 = c->n1, c1 = c->c1, g = c->group_dpus, log_c1 = c->log_c1, rows = c->r2 * c->valid;
    /* aux holds DPU q's words at q * BW * c1 (2 BW c1 when row_words is odd, for the 8-byte alignment of
     * the reads): shifts only in the gather.  Odd row_words means c1 = 1 and r2 = 1 (host). */
    const uint32_t odd = c->row_words & 1, log_stride = log_c1 + __builtin_ctz(BW) + odd, mask_c1 = c1 - 1;
    uint32_t slot = 0, s_loc = 0; /* of row r0 */
    for (uint32_t r0 = 0; r0 < rows; r0 += BW) {
        const uint32_t bw = rows - r0 < BW ? rows - r0 : BW;
        uint32_t slot_of_row[BW], sloc_of_row[BW];
        for (uint32_t b = 0; b < bw; b++) {
            slot_of_row[b] = slot, sloc_of_row[b] = s_loc;
            if (++slot == c->valid)
                slot = 0, s_loc++;
        }
        load_mods(c, 0, slot_of_row, bw);
        /* rows of one s_loc are consecutive slots: from DPU q, words slot c1 .. of its row q r2 + s_loc
         * (rounded up to even: the extra word is a padding or not-valid column; odd only when c1 = 1,
         * and then r2 = 1: one run per batch) */
        for (uint32_t b0 = 0, b1; b0 < bw; b0 = b1) {
            for (b1 = b0; b1 < bw && sloc_of_row[b1] == sloc_of_row[b0]; b1++)
                ;
            for (uint32_t q = me(); q < g; q += NR_TASKLETS) {
                const uint32_t off = (q * c->r2 + sloc_of_row[b0]) * c->row_words + slot_of_row[b0] * c1;
                const uint32_t shift = off & odd; /* odd rows: from the even word before */
                read_words(at(c->c) + off - shift, aux + (q << log_stride) + b0 * c1,
                           (shift + (b1 - b0) * c1 + 1) & ~1u);
            }
        }
        const uint32_t s0 = slot_of_row[0];
        for (uint32_t b = 0; b < bw; b++)
            if (me() == b % NR_TASKLETS)
                read_words(at(c->tw2) + slot_of_row[b] * n1, tw + b * n1, n1);
        barrier_wait(&sync_all);
        for (uint32_t e = me(); e < bw * n1; e += NR_TASKLETS) {
            const uint32_t b = e >> c->log_n1, i1 = e & (n1 - 1);
            /* odd rows: c1 = 1, q = i1, and q's words began at parity (q row_words + s0) & 1 */
            data[e] = aux[((i1 >> log_c1) << log_stride) + (odd & (i1 ^ s0)) + (b << log_c1) + (i1 & mask_c1)];
        }
        barrier_wait(&sync_all);
        ntt_rows(data, tw, bw, c->log_n1);
        const uint32_t piece = n1 / 8;
        for (uint32_t p = me(); p < bw * 8; p += NR_TASKLETS) {
            const uint32_t b = p / 8, off = (p % 8) * piece;
            write_words(data + b * n1 + off, at(he2d_args.dst) + (slot_of_row[b] * c->r2 + sloc_of_row[b]) * n1 + off,
                        piece);
        }
        barrier_wait(&sync_all);
    }
}

/* Inverse step 1: the rows (s_loc, slot) batched as in step_rows, read from
 * a, inverted, scattered into b in the layout step_rows gathers from (row
 * q r2 + s_loc, word kappa), so the All-to-All brings each DPU its columns. */
static void step_inv_rows(const struct he2d_consts *c)
{
    const uint32_t n1 = c->n1, c1 = c->c1, g = c->group_dpus, log_c1 = c->log_c1, rows = c->r2 * c->valid;
    const uint32_t odd = c->row_words & 1, log_stride = log_c1 + __builtin_ctz(BW), mask_c1 = c1 - 1;
    const uint32_t piece = n1 / 8;
    uint32_t slot = 0, s_loc = 0; /* of row r0 */
    for (uint32_t r0 = 0; r0 < rows; r0 += BW) {
        const uint32_t bw = rows - r0 < BW ? rows - r0 : BW;
        uint32_t slot_of_row[BW], sloc_of_row[BW];
        for (uint32_t b = 0; b < bw; b++) {
            slot_of_row[b] = slot, sloc_of_row[b] = s_loc;
            if (++slot == c->valid)
                slot = 0, s_loc++;
        }
        load_mods(c, 0, slot_of_row, bw);
        for (uint32_t p = me(); p < bw * 8; p += NR_TASKLETS) {
            const uint32_t b = p / 8, off = (p % 8) * piece;
            read_words(at(he2d_args.a) + (slot_of_row[b] * c->r2 + sloc_of_row[b]) * n1 + off, data + b * n1 + off,
                       piece);
        }
        for (uint32_t b = 0; b < bw; b++)
            if (me() == b % NR_TASKLETS)
                read_words(at(c->itw2) + slot_of_row[b] * n1, tw + b * n1, n1);
        barrier_wait(&sync_all);
        intt_rows(data, tw, bw, c->log_n1);
        if (odd) {
            /* c1 = 1, r2 = 1, one batch holds every row (host): row q of b is word slot of i1 = q; rows q,
             * q + 1 together are 2 row_words words from an even offset (g = n1 is even) */
            const uint32_t rw = c->row_words;
            uint32_t *o = out_words[me()];
            for (uint32_t q = 2 * me(); q < g; q += 2 * NR_TASKLETS) {
                for (uint32_t b = 0; b < rw; b++) {
                    o[b] = b < bw ? data[b * n1 + q] : 0;
                    o[rw + b] = b < bw ? data[b * n1 + q + 1] : 0;
                }
                mram_write(o, at(c->b) + q * rw, 2 * rw * 4);
            }
            barrier_wait(&sync_all);
            continue;
        }
        /* aux[q][b][i1 local], the inverse of step_rows's gather */
        for (uint32_t e = me(); e < bw * n1; e += NR_TASKLETS) {
            const uint32_t b = e >> c->log_n1, i1 = e & (n1 - 1);
            aux[((i1 >> log_c1) << log_stride) + (b << log_c1) + (i1 & mask_c1)] = data[e];
        }
        barrier_wait(&sync_all);
        /* rows of one s_loc are consecutive slots: to DPU q's block, words slot c1 .. of its row q r2 +
         * s_loc; the offsets are even (c1 even, or c1 = 1 with r2 = 1 and batches starting at multiples of
         * BW), a run rounded up to even ends in a padding or not-valid column */
        for (uint32_t b0 = 0, b1; b0 < bw; b0 = b1) {
            for (b1 = b0; b1 < bw && sloc_of_row[b1] == sloc_of_row[b0]; b1++)
                ;
            for (uint32_t q = me(); q < g; q += NR_TASKLETS)
                write_words(aux + (q << log_stride) + b0 * c1,
                            at(c->b) + (q * c->r2 + sloc_of_row[b0]) * c->row_words + slot_of_row[b0] * c1,
                            ((b1 - b0) * c1 + 1) & ~1u);
        }
        barrier_wait(&sync_all);
    }
}

/* Inverse step 2: column kappa gathered from c (word kappa of every row s,
 * the layout step_columns writes), times the inverse twist, inverted, written
 * in natural order into a as [kappa][n2]. */
static void step_inv_columns(const struct he2d_consts *c)
{
    const uint32_t n2 = c->n2, cols = c->valid * c->c1, piece = n2 / 8;
    for (uint32_t k0 = 0; k0 < cols; k0 += BW) {
        const uint32_t bw = cols - k0 < BW ? cols - k0 : BW;
        uint32_t slot_of_row[BW];
        for (uint32_t b = 0; b < bw; b++)
            slot_of_row[b] = (k0 + b) >> c->log_c1;
        load_mods(c, 0, slot_of_row, bw);
        load_rows(at(c->itwist) + k0 * n2, n2, aux, bw, n2);
        for (uint32_t b = 0; b < bw; b++)
            if (me() == b % NR_TASKLETS)
                read_words(at(c->itw1) + slot_of_row[b] * n2, tw + b * n2, n2);
        barrier_wait(&sync_all);
        uint32_t *o = out_words[me()];
        if (c->row_words & 1) { /* odd rows: one batch holds every column, rows s, s + 1 read together */
            const uint32_t rw = c->row_words;
            for (uint32_t s = 2 * me(); s < n2; s += 2 * NR_TASKLETS) {
                mram_read(at(c->c) + s * rw, o, 2 * rw * 4);
                for (uint32_t b = 0; b < bw; b++) {
                    data[b * n2 + s] = he_mulmod(o[b], aux[b * n2 + s], mods[b]);
                    data[b * n2 + s + 1] = he_mulmod(o[rw + b], aux[b * n2 + s + 1], mods[b]);
                }
            }
        } else {
            const uint32_t run = (bw + 1) & ~1u;
            for (uint32_t s = me(); s < n2; s += NR_TASKLETS) {
                mram_read(at(c->c) + s * c->row_words + k0, o, run * 4);
                for (uint32_t b = 0; b < bw; b++)
                    data[b * n2 + s] = he_mulmod(o[b], aux[b * n2 + s], mods[b]);
            }
        }
        barrier_wait(&sync_all);
        intt_rows(data, tw, bw, c->log_n2);
        for (uint32_t p = me(); p < bw * 8; p += NR_TASKLETS) {
            const uint32_t b = p / 8, off = (p % 8) * piece;
            write_words(data + b * n2 + off, at(he2d_args.dst) + (k0 + b) * n2 + off, piece);
        }
        barrier_wait(&sync_all);
    }
}

/* The resident layout's word-by-word operations: each valid slot's n / g
 * words (one modulus) in blocks of EW words, every tasklet a block at a
 * time (fine-grained); blocks never straddle slots (n / g is a power of two). */
#define EW 128

static void read_mod(const struct he2d_consts *c, uint32_t slot, struct he_mod *m)
{
    struct he2d_mod md __attribute__((aligned(8)));
    mram_read((__mram_ptr struct he2d_mod *)at(c->mods) + slot, &md, sizeof md);
    *m = he_mod_make(md.q, md.bits, md.mu);
}

static void step_elemwise(const struct he2d_consts *c)
{
    const uint32_t share = c->c1 * c->n2, e = share < EW ? share : EW, op = he2d_args.op;
    uint32_t *x = data + me() * EW, *y = tw + me() * EW, *z = aux + me() * EW;
    for (uint32_t w = me() * e; w < c->valid * share; w += NR_TASKLETS * e) {
        struct he_mod m;
        read_mod(c, w / share, &m);
        mram_read(at(he2d_args.a) + w, x, e * 4);
        mram_read(at(he2d_args.b) + w, y, e * 4);
        if (op == HE2D_EW_ADD)
            for (uint32_t i = 0; i < e; i++)
                x[i] = he_addmod(x[i], y[i], m);
        else if (op == HE2D_EW_SUB)
            for (uint32_t i = 0; i < e; i++)
                x[i] = he_submod(x[i], y[i], m);
        else if (op == HE2D_EW_MUL)
            for (uint32_t i = 0; i < e; i++)
                x[i] = he_mulmod(x[i], y[i], m);
        else {
            mram_read(at(he2d_args.dst) + w, z, e * 4);
            for (uint32_t i = 0; i < e; i++)
                x[i] = he_addmod(z[i], he_mulmod(x[i], y[i], m), m);
        }
        mram_write(x, at(he2d_args.dst) + w, e * 4);
    }
}

/* Base conversion (the host relays between the two steps): step 1 at the
 * sources' slots keeps a copy and scales by (Q_F / q_f)^-1, zeroes the slots
 * of moduli neither source nor target; step 2 at the targets' slots sums the
 * relayed sources weighted by (Q_F / q_f) mod q. */
static uint32_t conv_w[HE2D_MAX_WEIGHTS] __attribute__((aligned(8)));

static void step_bconv(const struct he2d_consts *c, bool sum)
{
    const uint32_t share = c->c1 * c->n2, e = share < EW ? share : EW;
    uint32_t *x = data + me() * EW, *acc = tw + me() * EW;
    for (uint32_t slot = 0; slot < c->valid; slot++) {
        struct he2d_conv_slot cs __attribute__((aligned(8)));
        struct he_mod m;
        mram_read((__mram_ptr struct he2d_conv_slot *)at(he2d_args.conv) + slot, &cs, sizeof cs);
        read_mod(c, slot, &m);
        const uint32_t nw = (cs.nr_from + 1) & ~1u;
        if (sum && cs.role == HE2D_CONV_TO) {
            if (me() == 0)
                read_words((mram_words)((__mram_ptr struct he2d_conv_slot *)at(he2d_args.conv) + c->slots) +
                               slot * nw, conv_w, nw);
            barrier_wait(&sync_all);
        }
        const uint32_t base = slot * share;
        for (uint32_t w = me() * e; w < share; w += NR_TASKLETS * e) {
            if (!sum && cs.role == HE2D_CONV_FROM) {
                mram_read(at(he2d_args.a) + base + w, x, e * 4);
                mram_write(x, at(he2d_args.dst) + base + w, e * 4);
                for (uint32_t i = 0; i < e; i++)
                    x[i] = he_mulmod(x[i], cs.scale, m);
                mram_write(x, at(he2d_args.tmp) + base + w, e * 4);
            } else if (!sum && cs.role == HE2D_CONV_NONE) {
                for (uint32_t i = 0; i < e; i++)
                    x[i] = 0;
                mram_write(x, at(he2d_args.dst) + base + w, e * 4);
            } else if (sum && cs.role == HE2D_CONV_TO) {
                mram_words src = at(he2d_args.relay) + slot * cs.nr_from * share + w;
                for (uint32_t f = 0; f < cs.nr_from; f++) {
                    mram_read(src + f * share, x, e * 4);
                    /* a source residue may have more bits than q: Barrett's product must stay below
                     * 2^(2 bits(q)), so reduce it first */
                    for (uint32_t i = 0; i < e; i++) {
                        const uint32_t t = he_mulmod(cs.fits ? x[i] : he_reduce(x[i], m), conv_w[f], m);
                        acc[i] = f ? he_addmod(acc[i], t, m) : t;
                    }
                }
                mram_write(acc, at(he2d_args.dst) + base + w, e * 4);
            }
        }
        if (sum && cs.role == HE2D_CONV_TO)
            barrier_wait(&sync_all); /* conv_w is read again for the next slot */
    }
}

int main(void)
{
    struct he2d_consts c __attribute__((aligned(8)));
    mram_read(at(0), &c, sizeof c);
    const uint32_t step = he2d_args.step;
    if (step == HE2D_STEP_COLUMNS)
        step_columns(&c);
    else if (step == HE2D_STEP_ROWS)
        step_rows(&c);
    else if (step == HE2D_STEP_INV_ROWS)
        step_inv_rows(&c);
    else if (step == HE2D_STEP_INV_COLUMNS)
        step_inv_columns(&c);
    else if (step == HE2D_STEP_ELEMWISE)
        step_elemwise(&c);
    else if (step == HE2D_STEP_BCONV_SCALE || step == HE2D_STEP_BCONV_SUM)
        step_bconv(&c, step == HE2D_STEP_BCONV_SUM);
    else
        halt();
    return 0;
}
