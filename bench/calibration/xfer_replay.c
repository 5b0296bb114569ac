/* SPDX-License-Identifier: MIT */
/* Replays recorded host transfer calls and launches through the transfer model
 * (timing/xfer_model.c: op_xfer_time_us, op_launch_overhead_us), so that the
 * model's host-side times for a program can be recomputed without the program:
 * bench/calibration/accuracy.py replays the PrIM calls that prim_hw.py
 * recorded for every real-hardware row (data/prim-hw-train.csv).
 *
 *   xfer_replay [profile] < calls
 *
 * profile: machine-description keys applied to the v1A preset, as the SDK
 * applies UPMEM_PROFILE (e.g. "server=prim").  Each input line is one run's
 * calls, ';'-separated tokens, as prim_hw.py writes them:
 *   DIR:KIND:TARGET:BYTES_PER_DPU:DPUS   a transfer (DIR to/from, KIND push,
 *                                        broadcast or copy, TARGET MRAM/WRAM)
 *   L:DPUS                               a synchronous launch on DPUS DPUs
 *   TOKEN*N                              N such calls in a row
 * Each output line holds the modelled microseconds of its tokens (a run: all
 * N calls), space-separated, in order; a launch token gives its host-side
 * overhead (op_launch_overhead_us), without the DPUs' cycles.
 * DPUs are numbered from rank 0 up, as dpu_alloc hands them out; a copy token
 * is one call on one DPU; as in the SDK's run report (sdk/report.c), a rank's
 * first MRAM access after a launch pays the MRAM mux hand-back and a launch
 * pays the hand-over only for the ranks with an MRAM access since the last
 * one (WRAM accesses leave the mux alone). */
#include "timing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct op_machine_desc D;
static struct op_mram_side side; /* which side holds each rank's MRAM, as the SDK keeps it */

static unsigned ranks_for(unsigned ndpus, struct op_xfer_rank *r)
{
    unsigned nr = (ndpus + 63) / 64;
    for (unsigned i = 0; i < nr && i < OP_TIMING_MAX_RANKS; i++) {
        r[i].rank = i;
        r[i].channel = OP_XFER_CHANNEL_AUTO;
        r[i].nr_dpus = ndpus - 64 * i < 64 ? ndpus - 64 * i : 64;
    }
    return nr;
}

static int parse_u(const char *s, unsigned long long *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return errno || end == s || *end ? -1 : 0;
}

