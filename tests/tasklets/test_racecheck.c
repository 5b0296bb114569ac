/* SPDX-License-Identifier: MIT */
/* The race detector (OPENPIM_RACECHECK, worker/racecheck.h), on race-checked
 * images: each planted race is reported once, naming both source lines
 * (found in the DPU sources by their RACE markers), on several DPUs and two
 * workers; programs whose shared data the runtime's synchronisation orders
 * get no report.  With argument "fault" (OPENPIM_RACECHECK=fault) the first
 * race stops the DPU with a "race" fault naming the sites.
 * The workers' reports go to this process's stderr: it is a file here, read
 * back after each launch (and printed at the end). */
#define _GNU_SOURCE
#include <dpu.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static char captured[1 << 16];
static size_t seen_upto;
static int capture_fd;

/* The reports written since the last call (one per line). */
static const char *new_output(void)
{
    static char out[sizeof captured];
    ssize_t n = pread(capture_fd, captured, sizeof captured - 1, 0);
    captured[n > 0 ? n : 0] = 0;
    size_t len = strlen(captured);
    snprintf(out, sizeof out, "%s", captured + (seen_upto < len ? seen_upto : len));
    seen_upto = len;
    return out;
}

static unsigned count_of(const char *text, const char *what)
{
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* "file.c:N (main)" for the line of `file` (in SRC_DIR) holding `marker`. */
static void site_of(const char *file, const char *marker, char *out, size_t len)
{
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/%s", SRC_DIR, file);
    FILE *f = fopen(path, "r");
    unsigned n = 0;
    snprintf(out, len, "(marker %s not found in %s)", marker, file);
    while (f && fgets(line, sizeof line, f)) {
        n++;
        char *m = strstr(line, marker);
        if (m && (m[strlen(marker)] == ' ' || m[strlen(marker)] == ':')) {
            snprintf(out, len, "%s:%u (main)", file, n);
            break;
        }
    }
    if (f)
        fclose(f);
}

static dpu_error_t run(const char *image, unsigned dpus, uint32_t iterations)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(dpus, "workers=2", &set));
    DPU_ASSERT(dpu_load(set, image, NULL));
    if (iterations)
        DPU_ASSERT(dpu_broadcast_to(set, "iterations", 0, &iterations, 4, DPU_XFER_DEFAULT));
    dpu_error_t e = dpu_launch(set, DPU_SYNCHRONOUS);
    DPU_ASSERT(dpu_free(set));
    return e;
}

/* Exactly `reports` race lines, each naming site a and site b. */
static void expect(const char *what, const char *out, unsigned reports, const char *a, const char *b)
{
    unsigned n = count_of(out, "data race");
    if (n != reports)
        fprintf(stderr, "%s: %u reports, expected %u:\n%s", what, n, reports, out);
    CHECK_EQ(n, reports);
    for (const char *line = out; reports && line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char one[1024];
        snprintf(one, sizeof one, "%.*s", (int)len, line);
        if (strstr(one, "data race")) {
            /* both sites, the second after the first (a line naming a twice for a == b) */
            const char *p = strstr(one, a);
            CHECK(p != NULL);
            CHECK(p && strstr(p + strlen(a), b) ? 1 : (strstr(one, b) && strstr(strstr(one, b) + strlen(b), a)));
        }
        line = end ? end + 1 : NULL;
    }
}

/* dpu_race_<name> on `dpus` DPUs: one report naming its RACE_W and RACE_R lines. */
static const char *planted(const char *name, unsigned dpus)
{
    char src[64], image[64], w[128], r[128];
    snprintf(src, sizeof src, "dpu_race_%s.c", name);
    snprintf(image, sizeof image, "./dpu_race_%s", name);
    site_of(src, "RACE_W", w, sizeof w);
    site_of(src, "RACE_R", r, sizeof r);
    CHECK_EQ(run(image, dpus, 0), DPU_OK);
    const char *out = new_output();
    expect(name, out, 1, w, r);
    return out;
}

