/* SPDX-License-Identifier: MIT */
/* OpenPIM collectives: communication between DPUs on a virtual hypercube.
 *
 * DPUs cannot talk to each other; every exchange goes through the host.  This
 * library gives that exchange the shape of MPI/NCCL collectives:
 *
 *   - a cube: the DPUs of a dpu_set_t seen as a hypercube of any number of
 *     dimensions and any lengths whose product is the set's DPU count;
 *   - a communicator: a subset of the cube's dimensions.  It splits the cube
 *     into "instances" (slices): the nodes that agree on every coordinate
 *     outside the subset.  A collective runs on every instance at once;
 *   - eight primitives: AlltoAll, ReduceScatter, AllGather, AllReduce between
 *     the DPUs of each instance, and Broadcast, Scatter, Gather, Reduce with the
 *     host as the root.
 *
 * Numbering.  Node n of a cube with lengths L[0..d-1] has coordinates
 * x[k] = (n / (L[0]*...*L[k-1])) % L[k] (dimension 0 varies fastest).  Inside
 * a communicator, a node's rank is the same linear index over the selected
 * dimensions only (lowest selected dimension fastest), and an instance's index
 * is the linear index over the other dimensions.  Host buffers of the rooted
 * primitives are laid out [instance][rank][bytes].
 *
 * Mapping onto the machine.  Nodes fill the physical hierarchy in the order
 * chip -> DPU within the chip ("bank") -> rank -> channel: node n is the
 * (n % 8)-th chip's DPU of entangled group (n / 8) % 8 of the set's rank n / 64
 * (ranks in the set's order, which the SDK fills channel by channel).  The 8
 * DPUs of an entangled group share each 64-byte line of the rank's physical
 * view (see openpim_rank_view_read in dpu.h), which is what the optimised
 * implementation exploits.  In a set that does not fill its last rank, nodes
 * take the enabled DPUs in that same order (group, then chip).
 * openpim_cube_node_dpu() gives the DPU of a node.
 *
 * Data.  Offsets are MRAM byte offsets from the start of MRAM (not from the
 * heap pointer: use the same offsets in your DPU code as
 * 0x08000000 + offset, or DPU_MRAM_HEAP_POINTER plus a known shift).  Sizes
 * are in bytes and need not be multiples of 8 (only of the element size).
 * Source and destination either do not overlap or start at the same offset
 * (in place); any other overlap is refused.  Element types: 8/16/32/64-bit
 * signed and unsigned integers, float and double; operations: sum, min, max,
 * and, or, xor on integers (wrap-around sums), sum, min, max on floats.
 * Reductions combine the ranks of an instance in rank order 0, 1, ..., N-1
 * (acc = in[0]; acc = acc op in[q]), so floating-point sums are deterministic
 * and identical in both implementations; min(a, x) = x < a ? x : a and
 * max(a, x) = x > a ? x : a (so a NaN already in the accumulator stays there,
 * and a NaN x is skipped).  NaNs in sums: the accumulator's NaN wins, quieted
 * (payload and sign kept); else a NaN x is passed on, quieted; inf + -inf is
 * the CPU's default NaN.  So a sum is the first NaN in rank order (quieted),
 * on every path and SIMD variant.
 *
 * Implementations (openpim_cube_set_impl):
 *   OPENPIM_COMM_BASELINE   conventional host-mediated exchange, as SimplePIM
 *       does: a parallel push of every node's data into host buffers, the host
 *       reorders or reduces (plain C loops) into a second host buffer, a push
 *       back.
 *   OPENPIM_COMM_OPTIMISED  PID-Comm's techniques on the rank's physical view
 *       (one set-wide openpim_rank_view_push per direction; each technique
 *       can be switched on alone, see openpim_cube_set_techniques):
 *       DPU kernels reorder blocks before and after the host pass
 *       ("PE-assisted reordering"), the host moves whole 64-byte lines and
 *       rotates them in registers so that words change chips without any 8x8
 *       transpose ("in-register modulation"), and transposes only where an
 *       operation needs whole elements (sums, min, max of types wider than a
 *       byte: "cross-domain modulation"); AlltoAll and AllGather never leave
 *       the physical domain.  SIMD code (AVX-512, AVX2, portable C) is chosen
 *       at run time; all give identical results.
 *   The optimised view path needs every rank of the set with its 64 DPUs
 *   enabled, L[0] a multiple of 8 (so that an entangled group holds 8
 *   consecutive values of x[0]), and per-node blocks and offsets that are
 *   multiples of 8 bytes.  It serves AlltoAll, ReduceScatter, AllGather and
 *   AllReduce for any communicator and any type/operation.  Everything else
 *   takes the general path: the baseline's host-mediated algorithm with the
 *   optimised SIMD reductions -- partial ranks, shapes such as L[0] = 5 or
 *   L[0] = 4 (PID-Comm's 2/4-wide special cases are not implemented), sizes
 *   or offsets that are not multiples of 8, and the rooted primitives (Reduce
 *   with SIMD; Broadcast, Scatter and Gather are one push from or into the
 *   caller's buffers in both implementations).  Non-power-of-two lengths are
 *   fine on either path (e.g. 8 x 8 x 40 on 2,560 DPUs uses the view).
 *   Results are identical on every path.  With one node per instance and the
 *   destination at the source, the four DPU-to-DPU primitives have nothing to
 *   do: they return at once (no transfer, no modelled time).
 *   With dimension 0 in the communicator, AlltoAll and AllGather load the
 *   library's DPU kernel on the set (PE-assisted reordering): load your
 *   program again before your next dpu_launch (PID-Comm has the same rule).
 *   That kernel path costs a load, argument pushes and launches; below a
 *   size threshold the general path is cheaper, and the optimised
 *   implementation takes whichever the model predicts cheaper for the call
 *   (the SDK's estimates of each transfer, load and launch,
 *   openpim_estimate_us, and the host cost model below; the kernel's own
 *   cycles as in its last run on the cube), so it never runs slower than
 *   the baseline's algorithm on the optimised host threads.  The general
 *   path runs no kernel (openpim_cube_last_used_view tells which ran).
 *   MRAM outside the collective's source and destination is never changed;
 *   WRAM is, when the kernel runs.
 *
 * Requirements: the set has one program loaded on all its DPUs (the SDK's
 * transfers need one; any program will do).
 *
 * Modelled time (OpenPIM timing model): transfers and kernel launches are
 * charged by the SDK as they happen; host-side reordering and reduction work
 * is recorded with openpim_record_host_event, category Inter-DPU, from the
 * bytes it moves (see "Host cost model" below).
 *
 * A size of 0 bytes does nothing and returns OPENPIM_COMM_OK (after the
 * argument checks).
 *
 * Errors.  Every function returns OPENPIM_COMM_OK or a negative
 * openpim_comm_status; openpim_comm_last_error() then describes the problem
 * (thread-local).  A refused call changes nothing (no DPU memory is touched).
 *
 * Thread safety: a cube and its communicators are used by one thread at a
 * time; different cubes (on different sets) may be used concurrently. */
