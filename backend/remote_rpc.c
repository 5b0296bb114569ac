/* SPDX-License-Identifier: MIT */
/* The remote backend's connection to openpimd: reaching it (a UNIX socket,
 * or AF_VSOCK from inside a virtual machine), framed requests and their
 * replies, matched by sequence number (the daemon answers requests of
 * different ranks in the order they finish), requests posted without
 * waiting, the BYE that says why the daemon closed it, the window for bulk
 * data (a shared-memory memfd both sides map, or, where no descriptor can
 * pass (a VM) or the profile asks (remoteStream), a window in the daemon's
 * memory that WINDOW_PUT and WINDOW_GET fill and empty over the connection),
 * and the timeouts: the connection and HELLO must be done within
 * OPENPIM_REMOTE_TIMEOUT_MS, and while a reply is awaited the daemon may not
 * stay silent that long (a launch sends progress messages; a claim may wait
 * its own time more). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <linux/vm_sockets.h>

#include "../abi/raw_clock.h"
#include "remote_internal.h"

int rpc_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* the real clock: a deadline must not move with the program's virtual time */
static uint64_t now_ms(void)
{
    return op_raw_monotonic_ns() / 1000000u;
}

/* Waits until the socket is ready for `events` (left_ms < 0: no limit).
 * 0, or -1 (errno ETIMEDOUT when the time ran out). */
static int ready(int fd, short events, int64_t left_ms)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, left_ms < 0 ? -1 : left_ms > (1 << 30) ? (1 << 30) : (int)left_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        return 0;
    }
}

/* ---- the connection --------------------------------------------------------- */

static int read_one(struct remote *r, char *err, size_t errlen);

static int send_all(struct remote *r, struct iovec *iov, int iovcnt, int pass_fd)
{
    int first = 1;
    while (iovcnt > 0) {
        if (iov->iov_len == 0) {
            iov++, iovcnt--;
            continue;
        }
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } ctl;
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)iovcnt};
        if (first && pass_fd >= 0) {
            m.msg_control = ctl.buf;
            m.msg_controllen = sizeof ctl.buf;
            struct cmsghdr *c = CMSG_FIRSTHDR(&m);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
        }
        ssize_t put = sendmsg(r->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0 && errno == EAGAIN) { /* the daemon reads nothing: not for ever */
            /* it may be blocked sending replies nobody reads (requests posted
             * without waiting): read them meanwhile, unless another thread does */
            pthread_mutex_lock(&r->recv_lock);
            bool read_here = !r->reading;
            r->reading = true;
            pthread_mutex_unlock(&r->recv_lock);
            if (!read_here) {
                if (ready(r->fd, POLLOUT, r->timeout_ms) != 0)
                    return -1;
                continue;
            }
            struct pollfd p = {.fd = r->fd, .events = POLLOUT | POLLIN};
            int n = poll(&p, 1, r->timeout_ms > (1u << 30) ? (1 << 30) : (int)r->timeout_ms);
            int e = errno;
            char why[512];
            if (n == 1 && (p.revents & POLLIN) && !(p.revents & POLLOUT))
                read_one(r, why, sizeof why); /* a lost connection marks every waiter done */
            pthread_mutex_lock(&r->recv_lock);
            r->reading = false;
            pthread_cond_broadcast(&r->recv_cond);
            pthread_mutex_unlock(&r->recv_lock);
            if (n == 0)
                errno = ETIMEDOUT;
            else
                errno = e;
            if (n == 0 || (n < 0 && e != EINTR))
                return -1;
            continue;
        }
        if (put < 0)
            return -1;
        first = 0;
        size_t left = (size_t)put;
        while (iovcnt > 0 && left >= iov->iov_len) {
            left -= iov->iov_len;
            iov++, iovcnt--;
        }
        if (iovcnt > 0) {
            iov->iov_base = (char *)iov->iov_base + left;
            iov->iov_len -= left;
        }
    }
    return 0;
}

