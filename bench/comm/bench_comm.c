/* SPDX-License-Identifier: MIT */
/* Collectives benchmark in the style of nccl-tests: per primitive and size,
 * the baseline, each of PID-Comm's techniques added in turn (PR, PR+IM) and
 * the optimised implementation (PR+IM+CM), with
 *   - modelled time (what the timing model says a real server would spend:
 *     SDK transfers and launches plus the library's recorded host work) and
 *     the modelled GB/s;
 *   - xfer_us: the modelled time of the host<->DPU transfers alone (the same
 *     pushes or view transfers replayed on their own), so the rest is host
 *     work and DPU kernels (the CSV also splits it: xfer_rd_us from the
 *     DPUs, xfer_wr_us to them);
 *   - this host's wall-clock time of the whole call through the emulator
 *     (min and median of `runs`), and the wall-clock GB/s of the library's
 *     host pass alone (best of `runs`) beside this host's memcpy GB/s
 *     measured in the same run (pass/memcpy).
 * GB/s = per-DPU buffer x DPUs / time, the per-DPU buffer being the larger
 * side of the data (PID-Comm's definition): the input for AlltoAll,
 * ReduceScatter, AllReduce, Reduce, Gather, Scatter, Broadcast, the output
 * for AllGather.  Element type int32, operation sum.
 * With OPENPIM_COMM_BENCH_CSV=file, each row is also appended to that CSV file;
 * OPENPIM_COMM_BENCH_PRIMS (e.g. "alltoall,allreduce") and
 * OPENPIM_COMM_BENCH_VARIANTS (e.g. "baseline,optimised") run only those;
 * OPENPIM_COMM_BENCH_COST (e.g. "transpose_gbps=30,dram_gbps=38.4") changes
 * rates of comm's host cost model for a sensitivity run (not the model).
 * The machine is UPMEM_PROFILE's (run.sh: PID-Comm's server, server=pidcomm).
 *   bench_comm DPU_NOP [DPUs] [dims, e.g. 32x32] [comm mask, e.g. 10] [runs] [KB per DPU ...] */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <math.h>
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
/* baseline, +PR, +PR+IM, optimised (+CM) */
static const unsigned variants[] = {0, OPENPIM_COMM_PR, OPENPIM_COMM_PR | OPENPIM_COMM_IM,
                                    OPENPIM_COMM_PR | OPENPIM_COMM_IM | OPENPIM_COMM_CM};
static const char *const vnames[] = {"baseline", "PR", "PR+IM", "optimised"};
#define NVAR 4

static openpim_comm_t *comm;
static uint32_t N, I, nr;
static uint8_t *host;
static struct dpu_set_t set;

