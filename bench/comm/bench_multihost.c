/* SPDX-License-Identifier: MIT */
/* Multi-host collectives (PID-Comm [PIDComm] §VIII, Figure 23(b)): every MPI
 * process owns one four-rank channel of 256 DPUs (the cube {8, 8, 4}); the
 * global cube adds the host dimension.  AllReduce (int32 sum) and AlltoAll
 * over the whole global cube, baseline and optimised local steps, each
 * checked exactly against a reference computed here from the generator (every
 * process knows every node's data: value(node, word) is a hash).
 * Prints one CSV row per primitive and implementation (process 0):
 *   prim,impl,hosts,bytes_per_pe,modelled_us,inter_host_us,gbps
 * modelled_us: the slowest process's modelled time of the call;
 * inter_host_us: the largest Inter-host category time of the call
 * (openpim_category_time_us); gbps: the paper's throughput, the larger of the
 * input and output sizes (here both bytes_per_pe x all PEs) over modelled_us.
 * Exits non-zero (on every process) when any result is wrong
 * (OPENPIM_MULTIHOST_CORRUPT=1 flips a bit of what the last process read
 * back: the negative control of the check).
 *   mpirun -np H bench_multihost DPU_NOP [bytes per PE] [profile] */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <dpu.h>
#include <openpim_comm_mpi.h>
#include <openpim_ext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

#define NODES 256u

static int me, H;