/* Reads exactly len bytes, the daemon silent at most left_ms at a time (< 0:
 * no limit).  0, or -1 (errno ETIMEDOUT for the silence; 0 for an end). */
static int recv_all(int fd, void *buf, size_t len, int64_t left_ms)
{
    size_t done = 0;
    while (done < len) {
        ssize_t got = recv(fd, (char *)buf + done, len - done, MSG_DONTWAIT);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == EAGAIN) {
            if (ready(fd, POLLIN, left_ms) != 0)
                return -1;
            continue;
        }
        if (got <= 0) {
            if (got == 0)
                errno = 0;
            return -1;
        }
        done += (size_t)got;
    }
    return 0;
}

/* The message of a BYE the daemon left before closing, if any. */
static int pending_bye(int fd, char *msg, size_t cap)
{
    struct opd_header a;
    if (recv(fd, &a, sizeof a, MSG_DONTWAIT | MSG_PEEK) != (ssize_t)sizeof a || a.magic != OPD_MAGIC ||
        a.status != OPD_BYE || recv_all(fd, &a, sizeof a, 0) != 0)
        return -1;
    size_t keep = a.len < cap - 1 ? a.len : cap - 1;
    if (recv_all(fd, msg, keep, 0) != 0)
        return -1;
    msg[keep] = 0;
    return 0;
}

bool rpc_dead(struct remote *r)
{
    pthread_mutex_lock(&r->state_lock);
    bool dead = r->dead[0] != 0;
    pthread_mutex_unlock(&r->state_lock);
    return dead;
}

/* The connection is over: every waiting request and every later one fails
 * with why. */
int rpc_lost(struct remote *r, char *err, size_t errlen, const char *why)
{
    pthread_mutex_lock(&r->state_lock);
    if (!r->dead[0]) {
        snprintf(r->dead, sizeof r->dead, "openpimd at %.100s: %.140s", r->path, why);
        fprintf(stderr, "openpim: %s\n", r->dead); /* once: every later request fails the same way */
    }
    char dead[sizeof r->dead];
    memcpy(dead, r->dead, sizeof dead);
    pthread_mutex_unlock(&r->state_lock);
    pthread_mutex_lock(&r->recv_lock);
    for (struct waiter **p = &r->waiters; *p;) {
        struct waiter *w = *p;
        if (w->detached && !w->filling) { /* nobody waits for it */
            *p = w->next;
            free(w);
            continue;
        }
        if (!w->done && !w->filling) {
            w->done = true;
            w->rc = -1;
            snprintf(w->msg, sizeof w->msg, "%s", dead);
        }
        p = &w->next;
    }
    pthread_cond_broadcast(&r->recv_cond);
    pthread_mutex_unlock(&r->recv_lock);
    return rpc_fail(err, errlen, "%s", dead);
}

