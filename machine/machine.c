#define _GNU_SOURCE
#include "machine_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../abi/dpu_abi.h"
#include "../abi/raw_clock.h"

extern char **environ;

static void *spawner_main(void *arg);

int op_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}


int op_make_memfd(const char *name, uint64_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd >= 0 && ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static unsigned available_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* 85% of the memory available when the machine is made: the host program
 * needs room of its own. */
static uint64_t default_memory_limit(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long long kb = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb ? kb * 1024ull / 100 * 85 : 16ull << 30;
}

struct op_machine *op_machine_create(const struct op_machine_config *cfg, char *err, size_t errlen)
{
    const struct op_machine_desc *d = &cfg->desc;
    uint64_t per_rank = (uint64_t)d->chips_per_rank * d->dpus_per_chip;
    if (d->nr_ranks == 0 || per_rank == 0 || per_rank > 64 || (uint64_t)d->nr_ranks * per_rank > 65536) {
        op_fail(err, errlen, "invalid machine size: %u ranks of %llu DPUs", d->nr_ranks, (unsigned long long)per_rank);
        return NULL;
    }
    if (d->mram_bytes < (1u << 20) || d->mram_bytes > (128u << 20) || d->mram_bytes % 4096 ||
        d->wram_bytes < 4096 || d->wram_bytes > OP_WRAM_STRIDE || d->wram_bytes % 8 ||
        d->nr_tasklets < 1 || d->nr_tasklets > OP_MAX_TASKLETS) {
        op_fail(err, errlen, "unsupported DPU: MRAM %u B (1-128 MiB, page multiple), WRAM %u B (4-64 KiB), %u tasklets (1-24)",
             d->mram_bytes, d->wram_bytes, d->nr_tasklets);
        return NULL;
    }
    struct op_machine *m = calloc(1, sizeof *m);
    if (m) {
        pthread_mutex_init(&m->lock, NULL);
        pthread_cond_init(&m->changed, NULL);
        pthread_mutex_init(&m->spawn_lock, NULL);
        pthread_cond_init(&m->spawn_cond, NULL);
    }
    if (!m) {
        op_fail(err, errlen, "out of memory");
        return NULL;
    }
    m->cfg = *cfg;
    m->nr_dpus = d->nr_ranks * (uint32_t)per_rank;
    m->mram_size = d->mram_bytes;
    m->wram_size = d->wram_bytes;
    m->nr_workers = cfg->workers ? cfg->workers : available_cores();
    if (m->nr_workers > OP_MAX_WORKERS)
        m->nr_workers = OP_MAX_WORKERS;
    m->mram_fd = op_make_memfd("openpim-mram", (uint64_t)m->nr_dpus * m->mram_size);
    m->wram_fd = op_make_memfd("openpim-wram", (uint64_t)m->nr_dpus * OP_WRAM_STRIDE);
    m->nr_chunks = (uint32_t)(m->mram_size / OP_MRAM_CHUNK);
    m->ctrl_fd = op_make_memfd("openpim-ctrl", op_ctrl_size(m->nr_dpus, m->nr_chunks));
    m->programs = calloc(m->nr_dpus, sizeof *m->programs);
    m->dpu_busy = calloc(m->nr_dpus, sizeof *m->dpu_busy);
    m->home = malloc(m->nr_dpus * sizeof *m->home);
    if (m->home)
        for (uint32_t d = 0; d < m->nr_dpus; d++)
            m->home[d] = NO_HOME;
    if (m->mram_fd < 0 || m->wram_fd < 0 || m->ctrl_fd < 0 || !m->programs || !m->dpu_busy || !m->home) {
        op_fail(err, errlen, "cannot create the emulated memory: %s", strerror(errno));
        goto bad;
    }
    m->mram = mmap(NULL, (uint64_t)m->nr_dpus * m->mram_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
                   m->mram_fd, 0);
    m->wram = mmap(NULL, (uint64_t)m->nr_dpus * OP_WRAM_STRIDE, PROT_READ | PROT_WRITE, MAP_SHARED, m->wram_fd, 0);
    m->ctrl = mmap(NULL, op_ctrl_size(m->nr_dpus, m->nr_chunks), PROT_READ | PROT_WRITE, MAP_SHARED, m->ctrl_fd, 0);
    if (m->mram == MAP_FAILED || m->wram == MAP_FAILED || m->ctrl == MAP_FAILED) {
        op_fail(err, errlen, "cannot map the emulated memory of %u DPUs: %s", m->nr_dpus, strerror(errno));
        goto bad;
    }
    m->ctrl->magic = OP_CTRL_MAGIC;
    m->ctrl->layout = OP_CTRL_LAYOUT;
    m->ctrl->nr_dpus = m->nr_dpus;
    m->ctrl->wram_size = m->wram_size;
    m->ctrl->mram_size = m->mram_size;
    m->ctrl->host_pid = getpid();
    m->ctrl->mram_fd = m->mram_fd;
    m->ctrl->wram_fd = m->wram_fd;
    m->ctrl->budget_ns = cfg->budget_ns;
    m->ctrl->memory_limit = cfg->memory_limit ? cfg->memory_limit : default_memory_limit();
    m->ctrl->nr_workers = m->nr_workers;
    m->ctrl->desc = cfg->desc;
    if (op_mram_init(m, err, errlen) != 0)
        goto bad;
    for (unsigned i = 0; i < OP_MAX_WORKERS; i++)
        atomic_store(&m->ctrl->workers[i].current_dpu, -1);
    /* the spawner takes no signal meant for the program's own threads */
    sigset_t all, mask;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &mask);
    int rc = pthread_create(&m->spawner, NULL, spawner_main, m);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    if (rc != 0) {
        op_fail(err, errlen, "cannot start the thread that starts workers: %s", strerror(rc));
        goto bad;
    }
    m->has_spawner = 1;
    return m;
bad:
    op_machine_destroy(m);
    return NULL;
}

