/* SPDX-License-Identifier: MIT */
/* dpu_load in modelled time (openpim_ext.h "Estimates", sdk/report.c): the
 * image -- the code section and the WRAM image, measured here from the ELF
 * file -- written once per rank at the WRAM push rate of the machine
 * description (set here to round numbers by the profile), the ranks of one
 * channel slowed down as a WRAM push's are; an "Other" event; a reload costs
 * it again; a paused load costs nothing; openpim_estimate_load_us gives the
 * same number beforehand.  And openpim_estimate_us: each kind is what the call
 * then charges, an MRAM access after a launch included (now, forced, host side).
 *   test_load_time (in the folder of dpu_spin) */
#include <dpu.h>
#include <elf.h>
#include <math.h>
#include <openpim_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define PROGRAM "./dpu_spin"
/* the WRAM push model made linear: 100 us + 8 us per doubling of ranks, 1 us per byte, 50 % slower per
 * extra rank on a channel (every size point the same) */
#define RATES                                                                                                          \
    "h2d_wram_fixed_us=100,h2d_wram_fixed_us_per_doubling=8,h2d_wram_ns_per_byte=1000:1000:1000:1000,"                \
    "h2d_wram_channel_slowdown=0.5:0.5:0.5:0.5"

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    uint8_t *b = malloc(*len);
    if (b && fread(b, 1, *len, f) != *len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

/* Bytes a load writes to each DPU: the code section (IRAM window, from
 * 0x20000000) and the WRAM window's image up to its highest section (from
 * 0x10000000, .bss included); *mram: initialised MRAM bytes (0x08000000). */
static size_t image_bytes(const uint8_t *elf, size_t *mram)
{
    const Elf32_Ehdr *eh = (const Elf32_Ehdr *)elf;
    const Elf32_Shdr *sh = (const Elf32_Shdr *)(elf + eh->e_shoff);
    size_t text = 0, wram_hi = 0x10000000u;
    *mram = 0;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (!(sh[i].sh_flags & SHF_ALLOC) || !sh[i].sh_size)
            continue;
        uint32_t a = sh[i].sh_addr, e = a + sh[i].sh_size;
        if (a >= 0x20000000u && a < 0x30000000u && (sh[i].sh_flags & SHF_EXECINSTR))
            text += sh[i].sh_size;
        else if (a >= 0x10000000u && a < 0x20000000u && e > wram_hi)
            wram_hi = e;
        else if (a >= 0x08000000u && a < 0x10000000u && sh[i].sh_type != SHT_NOBITS)
            *mram += sh[i].sh_size;
    }
    return text + (wram_hi - 0x10000000u);
}

static double other_us(void)
{
    double us = 0;
    CHECK_EQ(openpim_category_time_us(OPENPIM_EVENT_HOST, &us), DPU_OK);
    return us;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-9;
}

/* A load on `ranks` ranks, k of them on the busiest channel. */
static void load_case(const char *topology, uint32_t ranks, uint32_t k, size_t bytes, const uint8_t *elf,
                      size_t elf_len)
{
    char profile[512];
    snprintf(profile, sizeof profile, "nrRanks=%u,%s,%s", ranks, topology, RATES);
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc_ranks(ranks, profile, &set));
    double want = 100 + 8 * log2((double)ranks) + (double)bytes * 1.0 * (1 + 0.5 * (k - 1));
    double est = -1;
    CHECK_EQ(openpim_estimate_load_us(set, elf, elf_len, &est), DPU_OK);
    CHECK(near(est, want));
    for (int again = 0; again < 2; again++) { /* a reload costs the same */
        double t0 = openpim_modelled_time_us(), o0 = other_us();
        DPU_ASSERT(dpu_load(set, PROGRAM, NULL));
        double dt = openpim_modelled_time_us() - t0;
        if (!near(dt, want))
            fprintf(stderr, "%s: load took %.6f us, expected %.6f\n", topology, dt, want);
        CHECK(near(dt, want));
        CHECK(near(other_us() - o0, want)); /* an "Other" event */
    }
    /* paused: loaded, not charged */
    double t0 = openpim_modelled_time_us();
    CHECK_EQ(openpim_timing_pause(), DPU_OK);
    DPU_ASSERT(dpu_load_from_memory(set, elf, elf_len, NULL));
    CHECK_EQ(openpim_timing_resume(), DPU_OK);
    CHECK(openpim_modelled_time_us() == t0);
    /* a bad image costs nothing and estimates nothing */
    uint8_t junk[64] = {0};
    CHECK_EQ(openpim_estimate_load_us(set, junk, sizeof junk, &est), DPU_ERR_ELF_INVALID_FILE);
    CHECK(dpu_load_from_memory(set, junk, sizeof junk, NULL) != DPU_OK);
    CHECK(openpim_modelled_time_us() == t0);
    DPU_ASSERT(dpu_free(set));
}

