/* SPDX-License-Identifier: MIT */
/* The remote backend's parts (backend_remote.c: the operations; remote_rpc.c:
 * the connection, requests and replies, the window; remote_cache.c: the
 * prefetch of small reads and the batching of small writes) share the
 * connection's state declared here.  Private to backend/.
 *
 * Threads.  Operations on different ranks run at the same time, each with
 * its own requests in flight (the daemon runs them in parallel, one lane per
 * rank): `ops` is taken shared by operations on DPUs, which also lock the
 * ranks they name (rank_lock, in ascending order), and exclusively by those
 * that change the connection (claims, releases, programs, and every
 * operation while writes are batched).  Then `win_lock` (the window, the
 * stage and the posted requests), then the connection's own locks (rpc:
 * send_lock, recv_lock). */
#ifndef OPENPIM_REMOTE_INTERNAL_H
#define OPENPIM_REMOTE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "remote_protocol.h"
#include "backend.h"

#define WINDOW_SIZE (32ull << 20) /* the window: bulk data moves in pieces of this size */
_Static_assert(WINDOW_SIZE <= OPD_SHM_MAX && WINDOW_SIZE <= OPD_PROGRAM_MAX, "what the daemon takes");
_Static_assert(WINDOW_SIZE <= OPD_DAEMON_WINDOW_MAX, "the daemon keeps a window of this size for a streaming client");
#define TIMEOUT_MS_DEFAULT 30000u /* OPENPIM_REMOTE_TIMEOUT_MS */
#define PENDING_MAX 512 /* posted requests: 512 x 64 KB pieces cover two 4 MB halves of the window */

struct remote_program {
    uint32_t handle;
};

/* vPIM's prefetch of small reads, per rank.  The SDK reads a transfer from a
 * rank DPU by DPU with the same offset and size; from the second such read
 * on, one READ_GATHER fetches that range of the rank's remaining DPUs, and
 * their reads are served here.  A single read never fires it (vPIM's
 * Takeaway 1: a prefetch that is not used only adds cost).  Writes, loads,
 * launches, claims and releases empty the caches of the ranks they touch:
 * only the tenant's own requests change its ranks, so a cached byte is always
 * the DPU's byte.  Under the rank's lock. */
#define PREFETCH_MAX (16u << 10) /* bytes per DPU: larger reads go direct */
struct prefetch {
    bool valid, seen; /* valid: data holds [off, off + len) of the DPUs marked in have */
    uint32_t region, off, len;
    uint32_t last; /* seen: the DPU (index in the rank) of the last direct read of (region, off, len) */
    uint8_t *have, *data;
};

/* A request waiting for its reply (remote_rpc.c).  Registered before the
 * request is sent, so that whichever thread reads the reply finds it. */
struct waiter {
    struct waiter *next;
    uint32_t seq;
    uint16_t op;
    void *rep;        /* where an OK reply's payload goes */
    size_t rep_len;   /* its size; with `up_to`, the most it may be */
    bool up_to;
    size_t got;       /* the payload's size */
    uint32_t extra_ms; /* the daemon may take this much longer than the timeout (a claim's wait) */
    op_watch_fn *progress; /* OPD_PROGRESS messages (a launch's DPUs done), or NULL */
    void *progress_arg;
    bool done;
    bool filling; /* a reader is taking its payload: it, not a lost connection, finishes it */
    bool detached; /* nobody waits for it (rpc_send_detached): freed once its reply is read */
    int rc; /* 0, or -1 with msg */
    char msg[512];
};

