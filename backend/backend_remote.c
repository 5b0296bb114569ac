/* The remote backend: a client of openpimd (daemon/protocol.h) behind the
 * operations table of backend/backend.h.  An unmodified UPMEM program gets it
 * with UPMEM_PROFILE=backend=remote (sdk/profile.c, sdk/session.c).
 *
 * The SDK numbers ranks 0 .. nr_ranks - 1 as on the embedded machine; the
 * daemon hands out whichever physical rank is free, so this backend keeps the
 * map from the SDK's (virtual) ranks to the daemon's and translates DPU
 * numbers on every request.  The timing model runs in the SDK from the
 * results the daemon returns, over the SDK's rank numbers: modelled times are
 * those of the embedded machine.
 *
 * One connection per backend, one request at a time on it.  Data above
 * OPD_INLINE_MAX bytes goes through a shared-memory window (a sealed memfd
 * the daemon maps), in pieces of the window's size. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

#include "remote_protocol.h"
#include "backend.h"

#define WINDOW_SIZE (32ull << 20) /* the shared-memory window: bulk data moves in pieces of this size */

struct remote_program {
    uint32_t handle;
};

/* vPIM's prefetch of small reads, per rank.  The SDK reads a transfer from a
 * rank DPU by DPU with the same offset and size; from the second such read
 * on, one READ_GATHER fetches that range of the rank's remaining DPUs, and
 * their reads are served here.  A single read never fires it (vPIM's
 * Takeaway 1: a prefetch that is not used only adds cost).  Writes, loads,
 * launches, claims and releases empty every cache: only the tenant's own
 * requests change its ranks, so a cached byte is always the DPU's byte. */
#define PREFETCH_MAX (16u << 10) /* bytes per DPU: larger reads go direct */
struct prefetch {
    bool valid, seen; /* valid: data holds [off, off + len) of the DPUs marked in have */
    uint32_t region, off, len;
    uint32_t last; /* seen: the DPU (index in the rank) of the last direct read of (region, off, len) */
    uint8_t *have, *data;
};

struct remote {
    struct op_backend base;
    pthread_mutex_t lock; /* one request at a time on the connection; the maps below */
    int fd;
    char path[sizeof ((struct op_machine_config *)0)->remote];
    uint32_t seq;
    struct opd_hello_reply hello;
    uint32_t per_rank, nr_vranks, wait_ms;
    int64_t *vmap; /* SDK rank -> daemon rank, -1 when not claimed */
    struct op_dpu_status *results; /* per SDK DPU: its last launch's outcome */
    uint8_t *have_result;
    uint8_t *stage; /* inline request data */
    uint64_t mem_used, mem_limit; /* the daemon's host memory, from its last reply */
    bool prefetch_on;             /* OPENPIM_REMOTE_PREFETCH (default 1) */
    struct prefetch *pf;          /* per SDK rank */
    uint8_t *gather;              /* a READ_GATHER's reply */
    bool batch_on;                /* OPENPIM_REMOTE_BATCH=1 */
    uint8_t *batch;               /* pending small writes: WRITE_BATCH entries */
    size_t batch_len;
    uint32_t batch_count;
    uint8_t *loaded;              /* per SDK DPU: a program was loaded since its rank was claimed */
    int shm_fd;
    uint8_t *shm;
    char dead[256]; /* why the connection is over; "" while it works */
};

static struct remote *R(struct op_backend *b)
{
    return (struct remote *)b;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
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
static int lost(struct remote *r, char *err, size_t errlen, const char *why)
{
    if (!r->dead[0]) {
        snprintf(r->dead, sizeof r->dead, "openpimd at %.100s: %.140s", r->path, why);
        fprintf(stderr, "openpim: %s\n", r->dead); /* once: every later request fails the same way */
    }
    return fail(err, errlen, "%s", r->dead);
}

static int flush_writes(struct remote *r, char *err, size_t errlen);

/* Sends a request (see call); its sequence number in *seq. */
static int send_request(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra,
                        size_t extra_len, const void *data, size_t data_len, int pass_fd, uint32_t *seq, char *err,
                        size_t errlen)
{
    if (r->dead[0])
        return fail(err, errlen, "%s", r->dead);
    /* batched writes go before anything else: every request sees them done */
    if (op != OPD_WRITE_BATCH && r->batch_count && flush_writes(r, err, errlen) != 0)
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
            return lost(r, err, errlen, why);
        return lost(r, err, errlen, e == EPIPE || e == ECONNRESET ? "the daemon closed the connection" : strerror(e));
    }
    return 0;
}

