/* Allocation of ranks, DPU sets and their iteration. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The rank lists of the sets dpu_alloc handed out.  They are never freed,
 * only reused by later allocations, so that a copy of a freed set (or a rank of
 * it from DPU_RANK_FOREACH) still points to readable memory: using or freeing
 * it again is refused instead of being a use after free. */
struct rank_list {
    struct dpu_rank_t **ranks;
    uint32_t cap; /* entries of ranks[] */
    uint32_t n;   /* ranks handed out: the set {n, ranks} is the one dpu_free accepts */
    bool live;
};

static struct {
    struct op_machine *machine;
    struct op_profile profile; /* the one the machine was built from */
    struct dpu_rank_t *ranks;
    uint32_t nr_ranks;
    struct rank_list *lists;
    uint32_t nr_lists;
} g;

void op_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "openpim: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

struct op_machine *op_sdk_machine(void)
{
    return g.machine;
}

static void destroy_machine(void)
{
    for (uint32_t r = 0; r < g.nr_ranks; r++)
        free(g.ranks[r].dpus);
    free(g.ranks);
    op_machine_destroy(g.machine);
    g.ranks = NULL;
    g.nr_ranks = 0;
    g.machine = NULL;
}

/* At exit the workers are told to stop and reaped (the run report, registered
 * later, is written before this runs). */
static void destroy_at_exit(void)
{
    op_jobs_drain();
    op_sdk_lock();
    destroy_machine();
    op_sdk_unlock();
}

static dpu_error_t ensure_machine(const struct op_profile *p)
{
    static bool registered;
    if (!registered) {
        registered = true;
        atexit(destroy_at_exit);
    }
    if (g.machine && memcmp(&g.profile.machine, &p->machine, sizeof p->machine) == 0)
        return DPU_OK;
    if (g.machine) {
        for (uint32_t r = 0; r < g.nr_ranks; r++)
            if (g.ranks[r].allocated) {
                op_warn("the profile asks for a different machine while ranks of the current one are allocated");
                return DPU_ERR_ALLOCATION;
            }
        destroy_machine();
    }
    char err[256];
    g.machine = op_machine_create(&p->machine, err, sizeof err);
    if (!g.machine) {
        op_warn("%s", err);
        return DPU_ERR_ALLOCATION;
    }
    g.profile = *p;
    g.nr_ranks = p->machine.desc.nr_ranks;
    g.ranks = calloc(g.nr_ranks, sizeof *g.ranks);
    if (!g.ranks) {
        destroy_machine();
        return DPU_ERR_SYSTEM;
    }
    uint32_t n = op_machine_dpus_per_rank(g.machine);
    uint32_t slices = n < OP_CHIPS_PER_RANK ? n : OP_CHIPS_PER_RANK;
    uint32_t per_slice = n % slices ? n : n / slices;
    if (n % slices)
        slices = 1;
    for (uint32_t r = 0; r < g.nr_ranks; r++) {
        struct dpu_rank_t *rank = &g.ranks[r];
        rank->index = r;
        rank->nr_dpus = n;
        rank->dpus = calloc(n, sizeof *rank->dpus);
        if (!rank->dpus) {
            destroy_machine();
            return DPU_ERR_SYSTEM;
        }
        for (uint32_t i = 0; i < n; i++) {
            rank->dpus[i].rank = rank;
            rank->dpus[i].id = r * n + i;
            rank->dpus[i].slice = (uint8_t)(i / per_slice);
            rank->dpus[i].member = (uint8_t)(i % per_slice);
        }
    }
    return DPU_OK;
}

static void reset_rank(struct dpu_rank_t *rank)
{
    for (uint32_t i = 0; i < rank->nr_dpus; i++) {
        struct dpu_t *d = &rank->dpus[i];
        op_machine_unload(g.machine, d->id);
        op_machine_reset(g.machine, d->id);
        if (d->program && d->program->refs && --d->program->refs == 0)
            free(d->program);
        d->program = NULL;
        d->enabled = true;
        d->xfer = NULL;
    }
    rank->jobs = 0;
    rank->pending = DPU_OK;
}

/* Disables the surplus DPUs of the last rank: highest member id first, across
 * all chips, as the UPMEM SDK does. */
