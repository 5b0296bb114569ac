/* SPDX-License-Identifier: MIT */
/* Calibration suite, DPU side: arithmetic throughput (calibration-sources §1.2).
 *
 * Method of PrIM's arithmetic-throughput microbenchmark (Gómez-Luna et al.,
 * §3.1.1), written for OpenPIM: the DPU's input array (nr_elems elements of
 * one type) is processed in 1 KB blocks, in rounds of T blocks (T tasklets:
 * tasklet t takes block t of each round; all tasklets run every round, so in
 * the last round some may process blocks past the array when T does not
 * divide the block count, as in PrIM); each block is brought to WRAM with mram_read, then, between two barriers,
 * the tasklet runs   x = blk[i]; x OP= scalar; blk[i] = x;   over the block
 * while its perfcounter window is open, and the block goes back to MRAM.
 * scalar = nr_elems.  Each tasklet sums its windows; the host takes the
 * slowest tasklet: MOPS = nr_elems / (cycles / f).
 *
 * The kernel (type x operation) is chosen at run time by `cal_kernel`; each
 * kernel is its own function, so the timed loop is exactly the one above.
 */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <perfcounter.h>
#include <stdint.h>

#define BLOCK 1024

__host uint32_t cal_kernel;     /* type * 4 + op: types i32 i64 f32 f64, ops + - * / */
__host uint32_t cal_elems;      /* elements per DPU */
__host uint64_t cal_cycles[NR_TASKLETS];

static __dma_aligned uint8_t blocks[NR_TASKLETS][BLOCK];

BARRIER_INIT(cal_barrier, NR_TASKLETS);

#define KERNEL(NAME, T, OP)                                                                             \
    static void __attribute__((noinline)) NAME(void)                                                    \
    {                                                                                                   \
        const unsigned tid = me();                                                                      \
        const uint32_t n = cal_elems;                                                                   \
        const T scalar = (T)n;                                                                          \
        T *blk = (T *)blocks[tid];                                                                      \
        const uint32_t bytes = n * (uint32_t)sizeof(T);                                                 \
        uint8_t __mram_ptr *in = (uint8_t __mram_ptr *)DPU_MRAM_HEAP_POINTER;                           \
        uint8_t __mram_ptr *out = in + bytes;                                                           \
        uint64_t sum = 0;                                                                               \
        for (uint32_t base = 0; base < bytes; base += BLOCK * NR_TASKLETS) {                            \
            const uint32_t off = base + tid * BLOCK; /* all tasklets run every round */                 \
            mram_read(in + off, blk, BLOCK);                                                            \
            barrier_wait(&cal_barrier);                                                                 \
            perfcounter_t t0 = perfcounter_get();                                                       \
            for (unsigned i = 0; i < BLOCK / sizeof(T); i++) {                                          \
                T x = blk[i];                                                                           \
                x OP scalar;                                                                            \
                blk[i] = x;                                                                             \
            }                                                                                           \
            sum += perfcounter_get() - t0;                                                              \
            barrier_wait(&cal_barrier);                                                                 \
            mram_write(blk, out + off, BLOCK);                                                          \
        }                                                                                               \
        cal_cycles[tid] = sum;                                                                          \
    }

KERNEL(i32_add, int32_t, +=)
KERNEL(i32_sub, int32_t, -=)
KERNEL(i32_mul, int32_t, *=)
KERNEL(i32_div, int32_t, /=)
KERNEL(i64_add, int64_t, +=)
KERNEL(i64_sub, int64_t, -=)
KERNEL(i64_mul, int64_t, *=)
KERNEL(i64_div, int64_t, /=)
KERNEL(f32_add, float, +=)
KERNEL(f32_sub, float, -=)
KERNEL(f32_mul, float, *=)
KERNEL(f32_div, float, /=)
KERNEL(f64_add, double, +=)
KERNEL(f64_sub, double, -=)
KERNEL(f64_mul, double, *=)
KERNEL(f64_div, double, /=)

static void (*const kernels[16])(void) = {
    i32_add, i32_sub, i32_mul, i32_div, i64_add, i64_sub, i64_mul, i64_div,
    f32_add, f32_sub, f32_mul, f32_div, f64_add, f64_sub, f64_mul, f64_div,
};

int main(void)
{
    if (me() == 0)
        perfcounter_config(COUNT_CYCLES, true);
    barrier_wait(&cal_barrier);
    kernels[cal_kernel & 15]();
    return 0;
}