/* Receives the reply to request seq of kind op (the daemon answers in order). */
static int recv_reply(struct remote *r, uint16_t op, uint32_t seq, void *rep, size_t rep_len, char *err,
                      size_t errlen)
{
    struct opd_header a;
    if (recv_all(r->fd, &a, sizeof a) != 0)
        return lost(r, err, errlen, "the daemon closed the connection (stopped or restarted?)");
    if (a.magic != OPD_MAGIC || a.version != OPD_VERSION || a.len > (1ull << 32))
        return lost(r, err, errlen, "garbled reply");
    if (a.status == OPD_OK || a.status == OPD_ERROR)
        r->mem_used = a.memory;
    if (a.status == OPD_BYE || a.status == OPD_ERROR) {
        char msg[512];
        size_t keep = a.len < sizeof msg - 1 ? a.len : sizeof msg - 1;
        if (recv_all(r->fd, msg, keep) != 0)
            return lost(r, err, errlen, "the daemon closed the connection");
        msg[keep] = 0;
        for (uint64_t skip = a.len - keep; skip;) { /* an overlong message: drop the rest */
            char sink[256];
            size_t k = skip < sizeof sink ? skip : sizeof sink;
            if (recv_all(r->fd, sink, k) != 0)
                return lost(r, err, errlen, "the daemon closed the connection");
            skip -= k;
        }
        if (a.status == OPD_BYE)
            return lost(r, err, errlen, msg);
        if (a.seq != seq || a.op != op)
            return lost(r, err, errlen, msg);
        return fail(err, errlen, "openpimd: %s", msg);
    }
    if (a.status != OPD_OK || a.seq != seq || a.op != op || a.len != rep_len)
        return lost(r, err, errlen, "a reply does not match its request");
    if (rep_len && recv_all(r->fd, rep, rep_len) != 0)
        return lost(r, err, errlen, "the daemon closed the connection");
    return 0;
}

/* One request and its reply (r->lock held).  The request is the fixed part,
 * then `extra` (a DPU list), then inline data; the reply's payload must be
 * exactly rep_len bytes and goes to rep.  An error reply's message goes to
 * err. */
static int call(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra,
                size_t extra_len, const void *data, size_t data_len, int pass_fd, void *rep, size_t rep_len, char *err,
                size_t errlen)
{
    uint32_t seq;
    if (send_request(r, op, fixed, fixed_len, extra, extra_len, data, data_len, pass_fd, &seq, err, errlen) != 0)
        return -1;
    return recv_reply(r, op, seq, rep, rep_len, err, errlen);
}

static int connect_to(const char *path, char *err, size_t errlen)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (!path[0] || strlen(path) >= sizeof a.sun_path)
        return fail(err, errlen, "openpimd socket path '%s' is empty or too long", path);
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(err, errlen, "socket: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        fail(err, errlen, "cannot reach openpimd at %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static int hello(struct remote *r, char *err, size_t errlen)
{
    struct opd_hello req = {.layout = OPD_LAYOUT};
    return call(r, OPD_HELLO, &req, sizeof req, NULL, 0, NULL, 0, -1, &r->hello, sizeof r->hello, err, errlen);
}

int op_backend_remote_describe(const char *socket, struct op_machine_config *out, char *err, size_t errlen)
{
    struct remote r;
    memset(&r, 0, sizeof r);
    snprintf(r.path, sizeof r.path, "%s", socket);
    r.fd = connect_to(socket, err, errlen);
    if (r.fd < 0)
        return -1;
    int rc = hello(&r, err, errlen);
    close(r.fd);
    if (rc == 0)
        *out = r.hello.cfg;
    return rc;
}

/* ---- DPU numbers ------------------------------------------------------------ */

/* The daemon's number of an SDK DPU; -1 if its rank is not claimed here. */
static int64_t phys(struct remote *r, uint32_t dpu)
{
    uint32_t vr = dpu / r->per_rank;
    if (vr >= r->nr_vranks || r->vmap[vr] < 0)
        return -1;
    return r->vmap[vr] * r->per_rank + dpu % r->per_rank;
}

/* Translates a DPU list into out (n entries). */
static int translate(struct remote *r, const uint32_t *dpus, uint32_t n, uint32_t *out, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < n; i++) {
        int64_t p = phys(r, dpus[i]);
        if (p < 0)
            return fail(err, errlen, "DPU %u: its rank is not claimed", dpus[i]);
        out[i] = (uint32_t)p;
    }
    return 0;
}

/* ---- the shared-memory window ---------------------------------------------- */

