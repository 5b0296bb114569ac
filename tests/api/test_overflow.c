/* SPDX-License-Identifier: MIT */
/* Overflow safety of the host API: offsets and lengths near the wrap points
 * (SIZE_MAX, UINT32_MAX, 2^63, 2^32, off + len == 2^64) given to every
 * transfer entry point.  Each such call must fail with the SDK's error code
 * and change nothing: a canary pattern in WRAM, MRAM variables, both ends of
 * the MRAM heap, and the host buffers, read back after every refused call. */
#define _GNU_SOURCE
#include <dpu.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define BIN "./dpu_api"
#define MRAM_BASE 0x08000000u
#define WRAM_BASE 0x10000000u
#define MRAM_SIZE (64u << 20)
#define EDGE 4096u /* bytes watched at each end of the MRAM heap */
#define HEAP DPU_MRAM_HEAP_POINTER_NAME

#define SYM DPU_ERR_INVALID_SYMBOL_ACCESS
#define MRAM DPU_ERR_INVALID_MRAM_ACCESS
#define WRAM DPU_ERR_INVALID_WRAM_ACCESS

/* What a refused call must leave as it was, per DPU. */
struct image {
    uint32_t w_in[16];
    uint64_t w_out[8];
    uint64_t m_init[4];
    uint8_t m_buf[4096];
    uint8_t heap_head[EDGE], heap_tail[EDGE];
};

static struct dpu_set_t set;          /* two DPUs of one 64-DPU rank */
static struct dpu_set_t dpus[2];
static uint32_t heap_size;            /* bytes of the MRAM heap pseudo-symbol */
static struct image canary[2];
static uint8_t host_small[64], host_small_copy[64]; /* host side of refused transfers */
static uint8_t host_dst[2][64];

static void read_image(struct dpu_set_t d, struct image *im)
{
    memset(im, 0, sizeof *im);
    CHECK_EQ(dpu_copy_from(d, "w_in", 0, im->w_in, sizeof im->w_in), DPU_OK);
    CHECK_EQ(dpu_copy_from(d, "w_out", 0, im->w_out, sizeof im->w_out), DPU_OK);
    CHECK_EQ(dpu_copy_from(d, "m_init", 0, im->m_init, sizeof im->m_init), DPU_OK);
    CHECK_EQ(dpu_copy_from(d, "m_buf", 0, im->m_buf, sizeof im->m_buf), DPU_OK);
    CHECK_EQ(dpu_copy_from(d, HEAP, 0, im->heap_head, EDGE), DPU_OK);
    CHECK_EQ(dpu_copy_from(d, HEAP, heap_size - EDGE, im->heap_tail, EDGE), DPU_OK);
}

/* Writes a distinct pattern into each DPU and remembers it. */
static void write_canaries(void)
{
    for (int k = 0; k < 2; k++) {
        struct image *im = &canary[k];
        uint8_t *b = (uint8_t *)im;
        for (size_t i = 0; i < sizeof *im; i++)
            b[i] = (uint8_t)(i * 131 + 17 + 101 * k);
        CHECK_EQ(dpu_copy_to(dpus[k], "w_in", 0, im->w_in, sizeof im->w_in), DPU_OK);
        CHECK_EQ(dpu_copy_to(dpus[k], "w_out", 0, im->w_out, sizeof im->w_out), DPU_OK);
        CHECK_EQ(dpu_copy_to(dpus[k], "m_init", 0, im->m_init, sizeof im->m_init), DPU_OK);
        CHECK_EQ(dpu_copy_to(dpus[k], "m_buf", 0, im->m_buf, sizeof im->m_buf), DPU_OK);
        CHECK_EQ(dpu_copy_to(dpus[k], HEAP, 0, im->heap_head, EDGE), DPU_OK);
        CHECK_EQ(dpu_copy_to(dpus[k], HEAP, heap_size - EDGE, im->heap_tail, EDGE), DPU_OK);
    }
    for (size_t i = 0; i < sizeof host_small; i++)
        host_small[i] = host_small_copy[i] = (uint8_t)(0xa0 + i);
    memset(host_dst, 0xa5, sizeof host_dst);
}

