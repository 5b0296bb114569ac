/* OpenPIM DPU runtime: buddy allocator (buddy_alloc.h).
 *
 * The area (2^order bytes, from mem_alloc) is a complete binary tree of blocks
 * down to 16 bytes.  longest[n] is the log2 size of the largest free block in
 * node n's subtree (0: none); taken[] has one bit per node, set on the node of
 * each allocated block, so any address inside a block finds it.  The state is
 * WRAM globals: it belongs to the DPU and persists across launches.
 */
#include "rt_internal.h"

#include <alloc.h>
#include <buddy_alloc.h>
#include <errno.h>
#include <string.h>

#define MIN_ORDER 4u /* 16-byte blocks */

static uint8_t *area;
static uint32_t area_order;
static uint32_t nr_nodes;
static uint8_t *longest;
static uint8_t *taken;

static void reset_tree(void)
{
    /* Node n at depth d heads a block of 2^(area_order - d) bytes. */
    uint32_t first = 0, count = 1;
    for (uint32_t order = area_order; order >= MIN_ORDER; order--) {
        for (uint32_t n = first; n < first + count; n++)
            longest[n] = (uint8_t)order;
        first += count;
        count *= 2;
    }
    memset(taken, 0, (nr_nodes + 7) / 8);
}

void buddy_init(size_t size_of_heap)
{
    if (area != NULL)
        return;
    if (size_of_heap < (2u << MIN_ORDER)) {
        errno = EINVAL;
        return;
    }
    uint32_t order = MIN_ORDER;
    while (order < 31 && ((size_t)1 << (order + 1)) <= size_of_heap)
        order++;
    uint32_t nodes = (2u << (order - MIN_ORDER)) - 1;
    area = mem_alloc((size_t)1 << order);
    longest = mem_alloc(nodes);
    taken = mem_alloc((nodes + 7) / 8);
    area_order = order;
    nr_nodes = nodes;
    reset_tree();
}

void buddy_reset(void)
{
    if (area != NULL)
        reset_tree();
}

static void update_parents(uint32_t node, uint32_t order)
{
    /* `order` is node's block order. */
    while (node > 0) {
        node = (node - 1) / 2;
        uint32_t l = longest[2 * node + 1], r = longest[2 * node + 2];
        longest[node] = (uint8_t)((l == order && r == order) ? order + 1 : (l > r ? l : r));
        order++;
    }
}

void *buddy_alloc(size_t size)
{
    if (area == NULL || size == 0 || size > ((size_t)1 << area_order)) {
        errno = EINVAL;
        return NULL;
    }
    uint32_t want = MIN_ORDER;
    while (((size_t)1 << want) < size)
        want++;
    if (longest[0] < want) {
        errno = ENOMEM;
        return NULL;
    }
    uint32_t node = 0, order = area_order;
    uintptr_t offset = 0;
    while (order > want) {
        order--;
        uint32_t left = 2 * node + 1;
        if (longest[left] >= want) {
            node = left;
        } else {
            node = left + 1;
            offset += (uintptr_t)1 << order;
        }
    }
    longest[node] = 0;
    taken[node / 8] |= (uint8_t)(1u << (node % 8));
    update_parents(node, order);
    return area + offset;
}

/* The node of the allocated block containing p, or -1 (its order in *order). */
static int64_t find_block(const void *p, uint32_t *order, uintptr_t *start)
{
    if (area == NULL || (const uint8_t *)p < area || (const uint8_t *)p >= area + ((size_t)1 << area_order))
        return -1;
    uintptr_t off = (uintptr_t)((const uint8_t *)p - area);
    uint32_t node = 0, o = area_order;
    uintptr_t base = 0;
    for (;;) {
        if (taken[node / 8] & (1u << (node % 8))) {
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
    int64_t node = find_block(pointer, &order, &start);
    if (node < 0) {
        errno = EINVAL;
        return;
    }
    taken[node / 8] &= (uint8_t)~(1u << (node % 8));
    longest[node] = (uint8_t)order;
    update_parents((uint32_t)node, order);
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
    if (find_block(ptr, &order, &start) < 0) {
        errno = EINVAL;
        return NULL;
    }
    size_t old = (size_t)1 << order;
    if (size <= old && (order == MIN_ORDER || size > old / 2))
        return area + start;
    void *fresh = buddy_alloc(size);
    if (fresh == NULL)
        return NULL;
    memcpy(fresh, area + start, size < old ? size : old);
    buddy_free(area + start);
    return fresh;
}