static int window(struct remote *r, char *err, size_t errlen)
{
    if (r->shm)
        return 0;
    int fd = memfd_create("openpim-remote-window", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return fail(err, errlen, "memfd_create: %s", strerror(errno));
    /* sealed against shrinking: the daemon's mapping can never fault */
    if (ftruncate(fd, (off_t)WINDOW_SIZE) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
        fail(err, errlen, "shared-memory window: %s", strerror(errno));
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, WINDOW_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        fail(err, errlen, "shared-memory window: %s", strerror(errno));
        close(fd);
        return -1;
    }
    struct opd_shm req = {.size = WINDOW_SIZE};
    if (call(r, OPD_SHM_ATTACH, &req, sizeof req, NULL, 0, NULL, 0, fd, NULL, 0, err, errlen) != 0) {
        munmap(p, WINDOW_SIZE);
        close(fd);
        return -1;
    }
    r->shm = p;
    r->shm_fd = fd;
    return 0;
}

/* ---- batching of small writes ----------------------------------------------------- */

/* vPIM's write batching, off unless OPENPIM_REMOTE_BATCH=1: a small write
 * whose DPUs, region and range check out here is kept and sent with the
 * others in one WRITE_BATCH before the next request of any other kind.  What
 * the daemon alone can refuse (its host memory limit) then fails that next
 * request, with the reason, instead of the write itself. */
#define BATCH_ENTRY_MAX 4096u          /* bytes of one batched write request */
#define BATCH_BYTES OPD_INLINE_MAX     /* bytes of a batch */

static int flush_writes(struct remote *r, char *err, size_t errlen)
{
    if (!r->batch_count)
        return 0;
    struct opd_batch req = {.count = r->batch_count};
    size_t len = r->batch_len;
    r->batch_count = 0;
    r->batch_len = 0;
    char why[400];
    if (call(r, OPD_WRITE_BATCH, &req, sizeof req, r->batch, len, NULL, 0, -1, NULL, 0, why, sizeof why) != 0) {
        fail(err, errlen, "an earlier write (batched, OPENPIM_REMOTE_BATCH=1) failed: %s", why);
        fprintf(stderr, "openpim: %s\n", err); /* also when the request that flushed cannot report it */
        return -1;
    }
    return 0;
}

/* Keeps a small write for the next batch: 1 kept, 0 not (send it now), -1 error. */
static int batch_write(struct remote *r, const uint32_t *list, uint32_t n, enum op_region region, uint32_t off,
                       const void *const *src, uint32_t nsrc, size_t len, char *err, size_t errlen)
{
    size_t body = sizeof(struct opd_write) + (size_t)n * 4 + (size_t)nsrc * len;
    uint64_t size = region == OP_REGION_MRAM ? r->hello.info.mram_size : region == OP_REGION_WRAM ? OP_WRAM_STRIDE : 0;
    if (!r->batch_on || body > BATCH_ENTRY_MAX || !size || off > size || len > size - off)
        return 0; /* the daemon's reply reports what is wrong */
    for (uint32_t i = 0; i < n; i++) /* the SDK never names a DPU twice; the daemon would refuse the batch */
        for (uint32_t k = 0; k < i; k++)
            if (list[k] == list[i])
                return 0;
    size_t entry = 8 + (body + 7) / 8 * 8;
    if (r->batch_len + entry > BATCH_BYTES && flush_writes(r, err, errlen) != 0)
        return -1;
    if (!r->batch && !(r->batch = malloc(BATCH_BYTES)))
        return 0;
    uint8_t *at = r->batch + r->batch_len;
    uint64_t blen = body;
    struct opd_write w = {.region = (uint32_t)region, .off = off, .n = n, .nsrc = nsrc, .len = len};
    memcpy(at, &blen, 8);
    memcpy(at + 8, &w, sizeof w);
    memcpy(at + 8 + sizeof w, list, (size_t)n * 4);
    uint8_t *data = at + 8 + sizeof w + (size_t)n * 4;
    for (uint32_t i = 0; i < nsrc; i++)
        memcpy(data + (size_t)i * len, src[i], len);
    memset(at + 8 + body, 0, entry - 8 - body);
    r->batch_len += entry;
    r->batch_count++;
    if (r->batch_count == OPD_BATCH_MAX && flush_writes(r, err, errlen) != 0)
        return -1;
    return 1;
}

/* ---- the prefetch cache -------------------------------------------------------- */

static void forget_prefetch(struct remote *r)
{
    for (uint32_t v = 0; r->pf && v < r->nr_vranks; v++)
        r->pf[v].valid = r->pf[v].seen = false;
}

/* Serves a read from the cache, or fills the cache when the pattern repeats:
 * 1 served, 0 not (read directly), -1 error. */
static int prefetch_read(struct remote *r, uint32_t dpu, uint32_t region, uint32_t off, void *dst, size_t len,
                         char *err, size_t errlen)
{
    uint32_t vr = dpu / r->per_rank, idx = dpu % r->per_rank;
    struct prefetch *p = &r->pf[vr];
    if (p->valid && p->region == region && off >= p->off && len <= p->len && off - p->off <= p->len - len &&
        p->have[idx]) {
        memcpy(dst, p->data + (size_t)idx * p->len + (off - p->off), len);
        return 1;
    }
    bool repeat = p->seen && p->region == region && p->off == off && p->len == len && p->last != idx;
    p->seen = true;
    p->region = region;
    p->off = off;
    p->len = (uint32_t)len;
    p->last = idx;
    p->valid = false;
    if (!repeat)
        return 0;
    if (!p->data && !(p->data = malloc((size_t)r->per_rank * PREFETCH_MAX)))
        return 0;
    if (!r->gather && !(r->gather = malloc((size_t)r->per_rank * PREFETCH_MAX)))
        return 0;
    /* this DPU and the rank's later ones, as the SDK goes through them; only
     * DPUs with a program (the set's), so that no memory is read that the
     * program would not read (reading WRAM backs its pages) */
    uint32_t n = 0, list[64], at[64];
    for (uint32_t i = idx; i < r->per_rank; i++)
        if (i == idx || r->loaded[vr * r->per_rank + i]) {
            at[n] = i;
            list[n++] = (uint32_t)(r->vmap[vr] * r->per_rank + i);
        }
    struct opd_gather req = {.region = region, .off = off, .n = n, .len = len};
    size_t total = (size_t)n * len;
    uint8_t *into = r->gather;
    int rc;
    if (total <= OPD_INLINE_MAX) {
        rc = call(r, OPD_READ_GATHER, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, into, total, err, errlen);
    } else if ((rc = window(r, err, errlen)) == 0) {
        req.data.where = OPD_SHM;
        rc = call(r, OPD_READ_GATHER, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, NULL, 0, err, errlen);
        if (rc == 0)
            memcpy(into, r->shm, total);
    }
    if (rc != 0)
        return r->dead[0] ? -1 : 0; /* the direct read reports what is wrong */
    memset(p->have, 0, r->per_rank);
    for (uint32_t k = 0; k < n; k++) {
        memcpy(p->data + (size_t)at[k] * len, into + (size_t)k * len, len);
        p->have[at[k]] = 1;
    }
    p->valid = true;
    memcpy(dst, into, len);
    return 1;
}

/* ---- operations ------------------------------------------------------------- */

static void remote_close(struct op_backend *b)
{
    struct remote *r = R(b);
    char err[512];
    flush_writes(r, err, sizeof err); /* as the embedded machine: a write is done when it returns */
    close(r->fd); /* the daemon releases (and resets) whatever is still claimed */
    if (r->shm) {
        munmap(r->shm, WINDOW_SIZE);
        close(r->shm_fd);
    }
    pthread_mutex_destroy(&r->lock);
    free(r->vmap);
    free(r->results);
    free(r->have_result);
    free(r->loaded);
    free(r->gather);
    free(r->batch);
    free(r->stage);
    for (uint32_t v = 0; r->pf && v < r->nr_vranks; v++) {
        free(r->pf[v].have);
        free(r->pf[v].data);
    }
    free(r->pf);
    free(r);
}

static void remote_info(struct op_backend *b, struct op_backend_info *out)
{
    *out = R(b)->hello.info;
}

/* What this backend knows of a rank's DPUs: their results, whether they hold a program. */
static void forget_results(struct remote *r, uint32_t vrank)
{
    memset(r->have_result + (size_t)vrank * r->per_rank, 0, r->per_rank);
    memset(r->loaded + (size_t)vrank * r->per_rank, 0, r->per_rank);
}

static int remote_claim_rank(struct op_backend *b, uint32_t rank, char *err, size_t errlen)
{
    struct remote *r = R(b);
    if (rank >= r->nr_vranks)
        return fail(err, errlen, "no rank %u: the machine has %u", rank, r->nr_vranks);
    pthread_mutex_lock(&r->lock);
    int rc = -1;
    forget_prefetch(r);
    if (r->vmap[rank] >= 0) {
        fail(err, errlen, "rank %u is in use", rank);
    } else {
        struct opd_claim req = {.wait_ms = r->wait_ms};
        struct opd_rank got;
        rc = call(r, OPD_CLAIM, &req, sizeof req, NULL, 0, NULL, 0, -1, &got, sizeof got, err, errlen);
        if (rc == 0 && got.rank >= r->hello.cfg.desc.nr_ranks) {
            rc = lost(r, err, errlen, "the daemon handed out a rank it does not have");
        } else if (rc == 0) {
            r->vmap[rank] = got.rank;
            forget_results(r, rank);
        }
    }
    pthread_mutex_unlock(&r->lock);
    return rc;
}

static void remote_release_rank(struct op_backend *b, uint32_t rank)
{
    struct remote *r = R(b);
    if (rank >= r->nr_vranks)
        return;
    pthread_mutex_lock(&r->lock);
    forget_prefetch(r);
    if (r->vmap[rank] >= 0) {
        struct opd_rank req = {.rank = (uint32_t)r->vmap[rank]};
        char err[256];
        call(r, OPD_RELEASE, &req, sizeof req, NULL, 0, NULL, 0, -1, NULL, 0, err, sizeof err);
        r->vmap[rank] = -1; /* released for us even if the daemon is gone (it reclaims) */
        forget_results(r, rank);
    }
    pthread_mutex_unlock(&r->lock);
}

static struct op_backend_program *remote_program_open(struct op_backend *b, const void *elf, size_t len, char *err,
                                                      size_t errlen)
{
    struct remote *r = R(b);
    struct remote_program *p = calloc(1, sizeof *p);
    if (!p) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_lock(&r->lock);
    struct opd_program req = {.len = len};
    struct opd_handle got;
    int rc;
    if (len <= OPD_INLINE_MAX) {
        rc = call(r, OPD_PROGRAM_OPEN, &req, sizeof req, NULL, 0, elf, len, -1, &got, sizeof got, err, errlen);
    } else if (len > WINDOW_SIZE) {
        rc = fail(err, errlen, "a DPU program of %zu bytes is over the %llu MB the daemon takes", len,
                  WINDOW_SIZE >> 20);
    } else {
        rc = window(r, err, errlen);
        if (rc == 0) {
            memcpy(r->shm, elf, len);
            req.data.where = OPD_SHM;
            rc = call(r, OPD_PROGRAM_OPEN, &req, sizeof req, NULL, 0, NULL, 0, -1, &got, sizeof got, err, errlen);
        }
    }
    pthread_mutex_unlock(&r->lock);
    if (rc != 0) {
        free(p);
        return NULL;
    }
    p->handle = got.handle;
    return (struct op_backend_program *)p;
}

static void remote_program_close(struct op_backend *b, struct op_backend_program *bp)
{
    struct remote *r = R(b);
    struct remote_program *p = (struct remote_program *)bp;
    if (!p)
        return;
    pthread_mutex_lock(&r->lock);
    struct opd_handle req = {.handle = p->handle};
    char err[256];
    call(r, OPD_PROGRAM_CLOSE, &req, sizeof req, NULL, 0, NULL, 0, -1, NULL, 0, err, sizeof err);
    pthread_mutex_unlock(&r->lock);
    free(p);
}

/* A translated copy of a DPU list (free it). */
static uint32_t *dpu_list(struct remote *r, const uint32_t *dpus, uint32_t n, char *err, size_t errlen)
{
    uint32_t *out = malloc((n ? n : 1) * sizeof *out);
    if (!out) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    if (translate(r, dpus, n, out, err, errlen) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static int remote_load(struct op_backend *b, const uint32_t *dpus, uint32_t n, struct op_backend_program *bp,
                       char *err, size_t errlen)
{
    struct remote *r = R(b);
    pthread_mutex_lock(&r->lock);
    int rc = -1;
    forget_prefetch(r);
    uint32_t *list = dpu_list(r, dpus, n, err, errlen);
    if (list) {
        struct opd_load req = {.handle = ((struct remote_program *)bp)->handle, .n = n};
        rc = call(r, OPD_LOAD, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, NULL, 0, err, errlen);
        for (uint32_t i = 0; rc == 0 && i < n; i++)
            r->loaded[dpus[i]] = 1;
        free(list);
    }
    pthread_mutex_unlock(&r->lock);
    return rc;
}

static int check_room_locked(struct remote *r, const uint32_t *list, uint32_t n, uint32_t off, size_t len, char *err,
                             size_t errlen)
{
    struct opd_room req = {.off = off, .n = n, .len = len};
    return call(r, OPD_CHECK_ROOM, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, NULL, 0, err, errlen);
}

/* One WRITE request of n DPUs (list) with nsrc sources of len bytes at off. */
static int write_piece(struct remote *r, const uint32_t *list, uint32_t n, enum op_region region, uint64_t off,
                       const void *const *src, uint32_t nsrc, size_t len, char *err, size_t errlen)
{
    struct opd_write req = {.region = (uint32_t)region, .off = (uint32_t)off, .n = n, .nsrc = nsrc, .len = len};
    size_t total = (size_t)nsrc * len;
    uint8_t *dst;
    if (total <= OPD_INLINE_MAX) {
        dst = r->stage;
    } else {
        if (window(r, err, errlen) != 0)
            return -1;
        dst = r->shm;
        req.data.where = OPD_SHM;
    }
    for (uint32_t i = 0; i < nsrc; i++)
        memcpy(dst + (size_t)i * len, src[i], len);
    return call(r, OPD_WRITE, &req, sizeof req, list, (size_t)n * 4, req.data.where == OPD_INLINE ? dst : NULL,
                req.data.where == OPD_INLINE ? total : 0, -1, NULL, 0, err, errlen);
}

/* Large writes (and reads, read_pipelined) in pieces through two parts of
 * the window, two requests in flight: the client fills one part while the
 * daemon copies the other out, so the two copies of the shared-memory path
 * overlap. */
#define HALF (4ull << 20)          /* one piece (a round trip per 4 MB is ~1 % of its copies) */
#define PIPELINE_MIN (2ull << 20) /* below this, one request (its round trip costs more than the overlap gains) */
_Static_assert(2 * HALF <= WINDOW_SIZE && PIPELINE_MIN <= WINDOW_SIZE, "two pieces, or one smaller request, fit the window");
struct pipeline {
    uint32_t seq[2]; /* requests in flight, oldest first */
    unsigned inflight, next_half;
    int rc;
};

static int pipe_wait_oldest(struct remote *r, struct pipeline *pl, char *err, size_t errlen)
{
    int rc = recv_reply(r, OPD_WRITE, pl->seq[0], NULL, 0, err, errlen);
    pl->seq[0] = pl->seq[1];
    pl->inflight--;
    if (rc != 0 && pl->rc == 0)
        pl->rc = -1; /* the first error is kept in err; later replies are still read */
    return rc;
}

/* Issues one WRITE of n DPUs with nsrc sources of len (<= HALF) bytes. */
static int pipe_write(struct remote *r, struct pipeline *pl, const uint32_t *list, uint32_t n, enum op_region region,
                      uint64_t off, const void *const *src, uint32_t nsrc, size_t len, char *err, size_t errlen)
{
    if (pl->rc != 0 || r->dead[0])
        return -1;
    if (pl->inflight == 2 && pipe_wait_oldest(r, pl, err, errlen) != 0)
        return -1;
    uint8_t *dst = r->shm + (size_t)pl->next_half * HALF;
    for (uint32_t i = 0; i < nsrc; i++)
        memcpy(dst + (size_t)i * len, src[i], len);
    struct opd_write req = {.region = (uint32_t)region, .off = (uint32_t)off, .n = n, .nsrc = nsrc, .len = len,
                            .data = {.where = OPD_SHM, .shm_off = (uint64_t)pl->next_half * HALF}};
    if (send_request(r, OPD_WRITE, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, &pl->seq[pl->inflight], err,
                     errlen) != 0)
        return pl->rc = -1;
    pl->inflight++;
    pl->next_half ^= 1;
    return 0;
}

static int pipe_drain(struct remote *r, struct pipeline *pl, char *err, size_t errlen)
{
    /* after the first failure, later errors must not overwrite its message */
    char later[256];
    while (pl->inflight && !r->dead[0])
        pipe_wait_oldest(r, pl, pl->rc ? later : err, pl->rc ? sizeof later : errlen);
    return pl->rc || r->dead[0] ? -1 : 0;
}

static int remote_write(struct op_backend *b, const uint32_t *dpus, uint32_t n, enum op_region region, uint32_t off,
                        const void *const *src, uint32_t nsrc, size_t len, char *err, size_t errlen)
{
    struct remote *r = R(b);
    if (nsrc != 1 && nsrc != n)
        return fail(err, errlen, "write: %u sources for %u DPUs", nsrc, n);
    pthread_mutex_lock(&r->lock);
    forget_prefetch(r);
    int rc = -1;
    uint32_t *list = dpu_list(r, dpus, n, err, errlen);
    if (!list)
        goto out;
    size_t total = (size_t)nsrc * len;
    int kept = batch_write(r, list, n, region, off, src, nsrc, len, err, errlen);
    if (kept != 0) {
        rc = kept > 0 ? 0 : -1;
        goto out;
    }
    if (total < PIPELINE_MIN) { /* one request: all or none, as the embedded machine */
        rc = write_piece(r, list, n, region, off, src, nsrc, len, err, errlen);
        goto out;
    }
    /* several requests: the memory limit is checked for the whole first (a
     * broadcast is stored once on the daemon's machine: as for one DPU) */
    if (region == OP_REGION_MRAM &&
        (rc = check_room_locked(r, list, nsrc == 1 ? 1 : n, off, len, err, errlen)) != 0)
        goto out;
    if ((rc = window(r, err, errlen)) != 0)
        goto out;
    struct pipeline pl = {.rc = 0};
    if (nsrc == n && len <= HALF) { /* groups of whole DPUs */
        uint32_t group = (uint32_t)(HALF / len);
        for (uint32_t i = 0; i < n && pl.rc == 0; i += group) {
            uint32_t k = n - i < group ? n - i : group;
            pipe_write(r, &pl, list + i, k, region, off, src + i, k, len, err, errlen);
        }
    } else { /* pieces of every DPU's range: all DPUs for a broadcast, one by one otherwise */
        uint32_t step = nsrc == 1 ? n : 1;
        for (uint32_t i = 0; i < n && pl.rc == 0; i += step)
            for (size_t at = 0; at < len && pl.rc == 0; at += HALF) {
                size_t piece = len - at < HALF ? len - at : HALF;
                const void *one = (const uint8_t *)src[nsrc == 1 ? 0 : i] + at;
                pipe_write(r, &pl, list + i, step, region, off + at, &one, 1, piece, err, errlen);
            }
    }
    rc = pipe_drain(r, &pl, err, errlen);
out:
    free(list);
    pthread_mutex_unlock(&r->lock);
    return rc;
}

static int remote_check_room(struct op_backend *b, const uint32_t *dpus, uint32_t n, uint32_t off, size_t len,
                             char *err, size_t errlen)
{
    struct remote *r = R(b);
    pthread_mutex_lock(&r->lock);
    int rc = -1;
    uint32_t *list = dpu_list(r, dpus, n, err, errlen);
    if (list)
        rc = check_room_locked(r, list, n, off, len, err, errlen);
    free(list);
    pthread_mutex_unlock(&r->lock);
    return rc;
}

/* A large read in pieces through two parts of the window, two requests in
 * flight: the daemon fills one part while the client copies the other out. */
static int read_pipelined(struct remote *r, uint32_t p, enum op_region region, uint32_t off, void *dst, size_t len,
                          char *err, size_t errlen)
{
    if (window(r, err, errlen) != 0)
        return -1;
    size_t pieces = (len + HALF - 1) / HALF, sent = 0, got = 0;
    uint32_t seq[2];
    int failed = 0;
    char later[256]; /* errors after the first: its message stays in err */
    while (got < pieces && !r->dead[0]) {
        for (; !failed && sent < pieces && sent - got < 2; sent++) {
            size_t at = sent * HALF, piece = len - at < HALF ? len - at : HALF;
            struct opd_read req = {.dpu = p, .region = (uint32_t)region, .off = (uint32_t)(off + at), .len = piece,
                                   .data = {.where = OPD_SHM, .shm_off = sent % 2 * HALF}};
            if (send_request(r, OPD_READ, &req, sizeof req, NULL, 0, NULL, 0, -1, &seq[sent % 2], err, errlen) != 0)
                return -1; /* the connection is lost: nothing more to read */
        }
        if (got == sent)
            break;
        if (recv_reply(r, OPD_READ, seq[got % 2], NULL, 0, failed ? later : err, failed ? sizeof later : errlen) == 0) {
            size_t at = got * HALF, piece = len - at < HALF ? len - at : HALF;
            if (!failed)
                memcpy((uint8_t *)dst + at, r->shm + got % 2 * HALF, piece);
        } else {
            failed = 1;
        }
        got++;
    }
    return failed || r->dead[0] ? -1 : 0;
}

static int remote_read(struct op_backend *b, uint32_t dpu, enum op_region region, uint32_t off, void *dst, size_t len,
                       char *err, size_t errlen)
{
    struct remote *r = R(b);
    pthread_mutex_lock(&r->lock);
    uint32_t p = 0;
    int rc = translate(r, &dpu, 1, &p, err, errlen);
    if (rc == 0 && r->prefetch_on && len && len <= PREFETCH_MAX && r->per_rank <= 64) {
        int served = prefetch_read(r, dpu, (uint32_t)region, off, dst, len, err, errlen);
        if (served != 0) {
            pthread_mutex_unlock(&r->lock);
            return served < 0 ? -1 : 0;
        }
    }
    if (rc == 0 && len >= PIPELINE_MIN) {
        rc = read_pipelined(r, p, region, off, dst, len, err, errlen);
    } else if (rc == 0) { /* one request: inline, or through the window (len < PIPELINE_MIN < WINDOW_SIZE) */
        struct opd_read req = {.dpu = p, .region = (uint32_t)region, .off = off, .len = len};
        if (len <= OPD_INLINE_MAX) {
            rc = call(r, OPD_READ, &req, sizeof req, NULL, 0, NULL, 0, -1, dst, len, err, errlen);
        } else if ((rc = window(r, err, errlen)) == 0) {
            req.data.where = OPD_SHM;
            rc = call(r, OPD_READ, &req, sizeof req, NULL, 0, NULL, 0, -1, NULL, 0, err, errlen);
            if (rc == 0)
                memcpy(dst, r->shm, len);
        }
    }
    pthread_mutex_unlock(&r->lock);
    return rc;
}

/* The rank view in pieces of whole lines (64 bytes = 8 bytes of each of the 8 DPUs). */
static int view(struct op_backend *b, const uint32_t dpus[8], uint64_t off, uint8_t *lines, size_t size, int write,
                char *err, size_t errlen)
{
    struct remote *r = R(b);
    pthread_mutex_lock(&r->lock);
    if (write)
        forget_prefetch(r);
    struct opd_view req;
    memset(&req, 0, sizeof req);
    int rc = translate(r, dpus, 8, req.dpus, err, errlen);
    uint16_t op = write ? OPD_VIEW_WRITE : OPD_VIEW_READ;
    for (size_t at = 0; rc == 0 && (at < size || size == 0);) {
        size_t piece = size - at < WINDOW_SIZE ? size - at : WINDOW_SIZE;
        req.off = off + at / 8;
        req.size = piece;
        if (piece <= OPD_INLINE_MAX) {
            req.data.where = OPD_INLINE;
            rc = write ? call(r, op, &req, sizeof req, NULL, 0, lines + at, piece, -1, NULL, 0, err, errlen)
                       : call(r, op, &req, sizeof req, NULL, 0, NULL, 0, -1, lines + at, piece, err, errlen);
        } else if ((rc = window(r, err, errlen)) == 0) {
            req.data.where = OPD_SHM;
            if (write)
                memcpy(r->shm, lines + at, piece);
            rc = call(r, op, &req, sizeof req, NULL, 0, NULL, 0, -1, NULL, 0, err, errlen);
            if (rc == 0 && !write)
                memcpy(lines + at, r->shm, piece);
        }
        at += piece;
        if (size == 0)
            break;
    }
    pthread_mutex_unlock(&r->lock);
    return rc;
}

static int remote_view_write(struct op_backend *b, const uint32_t dpus[8], uint64_t off, const void *lines,
                             size_t size, char *err, size_t errlen)
{
    return view(b, dpus, off, (uint8_t *)lines, size, 1, err, errlen);
}

static int remote_view_read(struct op_backend *b, const uint32_t dpus[8], uint64_t off, void *lines, size_t size,
                            char *err, size_t errlen)
{
    return view(b, dpus, off, lines, size, 0, err, errlen);
}

static int remote_launch(struct op_backend *b, const uint32_t *dpus, uint32_t n, char *err, size_t errlen)
{
    struct remote *r = R(b);
    pthread_mutex_lock(&r->lock);
    forget_prefetch(r);
    int rc = -1;
    uint32_t *list = dpu_list(r, dpus, n, err, errlen);
    struct op_dpu_status *st = malloc((n ? n : 1) * sizeof *st);
    if (list && st) {
        struct opd_count req = {.n = n};
        rc = call(r, OPD_LAUNCH, &req, sizeof req, list, (size_t)n * 4, NULL, 0, -1, st, (size_t)n * sizeof *st, err,
                  errlen);
        for (uint32_t i = 0; rc == 0 && i < n; i++) {
            st[i].fault_msg[sizeof st[i].fault_msg - 1] = 0;
            r->results[dpus[i]] = st[i];
            r->have_result[dpus[i]] = 1;
        }
    } else if (list) {
        fail(err, errlen, "out of memory");
    }
    free(st);
    free(list);
    pthread_mutex_unlock(&r->lock);
    return rc;
}

static void remote_result(struct op_backend *b, uint32_t dpu, struct op_dpu_status *out)
{
    struct remote *r = R(b);
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&r->lock);
    int64_t p = phys(r, dpu);
    if (p >= 0 && r->have_result[dpu]) {
        *out = r->results[dpu];
    } else if (p >= 0) {
        struct opd_dpu req = {.dpu = (uint32_t)p};
        char err[256];
        if (call(r, OPD_RESULT, &req, sizeof req, NULL, 0, NULL, 0, -1, out, sizeof *out, err, sizeof err) != 0)
            memset(out, 0, sizeof *out);
        out->fault_msg[sizeof out->fault_msg - 1] = 0;
    }
    pthread_mutex_unlock(&r->lock);
}

static void remote_memory(struct op_backend *b, uint64_t *used, uint64_t *limit)
{
    struct remote *r = R(b);
    /* the figure of the daemon's last reply: every reply carries it */
    struct opd_memory m;
    pthread_mutex_lock(&r->lock);
    m.used = r->mem_used;
    m.limit = r->mem_limit;
    pthread_mutex_unlock(&r->lock);
    if (used)
        *used = m.used;
    if (limit)
        *limit = m.limit;
}

static const struct op_backend_ops remote_ops = {
    .name = "remote",
    .close = remote_close,
    .info = remote_info,
    .claim_rank = remote_claim_rank,
    .release_rank = remote_release_rank,
    .program_open = remote_program_open,
    .program_close = remote_program_close,
    .load = remote_load,
    .write = remote_write,
    .check_room = remote_check_room,
    .read = remote_read,
    .view_write = remote_view_write,
    .view_read = remote_view_read,
    .launch = remote_launch,
    .result = remote_result,
    .memory = remote_memory,
};

struct op_backend *op_backend_remote_open(const struct op_machine_config *cfg, char *err, size_t errlen)
{
    struct remote *r = calloc(1, sizeof *r);
    if (!r) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    r->base.ops = &remote_ops;
    r->shm_fd = -1;
    pthread_mutex_init(&r->lock, NULL);
    snprintf(r->path, sizeof r->path, "%s", cfg->remote);
    r->fd = connect_to(cfg->remote, err, errlen);
    if (r->fd < 0) {
        pthread_mutex_destroy(&r->lock);
        free(r);
        return NULL;
    }
    if (hello(r, err, errlen) != 0)
        goto fail;
    if (memcmp(&r->hello.cfg.desc, &cfg->desc, sizeof cfg->desc) != 0) {
        fail(err, errlen,
             "openpimd at %s serves another machine (%s, %u ranks of %u DPUs) than the profile asks for (%s, %u "
             "ranks of %u DPUs)",
             r->path, r->hello.cfg.desc.name, r->hello.cfg.desc.nr_ranks, r->hello.info.dpus_per_rank,
             cfg->desc.name, cfg->desc.nr_ranks, cfg->desc.chips_per_rank * cfg->desc.dpus_per_chip);
        goto fail;
    }
    r->per_rank = r->hello.info.dpus_per_rank;
    r->nr_vranks = cfg->desc.nr_ranks;
    r->wait_ms = cfg->alloc_wait_ms;
    if (r->per_rank == 0 || r->hello.info.nr_dpus != r->nr_vranks * r->per_rank) {
        fail(err, errlen, "openpimd at %s describes an inconsistent machine", r->path);
        goto fail;
    }
    r->vmap = malloc(r->nr_vranks * sizeof *r->vmap);
    r->results = calloc(r->hello.info.nr_dpus, sizeof *r->results);
    r->have_result = calloc(r->hello.info.nr_dpus, 1);
    r->loaded = calloc(r->hello.info.nr_dpus, 1);
    r->stage = malloc(OPD_INLINE_MAX);
    if (!r->vmap || !r->results || !r->have_result || !r->loaded || !r->stage) {
        fail(err, errlen, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < r->nr_vranks; i++)
        r->vmap[i] = -1;
    r->mem_limit = r->hello.memory_limit;
    const char *pf = getenv("OPENPIM_REMOTE_PREFETCH");
    r->prefetch_on = !(pf && !strcmp(pf, "0"));
    const char *batch = getenv("OPENPIM_REMOTE_BATCH");
    r->batch_on = batch && !strcmp(batch, "1");
    r->pf = calloc(r->nr_vranks, sizeof *r->pf);
    if (!r->pf) {
        fail(err, errlen, "out of memory");
        goto fail;
    }
    for (uint32_t v = 0; r->prefetch_on && v < r->nr_vranks; v++) {
        r->pf[v].have = calloc(r->per_rank, 1);
        r->pf[v].data = NULL; /* allocated on first use */
        if (!r->pf[v].have) {
            fail(err, errlen, "out of memory");
            goto fail;
        }
    }
    return &r->base;
fail:
    remote_close(&r->base);
    return NULL;
}
