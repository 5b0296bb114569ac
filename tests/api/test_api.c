/* SPDX-License-Identifier: MIT */
/* Host API behaviour: allocation, loading, symbols, every transfer flavour
 * with its error codes, launches, WRAM persistence, iteration, callbacks. */
#define _GNU_SOURCE
#include <dpu.h>
#include <dpu_probe.h>
#include <openpim_ext.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define PROFILE "nrRanks=4"
#define BIN "./dpu_api"

DPU_INCBIN(api_incbin, DPU_API_BIN)

static void test_alloc(void)
{
    struct dpu_set_t set, set2;
    uint32_t n;
    CHECK_EQ(dpu_alloc(0, PROFILE, &set), DPU_ERR_ALLOCATION);
    CHECK_EQ(dpu_alloc(65, PROFILE, &set), DPU_OK);
    CHECK_EQ(dpu_get_nr_dpus(set, &n), DPU_OK);
    CHECK_EQ(n, 65);
    CHECK_EQ(dpu_get_nr_ranks(set, &n), DPU_OK);
    CHECK_EQ(n, 2);
    /* 2 of 4 ranks are taken: 129 DPUs cannot be had, 128 can */
    CHECK_EQ(dpu_alloc(129, PROFILE, &set2), DPU_ERR_ALLOCATION);
    CHECK_EQ(dpu_alloc(128, PROFILE, &set2), DPU_OK);
    CHECK_EQ(dpu_get_nr_dpus(set2, &n), DPU_OK);
    CHECK_EQ(n, 128);
    CHECK_EQ(dpu_alloc(1, PROFILE, &set2), DPU_ERR_ALLOCATION); /* nothing left */
    CHECK_EQ(dpu_free(set2), DPU_OK);
    CHECK_EQ(dpu_alloc_ranks(2, PROFILE, &set2), DPU_OK);
    CHECK_EQ(dpu_get_nr_dpus(set2, &n), DPU_OK);
    CHECK_EQ(n, 128);
    CHECK_EQ(dpu_free(set2), DPU_OK);
    CHECK_EQ(dpu_free(set), DPU_OK);
    CHECK_EQ(dpu_alloc(DPU_ALLOCATE_ALL, PROFILE, &set), DPU_OK);
    CHECK_EQ(dpu_get_nr_dpus(set, &n), DPU_OK);
    CHECK_EQ(n, 256);
    /* a set of single DPU is not an allocation */
    struct dpu_set_t dpu;
    DPU_FOREACH(set, dpu) {
        CHECK_EQ(dpu_free(dpu), DPU_ERR_INVALID_DPU_SET);
        break;
    }
    CHECK_EQ(dpu_free(set), DPU_OK);
    CHECK_EQ(dpu_alloc(1, "nrRanks=notanumber", &set), DPU_ERR_INVALID_PROFILE);
    CHECK_EQ(dpu_alloc(1, PROFILE ",someUnknownKey=whatever", &set), DPU_OK); /* unknown keys are ignored */
    CHECK_EQ(dpu_free(set), DPU_OK);
}

static void test_iteration(void)
{
    struct dpu_set_t set, dpu, rank;
    CHECK_EQ(dpu_alloc(100, PROFILE, &set), DPU_OK);
    uint32_t i = 0, count = 0, slices[100], members[100];
    DPU_FOREACH(set, dpu, i) {
        CHECK_EQ(i, count);
        slices[i] = dpu_get_slice_id(dpu_from_set(dpu));
        members[i] = dpu_get_member_id(dpu_from_set(dpu));
        count++;
    }
    CHECK_EQ(count, 100);
    count = 0;
    DPU_FOREACH(set, dpu) {
        CHECK_EQ(dpu_get_slice_id(dpu_from_set(dpu)), slices[count]);
        CHECK_EQ(dpu_get_member_id(dpu_from_set(dpu)), members[count]);
        count++;
    }
    CHECK_EQ(count, 100);
    /* 28 surplus DPUs of the second rank are disabled, highest member ids first */
    uint32_t per_rank[2] = {0, 0}, r = 0, max_member_rank1 = 0;
    DPU_RANK_FOREACH(set, rank, r) {
        CHECK(r < 2);
        DPU_FOREACH(rank, dpu) {
            per_rank[r]++;
            if (r == 1 && dpu_get_member_id(dpu_from_set(dpu)) > max_member_rank1)
                max_member_rank1 = dpu_get_member_id(dpu_from_set(dpu));
        }
    }
    CHECK_EQ(per_rank[0], 64);
    CHECK_EQ(per_rank[1], 36);
    CHECK_EQ(max_member_rank1, 4); /* 36 = 8 chips x members 0..3, plus 4 DPUs with member 4 */
    CHECK_EQ(dpu_free(set), DPU_OK);
}

