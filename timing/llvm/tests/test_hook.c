/* SPDX-License-Identifier: MIT */
/* Harness (compiled WITHOUT the plugin) that defines the optional runtime hook
 * __op_div_by_zero: the instrumented code must call it exactly once per
 * division by zero, never otherwise, and still return the fallback values when
 * it returns. */
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "op_cost_slots.h"
#include "switch_points.h"

uint64_t __op_icount;
uint32_t __op_costs[OP_COST_COUNT]; /* the cost table the instrumented code reads (values do not matter here) */
static unsigned hook_calls;
void __op_div_by_zero(void) { hook_calls++; }

uint32_t t_udiv(uint32_t a, uint32_t b);
int32_t t_srem(int32_t a, int32_t b);
int32_t t_sdiv(int32_t a, int32_t b);
uint64_t t_udiv64(uint64_t a, uint64_t b);
void probe(void) {}
void mutex_lock(unsigned char *m) { (void)m; }
void mutex_unlock(unsigned char *m) { (void)m; }

static int failures;
#define EXPECT(call, value, calls)                                                          \
    do {                                                                                    \
        hook_calls = 0;                                                                     \
        uint64_t v_ = (uint64_t)(call);                                                     \
        if (v_ != (uint64_t)(value) || hook_calls != (calls)) {                             \
            printf("FAIL %s: value %" PRIu64 " hook calls %u (want %" PRIu64 ", %u)\n",     \
                   #call, v_, hook_calls, (uint64_t)(value), (unsigned)(calls));            \
            failures++;                                                                     \
        }                                                                                   \
    } while (0)

int main(void)
{
    EXPECT(t_udiv(10, 0), 0xFFFFFFFFu, 1);
    EXPECT(t_udiv(10, 3), 3, 0);
    EXPECT((uint32_t)t_srem(-10, 0), (uint32_t)-10, 1);
    EXPECT((uint32_t)t_sdiv(INT_MIN, -1), (uint32_t)INT_MIN, 0);
    EXPECT(t_udiv64(10, 0), UINT64_MAX, 1);
    EXPECT(t_udiv64(10, 5), 2, 0);
    printf("%s: hook test, %d failure(s)\n", failures ? "FAILED" : "ok", failures);
    return failures != 0;
}
