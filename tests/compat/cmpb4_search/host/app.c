/* SPDX-License-Identifier: MIT */
/* A text over a 4-letter alphabet (plus a planted key), searched on two DPUs
 * with two keys: every tasklet's count of full matches and of matching bytes
 * equals the host's byte-by-byte comparison. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>

#define TEXT_BYTES 8192
#define CHUNK 256
#define SLICE (TEXT_BYTES / NR_TASKLETS)

static uint8_t text[TEXT_BYTES + CHUNK];

int main(void)
{
    struct dpu_set_t set, dpu;
    int failures = 0;
    uint32_t seed = 12345;
    for (int i = 0; i < TEXT_BYTES + CHUNK; i++) {
        seed = seed * 1103515245u + 12345u;
        text[i] = (uint8_t)"ACGT"[(seed >> 16) & 3];
    }
    const uint8_t keys[2][4] = { { 'G', 'A', 'T', 'C' }, { 'A', 'A', 'A', 'A' } };
    for (int k = 0; k < 4; k++) /* the first key at the last position of slice 0 */
        text[SLICE - 1 + k] = keys[0][k];
    DPU_ASSERT(dpu_alloc(2, NULL, &set));
    DPU_ASSERT(dpu_load(set, "dpu_search", NULL));
    DPU_ASSERT(dpu_copy_to(set, "text", 0, text, sizeof(text)));
    for (int k = 0; k < 2; k++) {
        uint32_t key = keys[k][0] | (uint32_t)keys[k][1] << 8 | (uint32_t)keys[k][2] << 16 | (uint32_t)keys[k][3] << 24;
        DPU_ASSERT(dpu_copy_to(set, "key", 0, &key, sizeof(key)));
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        uint32_t want_full[NR_TASKLETS] = { 0 }, want_bytes[NR_TASKLETS] = { 0 };
        for (int t = 0; t < NR_TASKLETS; t++)
            for (int i = t * SLICE; i < (t + 1) * SLICE; i++) {
                int same = 0;
                for (int b = 0; b < 4; b++)
                    same += text[i + b] == keys[k][b];
                want_full[t] += same == 4;
                want_bytes[t] += (uint32_t)same;
            }
        if (k == 0 && want_full[0] == 0) {
            printf("[ERROR] the planted key was not found by the host\n");
            failures++;
        }
        DPU_FOREACH (set, dpu) {
            uint32_t full[NR_TASKLETS], bytes[NR_TASKLETS];
            DPU_ASSERT(dpu_copy_from(dpu, "full_matches", 0, full, sizeof(full)));
            DPU_ASSERT(dpu_copy_from(dpu, "matching_bytes", 0, bytes, sizeof(bytes)));
            for (int t = 0; t < NR_TASKLETS; t++)
                if (full[t] != want_full[t] || bytes[t] != want_bytes[t]) {
                    printf("[ERROR] key %d tasklet %d: %u full matches, %u matching bytes; expected %u, %u\n", k, t,
                           full[t], bytes[t], want_full[t], want_bytes[t]);
                    failures++;
                }
        }
    }
    DPU_ASSERT(dpu_free(set));
    if (failures)
        return 1;
    printf("[OK] cmpb4 string search matches the host\n");
    return 0;
}
