/* SPDX-License-Identifier: MIT */
/* Broadcasts through the whole stack on the data-transfer study's server
 * (server=xferstudy, [XferStudy]), its 11 MB L3 shrunk to 2 MiB by the
 * profile so that the test stays small (8 DPUs of one rank: 32 MB of MRAM).
 * Each dpu_broadcast_to's modelled time (openpim_modelled_time_us() delta)
 * equals the timing model's op_xfer_time_us for the call and the closed form
 * of timing/xfer_model.c with the server's curves (the cloud server's, ref
 * §3.3: one rank 10.16 GB/s at 1 MiB, 9.178 at 8 MiB; broadcast x2.5; 59 us
 * per call on one rank):
 *   block <= host_llc_bytes: cached, the curve's best rate up to its size;
 *   block >  host_llc_bytes: the curve at its size (memory-bound);
 *   into WRAM: 3x the same broadcast into MRAM (h2d_wram_bcast_factor).
 * The broadcast data are read back from the first and the last DPU. */
#include <dpu.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../timing/timing.h"
#include "check.h"

#define PROFILE "nrRanks=1,server=xferstudy,host_llc_bytes=2097152"
#define NR_DPUS 8
#define MiB (1024u * 1024u)

static struct dpu_set_t set;
static struct op_machine_desc D;

/* Equal but for the rounding of the session clock's differences. */
static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

/* dpu_broadcast_to of `len` bytes to `sym`: its modelled time; the data are checked. */
static double bcast(const char *sym, uint32_t len)
{
    uint8_t *src = malloc(len), *back = malloc(len);
    CHECK(src && back);
    for (uint32_t i = 0; i < len; i++)
        src[i] = (uint8_t)(i * 7u + len);
    double t0 = openpim_modelled_time_us();
    DPU_ASSERT(dpu_broadcast_to(set, sym, 0, src, len, DPU_XFER_DEFAULT));
    double us = openpim_modelled_time_us() - t0;
    struct dpu_set_t dpu;
    unsigned i;
    DPU_FOREACH (set, dpu, i) {
        if (i != 0 && i != NR_DPUS - 1)
            continue;
        memset(back, 0, len);
        DPU_ASSERT(dpu_copy_from(dpu, sym, 0, back, len));
        CHECK(memcmp(back, src, len) == 0);
    }
    free(src);
    free(back);
    return us;
}

/* The timing model's time for the same call: one rank (rank 0), NR_DPUS DPUs. */
static double model(enum op_xfer_target target, uint32_t len)
{
    struct op_xfer_rank r = {0, OP_XFER_CHANNEL_AUTO, NR_DPUS};
    struct op_xfer_desc x = {OP_XFER_TO_DPU, OP_XFER_BROADCAST, target, len, 1, &r, 0};
    return op_xfer_time_us(&D, &x);
}

int main(void)
{
    CHECK(op_machine_desc_preset("v1A", &D) == 0 && op_machine_desc_apply(&D, PROFILE) > 0);
    CHECK(D.host_llc_bytes == 2097152 && D.h2d.wram_bcast_factor == 3);
    DPU_ASSERT(dpu_alloc(NR_DPUS, PROFILE, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_bcast_cache", NULL));

    /* 8 DPUs of one chip engage its 8 DPU indices: 64 DPUs' worth of 64-B lines (calibration-sources §3.1) */
    const double s_in = 2.0 * MiB, s_out = 4.0 * MiB, f = 2.0 / 3.0; /* 4 MiB: 2/3 from 1 to 8 MiB in log2 */
    double in = bcast(DPU_MRAM_HEAP_POINTER_NAME, 2 * MiB);
    double out = bcast(DPU_MRAM_HEAP_POINTER_NAME, 4 * MiB);
    CHECK(close_to(in, model(OP_XFER_MRAM, 2 * MiB)) && close_to(out, model(OP_XFER_MRAM, 4 * MiB)));
    CHECK(close_to(in, 59 + 64 * s_in / (10.16 * 2.5) * 1e-3));
    CHECK(close_to(out, 59 + 64 * s_out * ((1 - f) / 10.16 + f / 9.178) / 2.5 * 1e-3));
    printf("broadcast to %d DPUs: 2 MiB (fits the 2 MiB cache) %.1f us, 4 MiB (does not) %.1f us: %.3f x the "
           "time for 2 x the bytes\n", NR_DPUS, in, out, out / in);

    double wram = bcast("wbuf", 4096), mram = bcast(DPU_MRAM_HEAP_POINTER_NAME, 4096);
    CHECK(close_to(wram, model(OP_XFER_WRAM, 4096)) && close_to(mram, model(OP_XFER_MRAM, 4096)));
    CHECK(close_to(wram, 3 * mram));
    printf("broadcast 4 KB: WRAM %.1f us, MRAM %.1f us (%.2fx)\n", wram, mram, wram / mram);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_bcast_cache");
}
