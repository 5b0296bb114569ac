/* SPDX-License-Identifier: MIT */
/* Launch slots of the machine layer (machine/machine.h): launches on disjoint
 * DPU sets run at the same time, each on its own workers, and nothing else
 * changes — results, modelled cycles, faults, recovery, DPU->worker affinity.
 *
 * Concurrency is proven, not timed: DPUs in mode 1 (dpu_slots.c) say they
 * started and then wait for the host, which lets them go only after it has
 * seen every one of them started; launches that ran one after the other would
 * never all be seen started (each wait here has a deadline, so a machine that
 * serialises fails the check instead of hanging). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "machine.h"
#include "sandbox/procs.h"

#define NR_DPUS 8
#define TASKLETS 4
#define WORDS 512 /* per tasklet, as in dpu_slots.c */
#define WAIT_S 10.0 /* how long the host waits for something it expects */

static struct op_program *prog;
/* where dpu_slots.c's variables are: WRAM offsets and MRAM offsets */
static uint32_t w_mode, w_sums, m_data, m_started, m_go, m_seen;

static void load_program(void)
{
    FILE *f = fopen("./dpu_slots", "rb");
    if (!f) {
        perror("./dpu_slots");
        exit(1);
    }
    static uint8_t bytes[4 << 20];
    size_t len = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    char err[256];
    prog = op_program_create(bytes, len, err, sizeof err);
    if (!prog) {
        fprintf(stderr, "dpu_slots: %s\n", err);
        exit(1);
    }
    struct {
        const char *name;
        uint32_t *off, base;
    } syms[] = {{"mode", &w_mode, OP_WRAM_BASE},   {"sums", &w_sums, OP_WRAM_BASE},
                {"data", &m_data, OP_MRAM_BASE},   {"started", &m_started, OP_MRAM_BASE},
                {"go", &m_go, OP_MRAM_BASE},       {"seen", &m_seen, OP_MRAM_BASE}};
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
        const struct op_symbol *s = op_image_symbol(&prog->img, syms[i].name);
        if (!s) {
            fprintf(stderr, "dpu_slots has no symbol %s\n", syms[i].name);
            exit(1);
        }
        *syms[i].off = s->addr - syms[i].base;
    }
}

/* A machine of NR_DPUS DPUs (v1A) with `workers` workers, every DPU loaded. */
static struct op_machine *make(unsigned workers, uint64_t budget_ns)
{
    struct op_machine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    CHECK_EQ(op_machine_desc_preset("v1A", &cfg.desc), 0);
    cfg.desc.nr_ranks = 1;
    cfg.desc.chips_per_rank = 1;
    cfg.desc.dpus_per_chip = NR_DPUS;
    cfg.workers = workers;
    cfg.budget_ns = budget_ns;
    char err[256];
    struct op_machine *m = op_machine_create(&cfg, err, sizeof err);
    if (!m) {
        fprintf(stderr, "op_machine_create: %s\n", err);
        exit(1);
    }
    for (uint32_t d = 0; d < NR_DPUS; d++)
        if (op_machine_load(m, d, prog, err, sizeof err) != 0) {
            fprintf(stderr, "op_machine_load: %s\n", err);
            exit(1);
        }
    return m;
}

static void put64(struct op_machine *m, uint32_t dpu, uint32_t mram_off, uint64_t v)
{
    memcpy(op_machine_mram(m, dpu) + mram_off, &v, 8);
}

static uint64_t get64(struct op_machine *m, uint32_t dpu, uint32_t mram_off)
{
    uint64_t v;
    op_machine_mram_read(m, dpu, mram_off, &v, 8);
    return v;
}

