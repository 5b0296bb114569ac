/* GNN inference on PIM (PID-Comm §VII-B): 3 graph-convolution layers
 * H(l+1) = ReLU(A H(l) W(l)) on a 2D hypercube of Q x Q PEs, in PID-Comm's two
 * communication schemes, against the CPU reference (gnn_ref.c).
 *
 * Vertices are cut into Q blocks of `rows`; PE (x, y) (node x + Q y) holds the
 * adjacency tiles A[y][x] and A[x][y], and a feature strip.  Layer l runs
 * along x (l even: tile A[y][x], communicator "10") or along y (l odd: tile
 * A[x][y], communicator "01"); with r the PE's coordinate along it:
 *   RS&AR: SpMM: partial A[.][r] H[r] -> ReduceScatter of its Q column blocks
 *          -> GEMM with rows block r of W(l) -> partial sums -> AllReduce: the
 *          next strip, row-major (ReLU applied when the next SpMM reads it);
 *   AR&AG: SpMM -> AllReduce (the whole aggregated strip) -> GEMM with
 *          columns block r of W(l), ReLU -> AllGather: the next strip in Q
 *          column blocks, turned row-major by the next SpMM launch.
 * Either way layer l's output strip lies where layer l+1's SpMM needs it.
 * The graph: a power-law (Chung-Lu) graph with Cora's size, plus self-loops;
 * features and weights random in {-1, 0, 1}; all from --seed.
 *
 *   gnn_app [--pes P] [--variant rsar|arag] [--dtype int32|int8]
 *           [--features F] [--vertices V] [--edges E] [--seed X]
 *           [--impl baseline|optimised] [--profile STR] [--check]
 *           [--csv FILE] [--breakdown FILE] [--cpu-reps N] [--corrupt]
 * --check compares the output with the CPU reference (exit 1 on a mismatch);
 * --corrupt flips one output bit first (the check's negative control);
 * the CSV's cpu_us is the best of --cpu-reps runs of the CPU reference. */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <openpim_comm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnn_args.h"
#include "gnn_ref.h"
#include "pim_app.h"
#include "powerlaw.h"

#ifndef GNN_DPU_DIR
#define GNN_DPU_DIR "."
#endif
#define MRAM_BASE (1u << 20)
#define LAYERS 3

struct opts {
    uint32_t pes, features, vertices, edges, eb;
    int arag, check, corrupt;
    uint64_t seed;
    openpim_comm_impl impl;
    const char *profile, *csv, *breakdown;
    uint32_t cpu_reps;
};