static void stop_worker(struct worker *w)
{
    if (!w->pid)
        return;
    close(w->sock);
    int st;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
        ;
    w->pid = 0;
}

void op_machine_destroy(struct op_machine *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->lock); /* launches running or waiting on other threads finish first */
    while (m->launches)
        pthread_cond_wait(&m->changed, &m->lock);
    pthread_mutex_unlock(&m->lock);
    for (unsigned i = 0; i < m->nr_workers; i++)
        stop_worker(&m->workers[i]);
    if (m->has_spawner) {
        pthread_mutex_lock(&m->spawn_lock);
        m->spawn_quit = 1;
        pthread_cond_broadcast(&m->spawn_cond);
        pthread_mutex_unlock(&m->spawn_lock);
        pthread_join(m->spawner, NULL);
    }
    if (m->programs)
        for (uint32_t d = 0; d < m->nr_dpus; d++)
            op_machine_unload(m, d);
    if (m->mram && m->mram != MAP_FAILED)
        munmap(m->mram, (uint64_t)m->nr_dpus * m->mram_size);
    if (m->wram && m->wram != MAP_FAILED)
        munmap(m->wram, (uint64_t)m->nr_dpus * OP_WRAM_STRIDE);
    if (m->ctrl && m->ctrl != MAP_FAILED)
        munmap(m->ctrl, op_ctrl_size(m->nr_dpus, m->nr_chunks));
    op_mram_fini(m);
    int fds[] = {m->mram_fd, m->wram_fd, m->ctrl_fd};
    for (int i = 0; i < 3; i++)
        if (fds[i] > 0)
            close(fds[i]);
    free(m->programs);
    free(m->dpu_busy);
    free(m->home);
    pthread_cond_destroy(&m->changed);
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->spawn_cond);
    pthread_mutex_destroy(&m->spawn_lock);
    free(m);
}

const struct op_machine_config *op_machine_config(const struct op_machine *m) { return &m->cfg; }
uint32_t op_machine_nr_dpus(const struct op_machine *m) { return m->nr_dpus; }
uint64_t op_machine_mram_size(const struct op_machine *m) { return m->mram_size; }
uint32_t op_machine_wram_size(const struct op_machine *m) { return m->wram_size; }
uint32_t op_machine_dpus_per_rank(const struct op_machine *m) { return m->cfg.desc.chips_per_rank * m->cfg.desc.dpus_per_chip; }
uint32_t op_machine_max_tasklets(const struct op_machine *m) { return m->cfg.desc.nr_tasklets; }
uint32_t op_machine_frequency_mhz(const struct op_machine *m) { return (uint32_t)m->cfg.desc.freq_mhz; }
unsigned op_machine_workers(const struct op_machine *m) { return m->nr_workers; }

