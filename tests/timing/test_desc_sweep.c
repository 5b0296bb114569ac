/* SPDX-License-Identifier: MIT */
/* Every key of the machine description changes some modelled result.  The
 * keys come from the description's own table (op_machine_desc_key_name), so
 * a key added without a figure here fails.  For each key: a new value (twice
 * the preset's, +1 where it is 0, the first item of a list; a few explicit
 * ones), then the figure the key governs, with and without it:
 *   DPU     a small DPU program exercising the operation (dpu_sync.c mode),
 *           run under UPMEM profile "key=value": cycles, instructions, time;
 *   XFER    the transfer / launch model (timing.h) over a grid of transfers;
 *   DPUS    the machine's number of DPUs (dpu_alloc of all of them);
 *   LOAD    whether a 16-tasklet program loads;
 *   MRAM    whether a host write 40 MB into MRAM is accepted;
 *   NAME    the run report's text. */
#define _GNU_SOURCE
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../timing/timing.h"
#include "check.h"

enum fig { DPU, XFER, DPUS, LOAD, MRAM, NAME };

struct spec {
    const char *key;
    enum fig fig;
    unsigned mode, tasklets; /* DPU */
    const char *value;       /* NULL: derived from the preset */
    const char *extra;       /* keys that must be given with it, at their preset values */
};

#define WRAM_LISTS "h2d_wram_ns_per_byte h2d_wram_channel_slowdown d2h_wram_ns_per_byte d2h_wram_channel_slowdown"
#define SIZE_LISTS "h2d_rank_gbps h2d_chan_gbps h2d_contention h2d_cap_gbps d2h_rank_gbps d2h_chan_gbps d2h_contention d2h_cap_gbps"

