/* SPDX-License-Identifier: MIT */
/* Remote (through openpimd) against embedded, side by side in one run: one
 * process, two sessions (openpim_ext.h), one on the embedded machine, one on
 * the daemon's, the same 64-DPU rank shape.  Per request size: latency of a
 * single-DPU copy to and from MRAM, bandwidth of a whole-rank push, and the
 * latency of a launch.  Every read follows a write (untimed), so the remote
 * backend's prefetch cache never serves stale-free repeats it would not see
 * in a real program.  Min and median of REPS samples; ratios are remote /
 * embedded medians.
 *   bench_daemon SOCKET DPU_PROGRAM */
#define _GNU_SOURCE /* clock_gettime in bench.h under -std=c11 */
#include <dpu.h>
#include <openpim_ext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

#define REPS 15

struct side {
    const char *name;
    struct openpim_session *s;
    struct dpu_set_t set, one;
};

static void open_side(struct side *sd, const char *name, const char *profile, const char *prog)
{
    sd->name = name;
    sd->s = openpim_session_create();
    openpim_session_use(sd->s);
    DPU_ASSERT(dpu_alloc_ranks(1, profile, &sd->set));
    DPU_ASSERT(dpu_load(sd->set, prog, NULL));
    DPU_FOREACH(sd->set, sd->one) {
        break;
    }
    openpim_session_use(NULL);
}

enum what { COPY_TO, COPY_FROM, PUSH_TO, PUSH_FROM, LAUNCH, SMALL_TO, SMALL_FROM };

/* A small-transfer-heavy phase, like PrIM's NW: SMALL_OPS transfers of
 * `bytes` bytes, one DPU at a time, DPU after DPU at each offset. */
#define SMALL_OPS 4096
static void small_phase(struct side *sd, int to, size_t bytes, uint8_t *buf)
{
    uint32_t nr;
    DPU_ASSERT(dpu_get_nr_dpus(sd->set, &nr));
    struct dpu_set_t dpu;
    for (uint32_t k = 0; k < SMALL_OPS;) {
        uint32_t off = (k / nr) * 128;
        DPU_FOREACH(sd->set, dpu) {
            if (to)
                DPU_ASSERT(dpu_copy_to(dpu, DPU_MRAM_HEAP_POINTER_NAME, off, buf, bytes));
            else
                DPU_ASSERT(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, off, buf, bytes));
            k++;
        }
    }
}

/* Median seconds of one operation of `bytes` bytes per DPU (min in *min). */
static double measure(struct side *sd, enum what w, size_t bytes, uint8_t *buf, double *min)
{
    openpim_session_use(sd->s);
    double t[REPS];
    uint64_t stamp = 0;
    for (int r = 0; r < REPS; r++) {
        if (w == COPY_FROM || w == PUSH_FROM || w == SMALL_FROM) { /* fresh data: no read served from a cache */
            stamp++;
            DPU_ASSERT(dpu_copy_to(sd->one, DPU_MRAM_HEAP_POINTER_NAME, 60u << 20, &stamp, sizeof stamp));
        }
        double t0 = bench_now();
        struct dpu_set_t dpu;
        switch (w) {
        case COPY_TO: DPU_ASSERT(dpu_copy_to(sd->one, DPU_MRAM_HEAP_POINTER_NAME, 0, buf, bytes)); break;
        case COPY_FROM: DPU_ASSERT(dpu_copy_from(sd->one, DPU_MRAM_HEAP_POINTER_NAME, 0, buf, bytes)); break;
        case PUSH_TO:
        case PUSH_FROM:
            DPU_FOREACH(sd->set, dpu) {
                DPU_ASSERT(dpu_prepare_xfer(dpu, buf));
            }
            DPU_ASSERT(dpu_push_xfer(sd->set, w == PUSH_TO ? DPU_XFER_TO_DPU : DPU_XFER_FROM_DPU,
                                     DPU_MRAM_HEAP_POINTER_NAME, 0, bytes, DPU_XFER_DEFAULT));
            break;
        case LAUNCH: DPU_ASSERT(dpu_launch(sd->set, DPU_SYNCHRONOUS)); break;
        case SMALL_TO: small_phase(sd, 1, bytes, buf); break;
        case SMALL_FROM: small_phase(sd, 0, bytes, buf); break;
        }
        t[r] = bench_now() - t0;
    }
    openpim_session_use(NULL);
    bench_sort(t, REPS);
    *min = t[0];
    return t[REPS / 2];
}

static void row(struct side *emb, struct side *rem, enum what w, const char *label, size_t bytes, size_t total,
                uint8_t *buf)
{
    double emin, rmin;
    double e = measure(emb, w, bytes, buf, &emin), r = measure(rem, w, bytes, buf, &rmin);
    printf("%-10s %10zu  %10.1f %10.1f  %10.1f %10.1f  %6.2f", label, bytes, emin * 1e6, e * 1e6, rmin * 1e6,
           r * 1e6, r / e);
    if (total >= 65536)
        printf("  %8.2f %8.2f", total / e / 1e9, total / r / 1e9);
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s SOCKET DPU_PROGRAM\n", argv[0]);
        return 2;
    }
    char remote[300];
    snprintf(remote, sizeof remote, "backend=remote,socket=%s", argv[1]);
    struct side emb, rem;
    open_side(&emb, "embedded", "nrRanks=1", argv[2]);
    open_side(&rem, "remote", remote, argv[2]);
    size_t max = 64u << 20;
    uint8_t *buf = malloc(max);
    for (size_t i = 0; i < max; i++)
        buf[i] = (uint8_t)(i * 131);
    printf("median of %d; us per call; GB/s = bytes moved (all DPUs) / median\n", REPS);
    printf("%-10s %10s  %10s %10s  %10s %10s  %6s  %8s %8s\n", "op", "B/DPU", "emb min", "emb med", "rem min",
           "rem med", "ratio", "emb GB/s", "rem GB/s");
    for (size_t b = 8; b <= max; b *= 8)
        row(&emb, &rem, COPY_TO, "copy_to", b, b, buf);
    for (size_t b = 8; b <= max; b *= 8)
        row(&emb, &rem, COPY_FROM, "copy_from", b, b, buf);
    for (size_t b = 8; b <= (1u << 20); b *= 8)
        row(&emb, &rem, PUSH_TO, "push_to", b, b * 64, buf);
    for (size_t b = 8; b <= (1u << 20); b *= 8)
        row(&emb, &rem, PUSH_FROM, "push_from", b, b * 64, buf);
    row(&emb, &rem, LAUNCH, "launch", 0, 0, buf);
    printf("small-transfer-heavy: %d single-DPU transfers of 100 B, DPU after DPU (us per phase)\n", SMALL_OPS);
    row(&emb, &rem, SMALL_TO, "small_to", 100, 0, buf);
    row(&emb, &rem, SMALL_FROM, "small_from", 100, 0, buf);
    free(buf);
    openpim_session_destroy(emb.s);
    openpim_session_destroy(rem.s);
    return 0;
}