uint8_t *op_machine_wram(struct op_machine *m, uint32_t dpu)
{
    return m->wram + (uint64_t)dpu * OP_WRAM_STRIDE;
}

/* ---- programs -------------------------------------------------------------- */

struct op_program *op_program_create(const void *bytes, size_t len, char *err, size_t errlen)
{
    static _Atomic uint64_t next_id = 1;
    struct op_program *p = calloc(1, sizeof *p);
    if (!p) {
        op_fail(err, errlen, "out of memory");
        return NULL;
    }
    if (op_image_parse(bytes, len, &p->img, err, errlen) != 0) {
        free(p);
        return NULL;
    }
    p->fd = op_make_memfd("openpim-program", len);
    if (p->fd < 0 || pwrite(p->fd, bytes, len, 0) != (ssize_t)len) {
        op_fail(err, errlen, "cannot store the program: %s", strerror(errno));
        if (p->fd >= 0)
            close(p->fd);
        op_image_free(&p->img);
        free(p);
        return NULL;
    }
    p->id = atomic_fetch_add(&next_id, 1);
    p->refs = 1;
    return p;
}

void op_program_get(struct op_program *p)
{
    p->refs++;
}

void op_program_put(struct op_program *p)
{
    if (p && --p->refs == 0) {
        close(p->fd);
        op_image_free(&p->img);
        free(p);
    }
}

int op_machine_load(struct op_machine *m, uint32_t dpu, struct op_program *p, char *err, size_t errlen)
{
    const struct op_image *img = &p->img;
    if (img->wram_size > m->wram_size)
        return op_fail(err, errlen, "program built for a %u-byte WRAM, this DPU has %u (check -mcpu / UPMEM_PROFILE)",
                    img->wram_size, m->wram_size);
    if (img->nr_tasklets > op_machine_max_tasklets(m))
        return op_fail(err, errlen, "program uses %u tasklets, this DPU runs at most %u", img->nr_tasklets,
                    op_machine_max_tasklets(m));
    if (img->mram_init_len && (uint64_t)(img->mram_init_addr - OP_MRAM_BASE) + img->mram_init_len > m->mram_size)
        return op_fail(err, errlen, "program's MRAM variables exceed the MRAM");
    /* MRAM variables may lie in a shared chunk: the DPU's own copy first */
    if (img->mram_init_len &&
        op_machine_mram_prepare(m, dpu, img->mram_init_addr - OP_MRAM_BASE, img->mram_init_len, err, errlen) != 0)
        return -1;
    uint8_t *w = op_machine_wram(m, dpu);
    memcpy(w, img->wram_init, img->wram_init_len);
    memset(w + img->wram_init_len, 0, OP_WRAM_STRIDE - img->wram_init_len);
    if (img->mram_init_len)
        memcpy(op_machine_mram(m, dpu) + (img->mram_init_addr - OP_MRAM_BASE), img->mram_init, img->mram_init_len);
    op_program_get(p);
    op_machine_unload(m, dpu);
    m->programs[dpu] = p;
    struct op_dpu_program *cp = &op_ctrl_prog(m->ctrl)[dpu];
    cp->id = p->id;
    cp->fd = p->fd;
    cp->nr_tasklets = img->nr_tasklets;
    return 0;
}

struct op_program *op_machine_program(struct op_machine *m, uint32_t dpu)
{
    return m->programs[dpu];
}

void op_machine_unload(struct op_machine *m, uint32_t dpu)
{
    if (m->programs[dpu]) {
        op_program_put(m->programs[dpu]);
        m->programs[dpu] = NULL;
        memset(&op_ctrl_prog(m->ctrl)[dpu], 0, sizeof(struct op_dpu_program));
    }
}