static void die(const char *what)
{
    fprintf(stderr, "[%d] %s\n", me, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define CHECKC(x)                                                                                                      \
    do {                                                                                                               \
        if ((x) != OPENPIM_COMM_OK) {                                                                                  \
            fprintf(stderr, "[%d] %s: %s\n", me, #x, openpim_comm_last_error());                                       \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                              \
        }                                                                                                              \
    } while (0)

/* The data of global node g, 32-bit word w (small values: sums never wrap
 * differently from the reference, which wraps the same way anyway). */
static uint32_t value(uint32_t g, uint64_t w)
{
    uint64_t x = (uint64_t)g * 0x9E3779B97F4A7C15ull ^ (w + 1) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    return (uint32_t)x;
}

static const struct dpu_symbol_t mram = {0x08000000u, 64u << 20}; /* comm's offsets: from MRAM's start */

/* Moves every local node's `bytes` at MRAM offset `off` to or from buf (node
 * l at l x bytes), in the cube's node numbering. */
static void xfer(openpim_cube_t *cube, struct dpu_set_t set, dpu_xfer_t dir, uint8_t *buf, uint64_t off,
                 uint64_t bytes)
{
    for (uint32_t l = 0; l < NODES; l++) {
        struct dpu_set_t dpu;
        CHECKC(openpim_cube_node_dpu(cube, l, &dpu));
        DPU_ASSERT(dpu_prepare_xfer(dpu, buf + (size_t)l * bytes));
    }
    DPU_ASSERT(dpu_push_xfer_symbol(set, dir, mram, (uint32_t)off, bytes, DPU_XFER_DEFAULT));
}

/* Writes every local node's input at MRAM offset 0, and poisons the output. */
static void load(openpim_cube_t *cube, struct dpu_set_t set, uint8_t *buf, uint64_t bytes)
{
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t l = 0; l < NODES; l++) {
            uint32_t *p = (uint32_t *)(buf + (size_t)l * bytes);
            for (uint64_t w = 0; w < bytes / 4; w++)
                p[w] = pass == 0 ? value((uint32_t)me * NODES + l, w) : 0xDEADBEEFu;
        }
        xfer(cube, set, DPU_XFER_TO_DPU, buf, pass == 0 ? 0 : bytes, bytes);
    }
}

/* Reads the outputs back and compares them with the reference; returns the
 * number of wrong words. */
static uint64_t verify(openpim_cube_t *cube, struct dpu_set_t set, uint8_t *buf, uint64_t bytes, int alltoall)
{
    uint32_t l;
    xfer(cube, set, DPU_XFER_FROM_DPU, buf, bytes, bytes);
    const char *corrupt = getenv("OPENPIM_MULTIHOST_CORRUPT"); /* negative control of this check */
    if (corrupt && *corrupt && me == H - 1)
        buf[bytes - 1] ^= 1;
    uint32_t G = NODES * (uint32_t)H;
    uint64_t words = bytes / 4, bad = 0;
    if (alltoall) {
        /* node r's block q is node q's block r */
        uint64_t blk = words / G;
        for (l = 0; l < NODES; l++) {
            uint32_t r = (uint32_t)me * NODES + l;
            const uint32_t *p = (const uint32_t *)(buf + (size_t)l * bytes);
            for (uint32_t q = 0; q < G; q++)
                for (uint64_t j = 0; j < blk; j++)
                    bad += p[q * blk + j] != value(q, r * blk + j);
        }
    } else {
        uint32_t *sum = calloc(words, 4);
        if (!sum)
            die("out of memory");
        for (uint32_t g = 0; g < G; g++)
            for (uint64_t w = 0; w < words; w++)
                sum[w] += value(g, w);
        for (l = 0; l < NODES; l++)
            bad += memcmp(buf + (size_t)l * bytes, sum, bytes) != 0;
        free(sum);
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &H);
    if (argc < 2) {
        if (me == 0)
            fprintf(stderr, "usage: mpirun -np H bench_multihost DPU_NOP [bytes per PE] [profile]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* every rank parses the same argv: a bad one exits 2 on all of them */
    uint64_t bytes = argc > 2 ? bench_parse_u64("bytes per PE", argv[2], 1, 1ull << 30) : 2u << 20;
    const char *profile = argc > 3 ? argv[3] : "nrRanks=4";
    uint32_t G = NODES * (uint32_t)H;
    if (bytes == 0 || bytes % (8ull * G) != 0) {
        if (me == 0)
            fprintf(stderr, "bytes per PE must be a positive multiple of 8 x %u (8-byte AlltoAll blocks)\n", G);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    struct dpu_set_t set;
    if (dpu_alloc(NODES, profile, &set) != DPU_OK)
        die("dpu_alloc of 256 DPUs failed");
    uint32_t nr_ranks;
    DPU_ASSERT(dpu_get_nr_ranks(set, &nr_ranks));
    if (nr_ranks != 4)
        die("expected four ranks per process");
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    static const uint32_t len[3] = {8, 8, 4};
    openpim_mcube_t *cube;
    CHECKC(openpim_mcube_create(MPI_COMM_WORLD, set, 3, len, &cube));
    openpim_mcomm_t *all;
    CHECKC(openpim_mcomm_create_mask(cube, "1111", &all));
    if (openpim_mcomm_size(all) != G)
        die("the global communicator is not every node");
    uint8_t *buf = malloc((size_t)NODES * bytes);
    if (!buf)
        die("out of memory");
    static const char *const prim[] = {"allreduce", "alltoall"};
    static const char *const impl[] = {"baseline", "optimised"};
    uint64_t bad_total = 0;
    if (me == 0)
        printf("prim,impl,hosts,bytes_per_pe,modelled_us,inter_host_us,gbps\n");
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 2; i++) {
            CHECKC(openpim_cube_set_impl(openpim_mcube_local(cube), i ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE));
            load(openpim_mcube_local(cube), set, buf, bytes);
            double ih0, ih1;
            if (openpim_category_time_us(OPENPIM_EVENT_INTER_HOST, &ih0) != DPU_OK)
                die("openpim_category_time_us failed");
            double t0 = openpim_modelled_time_us();
            if (p == 0)
                CHECKC(openpim_mpi_allreduce(all, 0, bytes, bytes, OPENPIM_INT32, OPENPIM_SUM));
            else
                CHECKC(openpim_mpi_alltoall(all, 0, bytes, bytes));
            double us = openpim_modelled_time_us() - t0;
            if (openpim_category_time_us(OPENPIM_EVENT_INTER_HOST, &ih1) != DPU_OK)
                die("openpim_category_time_us failed");
            double mine[2] = {us, ih1 - ih0}, most[2];
            MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            uint64_t bad = verify(openpim_mcube_local(cube), set, buf, bytes, p == 1), all_bad;
            MPI_Allreduce(&bad, &all_bad, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
            if (all_bad)
                fprintf(stderr, "[%d] %s %s: %llu wrong (words for AlltoAll, nodes for AllReduce) here, %llu in all\n",
                        me, prim[p], impl[i], (unsigned long long)bad, (unsigned long long)all_bad);
            bad_total += all_bad;
            if (me == 0) {
                printf("%s,%s,%d,%llu,%.3f,%.3f,%.4f\n", prim[p], impl[i], H, (unsigned long long)bytes, most[0],
                       most[1], (double)bytes * G / (most[0] * 1e3));
                fflush(stdout);
            }
        }
    free(buf);
    openpim_mcube_destroy(cube);
    DPU_ASSERT(dpu_free(set));
    MPI_Finalize();
    return bad_total ? 1 : 0;
}
