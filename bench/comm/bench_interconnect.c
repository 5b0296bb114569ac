/* SPDX-License-Identifier: MIT */
/* PIM-interconnect what-if ([Jonatan24] §6, Figure 18), on 4 ranks (256 DPUs)
 * seen as the cube {8 chips, 8 DPUs per chip, 4 ranks}:
 *   bank-wise groups  "010"  the 8 DPUs of one chip
 *   chip-wise groups  "110"  the 64 DPUs of one rank
 *   rank-wise groups  "111"  the 256 DPUs of the 4 ranks
 * (a) Embedding-style reduction: every DPU holds S bytes of outputs of which
 *     a fraction r (the global reduction ratio) are partial sums over its
 *     group.  Host-routed (the paper's model: host reduction ignored): the
 *     host reads all S bytes of every DPU.  Interconnect: the group
 *     reduce-scatters its r S bytes with the interconnect transport
 *     (openpim_cube_set_transport: the data move, the clock advances by the
 *     link time), then the host reads (1 - r) S + r S / G per DPU.  Every
 *     time is the modelled clock's advance in this run.
 * (b) The same at r = 0.5 for link bandwidths 0.35 .. 3.5 GB/s.
 * (c) The library's own collectives, each run with both transports: the
 *     host-routed modelled time (optimised implementation) beside the
 *     interconnect's at 2.8 GB/s.
 * With OPENPIM_COMM_BENCH_CSV=file, rows are appended to that CSV file.
 *   bench_interconnect DPU_NOP [S in KB, default 64] */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <openpim_comm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

