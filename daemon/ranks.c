/* SPDX-License-Identifier: MIT */
/* The rank manager (ranks.h). */
#define _GNU_SOURCE
#include "ranks.h"
#include "fail.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rank_waiter {
    struct rank_waiter *next;
    const char *tenant;
    uint32_t min; /* ranks it needs at once */
};

struct rank_usage {
    char tenant[RM_TENANT_MAX];
    uint32_t held;
};

int rm_init(struct rank_manager *rm, struct op_backend *b, uint32_t nr_ranks, uint32_t quota, char *err,
            size_t errlen)
{
    memset(rm, 0, sizeof *rm);
    rm->b = b;
    rm->nr_ranks = nr_ranks;
    rm->quota = quota ? quota : nr_ranks;
    rm->ranks = calloc(nr_ranks, sizeof *rm->ranks);
    rm->usage = calloc(nr_ranks + 1, sizeof *rm->usage); /* at most one tenant per held rank */
    if (!rm->ranks || !rm->usage) {
        free(rm->ranks);
        free(rm->usage);
        return fail(err, errlen, "out of memory");
    }
    pthread_mutex_init(&rm->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* waits are not moved by clock changes */
    pthread_cond_init(&rm->cond, &ca);
    pthread_condattr_destroy(&ca);
    return 0;
}

void rm_destroy(struct rank_manager *rm)
{
    pthread_mutex_destroy(&rm->lock);
    pthread_cond_destroy(&rm->cond);
    free(rm->ranks);
    free(rm->usage);
}

static struct rank_usage *usage_of(struct rank_manager *rm, const char *tenant, int create)
{
    for (uint32_t i = 0; i < rm->nr_usage; i++)
        if (!strcmp(rm->usage[i].tenant, tenant))
            return &rm->usage[i];
    if (!create)
        return NULL;
    /* drop tenants that hold nothing to make room (there are at most nr_ranks holders) */
    uint32_t k = 0;
    for (uint32_t i = 0; i < rm->nr_usage; i++)
        if (rm->usage[i].held)
            rm->usage[k++] = rm->usage[i];
    rm->nr_usage = k;
    rm->usage[k] = (struct rank_usage){.held = 0};
    snprintf(rm->usage[k].tenant, sizeof rm->usage[k].tenant, "%s", tenant);
    rm->nr_usage++;
    return &rm->usage[k];
}

static uint32_t nr_available(struct rank_manager *rm)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < rm->nr_ranks; r++)
        n += rm->ranks[r].state == RANK_AVAILABLE;
    return n;
}

/* Ranks the tenant may still take under its quota. */
static uint32_t room_of(struct rank_manager *rm, const char *tenant)
{
    struct rank_usage *u = usage_of(rm, tenant, 0);
    uint32_t held = u ? u->held : 0;
    return held < rm->quota ? rm->quota - held : 0;
}

/* Whether the ranks being reset now would let a claim of min ranks by
 * tenant through once they are available: the free ranks with them, and the
 * room under its quota that its own ranks among them give back. */
static bool resets_would_serve(struct rank_manager *rm, const char *tenant, uint32_t min, uint32_t free_now)
{
    uint32_t resetting = 0, own = 0;
    for (uint32_t r = 0; r < rm->nr_ranks; r++)
        if (rm->ranks[r].state == RANK_RESETTING) {
            resetting++;
            own += !strcmp(rm->ranks[r].tenant, tenant);
        }
    return resetting && free_now + resetting >= min && room_of(rm, tenant) + own >= min;
}

static void dequeue(struct rank_manager *rm, struct rank_waiter *w)
{
    for (struct rank_waiter **p = &rm->head; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            if (rm->tail == w) {
                rm->tail = NULL;
                for (struct rank_waiter *t = rm->head; t; t = t->next)
                    rm->tail = t;
            }
            rm->nr_waiting--;
            return;
        }
}

/* First come, first served among the claims that could be served: an older
 * waiter blocked only by its own tenant's quota does not hold the others up;
 * one waiting for free ranks does (ranks freed one by one gather for it). */
static bool my_turn(struct rank_manager *rm, struct rank_waiter *me, const char *tenant, uint32_t min)
{
    for (struct rank_waiter *w = rm->head; w && w != me; w = w->next)
        if (room_of(rm, w->tenant) >= w->min)
            return false;
    return room_of(rm, tenant) >= min;
}

static int before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

