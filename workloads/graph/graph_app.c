/* SPDX-License-Identifier: MIT */
/* BFS and CC on PIM (PID-Comm §VII-C/D) with comm/'s AllReduce between
 * iterations, against the CPU reference (graph_ref.c).
 *
 * The graph is an R-MAT power-law graph (LiveJournal-like degrees).  The P
 * PEs form a 1D hypercube; PE p owns a contiguous range of vertices (a
 * multiple of 64) with their out-edges; every PE keeps the whole frontier
 * bitmap (BFS) or label array (CC), combined after each kernel with an
 * AllReduce (OR / MIN).  The run starts with Scatter (edges) and Broadcast
 * (initial state) and ends with Gather (BFS levels) or a copy from one PE (CC
 * labels, identical on every PE).
 *
 *   graph_app bfs|cc [--pes P] [--scale S] [--edge-factor K] [--seed X]
 *             [--source V] [--impl baseline|optimised] [--profile STR]
 *             [--check] [--csv FILE] [--breakdown FILE] [--cpu-reps N] [--corrupt]
 * --check compares the result with the CPU reference (exit 1 on a mismatch);
 * --corrupt changes one result first (the check's negative control);
 * the CPU reference always runs and its thread CPU time (the best of
 * --cpu-reps runs) is the CSV's cpu_us. */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <openpim_comm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_items.h"
#include "graph_args.h"
#include "graph_ref.h"
#include "pim_app.h"
#include "powerlaw.h"

#ifndef GRAPH_DPU_DIR
#define GRAPH_DPU_DIR "."
#endif
#define MRAM_BASE (1u << 20) /* our data starts past anything the runtime may place in MRAM */

struct opts {
    int cc;
    uint32_t pes, scale, edge_factor, source;
    uint64_t seed;
    openpim_comm_impl impl;
    const char *profile, *csv, *breakdown;
    int check, corrupt, source_given;
    uint32_t cpu_reps;
};

static void usage(void)
{
    fprintf(stderr, "usage: graph_app bfs|cc [--pes P] [--scale S] [--edge-factor K] [--seed X] [--source V]\n"
                    "                 [--impl baseline|optimised] [--profile STR] [--check] [--csv FILE]\n"
                    "                 [--breakdown FILE] [--cpu-reps N] [--corrupt]\n");
    exit(2);
}

