/* SPDX-License-Identifier: MIT */
/* The openpimd wire protocol, shared by the daemon (daemon/) and its client,
 * the remote backend of libdpu (backend/backend_remote.c).
 *
 * One stream connection per client process over a UNIX-domain socket, or over
 * AF_VSOCK from a virtual machine (the daemon sees it as a UNIX connection of
 * vhost-device-vsock's, daemon/transport_vsock.c).  The first request is
 * HELLO; the daemon refuses any other before it (and closes the connection).
 * Every message is a header followed by `len` payload bytes.
 *
 * Order.  The daemon runs the requests that name DPUs of one rank only (LOAD,
 * WRITE, CHECK_ROOM, READ, READ_GATHER, VIEW_*, LAUNCH, RESULT) in order per
 * rank, and requests of different ranks at the same time (vPIM's per-rank
 * parallelism); any other request waits until every earlier one has been
 * answered and runs before any later one.  Replies repeat their request's seq
 * and may come in another order than the requests when those name different
 * ranks; a client may send several requests before it reads the first reply.
 * While a LAUNCH runs the daemon sends OPD_PROGRESS messages (same op and
 * seq, payload: uint32_t DPUs finished) about every second, so that a client
 * can tell a long launch from a daemon that went silent.  Numbers are in host
 * byte order: both ends run on one x86-64 machine (a guest is x86-64 too).
 * Both ends must come from the same OpenPIM build: HELLO carries OPD_LAYOUT,
 * which changes with every structure that crosses the wire, and the tenant's
 * token where the connection needs one.
 *
 * Requests name DPUs by their number in the daemon's machine (rank by rank);
 * the daemon refuses any DPU, rank or program handle that is not the
 * connection's own.  Bulk data travels inline up to OPD_INLINE_MAX bytes; above
 * that it lies in a window: a sealed memfd the client passed once with
 * OPD_SHM_ATTACH (SCM_RIGHTS), which both sides map, or, where no descriptor
 * can pass (a virtual machine), a window in the daemon's own memory that the
 * client fills and empties with WINDOW_PUT and WINDOW_GET, several in flight
 * (the data streams over the connection). */
#ifndef OPENPIM_DAEMON_PROTOCOL_H
#define OPENPIM_DAEMON_PROTOCOL_H

#include <stdint.h>

#include "backend.h"

#define OPD_MAGIC 0x4450504fu /* "OPPD" */
#define OPD_VERSION 1u

/* Payload data above this many bytes goes through the shared-memory window. */
#define OPD_INLINE_MAX (64u * 1024u)
/* The largest payload the daemon accepts: fixed part, DPU list, inline data. */
#define OPD_MAX_DPUS 65536u
#define OPD_MAX_PAYLOAD (256u + OPD_MAX_DPUS * 4u + OPD_INLINE_MAX)
/* The largest shared-memory window a client may attach (the remote backend's
 * is 32 MB): the daemon maps it and backs what it writes there. */
#define OPD_SHM_MAX (64ull << 20)
/* The largest DPU program (ELF bytes) PROGRAM_OPEN takes: what the remote
 * backend can send (one window); refused before anything is read. */
#define OPD_PROGRAM_MAX (32ull << 20)

enum opd_op {
    OPD_HELLO = 1,     /* opd_hello -> opd_hello_reply */
    OPD_CLAIM,         /* opd_claim -> uint32_t ranks[claimed] */
    OPD_RELEASE,       /* opd_rank -> - (answered before the rank's reset, done before the next request) */
    OPD_PROGRAM_OPEN,  /* opd_data + ELF bytes -> opd_handle */
    OPD_PROGRAM_CLOSE, /* opd_handle -> - */
    OPD_LOAD,          /* opd_load + dpus -> - */
    OPD_WRITE,         /* opd_write + dpus + data -> - */
    OPD_CHECK_ROOM,    /* opd_room + dpus -> - */
    OPD_READ,          /* opd_read -> data */
    OPD_VIEW_WRITE,    /* opd_view + data -> - */
    OPD_VIEW_READ,     /* opd_view -> data */
    OPD_LAUNCH,        /* opd_count + dpus -> struct op_dpu_status[n] */
    OPD_RESULT,        /* opd_dpu -> struct op_dpu_status */
    OPD_MEMORY,        /* - -> opd_memory */
    OPD_SHM_ATTACH,    /* opd_shm + one fd -> - */
    OPD_READ_GATHER,   /* opd_gather + dpus -> n * len bytes, DPU by DPU (the prefetch of small reads) */
    OPD_WRITE_BATCH,   /* opd_batch + entries -> - (small writes batched until the next other request) */
    OPD_STATUS,        /* - -> opd_status_reply + opd_rank_status[nr_ranks] (operators: root or the daemon's uid) */
    OPD_DRAIN,         /* opd_drain -> - (operators) */
    OPD_WINDOW_PUT,    /* opd_window_io + len bytes -> - (into the daemon's window) */
    OPD_WINDOW_GET,    /* opd_window_io -> len bytes (out of the daemon's window) */
    OPD_OP_END
};

