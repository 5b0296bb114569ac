/* SPDX-License-Identifier: MIT */
/* Harness of the randomized tests (test_comm_fuzz.c, test_comm_mpi_fuzz.c):
 * the set and its MRAM windows (the regions a call reads and writes, with
 * random guard bytes around them, kept as per-node images before, expected
 * after and read back), the node -> DPU numbering of openpim_comm.h computed
 * from the DPUs' chip and DPU-in-chip ids, random cube shapes and offsets. */
#ifndef COMM_FUZZ_MACH_H
#define COMM_FUZZ_MACH_H

#include <dpu.h>
#include <time.h>

#include "free_kernels.h"
#include "fuzz_ref.h"

static const char *fz_cur_desc = ""; /* the case being run, for messages */

/* ---- a crash names its case ------------------------------------------------------------
 * A case that crashes the process (a signal, or AddressSanitizer stopping it:
 * its death callback) prints the case's seed and description, prepared when
 * the case starts (fz_crash_case), with write() only.  UndefinedBehavior-
 * Sanitizer exits without either; OPENPIM_FUZZ_TRACE=1 then prints every
 * case before it runs: the same master seed replays the same cases, so the
 * last one printed is the culprit. */
#include <signal.h>
#include <unistd.h>

static char fz_crash_line[1024];
static size_t fz_crash_len;

static inline void fz_crash_say(void)
{
    if (fz_crash_len && write(2, fz_crash_line, fz_crash_len) < 0)
        fz_crash_len = 0;
}

static inline void fz_crash_signal(int sig)
{
    fz_crash_say();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* the sanitizers' runtime, when linked in (weak: NULL otherwise) */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static inline void fz_crash_arm(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (unsigned i = 0; i < sizeof sigs / sizeof *sigs; i++)
        signal(sigs[i], fz_crash_signal);
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(fz_crash_say);
}

/* The case now running (its seed and description), for a crash. */
static inline void fz_crash_case(uint64_t seed, const char *desc, int hosts)
{
    int n = snprintf(fz_crash_line, sizeof fz_crash_line,
                     "CRASH in case %s\n  reproduce: OPENPIM_FUZZ_SEED=0x%016llx OPENPIM_FUZZ_ONE=1 "
                     "OPENPIM_FUZZ_CASES=1%s\n",
                     desc, (unsigned long long)seed, hosts ? " mpirun -np H ..." : "");
    fz_crash_len = n < 0 ? 0 : (size_t)n < sizeof fz_crash_line ? (size_t)n : sizeof fz_crash_line - 1;
    const char *trace = getenv("OPENPIM_FUZZ_TRACE");
    if (trace && *trace && strcmp(trace, "0")) {
        fprintf(stderr, "case 0x%016llx: %s\n", (unsigned long long)seed, desc);
        fflush(stderr);
    }
}

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

/* Frees the set and the images. */
static inline void fz_mach_free(struct fz_mach *m)
{
    DPU_ASSERT(dpu_free(m->set));
    free(m->dpu), free(m->before), free(m->after), free(m->got);
}

static inline double fz_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- a call --------------------------------------------------------------------- */

enum { FZ_GN = FZ_NR_PRIMS }; /* Gather from chosen nodes at per-node offsets (one host) */

struct fz_call {
    int prim;                 /* enum fz_prim, or FZ_GN */
    uint32_t mask;
    openpim_comm_type type;
    openpim_comm_op op;
    uint64_t bytes, src, dst;
    uint64_t in, out, hb;     /* extents (fz_extent) */
    openpim_comm_status want; /* OK, or the refusal the header names */
    /* Gather from chosen nodes */
    uint32_t nsel, *sel;
    uint64_t *srcs;
    uint64_t pool[4]; /* the distinct offsets srcs[] takes */
    unsigned npool;
    /* several hosts */
    int odd_one;   /* >= 0: this MPI process passes bytes + 8 (arguments that differ) */
    int null_root; /* the root passes no host buffer */
};

/* What to draw: one host (Gather from chosen nodes among `nodes`) or
 * several (hosts processes: a process with other arguments, no root
 * buffer); sizes up to about cap bytes per node. */
struct fz_call_opts {
    int hosts;      /* 0: one host */
    uint32_t nodes; /* of the cube (one host) */
    uint64_t cap;
};

static inline void fz_set_extent(struct fz_call *c, uint32_t N, uint32_t I)
{
    fz_extent(c->prim == FZ_GN ? FZ_GA : (enum fz_prim)c->prim, c->bytes, N, I, &c->in, &c->out, &c->hb);
    if (c->prim == FZ_GN)
        c->out = 0, c->hb = (uint64_t)c->nsel * c->bytes;
}

