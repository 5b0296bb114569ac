/* SPDX-License-Identifier: MIT */
/* The emulated machine, host side (machine.h): creation and the per-rank
 * memories, programs, pools (the unit of isolation between tenants), the
 * worker processes of each pool (starting, reaping and blaming a dead one),
 * and launch scheduling.  MRAM storage and shared chunks are in mram.c. */
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
#include <stddef.h>
#include <sys/eventfd.h>
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

static void pool_destroy(struct op_pool *p);
static struct op_pool *pool_create(struct op_machine *m, char *err, size_t errlen);

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
    m->host_pid = getpid();
    m->nr_ranks = d->nr_ranks;
    m->per_rank = (uint32_t)per_rank;
    m->nr_dpus = d->nr_ranks * (uint32_t)per_rank;
    m->mram_size = d->mram_bytes;
    m->wram_size = d->wram_bytes;
    m->nr_chunks = (uint32_t)(m->mram_size / OP_MRAM_CHUNK);
    m->memory_limit = cfg->memory_limit ? cfg->memory_limit : default_memory_limit();
    m->nr_workers = cfg->workers ? cfg->workers : available_cores();
    if (m->nr_workers > OP_MAX_WORKERS)
        m->nr_workers = OP_MAX_WORKERS;
    m->rank_fd = malloc(m->nr_ranks * sizeof *m->rank_fd);
    m->pool_of = calloc(m->nr_ranks, sizeof *m->pool_of);
    m->programs = calloc(m->nr_dpus, sizeof *m->programs);
    m->dpu_busy = calloc(m->nr_dpus, sizeof *m->dpu_busy);
    m->home = malloc(m->nr_dpus * sizeof *m->home);
    if (!m->rank_fd || !m->pool_of || !m->programs || !m->dpu_busy || !m->home) {
        op_fail(err, errlen, "out of memory");
        goto bad;
    }
    for (uint32_t k = 0; k < m->nr_dpus; k++)
        m->home[k] = NO_HOME;
    for (uint32_t r = 0; r < m->nr_ranks; r++)
        m->rank_fd[r] = -1;
    /* one memfd per rank, mapped side by side in the host's views of every
     * DPU's WRAM and MRAM */
    uint64_t wram_part = op_rank_mram_offset(m->per_rank, 0, m->mram_size);
    m->mram = mmap(NULL, (uint64_t)m->nr_dpus * m->mram_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    m->wram = mmap(NULL, (uint64_t)m->nr_dpus * OP_WRAM_STRIDE, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m->mram == MAP_FAILED || m->wram == MAP_FAILED) {
        op_fail(err, errlen, "cannot reserve the emulated memory of %u DPUs: %s", m->nr_dpus, strerror(errno));
        goto bad;
    }
    for (uint32_t r = 0; r < m->nr_ranks; r++) {
        char name[32];
        snprintf(name, sizeof name, "openpim-rank-%u", r);
        m->rank_fd[r] = op_make_memfd(name, op_rank_memfd_size(m->per_rank, m->mram_size));
        if (m->rank_fd[r] < 0 ||
            mmap(m->wram + (uint64_t)r * m->per_rank * OP_WRAM_STRIDE, wram_part, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_FIXED, m->rank_fd[r], 0) == MAP_FAILED ||
            mmap(m->mram + (uint64_t)r * m->per_rank * m->mram_size, (uint64_t)m->per_rank * m->mram_size,
                 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, m->rank_fd[r], (off_t)wram_part) ==
                MAP_FAILED) {
            op_fail(err, errlen, "cannot create the emulated memory of rank %u: %s", r, strerror(errno));
            goto bad;
        }
    }
    if (op_mram_init(m, err, errlen) != 0)
        goto bad;
    /* the default pool: every rank, until a rank is bound to another one */
    if (!pool_create(m, err, errlen))
        goto bad;
    for (uint32_t r = 0; r < m->nr_ranks; r++)
        atomic_store(&m->pool_of[r], m->pools);
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

/* Ends worker i of the pool (not held by a launch, or held by the caller's):
 * SIGKILL, so that no DPU code that took its worker over can outlive it. */
static void end_worker(struct op_pool *p, unsigned i)
{
    struct worker *w = &p->workers[i];
    if (!w->pid)
        return;
    kill(w->pid, SIGKILL);
    close(w->sock);
    int st;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
        ;
    w->pid = 0;
    p->ctrl->workers[i].pid = 0;
}

void op_machine_destroy(struct op_machine *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->lock); /* launches running or waiting on other threads finish first */
    while (m->launches)
        pthread_cond_wait(&m->changed, &m->lock);
    pthread_mutex_unlock(&m->lock);
    for (struct op_pool *p = m->pools; p; p = p->next)
        for (unsigned i = 0; i < m->nr_workers; i++)
            end_worker(p, i);
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
    while (m->pools) {
        struct op_pool *p = m->pools;
        m->pools = p->next;
        pool_destroy(p);
    }
    if (m->mram && m->mram != MAP_FAILED)
        munmap(m->mram, (uint64_t)m->nr_dpus * m->mram_size);
    if (m->wram && m->wram != MAP_FAILED)
        munmap(m->wram, (uint64_t)m->nr_dpus * OP_WRAM_STRIDE);
    op_mram_fini(m);
    for (uint32_t r = 0; m->rank_fd && r < m->nr_ranks; r++)
        if (m->rank_fd[r] >= 0)
            close(m->rank_fd[r]);
    free(m->rank_fd);
    free(m->pool_of);
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
uint32_t op_machine_dpus_per_rank(const struct op_machine *m) { return m->per_rank; }
uint32_t op_machine_max_tasklets(const struct op_machine *m) { return m->cfg.desc.nr_tasklets; }
uint32_t op_machine_frequency_mhz(const struct op_machine *m) { return (uint32_t)m->cfg.desc.freq_mhz; }
unsigned op_machine_workers(const struct op_machine *m) { return m->nr_workers; }

uint8_t *op_machine_wram(struct op_machine *m, uint32_t dpu)
{
    return m->wram + (uint64_t)dpu * OP_WRAM_STRIDE;
}

/* ---- programs -------------------------------------------------------------- */

static _Atomic uint64_t next_program_id = 1;

struct op_program *op_program_create(const void *bytes, size_t len, char *err, size_t errlen)
{
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
    p->id = atomic_fetch_add(&next_program_id, 1);
    p->refs = 1;
    return p;
}

void op_program_get(struct op_program *p)
{
    p->refs++;
}

struct op_program *op_program_create_fd(int fd, size_t len, char *err, size_t errlen)
{
    static const int seals = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != len || (fcntl(fd, F_GET_SEALS) & seals) != seals) {
        op_fail(err, errlen, "a program's memfd must hold its %zu bytes and be sealed", len);
        close(fd);
        return NULL;
    }
    struct op_program *p = calloc(1, sizeof *p);
    void *map = len ? mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (!p || map == MAP_FAILED) {
        op_fail(err, errlen, "cannot map the program: %s", p ? strerror(errno) : "out of memory");
        if (map != MAP_FAILED)
            munmap(map, len);
        free(p);
        close(fd);
        return NULL;
    }
    if (op_image_parse_in_place(map, len, &p->img, err, errlen) != 0) {
        munmap(map, len);
        free(p);
        close(fd);
        return NULL;
    }
    p->fd = fd;
    p->map = map;
    p->map_len = len;
    p->id = atomic_fetch_add(&next_program_id, 1);
    p->refs = 1;
    return p;
}

