/* openpimd's request handling (serve.h): read a request, check it whole
 * (protocol.c), run it on the backend, answer.  A request that fails a check
 * gets an error reply and changes nothing; a connection whose framing is
 * broken (bad header) gets an error reply and is closed.  When a connection
 * ends, however it ends, its ranks are released (which resets them) and its
 * programs closed.  A connection's tenant (conn_tenant) is "uid:<n>" by its
 * peer credentials, or "token:<name>" once it presented a valid token at
 * HELLO; a connection through a guest socket has no tenant until it does. */
#define _GNU_SOURCE
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../backend/remote_protocol.h"
#include "tokens.h"
#include "transport.h"

#define SEND_TIMEOUT_MS 10000 /* a client that reads nothing for this long is dropped */

void daemon_log(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "openpimd: %s\n", line);
}

struct conn {
    struct daemon *d;
    int fd;
    uint64_t id;
    struct peer peer;
    int guest;                   /* came through a guest socket: its peer credentials are the vsock backend's */
    int hello_done;              /* a HELLO was answered OK */
    char tenant[OPD_TENANT_MAX]; /* conn_tenant() */
    uint8_t *owned;    /* per rank */
    uint8_t *launched; /* per DPU: launched since its rank was claimed (results are private) */
    uint8_t *seen;     /* scratch for opd_check */
    struct op_backend_program **programs; /* handle h is programs[h - 1] */
    uint32_t nr_programs;
    uint8_t *shm; /* the client's window, mapped */
    uint64_t shm_size;
    uint8_t *payload; /* OPD_MAX_PAYLOAD bytes */
    uint8_t *out;     /* reply data */
    size_t out_cap;
};

_Static_assert(OPD_TENANT_MAX == RM_TENANT_MAX && OPD_TENANT_MAX >= sizeof "token:" + TOKEN_NAME_MAX,
               "the wire's tenant field is the rank manager's, and holds a token's tenant");

/* The tenant the connection acts for: whose quota its claims count against. */
static const char *conn_tenant(const struct conn *c)
{
    return c->tenant;
}

/* HELLO's token, if any, decides the tenant (token_tenant); it cannot
 * change on a connection.  0, or -1 with a message (then the connection is
 * closed). */
static int authenticate(struct conn *c, const struct opd_hello *hello, char *err, size_t errlen)
{
    char tenant[OPD_TENANT_MAX];
    if (token_tenant(c->d->token_store, hello->token, c->guest, c->peer.uid, tenant, err, errlen) != 0) {
        daemon_log("connection %llu (%s): refused at HELLO: %s", (unsigned long long)c->id,
                   c->guest ? "guest socket" : "local", err);
        return -1;
    }
    if (c->hello_done && strcmp(tenant, c->tenant)) {
        snprintf(err, errlen, "HELLO: a connection's tenant cannot change (it is %s)", c->tenant);
        return -1;
    }
    memcpy(c->tenant, tenant, sizeof tenant);
    return 0;
}

static int owns(void *ctx, uint32_t rank)
{
    struct conn *c = ctx;
    return rank < c->d->rm.nr_ranks && c->owned[rank];
}

static int has_program(void *ctx, uint32_t h)
{
    struct conn *c = ctx;
    return h >= 1 && h <= c->nr_programs && c->programs[h - 1];
}

/* The client closed its end (a claim waiting for it is pointless): one request
 * at a time, so nothing else arrives while it waits; a half-close is not gone. */
static int client_gone(void *ctx)
{
    struct pollfd p = {.fd = ((struct conn *)ctx)->fd, .events = 0};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

static int reply(struct conn *c, const struct opd_request *r, uint32_t status, const void *data, size_t len)
{
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = r->op, .seq = r->seq,
                           .status = status, .len = len};
    c->d->b->ops->memory(c->d->b, &h.memory, NULL);
    struct iovec iov[2] = {{&h, sizeof h}, {(void *)data, len}};
    return transport_send(c->fd, iov, 2, SEND_TIMEOUT_MS);
}

static int reply_error(struct conn *c, const struct opd_request *r, const char *msg)
{
    if (c->d->verbose)
        daemon_log("connection %llu (%s): %s refused: %s", (unsigned long long)c->id, conn_tenant(c),
                   opd_op_name(r->op), msg);
    return reply(c, r, OPD_ERROR, msg, strlen(msg));
}