int rm_claim(struct rank_manager *rm, uint64_t owner, const char *tenant, uint32_t min, uint32_t count,
             uint32_t wait_ms, int (*gone)(void *ctx), void *ctx, uint32_t *ranks, char *err, size_t errlen)
{
    if (min == 0 || min > count)
        return fail(err, errlen, "a claim of %u to %u ranks", min, count);
    if (min > rm->quota)
        return fail(err, errlen, "%u rank(s) asked for, more than the %u one tenant may hold", min, rm->quota);
    if (min > rm->nr_ranks)
        return fail(err, errlen, "%u rank(s) asked for: the machine has %u", min, rm->nr_ranks);
    pthread_mutex_lock(&rm->lock);
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += wait_ms / 1000;
    deadline.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    /* a newcomer counts as the youngest waiter (NULL: it is not queued) */
    struct rank_waiter me = {.tenant = tenant, .min = min};
    bool queued = false, timed_out = false, resets_by_set = false;
    struct timespec resets_by; /* the most a claim waits for resets beyond its own wait */
    int rc = -1;
    for (;;) {
        if (rm->stopping) {
            fail(err, errlen, "openpimd is shutting down");
            break;
        }
        if (queued && gone && gone(ctx)) {
            fail(err, errlen, "the claimant has gone");
            break;
        }
        uint32_t free_now = nr_available(rm);
        if (my_turn(rm, queued ? &me : NULL, tenant, min) && free_now >= min) {
            uint32_t take = count, room = room_of(rm, tenant);
            take = take < free_now ? take : free_now;
            take = take < room ? take : room;
            uint32_t got = 0;
            char berr[256];
            for (uint32_t r = 0; r < rm->nr_ranks && got < take; r++) {
                if (rm->ranks[r].state != RANK_AVAILABLE)
                    continue;
                if (rm->b->ops->claim_rank(rm->b, r, berr, sizeof berr) != 0) { /* the machine disagrees: cannot happen */
                    fail(err, errlen, "rank %u: %s", r, berr);
                    break;
                }
                rm->ranks[r].state = RANK_ALLOCATED;
                rm->ranks[r].owner = owner;
                snprintf(rm->ranks[r].tenant, sizeof rm->ranks[r].tenant, "%s", tenant);
                ranks[got++] = r;
            }
            if (got < take) { /* all or nothing */
                for (uint32_t i = 0; i < got; i++) {
                    rm->b->ops->release_rank(rm->b, ranks[i]);
                    rm->ranks[ranks[i]].state = RANK_AVAILABLE;
                    rm->ranks[ranks[i]].owner = 0;
                }
                break;
            }
            usage_of(rm, tenant, 1)->held += got;
            rc = (int)got;
            break;
        }
        if ((wait_ms == 0 || timed_out) && resets_would_serve(rm, tenant, min, free_now)) {
            /* ranks being reset are free in a moment (a RELEASE is answered
             * before its reset): a claim they would serve waits for them,
             * however short its own wait */
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (!resets_by_set) {
                resets_by = now;
                resets_by.tv_sec += RM_RESET_WAIT_MS / 1000;
                resets_by.tv_nsec += (long)(RM_RESET_WAIT_MS % 1000) * 1000000L;
                if (resets_by.tv_nsec >= 1000000000L) {
                    resets_by.tv_sec++;
                    resets_by.tv_nsec -= 1000000000L;
                }
                resets_by_set = true;
            }
            if (before(&now, &resets_by)) {
                pthread_cond_timedwait(&rm->cond, &rm->lock, &resets_by); /* a reset's end broadcasts */
                continue;
            }
        }
        if (wait_ms == 0 || timed_out) {
            char within[64] = "";
            if (timed_out)
                snprintf(within, sizeof within, " within %u ms", wait_ms);
            if (room_of(rm, tenant) < min)
                fail(err, errlen, "no rank%s: quota reached, tenant %s holds %u rank(s) of the %u one tenant may "
                     "[%u claim(s) waiting]", within, tenant, rm->quota - room_of(rm, tenant), rm->quota,
                     rm->nr_waiting - queued);
            else if (free_now < min)
                fail(err, errlen, "%s%s: %u of the %u ranks are free, %u asked for [%u claim(s) waiting]",
                     timed_out ? "no rank became free" : "no free rank", within, free_now, rm->nr_ranks, min,
                     rm->nr_waiting - queued);
            else
                fail(err, errlen, "no rank%s: %u free, but %u earlier claim(s) come first [%u claim(s) waiting]",
                     within, free_now, rm->nr_waiting - queued, rm->nr_waiting - queued);
            break;
        }
        if (!queued) {
            if (rm->tail)
                rm->tail->next = &me;
            else
                rm->head = &me;
            rm->tail = &me;
            rm->nr_waiting++;
            queued = true;
        }
        struct timespec wake;
        clock_gettime(CLOCK_MONOTONIC, &wake);
        wake.tv_nsec += RM_GONE_CHECK_MS * 1000000L;
        if (wake.tv_nsec >= 1000000000L) {
            wake.tv_sec++;
            wake.tv_nsec -= 1000000000L;
        }
        bool last = !gone || !before(&wake, &deadline);
        if (pthread_cond_timedwait(&rm->cond, &rm->lock, last ? &deadline : &wake) == ETIMEDOUT && last)
            timed_out = true; /* one last look, then the error */
    }
    if (queued) {
        dequeue(rm, &me);
        pthread_cond_broadcast(&rm->cond); /* the next in line may go */
    }
    pthread_mutex_unlock(&rm->lock);
    return rc;
}