/* Status of a reply.  OPD_BYE is sent unasked when the daemon stops or
 * cannot serve the connection: the connection is over and the client's ranks
 * are gone.  OPD_PROGRESS precedes a LAUNCH's reply (see Order above). */
enum opd_status { OPD_OK = 0, OPD_ERROR = 1, OPD_BYE = 2, OPD_PROGRESS = 3 };
#define OPD_STATUS_KINDS 4

struct opd_header {
    uint32_t magic;   /* OPD_MAGIC */
    uint16_t version; /* OPD_VERSION */
    uint16_t op;      /* enum opd_op; the reply repeats it */
    uint32_t seq;     /* the client's number; the reply repeats it */
    uint32_t status;  /* replies: enum opd_status; requests: 0 */
    uint64_t len;     /* payload bytes that follow; an error reply's payload is its message */
    uint64_t memory;  /* replies: host bytes backing the memories of the client's own ranks after the
                       * request (the run report samples it after every event: no round trip of its
                       * own); a RELEASE's reply still counts the rank it resets next */
};

/* Where bulk data lies. */
enum opd_where { OPD_INLINE = 0, OPD_SHM = 1 };

struct opd_data {
    uint32_t where; /* enum opd_where */
    uint32_t pad;
    uint64_t shm_off; /* OPD_SHM: offset in the window */
};

#define OPD_TENANT_MAX 48 /* "uid:<n>" or "token:<name>", NUL included */

struct opd_hello {
    uint32_t layout; /* OPD_LAYOUT */
    uint32_t pad;
    /* The tenant's token (openpimctl token add), NUL-padded; "" for none.  A
     * connection through a guest socket must present a valid one; a UNIX
     * client may (then its tenant is the token's, not its uid). */
    char token[OP_TOKEN_MAX];
};
struct opd_hello_reply {
    struct op_machine_config cfg; /* the daemon's machine (remote[] empty); cfg.budget_ns: its launch budget */
    struct op_backend_info info;
    uint32_t quota;           /* ranks the tenant may hold at once */
    uint32_t max_wait_ms;     /* the longest a claim may wait in the queue */
    uint64_t memory_limit;    /* host bytes the machine's memories may use */
    char tenant[OPD_TENANT_MAX]; /* who the daemon takes this connection for ("uid:1000", "token:alice") */
};

/* Claims between min and count ranks (min == count: all or none) in one step,
 * waiting at most wait_ms in the queue for them all (0: do not wait).  The
 * reply lists the ranks claimed. */
struct opd_claim {
    uint32_t wait_ms;
    uint32_t count;
    uint32_t min;
    uint32_t pad;
};
struct opd_rank {
    uint32_t rank;
    uint32_t pad;
};
struct opd_handle {
    uint32_t handle;
    uint32_t pad;
};
struct opd_program {
    uint64_t len; /* ELF bytes */
    struct opd_data data;
};
struct opd_load {
    uint32_t handle;
    uint32_t n; /* followed by uint32_t dpus[n] */
};
struct opd_write {
    uint32_t region; /* enum op_region: WRAM or MRAM */
    uint32_t off;
    uint32_t n;    /* DPUs; followed by uint32_t dpus[n] */
    uint32_t nsrc; /* 1 (broadcast) or n: the data holds nsrc * len bytes, DPU by DPU */
    uint64_t len;  /* bytes per DPU */
    struct opd_data data;
};
struct opd_room {
    uint32_t off;
    uint32_t n; /* followed by uint32_t dpus[n] */
    uint64_t len;
};
struct opd_read {
    uint32_t dpu;
    uint32_t region;
    uint32_t off;
    uint32_t pad;
    uint64_t len;
    struct opd_data data; /* where the reply's data goes */
};
struct opd_gather {
    uint32_t region;
    uint32_t off;
    uint32_t n; /* followed by uint32_t dpus[n] */
    uint32_t pad;
    uint64_t len; /* bytes per DPU */
    struct opd_data data; /* where the reply's n * len bytes go */
};
/* A batch of small writes: `count` entries, each a uint64_t length then that
 * many bytes of a WRITE request with inline data (fixed part, DPUs, data),
 * padded to 8 bytes.  Every entry is checked before any is run. */
