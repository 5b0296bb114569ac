/* Collectives benchmark in the style of nccl-tests: per primitive and size,
 * baseline and optimised side by side, with
 *   - modelled time (what the timing model says a real server would spend:
 *     SDK transfers and launches plus the library's recorded host work) and
 *     the modelled GB/s,
 *   - this host's wall-clock time of the whole call through the emulator
 *     (min and median of `runs`) and its GB/s,
 *   - the wall-clock GB/s of the library's host pass alone (the reordering or
 *     reduction between the transfers; best of `runs`), and its ratio to
 *     memcpy: the part of the host path the library itself controls,
 * beside this host's memcpy GB/s measured in the same run.
 * GB/s = 1e9 bytes of per-DPU buffer x DPUs per second, the per-DPU buffer
 * being PID-Comm's total_data_size: the input for AlltoAll, ReduceScatter,
 * AllReduce, Reduce, Gather, Scatter, Broadcast, the output for AllGather.
 * proj_us: a projection, not the model: the optimised time with its
 * rank-view calls (charged today one rank and one group at a time, each like
 * a one-rank push with its fixed cost) replaced by one set-wide parallel push
 * of the same bytes per direction, both measured in this run -- what the
 * optimised path would be charged if the SDK offered a set-wide view call.
 * With OPENPIM_COMM_BENCH_CSV=file, each row is also appended to that CSV
 * file (for the reproduction report).
 *   bench_comm DPU_NOP [DPUs] [dims, e.g. 32x32] [comm mask, e.g. 10] [runs] [KB per DPU ...] */
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

enum { AA, RS, AG, AR, BC, SC, GA, RE, NPRIM };
static const char *const names[] = {"alltoall", "reduce_scatter", "allgather", "allreduce",
                                    "broadcast", "scatter", "gather", "reduce"};

static openpim_comm_t *comm;
static uint32_t N, I, nr;
static uint8_t *host;

/* One call of primitive p with `bytes` of per-DPU buffer (see above). */
static void once(int p, uint64_t bytes)
{
    uint64_t dst = 32u << 20;
    switch (p) {
    case AA: CHECKC(openpim_alltoall(comm, 0, dst, bytes)); break;
    case RS: CHECKC(openpim_reduce_scatter(comm, 0, dst, bytes, OPENPIM_INT32, OPENPIM_SUM)); break;
    case AG: CHECKC(openpim_allgather(comm, 0, dst, bytes / N)); break;
    case AR: CHECKC(openpim_allreduce(comm, 0, dst, bytes, OPENPIM_INT32, OPENPIM_SUM)); break;
    case BC: CHECKC(openpim_broadcast(comm, dst, host, bytes)); break;
    case SC: CHECKC(openpim_scatter(comm, dst, host, bytes)); break;
    case GA: CHECKC(openpim_gather(comm, 0, host, bytes)); break;
    case RE: CHECKC(openpim_reduce(comm, 0, host, bytes, OPENPIM_INT32, OPENPIM_SUM)); break;
    }
}

static struct dpu_set_t set;

/* Modelled cost of moving `bytes` per DPU at offset 0: through the rank view
 * (every rank, every group, one call each) or one parallel push. */
static double xfer_cost(uint64_t bytes, int write, int view)
{
    if (bytes == 0)
        return 0;
    double t0 = openpim_modelled_time_us();
    struct dpu_set_t rank, dpu;
    uint32_t r, i;
    if (view) {
        DPU_RANK_FOREACH(set, rank, r) {
            for (uint32_t g = 0; g < 8; g++) {
                uint8_t *p = host + ((size_t)r * 8 + g) * 8 * bytes;
                DPU_ASSERT(write ? openpim_rank_view_write(rank, g, 0, p, 8 * bytes)
                                 : openpim_rank_view_read(rank, g, 0, p, 8 * bytes));
            }
        }
    } else {
        DPU_FOREACH(set, dpu, i)
            DPU_ASSERT(dpu_prepare_xfer(dpu, host + (size_t)i * bytes));
        struct dpu_symbol_t mram = {0x08000000u, 64u << 20};
        DPU_ASSERT(dpu_push_xfer_symbol(set, write ? DPU_XFER_TO_DPU : DPU_XFER_FROM_DPU, mram, 0, bytes,
                                        DPU_XFER_DEFAULT));
    }
    return openpim_modelled_time_us() - t0;
}

/* View bytes read and written per DPU by the optimised path of primitive p. */
static void view_bytes(int p, uint64_t bytes, uint64_t *rd, uint64_t *wr)
{
    *rd = *wr = 0;
    switch (p) {
    case AA: case AR: *rd = *wr = bytes; break;
    case RS: *rd = bytes, *wr = bytes / N; break;
    case AG: *rd = bytes / N, *wr = bytes; break;
    default: break;
    }
}