/* One token (without its *N); returns its microseconds, or -1 on a bad token. */
static double token_us(char *tok, unsigned long long times)
{
    static struct op_xfer_rank R[OP_TIMING_MAX_RANKS];
    char *f[6];
    unsigned nf = 0;
    for (char *p = tok; p && nf < 6; nf++) { /* fields separated by ':' */
        f[nf] = p;
        p = strchr(p, ':');
        if (p)
            *p++ = 0;
    }
    unsigned long long dpus, bytes;
    if (nf == 2 && strcmp(f[0], "L") == 0 && parse_u(f[1], &dpus) == 0 && dpus > 0 &&
        dpus <= 64ull * OP_TIMING_MAX_RANKS) {
        unsigned nr = ranks_for((unsigned)dpus, R);
        struct op_xfer_rank held[OP_TIMING_MAX_RANKS];
        unsigned nh = op_mram_side_launch(&side, R, nr, held);
        double first = op_launch_overhead_us(&D, R, nr, held, nh); /* the later ones of a run hand nothing over */
        return first + (double)(times - 1) * op_launch_overhead_us(&D, R, nr, NULL, 0);
    }
    if (nf != 5 || parse_u(f[3], &bytes) || parse_u(f[4], &dpus) || dpus == 0 ||
        dpus > 64ull * OP_TIMING_MAX_RANKS)
        return -1;
    struct op_xfer_desc x = {0};
    if (strcmp(f[0], "to") == 0)
        x.dir = OP_XFER_TO_DPU;
    else if (strcmp(f[0], "from") == 0)
        x.dir = OP_XFER_FROM_DPU;
    else
        return -1;
    if (strcmp(f[1], "push") == 0)
        x.kind = OP_XFER_PARALLEL;
    else if (strcmp(f[1], "broadcast") == 0)
        x.kind = OP_XFER_BROADCAST;
    else if (strcmp(f[1], "copy") == 0)
        x.kind = OP_XFER_SERIAL;
    else
        return -1;
    if (strcmp(f[2], "MRAM") == 0)
        x.target = OP_XFER_MRAM;
    else if (strcmp(f[2], "WRAM") == 0)
        x.target = OP_XFER_WRAM;
    else
        return -1;
    x.bytes_per_dpu = bytes;
    /* equal calls cost the same: compute a call again only when its rank or its
       first-access-after-launch flag changes (runs of 10^4 pushes in TRNS) */
    double us = 0, last = 0;
    unsigned last_rank = ~0u;
    int last_after = -1;
    for (unsigned long long i = 0; i < times; i++) {
        /* a copy is one call on one DPU: the run's i-th DPU (DPU_FOREACH order), from rank 0 */
        if (x.kind == OP_XFER_SERIAL) {
            R[0].rank = (unsigned)(i / 64 % OP_TIMING_MAX_RANKS);
            R[0].channel = OP_XFER_CHANNEL_AUTO;
            R[0].nr_dpus = 1;
            x.nr_ranks = 1;
        } else {
            x.nr_ranks = ranks_for((unsigned)dpus, R);
        }
        x.ranks = R;
        x.after_launch = x.target == OP_XFER_MRAM && op_mram_side_take(&side, R, x.nr_ranks);
        if (R[0].rank != last_rank || x.after_launch != last_after) {
            last = op_xfer_time_us(&D, &x);
            last_rank = R[0].rank;
            last_after = x.after_launch;
        }
        us += last;
    }
    return us;
}

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "-h") == 0)) {
        fprintf(stderr, "usage: xfer_replay [profile] < calls\n");
        return 2;
    }
    op_machine_desc_preset("v1A", &D);
    if (argc == 2 && op_machine_desc_apply(&D, argv[1]) < 0) {
        fprintf(stderr, "xfer_replay: bad profile '%s'\n", argv[1]);
        return 2;
    }
    static char line[1 << 22];
    unsigned long lineno = 0;
    while (fgets(line, sizeof line, stdin)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            fprintf(stderr, "xfer_replay: line %lu longer than %zu bytes\n", lineno, sizeof line - 2);
            return 1;
        }
        line[strcspn(line, "\r\n")] = 0;
        memset(&side, 0, sizeof side); /* nothing launched yet: the host holds every MRAM */
        const char *sep = "";
        for (char *tok = line, *next; tok && *tok; tok = next) {
            next = strchr(tok, ';');
            if (next)
                *next++ = 0;
            unsigned long long times = 1;
            char *star = strchr(tok, '*');
            if (star) {
                *star = 0;
                if (parse_u(star + 1, &times) || times == 0) {
                    fprintf(stderr, "xfer_replay: line %lu: bad repeat count '%s'\n", lineno, star + 1);
                    return 1;
                }
            }
            char copy[256]; /* the token as read, for the message (parsing splits it) */
            size_t tl = strlen(tok) < sizeof copy - 1 ? strlen(tok) : sizeof copy - 1;
            memcpy(copy, tok, tl);
            copy[tl] = 0;
            double us = token_us(tok, times);
            if (us < 0) {
                fprintf(stderr, "xfer_replay: line %lu: bad token '%s'\n", lineno, copy);
                return 1;
            }
            printf("%s%.3f", sep, us);
            sep = " ";
        }
        printf("\n");
    }
    return ferror(stdin) ? 1 : 0;
}
