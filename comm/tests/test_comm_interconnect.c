/* SPDX-License-Identifier: MIT */
/* The PIM-interconnect what-if: link times on the bank / chip / rank
 * hierarchy against the formulas of openpim_comm.h worked out by hand for
 * each kind of group; the interconnect transport: results exactly those of
 * the plain host reference and of the host-routed implementations on the same
 * inputs, modelled clock and the report's Inter-DPU total advanced by exactly
 * the link time, rooted primitives still host-routed; bad arguments.
 *   test_comm_interconnect DPU_NOP */
#include "comm_test.h"

#include <openpim_ext.h>

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-12;
}

static double inter_dpu_us(void)
{
    double us = -1;
    CHECK_EQ(openpim_category_time_us(OPENPIM_EVENT_INTER_DPU, &us), DPU_OK);
    return us;
}

static const double bws[] = {0.35, 1.4, 2.8};

/* One DPU-to-DPU primitive on fresh inputs: host-routed (implementation
 * impl), then the same inputs with the interconnect at every link bandwidth
 * of bws.  Each interconnect run must leave MRAM exactly as the reference and
 * the host-routed run do, and advance the modelled clock and the Inter-DPU
 * total by exactly openpim_comm_link_us. */
static void ic_case(struct tctx *t, openpim_cube_t *cube, openpim_comm_t *m, const struct tcomm *c, enum prim p,
                    uint64_t src, uint64_t dst, uint64_t bytes, openpim_comm_type type, openpim_comm_op op,
                    openpim_comm_impl impl)
{
    static const openpim_comm_prim lp[] = {OPENPIM_PRIM_ALLTOALL, OPENPIM_PRIM_REDUCE_SCATTER, OPENPIM_PRIM_ALLGATHER,
                                           OPENPIM_PRIM_ALLREDUCE};
    size_t all = t->W * t->nr;
    uint8_t *input = malloc(all), *routed = malloc(all);
    t_fill(t, type == OPENPIM_FLOAT || type == OPENPIM_DOUBLE ? type : OPENPIM_UINT8);
    memcpy(input, t->shadow, all);
    CHECK_EQ(openpim_cube_set_impl(cube, impl), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_cube_set_transport(cube, OPENPIM_COMM_HOST_ROUTED, 0), OPENPIM_COMM_OK);
    double t0 = openpim_modelled_time_us();
    CHECK_EQ(lib_run(m, p, src, dst, bytes, type, op, NULL, NULL), OPENPIM_COMM_OK);
    double host_us = openpim_modelled_time_us() - t0;
    t_xfer(t, DPU_XFER_FROM_DPU, routed);
    ref_apply(t, c, p, src, dst, bytes, type, op, NULL, NULL); /* shadow: the expected windows */
    for (size_t k = 0; k < sizeof bws / sizeof *bws; k++) {
        t_xfer(t, DPU_XFER_TO_DPU, input);
        CHECK_EQ(openpim_cube_set_transport(cube, OPENPIM_COMM_INTERCONNECT, bws[k]), OPENPIM_COMM_OK);
        double link = openpim_comm_link_us(m, lp[p], bytes, bws[k]);
        double c0 = inter_dpu_us();
        t0 = openpim_modelled_time_us();
        openpim_comm_status st = lib_run(m, p, src, dst, bytes, type, op, NULL, NULL);
        double t1 = openpim_modelled_time_us(), c1 = inter_dpu_us();
        char what[200];
        snprintf(what, sizeof what, "interconnect %s N=%u I=%u src=%llu dst=%llu bytes=%llu type=%d op=%d %.2f GB/s",
                 prim_name[p], c->N, c->I, (unsigned long long)src, (unsigned long long)dst,
                 (unsigned long long)bytes, (int)type, (int)op, bws[k]);
        if (st != OPENPIM_COMM_OK)
            fprintf(stderr, "%s: %s\n", what, openpim_comm_last_error());
        CHECK_EQ(st, OPENPIM_COMM_OK);
        CHECK_EQ(openpim_timing_paused(), 0);
        CHECK(link > 0);
        if (t1 != t0 + link || c1 != c0 + link)
            fprintf(stderr, "%s: clock +%.9g, Inter-DPU +%.9g, link %.9g us\n", what, t1 - t0, c1 - c0, link);
        CHECK(t1 == t0 + link); /* exactly: one event of the link time, nothing else */
        CHECK(c1 == c0 + link);
        t_verify(t, what); /* the reference (reads MRAM into scratch) */
        CHECK(memcmp(t->scratch, routed, all) == 0); /* the host-routed implementation, byte for byte */
        if (k == 0 && p != P_AG && host_us <= link)
            fprintf(stderr, "%s: note: links (%.1f us) not faster than the host (%.1f us)\n", what, link, host_us);
    }
    free(input);
    free(routed);
}

