/* SPDX-License-Identifier: MIT */
/* Host/DPU interface of the 2D (four-step) NTT across DPUs (Jonatan et al.,
 * section 5.2.3), compiled by both sides; every field is a 32-bit word.
 *
 * An n-point negacyclic NTT (n = n1 n2, input index i = i1 + n1 i2) is done
 * by a group of g DPUs in two steps:
 *   step 1: n1 negacyclic NTTs of size n2 (root psi^n1) on the columns
 *           a[i1 + n1 i2], i2 = 0..n2-1; DPU x holds columns
 *           i1 = x c1 .. x c1 + c1 - 1 (c1 = n1 / g), then multiplies output
 *           slot s of column i1 by the twist psi^(i1 (2 bitrev(s) + 1 - n2));
 *   All-to-All between the g DPUs (the host library calls comm);
 *   step 2: n2 negacyclic NTTs of size n1 (root psi^n2) on the rows; DPU x
 *           holds rows s = x r2 .. x r2 + r2 - 1 (r2 = n2 / g), and row s's
 *           output slot t is slot s n1 + t of the whole NTT in SEAL's
 *           bit-reversed order, so DPU x ends with words
 *           [x n / g, (x + 1) n / g) of the result.
 * The inverse (input in SEAL's bit-reversed form, DPU x holding words
 * [x n / g, (x + 1) n / g) as above) runs the same network backwards:
 *   inverse step 1: the rows s (held as [slots][r2][n1] in a) go through
 *           Gentleman-Sande butterflies, the forward layers undone last to
 *           first with the inverse twiddles (unscaled), written into b in
 *           the layout c has in the forward (row q r2 + s_loc, word kappa:
 *           block q is what DPU q needs);
 *   All-to-All b -> c, after which c has the forward's b layout (row s,
 *           word kappa = slot c1 + i1_local);
 *   inverse step 2: column kappa gathered from c, multiplied by the inverse
 *           twist times n^-1 (all scaling folded in), unscaled GS butterflies
 *           of size n2, written in natural order into a as [slots * c1][n2].
 * A DPU holds `slots` such NTTs (residue polynomials, each with its own
 * modulus); only the first `valid` are real (the last groups of a batch that
 * does not divide evenly hold fewer).
 *
 * MRAM (heap byte offsets, the same on every DPU; all 8-byte aligned):
 *   consts    struct he2d_consts, at offset 0
 *   mods      [slots] struct he2d_mod
 *   tw1, tw2  [slots][n2], [slots][n1]: forward twiddles of the step sizes,
 *             tw[m + i] = root^bitrev(m + i) (the layout of he_ntt.c)
 *   twist     [slots * c1][n2]: column kappa = slot c1 + i1_local
 *   itw1, itw2  [slots][n2], [slots][n1]: inverse twiddles, itw[i] = tw[i]^-1
 *   itwist    [slots * c1][n2]: n^-1 / twist, the inverse's
 *   a         [slots * c1][n2]: the input columns; step 2 writes its output
 *             here as [slots][r2][n1] (the inverse: the other way round)
 *   b         [n2][row_words]: step 1's output, row s = slot s of every column
 *             kappa (row_words = slots c1, rounded up to even when it
 *             exceeds HE2D_BATCH; an odd count is written in pairs of rows); rows
 *             p r2 .. p r2 + r2 - 1 are the All-to-All's block for DPU p
 *   c         [n2][row_words]: the All-to-All's output: row q r2 + s_loc,
 *             word kappa, came from DPU q's column kappa. */
#ifndef OPENPIM_HE_NTT2D_ABI_H
#define OPENPIM_HE_NTT2D_ABI_H

#include <stdint.h>

#define HE2D_NR_TASKLETS 16
#define HE2D_MAX_SIDE 256 /* n1, n2 <= 256: n <= 2^16 */
#define HE2D_MAX_WEIGHTS 128 /* sources of a base conversion: OPENPIM_HE_MAX_MODULI */
#define HE2D_BATCH 8      /* sub-NTTs a DPU transforms together (WRAM: 3 x 8 KB) */

struct he2d_consts {
    uint32_t n1, n2, log_n1, log_n2;
    uint32_t c1, r2, group_dpus, slots;
    uint32_t valid, row_words, log_c1, pad1;
    uint32_t mods, tw1, tw2, twist;
    uint32_t a, b, c, pad2;
    uint32_t itw1, itw2, itwist, pad3;
};

struct he2d_mod {
    uint32_t q, bits, mu, pad; /* as struct he_mod (he_modarith.h) */
};

/* The step a launch runs. */
enum he2d_step {
    HE2D_STEP_COLUMNS = 1,
    HE2D_STEP_ROWS = 2,
    HE2D_STEP_INV_ROWS = 3,
    HE2D_STEP_INV_COLUMNS = 4,
    /* the resident layout's operations (src/he_res2d.c) */
    HE2D_STEP_ELEMWISE = 5,    /* dst = a op b, word by word, on the valid slots */
    HE2D_STEP_BCONV_SCALE = 6, /* base conversion, step 1 (below) */
    HE2D_STEP_BCONV_SUM = 7,   /* base conversion, step 2 */
};

enum he2d_ew_op { HE2D_EW_ADD = 0, HE2D_EW_SUB, HE2D_EW_MUL, HE2D_EW_MAC /* dst += a b */ };

/* The operands of a launch (symbol he2d_args, sent before every launch: the
 * program is reloaded after each All-to-All).  Heap byte offsets of arrays
 * of [slots][n / g] words (a resident polynomial's share on this DPU):
 *   COLUMNS reads a, ROWS writes dst (the forward NTT a -> dst, b and c of
 *   the consts as scratch); INV_ROWS reads a, INV_COLUMNS writes dst;
 *   ELEMWISE: dst = a op b;
 *   BCONV_SCALE: at a slot whose role is FROM, dst = a and tmp = a * scale;
 *   at NONE, dst = 0; BCONV_SUM: at TO, dst = sum_f relay[slot][f] w[f]
 *   (relay: [slots][nr_from][n / g], the host's relay of the sources' tmp).
 *   conv: the conversion's table, [slots] struct he2d_conv_slot then
 *   [slots][weights] words (weights = nr_from rounded up to even). */
struct he2d_args {
    uint32_t step, op, dst, a;
    uint32_t b, conv, tmp, relay;
};

enum he2d_conv_role { HE2D_CONV_NONE = 0, HE2D_CONV_FROM, HE2D_CONV_TO };

struct he2d_conv_slot {
    uint32_t role, scale, nr_from, fits; /* fits: every source modulus has at most this one's bits */
};

#endif