void op_program_put(struct op_program *p)
{
    if (p && --p->refs == 0) {
        close(p->fd);
        op_image_free(&p->img);
        if (p->map)
            munmap(p->map, p->map_len);
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
    struct op_pool *pool = op_pool_of(m, dpu);
    if (pool) /* else written when the rank joins a pool */
        op_ctrl_prog(pool->ctrl)[dpu] = (struct op_dpu_program){.id = p->id, .nr_tasklets = img->nr_tasklets};
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
        struct op_pool *pool = op_pool_of(m, dpu);
        if (pool)
            memset(&op_ctrl_prog(pool->ctrl)[dpu], 0, sizeof(struct op_dpu_program));
    }
}

uint64_t op_machine_memory_limit(const struct op_machine *m)
{
    return m->memory_limit;
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

/* Starts worker i of pool p with its descriptors in place (abi/shared.h,
 * OP_WORKER_FD_*): its socket, the pool's control block and store, the memfds
 * of the pool's ranks; nothing else of the host's (every other descriptor is
 * close-on-exec). */
static int spawn_worker(struct op_pool *p, unsigned i, char *err, size_t errlen)
{
    struct op_machine *m = p->m;
    char path[PATH_MAX];
    if (worker_path(path, sizeof path) != 0 || access(path, X_OK) != 0)
        return op_fail(err, errlen, "cannot find openpim-worker next to libdpu (set OPENPIM_WORKER)");
    uint32_t nr = 0;
    for (uint32_t r = 0; r < m->nr_ranks; r++)
        nr += atomic_load(&m->pool_of[r]) == p;
    /* "INDEX RANK...": 11 characters per number at most */
    char *args = malloc(12 * ((size_t)nr + 1)), **argv = malloc(((size_t)nr + 3) * sizeof *argv);
    int *from = malloc(((size_t)nr + 3) * sizeof *from), sv[2] = {-1, -1};
    unsigned nfrom = 0;
    int rc = -1;
    if (!args || !argv || !from) {
        op_fail(err, errlen, "out of memory");
        goto out;
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        op_fail(err, errlen, "socketpair: %s", strerror(errno));
        goto out;
    }
    /* the sources first go above every target, so that no dup2 overwrites a
     * source and none is a dup2 onto itself (which would keep close-on-exec) */
    int above = OP_WORKER_FD_RANKS + (int)nr;
    int src[] = {sv[1], p->ctrl_fd, p->store_fd};
    unsigned a = 0;
    argv[0] = path;
    argv[1] = args;
    a += (unsigned)sprintf(args, "%u", i) + 1;
    unsigned na = 2;
    for (unsigned k = 0; k < 3; k++)
        if ((from[nfrom++] = fcntl(src[k], F_DUPFD_CLOEXEC, above)) < 0)
            goto dup_failed;
    for (uint32_t r = 0; r < m->nr_ranks; r++)
        if (atomic_load(&m->pool_of[r]) == p) {
            argv[na++] = args + a;
            a += (unsigned)sprintf(args + a, "%u", r) + 1;
            if ((from[nfrom++] = fcntl(m->rank_fd[r], F_DUPFD_CLOEXEC, above)) < 0)
                goto dup_failed;
        }
    argv[na] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    for (unsigned k = 0; k < nfrom; k++)
        posix_spawn_file_actions_adddup2(&fa, from[k], OP_WORKER_FD_SOCKET + (int)k);
    /* the spawner blocks every signal; the worker starts with none blocked
     * (its budget timer's SIGALRM must arrive) */
    posix_spawnattr_t at;
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_init(&at);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int e = posix_spawn(&pid, path, &fa, &at, argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0) {
        op_fail(err, errlen, "cannot start %s: %s", path, strerror(e));
        goto out;
    }
    p->workers[i] = (struct worker){.pid = pid, .sock = sv[0], .ranks_gen = p->ranks_gen};
    p->ctrl->workers[i].pid = pid;
    sv[0] = -1;
    rc = 0;
    goto out;
dup_failed:
    op_fail(err, errlen, "cannot pass a descriptor to a worker: %s", strerror(errno));
    nfrom--;
out:
    for (unsigned k = 0; k < nfrom; k++)
        close(from[k]);
    if (sv[0] >= 0)
        close(sv[0]);
    if (sv[1] >= 0)
        close(sv[1]);
    free(args);
    free(argv);
    free(from);
    return rc;
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
        m->spawn_rc = spawn_worker(m->spawn_pool, m->spawn_index, m->spawn_err, sizeof m->spawn_err);
        m->spawn_state = SPAWN_DONE;
        pthread_cond_broadcast(&m->spawn_cond);
    }
    pthread_mutex_unlock(&m->spawn_lock);
    return NULL;
}

