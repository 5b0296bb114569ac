/* SPDX-License-Identifier: MIT */
/* The buddy allocator of <alloc.h> against an independent model: a bitmap of
 * 16-byte units where a block of 2^k bytes takes the lowest 2^k-aligned run of
 * free units (what a buddy tree searched left first gives).  Checks every
 * address and errno of a fixed script (exhaustion, EINVAL cases, freeing by an
 * inner address, realloc, reset) and of a long pseudo-random one, and that no
 * block ever overwrote another. */
#include <dpu.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

#define MAX_OPS 900
#define HEAP 4096u
#define UNIT 16u
#define UNITS (HEAP / UNIT)
enum { OP_ALLOC, OP_FREE, OP_REALLOC, OP_RESET, OP_FREE_AT, OP_FREE_NULL };
struct op {
    uint32_t kind, arg, size;
};

/* ---- the model ---- */
static uint8_t used[UNITS];
static int64_t off_of[MAX_OPS]; /* offset of op i's block, -1 when not held */
static uint32_t ord_of[MAX_OPS]; /* its size in bytes */

static uint32_t block_bytes(uint32_t size)
{
    uint32_t b = UNIT;
    while (b < size)
        b *= 2;
    return b;
}
static int64_t model_find(uint32_t bytes)
{
    for (uint32_t at = 0; at + bytes <= HEAP; at += bytes) {
        uint32_t k = 0;
        while (k < bytes / UNIT && !used[at / UNIT + k])
            k++;
        if (k == bytes / UNIT)
            return at;
    }
    return -1;
}
static void model_mark(int64_t at, uint32_t bytes, uint8_t v)
{
    memset(used + at / UNIT, v, bytes / UNIT);
}
/* the op whose block contains byte `at`, or -1 */
static int model_owner(uint32_t at, uint32_t nr)
{
    for (uint32_t i = 0; i < nr; i++)
        if (off_of[i] >= 0 && at >= off_of[i] && at < off_of[i] + ord_of[i])
            return (int)i;
    return -1;
}

struct expect {
    int64_t off; /* -1: NULL */
    uint32_t err;
};

static struct expect model_apply(const struct op *o, uint32_t i)
{
    struct expect e = { -1, 0 };
    switch (o->kind) {
    case OP_ALLOC:
        if (o->size == 0 || o->size > HEAP) {
            e.err = EINVAL;
        } else if ((e.off = model_find(block_bytes(o->size))) < 0) {
            e.err = ENOMEM;
        } else {
            off_of[i] = e.off;
            ord_of[i] = block_bytes(o->size);
            model_mark(e.off, ord_of[i], 1);
        }
        break;
    case OP_FREE:
        model_mark(off_of[o->arg], ord_of[o->arg], 0);
        off_of[o->arg] = -1;
        break;
    case OP_REALLOC: {
        uint32_t a = o->arg, want = block_bytes(o->size);
        if (want <= ord_of[a]) { /* shrinks in place */
            model_mark(off_of[a] + want, ord_of[a] - want, 0);
            ord_of[a] = want;
            e.off = off_of[a];
        } else if ((e.off = model_find(want)) < 0) {
            e.err = ENOMEM; /* the old block stays */
        } else {
            model_mark(e.off, want, 1);
            model_mark(off_of[a], ord_of[a], 0);
            off_of[a] = e.off;
            ord_of[a] = want;
        }
        break;
    }
    case OP_RESET:
        memset(used, 0, sizeof used);
        for (uint32_t k = 0; k < MAX_OPS; k++)
            off_of[k] = -1;
        break;
    case OP_FREE_AT: {
        int owner = model_owner(o->size, i);
        if (owner < 0) {
            e.err = EINVAL;
        } else {
            model_mark(off_of[owner], ord_of[owner], 0);
            off_of[owner] = -1;
        }
        break;
    }
    case OP_FREE_NULL:
        break;
    }
    return e;
}

