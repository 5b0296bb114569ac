/* SPDX-License-Identifier: MIT */
/* checksum, DPU side.
 *
 * The host writes the whole buffer into the MRAM array dpu_mram_buffer (a
 * __mram_noinit global, addressed by name from the host) of every DPU; each
 * DPU checksums its share of it, the tasklets taking blocks in turn, and
 * each tasklet stores its result in dpu_wram_results.  Tasklet 0 also prints
 * its result; the host reads the DPU's log with dpu_log_read. */
#include <stdint.h>
#include <stdio.h>

#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <perfcounter.h>

#include "common.h"

__mram_noinit uint8_t dpu_mram_buffer[BUFFER_SIZE];

__host dpu_arguments_t DPU_INPUT_ARGUMENTS;
__host dpu_result_t dpu_wram_results[NR_TASKLETS];

BARRIER_INIT(start_barrier, NR_TASKLETS);

int main(void)
{
    const unsigned int tasklet_id = me();

    if (tasklet_id == 0) {
        mem_reset();
        perfcounter_config(COUNT_CYCLES, true);
    }
    barrier_wait(&start_barrier);

    const uint32_t first = DPU_INPUT_ARGUMENTS.first_byte;
    const uint32_t bytes = DPU_INPUT_ARGUMENTS.nr_bytes;
    uint8_t *block = (uint8_t *)mem_alloc(BLOCK_BYTES);

    uint64_t checksum = 0;
    uint32_t done = 0;
    for (uint32_t offset = tasklet_id * BLOCK_BYTES; offset < bytes;
         offset += NR_TASKLETS * BLOCK_BYTES) {
        const uint32_t left = bytes - offset;
        const uint32_t len = left < BLOCK_BYTES ? left : BLOCK_BYTES;
        mram_read(&dpu_mram_buffer[first + offset], block, len);
        /* Positions are below 2^23 and bytes below 2^8: each product fits in
         * 32 bits (cheaper than a 64-bit multiplication on a DPU). */
        uint32_t weight = first + offset + 1;
        for (uint32_t i = 0; i < len; i++, weight++) {
            checksum += weight * (uint32_t)block[i];
        }
        done += len;
    }

    dpu_wram_results[tasklet_id].checksum = checksum;
    dpu_wram_results[tasklet_id].nr_bytes = done;
    dpu_wram_results[tasklet_id].cycles = perfcounter_get();

    if (tasklet_id == 0) {
        printf("tasklet 0: checksum 0x%016llx over %u bytes\n", (unsigned long long)checksum,
               (unsigned int)done);
    }
    return 0;
}