#ifndef OPENPIM_COMM_H
#define OPENPIM_COMM_H

#include <stddef.h>
#include <stdint.h>

#include <dpu.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum openpim_comm_status {
    OPENPIM_COMM_OK = 0,
    OPENPIM_COMM_ERR_ARGUMENT = -1, /* NULL pointer, bad dimension list */
    OPENPIM_COMM_ERR_SHAPE = -2,    /* lengths do not multiply to the set's DPU count */
    OPENPIM_COMM_ERR_SIZE = -3,     /* size not a multiple of the element size or of the communicator size */
    OPENPIM_COMM_ERR_RANGE = -4,    /* offset + size past the end of MRAM */
    OPENPIM_COMM_ERR_OVERLAP = -5,  /* source and destination overlap without being in place */
    OPENPIM_COMM_ERR_TYPE_OP = -6,  /* unknown type or operation, or a bitwise operation on floats */
    OPENPIM_COMM_ERR_DPU = -7,      /* the SDK refused a transfer or a launch (message says which) */
    OPENPIM_COMM_ERR_NOMEM = -8,    /* host memory */
} openpim_comm_status;

typedef enum openpim_comm_type {
    OPENPIM_INT8,
    OPENPIM_UINT8,
    OPENPIM_INT16,
    OPENPIM_UINT16,
    OPENPIM_INT32,
    OPENPIM_UINT32,
    OPENPIM_INT64,
    OPENPIM_UINT64,
    OPENPIM_FLOAT,
    OPENPIM_DOUBLE,
    OPENPIM_NR_TYPES
} openpim_comm_type;

