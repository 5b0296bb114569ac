/* SPDX-License-Identifier: MIT */
/* The host API from several threads at once, each thread on its own DPU set,
 * as programs drive the UPMEM SDK (one thread per rank is common):
 *  1. 8 threads x 200 rounds of alloc / load / copy in / launch (synchronous
 *     or asynchronous + sync) / copy out / free, each with its own data,
 *     results checked exactly;
 *  2. 4 such threads while a 5th queries its own set and program all along
 *     (counts, symbols, the modelled clock, memory usage);
 *  3. callbacks: a dpu_callback function that calls the API and waits for
 *     another thread's API call (the lock is not held across it), and a
 *     scatter-gather get_block function that calls the API on the same
 *     thread (the lock is re-entrant).
 * Run under ThreadSanitizer and AddressSanitizer by scripts/test.sh. */
#define _GNU_SOURCE
#include <dpu.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define BIN DPU_THREADS_BIN
#define PROFILE "nrRanks=16,nrDpusPerRank=8,sgXferEnable=true"
#define NR_TASKLETS 4
#define WORDS (NR_TASKLETS * 16)
#define QWORDS (NR_TASKLETS * 32)
#define MRAM_BASE 0x08000000u
#define MRAM_SIZE (64u << 20)

/* check.h's counters are not shared between threads: each thread counts its
 * own and main adds them up. */
