/* The rank's physical view (OpenPIM extension, see dpu.h): the host reads and
 * writes an entangled group of a rank (the 8 DPUs with one DPU index, one per
 * chip) as byte-interleaved 64-byte lines, as a real DIMM presents it; the
 * conversion is machine/domain.c's.  Disabled DPUs are still physically
 * there: the view covers them like the others. */
#include "internal.h"
#include "report.h"
#include "vclock.h"

#define CHIPS 8        /* chips of a rank: DPUs of an entangled group */
#define DPUS_PER_CHIP 8
#define LINE 64        /* bytes of a line of the view: one 8-byte word of each chip */

/* Checks the arguments; fills the machine indexes of the group's DPUs, chip 0 first. */
static dpu_error_t prepare(struct dpu_set_t rank, uint32_t group, uint64_t offset, size_t size, const void *buf,
                           uint32_t ids[CHIPS])
{
    dpu_error_t rc = op_set_check(rank);
    if (rc != DPU_OK)
        return rc;
    if (rank.kind != DPU_SET_RANKS || rank.list.nr_ranks != 1)
        return DPU_ERR_INVALID_DPU_SET;
    const struct dpu_rank_t *r = rank.list.ranks[0];
    if (r->nr_dpus != CHIPS * DPUS_PER_CHIP || group >= DPUS_PER_CHIP)
        return DPU_ERR_INVALID_DPU_SET;
    uint64_t mram = op_sdk_info()->mram_size;
    if (offset % 8 || size % LINE || offset > mram || size / 8 > mram - offset)
        return DPU_ERR_INVALID_MRAM_ACCESS;
    if (size && !buf)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    for (uint32_t chip = 0; chip < CHIPS; chip++) {
        const struct dpu_t *d = &r->dpus[chip * DPUS_PER_CHIP + group];
        if (d->slice != chip || d->member != group) /* not laid out as 8 chips x 8 DPUs */
            return DPU_ERR_INVALID_DPU_SET;
        ids[chip] = d->id;
    }
    if ((rc = op_sync_ranks(rank)) != DPU_OK && rc != DPU_ERR_DPU_FAULT)
        return rc;
    return DPU_OK;
}

/* For the timing model, `size` bytes of view cross the memory bus exactly as a
 * parallel push of size/64 bytes to each of the rank's 64 DPUs does (the push
 * is 8 groups of size/8 bytes of lines); the report counts the rank's enabled
 * DPUs, so that is how the transfer is recorded. */
static void record(struct dpu_set_t rank, int to_dpu, size_t size, double start)
{
    op_record_xfer(rank, OP_XFER_PARALLEL, to_dpu, OP_REGION_MRAM, size / LINE,
                   CHIPS * DPUS_PER_CHIP, -1, start);
}

static dpu_error_t openpim_rank_view_write_locked(struct dpu_set_t rank, uint32_t group, uint64_t offset,
                                                  const void *lines, size_t size)
{
    double start = op_real_now_us();
    uint32_t ids[CHIPS];
    dpu_error_t rc = prepare(rank, group, offset, size, lines, ids);
    if (rc != DPU_OK || size == 0)
        return rc;
    char err[256];
    if (OP_BACKEND(view_write, ids, offset, lines, size, err, sizeof err) != 0) {
        op_warn("%s", err);
        return DPU_ERR_SYSTEM;
    }
    record(rank, 1, size, start);
    return DPU_OK;
}

dpu_error_t openpim_rank_view_write(struct dpu_set_t rank, uint32_t group, uint64_t offset, const void *lines,
                                    size_t size)
{
    OP_LOCKED_RETURN(openpim_rank_view_write_locked(rank, group, offset, lines, size));
}

static dpu_error_t openpim_rank_view_read_locked(struct dpu_set_t rank, uint32_t group, uint64_t offset, void *lines,
                                                 size_t size)
{
    double start = op_real_now_us();
    uint32_t ids[CHIPS];
    dpu_error_t rc = prepare(rank, group, offset, size, lines, ids);
    if (rc != DPU_OK || size == 0)
        return rc;
    char err[256];
    if (OP_BACKEND(view_read, ids, offset, lines, size, err, sizeof err) != 0) {
        op_warn("%s", err);
        return DPU_ERR_SYSTEM;
    }
    record(rank, 0, size, start);
    return DPU_OK;
}

dpu_error_t openpim_rank_view_read(struct dpu_set_t rank, uint32_t group, uint64_t offset, void *lines, size_t size)
{
    OP_LOCKED_RETURN(openpim_rank_view_read_locked(rank, group, offset, lines, size));
}
