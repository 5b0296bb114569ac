/* SPDX-License-Identifier: MIT */
/* The seam between the host library (sdk/) and a PIM machine: an operations
 * table, in the spirit of SQLite's VFS or NCCL's transports.  The embedded
 * emulator (machine/backend_local.c) is one backend; a client of the openpimd
 * daemon (backend/backend_remote.c) is another.  sdk/ reaches a machine only through this table.
 *
 * Data crosses the seam by copy (write/read), never as a pointer into the
 * machine's memory; the one fast path, the rank's physical view, is an
 * operation of its own so that the backend converts where the data lives.
 *
 * DPUs are numbered 0 .. nr_ranks * dpus_per_rank - 1, rank by rank.  Every
 * operation is thread-safe for distinct DPUs: the SDK never issues two
 * operations on one DPU at once, and a backend may assume so.  Operations
 * return 0, or -1 with a message in err; a refused operation changes nothing. */
#ifndef OPENPIM_BACKEND_H
#define OPENPIM_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "../abi/image.h"  /* enum op_region */
#include "../abi/shared.h" /* struct op_dpu_status: what a DPU reports after a launch */
#include "../timing/timing.h"  /* struct op_machine_desc */

/* Fixed facts of a backend's machine. */
struct op_backend_info {
    struct op_machine_desc desc; /* topology, memories, tasklets, timing constants */
    uint32_t nr_dpus, dpus_per_rank;
    uint64_t mram_size;
    uint32_t wram_size;
};

/* The longest token (openpimctl token add) a client may present, NUL included. */
#define OP_TOKEN_MAX 128

/* What the SDK asks of a machine when it opens one (the profile's machine part). */
struct op_machine_config {
    /* Hardware and timing constants: chip, topology (nr_ranks, chips_per_rank x
     * dpus_per_chip DPUs per rank), memory sizes, tasklets, frequency. */
    struct op_machine_desc desc;
    uint32_t workers;      /* host worker processes; 0 = one per available core */
    uint64_t budget_ns;    /* wall-clock limit of one DPU's run; 0 = none */
    uint64_t memory_limit; /* host bytes the emulated memories may use; 0 = 85% of available RAM */
    /* Where the machine is: "" for the embedded one, else the UNIX socket of
     * an openpimd serving it (backend/backend_remote.c), or "vsock:CID:PORT"
     * when it is reached over AF_VSOCK from inside a virtual machine */
    char remote[108];
    uint32_t alloc_wait_ms; /* remote: how long a claim waits in the daemon's queue for a free rank */
    uint32_t vsock_cid, vsock_port; /* remote over AF_VSOCK: vsock_port != 0 */
    uint8_t stream;                 /* remote: bulk data streams over the connection instead of a shared-memory
                                     * window (always so over AF_VSOCK: no descriptor crosses into a VM) */
    uint8_t batch, prefetch;        /* remote: vPIM's batching of small writes, prefetch of small reads */
    uint8_t pad[5];
    char token[OP_TOKEN_MAX];       /* remote: the tenant's token, sent at HELLO ("": none) */
};

struct op_backend;
struct op_backend_program; /* a program as the backend holds it */
struct op_backend_pool;    /* processes running the DPU code of some ranks (see pool_open) */

/* A progress report of a launch or a write: `done` of its DPUs have finished. */
typedef void op_watch_fn(void *arg, uint32_t done);
#define OP_WATCH_PERIOD_MS 100 /* how often a watched launch reports */

struct op_backend_ops {
    const char *name;
    void (*close)(struct op_backend *b);
    void (*info)(struct op_backend *b, struct op_backend_info *out);

    /* Ranks: claim one for this client (-1 if another client holds it), give it
     * back.  Release resets the rank: its DPUs lose their program, their MRAM
     * and WRAM read as zeros, so a claimed rank is always clean. */
    int (*claim_rank)(struct op_backend *b, uint32_t rank, char *err, size_t errlen);
    void (*release_rank)(struct op_backend *b, uint32_t rank);
    /* Optional (NULL: claim_rank one by one): claims between min and n of the
     * ranks listed, the first ones, in one step: all or none when min == n
     * (a remote backend's claim waits once for all of them, in one queue).
     * The number claimed, or -1 with a message (none claimed). */
    int (*claim_ranks)(struct op_backend *b, const uint32_t *ranks, uint32_t min, uint32_t n, char *err,
                       size_t errlen);

    /* Programs: the ELF bytes of a DPU image, validated by the backend. */
    struct op_backend_program *(*program_open)(struct op_backend *b, const void *elf, size_t len, char *err,
                                               size_t errlen);
    void (*program_close)(struct op_backend *b, struct op_backend_program *p);
    /* Optional (NULL: program_open from a copy): the ELF bytes in a memfd,
     * exactly len of them, sealed (F_SEAL_WRITE, SHRINK, GROW, SEAL); the
     * backend keeps fd and parses it where it lies (closes it on failure). */
    struct op_backend_program *(*program_open_fd)(struct op_backend *b, int fd, size_t len, char *err,
                                                  size_t errlen);
    /* Loads p onto the DPUs (WRAM image, initialised MRAM variables); all or none. */
    int (*load)(struct op_backend *b, const uint32_t *dpus, uint32_t n, struct op_backend_program *p, char *err,
                size_t errlen);

