/* SPDX-License-Identifier: MIT */
/* WRAM ends where the chip's does, and so does it start.  v1A's 64 KB fill a
 * page-aligned window; v1B's 62 KB end on a page boundary and start inside a
 * page, whose 2 KB below WRAM's first byte stay accessible to x86 code: there
 * the DPU program's own loads and stores are checked.  On both chips, then:
 * WRAM's first and last bytes work; a load, store or copy past its end or
 * below its first byte (by a constant offset from a global, at an address
 * computed at run time, at a negative offset from a heap block, in loops)
 * stops the DPU with a memory fault that names the tasklet, the address and
 * the limit crossed, in the same words on both chips. */
#include <dpu.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define WRAM_END 0x10010000u /* WRAM's end on every chip (the address map of DPU images) */

struct chip {
    const char *profile, *binary;
    uint32_t wram; /* bytes of WRAM */
};

static void put(struct dpu_set_t dpu, const char *symbol, uint32_t v)
{
    DPU_ASSERT(dpu_copy_to(dpu, symbol, 0, &v, 4));
}

static uint32_t get(struct dpu_set_t dpu, const char *symbol)
{
    uint32_t v = 0;
    DPU_ASSERT(dpu_copy_from(dpu, symbol, 0, &v, 4));
    return v;
}

/* Runs `mode` at `addr` on tasklet `who`; returns the launch's status. */
static dpu_error_t run(struct dpu_set_t dpu, uint32_t mode, uint32_t who, uint32_t addr, uint32_t value)
{
    put(dpu, "mode", mode);
    put(dpu, "who", who);
    put(dpu, "addr", addr);
    put(dpu, "value", value);
    return dpu_launch(dpu, DPU_SYNCHRONOUS);
}

/* The launch faulted on tasklet `who`, in main, with `want` as the message. */
static void check_fault(const struct chip *c, struct dpu_set_t dpu, dpu_error_t rc, uint32_t who, const char *want)
{
    struct openpim_fault f;
    CHECK_EQ(rc, DPU_ERR_DPU_FAULT);
    DPU_ASSERT(openpim_get_fault(dpu, &f));
    CHECK(f.faulted && strcmp(f.kind, "memory") == 0);
    CHECK_EQ(f.tasklet, who);
    /* the program's access (libc's memcpy for a copy, on v1A) */
    CHECK(strcmp(f.function, "main") == 0 || strcmp(f.function, "touch") == 0 || strcmp(f.function, "memcpy") == 0 ||
          strcmp(f.function, "sum_words") == 0);
    CHECK(f.line > 0);
    if (strcmp(f.message, want) != 0) {
        fprintf(stderr, "%s: fault \"%s\", expected \"%s\"\n", c->profile, f.message, want);
        CHECK(0);
    }
}

static void below(char *msg, size_t len, uint32_t addr, uint32_t first)
{
    snprintf(msg, len, "WRAM access out of bounds at address 0x%08x: %u bytes below WRAM's first byte 0x%08x", addr,
             first - addr, first);
}

static void past(char *msg, size_t len, uint32_t addr)
{
    snprintf(msg, len, "WRAM access out of bounds at address 0x%08x: %u bytes past WRAM's end 0x%08x", addr,
             addr - WRAM_END, WRAM_END);
}

