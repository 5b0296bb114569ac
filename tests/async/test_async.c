/* SPDX-License-Identifier: MIT */
/* DPU_ASYNCHRONOUS launches are queued and run in the background: dpu_launch
 * returns before the DPUs finish, dpu_status says so, other ranks stay usable,
 * a call on the busy rank waits for it, jobs of a rank keep their order, and
 * dpu_sync returns the launch's error once.  DPU_XFER_ASYNC transfers and
 * DPU_CALLBACK_ASYNC callbacks queue the same way and return at once; a
 * callback may use its own rank without waiting for itself.
 *
 * "Before the DPUs finish" is made certain, not left to the host's speed: a
 * gate (an asynchronous callback that blocks until the test opens it) holds
 * the rank's queue, so whatever is queued behind it cannot have run when the
 * test looks.  A call that waited for the queue instead of returning would
 * wait for the gate; the gate gives up after a minute and the test fails. */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define LONG 200000u /* iterations of the launches queued behind a gate */

struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool open, timed_out;
};
static struct gate gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false};

static dpu_error_t gate_wait(struct dpu_set_t rank, uint32_t index, void *arg)
{
    struct gate *g = arg;
    (void)rank, (void)index;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    pthread_mutex_lock(&g->mu);
    while (!g->open && !g->timed_out)
        g->timed_out = pthread_cond_timedwait(&g->cv, &g->mu, &until) != 0;
    pthread_mutex_unlock(&g->mu);
    return DPU_OK;
}

/* Queues a closed gate on the rank: its later jobs wait until gate_open. */
static void gate_close(struct dpu_set_t rank)
{
    pthread_mutex_lock(&gate.mu);
    gate.open = false;
    pthread_mutex_unlock(&gate.mu);
    CHECK_EQ(dpu_callback(rank, gate_wait, &gate, DPU_CALLBACK_ASYNC), DPU_OK);
}

static void gate_open(void)
{
    pthread_mutex_lock(&gate.mu);
    CHECK(!gate.timed_out); /* nothing waited for the gate's queue while it was closed */
    gate.open = true;
    pthread_cond_broadcast(&gate.cv);
    pthread_mutex_unlock(&gate.mu);
}

static uint32_t expect(uint32_t n)
{
    uint32_t x = 1;
    for (uint32_t i = 0; i < n; i++)
        x = x * 3 + i;
    return x;
}

static void set_u32(struct dpu_set_t s, const char *sym, uint32_t v)
{
    DPU_ASSERT(dpu_broadcast_to(s, sym, 0, &v, 4, DPU_XFER_DEFAULT));
}

static uint32_t get_u32(struct dpu_set_t rank, const char *sym)
{
    struct dpu_set_t dpu;
    uint32_t v = 0;
    DPU_FOREACH(rank, dpu) {
        DPU_ASSERT(dpu_copy_from(dpu, sym, 0, &v, 4));
    }
    return v;
}

/* A callback that checks its rank's result, launches the rank itself
 * (synchronously, from inside the callback) and checks the new result. */
struct cb_state {
    uint32_t want;
    dpu_error_t ret;
    atomic_uint calls, ok;
};

static dpu_error_t on_rank(struct dpu_set_t rank, uint32_t index, void *arg)
{
    struct cb_state *s = arg;
    (void)index;
    atomic_fetch_add(&s->calls, 1);
    atomic_fetch_add(&s->ok, get_u32(rank, "result") == s->want);
    uint32_t n = 7000;
    atomic_fetch_add(&s->ok, dpu_broadcast_to(rank, "iterations", 0, &n, 4, DPU_XFER_DEFAULT) == DPU_OK &&
                                 dpu_launch(rank, DPU_SYNCHRONOUS) == DPU_OK);
    atomic_fetch_add(&s->ok, get_u32(rank, "result") == expect(7000));
    return s->ret;
}

