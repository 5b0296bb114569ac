/* The rank's physical view (OpenPIM extension, see dpu.h): the host reads and
 * writes an entangled group of a rank (the 8 DPUs with one DPU index, one per
 * chip) as byte-interleaved 64-byte lines, as a real DIMM presents it; the
 * conversion is machine/domain.c's.  Disabled DPUs are still physically
 * there: the view covers them like the others. */
#define _GNU_SOURCE /* mincore */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../machine/domain.h"
#include "internal.h"
#include "report.h"
#include "vclock.h"

#define GROUP_SIZE OP_CHIPS_PER_RANK
#define STAGE_WORDS 4096u /* words per DPU converted per step when reading through pread */

/* Checks the arguments; fills the machine indexes of the group's DPUs, chip 0 first. */
static dpu_error_t prepare(struct dpu_set_t rank, uint32_t group, uint64_t offset, size_t size, const void *buf,
                           uint32_t ids[GROUP_SIZE])
{
    dpu_error_t rc = op_set_check(rank);
    if (rc != DPU_OK)
        return rc;
    if (rank.kind != DPU_SET_RANKS || rank.list.nr_ranks != 1)
        return DPU_ERR_INVALID_DPU_SET;
    const struct dpu_rank_t *r = rank.list.ranks[0];
    if (r->nr_dpus != OP_CHIPS_PER_RANK * OP_DPUS_PER_CHIP || group >= OP_DPUS_PER_CHIP)
        return DPU_ERR_INVALID_DPU_SET;
    uint64_t mram = op_machine_mram_size(op_sdk_machine());
    if (offset % 8 || size % OP_DOMAIN_LINE || offset > mram || size / 8 > mram - offset)
        return DPU_ERR_INVALID_MRAM_ACCESS;
    if (size && !buf)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    for (uint32_t chip = 0; chip < GROUP_SIZE; chip++) {
        const struct dpu_t *d = &r->dpus[chip * OP_DPUS_PER_CHIP + group];
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
    op_record_xfer(rank, OP_XFER_PARALLEL, to_dpu, OP_REGION_MRAM, size / OP_DOMAIN_LINE,
                   OP_CHIPS_PER_RANK * OP_DPUS_PER_CHIP, start);
}

static dpu_error_t openpim_rank_view_write_locked(struct dpu_set_t rank, uint32_t group, uint64_t offset,
                                                  const void *lines, size_t size)
{
    double start = op_real_now_us();
    uint32_t ids[GROUP_SIZE];
    dpu_error_t rc = prepare(rank, group, offset, size, lines, ids);
    if (rc != DPU_OK || size == 0)
        return rc;
    struct op_machine *m = op_sdk_machine();
    char err[256];
    if (op_machine_check_mram_write(m, ids, GROUP_SIZE, offset, size / 8, err, sizeof err) != 0) {
        op_warn("%s", err);
        return DPU_ERR_SYSTEM;
    }
    uint8_t *dst[GROUP_SIZE];
    for (uint32_t chip = 0; chip < GROUP_SIZE; chip++)
        dst[chip] = op_machine_mram(m, ids[chip]) + offset;
    op_domain_to_dpus(lines, size / OP_DOMAIN_LINE, dst);
    record(rank, 1, size, start);
    return DPU_OK;
}

dpu_error_t openpim_rank_view_write(struct dpu_set_t rank, uint32_t group, uint64_t offset, const void *lines,
                                    size_t size)
{
    OP_LOCKED_RETURN(openpim_rank_view_write_locked(rank, group, offset, lines, size));
}

/* Whether every page of [p, p + len) of the MRAM mapping is backed, so that
 * reading it through the mapping allocates nothing. */
static int resident(const uint8_t *p, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)p & ~(uintptr_t)(page - 1), end = (uintptr_t)p + len;
    unsigned char vec[4096];
    while (start < end) {
        size_t pages = (end - start + page - 1) / page;
        if (pages > sizeof vec)
            pages = sizeof vec;
        if (mincore((void *)start, pages * page, vec) != 0)
            return 0;
        for (size_t i = 0; i < pages; i++)
            if (!(vec[i] & 1))
                return 0;
        start += pages * page;
    }
    return 1;
}

static dpu_error_t openpim_rank_view_read_locked(struct dpu_set_t rank, uint32_t group, uint64_t offset, void *lines,
                                                 size_t size)
{
    double start = op_real_now_us();
    uint32_t ids[GROUP_SIZE];
    dpu_error_t rc = prepare(rank, group, offset, size, lines, ids);
    if (rc != DPU_OK || size == 0)
        return rc;
    struct op_machine *m = op_sdk_machine();
    size_t words = size / OP_DOMAIN_LINE;
    const uint8_t *src[GROUP_SIZE];
    int direct = 1;
    for (uint32_t chip = 0; chip < GROUP_SIZE; chip++) {
        src[chip] = op_machine_mram(m, ids[chip]) + offset;
        direct = direct && resident(src[chip], size / 8);
    }
    if (direct) {
        op_dpus_to_domain(src, words, lines);
    } else {
        /* MRAM never written reads as zeros without being backed: go through
         * op_machine_mram_read in steps of STAGE_WORDS words per DPU. */
        size_t step = words < STAGE_WORDS ? words : STAGE_WORDS;
        uint8_t *stage = malloc(step * OP_DOMAIN_LINE);
        if (!stage)
            return DPU_ERR_SYSTEM;
        uint8_t *part[GROUP_SIZE];
        const uint8_t *cpart[GROUP_SIZE];
        for (uint32_t chip = 0; chip < GROUP_SIZE; chip++)
            cpart[chip] = part[chip] = stage + chip * step * 8;
        for (size_t done = 0; done < words; done += step) {
            size_t n = words - done < step ? words - done : step;
            for (uint32_t chip = 0; chip < GROUP_SIZE; chip++)
                op_machine_mram_read(m, ids[chip], offset + 8 * done, part[chip], 8 * n);
            op_dpus_to_domain(cpart, n, (uint8_t *)lines + OP_DOMAIN_LINE * done);
        }
        free(stage);
    }
    record(rank, 0, size, start);
    return DPU_OK;
}

dpu_error_t openpim_rank_view_read(struct dpu_set_t rank, uint32_t group, uint64_t offset, void *lines, size_t size)
{
    OP_LOCKED_RETURN(openpim_rank_view_read_locked(rank, group, offset, lines, size));
}
