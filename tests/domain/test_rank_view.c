/* SPDX-License-Identifier: MIT */
/* openpim_rank_view_write/read: the physical view of a rank agrees with the
 * per-DPU view (dpu_copy_to/from) under the convention of dpu.h
 *     line i, byte (8j + k) == byte j of MRAM word (offset/8 + i) of the DPU
 *                              on chip k with DPU index `group`,
 * for every group, offsets up to the last MRAM word, with disabled DPUs; a
 * DPU program reads what the view wrote and the view reads what it wrote;
 * reading MRAM never written costs no host memory; error codes. */
#include <dpu.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../timing/timing.h"
#include "check.h"

/* an explicit host-memory limit: the default depends on the memory available
 * when the machine is made, which other processes can make small */
#define PROFILE "nrRanks=2,hostMemoryLimitMB=2048"
#define BIN "./dpu_view"
#define MRAM_BASE 0x08000000u

static uint64_t mram_size;
static struct dpu_symbol_t whole_mram; /* all of MRAM, for dpu_copy_to/from_symbol */

static uint64_t rng_state = 0x243F6A8885A308D3ull;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(rnd() >> 24);
}

static uint64_t f(uint64_t x) /* as in dpu_view.c */
{
    return ((x << 8) | (x >> 56)) ^ 0x0123456789ABCDEFull;
}

/* The DPUs of a one-rank set by DPU index (chip * 8 + member), checking that
 * the index matches their slice and member ids.  Disabled DPUs stay NULL. */
static void rank_dpus(struct dpu_set_t rank, struct dpu_set_t dpus[64], int present[64])
{
    struct dpu_set_t dpu;
    memset(present, 0, 64 * sizeof *present);
    DPU_FOREACH(rank, dpu) {
        struct dpu_t *d = dpu_from_set(dpu);
        unsigned idx = (unsigned)dpu_get_slice_id(d) * 8 + dpu_get_member_id(d);
        CHECK(idx < 64);
        if (idx < 64) {
            dpus[idx] = dpu;
            present[idx] = 1;
        }
    }
}

/* Byte j of word w of chip k in view lines. */
static uint8_t view_byte(const uint8_t *lines, size_t w, int j, int k)
{
    return lines[64 * w + 8 * (size_t)j + (size_t)k];
}

/* The view written at (group, offset) reads back through dpu_copy_from on each
 * present DPU of the group, and through the view itself. */
static void check_view_write(struct dpu_set_t rank, uint32_t group, uint64_t offset, size_t size)
{
    struct dpu_set_t dpus[64];
    int present[64];
    rank_dpus(rank, dpus, present);
    uint8_t *lines = malloc(size), *back = malloc(size), *word = malloc(size / 8);
    fill_random(lines, size);
    CHECK_EQ(openpim_rank_view_write(rank, group, offset, lines, size), DPU_OK);
    int bad = 0, checked = 0;
    for (int k = 0; k < 8; k++) {
        int idx = k * 8 + (int)group;
        if (!present[idx])
            continue;
        checked++;
        CHECK_EQ(dpu_copy_from_symbol(dpus[idx], whole_mram, (uint32_t)offset, word, size / 8), DPU_OK);
        for (size_t w = 0; w < size / 64 && !bad; w++)
            for (int j = 0; j < 8; j++)
                if (word[8 * w + (size_t)j] != view_byte(lines, w, j, k))
                    bad = 1;
    }
    CHECK(checked > 0);
    CHECK_EQ(bad, 0);
    memset(back, 0, size);
    CHECK_EQ(openpim_rank_view_read(rank, group, offset, back, size), DPU_OK);
    CHECK(memcmp(back, lines, size) == 0);
    if (bad)
        fprintf(stderr, "view write: group %u offset %llu size %zu\n", group, (unsigned long long)offset, size);
    free(lines);
    free(back);
    free(word);
}

/* Data written with dpu_copy_to on every DPU reads back through the view of
 * every group. */
