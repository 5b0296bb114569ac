/* SPDX-License-Identifier: MIT */
/* seqread over an MRAM array that does not start on a page (nor on 8 bytes):
 * each tasklet sums its slice, checks seqread_tell on the way, and re-reads the
 * first element after a seqread_seek. */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <seqread.h>
#include <stdint.h>

#define OFFSET 4 /* bytes into the MRAM heap */

BARRIER_INIT(all, NR_TASKLETS);

__host uint32_t nr_elements;
__host uint64_t sums[NR_TASKLETS];
__host uint32_t tell_errors[NR_TASKLETS];
__host uint32_t seek_values[NR_TASKLETS];

int main(void)
{
    if (me() == 0)
        mem_reset();
    barrier_wait(&all);
    uint32_t per = (nr_elements + NR_TASKLETS - 1) / NR_TASKLETS;
    uint32_t lo = me() * per, hi = lo + per < nr_elements ? lo + per : nr_elements;
    __mram_ptr uint32_t *array = (__mram_ptr uint32_t *)((__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER + OFFSET);

    seqreader_buffer_t cache = seqread_alloc();
    seqreader_t sr;
    uint64_t sum = 0;
    uint32_t errors = 0;
    if (lo < hi) {
        uint32_t *p = seqread_init(cache, &array[lo], &sr);
        for (uint32_t i = lo; i < hi; i++) {
            if (seqread_tell(p, &sr) != (__mram_ptr void *)&array[i])
                errors++;
            sum += *p;
            p = seqread_get(p, sizeof(uint32_t), &sr);
        }
        p = seqread_seek(&array[lo], &sr);
        seek_values[me()] = *p;
    }
    sums[me()] = sum;
    tell_errors[me()] = errors;
    return 0;
}
