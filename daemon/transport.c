/* SPDX-License-Identifier: MIT */
/* openpimd's UNIX-domain transport (transport.h). */
#define _GNU_SOURCE
#include "transport.h"
#include "fail.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int transport_listen_unix(const char *path, char *err, size_t errlen)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path)
        return fail(err, errlen, "socket path %s is longer than %zu bytes", path, sizeof a.sun_path - 1);
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(err, errlen, "socket: %s", strerror(errno));
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            close(fd);
            return fail(err, errlen, "%s exists and is not a socket", path);
        }
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int live = probe >= 0 && connect(probe, (struct sockaddr *)&a, sizeof a) == 0;
        if (probe >= 0)
            close(probe);
        if (live) {
            close(fd);
            return fail(err, errlen, "another openpimd serves %s", path);
        }
        unlink(path); /* left by a daemon that died */
    }
    /* owner-only until the daemon widens it: clients are told apart by uid anyway */
    mode_t old = umask(0077);
    int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
    umask(old);
    if (rc != 0 || listen(fd, 64) != 0) {
        fail(err, errlen, "cannot listen on %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int transport_peer(int fd, struct peer *out)
{
    struct ucred c;
    socklen_t len = sizeof c;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) != 0)
        return -1;
    out->pid = c.pid;
    out->uid = c.uid;
    out->gid = c.gid;
    return 0;
}

/* Waits until fd is ready for `events`: 0 ready, -1 when stop_fd is readable,
 * on error or after timeout_ms (-1: none) without readiness. */
static int wait_ready(int fd, short events, int stop_fd, int timeout_ms)
{
    struct pollfd p[2] = {{.fd = fd, .events = events}, {.fd = stop_fd, .events = POLLIN}};
    for (;;) {
        int n = poll(p, stop_fd >= 0 ? 2 : 1, timeout_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || (stop_fd >= 0 && p[1].revents))
            return -1;
        if (p[0].revents)
            return 0;
    }
}

int transport_recv(int fd, void *buf, size_t len, int *fds, int max_fds, int *nfds, int stop_fd)
{
    return transport_recv_within(fd, buf, len, fds, max_fds, nfds, stop_fd, -1);
}

int transport_recv_within(int fd, void *buf, size_t len, int *fds, int max_fds, int *nfds, int stop_fd,
                          int timeout_ms)
{
    size_t done = 0;
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += timeout_ms / 1000;
    end.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (nfds)
        *nfds = 0;
    while (done < len) {
        int left = -1;
        if (timeout_ms >= 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long long ms = (end.tv_sec - now.tv_sec) * 1000ll + (end.tv_nsec - now.tv_nsec) / 1000000;
            left = ms > 0 ? (int)ms : 0;
        }
        if (wait_ready(fd, POLLIN, stop_fd, left) != 0)
            return -1;
        union {
            char buf[CMSG_SPACE(4 * sizeof(int))];
            struct cmsghdr align;
        } ctl;
        struct iovec iov = {(char *)buf + done, len - done};
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
        ssize_t got = recvmsg(fd, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got < 0)
            return -1;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < k; i++) {
                    int one;
                    memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof one);
                    if (fds && nfds && *nfds < max_fds)
                        fds[(*nfds)++] = one;
                    else
                        close(one);
                }
            }
        if (got == 0)
            return done == 0 ? 1 : -1;
        done += (size_t)got;
    }
    return 0;
}

int transport_send(int fd, struct iovec *iov, int iovcnt, int timeout_ms)
{
    while (iovcnt > 0) {
        if (iov->iov_len == 0) {
            iov++, iovcnt--;
            continue;
        }
        if (wait_ready(fd, POLLOUT, -1, timeout_ms) != 0)
            return -1;
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)iovcnt};
        ssize_t put = sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (put < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (put < 0)
            return -1;
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
