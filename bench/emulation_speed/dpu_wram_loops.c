/* SPDX-License-Identifier: MIT */
/* WRAM-bound loops, for the cost of v1B's checks of WRAM's low end (the same
 * program built for v1A has none): `passes` times over a 4096-word table,
 * one load/store at t[i] and one load at t[(i * 7) & 4095] per word, with the
 * table a global (mode 0), a mem_alloc block (1) or a pointer argument of a
 * function that is not inlined (2). */
#include <alloc.h>
#include <defs.h>
#include <stdint.h>

#define WORDS 4096

__host uint32_t mode, passes, result;
uint32_t table[WORDS];
uint32_t *volatile table_ptr = table; /* read at run time: the compiler cannot see it is `table` */

static __attribute__((noinline)) uint32_t pass_over(uint32_t *t, uint32_t s)
{
    for (int i = 0; i < WORDS; i++) {
        t[i] += s ^ (uint32_t)i;
        s += t[(i * 7) & (WORDS - 1)];
    }
    return s;
}

int main(void)
{
    uint32_t s = 0;
    mem_reset();
    uint32_t *heap = mem_alloc(WORDS * 4);
    for (int i = 0; i < WORDS; i++)
        heap[i] = table[i];
    for (uint32_t p = 0; p < passes; p++) {
        if (mode == 2) {
            s = pass_over(table_ptr, s);
            continue;
        }
        uint32_t *t = mode == 0 ? table : heap;
        for (int i = 0; i < WORDS; i++) {
            t[i] += s ^ (uint32_t)i;
            s += t[(i * 7) & (WORDS - 1)];
        }
    }
    result = s;
    return 0;
}