/* Starts worker i of pool p (held by the caller's launch) on the spawner thread. */
static int start_worker(struct op_pool *p, unsigned i, char *err, size_t errlen)
{
    struct op_machine *m = p->m;
    if (getpid() != m->host_pid) /* a fork has no spawner thread: it would wait for ever */
        return op_fail(err, errlen, "this machine belongs to process %d: a forked process cannot run its launches",
                    (int)m->host_pid);
    pthread_mutex_lock(&m->spawn_lock);
    while (m->spawn_state != SPAWN_IDLE)
        pthread_cond_wait(&m->spawn_cond, &m->spawn_lock);
    m->spawn_pool = p;
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

/* ---- pools -------------------------------------------------------------------
 * A pool's workers run the DPU code of its ranks and hold nothing of any
 * other rank (abi/shared.h).  A rank changes pools only between launches of
 * both: the workers of both pools are ended first (a worker holds the
 * descriptors its pool had when it started; the pool the rank leaves must keep
 * none of its memory), and the next launches start new ones. */

static struct op_pool *pool_create(struct op_machine *m, char *err, size_t errlen)
{
    struct op_pool *p = calloc(1, sizeof *p);
    if (!p) {
        op_fail(err, errlen, "out of memory");
        return NULL;
    }
    p->m = m;
    p->store_fd = -1;
    p->ctrl_fd = op_make_memfd("openpim-ctrl", op_ctrl_size(m->nr_dpus, m->nr_chunks));
    p->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (p->ctrl_fd >= 0)
        p->ctrl = mmap(NULL, op_ctrl_size(m->nr_dpus, m->nr_chunks), PROT_READ | PROT_WRITE, MAP_SHARED, p->ctrl_fd, 0);
    if (p->ctrl_fd < 0 || p->wake_fd < 0 || !p->ctrl || p->ctrl == MAP_FAILED) {
        op_fail(err, errlen, "cannot create a pool's control block: %s", strerror(errno));
        if (p->ctrl == MAP_FAILED)
            p->ctrl = NULL;
        pool_destroy(p);
        return NULL;
    }
    struct op_ctrl *c = p->ctrl;
    c->magic = OP_CTRL_MAGIC;
    c->layout = OP_CTRL_LAYOUT;
    c->nr_dpus = m->nr_dpus;
    c->dpus_per_rank = m->per_rank;
    c->wram_size = m->wram_size;
    c->mram_size = m->mram_size;
    c->nr_chunks = m->nr_chunks;
    c->budget_ns = m->cfg.budget_ns;
    c->memory_limit = m->memory_limit;
    c->nr_workers = m->nr_workers;
    c->desc = m->cfg.desc;
    for (unsigned i = 0; i < OP_MAX_WORKERS; i++)
        atomic_store(&c->workers[i].current_dpu, -1);
    if (op_store_init(p, err, errlen) != 0) {
        pool_destroy(p);
        return NULL;
    }
    pthread_mutex_lock(&m->lock);
    struct op_pool **at = &m->pools;
    while (*at)
        at = &(*at)->next;
    *at = p;
    pthread_mutex_unlock(&m->lock);
    return p;
}

static void pool_destroy(struct op_pool *p)
{
    for (unsigned i = 0; i < OP_MAX_WORKERS; i++)
        end_worker(p, i);
    op_store_fini(p);
    if (p->ctrl)
        munmap(p->ctrl, op_ctrl_size(p->m->nr_dpus, p->m->nr_chunks));
    if (p->ctrl_fd >= 0)
        close(p->ctrl_fd);
    if (p->wake_fd >= 0)
        close(p->wake_fd);
    free(p);
}

struct op_pool *op_machine_pool_create(struct op_machine *m, char *err, size_t errlen)
{
    return pool_create(m, err, errlen);
}

struct op_pool *op_machine_default_pool(struct op_machine *m)
{
    return m->pools;
}

struct op_pool *op_machine_rank_pool(struct op_machine *m, uint32_t rank)
{
    pthread_mutex_lock(&m->lock);
    struct op_pool *p = rank < m->nr_ranks ? atomic_load(&m->pool_of[rank]) : NULL;
    pthread_mutex_unlock(&m->lock);
    return p;
}

/* Ends the pool's idle workers (under m->lock, with no launch of the pool
 * running: every worker is idle). */
static void end_workers(struct op_pool *p)
{
    for (unsigned i = 0; i < OP_MAX_WORKERS; i++)
        end_worker(p, i);
}

int op_machine_bind_rank(struct op_machine *m, uint32_t rank, struct op_pool *to, char *err, size_t errlen)
{
    if (rank >= m->nr_ranks)
        return op_fail(err, errlen, "no rank %u: the machine has %u", rank, m->nr_ranks);
    pthread_mutex_lock(&m->lock);
    struct op_pool *from = atomic_load(&m->pool_of[rank]);
    if (from == to) {
        pthread_mutex_unlock(&m->lock);
        return 0;
    }
    /* no launch of either pool may run while they change */
    while ((from && from->launches) || (to && to->launches))
        pthread_cond_wait(&m->changed, &m->lock);
    if (from) {
        end_workers(from);
        from->ranks_gen++;
    }
    if (to) {
        end_workers(to);
        to->ranks_gen++;
    }
    /* what the rank's DPUs hold in the pool they leave goes with them (under
     * the lock: no launch of either pool starts workers meanwhile) */
    op_mram_leave_pool(m, rank);
    atomic_store(&m->pool_of[rank], to);
    for (uint32_t i = 0; i < m->per_rank; i++) {
        uint32_t dpu = rank * m->per_rank + i;
        m->home[dpu] = NO_HOME;
        op_machine_mram(m, dpu); /* the host's mapping as the chunk map says: all its own */
        if (!to)
            continue;
        /* workers of `to` may have written anything here: the host's values */
        struct op_ctrl *c = to->ctrl;
        _Atomic uint32_t *map = op_ctrl_chunks(c, dpu);
        for (uint32_t k = 0; k < m->nr_chunks; k++)
            atomic_store(&map[k], 0);
        atomic_store(&op_ctrl_gen(c)[dpu], m->host_gen[dpu]);
        memset(&op_ctrl_status(c)[dpu], 0, sizeof(struct op_dpu_status));
        op_ctrl_prog(c)[dpu] = m->programs[dpu] ? (struct op_dpu_program){.id = m->programs[dpu]->id,
                                                  .nr_tasklets = m->programs[dpu]->img.nr_tasklets}
                                                : (struct op_dpu_program){0};
    }
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
    return 0;
}

void op_machine_pool_cancel(struct op_pool *p, const char *why)
{
    struct op_machine *m = p->m;
    pthread_mutex_lock(&m->lock);
    if (!p->cancelled[0])
        snprintf(p->cancelled, sizeof p->cancelled, "%s", why && *why ? why : "launch cancelled");
    for (unsigned i = 0; i < OP_MAX_WORKERS; i++) /* a launch holding a worker ends it itself */
        if (!p->worker_busy[i])
            end_worker(p, i);
    uint64_t one = 1;
    if (write(p->wake_fd, &one, sizeof one) != (ssize_t)sizeof one) { /* already signalled */
    }
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
}

void op_machine_pool_destroy(struct op_pool *p)
{
    if (!p)
        return;
    struct op_machine *m = p->m;
    pthread_mutex_lock(&m->lock);
    while (p->launches)
        pthread_cond_wait(&m->changed, &m->lock);
    int bound = 0;
    for (uint32_t r = 0; r < m->nr_ranks; r++)
        bound |= atomic_load(&m->pool_of[r]) == p;
    if (bound || p == m->pools) { /* the caller's mistake: keep it rather than leave ranks without */
        pthread_mutex_unlock(&m->lock);
        return;
    }
    for (struct op_pool **at = &m->pools; *at; at = &(*at)->next)
        if (*at == p) {
            *at = p->next;
            break;
        }
    pthread_mutex_unlock(&m->lock);
    pool_destroy(p);
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

/* Kills worker i of the pool if asked, closes its socket and reaps it; its
 * wait status. */
static int reap_worker(struct op_pool *p, unsigned i, int kill_it)
{
    int status = 0;
    if (kill_it)
        kill(p->workers[i].pid, SIGKILL);
    close(p->workers[i].sock);
    while (waitpid(p->workers[i].pid, &status, 0) < 0 && errno == EINTR)
        ;
    p->workers[i].pid = 0;
    p->ctrl->workers[i].pid = 0;
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

/* The DPU worker i of pool p is running and since when, or -1 when it runs
 * none (or is switching DPUs right now: the caller looks again soon).  The
 * worker writes these: a DPU that is not one of its pool's is none. */
static int32_t running_dpu(struct op_pool *p, unsigned i, uint64_t *since)
{
    struct op_worker_slot *s = &p->ctrl->workers[i];
    int32_t d = atomic_load(&s->current_dpu);
    *since = atomic_load(&s->started_ns);
    if (d < 0 || (uint32_t)d >= p->m->nr_dpus || op_pool_of(p->m, (uint32_t)d) != p)
        return -1;
    return atomic_load(&s->current_dpu) == d ? d : -1;
}

/* ---- launches ----------------------------------------------------------------
 * A launch runs on the workers of the pool its DPUs belong to.  Launches on
 * disjoint DPU sets run at once.  Each one claims, under m->lock, its DPUs, a
 * launch slot, a region of launch_list and some free workers of the pool (at
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
    struct op_program **progs;      /* the launch's programs, each once */
    uint32_t nr_progs;
};

/* DPUs of the launch's slices no worker has taken yet. */
static uint64_t work_left(struct op_launch_slot *s, const struct claim *c)
{
    uint64_t left = 0;
    for (unsigned k = 0; k < c->want; k++) {
        struct op_chunk *ch = &s->chunks[c->ws[k]];
        uint32_t next = atomic_load(&ch->next), end = ch->end;
        left += next < end ? end - next : 0;
    }
    return left;
}

/* First slice boundary of chunk k of a launch of n DPUs over `want` chunks. */
static uint32_t slice_start(uint32_t n, unsigned want, unsigned k)
{
    return (uint32_t)((uint64_t)n * k / want);
}

/* The lowest start of n free entries of the pool's launch_list, or -1 if none
 * (the free entries may be split between running launches: the launch then
 * waits for one of them to end).  A region starts at 0 or where another one
 * ends. */
static int64_t free_region(const struct op_pool *p, uint32_t n)
{
    for (unsigned cand = 0; cand <= OP_MAX_WORKERS; cand++) {
        uint64_t lo;
        if (cand == OP_MAX_WORKERS)
            lo = 0;
        else if (p->slots[cand].used)
            lo = (uint64_t)p->slots[cand].base + p->slots[cand].count;
        else
            continue;
        if (lo + n > p->m->nr_dpus)
            continue;
        int clash = 0;
        for (unsigned s = 0; s < OP_MAX_WORKERS && !clash; s++)
            clash = p->slots[s].used && lo < (uint64_t)p->slots[s].base + p->slots[s].count &&
                    p->slots[s].base < lo + n;
        if (!clash)
            return (int64_t)lo;
    }
    return -1;
}

/* Waits (holding m->lock) until the launch can run, then claims what it
 * needs.  0, or -1 if a DPU is listed twice or the pool was cancelled
 * (nothing claimed). */
static int claim(struct op_pool *p, const uint32_t *dpus, uint32_t n, struct claim *c, char *err, size_t errlen)
{
    struct op_machine *m = p->m;
    int64_t base = -1;
    unsigned nfree = 0, slot = OP_MAX_WORKERS;
    for (;;) {
        if (p->cancelled[0])
            return op_fail(err, errlen, "%s", p->cancelled);
        int shared = 0;
        for (uint32_t i = 0; i < n && !shared; i++)
            shared = m->dpu_busy[dpus[i]];
        nfree = 0;
        for (unsigned w = 0; w < m->nr_workers; w++)
            nfree += !p->worker_busy[w];
        for (slot = 0; slot < OP_MAX_WORKERS && p->slots[slot].used; slot++)
            ;
        if (!shared && nfree && slot < OP_MAX_WORKERS && (base = free_region(p, n)) >= 0)
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
    p->slots[slot] = (struct slot){.used = 1, .base = c->base, .count = n};
    /* Chunk k goes to the worker that had its first DPU last time, if free:
     * a launch repeated under the same conditions keeps every DPU on its
     * worker (the first launch, alone, takes workers 0, 1, ...). */
    c->want = nfree < n ? nfree : n;
    for (unsigned k = 0; k < c->want; k++) {
        uint16_t h = m->home[dpus[slice_start(n, c->want, k)]];
        c->ws[k] = NO_HOME;
        if (h < m->nr_workers && !p->worker_busy[h]) {
            c->ws[k] = h;
            p->worker_busy[h] = 1;
        }
    }
    unsigned w = 0;
    for (unsigned k = 0; k < c->want; k++) {
        if (c->ws[k] != NO_HOME)
            continue;
        while (p->worker_busy[w])
            w++;
        c->ws[k] = (uint16_t)w;
        p->worker_busy[w] = 1;
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
static void give_back_worker(struct op_pool *p, struct claim *c, unsigned k)
{
    pthread_mutex_lock(&p->m->lock);
    p->worker_busy[c->ws[k]] = 0;
    c->held[k] = 0;
    pthread_cond_broadcast(&p->m->changed);
    pthread_mutex_unlock(&p->m->lock);
}

/* The launch's programs, each once (the workers get their descriptors with
 * the launch). */
static int collect_programs(struct op_machine *m, const uint32_t *dpus, uint32_t n, struct claim *c, char *err,
                            size_t errlen)
{
    c->progs = malloc((n ? n : 1) * sizeof *c->progs);
    if (!c->progs)
        return op_fail(err, errlen, "out of memory");
    c->nr_progs = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct op_program *prog = m->programs[dpus[i]];
        uint32_t k = c->nr_progs;
        if (!prog || (k && c->progs[k - 1] == prog))
            continue;
        while (k && c->progs[k - 1] != prog)
            k--;
        if (!k)
            c->progs[c->nr_progs++] = prog;
    }
    return 0;
}

/* Sends the launch to a worker: its programs (OP_CMD_MAX_PROGRAMS per
 * message, their memfds attached), the last message saying LAUNCH.  0, or -1
 * if the worker is gone. */
static int send_launch(int sock, const struct claim *c)
{
    uint32_t sent = 0;
    do {
        uint32_t k = c->nr_progs - sent < OP_CMD_MAX_PROGRAMS ? c->nr_progs - sent : OP_CMD_MAX_PROGRAMS;
        struct op_launch_cmd cmd = {.nr_programs = k};
        cmd.cmd = (sent + k == c->nr_progs ? OP_CMD_LAUNCH : OP_CMD_PROGRAMS) | (uint32_t)c->slot << OP_CMD_SLOT_SHIFT;
        union {
            char buf[CMSG_SPACE(OP_CMD_MAX_PROGRAMS * sizeof(int))];
            struct cmsghdr align;
        } ctl;
        struct iovec iov = {&cmd, offsetof(struct op_launch_cmd, ids) + k * sizeof cmd.ids[0]};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
        if (k) {
            msg.msg_control = ctl.buf;
            msg.msg_controllen = CMSG_SPACE(k * sizeof(int));
            struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
            h->cmsg_level = SOL_SOCKET;
            h->cmsg_type = SCM_RIGHTS;
            h->cmsg_len = CMSG_LEN(k * sizeof(int));
            for (uint32_t j = 0; j < k; j++) {
                cmd.ids[j] = c->progs[sent + j]->id;
                memcpy(CMSG_DATA(h) + j * sizeof(int), &c->progs[sent + j]->fd, sizeof(int));
            }
        }
        if (sendmsg(sock, &msg, MSG_NOSIGNAL) != (ssize_t)iov.iov_len)
            return -1;
        sent += k;
    } while (sent < c->nr_progs);
    return 0;
}

/* Whether the pool was cancelled (its wake_fd read). */
static int cancelled(struct op_pool *p)
{
    pthread_mutex_lock(&p->m->lock);
    int yes = p->cancelled[0] != 0;
    pthread_mutex_unlock(&p->m->lock);
    return yes;
}

/* Runs a claimed launch: sends it to its workers and watches them until they
 * answer, die or overrun their deadlines; rounds repeat while workers die
 * with DPUs left to run.  A cancelled pool ends it at once. */
static int run_claimed(struct op_pool *p, const uint32_t *dpus, uint32_t n, struct claim *c, char *err,
                       size_t errlen)
{
    struct op_ctrl *ctl = p->ctrl;
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
    for (unsigned w = 0; w < p->m->nr_workers; w++) {
        s->chunks[w].end = 0;
        atomic_store(&s->chunks[w].next, 0);
    }
    atomic_store(&s->done, 0);
    uint64_t watched = op_raw_monotonic_ns(); /* when watch was last called */
    for (unsigned k = 0; k < c->want; k++) {
        s->chunks[c->ws[k]].end = c->base + slice_start(n, c->want, k + 1);
        atomic_store(&s->chunks[c->ws[k]].next, c->base + slice_start(n, c->want, k));
    }
    const uint64_t budget = ctl->budget_ns, limit = budget ? overrun_limit(budget) : 0;
    const uint64_t stuck = limit > STUCK_NS ? limit : STUCK_NS;
    unsigned stalls = 0; /* rounds in a row in which no worker took a DPU */
    for (uint64_t left = work_left(s, c); left;) {
        unsigned busy = 0;
        uint8_t active[OP_MAX_WORKERS] = {0};
        uint64_t idle_since[OP_MAX_WORKERS] = {0}; /* when first seen active without a DPU */
        if (cancelled(p))
            goto cancel;
        /* every worker first, so that a failure leaves none running the launch */
        for (unsigned k = 0; k < c->want; k++) {
            unsigned i = c->ws[k];
            if (c->held[k] && p->workers[i].pid && p->workers[i].ranks_gen != p->ranks_gen)
                reap_worker(p, i, 1); /* started before its pool's ranks changed */
            if (c->held[k] && !p->workers[i].pid && start_worker(p, i, err, errlen) != 0)
                return -1;
        }
        for (unsigned k = 0; k < c->want; k++) {
            if (!c->held[k])
                continue;
            unsigned i = c->ws[k];
            if (send_launch(p->workers[i].sock, c) == 0) {
                active[k] = 1;
                busy++;
            } else {
                reap_worker(p, i, 1);
            }
        }
        while (busy) {
            struct pollfd pfd[OP_MAX_WORKERS + 1];
            unsigned idx[OP_MAX_WORKERS], np = 0;
            int timeout_ms = -1; /* no budget: a dead worker still closes its socket */
            uint64_t now = op_raw_monotonic_ns();
            for (unsigned k = 0; k < c->want; k++) {
                if (!active[k])
                    continue;
                unsigned i = c->ws[k];
                pfd[np].fd = p->workers[i].sock;
                pfd[np].events = POLLIN;
                idx[np++] = k;
                if (!budget)
                    continue;
                uint64_t since, wait_ns = 10000000u; /* between two DPUs: look again soon */
                int32_t dpu = running_dpu(p, i, &since);
                if (dpu >= 0) {
                    idle_since[k] = 0;
                } else if (!idle_since[k]) {
                    idle_since[k] = now;
                } else if (now - idle_since[k] >= stuck) {
                    reap_worker(p, i, 1); /* stuck outside any DPU: nothing to blame */
                    active[k] = 0;
                    busy--;
                    np--;
                    continue;
                }
                if (dpu >= 0 && now > since && now - since >= limit) {
                    /* its timer did not stop the DPU: end the worker, the
                     * others (or a new one) run what it had not started */
                    reap_worker(p, i, 1);
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
            pfd[np] = (struct pollfd){.fd = p->wake_fd, .events = POLLIN}; /* the pool's cancellation */
            if (poll(pfd, np + 1, timeout_ms) < 0) {
                if (errno == EINTR)
                    continue;
                int e = errno;
                for (unsigned k = 0; k < c->want; k++) /* none may go on with this launch */
                    if (active[k])
                        reap_worker(p, c->ws[k], 1);
                return op_fail(err, errlen, "poll: %s", strerror(e));
            }
            if (pfd[np].revents && cancelled(p)) {
                for (unsigned k = 0; k < c->want; k++)
                    if (active[k]) {
                        int32_t dpu = atomic_exchange(&ctl->workers[c->ws[k]].current_dpu, -1);
                        reap_worker(p, c->ws[k], 1);
                        if (dpu >= 0 && (uint32_t)dpu < p->m->nr_dpus && op_pool_of(p->m, (uint32_t)dpu) == p)
                            blame(ctl, dpu, OP_FAULT_WORKER, "stopped: %s", p->cancelled);
                    }
                goto cancel;
            }
            for (unsigned q = 0; q < np; q++) {
                if (!pfd[q].revents)
                    continue;
                unsigned k = idx[q], i = c->ws[k];
                uint32_t reply = 0;
                ssize_t got = recv(p->workers[i].sock, &reply, sizeof reply, 0);
                if (got < 0 && errno == EINTR)
                    continue;
                active[k] = 0;
                busy--;
                if (got == (ssize_t)sizeof reply && reply == OP_CMD_DONE) {
                    give_back_worker(p, c, k); /* it found nothing left to take */
                    continue;
                }
                /* the worker died: blame the DPU it was running */
                int32_t dpu = atomic_exchange(&ctl->workers[i].current_dpu, -1);
                int status = reap_worker(p, i, 1);
                if (dpu >= 0 && (uint32_t)dpu < p->m->nr_dpus && op_pool_of(p->m, (uint32_t)dpu) == p)
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
cancel:
    pthread_mutex_lock(&p->m->lock);
    op_fail(err, errlen, "%s", p->cancelled);
    pthread_mutex_unlock(&p->m->lock);
    return -1;
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
    if (collect_programs(m, dpus, n, &c, err, errlen) != 0)
        return -1;
    pthread_mutex_lock(&m->lock);
    struct op_pool *p = op_pool_of(m, dpus[0]);
    for (uint32_t i = 1; p && i < n; i++)
        if (op_pool_of(m, dpus[i]) != p) {
            pthread_mutex_unlock(&m->lock);
            free(c.progs);
            return op_fail(err, errlen, "DPUs %u and %u are in ranks of different pools: one launch runs one pool's",
                           dpus[0], dpus[i]);
        }
    if (!p) {
        pthread_mutex_unlock(&m->lock);
        free(c.progs);
        return op_fail(err, errlen, "DPU %u is in rank %u, which belongs to no pool", dpus[0], dpus[0] / m->per_rank);
    }
    m->launches++;
    p->launches++;
    int rc = claim(p, dpus, n, &c, err, errlen);
    if (rc == 0)
        atomic_store(&p->ctrl->memory_elsewhere, op_machine_memory_elsewhere(m, p));
    pthread_mutex_unlock(&m->lock);
    int claimed = rc == 0;
    if (claimed) {
        rc = run_claimed(p, dpus, n, &c, err, errlen);
        op_mram_reclaim(p); /* chunks that DPU code wrote may have left shared slots unheld */
    }
    pthread_mutex_lock(&m->lock);
    if (claimed) {
        for (unsigned k = 0; k < c.want; k++)
            if (c.held[k]) {
                if (p->cancelled[0] && p->workers[c.ws[k]].pid)
                    reap_worker(p, c.ws[k], 1);
                p->worker_busy[c.ws[k]] = 0;
            }
        for (uint32_t i = 0; i < n; i++)
            m->dpu_busy[dpus[i]] = 0;
        p->slots[c.slot].used = 0;
    }
    m->launches--;
    p->launches--;
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
    free(c.progs);
    return rc;
}

const struct op_dpu_status *op_machine_result(const struct op_machine *m, uint32_t dpu)
{
    static const struct op_dpu_status none;
    struct op_pool *p = op_pool_of(m, dpu);
    return p ? &op_ctrl_status(p->ctrl)[dpu] : &none;
}