struct tally {
    int id;
    unsigned round;
    unsigned checks, failures;
};
#define T_CHECK(t, cond)                                                                                  \
    do {                                                                                                  \
        (t)->checks++;                                                                                    \
        if (!(cond)) {                                                                                    \
            if ((t)->failures++ < 5)                                                                      \
                fprintf(stderr, "thread %d round %u: %s:%d: CHECK failed: %s\n", (t)->id, (t)->round,     \
                        __FILE__, __LINE__, #cond);                                                       \
        }                                                                                                 \
    } while (0)

/* ---- one round on a fresh set ------------------------------------------------- */

static uint32_t out_word(uint32_t in, uint32_t key)
{
    return (in * 2654435761u) ^ key;
}

static uint64_t out_qword(uint64_t in, uint32_t key, unsigned i)
{
    return in * 3 + key + i / 32; /* i / 32: the tasklet that handled word i */
}

/* A round: alloc 1 DPU, load, copy in, launch, copy out, check, free.  The
 * transfer flavour and the launch policy vary with the round. */
static void one_round(struct tally *t, unsigned round)
{
    t->round = round;
    struct dpu_set_t set, dpu;
    dpu_error_t rc = dpu_alloc(1, PROFILE, &set);
    T_CHECK(t, rc == DPU_OK);
    if (rc != DPU_OK)
        return;
    uint32_t n = 0;
    T_CHECK(t, dpu_get_nr_dpus(set, &n) == DPU_OK && n == 1);
    struct dpu_program_t *prog = NULL;
    T_CHECK(t, dpu_load(set, BIN, &prog) == DPU_OK);
    struct dpu_symbol_t sym;
    T_CHECK(t, prog && dpu_get_symbol(prog, "in_words", &sym) == DPU_OK && sym.size == 4 * WORDS);

    uint32_t key = (uint32_t)t->id << 20 | round;
    uint32_t in[WORDS], out[WORDS];
    uint64_t min[QWORDS], mout[QWORDS];
    for (unsigned i = 0; i < WORDS; i++)
        in[i] = key * 7 + i;
    for (unsigned i = 0; i < QWORDS; i++)
        min[i] = ((uint64_t)key << 32) ^ (i * 0x9e3779b97f4a7c15ull);
    T_CHECK(t, dpu_copy_to(set, "key", 0, &key, sizeof key) == DPU_OK);
    if (round % 2 == 0) {
        T_CHECK(t, dpu_copy_to(set, "in_words", 0, in, sizeof in) == DPU_OK);
        T_CHECK(t, dpu_broadcast_to(set, "m_in", 0, min, sizeof min, DPU_XFER_DEFAULT) == DPU_OK);
    } else {
        DPU_FOREACH(set, dpu) {
            T_CHECK(t, dpu_prepare_xfer(dpu, in) == DPU_OK);
        }
        T_CHECK(t, dpu_push_xfer(set, DPU_XFER_TO_DPU, "in_words", 0, sizeof in, DPU_XFER_DEFAULT) == DPU_OK);
        DPU_FOREACH(set, dpu) {
            T_CHECK(t, dpu_prepare_xfer(dpu, min) == DPU_OK);
        }
        T_CHECK(t, dpu_push_xfer(set, DPU_XFER_TO_DPU, "m_in", 0, sizeof min, DPU_XFER_DEFAULT) == DPU_OK);
    }
    if (round % 3 == 0) {
        T_CHECK(t, dpu_launch(set, DPU_ASYNCHRONOUS) == DPU_OK);
        bool done = false, fault = true;
        T_CHECK(t, dpu_status(set, &done, &fault) == DPU_OK && !fault);
        T_CHECK(t, dpu_sync(set) == DPU_OK);
    } else {
        T_CHECK(t, dpu_launch(set, DPU_SYNCHRONOUS) == DPU_OK);
    }
    memset(out, 0, sizeof out);
    memset(mout, 0, sizeof mout);
    uint32_t launches = 0;
    DPU_FOREACH(set, dpu) {
        T_CHECK(t, dpu_copy_from(dpu, "launches", 0, &launches, sizeof launches) == DPU_OK);
        if (round % 2 == 0) {
            T_CHECK(t, dpu_copy_from(dpu, "out_words", 0, out, sizeof out) == DPU_OK);
            T_CHECK(t, dpu_copy_from(dpu, "m_out", 0, mout, sizeof mout) == DPU_OK);
        } else {
            T_CHECK(t, dpu_prepare_xfer(dpu, mout) == DPU_OK);
            T_CHECK(t, dpu_push_xfer(dpu, DPU_XFER_FROM_DPU, "m_out", 0, sizeof mout, DPU_XFER_DEFAULT) == DPU_OK);
            T_CHECK(t, dpu_prepare_xfer(dpu, out) == DPU_OK);
            T_CHECK(t, dpu_push_xfer(dpu, DPU_XFER_FROM_DPU, "out_words", 0, sizeof out, DPU_XFER_DEFAULT) == DPU_OK);
        }
    }
    T_CHECK(t, launches == 1);
    unsigned bad = 0;
    for (unsigned i = 0; i < WORDS; i++)
        bad += out[i] != out_word(in[i], key);
    for (unsigned i = 0; i < QWORDS; i++)
        bad += mout[i] != out_qword(min[i], key, i);
    T_CHECK(t, bad == 0);
    T_CHECK(t, dpu_free(set) == DPU_OK);
}

struct worker_arg {
    struct tally t;
    unsigned rounds;
};

static void *worker(void *p)
{
    struct worker_arg *a = p;
    for (unsigned r = 0; r < a->rounds; r++)
        one_round(&a->t, r);
    return NULL;
}

static void add_tally(const struct tally *t)
{
    check_count += (int)t->checks;
    check_failures += (int)t->failures;
}

/* ---- 1. eight threads ------------------------------------------------------------- */

static void test_many_threads(unsigned nthreads, unsigned rounds)
{
    pthread_t th[16];
    struct worker_arg args[16];
    for (unsigned i = 0; i < nthreads; i++) {
        args[i] = (struct worker_arg){{(int)i + 1, 0, 0, 0}, rounds};
        CHECK_EQ(pthread_create(&th[i], NULL, worker, &args[i]), 0);
    }
    for (unsigned i = 0; i < nthreads; i++) {
        CHECK_EQ(pthread_join(th[i], NULL), 0);
        add_tally(&args[i].t);
        /* every round made its checks: a thread that stopped early would not */
        CHECK(args[i].t.checks >= rounds * 14);
    }
}

/* ---- 2. an observer beside four workers -------------------------------------------- */

static atomic_int workers_done;

struct observer_arg {
    struct tally t;
    struct dpu_set_t set;
    struct dpu_program_t *prog;
    uint32_t key;
    unsigned loops;
};

static void *observer(void *p)
{
    struct observer_arg *a = p;
    double last = 0;
    while (!atomic_load(&workers_done) || a->loops < 100) {
        struct tally *t = &a->t;
        t->round = a->loops;
        uint32_t n = 0, r = 0, key = 0;
        T_CHECK(t, dpu_get_nr_dpus(a->set, &n) == DPU_OK && n == 8);
        T_CHECK(t, dpu_get_nr_ranks(a->set, &r) == DPU_OK && r == 1);
        struct dpu_symbol_t sym;
        T_CHECK(t, dpu_get_symbol(a->prog, "out_words", &sym) == DPU_OK && sym.size == 4 * WORDS);
        T_CHECK(t, dpu_get_symbol(a->prog, DPU_MRAM_HEAP_POINTER_NAME, &sym) == DPU_OK &&
                       (uint64_t)sym.address - MRAM_BASE + sym.size == MRAM_SIZE);
        T_CHECK(t, dpu_get_symbol(a->prog, "no_such_symbol", &sym) == DPU_ERR_UNKNOWN_SYMBOL);
        double now = openpim_modelled_time_us();
        T_CHECK(t, now >= last);
        last = now;
        uint64_t used = 0, limit = 0;
        T_CHECK(t, openpim_memory_usage(&used, &limit) == DPU_OK && limit > 0);
        struct dpu_set_t dpu;
        unsigned count = 0;
        DPU_FOREACH(a->set, dpu) {
            if (count++ == a->loops % 8)
                T_CHECK(t, dpu_copy_from(dpu, "key", 0, &key, sizeof key) == DPU_OK && key == a->key);
        }
        T_CHECK(t, count == 8);
        a->loops++;
    }
    return NULL;
}

static void test_observer(unsigned rounds)
{
    struct observer_arg obs = {{100, 0, 0, 0}, {0}, NULL, 0xabcdef01u, 0};
    CHECK_EQ(dpu_alloc(8, PROFILE, &obs.set), DPU_OK);
    CHECK_EQ(dpu_load(obs.set, BIN, &obs.prog), DPU_OK);
    CHECK_EQ(dpu_broadcast_to(obs.set, "key", 0, &obs.key, sizeof obs.key, DPU_XFER_DEFAULT), DPU_OK);
    atomic_store(&workers_done, 0);
    pthread_t oth, th[4];
    struct worker_arg args[4];
    CHECK_EQ(pthread_create(&oth, NULL, observer, &obs), 0);
    for (unsigned i = 0; i < 4; i++) {
        args[i] = (struct worker_arg){{(int)i + 11, 0, 0, 0}, rounds};
        CHECK_EQ(pthread_create(&th[i], NULL, worker, &args[i]), 0);
    }
    for (unsigned i = 0; i < 4; i++) {
        CHECK_EQ(pthread_join(th[i], NULL), 0);
        add_tally(&args[i].t);
        CHECK(args[i].t.checks >= rounds * 14);
    }
    atomic_store(&workers_done, 1);
    CHECK_EQ(pthread_join(oth, NULL), 0);
    add_tally(&obs.t);
    CHECK(obs.loops >= 100);
    CHECK_EQ(dpu_free(obs.set), DPU_OK);
}

/* ---- 3. callbacks ---------------------------------------------------------------------- */

/* A helper thread that makes one API call on its own set when asked. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int asked, answered, stop;
    struct dpu_set_t set;
    uint32_t nr_dpus;
} helper = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, {0}, 0};

static void *helper_main(void *p)
{
    (void)p;
    pthread_mutex_lock(&helper.mu);
    for (;;) {
        while (helper.asked == helper.answered && !helper.stop)
            pthread_cond_wait(&helper.cv, &helper.mu);
        if (helper.stop)
            break;
        pthread_mutex_unlock(&helper.mu);
        uint32_t n = 0;
        dpu_error_t rc = dpu_get_nr_dpus(helper.set, &n); /* blocks if the caller holds the SDK lock */
        pthread_mutex_lock(&helper.mu);
        helper.nr_dpus = rc == DPU_OK ? n : 0;
        helper.answered++;
        pthread_cond_broadcast(&helper.cv);
    }
    pthread_mutex_unlock(&helper.mu);
    return NULL;
}

