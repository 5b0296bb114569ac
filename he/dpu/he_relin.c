/* SPDX-License-Identifier: MIT */
/* Relinearisation on the DPU, one ciphertext slot per tasklet (each step has
 * NTTs, so coarse-grained as the NTT).  The host moves the RNS digits of c2 to
 * every modulus group and the BGV correction back (see src/he_relin.c). */
#include "he_kernels.h"

#define E HE_EW_WORDS

/* acc (+)= a * b over n words (acc = a * b when `first`). */
static void mac(he_mram_t acc, he_mram_t a, he_mram_t b, uint32_t n, int first, struct he_mod m, uint32_t *wram)
{
    uint32_t *x = wram, *y = wram + E, *z = wram + 2 * E;
    for (uint32_t w = 0; w < n; w += E) {
        if (!first)
            mram_read(acc + w, x, E * 4);
        mram_read(a + w, y, E * 4);
        mram_read(b + w, z, E * 4);
        for (uint32_t i = 0; i < E; i++) {
            uint32_t p = he_mulmod(y[i], z[i], m);
            x[i] = first ? p : he_addmod(x[i], p, m);
        }
        mram_write(x, acc + w, E * 4);
    }
}

void he_relin_keyswitch(const struct he_dpu_cmd *cmd, const struct he_dpu_consts *c, uint32_t slot, struct he_mod m,
                        uint32_t *wram)
{
    const uint32_t n = c->n, k = cmd->nr_moduli;
    he_mram_t digits = he_at(cmd->src[0]) + slot * k * n, key = he_at(cmd->src[1]);
    he_mram_t acc[2] = {he_at(cmd->dst[0]) + slot * n, he_at(cmd->dst[1]) + slot * n};
    for (uint32_t j = 0; j < k; j++) {
        he_mram_t d = digits + j * n;
        /* digit j (< q_j) reduced mod this DPU's modulus, into NTT form */
        for (uint32_t w = 0; w < n; w += E) {
            mram_read(d + w, wram, E * 4);
            for (uint32_t i = 0; i < E; i++)
                wram[i] %= m.q;
            mram_write(wram, d + w, E * 4);
        }
        he_ntt_forward(d, he_at(c->tw_offset), n, m, wram);
        for (uint32_t cc = 0; cc < 2; cc++)
            mac(acc[cc], d, key + (2 * j + cc) * n, n, j == 0, m, wram);
    }
    if (c->modulus_index == k) /* the special modulus: its sums go back to the host in coefficient form */
        for (uint32_t cc = 0; cc < 2; cc++)
            he_ntt_inverse(acc[cc], he_at(c->itw_offset), n, c->n_inv, m, wram);
}

void he_relin_finish(const struct he_dpu_cmd *cmd, const struct he_dpu_consts *c, uint32_t slot, struct he_mod m,
                     uint32_t *wram)
{
    const uint32_t n = c->n;
    uint32_t *x = wram, *y = wram + E, *z = wram + 2 * E;
    for (uint32_t cc = 0; cc < 2; cc++) {
        he_mram_t delta = he_at(cmd->src[cc]) + slot * n, cin = he_at(cmd->src[2 + cc]) + slot * n;
        he_mram_t acc = he_at(cmd->src[4 + cc]) + slot * n, out = he_at(cmd->dst[cc]) + slot * n;
        he_ntt_forward(delta, he_at(c->tw_offset), n, m, wram);
        for (uint32_t w = 0; w < n; w += E) {
            mram_read(acc + w, x, E * 4);
            mram_read(delta + w, y, E * 4);
            mram_read(cin + w, z, E * 4);
            for (uint32_t i = 0; i < E; i++)
                x[i] = he_addmod(z[i], he_mulmod(he_submod(x[i], y[i], m), c->special_inv, m), m);
            mram_write(x, out + w, E * 4);
        }
    }
}