typedef enum openpim_comm_op {
    OPENPIM_SUM,
    OPENPIM_MIN,
    OPENPIM_MAX,
    OPENPIM_AND,
    OPENPIM_OR,
    OPENPIM_XOR,
    OPENPIM_NR_OPS
} openpim_comm_op;

typedef enum openpim_comm_impl {
    OPENPIM_COMM_BASELINE,
    OPENPIM_COMM_OPTIMISED,
} openpim_comm_impl;

/* Most dimensions a cube may have. */
#define OPENPIM_COMM_MAX_DIMS 16

typedef struct openpim_cube openpim_cube_t;
typedef struct openpim_comm openpim_comm_t;

/* The DPUs of `set` (from dpu_alloc / dpu_alloc_ranks; it must stay allocated
 * while the cube lives) as a hypercube of nr_dims lengths (each >= 1) whose
 * product is the set's DPU count.  The implementation is OPENPIM_COMM_OPTIMISED
 * unless the environment sets OPENPIM_COMM_IMPL=baseline.  The cube keeps two
 * host buffers, each as large as the largest collective's data over all its
 * nodes, between calls (reused without page faults) until it is destroyed. */
openpim_comm_status openpim_cube_create(struct dpu_set_t set, uint32_t nr_dims, const uint32_t *lengths,
                                        openpim_cube_t **cube);
void openpim_cube_destroy(openpim_cube_t *cube); /* also destroys its communicators; NULL is fine */
openpim_comm_status openpim_cube_set_impl(openpim_cube_t *cube, openpim_comm_impl impl);
/* OPENPIM_COMM_OPTIMISED when all three techniques are on, else BASELINE. */
openpim_comm_impl openpim_cube_get_impl(const openpim_cube_t *cube);
/* MRAM bytes of each DPU of the cube (openpim_get_memory_sizes): what offsets
 * are checked against. */
uint64_t openpim_cube_mram_bytes(const openpim_cube_t *cube);
uint32_t openpim_cube_nr_nodes(const openpim_cube_t *cube);
/* The DPU (a one-DPU set) of node `node`. */
openpim_comm_status openpim_cube_node_dpu(const openpim_cube_t *cube, uint32_t node, struct dpu_set_t *dpu);

/* A communicator over the dimensions listed in dims[0..nr-1] (distinct, each
 * < the cube's dimension count; order does not matter).  Owned by the cube. */
openpim_comm_status openpim_comm_create(openpim_cube_t *cube, uint32_t nr, const uint32_t *dims,
                                        openpim_comm_t **comm);
/* Same, from a mask string, one '0'/'1' per dimension, dimension 0 first
 * ("100" = along dimension 0), as PID-Comm's comm argument. */
openpim_comm_status openpim_comm_create_mask(openpim_cube_t *cube, const char *mask, openpim_comm_t **comm);
uint32_t openpim_comm_size(const openpim_comm_t *comm);          /* N: ranks per instance */
uint32_t openpim_comm_nr_instances(const openpim_comm_t *comm); /* instances (slices) */
/* The node at rank `rank` of instance `instance`. */
uint32_t openpim_comm_node(const openpim_comm_t *comm, uint32_t instance, uint32_t rank);

/* ---- primitives between DPUs (every instance at once) ----------------------
 * bytes is per node; N = openpim_comm_size(comm). */

/* Each node holds N blocks of bytes/N at src; afterwards rank p holds at dst,
 * as block q, block p of rank q.  bytes: a multiple of N. */