static void test_load(void)
{
    struct dpu_set_t set;
    CHECK_EQ(dpu_alloc(2, PROFILE, &set), DPU_OK);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_NO_PROGRAM_LOADED);
    CHECK_EQ(dpu_load(set, "./no-such-program", NULL), DPU_ERR_ELF_NO_SUCH_FILE);
    /* the reason printed on stderr is the thread's last error until its next call */
    CHECK(strstr(openpim_last_error(), "cannot open DPU program './no-such-program'") != NULL);
    uint32_t nr = 0;
    CHECK_EQ(dpu_get_nr_dpus(set, &nr), DPU_OK);
    CHECK_EQ(strlen(openpim_last_error()), 0);
    CHECK_EQ(dpu_push_xfer(set, DPU_XFER_TO_DPU, "x", 0, 4, DPU_XFER_PARALLEL), DPU_ERR_INVALID_MEMORY_TRANSFER);
    CHECK(strstr(openpim_last_error(), "DPU_XFER_PARALLEL") != NULL);
    char garbage[] = "/tmp/openpim-test-garbage-XXXXXX";
    int fd = mkstemp(garbage);
    CHECK(fd >= 0);
    CHECK(write(fd, "not an elf file at all, just text", 33) == 33);
    close(fd);
    CHECK_EQ(dpu_load(set, garbage, NULL), DPU_ERR_ELF_INVALID_FILE);
    unlink(garbage);
    CHECK_EQ(dpu_load_from_memory(set, "\177ELF", 4, NULL), DPU_ERR_ELF_INVALID_FILE);

    struct dpu_program_t *prog = NULL;
    CHECK_EQ(dpu_load(set, BIN, &prog), DPU_OK);
    CHECK(prog != NULL);
    struct dpu_symbol_t sym;
    CHECK_EQ(dpu_get_symbol(prog, "w_in", &sym), DPU_OK);
    CHECK_EQ(sym.size, 64);
    CHECK_EQ(dpu_get_symbol(prog, "m_init", &sym), DPU_OK);
    CHECK_EQ(sym.size, 32);
    CHECK((sym.address & 0x08000000u) != 0); /* MRAM symbols carry the MRAM bit */
    CHECK_EQ(dpu_get_symbol(prog, "nope", &sym), DPU_ERR_UNKNOWN_SYMBOL);
    CHECK_EQ(dpu_get_symbol(prog, DPU_MRAM_HEAP_POINTER_NAME, &sym), DPU_OK);
    CHECK_EQ((uint64_t)(sym.address - 0x08000000u) + sym.size, 64u << 20);

    /* incbin gives the same program */
    CHECK(api_incbin.size > 0);
    CHECK_EQ(dpu_load_from_incbin(set, &api_incbin, NULL), DPU_OK);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    CHECK_EQ(dpu_free(set), DPU_OK);
}