static const struct spec specs[] = {
    {"name", NAME, 0, 0, "what-if", NULL},
    {"freq_mhz", DPU, 0, 1, NULL, NULL},
    {"nr_tasklets", LOAD, 0, 0, "8", NULL},
    {"mram_bytes", MRAM, 0, 0, "33554432", NULL},
    {"wram_bytes", LOAD, 0, 0, "4096", NULL},
    {"channels", XFER, 0, 0, NULL, NULL},
    {"ranks_per_channel", XFER, 0, 0, NULL, NULL},
    {"nr_ranks", DPUS, 0, 0, "2", NULL},
    {"ranks_per_dimm", XFER, 0, 0, NULL, NULL},
    {"chips_per_rank", DPUS, 0, 0, "4", NULL},
    {"dpus_per_chip", DPUS, 0, 0, "4", NULL},
    {"rank_channels", XFER, 0, 0, NULL, NULL},
    {"revolver_cycles", DPU, 0, 1, NULL, NULL},
    {"dma_read_fixed", DPU, 9, 1, NULL, NULL},
    {"dma_write_fixed", DPU, 9, 1, NULL, NULL},
    {"dma_cycles_per_byte", DPU, 9, 1, NULL, NULL},
    {"dma_overlap_cycles", DPU, 9, 16, NULL, NULL},
    {"op_mul8", DPU, 10, 1, NULL, NULL},
    {"op_int32_mul_base", DPU, 10, 1, NULL, NULL},
    {"op_int32_mul_per_bit", DPU, 10, 1, NULL, NULL},
    {"op_int32_div_base", DPU, 10, 1, NULL, NULL},
    {"op_int32_div_per_step", DPU, 10, 1, NULL, NULL},
    {"op_int32_div_signed_extra", DPU, 10, 1, NULL, NULL},
    {"op_int64_mul", DPU, 10, 1, NULL, NULL},
    {"op_int64_div", DPU, 10, 1, NULL, NULL},
    {"op_float_add", DPU, 10, 1, NULL, NULL},
    {"op_float_mul", DPU, 10, 1, NULL, NULL},
    {"op_float_div", DPU, 10, 1, NULL, NULL},
    {"op_double_add", DPU, 10, 1, NULL, NULL},
    {"op_double_mul", DPU, 10, 1, NULL, NULL},
    {"op_double_div", DPU, 10, 1, NULL, NULL},
    {"op_conversion", DPU, 10, 1, NULL, NULL},
    {"op_fp_compare", DPU, 10, 1, NULL, NULL},
    {"rt_dma_call", DPU, 9, 1, NULL, NULL},
    {"rt_barrier_wait", DPU, 1, 2, NULL, NULL},
    {"rt_barrier_wake_per_tasklet", DPU, 1, 2, NULL, NULL},
    {"rt_mutex_lock", DPU, 2, 2, NULL, NULL},
    {"rt_mutex_unlock", DPU, 2, 2, NULL, NULL},
    {"rt_sem_take", DPU, 3, 2, NULL, NULL},
    {"rt_sem_give", DPU, 3, 2, NULL, NULL},
    {"rt_handshake_wait", DPU, 4, 2, NULL, NULL},
    {"rt_handshake_notify", DPU, 4, 2, NULL, NULL},
    {"rt_mem_alloc", DPU, 5, 1, NULL, NULL},
    {"rt_mem_reset", DPU, 6, 1, NULL, NULL},
    {"rt_perfcounter", DPU, 7, 1, NULL, NULL},
    {"rt_boot", DPU, 0, 1, NULL, NULL},
    {"xfer_size", XFER, 0, 0, NULL, SIZE_LISTS},
    {"xfer_fixed_ranks", XFER, 0, 0, "1:3:5:10:20:40", "h2d_fixed_us d2h_fixed_us"},
    {"xfer_wram_size", XFER, 0, 0, "8:256:4096:32768", WRAM_LISTS}, /* moves the knot the 2,048-B figures sit on */
    {"xfer_threads", XFER, 0, 0, "1", NULL}, /* more threads than a partial rank's 3 DPU indices move nothing */
    {"h2d_fixed_us", XFER, 0, 0, NULL, NULL},
    {"h2d_rank_gbps", XFER, 0, 0, NULL, NULL},
    {"h2d_chan_gbps", XFER, 0, 0, NULL, NULL},
    {"h2d_contention", XFER, 0, 0, NULL, NULL},
    {"h2d_cap_gbps", XFER, 0, 0, NULL, NULL},
    {"h2d_bcast_speedup", XFER, 0, 0, NULL, NULL},
    {"h2d_serial_call_us", XFER, 0, 0, NULL, NULL},
    {"h2d_direct_call_us", XFER, 0, 0, NULL, NULL},
    {"h2d_direct_speedup", XFER, 0, 0, NULL, NULL},
    {"h2d_serial_gbps", XFER, 0, 0, NULL, NULL},
    {"h2d_wram_fixed_us", XFER, 0, 0, NULL, NULL},
    {"h2d_wram_fixed_us_per_doubling", XFER, 0, 0, NULL, NULL},
    {"h2d_wram_ns_per_byte", XFER, 0, 0, NULL, NULL},
    {"h2d_wram_channel_slowdown", XFER, 0, 0, NULL, NULL},
    {"h2d_wram_bcast_factor", XFER, 0, 0, NULL, NULL},
    {"host_llc_bytes", XFER, 0, 0, "11534336", NULL}, /* 0 -> 1 byte would cache no transfer of the grid */
    {"d2h_fixed_us", XFER, 0, 0, NULL, NULL},
    {"d2h_rank_gbps", XFER, 0, 0, NULL, NULL},
    {"d2h_chan_gbps", XFER, 0, 0, NULL, NULL},
    {"d2h_contention", XFER, 0, 0, NULL, NULL},
    {"d2h_cap_gbps", XFER, 0, 0, NULL, NULL},
    {"d2h_serial_call_us", XFER, 0, 0, NULL, NULL},
    {"d2h_direct_call_us", XFER, 0, 0, NULL, NULL},
    {"d2h_direct_speedup", XFER, 0, 0, NULL, NULL},
    {"d2h_serial_gbps", XFER, 0, 0, NULL, NULL},
    {"d2h_wram_fixed_us", XFER, 0, 0, NULL, NULL},
    {"d2h_wram_fixed_us_per_doubling", XFER, 0, 0, NULL, NULL},
    {"d2h_wram_ns_per_byte", XFER, 0, 0, NULL, NULL},
    {"d2h_wram_channel_slowdown", XFER, 0, 0, NULL, NULL},
    {"launch_base_us", XFER, 0, 0, NULL, NULL},
    {"launch_mux_us", XFER, 0, 0, NULL, NULL},
    {"launch_mux_back_us", XFER, 0, 0, NULL, NULL},
};
#define NSPECS (sizeof specs / sizeof specs[0])

/* ---- the preset's values, as the description writer prints them --------- */

static char preset_text[1 << 16];