uint64_t op_machine_memory_limit(const struct op_machine *m)
{
    return m->ctrl->memory_limit;
}

/* ---- workers -------------------------------------------------------------- */

static int worker_path(char *out, size_t len)
{
    const char *env = getenv("OPENPIM_WORKER");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return 0;
    }
    Dl_info info;
    if (!dladdr((void *)op_machine_create, &info) || !info.dli_fname)
        return -1;
    char lib[PATH_MAX];
    if (!realpath(info.dli_fname, lib))
        return -1;
    char *slash = strrchr(lib, '/');
    if (!slash)
        return -1;
    *slash = 0;
    int n = snprintf(out, len, "%s/openpim/openpim-worker", lib);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

static int spawn_worker(struct op_machine *m, unsigned i, char *err, size_t errlen)
{
    char path[PATH_MAX];
    if (worker_path(path, sizeof path) != 0 || access(path, X_OK) != 0)
        return op_fail(err, errlen, "cannot find openpim-worker next to libdpu (set OPENPIM_WORKER)");
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return op_fail(err, errlen, "socketpair: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 3); /* the worker's socket is fd 3 */
    char a_ctrl[16], a_idx[16];
    snprintf(a_ctrl, sizeof a_ctrl, "%d", m->ctrl_fd);
    snprintf(a_idx, sizeof a_idx, "%u", i);
    char *argv[] = {path, a_ctrl, "3", a_idx, NULL};
    /* the spawner blocks every signal; the worker starts with none blocked
     * (its budget timer's SIGALRM must arrive) */
    posix_spawnattr_t at;
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_init(&at);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int rc = posix_spawn(&pid, path, &fa, &at, argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        return op_fail(err, errlen, "cannot start %s: %s", path, strerror(rc));
    }
    m->workers[i].pid = pid;
    m->workers[i].sock = sv[0];
    m->ctrl->workers[i].pid = pid;
    return 0;
}

/* A worker gets SIGKILL when the thread that started it ends (PR_SET_PDEATHSIG
 * follows the parent thread, not the process), so workers are not started by
 * the launching threads, which may end while another launch uses the worker:
 * one thread that lives as long as the machine starts them all. */
static void *spawner_main(void *arg)
{
    struct op_machine *m = arg;
    pthread_mutex_lock(&m->spawn_lock);
    for (;;) {
        while (m->spawn_state != SPAWN_ASKED && !m->spawn_quit)
            pthread_cond_wait(&m->spawn_cond, &m->spawn_lock);
        if (m->spawn_state != SPAWN_ASKED)
            break;
        m->spawn_rc = spawn_worker(m, m->spawn_index, m->spawn_err, sizeof m->spawn_err);
        m->spawn_state = SPAWN_DONE;
        pthread_cond_broadcast(&m->spawn_cond);
    }
    pthread_mutex_unlock(&m->spawn_lock);
    return NULL;
}

/* Starts worker i (held by the caller's launch) on the spawner thread. */
static int start_worker(struct op_machine *m, unsigned i, char *err, size_t errlen)
{
    if (getpid() != m->ctrl->host_pid) /* a fork has no spawner thread: it would wait for ever */
        return op_fail(err, errlen, "this machine belongs to process %d: a forked process cannot run its launches",
                    (int)m->ctrl->host_pid);
    pthread_mutex_lock(&m->spawn_lock);
    while (m->spawn_state != SPAWN_IDLE)
        pthread_cond_wait(&m->spawn_cond, &m->spawn_lock);
    m->spawn_index = i;
    m->spawn_state = SPAWN_ASKED;
    pthread_cond_broadcast(&m->spawn_cond);
    while (m->spawn_state != SPAWN_DONE)
        pthread_cond_wait(&m->spawn_cond, &m->spawn_lock);
    int rc = m->spawn_rc;
    if (rc != 0)
        snprintf(err, errlen, "%s", m->spawn_err);
    m->spawn_state = SPAWN_IDLE;
    pthread_cond_broadcast(&m->spawn_cond);
    pthread_mutex_unlock(&m->spawn_lock);
    return rc;
}

/* The worker's own timer stops a DPU at its budget; the host steps in only
 * when that cannot work (a worker stuck or stopped, its timer signal blocked),
 * after a grace as long as the budget and at least GRACE_MIN_NS. */
#define GRACE_MIN_NS 200000000ull
/* A worker that holds a launch without running a DPU this long (it should be
 * taking one or answering) is stuck: ended like an overrunning one.  Generous:
 * a new worker's start-up counts too. */
#define STUCK_NS 10000000000ull

static uint64_t overrun_limit(uint64_t budget)
{
    return budget + (budget > GRACE_MIN_NS ? budget : GRACE_MIN_NS);
}

/* Kills worker i if asked, closes its socket and reaps it; its wait status. */
static int reap_worker(struct op_machine *m, unsigned i, int kill_it)
{
    int status = 0;
    if (kill_it)
        kill(m->workers[i].pid, SIGKILL);
    close(m->workers[i].sock);
    while (waitpid(m->workers[i].pid, &status, 0) < 0 && errno == EINTR)
        ;
    m->workers[i].pid = 0;
    m->ctrl->workers[i].pid = 0;
    return status;
}

static void blame(struct op_ctrl *c, int32_t dpu, enum op_fault why, const char *fmt, ...)
{
    struct op_dpu_status *r = &op_ctrl_status(c)[dpu];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->fault_msg, sizeof r->fault_msg, fmt, ap);
    va_end(ap);
    r->fault = why;
    r->fault_tasklet = 0;
    r->fault_pc = 0;
}

