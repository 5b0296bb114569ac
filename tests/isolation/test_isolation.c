/* SPDX-License-Identifier: MIT */
/* No DPU reaches another DPU's memory: neighbour canaries stay intact under
 * 32-bit wrap, unsigned underflow and 64-bit offsets, the wrapped access lands
 * where it would on the DPU (inside its own MRAM), a 64-bit address faults
 * without touching anything, and the whole machine state is identical for 1, 2
 * and 3 workers, even for a program that reads what the stack held before it
 * (each DPU's stacks start zeroed). */
#include <dpu.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define NR 8
#define VICTIM 3
#define MRAM_SIZE (64u << 20)
#define CANARY 256u
#define EVERYONE 7 /* the mode every DPU runs: stacks start zeroed for each DPU */ /* bytes checked at each end of every MRAM */

static const struct dpu_symbol_t mram = {0x08000000u, MRAM_SIZE};

struct snapshot {
    uint8_t head[NR][CANARY], tail[NR][CANARY];
    uint32_t probe[NR];
};

static uint8_t pattern(uint32_t dpu, uint32_t off)
{
    return (uint8_t)(dpu * 37u + off * 11u + 5u);
}

/* Runs `mode` on the victim (0, nothing, on the others) with `workers` workers. */
static dpu_error_t run(uint32_t mode, unsigned workers, struct snapshot *s)
{
    char profile[64];
    snprintf(profile, sizeof profile, "nrRanks=1,nrDpusPerRank=%u,workers=%u", NR, workers);
    struct dpu_set_t set, dpu;
    uint32_t i;
    DPU_ASSERT(dpu_alloc(NR, profile, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_escape", NULL));
    DPU_FOREACH(set, dpu, i) {
        uint8_t head[CANARY], tail[CANARY];
        for (uint32_t k = 0; k < CANARY; k++) {
            head[k] = pattern(i, k);
            tail[k] = pattern(i, MRAM_SIZE - CANARY + k);
        }
        DPU_ASSERT(dpu_copy_to_symbol(dpu, mram, 0, head, CANARY));
        DPU_ASSERT(dpu_copy_to_symbol(dpu, mram, MRAM_SIZE - CANARY, tail, CANARY));
        uint32_t m = i == VICTIM || mode == EVERYONE ? mode : 0, marker = 0xC0DE0000u + i;
        DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, &m, 4));
        DPU_ASSERT(dpu_copy_to(dpu, "marker", 0, &marker, 4));
    }
    dpu_error_t rc = dpu_launch(set, DPU_SYNCHRONOUS);
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_copy_from_symbol(dpu, mram, 0, s->head[i], CANARY));
        DPU_ASSERT(dpu_copy_from_symbol(dpu, mram, MRAM_SIZE - CANARY, s->tail[i], CANARY));
        DPU_ASSERT(dpu_copy_from(dpu, "probe", 0, &s->probe[i], 4));
    }
    if (rc == DPU_ERR_DPU_FAULT) {
        DPU_FOREACH(set, dpu, i) {
            struct openpim_fault f;
            DPU_ASSERT(openpim_get_fault(dpu, &f));
            CHECK_EQ(f.faulted, i == VICTIM);
            if (i == VICTIM && !strstr(f.message, "invalid memory access at address 0x12345678")) {
                fprintf(stderr, "unexpected fault: %s\n", f.message);
                CHECK(0);
            }
        }
    }
    DPU_ASSERT(dpu_free(set));
    return rc;
}

/* Where each mode's store lands in the victim's MRAM (offset), and what it reads back. */
static void expect(uint32_t mode, struct snapshot *want)
{
    memset(want, 0, sizeof *want);
    for (uint32_t d = 0; d < NR; d++)
        for (uint32_t k = 0; k < CANARY; k++) {
            want->head[d][k] = pattern(d, k);
            want->tail[d][k] = pattern(d, MRAM_SIZE - CANARY + k);
        }
    uint32_t marker = 0xC0DE0000u + VICTIM;
    switch (mode) {
    case 1: memcpy(&want->head[VICTIM][64], &marker, 4); want->probe[VICTIM] = marker; break;
    case 2: memcpy(&want->tail[VICTIM][CANARY - 4], &marker, 4); want->probe[VICTIM] = marker; break;
    case 3: memcpy(&want->head[VICTIM][32], &marker, 4); want->probe[VICTIM] = marker; break;
    case 4: memcpy(&want->head[VICTIM][8], &marker, 4); want->probe[VICTIM] = marker; break;
    case 6: want->probe[VICTIM] = marker + 1; break;
    }
}

int main(void)
{
    static struct snapshot got[4], want;
    for (uint32_t mode = 1; mode <= 7; mode++) {
        for (unsigned w = 1; w <= 3; w++) {
            dpu_error_t rc = run(mode, w, &got[w]);
            CHECK_EQ(rc, mode == 5 ? DPU_ERR_DPU_FAULT : DPU_OK);
            if (w > 1 && memcmp(&got[w], &got[1], sizeof got[1]) != 0) {
                fprintf(stderr, "mode %u: the machine state differs between 1 and %u workers\n", mode, w);
                CHECK(0);
            }
        }
        expect(mode, &want);
        if (memcmp(&got[1], &want, sizeof want) != 0) {
            fprintf(stderr, "mode %u: memory differs from the DPU's semantics (probe %08x, want %08x)\n", mode,
                    got[1].probe[VICTIM], want.probe[VICTIM]);
            for (uint32_t d = 0; d < NR; d++)
                for (uint32_t k = 0; k < CANARY; k++)
                    if (got[1].head[d][k] != want.head[d][k] || got[1].tail[d][k] != want.tail[d][k])
                        fprintf(stderr, "  DPU %u byte %u: head %02x/%02x tail %02x/%02x\n", d, k, got[1].head[d][k],
                                want.head[d][k], got[1].tail[d][k], want.tail[d][k]);
            CHECK(0);
        }
    }
    return check_done("test_isolation");
}