/* Estimates against the charges of the calls they describe. */
static void estimates(void)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(128, "nrRanks=2", &set));
    DPU_ASSERT(dpu_load(set, PROGRAM, NULL));
    static uint8_t buf[128][4096];
    double est, t0;
    /* MRAM pushes, both directions, at two sizes */
    for (int dir = 0; dir < 2; dir++)
        for (size_t bytes = 64; bytes <= 4096; bytes *= 64) {
            dpu_xfer_t d = dir ? DPU_XFER_FROM_DPU : DPU_XFER_TO_DPU;
            CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_PUSH, d, bytes, OPENPIM_ESTIMATE_NOW, &est), DPU_OK);
            uint32_t i;
            DPU_FOREACH(set, dpu, i)
                DPU_ASSERT(dpu_prepare_xfer(dpu, buf[i]));
            t0 = openpim_modelled_time_us();
            DPU_ASSERT(dpu_push_xfer(set, d, DPU_MRAM_HEAP_POINTER_NAME, 0, bytes, DPU_XFER_DEFAULT));
            CHECK(near(openpim_modelled_time_us() - t0, est));
        }
    /* WRAM (__host) */
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_WRAM, DPU_XFER_TO_DPU, 4, OPENPIM_ESTIMATE_NOW, &est), DPU_OK);
    uint32_t zero = 0, i;
    DPU_FOREACH(set, dpu, i)
        DPU_ASSERT(dpu_prepare_xfer(dpu, &zero));
    t0 = openpim_modelled_time_us();
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "iterations", 0, 4, DPU_XFER_DEFAULT));
    CHECK(near(openpim_modelled_time_us() - t0, est));
    /* a launch: its overhead, plus the kernel's own cycles */
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_LAUNCH, DPU_XFER_TO_DPU, 0, OPENPIM_ESTIMATE_NOW, &est), DPU_OK);
    t0 = openpim_modelled_time_us();
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    double dt = openpim_modelled_time_us() - t0;
    struct openpim_dpu_stats st;
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(openpim_get_dpu_stats(dpu, &st));
        break;
    }
    CHECK(near(dt, est + st.time_us));
    CHECK(est > 0);
    /* the first MRAM access after it: the estimate knows (and after_launch says so beforehand) */
    double after, forced;
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_PUSH, DPU_XFER_FROM_DPU, 64, OPENPIM_ESTIMATE_NOW, &after), DPU_OK);
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_PUSH, DPU_XFER_FROM_DPU, 64, OPENPIM_ESTIMATE_AFTER_LAUNCH, &forced), DPU_OK);
    CHECK(near(after, forced));
    DPU_FOREACH(set, dpu, i)
        DPU_ASSERT(dpu_prepare_xfer(dpu, buf[i]));
    t0 = openpim_modelled_time_us();
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, 64, DPU_XFER_DEFAULT));
    CHECK(near(openpim_modelled_time_us() - t0, after));
    double later;
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_PUSH, DPU_XFER_FROM_DPU, 64, OPENPIM_ESTIMATE_NOW, &later), DPU_OK);
    CHECK(later < after); /* the memory is back with the host */
    double host_side;
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_PUSH, DPU_XFER_FROM_DPU, 64, OPENPIM_ESTIMATE_HOST_SIDE,
                                 &host_side), DPU_OK);
    CHECK(near(host_side, later));
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_PUSH, DPU_XFER_FROM_DPU, 64, (enum openpim_estimate_when)3,
                                 &host_side), DPU_ERR_UNSUPPORTED);
    /* the rank view: 64 DPUs per rank, every group's lines */
    static uint8_t lines[16][8 * 4096];
    void *lp[16];
    for (int g = 0; g < 16; g++)
        lp[g] = lines[g];
    for (int dir = 0; dir < 2; dir++) {
        dpu_xfer_t d = dir ? DPU_XFER_FROM_DPU : DPU_XFER_TO_DPU;
        CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_VIEW, d, 4096, OPENPIM_ESTIMATE_NOW, &est), DPU_OK);
        t0 = openpim_modelled_time_us();
        DPU_ASSERT(openpim_rank_view_push(set, d, 0, lp, 8 * 4096));
        CHECK(near(openpim_modelled_time_us() - t0, est));
    }
    /* refusals */
    CHECK_EQ(openpim_estimate_us(set, (enum openpim_estimate_kind)9, DPU_XFER_TO_DPU, 8, OPENPIM_ESTIMATE_NOW, &est),
             DPU_ERR_UNSUPPORTED);
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_PUSH, (dpu_xfer_t)7, 8, OPENPIM_ESTIMATE_NOW, &est), DPU_ERR_UNSUPPORTED);
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_PUSH, DPU_XFER_TO_DPU, 8, OPENPIM_ESTIMATE_NOW, NULL), DPU_ERR_UNSUPPORTED);
    DPU_ASSERT(dpu_free(set));
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_PUSH, DPU_XFER_TO_DPU, 8, OPENPIM_ESTIMATE_NOW, &est),
             DPU_ERR_INVALID_DPU_SET);
}

