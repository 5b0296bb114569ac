/* SPDX-License-Identifier: MIT */
/* fault, host side.
 *
 * For each fault mode: allocate the DPUs, load the program, make ONE DPU
 * (the victim) misbehave, launch, and check that
 *   - dpu_launch returns DPU_ERR_DPU_FAULT for the modes that fault and
 *     DPU_OK for the others.  Integer division is software on a DPU: x / 0
 *     stops the DPU with the runtime's "fault 2 (Division by Zero)" (and must
 *     not take the host process down with it), while INT32_MIN / -1 does
 *     not fault: the value it produces is reported;
 *   - dpu_status agrees;
 *   - every other DPU finished normally: its WRAM results and its MRAM
 *     pattern are intact;
 *   - the victim's memory can still be read;
 *   - the same DPUs then run again normally (after a fault, once the program
 *     is reloaded: the fault leaves WRAM as it was, barriers included);
 * and that the host process itself carries on after all of it.
 *
 * SDK calls whose failure is part of the test are checked by hand; the
 * others use DPU_ASSERT.  dpu_error_to_string returns heap memory: freed.
 *
 * Usage: bin/host_app [-d nr_dpus]   (default NR_DPUS; a handful is enough)
 */
#define _POSIX_C_SOURCE 200809L

#include <dpu.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#ifndef DPU_BINARY
#define DPU_BINARY "./bin/dpu_task"
#endif

#define EXAMPLE "fault"
#define PATTERN_BYTES (NR_TASKLETS * PATTERN_WORDS * 8u)

__attribute__((format(printf, 1, 2), noreturn)) static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("[ERROR] " EXAMPLE ": ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    exit(EXIT_FAILURE);
}

static uint32_t parse_count(const char *text, const char *what)
{
    char *end = NULL;
    unsigned long long value = strtoull(text, &end, 0);
    if (end == text || *end != '\0' || value == 0 || value > UINT32_MAX) {
        fail("invalid %s '%s'", what, text);
    }
    return (uint32_t)value;
}

static const char *const mode_names[NR_MODES] = {
    [MODE_NONE] = "none",
    [MODE_MRAM_READ_PAST_END] = "mram_read past 64 MB",
    [MODE_BAD_WRAM_POINTER] = "store past the end of WRAM",
    [MODE_HEAP_OVERFLOW] = "mem_alloc overflow",
    [MODE_HALT] = "halt()",
    [MODE_ASSERT] = "failed assert",
    [MODE_DIVIDE_BY_ZERO] = "division by zero",
    [MODE_DIVIDE_OVERFLOW] = "INT32_MIN / -1",
};

static bool mode_faults(uint32_t mode)
{
    return mode != MODE_NONE && mode != MODE_DIVIDE_OVERFLOW;
}

static uint32_t mode_param(uint32_t mode)
{
    switch (mode) {
    case MODE_MRAM_READ_PAST_END:
        return 64u << 20; /* bytes after the heap start: beyond the 64 MB MRAM */
    case MODE_BAD_WRAM_POINTER:
        return 1u << 20; /* bytes after a WRAM variable: beyond the 64 KB WRAM */
    case MODE_HEAP_OVERFLOW:
        return 1u << 20; /* bytes: more than the 64 KB WRAM */
    case MODE_ASSERT:
        return 1; /* the DPU asserts param == 0 */
    default:
        return 0;
    }
}

/* Copies the SDK's name for an error into buf (dpu_error_to_string returns
 * heap memory, which is freed here). */
static const char *error_name(dpu_error_t error, char *buf, size_t size)
{
    char *text = dpu_error_to_string(error);
    snprintf(buf, size, "%s", text != NULL ? text : "(null)");
    free(text);
    return buf;
}