/* Room for len bytes of reply data. */
static uint8_t *out_buf(struct conn *c, size_t len)
{
    if (len > c->out_cap) {
        uint8_t *p = realloc(c->out, len);
        if (!p)
            return NULL;
        c->out = p;
        c->out_cap = len;
    }
    return c->out;
}

/* Where a request's bulk data is (checked by opd_check). */
static uint8_t *data_of(struct conn *c, const struct opd_request *r)
{
    return r->data->where == OPD_SHM ? c->shm + r->data->shm_off : (uint8_t *)r->inline_data;
}

/* The client's window: its sealed memfd, mapped here, or (kind
 * OPD_WINDOW_DAEMON, a client that cannot pass descriptors) the daemon's own
 * memory, backed page by page as WINDOW_PUT fills it. */
static int attach_shm(struct conn *c, int fd, uint64_t size, uint32_t kind, char *err, size_t errlen)
{
    void *p;
    if (kind == OPD_WINDOW_DAEMON) {
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    } else {
        struct stat st;
        int seals = fd < 0 ? -1 : fcntl(fd, F_GET_SEALS);
        if (fd < 0) {
            snprintf(err, errlen, "SHM_ATTACH: no descriptor came with the request");
            return -1;
        }
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
    if (c->shm)
        munmap(c->shm, c->shm_size);
    c->shm = p;
    c->shm_size = size;
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

/* Runs one checked request; the reply is sent here.  -1 ends the connection. */
static int handle(struct conn *c, const struct opd_request *r, int fd, const struct opd_context *ctx)
{
    struct daemon *d = c->d;
    struct op_backend *b = d->b;
    char err[512] = "";
    switch (r->op) {
    case OPD_HELLO: {
        if (r->u.hello.layout != OPD_LAYOUT) {
            snprintf(err, sizeof err,
                     "this client was built from a different OpenPIM than openpimd (layout %08x, daemon %08x)",
                     r->u.hello.layout, OPD_LAYOUT);
            return reply_error(c, r, err);
        }
        if (authenticate(c, &r->u.hello, err, sizeof err) != 0) {
            reply_error(c, r, err);
            return -1; /* no second try on this connection */
        }
        c->hello_done = 1;
        struct opd_hello_reply h;
        memset(&h, 0, sizeof h);
        h.cfg = d->cfg;
        h.info = d->info;
        h.quota = d->rm.quota;
        h.max_wait_ms = d->max_wait_ms;
        b->ops->memory(b, NULL, &h.memory_limit);
        return reply(c, r, OPD_OK, &h, sizeof h);
    }
    case OPD_CLAIM: {
        uint32_t wait = r->u.claim.wait_ms < d->max_wait_ms ? r->u.claim.wait_ms : d->max_wait_ms;
        struct opd_rank out = {0};
        if (rm_claim(&d->rm, c->id, conn_tenant(c), wait, client_gone, c, &out.rank, err, sizeof err) != 0)
            return reply_error(c, r, err);
        c->owned[out.rank] = 1;
        memset(c->launched + (size_t)out.rank * d->info.dpus_per_rank, 0, d->info.dpus_per_rank);
        if (d->verbose)
            daemon_log("rank %u -> connection %llu (%s)", out.rank, (unsigned long long)c->id, conn_tenant(c));
        return reply(c, r, OPD_OK, &out, sizeof out);
    }
    case OPD_RELEASE:
        c->owned[r->u.rank.rank] = 0;
        rm_release(&d->rm, c->id, r->u.rank.rank);
        if (d->verbose)
            daemon_log("rank %u released by connection %llu (%s) and reset", r->u.rank.rank,
                       (unsigned long long)c->id, conn_tenant(c));
        return reply(c, r, OPD_OK, NULL, 0);
    case OPD_PROGRAM_OPEN: {
        /* the parser must not read memory the client can change meanwhile: a private copy */
        uint8_t *elf = r->data->where == OPD_SHM ? malloc(r->data_len) : (uint8_t *)r->inline_data;
        if (!elf)
            return reply_error(c, r, "out of memory");
        if (elf != r->inline_data)
            memcpy(elf, data_of(c, r), r->data_len);
        struct op_backend_program *p = b->ops->program_open(b, elf, r->data_len, err, sizeof err);
        if (elf != r->inline_data)
            free(elf);
        if (!p)
            return reply_error(c, r, err);
        uint32_t h = 0;
        for (uint32_t i = 0; i < c->nr_programs && !h; i++)
            if (!c->programs[i])
                h = i + 1;
        if (!h) {
            struct op_backend_program **grown = realloc(c->programs, (c->nr_programs + 1) * sizeof *grown);
            if (!grown) {
                b->ops->program_close(b, p);
                return reply_error(c, r, "out of memory");
            }
            c->programs = grown;
            h = ++c->nr_programs;
        }
        c->programs[h - 1] = p;
        struct opd_handle out = {.handle = h};
        return reply(c, r, OPD_OK, &out, sizeof out);
    }
    case OPD_PROGRAM_CLOSE:
        b->ops->program_close(b, c->programs[r->u.handle.handle - 1]);
        c->programs[r->u.handle.handle - 1] = NULL;
        return reply(c, r, OPD_OK, NULL, 0);
    case OPD_LOAD:
        if (b->ops->load(b, r->dpus, r->n, c->programs[r->u.load.handle - 1], err, sizeof err) != 0)
            return reply_error(c, r, err);
        return reply(c, r, OPD_OK, NULL, 0);
    case OPD_WRITE:
        if (do_write(c, r, err, sizeof err) != 0)
            return reply_error(c, r, err);
        return reply(c, r, OPD_OK, NULL, 0);
    case OPD_WRITE_BATCH: {
        /* every entry is checked before any is written */
        struct opd_request w;
        uint64_t pos = 0;
        char why[400];
        for (uint32_t i = 0; i < r->u.batch.count; i++)
            if (opd_batch_next(r, &pos, &w, why, sizeof why) != 0 || opd_check(ctx, &w, why, sizeof why) != 0) {
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
    case OPD_CHECK_ROOM:
        if (b->ops->check_room(b, r->dpus, r->n, r->u.room.off, r->u.room.len, err, sizeof err) != 0)
            return reply_error(c, r, err);
        return reply(c, r, OPD_OK, NULL, 0);
    case OPD_READ: {
        const struct opd_read *rd = &r->u.read;
        uint8_t *dst = rd->data.where == OPD_SHM ? c->shm + rd->data.shm_off : out_buf(c, rd->len);
        if (!dst)
            return reply_error(c, r, "out of memory");
        if (b->ops->read(b, rd->dpu, (enum op_region)rd->region, rd->off, dst, rd->len, err, sizeof err) != 0)
            return reply_error(c, r, err);
        return reply(c, r, OPD_OK, dst, rd->data.where == OPD_SHM ? 0 : rd->len);
    }
    case OPD_READ_GATHER: {
        const struct opd_gather *g = &r->u.gather;
        uint8_t *dst = g->data.where == OPD_SHM ? c->shm + g->data.shm_off : out_buf(c, r->data_len);
        if (r->data_len && !dst)
            return reply_error(c, r, "out of memory");
        for (uint32_t i = 0; i < r->n; i++)
            if (b->ops->read(b, r->dpus[i], (enum op_region)g->region, g->off, dst + (size_t)i * g->len, g->len, err,
                             sizeof err) != 0)
                return reply_error(c, r, err);
        return reply(c, r, OPD_OK, dst, g->data.where == OPD_SHM ? 0 : r->data_len);
    }
    case OPD_VIEW_WRITE:
        if (b->ops->view_write(b, r->u.view.dpus, r->u.view.off, data_of(c, r), r->u.view.size, err, sizeof err) != 0)
            return reply_error(c, r, err);
        return reply(c, r, OPD_OK, NULL, 0);
    case OPD_VIEW_READ: {
        const struct opd_view *v = &r->u.view;
        uint8_t *dst = v->data.where == OPD_SHM ? c->shm + v->data.shm_off : out_buf(c, v->size);
        if (!dst)
            return reply_error(c, r, "out of memory");
        if (b->ops->view_read(b, v->dpus, v->off, dst, v->size, err, sizeof err) != 0)
            return reply_error(c, r, err);
        return reply(c, r, OPD_OK, dst, v->data.where == OPD_SHM ? 0 : v->size);
    }
    case OPD_LAUNCH: {
        struct op_dpu_status *st = (struct op_dpu_status *)out_buf(c, (size_t)r->n * sizeof *st);
        if (r->n && !st)
            return reply_error(c, r, "out of memory");
        if (r->n && b->ops->launch(b, r->dpus, r->n, err, sizeof err) != 0)
            return reply_error(c, r, err);
        for (uint32_t i = 0; i < r->n; i++) {
            b->ops->result(b, r->dpus[i], &st[i]);
            c->launched[r->dpus[i]] = 1;
        }
        return reply(c, r, OPD_OK, st, (size_t)r->n * sizeof *st);
    }
    case OPD_RESULT: {
        struct op_dpu_status st;
        memset(&st, 0, sizeof st);
        if (c->launched[r->u.dpu.dpu]) /* not what a previous tenant's run left */
            b->ops->result(b, r->u.dpu.dpu, &st);
        return reply(c, r, OPD_OK, &st, sizeof st);
    }
    case OPD_STATUS:
    case OPD_DRAIN: {
        _Static_assert(RANK_AVAILABLE == (int)OPD_RANK_AVAILABLE && RANK_ALLOCATED == (int)OPD_RANK_ALLOCATED &&
                           RANK_RESETTING == (int)OPD_RANK_RESETTING && RANK_DRAINED == (int)OPD_RANK_DRAINED,
                       "the wire's rank states are the rank manager's");
        /* operators only: what the ranks do says who uses the machine (a guest's
         * credentials are the vsock backend's: never an operator) */
        if (c->guest || (c->peer.uid != 0 && c->peer.uid != (uint32_t)getuid()))
            return reply_error(c, r, "operators only (root or openpimd's own user)");
        if (r->op == OPD_DRAIN) {
            rm_drain(&d->rm, r->u.drain.rank, r->u.drain.on != 0);
            daemon_log("rank %u %s by pid %d (uid %u)", r->u.drain.rank,
                       r->u.drain.on ? "drained" : "back in service", (int)c->peer.pid, (unsigned)c->peer.uid);
            return reply(c, r, OPD_OK, NULL, 0);
        }
        uint32_t n = d->rm.nr_ranks;
        struct rm_rank_info *info = calloc(n, sizeof *info);
        uint8_t *out = out_buf(c, sizeof(struct opd_status_reply) + (size_t)n * sizeof(struct opd_rank_status));
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
    case OPD_MEMORY: {
        struct opd_memory m = {0};
        b->ops->memory(b, &m.used, &m.limit);
        return reply(c, r, OPD_OK, &m, sizeof m);
    }
    case OPD_SHM_ATTACH:
        if (attach_shm(c, fd, r->u.shm.size, r->u.shm.kind, err, sizeof err) != 0)
            return reply_error(c, r, err);
        if (d->verbose)
            daemon_log("connection %llu (%s): %llu MB window: %s", (unsigned long long)c->id, conn_tenant(c),
                       (unsigned long long)(r->u.shm.size >> 20),
                       r->u.shm.kind == OPD_WINDOW_DAEMON ? "in the daemon's memory (streamed)" : "a shared memfd");
        return reply(c, r, OPD_OK, NULL, 0);
    case OPD_WINDOW_PUT: /* opd_check: inside the window */
        memcpy(c->shm + r->data->shm_off, r->inline_data, r->data_len);
        return reply(c, r, OPD_OK, NULL, 0);
    case OPD_WINDOW_GET:
        return reply(c, r, OPD_OK, c->shm + r->data->shm_off, r->data_len);
    default:
        return reply_error(c, r, "unknown request");
    }
}

static void conn_free(struct conn *c)
{
    struct daemon *d = c->d;
    unsigned released = 0;
    for (uint32_t r = 0; c->owned && r < d->rm.nr_ranks; r++)
        if (c->owned[r]) {
            rm_release(&d->rm, c->id, r);
            released++;
        }
    for (uint32_t i = 0; i < c->nr_programs; i++)
        if (c->programs[i])
            d->b->ops->program_close(d->b, c->programs[i]);
    if (released)
        daemon_log("connection %llu (%s, pid %d) gone: %u rank(s) reclaimed and reset", (unsigned long long)c->id,
                   conn_tenant(c), (int)c->peer.pid, released);
    if (c->shm)
        munmap(c->shm, c->shm_size);
    close(c->fd);
    free(c->programs);
    free(c->owned);
    free(c->launched);
    free(c->seen);
    free(c->payload);
    free(c->out);
    free(c);
}

/* Tells the client the daemon stops; best effort, never blocks. */
static void say_bye(struct conn *c)
{
    static const char msg[] = "openpimd is shutting down (SIGTERM): the ranks of this client are released";
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .status = OPD_BYE, .len = sizeof msg - 1};
    struct iovec iov[2] = {{&h, sizeof h}, {(void *)msg, sizeof msg - 1}};
    transport_send(c->fd, iov, 2, 1000);
}

static void *conn_main(void *arg)
{
    struct conn *c = arg;
    struct daemon *d = c->d;
    struct opd_context ctx = {.nr_dpus = d->info.nr_dpus, .dpus_per_rank = d->info.dpus_per_rank,
                              .mram_size = d->info.mram_size,
                              .wram_size = OP_WRAM_STRIDE, /* what the backend lets the host reach, as embedded */
                              .owns = owns, .has_program = has_program, .ctx = c, .seen = c->seen};
    for (;;) {
        struct opd_header h;
        int fds[2], nfds = 0;
        int rc = transport_recv(c->fd, &h, sizeof h, fds, 2, &nfds, d->stop_fd);
        int fd = nfds ? fds[0] : -1;
        for (int i = 1; i < nfds; i++)
            close(fds[i]);
        if (rc != 0) {
            if (fd >= 0)
                close(fd);
            break; /* gone, cut, or the daemon stops */
        }
        char err[512];
        struct opd_request r = {.op = h.op, .seq = h.seq};
        if (opd_check_header(&h, err, sizeof err) != 0) {
            reply_error(c, &r, err);
            if (fd >= 0)
                close(fd);
            break; /* the stream's framing cannot be trusted any more */
        }
        if (c->guest && !c->hello_done && h.op != OPD_HELLO) {
            reply_error(c, &r, "a connection through a guest socket must begin with HELLO and its token");
            if (fd >= 0)
                close(fd);
            break;
        }
        if (h.len && transport_recv(c->fd, c->payload, h.len, NULL, 0, NULL, d->stop_fd) != 0) {
            if (fd >= 0)
                close(fd);
            break;
        }
        ctx.shm_size = c->shm_size;
        if (opd_decode(&h, c->payload, &r, err, sizeof err) != 0 || opd_check(&ctx, &r, err, sizeof err) != 0) {
            rc = reply_error(c, &r, err);
        } else {
            if (fd >= 0 && r.op != OPD_SHM_ATTACH) {
                close(fd); /* descriptors come with SHM_ATTACH only */
                fd = -1;
            }
            rc = handle(c, &r, fd, &ctx);
        }
        if (fd >= 0)
            close(fd); /* attach_shm keeps its own mapping */
        if (rc != 0)
            break;
    }
    /* the daemon stops: say so (the client may be waiting for a reply) */
    struct pollfd stop = {.fd = d->stop_fd, .events = POLLIN};
    if (poll(&stop, 1, 0) == 1)
        say_bye(c);
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
        close(fd);
        return -1;
    }
    c->d = d;
    c->fd = fd;
    c->guest = guest;
    c->owned = calloc(d->rm.nr_ranks, 1);
    c->launched = calloc(d->info.nr_dpus, 1);
    c->seen = calloc(d->info.nr_dpus, 1);
    c->payload = malloc(OPD_MAX_PAYLOAD);
    if (!c->owned || !c->launched || !c->seen || !c->payload || transport_peer(fd, &c->peer) != 0) {
        conn_free(c);
        return -1;
    }
    /* a guest's tenant comes with its token (authenticate) */
    if (guest)
        snprintf(c->tenant, sizeof c->tenant, "none");
    else
        snprintf(c->tenant, sizeof c->tenant, "uid:%u", (unsigned)c->peer.uid);
    pthread_mutex_lock(&d->lock);
    c->id = ++d->next_id;
    d->live++;
    pthread_mutex_unlock(&d->lock);
    if (d->verbose)
        daemon_log("connection %llu from pid %d (uid %u)%s", (unsigned long long)c->id, (int)c->peer.pid,
                   (unsigned)c->peer.uid, guest ? " through a guest socket" : "");
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int rc = pthread_create(&t, &at, conn_main, c);
    pthread_attr_destroy(&at);
    if (rc != 0) {
        pthread_mutex_lock(&d->lock);
        d->live--;
        pthread_mutex_unlock(&d->lock);
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
