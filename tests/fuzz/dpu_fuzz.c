/* SPDX-License-Identifier: MIT */
/* DPU side of the host-API fuzzer.  What it does depends on __host inputs the
 * fuzzer writes: loops bounded by `rounds`, a mutex and a barrier shared by all
 * tasklets, reads of the MRAM heap, WRAM heap allocations, printf, and on
 * request a fault of a chosen kind.  Without a fault request its results are
 * fully determined by its inputs (see the host's expect_results()). */
#include <alloc.h>
#include <assert.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <mutex.h>
#include <stdint.h>
#include <stdio.h>

/* inputs */
__host uint32_t rounds;     /* loop bound of every tasklet (at most 256) */
__host uint32_t heap_words; /* 8-byte words of the MRAM heap to sum (<= 256) */
__host uint32_t fault_kind; /* 0: none; see below */
__host uint32_t fault_arg;
__host uint32_t words[16];
/* outputs */
__host uint64_t results[8];
__host uint32_t counter;  /* incremented under the mutex by every tasklet each round */
__host uint32_t launches; /* .bss: persists across launches, reset by dpu_load */
__host uint32_t magic = 0xC0FFEE;
__mram uint64_t m_init[4] = {11, 22, 33, 44};
__mram_noinit uint64_t m_out[NR_TASKLETS][4];

MUTEX_INIT(lock);
BARRIER_INIT(all, NR_TASKLETS);

static volatile uint32_t sink;

int main(void)
{
    uint32_t tid = me();
    uint64_t buf[32];
    if (tid == 0) {
        counter = 0;
        launches++;
    }
    barrier_wait(&all);
    uint32_t n = rounds > 256 ? 256 : rounds;
    uint64_t acc = tid;
    for (uint32_t r = 0; r < n; r++) {
        mutex_lock(lock);
        uint32_t seen = counter;
        acc = acc * 31 + words[(r + tid) & 15];
        buf[0] = acc;
        mram_write(buf, &m_out[tid][r & 3], 8); /* a DMA (and a yield) inside the critical section */
        counter = seen + 1;
        mutex_unlock(lock);
    }
    mram_read(&m_out[tid][0], buf, 32);
    barrier_wait(&all);
    if (tid == 0) {
        uint32_t hw = heap_words > 256 ? 256 : heap_words;
        uint64_t sum = 0;
        for (uint32_t i = 0; i < hw; i += 32) {
            uint32_t k = hw - i < 32 ? hw - i : 32;
            mram_read((__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER + i * 8, buf, k * 8);
            for (uint32_t j = 0; j < k; j++)
                sum += buf[j];
        }
        uint64_t init[4];
        mram_read(m_init, init, sizeof init);
        results[0] = sum;
        results[1] = init[0] + init[1] + init[2] + init[3];
        results[2] = launches;
        results[3] = magic;
        uint32_t *h = mem_alloc(64);
        h[0] = words[0];
        results[4] = h[0] + (uint32_t)(uintptr_t)h % 8;
        printf("dpu rounds=%u counter=%u sum=%llu %s\n", n, counter, (unsigned long long)sum,
               (words[1] & 1) ? "odd" : "even");
    }
    barrier_wait(&all);
    if (tid == NR_TASKLETS - 1) {
        switch (fault_kind) {
        case 1: halt();
        case 2: assert(fault_arg == 12345);
                break;
        case 3: /* DMA at a host-chosen MRAM address */
            mram_read((__mram_ptr void *)(uintptr_t)(fault_arg & ~7u), buf, 8);
            sink = (uint32_t)buf[0];
            break;
        case 4: /* WRAM heap exhaustion */
            for (;;)
                mem_alloc(fault_arg | 1024);
        case 5: /* never ends: the profile's timeoutMs stops it */
            for (;;)
                sink++;
        case 6: /* deadlock: wait at a barrier nobody else reaches */
            barrier_wait(&all);
            break;
        case 7: /* integer division by a host value */
            sink = words[2] / fault_arg;
            break;
        case 8: /* wild WRAM store */
            *(volatile uint32_t *)(uintptr_t)fault_arg = 1;
            break;
        default:
            break;
        }
    }
    return 0;
}
