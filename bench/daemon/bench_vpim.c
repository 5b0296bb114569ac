/* SPDX-License-Identifier: MIT */
/* vPIM's Figures 9 and 14 as workloads, for the embedded machine and for
 * openpimd (UNIX socket, or AF_VSOCK from a guest), side by side in one run:
 * one process, one session per side (openpim_ext.h), the repetitions of the
 * sides interleaved so that a change of the host's load hits them alike.
 *
 *   bench_vpim fig9 DPU_CHECKSUM REPS DPUS SIZES_MB SIDE...
 *       vPIM's checksum (Fig. 9c): allocate DPUS DPUs, load, broadcast a file
 *       of SIZE MB to all of them, launch (each sums the file), read each
 *       DPU's sums back (DPUS small reads), free; for each size in SIZES_MB
 *       (a comma-separated list).  Every DPU's sum is checked.
 *   bench_vpim nw DPU_NW REPS DPUS STEPS SIDE...
 *       a small-transfer workload shaped as PrIM's NW host loop (Fig. 14):
 *       allocate, load, then STEPS times: two writes of 104 bytes to each DPU,
 *       a broadcast of 8 bytes, a launch, one read of 104 bytes from each DPU
 *       (checked); free.  60 DPUs and 83 steps make vPIM's ~10,000 writes and
 *       ~5,000 reads.
 *   SIDE = NAME=PROFILE: a session with that dpu_alloc profile (a remote one
 *       names its optimisations: remoteBatch=BOOL,remotePrefetch=BOOL).
 *   bench_vpim calls DPU_NW REPS DPUS COUNT SIDE...
 *       the client's own cost of a small write: allocate, load, COUNT writes
 *       of 104 bytes to each DPU, one read, free; with remoteBatch=true the
 *       writes never leave the client until the read, so this is libdpu's
 *       work per call (in a guest: on its emulated CPU).
 *   bench_vpim cpu REPS ITERS NAME
 *       a host-CPU loop of ITERS steps, no DPU: how much slower a guest's CPU
 *       is than the host's (QEMU's TCG emulates every instruction).
 *
 * Prints, per side and size (or workload), the wall time of one whole run
 * (min and median of REPS) and its modelled time (the timing model's total
 * for the run: what it would take on the modelled server):
 *   csv,WORKLOAD,SIDE,SIZE_MB,DPUS,MIN_S,MEDIAN_S,MODELLED_S
 * and the same for the run without its launches (WORKLOAD-xfer): what the
 * path to the machine costs, apart from the emulated DPUs' own time. */
#define _GNU_SOURCE
#include <dpu.h>
#include <openpim_ext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

#define MAX_SIDES 8
#define MAX_REPS 64
#define NW_WORDS 13

struct side {
    char name[32], profile[400];
    struct openpim_session *s;
    double t[MAX_REPS], x[MAX_REPS], modelled;
};

static int failures;
static double launch_s; /* wall time of the current run's launches */

static dpu_error_t timed_launch(struct dpu_set_t set)
{
    double t0 = bench_now();
    dpu_error_t rc = dpu_launch(set, DPU_SYNCHRONOUS);
    launch_s += bench_now() - t0;
    return rc;
}

static double modelled_now(void)
{
    double total = 0, us;
    for (int c = OPENPIM_EVENT_CPU_DPU; c <= OPENPIM_EVENT_DPU_CPU; c++)
        if (openpim_category_time_us((enum openpim_event_category)c, &us) == DPU_OK)
            total += us;
    return total * 1e-6;
}

static void must(dpu_error_t rc, const char *what, const struct side *sd)
{
    if (rc != DPU_OK) {
        fprintf(stderr, "bench_vpim: %s on side %s: %s (%s)\n", what, sd->name, dpu_error_to_string(rc),
                openpim_last_error());
        exit(1);
    }
}

/* ---- Fig. 9: checksum ----------------------------------------------------------- */

static const uint8_t *file;

static void checksum_run(struct side *sd, const char *prog, uint32_t dpus, size_t bytes, uint64_t want)
{
    struct dpu_set_t set, dpu;
    must(dpu_alloc(dpus, sd->profile, &set), "dpu_alloc", sd);
    must(dpu_load(set, prog, NULL), "dpu_load", sd);
    uint32_t b = (uint32_t)bytes;
    must(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, file, bytes, DPU_XFER_DEFAULT), "broadcast", sd);
    must(dpu_broadcast_to(set, "bytes", 0, &b, sizeof b, DPU_XFER_DEFAULT), "broadcast", sd);
    must(timed_launch(set), "dpu_launch", sd);
    DPU_FOREACH(set, dpu) {
        uint64_t sums[16] = {0}, s = 0;
        must(dpu_copy_from(dpu, "sums", 0, sums, sizeof sums), "dpu_copy_from", sd);
        for (int k = 0; k < 16; k++)
            s += sums[k];
        failures += s != want;
    }
    must(dpu_free(set), "dpu_free", sd);
}