static void blame_death(struct op_ctrl *c, int32_t dpu, int status)
{
    if (WIFSIGNALED(status))
        blame(c, dpu, OP_FAULT_WORKER, "the worker running DPU %d died: signal %d (%s)", dpu, WTERMSIG(status),
              strsignal(WTERMSIG(status)));
    else
        blame(c, dpu, OP_FAULT_WORKER, "the worker running DPU %d exited with status %d", dpu,
              WEXITSTATUS(status));
}

/* The DPU worker slot s is running and since when, or -1 when it runs none
 * (or is switching DPUs right now: the caller looks again soon). */
static int32_t running_dpu(struct op_worker_slot *s, uint64_t *since)
{
    int32_t d = atomic_load(&s->current_dpu);
    *since = atomic_load(&s->started_ns);
    return atomic_load(&s->current_dpu) == d ? d : -1;
}

/* ---- launches ----------------------------------------------------------------
 * Launches on disjoint DPU sets run at once.  Each one claims, under m->lock,
 * its DPUs, a launch slot, a region of launch_list and some free workers (at
 * least one, at most one per DPU); a launch that shares a DPU with a running
 * one waits for it, as does one that finds no worker free.  The claimed
 * workers are the launch's alone until each answers: only its thread talks to
 * them and restarts them. */

/* What one launch holds. */
struct claim {
    op_watch_fn *watch;             /* the caller's progress callback, or NULL */
    void *watch_arg;
    unsigned slot;
    uint32_t base;                  /* its region: launch_list[base, base + n) */
    unsigned want;                  /* workers, one per chunk */
    uint16_t ws[OP_MAX_WORKERS];    /* chunk k's worker */
    uint8_t held[OP_MAX_WORKERS];   /* ws[k] not yet given back */
};

/* DPUs of the launch's slices no worker has taken yet. */
static uint64_t work_left(struct op_launch_slot *s, const struct claim *c)
{
    uint64_t left = 0;
    for (unsigned k = 0; k < c->want; k++) {
        struct op_chunk *ch = &s->chunks[c->ws[k]];
        uint32_t next = atomic_load(&ch->next);
        left += next < ch->end ? ch->end - next : 0;
    }
    return left;
}

/* First slice boundary of chunk k of a launch of n DPUs over `want` chunks. */
static uint32_t slice_start(uint32_t n, unsigned want, unsigned k)
{
    return (uint32_t)((uint64_t)n * k / want);
}

/* The lowest start of n free entries of launch_list, or -1 if none (the free
 * entries may be split between running launches: the launch then waits for
 * one of them to end).  A region starts at 0 or where another one ends. */
