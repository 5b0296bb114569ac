/* Harness of the randomized tests (test_comm_fuzz.c, test_comm_mpi_fuzz.c):
 * the set and its MRAM windows (the regions a call reads and writes, with
 * random guard bytes around them, kept as per-node images before, expected
 * after and read back), the node -> DPU numbering of openpim_comm.h computed
 * from the DPUs' chip and DPU-in-chip ids, random cube shapes and offsets. */
#ifndef COMM_FUZZ_MACH_H
#define COMM_FUZZ_MACH_H

#include <dpu.h>

#include "free_kernels.h"
#include "fuzz_ref.h"

static const char *fz_cur_desc = ""; /* the case being run, for messages */

#define FZ_MAX_WIN 8

struct fz_win {
    uint64_t lo, hi; /* 8-aligned */
    size_t at;       /* offset of this window in a node's image */
};

struct fz_mach {
    struct dpu_set_t set;
    uint32_t nodes;        /* images: every node of the (global) cube */
    uint32_t local, first; /* this process's DPUs: nodes first .. first + local - 1 */
    struct dpu_set_t *dpu; /* local node -> DPU, by the header's numbering, computed here */
    uint64_t mram;
    struct fz_win w[FZ_MAX_WIN];
    unsigned nw;
    size_t img;                     /* bytes of a node's image (the windows) */
    uint8_t *before, *after, *got;  /* [node][img] */
};

struct fz_dpos {
    uint32_t member, slice;
    struct dpu_set_t dpu;
};

static inline int fz_dpos_cmp(const void *a, const void *b)
{
    const struct fz_dpos *x = a, *y = b;
    if (x->member != y->member)
        return x->member < y->member ? -1 : 1;
    return (x->slice > y->slice) - (x->slice < y->slice);
}

/* openpim_comm.h: node n is chip n % 8 of entangled group (n / 8) % 8 of rank
 * n / 64; in a set with disabled DPUs, nodes take the enabled DPUs in that
 * order (group = DPU in the chip, then chip). */
static inline void fz_map_nodes(struct fz_mach *m)
{
    DPU_ASSERT(dpu_get_nr_dpus(m->set, &m->local));
    m->dpu = calloc(m->local, sizeof *m->dpu);
    struct dpu_set_t rank, dpu;
    uint32_t n = 0;
    DPU_RANK_FOREACH(m->set, rank) {
        struct fz_dpos p[64];
        uint32_t k = 0;
        DPU_FOREACH(rank, dpu) {
            p[k].member = dpu_get_member_id(dpu_from_set(dpu));
            p[k].slice = dpu_get_slice_id(dpu_from_set(dpu));
            p[k++].dpu = dpu;
        }
        qsort(p, k, sizeof *p, fz_dpos_cmp);
        for (uint32_t i = 0; i < k; i++)
            m->dpu[n++] = p[i].dpu;
    }
}

static uint8_t *fz_at_win(void *ctx, uint32_t node, uint64_t off, int after)
{
    struct fz_mach *m = ctx;
    for (unsigned i = 0; i < m->nw; i++)
        if (off >= m->w[i].lo && off <= m->w[i].hi)
            return (after ? m->after : m->before) + (size_t)node * m->img + m->w[i].at + (off - m->w[i].lo);
    fprintf(stderr, "comm fuzz: offset %llu of node %u is outside the windows (a bug of the test): %s\n",
            (unsigned long long)off, node, fz_cur_desc);
    exit(3);
}

/* The windows of this process's nodes between MRAM and buf ([node][img], all nodes). */
static inline void fz_mram_io(struct fz_mach *m, dpu_xfer_t dir, uint8_t *buf)
{
    struct dpu_symbol_t mram = {0x08000000u, (uint32_t)m->mram};
    for (unsigned i = 0; i < m->nw; i++) {
        for (uint32_t n = 0; n < m->local; n++)
            DPU_ASSERT(dpu_prepare_xfer(m->dpu[n], buf + (size_t)(m->first + n) * m->img + m->w[i].at));
        DPU_ASSERT(dpu_push_xfer_symbol(m->set, dir, mram, (uint32_t)m->w[i].lo, m->w[i].hi - m->w[i].lo,
                                        DPU_XFER_DEFAULT));
    }
}

/* Windows around the regions [off[i], off[i] + len[i]) (lengths 0: none),
 * guard bytes of random length on each side, clipped to MRAM, merged when
 * they touch. */
static inline void fz_make_windows(struct fz_mach *m, uint64_t *s, unsigned nr, const uint64_t *off, const uint64_t *len)
{
    uint64_t lo[FZ_MAX_WIN], hi[FZ_MAX_WIN];
    unsigned k = 0;
    for (unsigned i = 0; i < nr && k < FZ_MAX_WIN; i++) {
        if (!len[i] || off[i] >= m->mram)
            continue;
        uint64_t g = 8 + fz_below(s, 57), e = off[i] + len[i] > m->mram ? m->mram : off[i] + len[i];
        lo[k] = (off[i] > g ? off[i] - g : 0) & ~7ull;
        hi[k] = (e + g + 7) & ~7ull;
        if (hi[k] > m->mram)
            hi[k] = m->mram;
        k++;
    }
    if (k == 0) { /* nothing read or written: watch the start of MRAM */
        lo[0] = 0, hi[0] = 64;
        k = 1;
    }
    for (unsigned i = 1; i < k; i++) /* sort by start */
        for (unsigned j = i; j > 0 && lo[j] < lo[j - 1]; j--) {
            uint64_t t = lo[j];
            lo[j] = lo[j - 1], lo[j - 1] = t;
            t = hi[j], hi[j] = hi[j - 1], hi[j - 1] = t;
        }
    m->nw = 0;
    m->img = 0;
    for (unsigned i = 0; i < k; i++) {
        if (m->nw && lo[i] <= m->w[m->nw - 1].hi) {
            struct fz_win *w = &m->w[m->nw - 1];
            m->img += hi[i] > w->hi ? hi[i] - w->hi : 0;
            w->hi = hi[i] > w->hi ? hi[i] : w->hi;
            continue;
        }
        m->w[m->nw++] = (struct fz_win){lo[i], hi[i], m->img};
        m->img += hi[i] - lo[i];
    }
    size_t all = m->img * m->nodes;
    m->before = realloc(m->before, all);
    m->after = realloc(m->after, all);
    m->got = realloc(m->got, all);
}