static void chip(const struct chip *c)
{
    struct dpu_set_t set, dpu;
    char want[192];
    DPU_ASSERT(dpu_alloc(1, c->profile, &set));
    DPU_ASSERT(dpu_load(set, c->binary, NULL));
    DPU_FOREACH(set, dpu)
        break;
    uint32_t first = WRAM_END - c->wram, last = WRAM_END - 1;

    /* the last word; WRAM's size as the image sees it */
    CHECK_EQ(run(dpu, 1, 0, 0, 0), DPU_OK);
    CHECK_EQ(get(dpu, "size"), c->wram);

    /* the first and last bytes: stored and loaded back (then restored), by tasklets 1 and 2 */
    uint32_t ends[] = {first, last};
    for (unsigned k = 0; k < 2; k++) {
        CHECK_EQ(run(dpu, 10, 1 + k, ends[k], 0xa5u + k), DPU_OK);
        CHECK_EQ(get(dpu, "value"), 0xa5u + k);
        CHECK_EQ(run(dpu, 5, 2 - k, ends[k], 0), DPU_OK);
    }
    CHECK_EQ(run(dpu, 9, 2, last, 0), DPU_OK); /* mode 9's load (below), in WRAM */

    /* past the end: a store of a constant offset, loads at computed addresses */
    past(want, sizeof want, WRAM_END + 0x100);
    check_fault(c, dpu, run(dpu, 2, 0, 0, 0), 0, want);
    uint32_t above[] = {WRAM_END, WRAM_END + 0x100};
    for (unsigned k = 0; k < 2; k++) {
        past(want, sizeof want, above[k]);
        check_fault(c, dpu, run(dpu, 5, 2, above[k], 0), 2, want);
    }

    /* below the first byte: constant offsets from a global (store, load),
     * loads and stores at computed addresses down to the window's first page
     * and the page below, a copy, a loop whose first index is below */
    below(want, sizeof want, first - 8, first);
    check_fault(c, dpu, run(dpu, 3, 1, 0, 0), 1, want);
    check_fault(c, dpu, run(dpu, 4, 2, 0, 0), 2, want);
    uint32_t page = first & ~4095u; /* the first page of the window: WRAM's own on v1A */
    uint32_t under[] = {first - 1, first - 8, page == first ? first - 2 : page, page - 1, first - 4096};
    for (unsigned k = 0; k < sizeof under / sizeof *under; k++) {
        below(want, sizeof want, under[k], first);
        check_fault(c, dpu, run(dpu, 5, k % 3, under[k], 0), k % 3, want);
        check_fault(c, dpu, run(dpu, 6, (k + 1) % 3, under[k], 0x77), (k + 1) % 3, want);
    }
    below(want, sizeof want, first - 2, first);
    check_fault(c, dpu, run(dpu, 7, 1, first - 2, 4), 1, want);
    below(want, sizeof want, first - 3, first);
    check_fault(c, dpu, run(dpu, 9, 2, first - 3, 0), 2, want);
    /* a loop through a pointer argument: from below, no word read is no
     * access; from the first byte, in WRAM */
    CHECK_EQ(run(dpu, 11, 1, first - 8, 0), DPU_OK);
    for (uint32_t n = 1; n <= 3; n++) {
        below(want, sizeof want, first - 8, first);
        check_fault(c, dpu, run(dpu, 11, 1, first - 8, n), 1, want);
    }
    below(want, sizeof want, first - 4, first);
    check_fault(c, dpu, run(dpu, 11, 0, first - 4, 2), 0, want);
    CHECK_EQ(run(dpu, 11, 2, first, 4), DPU_OK);
    CHECK_EQ(run(dpu, 11, 2, WRAM_END - 16, 4), DPU_OK);
    past(want, sizeof want, WRAM_END);
    check_fault(c, dpu, run(dpu, 11, 2, WRAM_END - 16, 5), 2, want);
    put(dpu, "from", (uint32_t)-3);
    below(want, sizeof want, first - 12, first);
    check_fault(c, dpu, run(dpu, 8, 0, 0, 0), 0, want);

    /* and the next launch is clean (the bytes below are refilled) */
    put(dpu, "from", 0);
    CHECK_EQ(run(dpu, 8, 0, 0, 0), DPU_OK);
    CHECK_EQ(run(dpu, 1, 0, 0, 0), DPU_OK);
    DPU_ASSERT(dpu_free(set));
}

int main(void)
{
    const struct chip chips[] = {
        {"nrRanks=1,chip=v1B", "./dpu_wram_end_v1B", 62u << 10},
        {"nrRanks=1", "./dpu_wram_end", 64u << 10},
    };
    for (size_t i = 0; i < sizeof chips / sizeof *chips; i++)
        chip(&chips[i]);
    return check_done("test_wram_end");
}
