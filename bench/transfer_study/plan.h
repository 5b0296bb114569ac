/* SPDX-License-Identifier: MIT */
/* The experiment plan of the data-transfer study ("Analysis of Data Transfers
 * with UPMEM Data Processing Units", [XferStudy]): a 40-rank server, a
 * given number of ranks allocated, arrays of 32-bit integers broadcast to the
 * DPUs, sent to and retrieved from each DPU, into MRAM or WRAM.  The paper
 * gives no sizes beyond "64 MB in blocks of 8 MB"; the sizes below span its
 * statements (the 11 MB L3 of its host falls between 8 and 16 MB).
 *
 * One list shared by study_host (end to end through the SDK) and study_model
 * (the same calls evaluated on the timing model directly), so both run the
 * same points. */
#ifndef OPENPIM_TRANSFER_STUDY_PLAN_H
#define OPENPIM_TRANSFER_STUDY_PLAN_H

#include <stdint.h>

#define KB 1024ull
#define MB (1024ull * 1024ull)

enum study_kind {
    STUDY_BCAST, /* dpu_broadcast_to MRAM, `size` bytes in size/block calls of `block` bytes */
    STUDY_TO,    /* dpu_push_xfer TO_DPU, a different buffer for each DPU (MRAM) */
    STUDY_FROM,  /* dpu_push_xfer FROM_DPU into a different buffer for each DPU (MRAM) */
    STUDY_WBCAST /* dpu_broadcast_to a __host WRAM array */
};

static const char *const study_kind_name[] = {"bcast", "to", "from", "wbcast"};

struct study_point {
    enum study_kind kind;
    uint64_t size;  /* bytes per DPU */
    uint64_t block; /* bytes per call (STUDY_BCAST); = size otherwise */
};

/* Rank counts: the published server's table columns (64 .. 2,560 DPUs). */
static const unsigned study_ranks[] = {1, 2, 5, 10, 20, 40};
#define STUDY_NR_RANKS (sizeof study_ranks / sizeof study_ranks[0])

/* MRAM sizes per DPU (Figs. 2, 4, 5). */
static const uint64_t study_sizes[] = {64, 512, 4 * KB, 32 * KB, 256 * KB, 1 * MB, 4 * MB, 8 * MB, 16 * MB, 32 * MB, 64 * MB};
#define STUDY_NR_SIZES (sizeof study_sizes / sizeof study_sizes[0])

/* Fig. 3: 64 MB broadcast in blocks of 1 .. 64 MB. */
#define STUDY_CHUNK_TOTAL (64 * MB)
static const uint64_t study_blocks[] = {1 * MB, 2 * MB, 4 * MB, 8 * MB, 16 * MB, 32 * MB};

/* Fig. 6: WRAM broadcast sizes (the DPU program's __host array holds the largest). */
static const uint64_t study_wram_sizes[] = {64, 512, 4 * KB, 32 * KB};
#define STUDY_WRAM_BYTES (32 * KB)

/* Calls `fn` for every point of the plan, in a fixed order. */
static inline void study_for_each_point(void (*fn)(const struct study_point *p, void *arg), void *arg)
{
    struct study_point p;
    for (unsigned i = 0; i < STUDY_NR_SIZES; i++) {
        p = (struct study_point){STUDY_BCAST, study_sizes[i], study_sizes[i]};
        fn(&p, arg);
    }
    for (unsigned i = 0; i < sizeof study_blocks / sizeof study_blocks[0]; i++) {
        p = (struct study_point){STUDY_BCAST, STUDY_CHUNK_TOTAL, study_blocks[i]};
        fn(&p, arg);
    }
    for (unsigned i = 0; i < STUDY_NR_SIZES; i++) {
        p = (struct study_point){STUDY_TO, study_sizes[i], study_sizes[i]};
        fn(&p, arg);
        p = (struct study_point){STUDY_FROM, study_sizes[i], study_sizes[i]};
        fn(&p, arg);
    }
    for (unsigned i = 0; i < sizeof study_wram_sizes / sizeof study_wram_sizes[0]; i++) {
        p = (struct study_point){STUDY_WBCAST, study_wram_sizes[i], study_wram_sizes[i]};
        fn(&p, arg);
    }
}

#endif
