/* SPDX-License-Identifier: MIT */
/* Shared by the files of comm/: the cube and communicator structures, error
 * reporting, MRAM region helpers, and the entry points of the two
 * implementations and of the SIMD host kernels. */
#ifndef OPENPIM_COMM_INTERNAL_H
#define OPENPIM_COMM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dpu.h>
#include <openpim_ext.h>

#include "openpim_comm.h"

#define COMM_CHIPS 8  /* DPUs of an entangled group: one per chip */
#define COMM_GROUPS 8 /* entangled groups per rank */
#define COMM_LINE 64  /* bytes of a physical-view line */
#define MRAM_TAG 0x08000000u
#define ALL_TECH (OPENPIM_COMM_PR | OPENPIM_COMM_IM | OPENPIM_COMM_CM)

struct openpim_comm {
    openpim_cube_t *cube;
    uint32_t mask;        /* selected dimensions */
    uint32_t size;        /* N */
    uint32_t nr_instances;
    uint32_t *node_of;    /* [instance * size + rank] -> node */
};

/* Where a node's DPU sits: rank of the set, chip (slice), DPU in the chip (member, the "bank"). */
struct comm_place {
    uint32_t rank, chip, bank;
};

#define COMM_DEFAULT_LINK_GBPS 2.8 /* [Jonatan24] §6: a 64-bit link at 350 MHz */

struct openpim_cube {
    struct dpu_set_t set;
    uint32_t nr_dims;
    uint32_t len[OPENPIM_COMM_MAX_DIMS];
    uint32_t nr_nodes;
    struct dpu_set_t *node_dpu; /* per node: its one-DPU set */
    struct comm_place *node_place;
    openpim_comm_transport transport;
    double link_gbps;
    uint32_t nr_ranks;
    struct dpu_set_t *rank_set; /* per rank of the set */
    bool view_ok;               /* every rank: 64 enabled DPUs laid out 8 chips x 8 groups */
    uint64_t mram_bytes;        /* per DPU (openpim_get_memory_sizes) */
    unsigned tech;              /* OPENPIM_COMM_PR | IM | CM */
    int last_view;
    double last_host_us; /* wall-clock of the last collective's host pass */
    openpim_comm_t **comms;
    uint8_t *buf[2];      /* host buffers kept between collectives (no page faults on reuse) */
    size_t buf_size[2];
    uint32_t nr_comms;
    /* modelled cost of the last whole-cube write to the DPUs of `bytes` per
     * node through each path (SDK push, view): what comm_view_scatter's
     * choice predicts from (0 bytes: none seen yet) */
    struct comm_seen {
        uint64_t bytes;
        double us;
    } seen_push, seen_view;
    /* the reordering kernel (kernel.c): its load, arguments and launch
     * overhead as estimated for the set (load < 0: not yet), and the
     * kernel's own time in its last run */
    double kernel_load_us, kernel_args_us, kernel_launch_us;
    struct comm_seen_kernel {
        uint32_t nr_blocks;
        uint64_t block_bytes;
        double cycles_us;
    } seen_kernel;
};

