/* SPDX-License-Identifier: MIT */
/* The rank's physical view ("PIM domain") and its conversion to and from the
 * per-DPU MRAM layout.
 *
 * On a UPMEM DIMM a rank is 8 chips of 8 DPUs.  The 8 DPUs that have the same
 * DPU index within their chip (the same bank) form an "entangled group": the
 * host reaches their MRAMs through one 64-bit memory channel in which chip k
 * drives byte lane k.  So every 64-byte line (cache line) the host reads or
 * writes at a given position of a group carries one 8-byte MRAM word of each
 * of the 8 chips, byte-interleaved.
 *
 * Layout convention (the one used everywhere in OpenPIM):
 *
 *     line i, byte (8*j + k)  ==  byte j of word i of the DPU on chip k
 *                                 (j = 0..7 byte within the 8-byte word,
 *                                  k = 0..7 chip; word i = MRAM bytes
 *                                  8*i .. 8*i+7 from the start of the range)
 *
 * i.e. each line holds byte j of one 8-byte word from each of the 8 chips in
 * its 8-byte group j, chip 0 first.  Seen as an 8x8 byte matrix, a line is the
 * transpose of the 8 words (one per chip) stacked as rows, so the conversion
 * is an 8x8 byte transpose per line, and it is its own inverse.  Example: if
 * chip k's word is the bytes (10k+0, 10k+1, ..., 10k+7), the line is
 *     0 10 20 30 40 50 60 70 | 1 11 21 31 41 51 61 71 | ... | 7 17 27 ... 77
 * The MRAM address bit-swizzle of the real hardware is not modelled: line i
 * of a range maps to word i of that range in each DPU.
 *
 * Three implementations, chosen once at run time from the CPU's features:
 * AVX-512 (with VBMI byte permutes if available, else AVX-512BW), AVX2, and
 * portable C; all give byte-identical results.  Large conversions (from a
 * quarter of the last-level cache, within 1..8 MiB) use non-temporal stores
 * where the destination is 64-byte aligned (for the scatter: all 8 DPU
 * pointers at the same offset modulo 64, a multiple of 8).  All functions are thread-safe; buffers may
 * have any alignment and must not overlap. */
#ifndef OPENPIM_DOMAIN_H
#define OPENPIM_DOMAIN_H

#include <stddef.h>
#include <stdint.h>

#define OP_DOMAIN_LINE 64u  /* bytes of one host-view line */
#define OP_DOMAIN_WAYS 8u   /* chips (DPUs) interleaved in a line */

/* Scatter: line i of `lines` (nr_lines x 64 bytes) -> word i (bytes 8i..8i+7)
 * of each dpu[k], k = 0..7. */
void op_domain_to_dpus(const uint8_t *lines, size_t nr_lines, uint8_t *dpu[8]);

/* Gather: word i of each dpu[k] (nr_words words) -> line i of `lines`
 * (nr_words x 64 bytes). */
void op_dpus_to_domain(const uint8_t *const dpu[8], size_t nr_words, uint8_t *lines);

/* Name of the implementation in use: "avx512vbmi", "avx512bw", "avx2" or
 * "scalar". */
const char *op_domain_impl_name(void);

/* Forces an implementation (for tests and benchmarks); NULL or "auto" goes
 * back to the best one.  Returns 0, or -1 if the name is unknown or this CPU
 * cannot run it (the selection is then unchanged).  Not to be called while
 * other threads convert. */
int op_domain_force_impl(const char *name);

/* Conversions of at least this many bytes use non-temporal stores (when the
 * destination is suitably aligned).  0 restores the default (a quarter of
 * the last-level cache, within 1..8 MiB); SIZE_MAX turns them off.  For
 * benchmarks; not to be called while other threads convert. */
void op_domain_set_nt_threshold(size_t bytes);
size_t op_domain_nt_threshold(void);

#endif
