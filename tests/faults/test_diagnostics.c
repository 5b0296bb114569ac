/* SPDX-License-Identifier: MIT */
/* What a DPU developer is told.  A refused transfer names the symbol, its
 * memory and size, the offset and length asked, and the nearest symbol for a
 * typo, on stderr and in openpim_last_error().  Fault lines name a DPU by its
 * index in the set first (as DPU_FOREACH counts) and its machine id second,
 * at most four of them, then "... and N more faulting DPUs".  A fault gives
 * its PC and function always, and with -g its file and line (the expected
 * line is found in the DPU source by its comment, not taken from the code
 * under test). */
#define _GNU_SOURCE
#include <dpu.h>
#include <openpim_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define NR 6

/* stderr of the calls between capture_start and capture_end */
static int saved_fd = -1;
static FILE *captured;

static void capture_start(void)
{
    fflush(stderr);
    captured = tmpfile();
    CHECK(captured != NULL);
    saved_fd = dup(2);
    dup2(fileno(captured), 2);
}

static char *capture_end(void)
{
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    long n = ftell(captured);
    char *text = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
    rewind(captured);
    size_t got = fread(text, 1, (size_t)(n > 0 ? n : 0), captured);
    text[got] = 0;
    fclose(captured);
    fputs(text, stderr); /* still shown */
    return text;
}

/* every part must be in both the last error and what went to stderr */
static void expect_message(dpu_error_t got, dpu_error_t want, const char *err, const char *const *parts)
{
    CHECK_EQ(got, want);
    const char *last = openpim_last_error();
    for (const char *const *p = parts; *p; p++)
        if (!strstr(last, *p) || !strstr(err, *p)) {
            fprintf(stderr, "missing \"%s\" in \"%s\"\n", *p, last);
            CHECK(0);
        }
}

/* The line in the DPU source after the one holding `marker`. */
static unsigned line_after(const char *marker)
{
    FILE *f = fopen(FAULTS_SOURCE, "r");
    CHECK(f != NULL);
    char buf[512];
    unsigned n = 0, found = 0;
    while (f && fgets(buf, sizeof buf, f)) {
        n++;
        if (strstr(buf, marker)) {
            found = n + 1;
            break;
        }
    }
    if (f)
        fclose(f);
    CHECK(found != 0);
    return found;
}

static void transfers(struct dpu_set_t set, struct dpu_program_t *prog)
{
    uint64_t buf[16] = {0};
    char *err;

    capture_start();
    dpu_error_t rc = dpu_copy_to(set, "reslt", 0, buf, 8);
    err = capture_end();
    expect_message(rc, DPU_ERR_UNKNOWN_SYMBOL, err,
                   (const char *[]){"unknown symbol \"reslt\"", "did you mean \"result\"", "WRAM", "32 bytes", NULL});
    free(err);

    capture_start();
    rc = dpu_copy_to(set, "zzzzqqqqxxxx", 0, buf, 8);
    err = capture_end();
    expect_message(rc, DPU_ERR_UNKNOWN_SYMBOL, err, (const char *[]){"unknown symbol \"zzzzqqqqxxxx\"", NULL});
    CHECK(!strstr(openpim_last_error(), "did you mean"));
    free(err);

    capture_start();
    rc = dpu_copy_to(set, "result", 24, buf, 16);
    err = capture_end();
    expect_message(rc, DPU_ERR_INVALID_SYMBOL_ACCESS, err,
                   (const char *[]){"symbol \"result\"", "WRAM", "32 bytes", "offset 24", "length 16", NULL});
    free(err);

    capture_start();
    rc = dpu_copy_to(set, "mram_out", 8, buf, 32);
    err = capture_end();
    expect_message(rc, DPU_ERR_INVALID_SYMBOL_ACCESS, err,
                   (const char *[]){"symbol \"mram_out\"", "MRAM", "32 bytes", "offset 8", "length 32", NULL});
    free(err);

    capture_start();
    rc = dpu_copy_to(set, "result", 2, buf, 8);
    err = capture_end();
    expect_message(rc, DPU_ERR_INVALID_WRAM_ACCESS, err,
                   (const char *[]){"symbol \"result\"", "offset 2", "length 8", "multiples of 4", NULL});
    free(err);

    /* by symbol handle: the name is found from the address */
    struct dpu_set_t dpu;
    DPU_FOREACH(set, dpu) {
        struct dpu_symbol_t sym;
        CHECK_EQ(dpu_get_symbol(prog, "divisor", &sym), DPU_OK);
        capture_start();
        rc = dpu_copy_to_symbol(dpu, sym, 0, buf, 8);
        err = capture_end();
        expect_message(rc, DPU_ERR_INVALID_SYMBOL_ACCESS, err,
                       (const char *[]){"symbol \"divisor\"", "WRAM", "4 bytes", "offset 0", "length 8", NULL});
        free(err);
        break;
    }
}