/* Draws a call on a communicator of N ranks and I instances, MRAM of `mram`
 * bytes: the primitive, type and operation, a size (mostly small, some 0),
 * offsets (aligned or not, in place, at the end of MRAM); in one case of
 * eight one bad argument, with the status it must be refused with. */
static inline void fz_pick_call(uint64_t *s, struct fz_call *c, uint32_t N, uint32_t I, uint64_t mram,
                                const struct fz_call_opts *o)
{
    c->odd_one = -1;
    c->null_root = 0;
    c->prim = (int)fz_below(s, o->hosts ? FZ_NR_PRIMS : FZ_NR_PRIMS + 1);
    bool red = c->prim == FZ_RS || c->prim == FZ_AR || c->prim == FZ_RE;
    do { /* floats two times in five: their NaN, +-0 and order rules are the subtle ones */
        c->type = fz_chance(s, 2, 5) ? OPENPIM_FLOAT + (openpim_comm_type)fz_below(s, 2)
                                     : (openpim_comm_type)fz_below(s, OPENPIM_NR_TYPES);
        c->op = (openpim_comm_op)fz_below(s, OPENPIM_NR_OPS);
    } while (red && !fz_valid(c->type, c->op));
    if (!red)
        c->type = OPENPIM_UINT8, c->op = OPENPIM_SUM;
    size_t es = fz_size[c->type];
    bool al = fz_chance(s, 1, 2); /* the view path: blocks and offsets multiples of 8 */
    uint64_t unit = c->prim == FZ_AA ? N : c->prim == FZ_RS ? (uint64_t)N * es : es;
    if (al)
        unit = c->prim == FZ_AA || c->prim == FZ_RS ? unit * (8 / (es < 8 ? es : 8)) : 8;
    uint64_t cap = o->cap / unit;
    c->bytes = unit * (fz_chance(s, 1, 2) ? 1 + fz_below(s, 16) : 1 + fz_below(s, cap > 1 ? cap : 1));
    if (fz_chance(s, 1, 40))
        c->bytes = 0;
    if (c->prim == FZ_GN)
        c->nsel = 1 + (uint32_t)fz_below(s, o->nodes);
    fz_set_extent(c, N, I);
    if (c->in > mram / 2 || c->out > mram / 2 || c->out * (uint64_t)I * N > (64u << 20)) {
        c->bytes = unit; /* a big AllGather on many nodes: shrink */
        fz_set_extent(c, N, I);
    }
    c->src = c->in ? fz_pick_offset(s, mram, c->in, al) : 0;
    c->dst = c->out ? fz_pick_offset(s, mram, c->out, al) : 0;
    for (int tries = 0; fz_overlap(c->src, c->in, c->dst, c->out) && tries < 20; tries++)
        c->dst = fz_pick_offset(s, mram, c->out, al);
    bool dpu2dpu = c->prim <= FZ_AR;
    if (dpu2dpu && fz_chance(s, 1, 6)) { /* in place */
        uint64_t big = c->in > c->out ? c->in : c->out;
        c->src = c->dst = fz_pick_offset(s, mram, big, al);
    }
    if (fz_overlap(c->src, c->in, c->dst, c->out) && c->src != c->dst)
        c->src = c->dst = 0; /* no room apart: in place */
    c->want = OPENPIM_COMM_OK;
    if (c->prim == FZ_GN) { /* nodes in a random order, up to 4 distinct offsets */
        c->sel = malloc((size_t)o->nodes * sizeof *c->sel);
        c->srcs = malloc((size_t)o->nodes * sizeof *c->srcs);
        for (uint32_t n = 0; n < o->nodes; n++)
            c->sel[n] = n;
        for (uint32_t n = 0; n + 1 < o->nodes; n++) {
            uint32_t j = n + (uint32_t)fz_below(s, o->nodes - n), t = c->sel[n];
            c->sel[n] = c->sel[j];
            c->sel[j] = t;
        }
        c->npool = 1 + (unsigned)fz_below(s, 4);
        c->pool[0] = c->src;
        for (unsigned i = 1; i < c->npool; i++)
            c->pool[i] = fz_pick_offset(s, mram, c->in, al);
        for (uint32_t k = 0; k < c->nsel; k++)
            c->srcs[k] = c->pool[fz_below(s, c->npool)];
    }
    /* one bad argument, sometimes */
    if (!fz_chance(s, 1, 8) || c->bytes == 0)
        return;
    switch (fz_below(s, o->hosts ? 5 : 4)) {
    case 0: /* a region one to eight bytes past the end of MRAM */
        if (c->out) {
            c->dst = mram - c->out + 1 + fz_below(s, 8);
            if (c->in && c->src + c->in > c->dst - 64)
                c->src = 0;
        } else {
            c->src = mram - c->in + 1 + fz_below(s, 8);
            if (c->prim == FZ_GN) {
                c->pool[0] = c->src;
                c->srcs[fz_below(s, c->nsel)] = c->src;
            }
        }
        c->want = OPENPIM_COMM_ERR_RANGE;
        break;
    case 1: /* overlapping without being in place */
        if (dpu2dpu && c->in > 1 && c->out > 1 && c->in + c->out < mram) {
            c->src = fz_below(s, mram - c->in - c->out);
            c->dst = c->src + 1 + fz_below(s, c->in - 1);
            c->want = OPENPIM_COMM_ERR_OVERLAP;
        }
        break;
    case 2: /* a size that is not a multiple of what the primitive needs (regions well inside MRAM, so
             * that the size is the only problem) */
        if (c->prim == FZ_AA && N > 1) {
            c->bytes += 1 + fz_below(s, N - 1);
            c->want = OPENPIM_COMM_ERR_SIZE;
        } else if (red && (c->prim == FZ_RS ? (uint64_t)N * es : es) > 1) {
            c->bytes += 1;
            c->want = OPENPIM_COMM_ERR_SIZE;
        }
        if (c->want != OPENPIM_COMM_OK) {
            c->src = 0;
            c->dst = c->out ? mram / 2 : 0;
        }
        break;
    case 3: /* a bad type or operation; Gather from chosen nodes: a bad node; rooted on hosts: no root buffer */
        if (red) {
            if (fz_chance(s, 1, 2) || !fz_is_float(c->type))
                c->type = fz_chance(s, 1, 2) ? OPENPIM_NR_TYPES : (openpim_comm_type)-1;
            else
                c->op = (openpim_comm_op)(OPENPIM_AND + fz_below(s, 3));
            c->want = OPENPIM_COMM_ERR_TYPE_OP;
        } else if (c->prim == FZ_GN) {
            if (c->nsel > 1)
                c->sel[c->nsel - 1] = c->sel[0]; /* a node listed twice */
            else
                c->sel[0] = o->nodes; /* no such node */
            c->want = OPENPIM_COMM_ERR_ARGUMENT;
        } else if (o->hosts && c->prim >= FZ_BC) {
            c->null_root = 1;
            c->want = OPENPIM_COMM_ERR_ARGUMENT;
        }
        break;
    default: /* one process passes other arguments */
        c->odd_one = (int)fz_below(s, (uint64_t)o->hosts);
        c->want = OPENPIM_COMM_ERR_ARGUMENT;
        break;
    }
}