static void disable_surplus(struct dpu_rank_t *rank, uint32_t surplus)
{
    for (int member = 63; member >= 0 && surplus; member--)
        for (int i = (int)rank->nr_dpus - 1; i >= 0 && surplus; i--)
            if (rank->dpus[i].member == member && rank->dpus[i].enabled) {
                rank->dpus[i].enabled = false;
                surplus--;
            }
}

/* A free rank list of at least cap entries, cleared; NULL if out of memory. */
static struct rank_list *take_list(uint32_t cap)
{
    for (uint32_t i = 0; i < g.nr_lists; i++)
        if (!g.lists[i].live && g.lists[i].cap >= cap) {
            memset(g.lists[i].ranks, 0, g.lists[i].cap * sizeof *g.lists[i].ranks);
            return &g.lists[i];
        }
    struct rank_list *grown = realloc(g.lists, (g.nr_lists + 1) * sizeof *g.lists);
    if (!grown)
        return NULL;
    g.lists = grown;
    struct rank_list *e = &g.lists[g.nr_lists];
    e->ranks = calloc(cap, sizeof *e->ranks);
    if (!e->ranks)
        return NULL;
    e->cap = cap;
    e->n = 0;
    e->live = false;
    g.nr_lists++;
    return e;
}

/* The handed-out list that [ranks, ranks + n) lies in; NULL if none. */
static struct rank_list *list_of(struct dpu_rank_t *const *ranks, uint32_t n)
{
    uintptr_t p = (uintptr_t)ranks;
    for (uint32_t i = 0; i < g.nr_lists; i++) {
        uintptr_t base = (uintptr_t)g.lists[i].ranks;
        if (p >= base && (p - base) % sizeof *ranks == 0 && (p - base) / sizeof *ranks <= g.lists[i].cap &&
            n <= g.lists[i].cap - (p - base) / sizeof *ranks)
            return &g.lists[i];
    }
    return NULL;
}

/* Whether r is one of the machine's ranks and allocated (r is only read if it is one). */
static bool rank_ok(const struct dpu_rank_t *r)
{
    uintptr_t p = (uintptr_t)r, base = (uintptr_t)g.ranks;
    return g.ranks && p >= base && p < base + (uintptr_t)g.nr_ranks * sizeof *g.ranks &&
           (p - base) % sizeof *g.ranks == 0 && r->allocated;
}

static dpu_error_t alloc_common(uint32_t nr_ranks_wanted, uint32_t nr_dpus, const char *profile,
                                struct dpu_set_t *set)
{
    if (!set)
        return DPU_ERR_INVALID_DPU_SET;
    struct op_profile p;
    char err[256];
    dpu_error_t rc = op_profile_parse(profile, &p, err, sizeof err);
    if (rc != DPU_OK) {
        op_warn("%s", err);
        return rc;
    }
    if ((rc = ensure_machine(&p)) != DPU_OK)
        return rc;
    g.profile.sg_enabled = p.sg_enabled;
    g.profile.sg_max_blocks = p.sg_max_blocks;
    struct rank_list *entry = take_list(g.nr_ranks ? g.nr_ranks : 1);
    if (!entry)
        return DPU_ERR_SYSTEM;
    struct dpu_rank_t **list = entry->ranks;
    uint32_t got = 0, dpus = 0;
    for (uint32_t r = 0; r < g.nr_ranks; r++) {
        if (nr_ranks_wanted != DPU_ALLOCATE_ALL && got == nr_ranks_wanted)
            break;
        if (nr_dpus != DPU_ALLOCATE_ALL && nr_dpus != 0 && dpus >= nr_dpus)
            break;
        if (g.ranks[r].allocated)
            continue;
        list[got++] = &g.ranks[r];
        dpus += g.ranks[r].nr_dpus;
    }
    int enough = got > 0;
    if (nr_ranks_wanted != DPU_ALLOCATE_ALL)
        enough = got == nr_ranks_wanted;
    else if (nr_dpus != DPU_ALLOCATE_ALL)
        enough = dpus >= nr_dpus && nr_dpus > 0;
    if (!enough)
        return DPU_ERR_ALLOCATION; /* the entry stays free */
    for (uint32_t i = 0; i < got; i++) {
        list[i]->allocated = true;
        if (!p.disable_reset)
            reset_rank(list[i]);
        else
            for (uint32_t k = 0; k < list[i]->nr_dpus; k++)
                list[i]->dpus[k].enabled = true;
    }
    if (nr_dpus != DPU_ALLOCATE_ALL && nr_ranks_wanted == DPU_ALLOCATE_ALL && dpus > nr_dpus)
        disable_surplus(list[got - 1], dpus - nr_dpus);
    entry->live = true;
    entry->n = got;
    set->kind = DPU_SET_RANKS;
    set->list.nr_ranks = got;
    set->list.ranks = list;
    return DPU_OK;
}

