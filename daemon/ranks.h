/* SPDX-License-Identifier: MIT */
/* The rank manager of openpimd: who holds which rank of the machine.
 *
 * A rank goes available -> allocated (one connection's) -> released,
 * awaiting reset -> available, as in vPIM; the reset (the backend's
 * release_rank: program, MRAM and WRAM) happens before anyone can claim the
 * rank again, so a new tenant sees zeros.  A claim asks for several ranks at
 * once and gets all of them or none (or, asked so, between `min` and `count`);
 * claims that cannot be served wait in one FIFO queue, each for at most its
 * own time limit, and the first in line is served first: ranks freed one by
 * one go to it, not to a later, smaller claim.  A tenant (an identity string:
 * "uid:<n>" or "token:<name>", serve.c) holds at most `quota` ranks at once; a claim blocked only by its
 * own tenant's quota holds nobody else up. */
#ifndef OPENPIM_DAEMON_RANKS_H
#define OPENPIM_DAEMON_RANKS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../backend/backend.h"

enum rank_state { RANK_AVAILABLE, RANK_ALLOCATED, RANK_RESETTING, RANK_DRAINED };

#define RM_TENANT_MAX 48 /* bytes of a tenant's identity, NUL included */

struct rank_waiter;
struct rank_usage;

#define RM_TENANT_MAX 48 /* bytes of a tenant's identity, its NUL included */

struct rank_manager {
    struct op_backend *b;
    uint32_t nr_ranks, quota;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* a rank became available, the queue moved, or the daemon stops */
    struct {
        enum rank_state state;
        uint64_t owner; /* connection id while allocated or resetting */
        char tenant[RM_TENANT_MAX];
        bool drain;     /* an operator took it out of service: drained once free */
    } *ranks;
    struct rank_waiter *head, *tail; /* the FIFO queue of waiting claims */
    uint32_t nr_waiting;
    struct rank_usage *usage; /* ranks held per tenant */
    uint32_t nr_usage;
    bool stopping;
};

int rm_init(struct rank_manager *rm, struct op_backend *b, uint32_t nr_ranks, uint32_t quota, char *err,
            size_t errlen);
void rm_destroy(struct rank_manager *rm);
/* Claims between min and count free ranks (min == count: all or none) for
 * connection `owner` of `tenant`, waiting up to wait_ms in the queue (one
 * wait for all of them).  The number claimed, their numbers in ranks[], or
 * -1 with a message.  A waiting claim asks gone(ctx) (if given) whenever it
 * wakes, at least every RM_GONE_CHECK_MS: a claimant that has gone leaves the
 * queue at once instead of holding its place (and taking ranks) until its
 * wait ends. */
#define RM_GONE_CHECK_MS 200
int rm_claim(struct rank_manager *rm, uint64_t owner, const char *tenant, uint32_t min, uint32_t count,
             uint32_t wait_ms, int (*gone)(void *ctx), void *ctx, uint32_t *ranks, char *err, size_t errlen);
/* Gives the owner's rank back: reset, then available.  -1 if not the owner's. */
int rm_release(struct rank_manager *rm, uint64_t owner, uint32_t rank);
/* The same in two steps, so that the owner can be answered in between:
 * begin takes the rank from its owner (nobody can claim it: it is being
 * reset), end resets it and makes it available.  A claim that ranks being
 * reset would serve waits for their resets, at most RM_RESET_WAIT_MS beyond
 * its own wait (even a claim that does not wait): to a client, a rank it
 * released is free.  begin: -1 if not the owner's. */
#define RM_RESET_WAIT_MS 5000
int rm_release_begin(struct rank_manager *rm, uint64_t owner, uint32_t rank);
void rm_release_end(struct rank_manager *rm, uint32_t rank);
/* Wakes every waiting claim with an error; later claims fail. */
void rm_stop(struct rank_manager *rm);
/* A rank's state and owner (for logs and tests). */
enum rank_state rm_state(struct rank_manager *rm, uint32_t rank, uint64_t *owner);
/* Takes a rank out of service (on) or back (off): a free rank is drained at
 * once, an allocated one when its tenant releases it (after the reset).
 * -1 if there is no such rank. */
int rm_drain(struct rank_manager *rm, uint32_t rank, bool on);
/* Everything an operator sees (openpimctl): per rank its state, tenant,
 * connection and drain mark; the number of waiting claims. */
struct rm_rank_info {
    enum rank_state state;
    char tenant[RM_TENANT_MAX];
    uint64_t owner;
    bool drain;
};
void rm_snapshot(struct rank_manager *rm, struct rm_rank_info *ranks, uint32_t *nr_waiting);

#endif