static int64_t free_region(const struct op_machine *m, uint32_t n)
{
    for (unsigned cand = 0; cand <= OP_MAX_WORKERS; cand++) {
        uint64_t lo;
        if (cand == OP_MAX_WORKERS)
            lo = 0;
        else if (m->slots[cand].used)
            lo = (uint64_t)m->slots[cand].base + m->slots[cand].count;
        else
            continue;
        if (lo + n > m->nr_dpus)
            continue;
        int clash = 0;
        for (unsigned s = 0; s < OP_MAX_WORKERS && !clash; s++)
            clash = m->slots[s].used && lo < (uint64_t)m->slots[s].base + m->slots[s].count &&
                    m->slots[s].base < lo + n;
        if (!clash)
            return (int64_t)lo;
    }
    return -1;
}

/* Waits (holding m->lock) until the launch can run, then claims what it
 * needs.  0, or -1 if a DPU is listed twice (nothing claimed). */
static int claim(struct op_machine *m, const uint32_t *dpus, uint32_t n, struct claim *c, char *err, size_t errlen)
{
    int64_t base = -1;
    unsigned nfree = 0, slot = OP_MAX_WORKERS;
    for (;;) {
        int shared = 0;
        for (uint32_t i = 0; i < n && !shared; i++)
            shared = m->dpu_busy[dpus[i]];
        nfree = 0;
        for (unsigned w = 0; w < m->nr_workers; w++)
            nfree += !m->worker_busy[w];
        for (slot = 0; slot < OP_MAX_WORKERS && m->slots[slot].used; slot++)
            ;
        if (!shared && nfree && slot < OP_MAX_WORKERS && (base = free_region(m, n)) >= 0)
            break;
        pthread_cond_wait(&m->changed, &m->lock);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (m->dpu_busy[dpus[i]]) {
            uint32_t twice = dpus[i];
            while (i--)
                m->dpu_busy[dpus[i]] = 0;
            return op_fail(err, errlen, "DPU %u is listed twice in one launch", twice);
        }
        m->dpu_busy[dpus[i]] = 1;
    }
    c->slot = slot;
    c->base = (uint32_t)base;
    m->slots[slot] = (struct slot){.used = 1, .base = c->base, .count = n};
    /* Chunk k goes to the worker that had its first DPU last time, if free:
     * a launch repeated under the same conditions keeps every DPU on its
     * worker (the first launch, alone, takes workers 0, 1, ...). */
    c->want = nfree < n ? nfree : n;
    for (unsigned k = 0; k < c->want; k++) {
        uint16_t h = m->home[dpus[slice_start(n, c->want, k)]];
        c->ws[k] = NO_HOME;
        if (h < m->nr_workers && !m->worker_busy[h]) {
            c->ws[k] = h;
            m->worker_busy[h] = 1;
        }
    }
    unsigned w = 0;
    for (unsigned k = 0; k < c->want; k++) {
        if (c->ws[k] != NO_HOME)
            continue;
        while (m->worker_busy[w])
            w++;
        c->ws[k] = (uint16_t)w;
        m->worker_busy[w] = 1;
    }
    for (unsigned k = 0; k < c->want; k++) {
        c->held[k] = 1;
        for (uint32_t i = slice_start(n, c->want, k); i < slice_start(n, c->want, k + 1); i++)
            m->home[dpus[i]] = c->ws[k];
    }
    return 0;
}

/* Gives worker ws[k] back as soon as it answered: another launch may use it
 * while this one waits for its other workers. */
static void give_back_worker(struct op_machine *m, struct claim *c, unsigned k)
{
    pthread_mutex_lock(&m->lock);
    m->worker_busy[c->ws[k]] = 0;
    c->held[k] = 0;
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
}

/* Runs a claimed launch: sends it to its workers and watches them until they
 * answer, die or overrun their deadlines; rounds repeat while workers die
 * with DPUs left to run. */
