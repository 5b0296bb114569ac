/* SPDX-License-Identifier: MIT */
/* Server presets through the whole stack: UPMEM_PROFILE / dpu_alloc's
 * "server=NAME" changes the modelled time of host transfers exactly as the
 * preset file says (timing/presets/server-*.desc), keeps the chip, and an
 * unknown name is refused with a message that lists the known ones.  The
 * expected times are the transfer model's formula written out here with the
 * published constants of each preset (timing/xfer_model.c). */
#define _GNU_SOURCE
#include <dpu.h>
#include <math.h>
#include <openpim_ext.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static uint8_t buf[1 << 20];

/* Modelled microseconds of one parallel push of size bytes to/from every DPU. */
static double push_us(const char *profile, uint32_t nr_dpus, int to_dpu, size_t size)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(nr_dpus, profile, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_timing_t1", NULL));
    DPU_FOREACH (set, dpu)
        DPU_ASSERT(dpu_prepare_xfer(dpu, buf));
    double t0 = openpim_modelled_time_us();
    DPU_ASSERT(dpu_push_xfer(set, to_dpu ? DPU_XFER_TO_DPU : DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, size,
                             DPU_XFER_DEFAULT));
    double t = openpim_modelled_time_us() - t0;
    DPU_ASSERT(dpu_free(set));
    return t;
}

static int near(double a, double b)
{
    return fabs(a - b) < 1e-6 * (1 + fabs(b));
}

int main(void)
{
    const double KB64 = 65536, MB = 1048576;
    /* 64 DPUs (one full rank, alone on its channel) x 64 KB to the DPUs: fixed
       cost + 64 x 64 KB at the rank curve's 64-KB point */
    double cloud = push_us("nrRanks=1", 64, 1, 65536);
    double prim = push_us("nrRanks=1,server=prim", 64, 1, 65536);
    double dflt = push_us("nrRanks=1,server=cloud2024", 64, 1, 65536);
    printf("64 DPUs x 64 KB CPU->DPU: cloud2024 %.3f us, prim %.3f us\n", cloud, prim);
    CHECK(near(cloud, 59 + 64 * KB64 / 4.881 * 1e-3)); /* v1A.desc: h2d_fixed_us[0], h2d_rank_gbps[1] */
    CHECK(near(prim, 59 + 64 * KB64 / 6.68 * 1e-3));   /* server-prim.desc: the host cap, h2d_cap_gbps = 6.68 */
    CHECK(near(dflt, cloud));

    /* one DPU x 1 MB from the DPU: one host thread on one DPU index moves
       8 chips x 0.115 GB/s of 64-B lines (the serial rate of useful bytes) */
    double c1 = push_us("nrRanks=1", 1, 0, 1 << 20);
    double p1 = push_us("nrRanks=1,server=prim", 1, 0, 1 << 20);
    printf("1 DPU x 1 MB DPU->CPU: cloud2024 %.3f us, prim %.3f us\n", c1, p1);
    CHECK(near(c1, 157 + 8 * MB / (8 * 0.115) * 1e-3));
    CHECK(near(p1, 70.6 + 8 * MB / (8 * 0.1187) * 1e-3)); /* server-prim.desc: d2h_fixed_us[0], d2h_serial_gbps */

    /* the 4-rank box: 4 ranks, 2 channels; rank 0 alone in the set */
    double l = push_us("server=loremkang", 64, 1, 65536);
    CHECK(near(l, 120 + 64 * KB64 / 3.76 * 1e-3));
    struct dpu_set_t set;
    uint32_t n = 0;
    DPU_ASSERT(dpu_alloc(DPU_ALLOCATE_ALL, "server=loremkang", &set));
    DPU_ASSERT(dpu_get_nr_dpus(set, &n));
    DPU_ASSERT(dpu_free(set));
    CHECK_EQ(n, 256);

    /* the order of keys does not matter: the server applies before the other keys */
    double o1 = push_us("nrRanks=1,server=prim,h2d_fixed_us=10:10:10:10:10:10", 64, 1, 65536);
    double o2 = push_us("h2d_fixed_us=10:10:10:10:10:10,server=prim,nrRanks=1", 64, 1, 65536);
    CHECK(near(o1, 10 + 64 * KB64 / 6.68 * 1e-3) && near(o2, o1));

    /* an unknown server is refused, with the known names in the message */
    CHECK(dpu_alloc(64, "server=nosuch", &set) == DPU_ERR_INVALID_PROFILE);
    const char *msg = openpim_last_error();
    CHECK(strstr(msg, "nosuch") && strstr(msg, "cloud2024") && strstr(msg, "prim") && strstr(msg, "loremkang"));
    setenv("UPMEM_PROFILE", "server=nosuch", 1);
    CHECK(dpu_alloc(64, NULL, &set) == DPU_ERR_INVALID_PROFILE);
    setenv("UPMEM_PROFILE", "server=prim", 1);
    CHECK(near(push_us("nrRanks=1", 64, 1, 65536), prim));
    unsetenv("UPMEM_PROFILE");
    return check_done("test_server_preset");
}