openpim_comm_status openpim_alltoall(openpim_comm_t *comm, uint64_t src, uint64_t dst, uint64_t bytes);
/* Each node holds N blocks of bytes/N elements' bytes at src; afterwards rank
 * p holds at dst the reduction over q of block p of rank q (bytes/N bytes).
 * bytes: a multiple of N * element size. */
openpim_comm_status openpim_reduce_scatter(openpim_comm_t *comm, uint64_t src, uint64_t dst, uint64_t bytes,
                                           openpim_comm_type type, openpim_comm_op op);
/* Each node holds `bytes` at src; afterwards every node holds at dst the N
 * blocks of its instance, rank order (N * bytes).  In place (src == dst): the
 * input is the first block of dst. */
openpim_comm_status openpim_allgather(openpim_comm_t *comm, uint64_t src, uint64_t dst, uint64_t bytes);
/* Each node holds `bytes` at src; afterwards every node holds at dst the
 * reduction over its instance.  bytes: a multiple of the element size. */
openpim_comm_status openpim_allreduce(openpim_comm_t *comm, uint64_t src, uint64_t dst, uint64_t bytes,
                                      openpim_comm_type type, openpim_comm_op op);

/* ---- primitives with the host as root ---------------------------------------
 * Host buffers: [instance][rank][bytes] as described at the top. */

/* host[instance][bytes] -> dst of every node of that instance.  A communicator
 * over all dimensions has one instance: a plain broadcast. */
openpim_comm_status openpim_broadcast(openpim_comm_t *comm, uint64_t dst, const void *host, uint64_t bytes);
/* host[instance][rank][bytes] -> dst of that node. */
openpim_comm_status openpim_scatter(openpim_comm_t *comm, uint64_t dst, const void *host, uint64_t bytes);
/* src of every node -> host[instance][rank][bytes]. */
openpim_comm_status openpim_gather(openpim_comm_t *comm, uint64_t src, void *host, uint64_t bytes);
/* host[instance][bytes] = reduction over the instance of src. */
openpim_comm_status openpim_reduce(openpim_comm_t *comm, uint64_t src, void *host, uint64_t bytes,
                                   openpim_comm_type type, openpim_comm_op op);
/* Gather from chosen nodes, each at its own offset: for k < nr, the bytes
 * at MRAM offset src[k] of node nodes[k] go to host + k * bytes.  nodes NULL:
 * nodes 0 .. nr - 1.  A node listed twice, or not in the cube, is refused
 * (ERR_ARGUMENT), as are NULL offsets or host buffer when nr > 0; nr = 0
 * does nothing.  Nodes sharing an offset are read by one transfer (on the
 * physical view when the optimised implementation can, as Gather: full
 * ranks, the offset and bytes multiples of 8; then only the entangled
 * groups holding a chosen node are transposed). */
openpim_comm_status openpim_gather_nodes(openpim_cube_t *cube, uint32_t nr, const uint32_t *nodes,
                                         const uint64_t *src, void *host, uint64_t bytes);

/* ---- diagnostics ------------------------------------------------------------ */

/* Why the last call of this thread failed ("" after a success). */
const char *openpim_comm_last_error(void);
const char *openpim_comm_status_name(openpim_comm_status status);
size_t openpim_comm_type_size(openpim_comm_type type);
/* Whether the last collective on the cube used the physical-view path (1) or
 * the general path (0); for tests and benchmarks. */
int openpim_cube_last_used_view(const openpim_cube_t *cube);
/* Wall-clock microseconds the last collective spent in its host pass (the
 * reordering or reduction between the transfers, not the SDK calls); for
 * benchmarks. */
double openpim_cube_last_host_pass_us(const openpim_cube_t *cube);
/* SIMD code of the host passes: "avx512", "avx2" or "scalar" (NULL or "auto":
 * the best this CPU runs).  Returns -1 when the CPU lacks it.  Process-wide. */
int openpim_comm_force_simd(const char *name);
const char *openpim_comm_simd_name(void);