static int run_claimed(struct op_machine *m, const uint32_t *dpus, uint32_t n, struct claim *c, char *err,
                       size_t errlen)
{
    struct op_ctrl *ctl = m->ctrl;
    struct op_launch_slot *s = &ctl->slots[c->slot];
    /* A DPU taken by a worker that dies before it starts the DPU keeps this
     * outcome rather than the previous launch's (running it rewrites it). */
    static const char lost[] = "not run: its worker died before starting it";
    for (uint32_t i = 0; i < n; i++) {
        op_ctrl_list(ctl)[c->base + i] = dpus[i];
        struct op_dpu_status *r = &op_ctrl_status(ctl)[dpus[i]];
        r->fault = OP_FAULT_WORKER;
        r->fault_tasklet = 0;
        r->fault_pc = 0;
        memcpy(r->fault_msg, lost, sizeof lost);
    }
    for (unsigned w = 0; w < m->nr_workers; w++) {
        s->chunks[w].end = 0;
        atomic_store(&s->chunks[w].next, 0);
    }
    atomic_store(&s->done, 0);
    uint64_t watched = op_raw_monotonic_ns(); /* when watch was last called */
    for (unsigned k = 0; k < c->want; k++) {
        s->chunks[c->ws[k]].end = c->base + slice_start(n, c->want, k + 1);
        atomic_store(&s->chunks[c->ws[k]].next, c->base + slice_start(n, c->want, k));
    }
    const uint32_t cmd = OP_CMD_LAUNCH | (uint32_t)c->slot << OP_CMD_SLOT_SHIFT;
    const uint64_t budget = ctl->budget_ns, limit = budget ? overrun_limit(budget) : 0;
    const uint64_t stuck = limit > STUCK_NS ? limit : STUCK_NS;
    unsigned stalls = 0; /* rounds in a row in which no worker took a DPU */
    for (uint64_t left = work_left(s, c); left;) {
        unsigned busy = 0;
        uint8_t active[OP_MAX_WORKERS] = {0};
        uint64_t idle_since[OP_MAX_WORKERS] = {0}; /* when first seen active without a DPU */
        /* every worker first, so that a failure leaves none running the launch */
        for (unsigned k = 0; k < c->want; k++)
            if (c->held[k] && !m->workers[c->ws[k]].pid && start_worker(m, c->ws[k], err, errlen) != 0)
                return -1;
        for (unsigned k = 0; k < c->want; k++) {
            if (!c->held[k])
                continue;
            unsigned i = c->ws[k];
            if (send(m->workers[i].sock, &cmd, sizeof cmd, MSG_NOSIGNAL) == (ssize_t)sizeof cmd) {
                active[k] = 1;
                busy++;
            } else {
                reap_worker(m, i, 1);
            }
        }
        while (busy) {
            struct pollfd pfd[OP_MAX_WORKERS];
            unsigned idx[OP_MAX_WORKERS], np = 0;
            int timeout_ms = -1; /* no budget: a dead worker still closes its socket */
            uint64_t now = op_raw_monotonic_ns();
            for (unsigned k = 0; k < c->want; k++) {
                if (!active[k])
                    continue;
                unsigned i = c->ws[k];
                pfd[np].fd = m->workers[i].sock;
                pfd[np].events = POLLIN;
                idx[np++] = k;
                if (!budget)
                    continue;
                uint64_t since, wait_ns = 10000000u; /* between two DPUs: look again soon */
                int32_t dpu = running_dpu(&ctl->workers[i], &since);
                if (dpu >= 0) {
                    idle_since[k] = 0;
                } else if (!idle_since[k]) {
                    idle_since[k] = now;
                } else if (now - idle_since[k] >= stuck) {
                    reap_worker(m, i, 1); /* stuck outside any DPU: nothing to blame */
                    active[k] = 0;
                    busy--;
                    np--;
                    continue;
                }
                if (dpu >= 0 && now > since && now - since >= limit) {
                    /* its timer did not stop the DPU: end the worker, the
                     * others (or a new one) run what it had not started */
                    reap_worker(m, i, 1);
                    blame(ctl, dpu, OP_FAULT_TIMEOUT,
                          "DPU %d ran past its time budget of %.3f s and did not stop within %.3f s more: "
                          "its worker was killed", dpu, budget / 1e9, (limit - budget) / 1e9);
                    atomic_store(&ctl->workers[i].current_dpu, -1);
                    active[k] = 0;
                    busy--;
                    np--;
                    continue;
                }
                if (dpu >= 0)
                    wait_ns = since + limit - now;
                uint64_t ms64 = (wait_ns + 999999u) / 1000000u;
                int ms = ms64 < (1u << 30) ? (int)ms64 : 1 << 30;
                if (timeout_ms < 0 || ms < timeout_ms)
                    timeout_ms = ms;
            }
            if (!busy)
                break;
            if (c->watch) { /* wake up to report progress even while no worker answers */
                if (now - watched >= OP_WATCH_PERIOD_MS * 1000000ull) {
                    c->watch(c->watch_arg, atomic_load(&s->done));
                    watched = now;
                }
                if (timeout_ms < 0 || timeout_ms > OP_WATCH_PERIOD_MS)
                    timeout_ms = OP_WATCH_PERIOD_MS;
            }
            if (poll(pfd, np, timeout_ms) < 0) {
                if (errno == EINTR)
                    continue;
                int e = errno;
                for (unsigned k = 0; k < c->want; k++) /* none may go on with this launch */
                    if (active[k])
                        reap_worker(m, c->ws[k], 1);
                return op_fail(err, errlen, "poll: %s", strerror(e));
            }
            for (unsigned p = 0; p < np; p++) {
                if (!pfd[p].revents)
                    continue;
                unsigned k = idx[p], i = c->ws[k];
                uint32_t reply = 0;
                ssize_t got = recv(m->workers[i].sock, &reply, sizeof reply, 0);
                if (got < 0 && errno == EINTR)
                    continue;
                active[k] = 0;
                busy--;
                if (got == (ssize_t)sizeof reply && reply == OP_CMD_DONE) {
                    give_back_worker(m, c, k); /* it found nothing left to take */
                    continue;
                }
                /* the worker died: blame the DPU it was running */
                int32_t dpu = atomic_exchange(&ctl->workers[i].current_dpu, -1);
                int status = reap_worker(m, i, 1);
                if (dpu >= 0)
                    blame_death(ctl, dpu, status);
            }
        }
        uint64_t now_left = work_left(s, c);
        stalls = now_left < left ? 0 : stalls + 1;
        if (stalls > 3)
            return op_fail(err, errlen, "workers keep dying before they run a DPU; launch abandoned");
        left = now_left;
    }
    return 0;
}