/* Value of key in the preset, in profile syntax (lists with ':'). */
static void preset_value(const char *key, char *out, size_t len)
{
    out[0] = 0;
    size_t kl = strlen(key);
    for (const char *l = preset_text; *l;) {
        const char *e = strchr(l, '\n');
        if (!e)
            e = l + strlen(l);
        if ((size_t)(e - l) > kl + 3 && !strncmp(l, key, kl) && !strncmp(l + kl, " = ", 3)) {
            const char *v = l + kl + 3, *h = strstr(v, "  # ");
            size_t n = (size_t)((h && h < e ? h : e) - v), o = 0;
            for (size_t i = 0; i < n && o + 1 < len; i++)
                if (v[i] != ' ')
                    out[o++] = v[i] == ',' ? ':' : v[i];
            out[o] = 0;
            return;
        }
        l = *e ? e + 1 : e;
    }
}

/* Twice the value (+1 where it is 0); for a list, of its first item. */
static void changed_value(const char *key, char *out, size_t len)
{
    char v[4096];
    preset_value(key, v, sizeof v);
    CHECK(v[0] != 0);
    char *rest = strchr(v, ':');
    double x = strtod(v, NULL);
    snprintf(out, len, "%.17g%s", x == 0 ? 1 : 2 * x, rest ? rest : "");
}

/* ---- figures ------------------------------------------------------------ */

static struct openpim_dpu_stats run_dpu(const char *profile, unsigned mode, unsigned tasklets)
{
    char bin[64];
    snprintf(bin, sizeof bin, "./dpu_sync_t%u", tasklets);
    struct dpu_set_t set, dpu;
    struct openpim_dpu_stats st;
    memset(&st, 0, sizeof st);
    uint32_t m = mode, n = 10, in[4] = {123456789u, 54321u, 77u, 5u};
    DPU_ASSERT(dpu_alloc(1, profile, &set));
    DPU_ASSERT(dpu_load(set, bin, NULL));
    DPU_ASSERT(dpu_copy_to(set, "mode", 0, &m, 4));
    DPU_ASSERT(dpu_copy_to(set, "n", 0, &n, 4));
    DPU_ASSERT(dpu_copy_to(set, "in", 0, in, sizeof in));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu)
        DPU_ASSERT(openpim_get_dpu_stats(dpu, &st));
    DPU_ASSERT(dpu_free(set));
    return st;
}

/* Transfers of every kind, direction, target over sizes and rank counts,
 * first access after a launch or not, and launch overheads. */
static size_t xfer_figures(const struct op_machine_desc *d, double *f, size_t cap)
{
    static const double sizes[] = {8, 2048, 3000, 65536, 500000, 1 << 20, 8 << 20, 32 << 20, 64 << 20};
    static const unsigned nranks[] = {1, 2, 3, 5, 8, 10, 20, 40};
    struct op_xfer_rank r[40];
    size_t k = 0;
    for (unsigned ni = 0; ni < sizeof nranks / sizeof nranks[0]; ni++)
        for (unsigned partial = 0; partial < 2; partial++) {
            for (unsigned i = 0; i < nranks[ni]; i++)
                r[i] = (struct op_xfer_rank){i, OP_XFER_CHANNEL_AUTO, partial ? 3 : 64};
            for (int dir = 0; dir < 2; dir++)
                for (int kind = 0; kind <= OP_XFER_DIRECT; kind++)
                    for (int target = 0; target < 2; target++)
                        for (int after = 0; after < 2; after++)
                            for (unsigned si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                                struct op_xfer_desc x = {(enum op_xfer_dir)dir, (enum op_xfer_kind)kind,
                                                         (enum op_xfer_target)target, (uint64_t)sizes[si],
                                                         nranks[ni], r, after};
                                if (k < cap)
                                    f[k++] = op_xfer_time_us(d, &x);
                            }
            if (k < cap)
                f[k++] = op_launch_overhead_us(d, r, nranks[ni], r, nranks[ni]);
        }
    return k;
}

static unsigned machine_dpus(const char *profile)
{
    struct dpu_set_t set;
    uint32_t nr = 0;
    if (dpu_alloc(DPU_ALLOCATE_ALL, profile, &set) != DPU_OK)
        return 0;
    dpu_get_nr_dpus(set, &nr);
    dpu_free(set);
    return nr;
}

static int loads(const char *profile)
{
    struct dpu_set_t set;
    if (dpu_alloc(1, profile, &set) != DPU_OK)
        return -1;
    int ok = dpu_load(set, "./dpu_sync_t16", NULL) == DPU_OK;
    dpu_free(set);
    return ok;
}