static void test_transfers(void)
{
    struct dpu_set_t set, dpu;
    enum { N = 70 };
    CHECK_EQ(dpu_alloc(N, PROFILE, &set), DPU_OK);
    CHECK_EQ(dpu_load(set, BIN, NULL), DPU_OK);
    uint32_t in[N][16];
    uint64_t out[N][8];
    uint32_t i;

    /* error codes */
    CHECK_EQ(dpu_copy_to(set, "no_such_symbol", 0, in[0], 8), DPU_ERR_UNKNOWN_SYMBOL);
    CHECK_EQ(dpu_copy_to(set, "w_in", 60, in[0], 8), DPU_ERR_INVALID_SYMBOL_ACCESS);
    CHECK_EQ(dpu_copy_to(set, "w_in", 2, in[0], 8), DPU_ERR_INVALID_WRAM_ACCESS);
    CHECK_EQ(dpu_copy_to(set, "w_in", 0, in[0], 6), DPU_ERR_INVALID_WRAM_ACCESS);
    CHECK_EQ(dpu_copy_from(set, "w_out", 0, out[0], 8), DPU_ERR_INVALID_DPU_SET);
    CHECK_EQ(dpu_copy_to(set, DPU_MRAM_HEAP_POINTER_NAME, (64u << 20) - 8, in[0], 16), DPU_ERR_INVALID_SYMBOL_ACCESS);
    CHECK_EQ(dpu_push_xfer(set, (dpu_xfer_t)7, "w_in", 0, 8, DPU_XFER_DEFAULT), DPU_ERR_INVALID_MEMORY_TRANSFER);

    /* per-DPU data through prepare/push, broadcast through copy_to on the set */
    DPU_FOREACH(set, dpu, i) {
        for (int k = 0; k < 16; k++)
            in[i][k] = i * 1000 + (uint32_t)k;
        CHECK_EQ(dpu_prepare_xfer(dpu, in[i]), DPU_OK);
    }
    CHECK_EQ(dpu_push_xfer(set, DPU_XFER_TO_DPU, "w_in", 0, sizeof in[0], DPU_XFER_DEFAULT), DPU_OK);
    uint64_t heap[2] = {1000, 7};
    CHECK_EQ(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, heap, sizeof heap, DPU_XFER_DEFAULT), DPU_OK);
    uint64_t buf[2] = {0x5555, 0x0f0f};
    CHECK_EQ(dpu_copy_to(set, "m_buf", 0, buf, sizeof buf), DPU_OK);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    memset(out, 0xff, sizeof out);
    DPU_FOREACH(set, dpu, i)
        CHECK_EQ(dpu_prepare_xfer(dpu, out[i]), DPU_OK);
    CHECK_EQ(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "w_out", 0, sizeof out[0], DPU_XFER_DEFAULT), DPU_OK);
    for (i = 0; i < N; i++) {
        CHECK_EQ(out[i][0], 1);                      /* first launch */
        CHECK_EQ(out[i][1], 2 * i * 1000 + 1);        /* w_in[0] + w_in[1] */
        CHECK_EQ(out[i][2], 55);                     /* 11 + 44 from the .mram initial values */
        CHECK_EQ(out[i][3], 2007);                   /* heap[0] * 2 + heap[1] */
        CHECK_EQ(out[i][4], 0x5555 ^ 0x0f0f);
        CHECK_EQ(out[i][5], 0x1234);                 /* .data initial value */
        CHECK_EQ(out[i][6], 0);
        CHECK_EQ(out[i][7], 23); /* m_init[1] + launches, through a direct MRAM store and load */
    }

    /* the push forgot the buffers: a push without prepare moves nothing */
    memset(out, 0, sizeof out);
    CHECK_EQ(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "w_out", 0, sizeof out[0], DPU_XFER_DEFAULT), DPU_OK);
    CHECK_EQ(out[0][0], 0);

    /* WRAM persists across launches; NO_RESET keeps the prepared buffers */
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    DPU_FOREACH(set, dpu, i)
        CHECK_EQ(dpu_prepare_xfer(dpu, out[i]), DPU_OK);
    CHECK_EQ(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "w_out", 0, 8, DPU_XFER_NO_RESET), DPU_OK);
    CHECK_EQ(out[N - 1][0], 2);
    out[N - 1][0] = 0;
    CHECK_EQ(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "w_out", 0, 8, DPU_XFER_DEFAULT), DPU_OK);
    CHECK_EQ(out[N - 1][0], 2);

    /* MRAM written by the DPU, read back per DPU; zero-length copies are no-ops */
    DPU_FOREACH(set, dpu, i) {
        uint64_t v = 0;
        CHECK_EQ(dpu_copy_from(dpu, "m_buf", 64, &v, 8), DPU_OK);
        CHECK_EQ(v, 200);
        CHECK_EQ(dpu_copy_from(dpu, "m_buf", 0, NULL, 0), DPU_OK);
        if (i > 2)
            break;
    }

    /* a single DPU gets its own data with copy_to on a one-DPU set */
    DPU_FOREACH(set, dpu, i) {
        if (i == 5) {
            uint32_t two[2] = {40, 2};
            CHECK_EQ(dpu_copy_to(dpu, "w_in", 0, two, 8), DPU_OK);
        }
    }
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    DPU_FOREACH(set, dpu, i) {
        uint64_t v[2];
        CHECK_EQ(dpu_copy_from(dpu, "w_out", 0, v, 16), DPU_OK);
        CHECK_EQ(v[0], 3);
        CHECK_EQ(v[1], i == 5 ? 42 : 2 * i * 1000 + 1);
    }

    /* symbol-based variants */
    struct dpu_symbol_t sym;
    struct dpu_program_t *prog;
    CHECK_EQ(dpu_load(set, BIN, &prog), DPU_OK); /* reload: WRAM back to its initial image */
    CHECK_EQ(dpu_get_symbol(prog, "w_in", &sym), DPU_OK);
    uint32_t two[2] = {5, 6};
    CHECK_EQ(dpu_broadcast_to_symbol(set, sym, 0, two, 8, DPU_XFER_DEFAULT), DPU_OK);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    DPU_FOREACH(set, dpu, i) {
        uint64_t v[2];
        CHECK_EQ(dpu_get_symbol(prog, "w_out", &sym), DPU_OK);
        CHECK_EQ(dpu_copy_from_symbol(dpu, sym, 0, v, 16), DPU_OK);
        CHECK_EQ(v[0], 1); /* launches restarted from the image's 0 */
        CHECK_EQ(v[1], 11);
    }
    CHECK_EQ(dpu_free(set), DPU_OK);
}