/* "<shape> mask ... <prim> <type> <op> bytes src dst (want ...)" */
static inline void fz_case_str(const struct fz_shape *sh, int hosts, const struct fz_call *c, char *buf, size_t n)
{
    int k = hosts ? snprintf(buf, n, "%d hosts x ", hosts) : 0;
    k += snprintf(buf + k, n - (size_t)k, "%u DPUs%s%s dims {", sh->nr_dpus, sh->profile[0] ? " " : "",
                  sh->profile);
    for (uint32_t d = 0; d < sh->nd; d++)
        k += snprintf(buf + k, n - (size_t)k, "%s%u", d ? "," : "", sh->len[d]);
    if (hosts)
        k += snprintf(buf + k, n - (size_t)k, ",%d", hosts);
    char type[16], op[16];
    snprintf(type, sizeof type, "%s", (unsigned)c->type < OPENPIM_NR_TYPES ? fz_type_name[c->type] : "type");
    snprintf(op, sizeof op, "%s", (unsigned)c->op < OPENPIM_NR_OPS ? fz_op_name[c->op] : "op");
    if ((unsigned)c->type >= OPENPIM_NR_TYPES)
        snprintf(type, sizeof type, "type %d", (int)c->type);
    if ((unsigned)c->op >= OPENPIM_NR_OPS)
        snprintf(op, sizeof op, "op %d", (int)c->op);
    snprintf(buf + k, n - (size_t)k, "} mask 0x%x %s %s %s bytes %llu src %llu dst %llu (want %s)", c->mask,
             c->prim == FZ_GN ? "gather_nodes" : fz_prim_name[c->prim], type, op, (unsigned long long)c->bytes,
             (unsigned long long)c->src, (unsigned long long)c->dst, openpim_comm_status_name(c->want));
}

/* Prints a failure with the case and how to run it again; 1. */
static inline int fz_fail(uint64_t seed, int hosts, int me, const char *what, const char *desc)
{
    char pre[32] = "", post[48] = "";
    if (hosts) {
        snprintf(pre, sizeof pre, "[%d] ", me);
        snprintf(post, sizeof post, " mpirun -np %d ...", hosts);
    }
    fprintf(stderr, "%sFAIL %s\n  case %s\n  reproduce: OPENPIM_FUZZ_SEED=0x%016llx OPENPIM_FUZZ_ONE=1 "
                    "OPENPIM_FUZZ_CASES=1%s\n",
            pre, what, desc, (unsigned long long)seed, post);
    check_failures++;
    return 1;
}