/* Arguments of DPU d: the victim gets `mode`, everyone else MODE_NONE. */
static void make_arguments(dpu_arguments_t *args, uint32_t nr_dpus, uint32_t victim, uint32_t mode,
                           uint32_t round)
{
    for (uint32_t d = 0; d < nr_dpus; d++) {
        dpu_arguments_t *a = &args[d];
        memset(a, 0, sizeof(*a));
        a->mode = d == victim ? mode : MODE_NONE;
        a->seed = 1000 * round + 17 * d + 1;
        a->param = mode_param(a->mode);
        a->udividend = 4000000000u - d;
        a->udivisor = 7 + d;
        a->sdividend = -2000000000 + (int32_t)d;
        a->sdivisor = -3 - (int32_t)d;
        if (a->mode == MODE_DIVIDE_BY_ZERO) {
            a->udivisor = 0;
            a->sdivisor = 0;
        } else if (a->mode == MODE_DIVIDE_OVERFLOW) {
            a->sdividend = INT32_MIN;
            a->sdivisor = -1;
        }
    }
}

/* Whether DPU d's results and MRAM pattern are what a normal run gives; for
 * the division modes, the division results are not checked. */
static bool dpu_intact(const dpu_arguments_t *a, const dpu_result_t *r, const uint64_t *pattern,
                       char *why, size_t size)
{
    uint64_t checksum = 0;
    for (uint32_t t = 0; t < NR_TASKLETS; t++) {
        for (uint32_t k = 0; k < PATTERN_WORDS; k++) {
            uint64_t want = pattern_word(a->seed, t, k);
            checksum += want;
            if (pattern[t * PATTERN_WORDS + k] != want) {
                snprintf(why, size, "MRAM word %u of tasklet %u is 0x%016" PRIx64
                         ", expected 0x%016" PRIx64,
                         k, t, pattern[t * PATTERN_WORDS + k], want);
                return false;
            }
        }
    }
    if (r->checksum != checksum || r->tasklets_done != NR_TASKLETS) {
        snprintf(why, size, "results: checksum 0x%016" PRIx64 " (expected 0x%016" PRIx64
                 "), %" PRIu32 " tasklets done (expected %d)",
                 r->checksum, checksum, r->tasklets_done, NR_TASKLETS);
        return false;
    }
    if (a->mode != MODE_DIVIDE_BY_ZERO && a->mode != MODE_DIVIDE_OVERFLOW &&
        (r->uquotient != a->udividend / a->udivisor || r->uremainder != a->udividend % a->udivisor ||
         r->squotient != a->sdividend / a->sdivisor || r->sremainder != a->sdividend % a->sdivisor)) {
        snprintf(why, size, "divisions: %" PRIu32 "/%" PRIu32 " = %" PRIu32 " r %" PRIu32
                 ", %" PRId32 "/%" PRId32 " = %" PRId32 " r %" PRId32,
                 a->udividend, a->udivisor, r->uquotient, r->uremainder, a->sdividend, a->sdivisor,
                 r->squotient, r->sremainder);
        return false;
    }
    return true;
}

struct context {
    struct dpu_set_t set;
    uint32_t nr_dpus;
    dpu_arguments_t *args;
    dpu_result_t *results;
    uint64_t *patterns;
};

static void push_arguments(struct context *c)
{
    struct dpu_set_t dpu;
    uint32_t i;
    DPU_FOREACH(c->set, dpu, i) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &c->args[i]));
    }
    DPU_ASSERT(dpu_push_xfer(c->set, DPU_XFER_TO_DPU, "DPU_INPUT_ARGUMENTS", 0,
                             sizeof(dpu_arguments_t), DPU_XFER_DEFAULT));
}

/* Reads results and patterns of all DPUs except `skip` (UINT32_MAX: none);
 * DPUs without a prepared buffer are left out of a push. */
static void read_outputs(struct context *c, uint32_t skip)
{
    struct dpu_set_t dpu;
    uint32_t i;
    DPU_FOREACH(c->set, dpu, i) {
        if (i != skip) {
            DPU_ASSERT(dpu_prepare_xfer(dpu, &c->results[i]));
        }
    }
    DPU_ASSERT(dpu_push_xfer(c->set, DPU_XFER_FROM_DPU, "DPU_RESULTS", 0, sizeof(dpu_result_t),
                             DPU_XFER_DEFAULT));
    DPU_FOREACH(c->set, dpu, i) {
        if (i != skip) {
            DPU_ASSERT(dpu_prepare_xfer(dpu, &c->patterns[(size_t)i * NR_TASKLETS * PATTERN_WORDS]));
        }
    }
    DPU_ASSERT(dpu_push_xfer(c->set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0,
                             PATTERN_BYTES, DPU_XFER_DEFAULT));
}

