/* SPDX-License-Identifier: MIT */
/* The host side of the progress-line tests (test_progress.py drives it
 * through a pseudo-terminal and through files).  Modes:
 *   sync ITER    one synchronous launch of 64 DPUs, results read back
 *   async ITER   the same launch DPU_ASYNCHRONOUS, then dpu_sync
 *   two ITER     two 64-DPU sets (two ranks) launched asynchronously at once
 *   read         a long read transfer (64 DPUs x 8 MB)
 *   write        a long write transfer (64 DPUs x 4 MB, each its own data)
 * stdout gets the checked results only, so it must be byte-identical whether
 * progress is shown or not. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define NR 64
/* two workers whatever the host's cores: a launch takes the same host time
 * (about 1 s with 10000000 iterations) on a big machine as on a small one */
#define PROFILE "nrRanks=2,workers=2"

static uint32_t model(uint32_t iterations)
{
    uint32_t x = 1; /* one tasklet: me() is 0 */
    for (uint32_t i = 0; i < iterations; i++)
        x = x * 3u + i;
    return x;
}

static void check_results(struct dpu_set_t set, uint32_t iterations, const char *name)
{
    uint32_t got[NR] = {0};
    struct dpu_set_t dpu;
    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &got[i]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "result", 0, sizeof got[0], DPU_XFER_DEFAULT));
    uint32_t want = model(iterations);
    for (i = 0; i < NR; i++)
        CHECK_EQ(got[i], want);
    printf("%s: %u DPUs, result %u\n", name, NR, got[0]);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *mode = argv[1];
    uint32_t iterations = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 0;
    struct dpu_set_t set, other;
    DPU_ASSERT(dpu_alloc(NR, PROFILE, &set));
    if (!strcmp(mode, "read")) {
        enum { MB8 = 8 << 20 };
        uint8_t *buf = malloc((size_t)NR * MB8);
        CHECK(buf != NULL);
        if (!buf)
            return 1;
        memset(buf, 0xa5, (size_t)NR * MB8);
        DPU_ASSERT(dpu_load(set, "./dpu_progress_spin", NULL));
        struct dpu_set_t dpu;
        uint32_t i;
        DPU_FOREACH(set, dpu, i) {
            DPU_ASSERT(dpu_prepare_xfer(dpu, buf + (size_t)i * MB8));
        }
        DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, MB8, DPU_XFER_DEFAULT));
        size_t nonzero = 0; /* MRAM nobody wrote reads as zeros */
        for (size_t k = 0; k < (size_t)NR * MB8; k++)
            nonzero += buf[k] != 0;
        CHECK_EQ(nonzero, 0);
        printf("read: %u DPUs x %u bytes, %zu non-zero\n", NR, MB8, nonzero);
        free(buf);
        DPU_ASSERT(dpu_free(set));
        return check_done("test_progress_host");
    }
    if (!strcmp(mode, "write")) {
        enum { MB4 = 4 << 20 };
        uint8_t *buf = malloc((size_t)NR * MB4);
        CHECK(buf != NULL);
        if (!buf)
            return 1;
        for (size_t k = 0; k < (size_t)NR * MB4; k++)
            buf[k] = (uint8_t)(k * 7 + k / MB4);
        DPU_ASSERT(dpu_load(set, "./dpu_progress_spin", NULL));
        struct dpu_set_t dpu;
        uint32_t i;
        DPU_FOREACH(set, dpu, i) {
            DPU_ASSERT(dpu_prepare_xfer(dpu, buf + (size_t)i * MB4));
        }
        DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, MB4, DPU_XFER_DEFAULT));
        size_t wrong = 0; /* each DPU's last 64 bytes are its own data */
        DPU_FOREACH(set, dpu, i) {
            uint8_t tail[64];
            DPU_ASSERT(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, MB4 - 64, tail, sizeof tail));
            wrong += memcmp(tail, buf + (size_t)i * MB4 + MB4 - 64, sizeof tail) != 0;
        }
        CHECK_EQ(wrong, 0);
        printf("write: %u DPUs x %u bytes, %zu wrong\n", NR, MB4, wrong);
        free(buf);
        DPU_ASSERT(dpu_free(set));
        return check_done("test_progress_host");
    }
    DPU_ASSERT(dpu_load(set, "./dpu_progress_spin", NULL));
    DPU_ASSERT(dpu_broadcast_to(set, "iterations", 0, &iterations, sizeof iterations, DPU_XFER_DEFAULT));
    if (!strcmp(mode, "sync")) {
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    } else if (!strcmp(mode, "async")) {
        DPU_ASSERT(dpu_launch(set, DPU_ASYNCHRONOUS));
        DPU_ASSERT(dpu_sync(set));
    } else if (!strcmp(mode, "two")) {
        DPU_ASSERT(dpu_alloc(NR, PROFILE, &other));
        DPU_ASSERT(dpu_load(other, "./dpu_progress_spin", NULL));
        DPU_ASSERT(dpu_broadcast_to(other, "iterations", 0, &iterations, sizeof iterations, DPU_XFER_DEFAULT));
        DPU_ASSERT(dpu_launch(set, DPU_ASYNCHRONOUS));
        DPU_ASSERT(dpu_launch(other, DPU_ASYNCHRONOUS));
        DPU_ASSERT(dpu_sync(set));
        DPU_ASSERT(dpu_sync(other));
        check_results(other, iterations, "second set");
        DPU_ASSERT(dpu_free(other));
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    check_results(set, iterations, mode);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_progress_host");
}
