/* The remote backend's connection to openpimd: reaching it (a UNIX socket,
 * or AF_VSOCK from inside a virtual machine), framed requests and their
 * replies (in order, one connection, several requests in flight), the BYE
 * that says why the daemon closed it, and the window for bulk data: a
 * shared-memory memfd both sides map, or, where no descriptor can pass (a
 * VM) or the profile asks (remoteStream), a window in the daemon's memory
 * that WINDOW_PUT and WINDOW_GET fill and empty over the connection. */
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
#include <unistd.h>

#include <linux/vm_sockets.h>

#include "remote_internal.h"

int rpc_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- the connection --------------------------------------------------------- */

static int recv_all(int fd, void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t got = recv(fd, (char *)buf + done, len - done, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        done += (size_t)got;
    }
    return 0;
}

/* The message of a BYE the daemon left before closing, if any. */
static int pending_bye(int fd, char *msg, size_t cap)
{
    struct opd_header a;
    if (recv(fd, &a, sizeof a, MSG_DONTWAIT | MSG_PEEK) != (ssize_t)sizeof a || a.magic != OPD_MAGIC ||
        a.status != OPD_BYE || recv_all(fd, &a, sizeof a) != 0)
        return -1;
    size_t keep = a.len < cap - 1 ? a.len : cap - 1;
    if (recv_all(fd, msg, keep) != 0)
        return -1;
    msg[keep] = 0;
    return 0;
}

/* The connection is over: later requests fail at once with why. */
int rpc_lost(struct remote *r, char *err, size_t errlen, const char *why)
{
    if (!r->dead[0]) {
        snprintf(r->dead, sizeof r->dead, "openpimd at %.100s: %.140s", r->path, why);
        fprintf(stderr, "openpim: %s\n", r->dead); /* once: every later request fails the same way */
    }
    r->pend_count = 0;
    return rpc_fail(err, errlen, "%s", r->dead);
}

/* Reads the reply of the oldest request in flight.  0 (an error reply is kept
 * in pend_err, the first one only), or -1 when the connection is lost. */
static int collect_one(struct remote *r, char *err, size_t errlen)
{
    struct pending p = r->pend[r->pend_head];
    r->pend_head = (r->pend_head + 1) % PENDING_MAX;
    r->pend_count--;
    struct opd_header a;
    if (recv_all(r->fd, &a, sizeof a) != 0)
        return rpc_lost(r, err, errlen, "the daemon closed the connection (stopped or restarted?)");
    if (a.magic != OPD_MAGIC || a.version != OPD_VERSION || a.len > (1ull << 32))
        return rpc_lost(r, err, errlen, "garbled reply");
    if (a.status == OPD_OK || a.status == OPD_ERROR)
        r->mem_used = a.memory;
    if (a.status == OPD_BYE || a.status == OPD_ERROR) {
        char msg[512];
        size_t keep = a.len < sizeof msg - 1 ? a.len : sizeof msg - 1;
        if (recv_all(r->fd, msg, keep) != 0)
            return rpc_lost(r, err, errlen, "the daemon closed the connection");
        msg[keep] = 0;
        for (uint64_t skip = a.len - keep; skip;) { /* an overlong message: drop the rest */
            char sink[256];
            size_t k = skip < sizeof sink ? skip : sizeof sink;
            if (recv_all(r->fd, sink, k) != 0)
                return rpc_lost(r, err, errlen, "the daemon closed the connection");
            skip -= k;
        }
        if (a.status == OPD_BYE || a.seq != p.seq || a.op != p.op)
            return rpc_lost(r, err, errlen, msg);
        if (!r->pend_err[0])
            snprintf(r->pend_err, sizeof r->pend_err, "openpimd: %.490s", msg);
        return 0;
    }
    if (a.status != OPD_OK || a.seq != p.seq || a.op != p.op || a.len != p.rep_len)
        return rpc_lost(r, err, errlen, "a reply does not match its request");
    if (p.rep_len && recv_all(r->fd, p.rep, p.rep_len) != 0)
        return rpc_lost(r, err, errlen, "the daemon closed the connection");
    return 0;
}

/* Sends the iovecs whole.  While the socket is full, the replies that arrive
 * are read: the daemon answers each request before it reads the next, so a
 * client that only wrote would wait for a daemon waiting for it. */
static int send_all(struct remote *r, struct iovec *iov, int iovcnt, int pass_fd, char *err, size_t errlen)
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
        if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {.fd = r->fd, .events = POLLOUT | POLLIN};
            if (poll(&p, 1, -1) < 0 && errno != EINTR)
                return -1;
            if ((p.revents & POLLIN) && r->pend_count) {
                if (collect_one(r, err, errlen) != 0)
                    return -1;
            } else if ((p.revents & (POLLIN | POLLHUP | POLLERR)) && !(p.revents & POLLOUT)) {
                errno = EPIPE; /* nothing asked for arrived: the daemon's BYE, or the end */
                return -1;
            }
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

/* Sends a request without waiting for its reply, which goes to rep (exactly
 * rep_len bytes) when read (rpc_wait).  The request is the fixed part, then
 * `extra` (a DPU list), then inline data; its sequence number in *seq. */