static double memcpy_gbps(size_t len, int runs, double *median)
{
    uint8_t *a = malloc(len), *b = malloc(len);
    memset(a, 1, len);
    memset(b, 2, len);
    double *v = malloc((size_t)runs * sizeof *v);
    for (int r = 0; r < runs; r++) {
        double t = bench_now();
        memcpy(b, a, len);
        v[r] = (double)len / (bench_now() - t) / 1e9;
        a[r % len] ^= b[(r * 7) % len];
    }
    bench_sort(v, (size_t)runs);
    double best = v[runs - 1];
    *median = v[runs / 2];
    free(a), free(b), free(v);
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_comm DPU_NOP [DPUs] [dims] [mask] [runs] [KB per DPU ...]\n");
        return 2;
    }
    uint32_t dpus = argc > 2 ? (uint32_t)atoi(argv[2]) : 1024;
    const char *dims_s = argc > 3 ? argv[3] : "32x32";
    const char *mask = argc > 4 ? argv[4] : "10";
    int runs = argc > 5 ? atoi(argv[5]) : 3;
    uint32_t len[OPENPIM_COMM_MAX_DIMS], nd = 0;
    for (const char *s = dims_s; *s && nd < OPENPIM_COMM_MAX_DIMS; nd++) {
        len[nd] = (uint32_t)strtoul(s, (char **)&s, 10);
        if (*s == 'x')
            s++;
    }
    DPU_ASSERT(dpu_alloc(dpus, NULL, &set));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    openpim_cube_t *cube;
    CHECKC(openpim_cube_create(set, nd, len, &cube));
    CHECKC(openpim_comm_create_mask(cube, mask, &comm));
    N = openpim_comm_size(comm);
    I = openpim_comm_nr_instances(comm);
    nr = openpim_cube_nr_nodes(cube);
    printf("# %u DPUs, cube %s, communicator %s: %u instances of %u; int32 sum; host SIMD %s; %d runs\n", nr, dims_s,
           mask, I, N, openpim_comm_simd_name(), runs);
    const char *csv_path = getenv("OPENPIM_COMM_BENCH_CSV");
    FILE *csv = csv_path && *csv_path ? fopen(csv_path, "a") : NULL;
    if (csv && ftell(csv) == 0)
        fprintf(csv, "primitive,impl,dpus,dims,mask,bytes_per_dpu,modelled_us,modelled_gbps,wall_min_us,"
                     "wall_median_us,host_pass_gbps,memcpy_gbps,view,projected_us\n");
    static const unsigned def_kb[] = {32, 256, 1024};
    int nkb = argc > 6 ? argc - 6 : 3;
    for (int k = 0; k < nkb; k++) {
        uint64_t bytes = (uint64_t)(argc > 6 ? atoi(argv[6 + k]) : (int)def_kb[k]) << 10;
        bytes -= bytes % (8ull * N * 4);
        size_t total = (size_t)bytes * nr;
        host = malloc(total);
        memset(host, 3, total);
        double mmed, mbest = memcpy_gbps(total < ((size_t)256 << 20) ? total : (size_t)256 << 20, 5, &mmed);
        printf("\n# %llu bytes per DPU (%.1f MiB in all); this host's memcpy: best %.2f, median %.2f GB/s\n",
               (unsigned long long)bytes, (double)total / (1 << 20), mbest, mmed);
        printf("# %-15s %-9s %12s %10s %12s %12s %10s %10s %10s %6s %12s\n", "primitive", "impl", "modelled_us",
               "model_GB/s", "wall_min_us", "wall_med_us", "wall_GB/s", "pass_GB/s", "pass/memcpy", "view",
               "proj_us");
        for (int p = 0; p < NPRIM; p++) {
            double model[2] = {0, 0}, proj[2] = {0, 0};
            for (int impl = 0; impl < 2; impl++) {
                CHECKC(openpim_cube_set_impl(cube, impl ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE));
                once(p, bytes); /* warm-up: backs the MRAM pages */
                double *w = malloc((size_t)runs * sizeof *w), pass = 1e300;
                for (int r = 0; r < runs; r++) {
                    double m0 = openpim_modelled_time_us(), t0 = bench_now();
                    once(p, bytes);
                    w[r] = (bench_now() - t0) * 1e6;
                    model[impl] = openpim_modelled_time_us() - m0;
                    double h = openpim_cube_last_host_pass_us(cube);
                    if (h < pass)
                        pass = h;
                }
                bench_sort(w, (size_t)runs);
                double gb = (double)total / 1e9;
                double pgb = pass > 0 ? gb / (pass * 1e-6) : 0;
                int used_view = openpim_cube_last_used_view(cube);
                proj[impl] = model[impl];
                if (used_view) {
                    uint64_t rd, wr;
                    view_bytes(p, bytes, &rd, &wr);
                    proj[impl] += xfer_cost(rd, 0, 0) - xfer_cost(rd, 0, 1) + xfer_cost(wr, 1, 0) - xfer_cost(wr, 1, 1);
                }
                printf("  %-15s %-9s %12.1f %10.2f %12.1f %12.1f %10.2f %10.2f %10.2f %6d %12.1f\n", names[p],
                       impl ? "optimised" : "baseline", model[impl], gb / (model[impl] * 1e-6), w[0], w[runs / 2],
                       gb / (w[0] * 1e-6), pgb, pgb / mbest, used_view, proj[impl]);
                if (csv)
                    fprintf(csv, "%s,%s,%u,%s,%s,%llu,%.3f,%.4f,%.1f,%.1f,%.3f,%.3f,%d,%.3f\n", names[p],
                            impl ? "optimised" : "baseline", nr, dims_s, mask, (unsigned long long)bytes, model[impl],
                            gb / (model[impl] * 1e-6), w[0], w[runs / 2], pgb, mbest,
                            used_view, proj[impl]);
                free(w);
            }
            printf("  %-15s modelled speedup optimised / baseline: %.2fx (projection with a set-wide view: %.2fx)\n",
                   names[p], model[0] / model[1], proj[0] / proj[1]);
        }
        free(host);
    }
    if (csv)
        fclose(csv);
    openpim_cube_destroy(cube);
    DPU_ASSERT(dpu_free(set));
    return 0;
}