/* Asks the helper for one call and waits at most 20 s: a callback run with
 * the SDK lock held would never get the answer. */
static int ask_helper(void)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 20;
    pthread_mutex_lock(&helper.mu);
    int want = ++helper.asked, ok = 1;
    pthread_cond_broadcast(&helper.cv);
    while (helper.answered < want && ok)
        ok = pthread_cond_timedwait(&helper.cv, &helper.mu, &deadline) == 0;
    int n = ok ? (int)helper.nr_dpus : -1;
    pthread_mutex_unlock(&helper.mu);
    if (!ok) {
        fprintf(stderr, "test_threads: a dpu_callback function waiting for another thread's API call deadlocked\n");
        exit(1); /* the helper is stuck: joining it would hang */
    }
    return n;
}

struct cb_args {
    atomic_uint calls, keys_ok, helper_ok; /* asynchronous callbacks of two ranks run at once */
    uint32_t want_key;
    dpu_error_t ret;
};

static dpu_error_t callback(struct dpu_set_t set, uint32_t index, void *p)
{
    struct cb_args *a = p;
    (void)index;
    atomic_fetch_add(&a->calls, 1);
    struct dpu_set_t dpu;
    DPU_FOREACH(set, dpu) {
        uint32_t key = 0;
        atomic_fetch_add(&a->keys_ok, dpu_copy_from(dpu, "key", 0, &key, sizeof key) == DPU_OK && key == a->want_key);
    }
    atomic_fetch_add(&a->helper_ok, ask_helper() == 8);
    return a->ret;
}