    /* Memory.  write: len bytes at off of `region` of each DPU dpus[i] from
     * src[i], or from src[0] for every DPU when nsrc is 1 (a broadcast, which
     * a backend may store once); refused whole if the host memory limit would
     * be passed.  read: one DPU, MRAM never written reads as zeros. */
    int (*write)(struct op_backend *b, const uint32_t *dpus, uint32_t n, enum op_region region, uint32_t off,
                 const void *const *src, uint32_t nsrc, size_t len, char *err, size_t errlen);
    /* Optional (NULL: not counted): write, calling watch(arg, done) on the
     * calling thread after each DPU written (the SDK's progress line). */
    int (*write_watched)(struct op_backend *b, const uint32_t *dpus, uint32_t n, enum op_region region, uint32_t off,
                         const void *const *src, uint32_t nsrc, size_t len, op_watch_fn *watch, void *arg,
                         char *err, size_t errlen);
    /* Whether writing len bytes at MRAM offset off of each DPU would fit the
     * host memory limit (for a transfer made of several writes). */
    int (*check_room)(struct op_backend *b, const uint32_t *dpus, uint32_t n, uint32_t off, size_t len, char *err,
                      size_t errlen);
    int (*read)(struct op_backend *b, uint32_t dpu, enum op_region region, uint32_t off, void *dst, size_t len,
                char *err, size_t errlen);
    /* Optional (NULL: read DPU by DPU): read, for each DPU dpus[i] into
     * dst[i] (a transfer from a set's DPUs), in as few steps as the backend
     * can. */
    int (*read_many)(struct op_backend *b, const uint32_t *dpus, uint32_t n, enum op_region region, uint32_t off,
                     void *const *dst, size_t len, char *err, size_t errlen);
    /* The rank's physical view of the entangled group dpus[0..7] (chip 0 first):
     * size bytes of 64-byte lines at MRAM offset off of each DPU (size / 8 bytes
     * per DPU), converted where the data is (machine/domain.h). */
    int (*view_write)(struct op_backend *b, const uint32_t dpus[8], uint64_t off, const void *lines, size_t size,
                      char *err, size_t errlen);
    int (*view_read)(struct op_backend *b, const uint32_t dpus[8], uint64_t off, void *lines, size_t size,
                     char *err, size_t errlen);

    /* Runs the DPUs to completion; blocks.  Launches on disjoint DPUs may run
     * from several threads at once.  -1 only when the machine could not run
     * (per-DPU faults are results). */
    int (*launch)(struct op_backend *b, const uint32_t *dpus, uint32_t n, char *err, size_t errlen);
    /* Optional (NULL: the backend cannot count finished DPUs): launch, and
     * call watch(arg, done) on the calling thread about every
     * OP_WATCH_PERIOD_MS while it runs (the SDK's progress line). */
    int (*launch_watched)(struct op_backend *b, const uint32_t *dpus, uint32_t n, op_watch_fn *watch,
                          void *arg, char *err, size_t errlen);
    /* The outcome of the DPU's last launch (a copy). */
    void (*result)(struct op_backend *b, uint32_t dpu, struct op_dpu_status *out);

    /* Host memory backing the machine's memories, and its limit. */
    void (*memory)(struct op_backend *b, uint64_t *used, uint64_t *limit);

    /* Optional (NULL: the backend does not seal tenants from each other):
     * pools, the unit of isolation between tenants.  The DPU code of the
     * ranks bound to a pool runs in processes that hold nothing of any other
     * rank (machine/machine.h); a rank that is released goes back to the
     * backend's own pool, and the processes of the pool it leaves are ended
     * before it is reset.  openpimd opens one pool per session and binds to
     * it the ranks the session claims. */
    struct op_backend_pool *(*pool_open)(struct op_backend *b, char *err, size_t errlen);
    /* Binds a claimed rank to p (no launch of p may run). */
    int (*pool_bind)(struct op_backend *b, uint32_t rank, struct op_backend_pool *p, char *err, size_t errlen);
    /* Ends p's launches now (they fail with `why`, as do later ones). */
    void (*pool_cancel)(struct op_backend *b, struct op_backend_pool *p, const char *why);
    /* Frees p, whose ranks were all released. */
    void (*pool_close)(struct op_backend *b, struct op_backend_pool *p);
    /* Host memory backing p's ranks and its shared chunks (what `memory`
     * counts for the whole machine): a tenant's own share, telling it
     * nothing of the others'. */
    uint64_t (*pool_memory)(struct op_backend *b, struct op_backend_pool *p);
};

struct op_backend {
    const struct op_backend_ops *ops;
};

/* The embedded emulated machine (machine/backend_local.c). */
struct op_backend *op_backend_local_open(const struct op_machine_config *cfg, char *err, size_t errlen);

/* A client of the openpimd daemon at cfg->remote (backend/backend_remote.c).
 * Its machine is the daemon's: cfg->desc must be the one describe() gives. */
struct op_backend *op_backend_remote_open(const struct op_machine_config *cfg, char *err, size_t errlen);
/* The machine the daemon that cfg names (remote, vsock_*, token) serves
 * (one short connection). */
int op_backend_remote_describe(const struct op_machine_config *cfg, struct op_machine_config *out, char *err,
                               size_t errlen);

#endif