dpu_error_t dpu_alloc(uint32_t nr_dpus, const char *profile, struct dpu_set_t *dpu_set)
{
    if (nr_dpus == 0)
        return DPU_ERR_ALLOCATION;
    OP_LOCKED_RETURN(alloc_common(DPU_ALLOCATE_ALL, nr_dpus, profile, dpu_set));
}

dpu_error_t dpu_alloc_ranks(uint32_t nr_ranks, const char *profile, struct dpu_set_t *dpu_set)
{
    if (nr_ranks == 0)
        return DPU_ERR_ALLOCATION;
    OP_LOCKED_RETURN(alloc_common(nr_ranks, DPU_ALLOCATE_ALL, profile, dpu_set));
}

/* A set from dpu_alloc, not freed yet: exactly a live list we handed out. */
static struct rank_list *allocated_set(struct dpu_set_t set)
{
    if (set.kind != DPU_SET_RANKS || set.list.nr_ranks == 0)
        return NULL;
    for (uint32_t i = 0; i < g.nr_lists; i++)
        if (g.lists[i].live && g.lists[i].ranks == set.list.ranks && g.lists[i].n == set.list.nr_ranks)
            return &g.lists[i];
    return NULL;
}

static dpu_error_t dpu_free_locked(struct dpu_set_t dpu_set)
{
    struct rank_list *e = allocated_set(dpu_set);
    if (!e || op_set_check(dpu_set) != DPU_OK)
        return DPU_ERR_INVALID_DPU_SET;
    op_sync_ranks(dpu_set);
    for (uint32_t i = 0; i < dpu_set.list.nr_ranks; i++) {
        reset_rank(dpu_set.list.ranks[i]);
        dpu_set.list.ranks[i]->allocated = false;
    }
    e->live = false; /* the list stays readable (see struct rank_list) */
    return DPU_OK;
}

dpu_error_t dpu_free(struct dpu_set_t dpu_set)
{
    OP_LOCKED_RETURN(dpu_free_locked(dpu_set));
}

/* Sets are checked without following a pointer libdpu did not hand out: a DPU
 * must be an element of a rank's DPU array, a rank list must lie in a list
 * from dpu_alloc (live or freed), each of its ranks one of the machine's. */
dpu_error_t op_set_check(struct dpu_set_t set)
{
    if (set.kind == DPU_SET_DPU) {
        uintptr_t p = (uintptr_t)set.dpu;
        for (uint32_t r = 0; p && r < g.nr_ranks; r++) {
            uintptr_t base = (uintptr_t)g.ranks[r].dpus;
            if (p >= base && p < base + (uintptr_t)g.ranks[r].nr_dpus * sizeof *g.ranks[r].dpus)
                return (p - base) % sizeof *g.ranks[r].dpus == 0 && g.ranks[r].allocated ? DPU_OK
                                                                                        : DPU_ERR_INVALID_DPU_SET;
        }
        return DPU_ERR_INVALID_DPU_SET;
    }
    if (set.kind != DPU_SET_RANKS)
        return DPU_ERR_INVALID_DPU_SET;
    if (set.list.nr_ranks == 0)
        return DPU_OK; /* an empty set */
    if (!list_of(set.list.ranks, set.list.nr_ranks))
        return DPU_ERR_INVALID_DPU_SET;
    for (uint32_t i = 0; i < set.list.nr_ranks; i++)
        if (!rank_ok(set.list.ranks[i]))
            return DPU_ERR_INVALID_DPU_SET;
    return DPU_OK;
}

static dpu_error_t dpu_get_nr_ranks_locked(struct dpu_set_t dpu_set, uint32_t *nr_ranks)
{
    dpu_error_t rc = op_set_check(dpu_set);
    if (rc != DPU_OK || !nr_ranks)
        return rc != DPU_OK ? rc : DPU_ERR_INVALID_DPU_SET;
    *nr_ranks = dpu_set.kind == DPU_SET_DPU ? 1 : dpu_set.list.nr_ranks;
    return DPU_OK;
}