static void check_dpu_write(struct dpu_set_t rank, uint64_t offset, size_t size)
{
    struct dpu_set_t dpus[64];
    int present[64];
    rank_dpus(rank, dpus, present);
    size_t per_dpu = size / 8;
    uint8_t *data = malloc(64 * per_dpu), *lines = malloc(size);
    fill_random(data, 64 * per_dpu);
    for (int idx = 0; idx < 64; idx++)
        if (present[idx])
            CHECK_EQ(dpu_copy_to_symbol(dpus[idx], whole_mram, (uint32_t)offset, data + idx * per_dpu, per_dpu),
                     DPU_OK);
    for (uint32_t g = 0; g < 8; g++) {
        CHECK_EQ(openpim_rank_view_read(rank, g, offset, lines, size), DPU_OK);
        int bad = 0;
        for (int k = 0; k < 8 && !bad; k++) {
            int idx = k * 8 + (int)g;
            if (!present[idx])
                continue;
            for (size_t w = 0; w < size / 64 && !bad; w++)
                for (int j = 0; j < 8; j++)
                    if (view_byte(lines, w, j, k) != data[idx * per_dpu + 8 * w + (size_t)j])
                        bad = 1;
        }
        CHECK_EQ(bad, 0);
    }
    free(data);
    free(lines);
}

static void test_round_trips(void)
{
    struct dpu_set_t set, rank;
    CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &set), DPU_OK);
    CHECK_EQ(dpu_load(set, BIN, NULL), DPU_OK);
    int ranks = 0;
    DPU_RANK_FOREACH(set, rank) {
        ranks++;
        const struct {
            uint64_t offset;
            size_t size;
        } cases[] = {
            { 0, 64 * 64 },
            { 8, 64 },
            { 8 * 1001, 64 * 37 },
            { 1u << 20, 64 * 4096 },
            { 0, 0 },
            { 0, 0 }, /* filled below: the last word, the last 100 words */
            { 0, 0 },
        };
        size_t nr = sizeof cases / sizeof cases[0];
        for (size_t c = 0; c < nr; c++) {
            uint64_t off = cases[c].offset;
            size_t size = cases[c].size;
            if (c == nr - 2) {
                off = mram_size - 8;
                size = 64;
            } else if (c == nr - 1) {
                off = mram_size - 800;
                size = 64 * 100;
            } else if (size == 0) {
                continue;
            }
            for (uint32_t g = 0; g < 8; g++)
                check_view_write(rank, g, off, size);
            check_dpu_write(rank, off, size);
        }
        /* a write through the view touches only its group and its range */
        struct dpu_set_t dpus[64];
        int present[64];
        rank_dpus(rank, dpus, present);
        uint64_t before[64][3], after[3];
        for (int idx = 0; idx < 64; idx++)
            CHECK_EQ(dpu_copy_from_symbol(dpus[idx], whole_mram, 4096 - 8, before[idx], sizeof before[idx]), DPU_OK);
        uint8_t line[64];
        memset(line, 0xAB, sizeof line);
        CHECK_EQ(openpim_rank_view_write(rank, 5, 4096, line, sizeof line), DPU_OK);
        for (int idx = 0; idx < 64; idx++) {
            CHECK_EQ(dpu_copy_from_symbol(dpus[idx], whole_mram, 4096 - 8, after, sizeof after), DPU_OK);
            CHECK(after[0] == before[idx][0] && after[2] == before[idx][2]);
            CHECK(after[1] == (idx % 8 == 5 ? 0xABABABABABABABABull : before[idx][1]));
        }
    }
    CHECK_EQ(ranks, 1);
    /* a big transfer (non-temporal stores on the way in) */
    CHECK_EQ(dpu_free(set), DPU_OK);
    CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &set), DPU_OK);
    CHECK_EQ(dpu_load(set, BIN, NULL), DPU_OK);
    check_view_write(set, 3, 2u << 20, (size_t)16 << 20);
    check_dpu_write(set, 24u << 20, (size_t)1 << 20);
    CHECK_EQ(dpu_free(set), DPU_OK);
}

