/* The remote backend's connection to openpimd: framed requests and their
 * replies (in order, one connection), the BYE that says why the daemon
 * closed it, and the shared-memory window for bulk data. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

static int send_all(int fd, struct iovec *iov, int iovcnt, int pass_fd)
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
        ssize_t put = sendmsg(fd, &m, MSG_NOSIGNAL);
        if (put < 0 && errno == EINTR)
            continue;
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
    return rpc_fail(err, errlen, "%s", r->dead);
}

/* Sends a request (see rpc_call); its sequence number in *seq. */
int rpc_send_request(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra,
                     size_t extra_len, const void *data, size_t data_len, int pass_fd, uint32_t *seq, char *err,
                     size_t errlen)
{
    if (r->dead[0])
        return rpc_fail(err, errlen, "%s", r->dead);
    /* batched writes go before anything else: every request sees them done */
    if (op != OPD_WRITE_BATCH && r->batch_count && cache_flush_writes(r, err, errlen) != 0)
        return -1;
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = op, .seq = ++r->seq,
                           .len = fixed_len + extra_len + data_len};
    struct iovec iov[4] = {{&h, sizeof h}, {(void *)fixed, fixed_len}, {(void *)extra, extra_len},
                           {(void *)data, data_len}};
    *seq = h.seq;
    if (send_all(r->fd, iov, 4, pass_fd) != 0) {
        int e = errno;
        char why[256];
        if (pending_bye(r->fd, why, sizeof why) == 0) /* the daemon said why it closed */
            return rpc_lost(r, err, errlen, why);
        bool closed = e == EPIPE || e == ECONNRESET;
        return rpc_lost(r, err, errlen, closed ? "the daemon closed the connection" : strerror(e));
    }
    return 0;
}

/* Receives the reply to request seq of kind op (the daemon answers in order). */
int rpc_recv_reply(struct remote *r, uint16_t op, uint32_t seq, void *rep, size_t rep_len, char *err,
                   size_t errlen)
{
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
        if (a.status == OPD_BYE)
            return rpc_lost(r, err, errlen, msg);
        if (a.seq != seq || a.op != op)
            return rpc_lost(r, err, errlen, msg);
        return rpc_fail(err, errlen, "openpimd: %s", msg);
    }
    if (a.status != OPD_OK || a.seq != seq || a.op != op || a.len != rep_len)
        return rpc_lost(r, err, errlen, "a reply does not match its request");
    if (rep_len && recv_all(r->fd, rep, rep_len) != 0)
        return rpc_lost(r, err, errlen, "the daemon closed the connection");
    return 0;
}

/* One request and its reply (r->lock held).  The request is the fixed part,
 * then `extra` (a DPU list), then inline data; the reply's payload must be
 * exactly rep_len bytes and goes to rep.  An error reply's message goes to
 * err. */
int rpc_call(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra,
             size_t extra_len, const void *data, size_t data_len, int pass_fd, void *rep, size_t rep_len, char *err,
             size_t errlen)
{
    uint32_t seq;
    if (rpc_send_request(r, op, fixed, fixed_len, extra, extra_len, data, data_len, pass_fd, &seq, err, errlen) != 0)
        return -1;
    return rpc_recv_reply(r, op, seq, rep, rep_len, err, errlen);
}

int rpc_connect(const char *path, char *err, size_t errlen)
{
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

int rpc_hello(struct remote *r, char *err, size_t errlen)
{
    struct opd_hello req = {.layout = OPD_LAYOUT};
    return rpc_call(r, OPD_HELLO, &req, sizeof req, NULL, 0, NULL, 0, -1, &r->hello, sizeof r->hello, err, errlen);
}

int op_backend_remote_describe(const char *socket, struct op_machine_config *out, char *err, size_t errlen)
{
    struct remote r;
    memset(&r, 0, sizeof r);
    snprintf(r.path, sizeof r.path, "%s", socket);
    r.fd = rpc_connect(socket, err, errlen);
    if (r.fd < 0)
        return -1;
    int rc = rpc_hello(&r, err, errlen);
    close(r.fd);
    if (rc == 0)
        *out = r.hello.cfg;
    return rc;
}

/* ---- DPU numbers ------------------------------------------------------------ */
/* ---- the shared-memory window ---------------------------------------------- */

int rpc_window(struct remote *r, char *err, size_t errlen)
{
    if (r->shm)
        return 0;
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
    struct opd_shm req = {.size = WINDOW_SIZE};
    if (rpc_call(r, OPD_SHM_ATTACH, &req, sizeof req, NULL, 0, NULL, 0, fd, NULL, 0, err, errlen) != 0) {
        munmap(p, WINDOW_SIZE);
        close(fd);
        return -1;
    }
    r->shm = p;
    r->shm_fd = fd;
    return 0;
}