#define CHECKC(x)                                                                                                      \
    do {                                                                                                               \
        openpim_comm_status s_ = (x);                                                                                  \
        if (s_ != OPENPIM_COMM_OK) {                                                                                   \
            fprintf(stderr, "%s: %s\n", #x, openpim_comm_last_error());                                                \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

static openpim_comm_t *every; /* one instance of all 256 DPUs: the host's reads */
static uint8_t *host;

static openpim_cube_t *cube;

/* Modelled time of the group reduce-scattering `part` bytes per DPU over
 * links of link_gbps (the interconnect transport). */
static double link_rs_us(openpim_comm_t *grp, uint64_t part, uint64_t S, double link_gbps)
{
    CHECKC(openpim_cube_set_transport(cube, OPENPIM_COMM_INTERCONNECT, link_gbps));
    double t0 = openpim_modelled_time_us();
    CHECKC(openpim_reduce_scatter(grp, 0, S, part, OPENPIM_INT32, OPENPIM_SUM));
    double us = openpim_modelled_time_us() - t0;
    CHECKC(openpim_cube_set_transport(cube, OPENPIM_COMM_HOST_ROUTED, 0));
    return us;
}

/* Modelled time of the host reading `bytes` (rounded up to 8) from every DPU. */
static double read_us(uint64_t bytes)
{
    bytes = (bytes + 7) & ~7ull;
    if (bytes == 0)
        return 0;
    double t0 = openpim_modelled_time_us();
    CHECKC(openpim_gather(every, 0, host, bytes));
    return openpim_modelled_time_us() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_interconnect DPU_NOP [S in KB]\n");
        return 2;
    }
    uint64_t S = (argc > 2 ? bench_parse_u64("S in KB", argv[2], 1, 1u << 16) : 64) << 10;
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(256, "nrRanks=4", &set));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    uint32_t len[3] = {8, 8, 4};
    CHECKC(openpim_cube_create(set, 3, len, &cube));
    CHECKC(openpim_comm_create_mask(cube, "111", &every));
    static const char *const kind[] = {"bank-wise", "chip-wise", "rank-wise"};
    static const char *const masks[] = {"010", "110", "111"};
    openpim_comm_t *grp[3];
    for (int k = 0; k < 3; k++)
        CHECKC(openpim_comm_create_mask(cube, masks[k], &grp[k]));
    host = malloc((size_t)S * 256 * 2);
    memset(host, 1, (size_t)S * 256 * 2);
    read_us(S); /* first accesses */
    const char *csv_path = getenv("OPENPIM_COMM_BENCH_CSV");
    FILE *csv = csv_path && *csv_path ? fopen(csv_path, "a") : NULL;
    if (csv_path && *csv_path && !csv) {
        perror(csv_path);
        return 1;
    }
    if (csv && ftell(csv) == 0)
        fprintf(csv, "study,group,dpus_per_group,ratio,link_gbps,host_routed_us,interconnect_us,speedup\n");

    printf("# 256 DPUs (4 ranks), S = %llu bytes of outputs per DPU\n", (unsigned long long)S);
    printf("# (a) speedup of the interconnect over host-routed communication vs the global reduction ratio, 2.8 GB/s links\n");
    printf("# %-10s %6s %8s %14s %14s %8s\n", "group", "G", "ratio", "host_us", "interconn_us", "speedup");
    static const double ratios[] = {0, 0.125, 0.25, 0.5, 0.75, 1.0};
    double T_h = read_us(S);
    for (int k = 0; k < 3; k++) {
        uint32_t G = openpim_comm_size(grp[k]);
        for (size_t i = 0; i < sizeof ratios / sizeof ratios[0]; i++) {
            double r = ratios[i];
            uint64_t part = (uint64_t)(r * (double)S) / 8 / G * 8 * G; /* partial bytes, G blocks of whole words */
            double T_i = link_rs_us(grp[k], part, S, 2.8) + read_us(S - part + part / G);
            printf("  %-10s %6u %8.3f %14.1f %14.1f %8.2f\n", kind[k], G, r, T_h, T_i, T_h / T_i);
            if (csv)
                fprintf(csv, "ratio,%s,%u,%.3f,2.8,%.3f,%.3f,%.4f\n", kind[k], G, r, T_h, T_i, T_h / T_i);
        }
    }
    printf("\n# (b) speedup vs link bandwidth, ratio 0.5\n");
    printf("# %-10s %6s %8s %14s %14s %8s\n", "group", "G", "GB/s", "host_us", "interconn_us", "speedup");
    static const double bws[] = {0.35, 0.7, 1.4, 2.1, 2.8, 3.5};
    for (int k = 0; k < 3; k++) {
        uint32_t G = openpim_comm_size(grp[k]);
        uint64_t part = S / 2 / 8 / G * 8 * G;
        double rd = read_us(S - part + part / G);
        for (size_t i = 0; i < sizeof bws / sizeof bws[0]; i++) {
            double T_i = link_rs_us(grp[k], part, S, bws[i]) + rd;
            printf("  %-10s %6u %8.2f %14.1f %14.1f %8.2f\n", kind[k], G, bws[i], T_h, T_i, T_h / T_i);
            if (csv)
                fprintf(csv, "bandwidth,%s,%u,0.5,%.2f,%.3f,%.3f,%.4f\n", kind[k], G, bws[i], T_h, T_i, T_h / T_i);
        }
    }
    printf("\n# (c) the library's collectives, S bytes per DPU: host-routed (optimised, modelled) vs links at 2.8 GB/s\n");
    printf("# %-10s %-15s %14s %14s %8s\n", "group", "primitive", "host_us", "interconn_us", "speedup");
    static const char *const pn[] = {"alltoall", "reduce_scatter", "allgather", "allreduce"};
    for (int k = 0; k < 3; k++) {
        uint32_t G = openpim_comm_size(grp[k]);
        for (int p = 0; p < 4; p++) {
            /* AllGather: S of output (whole words per node); the others S of input, whole words per block */
            uint64_t b = p == 2 ? S / G / 8 * 8 : S / (8 * G) * (8 * G);
            double us[2];
            for (int ic = 0; ic < 2; ic++) {
                CHECKC(openpim_cube_set_transport(cube, ic ? OPENPIM_COMM_INTERCONNECT : OPENPIM_COMM_HOST_ROUTED,
                                                  2.8));
                double t0 = openpim_modelled_time_us();
                switch (p) {
                case 0: CHECKC(openpim_alltoall(grp[k], 0, S, b)); break;
                case 1: CHECKC(openpim_reduce_scatter(grp[k], 0, S, b, OPENPIM_INT32, OPENPIM_SUM)); break;
                case 2: CHECKC(openpim_allgather(grp[k], 0, S, b)); break;
                case 3: CHECKC(openpim_allreduce(grp[k], 0, S, b, OPENPIM_INT32, OPENPIM_SUM)); break;
                }
                us[ic] = openpim_modelled_time_us() - t0;
            }
            CHECKC(openpim_cube_set_transport(cube, OPENPIM_COMM_HOST_ROUTED, 0));
            double h = us[0], l = us[1];
            printf("  %-10s %-15s %14.1f %14.1f %8.2f\n", kind[k], pn[p], h, l, h / l);
            if (csv)
                fprintf(csv, "collective_%s,%s,%u,,2.8,%.3f,%.3f,%.4f\n", pn[p], kind[k], G, h, l, h / l);
        }
    }
    if (csv)
        fclose(csv);
    free(host);
    openpim_cube_destroy(cube);
    DPU_ASSERT(dpu_free(set));
    return 0;
}
