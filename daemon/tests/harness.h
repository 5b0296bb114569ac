/* SPDX-License-Identifier: MIT */
/* What the openpimd tests share: starting a daemon on a temporary socket and
 * waiting until it is ready (it tells through systemd's NOTIFY_SOCKET
 * protocol: no sleeping), stopping it, and a raw protocol client that can send
 * any bytes at all. */
#ifndef OPENPIM_DAEMON_TESTS_HARNESS_H
#define OPENPIM_DAEMON_TESTS_HARNESS_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../backend/remote_protocol.h"

#define READY_TIMEOUT_MS 120000 /* a loaded CI machine may take long to spawn workers */

/* If set, the daemon starts with this many file descriptors at most (soft and hard). */
static unsigned daemon_nofile;

static inline double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Starts `daemon` with args (NULL-terminated) serving sock; returns its pid
 * once it said READY=1, or -1.  Its stderr goes to log (NULL: inherited). */
static inline pid_t start_daemon(const char *daemon, const char *sock, const char *const *args, const char *log)
{
    char notify[108];
    snprintf(notify, sizeof notify, "%.90s.notify", sock);
    unlink(notify);
    int nfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, notify, sizeof notify);
    if (nfd < 0 || bind(nfd, (struct sockaddr *)&a, sizeof a) != 0) {
        perror("notify socket");
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        setenv("NOTIFY_SOCKET", notify, 1);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) /* not the caller's stdout: a shell's $(...) would wait for the daemon */
            dup2(null, 1);
        if (log) {
            int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
            if (fd >= 0)
                dup2(fd, 2);
        }
        if (daemon_nofile) {
            struct rlimit rl = {daemon_nofile, daemon_nofile};
            setrlimit(RLIMIT_NOFILE, &rl);
        }
        const char *argv[32];
        int n = 0;
        argv[n++] = daemon;
        argv[n++] = "--socket";
        argv[n++] = sock;
        for (int i = 0; args && args[i] && n < 30; i++)
            argv[n++] = args[i];
        argv[n] = NULL;
        execv(daemon, (char *const *)argv);
        _exit(127);
    }
    struct pollfd p = {.fd = nfd, .events = POLLIN};
    char msg[64] = "";
    int ok = 0;
    double end = now_ms() + READY_TIMEOUT_MS;
    while (!ok && now_ms() < end) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            fprintf(stderr, "openpimd exited before it was ready\n");
            break;
        }
        if (poll(&p, 1, 200) == 1) { /* 200 ms: only to notice a daemon that died */
            ssize_t k = recv(nfd, msg, sizeof msg - 1, 0);
            ok = k > 0 && (msg[k] = 0, strstr(msg, "READY=1") != NULL);
        }
    }
    close(nfd);
    unlink(notify);
    if (!ok) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

/* SIGTERM; the daemon's exit status (-1 if it did not exit normally). */
static inline int stop_daemon(pid_t pid)
{
    int st;
    kill(pid, SIGTERM);
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A byte through a pipe between a test and its children (a step done). */
static inline void put(int fd, char c)
{
    if (write(fd, &c, 1) != 1)
        _exit(90);
}

static inline char get(int fd)
{
    char c = 0;
    if (read(fd, &c, 1) != 1)
        return 0;
    return c;
}

/* ---- a raw client ------------------------------------------------------------ */

static inline int raw_connect(const char *sock)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%.100s", sock);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        perror("connect");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static inline int raw_send(int fd, const void *buf, size_t len, int pass_fd)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {(void *)buf, len};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (pass_fd >= 0) {
        m.msg_control = ctl.buf;
        m.msg_controllen = sizeof ctl.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
    }
    size_t done = 0;
    while (done < len) {
        ssize_t k = sendmsg(fd, &m, MSG_NOSIGNAL);
        if (k <= 0)
            return -1;
        done += (size_t)k;
        iov.iov_base = (char *)buf + done;
        iov.iov_len = len - done;
        m.msg_control = NULL;
        m.msg_controllen = 0;
    }
    return 0;
}

static inline int raw_recv(int fd, void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t k = recv(fd, (char *)buf + done, len - done, 0);
        if (k <= 0)
            return -1;
        done += (size_t)k;
    }
    return 0;
}

/* A reply: status, and its payload (up to cap bytes kept in buf; an error's
 * message NUL-terminated). */