/* The DPU's input of mode 0: distinct per DPU (xorshift). */
static uint64_t datum(uint32_t dpu, uint32_t i)
{
    uint64_t x = 0x9e3779b97f4a7c15ull * (dpu + 1) + i;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

/* What mode 0 computes for tasklet t of DPU dpu, computed here. */
static uint64_t reference_sum(uint32_t dpu, uint32_t t)
{
    uint64_t h = t + 1;
    for (uint32_t i = 0; i < WORDS; i++)
        h = h * 31 + (datum(dpu, t * WORDS + i) ^ i);
    return h;
}

/* Puts a DPU in a mode with fresh inputs and cleared outputs. */
static void prepare(struct op_machine *m, uint32_t dpu, uint32_t mode)
{
    memcpy(op_machine_wram(m, dpu) + w_mode, &mode, 4);
    memset(op_machine_wram(m, dpu) + w_sums, 0, TASKLETS * 8);
    for (uint32_t i = 0; i < TASKLETS * WORDS; i++)
        put64(m, dpu, m_data + i * 8, datum(dpu, i));
    put64(m, dpu, m_started, 0);
    put64(m, dpu, m_go, 0);
    put64(m, dpu, m_seen, 0);
}

/* DPU dpu ended without a fault and with mode 0's exact results. */
static void check_sums(struct op_machine *m, uint32_t dpu)
{
    const struct op_dpu_status *r = op_machine_result(m, dpu);
    CHECK_EQ(r->fault, OP_FAULT_NONE);
    for (uint32_t t = 0; t < TASKLETS; t++) {
        uint64_t got;
        memcpy(&got, op_machine_wram(m, dpu) + w_sums + t * 8, 8);
        CHECK(got == reference_sum(dpu, t));
    }
}

/* ---- launches on threads ---------------------------------------------------- */

struct launch {
    pthread_t thread;
    struct op_machine *m;
    uint32_t dpus[NR_DPUS + 2], n;
    int rc;
    char err[256];
    atomic_int done;
};

static void *launch_run(void *arg)
{
    struct launch *l = arg;
    l->rc = op_machine_launch(l->m, l->dpus, l->n, l->err, sizeof l->err);
    atomic_store(&l->done, 1);
    return NULL;
}

static void launch_start(struct launch *l, struct op_machine *m, const uint32_t *dpus, uint32_t n)
{
    l->m = m;
    memcpy(l->dpus, dpus, n * sizeof *dpus);
    l->n = n;
    l->rc = -2;
    l->err[0] = 0;
    atomic_store(&l->done, 0);
    if (pthread_create(&l->thread, NULL, launch_run, l) != 0) {
        perror("pthread_create");
        exit(1);
    }
}

static int launch_finish(struct launch *l)
{
    pthread_join(l->thread, NULL);
    if (l->rc != 0)
        fprintf(stderr, "launch failed: %s\n", l->err);
    return l->rc;
}

static void sleep_s(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&t, NULL);
}

/* Waits until DPU dpu has counted `runs` runs in mode 1 or 2; 1 if it has. */
static int wait_started(struct op_machine *m, uint32_t dpu, uint64_t runs)
{
    for (double t0 = now_s(); now_s() - t0 < WAIT_S; sleep_s(0.001))
        if (get64(m, dpu, m_started) >= runs)
            return 1;
    fprintf(stderr, "DPU %u not seen started within %.0f s\n", dpu, WAIT_S);
    return 0;
}

static int wait_done(struct launch *l)
{
    for (double t0 = now_s(); now_s() - t0 < WAIT_S; sleep_s(0.001))
        if (atomic_load(&l->done))
            return 1;
    return 0;
}

/* ---- the tests ------------------------------------------------------------------ */

/* Two single-DPU launches on two workers are running at the same moment. */
static void test_concurrent(void)
{
    struct op_machine *m = make(2, 30000000000ull);
    for (int round = 0; round < 3; round++) {
        prepare(m, 0, 1);
        prepare(m, 1, 1);
        struct launch a, b;
        launch_start(&a, m, (uint32_t[]){0}, 1);
        launch_start(&b, m, (uint32_t[]){1}, 1);
        int both = 1;
        for (double t0 = now_s(); get64(m, 0, m_started) != 1 || get64(m, 1, m_started) != 1; sleep_s(0.001))
            if (now_s() - t0 > WAIT_S) {
                both = 0;
                break;
            }
        if (!both)
            fprintf(stderr, "the two launches were never running at the same time\n");
        CHECK(both);
        round = both ? round : 3; /* once is enough */
        put64(m, 0, m_go, 100 + round);
        put64(m, 1, m_go, 200 + round);
        CHECK_EQ(launch_finish(&a), 0);
        CHECK_EQ(launch_finish(&b), 0);
        for (uint32_t d = 0; d < 2 && both; d++) {
            CHECK_EQ(op_machine_result(m, d)->fault, OP_FAULT_NONE);
            CHECK_EQ(get64(m, d, m_started), 1);
            CHECK_EQ(get64(m, d, m_seen), (d + 1) * 100 + round);
        }
    }
    op_machine_destroy(m);
}

/* A launch that shares a DPU with a running one waits for it (even with a
 * worker free); a disjoint one goes ahead meanwhile; bad lists are refused
 * and change nothing. */