/* The DPUs and the host buffers are exactly as write_canaries left them. */
static int unchanged(void)
{
    int same = 1;
    for (int k = 0; k < 2; k++) {
        struct image now;
        read_image(dpus[k], &now);
        same &= memcmp(&now, &canary[k], sizeof now) == 0;
    }
    same &= memcmp(host_small, host_small_copy, sizeof host_small) == 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof host_dst[k]; i++)
            same &= host_dst[k][i] == 0xa5;
    return same;
}

static int failures_before;
#define REFUSED(call, want)                                                                                   \
    do {                                                                                                      \
        CHECK_EQ((call), (want));                                                                             \
        CHECK(unchanged());                                                                                   \
        if (check_failures > failures_before) {                                                              \
            fprintf(stderr, "  in case off=%u len=%zu\n", (unsigned)c->off, c->len);                          \
            failures_before = check_failures;                                                                 \
        }                                                                                                     \
    } while (0)

/* (symbol, offset, length) -> error, for the entry points taking a name. */
struct named_case {
    const char *sym;
    uint32_t off;
    size_t len;
    dpu_error_t want;
};

static void named_cases(struct named_case *cases, size_t *n)
{
    size_t k = 0;
#define ADD(s, o, l, w) cases[k++] = (struct named_case){(s), (o), (l), (w)}
    /* off + len wraps to 0 or a small number: a bounds check once missed it */
    ADD(HEAP, 8, (size_t)-8, SYM);
    ADD(HEAP, 16, (size_t)-8, SYM);
    ADD(HEAP, 1, SIZE_MAX, SYM);
    ADD(HEAP, UINT32_MAX, (size_t)0 - UINT32_MAX, SYM);
    ADD(HEAP, UINT32_MAX, (size_t)0 - UINT32_MAX + 8, SYM);
    ADD(HEAP, 0, SIZE_MAX, SYM);
    ADD(HEAP, 0, (size_t)1 << 63, SYM);
    ADD(HEAP, 8, ((size_t)1 << 63) + 8, SYM);
    ADD(HEAP, 0, ((size_t)1 << 32) + 8, SYM); /* 8 if truncated to 32 bits */
    ADD(HEAP, 0, (size_t)UINT32_MAX + 1, SYM);
    ADD(HEAP, UINT32_MAX, 1, SYM);
    ADD(HEAP, UINT32_MAX - 7, 8, SYM);
    ADD(HEAP, 0, (size_t)heap_size + 8, SYM);
    ADD(HEAP, heap_size, 8, SYM);
    ADD(HEAP, heap_size + 8, 0, SYM);
    ADD("m_init", 16, (size_t)-16, SYM);
    ADD("m_init", 32, (size_t)-24, SYM);
    ADD("m_init", 8, SIZE_MAX - 7, SYM);
    ADD("m_buf", 4096, (size_t)-4096, SYM);
    ADD("m_buf", 0, (size_t)1 << 32, SYM);
    /* WRAM: 4-aligned offsets and lengths, so only the bound can refuse them */
    ADD("w_in", 4, (size_t)-4, SYM);
    ADD("w_in", 64, (size_t)-64, SYM);
    ADD("w_in", 60, (size_t)-56, SYM);
    ADD("w_in", UINT32_MAX - 3, 4, SYM);
    ADD("w_in", 0x80000000u, (size_t)0x80000000u, SYM);
    ADD("w_in", 0, ((size_t)1 << 32) + 4, SYM);
    ADD("w_out", 8, SIZE_MAX - 7, SYM);
#undef ADD
    *n = k;
}

