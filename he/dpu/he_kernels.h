/* SPDX-License-Identifier: MIT */
/* Kernels of the HE DPU program (he_main.c dispatches to them). */
#ifndef OPENPIM_HE_KERNELS_H
#define OPENPIM_HE_KERNELS_H

#include <stdint.h>

#include <mram.h>

#include "he_abi.h"
#include "he_modarith.h"

/* WRAM per tasklet: element-wise kernels stream HE_EW_WORDS words of each of
 * up to four operands; the (i)NTT streams 2 * HE_NTT_CHUNK words of data and
 * up to HE_NTT_CHUNK + 2 twiddles. */
#define HE_EW_WORDS 128
#define HE_NTT_CHUNK 128
#define HE_TASKLET_WORDS (4 * HE_EW_WORDS)

typedef __mram_ptr uint32_t *he_mram_t;

/* Reads words [idx, idx + count) of an MRAM array into buf (count + 2 words)
 * with 8-byte aligned DMAs of at most 2 KB; returns where word idx landed.
 * Arrays have an even number of words, so the rounding stays inside them. */
const uint32_t *he_load_words(he_mram_t base, uint32_t idx, uint32_t count, uint32_t *buf);

/* Coarse-grained: the calling tasklet transforms one sub-polynomial in place. */
void he_ntt_forward(he_mram_t a, he_mram_t tw, uint32_t n, struct he_mod m, uint32_t *wram);
void he_ntt_inverse(he_mram_t a, he_mram_t itw, uint32_t n, uint32_t n_inv, struct he_mod m, uint32_t *wram);

/* MRAM heap address of a heap byte offset. */
static inline he_mram_t he_at(uint32_t offset)
{
    return (he_mram_t)((__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER + offset);
}

/* Relinearisation steps for one slot (coarse-grained, see he_abi.h). */
void he_relin_keyswitch(const struct he_dpu_cmd *cmd, const struct he_dpu_consts *c, uint32_t slot, struct he_mod m,
                        uint32_t *wram);
void he_relin_finish(const struct he_dpu_cmd *cmd, const struct he_dpu_consts *c, uint32_t slot, struct he_mod m,
                     uint32_t *wram);

/* Base conversion steps (fine-grained, see he_abi.h). */
void he_bconv(const struct he_dpu_cmd *cmd, uint32_t n, uint32_t slots, struct he_mod m, uint32_t *wram);

/* Fine-grained: all tasklets share `words` words of each operand. */
void he_elementwise(const struct he_dpu_cmd *cmd, uint32_t words, struct he_mod m, uint32_t *wram);

#endif