static bool sg_block(struct sg_block_info *out, uint32_t dpu_index, uint32_t block_index, void *args)
{
    uint8_t *base = args;
    if (block_index >= 3)
        return false;
    out->addr = base + dpu_index * 24 + block_index * 8;
    out->length = 8;
    return true;
}

static void test_sg(void)
{
    struct dpu_set_t set, dpu;
    uint8_t data[3 * 24];
    for (unsigned k = 0; k < sizeof data; k++)
        data[k] = (uint8_t)k;
    get_block_t gb = {sg_block, data, sizeof data};
    CHECK_EQ(dpu_alloc(3, PROFILE, &set), DPU_OK);
    CHECK_EQ(dpu_load(set, BIN, NULL), DPU_OK);
    CHECK_EQ(dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, "m_buf", 0, 24, &gb, DPU_SG_XFER_DEFAULT), DPU_ERR_SG_NOT_ACTIVATED);
    CHECK_EQ(dpu_free(set), DPU_OK);
    CHECK_EQ(dpu_alloc(3, PROFILE ",sgXferEnable=true", &set), DPU_OK);
    CHECK_EQ(dpu_load(set, BIN, NULL), DPU_OK);
    CHECK_EQ(dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, "w_in", 0, 24, &gb, DPU_SG_XFER_DEFAULT), DPU_ERR_SG_NOT_MRAM_SYMBOL);
    CHECK_EQ(dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, "m_buf", 0, 32, &gb, DPU_SG_XFER_DEFAULT), DPU_ERR_SG_LENGTH_MISMATCH);
    CHECK_EQ(dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, "m_buf", 0, 24, &gb, DPU_SG_XFER_DEFAULT), DPU_OK);
    uint32_t i;
    DPU_FOREACH(set, dpu, i) {
        uint8_t back[24];
        CHECK_EQ(dpu_copy_from(dpu, "m_buf", 0, back, 24), DPU_OK);
        CHECK(memcmp(back, data + i * 24, 24) == 0);
    }
    CHECK_EQ(dpu_free(set), DPU_OK);
}

