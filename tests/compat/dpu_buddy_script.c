/* SPDX-License-Identifier: MIT */
/* Runs a script of buddy-allocator calls written by the host and records every
 * result, so the host can compare them with its own model.  Includes only
 * <alloc.h>, as SDK programs do (it must bring buddy_alloc.h in). */
#include <alloc.h>
#include <defs.h>
#include <errno.h>
#include <stdint.h>

#define MAX_OPS 900
enum { OP_ALLOC, OP_FREE, OP_REALLOC, OP_RESET, OP_FREE_AT, OP_FREE_NULL };

struct op {
    uint32_t kind, arg, size; /* arg: the op that allocated the block (OP_FREE, OP_REALLOC) or a byte offset */
};
__host uint32_t heap_size;
__host uint32_t nr_ops;
__host struct op ops[MAX_OPS];
__host uint32_t result[MAX_OPS]; /* block address, 0 for NULL */
__host uint32_t err[MAX_OPS];    /* errno after the call (cleared before) */
__host uint32_t clobbered;       /* blocks whose bytes another block overwrote */
__host uint32_t area;            /* where the allocator's area starts */

static uint8_t *cur[MAX_OPS]; /* current address of the block op i allocated */
static uint32_t len[MAX_OPS]; /* its requested size */

static void fill(uint8_t *p, uint32_t n, uint32_t tag)
{
    for (uint32_t k = 0; k < n; k++)
        p[k] = (uint8_t)(tag * 7 + k);
}
static void verify(const uint8_t *p, uint32_t n, uint32_t tag)
{
    for (uint32_t k = 0; k < n; k++)
        if (p[k] != (uint8_t)(tag * 7 + k)) {
            clobbered++;
            return;
        }
}

int main(void)
{
    mem_reset();
    area = (uint32_t)(uintptr_t)mem_alloc(0); /* buddy_init takes its area from here */
    buddy_init(heap_size);
    clobbered = 0;
    for (uint32_t i = 0; i < nr_ops && i < MAX_OPS; i++) {
        struct op o = ops[i];
        uint8_t *p = NULL;
        errno = 0;
        switch (o.kind) {
        case OP_ALLOC:
            p = buddy_alloc(o.size);
            if (p) {
                cur[i] = p;
                len[i] = o.size;
                fill(p, o.size, i);
            }
            break;
        case OP_FREE:
            verify(cur[o.arg], len[o.arg], o.arg);
            buddy_free(cur[o.arg] + o.size); /* o.size: an offset inside the block */
            break;
        case OP_REALLOC: {
            uint32_t keep = len[o.arg] < o.size ? len[o.arg] : o.size;
            verify(cur[o.arg], len[o.arg], o.arg);
            p = buddy_realloc(cur[o.arg], o.size);
            if (p) {
                verify(p, keep, o.arg); /* the contents moved with it */
                cur[o.arg] = p;
                len[o.arg] = o.size;
                fill(p, o.size, o.arg);
            }
            break;
        }
        case OP_RESET:
            buddy_reset();
            break;
        case OP_FREE_AT: /* an address the allocator did not give (offset in the area) */
            buddy_free((uint8_t *)(uintptr_t)area + o.size);
            break;
        case OP_FREE_NULL:
            buddy_free(NULL);
            break;
        }
        result[i] = (uint32_t)(uintptr_t)p;
        err[i] = (uint32_t)errno;
    }
    return 0;
}