static struct dpu_set_t sg_set;
static uint64_t sg_data[2][8];
static atomic_uint sg_api_ok;
static bool sg_get(struct sg_block_info *out, uint32_t dpu, uint32_t block, void *args)
{
    (void)args;
    uint32_t n = 0;
    /* an API call on the thread that holds the SDK lock */
    if (dpu_get_nr_dpus(sg_set, &n) == DPU_OK && n == 2)
        atomic_fetch_add(&sg_api_ok, 1);
    if (dpu >= 2 || block >= 1)
        return false;
    out->addr = (uint8_t *)sg_data[dpu];
    out->length = sizeof sg_data[dpu];
    return true;
}

static void test_callbacks(void)
{
    CHECK_EQ(dpu_alloc(8, PROFILE, &helper.set), DPU_OK);
    pthread_t hth;
    CHECK_EQ(pthread_create(&hth, NULL, helper_main, NULL), 0);

    struct dpu_set_t set;
    CHECK_EQ(dpu_alloc(16, PROFILE, &set), DPU_OK); /* 2 ranks */
    CHECK_EQ(dpu_load(set, BIN, NULL), DPU_OK);
    uint32_t key = 0x5eed;
    CHECK_EQ(dpu_broadcast_to(set, "key", 0, &key, sizeof key, DPU_XFER_DEFAULT), DPU_OK);
    struct cb_args a = {0, 0, 0, key, DPU_OK};
    CHECK_EQ(dpu_callback(set, callback, &a, DPU_CALLBACK_DEFAULT), DPU_OK);
    CHECK_EQ(a.calls, 2); /* once per rank */
    CHECK_EQ(a.keys_ok, 16);
    CHECK_EQ(a.helper_ok, 2);
    struct cb_args b = {0, 0, 0, key, DPU_OK};
    CHECK_EQ(dpu_callback(set, callback, &b, DPU_CALLBACK_SINGLE_CALL), DPU_OK);
    CHECK_EQ(b.calls, 1);
    CHECK_EQ(b.keys_ok, 16);
    CHECK_EQ(b.helper_ok, 1);
    /* an asynchronous callback's error comes back at dpu_sync */
    struct cb_args c = {0, 0, 0, key, DPU_ERR_INTERNAL};
    CHECK_EQ(dpu_callback(set, callback, &c, DPU_CALLBACK_ASYNC), DPU_OK);
    CHECK_EQ(dpu_sync(set), DPU_ERR_INTERNAL);
    CHECK_EQ(c.calls, 2); /* both ran in the background before dpu_sync returned */
    CHECK_EQ(c.helper_ok, 2);
    CHECK_EQ(dpu_sync(set), DPU_OK);
    CHECK_EQ(dpu_free(set), DPU_OK);

    pthread_mutex_lock(&helper.mu);
    helper.stop = 1;
    pthread_cond_broadcast(&helper.cv);
    pthread_mutex_unlock(&helper.mu);
    CHECK_EQ(pthread_join(hth, NULL), 0);
    CHECK_EQ(dpu_free(helper.set), DPU_OK);

    /* scatter-gather block function calling the API */
    CHECK_EQ(dpu_alloc(2, PROFILE, &sg_set), DPU_OK);
    CHECK_EQ(dpu_load(sg_set, BIN, NULL), DPU_OK);
    for (unsigned d = 0; d < 2; d++)
        for (unsigned i = 0; i < 8; i++)
            sg_data[d][i] = 1000u * d + i;
    CHECK_EQ(dpu_push_sg_xfer(sg_set, DPU_XFER_TO_DPU, "m_in", 0, sizeof sg_data[0],
                              &(get_block_t){sg_get, NULL, 0}, DPU_SG_XFER_DEFAULT),
             DPU_OK);
    CHECK(atomic_load(&sg_api_ok) >= 4);
    struct dpu_set_t dpu;
    unsigned d = 0;
    DPU_FOREACH(sg_set, dpu) {
        uint64_t back[8];
        CHECK_EQ(dpu_copy_from(dpu, "m_in", 0, back, sizeof back), DPU_OK);
        CHECK(memcmp(back, sg_data[d], sizeof back) == 0);
        d++;
    }
    CHECK_EQ(dpu_free(sg_set), DPU_OK);
}

int main(int argc, char **argv)
{
    /* rounds per thread (200 unless given) */
    unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 200;
    test_many_threads(8, rounds);
    test_observer(rounds / 4 ? rounds / 4 : 1);
    test_callbacks();
    return check_done("test_threads");
}