/* error.c: sets the thread's message and returns status. */
openpim_comm_status comm_fail(openpim_comm_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void comm_clear_error(void);
openpim_comm_status comm_dpu_fail(dpu_error_t rc, const char *what);

/* types.c */
bool comm_type_op_ok(openpim_comm_type type, openpim_comm_op op);
openpim_comm_status comm_check_type_op(openpim_comm_type type, openpim_comm_op op);
/* Whether op on type may be applied byte by byte (any order, no carries):
 * bitwise ops, and every op on 8-bit integers. */
bool comm_bytewise(openpim_comm_type type, openpim_comm_op op);

/* simd.c: host kernels, identical results in every implementation. */
struct comm_simd {
    const char *name;
    /* acc[i] = acc[i] op src[i], n elements */
    void (*reduce)(openpim_comm_type type, openpim_comm_op op, void *acc, const void *src, size_t n);
    /* dst lines = src lines with every 64-bit word rotated left by 8*r bits
     * (the byte of chip k moves to chip (k + r) % 8); n lines */
    void (*rotate)(void *dst, const void *src, size_t n, unsigned r);
    /* every 64-bit word of n lines reduced over its 8 bytes (bytewise op on
     * byte lanes): each byte of the word becomes op over the word's 8 bytes */
    void (*hreduce8)(openpim_comm_type type, openpim_comm_op op, void *lines, size_t n);
    /* 8 lines (512 bytes of view) <-> 8 rows of 64 bytes, row k = chip k's 8 words */
    void (*lines_to_rows)(const uint8_t *lines, uint8_t rows[8][64]);
    void (*rows_to_lines)(uint8_t rows[8][64], uint8_t *lines);
};
const struct comm_simd *comm_simd(void);
/* The portable kernels (what the baseline's plain loops are). */
const struct comm_simd *comm_simd_scalar(void);

/* cost.c: records host work in modelled time (see openpim_comm.h).  A pass
 * through host DRAM reading `rd` and writing `wr` bytes, with `scalar` bytes
 * of input reduced by scalar loops, on the baseline's or the optimised
 * threads; in-register transposes of `bytes`. */
void comm_charge_pass(const char *name, bool baseline, double rd, double wr, double scalar);
/* A reorder of `pieces` separate memcpys read `stride` bytes apart: the pass,
 * or the pieces' calls if they bind; each piece costs
 * comm_reorder_piece_ns(rd + wr, stride): chunk_far_ns beyond the caches
 * (footprint past the modelled L3, pieces >= 1 KB apart), else chunk_ns. */
double comm_reorder_piece_ns(double footprint, double stride);
void comm_charge_reorder(const char *name, bool baseline, double rd, double wr, double pieces, double stride);
double comm_reorder_us(bool baseline, double rd, double wr, double pieces, double stride); /* what it charges */
void comm_charge_transpose(const char *name, double bytes);
double comm_transpose_us(double bytes); /* what comm_charge_transpose charges */
/* A reduction in registers (domain transfer, combine, back) of `bytes` of
 * input on the optimised threads. */
void comm_charge_reduce(const char *name, double bytes);
/* Modelled microseconds of `bytes` over the inter-host link. */
double comm_inter_host_us(double bytes);
/* Monotonic wall clock (microseconds), for openpim_cube_last_host_pass_us. */
double comm_now_us(void);

/* cube.c: the cube's host buffer `slot` (0 or 1) of at least size bytes;
 * NULL if out of memory.  Valid until the next call for the same slot. */
uint8_t *comm_buffer(openpim_cube_t *cube, int slot, size_t size);

/* region.c: MRAM regions of every node of the cube. */
openpim_comm_status comm_check_region(const openpim_cube_t *cube, uint64_t off, uint64_t len, const char *what);
openpim_comm_status comm_check_overlap(uint64_t src, uint64_t src_len, uint64_t dst, uint64_t dst_len);
/* Reads [off, off + len) of every node into buf + node * stride + (off % 8)
 * (stride >= round8 span); the 8-aligned span around it is read. */
openpim_comm_status comm_read_nodes(openpim_cube_t *cube, uint64_t off, uint64_t len, uint8_t *buf, size_t stride);
/* Writes len bytes from buf + node * stride + (off % 8) to [off, off + len)
 * of every node, preserving the bytes of the 8-aligned span around it. */
openpim_comm_status comm_write_nodes(openpim_cube_t *cube, uint64_t off, uint64_t len, uint8_t *buf, size_t stride);
size_t comm_span(uint64_t off, uint64_t len); /* bytes of the 8-aligned span */
/* Pushes len bytes (off, len multiples of 8) between each node's buffer
 * ptrs[node] and MRAM. */
openpim_comm_status comm_push(openpim_cube_t *cube, dpu_xfer_t dir, uint64_t off, uint64_t len, uint8_t *const *ptrs);
/* Around a whole-cube transfer: comm_seen_end records its modelled cost in
 * *seen when it wrote to the DPUs (read by Scatter's choice of path). */
double comm_seen_start(void);
void comm_seen_end(struct comm_seen *seen, bool write, uint64_t bytes, double t0);

/* baseline.c / optimised.c: arguments already checked. */
struct comm_args {
    openpim_comm_t *comm;
    uint64_t src, dst, bytes;
    openpim_comm_type type;
    openpim_comm_op op;
    const struct comm_simd *simd; /* reductions of the general path */
    unsigned tech;                /* techniques in use (cube's) */
};
openpim_comm_status comm_base_alltoall(const struct comm_args *a);
openpim_comm_status comm_base_reduce_scatter(const struct comm_args *a);
openpim_comm_status comm_base_allgather(const struct comm_args *a);
openpim_comm_status comm_base_allreduce(const struct comm_args *a);
openpim_comm_status comm_base_reduce(const struct comm_args *a, void *host);

/* optimised.c: returns 1 (through *done) when the view path applied (or,
 * with PR alone, its staged variant). */
openpim_comm_status comm_view_alltoall(const struct comm_args *a, int *done);
openpim_comm_status comm_view_reduce_scatter(const struct comm_args *a, int *done);
openpim_comm_status comm_view_allgather(const struct comm_args *a, int *done);
openpim_comm_status comm_view_allreduce(const struct comm_args *a, int *done);
/* The rooted primitives on the view (IM, full ranks, 8-byte-aligned region;
 * Reduce also the layouts above): a->dst (Scatter, Broadcast) or a->src
 * (Gather, Reduce); host buffers as in openpim_comm.h. */
openpim_comm_status comm_view_broadcast(const struct comm_args *a, const void *host, int *done);
openpim_comm_status comm_view_scatter(const struct comm_args *a, const void *host, int *done);
openpim_comm_status comm_view_gather(const struct comm_args *a, void *host, int *done);
openpim_comm_status comm_view_reduce(const struct comm_args *a, void *host, int *done);
/* Gathers and scatters through the view with the host data where the caller
 * wants it (several hosts, mpi.c: packed for MPI in registers, no pass):
 * node n's bytes are blocks of blk bytes, block q at
 *     base + node_off[n] + (q / grp) * s1 + (q % grp) * s2.
 * Same conditions as the plain forms (IM, full ranks, offset and bytes
 * multiples of 8); *done = 0 when they do not hold.  put: share = groups with
 * the same 8 node_off take the same lines (Broadcast: one domain transfer).
 * gather: node_off[n] == COMM_NO_HOST leaves node n's bytes out (a group
 * with none wanted is not transposed). */
#define COMM_NO_HOST SIZE_MAX
struct comm_hostmap {
    uint8_t *base;
    const size_t *node_off;
    uint64_t blk, grp;
    size_t s1, s2;
};
openpim_comm_status comm_view_put_map(openpim_cube_t *c, unsigned tech, uint64_t dst, uint64_t bytes,
                                      const struct comm_hostmap *h, bool share, const char *name, int *done);
openpim_comm_status comm_view_gather_map(openpim_cube_t *c, unsigned tech, uint64_t src, uint64_t bytes,
                                         const struct comm_hostmap *h, const char *name, int *done);

/* interconnect.c: modelled link time of a DPU-to-DPU primitive (bytes per
 * node as the public functions take them). */
double comm_link_us(const openpim_comm_t *comm, openpim_comm_prim prim, uint64_t bytes, double link_gbps);
/* Runs a DPU-to-DPU primitive over the modelled links: base moves the data
 * through the host with the SDK's timing paused, then the link time is
 * charged as one Inter-DPU event on the cube's ranks. */
openpim_comm_status comm_interconnect_run(const struct comm_args *a,
                                          openpim_comm_status (*base)(const struct comm_args *),
                                          openpim_comm_prim prim);

/* kernel.c: the reordering kernel on every DPU of the cube. */
enum comm_kernel_mode { COMM_KERNEL_PRE = 0, COMM_KERNEL_POST = 1 };
/* load: load the kernel first (false: it is still there, the last
 * comm_run_kernel of this collective loaded it). */
openpim_comm_status comm_run_kernel(openpim_cube_t *cube, enum comm_kernel_mode mode, uint64_t src, uint64_t dst,
                                    uint32_t nr_blocks, uint64_t block_bytes, bool load);
/* Modelled microseconds of one comm_run_kernel, as predicted before it runs. */
double comm_kernel_estimate_us(openpim_cube_t *cube, uint32_t nr_blocks, uint64_t block_bytes, bool load);

#endif