static void test_overlap(void)
{
    struct op_machine *m = make(3, 30000000000ull);
    prepare(m, 0, 1);
    prepare(m, 1, 0);
    prepare(m, 2, 0);
    struct launch a, b, c;
    launch_start(&a, m, (uint32_t[]){0}, 1);
    CHECK(wait_started(m, 0, 1));
    launch_start(&b, m, (uint32_t[]){1, 0}, 2); /* DPU 0 is busy: all of b waits */
    launch_start(&c, m, (uint32_t[]){2}, 1);
    CHECK(wait_done(&c)); /* disjoint: runs while a still does */
    CHECK_EQ(launch_finish(&c), 0);
    check_sums(m, 2);
    sleep_s(0.3);
    CHECK(!atomic_load(&a.done));
    CHECK(!atomic_load(&b.done));
    CHECK_EQ(get64(m, 0, m_started), 1); /* not run a second time meanwhile */
    uint64_t s0;
    memcpy(&s0, op_machine_wram(m, 1) + w_sums, 8);
    CHECK_EQ(s0, 0); /* nor has b's other DPU run */

    /* refused: nothing claimed, a's launch undisturbed */
    char err[256] = "";
    CHECK_EQ(op_machine_launch(m, (uint32_t[]){3, 4, 3}, 3, err, sizeof err), -1);
    CHECK(strstr(err, "DPU 3 is listed twice") != NULL);
    CHECK_EQ(op_machine_launch(m, (uint32_t[]){5, NR_DPUS}, 2, err, sizeof err), -1);
    CHECK(strstr(err, "DPU 8 does not exist") != NULL);
    uint32_t many[NR_DPUS + 1] = {0};
    CHECK_EQ(op_machine_launch(m, many, NR_DPUS + 1, err, sizeof err), -1);
    CHECK(strstr(err, "twice") != NULL);
    CHECK_EQ(op_machine_launch(m, NULL, 0, err, sizeof err), 0);

    put64(m, 0, m_go, 7);
    CHECK_EQ(launch_finish(&a), 0);
    CHECK_EQ(launch_finish(&b), 0);
    CHECK_EQ(get64(m, 0, m_started), 2); /* b ran DPU 0 after a */
    CHECK_EQ(get64(m, 0, m_seen), 7);
    CHECK_EQ(op_machine_result(m, 0)->fault, OP_FAULT_NONE);
    check_sums(m, 1);
    /* the refused DPUs are free: they launch */
    prepare(m, 3, 0);
    prepare(m, 4, 0);
    prepare(m, 5, 0);
    CHECK_EQ(op_machine_launch(m, (uint32_t[]){3, 4, 5}, 3, err, sizeof err), 0);
    for (uint32_t d = 3; d <= 5; d++)
        check_sums(m, d);
    op_machine_destroy(m);
}

static int same_model(const struct op_dpu_result *a, const struct op_dpu_result *b)
{
    if (a->cycles != b->cycles || a->instructions != b->instructions || a->dma_reads != b->dma_reads ||
        a->dma_writes != b->dma_writes || a->dma_read_bytes != b->dma_read_bytes ||
        a->dma_write_bytes != b->dma_write_bytes || a->dma_busy_cycles != b->dma_busy_cycles ||
        a->nr_tasklets != b->nr_tasklets)
        return 0;
    for (unsigned t = 0; t < OP_TIMING_MAX_TASKLETS; t++)
        if (a->tasklet_instructions[t] != b->tasklet_instructions[t] ||
            a->tasklet_end_cycle[t] != b->tasklet_end_cycle[t])
            return 0;
    return 1;
}

/* Four threads launching their own DPU pairs over and over on three workers
 * get the results and modelled cycles of one serial launch of all DPUs. */
static void test_same_results(void)
{
    struct op_machine *m = make(3, 0);
    uint32_t all[NR_DPUS];
    for (uint32_t d = 0; d < NR_DPUS; d++) {
        all[d] = d;
        prepare(m, d, 0);
    }
    char err[256];
    CHECK_EQ(op_machine_launch(m, all, NR_DPUS, err, sizeof err), 0);
    struct op_dpu_result serial[NR_DPUS];
    for (uint32_t d = 0; d < NR_DPUS; d++) {
        check_sums(m, d);
        serial[d] = op_machine_result(m, d)->model;
        CHECK(serial[d].cycles > 0);
    }
    for (int round = 0; round < 25; round++) {
        struct launch l[NR_DPUS / 2];
        for (uint32_t t = 0; t < NR_DPUS / 2; t++) {
            prepare(m, 2 * t, 0);
            prepare(m, 2 * t + 1, 0);
            launch_start(&l[t], m, (uint32_t[]){2 * t, 2 * t + 1}, 2);
        }
        for (uint32_t t = 0; t < NR_DPUS / 2; t++)
            CHECK_EQ(launch_finish(&l[t]), 0);
        for (uint32_t d = 0; d < NR_DPUS; d++) {
            check_sums(m, d);
            CHECK(same_model(&op_machine_result(m, d)->model, &serial[d]));
        }
    }
    op_machine_destroy(m);
}