struct raw_reply {
    int ok;          /* a reply arrived */
    uint32_t status; /* enum opd_status */
    uint16_t op;
    uint32_t seq;
    uint64_t len;
    uint64_t memory; /* the header's memory figure */
    char msg[512];
};

static inline int raw_reply(int fd, struct raw_reply *r, void *buf, size_t cap)
{
    memset(r, 0, sizeof *r);
    struct opd_header h;
    if (raw_recv(fd, &h, sizeof h) != 0)
        return -1;
    r->ok = 1;
    r->status = h.status;
    r->op = h.op;
    r->seq = h.seq;
    r->len = h.len;
    r->memory = h.memory;
    for (uint64_t done = 0; done < h.len;) {
        char sink[4096];
        size_t k = h.len - done < sizeof sink ? (size_t)(h.len - done) : sizeof sink;
        if (raw_recv(fd, sink, k) != 0)
            return -1;
        if (h.status == OPD_OK && buf && done < cap)
            memcpy((char *)buf + done, sink, done + k <= cap ? k : cap - done);
        if (h.status != OPD_OK && done < sizeof r->msg - 1)
            memcpy(r->msg + done, sink, done + k <= sizeof r->msg - 1 ? k : sizeof r->msg - 1 - done);
        done += k;
    }
    return 0;
}

/* Sends a well-framed request (fixed part, DPU list, data) and reads its reply. */
static inline int raw_call(int fd, uint16_t op, const void *fixed, size_t fixed_len, const uint32_t *dpus, uint32_t n,
                           const void *data, size_t data_len, int pass_fd, struct raw_reply *r, void *buf, size_t cap)
{
    static uint32_t seq;
    size_t len = sizeof(struct opd_header) + fixed_len + (size_t)n * 4 + data_len;
    uint8_t *msg = malloc(len);
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = op, .seq = ++seq,
                           .len = len - sizeof h};
    memcpy(msg, &h, sizeof h);
    if (fixed_len)
        memcpy(msg + sizeof h, fixed, fixed_len);
    if (n)
        memcpy(msg + sizeof h + fixed_len, dpus, (size_t)n * 4);
    if (data_len)
        memcpy(msg + sizeof h + fixed_len + (size_t)n * 4, data, data_len);
    int rc = raw_send(fd, msg, len, pass_fd);
    free(msg);
    if (rc != 0)
        return -1;
    return raw_reply(fd, r, buf, cap);
}

/* A raw client past HELLO. */
static inline int raw_hello(const char *sock, struct opd_hello_reply *out)
{
    int fd = raw_connect(sock);
    if (fd < 0)
        return -1;
    struct opd_hello req = {.layout = OPD_LAYOUT};
    struct raw_reply r;
    struct opd_hello_reply tmp;
    if (raw_call(fd, OPD_HELLO, &req, sizeof req, NULL, 0, NULL, 0, -1, &r, out ? out : &tmp, sizeof tmp) != 0 ||
        r.status != OPD_OK) {
        close(fd);
        return -1;
    }
    return fd;
}

/* CLAIM of one rank: the rank, or -1 (message in r). */
static inline int64_t raw_claim(int fd, uint32_t wait_ms, struct raw_reply *r)
{
    struct opd_claim req = {.wait_ms = wait_ms, .count = 1, .min = 1};
    uint32_t got = 0;
    if (raw_call(fd, OPD_CLAIM, &req, sizeof req, NULL, 0, NULL, 0, -1, r, &got, sizeof got) != 0 ||
        r->status != OPD_OK || r->len != sizeof got)
        return -1;
    return got;
}

/* A shared-memory window as the remote backend makes it. */
static inline int raw_window(int fd, uint64_t size, uint8_t **map)
{
    int m = memfd_create("test-window", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (m < 0 || ftruncate(m, (off_t)size) != 0 || fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK) != 0)
        return -1;
    *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
    struct opd_shm req = {.size = size};
    struct raw_reply r;
    int rc = raw_call(fd, OPD_SHM_ATTACH, &req, sizeof req, NULL, 0, NULL, 0, m, &r, NULL, 0);
    close(m);
    return rc == 0 && r.status == OPD_OK && *map != MAP_FAILED ? 0 : -1;
}

/* Whether n bytes are all zero. */
static inline int all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

#endif
