/* SPDX-License-Identifier: MIT */
/* Calibration suite, DPU side: STREAM on WRAM (calibration-sources §1.3).
 *
 * Method of PrIM's STREAM microbenchmark in its WRAM variant, written for
 * OpenPIM: uint64 arrays A and B of cal_elems elements in MRAM, processed in
 * rounds of T 1 KB blocks (tasklet t takes block t of each round); a tasklet
 * reads its block of A (and of B) into WRAM, then between two barriers, with
 * its perfcounter window open, runs the kernel over the block (loop fully
 * unrolled, as PrIM's `#pragma unroll`), and writes the result block back.  Kernels (cal_kernel):
 *   0 COPY  b[i] = a[i]               16 B per element
 *   1 ADD   b[i] = a[i] + b[i]        24 B
 *   2 SCALE b[i] = s * a[i]           16 B
 *   3 TRIAD b[i] = a[i] + s * b[i]    24 B
 * The host takes the slowest tasklet: MB/s = bytes * f / cycles.
 */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <perfcounter.h>
#include <stdint.h>

#define BLOCK 1024
#define N (BLOCK / 8)

__host uint32_t cal_kernel;
__host uint32_t cal_elems;
__host uint64_t cal_scalar;
__host uint64_t cal_cycles[NR_TASKLETS];

static __dma_aligned uint64_t abuf[NR_TASKLETS][N];
static __dma_aligned uint64_t bbuf[NR_TASKLETS][N];

BARRIER_INIT(cal_barrier, NR_TASKLETS);

/* One function per kernel, each with its own block loop, so that the timed
 * window holds the unrolled kernel only. */
#define KERNEL(NAME, READ_B, STMT)                                                                      \
    static void __attribute__((noinline)) NAME(void)                                                    \
    {                                                                                                   \
        const unsigned tid = me();                                                                      \
        const uint32_t bytes = cal_elems * 8u;                                                          \
        const uint64_t s = cal_scalar;                                                                  \
        uint8_t __mram_ptr *ma = (uint8_t __mram_ptr *)DPU_MRAM_HEAP_POINTER;                           \
        uint8_t __mram_ptr *mb = ma + bytes;                                                            \
        uint64_t *restrict a = abuf[tid], *restrict b = bbuf[tid];                                      \
        uint64_t sum = 0;                                                                               \
        for (uint32_t base = 0; base < bytes; base += BLOCK * NR_TASKLETS) {                            \
            const uint32_t off = base + tid * BLOCK; /* all tasklets run every round */                 \
            mram_read(ma + off, a, BLOCK);                                                              \
            if (READ_B)                                                                                 \
                mram_read(mb + off, b, BLOCK);                                                          \
            barrier_wait(&cal_barrier);                                                                 \
            perfcounter_t t0 = perfcounter_get();                                                       \
            _Pragma("unroll") for (unsigned i = 0; i < N; i++) { STMT; }                                \
            sum += perfcounter_get() - t0;                                                              \
            barrier_wait(&cal_barrier);                                                                 \
            mram_write(b, mb + off, BLOCK);                                                             \
        }                                                                                               \
        cal_cycles[tid] = sum;                                                                          \
    }

KERNEL(copy_k, 0, b[i] = a[i])
KERNEL(add_k, 1, b[i] = a[i] + b[i])
KERNEL(scale_k, 0, b[i] = s * a[i])
KERNEL(triad_k, 1, b[i] = a[i] + s * b[i])

static void (*const kernels[4])(void) = {copy_k, add_k, scale_k, triad_k};

int main(void)
{
    if (me() == 0)
        perfcounter_config(COUNT_CYCLES, true);
    barrier_wait(&cal_barrier);
    kernels[cal_kernel & 3]();
    return 0;
}