/* The slowest DPU's modelled kernel time of the set's last launch. */
static double kernel_us(struct dpu_set_t set)
{
    struct dpu_set_t dpu;
    struct openpim_dpu_stats st;
    double worst = 0;
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(openpim_get_dpu_stats(dpu, &st));
        if (st.time_us > worst)
            worst = st.time_us;
    }
    return worst;
}

/* A launch's host overhead, as charged, and its estimate just before. */
static double launch_overhead(struct dpu_set_t set, double *estimate)
{
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_LAUNCH, DPU_XFER_TO_DPU, 0, OPENPIM_ESTIMATE_NOW, estimate),
             DPU_OK);
    double t0 = openpim_modelled_time_us();
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    return openpim_modelled_time_us() - t0 - kernel_us(set);
}

/* The MRAM multiplexer (calibration-sources §3.1): a launch hands a rank's MRAM
 * to its DPUs only if the host holds it (nothing launched yet, or an MRAM
 * access since the last launch); the first MRAM access after a launch takes it
 * back; WRAM (__host) accesses leave it alone.  Two ranks on one channel: their
 * hand-overs go in turn. */
static void mux_handover(void)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc_ranks(2, "nrRanks=2,nr_ranks=2,channels=1,rank_channels=0:0,launch_base_us=30,"
                                  "launch_mux_us=100,launch_mux_back_us=40", &set));
    DPU_ASSERT(dpu_load(set, PROGRAM, NULL));
    const double both = 30 + 2 * 100, none = 30, one = 30 + 100;
    double est, other;
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_LAUNCH, DPU_XFER_TO_DPU, 0, OPENPIM_ESTIMATE_AFTER_LAUNCH,
                                 &other), DPU_OK);
    CHECK(near(other, none));
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_LAUNCH, DPU_XFER_TO_DPU, 0, OPENPIM_ESTIMATE_HOST_SIDE,
                                 &other), DPU_OK);
    CHECK(near(other, both));
    /* nothing launched yet: both ranks hand their MRAM over */
    CHECK(near(launch_overhead(set, &est), both));
    CHECK(near(est, both));
    /* WRAM between two launches: nothing to hand over */
    uint32_t zero = 0, i;
    DPU_FOREACH(set, dpu, i)
        DPU_ASSERT(dpu_prepare_xfer(dpu, &zero));
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "iterations", 0, 4, DPU_XFER_DEFAULT));
    CHECK(near(launch_overhead(set, &est), none));
    CHECK(near(est, none));
    CHECK(near(launch_overhead(set, &est), none)); /* nor between two launches in a row */
    /* a WRAM read after the launch does not take the MRAM back: the first MRAM access still does */
    static uint32_t results[128];
    DPU_FOREACH(set, dpu, i)
        DPU_ASSERT(dpu_prepare_xfer(dpu, &results[i]));
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "result", 0, 4, DPU_XFER_DEFAULT));
    double after, host_side;
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_PUSH, DPU_XFER_FROM_DPU, 64, OPENPIM_ESTIMATE_AFTER_LAUNCH,
                                 &after), DPU_OK);
    CHECK_EQ(openpim_estimate_us(set, OPENPIM_ESTIMATE_PUSH, DPU_XFER_FROM_DPU, 64, OPENPIM_ESTIMATE_HOST_SIDE,
                                 &host_side), DPU_OK);
    CHECK(near(after - host_side, 2 * 40));
    static uint8_t buf[128][64];
    DPU_FOREACH(set, dpu, i)
        DPU_ASSERT(dpu_prepare_xfer(dpu, buf[i]));
    double t0 = openpim_modelled_time_us();
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, 64, DPU_XFER_DEFAULT));
    CHECK(near(openpim_modelled_time_us() - t0, after));
    /* ... and the next launch hands both ranks' MRAM over again */
    CHECK(near(launch_overhead(set, &est), both));
    /* an MRAM access to one DPU of the first rank: that rank alone */
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_copy_to(dpu, DPU_MRAM_HEAP_POINTER_NAME, 0, buf[0], 8));
        break;
    }
    CHECK(near(launch_overhead(set, &est), one));
    CHECK(near(est, one));
    /* an MRAM access with the timing paused is not charged but still takes the MRAM back,
       synchronous or not */
    for (int async = 0; async < 2; async++) {
        CHECK_EQ(openpim_timing_pause(), DPU_OK);
        DPU_FOREACH(set, dpu, i)
            DPU_ASSERT(dpu_prepare_xfer(dpu, buf[i]));
        DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, 64,
                                 async ? DPU_XFER_ASYNC : DPU_XFER_DEFAULT));
        DPU_ASSERT(dpu_sync(set));
        CHECK_EQ(openpim_timing_resume(), DPU_OK);
        CHECK(near(launch_overhead(set, &est), both));
    }
    DPU_ASSERT(dpu_free(set));
}

int main(void)
{
    size_t len = 0, mram = 0;
    uint8_t *elf = read_file(PROGRAM, &len);
    CHECK(elf != NULL);
    if (!elf)
        return check_done("test_load_time");
    size_t bytes = image_bytes(elf, &mram);
    CHECK(bytes > 0);
    CHECK_EQ(mram, 0); /* no initialised MRAM: the load is the WRAM-rate part alone */
    printf("test_load_time: %s writes %zu bytes per DPU\n", PROGRAM, bytes);
    /* two ranks on one channel (the second waits: x 1.5), on two channels, one rank */
    load_case("nr_ranks=2,channels=1,rank_channels=0:0", 2, 2, bytes, elf, len);
    load_case("nr_ranks=2,channels=2,ranks_per_dimm=1,rank_channels=0:1", 2, 1, bytes, elf, len);
    load_case("nr_ranks=1,channels=1,ranks_per_dimm=1,rank_channels=0", 1, 1, bytes, elf, len);
    estimates();
    mux_handover();
    free(elf);
    return check_done("test_load_time");
}