/* ---- Fig. 14: NW-like small transfers ------------------------------------------- */

static void calls_run(struct side *sd, const char *prog, uint32_t dpus, uint32_t count)
{
    struct dpu_set_t set, dpu;
    must(dpu_alloc(dpus, sd->profile, &set), "dpu_alloc", sd);
    must(dpu_load(set, prog, NULL), "dpu_load", sd);
    uint64_t a[NW_WORDS] = {0}, back[NW_WORDS];
    for (uint32_t c = 0; c < count; c++)
        DPU_FOREACH(set, dpu) {
            a[0] = c;
            must(dpu_copy_to(dpu, "a", 0, a, sizeof a), "dpu_copy_to", sd);
        }
    DPU_FOREACH(set, dpu) {
        must(dpu_copy_from(dpu, "a", 0, back, sizeof back), "dpu_copy_from", sd);
        failures += back[0] != count - 1;
        break;
    }
    must(dpu_free(set), "dpu_free", sd);
}

static void nw_run(struct side *sd, const char *prog, uint32_t dpus, uint32_t steps)
{
    struct dpu_set_t set, dpu;
    must(dpu_alloc(dpus, sd->profile, &set), "dpu_alloc", sd);
    must(dpu_load(set, prog, NULL), "dpu_load", sd);
    uint64_t a[NW_WORDS], b[NW_WORDS], out[NW_WORDS];
    for (uint64_t step = 0; step < steps; step++) {
        uint32_t i;
        DPU_FOREACH(set, dpu, i) {
            for (int k = 0; k < NW_WORDS; k++) {
                a[k] = step * 1000003u + i * 131u + (uint64_t)k;
                b[k] = (uint64_t)k * 7919u ^ i;
            }
            must(dpu_copy_to(dpu, "a", 0, a, sizeof a), "dpu_copy_to", sd);
            must(dpu_copy_to(dpu, "b", 0, b, sizeof b), "dpu_copy_to", sd);
        }
        must(dpu_broadcast_to(set, "step", 0, &step, sizeof step, DPU_XFER_DEFAULT), "broadcast", sd);
        must(timed_launch(set), "dpu_launch", sd);
        DPU_FOREACH(set, dpu, i) {
            must(dpu_copy_from(dpu, "out", 0, out, sizeof out), "dpu_copy_from", sd);
            for (int k = 0; k < NW_WORDS; k++)
                failures += out[k] != (step * 1000003u + i * 131u + (uint64_t)k) + ((uint64_t)k * 7919u ^ i) + step;
        }
    }
    must(dpu_free(set), "dpu_free", sd);
}

/* ---- driver -------------------------------------------------------------------------- */