static int mram_40mb(const char *profile)
{
    struct dpu_set_t set;
    if (dpu_alloc(1, profile, &set) != DPU_OK)
        return -1;
    uint64_t v = 1;
    int ok = dpu_load(set, "./dpu_sync_t1", NULL) == DPU_OK &&
             dpu_copy_to(set, DPU_MRAM_HEAP_POINTER_NAME, 40u << 20, &v, sizeof v) == DPU_OK;
    dpu_free(set);
    return ok;
}

static void report_text(const struct op_machine_desc *d, char *out, size_t len)
{
    struct op_report *r = op_report_new(d);
    FILE *f = fmemopen(out, len, "w");
    CHECK(r && f);
    if (r && f)
        op_report_write_text(r, f);
    if (f)
        fclose(f);
    op_report_free(r);
}

int main(void)
{
    FILE *f = fmemopen(preset_text, sizeof preset_text - 1, "w");
    struct op_machine_desc base;
    CHECK(op_machine_desc_preset("v1A", &base) == 0);
    CHECK(f && op_machine_desc_write(f, &base) == 0);
    fclose(f);

    static double fa[200000], fb[200000];
    size_t nfig = xfer_figures(&base, fa, sizeof fa / sizeof fa[0]);
    CHECK(nfig < sizeof fa / sizeof fa[0]);
    unsigned nkeys = op_machine_desc_key_count(), checked = 0;
    CHECK(nkeys > 0 && op_machine_desc_key_name(nkeys) == NULL);
    for (unsigned i = 0; i < nkeys; i++) {
        const char *key = op_machine_desc_key_name(i);
        const struct spec *s = NULL;
        for (size_t j = 0; j < NSPECS; j++)
            if (!strcmp(specs[j].key, key))
                s = &specs[j];
        if (!s) {
            fprintf(stderr, "key %s: no figure in this sweep\n", key);
            CHECK(s != NULL);
            continue;
        }
        char val[4096], kv[16384], extra[8192] = "";
        if (s->value)
            snprintf(val, sizeof val, "%s", s->value);
        else
            changed_value(key, val, sizeof val);
        if (s->extra) { /* list keys that must be given together */
            char names[512];
            snprintf(names, sizeof names, "%s", s->extra);
            for (char *save = NULL, *name = strtok_r(names, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
                char pv[4096];
                preset_value(name, pv, sizeof pv);
                size_t l = strlen(extra);
                snprintf(extra + l, sizeof extra - l, ",%s=%s", name, pv);
            }
        }
        snprintf(kv, sizeof kv, "%s=%s%s", key, val, extra);
        int moved = 0;
        switch (s->fig) {
        case DPU: {
            char prof[16400];
            snprintf(prof, sizeof prof, "nrRanks=1,%s", kv);
            struct openpim_dpu_stats a = run_dpu("nrRanks=1", s->mode, s->tasklets);
            struct openpim_dpu_stats b = run_dpu(prof, s->mode, s->tasklets);
            moved = a.cycles != b.cycles || a.instructions != b.instructions || a.time_us != b.time_us;
            break;
        }
        case XFER: {
            struct op_machine_desc d = base;
            CHECK(op_machine_desc_apply(&d, kv) > 0);
            size_t n = xfer_figures(&d, fb, sizeof fb / sizeof fb[0]);
            moved = n != nfig || memcmp(fa, fb, n * sizeof *fa) != 0;
            break;
        }
        case DPUS: {
            char prof[16400];
            snprintf(prof, sizeof prof, "nrRanks=1,%s", kv);
            moved = machine_dpus("nrRanks=1") != machine_dpus(prof);
            break;
        }
        case LOAD: {
            char prof[16400];
            snprintf(prof, sizeof prof, "nrRanks=1,%s", kv);
            moved = loads("nrRanks=1") != loads(prof);
            break;
        }
        case MRAM: {
            char prof[16400];
            snprintf(prof, sizeof prof, "nrRanks=1,%s", kv);
            moved = mram_40mb("nrRanks=1") != mram_40mb(prof);
            break;
        }
        case NAME: {
            static char ta[4096], tb[4096];
            struct op_machine_desc d = base;
            CHECK(op_machine_desc_apply(&d, kv) > 0);
            report_text(&base, ta, sizeof ta);
            report_text(&d, tb, sizeof tb);
            moved = strcmp(ta, tb) != 0;
            break;
        }
        }
        if (!moved)
            fprintf(stderr, "key %s: %s changes nothing\n", key, kv);
        CHECK(moved);
        checked++;
    }
    printf("%u keys of the machine description, each changes its figure\n", checked);
    CHECK_EQ(checked, nkeys);
    return check_done("test_desc_sweep");
}
