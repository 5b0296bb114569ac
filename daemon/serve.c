/* SPDX-License-Identifier: MIT */
/* openpimd's request handling (serve.h): read a request, check it whole
 * (protocol.c), run it on the backend, answer.  A request that fails a check
 * gets an error reply and changes nothing; a connection whose framing is
 * broken (bad header), that sends anything before HELLO, or that does not say
 * HELLO in time gets an error reply and is closed.  When a connection ends,
 * however it ends, its launches are stopped (its pool cancelled), its ranks
 * released (which resets them) and its programs closed.
 *
 *   connection thread (conn_main)       lanes (one thread per rank in use)
 *   reads, decodes, checks a request
 *   one rank's request ---------------> queued, run in order, answered
 *   any other: waits for idle lanes,
 *   runs it, answers
 *
 * A launch is watched (launch_watch): it tells the client how far it got
 * (OPD_PROGRESS) and is stopped at once when the client goes or the daemon
 * stops, so that an endless kernel holds nothing up for long.
 *
 * A connection's tenant (identify) is "uid:<n>" by its peer credentials, or
 * "token:<name>" once it presented a valid token at HELLO; a connection
 * through a guest socket has no tenant until it does (and nothing but HELLO
 * is served before HELLO). */
#define _GNU_SOURCE
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../abi/image.h"
#include "../backend/remote_protocol.h"
#include "tokens.h"
#include "transport.h"

#define SEND_TIMEOUT_MS 10000 /* a client that reads nothing for this long is dropped */
#define PROGRESS_MS 1000      /* a launch tells its client how far it got this often */

void daemon_log(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "openpimd: %s\n", line);
}

struct conn;

/* A request waiting for its lane: the request and the payload it points into. */
struct job {
    struct job *next;
    struct opd_request r;
    uint8_t *payload;
};

/* One rank's requests, run in order on a thread of their own. */
struct lane {
    struct conn *c;
    pthread_t thread;
    bool started, quit, running;
    struct job *head, *tail;
    pthread_cond_t wake;
    uint8_t *out; /* reply data */
    size_t out_cap;
};

struct program {
    struct op_backend_program *p;
    uint64_t bytes;
};

struct conn {
    struct daemon *d;
    int fd;
    uint64_t id;
    struct peer peer;
    struct tenant *tenant; /* who it acts for (identify) */
    bool said_hello;
    bool guest; /* came through a guest socket: its peer credentials are the vsock backend's */
    bool window_counted; /* its window is in the daemon's memory, counted against its tenant */
    struct op_backend_pool *pool; /* where its DPU code runs (its first claim opens it) */
    _Atomic bool cancelled;       /* its pool was cancelled: it is over */
    uint8_t *owned;    /* per rank */
    uint8_t *launched; /* per DPU: launched since its rank was claimed (results are private) */
    uint8_t *seen;     /* scratch for opd_check */
    struct program *programs; /* handle h is programs[h - 1] */
    uint32_t nr_programs, held_programs;
    uint8_t *shm; /* the client's window, mapped */
    uint64_t shm_size;
    uint8_t *out; /* the connection thread's reply data */
    size_t out_cap;
    pthread_mutex_t lock; /* the lanes' queues and states, inflight */
    pthread_cond_t idle;  /* a lane finished a request */
    pthread_mutex_t send_lock;
    struct lane **lanes; /* per rank, made when first used */
    unsigned inflight;   /* requests queued or running in lanes */
};

/* What a request runs with: its connection and where its reply data goes. */
struct exec {
    struct conn *c;
    uint8_t **out;
    size_t *out_cap;
    int fd;                         /* a descriptor that came with it (SHM_ATTACH) */
    const struct opd_context *ctx;  /* the connection thread's (WRITE_BATCH checks its entries) */
};

/* ---- identity --------------------------------------------------------------------- */

_Static_assert(OPD_TENANT_MAX == RM_TENANT_MAX && OPD_TENANT_MAX >= sizeof "token:" + TOKEN_NAME_MAX,
               "the wire's tenant field is the rank manager's, and holds a token's tenant");

/* Who a connection acts for: the one place a connection becomes a tenant.
 * A peer on the UNIX socket is its uid (SO_PEERCRED, which the kernel
 * records at connect: not forgeable by the peer), or the tenant of the token
 * it presents at HELLO (token_tenant: a guest must present one).  `hello` is
 * the connection's HELLO, NULL when it just connected: 1 then for a guest
 * (no tenant yet). */
static int identify(struct conn *c, const struct opd_request *hello, char *id, size_t len, char *err,
                    size_t errlen)
{
    if (!hello) {
        if (c->guest)
            return 1;
        snprintf(id, len, "uid:%u", (unsigned)c->peer.uid);
        return 0;
    }
    if (token_tenant(c->d->token_store, hello->u.hello.token, c->guest, c->peer.uid, id, err, errlen) != 0) {
        daemon_log("connection %llu (%s): refused at HELLO: %s", (unsigned long long)c->id,
                   c->guest ? "guest socket" : "local", err);
        return -1;
    }
    return 0;
}

/* Makes the connection's tenant the one identify() names; once HELLO was
 * answered it cannot change. */
static int join_tenant(struct conn *c, const struct opd_request *hello, char *err, size_t errlen)
{
    char id[RM_TENANT_MAX];
    int rc = identify(c, hello, id, sizeof id, err, errlen);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if (c->tenant && !strcmp(c->tenant->id, id))
        return 0;
    if (c->said_hello) {
        snprintf(err, errlen, "HELLO: a connection's tenant cannot change (it is %s)", c->tenant->id);
        return -1;
    }
    struct tenant *t = tenant_join(&c->d->tenants, id, err, errlen);
    if (!t)
        return -1;
    if (c->tenant)
        tenant_leave(&c->d->tenants, c->tenant);
    c->tenant = t;
    return 0;
}