/* The DPUs see what the view wrote; the view sees what the DPUs wrote. */
static void test_with_program(void)
{
    struct dpu_set_t set, dpu;
    CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &set), DPU_OK);
    CHECK_EQ(dpu_load(set, BIN, NULL), DPU_OK);
    enum { WORDS = 300 };
    const uint64_t in_off = 8 * 12345, out_off = 40u << 20;
    static uint8_t lines[8][64 * WORDS], out[64 * WORDS];
    for (uint32_t g = 0; g < 8; g++) {
        fill_random(lines[g], sizeof lines[g]);
        CHECK_EQ(openpim_rank_view_write(set, g, in_off, lines[g], sizeof lines[g]), DPU_OK);
    }
    uint64_t words = WORDS;
    CHECK_EQ(dpu_broadcast_to(set, "in_offset", 0, &in_off, 8, DPU_XFER_DEFAULT), DPU_OK);
    CHECK_EQ(dpu_broadcast_to(set, "out_offset", 0, &out_off, 8, DPU_XFER_DEFAULT), DPU_OK);
    CHECK_EQ(dpu_broadcast_to(set, "nr_words", 0, &words, 8, DPU_XFER_DEFAULT), DPU_OK);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    int sums_ok = 1, n = 0;
    DPU_FOREACH(set, dpu) {
        struct dpu_t *d = dpu_from_set(dpu);
        unsigned chip = dpu_get_slice_id(d), g = dpu_get_member_id(d);
        uint64_t sum = 0, got;
        for (size_t w = 0; w < WORDS; w++) {
            uint64_t x = 0;
            for (int j = 0; j < 8; j++)
                x |= (uint64_t)view_byte(lines[g], w, j, (int)chip) << (8 * j);
            sum = sum * 1000003u + x;
        }
        CHECK_EQ(dpu_copy_from(dpu, "checksum", 0, &got, 8), DPU_OK);
        sums_ok &= got == sum;
        n++;
    }
    CHECK_EQ(n, 64);
    CHECK_EQ(sums_ok, 1);
    int outs_ok = 1;
    for (uint32_t g = 0; g < 8; g++) {
        CHECK_EQ(openpim_rank_view_read(set, g, out_off, out, sizeof out), DPU_OK);
        for (size_t w = 0; w < WORDS; w++)
            for (int k = 0; k < 8; k++) {
                uint64_t x = 0, y = 0;
                for (int j = 0; j < 8; j++) {
                    x |= (uint64_t)view_byte(lines[g], w, j, k) << (8 * j);
                    y |= (uint64_t)view_byte(out, w, j, k) << (8 * j);
                }
                outs_ok &= y == f(x);
            }
    }
    CHECK_EQ(outs_ok, 1);
    CHECK_EQ(dpu_free(set), DPU_OK);
}

/* 60 DPUs: 4 DPUs of group 7 are disabled, and still in the view. */
static void test_disabled(void)
{
    struct dpu_set_t set, rank;
    CHECK_EQ(dpu_alloc(60, PROFILE, &set), DPU_OK);
    CHECK_EQ(dpu_load(set, BIN, NULL), DPU_OK);
    uint32_t nr_ranks = 0, nr_dpus = 0;
    CHECK_EQ(dpu_get_nr_ranks(set, &nr_ranks), DPU_OK);
    CHECK_EQ(dpu_get_nr_dpus(set, &nr_dpus), DPU_OK);
    CHECK_EQ(nr_ranks, 1);
    CHECK_EQ(nr_dpus, 60);
    DPU_RANK_FOREACH(set, rank) {
        struct dpu_set_t dpus[64];
        int present[64], missing = 0;
        rank_dpus(rank, dpus, present);
        for (int idx = 0; idx < 64; idx++)
            missing += !present[idx];
        CHECK_EQ(missing, 4);
        for (uint32_t g = 0; g < 8; g++)
            check_view_write(rank, g, 8 * 77, 64 * 50); /* disabled DPUs: view round trip */
        check_dpu_write(rank, 1u << 16, 64 * 20);
    }
    CHECK_EQ(dpu_free(set), DPU_OK);
}

/* MRAM never written reads as zeros through the view without being backed by
 * host memory; a range partly written reads right. */