/* A rooted primitive: host-routed with either transport (same results, same
 * modelled time, the same share of it on Inter-DPU: comm's host work). */
static void rooted_case(struct tctx *t, openpim_cube_t *cube, openpim_comm_t *m, const struct tcomm *c, enum prim p,
                        uint64_t off, uint64_t bytes)
{
    double us[2], inter[2];
    if (p == P_SC) { /* its first two calls for a size try both paths (test_comm_rooted): settle the choice */
        size_t hb = host_bytes(c, p, bytes);
        uint8_t *h = calloc(hb, 1);
        for (int k = 0; k < 2; k++)
            CHECK_EQ(lib_run(m, p, off, off, bytes, OPENPIM_INT32, OPENPIM_SUM, h, h), OPENPIM_COMM_OK);
        free(h);
    }
    for (int ic = 0; ic < 2; ic++) {
        CHECK_EQ(openpim_cube_set_transport(cube, ic ? OPENPIM_COMM_INTERCONNECT : OPENPIM_COMM_HOST_ROUTED, 1.4),
                 OPENPIM_COMM_OK);
        size_t hb = host_bytes(c, p, bytes);
        uint8_t *hin = malloc(hb), *hout = malloc(hb), *href = malloc(hb);
        for (size_t i = 0; i < hb; i++)
            hin[i] = (uint8_t)rnd();
        memset(hout, 0, hb);
        memset(href, 0, hb);
        t_fill(t, OPENPIM_UINT8);
        double c0 = inter_dpu_us(), t0 = openpim_modelled_time_us();
        CHECK_EQ(lib_run(m, p, off, off, bytes, OPENPIM_INT32, OPENPIM_SUM, hin, hout), OPENPIM_COMM_OK);
        us[ic] = openpim_modelled_time_us() - t0;
        inter[ic] = inter_dpu_us() - c0;
        ref_apply(t, c, p, off, off, bytes, OPENPIM_INT32, OPENPIM_SUM, hin, href);
        t_verify(t, prim_name[p]);
        CHECK(memcmp(hout, href, hb) == 0);
        free(hin), free(hout), free(href);
    }
    CHECK(us[0] > 0 && near(us[0], us[1]) && near(inter[0], inter[1]));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_interconnect DPU_NOP\n");
        return 2;
    }
    struct tctx t;
    t_open(&t, 256, "nrRanks=4", 8192, argv[1]);
    /* node n: chip n % 8, DPU (n / 8) % 8 of that chip, rank n / 64 */
    uint32_t len[3] = {8, 8, 4};
    openpim_cube_t *cube;
    CHECK_EQ(openpim_cube_create(t.set, 3, len, &cube), OPENPIM_COMM_OK);
    openpim_comm_t *chips, *banks, *ranks, *all, *rank_wide;
    CHECK_EQ(openpim_comm_create_mask(cube, "100", &chips), OPENPIM_COMM_OK);     /* 8 chips of a rank, 1 DPU each */
    CHECK_EQ(openpim_comm_create_mask(cube, "010", &banks), OPENPIM_COMM_OK);     /* the 8 DPUs of one chip */
    CHECK_EQ(openpim_comm_create_mask(cube, "001", &ranks), OPENPIM_COMM_OK);     /* 4 ranks */
    CHECK_EQ(openpim_comm_create_mask(cube, "111", &all), OPENPIM_COMM_OK);       /* 8 x 8 x 4 */
    CHECK_EQ(openpim_comm_create_mask(cube, "110", &rank_wide), OPENPIM_COMM_OK); /* a whole rank */
    const double L = 2.8e3, b = 4096; /* bytes per microsecond */
    CHECK(near(openpim_comm_link_us(banks, OPENPIM_PRIM_REDUCE_SCATTER, 4096, 0), 7.0 / 8 * b / L));
    CHECK(near(openpim_comm_link_us(chips, OPENPIM_PRIM_REDUCE_SCATTER, 4096, 2.8), 7.0 / 8 * b / L));
    CHECK(near(openpim_comm_link_us(ranks, OPENPIM_PRIM_ALLGATHER, 4096, 0), 3 * b / L));
    CHECK(near(openpim_comm_link_us(rank_wide, OPENPIM_PRIM_ALLTOALL, 4096, 0), 2 * 7.0 / 8 * b / L));
    CHECK(near(openpim_comm_link_us(all, OPENPIM_PRIM_ALLREDUCE, 4096, 0),
               2 * (7.0 / 8 * b + 7.0 / 8 * b / 8 + 3.0 / 4 * b / 64) / L));
    CHECK(near(openpim_comm_link_us(all, OPENPIM_PRIM_ALLGATHER, 16, 0), (7 * 16 + 7 * 128 + 3 * 1024.0) / L));
    CHECK(near(openpim_comm_link_us(banks, OPENPIM_PRIM_REDUCE_SCATTER, 4096, 0.35),
               8 * openpim_comm_link_us(banks, OPENPIM_PRIM_REDUCE_SCATTER, 4096, 2.8)));
    CHECK(openpim_comm_link_us(NULL, OPENPIM_PRIM_ALLTOALL, 64, 0) == -1);
    CHECK(openpim_comm_link_us(all, (openpim_comm_prim)9, 64, 0) == -1);
    CHECK(openpim_comm_link_us(all, OPENPIM_PRIM_ALLTOALL, 64, NAN) == -1);


    /* the interconnect transport, every DPU-to-DPU primitive on several
     * groups, types, operations, offsets and sizes (aligned or not) */
    struct tcomm cb = ref_comm(3, len, 2), cc = ref_comm(3, len, 1), cr = ref_comm(3, len, 4),
                 ca = ref_comm(3, len, 7), cw = ref_comm(3, len, 3);
    const openpim_comm_impl B = OPENPIM_COMM_BASELINE, O = OPENPIM_COMM_OPTIMISED;
    ic_case(&t, cube, banks, &cb, P_AA, 0, 4096, 1024, OPENPIM_UINT8, OPENPIM_SUM, O);
    ic_case(&t, cube, banks, &cb, P_AA, 5, 4100, 1000, OPENPIM_UINT8, OPENPIM_SUM, B);
    ic_case(&t, cube, rank_wide, &cw, P_AA, 0, 4096, 4096, OPENPIM_UINT8, OPENPIM_SUM, O);
    ic_case(&t, cube, chips, &cc, P_RS, 0, 4096, 4096, OPENPIM_INT32, OPENPIM_SUM, O);
    ic_case(&t, cube, all, &ca, P_RS, 0, 4096, 2048, OPENPIM_DOUBLE, OPENPIM_MIN, B);
    ic_case(&t, cube, rank_wide, &cw, P_RS, 8, 4104, 1024, OPENPIM_FLOAT, OPENPIM_SUM, O);
    ic_case(&t, cube, ranks, &cr, P_AG, 8, 1000, 24, OPENPIM_UINT8, OPENPIM_SUM, B);
    ic_case(&t, cube, all, &ca, P_AG, 0, 4096, 16, OPENPIM_UINT8, OPENPIM_SUM, O);
    ic_case(&t, cube, banks, &cb, P_AG, 3, 2048, 21, OPENPIM_UINT8, OPENPIM_SUM, O);
    ic_case(&t, cube, all, &ca, P_AR, 0, 4096, 2048, OPENPIM_FLOAT, OPENPIM_SUM, O);
    ic_case(&t, cube, rank_wide, &cw, P_AR, 3, 4099, 1000, OPENPIM_UINT8, OPENPIM_MAX, O);
    ic_case(&t, cube, banks, &cb, P_AR, 2, 4098, 998, OPENPIM_INT16, OPENPIM_XOR, B);
    ic_case(&t, cube, chips, &cc, P_AR, 0, 4096, 4096, OPENPIM_INT64, OPENPIM_MIN, O);
    /* the rooted primitives stay host-routed */
    rooted_case(&t, cube, rank_wide, &cw, P_BC, 0, 512);
    rooted_case(&t, cube, banks, &cb, P_SC, 8, 256);
    rooted_case(&t, cube, all, &ca, P_GA, 0, 128);
    rooted_case(&t, cube, chips, &cc, P_RE, 0, 256);
    free(cb.node), free(cc.node), free(cr.node), free(ca.node), free(cw.node);

    /* bad arguments change nothing: the transport stays as it was */
    CHECK_EQ(openpim_cube_set_transport(cube, OPENPIM_COMM_INTERCONNECT, 0.7), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_cube_set_transport(cube, (openpim_comm_transport)5, 1), OPENPIM_COMM_ERR_ARGUMENT);
    CHECK_EQ(openpim_cube_set_transport(cube, OPENPIM_COMM_INTERCONNECT, INFINITY), OPENPIM_COMM_ERR_ARGUMENT);
    CHECK_EQ(openpim_cube_set_transport(cube, OPENPIM_COMM_INTERCONNECT, 2000), OPENPIM_COMM_ERR_ARGUMENT);
    CHECK_EQ(openpim_cube_set_transport(NULL, OPENPIM_COMM_INTERCONNECT, 1), OPENPIM_COMM_ERR_ARGUMENT);
    double t0 = openpim_modelled_time_us();
    CHECK_EQ(openpim_allreduce(all, 0, 4096, 64, OPENPIM_INT32, OPENPIM_SUM), OPENPIM_COMM_OK);
    CHECK(openpim_modelled_time_us() == t0 + openpim_comm_link_us(all, OPENPIM_PRIM_ALLREDUCE, 64, 0.7));
    /* <= 0: the default 2.8 GB/s */
    CHECK_EQ(openpim_cube_set_transport(cube, OPENPIM_COMM_INTERCONNECT, 0), OPENPIM_COMM_OK);
    t0 = openpim_modelled_time_us();
    CHECK_EQ(openpim_allreduce(all, 0, 4096, 64, OPENPIM_INT32, OPENPIM_SUM), OPENPIM_COMM_OK);
    CHECK(openpim_modelled_time_us() == t0 + openpim_comm_link_us(all, OPENPIM_PRIM_ALLREDUCE, 64, 2.8));
    /* a refused collective charges nothing */
    t0 = openpim_modelled_time_us();
    CHECK_EQ(openpim_allreduce(all, 0, 8, 64, OPENPIM_INT32, OPENPIM_SUM), OPENPIM_COMM_ERR_OVERLAP);
    CHECK(openpim_modelled_time_us() == t0);
    CHECK_EQ(openpim_timing_paused(), 0);
    openpim_cube_destroy(cube);
    t_close(&t);

    /* a partial rank: 40 DPUs of one rank, 5 groups of 8 chips */
    t_open(&t, 40, "nrRanks=1", 4096, argv[1]);
    uint32_t l40[2] = {8, 5};
    CHECK_EQ(openpim_cube_create(t.set, 2, l40, &cube), OPENPIM_COMM_OK);
    openpim_comm_t *g5;
    CHECK_EQ(openpim_comm_create_mask(cube, "01", &g5), OPENPIM_COMM_OK); /* 5 DPUs of one chip */
    CHECK(near(openpim_comm_link_us(g5, OPENPIM_PRIM_ALLTOALL, 4000, 0), 4.0 / 5 * 4000 / L));
    /* the transport on it: groups of 5, and the whole partial rank (40) */
    openpim_comm_t *g40;
    CHECK_EQ(openpim_comm_create_mask(cube, "11", &g40), OPENPIM_COMM_OK);
    struct tcomm c5 = ref_comm(2, l40, 2), c40 = ref_comm(2, l40, 3);
    ic_case(&t, cube, g5, &c5, P_AR, 0, 2048, 1000, OPENPIM_INT32, OPENPIM_SUM, OPENPIM_COMM_OPTIMISED);
    ic_case(&t, cube, g5, &c5, P_RS, 0, 2048, 1000, OPENPIM_UINT16, OPENPIM_MAX, OPENPIM_COMM_BASELINE);
    ic_case(&t, cube, g40, &c40, P_AA, 0, 2048, 2000, OPENPIM_UINT8, OPENPIM_SUM, OPENPIM_COMM_OPTIMISED);
    ic_case(&t, cube, g40, &c40, P_AG, 1, 1024, 50, OPENPIM_UINT8, OPENPIM_SUM, OPENPIM_COMM_OPTIMISED);
    free(c5.node), free(c40.node);
    openpim_cube_destroy(cube);
    t_close(&t);
    return check_done("test_comm_interconnect");
}
