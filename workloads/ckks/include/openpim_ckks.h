/* SPDX-License-Identifier: MIT */
/* OpenPIM CKKS: homomorphic multiplication of RNS-CKKS ciphertexts on the DPUs,
 * built on the HE library (he/, openpim_he.h), as [Jonatan24] (Jonatan et al.,
 * section 5, Figure 16) breaks it down: the tensor product, key switching
 * (relinearisation) by the hybrid method of Han and Ki (dnum digits, ModUp to
 * the extension limbs, inner product with the switching key, ModDown) and
 * rescaling.
 *
 * Moduli: openpim_he_params_generate(n, L + 1 + K, bits) (increasing); the
 * first L + 1 are the ciphertext limbs q_0 .. q_L, the last K the extension
 * limbs p_0 .. p_{K-1} (P = their product).  Digit d of the key switching is
 * the limbs [d alpha, (d + 1) alpha), alpha = (L + 1) / dnum.
 *
 * Ciphertexts are pairs of he polynomial arrays (count ciphertexts each) over
 * all L + 1 + K moduli, in NTT form (he's, SEAL's bit-reversed form).  An
 * input's residues at the extension limbs are ignored; the product comes out
 * at level L - 1: residues q_0 .. q_{L-1} hold it, those at q_L and the
 * extension limbs are zero.
 *
 * Arithmetic (every step exact modular arithmetic, checked bit for bit
 * against workloads/ckks/tests/ckks_ref.py):
 *   (d0, d1, d2) = (a0 b0, a0 b1 + a1 b0, a1 b1)
 *   x = iNTT(d2); for each digit d: e_d = NTT(Conv_{digit d -> all other limbs}(x))
 *   (s0, s1) = sum_d e_d * key_d                     (over Q and P)
 *   r_c = (s_c - NTT(Conv_{P -> Q}(iNTT(s_c)))) * P^-1          (ModDown)
 *   u_c = d_c + r_c
 *   out_c = (u_c - NTT(Conv_{q_L -> q_0..q_{L-1}}(iNTT(u_c)))) * q_L^-1   (rescale)
 * with Conv he's fast base conversion (openpim_he_base_convert). */
#ifndef OPENPIM_CKKS_H
#define OPENPIM_CKKS_H

#include <stdint.h>

#include "openpim_he.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The widest primes this CKKS is tested with (the HE library itself takes 32 bits). */
#define OPENPIM_CKKS_MAX_PRIME_BITS 30

struct openpim_ckks_params {
    uint32_t n;         /* ring degree, a power of two in [2^10, 2^16] */
    uint32_t levels;    /* L >= 1: ciphertexts have L + 1 limbs */
    uint32_t ext_limbs; /* K >= 1 extension limbs */
    uint32_t dnum;      /* key switching digits: 1 <= dnum <= L + 1, dividing L + 1 */
    uint32_t bits;      /* bit size of every prime, <= OPENPIM_CKKS_MAX_PRIME_BITS */
};

/* The reason for the calling thread's last error (never NULL). */
const char *openpim_ckks_last_error(void);

/* Checks the parameters (the HE library's limits included). */
openpim_he_status openpim_ckks_params_check(const struct openpim_ckks_params *params);

typedef struct openpim_ckks_context openpim_ckks_context;

/* An he context over the L + 1 + K moduli (config as he's; nr_dpus >= L + 1 + K),
 * and the base conversions of the key switching and the rescaling. */
openpim_he_status openpim_ckks_context_create(const struct openpim_ckks_params *params,
                                              const struct openpim_he_config *config, openpim_ckks_context **ctx);
void openpim_ckks_context_destroy(openpim_ckks_context *ctx); /* NULL is a no-op */

/* The he context (to allocate, upload and download ciphertext arrays), and
 * the moduli: L + 1 + K words, ciphertext limbs first. */
openpim_he_context *openpim_ckks_he(openpim_ckks_context *ctx);
const struct openpim_he_params *openpim_ckks_he_params(const openpim_ckks_context *ctx);

typedef struct openpim_ckks_key openpim_ckks_key;

/* Host -> DPUs: the switching key of s^2 (relinearisation key),
 * dnum * 2 * (L + 1 + K) * n words ([digit][component][modulus][n], NTT
 * form, every word below its modulus), kept for `count` ciphertexts at a time
 * (he's operations take arrays of equal counts, so it is stored count times). */
openpim_he_status openpim_ckks_key_upload(openpim_ckks_context *ctx, const uint32_t *data, uint32_t count,
                                          openpim_ckks_key **key);
void openpim_ckks_key_free(openpim_ckks_context *ctx, openpim_ckks_key *key); /* NULL is a no-op */

/* Modelled time of one multiplication by the categories of [Jonatan24]'s
 * Figure 16 (microseconds of openpim_modelled_time_us): every DPU launch in
 * its category, the host's relays of the base conversions (DPU -> host ->
 * DPUs of the other limbs) as Inter-DPU. */