static void test_sparse(void)
{
    struct dpu_set_t set;
    CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &set), DPU_OK);
    size_t size = (size_t)8 << 20; /* 1 MiB of each of 8 MRAMs */
    uint8_t *lines = malloc(size);
    uint64_t used0 = 0, used1 = 0, limit = 0;
    CHECK_EQ(openpim_memory_usage(&used0, &limit), DPU_OK);
    memset(lines, 0x5A, size);
    CHECK_EQ(openpim_rank_view_read(set, 2, 32u << 20, lines, size), DPU_OK);
    CHECK_EQ(openpim_memory_usage(&used1, &limit), DPU_OK);
    CHECK_EQ(used1, used0);
    size_t nonzero = 0;
    for (size_t i = 0; i < size; i++)
        nonzero += lines[i] != 0;
    CHECK_EQ(nonzero, 0);
    /* write 10 lines in the middle, read 100 around them */
    uint8_t ten[640], hundred[6400];
    fill_random(ten, sizeof ten);
    CHECK_EQ(openpim_rank_view_write(set, 2, (32u << 20) + 8 * 40, ten, sizeof ten), DPU_OK);
    CHECK_EQ(openpim_rank_view_read(set, 2, 32u << 20, hundred, sizeof hundred), DPU_OK);
    int ok = 1;
    for (size_t i = 0; i < sizeof hundred; i++)
        ok &= hundred[i] == (i >= 64 * 40 && i < 64 * 50 ? ten[i - 64 * 40] : 0);
    CHECK_EQ(ok, 1);
    free(lines);
    CHECK_EQ(dpu_free(set), DPU_OK);
}

static void test_errors(void)
{
    struct dpu_set_t set, two, dpu, rank;
    uint8_t buf[256];
    memset(buf, 1, sizeof buf);
    CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &set), DPU_OK);
    CHECK_EQ(dpu_alloc_ranks(1, PROFILE, &two), DPU_OK); /* the other rank */
    CHECK_EQ(dpu_free(two), DPU_OK);
    CHECK_EQ(openpim_rank_view_write(two, 0, 0, buf, 64), DPU_ERR_INVALID_DPU_SET); /* freed */
    CHECK_EQ(openpim_rank_view_read(two, 0, 0, buf, 64), DPU_ERR_INVALID_DPU_SET);
    CHECK_EQ(dpu_free(set), DPU_OK);
    CHECK_EQ(dpu_alloc_ranks(2, PROFILE, &two), DPU_OK);
    CHECK_EQ(openpim_rank_view_write(two, 0, 0, buf, 64), DPU_ERR_INVALID_DPU_SET); /* two ranks */
    CHECK_EQ(openpim_rank_view_read(two, 0, 0, buf, 64), DPU_ERR_INVALID_DPU_SET);
    DPU_RANK_FOREACH(two, rank) {
        CHECK_EQ(openpim_rank_view_write(rank, 0, 0, buf, 64), DPU_OK); /* each rank of it: fine */
        CHECK_EQ(openpim_rank_view_read(rank, 7, 0, buf, 64), DPU_OK);
        DPU_FOREACH(rank, dpu) {
            CHECK_EQ(openpim_rank_view_write(dpu, 0, 0, buf, 64), DPU_ERR_INVALID_DPU_SET); /* one DPU */
            break;
        }
        CHECK_EQ(openpim_rank_view_write(rank, 8, 0, buf, 64), DPU_ERR_INVALID_DPU_SET);
        CHECK_EQ(openpim_rank_view_read(rank, 8, 0, buf, 64), DPU_ERR_INVALID_DPU_SET);
        CHECK_EQ(openpim_rank_view_write(rank, UINT32_MAX, 0, buf, 64), DPU_ERR_INVALID_DPU_SET);
        CHECK_EQ(openpim_rank_view_write(rank, 0, 4, buf, 64), DPU_ERR_INVALID_MRAM_ACCESS);
        CHECK_EQ(openpim_rank_view_read(rank, 0, 12, buf, 64), DPU_ERR_INVALID_MRAM_ACCESS);
        CHECK_EQ(openpim_rank_view_write(rank, 0, 0, buf, 32), DPU_ERR_INVALID_MRAM_ACCESS);
        CHECK_EQ(openpim_rank_view_read(rank, 0, 0, buf, 65), DPU_ERR_INVALID_MRAM_ACCESS);
        CHECK_EQ(openpim_rank_view_write(rank, 0, mram_size - 8, buf, 128), DPU_ERR_INVALID_MRAM_ACCESS);
        CHECK_EQ(openpim_rank_view_read(rank, 0, mram_size, buf, 64), DPU_ERR_INVALID_MRAM_ACCESS);
        CHECK_EQ(openpim_rank_view_write(rank, 0, mram_size + 8, buf, 0), DPU_ERR_INVALID_MRAM_ACCESS);
        CHECK_EQ(openpim_rank_view_write(rank, 0, UINT64_MAX - 7, buf, 64), DPU_ERR_INVALID_MRAM_ACCESS);
        CHECK_EQ(openpim_rank_view_write(rank, 0, 0, buf, SIZE_MAX - 63), DPU_ERR_INVALID_MRAM_ACCESS);
        CHECK_EQ(openpim_rank_view_write(rank, 0, mram_size, buf, 0), DPU_OK); /* empty, at the end */
        CHECK_EQ(openpim_rank_view_read(rank, 0, mram_size - 8, buf, 64), DPU_OK); /* the last word */
        CHECK_EQ(openpim_rank_view_write(rank, 0, 0, NULL, 64), DPU_ERR_INVALID_MEMORY_TRANSFER);
        CHECK_EQ(openpim_rank_view_read(rank, 0, 0, NULL, 64), DPU_ERR_INVALID_MEMORY_TRANSFER);
        CHECK_EQ(openpim_rank_view_read(rank, 0, 0, NULL, 0), DPU_OK);
    }
    CHECK_EQ(dpu_free(two), DPU_OK);
    /* ranks that are not 8 chips x 8 DPUs */
    CHECK_EQ(dpu_alloc_ranks(1, "nrRanks=1,nrDpusPerRank=16,hostMemoryLimitMB=2048", &set), DPU_OK);
    CHECK_EQ(openpim_rank_view_write(set, 0, 0, buf, 64), DPU_ERR_INVALID_DPU_SET);
    CHECK_EQ(openpim_rank_view_read(set, 0, 0, buf, 64), DPU_ERR_INVALID_DPU_SET);
    CHECK_EQ(dpu_free(set), DPU_OK);
}