static void unregister(struct remote *r, struct waiter *w)
{
    pthread_mutex_lock(&r->recv_lock);
    for (struct waiter **p = &r->waiters; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    pthread_mutex_unlock(&r->recv_lock);
}

int rpc_send_request(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra,
                     size_t extra_len, const void *data, size_t data_len, int pass_fd, struct waiter *w, char *err,
                     size_t errlen)
{
    pthread_mutex_lock(&r->state_lock);
    if (r->dead[0]) {
        rpc_fail(err, errlen, "%s", r->dead);
        pthread_mutex_unlock(&r->state_lock);
        return -1;
    }
    pthread_mutex_unlock(&r->state_lock);
    /* batched writes go before anything else: every request sees them done
     * (batching makes every operation exclusive: nobody else is sending) */
    if (op != OPD_WRITE_BATCH && r->batch_count && cache_flush_writes(r, err, errlen) != 0)
        return -1;
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = op,
                           .seq = atomic_fetch_add(&r->seq, 1) + 1, .len = fixed_len + extra_len + data_len};
    w->seq = h.seq;
    w->op = op;
    w->done = false;
    w->filling = false;
    w->rc = 0;
    w->got = 0;
    pthread_mutex_lock(&r->recv_lock);
    w->next = r->waiters;
    r->waiters = w;
    pthread_mutex_unlock(&r->recv_lock);
    struct iovec iov[4] = {{&h, sizeof h}, {(void *)fixed, fixed_len}, {(void *)extra, extra_len},
                           {(void *)data, data_len}};
    pthread_mutex_lock(&r->send_lock);
    int sent = send_all(r, iov, 4, pass_fd);
    int e = errno;
    pthread_mutex_unlock(&r->send_lock);
    if (sent != 0) {
        unregister(r, w);
        char why[256];
        if (pending_bye(r->fd, why, sizeof why) == 0) /* the daemon said why it closed */
            return rpc_lost(r, err, errlen, why);
        if (e == ETIMEDOUT)
            snprintf(why, sizeof why, "the daemon read nothing for %u ms (OPENPIM_REMOTE_TIMEOUT_MS)", r->timeout_ms);
        else
            snprintf(why, sizeof why, "%s", e == EPIPE || e == ECONNRESET ? "the daemon closed the connection"
                                                                          : strerror(e));
        return rpc_lost(r, err, errlen, why);
    }
    return 0;
}

static int fill(struct remote *r, struct waiter *w, const struct opd_header *h, char *err, size_t errlen);

/* Reads one message from the daemon and hands it to its waiter (the caller
 * is the connection's reader).  0, or -1 when the connection is lost. */
static int read_one(struct remote *r, char *err, size_t errlen)
{
    /* silence is allowed for the timeout, and longer while a claim may wait */
    int64_t allow = r->timeout_ms;
    pthread_mutex_lock(&r->recv_lock);
    for (struct waiter *w = r->waiters; w; w = w->next)
        if (!w->done && (int64_t)r->timeout_ms + w->extra_ms > allow)
            allow = (int64_t)r->timeout_ms + w->extra_ms;
    pthread_mutex_unlock(&r->recv_lock);
    struct opd_header a;
    if (recv_all(r->fd, &a, sizeof a, allow) != 0) {
        char why[200];
        if (errno == ETIMEDOUT)
            snprintf(why, sizeof why, "no word from the daemon for %lld ms while a request waits for its reply "
                     "(OPENPIM_REMOTE_TIMEOUT_MS)", (long long)allow);
        else
            snprintf(why, sizeof why, "the daemon closed the connection (stopped or restarted?)");
        return rpc_lost(r, err, errlen, why);
    }
    if (a.magic != OPD_MAGIC || a.version != OPD_VERSION || a.len > (1ull << 32))
        return rpc_lost(r, err, errlen, "garbled reply");
    if (a.status == OPD_OK || a.status == OPD_ERROR)
        atomic_store(&r->mem_used, a.memory);
    if (a.status == OPD_BYE) {
        char msg[512];
        size_t keep = a.len < sizeof msg - 1 ? a.len : sizeof msg - 1;
        if (recv_all(r->fd, msg, keep, r->timeout_ms) != 0)
            return rpc_lost(r, err, errlen, "the daemon closed the connection");
        msg[keep] = 0;
        return rpc_lost(r, err, errlen, msg);
    }
    pthread_mutex_lock(&r->recv_lock);
    struct waiter *w = r->waiters;
    while (w && (w->done || w->seq != a.seq))
        w = w->next;
    if (w && w->op == a.op)
        w->filling = true;
    pthread_mutex_unlock(&r->recv_lock);
    if (!w || w->op != a.op)
        return rpc_lost(r, err, errlen, "a reply does not match any request");
    int rc = fill(r, w, &a, err, errlen);
    if (rc != 0) {
        pthread_mutex_lock(&r->recv_lock);
        w->filling = false; /* the lost connection finishes it */
        pthread_mutex_unlock(&r->recv_lock);
        return rpc_lost(r, err, errlen, err);
    }
    return 0;
}

