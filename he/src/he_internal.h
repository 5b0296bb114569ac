/* SPDX-License-Identifier: MIT */
/* Internals of the HE library shared by its source files. */
#ifndef OPENPIM_HE_INTERNAL_H
#define OPENPIM_HE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <dpu.h>

#include "../dpu/he_abi.h"
#include "openpim_he.h"

/* Sets the thread's last error message (printf format) and returns status. */
openpim_he_status he_fail(openpim_he_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* he_fail for a failed dpu_alloc of nr_dpus: the SDK's error and its reason
 * (openpim_last_error, e.g. how many DPUs are free), after `what` ("" or a
 * prefix such as "2D NTT: "). */
openpim_he_status he_fail_alloc(const char *what, uint32_t nr_dpus, dpu_error_t err);

/* barrett_mu of he_abi.h for q (> 1): floor(2^(2b) / q) modulo 2^32, b = q's bits. */
uint32_t he_barrett_mu(uint32_t q);
/* Moduli from 2^30 up need the kernels built with HE_WIDE (he_modarith.h):
 * the images named with "_wide" after the usual name. */
#define HE_NARROW_LIMIT (1u << 30)
bool he_params_wide(const struct openpim_he_params *params);

uint32_t he_pow_mod(uint32_t base, uint64_t exp, uint32_t q);
uint32_t he_mul_mod(uint32_t a, uint32_t b, uint32_t q);
bool he_is_prime(uint32_t q);
uint32_t he_bit_reverse(uint32_t x, uint32_t bits);
uint32_t he_log2(uint32_t n);

/* Base conversion (he_baseconv.c; also the 2D arrays' he_res2d.c).  Checks
 * the source and target modulus indices (below k, none named twice; `what`
 * prefixes the messages) and marks role[index] 1 for a source, 2 for a target
 * (HE_BCONV_FROM/TO = HE2D_CONV_FROM/TO). */
openpim_he_status he_baseconv_roles(const struct openpim_he_params *p, const uint32_t *from, uint32_t nr_from,
                                    const uint32_t *to, uint32_t nr_to, uint8_t *role, const char *what);
/* The constants of modulus j of a conversion from `from`: a source's scale
 * (Q_F / q_j)^-1 mod q_j; a target's weights w[f] = (Q_F / q_f) mod q_j and
 * *fits = 1 when no source modulus has more bits than q_j. */
uint32_t he_baseconv_scale(const struct openpim_he_params *p, const uint32_t *from, uint32_t nr_from, uint32_t j);
uint32_t he_baseconv_weights(const struct openpim_he_params *p, const uint32_t *from, uint32_t nr_from, uint32_t j,
                             uint32_t *w);

/* Forward and inverse twiddle tables (n words each) of modulus q, in the
 * layouts he_abi.h / he_ntt.c read; n_inv gets n^-1 mod q; scratch: n words. */
void he_twiddles(uint32_t q, uint32_t n, uint32_t *tw, uint32_t *itw, uint32_t *scratch, uint32_t *n_inv);

/* One block of every DPU's MRAM heap (the same offset on all DPUs). */
struct he_block {
    uint64_t offset, size;
    struct he_block *next;
};

struct openpim_he_poly {
    openpim_he_context *ctx;
    uint32_t count;             /* RNS polynomials */
    uint32_t slots;             /* slots per DPU: ceil(count / g) */
    uint32_t slot_words;        /* words per slot: n (k n for relinearisation digits) */
    uint32_t offset;            /* heap byte offset on every DPU */
    enum openpim_he_form form;
    struct he_block *block;
    openpim_he_poly *next_in_ctx;
};

struct openpim_he_relin_key {
    openpim_he_context *ctx;
    struct he_block *block;     /* per DPU: its modulus' residues, [digit j][component c][n] */
    openpim_he_relin_key *next_in_ctx;
};

struct openpim_he_baseconv {
    openpim_he_context *ctx;
    uint32_t nr_from, nr_to;
    uint32_t from[OPENPIM_HE_MAX_MODULI];
    uint8_t role[OPENPIM_HE_MAX_MODULI]; /* enum he_bconv_role of each modulus */
    struct he_block *block;     /* per DPU: struct he_bconv_consts + weights */
    openpim_he_baseconv *next_in_ctx;
};

struct openpim_he_context {
    struct openpim_he_params params;
    uint32_t nr_groups;         /* k, or k + 1 with a special modulus (group k) */
    uint32_t group_size, nr_dpus;
    struct dpu_set_t set;
    uint64_t heap_size;         /* bytes of each DPU's MRAM heap */
    struct he_block *blocks;    /* allocated heap blocks, by offset */
    openpim_he_poly *polys;     /* live arrays, freed with the context */
    openpim_he_relin_key *keys; /* live relinearisation keys, freed with the context */
    openpim_he_baseconv *convs; /* live base conversions, freed with the context */
    double last_us;
    uint64_t last_cycles;
};

/* MRAM heap of every DPU: first-fit allocation of `size` bytes (8-aligned). */
openpim_he_status he_heap_alloc(openpim_he_context *ctx, uint64_t size, struct he_block **block);
void he_heap_free(openpim_he_context *ctx, struct he_block *block);

/* Runs one command on every DPU, adds its modelled time to ctx->last_*;
 * fills cmd's nr_moduli, and nr_groups when 0 (data level: k). */
openpim_he_status he_launch(openpim_he_context *ctx, struct he_dpu_cmd *cmd);

/* An array of `count` slots of slot_words words on every DPU, not listed
 * as a user array (internal temporaries); free with he_array_free. */
openpim_he_status he_array_alloc(openpim_he_context *ctx, uint32_t count, uint32_t slot_words, openpim_he_poly **poly);
void he_array_free(openpim_he_context *ctx, openpim_he_poly *poly);

/* Moves one block of per_dpu_words words per DPU between `stage`
 * ([dpu][per_dpu_words], DPUs in set order: DPU d serves modulus group
 * d / group_size at index d % group_size) and heap byte offset `offset`. */
openpim_he_status he_stage_xfer(openpim_he_context *ctx, uint32_t offset, size_t per_dpu_words, uint32_t *stage,
                                bool to_dpu);

#endif
