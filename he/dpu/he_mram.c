/* SPDX-License-Identifier: MIT */
/* Unaligned word ranges of MRAM arrays into WRAM. */
#include "he_kernels.h"

const uint32_t *he_load_words(he_mram_t base, uint32_t idx, uint32_t count, uint32_t *buf)
{
    uint32_t first = idx & ~1u;
    uint32_t end = (idx + count + 1) & ~1u;
    for (uint32_t w = first; w < end; w += 512) {
        uint32_t words = end - w < 512 ? end - w : 512;
        mram_read(base + w, buf + (w - first), words * 4);
    }
    return buf + (idx - first);
}
