/* SPDX-License-Identifier: MIT */
/* The rank's physical view (OpenPIM extension, see dpu.h): the host reads and
 * writes an entangled group of a rank (the 8 DPUs with one DPU index, one per
 * chip) as byte-interleaved 64-byte lines, as a real DIMM presents it; the
 * conversion is machine/domain.c's.  Disabled DPUs are still physically
 * there: the view covers them like the others. */
#include <stdlib.h>

#include "internal.h"
#include "report.h"

#define CHIPS 8        /* chips of a rank: DPUs of an entangled group */
#define DPUS_PER_CHIP 8
#define LINE 64        /* bytes of a line of the view: one 8-byte word of each chip */

/* Checks the view arguments of one rank (not its buffers); fills the machine
 * indexes of group's DPUs, chip 0 first. */
static dpu_error_t group_ids(const struct dpu_rank_t *r, uint32_t group, uint64_t offset, size_t size,
                            uint32_t ids[CHIPS])
{
    if (r->nr_dpus != CHIPS * DPUS_PER_CHIP || group >= DPUS_PER_CHIP)
        return DPU_ERR_INVALID_DPU_SET;
    uint64_t mram = op_sdk_info()->mram_size;
    if (offset % 8 || size % LINE || offset > mram || size / 8 > mram - offset)
        return DPU_ERR_INVALID_MRAM_ACCESS;
    for (uint32_t chip = 0; chip < CHIPS; chip++) {
        const struct dpu_t *d = &r->dpus[chip * DPUS_PER_CHIP + group];
        if (d->slice != chip || d->member != group) /* not laid out as 8 chips x 8 DPUs */
            return DPU_ERR_INVALID_DPU_SET;
        ids[chip] = d->id;
    }
    return DPU_OK;
}

/* Moves the groups' lines of the set's ranks: lines[8 * r + g] for group g
 * of rank r (NULL: none).  Every argument is checked before a byte moves.
 * For the timing model this is one transfer through the direct interface
 * (OP_XFER_DIRECT): the bytes a parallel push of (groups moved per rank) x
 * size / 64 bytes to each of the rank's 64 DPUs carries; the report counts
 * the ranks' enabled DPUs, so that is how it is recorded. */
static dpu_error_t view_xfer(struct dpu_set_t set, int to_dpu, uint64_t offset, void *const *lines, size_t size)
{
    dpu_error_t rc = op_set_check(set);
    if (rc != DPU_OK)
        return rc;
    if (set.kind != DPU_SET_RANKS || set.list.nr_ranks == 0)
        return DPU_ERR_INVALID_DPU_SET;
    if (!lines)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    uint32_t nr = set.list.nr_ranks, most = 0;
    uint32_t(*ids)[CHIPS] = malloc((size_t)nr * DPUS_PER_CHIP * sizeof *ids);
    if (!ids)
        return DPU_ERR_SYSTEM;
    for (uint32_t r = 0; r < nr && rc == DPU_OK; r++) {
        uint32_t groups = 0;
        for (uint32_t g = 0; g < DPUS_PER_CHIP && rc == DPU_OK; g++) {
            rc = group_ids(set.list.ranks[r], g, offset, size, ids[r * DPUS_PER_CHIP + g]);
            groups += lines[r * DPUS_PER_CHIP + g] != NULL;
        }
        most = groups > most ? groups : most;
    }
    if (rc != DPU_OK || size == 0 || most == 0) {
        free(ids);
        return rc;
    }
    op_sync_ranks(set);
    char err[256];
    for (uint32_t k = 0; k < nr * DPUS_PER_CHIP && rc == DPU_OK; k++) {
        if (!lines[k])
            continue;
        int failed = to_dpu ? OP_BACKEND(view_write, ids[k], offset, lines[k], size, err, sizeof err)
                            : OP_BACKEND(view_read, ids[k], offset, lines[k], size, err, sizeof err);
        if (failed) {
            op_warn("%s", err);
            rc = DPU_ERR_SYSTEM;
        }
    }
    free(ids);
    if (rc == DPU_OK)
        op_record_xfer(set, OP_XFER_DIRECT, to_dpu, OP_REGION_MRAM, most * size / LINE, CHIPS * DPUS_PER_CHIP, -1);
    return rc;
}

/* One group of one rank: a set-wide transfer with only that group's lines. */
static dpu_error_t one_group(struct dpu_set_t rank, uint32_t group, int to_dpu, uint64_t offset, void *lines,
                             size_t size)
{
    if (op_set_check(rank) != DPU_OK || rank.kind != DPU_SET_RANKS || rank.list.nr_ranks != 1 ||
        group >= DPUS_PER_CHIP)
        return DPU_ERR_INVALID_DPU_SET;
    if (size && !lines)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    void *all[DPUS_PER_CHIP] = {0};
    all[group] = lines;
    return view_xfer(rank, to_dpu, offset, all, size);
}

dpu_error_t openpim_rank_view_write(struct dpu_set_t rank, uint32_t group, uint64_t offset, const void *lines,
                                    size_t size)
{
    OP_LOCKED_RETURN(one_group(rank, group, 1, offset, (void *)lines, size));
}

dpu_error_t openpim_rank_view_read(struct dpu_set_t rank, uint32_t group, uint64_t offset, void *lines, size_t size)
{
    OP_LOCKED_RETURN(one_group(rank, group, 0, offset, lines, size));
}

dpu_error_t openpim_rank_view_push(struct dpu_set_t set, dpu_xfer_t direction, uint64_t offset, void *const *lines,
                                   size_t size)
{
    if (direction != DPU_XFER_TO_DPU && direction != DPU_XFER_FROM_DPU)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    OP_LOCKED_RETURN(view_xfer(set, direction == DPU_XFER_TO_DPU, offset, lines, size));
}