enum openpim_ckks_category {
    OPENPIM_CKKS_POLY_ADD = 0, /* the additions d_c + r_c and the rescaling's subtraction */
    OPENPIM_CKKS_POLY_MULT,    /* the tensor product and the rescaling's multiply by q_L^-1 */
    OPENPIM_CKKS_NTT,          /* every NTT and iNTT */
    OPENPIM_CKKS_KEY_SWITCH,   /* base conversion kernels, key inner product, ModDown's subtract and multiply */
    OPENPIM_CKKS_INTER_DPU,    /* the base conversions' relays through the host */
    OPENPIM_CKKS_NR_CATEGORIES
};
const char *openpim_ckks_category_name(enum openpim_ckks_category c);

#define OPENPIM_CKKS_MAX_STEPS 128
struct openpim_ckks_step {
    char name[32];                         /* e.g. "modup[1] ntt" */
    enum openpim_ckks_category category;
    double us;                             /* modelled time of the step */
    double kernel_us;                      /* of which DPU kernel time (slowest DPU per launch) */
};
struct openpim_ckks_times {
    double us[OPENPIM_CKKS_NR_CATEGORIES];
    double total_us;
    uint32_t nr_steps;
    struct openpim_ckks_step steps[OPENPIM_CKKS_MAX_STEPS];
};

/* out = a * b (ciphertext x ciphertext, relinearised, rescaled), for the
 * count ciphertexts of the arrays.  a[i], b[i], out[i] arrays of the
 * context's he context, all of the key's count; a and b in NTT form; out
 * distinct from each other and the inputs.  times may be NULL. */
openpim_he_status openpim_ckks_multiply(openpim_ckks_context *ctx, const openpim_ckks_key *key,
                                        openpim_he_poly *const out[2], const openpim_he_poly *const a[2],
                                        const openpim_he_poly *const b[2], struct openpim_ckks_times *times);

/* ---- the 2D layout ([Jonatan24]'s): each limb spread over g DPUs ------------
 * The same multiplication, bit for bit, on he's resident 2D arrays
 * (openpim_he_poly2d): one group of g DPUs per limb (g (L + 1 + K) DPUs),
 * every NTT / iNTT a 2D NTT on the resident data (two launches and comm's
 * All-to-All between the g DPUs), element-wise steps on the DPUs of every
 * limb, base conversions relayed by the host between the groups.  Data stays
 * on the DPUs from the upload of the inputs to the download of the product.
 * Ciphertexts are pairs of resident arrays of `count` polynomials (NTT
 * form); the tensor product is four element-wise launches (three products and
 * a multiply-accumulate), the key's inner product multiply-accumulates.
 * Breakdown: as above, the All-to-Alls of the (i)NTTs and the relays of the
 * conversions in Inter-DPU, each (i)NTT's two launches in NTT/iNTT. */

struct openpim_ckks2d_config {
    uint32_t group_dpus;     /* g, DPUs per limb: a power of two <= n2 (openpim_he_ntt2d's) */
    uint32_t count;          /* ciphertexts per array, >= 1 */
    const char *profile;     /* dpu_alloc profile (NULL: the environment's) */
    enum openpim_he_mul mul;
    enum openpim_he_comm comm;
    const char *dpu_dir;     /* NULL: the build's */
};

typedef struct openpim_ckks2d_context openpim_ckks2d_context;
typedef struct openpim_ckks2d_key openpim_ckks2d_key;

openpim_he_status openpim_ckks2d_context_create(const struct openpim_ckks_params *params,
                                                const struct openpim_ckks2d_config *config,
                                                openpim_ckks2d_context **ctx);
void openpim_ckks2d_context_destroy(openpim_ckks2d_context *ctx); /* NULL is a no-op */
/* The he 2D object (to allocate, upload and download arrays) and the moduli. */
openpim_he_ntt2d *openpim_ckks2d_he(openpim_ckks2d_context *ctx);
const struct openpim_he_params *openpim_ckks2d_he_params(const openpim_ckks2d_context *ctx);

/* The switching key, as openpim_ckks_key_upload's data (one copy; stored
 * once per ciphertext of the arrays). */
openpim_he_status openpim_ckks2d_key_upload(openpim_ckks2d_context *ctx, const uint32_t *data,
                                            openpim_ckks2d_key **key);
void openpim_ckks2d_key_free(openpim_ckks2d_context *ctx, openpim_ckks2d_key *key); /* NULL is a no-op */

/* out = a * b as openpim_ckks_multiply, on resident 2D arrays of the
 * context's object (a, b in NTT form; out distinct from each other and the
 * inputs).  times may be NULL. */
openpim_he_status openpim_ckks2d_multiply(openpim_ckks2d_context *ctx, const openpim_ckks2d_key *key,
                                          openpim_he_poly2d *const out[2], const openpim_he_poly2d *const a[2],
                                          const openpim_he_poly2d *const b[2], struct openpim_ckks_times *times);

#ifdef __cplusplus
}
#endif

#endif