static struct opts parse(int argc, char **argv)
{
    struct opts o = {64, 128, 2708, 5429, 4, 0, 0, 0, 1, OPENPIM_COMM_OPTIMISED, NULL, NULL, NULL, 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--check") || !strcmp(a, "--corrupt")) { /* --corrupt: the check's negative control */
            *(!strcmp(a, "--check") ? &o.check : &o.corrupt) = 1;
            continue;
        }
        if (!v)
            pim_die("%s needs a value", a);
        i++;
        if (!strcmp(a, "--pes"))
            o.pes = (uint32_t)pim_parse_u64(a, v, 1, 2560);
        else if (!strcmp(a, "--features"))
            o.features = (uint32_t)pim_parse_u64(a, v, 1, GNN_MAX_FEATURES);
        else if (!strcmp(a, "--vertices"))
            o.vertices = (uint32_t)pim_parse_u64(a, v, 2, 1u << 20);
        else if (!strcmp(a, "--edges"))
            o.edges = (uint32_t)pim_parse_u64(a, v, 1, 1u << 24);
        else if (!strcmp(a, "--seed"))
            o.seed = pim_parse_u64(a, v, 0, UINT64_MAX);
        else if (!strcmp(a, "--impl"))
            o.impl = pim_parse_impl(v);
        else if (!strcmp(a, "--variant")) {
            if (strcmp(v, "rsar") && strcmp(v, "arag"))
                pim_die("--variant: expected 'rsar' or 'arag', got '%s'", v);
            o.arag = !strcmp(v, "arag");
        } else if (!strcmp(a, "--dtype")) {
            if (strcmp(v, "int32") && strcmp(v, "int8"))
                pim_die("--dtype: expected 'int32' or 'int8', got '%s'", v);
            o.eb = !strcmp(v, "int8") ? 1 : 4;
        } else if (!strcmp(a, "--cpu-reps"))
            o.cpu_reps = (uint32_t)pim_parse_u64(a, v, 1, 100);
        else if (!strcmp(a, "--profile"))
            o.profile = v;
        else if (!strcmp(a, "--csv"))
            o.csv = v;
        else if (!strcmp(a, "--breakdown"))
            o.breakdown = v;
        else
            pim_die("unknown option '%s'", a);
    }
    uint32_t q = 1;
    while (q * q < o.pes)
        q++;
    if (q * q != o.pes)
        pim_die("--pes %u: the 2D partitioning needs a square number of PEs (Q x Q)", o.pes);
    const uint32_t F = o.features, Fq = F / q;
    if (F % q || (Fq * o.eb) % 8)
        pim_die("--features %u: with %u x %u PEs each PE's column block (features / %u) must be a whole number "
                "of 8-byte words (%s: a multiple of %u features)",
                F, q, q, q, o.eb == 1 ? "int8" : "int32", q * (8 / o.eb));
    if ((uint64_t)F * Fq * o.eb > GNN_WRAM_WEIGHTS)
        pim_die("--features %u: a PE's weight slice (%u x %u elements) exceeds the %u bytes of WRAM the GEMM "
                "kernel holds it in; use more PEs or fewer features",
                F, F, Fq, GNN_WRAM_WEIGHTS);
    if ((uint64_t)o.edges * 8 > (uint64_t)o.vertices * (o.vertices - 1))
        pim_die("--edges %u: at most a quarter of the %u vertices' possible edges", o.edges, o.vertices);
    return o;
}

/* Appends the CSR tile A[rows of block bi][columns of block bj] (local indices):
 * rp (rows + 4 entries) at *rp, col at *col. */
static void tile(const struct csr *g, uint32_t rows, uint32_t bi, uint32_t bj, uint32_t *rp, uint32_t *col)
{
    const uint32_t V = g->nr_vertices, c0 = bj * rows, c1 = c0 + rows;
    uint32_t n = 0;
    for (uint32_t r = 0; r < rows + 4; r++) {
        rp[r] = n;
        uint32_t u = bi * rows + r;
        if (r >= rows || u >= V)
            continue;
        for (uint32_t e = g->rp[u]; e < g->rp[u + 1]; e++)
            if (g->col[e] >= c0 && g->col[e] < c1)
                col[n++] = g->col[e] - c0;
        rp[r + 1] = n;
    }
}

static uint32_t tile_nnz(const struct csr *g, uint32_t rows, uint32_t bi, uint32_t bj)
{
    uint32_t n = 0, c0 = bj * rows, c1 = c0 + rows;
    for (uint32_t u = bi * rows; u < (bi + 1) * rows && u < g->nr_vertices; u++)
        for (uint32_t e = g->rp[u]; e < g->rp[u + 1]; e++)
            n += g->col[e] >= c0 && g->col[e] < c1;
    return n;
}

static void launch(struct dpu_set_t set, struct pim_times *t, const struct gnn_args *a)
{
    PIM_TIMED(t, PH_OTHER, PIM_DPU(dpu_broadcast_to(set, "gnn_args", 0, a, sizeof *a, DPU_XFER_DEFAULT)));
    PIM_TIMED(t, PH_KERNEL, PIM_DPU(dpu_launch(set, DPU_SYNCHRONOUS)));
}

