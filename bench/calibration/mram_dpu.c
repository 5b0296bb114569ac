/* SPDX-License-Identifier: MIT */
/* Calibration suite, DPU side: MRAM <-> WRAM DMA (calibration-sources §2.2, §2.3).
 *
 * Written for OpenPIM after PrIM's MRAM-latency and STREAM (COPY-DMA)
 * microbenchmarks.  Tasklet t moves cal_size-byte blocks t, t+T, ... of a
 * cal_bytes region of MRAM.  cal_mode:
 *   0 READ   mram_read  of each block, perfcounter window around the DMA call
 *   1 WRITE  mram_write of each block, same window
 *   2 COPY   mram_read + mram_write of each block (PrIM's COPY-DMA)
 * Per tasklet: the sum of its windows (latency, PrIM's method) and the number
 * of DMAs.  With cal_count_instructions the counter counts the instructions
 * charged in the windows instead (diagnosis).  Tasklet 0 also times the whole phase between two barriers
 * (sustained bandwidth with all tasklets).
 */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <perfcounter.h>
#include <stdint.h>

#define MAX_BLOCK 2048

__host uint32_t cal_mode;
__host uint32_t cal_size;   /* bytes per DMA, 8..2048, multiple of 8 */
__host uint32_t cal_bytes;  /* region moved by all tasklets together */
__host uint64_t cal_cycles[NR_TASKLETS];
__host uint32_t cal_count[NR_TASKLETS];
__host uint64_t cal_phase;  /* cycles of the whole phase (tasklet 0) */
__host uint32_t cal_count_instructions; /* 1: the counter counts instructions (diagnosis) */

static __dma_aligned uint8_t buf[NR_TASKLETS][MAX_BLOCK];

BARRIER_INIT(cal_barrier, NR_TASKLETS);

int main(void)
{
    const unsigned tid = me();
    const uint32_t size = cal_size, bytes = cal_bytes, mode = cal_mode;
    uint8_t __mram_ptr *src = (uint8_t __mram_ptr *)DPU_MRAM_HEAP_POINTER;
    uint8_t __mram_ptr *dst = src + bytes;
    uint8_t *w = buf[tid];
    uint64_t sum = 0;
    uint32_t count = 0;
    if (tid == 0)
        perfcounter_config(cal_count_instructions ? COUNT_INSTRUCTIONS : COUNT_CYCLES, true);
    barrier_wait(&cal_barrier);
    perfcounter_t start = perfcounter_get();
    if (mode == 0) {
        for (uint32_t off = tid * size; off < bytes; off += size * NR_TASKLETS) {
            perfcounter_t t0 = perfcounter_get();
            mram_read(src + off, w, size);
            sum += perfcounter_get() - t0;
            count++;
        }
    } else if (mode == 1) {
        for (uint32_t off = tid * size; off < bytes; off += size * NR_TASKLETS) {
            perfcounter_t t0 = perfcounter_get();
            mram_write(w, dst + off, size);
            sum += perfcounter_get() - t0;
            count++;
        }
    } else {
        for (uint32_t off = tid * size; off < bytes; off += size * NR_TASKLETS) {
            mram_read(src + off, w, size);
            mram_write(w, dst + off, size);
            count++;
        }
    }
    barrier_wait(&cal_barrier);
    if (tid == 0)
        cal_phase = perfcounter_get() - start;
    cal_cycles[tid] = sum;
    cal_count[tid] = count;
    return 0;
}