int rm_release_begin(struct rank_manager *rm, uint64_t owner, uint32_t rank)
{
    pthread_mutex_lock(&rm->lock);
    if (rank >= rm->nr_ranks || rm->ranks[rank].state != RANK_ALLOCATED || rm->ranks[rank].owner != owner) {
        pthread_mutex_unlock(&rm->lock);
        return -1;
    }
    rm->ranks[rank].state = RANK_RESETTING;
    pthread_mutex_unlock(&rm->lock);
    return 0;
}

void rm_release_end(struct rank_manager *rm, uint32_t rank)
{
    /* program, MRAM and WRAM are reset here, without the lock: other ranks
     * are claimed and released meanwhile */
    rm->b->ops->release_rank(rm->b, rank);
    pthread_mutex_lock(&rm->lock);
    struct rank_usage *u = usage_of(rm, rm->ranks[rank].tenant, 0);
    if (u && u->held)
        u->held--;
    rm->ranks[rank].state = rm->ranks[rank].drain ? RANK_DRAINED : RANK_AVAILABLE;
    rm->ranks[rank].owner = 0;
    pthread_cond_broadcast(&rm->cond);
    pthread_mutex_unlock(&rm->lock);
}

int rm_release(struct rank_manager *rm, uint64_t owner, uint32_t rank)
{
    if (rm_release_begin(rm, owner, rank) != 0)
        return -1;
    rm_release_end(rm, rank);
    return 0;
}

void rm_stop(struct rank_manager *rm)
{
    pthread_mutex_lock(&rm->lock);
    rm->stopping = true;
    pthread_cond_broadcast(&rm->cond);
    pthread_mutex_unlock(&rm->lock);
}

int rm_drain(struct rank_manager *rm, uint32_t rank, bool on)
{
    if (rank >= rm->nr_ranks)
        return -1;
    pthread_mutex_lock(&rm->lock);
    rm->ranks[rank].drain = on;
    if (on && rm->ranks[rank].state == RANK_AVAILABLE)
        rm->ranks[rank].state = RANK_DRAINED;
    if (!on && rm->ranks[rank].state == RANK_DRAINED) {
        rm->ranks[rank].state = RANK_AVAILABLE;
        pthread_cond_broadcast(&rm->cond); /* a waiting claim may take it */
    }
    pthread_mutex_unlock(&rm->lock);
    return 0;
}

void rm_snapshot(struct rank_manager *rm, struct rm_rank_info *ranks, uint32_t *nr_waiting)
{
    pthread_mutex_lock(&rm->lock);
    for (uint32_t r = 0; r < rm->nr_ranks; r++) {
        ranks[r] = (struct rm_rank_info){.state = rm->ranks[r].state, .owner = rm->ranks[r].owner,
                                         .drain = rm->ranks[r].drain};
        memcpy(ranks[r].tenant, rm->ranks[r].tenant, sizeof ranks[r].tenant);
    }
    *nr_waiting = rm->nr_waiting;
    pthread_mutex_unlock(&rm->lock);
}

enum rank_state rm_state(struct rank_manager *rm, uint32_t rank, uint64_t *owner)
{
    pthread_mutex_lock(&rm->lock);
    enum rank_state s = rm->ranks[rank].state;
    if (owner)
        *owner = rm->ranks[rank].owner;
    pthread_mutex_unlock(&rm->lock);
    return s;
}
