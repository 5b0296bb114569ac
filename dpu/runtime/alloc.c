/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: the incremental WRAM heap (alloc.h). */
#include "rt_internal.h"

#include <alloc.h>

/* The heap pointer: an ordinary WRAM global, set at dpu_load and kept across
 * launches (mem_reset() rewinds it). */
uint8_t *__sys_heap_pointer = __op_heap_start;

void *mem_alloc(size_t size)
{
    uintptr_t p = (uintptr_t)__sys_heap_pointer;
    __OP_SVC->rt_event(OP_RTE_MEM_ALLOC, 0, 0); /* the call's instructions, for the timing model */
    if (size == 0)
        return (void *)p;
    p = (p + 7) & ~(uintptr_t)7;
    uintptr_t end = (uintptr_t)__op_heap_end;
    if (p > end || size > end - p)
        __op_faultf(OP_FAULT_HEAP, "mem_alloc: WRAM heap full: %u bytes asked at %x, the heap ends at %x",
            (uint64_t)size, (uint64_t)p, (uint64_t)end);
    __sys_heap_pointer = (uint8_t *)(p + size);
    return (void *)p;
}

void *mem_reset(void)
{
    __OP_SVC->rt_event(OP_RTE_MEM_RESET, 0, 0);
    __sys_heap_pointer = __op_heap_start;
    return __op_heap_start;
}