/* What one mode produced, for the summary line. */
struct outcome {
    char fault_name[128];   /* the SDK's text for the launch status */
    dpu_result_t victim;    /* the victim's results (modes without a fault) */
};

/* (Long texts are cut to fit the buffer.) */
#define MODE_FAIL(...)                                                                             \
    do {                                                                                           \
        if (snprintf(err, err_size, __VA_ARGS__) < 0) {                                            \
            err[0] = '\0';                                                                         \
        }                                                                                          \
        return false;                                                                              \
    } while (0)

/* Runs one mode on the allocated, loaded set; false with a reason in err when
 * the SDK did not report what was expected. */
static bool run_mode(struct context *c, uint32_t victim, uint32_t mode, struct outcome *out, char *err,
                     size_t err_size)
{
    char got_name[128], want_name[128], why[256];
    struct dpu_set_t dpu, victim_dpu = c->set;
    uint32_t i;
    DPU_FOREACH(c->set, dpu, i) {
        if (i == victim) {
            victim_dpu = dpu;
        }
    }

    /* ---- the faulty launch ---- */
    make_arguments(c->args, c->nr_dpus, victim, mode, 1);
    push_arguments(c);
    const dpu_error_t expected = mode_faults(mode) ? DPU_ERR_DPU_FAULT : DPU_OK;
    const dpu_error_t status = dpu_launch(c->set, DPU_SYNCHRONOUS);
    error_name(status, out->fault_name, sizeof(out->fault_name));
    if (status != expected) {
        MODE_FAIL("dpu_launch returned %d (%s), expected %d (%s)", (int)status, out->fault_name,
                  (int)expected, error_name(expected, want_name, sizeof(want_name)));
    }

    bool done = false, fault = false;
    DPU_ASSERT(dpu_status(c->set, &done, &fault));
    if (!done || fault != mode_faults(mode)) {
        MODE_FAIL("dpu_status says done=%d fault=%d after the launch", (int)done, (int)fault);
    }

    /* The other DPUs are intact (and, without a fault, the victim too). */
    memset(c->results, 0, c->nr_dpus * sizeof(dpu_result_t));
    read_outputs(c, mode_faults(mode) ? victim : UINT32_MAX);
    for (uint32_t d = 0; d < c->nr_dpus; d++) {
        if (d == victim && mode_faults(mode)) {
            continue;
        }
        if (!dpu_intact(&c->args[d], &c->results[d],
                        &c->patterns[(size_t)d * NR_TASKLETS * PATTERN_WORDS], why, sizeof(why))) {
            MODE_FAIL("DPU %" PRIu32 " damaged: %s", d, why);
        }
    }
    out->victim = c->results[victim];

    /* The faulty DPU's memory can still be read. */
    dpu_result_t victim_result;
    dpu_error_t copy_status = dpu_copy_from(victim_dpu, "DPU_RESULTS", 0, &victim_result,
                                            sizeof(victim_result));
    if (copy_status != DPU_OK) {
        MODE_FAIL("reading the victim's WRAM returned %s",
                  error_name(copy_status, got_name, sizeof(got_name)));
    }

    /* ---- everything runs again, correctly ----
     * A fault stops the DPU wherever its tasklets were: WRAM keeps what the
     * faulty run left (here, a barrier that the other tasklets were waiting
     * at), and a launch does not re-initialise WRAM.  Reload the program
     * first, as on real hardware. */
    if (mode_faults(mode)) {
        DPU_ASSERT(dpu_load(c->set, DPU_BINARY, NULL));
    }
    make_arguments(c->args, c->nr_dpus, victim, MODE_NONE, 2);
    push_arguments(c);
    const dpu_error_t again = dpu_launch(c->set, DPU_SYNCHRONOUS);
    if (again != DPU_OK) {
        MODE_FAIL("the launch after it returned %s", error_name(again, got_name, sizeof(got_name)));
    }
    memset(c->results, 0, c->nr_dpus * sizeof(dpu_result_t));
    read_outputs(c, UINT32_MAX);
    for (uint32_t d = 0; d < c->nr_dpus; d++) {
        if (!dpu_intact(&c->args[d], &c->results[d],
                        &c->patterns[(size_t)d * NR_TASKLETS * PATTERN_WORDS], why, sizeof(why))) {
            MODE_FAIL("in the launch after it, DPU %" PRIu32 " is wrong: %s", d, why);
        }
    }
    return true;
}