/* ---- replies ---------------------------------------------------------------------- */

static int owns(void *ctx, uint32_t rank)
{
    struct conn *c = ctx;
    return rank < c->d->rm.nr_ranks && c->owned[rank];
}

static int has_program(void *ctx, uint32_t h)
{
    struct conn *c = ctx;
    return h >= 1 && h <= c->nr_programs && c->programs[h - 1].p;
}

/* The client closed its end; a half-close is not gone. */
static int client_gone(void *ctx)
{
    struct pollfd p = {.fd = ((struct conn *)ctx)->fd, .events = 0};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

static int stopping(const struct daemon *d)
{
    struct pollfd p = {.fd = d->stop_fd, .events = POLLIN};
    return poll(&p, 1, 0) == 1;
}

/* The host memory backing the connection's own ranks (its session's pool):
 * never what other tenants use (nor their ranks still being reset).  A
 * RELEASE's reply still counts its rank, whose reset follows the reply. */
static uint64_t own_memory(struct conn *c)
{
    struct op_backend *b = c->d->b;
    uint64_t used = 0;
    if (!b->ops->pool_memory) /* no pools: one tenant's machine */
        b->ops->memory(b, &used, NULL);
    else if (c->pool)
        used = b->ops->pool_memory(b, c->pool);
    return used;
}

static int send_message(struct conn *c, uint16_t op, uint32_t seq, uint32_t status, const void *data, size_t len)
{
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = op, .seq = seq, .status = status,
                           .len = len, .memory = own_memory(c)};
    struct iovec iov[2] = {{&h, sizeof h}, {(void *)data, len}};
    pthread_mutex_lock(&c->send_lock);
    int rc = transport_send(c->fd, iov, 2, SEND_TIMEOUT_MS);
    pthread_mutex_unlock(&c->send_lock);
    return rc;
}

static int reply(struct conn *c, const struct opd_request *r, uint32_t status, const void *data, size_t len)
{
    return send_message(c, r->op, r->seq, status, data, len);
}

static int reply_error(struct conn *c, const struct opd_request *r, const char *msg)
{
    if (c->d->verbose)
        daemon_log("pid %d: %s refused: %s", (int)c->peer.pid, opd_op_name(r->op), msg);
    return reply(c, r, OPD_ERROR, msg, strlen(msg));
}

/* Room for len bytes of reply data. */
static uint8_t *out_buf(struct exec *x, size_t len)
{
    if (len > *x->out_cap) {
        uint8_t *p = realloc(*x->out, len);
        if (!p)
            return NULL;
        *x->out = p;
        *x->out_cap = len;
    }
    return *x->out;
}

/* Where a request's bulk data is (checked by opd_check). */
static uint8_t *data_of(struct conn *c, const struct opd_request *r)
{
    return r->data->where == OPD_SHM ? c->shm + r->data->shm_off : (uint8_t *)r->inline_data;
}

/* Stops the connection's launches now (they fail with `why`) and any later one. */
static void cancel(struct conn *c, const char *why)
{
    struct op_backend *b = c->d->b;
    if (c->pool && b->ops->pool_cancel && !atomic_exchange(&c->cancelled, true))
        b->ops->pool_cancel(b, c->pool, why);
}

/* The client's window: its sealed memfd, mapped here, or (kind
 * OPD_WINDOW_DAEMON, a client that cannot pass descriptors) the daemon's own
 * memory, backed page by page as WINDOW_PUT fills it and counted against the
 * tenant's window bytes (tenant_add_window). */
static int attach_shm(struct conn *c, int fd, uint64_t size, uint32_t kind, char *err, size_t errlen)
{
    void *p;
    struct daemon *d = c->d;
    if (kind == OPD_WINDOW_DAEMON) {
        if (c->window_counted)
            tenant_drop_window(&d->tenants, c->tenant, c->shm_size);
        c->window_counted = false;
        if (tenant_add_window(&d->tenants, c->tenant, size, err, errlen) != 0)
            return -1;
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            tenant_drop_window(&d->tenants, c->tenant, size);
    } else {
        struct stat st;
        if (fd < 0) {
            snprintf(err, errlen, "SHM_ATTACH: no descriptor came with the request");
            return -1;
        }
        int seals = fcntl(fd, F_GET_SEALS);
        if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
            snprintf(err, errlen, "SHM_ATTACH: the window must be a memfd sealed against shrinking (F_SEAL_SHRINK)");
            return -1;
        }
        if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < size) {
            snprintf(err, errlen, "SHM_ATTACH: the memfd holds fewer than %llu bytes", (unsigned long long)size);
            return -1;
        }
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "SHM_ATTACH: cannot map a window of %llu bytes: %s", (unsigned long long)size,
                 strerror(errno));
        return -1;
    }
    if (c->shm) {
        munmap(c->shm, c->shm_size);
        if (c->window_counted)
            tenant_drop_window(&d->tenants, c->tenant, c->shm_size);
    }
    c->shm = p;
    c->shm_size = size;
    c->window_counted = kind == OPD_WINDOW_DAEMON;
    return 0;
}

/* A checked WRITE. */
static int do_write(struct conn *c, const struct opd_request *r, char *err, size_t errlen)
{
    struct op_backend *b = c->d->b;
    const struct opd_write *w = &r->u.write;
    if (!w->n)
        return 0;
    const void **src = malloc(w->nsrc * sizeof *src);
    if (!src) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint8_t *data = data_of(c, r);
    for (uint32_t i = 0; i < w->nsrc; i++)
        src[i] = data + (size_t)i * w->len;
    int rc = b->ops->write(b, r->dpus, r->n, (enum op_region)w->region, w->off, (const void *const *)src, w->nsrc,
                           w->len, err, errlen);
    free(src);
    return rc;
}

