/* SPDX-License-Identifier: MIT */
/* OpenPIM collectives across hosts (MPI): a cube spanning the processes of an
 * MPI communicator, each process owning one machine (its dpu_set_t).
 *
 * The cube.  Every process passes its own set and the same local lengths
 * L[0..d-1] (their product: the set's DPU count, the same on every process);
 * the cube has d + 1 dimensions, the last one, of length H = the MPI
 * communicator's size, being the host.  Global node g = h * n + l is local
 * node l (openpim_cube_node_dpu numbering) of MPI rank h, n = the DPUs per
 * process.  Communicators, ranks, instances and the layout of the rooted
 * primitives' host buffers follow openpim_comm.h on this global cube; masks
 * have d + 1 characters, the last one selecting the host dimension.
 *
 * Collectives.  Every process calls each function with the same arguments
 * (checked: a mismatch fails on every process with ERR_ARGUMENT).  A
 * communicator without the host dimension runs inside each host.  One with
 * it is hierarchical: inside each host (the local library: its reductions,
 * gathers and scatters), then between hosts with MPI, then inside again.
 * Rooted primitives have MPI rank 0's host buffer as their root buffer (the
 * others' host arguments are ignored and may be NULL).  Results are exact and
 * the same as on one host with the same global cube, except that
 * floating-point reductions over the host dimension combine each host's
 * partial (its ranks in rank order) in host order 0, 1, ..., H-1.
 *
 * Modelled time: each process's machine charges its own local steps; the
 * exchange between hosts is recorded on the process's set as an Inter-host
 * event (openpim_ext.h) of its bytes over the inter-host link (cost model
 * field inter_host_gbps, default 10 Gb/s as in PID-Comm's multi-host study):
 * AlltoAll and ReduceScatter (H-1)/H of each host's data, AllGather (H-1)
 * times it, AllReduce 2(H-1)/H (reduce-scatter then all-gather), Broadcast
 * the data once, Scatter/Gather/Reduce the root's (H-1)/H share.
 *
 * Errors: as openpim_comm.h; a failure on any process fails the call on all
 * of them (the message says which process failed first when it was another).
 * Build: the library openpim_comm_mpi (CMake target), present when CMake
 * finds MPI. */
#ifndef OPENPIM_COMM_MPI_H
#define OPENPIM_COMM_MPI_H

#include <mpi.h>

#include "openpim_comm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct openpim_mcube openpim_mcube_t;
typedef struct openpim_mcomm openpim_mcomm_t;

/* Collective over `mpi`.  The MPI communicator is duplicated (the cube's
 * traffic never mixes with the caller's). */
openpim_comm_status openpim_mcube_create(MPI_Comm mpi, struct dpu_set_t set, uint32_t nr_local_dims,
                                         const uint32_t *local_lengths, openpim_mcube_t **cube);
void openpim_mcube_destroy(openpim_mcube_t *cube); /* collective; NULL is fine */
/* The local cube (this process's DPUs): its implementation and techniques
 * are those of the local steps. */
openpim_cube_t *openpim_mcube_local(openpim_mcube_t *cube);
uint32_t openpim_mcube_nr_hosts(const openpim_mcube_t *cube);

openpim_comm_status openpim_mcomm_create_mask(openpim_mcube_t *cube, const char *mask, openpim_mcomm_t **comm);
uint32_t openpim_mcomm_size(const openpim_mcomm_t *comm);
uint32_t openpim_mcomm_nr_instances(const openpim_mcomm_t *comm);

openpim_comm_status openpim_mpi_alltoall(openpim_mcomm_t *comm, uint64_t src, uint64_t dst, uint64_t bytes);
openpim_comm_status openpim_mpi_reduce_scatter(openpim_mcomm_t *comm, uint64_t src, uint64_t dst, uint64_t bytes,
                                               openpim_comm_type type, openpim_comm_op op);
openpim_comm_status openpim_mpi_allgather(openpim_mcomm_t *comm, uint64_t src, uint64_t dst, uint64_t bytes);
openpim_comm_status openpim_mpi_allreduce(openpim_mcomm_t *comm, uint64_t src, uint64_t dst, uint64_t bytes,
                                          openpim_comm_type type, openpim_comm_op op);
openpim_comm_status openpim_mpi_broadcast(openpim_mcomm_t *comm, uint64_t dst, const void *host, uint64_t bytes);
openpim_comm_status openpim_mpi_scatter(openpim_mcomm_t *comm, uint64_t dst, const void *host, uint64_t bytes);
openpim_comm_status openpim_mpi_gather(openpim_mcomm_t *comm, uint64_t src, void *host, uint64_t bytes);
openpim_comm_status openpim_mpi_reduce(openpim_mcomm_t *comm, uint64_t src, void *host, uint64_t bytes,
                                       openpim_comm_type type, openpim_comm_op op);

/* Modelled microseconds the last collective on the cube spent between hosts
 * (what it recorded as the Inter-host event); for tests and benchmarks. */
double openpim_mcube_last_inter_host_us(const openpim_mcube_t *cube);

#ifdef __cplusplus
}
#endif

#endif
