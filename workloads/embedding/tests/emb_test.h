/* SPDX-License-Identifier: MIT */
/* Shared by the embedding tests: deterministic random tables and indices, and
 * host references written independently of the library (one element at a
 * time): a plain sum (int32 wrapping; float in double precision for the
 * rounding bound) and the float sum in the plan's order (row slices summed
 * separately from +0.0f in bag order, then slice 0 + slice 1 + ...). */
#ifndef EMB_TEST_H
#define EMB_TEST_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "openpim_embedding.h"

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static inline uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct tables {
    uint32_t nr;
    struct openpim_emb_table *t;
    uint32_t **idx; /* [t][batch * pooling] */
    uint32_t total_dim;
};

/* Float values in [-1, 1) with 24 random bits; int32 values over the whole range. */
static inline void tables_make(struct tables *x, uint32_t nr, const uint32_t *rows, const uint32_t *dims,
                               const uint32_t *pool, int is_float, uint32_t max_batch)
{
    x->nr = nr;
    x->t = calloc(nr, sizeof *x->t);
    x->idx = calloc(nr, sizeof *x->idx);
    x->total_dim = 0;
    for (uint32_t i = 0; i < nr; i++) {
        size_t n = (size_t)rows[i] * dims[i];
        uint32_t *d = malloc(n * 4);
        for (size_t k = 0; k < n; k++) {
            uint32_t v = (uint32_t)rnd();
            if (is_float) {
                float f = (float)((int32_t)(v >> 8) - (1 << 23)) / (float)(1 << 23);
                memcpy(&d[k], &f, 4);
            } else {
                d[k] = v;
            }
        }
        x->t[i] = (struct openpim_emb_table){rows[i], dims[i], pool[i], d};
        x->idx[i] = malloc((size_t)max_batch * pool[i] * 4);
        x->total_dim += dims[i];
    }
}

static inline void tables_indices(struct tables *x, uint32_t batch)
{
    for (uint32_t i = 0; i < x->nr; i++)
        for (size_t k = 0; k < (size_t)batch * x->t[i].pooling; k++)
            x->idx[i][k] = (uint32_t)(rnd() % x->t[i].rows);
}

static inline void tables_free(struct tables *x)
{
    for (uint32_t i = 0; i < x->nr; i++) {
        free((void *)x->t[i].data);
        free(x->idx[i]);
    }
    free(x->t);
    free(x->idx);
}

/* Element (b, t, j) of the reference; R = number of row slices of the plan. */
static inline uint32_t ref_int(const struct tables *x, uint32_t t, uint32_t b, uint32_t j)
{
    const uint32_t *d = x->t[t].data;
    uint32_t s = 0;
    for (uint32_t p = 0; p < x->t[t].pooling; p++)
        s += d[(size_t)x->idx[t][(size_t)b * x->t[t].pooling + p] * x->t[t].dim + j];
    return s;
}

static inline float ref_float_plan(const struct tables *x, uint32_t t, uint32_t b, uint32_t j, uint32_t R)
{
    const float *d = x->t[t].data;
    const uint32_t rp = (x->t[t].rows + R - 1) / R, P = x->t[t].pooling;
    float total = 0.0f;
    for (uint32_t r = 0; r < R; r++) {
        float part = 0.0f;
        for (uint32_t p = 0; p < P; p++) {
            uint32_t i = x->idx[t][(size_t)b * P + p];
            if (i / rp == r)
                part += d[(size_t)i * x->t[t].dim + j];
        }
        total = r == 0 ? part : total + part;
    }
    return total;
}

/* |got - exact| within the (P + R) * eps * sum |x| bound of any order of summation. */
static inline int float_within(const struct tables *x, uint32_t t, uint32_t b, uint32_t j, uint32_t R, float got)
{
    const float *d = x->t[t].data;
    const uint32_t P = x->t[t].pooling;
    double s = 0, a = 0;
    for (uint32_t p = 0; p < P; p++) {
        double v = d[(size_t)x->idx[t][(size_t)b * P + p] * x->t[t].dim + j];
        s += v;
        a += fabs(v);
    }
    return fabs((double)got - s) <= (P + R) * (double)FLT_EPSILON * a + 1e-30;
}

/* Compares out[b][total_dim] with the references; returns mismatches. */
static inline long compare(const struct tables *x, uint32_t batch, const void *out, int is_float, uint32_t R)
{
    long bad = 0;
    for (uint32_t b = 0; b < batch; b++) {
        uint32_t col = 0;
        for (uint32_t t = 0; t < x->nr; t++) {
            for (uint32_t j = 0; j < x->t[t].dim; j++) {
                size_t at = (size_t)b * x->total_dim + col + j;
                if (is_float) {
                    float got = ((const float *)out)[at];
                    float want = ref_float_plan(x, t, b, j, R);
                    if (got != want || !float_within(x, t, b, j, R, got)) {
                        if (bad++ < 5)
                            fprintf(stderr, "  b %u table %u col %u: %.9g, want %.9g\n", b, t, j, got, want);
                    }
                } else {
                    uint32_t got = ((const uint32_t *)out)[at], want = ref_int(x, t, b, j);
                    if (got != want && bad++ < 5)
                        fprintf(stderr, "  b %u table %u col %u: %u, want %u\n", b, t, j, got, want);
                }
            }
            col += x->t[t].dim;
        }
    }
    return bad;
}

#endif