/* One call of primitive p with `bytes` of per-DPU buffer (see above). */
static void once(int p, uint64_t bytes)
{
    uint64_t dst = bytes;
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

/* Modelled cost of moving `bytes` per DPU at offset 0 (rw: 0 read, 1 write):
 * one set-wide view transfer, or one parallel SDK push. */
static double xfer_cost(uint64_t bytes, int write, int view)
{
    if (bytes == 0)
        return 0;
    double t0 = openpim_modelled_time_us();
    if (view) {
        uint32_t nranks = 0;
        DPU_ASSERT(dpu_get_nr_ranks(set, &nranks));
        void **lines = malloc((size_t)nranks * 8 * sizeof *lines);
        for (size_t e = 0; e < (size_t)nranks * 8; e++)
            lines[e] = host + e * 8 * bytes;
        DPU_ASSERT(openpim_rank_view_push(set, write ? DPU_XFER_TO_DPU : DPU_XFER_FROM_DPU, 0, lines, 8 * bytes));
        free(lines);
    } else {
        struct dpu_set_t dpu;
        uint32_t i;
        DPU_FOREACH(set, dpu, i)
            DPU_ASSERT(dpu_prepare_xfer(dpu, host + (size_t)i * bytes));
        struct dpu_symbol_t mram = {0x08000000u, 64u << 20};
        DPU_ASSERT(dpu_push_xfer_symbol(set, write ? DPU_XFER_TO_DPU : DPU_XFER_FROM_DPU, mram, 0, bytes,
                                        DPU_XFER_DEFAULT));
    }
    return openpim_modelled_time_us() - t0;
}

/* Modelled transfer time of primitive p: bytes read and written per DPU,
 * through the view (IM) or pushes (baseline, PR; the rooted primitives). */
static double xfer_of(int p, uint64_t bytes, unsigned tech, int used_view, double *rd_us, double *wr_us)
{
    uint64_t rd = 0, wr = 0;
    switch (p) {
    case AA: case AR: rd = wr = bytes; break;
    case RS: rd = bytes, wr = bytes / N; break;
    case AG: rd = bytes / N, wr = bytes; break;
    case BC: case SC: wr = bytes; break;
    case GA: case RE: rd = bytes; break;
    }
    int view = used_view && (tech & OPENPIM_COMM_IM);
    *rd_us = *wr_us = 0;
    if (p == BC && I == 1) {
        double t0 = openpim_modelled_time_us();
        struct dpu_symbol_t mram = {0x08000000u, 64u << 20};
        DPU_ASSERT(dpu_broadcast_to_symbol(set, mram, 0, host, bytes, DPU_XFER_DEFAULT));
        return *wr_us = openpim_modelled_time_us() - t0;
    }
    *rd_us = xfer_cost(rd, 0, view);
    *wr_us = xfer_cost(wr, 1, view);
    return *rd_us + *wr_us;
}

/* OPENPIM_COMM_BENCH_COST: "key=value,..." over the cost model's rates. */
static void cost_overrides(void)
{
    const char *l = getenv("OPENPIM_COMM_BENCH_COST");
    if (!l || !*l)
        return;
    struct openpim_comm_cost_model m = openpim_comm_get_cost_model();
    struct {
        const char *key;
        double *v;
    } keys[] = {{"dram_gbps", &m.dram_gbps},         {"core_copy_gbps", &m.core_copy_gbps},
                {"scalar_gbps", &m.scalar_gbps},     {"transpose_gbps", &m.transpose_gbps},
                {"baseline_threads", &m.baseline_threads}, {"optimised_threads", &m.optimised_threads},
                {"chunk_ns", &m.chunk_ns},           {"reduce_gbps", &m.reduce_gbps},
                {"chunk_far_ns", &m.chunk_far_ns}};
    for (const char *s = l; *s;) {
        size_t n = strcspn(s, "=");
        size_t k = 0;
        while (k < sizeof keys / sizeof keys[0] && (strlen(keys[k].key) != n || strncmp(s, keys[k].key, n) != 0))
            k++;
        char *end = NULL;
        double v = s[n] == '=' ? strtod(s + n + 1, &end) : 0;
        if (k == sizeof keys / sizeof keys[0] || !end || end == s + n + 1 || !(v > 0) || (*end && *end != ',')) {
            fprintf(stderr, "OPENPIM_COMM_BENCH_COST: bad item at '%s' (key=positive number, keys: dram_gbps, "
                            "core_copy_gbps, scalar_gbps, transpose_gbps, baseline_threads, optimised_threads, "
                            "chunk_ns, reduce_gbps, chunk_far_ns)\n", s);
            exit(2);
        }
        *keys[k].v = v;
        s = *end ? end + 1 : end;
    }
    openpim_comm_set_cost_model(&m);
}

/* Whether `name` is in the comma-separated list of environment variable
 * `var` (everything when it is unset or empty). */
static int selected(const char *var, const char *name)
{
    const char *l = getenv(var);
    if (!l || !*l)
        return 1;
    size_t n = strlen(name);
    for (const char *s = l; (s = strstr(s, name)) != NULL; s += n)
        if ((s == l || s[-1] == ',') && (s[n] == ',' || s[n] == 0))
            return 1;
    return 0;
}

/* Every comma-separated item of $var must be one of names[0..n), or exit 2:
 * a misspelt selection would otherwise print an empty table and exit 0. */
static void check_selection(const char *var, const char *const *names, size_t n)
{
    const char *l = getenv(var);
    for (const char *s = l && *l ? l : NULL; s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL) {
        size_t len = strcspn(s, ",");
        int known = 0;
        for (size_t i = 0; i < n; i++)
            known |= strlen(names[i]) == len && !strncmp(s, names[i], len);
        if (!known) {
            fprintf(stderr, "%s: unknown name '%.*s' (known:", var, (int)len, s);
            for (size_t i = 0; i < n; i++)
                fprintf(stderr, " %s", names[i]);
            fprintf(stderr, ")\n");
            exit(2);
        }
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
    uint32_t dpus = argc > 2 ? (uint32_t)bench_parse_u64("DPUs", argv[2], 1, 2560) : 1024;
    const char *dims_s = argc > 3 ? argv[3] : "32x32";
    const char *mask = argc > 4 ? argv[4] : "10";
    int runs = argc > 5 ? (int)bench_parse_u64("runs", argv[5], 1, 1000) : 3;
    uint32_t len[OPENPIM_COMM_MAX_DIMS], nd = 0;
    char dims_buf[64];
    if (strlen(dims_s) >= sizeof dims_buf) {
        fprintf(stderr, "dims: too long: '%s'\n", dims_s);
        return 2;
    }
    strcpy(dims_buf, dims_s);
    for (char *save = NULL, *tok = strtok_r(dims_buf, "x", &save); tok; tok = strtok_r(NULL, "x", &save)) {
        if (nd == OPENPIM_COMM_MAX_DIMS) {
            fprintf(stderr, "dims: at most %d dimensions, got '%s'\n", OPENPIM_COMM_MAX_DIMS, dims_s);
            return 2;
        }
        len[nd++] = (uint32_t)bench_parse_u64("dims (a length)", tok, 1, 2560);
    }
    if (nd == 0 || dims_s[0] == 'x' || dims_s[strlen(dims_s) - 1] == 'x' || strstr(dims_s, "xx")) {
        fprintf(stderr, "dims: lengths joined by x, e.g. 32x32, got '%s'\n", dims_s);
        return 2;
    }
    check_selection("OPENPIM_COMM_BENCH_PRIMS", names, NPRIM);
    check_selection("OPENPIM_COMM_BENCH_VARIANTS", vnames, NVAR);
    DPU_ASSERT(dpu_alloc(dpus, NULL, &set));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    openpim_cube_t *cube;
    CHECKC(openpim_cube_create(set, nd, len, &cube));
    CHECKC(openpim_comm_create_mask(cube, mask, &comm));
    N = openpim_comm_size(comm);
    I = openpim_comm_nr_instances(comm);
    nr = openpim_cube_nr_nodes(cube);
    cost_overrides();
    struct openpim_comm_cost_model cm = openpim_comm_get_cost_model();
    printf("# %u DPUs, cube %s, communicator %s: %u instances of %u; int32 sum; host SIMD %s; %d runs\n", nr, dims_s,
           mask, I, N, openpim_comm_simd_name(), runs);
    const char *prof = getenv("UPMEM_PROFILE");
    printf("# machine: UPMEM_PROFILE=%s\n", prof && *prof ? prof : "(default server)");
    printf("# host cost model: DRAM %.1f GB/s, copy %.1f GB/s/core, scalar %.1f GB/s/core, transposes %.1f GB/s/core, "
           "reductions in registers %.1f GB/s/core, %.1f ns per reorder piece (%.1f beyond the caches), %.0f baseline / "
           "%.0f optimised threads\n",
           cm.dram_gbps, cm.core_copy_gbps, cm.scalar_gbps, cm.transpose_gbps, cm.reduce_gbps, cm.chunk_ns,
           cm.chunk_far_ns, cm.baseline_threads, cm.optimised_threads);
    const char *csv_path = getenv("OPENPIM_COMM_BENCH_CSV");
    FILE *csv = csv_path && *csv_path ? fopen(csv_path, "a") : NULL;
    if (csv_path && *csv_path && !csv) {
        perror(csv_path);
        return 1;
    }
    if (csv && ftell(csv) == 0)
        fprintf(csv, "primitive,variant,dpus,dims,mask,bytes_per_dpu,modelled_us,modelled_gbps,xfer_us,wall_min_us,"
                     "wall_median_us,host_pass_gbps,memcpy_gbps,view,xfer_rd_us,xfer_wr_us\n");
    static const unsigned def_kb[] = {32, 256, 1024};
    int nkb = argc > 6 ? argc - 6 : 3;
    for (int k = 0; k < nkb; k++) {
        uint64_t bytes = (argc > 6 ? bench_parse_u64("KB per DPU", argv[6 + k], 1, 65536) : def_kb[k]) << 10;
        bytes -= bytes % (8ull * N * 4);
        if (bytes == 0) {
            fprintf(stderr, "size too small for %u ranks per instance\n", N);
            return 1;
        }
        size_t total = (size_t)bytes * nr;
        uint32_t nranks = 0;
        DPU_ASSERT(dpu_get_nr_ranks(set, &nranks));
        size_t view_all = (size_t)bytes * 64 * nranks; /* every group of every rank (xfer_cost) */
        host = malloc(view_all > total ? view_all : total);
        memset(host, 3, total);
        double mmed, mbest = memcpy_gbps(total < ((size_t)256 << 20) ? total : (size_t)256 << 20, 5, &mmed);
        printf("\n# %llu bytes per DPU (%.1f MiB in all); this host's memcpy: best %.2f, median %.2f GB/s\n",
               (unsigned long long)bytes, (double)total / (1 << 20), mbest, mmed);
        printf("# %-15s %-9s %12s %10s %12s %12s %12s %10s %10s %10s %5s\n", "primitive", "variant", "modelled_us",
               "model_GB/s", "xfer_us", "wall_min_us", "wall_med_us", "wall_GB/s", "pass_GB/s", "pass/memcpy",
               "view");
        double geo[NVAR] = {0};
        int ngeo = 0;
        for (int p = 0; p < NPRIM; p++) {
            if (!selected("OPENPIM_COMM_BENCH_PRIMS", names[p]))
                continue;
            double model[NVAR] = {0};
            int nv = p <= AR ? NVAR : 2;
            for (int vi = 0; vi < nv; vi++) {
                int v = p <= AR ? vi : (vi ? NVAR - 1 : 0);
                if (!selected("OPENPIM_COMM_BENCH_VARIANTS", vnames[v]))
                    continue;
                CHECKC(openpim_cube_set_techniques(cube, variants[v]));
                once(p, bytes); /* warm-up: backs the MRAM pages */
                double *w = malloc((size_t)runs * sizeof *w), pass = 1e300;
                for (int r = 0; r < runs; r++) {
                    double m0 = openpim_modelled_time_us(), t0 = bench_now();
                    once(p, bytes);
                    w[r] = (bench_now() - t0) * 1e6;
                    model[v] = openpim_modelled_time_us() - m0;
                    double h = openpim_cube_last_host_pass_us(cube);
                    if (h < pass)
                        pass = h;
                }
                bench_sort(w, (size_t)runs);
                int used_view = openpim_cube_last_used_view(cube);
                double xrd, xwr, xfer = xfer_of(p, bytes, variants[v], used_view, &xrd, &xwr);
                double gb = (double)total / 1e9;
                double pgb = pass > 0 && pass < 1e300 ? gb / (pass * 1e-6) : 0;
                printf("  %-15s %-9s %12.1f %10.2f %12.1f %12.1f %12.1f %10.2f %10.2f %10.2f %5d\n", names[p], vnames[v],
                       model[v], gb / (model[v] * 1e-6), xfer, w[0], w[runs / 2], gb / (w[0] * 1e-6), pgb,
                       pgb / mbest, used_view);
                if (csv)
                    fprintf(csv, "%s,%s,%u,%s,%s,%llu,%.3f,%.4f,%.3f,%.1f,%.1f,%.3f,%.3f,%d,%.3f,%.3f\n", names[p],
                            vnames[v], nr, dims_s, mask, (unsigned long long)bytes, model[v], gb / (model[v] * 1e-6),
                            xfer, w[0], w[runs / 2], pgb, mbest, used_view, xrd, xwr);
                free(w);
            }
            if (p <= AR && model[0] > 0 && model[1] > 0 && model[2] > 0 && model[3] > 0) {
                printf("  %-15s modelled speedup over the baseline: optimised %.2fx; steps PR %.2fx, IM %.2fx, CM %.2fx\n",
                       names[p], model[0] / model[3], model[0] / model[1], model[1] / model[2], model[2] / model[3]);
                for (int v = 0; v < NVAR; v++)
                    geo[v] += log(model[v]);
                ngeo++;
            } else if (model[0] > 0 && model[NVAR - 1] > 0) {
                printf("  %-15s modelled speedup over the baseline: optimised %.2fx\n", names[p],
                       model[0] / model[NVAR - 1]);
            }
        }
        if (ngeo)
            printf("# geomean over the DPU-to-DPU primitives run: optimised %.2fx; steps PR %.2fx, IM %.2fx, CM %.2fx\n",
               exp((geo[0] - geo[3]) / ngeo), exp((geo[0] - geo[1]) / ngeo), exp((geo[1] - geo[2]) / ngeo),
               exp((geo[2] - geo[3]) / ngeo));
        free(host);
    }
    if (csv)
        fclose(csv);
    openpim_cube_destroy(cube);
    DPU_ASSERT(dpu_free(set));
    return 0;
}
