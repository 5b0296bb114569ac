/* SPDX-License-Identifier: MIT */
/* Randomized property test (fixed seed): random DPU counts, shapes of 1-4
 * dimensions, communicators, primitives, element types and operations, sizes,
 * offsets (aligned or not, in place or not) and implementation; every run is
 * checked exactly against the reference, and each case runs in both
 * implementations so that they are seen to agree.
 *   test_comm_random DPU_NOP [iterations per DPU count] [seed] */
#include "comm_test.h"

#define W 16384u

static void random_shape(uint32_t n, uint32_t *nd, uint32_t len[4])
{
    *nd = 1 + rnd_below(4);
    uint32_t rest = n;
    for (uint32_t d = 0; d + 1 < *nd; d++) {
        /* a random divisor of rest; often 8 for dimension 0 (the view path) */
        uint32_t divs[64], k = 0;
        for (uint32_t x = 1; x <= rest && k < 64; x++)
            if (rest % x == 0)
                divs[k++] = x;
        uint32_t pick = (d == 0 && rest % 8 == 0 && rnd_below(2)) ? 8 : divs[rnd_below(k)];
        len[d] = pick;
        rest /= pick;
    }
    len[*nd - 1] = rest;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_random DPU_NOP [iterations] [seed]\n");
        return 2;
    }
    int iters = argc > 2 ? atoi(argv[2]) : 40;
    rng_state = argc > 3 ? strtoull(argv[3], NULL, 0) : 20260323u;
    static const uint32_t counts[] = {64, 128, 40, 100, 192, 24};
    int views = 0, runs = 0;
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        struct tctx t;
        t_open(&t, counts[ci], "nrRanks=4", W, argv[1]);
        for (int it = 0; it < iters; it++) {
            uint32_t nd, len[4];
            random_shape(t.nr, &nd, len);
            openpim_cube_t *cube;
            if (openpim_cube_create(t.set, nd, len, &cube) != OPENPIM_COMM_OK) {
                fprintf(stderr, "cube: %s\n", openpim_comm_last_error());
                CHECK(0);
                continue;
            }
            uint32_t mask = 1 + rnd_below((1u << nd) - 1);
            uint32_t dims[4], nr = 0;
            for (uint32_t d = 0; d < nd; d++)
                if (mask >> d & 1)
                    dims[nr++] = d;
            openpim_comm_t *m;
            CHECK_EQ(openpim_comm_create(cube, nr, dims, &m), OPENPIM_COMM_OK);
            struct tcomm c = ref_comm(nd, len, mask);
            enum prim p = (enum prim)rnd_below(NR_PRIMS);
            openpim_comm_type type = (openpim_comm_type)rnd_below(OPENPIM_NR_TYPES);
            openpim_comm_op op = (openpim_comm_op)rnd_below(type >= OPENPIM_FLOAT ? 3 : OPENPIM_NR_OPS);
            size_t es = tsize[type];
            /* sizes within half a window; aligned (multiple of 8) half of the time */
            int al = rnd_below(2);
            uint64_t unit = al ? (es > 8 ? es : 8) : es;
            uint64_t bytes;
            uint64_t room = W / 2;
            if (p == P_AA || p == P_RS)
                bytes = c.N * unit * (1 + rnd_below((uint32_t)(room / (c.N * unit) > 1 ? room / (c.N * unit) : 1)));
            else if (p == P_AG)
                bytes = unit * (1 + rnd_below((uint32_t)(room / (c.N * unit) > 1 ? room / (c.N * unit) : 1)));
            else
                bytes = unit * (1 + rnd_below((uint32_t)(room / unit)));
            uint64_t out = p == P_AG ? bytes * c.N : p == P_RS ? bytes / c.N : bytes;
            if (bytes > room || out > room) {
                free(c.node);
                openpim_cube_destroy(cube);
                continue;
            }
            uint64_t src = unit * rnd_below((uint32_t)((room - bytes) / unit + 1));
            uint64_t dst = room + unit * rnd_below((uint32_t)((room - out) / unit + 1));
            if (p <= P_AR && rnd_below(4) == 0)
                dst = src = unit * rnd_below((uint32_t)((room - (bytes > out ? bytes : out)) / unit + 1));
            /* baseline, PR, PR+IM, PR+IM+CM */
            static const unsigned techs[] = {0, 1, 3, 7};
            for (int impl = 0; impl < 4; impl++) {
                CHECK_EQ(openpim_cube_set_techniques(cube, techs[impl]), OPENPIM_COMM_OK);
                int view = 0;
                if (!t_case(&t, cube, m, &c, p, src, dst, bytes, type, op, &view))
                    fprintf(stderr, "  (random case: %u DPUs, %u dims {%u,%u,%u,%u}, mask %x)\n", t.nr, nd, len[0],
                            nd > 1 ? len[1] : 0, nd > 2 ? len[2] : 0, nd > 3 ? len[3] : 0, mask);
                views += impl == 3 && view;
                runs++;
            }
            free(c.node);
            openpim_cube_destroy(cube);
        }
        t_close(&t);
    }
    printf("%d runs, %d of the optimised ones on the physical view\n", runs, views);
    CHECK(views > 0);
    return check_done("test_comm_random");
}