/* Host cost model (see comm/README.md "Modelled time" for the sources).
 * Host work between the transfers is charged on the host timeline as
 * Inter-DPU time, modelled on the host of PID-Comm's evaluation (Intel Xeon
 * Gold 5215, 10 cores, AVX-512; its ordinary DRAM one DDR4-2400 channel):
 *   - a pass through host DRAM (staging buffers) streaming R bytes read and
 *     W written by T threads takes max((R + k W) / dram_gbps,
 *     W / (T * core_copy_gbps)): the channel or the cores, whichever binds;
 *     k = 2 for the baseline (ordinary stores read each line first:
 *     write-allocate), 1 for the others (PID-Comm's streaming stores);
 *   - scalar reductions (SimplePIM's per-element combine loop): input bytes
 *     / (T * scalar_gbps), overlapping the pass (the larger of the two);
 *   - in-register 8x8 transposes ("domain transfer" on the host): bytes
 *     transposed / (T * transpose_gbps);
 *   - in-register reductions of the view path (PR + IM: to whole elements,
 *     combined, back): input bytes / (T * reduce_gbps);
 *   - the host's AlltoAll reorder copies P pieces (instances x size x size)
 *     one memcpy each: at least P * chunk_ns / T, the larger of that and
 *     the pass (pieces of a few bytes cost their calls, not their bytes);
 *     chunk_far_ns instead of chunk_ns when the pieces miss the caches (the
 *     pass's footprint beyond the modelled host's 13.75 MB L3 and the pieces
 *     read 1 KB or more apart: a cache and a TLB miss each);
 *   - T = baseline_threads for the baseline (SimplePIM's communication loops
 *     are single-threaded), optimised_threads for the other techniques
 *     (PID-Comm runs its host pass on 32 threads: the 10 cores of the Xeon).
 * Lines streamed through the physical view cost only the view transfers the
 * SDK charges.  Values <= 0 (or NaN) restore the defaults.  Process-wide:
 * set it before collectives run, not while another thread runs one. */
struct openpim_comm_cost_model {
    double dram_gbps;        /* host DRAM bytes read + written per second, 19.2 (one DDR4-2400 channel) */
    double core_copy_gbps;   /* one core's DRAM-to-DRAM copy, bytes written, 10 */
    double scalar_gbps;      /* one core's scalar reduction loop, input bytes, 3 */
    double transpose_gbps;   /* one core's in-register 8x8 byte transposes, bytes one way, 6 */
    double baseline_threads; /* 1 */
    double optimised_threads;/* 10 */
    double inter_host_gbps;  /* link between hosts (several-host cubes), 1.25 (10 Gb/s) */
    double chunk_ns;         /* one piece of a host reorder (memcpy call, strided address), 4 ns */
    double reduce_gbps;      /* one core's in-register reduction of PIM-domain lines, input bytes, 3 */
    double chunk_far_ns;     /* one piece of a host reorder beyond the caches (>= 1 KB apart), 15 ns */
};
void openpim_comm_set_cost_model(const struct openpim_comm_cost_model *model);
struct openpim_comm_cost_model openpim_comm_get_cost_model(void);
/* Modelled microseconds of one host pass under the current model: rd bytes
 * read, wr written, scalar input bytes combined element by element (0: none);
 * baseline: T = baseline_threads and write-allocate (ordinary stores), else
 * optimised_threads and streaming stores.  What comm charges for a
 * host-mediated step (Reduce and Gather included); libraries above use it to
 * estimate a plan's collective time without repeating the model. */
double openpim_comm_host_pass_us(int baseline, double rd, double wr, double scalar);

/* ---- the three techniques, one by one (ablation) -------------------------------
 * OPENPIM_COMM_BASELINE is no technique, OPENPIM_COMM_OPTIMISED all three.
 *   PR  PE-assisted reordering: DPU kernels reorder blocks before and after,
 *       so that the host only moves data locally; the host pass still goes
 *       through staging buffers in host DRAM (SDK pushes with their domain
 *       transfer) but uses SIMD (vertical reductions, line moves) on every
 *       thread instead of SimplePIM's scalar loops;
 *   IM  in-register modulation (needs PR): no staging in host memory, lines
 *       stream through the physical view; the host still transposes every
 *       line to the host domain and back in registers;
 *   CM  cross-domain modulation (needs IM): no transposes where no arithmetic
 *       needs whole elements (AlltoAll, AllGather, 8-bit and bitwise
 *       reductions).
 * Every combination gives identical results; only modelled time differs.
 * Paths that cannot use the physical view (see above) run the general path
 * whenever any technique is on. */
