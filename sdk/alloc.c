/* SPDX-License-Identifier: MIT */
/* Allocation of ranks, DPU sets and their iteration. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The rank lists of the sets dpu_alloc handed out.  They are never freed
 * (until their session ends), only reused by later allocations, so that a copy
 * of a freed set (or a rank of it from DPU_RANK_FOREACH) still points to
 * readable memory: using or freeing it again is refused instead of being a use
 * after free. */
struct rank_list {
    struct dpu_rank_t **ranks;
    uint32_t cap; /* entries of ranks[] */
    uint32_t n;   /* ranks handed out: the set {n, ranks} is the one dpu_free accepts */
    bool live;
};


struct op_backend *op_sdk_backend(void)
{
    struct op_session *s = op_session();
    return s->backend;
}

const struct op_backend_info *op_sdk_info(void)
{
    struct op_session *s = op_session();
    return &s->info;
}

/* Drops the session's view of its machine and its reference to it (s is the
 * current session).  Ranks still allocated stay claimed: at exit, or when the
 * profile changes the machine (refused while ranks are allocated). */
static void forget_rank(struct dpu_rank_t *rank);

static void drop_machine(struct op_session *s)
{
    for (uint32_t r = 0; r < s->nr_ranks; r++) {
        forget_rank(&s->ranks[r]);
        free(s->ranks[r].dpus);
    }
    free(s->ranks);
    if (s->backend)
        op_backend_put(s->backend);
    s->ranks = NULL;
    s->nr_ranks = 0;
    s->backend = NULL;
    memset(&s->info, 0, sizeof s->info);
}

static void release_rank(struct op_session *s, struct dpu_rank_t *rank);

void op_session_release(struct op_session *s)
{
    if (s->ranks) {
        struct dpu_set_t all = {.kind = DPU_SET_RANKS};
        for (uint32_t r = 0; r < s->nr_ranks; r++)
            if (s->ranks[r].allocated) {
                struct dpu_rank_t *one = &s->ranks[r];
                all.list.nr_ranks = 1;
                all.list.ranks = &one;
                op_sync_ranks(all);
                release_rank(s, one);
            }
    }
    drop_machine(s);
    for (uint32_t i = 0; i < s->nr_lists; i++)
        free(s->lists[i].ranks);
    free(s->lists);
    s->lists = NULL;
    s->nr_lists = 0;
}

/* At exit the workers are told to stop and reaped (the run report, registered
 * later, is written before this runs). */
static void destroy_at_exit(void)
{
    op_jobs_drain();
    op_sdk_lock();
    struct op_session *s = op_session();
    if (s->is_default)
        drop_machine(s); /* the ranks go with the machine (if no other session shares it) */
    op_sdk_unlock();
}