static struct opts parse(int argc, char **argv)
{
    struct opts o = {0, 64, 12, 8, 0, 1, OPENPIM_COMM_OPTIMISED, NULL, NULL, NULL, 0, 0, 0, 1};
    if (argc < 2)
        usage();
    if (!strcmp(argv[1], "cc"))
        o.cc = 1;
    else if (strcmp(argv[1], "bfs"))
        pim_die("unknown application '%s' (expected bfs or cc)", argv[1]);
    for (int i = 2; i < argc; i++) {
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
        else if (!strcmp(a, "--scale"))
            o.scale = (uint32_t)pim_parse_u64(a, v, 6, 20);
        else if (!strcmp(a, "--edge-factor"))
            o.edge_factor = (uint32_t)pim_parse_u64(a, v, 1, 64);
        else if (!strcmp(a, "--seed"))
            o.seed = pim_parse_u64(a, v, 0, UINT64_MAX);
        else if (!strcmp(a, "--source")) {
            o.source = (uint32_t)pim_parse_u64(a, v, 0, UINT32_MAX);
            o.source_given = 1;
        }
        else if (!strcmp(a, "--impl"))
            o.impl = pim_parse_impl(v);
        else if (!strcmp(a, "--cpu-reps"))
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
    if (!o.cc && (1u << o.scale) > BFS_MAX_VERTICES)
        pim_die("--scale %u: BFS keeps two bitmaps of the whole graph in WRAM, at most %u vertices (scale 16)",
                o.scale, BFS_MAX_VERTICES);
    if (o.source >= (1u << o.scale))
        pim_die("--source %u: the graph has %u vertices", o.source, 1u << o.scale);
    return o;
}

/* Owned ranges: consecutive 64-vertex chunks, cut so that every PE gets about
 * the same number of edges (power-law graphs put many edges on few
 * vertices).  first[p], count[p]: the PE's first vertex and vertex count. */
static void partition(const struct csr *g, uint32_t P, uint32_t *first, uint32_t *count)
{
    const uint32_t V = g->nr_vertices, chunks = (V + GRAPH_CHUNK - 1) / GRAPH_CHUNK;
    uint32_t c = 0;
    for (uint32_t p = 0; p < P; p++) {
        const uint64_t goal = (uint64_t)g->nr_edges * (p + 1) / P;
        first[p] = c * GRAPH_CHUNK;
        while (c < chunks && (p == P - 1 || g->rp[(c + 1) * GRAPH_CHUNK < V ? (c + 1) * GRAPH_CHUNK : V] <= goal ||
                              c * GRAPH_CHUNK == first[p]))
            c++;
        count[p] = c * GRAPH_CHUNK - first[p];
    }
}

int main(int argc, char **argv)
{
    struct opts o = parse(argc, argv);
    struct csr g;
    if (pl_rmat(o.scale, o.edge_factor, o.cc, o.seed, &g))
        pim_die("cannot generate the graph (out of memory)");
    const uint32_t V = g.nr_vertices, P = o.pes, Vpad = (V + GRAPH_CHUNK - 1) / GRAPH_CHUNK * GRAPH_CHUNK;
    if (!o.cc && !o.source_given) /* Graph500 style: a source that has edges (the best connected one) */
        for (uint32_t u = 0; u < V; u++)
            if (g.rp[u + 1] - g.rp[u] > g.rp[o.source + 1] - g.rp[o.source])
                o.source = u;
    uint32_t *first = malloc((size_t)P * 4), *count = malloc((size_t)P * 4), Vp = 0;
    if (!first || !count)
        pim_die("out of memory");
    partition(&g, P, first, count);
    for (uint32_t p = 0; p < P; p++)
        Vp = count[p] > Vp ? count[p] : Vp;

    /* CPU reference, timed (CPU time of this thread on this host) */
    uint32_t *ref = malloc((size_t)V * sizeof *ref);
    if (!ref)
        pim_die("out of memory");
    long comps = 0;
    double cpu_us = 0;
    for (uint32_t rep = 0; rep < o.cpu_reps; rep++) { /* the best of --cpu-reps runs */
        double c0 = pim_cpu_us();
        if (o.cc)
            comps = ref_cc(&g, ref);
        else if (ref_bfs(&g, o.source, ref))
            pim_die("out of memory");
        double dt = pim_cpu_us() - c0;
        cpu_us = rep == 0 || dt < cpu_us ? dt : cpu_us;
    }

    struct dpu_set_t set;
    PIM_DPU(dpu_alloc(P, o.profile, &set));
    const char *bin = o.cc ? GRAPH_DPU_DIR "/graph_cc" : GRAPH_DPU_DIR "/graph_bfs";
    PIM_DPU(dpu_load(set, bin, NULL));
    openpim_cube_t *cube;
    openpim_comm_t *all;
    PIM_COMM(openpim_cube_create(set, 1, &P, &cube));
    PIM_COMM(openpim_cube_set_impl(cube, o.impl));
    PIM_COMM(openpim_comm_create_mask(cube, "1", &all));

    /* per-PE blocks, padded to the largest (Scatter moves equal sizes).  BFS:
     * CSR, rp (Vp + 4 entries, local) then col (global ids); CC: its work
     * items (cc_items.h). */
    struct pim_mram m = {MRAM_BASE, openpim_cube_mram_bytes(cube)};
    const uint32_t nr_wins = ((Vpad + CC_WIN - 1) / CC_WIN + 1) & ~1u;
    struct cc_blocks cb = {0};
    uint64_t blk, rp_bytes = 0;
    uint32_t *host;
    if (o.cc) {
        if (cc_blocks_build(&g, P, first, count, nr_wins, &cb))
            pim_die("out of memory");
        blk = cb.blk;
        host = cb.host;
    } else {
        uint32_t max_nnz = 0;
        for (uint32_t p = 0; p < P; p++) {
            uint32_t lo, hi;
            csr_rows(&g, first[p], count[p], &lo, &hi);
            if (g.rp[hi] - g.rp[lo] > max_nnz)
                max_nnz = g.rp[hi] - g.rp[lo];
        }
        rp_bytes = ((uint64_t)(Vp + 4) * 4 + 7) & ~7ull;
        blk = rp_bytes + ((((uint64_t)max_nnz + 2) * 4 + 7) & ~7ull);
        host = calloc((size_t)P, blk);
        if (!host)
            pim_die("out of memory");
        for (uint32_t p = 0; p < P; p++) {
            uint32_t *b = host + (size_t)p * (blk / 4), *col = b + rp_bytes / 4;
            uint32_t lo, hi;
            csr_rows(&g, first[p], count[p], &lo, &hi);
            for (uint32_t i = 0; i < Vp + 4; i++) {
                uint32_t u = lo + i < hi ? lo + i : hi;
                b[i] = g.rp[u] - g.rp[lo];
            }
            memcpy(col, g.col + g.rp[lo], (size_t)(g.rp[hi] - g.rp[lo]) * 4);
        }
    }
    const uint32_t off_blk = pim_mram_take(&m, blk, "the edges");

    struct pim_times t = {{0}};
    uint32_t iters = 0;
    uint32_t *res = calloc((size_t)P * Vp, 4), *out = calloc(Vpad, 4);
    if (!res || !out)
        pim_die("out of memory");
    PIM_TIMED(&t, PH_SCATTER, PIM_COMM(openpim_scatter(all, off_blk, host, blk)));
    struct dpu_set_t node0;
    PIM_COMM(openpim_cube_node_dpu(cube, 0, &node0));
    if (!o.cc) {
        struct bfs_args a;
        const uint32_t words = Vpad / 64;
        a.rp = off_blk;
        a.col = off_blk + (uint32_t)rp_bytes;
        a.next = pim_mram_take(&m, (uint64_t)words * 8, "the next bitmap");
        a.vis = pim_mram_take(&m, (uint64_t)words * 8, "the visited bitmap");
        a.level = pim_mram_take(&m, (uint64_t)Vp * 4, "the levels");
        a.nr_words = words;
        uint64_t *bits = calloc(words, 8);
        uint32_t *lv = malloc((size_t)Vp * 4);
        struct bfs_args *pa = malloc((size_t)P * sizeof *pa);
        if (!bits || !lv || !pa)
            pim_die("out of memory");
        memset(lv, 0xFF, (size_t)Vp * 4);
        PIM_TIMED(&t, PH_BROADCAST, {
            PIM_COMM(openpim_broadcast(all, a.vis, bits, (uint64_t)words * 8));
            bits[o.source / 64] = 1ull << (o.source % 64);
            PIM_COMM(openpim_broadcast(all, a.next, bits, (uint64_t)words * 8));
            PIM_COMM(openpim_broadcast(all, a.level, lv, (uint64_t)Vp * 4));
        });
        for (uint32_t p = 0; p < P; p++) {
            pa[p] = a;
            pa[p].first_word = first[p] / 64;
            pa[p].nr_owned_words = count[p] / 64;
        }
        PIM_TIMED(&t, PH_OTHER, { /* kernel arguments */
            for (uint32_t p = 0; p < P; p++) {
                struct dpu_set_t d;
                PIM_COMM(openpim_cube_node_dpu(cube, p, &d));
                PIM_DPU(dpu_prepare_xfer(d, &pa[p]));
            }
            PIM_DPU(dpu_push_xfer(set, DPU_XFER_TO_DPU, "bfs_args", 0, sizeof a, DPU_XFER_DEFAULT));
        });
        for (;; iters++) {
            PIM_TIMED(&t, PH_KERNEL, PIM_DPU(dpu_launch(set, DPU_SYNCHRONOUS)));
            uint64_t frontier = 0;
            PIM_TIMED(&t, PH_OTHER, PIM_DPU(dpu_copy_from(node0, "bfs_count", 0, &frontier, sizeof frontier)));
            if (frontier == 0)
                break;
            PIM_TIMED(&t, PH_ALLREDUCE,
                      PIM_COMM(openpim_allreduce(all, a.next, a.next, (uint64_t)words * 8, OPENPIM_UINT64,
                                                 OPENPIM_OR)));
        }
        PIM_TIMED(&t, PH_GATHER, PIM_COMM(openpim_gather(all, a.level, res, (uint64_t)Vp * 4)));
        free(bits);
        free(lv);
        free(pa);
    } else {
        struct cc_args a;
        const uint64_t lab_bytes = ((uint64_t)Vpad + nr_wins) * 4; /* labels and dirty words: one AllReduce */
        a.segs = off_blk;
        a.items = off_blk + (uint32_t)cb.items_off;
        a.edges = off_blk + (uint32_t)cb.edges_off;
        a.lab = pim_mram_take(&m, lab_bytes, "the labels");
        a.own = pim_mram_take(&m, (uint64_t)Vp * 4, "the owned labels");
        a.nr_vertices = Vpad;
        a.nr_wins = nr_wins;
        uint32_t *lab = calloc((size_t)Vpad + nr_wins, 4); /* dirty words 0: every window "changed" */
        struct cc_args *pa = malloc((size_t)P * sizeof *pa);
        if (!lab || !pa)
            pim_die("out of memory");
        for (uint32_t v = 0; v < Vpad; v++)
            lab[v] = v;
        for (uint32_t p = 0; p < P; p++) {
            pa[p] = a;
            pa[p].first = first[p];
            pa[p].nr_owned = count[p];
            pa[p].nr_segs = cb.nr_segs[p];
        }
        PIM_TIMED(&t, PH_BROADCAST, {
            PIM_COMM(openpim_broadcast(all, a.lab, lab, lab_bytes));
        });
        PIM_TIMED(&t, PH_OTHER, { /* kernel arguments */
            for (uint32_t p = 0; p < P; p++) {
                struct dpu_set_t d;
                PIM_COMM(openpim_cube_node_dpu(cube, p, &d));
                PIM_DPU(dpu_prepare_xfer(d, &pa[p]));
            }
            PIM_DPU(dpu_push_xfer(set, DPU_XFER_TO_DPU, "cc_args", 0, sizeof a, DPU_XFER_DEFAULT));
        });
        PIM_TIMED(&t, PH_KERNEL, PIM_DPU(dpu_launch(set, DPU_SYNCHRONOUS)));
        for (iters = 1;; iters++) {
            PIM_TIMED(&t, PH_ALLREDUCE,
                      PIM_COMM(openpim_allreduce(all, a.lab, a.lab, lab_bytes, OPENPIM_UINT32,
                                                 OPENPIM_MIN)));
            PIM_TIMED(&t, PH_KERNEL, PIM_DPU(dpu_launch(set, DPU_SYNCHRONOUS)));
            uint64_t changed = 0;
            PIM_TIMED(&t, PH_OTHER, PIM_DPU(dpu_copy_from(node0, "cc_changed", 0, &changed, sizeof changed)));
            if (!changed)
                break;
        }
        /* at the fixpoint each PE's copy of its own labels is final */
        PIM_TIMED(&t, PH_GATHER, PIM_COMM(openpim_gather(all, a.own, res, (uint64_t)Vp * 4)));
        free(lab);
        free(pa);
    }
    for (uint32_t p = 0; p < P; p++)
        memcpy(out + first[p], res + (size_t)p * Vp, (size_t)count[p] * 4);
    if (o.cc)
        cc_blocks_free(&cb);
    else
        free(host);
    free(res);

    if (o.corrupt) /* change one result: --check must catch it */
        out[V / 2] ^= 1;
    int bad = 0;
    if (o.check) {
        uint32_t first = V;
        for (uint32_t v = 0; v < V; v++)
            if (out[v] != ref[v]) {
                if (first == V)
                    first = v;
                bad++;
            }
        if (bad)
            fprintf(stderr, "MISMATCH: %d of %u vertices differ from the CPU reference (first: vertex %u, PIM %u, "
                            "CPU %u)\n", bad, V, first, out[first], ref[first]);
    }
    const uint32_t iterations = iters; /* AllReduce rounds: BFS levels, CC rounds */
    uint32_t reached = 0;
    for (uint32_t v = 0; v < V; v++)
        reached += o.cc ? out[v] == v : out[v] != GRAPH_UNREACHED;
    printf("%s: %u vertices, %u edges, %u PEs, %s: %u iterations, %u %s; modelled %.1f us (kernel %.1f, "
           "collectives %.1f, host transfers %.1f); CPU reference %.1f us%s\n",
           o.cc ? "cc" : "bfs", V, g.nr_edges, P, pim_impl_name(o.impl), iterations, reached,
           o.cc ? "components" : "vertices reached", pim_total_us(&t), t.us[PH_KERNEL], pim_comm_us(&t),
           pim_total_us(&t) - t.us[PH_KERNEL] - pim_comm_us(&t), cpu_us,
           o.check ? (bad ? ", CHECK FAILED" : ", equal to the CPU reference") : "");
    if (o.check && o.cc && (long)reached != comps && !bad)
        pim_die("component count %u differs from the reference's %ld", reached, comps);
    if (o.check && !o.cc) { /* BFS: one iteration per level, the source's level 0 included */
        uint32_t levels = 0;
        for (uint32_t v = 0; v < V; v++)
            if (ref[v] != GRAPH_UNREACHED && ref[v] + 1 > levels)
                levels = ref[v] + 1;
        if (iterations != levels)
            pim_die("%u iterations reported for the reference's %u BFS levels", iterations, levels);
    }
    pim_write_csv(o.csv, o.breakdown, o.cc ? "cc" : "bfs", pim_impl_name(o.impl), P, "uint32", &t, cpu_us);
    openpim_cube_destroy(cube);
    PIM_DPU(dpu_free(set));
    free(out);
    free(ref);
    free(first);
    free(count);
    csr_free(&g);
    return bad ? 1 : 0;
}