/* The workers of the test (every machine of an earlier test is destroyed). */
static int workers(struct proc *out)
{
    struct proc kids[MAX_PROCS];
    int n = children_of(getpid(), kids, MAX_PROCS), k = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(kids[i].comm, "openpim-worker") && kids[i].state != 'Z')
            out[k++] = kids[i];
    return k;
}

/* Whether worker pid has DPU dpu's MRAM mapped (it ran the DPU once): its
 * part of its rank's memfd (abi/shared.h). */
static int maps_mram_of(pid_t pid, uint32_t dpu, uint32_t per_rank, uint64_t mram_size)
{
    char path[64], line[512], name[48];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    snprintf(name, sizeof name, "openpim-rank-%u ", dpu / per_rank);
    FILE *f = fopen(path, "r");
    int found = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long long lo, hi, off;
        if (strstr(line, name) && sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &off) == 3 &&
            off == op_rank_mram_offset(per_rank, dpu % per_rank, mram_size))
            found = 1;
    }
    if (f)
        fclose(f);
    return found;
}

/* A DPU keeps its worker launch after launch: DPU 1 first ran beside DPU 0
 * (on the second worker); alone later, it goes back there, not to the first
 * free one. */
static void test_affinity(void)
{
    struct op_machine *m = make(2, 30000000000ull);
    prepare(m, 0, 1);
    prepare(m, 1, 0);
    struct launch a;
    char err[256];
    launch_start(&a, m, (uint32_t[]){0}, 1);
    CHECK(wait_started(m, 0, 1));
    CHECK_EQ(op_machine_launch(m, (uint32_t[]){1}, 1, err, sizeof err), 0);
    put64(m, 0, m_go, 1);
    CHECK_EQ(launch_finish(&a), 0);
    for (int round = 0; round < 3; round++) {
        uint32_t order[2] = {1, 0};
        for (int k = 0; k < 2; k++) {
            prepare(m, order[k], 0);
            CHECK_EQ(op_machine_launch(m, &order[k], 1, err, sizeof err), 0);
            check_sums(m, order[k]);
        }
    }
    struct proc w[MAX_PROCS];
    CHECK_EQ(workers(w), 2);
    uint64_t size = op_machine_mram_size(m);
    uint32_t per = op_machine_dpus_per_rank(m);
    for (uint32_t d = 0; d < 2; d++) {
        int in = maps_mram_of(w[0].pid, d, per, size) + maps_mram_of(w[1].pid, d, per, size);
        if (in != 1)
            fprintf(stderr, "DPU %u ran on %d workers\n", d, in);
        CHECK_EQ(in, 1);
    }
    CHECK(maps_mram_of(w[0].pid, 0, per, size) != maps_mram_of(w[0].pid, 1, per, size));
    op_machine_destroy(m);
}

/* The worker of one launch dies (killed from outside): that launch's DPU gets
 * the worker fault, the launch running beside it carries on, and the next
 * launch recovers on a new worker. */