static void warn_mode(void)
{
    char w[128];
    /* the counter: a read and a write pair, a write and a write pair; once
     * each, whatever the number of DPUs and workers */
    site_of("dpu_race_counter.c", "RACE", w, sizeof w);
    CHECK_EQ(run("./dpu_race_counter", 4, 0), DPU_OK);
    const char *out = new_output();
    expect("counter", out, 2, w, w);
    CHECK_EQ(count_of(out, "writes it at"), 2); /* the later access of each pair */
    CHECK_EQ(count_of(out, "wrote it at"), 1);
    CHECK_EQ(count_of(out, "read it at"), 1);
    CHECK(strstr(out, "(counter) (4 bytes)") != NULL);

    /* MRAM through DMA: the write's and the read's call sites, all 32 bytes */
    out = planted("dma", 3);
    CHECK(strstr(out, "data race on MRAM 0x08000000 (block) (32 bytes)") != NULL);

    /* the payload behind a volatile flag; not the flag */
    out = planted("flag", 2);
    CHECK(strstr(out, "(payload)") != NULL && strstr(out, "(ready)") == NULL);

    /* mutex, barrier (WRAM and MRAM), handshake chain, semaphore: silent, and
     * each shared value what the synchronisation makes it (4 tasklets) */
    struct dpu_set_t set, dpu;
    uint32_t iterations = 50;
    DPU_ASSERT(dpu_alloc(3, "workers=2", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_race_free", NULL));
    DPU_ASSERT(dpu_broadcast_to(set, "iterations", 0, &iterations, 4, DPU_XFER_DEFAULT));
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    DPU_FOREACH(set, dpu) {
        uint32_t counter, total, chain, token;
        DPU_ASSERT(dpu_copy_from(dpu, "counter", 0, &counter, 4));
        DPU_ASSERT(dpu_copy_from(dpu, "total", 0, &total, 4));
        DPU_ASSERT(dpu_copy_from(dpu, "chain", 0, &chain, 4));
        DPU_ASSERT(dpu_copy_from(dpu, "token", 0, &token, 4));
        CHECK_EQ(counter, 4 * iterations);
        CHECK_EQ(total, 1 + 2 + 3 + 4);
        CHECK_EQ(chain, 0 + 1 + 2 + 3);
        CHECK_EQ(token, 100);
    }
    DPU_ASSERT(dpu_free(set));
    expect("race-free", new_output(), 0, "", "");

    /* an image built without race checks: said once */
    CHECK_EQ(run("./dpu_lost_updates_t3", 1, 10), DPU_OK);
    out = new_output();
    CHECK_EQ(count_of(out, "built without race checks"), 1);
    CHECK_EQ(count_of(out, "data race"), 0);
}

static void fault_mode(void)
{
    char w[128];
    site_of("dpu_race_counter.c", "RACE", w, sizeof w);
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(2, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_race_counter", NULL));
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_DPU_FAULT);
    DPU_FOREACH(set, dpu) {
        struct openpim_fault f;
        DPU_ASSERT(openpim_get_fault(dpu, &f));
        CHECK(f.faulted && strcmp(f.kind, "race") == 0);
        CHECK(strstr(f.message, "data race on counter (WRAM") != NULL);
        CHECK_EQ(count_of(f.message, w), 2);
    }
    DPU_ASSERT(dpu_free(set));
    /* the full report is on stderr too, once */
    CHECK_EQ(count_of(new_output(), "no barrier, mutex, semaphore or handshake orders the two"), 1);
}

int main(int argc, char **argv)
{
    char path[] = "/tmp/openpim-racecheck-XXXXXX";
    capture_fd = mkstemp(path);
    if (capture_fd < 0)
        return 2;
    unlink(path);
    int saved = dup(2);
    dup2(capture_fd, 2); /* before the first allocation: the workers inherit it */
    if (argc > 1 && strcmp(argv[1], "fault") == 0)
        fault_mode();
    else
        warn_mode();
    dup2(saved, 2);
    seen_upto = 0;
    fputs(new_output(), stdout);
    return check_done(argc > 1 ? "test_racecheck fault" : "test_racecheck");
}
