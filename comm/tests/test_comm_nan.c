/* SPDX-License-Identifier: MIT */
/* Which NaN a floating-point sum keeps (openpim_comm.h, "Reductions"): the
 * accumulator's, quieted; so the first NaN in rank order, whatever the path
 * and SIMD variant.  Every element i of the buffer has its own pattern
 * (i % 4): NaN A at rank 0 and NaN B at rank 1 (-> A); a number at rank 0,
 * NaNs B and C at ranks 1 and 2 (-> B); a signalling NaN at rank 0 (-> it,
 * quieted); +inf and -inf first (-> the default NaN, the same on every path),
 * with payloads distinct per element and per rank, so that every lane of
 * every vector width and the scalar tail are checked.  AllReduce,
 * ReduceScatter and Reduce, float and double, on the physical view across
 * dimension 0 (lanes folded), along another dimension (vertical), on the
 * general path (a partial rank), under the baseline and every technique
 * set and SIMD variant.
 *   test_comm_nan DPU_NOP */
#include <dpu.h>
#include <string.h>

#include "check.h"
#include "openpim_comm.h"

#define SLOT 16384u /* MRAM bytes per node for the inputs (ReduceScatter over 64 ranks: 10,752); outputs at 2 SLOT */

static uint32_t q32(uint32_t b)
{
    return b | 0x00400000u;
}

static uint64_t q64(uint64_t b)
{
    return b | 0x0008000000000000ull;
}

/* The bits rank r puts in element i (esz 4 or 8). */
static uint64_t input(unsigned esz, uint32_t r, size_t i)
{
    uint64_t pay = ((uint64_t)i << 8 | (r & 0xff)) + 1; /* distinct per element and rank, never 0 */
    uint64_t nan = esz == 4 ? (0x7fc00000u | (pay & 0x3fffff)) : (0x7ff8000000000000ull | pay);
    uint64_t one = esz == 4 ? 0x3f800000u : 0x3ff0000000000000ull;
    uint64_t pinf = esz == 4 ? 0x7f800000u : 0x7ff0000000000000ull;
    uint64_t sign = esz == 4 ? 0x80000000u : 0x8000000000000000ull;
    switch (i % 4) {
    case 0: return r <= 1 ? nan | (r ? sign : 0) : one; /* -> rank 0's */
    case 1: return r == 0 ? one : r <= 2 ? nan : one;   /* -> rank 1's */
    case 2: /* a signalling NaN at rank 0 (quiet bit clear) -> it, quieted */
        return r == 0 ? (esz == 4 ? (0x7f800000u | (pay & 0x3fffff)) : (0x7ff0000000000000ull | pay)) : nan;
    default: return r == 0 ? pinf : r == 1 ? (pinf | sign) : one; /* inf - inf first */
    }
}

static uint64_t expected(unsigned esz, size_t i, uint64_t default_nan)
{
    switch (i % 4) {
    case 0: return esz == 4 ? q32((uint32_t)input(4, 0, i)) : q64(input(8, 0, i));
    case 1: return input(esz, 1, i);
    case 2: return esz == 4 ? q32((uint32_t)input(4, 0, i)) : q64(input(8, 0, i));
    default: return default_nan;
    }
}

static void put(uint8_t *p, unsigned esz, uint64_t v)
{
    memcpy(p, &v, esz);
}

static uint64_t get(const uint8_t *p, unsigned esz)
{
    uint64_t v = 0;
    memcpy(&v, p, esz);
    return v;
}

struct cubecase {
    uint32_t nr_dpus, nd, len[2];
    const char *mask;
};

static int failures_here;