static void test_worker_death(void)
{
    struct op_machine *m = make(2, 30000000000ull);
    prepare(m, 0, 1);
    prepare(m, 1, 1);
    struct launch a, b;
    launch_start(&a, m, (uint32_t[]){0}, 1);
    CHECK(wait_started(m, 0, 1));
    struct proc w[MAX_PROCS];
    CHECK_EQ(workers(w), 1); /* workers start on demand: this one runs DPU 0 */
    pid_t victim = w[0].pid;
    launch_start(&b, m, (uint32_t[]){1}, 1);
    CHECK(wait_started(m, 1, 1));
    CHECK_EQ(kill(victim, SIGKILL), 0);
    CHECK_EQ(launch_finish(&a), 0);
    const struct op_dpu_status *r = op_machine_result(m, 0);
    CHECK_EQ(r->fault, OP_FAULT_WORKER);
    if (strcmp(r->fault_msg, "the worker running DPU 0 died: signal 9 (Killed)") != 0) {
        fprintf(stderr, "fault message: %s\n", r->fault_msg);
        CHECK(0);
    }
    CHECK(!atomic_load(&b.done));
    CHECK_EQ(get64(m, 1, m_started), 1);
    put64(m, 1, m_go, 9);
    CHECK_EQ(launch_finish(&b), 0);
    CHECK_EQ(op_machine_result(m, 1)->fault, OP_FAULT_NONE);
    CHECK_EQ(get64(m, 1, m_seen), 9);
    /* recovery: both DPUs at once again, on a new worker and the survivor */
    char err[256];
    prepare(m, 0, 0);
    prepare(m, 1, 0);
    CHECK_EQ(op_machine_launch(m, (uint32_t[]){0, 1}, 2, err, sizeof err), 0);
    check_sums(m, 0);
    check_sums(m, 1);
    CHECK_EQ(workers(w), 2);
    CHECK(w[0].pid != victim && w[1].pid != victim);
    op_machine_destroy(m);
}

/* One launch's DPU runs past its budget (its worker's timer stops it) while a
 * launch started later runs beside it: only the first gets the timeout. */
static void test_timeout(void)
{
    const double budget = 1.5;
    struct op_machine *m = make(2, (uint64_t)(budget * 1e9));
    prepare(m, 0, 2);
    prepare(m, 1, 1);
    struct launch a, b;
    double t0 = now_s();
    launch_start(&a, m, (uint32_t[]){0}, 1);
    CHECK(wait_started(m, 0, 1));
    sleep_s(budget / 2); /* b's budget outlasts a's by this much */
    launch_start(&b, m, (uint32_t[]){1}, 1);
    CHECK(wait_started(m, 1, 1));
    CHECK_EQ(launch_finish(&a), 0);
    CHECK(now_s() - t0 >= budget);
    CHECK_EQ(op_machine_result(m, 0)->fault, OP_FAULT_TIMEOUT);
    CHECK(!atomic_load(&b.done));
    put64(m, 1, m_go, 3);
    CHECK_EQ(launch_finish(&b), 0);
    CHECK_EQ(op_machine_result(m, 1)->fault, OP_FAULT_NONE);
    CHECK_EQ(get64(m, 1, m_seen), 3);
    char err[256];
    prepare(m, 0, 0);
    CHECK_EQ(op_machine_launch(m, (uint32_t[]){0}, 1, err, sizeof err), 0);
    check_sums(m, 0);
    op_machine_destroy(m);
}

struct destroyer {
    pthread_t thread;
    struct op_machine *m;
    atomic_int done;
};

static void *destroy_run(void *arg)
{
    struct destroyer *d = arg;
    op_machine_destroy(d->m);
    atomic_store(&d->done, 1);
    return NULL;
}

/* op_machine_destroy waits for the launches in progress. */
static void test_destroy_while_launching(void)
{
    struct op_machine *m = make(2, 30000000000ull);
    prepare(m, 0, 1);
    prepare(m, 1, 1);
    struct launch a, b;
    launch_start(&a, m, (uint32_t[]){0}, 1);
    launch_start(&b, m, (uint32_t[]){1}, 1);
    CHECK(wait_started(m, 0, 1));
    CHECK(wait_started(m, 1, 1));
    uint8_t *mram0 = op_machine_mram(m, 0), *mram1 = op_machine_mram(m, 1);
    struct destroyer d = {.m = m};
    atomic_store(&d.done, 0);
    CHECK_EQ(pthread_create(&d.thread, NULL, destroy_run, &d), 0);
    sleep_s(0.3);
    CHECK(!atomic_load(&d.done));
    CHECK(!atomic_load(&a.done) && !atomic_load(&b.done));
    uint64_t go = 1;
    memcpy(mram0 + m_go, &go, 8); /* the machine still exists: destroy waits */
    memcpy(mram1 + m_go, &go, 8);
    CHECK_EQ(launch_finish(&a), 0);
    CHECK_EQ(launch_finish(&b), 0);
    pthread_join(d.thread, NULL);
    CHECK(atomic_load(&d.done));
    struct proc w[MAX_PROCS];
    CHECK_EQ(workers(w), 0);
}

int main(void)
{
    load_program();
    test_concurrent();
    test_overlap();
    test_same_results();
    test_affinity();
    test_worker_death();
    test_timeout();
    test_destroy_while_launching();
    op_program_put(prog);
    return check_done("test_launch_slots");
}