struct remote {
    struct op_backend base;
    pthread_rwlock_t ops;          /* see the head of this file */
    pthread_mutex_t *rank_lock;    /* per SDK rank */
    pthread_mutex_t win_lock;      /* the window, and making it */
    pthread_mutex_t state_lock;    /* dead; the program list */
    pthread_mutex_t send_lock;     /* one request at a time goes out whole */
    pthread_mutex_t recv_lock;     /* waiters, reading */
    pthread_cond_t recv_cond;      /* a reply came, or the reader changed */
    struct waiter *waiters;
    bool reading;                  /* a thread reads replies for everybody */
    int fd;
    char path[sizeof ((struct op_machine_config *)0)->remote];
    _Atomic uint32_t seq;
    uint32_t timeout_ms; /* OPENPIM_REMOTE_TIMEOUT_MS: connect, HELLO, and silence while a reply is awaited */
    struct opd_hello_reply hello;
    uint32_t per_rank, nr_vranks, wait_ms;
    int64_t *vmap; /* SDK rank -> daemon rank, -1 when not claimed (changed exclusively) */
    struct op_dpu_status *results; /* per SDK DPU: its last launch's outcome (under its rank's lock) */
    uint8_t *have_result;
    _Atomic uint64_t mem_used;    /* the daemon's host memory, from its last reply */
    uint64_t mem_limit;
    bool prefetch_on;             /* remotePrefetch (default on) */
    struct prefetch *pf;          /* per SDK rank */
    bool batch_on;                /* remoteBatch (default off; every operation is then exclusive) */
    uint8_t *batch;               /* pending small writes: WRITE_BATCH entries */
    size_t batch_len;
    uint32_t batch_count;
    uint8_t *loaded;              /* per SDK DPU: a program was loaded since its rank was claimed */
    bool stream;                  /* the window is the daemon's: data streams (WINDOW_PUT/GET) */
    bool window;                  /* a window is attached (rpc_window) */
    int shm_fd;
    uint8_t *shm;                 /* the shared-memory window, mapped here (not when streaming) */
    uint8_t *stage;               /* a WINDOW_PUT's bytes (under win_lock) */
    /* Requests posted (rpc_post) whose replies are not yet collected, under
     * win_lock: the window's users post them */
    struct pending {
        struct waiter w;
        bool used;
    } pend[PENDING_MAX];
    unsigned pend_count;
    char pend_err[512]; /* the first error reply among the posted requests not yet waited for; "" if none */
    uint32_t vsock_cid, vsock_port; /* AF_VSOCK (in a guest) if vsock_port, else the UNIX socket path */
    char dead[256]; /* why the connection is over; "" while it works (under state_lock) */
};

/* remote_rpc.c */
void rpc_init(struct remote *r, const struct op_machine_config *cfg);
void rpc_fini(struct remote *r); /* closes the connection and the window */
int rpc_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int rpc_lost(struct remote *r, char *err, size_t errlen, const char *why);
bool rpc_dead(struct remote *r);
int rpc_connect(struct remote *r, char *err, size_t errlen);
int rpc_hello(struct remote *r, const char *token, char *err, size_t errlen);
/* Sends a request (the fixed part, then `extra` (a DPU list), then inline
 * data); its reply goes to w (rep, rep_len set by the caller). */
int rpc_send_request(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra,
                     size_t extra_len, const void *data, size_t data_len, int pass_fd, struct waiter *w, char *err,
                     size_t errlen);
/* Sends a request (the fixed part only) whose reply nobody waits for: the
 * connection's reader drops it when it comes, an error included (for
 * requests whose failure the caller would ignore anyway: a program's close),
 * and the caller goes on at once.  Requests are served in order, so a later
 * request sees it done. */
int rpc_send_detached(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, char *err, size_t errlen);
/* Waits for w's reply (reading replies for other threads meanwhile). */
int rpc_await(struct remote *r, struct waiter *w, char *err, size_t errlen);
/* Posted requests (win_lock held): sent without waiting, the reply's payload
 * (exactly rep_len bytes) lands in rep once waited for, by its seq or all. */
int rpc_post(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra, size_t extra_len,
             const void *data, size_t data_len, int pass_fd, void *rep, size_t rep_len, uint32_t *seq, char *err,
             size_t errlen);
int rpc_wait(struct remote *r, uint32_t seq, char *err, size_t errlen);
int rpc_wait_all(struct remote *r, char *err, size_t errlen);
/* Whether a posted request failed, or the connection is lost. */
bool rpc_posted_failed(struct remote *r);
/* One request and its reply, whose payload must be exactly rep_len bytes. */
int rpc_call(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra, size_t extra_len,
             const void *data, size_t data_len, int pass_fd, void *rep, size_t rep_len, char *err, size_t errlen);
/* The shared-memory window, made and attached on first use (win_lock held). */
int rpc_window(struct remote *r, char *err, size_t errlen);
int rpc_window_put(struct remote *r, uint64_t off, const void *const *src, uint32_t nsrc, size_t len, char *err,
                   size_t errlen);
int rpc_window_get(struct remote *r, uint64_t off, void *dst, size_t len, char *err, size_t errlen);
/* One READ_GATHER: len bytes at off of each of the n daemon DPUs list[i]
 * (n * len <= WINDOW_SIZE) into dst[i], in the reply when they fit, else
 * through the window (takes win_lock). */
int rpc_read_gather(struct remote *r, uint32_t region, uint32_t off, const uint32_t *list, uint32_t n, size_t len,
                    void *const *dst, char *err, size_t errlen);

/* remote_cache.c */
int cache_flush_writes(struct remote *r, char *err, size_t errlen);
int cache_batch_write(struct remote *r, const uint32_t *list, uint32_t n, enum op_region region, uint32_t off,
                      const void *const *src, uint32_t nsrc, size_t len, char *err, size_t errlen);
void cache_forget_rank(struct remote *r, uint32_t vrank);
int cache_prefetch_read(struct remote *r, uint32_t dpu, uint32_t region, uint32_t off, void *dst, size_t len,
                        char *err, size_t errlen);

#endif