static void parse_side(const char *arg, struct side *sd)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof sd->name) {
        fprintf(stderr, "bench_vpim: side '%s' is not NAME=PROFILE\n", arg);
        exit(2);
    }
    memset(sd, 0, sizeof *sd);
    snprintf(sd->name, sizeof sd->name, "%.*s", (int)(eq - arg), arg);
    snprintf(sd->profile, sizeof sd->profile, "%s", eq + 1);
    sd->s = openpim_session_create();
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* ITERS steps of a dependent integer hash: CPU only. */
static int cpu(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bench_vpim cpu REPS ITERS NAME\n");
        return 2;
    }
    uint32_t reps = (uint32_t)bench_parse_u64("REPS", argv[2], 1, MAX_REPS);
    uint64_t iters = bench_parse_u64("ITERS", argv[3], 1, 1ull << 40);
    double t[MAX_REPS];
    uint64_t x = 1;
    for (uint32_t r = 0; r < reps; r++) {
        double t0 = bench_now();
        for (uint64_t i = 0; i < iters; i++)
            x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + i;
        t[r] = bench_now() - t0;
    }
    qsort(t, reps, sizeof *t, cmp);
    if (x == 42) /* the loop's result is used: it cannot be left out */
        fprintf(stderr, "bench_vpim: the hash met 42\n");
    printf("csv,cpu,%s,0,0,%.6f,%.6f,0\n", argv[4], t[0], t[reps / 2]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "cpu"))
        return cpu(argc, argv);
    if (argc < 7 || (strcmp(argv[1], "fig9") && strcmp(argv[1], "nw") && strcmp(argv[1], "calls"))) {
        fprintf(stderr, "usage: bench_vpim fig9 DPU_CHECKSUM REPS DPUS SIZES_MB SIDE...\n"
                        "       bench_vpim nw DPU_NW REPS DPUS STEPS SIDE...\n"
                        "       bench_vpim calls DPU_NW REPS DPUS COUNT SIDE...\n"
                        "       bench_vpim cpu REPS ITERS NAME\n");
        return 2;
    }
    int fig9 = !strcmp(argv[1], "fig9");
    const char *prog = argv[2];
    uint32_t reps = (uint32_t)bench_parse_u64("REPS", argv[3], 1, MAX_REPS);
    uint32_t dpus = (uint32_t)bench_parse_u64("DPUS", argv[4], 1, 64);
    int nsides = argc - 6;
    if (nsides > MAX_SIDES) {
        fprintf(stderr, "bench_vpim: at most %d sides\n", MAX_SIDES);
        return 2;
    }
    struct side sides[MAX_SIDES];
    for (int i = 0; i < nsides; i++)
        parse_side(argv[6 + i], &sides[i]);
    /* the sizes (fig9) or the one step count (nw) */
    uint64_t sizes[32];
    int nsizes = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", argv[5]);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && nsizes < 32; tok = strtok_r(NULL, ",", &save))
        sizes[nsizes++] = bench_parse_u64(fig9 ? "SIZES_MB" : "STEPS or COUNT", tok, 1, fig9 ? 63 : 100000);
    if (!fig9 && nsizes != 1) {
        fprintf(stderr, "bench_vpim: %s takes one count\n", argv[1]);
        return 2;
    }
    uint8_t *buf = NULL;
    if (fig9) {
        uint64_t most = 0;
        for (int k = 0; k < nsizes; k++)
            most = sizes[k] > most ? sizes[k] : most;
        buf = malloc(most << 20);
        if (!buf)
            return 1;
        for (size_t i = 0; i < most << 20; i++)
            buf[i] = (uint8_t)(i * 2654435761u >> 13);
        file = buf;
    }
    for (int k = 0; k < nsizes; k++) {
        size_t bytes = fig9 ? sizes[k] << 20 : 0;
        uint64_t want = 0;
        for (size_t i = 0; i + 4 <= bytes; i += 4) {
            uint32_t w;
            memcpy(&w, buf + i, 4);
            want += w;
        }
        for (int i = 0; i < nsides; i++)
            sides[i].modelled = 0;
        for (uint32_t r = 0; r < reps; r++)
            for (int i = 0; i < nsides; i++) {
                struct side *sd = &sides[i];
                openpim_session_use(sd->s);
                double m0 = modelled_now(), t0 = bench_now();
                launch_s = 0;
                if (fig9)
                    checksum_run(sd, prog, dpus, bytes, want);
                else if (!strcmp(argv[1], "nw"))
                    nw_run(sd, prog, dpus, (uint32_t)sizes[0]);
                else
                    calls_run(sd, prog, dpus, (uint32_t)sizes[0]);
                sd->t[r] = bench_now() - t0;
                sd->x[r] = sd->t[r] - launch_s;
                sd->modelled = modelled_now() - m0; /* the same every run */
                openpim_session_use(NULL);
            }
        for (int i = 0; i < nsides; i++) {
            struct side *sd = &sides[i];
            qsort(sd->t, reps, sizeof *sd->t, cmp);
            qsort(sd->x, reps, sizeof *sd->x, cmp);
            printf("csv,%s,%s,%llu,%u,%.6f,%.6f,%.6f\n", argv[1], sd->name, (unsigned long long)(fig9 ? sizes[k] : 0),
                   dpus, sd->t[0], sd->t[reps / 2], sd->modelled);
            printf("csv,%s-xfer,%s,%llu,%u,%.6f,%.6f,%.6f\n", argv[1], sd->name,
                   (unsigned long long)(fig9 ? sizes[k] : 0), dpus, sd->x[0], sd->x[reps / 2], sd->modelled);
        }
        fflush(stdout);
    }
    for (int i = 0; i < nsides; i++)
        openpim_session_destroy(sides[i].s);
    free(buf);
    if (failures) {
        fprintf(stderr, "bench_vpim: %d wrong results\n", failures);
        return 1;
    }
    return 0;
}
