/* SPDX-License-Identifier: MIT */
/* A sorted table of random 64-bit keys and queries half of which are in it:
 * every answer of the DPU (index or -1) equals a plain linear search here,
 * for several table sizes, uneven ones included. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_KEYS (1 << 14)
#define MAX_QUERIES 512

static uint64_t table[MAX_KEYS], queries[MAX_QUERIES];
static int32_t found[MAX_QUERIES];

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int main(void)
{
    struct dpu_set_t set;
    int failures = 0;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    const uint32_t sizes[] = { 1, 19, 20, 21, 1000, 4099, MAX_KEYS };
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "dpu_search16", NULL));
    for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        uint32_t n = sizes[s], nq = MAX_QUERIES - s;
        uint64_t k = 0;
        for (uint32_t i = 0; i < n; i++)
            table[i] = k += 1 + next(&seed) % 1000;
        for (uint32_t q = 0; q < nq; q++)
            queries[q] = q % 2 ? table[next(&seed) % n] : next(&seed) % (k + 2000);
        DPU_ASSERT(dpu_copy_to(set, "table", 0, table, ((n + 7) / 8) * 8 * sizeof(uint64_t)));
        DPU_ASSERT(dpu_copy_to(set, "queries", 0, queries, sizeof(queries)));
        DPU_ASSERT(dpu_copy_to(set, "nr_keys", 0, &n, sizeof(n)));
        DPU_ASSERT(dpu_copy_to(set, "nr_queries", 0, &nq, sizeof(nq)));
        dpu_error_t err = dpu_launch(set, DPU_SYNCHRONOUS);
        if (err != DPU_OK) {
            struct dpu_set_t dpu;
            DPU_FOREACH (set, dpu) {
                struct openpim_fault f;
                DPU_ASSERT(openpim_get_fault(dpu, &f));
                printf("[ERROR] %u keys: the launch faulted: %s\n", n, f.message);
            }
            failures++;
            continue;
        }
        struct dpu_set_t dpu;
        DPU_FOREACH (set, dpu)
            DPU_ASSERT(dpu_copy_from(dpu, "found", 0, found, sizeof(found)));
        for (uint32_t q = 0; q < nq; q++) {
            int32_t want = -1;
            for (uint32_t i = 0; i < n && want < 0; i++)
                if (table[i] == queries[q])
                    want = (int32_t)i;
            if (found[q] != want) {
                printf("[ERROR] %u keys, query %u (%llu): found %d, expected %d\n", n, q,
                       (unsigned long long)queries[q], found[q], want);
                failures++;
                break;
            }
        }
    }
    DPU_ASSERT(dpu_free(set));
    if (failures)
        return 1;
    printf("[OK] 16 tasklets with 256-byte stacks found every key\n");
    return 0;
}
