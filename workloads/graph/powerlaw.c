/* SPDX-License-Identifier: MIT */
/* Power-law graph generators (see powerlaw.h).  Edges are collected as 64-bit
 * keys (source << 32 | destination), sorted and deduplicated, then turned into
 * CSR. */
#include "powerlaw.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void csr_free(struct csr *g)
{
    if (!g)
        return;
    free(g->rp);
    free(g->col);
    memset(g, 0, sizeof *g);
}

uint64_t pl_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static double unit(uint64_t *s)
{
    return (double)(pl_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sorts and deduplicates keys[0..n) and builds the CSR; frees keys. */
static int keys_to_csr(uint64_t *keys, size_t n, uint32_t nr_vertices, struct csr *g)
{
    qsort(keys, n, sizeof *keys, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || keys[i] != keys[m - 1])
            keys[m++] = keys[i];
    memset(g, 0, sizeof *g);
    g->nr_vertices = nr_vertices;
    g->nr_edges = (uint32_t)m;
    g->rp = calloc((size_t)nr_vertices + 1, sizeof *g->rp);
    g->col = malloc((m ? m : 1) * sizeof *g->col);
    if (!g->rp || !g->col) {
        free(keys);
        csr_free(g);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < m; i++) {
        g->rp[(keys[i] >> 32) + 1]++;
        g->col[i] = (uint32_t)keys[i];
    }
    for (uint32_t u = 0; u < nr_vertices; u++)
        g->rp[u + 1] += g->rp[u];
    free(keys);
    return 0;
}

/* A random permutation of 0..n-1 (Fisher-Yates). */
static uint32_t *permutation(uint32_t n, uint64_t *s)
{
    uint32_t *p = malloc((size_t)n * sizeof *p);
    if (!p)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        p[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)(pl_rand(s) % i), t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
    return p;
}

int pl_rmat(uint32_t scale, uint32_t edge_factor, int undirected, uint64_t seed, struct csr *g)
{
    if (scale < 1 || scale > 24 || edge_factor < 1 || edge_factor > 64) {
        errno = EINVAL;
        return -1;
    }
    uint64_t s = seed;
    uint32_t n = 1u << scale;
    size_t sampled = (size_t)edge_factor * n;
    uint32_t *perm = permutation(n, &s);
    uint64_t *keys = malloc(sampled * (undirected ? 2 : 1) * sizeof *keys);
    if (!perm || !keys) {
        free(perm);
        free(keys);
        errno = ENOMEM;
        return -1;
    }
    size_t k = 0;
    for (size_t e = 0; e < sampled; e++) {
        uint32_t u = 0, v = 0;
        for (uint32_t bit = 0; bit < scale; bit++) {
            double r = unit(&s); /* quadrant: a = 0.57 (0,0), b = 0.19 (0,1), c = 0.19 (1,0), d (1,1) */
            uint32_t du = r >= 0.76, dv = (r >= 0.57 && r < 0.76) || r >= 0.95;
            u = (u << 1) | du;
            v = (v << 1) | dv;
        }
        u = perm[u];
        v = perm[v];
        if (u == v)
            continue;
        keys[k++] = (uint64_t)u << 32 | v;
        if (undirected)
            keys[k++] = (uint64_t)v << 32 | u;
    }
    free(perm);
    return keys_to_csr(keys, k, n, g);
}

int pl_chung_lu(uint32_t nr_vertices, uint32_t nr_edges, int with_self_loops, uint64_t seed, struct csr *g)
{
    if (nr_vertices < 2 || (uint64_t)nr_edges * 8 > (uint64_t)nr_vertices * (nr_vertices - 1)) {
        errno = EINVAL;
        return -1;
    }
    uint64_t s = seed;
    double *cum = malloc((size_t)nr_vertices * sizeof *cum);
    uint32_t *perm = permutation(nr_vertices, &s);
    size_t cap = (size_t)nr_edges * 2 + (with_self_loops ? nr_vertices : 0);
    uint64_t *keys = malloc(cap * sizeof *keys), *und = malloc((size_t)nr_edges * 2 * sizeof *und);
    if (!cum || !perm || !keys || !und) {
        free(cum), free(perm), free(keys), free(und);
        errno = ENOMEM;
        return -1;
    }
    double total = 0;
    for (uint32_t i = 0; i < nr_vertices; i++)
        cum[i] = total += pow((double)i + 1.0, -1.0 / 1.5);
    /* Sample endpoint pairs by weight until nr_edges distinct ones exist:
     * batches of samples, deduplicated by sorting (u < v canonical form). */
    size_t have = 0;
    while (have < nr_edges) {
        size_t want = nr_edges - have;
        for (size_t i = 0; i < want; i++) {
            uint32_t end[2];
            for (int e = 0; e < 2; e++) {
                double r = unit(&s) * total;
                uint32_t lo = 0, hi = nr_vertices - 1;
                while (lo < hi) {
                    uint32_t mid = (lo + hi) / 2;
                    if (cum[mid] > r)
                        hi = mid;
                    else
                        lo = mid + 1;
                }
                end[e] = perm[lo];
            }
            if (end[0] == end[1]) { /* a self-loop: draw this sample again */
                i--;
                continue;
            }
            uint32_t a = end[0] < end[1] ? end[0] : end[1], b = end[0] ^ end[1] ^ a;
            und[have + i] = (uint64_t)a << 32 | b;
        }
        size_t n = have + want;
        qsort(und, n, sizeof *und, cmp_u64);
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (m == 0 || und[i] != und[m - 1])
                und[m++] = und[i];
        have = m;
    }
    size_t k = 0;
    for (size_t i = 0; i < nr_edges; i++) {
        uint32_t a = (uint32_t)(und[i] >> 32), b = (uint32_t)und[i];
        keys[k++] = (uint64_t)a << 32 | b;
        keys[k++] = (uint64_t)b << 32 | a;
    }
    if (with_self_loops)
        for (uint32_t u = 0; u < nr_vertices; u++)
            keys[k++] = (uint64_t)u << 32 | u;
    free(cum), free(perm), free(und);
    return keys_to_csr(keys, k, nr_vertices, g);
}