static void test_named(void)
{
    struct named_case cases[40];
    size_t n;
    named_cases(cases, &n);
    for (size_t i = 0; i < n; i++) {
        const struct named_case *c = &cases[i];
        REFUSED(dpu_copy_to(dpus[0], c->sym, c->off, host_small, c->len), c->want);
        REFUSED(dpu_copy_to(set, c->sym, c->off, host_small, c->len), c->want);
        REFUSED(dpu_broadcast_to(set, c->sym, c->off, host_small, c->len, DPU_XFER_DEFAULT), c->want);
        REFUSED(dpu_copy_from(dpus[0], c->sym, c->off, host_dst[0], c->len), c->want);
        /* prepared pushes, both directions; a refused push keeps the buffers */
        CHECK_EQ(dpu_prepare_xfer(dpus[0], host_dst[0]), DPU_OK);
        CHECK_EQ(dpu_prepare_xfer(dpus[1], host_dst[1]), DPU_OK);
        REFUSED(dpu_push_xfer(set, DPU_XFER_FROM_DPU, c->sym, c->off, c->len, DPU_XFER_DEFAULT), c->want);
        CHECK_EQ(dpu_prepare_xfer(set, host_small), DPU_OK);
        REFUSED(dpu_push_xfer(set, DPU_XFER_TO_DPU, c->sym, c->off, c->len, DPU_XFER_DEFAULT), c->want);
        CHECK_EQ(dpu_prepare_xfer(set, NULL), DPU_OK);
    }
}

/* Symbols given by value: any address and size. */
struct sym_case {
    struct dpu_symbol_t sym;
    uint32_t off;
    size_t len;
    dpu_error_t want;
};

static void test_symbols(void)
{
    const struct sym_case cases[] = {
        {{MRAM_BASE, UINT32_MAX}, 8, (size_t)-8, SYM},
        {{MRAM_BASE, UINT32_MAX}, 0, (size_t)1 << 32, SYM},
        {{MRAM_BASE, UINT32_MAX}, 0, SIZE_MAX, SYM},
        {{MRAM_BASE, UINT32_MAX}, 0, (size_t)MRAM_SIZE + 8, MRAM},
        {{MRAM_BASE, UINT32_MAX}, MRAM_SIZE - 8, 16, MRAM},
        {{MRAM_BASE, UINT32_MAX}, MRAM_SIZE, 8, MRAM},
        {{MRAM_BASE, UINT32_MAX}, UINT32_MAX - 15, 8, MRAM},
        {{MRAM_BASE, UINT32_MAX}, UINT32_MAX - 7, (size_t)0 - (UINT32_MAX - 7), SYM},
        {{MRAM_BASE + MRAM_SIZE - 8, 16}, 0, 16, MRAM},
        {{MRAM_BASE + MRAM_SIZE - 8, 16}, 8, 8, MRAM},
        {{MRAM_BASE + MRAM_SIZE + 8, 64}, 0, 8, MRAM},
        {{WRAM_BASE, UINT32_MAX}, 65536, 4, WRAM},
        {{WRAM_BASE, UINT32_MAX}, 65532, 8, WRAM},
        {{WRAM_BASE, UINT32_MAX}, UINT32_MAX - 7, 4, WRAM},
        {{WRAM_BASE, UINT32_MAX}, UINT32_MAX - 3, 4, SYM}, /* ends at 2^32, past the size */
        {{WRAM_BASE, UINT32_MAX}, 4, (size_t)-4, SYM},
        {{WRAM_BASE, UINT32_MAX}, 0, ((size_t)1 << 32) + 4, SYM},
        {{WRAM_BASE + 65532, 8}, 4, 4, WRAM},
        {{0xfffffff0u, 16}, 0, 16, SYM},
        {{0xfffffff0u, 16}, 8, (size_t)-8, SYM},
        {{UINT32_MAX, UINT32_MAX}, 1, SIZE_MAX, SYM},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct sym_case *c = &cases[i];
        REFUSED(dpu_copy_to_symbol(dpus[0], c->sym, c->off, host_small, c->len), c->want);
        REFUSED(dpu_copy_to_symbol(set, c->sym, c->off, host_small, c->len), c->want);
        REFUSED(dpu_broadcast_to_symbol(set, c->sym, c->off, host_small, c->len, DPU_XFER_DEFAULT), c->want);
        REFUSED(dpu_copy_from_symbol(dpus[0], c->sym, c->off, host_dst[0], c->len), c->want);
        CHECK_EQ(dpu_prepare_xfer(dpus[0], host_dst[0]), DPU_OK);
        CHECK_EQ(dpu_prepare_xfer(dpus[1], host_dst[1]), DPU_OK);
        REFUSED(dpu_push_xfer_symbol(set, DPU_XFER_FROM_DPU, c->sym, c->off, c->len, DPU_XFER_DEFAULT), c->want);
        CHECK_EQ(dpu_prepare_xfer(set, host_small), DPU_OK);
        REFUSED(dpu_push_xfer_symbol(set, DPU_XFER_TO_DPU, c->sym, c->off, c->len, DPU_XFER_DEFAULT), c->want);
        CHECK_EQ(dpu_prepare_xfer(set, NULL), DPU_OK);
    }
}

