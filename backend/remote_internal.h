/* The remote backend's parts (backend_remote.c: the operations; remote_rpc.c:
 * the connection, requests and their replies, the window; remote_cache.c: the
 * prefetch of small reads and the batching of small writes) share the
 * connection's state declared here.  Private to backend/. */
#ifndef OPENPIM_REMOTE_INTERNAL_H
#define OPENPIM_REMOTE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "remote_protocol.h"
#include "backend.h"

#define WINDOW_SIZE (32ull << 20) /* the window: bulk data moves in pieces of this size */
_Static_assert(WINDOW_SIZE <= OPD_DAEMON_WINDOW_MAX, "the daemon keeps a window of this size for a streaming client");

/* A request sent whose reply has not been read: requests go out without
 * waiting (rpc_post), the daemon answers in order, and their replies are read
 * when wanted (rpc_wait) or when the connection would otherwise stall. */
struct pending {
    uint32_t seq;
    uint16_t op;
    void *rep; /* where the reply's payload goes (rep_len bytes, exactly) */
    size_t rep_len;
};
#define PENDING_MAX 512 /* requests in flight: 512 x 64 KB pieces cover two 4 MB halves of the window */

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
    bool prefetch_on;             /* remotePrefetch (default on) */
    struct prefetch *pf;          /* per SDK rank */
    uint8_t *gather;              /* a READ_GATHER's reply */
    bool batch_on;                /* remoteBatch (default off) */
    uint8_t *batch;               /* pending small writes: WRITE_BATCH entries */
    size_t batch_len;
    uint32_t batch_count;
    uint8_t *loaded;              /* per SDK DPU: a program was loaded since its rank was claimed */
    bool stream;                  /* the window is the daemon's: data streams (WINDOW_PUT/GET) */
    bool window;                  /* a window is attached (rpc_window) */
    int shm_fd;
    uint8_t *shm;                 /* the shared-memory window, mapped here (not when streaming) */
    struct pending pend[PENDING_MAX]; /* oldest at pend_head */
    unsigned pend_head, pend_count;
    char pend_err[512]; /* the first error reply among the posted requests not yet waited for; "" if none */
    char dead[256]; /* why the connection is over; "" while it works */
};

/* remote_rpc.c */
int rpc_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int rpc_lost(struct remote *r, char *err, size_t errlen, const char *why);
int rpc_connect(const struct op_machine_config *cfg, char *err, size_t errlen);
int rpc_hello(struct remote *r, const char *token, char *err, size_t errlen);
int rpc_post(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra, size_t extra_len,
             const void *data, size_t data_len, int pass_fd, void *rep, size_t rep_len, uint32_t *seq, char *err,
             size_t errlen);
int rpc_wait(struct remote *r, uint32_t seq, char *err, size_t errlen);
int rpc_wait_all(struct remote *r, char *err, size_t errlen);
int rpc_call(struct remote *r, uint16_t op, const void *fixed, size_t fixed_len, const void *extra, size_t extra_len,
             const void *data, size_t data_len, int pass_fd, void *rep, size_t rep_len, char *err, size_t errlen);
int rpc_window(struct remote *r, char *err, size_t errlen);
int rpc_window_put(struct remote *r, uint64_t off, const void *const *src, uint32_t nsrc, size_t len, char *err,
                   size_t errlen);
int rpc_window_get(struct remote *r, uint64_t off, void *dst, size_t len, char *err, size_t errlen);

/* remote_cache.c */
int cache_flush_writes(struct remote *r, char *err, size_t errlen);
int cache_batch_write(struct remote *r, const uint32_t *list, uint32_t n, enum op_region region, uint32_t off,
                      const void *const *src, uint32_t nsrc, size_t len, char *err, size_t errlen);
void cache_forget_prefetch(struct remote *r);
int cache_prefetch_read(struct remote *r, uint32_t dpu, uint32_t region, uint32_t off, void *dst, size_t len,
                        char *err, size_t errlen);

#endif