static dpu_error_t ensure_machine(const struct op_profile *p)
{
    struct op_session *s = op_session();
    static bool registered;
    if (!registered) {
        registered = true;
        atexit(destroy_at_exit);
    }
    if (s->backend && memcmp(&s->profile.machine, &p->machine, sizeof p->machine) == 0)
        return DPU_OK;
    if (s->backend) {
        for (uint32_t r = 0; r < s->nr_ranks; r++)
            if (s->ranks[r].allocated) {
                op_warn("the profile asks for a different machine while ranks of the current one are allocated");
                return DPU_ERR_ALLOCATION;
            }
        drop_machine(s);
    }
    char err[256];
    s->backend = op_backend_get(&p->machine, err, sizeof err);
    if (!s->backend) {
        op_warn("%s", err);
        return DPU_ERR_ALLOCATION;
    }
    s->backend->ops->info(s->backend, &s->info);
    s->profile = *p;
    s->nr_ranks = p->machine.desc.nr_ranks;
    s->ranks = calloc(s->nr_ranks, sizeof *s->ranks);
    if (!s->ranks) {
        drop_machine(s);
        return DPU_ERR_SYSTEM;
    }
    uint32_t n = s->info.dpus_per_rank;
    uint32_t slices = n < 8 /* chips per rank */ ? n : 8 /* chips per rank */;
    uint32_t per_slice = n % slices ? n : n / slices;
    if (n % slices)
        slices = 1;
    for (uint32_t r = 0; r < s->nr_ranks; r++) {
        struct dpu_rank_t *rank = &s->ranks[r];
        rank->index = r;
        rank->nr_dpus = n;
        rank->dpus = calloc(n, sizeof *rank->dpus);
        if (!rank->dpus) {
            drop_machine(s);
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

/* Forgets what the rank's DPUs ran (the backend has reset them): their
 * program handles, prepared buffers, pending errors. */
static void forget_rank(struct dpu_rank_t *rank)
{
    for (uint32_t i = 0; i < rank->nr_dpus; i++) {
        struct dpu_t *d = &rank->dpus[i];
        op_program_drop(d->program);
        d->program = NULL;
        d->enabled = true;
        d->xfer = NULL;
    }
    rank->pending = DPU_OK;
}

/* Gives a rank back to the machine (which resets it). */
static void release_rank(struct op_session *s, struct dpu_rank_t *rank)
{
    s->backend->ops->release_rank(s->backend, rank->index);
    forget_rank(rank);
    rank->allocated = false;
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
    struct op_session *s = op_session();
    for (uint32_t i = 0; i < s->nr_lists; i++)
        if (!s->lists[i].live && s->lists[i].cap >= cap) {
            memset(s->lists[i].ranks, 0, s->lists[i].cap * sizeof *s->lists[i].ranks);
            return &s->lists[i];
        }
    struct rank_list *grown = realloc(s->lists, (s->nr_lists + 1) * sizeof *s->lists);
    if (!grown)
        return NULL;
    s->lists = grown;
    struct rank_list *e = &s->lists[s->nr_lists];
    e->ranks = calloc(cap, sizeof *e->ranks);
    if (!e->ranks)
        return NULL;
    e->cap = cap;
    e->n = 0;
    e->live = false;
    s->nr_lists++;
    return e;
}

/* The handed-out list that [ranks, ranks + n) lies in; NULL if none. */
static struct rank_list *list_of(struct dpu_rank_t *const *ranks, uint32_t n)
{
    struct op_session *s = op_session();
    uintptr_t p = (uintptr_t)ranks;
    for (uint32_t i = 0; i < s->nr_lists; i++) {
        uintptr_t base = (uintptr_t)s->lists[i].ranks;
        if (p >= base && (p - base) % sizeof *ranks == 0 && (p - base) / sizeof *ranks <= s->lists[i].cap &&
            n <= s->lists[i].cap - (p - base) / sizeof *ranks)
            return &s->lists[i];
    }
    return NULL;
}

/* Whether r is one of the machine's ranks and allocated (r is only read if it is one). */
static bool rank_ok(const struct dpu_rank_t *r)
{
    struct op_session *s = op_session();
    uintptr_t p = (uintptr_t)r, base = (uintptr_t)s->ranks;
    return s->ranks && p >= base && p < base + (uintptr_t)s->nr_ranks * sizeof *s->ranks &&
           (p - base) % sizeof *s->ranks == 0 && r->allocated;
}

static dpu_error_t alloc_common(uint32_t nr_ranks_wanted, uint32_t nr_dpus, const char *profile,
                                struct dpu_set_t *set)
{
    struct op_session *s = op_session();
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
    s->profile.sg_enabled = p.sg_enabled;
    s->profile.sg_max_blocks = p.sg_max_blocks;
    struct rank_list *entry = take_list(s->nr_ranks ? s->nr_ranks : 1);
    if (!entry)
        return DPU_ERR_SYSTEM;
    struct dpu_rank_t **list = entry->ranks;
    uint32_t got = 0, dpus = 0;
    err[0] = 0;
    if (s->backend->ops->claim_ranks) {
        /* the ranks wanted, claimed in one step (a remote backend: one
         * request, one wait in the daemon's queue, all or none) */
        uint32_t *free_ranks = malloc((s->nr_ranks ? s->nr_ranks : 1) * sizeof *free_ranks), nfree = 0, need = 0;
        if (!free_ranks)
            return DPU_ERR_SYSTEM;
        for (uint32_t r = 0; r < s->nr_ranks; r++)
            if (!s->ranks[r].allocated)
                free_ranks[nfree++] = r;
        uint32_t min = 1, max = nfree;
        if (nr_ranks_wanted != DPU_ALLOCATE_ALL) {
            min = max = nr_ranks_wanted;
        } else if (nr_dpus != DPU_ALLOCATE_ALL) {
            for (uint32_t d = 0; need < nfree && d < nr_dpus; need++)
                d += s->ranks[free_ranks[need]].nr_dpus;
            min = max = need;
            for (uint32_t i = 0; i < need; i++)
                dpus += s->ranks[free_ranks[i]].nr_dpus;
            if (dpus < nr_dpus)
                min = max = nfree + 1; /* more than there are */
            dpus = 0;
        }
        int k = min > nfree || min == 0 ? -1 : s->backend->ops->claim_ranks(s->backend, free_ranks, min, max, err, sizeof err);
        for (int i = 0; i < k; i++) {
            list[got++] = &s->ranks[free_ranks[i]];
            dpus += s->ranks[free_ranks[i]].nr_dpus;
        }
        if (k < 0 && !err[0] && min > nfree)
            snprintf(err, sizeof err, "%u free here", nfree);
        free(free_ranks);
    } else {
        for (uint32_t r = 0; r < s->nr_ranks; r++) {
            if (nr_ranks_wanted != DPU_ALLOCATE_ALL && got == nr_ranks_wanted)
                break;
            if (nr_dpus != DPU_ALLOCATE_ALL && nr_dpus != 0 && dpus >= nr_dpus)
                break;
            if (s->ranks[r].allocated || s->backend->ops->claim_rank(s->backend, r, err, sizeof err) != 0)
                continue; /* ours already, or another client's */
            list[got++] = &s->ranks[r];
            dpus += s->ranks[r].nr_dpus;
        }
    }
    int enough = got > 0;
    if (nr_ranks_wanted != DPU_ALLOCATE_ALL)
        enough = got == nr_ranks_wanted;
    else if (nr_dpus != DPU_ALLOCATE_ALL)
        enough = dpus >= nr_dpus && nr_dpus > 0;
    if (!enough) {
        for (uint32_t i = 0; i < got; i++) /* the entry stays free */
            s->backend->ops->release_rank(s->backend, list[i]->index);
        if (nr_ranks_wanted != DPU_ALLOCATE_ALL)
            op_warn("cannot allocate %u rank(s): %u free%s%s", nr_ranks_wanted, got, err[0] ? "; " : "", err);
        else
            op_warn("cannot allocate %s DPUs: %u free in %u rank(s)%s%s",
                    nr_dpus == DPU_ALLOCATE_ALL ? "any" : "enough", dpus, got, err[0] ? "; " : "", err);
        return DPU_ERR_ALLOCATION;
    }
    for (uint32_t i = 0; i < got; i++) {
        list[i]->allocated = true; /* a claimed rank is clean (released ranks are reset) */
        forget_rank(list[i]);
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
    struct op_session *s = op_session();
    if (set.kind != DPU_SET_RANKS || set.list.nr_ranks == 0)
        return NULL;
    for (uint32_t i = 0; i < s->nr_lists; i++)
        if (s->lists[i].live && s->lists[i].ranks == set.list.ranks && s->lists[i].n == set.list.nr_ranks)
            return &s->lists[i];
    return NULL;
}

static dpu_error_t dpu_free_locked(struct dpu_set_t dpu_set)
{
    struct op_session *s = op_session();
    struct rank_list *e = allocated_set(dpu_set);
    if (!e || op_set_check(dpu_set) != DPU_OK)
        return DPU_ERR_INVALID_DPU_SET;
    op_sync_ranks(dpu_set);
    for (uint32_t i = 0; i < dpu_set.list.nr_ranks; i++)
        release_rank(s, dpu_set.list.ranks[i]);
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
    struct op_session *s = op_session();
    if (set.kind == DPU_SET_DPU) {
        uintptr_t p = (uintptr_t)set.dpu;
        for (uint32_t r = 0; p && r < s->nr_ranks; r++) {
            uintptr_t base = (uintptr_t)s->ranks[r].dpus;
            if (p >= base && p < base + (uintptr_t)s->ranks[r].nr_dpus * sizeof *s->ranks[r].dpus)
                return (p - base) % sizeof *s->ranks[r].dpus == 0 && s->ranks[r].allocated ? DPU_OK
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
    struct op_session *s = op_session();
    if (!s->backend)
        return DPU_ERR_ALLOCATION;
    uint64_t used, limit;
    s->backend->ops->memory(s->backend, &used, &limit);
    if (used_bytes)
        *used_bytes = used;
    if (limit_bytes)
        *limit_bytes = limit;
    return DPU_OK;
}

dpu_error_t openpim_memory_usage(uint64_t *used_bytes, uint64_t *limit_bytes)
{
    OP_LOCKED_RETURN(openpim_memory_usage_locked(used_bytes, limit_bytes));
}

bool op_sg_enabled(uint32_t *max_blocks)
{
    struct op_session *s = op_session();
    *max_blocks = s->profile.sg_max_blocks;
    return s->profile.sg_enabled;
}

static dpu_error_t memory_sizes_locked(struct dpu_set_t set, uint64_t *mram_bytes, uint32_t *wram_bytes)
{
    dpu_error_t rc = op_set_check(set);
    if (rc != DPU_OK)
        return rc;
    if (op_set_count(set) == 0)
        return DPU_ERR_INVALID_DPU_SET;
    if (mram_bytes)
        *mram_bytes = op_sdk_info()->mram_size;
    if (wram_bytes)
        *wram_bytes = op_sdk_info()->wram_size;
    return DPU_OK;
}

dpu_error_t openpim_get_memory_sizes(struct dpu_set_t set, uint64_t *mram_bytes, uint32_t *wram_bytes)
{
    OP_LOCKED_RETURN(memory_sizes_locked(set, mram_bytes, wram_bytes));
}