/* The checks are not over-strict: accesses that end exactly at a bound work. */
static void test_exact_fits(void)
{
    uint64_t v = 0x1122334455667788ull, back = 0;
    CHECK_EQ(dpu_copy_to(dpus[0], HEAP, heap_size - 8, &v, 8), DPU_OK);
    CHECK_EQ(dpu_copy_from(dpus[0], HEAP, heap_size - 8, &back, 8), DPU_OK);
    CHECK_EQ(back, v);
    CHECK_EQ(dpu_copy_to(dpus[0], HEAP, heap_size, &v, 0), DPU_OK);
    struct dpu_symbol_t whole = {MRAM_BASE, UINT32_MAX};
    back = 0;
    CHECK_EQ(dpu_copy_from_symbol(dpus[0], whole, MRAM_SIZE - 8, &back, 8), DPU_OK);
    CHECK_EQ(back, v); /* the heap ends where MRAM ends */
    uint32_t w = 0xfeedbeef, wb = 0;
    CHECK_EQ(dpu_copy_to(dpus[1], "w_in", 60, &w, 4), DPU_OK);
    CHECK_EQ(dpu_copy_from(dpus[1], "w_in", 60, &wb, 4), DPU_OK);
    CHECK_EQ(wb, w);
    struct dpu_symbol_t wram = {WRAM_BASE, UINT32_MAX};
    CHECK_EQ(dpu_copy_from_symbol(dpus[1], wram, 65532, &wb, 4), DPU_OK);
}

/* Scatter-gather: the same bounds, and a block list refused on one DPU
 * leaves the others untouched (the blocks are checked before copying). */
struct sg_plan {
    uint32_t nblocks[2];
    uint32_t lens[2][4];
    uint8_t *bufs[2];
};

static bool sg_get(struct sg_block_info *out, uint32_t dpu, uint32_t block, void *args)
{
    struct sg_plan *p = args;
    if (dpu >= 2 || block >= p->nblocks[dpu])
        return false;
    uint32_t at = 0;
    for (uint32_t b = 0; b < block; b++)
        at += p->lens[dpu][b] < 64 ? p->lens[dpu][b] : 0;
    out->addr = p->bufs[dpu] + (at < 64 ? at : 0);
    out->length = p->lens[dpu][block];
    return true;
}