int op_machine_launch(struct op_machine *m, const uint32_t *dpus, uint32_t n, char *err, size_t errlen)
{
    return op_machine_launch_watched(m, dpus, n, NULL, NULL, err, errlen);
}

int op_machine_launch_watched(struct op_machine *m, const uint32_t *dpus, uint32_t n, op_watch_fn *watch,
                              void *watch_arg, char *err, size_t errlen)
{
    if (n == 0)
        return 0;
    if (n > m->nr_dpus)
        return op_fail(err, errlen, "a launch of %u DPUs on a machine of %u lists some DPU twice", n, m->nr_dpus);
    for (uint32_t i = 0; i < n; i++)
        if (dpus[i] >= m->nr_dpus)
            return op_fail(err, errlen, "DPU %u does not exist (the machine has %u)", dpus[i], m->nr_dpus);
    struct claim c = {.want = 0, .watch = watch, .watch_arg = watch_arg};
    pthread_mutex_lock(&m->lock);
    m->launches++;
    int rc = claim(m, dpus, n, &c, err, errlen);
    pthread_mutex_unlock(&m->lock);
    int claimed = rc == 0;
    if (claimed) {
        rc = run_claimed(m, dpus, n, &c, err, errlen);
        op_mram_reclaim(m); /* chunks that DPU code wrote may have left shared slots unheld */
    }
    pthread_mutex_lock(&m->lock);
    if (claimed) {
        for (unsigned k = 0; k < c.want; k++)
            if (c.held[k])
                m->worker_busy[c.ws[k]] = 0;
        for (uint32_t i = 0; i < n; i++)
            m->dpu_busy[dpus[i]] = 0;
        m->slots[c.slot].used = 0;
    }
    m->launches--;
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
    return rc;
}

const struct op_dpu_status *op_machine_result(const struct op_machine *m, uint32_t dpu)
{
    return &op_ctrl_status(m->ctrl)[dpu];
}