int rpc_post(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra, size_t extra_len,
             const void *data, size_t data_len, int pass_fd, void *rep, size_t rep_len, uint32_t *seq, char *err,
             size_t errlen)
{
    if (r->dead[0])
        return rpc_fail(err, errlen, "%s", r->dead);
    /* batched writes go before anything else: every request sees them done */
    if (op != OPD_WRITE_BATCH && r->batch_count && cache_flush_writes(r, err, errlen) != 0)
        return -1;
    if (r->pend_count == PENDING_MAX && collect_one(r, err, errlen) != 0)
        return -1;
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = op, .seq = ++r->seq,
                           .len = fixed_len + extra_len + data_len};
    struct iovec iov[4] = {{&h, sizeof h}, {(void *)fixed, fixed_len}, {(void *)extra, extra_len},
                           {(void *)data, data_len}};
    *seq = h.seq;
    if (send_all(r, iov, 4, pass_fd, err, errlen) != 0) {
        if (r->dead[0])
            return -1;
        int e = errno;
        char why[256];
        if (pending_bye(r->fd, why, sizeof why) == 0) /* the daemon said why it closed */
            return rpc_lost(r, err, errlen, why);
        bool closed = e == EPIPE || e == ECONNRESET;
        return rpc_lost(r, err, errlen, closed ? "the daemon closed the connection" : strerror(e));
    }
    r->pend[(r->pend_head + r->pend_count) % PENDING_MAX] =
        (struct pending){.seq = h.seq, .op = op, .rep = rep, .rep_len = rep_len};
    r->pend_count++;
    return 0;
}

/* Reads replies, in order, up to and including that of request seq (already
 * read: nothing to do).  0, or -1 with the first error among them, or why the
 * connection was lost. */
int rpc_wait(struct remote *r, uint32_t seq, char *err, size_t errlen)
{
    while (r->pend_count && (int32_t)(seq - r->pend[r->pend_head].seq) >= 0)
        if (collect_one(r, err, errlen) != 0)
            return -1;
    if (r->dead[0])
        return rpc_fail(err, errlen, "%s", r->dead);
    if (r->pend_err[0]) {
        rpc_fail(err, errlen, "%s", r->pend_err);
        r->pend_err[0] = 0;
        return -1;
    }
    return 0;
}

int rpc_wait_all(struct remote *r, char *err, size_t errlen)
{
    return rpc_wait(r, r->seq, err, errlen);
}

/* One request and its reply (r->lock held).  An error reply's message goes to
 * err. */
int rpc_call(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra,
             size_t extra_len, const void *data, size_t data_len, int pass_fd, void *rep, size_t rep_len, char *err,
             size_t errlen)
{
    uint32_t seq;
    if (rpc_post(r, op, fixed, fixed_len, extra, extra_len, data, data_len, pass_fd, rep, rep_len, &seq, err,
                 errlen) != 0)
        return -1;
    return rpc_wait(r, seq, err, errlen);
}

int rpc_connect(const struct op_machine_config *cfg, char *err, size_t errlen)
{
    if (cfg->vsock_port) { /* inside a virtual machine: the daemon is behind the host's vhost-device-vsock */
        int fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return rpc_fail(err, errlen,
                            "socket(AF_VSOCK): %s (this system has no vsock transport: a guest needs the "
                            "vmw_vsock_virtio_transport driver and a vsock device)",
                            strerror(errno));
        struct sockaddr_vm a = {.svm_family = AF_VSOCK, .svm_cid = cfg->vsock_cid, .svm_port = cfg->vsock_port};
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
            int e = errno;
            rpc_fail(err, errlen, "cannot reach openpimd at vsock CID %u port %u: %s%s", cfg->vsock_cid,
                     cfg->vsock_port, strerror(e),
                     e == ETIMEDOUT ? " (nothing serves that port: openpimd --guest-socket <uds-path>_PORT, with "
                                      "the uds-path of this VM's vhost-device-vsock)"
                                    : "");
            close(fd);
            return -1;
        }
        return fd;
    }
    const char *path = cfg->remote;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (!path[0] || strlen(path) >= sizeof a.sun_path)
        return rpc_fail(err, errlen, "openpimd socket path '%s' is empty or too long", path);
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return rpc_fail(err, errlen, "socket: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        rpc_fail(err, errlen, "cannot reach openpimd at %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int rpc_hello(struct remote *r, const char *token, char *err, size_t errlen)
{
    struct opd_hello req;
    memset(&req, 0, sizeof req);
    req.layout = OPD_LAYOUT;
    snprintf(req.token, sizeof req.token, "%s", token);
    int rc = rpc_call(r, OPD_HELLO, &req, sizeof req, NULL, 0, NULL, 0, -1, &r->hello, sizeof r->hello, err, errlen);
    memset(req.token, 0, sizeof req.token);
    return rc;
}

int op_backend_remote_describe(const struct op_machine_config *cfg, struct op_machine_config *out, char *err,
                               size_t errlen)
{
    struct remote *r = calloc(1, sizeof *r);
    if (!r)
        return rpc_fail(err, errlen, "out of memory");
    snprintf(r->path, sizeof r->path, "%s", cfg->remote);
    r->fd = rpc_connect(cfg, err, errlen);
    int rc = r->fd < 0 ? -1 : rpc_hello(r, cfg->token, err, errlen);
    if (r->fd >= 0)
        close(r->fd);
    if (rc == 0)
        *out = r->hello.cfg;
    free(r);
    return rc;
}

/* ---- the window ------------------------------------------------------------- */

/* Attaches the window: a sealed memfd the daemon maps too, or (streaming) a
 * window the daemon keeps in its own memory. */
int rpc_window(struct remote *r, char *err, size_t errlen)
{
    if (r->window)
        return 0;
    if (r->stream) {
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