static void test_sg(void)
{
    struct sg_plan plan = {{1, 1}, {{8}, {8}}, {host_small, host_small}};
    get_block_t gb = {sg_get, &plan, sizeof plan};
    struct named_case cases[40];
    size_t n;
    named_cases(cases, &n);
    const struct named_case *c;
    for (size_t i = 0; i < n; i++) {
        c = &cases[i];
        plan.bufs[0] = plan.bufs[1] = host_small;
        REFUSED(dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, c->sym, c->off, c->len, &gb, DPU_SG_XFER_DEFAULT), c->want);
        plan.bufs[0] = host_dst[0];
        plan.bufs[1] = host_dst[1];
        REFUSED(dpu_push_sg_xfer(set, DPU_XFER_FROM_DPU, c->sym, c->off, c->len, &gb,
                                 DPU_SG_XFER_DISABLE_LENGTH_CHECK),
                c->want);
    }
    c = &(struct named_case){HEAP, 0, 16, DPU_OK}; /* names the cases below in messages */
    struct dpu_symbol_t whole = {MRAM_BASE, UINT32_MAX};
    REFUSED(dpu_push_sg_xfer_symbol(set, DPU_XFER_TO_DPU, whole, 8, (size_t)-8, &gb, DPU_SG_XFER_DEFAULT), SYM);
    REFUSED(dpu_push_sg_xfer_symbol(set, DPU_XFER_TO_DPU, whole, MRAM_SIZE - 8, 16, &gb, DPU_SG_XFER_DEFAULT), MRAM);
    /* DPU 0's blocks are fine, DPU 1's add up to more than the length (a
     * block of UINT32_MAX bytes): nothing is written to DPU 0 either */
    struct sg_plan bad = {{2, 2}, {{8, 8}, {8, UINT32_MAX}}, {host_small, host_small}};
    gb.args = &bad;
    REFUSED(dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, HEAP, 0, 16, &gb, DPU_SG_XFER_DEFAULT), DPU_ERR_SG_LENGTH_MISMATCH);
    bad.bufs[0] = host_dst[0];
    bad.bufs[1] = host_dst[1];
    REFUSED(dpu_push_sg_xfer(set, DPU_XFER_FROM_DPU, HEAP, 0, 16, &gb, DPU_SG_XFER_DEFAULT),
            DPU_ERR_SG_LENGTH_MISMATCH);
    /* DPU 1's blocks come short, the length check is on */
    struct sg_plan shortp = {{2, 1}, {{8, 8}, {8}}, {host_small, host_small}};
    gb.args = &shortp;
    REFUSED(dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, HEAP, 0, 16, &gb, DPU_SG_XFER_DEFAULT), DPU_ERR_SG_LENGTH_MISMATCH);
    /* the block lists that work move the data */
    struct sg_plan good = {{2, 2}, {{8, 8}, {8, 8}}, {host_small, host_small + 16}};
    gb.args = &good;
    CHECK_EQ(dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, HEAP, 0, 16, &gb, DPU_SG_XFER_DEFAULT), DPU_OK);
    uint8_t back[16];
    CHECK_EQ(dpu_copy_from(dpus[1], HEAP, 0, back, 16), DPU_OK);
    CHECK(memcmp(back, host_small + 16, 16) == 0);
    write_canaries(); /* for the tests that follow */
    CHECK(unchanged());
}

/* The rank view: offsets are 64-bit, sizes size_t. */
static void test_rank_view(void)
{
    struct dpu_set_t rank;
    DPU_RANK_FOREACH(set, rank) {
        const struct { uint64_t off; size_t size; } cases[] = {
            {UINT64_MAX - 7, 64},
            {(uint64_t)1 << 63, 64},
            {(uint64_t)-(int64_t)MRAM_SIZE, 64},
            {8, (size_t)-64},
            {0, (size_t)1 << 63},
            {MRAM_SIZE - 8, 128},
            {MRAM_SIZE, 64},
            {0, (size_t)MRAM_SIZE * 8 + 64},
            {(uint64_t)MRAM_SIZE * 2, (size_t)0 - (size_t)MRAM_SIZE * 16},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            const struct named_case *c = &(struct named_case){"", (uint32_t)cases[i].off, cases[i].size, 0};
            REFUSED(openpim_rank_view_write(rank, 0, cases[i].off, host_small, cases[i].size), MRAM);
            REFUSED(openpim_rank_view_read(rank, 0, cases[i].off, host_dst[0], cases[i].size), MRAM);
        }
        /* exactly the last line of MRAM: accepted */
        uint8_t line[64];
        CHECK_EQ(openpim_rank_view_read(rank, 0, MRAM_SIZE - 8, line, 64), DPU_OK);
    }
}

/* Profile numbers: strtoull would negate "-N" modulo 2^64. */
static void test_profile_numbers(void)
{
    struct dpu_set_t s;
    CHECK_EQ(dpu_alloc(1, "nrRanks=-18446744073709551615", &s), DPU_ERR_INVALID_PROFILE);
    CHECK_EQ(dpu_alloc(1, "nrRanks=2,workers=-18446744073709551614", &s), DPU_ERR_INVALID_PROFILE);
    CHECK_EQ(dpu_alloc(1, "nrRanks=2,sgXferMaxBlocksPerDpu=-18446744073709551615", &s), DPU_ERR_INVALID_PROFILE);
    CHECK_EQ(dpu_alloc(1, "nrRanks=18446744073709551617", &s), DPU_ERR_INVALID_PROFILE);
    CHECK_EQ(dpu_alloc(1, "nrRanks=2,timeoutMs=4294967296", &s), DPU_ERR_INVALID_PROFILE);
}

/* dpu_set_rank past the set's ranks gives an empty set, not a pointer outside
 * the list. */