/* ---- a case ---------------------------------------------------------------------------------- */

struct fz_shape {
    uint32_t nr_dpus;
    char profile[256];
    uint32_t nd, len[OPENPIM_COMM_MAX_DIMS];
};

/* Random lengths, product total, dimension 0 = l0 (0: any divisor). */
static inline void fz_split(uint64_t *s, struct fz_shape *sh, uint32_t total, uint32_t l0)
{
    sh->nd = 0;
    if (!l0) {
        uint32_t div[64], nd = 0;
        for (uint32_t d = 1; d <= total && nd < 64; d++)
            if (total % d == 0)
                div[nd++] = d;
        l0 = div[fz_below(s, nd)];
    }
    sh->len[sh->nd++] = l0;
    uint32_t rest = total / l0, extra = (uint32_t)fz_below(s, 4);
    for (uint32_t i = 0; i < extra && sh->nd < 4; i++) {
        uint32_t div[64], nd = 0;
        for (uint32_t d = 1; d <= rest && nd < 64; d++)
            if (rest % d == 0)
                div[nd++] = d;
        uint32_t x = fz_chance(s, 1, 4) ? 1 : div[fz_below(s, nd)];
        sh->len[sh->nd++] = x;
        rest /= x;
    }
    sh->len[sh->nd++] = rest;
    if (fz_chance(s, 1, 4) && sh->nd < 5)
        sh->len[sh->nd++] = 1; /* a trailing dimension of length 1 */
}

static inline void fz_pick_shape(uint64_t *s, struct fz_shape *sh)
{
    memset(sh, 0, sizeof *sh);
    unsigned kind = (unsigned)fz_below(s, 20);
    if (kind < 9) { /* full ranks, L[0] a multiple of 8: the physical view */
        uint32_t R = 1 + (uint32_t)fz_below(s, 3), total = 64 * R;
        static const uint32_t l0s[] = {8, 16, 32, 64, 24, 48, 96, 192};
        uint32_t l0;
        do
            l0 = l0s[fz_below(s, R == 3 ? 8 : 4)];
        while (total % l0);
        sh->nr_dpus = total;
        fz_split(s, sh, total, l0);
    } else if (kind < 12) { /* full ranks, L[0] not a multiple of 8 */
        uint32_t R = 1 + (uint32_t)fz_below(s, 2);
        static const uint32_t l0s[] = {1, 2, 4, 64};
        sh->nr_dpus = 64 * R;
        uint32_t l0 = l0s[fz_below(s, 4)];
        fz_split(s, sh, sh->nr_dpus, l0 == 64 ? 0 : l0);
    } else if (kind < 17) { /* a partial last rank */
        sh->nr_dpus = 1 + (uint32_t)fz_below(s, 150);
        if (sh->nr_dpus % 64 == 0)
            sh->nr_dpus--;
        if (sh->nr_dpus == 0)
            sh->nr_dpus = 1;
        fz_split(s, sh, sh->nr_dpus, 0);
    } else if (kind < 19) { /* ranks with disabled DPUs */
        uint32_t per = 56 + (uint32_t)fz_below(s, 8), R = 1 + (uint32_t)fz_below(s, 2);
        snprintf(sh->profile, sizeof sh->profile, "nrRanks=%u,nrDpusPerRank=%u", R + 1, per);
        sh->nr_dpus = per * R;
        fz_split(s, sh, sh->nr_dpus, 0);
    } else { /* one DPU */
        sh->nr_dpus = 1;
        fz_split(s, sh, 1, 1);
    }
    /* kernels that cost nothing: the kernel paths at these small sizes too (which path runs is a matter
     * of modelled time, the results are the same; test_comm_threshold checks the choice) */
    size_t k = strlen(sh->profile);
    snprintf(sh->profile + k, sizeof sh->profile - k, "%s%s", k ? "," : "", COMM_TEST_FREE_KERNELS);
}

/* An offset for a region of len bytes: near the start, at the very end of
 * MRAM, or anywhere; aligned to 8 when `al`. */
static inline uint64_t fz_pick_offset(uint64_t *s, uint64_t mram, uint64_t len, bool al)
{
    uint64_t room = mram - len, o;
    switch (fz_below(s, 3)) {
    case 0: o = fz_below(s, room < 8192 ? room + 1 : 8192); break;
    case 1: o = room - fz_below(s, room < 24 ? room + 1 : 24); break; /* flush with the end, or nearly */
    default: o = fz_below(s, room + 1); break;
    }
    if (al)
        o &= ~7ull;
    return o;
}

static inline bool fz_overlap(uint64_t a, uint64_t al, uint64_t b, uint64_t bl)
{
    return al && bl && a < b + bl && b < a + al;
}

#endif
