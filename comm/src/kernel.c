/* SPDX-License-Identifier: MIT */
/* Runs the reordering kernel (comm/dpu/comm_reorder.c, embedded in the
 * library) on every DPU of a cube whose ranks are full: each DPU gets its
 * chip index through its own copy of the arguments; and what a run costs. */
#include <string.h>

#include "internal.h"

DPU_INCBIN(comm_reorder_kernel, COMM_KERNEL_PATH)

struct comm_kernel_args {
    uint32_t src, dst, nr_blocks, block_bytes, chip, mode;
};

/* The kernel's modelled cost on the cube's set, as the SDK estimates its
 * calls (openpim_estimate_us, openpim_estimate_load_us): the load (when
 * `load`), the arguments' WRAM push and the launch's overhead (the same for
 * every call on a set: estimated once), plus the kernel's own cycles, taken
 * from the last run on the cube: exact for the same blocks, else scaled by
 * the bytes moved (the kernel is bound by its DMAs); 0 before any run. */
double comm_kernel_estimate_us(openpim_cube_t *c, uint32_t nr_blocks, uint64_t block_bytes, bool load)
{
    if (c->kernel_load_us < 0) {
        double ld = 0, args = 0, launch = 0;
        if (openpim_estimate_load_us(c->set, comm_reorder_kernel.buffer, comm_reorder_kernel.size, &ld) != DPU_OK ||
            openpim_estimate_us(c->set, OPENPIM_ESTIMATE_WRAM, DPU_XFER_TO_DPU, sizeof(struct comm_kernel_args),
                                OPENPIM_ESTIMATE_NOW, &args) != DPU_OK ||
            openpim_estimate_us(c->set, OPENPIM_ESTIMATE_LAUNCH, DPU_XFER_TO_DPU, 0, OPENPIM_ESTIMATE_NOW, &launch) !=
                DPU_OK)
            return 0; /* the set is gone: the call itself will fail */
        c->kernel_load_us = ld;
        c->kernel_args_us = args;
        c->kernel_launch_us = launch;
    }
    const struct comm_seen_kernel *k = &c->seen_kernel;
    double cycles = 0;
    if (k->nr_blocks == nr_blocks && k->block_bytes == block_bytes)
        cycles = k->cycles_us;
    else if (k->nr_blocks && k->block_bytes)
        cycles = k->cycles_us * ((double)nr_blocks * block_bytes) / ((double)k->nr_blocks * k->block_bytes);
    return (load ? c->kernel_load_us : 0) + c->kernel_args_us + c->kernel_launch_us + cycles;
}

openpim_comm_status comm_run_kernel(openpim_cube_t *c, enum comm_kernel_mode mode, uint64_t src, uint64_t dst,
                                    uint32_t nr_blocks, uint64_t block_bytes, bool load)
{
    comm_kernel_estimate_us(c, nr_blocks, block_bytes, load); /* the launch's overhead, known before it runs */
    dpu_error_t rc = load ? dpu_load_from_incbin(c->set, &comm_reorder_kernel, NULL) : DPU_OK;
    if (rc != DPU_OK)
        return comm_dpu_fail(rc, "loading the reordering kernel");
    struct comm_kernel_args args[COMM_CHIPS];
    for (uint32_t k = 0; k < COMM_CHIPS; k++)
        args[k] = (struct comm_kernel_args){(uint32_t)src, (uint32_t)dst, nr_blocks, (uint32_t)block_bytes, k,
                                            (uint32_t)mode};
    for (uint32_t n = 0; n < c->nr_nodes; n++)
        if ((rc = dpu_prepare_xfer(c->node_dpu[n], &args[n % COMM_CHIPS])) != DPU_OK)
            return comm_dpu_fail(rc, "dpu_prepare_xfer (kernel arguments)");
    rc = dpu_push_xfer(c->set, DPU_XFER_TO_DPU, "comm_args", 0, sizeof args[0], DPU_XFER_DEFAULT);
    if (rc != DPU_OK)
        return comm_dpu_fail(rc, "sending the reordering kernel's arguments");
    double t0 = openpim_modelled_time_us();
    rc = dpu_launch(c->set, DPU_SYNCHRONOUS);
    if (rc != DPU_OK)
        return comm_dpu_fail(rc, "running the reordering kernel");
    double cycles = openpim_modelled_time_us() - t0 - c->kernel_launch_us;
    c->seen_kernel = (struct comm_seen_kernel){nr_blocks, block_bytes, cycles > 0 ? cycles : 0};
    return OPENPIM_COMM_OK;
}