dpu_error_t dpu_get_nr_ranks(struct dpu_set_t dpu_set, uint32_t *nr_ranks)
{
    OP_LOCKED_RETURN(dpu_get_nr_ranks_locked(dpu_set, nr_ranks));
}

uint32_t op_set_count(struct dpu_set_t set)
{
    uint32_t n = 0;
    struct dpu_t *d;
    OP_SET_FOREACH_DPU(set, d)
        n++;
    return n;
}

static dpu_error_t dpu_get_nr_dpus_locked(struct dpu_set_t dpu_set, uint32_t *nr_dpus)
{
    dpu_error_t rc = op_set_check(dpu_set);
    if (rc != DPU_OK || !nr_dpus)
        return rc != DPU_OK ? rc : DPU_ERR_INVALID_DPU_SET;
    *nr_dpus = op_set_count(dpu_set);
    return DPU_OK;
}

dpu_error_t dpu_get_nr_dpus(struct dpu_set_t dpu_set, uint32_t *nr_dpus)
{
    OP_LOCKED_RETURN(dpu_get_nr_dpus_locked(dpu_set, nr_dpus));
}

/* ---- iteration ------------------------------------------------------------ */

struct dpu_set_iterator_t dpu_set_iterator_begin(struct dpu_set_t set)
{
    struct dpu_set_iterator_t it;
    memset(&it, 0, sizeof it);
    it.set = set;
    return it;
}

bool op_iter_next_dpu(struct dpu_set_iterator_t *it, struct dpu_t **dpu)
{
    if (it->set.kind == DPU_SET_DPU) {
        if (it->rank > 0 || !it->set.dpu)
            return false;
        it->rank = 1;
        it->count++;
        *dpu = it->set.dpu;
        return true;
    }
    while (it->rank < it->set.list.nr_ranks) {
        struct dpu_rank_t *r = it->set.list.ranks[it->rank];
        while (it->index < r->nr_dpus) {
            struct dpu_t *d = &r->dpus[it->index++];
            if (d->enabled) {
                it->count++;
                *dpu = d;
                return true;
            }
        }
        it->rank++;
        it->index = 0;
    }
    return false;
}

bool dpu_set_iterator_next(struct dpu_set_iterator_t *it, struct dpu_set_t *dpu)
{
    struct dpu_t *d;
    if (!op_iter_next_dpu(it, &d))
        return false;
    dpu->kind = DPU_SET_DPU;
    dpu->dpu = d;
    return true;
}

struct dpu_set_t dpu_set_rank(struct dpu_set_t set, uint32_t rank_index)
{
    struct dpu_set_t r;
    r.kind = DPU_SET_RANKS;
    /* past the set (or not a rank set): the empty set, which iterates safely,
     * rather than a pointer computed outside the list */
    bool in = set.kind == DPU_SET_RANKS && rank_index < set.list.nr_ranks;
    r.list.nr_ranks = in ? 1 : 0;
    r.list.ranks = in ? &set.list.ranks[rank_index] : NULL;
    return r;
}

struct dpu_t *dpu_from_set(struct dpu_set_t dpu_set)
{
    return dpu_set.kind == DPU_SET_DPU ? dpu_set.dpu : NULL;
}

struct dpu_set_t dpu_set_from_dpu(struct dpu_t *dpu)
{
    struct dpu_set_t s;
    s.kind = DPU_SET_DPU;
    s.dpu = dpu;
    return s;
}

dpu_slice_id_t dpu_get_slice_id(struct dpu_t *dpu)
{
    return dpu ? dpu->slice : 0;
}

dpu_member_id_t dpu_get_member_id(struct dpu_t *dpu)
{
    return dpu ? dpu->member : 0;
}

static dpu_error_t openpim_memory_usage_locked(uint64_t *used_bytes, uint64_t *limit_bytes)
{
    if (!g.machine)
        return DPU_ERR_ALLOCATION;
    if (used_bytes)
        *used_bytes = op_machine_memory_used(g.machine);
    if (limit_bytes)
        *limit_bytes = op_machine_memory_limit(g.machine);
    return DPU_OK;
}

dpu_error_t openpim_memory_usage(uint64_t *used_bytes, uint64_t *limit_bytes)
{
    OP_LOCKED_RETURN(openpim_memory_usage_locked(used_bytes, limit_bytes));
}

bool op_sg_enabled(uint32_t *max_blocks)
{
    *max_blocks = g.profile.sg_max_blocks;
    return g.profile.sg_enabled;
}
