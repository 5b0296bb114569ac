/* Runs the reordering kernel (comm/dpu/comm_reorder.c, embedded in the
 * library) on every DPU of a cube whose ranks are full: each DPU gets its
 * chip index through its own copy of the arguments. */
#include <string.h>

#include "internal.h"

DPU_INCBIN(comm_reorder_kernel, COMM_KERNEL_PATH)

struct comm_kernel_args {
    uint32_t src, dst, nr_blocks, block_bytes, chip, mode;
};

openpim_comm_status comm_run_kernel(openpim_cube_t *c, enum comm_kernel_mode mode, uint64_t src, uint64_t dst,
                                    uint32_t nr_blocks, uint64_t block_bytes)
{
    dpu_error_t rc = dpu_load_from_incbin(c->set, &comm_reorder_kernel, NULL);
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
    rc = dpu_launch(c->set, DPU_SYNCHRONOUS);
    if (rc != DPU_OK)
        return comm_dpu_fail(rc, "running the reordering kernel");
    return OPENPIM_COMM_OK;
}