int main(int argc, char **argv)
{
    const struct opts o = parse(argc, argv);
    const uint32_t P = o.pes, F = o.features, eb = o.eb, V = o.vertices;
    uint32_t Q = 1;
    while (Q * Q < P)
        Q++;
    const uint32_t Fq = F / Q, rows = (V + Q - 1) / Q;
    const char *dtype = eb == 1 ? "int8" : "int32";
    const openpim_comm_type type = eb == 1 ? OPENPIM_INT8 : OPENPIM_INT32;

    struct csr g;
    if (pl_chung_lu(V, o.edges, 1, o.seed, &g))
        pim_die("cannot generate the graph (out of memory)");
    uint64_t s = o.seed ^ 0x6a09e667f3bcc909ull;
    uint8_t *h0 = malloc((size_t)V * F * eb), *w[LAYERS], *ref = malloc((size_t)V * F * eb);
    if (!h0 || !ref)
        pim_die("out of memory");
    for (size_t i = 0; i < (size_t)V * F; i++) {
        int32_t x = (int32_t)(pl_rand(&s) % 3) - 1;
        if (eb == 1)
            ((int8_t *)h0)[i] = (int8_t)x;
        else
            ((int32_t *)h0)[i] = x;
    }
    for (int l = 0; l < LAYERS; l++) {
        if (!(w[l] = malloc((size_t)F * F * eb)))
            pim_die("out of memory");
        for (size_t i = 0; i < (size_t)F * F; i++) {
            int32_t x = (int32_t)(pl_rand(&s) % 3) - 1;
            if (eb == 1)
                ((int8_t *)w[l])[i] = (int8_t)x;
            else
                ((int32_t *)w[l])[i] = x;
        }
    }

    /* CPU reference, timed (wall clock of this host, one thread) */
    double cpu_us = 0;
    for (uint32_t rep = 0; rep < o.cpu_reps; rep++) { /* the best of --cpu-reps runs */
        memcpy(ref, h0, (size_t)V * F * eb);
        double c0 = pim_wall_us();
        if (gnn_ref(&g, F, eb, LAYERS, (const void *const *)w, ref))
            pim_die("out of memory");
        double dt = pim_wall_us() - c0;
        cpu_us = rep == 0 || dt < cpu_us ? dt : cpu_us;
    }

    struct dpu_set_t set;
    struct dpu_program_t *prog;
    const char *bin = eb == 1 ? GNN_DPU_DIR "/gnn_int8" : GNN_DPU_DIR "/gnn_int32";
    PIM_DPU(dpu_alloc(P, o.profile, &set));
    PIM_DPU(dpu_load(set, bin, &prog));
    openpim_cube_t *cube;
    openpim_comm_t *all, *along[2];
    const uint32_t lens[2] = {Q, Q};
    PIM_COMM(openpim_cube_create(set, 2, lens, &cube));
    PIM_COMM(openpim_cube_set_impl(cube, o.impl));
    PIM_COMM(openpim_comm_create_mask(cube, "11", &all));
    PIM_COMM(openpim_comm_create_mask(cube, "10", &along[0]));
    PIM_COMM(openpim_comm_create_mask(cube, "01", &along[1]));

    /* MRAM: the input block (two tiles, three weight slices), then the strips */
    uint32_t nnz = 0;
    for (uint32_t bi = 0; bi < Q; bi++)
        for (uint32_t bj = 0; bj < Q; bj++) {
            uint32_t n = tile_nnz(&g, rows, bi, bj);
            nnz = n > nnz ? n : nnz;
        }
    const uint64_t rp_b = ((uint64_t)(rows + 4) * 4 + 7) & ~7ull, col_b = (((uint64_t)nnz + 2) * 4 + 7) & ~7ull;
    const uint64_t wsl = (uint64_t)F * Fq * eb, strip = (uint64_t)rows * F * eb, blk = (uint64_t)rows * Fq * eb;
    const uint64_t in_b = 2 * (rp_b + col_b) + LAYERS * wsl;
    struct pim_mram m = {MRAM_BASE, openpim_cube_mram_bytes(cube)};
    const uint32_t o_in = pim_mram_take(&m, in_b, "the tiles and weights");
    const uint32_t o_rp[2] = {o_in, o_in + (uint32_t)(rp_b + col_b)};
    const uint32_t o_w = o_in + (uint32_t)(2 * (rp_b + col_b));
    const uint32_t o_h = pim_mram_take(&m, strip, "the feature strip");
    const uint32_t o_z = pim_mram_take(&m, strip, "the aggregated strip");
    const uint32_t o_zc = pim_mram_take(&m, blk, "the reduced block");
    const uint32_t o_g = pim_mram_take(&m, strip, "the combined strip");
    const uint32_t o_t = pim_mram_take(&m, strip, "the gathered strip");

    uint8_t *in = calloc(P, in_b), *hs = calloc(P, strip);
    if (!in || !hs)
        pim_die("out of memory");
    for (uint32_t y = 0; y < Q; y++)
        for (uint32_t x = 0; x < Q; x++) {
            uint8_t *b = in + (size_t)(x + Q * y) * in_b;
            tile(&g, rows, y, x, (uint32_t *)b, (uint32_t *)(b + rp_b));                 /* along x: A[y][x] */
            tile(&g, rows, x, y, (uint32_t *)(b + rp_b + col_b), (uint32_t *)(b + 2 * rp_b + col_b)); /* A[x][y] */
            for (int l = 0; l < LAYERS; l++) {
                uint8_t *ws = b + 2 * (rp_b + col_b) + l * wsl;
                uint32_t r = l % 2 == 0 ? x : y;
                for (uint32_t i = 0; i < (o.arag ? F : Fq); i++) /* RS&AR: rows block r; AR&AG: columns block r */
                    if (o.arag)
                        memcpy(ws + (size_t)i * Fq * eb, w[l] + ((size_t)i * F + r * Fq) * eb, (size_t)Fq * eb);
                    else
                        memcpy(ws + (size_t)i * F * eb, w[l] + ((size_t)(r * Fq + i) * F) * eb, (size_t)F * eb);
            }
            for (uint32_t i = 0; i < rows && x * rows + i < V; i++) /* layer 0 reads block x */
                memcpy(hs + (size_t)(x + Q * y) * strip + (size_t)i * F * eb, h0 + ((size_t)(x * rows + i) * F) * eb,
                       (size_t)F * eb);
        }

    struct pim_times t = {{0}};
    PIM_TIMED(&t, PH_SCATTER, {
        PIM_COMM(openpim_scatter(all, o_in, in, in_b));
        PIM_COMM(openpim_scatter(all, o_h, hs, strip));
    });
    for (int l = 0; l < LAYERS; l++) {
        const int d = l % 2;
        struct gnn_args a = {0};
        a.rows = rows;
        a.mode = GNN_SPMM;
        a.rp = o_rp[d];
        a.col = o_rp[d] + (uint32_t)rp_b;
        a.width = F;
        a.blocks = Q;
        a.in = o_h;
        if (!o.arag) {
            a.relu_in = l > 0;
            a.out_blocked = 1;
            a.out = o_z;
            launch(set, &t, &a);
            PIM_TIMED(&t, PH_REDUCE_SCATTER,
                      PIM_COMM(openpim_reduce_scatter(along[d], o_z, o_zc, strip, type, OPENPIM_SUM)));
            struct gnn_args b = {0};
            b.mode = GNN_GEMM;
            b.rows = rows;
            b.in = o_zc;
            b.k = Fq;
            b.n = F;
            b.w = o_w + (uint32_t)(l * wsl);
            b.out = o_g;
            launch(set, &t, &b);
            PIM_TIMED(&t, PH_ALLREDUCE,
                      PIM_COMM(openpim_allreduce(along[d], o_g, o_h, strip, type, OPENPIM_SUM)));
        } else {
            a.relayout = l > 0;
            a.gathered = o_t;
            a.out = o_z;
            launch(set, &t, &a);
            PIM_TIMED(&t, PH_ALLREDUCE,
                      PIM_COMM(openpim_allreduce(along[d], o_z, o_z, strip, type, OPENPIM_SUM)));
            struct gnn_args b = {0};
            b.mode = GNN_GEMM;
            b.rows = rows;
            b.in = o_z;
            b.k = F;
            b.n = Fq;
            b.w = o_w + (uint32_t)(l * wsl);
            b.relu_out = 1;
            b.out = o_g;
            launch(set, &t, &b);
            PIM_TIMED(&t, PH_ALLGATHER, PIM_COMM(openpim_allgather(along[d], o_g, o_t, blk)));
            /* comm's reordering kernel replaced ours (AllGather along dimension 0, optimised) */
            if (d == 0 && o.impl != OPENPIM_COMM_BASELINE)
                PIM_TIMED(&t, PH_OTHER, PIM_DPU(dpu_load(set, bin, &prog)));
        }
    }

    /* the output strip of block y lies on every PE (x, y): read it from x = 0 */
    struct dpu_symbol_t heap;
    PIM_DPU(dpu_get_symbol(prog, DPU_MRAM_HEAP_POINTER_NAME, &heap));
    const uint32_t heap_off = heap.address - 0x08000000u, o_out = o.arag ? o_t : o_h;
    if (heap_off > o_out)
        pim_die("the program's MRAM heap starts at %u, past our data at %u", heap_off, o_out);
    uint8_t *res = calloc(Q, strip), *outm = malloc((size_t)V * F * eb);
    if (!res || !outm)
        pim_die("out of memory");
    PIM_TIMED(&t, PH_GATHER, {
        for (uint32_t y = 0; y < Q; y++) {
            struct dpu_set_t d;
            PIM_COMM(openpim_cube_node_dpu(cube, Q * y, &d));
            PIM_DPU(dpu_prepare_xfer(d, res + (size_t)y * strip));
        }
        PIM_DPU(dpu_push_xfer(set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, o_out - heap_off, strip,
                              DPU_XFER_DEFAULT));
    });
    for (uint32_t u = 0; u < V; u++) {
        const uint32_t y = u / rows, r = u % rows;
        for (uint32_t f = 0; f < F; f++) {
            const size_t at = o.arag ? ((size_t)(f / Fq) * rows + r) * Fq + f % Fq /* [Q][rows][Fq] */
                                     : (size_t)r * F + f;
            const uint8_t *src = res + (size_t)y * strip + at * eb;
            uint8_t *dst = outm + ((size_t)u * F + f) * eb;
            memcpy(dst, src, eb);
            if (!o.arag) { /* RS&AR leaves the last layer's ReLU to whoever reads it */
                if (eb == 1 && *(int8_t *)dst < 0)
                    *(int8_t *)dst = 0;
                if (eb == 4) {
                    int32_t v;
                    memcpy(&v, dst, 4);
                    if (v < 0)
                        memset(dst, 0, 4);
                }
            }
        }
    }

    if (o.corrupt) /* flip one bit of one output element: --check must catch it */
        outm[((size_t)V / 2 * F + F / 3) * eb] ^= 1;
    size_t bad = 0, first = 0;
    if (o.check)
        for (size_t i = 0; i < (size_t)V * F; i++)
            if (memcmp(outm + i * eb, ref + i * eb, eb)) {
                if (!bad)
                    first = i;
                bad++;
            }
    if (bad)
        fprintf(stderr, "MISMATCH: %zu of %zu output elements differ from the CPU reference (first: vertex %zu, "
                        "feature %zu)\n", bad, (size_t)V * F, first / F, first % F);
    size_t nonzero = 0;
    for (size_t i = 0; i < (size_t)V * F * eb; i++)
        nonzero += outm[i] != 0;
    printf("gnn %s %s: %u vertices, %u adjacency entries, %u features, %u x %u PEs, %s: modelled %.1f us "
           "(kernel %.1f, collectives %.1f, host transfers %.1f); CPU reference %.1f us; %zu nonzero output bytes%s\n",
           o.arag ? "AR&AG" : "RS&AR", dtype, V, g.nr_edges, F, Q, Q, pim_impl_name(o.impl), pim_total_us(&t),
           t.us[PH_KERNEL], pim_comm_us(&t), pim_total_us(&t) - t.us[PH_KERNEL] - pim_comm_us(&t), cpu_us, nonzero,
           o.check ? (bad ? ", CHECK FAILED" : ", equal to the CPU reference") : "");
    pim_write_csv(o.csv, o.breakdown, o.arag ? "gnn_arag" : "gnn_rsar", pim_impl_name(o.impl), P, dtype, &t, cpu_us);

    openpim_cube_destroy(cube);
    PIM_DPU(dpu_free(set));
    for (int l = 0; l < LAYERS; l++)
        free(w[l]);
    free(h0), free(ref), free(in), free(hs), free(res), free(outm);
    csr_free(&g);
    return bad ? 1 : 0;
}