#define OPENPIM_COMM_PR 1u
#define OPENPIM_COMM_IM 2u
#define OPENPIM_COMM_CM 4u
/* ERR_ARGUMENT for unknown bits, IM without PR or CM without IM. */
openpim_comm_status openpim_cube_set_techniques(openpim_cube_t *cube, unsigned techniques);
unsigned openpim_cube_get_techniques(const openpim_cube_t *cube);

/* ---- PIM-interconnect what-if ([Jonatan24], §6) ------------------------------------
 * How long the DPU-to-DPU primitives would take if DPUs had direct links,
 * organised like the packaging: every DPU has one link of link_gbps (both
 * directions at once) to the other DPUs of its chip ("bank" level), one to
 * the other chips of its rank (chip level) and one to the other ranks (rank
 * level).  A primitive runs level by level, bandwidth-optimally inside each
 * level (ring-style reduce-scatter / all-gather, forwarding for AlltoAll):
 * with g_0, g_1, g_2 the instance's DPUs per chip, chips per rank and ranks,
 *   ReduceScatter  sum_k (g_k - 1)/g_k * b_k / L, b_0 = bytes, b_k+1 = b_k / g_k
 *   AllGather      the same on the output, levels in reverse
 *   AllReduce      both (2x the ReduceScatter terms)
 *   AlltoAll       sum_k (g_k - 1)/g_k * bytes / L
 * (the slowest instance; L = link_gbps). */
typedef enum openpim_comm_prim {
    OPENPIM_PRIM_ALLTOALL,
    OPENPIM_PRIM_REDUCE_SCATTER,
    OPENPIM_PRIM_ALLGATHER,
    OPENPIM_PRIM_ALLREDUCE,
} openpim_comm_prim;

typedef enum openpim_comm_transport {
    OPENPIM_COMM_HOST_ROUTED,  /* what the hardware does (default) */
    OPENPIM_COMM_INTERCONNECT, /* the what-if: re-timed as if on links */
} openpim_comm_transport;

/* Modelled microseconds of prim on every instance of comm over the links
 * (bytes per node as openpim_alltoall etc. take them); link_gbps <= 0 means
 * the default 2.8 GB/s (a 64-bit link at 350 MHz).  -1 for a NULL comm,
 * an unknown primitive or a bandwidth that is not finite. */
double openpim_comm_link_us(const openpim_comm_t *comm, openpim_comm_prim prim, uint64_t bytes, double link_gbps);

/* Re-timing a program: with OPENPIM_COMM_INTERCONNECT, AlltoAll,
 * ReduceScatter, AllGather and AllReduce give the same results as ever (the
 * bytes still move through the host, with the SDK's timing paused:
 * openpim_timing_pause in openpim_ext.h) and the modelled clock advances by
 * exactly openpim_comm_link_us of the call, one Inter-DPU event
 * ("comm interconnect ...") on the cube's ranks that starts when the host
 * and those ranks are free.  Broadcast, Scatter, Gather and Reduce have the
 * host as an end and stay host-routed.  Any program using comm is re-timed
 * as if the hardware had the links: compare its modelled time (or the
 * report's Inter-DPU line) with both transports.  link_gbps: (0, 1000]
 * GB/s, <= 0 for the default 2.8; the paper studies 0.35-3.5.  On several
 * hosts (openpim_comm_mpi.h) the steps inside a host follow its local cube's
 * transport; the messages between hosts keep their own link cost. */
openpim_comm_status openpim_cube_set_transport(openpim_cube_t *cube, openpim_comm_transport transport,
                                               double link_gbps);

#ifdef __cplusplus
}
#endif

#endif