static dpu_error_t count_rank(struct dpu_set_t rank, uint32_t rank_id, void *args)
{
    uint32_t *calls = args, n;
    dpu_get_nr_dpus(rank, &n);
    calls[rank_id] += n;
    return rank_id == 1 ? DPU_ERR_INTERNAL : DPU_OK;
}

static void test_async(void)
{
    struct dpu_set_t set;
    CHECK_EQ(dpu_alloc(130, PROFILE, &set), DPU_OK);
    CHECK_EQ(dpu_load(set, BIN, NULL), DPU_OK);
    CHECK_EQ(dpu_launch(set, (dpu_launch_policy_t)9), DPU_ERR_INVALID_LAUNCH_POLICY);
    CHECK_EQ(dpu_launch(set, DPU_ASYNCHRONOUS), DPU_OK);
    bool done = false, fault = true;
    CHECK_EQ(dpu_sync(set), DPU_OK);
    CHECK_EQ(dpu_status(set, &done, &fault), DPU_OK);
    CHECK(done);
    CHECK(!fault);
    uint32_t calls[3] = {0, 0, 0};
    CHECK_EQ(dpu_callback(set, count_rank, calls, DPU_CALLBACK_DEFAULT), DPU_ERR_INTERNAL);
    CHECK_EQ(calls[0], 64);
    CHECK_EQ(calls[1], 64);
    CHECK_EQ(calls[2], 2);
    CHECK_EQ(dpu_callback(set, count_rank, calls, DPU_CALLBACK_ASYNC), DPU_OK);
    CHECK_EQ(dpu_sync(set), DPU_ERR_INTERNAL); /* the asynchronous callback's error */
    CHECK_EQ(dpu_sync(set), DPU_OK);
    CHECK_EQ(dpu_free(set), DPU_OK);
}

static void test_misc(void)
{
    char *s = dpu_error_to_string(DPU_ERR_DPU_FAULT);
    CHECK(s && strlen(s) > 0);
    free(s);
    s = dpu_error_to_string((dpu_error_t)12345);
    CHECK(s != NULL);
    free(s);
    struct dpu_probe_t probe;
    CHECK_EQ(dpu_probe_init("energy_probe", &probe), DPU_ERR_UNSUPPORTED);
    struct dpu_set_t bogus = {.kind = DPU_SET_DPU, .dpu = NULL};
    CHECK_EQ(dpu_launch(bogus, DPU_SYNCHRONOUS), DPU_ERR_INVALID_DPU_SET);
    CHECK_EQ(dpu_copy_to(bogus, "w_in", 0, "x", 4), DPU_ERR_INVALID_DPU_SET);
}

/* Flag values programs may pass as numbers (or through bindings): the SDK's
 * (SDK 2025.1 dpu.h). */
static void test_flag_values(void)
{
    CHECK_EQ(DPU_XFER_NO_RESET, 1);
    CHECK_EQ(DPU_XFER_ASYNC, 2);
    CHECK_EQ(DPU_SG_XFER_ASYNC, 2);
    CHECK_EQ(DPU_SG_XFER_DISABLE_LENGTH_CHECK, 4);
    CHECK_EQ(DPU_CALLBACK_ASYNC, 1);
    CHECK_EQ(DPU_CALLBACK_NONBLOCKING, 2);
    CHECK_EQ(DPU_CALLBACK_SINGLE_CALL, 4);
}

int main(void)
{
    test_flag_values();
    test_alloc();
    test_iteration();
    test_load();
    test_transfers();
    test_sg();
    test_async();
    test_misc();
    return check_done("test_api");
}