/* ---- the scripts ---- */
static struct op script[MAX_OPS];
static uint32_t nr;
static void add(uint32_t kind, uint32_t arg, uint32_t size)
{
    script[nr++] = (struct op){ kind, arg, size };
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void fixed_script(void)
{
    for (uint32_t k = 0; k < UNITS; k++) /* 256 blocks of 16 bytes fill the heap */
        add(OP_ALLOC, 0, 1 + k % 16);
    add(OP_ALLOC, 0, 1);          /* ENOMEM */
    add(OP_ALLOC, 0, 0);          /* EINVAL */
    add(OP_ALLOC, 0, HEAP + 1);   /* EINVAL */
    add(OP_FREE, 5, 8);           /* block 5 by an address inside it */
    add(OP_ALLOC, 0, 16);         /* takes block 5's place */
    add(OP_ALLOC, 0, 16);         /* ENOMEM again */
    add(OP_FREE_NULL, 0, 0);
    add(OP_FREE, 6, 0);
    add(OP_FREE, 7, 0);           /* 6 and 7 merge into a 32-byte block at 96 */
    add(OP_ALLOC, 0, 17);         /* 32 bytes: ENOMEM? no: 96 is 32-aligned */
    add(OP_RESET, 0, 0);
    add(OP_FREE_AT, 0, 100);      /* nothing is allocated: EINVAL */
    add(OP_ALLOC, 0, HEAP);       /* the whole heap */
    add(OP_ALLOC, 0, 1);          /* ENOMEM */
    add(OP_REALLOC, nr - 2, 100); /* shrinks in place to 128 bytes */
    add(OP_ALLOC, 0, 2048);       /* the upper half is free again */
    add(OP_ALLOC, 0, 33);         /* 64 bytes at 128 */
    add(OP_REALLOC, nr - 1, 200); /* grows: moves to 256 */
    add(OP_RESET, 0, 0);
}

static void random_script(void)
{
    uint32_t start = nr;
    while (nr < MAX_OPS) {
        uint32_t live[MAX_OPS], nlive = 0;
        for (uint32_t k = start; k < nr; k++)
            if (off_of[k] >= 0)
                live[nlive++] = k;
        uint32_t r = rnd(100);
        uint32_t i = nr;
        if (r < 50 || nlive == 0) {
            uint32_t size = rnd(4) == 0 ? 1 + rnd(1500) : 1 + rnd(200);
            add(OP_ALLOC, 0, size);
        } else if (r < 80) {
            uint32_t v = live[rnd(nlive)];
            add(OP_FREE, v, rnd(ord_of[v]));
        } else if (r < 95) {
            add(OP_REALLOC, live[rnd(nlive)], 1 + rnd(700));
        } else if (r < 98) {
            add(OP_FREE_AT, 0, rnd(HEAP));
        } else {
            add(OP_RESET, 0, 0);
        }
        /* the model must run along to know which blocks are live */
        model_apply(&script[i], i);
    }
}

int main(void)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_buddy_script", NULL));
    DPU_FOREACH(set, dpu) {
        break;
    }

    for (uint32_t k = 0; k < MAX_OPS; k++)
        off_of[k] = -1;
    fixed_script();
    uint32_t fixed_end = nr;
    /* build the random part with the model running, then replay everything from scratch */
    struct expect *exp = calloc(MAX_OPS, sizeof *exp);
    for (uint32_t i = 0; i < fixed_end; i++)
        model_apply(&script[i], i);
    random_script();
    memset(used, 0, sizeof used);
    for (uint32_t k = 0; k < MAX_OPS; k++)
        off_of[k] = -1;
    for (uint32_t i = 0; i < nr; i++)
        exp[i] = model_apply(&script[i], i);

    uint32_t heap = HEAP, nops = nr;
    DPU_ASSERT(dpu_copy_to(dpu, "heap_size", 0, &heap, 4));
    DPU_ASSERT(dpu_copy_to(dpu, "nr_ops", 0, &nops, 4));
    DPU_ASSERT(dpu_copy_to(dpu, "ops", 0, script, sizeof script));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    uint32_t result[MAX_OPS], err[MAX_OPS], clobbered, area;
    DPU_ASSERT(dpu_copy_from(dpu, "result", 0, result, sizeof result));
    DPU_ASSERT(dpu_copy_from(dpu, "err", 0, err, sizeof err));
    DPU_ASSERT(dpu_copy_from(dpu, "clobbered", 0, &clobbered, 4));
    DPU_ASSERT(dpu_copy_from(dpu, "area", 0, &area, 4));

    uint32_t mismatches = 0, nomem = 0, inval = 0;
    for (uint32_t i = 0; i < nr; i++) {
        int64_t got = result[i] ? (int64_t)result[i] - area : -1;
        int kind_returns = script[i].kind == OP_ALLOC || script[i].kind == OP_REALLOC;
        if ((kind_returns && got != exp[i].off) || err[i] != exp[i].err) {
            if (mismatches++ < 10)
                fprintf(stderr, "op %u (kind %u arg %u size %u): got offset %lld errno %u, model %lld errno %u\n", i,
                        script[i].kind, script[i].arg, script[i].size, (long long)got, err[i],
                        (long long)exp[i].off, exp[i].err);
        }
        nomem += exp[i].err == ENOMEM;
        inval += exp[i].err == EINVAL;
    }
    CHECK_EQ(mismatches, 0);
    CHECK_EQ(clobbered, 0);
    CHECK_EQ(area % 8, 0);
    /* the fixed script's landmarks, stated directly */
    CHECK_EQ(exp[UNITS].err, ENOMEM);
    CHECK_EQ(err[UNITS], ENOMEM);
    CHECK_EQ(result[UNITS + 4], result[5]);
    CHECK_EQ(result[UNITS + 9] - area, 96);
    /* the random script exercised exhaustion and bad frees too */
    CHECK(nomem > 10);
    CHECK(inval > 5);
    printf("buddy script: %u ops (%u fixed), %u ENOMEM, %u EINVAL\n", nr, fixed_end, nomem, inval);
    free(exp);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_buddy_script");
}
