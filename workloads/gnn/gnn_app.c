/* SPDX-License-Identifier: MIT */
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
 *
 * Any feature count F: the PEs compute on Fp >= F features, F rounded up to
 * the next multiple of Q 8-byte words (each PE's column block a whole number
 * of words), the extra columns of H(0) and rows and columns of every W(l)
 * zero.  This changes no real output entry and leaves the extra columns zero,
 * in any ring (here the integers modulo 2^8 / 2^32): with H' = [H 0] and
 * W' = [W 0; 0 0], A H' = [A H  0] and [A H  0] W' = [A H W  0], and
 * ReLU(0) = 0, so each layer maps [H(l) 0] to [H(l+1) 0]; every partial sum
 * of RS&AR (a block of rows of W') and every tile of AR&AG (a block of columns
 * of W') is a piece of the same products.  --check verifies both: the real
 * columns against the CPU reference on the unpadded matrices, and the extra
 * columns read back as zero.  Kernels switch to their tiled modes when a row
 * or the weight slice does not fit WRAM (gnn_args.h).
 * The graph: a power-law (Chung-Lu) graph with Cora's size, plus self-loops;
 * features and weights random in {-1, 0, 1}; all from --seed.
 *
 *   gnn_app [--pes P] [--variant rsar|arag] [--dtype int32|int8]
 *           [--features F] [--vertices V] [--edges E] [--seed X]
 *           [--impl baseline|optimised] [--profile STR] [--check]
 *           [--csv FILE] [--breakdown FILE] [--cpu-reps N] [--corrupt]
 *           [--corrupt-padding]
 * --check compares the output with the CPU reference (exit 1 on a mismatch)
 * and the padding columns with zero;
 * --corrupt flips one output bit first (the check's negative control);
 * --corrupt-padding one bit of one padding element read back;
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
#define MAX_FEATURES 4096u /* the host holds three F x F weight matrices and per-PE copies of their slices */

struct opts {
    uint32_t pes, features, vertices, edges, eb;
    int arag, check, corrupt, corrupt_pad;
    uint64_t seed;
    openpim_comm_impl impl;
    const char *profile, *csv, *breakdown;
    uint32_t cpu_reps;
};

static struct opts parse(int argc, char **argv)
{
    struct opts o = {64, 128, 2708, 5429, 4, 0, 0, 0, 0, 1, OPENPIM_COMM_OPTIMISED, NULL, NULL, NULL, 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--check") || !strcmp(a, "--corrupt") || !strcmp(a, "--corrupt-padding")) {
            /* --corrupt, --corrupt-padding: the check's negative controls */
            *(!strcmp(a, "--check") ? &o.check : !strcmp(a, "--corrupt") ? &o.corrupt : &o.corrupt_pad) = 1;
            continue;
        }
        if (!v)
            pim_die("%s needs a value", a);
        i++;
        if (!strcmp(a, "--pes"))
            o.pes = (uint32_t)pim_parse_u64(a, v, 1, 2560);
        else if (!strcmp(a, "--features"))
            o.features = (uint32_t)pim_parse_u64(a, v, 1, MAX_FEATURES);
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

/* V x F (or F x F) random elements in {-1, 0, 1} of eb bytes from *s. */
static uint8_t *random_matrix(size_t n, uint32_t eb, uint64_t *s)
{
    uint8_t *m = malloc(n * eb);
    if (!m)
        pim_die("out of memory");
    for (size_t i = 0; i < n; i++) {
        int32_t x = (int32_t)(pl_rand(s) % 3) - 1;
        if (eb == 1)
            ((int8_t *)m)[i] = (int8_t)x;
        else
            ((int32_t *)m)[i] = x;
    }
    return m;
}

/* Whether GEMM with an input of k and an output of n features needs its tiled
 * mode: a row or the weight slice over what the plain one holds in WRAM. */
static int gemm_tiled(uint32_t k, uint32_t n, uint32_t eb)
{
    return k > GNN_MAX_FEATURES || n > GNN_MAX_FEATURES || (uint64_t)k * n * eb > GNN_WRAM_WEIGHTS;
}

/* Writes the k x n slice of the padded weights W' at (i0, j0) (W: F x F, W'
 * zero past F) in the tile layout of gnn_args.h (row-major when n <=
 * GNN_MAX_FEATURES, so also the plain GEMM's layout). */
static void weight_slice(uint8_t *dst, const uint8_t *w, uint32_t F, uint32_t eb, uint32_t i0, uint32_t j0,
                         uint32_t k, uint32_t n)
{
    const uint32_t tk = gnn_tile_k(n, eb), tn = gnn_tile_n(n);
    for (uint32_t i = 0; i < k; i++) {
        const uint32_t k0 = i / tk * tk, kw = k - k0 < tk ? k - k0 : tk;
        for (uint32_t j = 0; j < n; j++) {
            const uint32_t n0 = j / tn * tn, nw = n - n0 < tn ? n - n0 : tn;
            const size_t at = (size_t)k0 * n + (size_t)kw * n0 + (size_t)(i - k0) * nw + (j - n0);
            if (i0 + i < F && j0 + j < F)
                memcpy(dst + at * eb, w + ((size_t)(i0 + i) * F + j0 + j) * eb, eb);
            else
                memset(dst + at * eb, 0, eb);
        }
    }
}

int main(int argc, char **argv)
{
    const struct opts o = parse(argc, argv);
    const uint32_t P = o.pes, F = o.features, eb = o.eb, V = o.vertices;
    uint32_t Q = 1;
    while (Q * Q < P)
        Q++;
    /* padded features: each PE's column block a whole number of 8-byte words */
    const uint32_t unit = Q * (8 / eb), Fp = (F + unit - 1) / unit * unit;
    const uint32_t Fq = Fp / Q, rows = (V + Q - 1) / Q;
    if (o.corrupt_pad && Fp == F)
        pim_die("--corrupt-padding: %u features on %u x %u PEs need no padding", F, Q, Q);
    const char *dtype = eb == 1 ? "int8" : "int32";
    const openpim_comm_type type = eb == 1 ? OPENPIM_INT8 : OPENPIM_INT32;

    struct csr g;
    if (pl_chung_lu(V, o.edges, 1, o.seed, &g))
        pim_die("cannot generate the graph (out of memory)");

    /* the tiled kernels where a row or a weight slice does not fit WRAM; their
     * image only then (the plain image runs the plain kernels as they always ran) */
    const uint32_t spmm_mode = Fp > GNN_MAX_FEATURES ? GNN_SPMM_TILED : GNN_SPMM;
    const uint32_t gemm_mode = (o.arag ? gemm_tiled(Fp, Fq, eb) : gemm_tiled(Fq, Fp, eb)) ? GNN_GEMM_TILED : GNN_GEMM;
    const int tiled = spmm_mode != GNN_SPMM || gemm_mode != GNN_GEMM;
    struct dpu_set_t set;
    struct dpu_program_t *prog;
    const char *bin = eb == 1 ? (tiled ? GNN_DPU_DIR "/gnn_tiled_int8" : GNN_DPU_DIR "/gnn_int8")
                              : (tiled ? GNN_DPU_DIR "/gnn_tiled_int32" : GNN_DPU_DIR "/gnn_int32");
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

    /* MRAM: the input block (two tiles, three weight slices), then the strips;
     * pim_mram_take fails with a clear error when the PE's share does not fit
     * (checked before the large host buffers are made) */
    uint32_t nnz = 0;
    for (uint32_t bi = 0; bi < Q; bi++)
        for (uint32_t bj = 0; bj < Q; bj++) {
            uint32_t n = tile_nnz(&g, rows, bi, bj);
            nnz = n > nnz ? n : nnz;
        }
    const uint64_t rp_b = ((uint64_t)(rows + 4) * 4 + 7) & ~7ull, col_b = (((uint64_t)nnz + 2) * 4 + 7) & ~7ull;
    const uint64_t wsl = (uint64_t)Fp * Fq * eb, strip = (uint64_t)rows * Fp * eb, blk = (uint64_t)rows * Fq * eb;
    const uint64_t in_b = 2 * (rp_b + col_b) + LAYERS * wsl;
    struct pim_mram m = {MRAM_BASE, openpim_cube_mram_bytes(cube)};
    const uint64_t need = in_b + 4 * strip + blk; /* all multiples of 8 bytes: what the takes below add up to */
    if (MRAM_BASE + need > m.limit)
        pim_die("%u vertices x %u features (padded to %u) on %u x %u PEs: a PE's data (%llu bytes: 2 adjacency "
                "tiles, 3 weight slices of %u x %u, 4 strips of %u x %u and a block of %u x %u elements) exceed "
                "the %llu bytes of MRAM it has past the program's first MB; use more PEs or fewer vertices or "
                "features", V, F, Fp, Q, Q, (unsigned long long)need, Fp, Fq, rows, Fp, rows, Fq,
                (unsigned long long)(m.limit - MRAM_BASE));
    const uint32_t o_in = pim_mram_take(&m, in_b, "the tiles and weights");
    const uint32_t o_rp[2] = {o_in, o_in + (uint32_t)(rp_b + col_b)};
    const uint32_t o_w = o_in + (uint32_t)(2 * (rp_b + col_b));
    const uint32_t o_h = pim_mram_take(&m, strip, "the feature strip");
    const uint32_t o_z = pim_mram_take(&m, strip, "the aggregated strip");
    const uint32_t o_zc = pim_mram_take(&m, blk, "the reduced block");
    const uint32_t o_g = pim_mram_take(&m, strip, "the combined strip");
    const uint32_t o_t = pim_mram_take(&m, strip, "the gathered strip");

    uint64_t s = o.seed ^ 0x6a09e667f3bcc909ull;
    uint8_t *h0 = random_matrix((size_t)V * F, eb, &s), *w[LAYERS];
    for (int l = 0; l < LAYERS; l++)
        w[l] = random_matrix((size_t)F * F, eb, &s);
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
                if (o.arag) /* columns block r of W'(l): Fp x Fq */
                    weight_slice(ws, w[l], F, eb, 0, r * Fq, Fp, Fq);
                else /* rows block r: Fq x Fp */
                    weight_slice(ws, w[l], F, eb, r * Fq, 0, Fq, Fp);
            }
            for (uint32_t i = 0; i < rows && x * rows + i < V; i++) /* layer 0 reads block x; zero past F */
                memcpy(hs + (size_t)(x + Q * y) * strip + (size_t)i * Fp * eb, h0 + ((size_t)(x * rows + i) * F) * eb,
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
        a.mode = spmm_mode;
        a.rp = o_rp[d];
        a.col = o_rp[d] + (uint32_t)rp_b;
        a.width = Fp;
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
            b.mode = gemm_mode;
            b.rows = rows;
            b.in = o_zc;
            b.k = Fq;
            b.n = Fp;
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
            b.mode = gemm_mode;
            b.rows = rows;
            b.in = o_z;
            b.k = Fp;
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
    if (o.corrupt_pad) /* flip one bit of vertex 0's last padding element: --check must catch it */
        res[(o.arag ? ((size_t)(Q - 1) * rows + 1) * Fq - 1 : (size_t)Fp - 1) * eb] ^= 1;
    size_t pad_nonzero = 0; /* elements of the padding columns that are not zero (must be none) */
    for (uint32_t u = 0; u < V; u++) {
        const uint32_t y = u / rows, r = u % rows;
        for (uint32_t f = 0; f < Fp; f++) {
            const size_t at = o.arag ? ((size_t)(f / Fq) * rows + r) * Fq + f % Fq /* [Q][rows][Fq] */
                                     : (size_t)r * Fp + f;
            const uint8_t *src = res + (size_t)y * strip + at * eb;
            if (f >= F) {
                for (uint32_t i = 0; i < eb; i++)
                    if (src[i]) {
                        pad_nonzero++;
                        break;
                    }
                continue;
            }
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

    /* CPU reference on the unpadded matrices, timed (CPU time of this thread on this host) */
    uint8_t *ref = malloc((size_t)V * F * eb);
    if (!ref)
        pim_die("out of memory");
    double cpu_us = 0;
    for (uint32_t rep = 0; rep < o.cpu_reps; rep++) { /* the best of --cpu-reps runs */
        memcpy(ref, h0, (size_t)V * F * eb);
        double c0 = pim_cpu_us();
        if (gnn_ref(&g, F, eb, LAYERS, (const void *const *)w, ref))
            pim_die("out of memory");
        double dt = pim_cpu_us() - c0;
        cpu_us = rep == 0 || dt < cpu_us ? dt : cpu_us;
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
    if (o.check && pad_nonzero)
        fprintf(stderr, "MISMATCH: %zu of the %zu padding elements (features %u to %u) are not zero\n", pad_nonzero,
                (size_t)V * (Fp - F), F, Fp - 1);
    const int failed = bad || (o.check && pad_nonzero);
    size_t nonzero = 0;
    for (size_t i = 0; i < (size_t)V * F * eb; i++)
        nonzero += outm[i] != 0;
    char padded[64] = "";
    if (Fp != F)
        snprintf(padded, sizeof padded, " (padded to %u)", Fp);
    printf("gnn %s %s: %u vertices, %u adjacency entries, %u features%s, %u x %u PEs, %s: modelled %.1f us "
           "(kernel %.1f, collectives %.1f, host transfers %.1f); CPU reference %.1f us; %zu nonzero output bytes%s\n",
           o.arag ? "AR&AG" : "RS&AR", dtype, V, g.nr_edges, F, padded, Q, Q, pim_impl_name(o.impl),
           pim_total_us(&t), t.us[PH_KERNEL], pim_comm_us(&t), pim_total_us(&t) - t.us[PH_KERNEL] - pim_comm_us(&t),
           cpu_us, nonzero, o.check ? (failed ? ", CHECK FAILED" : ", equal to the CPU reference") : "");
    pim_write_csv(o.csv, o.breakdown, o.arag ? "gnn_arag" : "gnn_rsar", pim_impl_name(o.impl), P, dtype, &t, cpu_us);

    openpim_cube_destroy(cube);
    PIM_DPU(dpu_free(set));
    for (int l = 0; l < LAYERS; l++)
        free(w[l]);
    free(h0), free(ref), free(in), free(hs), free(res), free(outm);
    csr_free(&g);
    return failed ? 1 : 0;
}