int main(void)
{
    struct dpu_set_t set, rank, ranks[2];
    uint32_t i = 0;
    DPU_ASSERT(dpu_alloc(2, "nrRanks=2,nrDpusPerRank=1", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_busy", NULL));
    DPU_RANK_FOREACH(set, rank) {
        ranks[i++] = rank;
    }
    set_u32(set, "halt_now", 0);
    set_u32(ranks[0], "iterations", LONG);
    set_u32(ranks[1], "iterations", 1000);

    /* the launch runs in the background */
    gate_close(ranks[0]);
    CHECK_EQ(dpu_launch(ranks[0], DPU_ASYNCHRONOUS), DPU_OK);
    bool done = true, fault = true;
    CHECK_EQ(dpu_status(ranks[0], &done, &fault), DPU_OK);
    CHECK(!done && !fault);
    /* the other rank is usable meanwhile, synchronously */
    set_u32(ranks[1], "iterations", 2000);
    CHECK_EQ(dpu_launch(ranks[1], DPU_SYNCHRONOUS), DPU_OK);
    CHECK_EQ(get_u32(ranks[1], "result"), expect(2000));
    /* a read of the busy rank waits for its launch */
    gate_open();
    CHECK_EQ(get_u32(ranks[0], "result"), expect(LONG));
    CHECK_EQ(dpu_status(ranks[0], &done, &fault), DPU_OK);
    CHECK(done && !fault);
    CHECK_EQ(dpu_sync(set), DPU_OK);

    /* jobs of a rank keep their order, and a transfer to it waits for the jobs queued before it */
    set_u32(ranks[0], "iterations", 3000);
    CHECK_EQ(dpu_launch(ranks[0], DPU_ASYNCHRONOUS), DPU_OK);
    set_u32(ranks[0], "iterations", 4000); /* waits for the queued launch, then changes the input */
    CHECK_EQ(dpu_launch(ranks[0], DPU_ASYNCHRONOUS), DPU_OK);
    CHECK_EQ(dpu_sync(ranks[0]), DPU_OK);
    CHECK_EQ(get_u32(ranks[0], "result"), expect(4000));

    /* a fault surfaces at dpu_sync, once */
    set_u32(ranks[1], "halt_now", 1);
    CHECK_EQ(dpu_launch(ranks[1], DPU_ASYNCHRONOUS), DPU_OK);
    CHECK_EQ(dpu_sync(ranks[1]), DPU_ERR_DPU_FAULT);
    CHECK_EQ(dpu_status(ranks[1], &done, &fault), DPU_OK);
    CHECK(done && fault);
    CHECK_EQ(dpu_sync(ranks[1]), DPU_OK);

    /* DPU_XFER_ASYNC: transfers queue behind the running launch and return at once */
    set_u32(ranks[1], "halt_now", 0);
    set_u32(ranks[0], "iterations", LONG);
    gate_close(ranks[0]);
    CHECK_EQ(dpu_launch(ranks[0], DPU_ASYNCHRONOUS), DPU_OK);
    uint32_t n5000 = 5000, got = 0;
    DPU_FOREACH(ranks[0], rank) {
        CHECK_EQ(dpu_prepare_xfer(rank, &got), DPU_OK);
    }
    CHECK_EQ(dpu_push_xfer(ranks[0], DPU_XFER_FROM_DPU, "result", 0, 4, DPU_XFER_ASYNC), DPU_OK);
    CHECK_EQ(dpu_broadcast_to(ranks[0], "iterations", 0, &n5000, 4, DPU_XFER_ASYNC), DPU_OK);
    CHECK_EQ(dpu_launch(ranks[0], DPU_ASYNCHRONOUS), DPU_OK);
    /* all three returned while the rank's queue was held: nothing waited for it */
    CHECK_EQ(dpu_status(ranks[0], &done, &fault), DPU_OK);
    CHECK(!done);
    gate_open();
    CHECK_EQ(dpu_sync(ranks[0]), DPU_OK);
    CHECK_EQ(got, expect(LONG));                             /* read after the first launch */
    CHECK_EQ(get_u32(ranks[0], "result"), expect(5000)); /* the broadcast came before the second */

    /* DPU_CALLBACK_ASYNC: runs after the rank's earlier jobs, in the background */
    set_u32(ranks[0], "iterations", LONG);
    gate_close(ranks[0]);
    CHECK_EQ(dpu_launch(ranks[0], DPU_ASYNCHRONOUS), DPU_OK);
    struct cb_state cb = {.want = expect(LONG)};
    CHECK_EQ(dpu_callback(ranks[0], on_rank, &cb, DPU_CALLBACK_ASYNC), DPU_OK);
    CHECK_EQ(dpu_status(ranks[0], &done, &fault), DPU_OK);
    CHECK(!done);
    CHECK_EQ(atomic_load(&cb.calls), 0u); /* the launch before it has not run yet */
    gate_open();
    CHECK_EQ(dpu_sync(ranks[0]), DPU_OK);
    CHECK_EQ(atomic_load(&cb.calls), 1u);
    CHECK_EQ(atomic_load(&cb.ok), 3u); /* it read the launch's result, launched its own rank, read again */
    CHECK_EQ(get_u32(ranks[0], "result"), expect(7000));
    /* a synchronous callback uses its rank the same way */
    set_u32(ranks[0], "iterations", 300);
    CHECK_EQ(dpu_launch(ranks[0], DPU_SYNCHRONOUS), DPU_OK);
    struct cb_state cs = {.want = expect(300)};
    CHECK_EQ(dpu_callback(ranks[0], on_rank, &cs, DPU_CALLBACK_DEFAULT), DPU_OK);
    CHECK_EQ(atomic_load(&cs.calls), 1u);
    CHECK_EQ(atomic_load(&cs.ok), 3u);
    /* a nonblocking asynchronous callback runs too, and its error comes back at dpu_sync */
    struct cb_state cn = {.want = expect(7000), .ret = DPU_ERR_INTERNAL};
    CHECK_EQ(dpu_callback(ranks[0], on_rank, &cn, DPU_CALLBACK_ASYNC | DPU_CALLBACK_NONBLOCKING), DPU_OK);
    CHECK_EQ(dpu_sync(ranks[0]), DPU_ERR_INTERNAL);
    CHECK_EQ(atomic_load(&cn.calls), 1u);
    CHECK_EQ(atomic_load(&cn.ok), 3u);

    /* freeing a set with queued work waits for it */
    set_u32(ranks[1], "halt_now", 0);
    CHECK_EQ(dpu_launch(set, DPU_ASYNCHRONOUS), DPU_OK);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_async");
}