static void set_modes(struct dpu_set_t set, uint32_t mode)
{
    DPU_ASSERT(dpu_broadcast_to(set, "mode", 0, &mode, 4, DPU_XFER_DEFAULT));
}

/* Every DPU of the set faults: four lines in set order, then the rest counted. */
static void fault_lines(struct dpu_set_t set, unsigned nr)
{
    set_modes(set, 3);
    capture_start();
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    char *err = capture_end();
    const char *at = err;
    for (unsigned i = 0; i < 4 && i < nr; i++) {
        char want[64];
        snprintf(want, sizeof want, "openpim: DPU %u of the set (machine DPU ", i);
        const char *line = strstr(at, want);
        if (!line)
            fprintf(stderr, "no line starting \"%s\" after the previous one\n", want);
        CHECK(line != NULL);
        if (line)
            at = line + 1;
    }
    char more[64];
    snprintf(more, sizeof more, "... and %u more faulting DPUs", nr - 4);
    CHECK(strstr(err, more) != NULL);
    CHECK(strstr(openpim_last_error(), more) != NULL);
    free(err);
}

/* The store past the end of WRAM (mode 3) is in main, on the line after its comment. */
static void fault_source(struct dpu_set_t set, int with_debug_info)
{
    set_modes(set, 3);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    unsigned want_line = line_after("case 3: /* store past the end of WRAM */");
    struct dpu_set_t dpu;
    DPU_FOREACH(set, dpu) {
        struct openpim_fault f;
        CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
        CHECK(f.faulted && strcmp(f.kind, "memory") == 0);
        CHECK(f.pc != 0);
        CHECK(strcmp(f.function, "main") == 0);
        if (with_debug_info) {
            size_t n = strlen(f.file), m = strlen("dpu_faults.c");
            CHECK(n >= m && strcmp(f.file + n - m, "dpu_faults.c") == 0);
            CHECK_EQ(f.line, want_line);
        } /* without -g the build's own flags decide whether DWARF is there */
        printf("mode 3: pc 0x%08x %s:%u in %s\n", f.pc, f.file, f.line, f.function);
    }
    /* a fault found by a runtime service (DMA past the end of MRAM): its caller's PC */
    set_modes(set, 1);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    DPU_FOREACH(set, dpu) {
        struct openpim_fault f;
        CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
        CHECK(f.faulted && strcmp(f.kind, "dma") == 0);
        CHECK(f.pc != 0 && f.function[0] != 0);
        printf("mode 1: pc 0x%08x %s:%u in %s\n", f.pc, f.file, f.line, f.function);
        if (with_debug_info)
            CHECK(f.line != 0);
    }
    /* no fault: nothing */
    set_modes(set, 0);
    uint32_t one = 1;
    DPU_ASSERT(dpu_broadcast_to(set, "divisor", 0, &one, 4, DPU_XFER_DEFAULT));
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    DPU_FOREACH(set, dpu) {
        struct openpim_fault f;
        CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
        CHECK(!f.faulted && f.pc == 0 && f.file[0] == 0 && f.function[0] == 0);
    }
}

int main(void)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(NR, NULL, &set));
    struct dpu_program_t *prog;
    DPU_ASSERT(dpu_load(set, "./dpu_faults", &prog));
    transfers(set, prog);
    fault_lines(set, NR);
    fault_source(set, 0);
    DPU_ASSERT(dpu_load(set, "./dpu_faults_g", NULL));
    fault_source(set, 1);
    DPU_ASSERT(dpu_free(set));
    return check_done("test_diagnostics");
}