struct opd_batch {
    uint32_t count;
    uint32_t pad;
};
#define OPD_BATCH_MAX 4096u /* entries per batch */
struct opd_view {
    uint32_t dpus[8];
    uint64_t off;
    uint64_t size;
    struct opd_data data;
};
struct opd_count {
    uint32_t n; /* followed by uint32_t dpus[n] */
    uint32_t pad;
};
struct opd_dpu {
    uint32_t dpu;
    uint32_t pad;
};
struct opd_memory {
    uint64_t used, limit;
};
enum opd_window_kind {
    OPD_WINDOW_MEMFD = 0,  /* the client's memfd (the one descriptor of the request), mapped by both */
    OPD_WINDOW_DAEMON = 1, /* the daemon's own memory, reached with WINDOW_PUT / WINDOW_GET */
};
struct opd_shm {
    uint64_t size; /* bytes of the memfd (sealed against shrinking), or of the daemon's window */
    uint32_t kind; /* enum opd_window_kind */
    uint32_t pad;
};
#define OPD_DAEMON_WINDOW_MAX (32ull << 20) /* the largest window the daemon keeps for a client */
struct opd_window_io {
    uint64_t len;         /* at most OPD_INLINE_MAX */
    struct opd_data data; /* where OPD_SHM, shm_off: where in the window */
};
/* Operators (openpimctl): the ranks, and taking one out of service. */
enum opd_rank_state { OPD_RANK_AVAILABLE, OPD_RANK_ALLOCATED, OPD_RANK_RESETTING, OPD_RANK_DRAINED };
struct opd_status_reply {
    uint32_t nr_ranks, nr_waiting; /* followed by struct opd_rank_status[nr_ranks] */
    uint32_t quota, pad;
};
struct opd_rank_status {
    uint32_t state; /* enum opd_rank_state */
    uint32_t drain; /* 1: taken out of service (drained once free) */
    uint64_t conn;  /* the tenant's connection number in the daemon's log */
    char tenant[OPD_TENANT_MAX]; /* while allocated or resetting: "uid:<n>" or "token:<name>" */
};
struct opd_drain {
    uint32_t rank;
    uint32_t on; /* 1: drain, 0: back in service */
};

/* Changes with every structure on the wire: a client and a daemon of
 * different builds refuse each other at HELLO. */
#define OPD_LAYOUT                                                                                              \
    ((uint32_t)(OPD_VERSION * 1000003u + sizeof(struct op_machine_config) * 131u +                              \
                sizeof(struct op_backend_info) * 17u + sizeof(struct op_dpu_status) * 7u +                      \
                sizeof(struct opd_header) * 3u + sizeof(struct opd_write) + sizeof(struct opd_view) * 5u +     \
                sizeof(struct opd_rank_status) * 11u + sizeof(struct opd_status_reply) * 13u +                  \
                sizeof(struct opd_hello_reply) * 19u + sizeof(struct opd_claim) * 23u + OPD_STATUS_KINDS * 29u + \
                sizeof(struct opd_hello) * 31u + sizeof(struct opd_shm) * 37u + sizeof(struct opd_window_io) * 41u))

/* ---- decoding (daemon/protocol.c) ------------------------------------------ */

/* A request taken apart, its structure checked (sizes, counts, overflow);
 * pointers lie in the payload buffer it was decoded from.  Whether the DPUs,
 * handles and ranges are the sender's and inside the machine is checked by
 * opd_check against the daemon's state. */
struct opd_request {
    uint16_t op;
    uint32_t seq;
    union {
        struct opd_hello hello;
        struct opd_claim claim;
        struct opd_rank rank;
        struct opd_handle handle;
        struct opd_program program;
        struct opd_load load;
        struct opd_write write;
        struct opd_room room;
        struct opd_read read;
        struct opd_gather gather;
        struct opd_batch batch;
        struct opd_view view;
        struct opd_count count;
        struct opd_dpu dpu;
        struct opd_shm shm;
        struct opd_drain drain;
        struct opd_window_io window;
    } u;
    const uint32_t *dpus; /* LOAD, WRITE, CHECK_ROOM, LAUNCH, READ_GATHER (in the payload buffer) */
    uint32_t n;
    const uint8_t *inline_data; /* inline bulk data (PROGRAM_OPEN, WRITE, VIEW_WRITE, WINDOW_PUT) */
    uint64_t data_len;          /* bulk bytes of the request or of its reply */
    const struct opd_data *data;
};

/* Checks a header: magic, version, op, payload size.  0, or -1 with a
 * message.  After a bad header the stream cannot be trusted: close it. */
int opd_check_header(const struct opd_header *h, char *err, size_t errlen);
/* Takes a payload apart (the header passed opd_check_header).  0, or -1
 * with a message; the connection stays usable. */
int opd_decode(const struct opd_header *h, const uint8_t *payload, struct opd_request *out, char *err,
               size_t errlen);

/* What opd_check needs to know of the daemon and the sender. */
struct opd_context {
    uint32_t nr_dpus, dpus_per_rank;
    uint64_t mram_size, wram_size;
    uint64_t shm_size; /* 0: no window attached */
    /* whether the sender owns rank r */
    int (*owns)(void *ctx, uint32_t rank);
    /* whether h is one of the sender's program handles */
    int (*has_program)(void *ctx, uint32_t h);
    void *ctx;
    uint8_t *seen; /* scratch of nr_dpus bytes, zero on entry and on return */
};
/* Checks a decoded request against the machine and the sender's ownership:
 * every DPU exists, is named once and lies in one of the sender's ranks;
 * handles are the sender's; ranges lie inside the memories and the window.
 * 0, or -1 with a message. */
int opd_check(const struct opd_context *c, const struct opd_request *r, char *err, size_t errlen);

/* The entry of a WRITE_BATCH request at *pos (0 for the first), decoded as
 * a WRITE; *pos moves to the next.  0, or -1 with a message. */
int opd_batch_next(const struct opd_request *batch, uint64_t *pos, struct opd_request *out, char *err,
                   size_t errlen);

const char *opd_op_name(unsigned op);

#endif