static void run(const char *nop, const struct cubecase *cc)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(cc->nr_dpus, NULL, &set));
    DPU_ASSERT(dpu_load(set, nop, NULL));
    openpim_cube_t *cube;
    openpim_comm_t *m;
    CHECK_EQ(openpim_cube_create(set, cc->nd, cc->len, &cube), OPENPIM_COMM_OK);
    CHECK_EQ(openpim_comm_create_mask(cube, cc->mask, &m), OPENPIM_COMM_OK);
    uint32_t N = openpim_comm_size(m), I = openpim_comm_nr_instances(m), nodes = openpim_cube_nr_nodes(cube);
    /* inf + -inf on this CPU, at run time: the default NaN every path gives */
    volatile float fi = __builtin_inff();
    volatile double di = __builtin_inf();
    float fd = fi + -fi;
    double dd = di + -di;
    uint32_t fdb;
    uint64_t ddb;
    memcpy(&fdb, &fd, 4);
    memcpy(&ddb, &dd, 8);
    static const char *const simd[] = {"scalar", "avx2", "avx512"};
    static const unsigned techs[] = {0, OPENPIM_COMM_PR, OPENPIM_COMM_PR | OPENPIM_COMM_IM,
                                     OPENPIM_COMM_PR | OPENPIM_COMM_IM | OPENPIM_COMM_CM};
    for (unsigned esz = 4; esz <= 8; esz += 4) {
        openpim_comm_type type = esz == 4 ? OPENPIM_FLOAT : OPENPIM_DOUBLE;
        size_t per_rank = 2 * 64 / esz + 5; /* two AVX-512 vectors, and a tail */
        for (int prim = 0; prim < 3; prim++) { /* AllReduce, ReduceScatter, Reduce */
            size_t count = prim == 1 ? per_rank * N : per_rank;
            uint64_t bytes = count * esz;
            uint8_t *in = calloc(nodes, SLOT), *out = calloc(nodes, SLOT), *host = calloc(I, bytes);
            /* node of rank r of instance i holds, at element j, input(r, j) (ReduceScatter: block p's
             * element k is element k of the pattern, for every block) */
            for (uint32_t i = 0; i < I; i++)
                for (uint32_t r = 0; r < N; r++) {
                    uint32_t n = openpim_comm_node(m, i, r);
                    for (size_t j = 0; j < count; j++)
                        put(in + (size_t)n * SLOT + j * esz, esz, input(esz, r, j % per_rank));
                }
            for (int t = 0; t < 4; t++)
                for (int v = 0; v < 3; v++) {
                    if (openpim_comm_force_simd(simd[v]) != 0 || (t == 0 && v > 0))
                        continue;
                    CHECK_EQ(openpim_cube_set_techniques(cube, techs[t]), OPENPIM_COMM_OK);
                    struct dpu_set_t d;
                    struct dpu_symbol_t mram = {0x08000000u, (uint32_t)openpim_cube_mram_bytes(cube)};
                    for (uint32_t n = 0; n < nodes; n++) {
                        CHECK_EQ(openpim_cube_node_dpu(cube, n, &d), OPENPIM_COMM_OK);
                        DPU_ASSERT(dpu_copy_to_symbol(d, mram, 0, in + (size_t)n * SLOT, SLOT));
                    }
                    openpim_comm_status st =
                        prim == 0   ? openpim_allreduce(m, 0, 2 * SLOT, bytes, type, OPENPIM_SUM)
                        : prim == 1 ? openpim_reduce_scatter(m, 0, 2 * SLOT, bytes, type, OPENPIM_SUM)
                                    : openpim_reduce(m, 0, host, bytes, type, OPENPIM_SUM);
                    CHECK_EQ(st, OPENPIM_COMM_OK);
                    for (uint32_t n = 0; n < nodes && prim < 2; n++) {
                        CHECK_EQ(openpim_cube_node_dpu(cube, n, &d), OPENPIM_COMM_OK);
                        DPU_ASSERT(dpu_copy_from_symbol(d, mram, 2 * SLOT, out + (size_t)n * SLOT, per_rank * esz));
                    }
                    int bad = 0;
                    for (uint32_t i = 0; i < I && !bad; i++)
                        for (uint32_t r = 0; r < (prim < 2 ? N : 1) && !bad; r++) {
                            const uint8_t *o = prim < 2 ? out + (size_t)openpim_comm_node(m, i, r) * SLOT
                                                        : host + (size_t)i * bytes;
                            for (size_t j = 0; j < per_rank && !bad; j++) {
                                uint64_t want = expected(esz, j, esz == 4 ? fdb : ddb), got = get(o + j * esz, esz);
                                if (got != want) {
                                    fprintf(stderr,
                                            "%u DPUs mask %s %s %s, techniques %u, SIMD %s: instance %u rank %u "
                                            "element %zu is 0x%llx, expected 0x%llx\n",
                                            cc->nr_dpus, cc->mask, esz == 4 ? "float" : "double",
                                            prim == 0 ? "allreduce" : prim == 1 ? "reduce_scatter" : "reduce",
                                            techs[t], simd[v], i, r, j, (unsigned long long)got,
                                            (unsigned long long)want);
                                    bad = 1;
                                }
                            }
                        }
                    CHECK(!bad);
                    failures_here += bad;
                }
            free(in), free(out), free(host);
        }
    }
    CHECK_EQ(openpim_comm_force_simd(NULL), 0);
    openpim_cube_destroy(cube);
    DPU_ASSERT(dpu_free(set));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_comm_nan DPU_NOP\n");
        return 2;
    }
    static const struct cubecase cases[] = {
        {64, 2, {8, 8}, "10"},  /* the view, dimension 0: lanes folded in registers */
        {64, 2, {8, 8}, "01"},  /* the view, vertical */
        {64, 2, {8, 8}, "11"},  /* both */
        {40, 2, {5, 8}, "11"},  /* a partial rank: the general path */
        {64, 2, {4, 16}, "10"}, /* L[0] = 4: the general path on full ranks */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run(argv[1], &cases[i]);
    printf("test_comm_nan: %d configurations with a wrong NaN\n", failures_here);
    return check_done("test_comm_nan");
}