/* openpim_rank_view_push: every group of every rank of a set in one call,
 * the same bytes as the per-group calls, one direct-interface transfer in
 * modelled time; NULL groups are left alone; a refusal moves nothing. */
static void test_push(void)
{
    struct dpu_set_t set, rank;
    const size_t size = 4096;
    const uint64_t offset = 8192;
    CHECK_EQ(dpu_alloc_ranks(2, PROFILE, &set), DPU_OK);
    uint8_t *in[16], *out[16];
    for (int k = 0; k < 16; k++) {
        in[k] = malloc(size);
        out[k] = malloc(size);
        fill_random(in[k], size);
    }
    double t0 = openpim_modelled_time_us();
    CHECK_EQ(openpim_rank_view_push(set, DPU_XFER_TO_DPU, offset, (void *const *)in, size), DPU_OK);
    double dt = openpim_modelled_time_us() - t0;
    /* exactly one direct transfer of size/8 bytes to each DPU of the two ranks */
    struct op_machine_desc d;
    CHECK_EQ(op_machine_desc_preset("v1A", &d), 0);
    d.nr_ranks = 2;
    struct op_xfer_rank ranks[2] = {{0, OP_XFER_CHANNEL_AUTO, 64}, {1, OP_XFER_CHANNEL_AUTO, 64}};
    struct op_xfer_desc x = {OP_XFER_TO_DPU, OP_XFER_DIRECT, OP_XFER_MRAM, size / 8, 2, ranks, 0};
    /* (dt is a difference of the clock: exact up to its rounding) */
    CHECK(fabs(dt - op_xfer_time_us(&d, &x)) < 1e-6);
    x.kind = OP_XFER_PARALLEL;
    CHECK(dt < op_xfer_time_us(&d, &x)); /* no SDK per-call preparation */
    /* the per-group reads see what the push wrote */
    uint32_t r = 0;
    DPU_RANK_FOREACH(set, rank) {
        for (uint32_t g = 0; g < 8; g++) {
            CHECK_EQ(openpim_rank_view_read(rank, g, offset, out[8 * r + g], size), DPU_OK);
            CHECK(memcmp(out[8 * r + g], in[8 * r + g], size) == 0);
        }
        r++;
    }
    /* and the set-wide read gives it all back */
    for (int k = 0; k < 16; k++)
        memset(out[k], 0, size);
    CHECK_EQ(openpim_rank_view_push(set, DPU_XFER_FROM_DPU, offset, (void *const *)out, size), DPU_OK);
    int same = 1;
    for (int k = 0; k < 16; k++)
        same &= memcmp(out[k], in[k], size) == 0;
    CHECK_EQ(same, 1);
    /* only the groups given move */
    void *some[16] = {0};
    uint8_t *fresh = malloc(size);
    fill_random(fresh, size);
    some[11] = fresh; /* rank 1, group 3 */
    CHECK_EQ(openpim_rank_view_push(set, DPU_XFER_TO_DPU, offset, some, size), DPU_OK);
    CHECK_EQ(openpim_rank_view_push(set, DPU_XFER_FROM_DPU, offset, (void *const *)out, size), DPU_OK);
    same = 1;
    for (int k = 0; k < 16; k++)
        same &= memcmp(out[k], k == 11 ? fresh : in[k], size) == 0;
    CHECK_EQ(same, 1);
    /* refused: nothing moves */
    CHECK_EQ(openpim_rank_view_push(set, DPU_XFER_TO_DPU, 4, (void *const *)in, size), DPU_ERR_INVALID_MRAM_ACCESS);
    CHECK_EQ(openpim_rank_view_push(set, DPU_XFER_TO_DPU, mram_size - size / 16, (void *const *)in, size),
             DPU_ERR_INVALID_MRAM_ACCESS);
    CHECK_EQ(openpim_rank_view_push(set, (dpu_xfer_t)7, offset, (void *const *)in, size),
             DPU_ERR_INVALID_MEMORY_TRANSFER);
    CHECK_EQ(openpim_rank_view_push(set, DPU_XFER_TO_DPU, offset, NULL, size), DPU_ERR_INVALID_MEMORY_TRANSFER);
    CHECK_EQ(openpim_rank_view_push(set, DPU_XFER_FROM_DPU, offset, (void *const *)out, size), DPU_OK);
    same = 1;
    for (int k = 0; k < 16; k++)
        same &= memcmp(out[k], k == 11 ? fresh : in[k], size) == 0;
    CHECK_EQ(same, 1);
    uint64_t mram = 0;
    uint32_t wram = 0;
    CHECK_EQ(openpim_get_memory_sizes(set, &mram, &wram), DPU_OK);
    CHECK_EQ(mram, mram_size);
    CHECK_EQ(wram, 65536);
    CHECK_EQ(dpu_free(set), DPU_OK);
    CHECK_EQ(openpim_rank_view_push(set, DPU_XFER_TO_DPU, offset, (void *const *)in, size), DPU_ERR_INVALID_DPU_SET);
    CHECK_EQ(openpim_get_memory_sizes(set, &mram, &wram), DPU_ERR_INVALID_DPU_SET);
    for (int k = 0; k < 16; k++) {
        free(in[k]);
        free(out[k]);
    }
    free(fresh);
}

int main(void)
{
    struct dpu_set_t set;
    struct dpu_program_t *prog;
    CHECK_EQ(dpu_alloc(1, PROFILE, &set), DPU_OK);
    CHECK_EQ(dpu_load(set, BIN, &prog), DPU_OK);
    struct dpu_symbol_t heap;
    CHECK_EQ(dpu_get_symbol(prog, DPU_MRAM_HEAP_POINTER_NAME, &heap), DPU_OK);
    mram_size = (uint64_t)(heap.address - MRAM_BASE) + heap.size;
    CHECK_EQ(mram_size, 64u << 20);
    whole_mram.address = MRAM_BASE;
    whole_mram.size = (uint32_t)mram_size;
    CHECK_EQ(dpu_free(set), DPU_OK);

    test_round_trips();
    test_with_program();
    test_disabled();
    test_sparse();
    test_errors();
    test_push();
    return check_done("test_rank_view");
}
