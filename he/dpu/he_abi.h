/* SPDX-License-Identifier: MIT */
/* The interface between the HE host library (he/src) and its DPU kernels
 * (he/dpu): one header, compiled by both sides, so the layouts agree.  Every
 * field is a 32-bit word, so the structures have the same layout in the DPU's
 * 32-bit data model and on the host.
 *
 * MRAM: everything lives in the MRAM heap (DPU_MRAM_HEAP_POINTER), at byte
 * offsets the host chooses; all DPUs of a context use the same layout.  The
 * twiddle tables of the DPU's modulus come first (he_dpu_consts), then the
 * host's allocations (polynomial arrays). */
#ifndef OPENPIM_HE_ABI_H
#define OPENPIM_HE_ABI_H

#include <stdint.h>

/* Tasklets of the kernels (DRAMatic uses the 16 of a v1B DPU). */
#define HE_NR_TASKLETS 16

/* Per DPU, written once when the context is created (symbol he_consts). */
struct he_dpu_consts {
    uint32_t q;            /* this DPU's RNS modulus, q < 2^30, q = 1 mod 2n */
    uint32_t q_bits;       /* bit length b of q */
    uint32_t barrett_mu;   /* floor(2^(2b) / q) */
    uint32_t n;            /* polynomial degree (a power of two) */
    uint32_t n_inv;        /* n^-1 mod q (iNTT scaling) */
    uint32_t tw_offset;    /* heap byte offset: forward twiddles, n words, [m + i] = psi^bitrev(m + i) */
    uint32_t itw_offset;   /* heap byte offset: inverse twiddles, n words, in the order the iNTT reads them */
    uint32_t group_index;  /* index of this DPU inside its modulus group */
    uint32_t group_size;   /* DPUs per modulus group */
    uint32_t modulus_index;/* which RNS modulus (group) this DPU serves; k = the special one */
    uint32_t special_inv;  /* p^-1 mod q, p the special modulus (relinearisation); 0 without one */
    uint32_t pad;
};

/* Operations of a launch. */
enum he_op {
    HE_OP_ADD = 1,      /* dst0 = src0 + src1 */
    HE_OP_SUB,          /* dst0 = src0 - src1 */
    HE_OP_NEG,          /* dst0 = -src0 */
    HE_OP_MUL,          /* dst0 = src0 * src1 (pointwise) */
    HE_OP_NTT,          /* dst0 = NTT(src0): natural order in, bit-reversed out */
    HE_OP_INTT,         /* dst0 = iNTT(src0): bit-reversed in, natural order out */
    HE_OP_BGV_TENSOR,   /* (dst0, dst1, dst2) = (s0*s2, s0*s3 + s1*s2, s1*s3) */
    HE_OP_COPY,         /* dst0 = src0 */
    /* relinearisation, key switching (all groups, the special one included):
     * src0 = the RNS digits of c2 in coefficient form, k sub-polynomials per
     * slot (consumed), src1 = this DPU's key residues [digit j][component c][n];
     * dst0/dst1 = sum_j NTT(digit_j mod q) * key[j][c] (NTT form), and on the
     * special modulus' DPUs the iNTT of that */
    HE_OP_RELIN_KEYSWITCH,
    /* relinearisation, end (data groups): src0/src1 = BGV corrections delta_c
     * (coefficient form, consumed), src2/src3 = c0/c1, src4/src5 = the key
     * switching sums; dst_c = c_c + (sum_c - NTT(delta_c)) * p^-1 */
    HE_OP_RELIN_FINISH,
    /* RNS fast base conversion (he_baseconv.c, openpim_he_base_convert),
     * src1 = this DPU's struct he_bconv_consts block.  Step 1 (all groups):
     * source groups dst0 = src0 and dst1 = src0 * (Q_F / q)^-1; groups outside
     * the conversion dst0 = 0; target groups nothing.  Step 2 (target groups):
     * src0 = the scaled source residues, nr_from sub-polynomials per slot;
     * dst0 = sum_f (src0[f] mod q) * w_f. */
    HE_OP_BCONV_SCALE,
    HE_OP_BCONV_SUM,
};

/* Roles of a DPU in a base conversion, and its constants (MRAM, at a heap
 * offset; HE_BCONV_HEADER words, then nr_from weights, padded to even). */
enum he_bconv_role { HE_BCONV_NONE = 0, HE_BCONV_FROM, HE_BCONV_TO };
#define HE_BCONV_HEADER 4
struct he_bconv_consts {
    uint32_t role;     /* enum he_bconv_role */
    uint32_t scale;    /* source groups: (Q_F / q)^-1 mod q */
    uint32_t nr_from;  /* number of source moduli */
    uint32_t fits;     /* target groups: 1 when every source modulus has at most q's bits, so a
                          source residue times a weight is below 2^(2 bits(q)) (one Barrett) */
    /* then, target groups: w_f = (Q_F / q_f) mod q for each source f */
};

/* One launch's command, the same for every DPU (symbol he_cmd).  Offsets are
 * heap byte offsets of polynomial arrays: the DPU's sub-polynomials lie
 * contiguously there, n words each.  A DPU holds sub-polynomials p of the
 * array with p mod group_size == group_index, in slots 0, 1, ...; it computes
 * its own count from nr_polys. */
struct he_dpu_cmd {
    uint32_t op;
    uint32_t nr_polys;   /* RNS polynomials in the arrays */
    uint32_t nr_groups;  /* modulus groups that take part (DPUs of later groups do nothing) */
    uint32_t nr_moduli;  /* k: data moduli (the special modulus is group k) */
    uint32_t src[6];
    uint32_t dst[3];
    uint32_t pad;
};

/* Sub-polynomials held by the DPU at `group_index` of `group_size` DPUs
 * when an array holds nr_polys polynomials. */
static inline uint32_t he_slots_on_dpu(uint32_t nr_polys, uint32_t group_index, uint32_t group_size)
{
    return nr_polys > group_index ? (nr_polys - group_index + group_size - 1) / group_size : 0;
}

#endif
