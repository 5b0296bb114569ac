/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: buddy allocator (buddy_alloc.h).
 *
 * The area (2^order bytes, from mem_alloc) is a complete binary tree of blocks
 * down to 16 bytes.  __op_longest[n] is the log2 size of the largest free block in
 * node n's subtree (0: none); __op_taken[] has one bit per node, set on the node of
 * each allocated block, so any address inside a block finds it.  The state is
 * WRAM globals: it belongs to the DPU and persists across launches.
 */
#include "rt_internal.h"

#include <alloc.h>
#include <buddy_alloc.h>
#include <errno.h>
#include <string.h>

#define MIN_ORDER 4u /* 16-byte blocks */

static uint8_t *__op_area;
static uint32_t __op_area_order;
static uint32_t __op_nr_nodes;
static uint8_t *__op_longest;
static uint8_t *__op_taken;

static void __op_reset_tree(void)
{
    /* Node n at depth d heads a block of 2^(__op_area_order - d) bytes. */
    uint32_t first = 0, count = 1;
    for (uint32_t order = __op_area_order; order >= MIN_ORDER; order--) {
        for (uint32_t n = first; n < first + count; n++)
            __op_longest[n] = (uint8_t)order;
        first += count;
        count *= 2;
    }
    memset(__op_taken, 0, (__op_nr_nodes + 7) / 8);
}

void buddy_init(size_t size_of_heap)
{
    if (__op_area != NULL)
        return;
    if (size_of_heap < (2u << MIN_ORDER)) {
        errno = EINVAL;
        return;
    }
    uint32_t order = MIN_ORDER;
    while (order < 31 && ((size_t)1 << (order + 1)) <= size_of_heap)
        order++;
    uint32_t nodes = (2u << (order - MIN_ORDER)) - 1;
    __op_area = mem_alloc((size_t)1 << order);
    __op_longest = mem_alloc(nodes);
    __op_taken = mem_alloc((nodes + 7) / 8);
    __op_area_order = order;
    __op_nr_nodes = nodes;
    __op_reset_tree();
}

void buddy_reset(void)
{
    if (__op_area != NULL)
        __op_reset_tree();
}

static void __op_update_parents(uint32_t node, uint32_t order)
{
    /* `order` is node's block order. */
    while (node > 0) {
        node = (node - 1) / 2;
        uint32_t l = __op_longest[2 * node + 1], r = __op_longest[2 * node + 2];
        __op_longest[node] = (uint8_t)((l == order && r == order) ? order + 1 : (l > r ? l : r));
        order++;
    }
}

void *buddy_alloc(size_t size)
{
    if (__op_area == NULL || size == 0 || size > ((size_t)1 << __op_area_order)) {
        errno = EINVAL;
        return NULL;
    }
    uint32_t want = MIN_ORDER;
    while (((size_t)1 << want) < size)
        want++;
    if (__op_longest[0] < want) {
        errno = ENOMEM;
        return NULL;
    }
    uint32_t node = 0, order = __op_area_order;
    uintptr_t offset = 0;
    while (order > want) {
        order--;
        uint32_t left = 2 * node + 1;
        if (__op_longest[left] >= want) {
            node = left;
        } else {
            node = left + 1;
            offset += (uintptr_t)1 << order;
        }
    }
    __op_longest[node] = 0;
    __op_taken[node / 8] |= (uint8_t)(1u << (node % 8));
    __op_update_parents(node, order);
    return __op_area + offset;
}

/* The node of the allocated block containing p, or -1 (its order in *order). */
static int64_t __op_find_block(const void *p, uint32_t *order, uintptr_t *start)
{
    if (__op_area == NULL || (const uint8_t *)p < __op_area || (const uint8_t *)p >= __op_area + ((size_t)1 << __op_area_order))
        return -1;
    uintptr_t off = (uintptr_t)((const uint8_t *)p - __op_area);
    uint32_t node = 0, o = __op_area_order;
    uintptr_t base = 0;
    for (;;) {
        if (__op_taken[node / 8] & (1u << (node % 8))) {
            *order = o;
            *start = base;
            return node;
        }
        if (o == MIN_ORDER)
            return -1;
        o--;
        node = 2 * node + 1;
        if (off - base >= ((uintptr_t)1 << o)) {
            node++;
            base += (uintptr_t)1 << o;
        }
    }
}

void buddy_free(void *pointer)
{
    if (pointer == NULL)
        return;
    uint32_t order;
    uintptr_t start;
    int64_t node = __op_find_block(pointer, &order, &start);
    if (node < 0) {
        errno = EINVAL;
        return;
    }
    __op_taken[node / 8] &= (uint8_t)~(1u << (node % 8));
    __op_longest[node] = (uint8_t)order;
    __op_update_parents((uint32_t)node, order);
}

void *buddy_realloc(void *ptr, size_t size)
{
    if (ptr == NULL)
        return buddy_alloc(size);
    if (size == 0) {
        buddy_free(ptr);
        return ptr;
    }
    uint32_t order;
    uintptr_t start;
    int64_t node = __op_find_block(ptr, &order, &start);
    if (node < 0) {
        errno = EINVAL;
        return NULL;
    }
    uint32_t want = MIN_ORDER;
    while (want < 31 && ((size_t)1 << want) < size)
        want++;
    if (want <= order) {
        /* Shrink in place: the block becomes its first 2^want bytes and the
         * upper halves are free again (a free subtree's nodes are all whole). */
        uint32_t n = (uint32_t)node;
        __op_taken[n / 8] &= (uint8_t) ~(1u << (n % 8));
        for (uint32_t o = order; o > want; o--)
            n = 2 * n + 1;
        __op_taken[n / 8] |= (uint8_t)(1u << (n % 8));
        __op_longest[n] = 0;
        __op_update_parents(n, want);
        return __op_area + start;
    }
    /* Grow: a new block while the old one is still held, as realloc() */
    void *fresh = buddy_alloc(size);
    if (fresh == NULL)
        return NULL;
    memcpy(fresh, __op_area + start, (size_t)1 << order);
    buddy_free(__op_area + start);
    return fresh;
}