int main(int argc, char **argv)
{
    uint32_t nr_dpus = NR_DPUS;
    int opt;

    while ((opt = getopt(argc, argv, "d:h")) != -1) {
        switch (opt) {
        case 'd':
            nr_dpus = parse_count(optarg, "DPU count");
            break;
        default:
            fprintf(stderr, "usage: %s [-d nr_dpus]\n", argv[0]);
            return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
        }
    }
    /* A victim with a neighbour on each side when possible. */
    const uint32_t victim = nr_dpus > 1 ? 1 : 0;

    struct context c = {.nr_dpus = nr_dpus};
    c.args = calloc(nr_dpus, sizeof(dpu_arguments_t));
    c.results = calloc(nr_dpus, sizeof(dpu_result_t));
    c.patterns = calloc((size_t)nr_dpus * NR_TASKLETS * PATTERN_WORDS, sizeof(uint64_t));
    if (c.args == NULL || c.results == NULL || c.patterns == NULL) {
        fail("out of host memory");
    }

    struct outcome outcomes[NR_MODES];
    char failures[2048] = "", err[512];
    uint32_t nr_failures = 0, faulting_modes = 0;
    memset(outcomes, 0, sizeof(outcomes));

    for (uint32_t mode = 0; mode < NR_MODES; mode++) {
        uint32_t allocated = 0;
        DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &c.set));
        DPU_ASSERT(dpu_get_nr_dpus(c.set, &allocated));
        if (allocated != nr_dpus) {
            fail("asked for %" PRIu32 " DPUs, got %" PRIu32, nr_dpus, allocated);
        }
        DPU_ASSERT(dpu_load(c.set, DPU_BINARY, NULL));

        if (!run_mode(&c, victim, mode, &outcomes[mode], err, sizeof(err))) {
            size_t used = strlen(failures);
            if (snprintf(failures + used, sizeof(failures) - used, "%smode '%s': %s",
                         nr_failures == 0 ? "" : "; ", mode_names[mode], err) < 0) {
                failures[used] = '\0';
            }
            nr_failures++;
        }
        if (mode_faults(mode)) {
            faulting_modes++;
        }
        DPU_ASSERT(dpu_free(c.set));
    }

    free(c.args);
    free(c.results);
    free(c.patterns);

    /* Still here: the host process survived every DPU fault. */
    if (nr_failures != 0) {
        fail("%" PRIu32 " of %d modes not as expected (victim DPU %" PRIu32 " of %" PRIu32 "): %s",
             nr_failures, NR_MODES, victim, nr_dpus, failures);
    }

    /* What the victim computed for INT32_MIN / -1 (see make_arguments). */
    const dpu_result_t *divov = &outcomes[MODE_DIVIDE_OVERFLOW].victim;
    printf("[OK] " EXAMPLE ": %" PRIu32 " faulting modes (division by zero included) on DPU %" PRIu32
           " of %" PRIu32 " -> \"%s\", other DPUs intact, reload+relaunch fine, host alive; "
           "INT32_MIN/-1 on the DPU = %" PRId32 " r %" PRId32 " (no fault)\n",
           faulting_modes, victim, nr_dpus, outcomes[MODE_HALT].fault_name, divov->squotient,
           divov->sremainder);
    return EXIT_SUCCESS;
}