/* ---- the requests -------------------------------------------------------------
 * One function per request kind, each given a checked request (protocol.c's
 * opd_check has seen every DPU, handle and range); it sends the reply itself
 * and returns what reply() returned (-1 ends the connection). */

typedef int request_fn(struct exec *x, const struct opd_request *r);

static int req_hello(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    struct daemon *d = c->d;
    char err[256];
    if (r->u.hello.layout != OPD_LAYOUT) {
        snprintf(err, sizeof err,
                 "this client was built from a different OpenPIM than openpimd (layout %08x, daemon %08x)",
                 r->u.hello.layout, OPD_LAYOUT);
        return reply_error(c, r, err);
    }
    if (join_tenant(c, r, err, sizeof err) != 0) {
        reply_error(c, r, err);
        return -1; /* who it is decides what it may do: nothing without it */
    }
    struct opd_hello_reply h;
    memset(&h, 0, sizeof h);
    h.cfg = d->cfg;
    h.info = d->info;
    h.quota = d->rm.quota;
    h.max_wait_ms = d->max_wait_ms;
    snprintf(h.tenant, sizeof h.tenant, "%s", c->tenant->id);
    d->b->ops->memory(d->b, NULL, &h.memory_limit);
    c->said_hello = true;
    return reply(c, r, OPD_OK, &h, sizeof h);
}

static int req_claim(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    struct daemon *d = c->d;
    struct op_backend *b = d->b;
    char err[512];
    const struct opd_claim *cl = &r->u.claim;
    uint32_t wait = cl->wait_ms < d->max_wait_ms ? cl->wait_ms : d->max_wait_ms;
    uint32_t *ranks = (uint32_t *)out_buf(x, (size_t)cl->count * sizeof *ranks);
    if (!ranks)
        return reply_error(c, r, "out of memory");
    if (!c->pool && b->ops->pool_open && !(c->pool = b->ops->pool_open(b, err, sizeof err)))
        return reply_error(c, r, err);
    int got = rm_claim(&d->rm, c->id, c->tenant->id, cl->min, cl->count, wait, client_gone, c, ranks, err,
                       sizeof err);
    if (got < 0)
        return reply_error(c, r, err);
    /* its DPU code runs in its own pool: bound before the client may use them */
    for (int i = 0; i < got && b->ops->pool_bind; i++)
        if (b->ops->pool_bind(b, ranks[i], c->pool, err, sizeof err) != 0) {
            for (int k = 0; k < got; k++)
                rm_release(&d->rm, c->id, ranks[k]);
            return reply_error(c, r, err);
        }
    for (int i = 0; i < got; i++) {
        c->owned[ranks[i]] = 1;
        memset(c->launched + (size_t)ranks[i] * d->info.dpus_per_rank, 0, d->info.dpus_per_rank);
        if (d->verbose)
            daemon_log("rank %u -> pid %d (%s)", ranks[i], (int)c->peer.pid, c->tenant->id);
    }
    return reply(c, r, OPD_OK, ranks, (size_t)got * sizeof *ranks);
}

static void stop_lane(struct conn *c, uint32_t rank);

/* Answered as soon as no one can claim the rank any more, before its reset
 * (freeing the pages the tenant wrote: the slow part), which runs here, on
 * the connection's thread, before its next request: the session's pool
 * outlives it, and a claim that needs the rank waits for it (ranks.h). */
static int req_release(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    struct daemon *d = c->d;
    uint32_t rank = r->u.rank.rank;
    stop_lane(c, rank);
    c->owned[rank] = 0;
    int taken = rm_release_begin(&d->rm, c->id, rank);
    int rc = reply(c, r, OPD_OK, NULL, 0);
    if (taken == 0)
        rm_release_end(&d->rm, rank);
    if (d->verbose)
        daemon_log("rank %u released by pid %d and reset", rank, (int)c->peer.pid);
    return rc;
}

/* The ELF bytes, taken once: the header is checked first (a file that is no
 * DPU image costs nothing more), then the bytes go into a memfd the client
 * cannot reach, which is sealed and parsed where it lies. */