/* Takes the payload of a message for w (w->filling: its thread waits). 0, or
 * -1 with why the connection is lost. */
static int fill(struct remote *r, struct waiter *w, const struct opd_header *h, char *err, size_t errlen)
{
    struct opd_header a = *h;
    /* its payload, read without the lock: the waiter only looks once done */
    if (a.status == OPD_PROGRESS) {
        uint32_t done = 0;
        if (a.len != sizeof done || recv_all(r->fd, &done, sizeof done, r->timeout_ms) != 0)
            return rpc_fail(err, errlen, "garbled progress message");
        if (w->progress)
            w->progress(w->progress_arg, done);
        pthread_mutex_lock(&r->recv_lock);
        w->filling = false;
        pthread_mutex_unlock(&r->recv_lock);
        return 0;
    }
    int rc = 0;
    char msg[512] = "";
    if (a.status == OPD_ERROR) {
        size_t keep = a.len < sizeof msg - 1 ? a.len : sizeof msg - 1;
        if (recv_all(r->fd, msg, keep, r->timeout_ms) != 0)
            return rpc_fail(err, errlen, "the daemon closed the connection");
        msg[keep] = 0;
        for (uint64_t skip = a.len - keep; skip;) { /* an overlong message: drop the rest */
            char sink[256];
            size_t k = skip < sizeof sink ? skip : sizeof sink;
            if (recv_all(r->fd, sink, k, r->timeout_ms) != 0)
                return rpc_fail(err, errlen, "the daemon closed the connection");
            skip -= k;
        }
        rc = -1;
    } else if (a.status != OPD_OK || (w->up_to ? a.len > w->rep_len : a.len != w->rep_len)) {
        return rpc_fail(err, errlen, "a reply does not match its request");
    } else if (a.len && recv_all(r->fd, w->rep, a.len, r->timeout_ms) != 0) {
        return rpc_fail(err, errlen, "the daemon closed the connection");
    }
    pthread_mutex_lock(&r->recv_lock);
    if (w->detached) { /* nobody waits for it: its reply, even an error, is dropped */
        for (struct waiter **p = &r->waiters; *p; p = &(*p)->next)
            if (*p == w) {
                *p = w->next;
                break;
            }
        free(w);
        pthread_mutex_unlock(&r->recv_lock);
        return 0;
    }
    w->got = a.len;
    w->rc = rc;
    if (rc)
        snprintf(w->msg, sizeof w->msg, "openpimd: %.500s", msg);
    w->filling = false;
    w->done = true;
    pthread_cond_broadcast(&r->recv_cond);
    pthread_mutex_unlock(&r->recv_lock);
    return 0;
}

int rpc_send_detached(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, char *err, size_t errlen)
{
    struct waiter *w = calloc(1, sizeof *w);
    if (!w)
        return rpc_fail(err, errlen, "out of memory");
    w->detached = true;
    if (rpc_send_request(r, op, fixed, fixed_len, NULL, 0, NULL, 0, -1, w, err, errlen) != 0) {
        free(w); /* not registered any more */
        return -1;
    }
    return 0;
}