/* The windows, host buffer and canaries of a case: MRAM images before and
 * expected after (the reference applied), the host input hin and expected
 * host output href (hb bytes). */
static inline void fz_prepare(uint64_t *s, struct fz_mach *m, struct fz_call *c, const struct fz_comm *fc,
                              uint32_t parts, uint8_t **hin, uint8_t **href)
{
    if (c->prim == FZ_GN) { /* a window around each distinct offset */
        uint64_t lens[4] = {c->in, c->in, c->in, c->in};
        fz_make_windows(m, s, c->npool, c->pool, lens);
    } else {
        uint64_t offs[2] = {c->src, c->dst}, lens[2] = {c->in, c->out};
        fz_make_windows(m, s, 2, offs, lens);
    }
    fz_fill(s, fz_is_float(c->type) ? c->type : OPENPIM_UINT8, m->before, m->img * m->nodes);
    /* reduction inputs: values of their type */
    if ((unsigned)c->type < OPENPIM_NR_TYPES && c->in && c->src + c->in <= m->mram && c->prim != FZ_GN)
        for (uint32_t n = 0; n < m->nodes; n++)
            fz_fill(s, c->type, fz_at_win(m, n, c->src, 0), c->in);
    memcpy(m->after, m->before, m->img * m->nodes);
    size_t hb = (size_t)c->hb;
    *hin = malloc(hb + 1);
    *href = malloc(hb + 1);
    fz_fill(s, (unsigned)c->type < OPENPIM_NR_TYPES ? c->type : OPENPIM_UINT8, *hin, hb);
    memcpy(*href, *hin, hb);
    bool host_out = c->prim == FZ_GA || c->prim == FZ_RE || c->prim == FZ_GN;
    if (c->want != OPENPIM_COMM_OK || !c->bytes) /* refused, or 0 bytes: nothing changes */
        return;
    if (c->prim == FZ_GN)
        for (uint32_t k = 0; k < c->nsel; k++)
            memcpy(*href + (size_t)k * c->bytes, fz_at_win(m, c->sel[k], c->srcs[k], 0), c->bytes);
    else
        fz_apply(fc, (enum fz_prim)c->prim, c->src, c->dst, c->bytes, c->type, c->op, parts, fz_at_win, m,
                 host_out ? *href : *hin);
}

/* One run's outcome against the expected: the status (and a message exactly
 * when it failed), this process's nodes' windows, the host buffer h (NULL:
 * none given) against hwant and its canaries.  Returns the failures. */
static inline int fz_check_run(const struct fz_mach *m, const struct fz_call *c, openpim_comm_status got,
                               const struct fz_host *h, const uint8_t *hwant, const char *what, const char *desc,
                               uint64_t seed, int hosts, int me)
{
    int bad = 0;
    char msg[1024];
    if (got != c->want) {
        snprintf(msg, sizeof msg, "%s: status %s, expected %s: %s", what, openpim_comm_status_name(got),
                 openpim_comm_status_name(c->want), openpim_comm_last_error());
        bad += fz_fail(seed, hosts, me, msg, desc);
    } else if ((got == OPENPIM_COMM_OK) != (openpim_comm_last_error()[0] == 0)) {
        bad += fz_fail(seed, hosts, me, "the error message does not match the status", desc);
    }
    const uint8_t *want = c->want == OPENPIM_COMM_OK ? m->after : m->before;
    for (uint32_t n = m->first; n < m->first + m->local; n++) {
        long long i = fz_diff(m->got + (size_t)n * m->img, want + (size_t)n * m->img, m->img);
        if (i < 0)
            continue;
        size_t o = (size_t)i;
        unsigned wi = 0;
        while (wi + 1 < m->nw && o >= m->w[wi + 1].at)
            wi++;
        snprintf(msg, sizeof msg, "%s: node %u MRAM byte %llu is 0x%02x, expected 0x%02x (before: 0x%02x)", what, n,
                 (unsigned long long)(m->w[wi].lo + o - m->w[wi].at), m->got[(size_t)n * m->img + o],
                 want[(size_t)n * m->img + o], m->before[(size_t)n * m->img + o]);
        bad += fz_fail(seed, hosts, me, msg, desc);
        break;
    }
    if (h) {
        long long hd = fz_diff(h->p, hwant, h->len);
        if (hd >= 0) {
            snprintf(msg, sizeof msg, "%s: host byte %lld is 0x%02x, expected 0x%02x", what, hd, h->p[hd], hwant[hd]);
            bad += fz_fail(seed, hosts, me, msg, desc);
        }
        if (!fz_host_guards_ok(h))
            bad += fz_fail(seed, hosts, me, "a canary around the host buffer changed", desc);
    }
    return bad;
}

#endif