static struct op_backend_program *open_program(struct conn *c, const struct opd_request *r, char *err,
                                               size_t errlen)
{
    struct op_backend *b = c->d->b;
    const uint8_t *src = data_of(c, r);
    size_t len = r->data_len;
    uint8_t head[64];
    size_t hl = len < sizeof head ? len : sizeof head;
    memcpy(head, src, hl); /* the client may change its window meanwhile: check a copy */
    if (op_image_check_header(head, hl, err, errlen) != 0)
        return NULL;
    if (!b->ops->program_open_fd) {
        uint8_t *copy = malloc(len);
        if (!copy) {
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        memcpy(copy, src, len);
        struct op_backend_program *p = b->ops->program_open(b, copy, len, err, errlen);
        free(copy);
        return p;
    }
    int fd = memfd_create("openpim-program", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        snprintf(err, errlen, "PROGRAM_OPEN: cannot store the program: %s", strerror(errno));
        return NULL;
    }
    for (size_t done = 0; done < len;) {
        ssize_t put = pwrite(fd, done ? src + done : head, done ? len - done : hl, (off_t)done);
        if (put <= 0) {
            snprintf(err, errlen, "PROGRAM_OPEN: cannot store the program: %s", put < 0 ? strerror(errno) : "short");
            close(fd);
            return NULL;
        }
        done += (size_t)put;
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        snprintf(err, errlen, "PROGRAM_OPEN: cannot seal the program: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    return b->ops->program_open_fd(b, fd, len, err, errlen);
}

static int req_program_open(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    struct daemon *d = c->d;
    struct op_backend *b = d->b;
    char err[512];
    if (tenant_add_program(&d->tenants, c->tenant, c->held_programs, r->data_len, err, sizeof err) != 0)
        return reply_error(c, r, err);
    struct op_backend_program *p = open_program(c, r, err, sizeof err);
    if (!p) {
        tenant_drop_program(&d->tenants, c->tenant, r->data_len);
        return reply_error(c, r, err);
    }
    uint32_t h = 0;
    for (uint32_t i = 0; i < c->nr_programs && !h; i++)
        if (!c->programs[i].p)
            h = i + 1;
    if (!h) {
        struct program *grown = realloc(c->programs, (c->nr_programs + 1) * sizeof *grown);
        if (!grown) {
            b->ops->program_close(b, p);
            tenant_drop_program(&d->tenants, c->tenant, r->data_len);
            return reply_error(c, r, "out of memory");
        }
        c->programs = grown;
        h = ++c->nr_programs;
    }
    c->programs[h - 1] = (struct program){.p = p, .bytes = r->data_len};
    c->held_programs++;
    struct opd_handle out = {.handle = h};
    return reply(c, r, OPD_OK, &out, sizeof out);
}

static void close_program(struct conn *c, uint32_t h)
{
    struct daemon *d = c->d;
    d->b->ops->program_close(d->b, c->programs[h - 1].p);
    tenant_drop_program(&d->tenants, c->tenant, c->programs[h - 1].bytes);
    c->programs[h - 1].p = NULL;
    c->held_programs--;
}

static int req_program_close(struct exec *x, const struct opd_request *r)
{
    close_program(x->c, r->u.handle.handle);
    return reply(x->c, r, OPD_OK, NULL, 0);
}

static int req_load(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    struct op_backend *b = c->d->b;
    char err[512];
    if (b->ops->load(b, r->dpus, r->n, c->programs[r->u.load.handle - 1].p, err, sizeof err) != 0)
        return reply_error(c, r, err);
    return reply(c, r, OPD_OK, NULL, 0);
}

static int req_write(struct exec *x, const struct opd_request *r)
{
    char err[512];
    if (do_write(x->c, r, err, sizeof err) != 0)
        return reply_error(x->c, r, err);
    return reply(x->c, r, OPD_OK, NULL, 0);
}

static int req_write_batch(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    char err[512];
    /* every entry is checked before any is written */
    struct opd_request w;
    uint64_t pos = 0;
    char why[400];
    for (uint32_t i = 0; i < r->u.batch.count; i++)
        if (opd_batch_next(r, &pos, &w, why, sizeof why) != 0 || opd_check(x->ctx, &w, why, sizeof why) != 0) {
            snprintf(err, sizeof err, "batched write %u of %u: %s", i + 1, r->u.batch.count, why);
            return reply_error(c, r, err);
        }
    pos = 0;
    for (uint32_t i = 0; i < r->u.batch.count; i++)
        if (opd_batch_next(r, &pos, &w, why, sizeof why) != 0 || do_write(c, &w, why, sizeof why) != 0) {
            snprintf(err, sizeof err, "batched write %u of %u: %s (the ones before it were written)", i + 1,
                     r->u.batch.count, why);
            return reply_error(c, r, err);
        }
    return reply(c, r, OPD_OK, NULL, 0);
}

static int req_check_room(struct exec *x, const struct opd_request *r)
{
    struct op_backend *b = x->c->d->b;
    char err[512];
    if (b->ops->check_room(b, r->dpus, r->n, r->u.room.off, r->u.room.len, err, sizeof err) != 0)
        return reply_error(x->c, r, err);
    return reply(x->c, r, OPD_OK, NULL, 0);
}

static int req_read(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    struct op_backend *b = c->d->b;
    char err[512];
    const struct opd_read *rd = &r->u.read;
    uint8_t *dst = rd->data.where == OPD_SHM ? c->shm + rd->data.shm_off : out_buf(x, rd->len);
    if (!dst)
        return reply_error(c, r, "out of memory");
    if (b->ops->read(b, rd->dpu, (enum op_region)rd->region, rd->off, dst, rd->len, err, sizeof err) != 0)
        return reply_error(c, r, err);
    return reply(c, r, OPD_OK, dst, rd->data.where == OPD_SHM ? 0 : rd->len);
}

static int req_read_gather(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    struct op_backend *b = c->d->b;
    char err[512];
    const struct opd_gather *g = &r->u.gather;
    uint8_t *dst = g->data.where == OPD_SHM ? c->shm + g->data.shm_off : out_buf(x, r->data_len);
    if (r->data_len && !dst)
        return reply_error(c, r, "out of memory");
    for (uint32_t i = 0; i < r->n; i++)
        if (b->ops->read(b, r->dpus[i], (enum op_region)g->region, g->off, dst + (size_t)i * g->len, g->len, err,
                         sizeof err) != 0)
            return reply_error(c, r, err);
    return reply(c, r, OPD_OK, dst, g->data.where == OPD_SHM ? 0 : r->data_len);
}

static int req_view_write(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    struct op_backend *b = c->d->b;
    char err[512];
    if (b->ops->view_write(b, r->u.view.dpus, r->u.view.off, data_of(c, r), r->u.view.size, err, sizeof err) != 0)
        return reply_error(c, r, err);
    return reply(c, r, OPD_OK, NULL, 0);
}

static int req_view_read(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    struct op_backend *b = c->d->b;
    char err[512];
    const struct opd_view *v = &r->u.view;
    uint8_t *dst = v->data.where == OPD_SHM ? c->shm + v->data.shm_off : out_buf(x, v->size);
    if (!dst)
        return reply_error(c, r, "out of memory");
    if (b->ops->view_read(b, v->dpus, v->off, dst, v->size, err, sizeof err) != 0)
        return reply_error(c, r, err);
    return reply(c, r, OPD_OK, dst, v->data.where == OPD_SHM ? 0 : v->size);
}

/* Called on the launching thread about every OP_WATCH_PERIOD_MS: tells the
 * client how far the launch got, and stops it when the client has gone or
 * the daemon stops. */
struct watch {
    struct conn *c;
    const struct opd_request *r;
    struct timespec told;
};

static void launch_watch(void *arg, uint32_t done)
{
    struct watch *w = arg;
    struct conn *c = w->c;
    if (stopping(c->d))
        cancel(c, "openpimd is shutting down (SIGTERM): the launch was stopped");
    else if (client_gone(c))
        cancel(c, "the client has gone: the launch was stopped");
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((now.tv_sec - w->told.tv_sec) * 1000 + (now.tv_nsec - w->told.tv_nsec) / 1000000 >= PROGRESS_MS) {
        send_message(c, w->r->op, w->r->seq, OPD_PROGRESS, &done, sizeof done);
        w->told = now;
    }
}

static int req_launch(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    struct op_backend *b = c->d->b;
    char err[512];
    struct op_dpu_status *st = (struct op_dpu_status *)out_buf(x, (size_t)r->n * sizeof *st);
    if (r->n && !st)
        return reply_error(c, r, "out of memory");
    struct watch w = {.c = c, .r = r};
    clock_gettime(CLOCK_MONOTONIC, &w.told);
    int rc = !r->n ? 0
           : b->ops->launch_watched ? b->ops->launch_watched(b, r->dpus, r->n, launch_watch, &w, err, sizeof err)
                                    : b->ops->launch(b, r->dpus, r->n, err, sizeof err);
    if (rc != 0)
        return reply_error(c, r, err);
    for (uint32_t i = 0; i < r->n; i++) {
        b->ops->result(b, r->dpus[i], &st[i]);
        c->launched[r->dpus[i]] = 1;
    }
    return reply(c, r, OPD_OK, st, (size_t)r->n * sizeof *st);
}

static int req_result(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    struct op_backend *b = c->d->b;
    struct op_dpu_status st;
    memset(&st, 0, sizeof st);
    if (c->launched[r->u.dpu.dpu]) /* not what a previous tenant's run left */
        b->ops->result(b, r->u.dpu.dpu, &st);
    return reply(c, r, OPD_OK, &st, sizeof st);
}

static int req_status(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    struct daemon *d = c->d;
    _Static_assert(RANK_AVAILABLE == (int)OPD_RANK_AVAILABLE && RANK_ALLOCATED == (int)OPD_RANK_ALLOCATED &&
                       RANK_RESETTING == (int)OPD_RANK_RESETTING && RANK_DRAINED == (int)OPD_RANK_DRAINED,
                   "the wire's rank states are the rank manager's");
    _Static_assert(sizeof ((struct opd_rank_status *)0)->tenant == RM_TENANT_MAX, "a tenant's identity fits");
    uint32_t n = d->rm.nr_ranks;
    struct rm_rank_info *info = calloc(n, sizeof *info);
    uint8_t *out = out_buf(x, sizeof(struct opd_status_reply) + (size_t)n * sizeof(struct opd_rank_status));
    if (!info || !out) {
        free(info);
        return reply_error(c, r, "out of memory");
    }
    struct opd_status_reply head = {.nr_ranks = n, .quota = d->rm.quota};
    rm_snapshot(&d->rm, info, &head.nr_waiting);
    memcpy(out, &head, sizeof head);
    for (uint32_t k = 0; k < n; k++) {
        struct opd_rank_status st = {.state = (uint32_t)info[k].state, .drain = info[k].drain};
        if (info[k].state == RANK_ALLOCATED || info[k].state == RANK_RESETTING) {
            memcpy(st.tenant, info[k].tenant, sizeof st.tenant);
            st.conn = info[k].owner;
        }
        memcpy(out + sizeof head + (size_t)k * sizeof st, &st, sizeof st);
    }
    free(info);
    return reply(c, r, OPD_OK, out, sizeof head + (size_t)n * sizeof(struct opd_rank_status));
}

static int req_drain(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    rm_drain(&c->d->rm, r->u.drain.rank, r->u.drain.on != 0);
    daemon_log("rank %u %s by pid %d (%s)", r->u.drain.rank, r->u.drain.on ? "drained" : "back in service",
               (int)c->peer.pid, c->tenant->id);
    return reply(c, r, OPD_OK, NULL, 0);
}

/* The memory backing the connection's own ranks (its session's pool), and
 * the machine's limit: never what other tenants use. */
static int req_memory(struct exec *x, const struct opd_request *r)
{
    struct op_backend *b = x->c->d->b;
    struct opd_memory m = {.used = own_memory(x->c)};
    b->ops->memory(b, NULL, &m.limit);
    return reply(x->c, r, OPD_OK, &m, sizeof m);
}

static int req_shm_attach(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    char err[512];
    if (attach_shm(c, x->fd, r->u.shm.size, r->u.shm.kind, err, sizeof err) != 0)
        return reply_error(c, r, err);
    if (c->d->verbose)
        daemon_log("connection %llu (%s): %llu MB window: %s", (unsigned long long)c->id, c->tenant->id,
                   (unsigned long long)(r->u.shm.size >> 20),
                   r->u.shm.kind == OPD_WINDOW_DAEMON ? "in the daemon's memory (streamed)" : "a shared memfd");
    return reply(c, r, OPD_OK, NULL, 0);
}

static int req_window_put(struct exec *x, const struct opd_request *r)
{
    memcpy(x->c->shm + r->data->shm_off, r->inline_data, r->data_len); /* opd_check: inside the window */
    return reply(x->c, r, OPD_OK, NULL, 0);
}

static int req_window_get(struct exec *x, const struct opd_request *r)
{
    return reply(x->c, r, OPD_OK, x->c->shm + r->data->shm_off, r->data_len);
}

/* One row per request kind: its handler; whether only operators (root or the
 * daemon's own user: what the ranks do says who uses the machine) may send
 * it; whether it may run in its rank's lane (when its DPUs are of one rank). */
static const struct {
    request_fn *run;
    bool operators, lane;
} requests[OPD_OP_END] = {
    [OPD_HELLO] = {req_hello, false, false},
    [OPD_CLAIM] = {req_claim, false, false},
    [OPD_RELEASE] = {req_release, false, false},
    [OPD_PROGRAM_OPEN] = {req_program_open, false, false},
    [OPD_PROGRAM_CLOSE] = {req_program_close, false, false},
    [OPD_LOAD] = {req_load, false, true},
    [OPD_WRITE] = {req_write, false, true},
    [OPD_CHECK_ROOM] = {req_check_room, false, true},
    [OPD_READ] = {req_read, false, true},
    [OPD_VIEW_WRITE] = {req_view_write, false, true},
    [OPD_VIEW_READ] = {req_view_read, false, true},
    [OPD_LAUNCH] = {req_launch, false, true},
    [OPD_RESULT] = {req_result, false, true},
    [OPD_MEMORY] = {req_memory, false, false},
    [OPD_SHM_ATTACH] = {req_shm_attach, false, false},
    [OPD_READ_GATHER] = {req_read_gather, false, true},
    [OPD_WRITE_BATCH] = {req_write_batch, false, false},
    [OPD_STATUS] = {req_status, true, false},
    [OPD_DRAIN] = {req_drain, true, false},
    [OPD_WINDOW_PUT] = {req_window_put, false, false},
    [OPD_WINDOW_GET] = {req_window_get, false, false},
};

/* Runs one checked request; the reply is sent here.  -1 ends the connection. */
static int handle(struct exec *x, const struct opd_request *r)
{
    struct conn *c = x->c;
    if (r->op >= OPD_OP_END || !requests[r->op].run)
        return reply_error(c, r, "unknown request");
    /* a guest's credentials are the vsock backend's: never an operator */
    if (requests[r->op].operators && (c->guest || (c->peer.uid != 0 && c->peer.uid != (uint32_t)getuid())))
        return reply_error(c, r, "operators only (root or openpimd's own user)");
    return requests[r->op].run(x, r);
}

/* ---- lanes -------------------------------------------------------------------------- */

/* The rank a request's DPUs all lie in, or -1 when it must run alone
 * (no DPU, several ranks, or a kind that touches the connection's state). */
static int64_t lane_of(const struct conn *c, const struct opd_request *r)
{
    if (!requests[r->op].lane)
        return -1;
    const uint32_t *dpus = r->dpus;
    uint32_t n = r->n;
    if (r->op == OPD_READ)
        dpus = &r->u.read.dpu, n = 1;
    else if (r->op == OPD_RESULT)
        dpus = &r->u.dpu.dpu, n = 1;
    else if (r->op == OPD_VIEW_READ || r->op == OPD_VIEW_WRITE)
        dpus = r->u.view.dpus, n = 8;
    uint32_t per = c->d->info.dpus_per_rank;
    if (!n)
        return -1;
    for (uint32_t i = 1; i < n; i++)
        if (dpus[i] / per != dpus[0] / per)
            return -1;
    return dpus[0] / per;
}

static void *lane_main(void *arg)
{
    struct lane *l = arg;
    struct conn *c = l->c;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!l->head && !l->quit)
            pthread_cond_wait(&l->wake, &c->lock);
        if (!l->head)
            break;
        struct job *j = l->head;
        l->head = j->next;
        if (!l->head)
            l->tail = NULL;
        l->running = true;
        pthread_mutex_unlock(&c->lock);
        struct exec x = {.c = c, .out = &l->out, .out_cap = &l->out_cap, .fd = -1};
        if (!atomic_load(&c->cancelled) && handle(&x, &j->r) != 0)
            shutdown(c->fd, SHUT_RDWR); /* its reply could not go out: the connection is over */
        free(j->payload);
        free(j);
        tenant_drop_request(&c->d->tenants, c->tenant);
        pthread_mutex_lock(&c->lock);
        l->running = false;
        c->inflight--;
        pthread_cond_broadcast(&c->idle);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Queues a checked request on its rank's lane (the job's payload is the
 * lane's now).  0, or -1 with a message. */
static int enqueue(struct conn *c, uint32_t rank, struct job *j, char *err, size_t errlen)
{
    pthread_mutex_lock(&c->lock);
    struct lane *l = c->lanes[rank];
    if (!l) {
        l = calloc(1, sizeof *l);
        if (!l) {
            pthread_mutex_unlock(&c->lock);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        l->c = c;
        pthread_cond_init(&l->wake, NULL);
        c->lanes[rank] = l;
    }
    if (!l->started) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int e = pthread_create(&l->thread, NULL, lane_main, l);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (e != 0) {
            pthread_mutex_unlock(&c->lock);
            snprintf(err, errlen, "cannot start a thread for rank %u: %s", rank, strerror(e));
            return -1;
        }
        l->started = true;
    }
    j->next = NULL;
    if (l->tail)
        l->tail->next = j;
    else
        l->head = j;
    l->tail = j;
    c->inflight++;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&c->lock);
    return 0;
}

/* Waits until no lane of the connection has a request queued or running. */
static void wait_idle(struct conn *c)
{
    pthread_mutex_lock(&c->lock);
    while (c->inflight)
        pthread_cond_wait(&c->idle, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

/* Ends a rank's lane (idle: the caller waited) and its thread. */
static void stop_lane(struct conn *c, uint32_t rank)
{
    pthread_mutex_lock(&c->lock);
    struct lane *l = c->lanes[rank];
    c->lanes[rank] = NULL;
    if (l) {
        l->quit = true;
        pthread_cond_signal(&l->wake);
    }
    pthread_mutex_unlock(&c->lock);
    if (!l)
        return;
    if (l->started)
        pthread_join(l->thread, NULL);
    pthread_cond_destroy(&l->wake);
    free(l->out);
    free(l);
}

/* ---- connections -------------------------------------------------------------------- */

/* Tells the client the daemon stops; best effort, never blocks. */
static void say_bye(struct conn *c)
{
    static const char msg[] = "openpimd is shutting down (SIGTERM): the ranks of this client are released";
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .status = OPD_BYE, .len = sizeof msg - 1};
    struct iovec iov[2] = {{&h, sizeof h}, {(void *)msg, sizeof msg - 1}};
    pthread_mutex_lock(&c->send_lock);
    transport_send(c->fd, iov, 2, 1000);
    pthread_mutex_unlock(&c->send_lock);
}

static void conn_free(struct conn *c)
{
    struct daemon *d = c->d;
    /* requests left (the client went, the daemon stops, or the stream broke):
     * those queued are dropped, the running ones end fast (launches are
     * stopped), then the lanes end */
    pthread_mutex_lock(&c->lock);
    bool busy = c->inflight != 0;
    for (uint32_t r = 0; c->lanes && r < d->rm.nr_ranks; r++) {
        struct lane *l = c->lanes[r];
        while (l && l->head) {
            struct job *j = l->head;
            l->head = j->next;
            free(j->payload);
            free(j);
            c->inflight--;
            tenant_drop_request(&d->tenants, c->tenant);
        }
        if (l)
            l->tail = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (busy)
        cancel(c, stopping(d) ? "openpimd is shutting down (SIGTERM): the launch was stopped"
                              : "the connection ended: the launch was stopped");
    if (c->lanes) {
        wait_idle(c);
        for (uint32_t r = 0; r < d->rm.nr_ranks; r++)
            stop_lane(c, r);
    }
    if (c->fd >= 0 && stopping(d)) /* the client may be waiting for a reply: say why none comes */
        say_bye(c);
    unsigned released = 0;
    for (uint32_t r = 0; c->owned && r < d->rm.nr_ranks; r++)
        if (c->owned[r]) {
            rm_release(&d->rm, c->id, r);
            released++;
        }
    for (uint32_t i = 0; i < c->nr_programs; i++)
        if (c->programs[i].p)
            close_program(c, i + 1);
    if (c->pool)
        d->b->ops->pool_close(d->b, c->pool);
    if (released)
        daemon_log("pid %d (%s) gone: %u rank(s) reclaimed and reset", (int)c->peer.pid,
                   c->tenant ? c->tenant->id : "?", released);
    if (c->window_counted)
        tenant_drop_window(&d->tenants, c->tenant, c->shm_size);
    if (c->tenant)
        tenant_leave(&d->tenants, c->tenant);
    if (c->shm)
        munmap(c->shm, c->shm_size);
    if (c->fd >= 0)
        close(c->fd);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->idle);
    pthread_mutex_destroy(&c->send_lock);
    free(c->lanes);
    free(c->programs);
    free(c->owned);
    free(c->launched);
    free(c->seen);
    free(c->out);
    free(c);
}

void serve_refuse(int fd, const char *why)
{
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .status = OPD_BYE, .len = strlen(why)};
    struct iovec iov[2] = {{&h, sizeof h}, {(void *)why, strlen(why)}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
    if (sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) { /* best effort: the client may be gone already */
    }
    close(fd);
}

/* Reads the next request's header: 0, or what transport_recv said (1: the
 * client closed; -1: cut, error, the daemon stops, or no HELLO in time). */
static int next_header(struct conn *c, struct opd_header *h, int *fd, const struct timespec *hello_by)
{
    int timeout = -1;
    if (!c->said_hello) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long left = (hello_by->tv_sec - now.tv_sec) * 1000ll + (hello_by->tv_nsec - now.tv_nsec) / 1000000;
        timeout = left > 0 ? (int)left : 0;
    }
    int fds[2], nfds = 0;
    int rc = transport_recv_within(c->fd, h, sizeof *h, fds, 2, &nfds, c->d->stop_fd, timeout);
    *fd = nfds ? fds[0] : -1;
    for (int i = 1; i < nfds; i++)
        close(fds[i]);
    return rc;
}

static void *conn_main(void *arg)
{
    struct conn *c = arg;
    struct daemon *d = c->d;
    struct opd_context ctx = {.nr_dpus = d->info.nr_dpus, .dpus_per_rank = d->info.dpus_per_rank,
                              .mram_size = d->info.mram_size,
                              .wram_size = OP_WRAM_STRIDE, /* what the backend lets the host reach, as embedded */
                              .owns = owns, .has_program = has_program, .ctx = c, .seen = c->seen};
    struct timespec hello_by;
    clock_gettime(CLOCK_MONOTONIC, &hello_by);
    hello_by.tv_sec += d->hello_timeout_ms / 1000;
    hello_by.tv_nsec += (long)(d->hello_timeout_ms % 1000) * 1000000L;
    if (hello_by.tv_nsec >= 1000000000L) {
        hello_by.tv_sec++;
        hello_by.tv_nsec -= 1000000000L;
    }
    for (;;) {
        struct opd_header h;
        int fd;
        int rc = next_header(c, &h, &fd, &hello_by);
        if (rc != 0) {
            if (fd >= 0)
                close(fd);
            if (rc < 0 && !c->said_hello && !stopping(d) && d->verbose)
                daemon_log("connection %llu (pid %d): no HELLO within %u ms, closed", (unsigned long long)c->id,
                           (int)c->peer.pid, d->hello_timeout_ms);
            break; /* gone, cut, no HELLO in time, or the daemon stops */
        }
        char err[512];
        struct opd_request r = {.op = h.op, .seq = h.seq};
        if (opd_check_header(&h, err, sizeof err) != 0) {
            reply_error(c, &r, err);
            if (fd >= 0)
                close(fd);
            break; /* the stream's framing cannot be trusted any more */
        }
        /* the payload's size is checked (OPD_MAX_PAYLOAD): one buffer of it */
        uint8_t *payload = malloc(h.len ? h.len : 1);
        if (!payload || (h.len && transport_recv(c->fd, payload, h.len, NULL, 0, NULL, d->stop_fd) != 0)) {
            free(payload);
            if (fd >= 0)
                close(fd);
            break;
        }
        if (!c->said_hello && h.op != OPD_HELLO) {
            snprintf(err, sizeof err, "%s before HELLO: %s", opd_op_name(h.op),
                     c->guest ? "a connection through a guest socket must begin with HELLO and its token"
                              : "a connection starts with HELLO (layout and identity)");
            reply_error(c, &r, err);
            free(payload);
            if (fd >= 0)
                close(fd);
            break;
        }
        ctx.shm_size = c->shm_size;
        if (opd_decode(&h, payload, &r, err, sizeof err) != 0 || opd_check(&ctx, &r, err, sizeof err) != 0) {
            rc = reply_error(c, &r, err);
            free(payload);
            if (fd >= 0)
                close(fd);
            if (rc != 0)
                break;
            continue;
        }
        if (fd >= 0 && r.op != OPD_SHM_ATTACH) {
            close(fd); /* descriptors come with SHM_ATTACH only */
            fd = -1;
        }
        int64_t rank = lane_of(c, &r);
        if (rank >= 0) {
            struct job *j = malloc(sizeof *j);
            pthread_mutex_lock(&c->lock);
            unsigned inflight = c->inflight;
            pthread_mutex_unlock(&c->lock);
            if (!j || tenant_add_request(&d->tenants, c->tenant, inflight, err, sizeof err) != 0) {
                rc = reply_error(c, &r, j ? err : "out of memory");
                free(j);
                free(payload);
            } else {
                j->r = r;
                if ((const uint8_t *)r.data >= (const uint8_t *)&r && (const uint8_t *)r.data < (const uint8_t *)(&r + 1))
                    j->r.data = (const struct opd_data *)((const uint8_t *)&j->r +
                                                         ((const uint8_t *)r.data - (const uint8_t *)&r));
                j->payload = payload; /* the rest points into it */
                if (enqueue(c, (uint32_t)rank, j, err, sizeof err) != 0) {
                    tenant_drop_request(&d->tenants, c->tenant);
                    free(j);
                    free(payload);
                    rc = reply_error(c, &r, err);
                }
            }
        } else {
            wait_idle(c);
            struct exec x = {.c = c, .out = &c->out, .out_cap = &c->out_cap, .fd = fd, .ctx = &ctx};
            rc = handle(&x, &r);
            free(payload);
        }
        if (fd >= 0)
            close(fd); /* attach_shm keeps its own mapping */
        if (rc != 0)
            break;
    }
    conn_free(c);
    pthread_mutex_lock(&d->lock);
    if (--d->live == 0)
        pthread_cond_broadcast(&d->idle);
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

int serve_start(struct daemon *d, int fd, int guest)
{
    struct conn *c = calloc(1, sizeof *c);
    if (!c) {
        serve_refuse(fd, "openpimd is out of memory");
        return -1;
    }
    c->d = d;
    c->fd = fd;
    c->guest = guest;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->idle, NULL);
    pthread_mutex_init(&c->send_lock, NULL);
    char err[256] = "openpimd is out of memory";
    c->owned = calloc(d->rm.nr_ranks, 1);
    c->launched = calloc(d->info.nr_dpus, 1);
    c->seen = calloc(d->info.nr_dpus, 1);
    c->lanes = calloc(d->rm.nr_ranks, sizeof *c->lanes);
    pthread_mutex_lock(&d->lock);
    bool full = d->live >= d->max_live;
    if (!full) {
        c->id = ++d->next_id;
        d->live++;
    }
    pthread_mutex_unlock(&d->lock);
    if (full)
        snprintf(err, sizeof err, "openpimd serves %u connections, the most it can at once: try again later",
                 d->max_live);
    if (full || !c->owned || !c->launched || !c->seen || !c->lanes || transport_peer(fd, &c->peer) != 0 ||
        join_tenant(c, NULL, err, sizeof err) != 0) {
        c->fd = -1;
        serve_refuse(fd, err);
        if (d->verbose)
            daemon_log("connection refused: %s", err);
        if (!full) {
            pthread_mutex_lock(&d->lock);
            d->live--;
            pthread_cond_broadcast(&d->idle);
            pthread_mutex_unlock(&d->lock);
        }
        conn_free(c);
        return -1;
    }
    if (d->verbose)
        daemon_log("connection %llu from pid %d (%s)", (unsigned long long)c->id, (int)c->peer.pid,
                   c->tenant ? c->tenant->id : "a guest socket: its token decides");
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int rc = pthread_create(&t, &at, conn_main, c);
    pthread_attr_destroy(&at);
    if (rc != 0) {
        pthread_mutex_lock(&d->lock);
        d->live--;
        pthread_cond_broadcast(&d->idle);
        pthread_mutex_unlock(&d->lock);
        c->fd = -1;
        serve_refuse(fd, "openpimd cannot start a thread for this connection: try again later");
        conn_free(c);
        return -1;
    }
    return 0;
}

void serve_wait_all(struct daemon *d)
{
    pthread_mutex_lock(&d->lock);
    while (d->live)
        pthread_cond_wait(&d->idle, &d->lock);
    pthread_mutex_unlock(&d->lock);
}