int rpc_await(struct remote *r, struct waiter *w, char *err, size_t errlen)
{
    pthread_mutex_lock(&r->recv_lock);
    while (!w->done) {
        if (r->reading) { /* another thread reads: it hands this reply over */
            pthread_cond_wait(&r->recv_cond, &r->recv_lock);
            continue;
        }
        r->reading = true;
        pthread_mutex_unlock(&r->recv_lock);
        char why[512];
        read_one(r, why, sizeof why); /* a lost connection marks every waiter done */
        pthread_mutex_lock(&r->recv_lock);
        r->reading = false;
        pthread_cond_broadcast(&r->recv_cond);
    }
    for (struct waiter **p = &r->waiters; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    pthread_mutex_unlock(&r->recv_lock);
    if (w->rc != 0)
        return rpc_fail(err, errlen, "%s", w->msg);
    return 0;
}

int rpc_call(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra,
             size_t extra_len, const void *data, size_t data_len, int pass_fd, void *rep, size_t rep_len, char *err,
             size_t errlen)
{
    struct waiter w = {.rep = rep, .rep_len = rep_len};
    if (rpc_send_request(r, op, fixed, fixed_len, extra, extra_len, data, data_len, pass_fd, &w, err, errlen) != 0)
        return -1;
    return rpc_await(r, &w, err, errlen);
}

/* Connects to the daemon within the timeout: over AF_VSOCK from a guest, or
 * to its UNIX socket, where a daemon whose backlog is full (it accepts
 * nothing) makes connect fail with EAGAIN until it does. */
int rpc_connect(struct remote *r, char *err, size_t errlen)
{
    if (r->vsock_port) { /* inside a virtual machine: the daemon is behind the host's vhost-device-vsock */
        int fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return rpc_fail(err, errlen,
                            "socket(AF_VSOCK): %s (this system has no vsock transport: a guest needs the "
                            "vmw_vsock_virtio_transport driver and a vsock device)",
                            strerror(errno));
        struct timeval tv = {.tv_sec = r->timeout_ms / 1000, .tv_usec = r->timeout_ms % 1000 * 1000};
        setsockopt(fd, AF_VSOCK, SO_VM_SOCKETS_CONNECT_TIMEOUT, &tv, sizeof tv);
        struct sockaddr_vm a = {.svm_family = AF_VSOCK, .svm_cid = r->vsock_cid, .svm_port = r->vsock_port};
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
            int e = errno;
            rpc_fail(err, errlen, "cannot reach openpimd at vsock CID %u port %u: %s%s", r->vsock_cid, r->vsock_port,
                     strerror(e),
                     e == ETIMEDOUT ? " (nothing serves that port: openpimd --guest-socket <uds-path>_PORT, with "
                                      "the uds-path of this VM's vhost-device-vsock)"
                                    : "");
            close(fd);
            return -1;
        }
        r->fd = fd;
        return 0;
    }
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (!r->path[0] || strlen(r->path) >= sizeof a.sun_path)
        return rpc_fail(err, errlen, "openpimd socket path '%s' is empty or too long", r->path);
    strcpy(a.sun_path, r->path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return rpc_fail(err, errlen, "socket: %s", strerror(errno));
    uint64_t end = now_ms() + r->timeout_ms;
    while (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if ((errno == EAGAIN || errno == EINTR) && now_ms() < end) {
            struct timespec pause = {0, 10000000}; /* 10 ms */
            nanosleep(&pause, NULL);
            continue;
        }
        if (errno == EAGAIN)
            rpc_fail(err, errlen, "cannot reach openpimd at %s: it accepted no connection within %u ms "
                     "(OPENPIM_REMOTE_TIMEOUT_MS)", r->path, r->timeout_ms);
        else
            rpc_fail(err, errlen, "cannot reach openpimd at %s: %s", r->path, strerror(errno));
        close(fd);
        return -1;
    }
    r->fd = fd;
    return 0;
}

int rpc_hello(struct remote *r, const char *token, char *err, size_t errlen)
{
    struct opd_hello req;
    memset(&req, 0, sizeof req);
    req.layout = OPD_LAYOUT;
    snprintf(req.token, sizeof req.token, "%s", token);
    int rc = rpc_call(r, OPD_HELLO, &req, sizeof req, NULL, 0, NULL, 0, -1, &r->hello, sizeof r->hello, err, errlen);
    memset(req.token, 0, sizeof req.token);
    r->hello.tenant[sizeof r->hello.tenant - 1] = 0;
    return rc;
}

/* OPENPIM_REMOTE_TIMEOUT_MS, or the default; a bad value is said and not used. */
static uint32_t timeout_from_env(void)
{
    const char *v = getenv("OPENPIM_REMOTE_TIMEOUT_MS");
    if (!v || !*v)
        return TIMEOUT_MS_DEFAULT;
    char *end;
    unsigned long ms = strtoul(v, &end, 10);
    if (*end || ms == 0 || ms > 86400000ul || strchr(v, '-')) {
        fprintf(stderr, "openpim: OPENPIM_REMOTE_TIMEOUT_MS=%s is not a number of milliseconds (1 to 86400000): "
                "%u used\n", v, TIMEOUT_MS_DEFAULT);
        return TIMEOUT_MS_DEFAULT;
    }
    return (uint32_t)ms;
}

void rpc_init(struct remote *r, const struct op_machine_config *cfg)
{
    pthread_rwlock_init(&r->ops, NULL);
    pthread_mutex_init(&r->win_lock, NULL);
    pthread_mutex_init(&r->state_lock, NULL);
    pthread_mutex_init(&r->send_lock, NULL);
    pthread_mutex_init(&r->recv_lock, NULL);
    pthread_cond_init(&r->recv_cond, NULL);
    r->fd = -1;
    r->shm_fd = -1;
    r->timeout_ms = timeout_from_env();
    snprintf(r->path, sizeof r->path, "%s", cfg->remote);
    r->vsock_cid = cfg->vsock_cid;
    r->vsock_port = cfg->vsock_port;
    r->stream = cfg->stream || cfg->vsock_port;
}

void rpc_fini(struct remote *r)
{
    if (r->fd >= 0)
        close(r->fd);
    while (r->waiters) { /* only detached ones are left: their replies will never be read */
        struct waiter *w = r->waiters;
        r->waiters = w->next;
        free(w);
    }
    if (r->shm) {
        munmap(r->shm, WINDOW_SIZE);
        close(r->shm_fd);
    }
    free(r->stage);
    pthread_rwlock_destroy(&r->ops);
    pthread_mutex_destroy(&r->win_lock);
    pthread_mutex_destroy(&r->state_lock);
    pthread_mutex_destroy(&r->send_lock);
    pthread_mutex_destroy(&r->recv_lock);
    pthread_cond_destroy(&r->recv_cond);
}

int op_backend_remote_describe(const struct op_machine_config *cfg, struct op_machine_config *out, char *err,
                               size_t errlen)
{
    struct remote *r = calloc(1, sizeof *r);
    if (!r)
        return rpc_fail(err, errlen, "out of memory");
    rpc_init(r, cfg);
    int rc = rpc_connect(r, err, errlen);
    if (rc == 0)
        rc = rpc_hello(r, cfg->token, err, errlen);
    if (rc == 0)
        *out = r->hello.cfg;
    rpc_fini(r);
    free(r);
    return rc;
}

/* ---- posted requests --------------------------------------------------------- */

/* Collects a posted request's reply; the first failure is kept in pend_err. */
static int collect(struct remote *r, struct pending *p, char *err, size_t errlen)
{
    char msg[512];
    int rc = rpc_await(r, &p->w, msg, sizeof msg);
    p->used = false;
    r->pend_count--;
    if (rc != 0) {
        if (!r->pend_err[0])
            snprintf(r->pend_err, sizeof r->pend_err, "%s", msg);
        rpc_fail(err, errlen, "%s", msg);
    }
    return rc;
}

static struct pending *oldest(struct remote *r)
{
    struct pending *o = NULL;
    for (unsigned k = 0; k < PENDING_MAX; k++)
        if (r->pend[k].used && (!o || (int32_t)(r->pend[k].w.seq - o->w.seq) < 0))
            o = &r->pend[k];
    return o;
}

int rpc_post(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra, size_t extra_len,
             const void *data, size_t data_len, int pass_fd, void *rep, size_t rep_len, uint32_t *seq, char *err,
             size_t errlen)
{
    char msg[512];
    if (r->pend_count == PENDING_MAX)
        collect(r, oldest(r), msg, sizeof msg); /* a failure stays in pend_err */
    struct pending *p = r->pend;
    while (p->used)
        p++;
    p->w = (struct waiter){.rep = rep, .rep_len = rep_len};
    if (rpc_send_request(r, op, fixed, fixed_len, extra, extra_len, data, data_len, pass_fd, &p->w, err, errlen) != 0)
        return -1;
    p->used = true;
    r->pend_count++;
    *seq = p->w.seq;
    return 0;
}

int rpc_wait(struct remote *r, uint32_t seq, char *err, size_t errlen)
{
    for (unsigned k = 0; k < PENDING_MAX; k++)
        if (r->pend[k].used && r->pend[k].w.seq == seq)
            return collect(r, &r->pend[k], err, errlen);
    return 0; /* collected already */
}

int rpc_wait_all(struct remote *r, char *err, size_t errlen)
{
    char msg[512];
    struct pending *p;
    while ((p = oldest(r)))
        collect(r, p, msg, sizeof msg);
    if (r->pend_err[0]) {
        rpc_fail(err, errlen, "%s", r->pend_err);
        r->pend_err[0] = 0;
        return -1;
    }
    if (rpc_dead(r)) {
        pthread_mutex_lock(&r->state_lock);
        rpc_fail(err, errlen, "%s", r->dead);
        pthread_mutex_unlock(&r->state_lock);
        return -1;
    }
    return 0;
}

bool rpc_posted_failed(struct remote *r)
{
    if (rpc_dead(r) || r->pend_err[0])
        return true;
    bool failed = false;
    pthread_mutex_lock(&r->recv_lock);
    for (unsigned k = 0; k < PENDING_MAX && !failed; k++)
        failed = r->pend[k].used && r->pend[k].w.done && r->pend[k].w.rc != 0;
    pthread_mutex_unlock(&r->recv_lock);
    return failed;
}

/* ---- the window ------------------------------------------------------------- */

/* Attaches the window: a sealed memfd the daemon maps too, or (streaming) a
 * window the daemon keeps in its own memory. */
int rpc_window(struct remote *r, char *err, size_t errlen)
{
    if (r->window)
        return 0;
    if (r->stream) {
        if (!r->stage && !(r->stage = malloc(OPD_INLINE_MAX)))
            return rpc_fail(err, errlen, "out of memory");
        struct opd_shm req = {.size = WINDOW_SIZE, .kind = OPD_WINDOW_DAEMON};
        if (rpc_call(r, OPD_SHM_ATTACH, &req, sizeof req, NULL, 0, NULL, 0, -1, NULL, 0, err, errlen) != 0)
            return -1;
        r->window = true;
        return 0;
    }
    int fd = memfd_create("openpim-remote-window", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return rpc_fail(err, errlen, "memfd_create: %s", strerror(errno));
    /* sealed against shrinking: the daemon's mapping can never fault */
    if (ftruncate(fd, (off_t)WINDOW_SIZE) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
        rpc_fail(err, errlen, "shared-memory window: %s", strerror(errno));
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, WINDOW_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        rpc_fail(err, errlen, "shared-memory window: %s", strerror(errno));
        close(fd);
        return -1;
    }
    struct opd_shm req = {.size = WINDOW_SIZE, .kind = OPD_WINDOW_MEMFD};
    if (rpc_call(r, OPD_SHM_ATTACH, &req, sizeof req, NULL, 0, NULL, 0, fd, NULL, 0, err, errlen) != 0) {
        munmap(p, WINDOW_SIZE);
        close(fd);
        return -1;
    }
    r->shm = p;
    r->shm_fd = fd;
    r->window = true;
    return 0;
}

/* Puts nsrc sources of len bytes each, back to back, at off in the window.
 * Shared memory: copied now (the daemon must be done with that part).
 * Streaming: in WINDOW_PUT pieces of up to OPD_INLINE_MAX bytes, none waited
 * for (the daemon takes them before any later request). */
int rpc_window_put(struct remote *r, uint64_t off, const void *const *src, uint32_t nsrc, size_t len, char *err,
                   size_t errlen)
{
    if (!r->stream) {
        for (uint32_t i = 0; i < nsrc; i++)
            memcpy(r->shm + off + (size_t)i * len, src[i], len);
        return 0;
    }
    size_t fill = 0;
    uint64_t at = off;
    for (uint32_t i = 0; i < nsrc; i++)
        for (size_t done = 0; done < len;) {
            size_t k = len - done < OPD_INLINE_MAX - fill ? len - done : OPD_INLINE_MAX - fill;
            memcpy(r->stage + fill, (const uint8_t *)src[i] + done, k);
            fill += k;
            done += k;
            if (fill == OPD_INLINE_MAX || (i + 1 == nsrc && done == len)) {
                struct opd_window_io req = {.len = fill, .data = {.where = OPD_SHM, .shm_off = at}};
                uint32_t seq;
                if (rpc_post(r, OPD_WINDOW_PUT, &req, sizeof req, NULL, 0, r->stage, fill, -1, NULL, 0, &seq, err,
                             errlen) != 0)
                    return -1;
                at += fill;
                fill = 0;
            }
        }
    return 0;
}

/* Gets len bytes at off in the window into dst.  Shared memory: copied now
 * (the request that filled it must have been waited for).  Streaming: in
 * WINDOW_GET pieces; dst holds the bytes once they are waited for. */
int rpc_window_get(struct remote *r, uint64_t off, void *dst, size_t len, char *err, size_t errlen)
{
    if (!r->stream) {
        memcpy(dst, r->shm + off, len);
        return 0;
    }
    for (size_t done = 0; done < len;) {
        size_t k = len - done < OPD_INLINE_MAX ? len - done : OPD_INLINE_MAX;
        struct opd_window_io req = {.len = k, .data = {.where = OPD_SHM, .shm_off = off + done}};
        uint32_t seq;
        if (rpc_post(r, OPD_WINDOW_GET, &req, sizeof req, NULL, 0, NULL, 0, -1, (uint8_t *)dst + done, k, &seq, err,
                     errlen) != 0)
            return -1;
        done += k;
    }
    return 0;
}

int rpc_read_gather(struct remote *r, uint32_t region, uint32_t off, const uint32_t *list, uint32_t n, size_t len,
                    void *const *dst, char *err, size_t errlen)
{
    struct opd_gather req = {.region = region, .off = off, .n = n, .len = len};
    size_t total = (size_t)n * len;
    int rc;
    if (total <= OPD_INLINE_MAX) {
        uint8_t *got = malloc(total ? total : 1);
        rc = got ? rpc_call(r, OPD_READ_GATHER, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, got, total, err,
                            errlen)
                 : rpc_fail(err, errlen, "out of memory");
        for (uint32_t i = 0; rc == 0 && i < n; i++)
            memcpy(dst[i], got + (size_t)i * len, len);
        free(got);
        return rc;
    }
    pthread_mutex_lock(&r->win_lock);
    if ((rc = rpc_window(r, err, errlen)) == 0) {
        req.data.where = OPD_SHM;
        rc = rpc_call(r, OPD_READ_GATHER, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, NULL, 0, err, errlen);
        for (uint32_t i = 0; rc == 0 && i < n; i++)
            rc = rpc_window_get(r, (uint64_t)i * len, dst[i], len, err, errlen);
        if (rc == 0)
            rc = rpc_wait_all(r, err, errlen);
    }
    pthread_mutex_unlock(&r->win_lock);
    return rc;
}