static void test_set_rank(void)
{
    struct dpu_set_t r = dpu_set_rank(set, 1), d;
    uint32_t n = 99, count = 0;
    CHECK_EQ(r.list.nr_ranks, 0);
    CHECK_EQ(dpu_get_nr_dpus(r, &n), DPU_OK);
    CHECK_EQ(n, 0);
    DPU_FOREACH(dpu_set_rank(set, UINT32_MAX), d)
        count++;
    CHECK_EQ(count, 0);
    CHECK_EQ(dpu_set_rank(dpus[0], 0).list.nr_ranks, 0);
}

/* An image whose heap start lies past MRAM: an empty heap symbol, not a size
 * that wrapped (it was 2^32 - 8). */
static void test_heap_outside_mram(void)
{
    FILE *f = fopen(BIN, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    static uint8_t img[1 << 22];
    size_t len = fread(img, 1, sizeof img, f);
    fclose(f);
    /* DPU images are ELF32 (the DPU's data model) */
#define PATCH_HEAP(Ehdr, Shdr, Sym)                                                                           \
    do {                                                                                                      \
        Ehdr eh;                                                                                              \
        memcpy(&eh, img, sizeof eh);                                                                          \
        for (size_t i = 0; i < eh.e_shnum; i++) {                                                             \
            Shdr sh, st;                                                                                      \
            memcpy(&sh, img + eh.e_shoff + i * sizeof sh, sizeof sh);                                         \
            if (sh.sh_type != SHT_SYMTAB)                                                                     \
                continue;                                                                                     \
            memcpy(&st, img + eh.e_shoff + sh.sh_link * sizeof st, sizeof st);                                \
            for (size_t k = 0; k < sh.sh_size / sizeof(Sym); k++) {                                           \
                Sym sym;                                                                                      \
                memcpy(&sym, img + sh.sh_offset + k * sizeof sym, sizeof sym);                                \
                if (strcmp((const char *)img + st.sh_offset + sym.st_name, HEAP) == 0) {                      \
                    sym.st_value = MRAM_BASE + MRAM_SIZE + 8;                                                 \
                    memcpy(img + sh.sh_offset + k * sizeof sym, &sym, sizeof sym);                            \
                    patched++;                                                                                \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
    } while (0)
    int patched = 0;
    CHECK(len > EI_CLASS && img[EI_CLASS] == ELFCLASS32);
    PATCH_HEAP(Elf32_Ehdr, Elf32_Shdr, Elf32_Sym);
#undef PATCH_HEAP
    CHECK(patched > 0);
    struct dpu_program_t *prog = NULL;
    CHECK_EQ(dpu_load_from_memory(dpus[0], img, len, &prog), DPU_OK);
    struct dpu_symbol_t hs;
    CHECK_EQ(dpu_get_symbol(prog, HEAP, &hs), DPU_OK);
    CHECK_EQ(hs.address, MRAM_BASE + MRAM_SIZE + 8);
    CHECK_EQ(hs.size, 0);
    uint64_t v = 1;
    CHECK_EQ(dpu_copy_to(dpus[0], HEAP, 0, &v, 8), SYM);
    CHECK_EQ(dpu_copy_to(dpus[0], HEAP, 8, &v, (size_t)-8), SYM);
}

int main(void)
{
    CHECK_EQ(dpu_alloc(2, "nrRanks=2,sgXferEnable=true", &set), DPU_OK);
    struct dpu_set_t d;
    int k = 0;
    DPU_FOREACH(set, d)
        dpus[k++] = d;
    CHECK_EQ(k, 2);
    struct dpu_program_t *prog;
    CHECK_EQ(dpu_load(set, BIN, &prog), DPU_OK);
    struct dpu_symbol_t hs;
    CHECK_EQ(dpu_get_symbol(prog, HEAP, &hs), DPU_OK);
    heap_size = hs.size;
    CHECK_EQ((uint64_t)hs.address - MRAM_BASE + hs.size, MRAM_SIZE);
    write_canaries();
    CHECK(unchanged());
    test_named();
    test_symbols();
    test_sg();
    test_rank_view();
    test_set_rank();
    test_exact_fits();
    test_profile_numbers();
    test_heap_outside_mram();
    CHECK_EQ(dpu_free(set), DPU_OK);
    return check_done("test_overflow");
}
