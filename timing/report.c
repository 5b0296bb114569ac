/* SPDX-License-Identifier: MIT */
/* Run report: totals per category, per-launch DPU statistics, text report and
 * Chrome/Perfetto trace JSON.  Pure bookkeeping: nothing here feeds back
 * into the emulator. */
#include "timing.h"

#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS (1u << 22) /* events kept for the trace; later ones are counted only */
#define TEXT_LAUNCH_ROWS 40

static const char *const cat_names[OP_CAT_COUNT] = {"CPU-DPU", "DPU kernel", "Inter-DPU", "DPU-CPU", "Inter-host",
                                                         "Other"};

const char *op_category_name(enum op_category cat)
{
    return (unsigned)cat < OP_CAT_COUNT ? cat_names[cat] : "?";
}

/* ------------------------------------------------------------------------ */
/* launch statistics                                                         */
/* ------------------------------------------------------------------------ */

void op_launch_stats_init(struct op_launch_stats *s)
{
    memset(s, 0, sizeof *s);
    s->min_cycles = UINT64_MAX;
}

void op_launch_stats_add(struct op_launch_stats *s, unsigned dpu, const struct op_dpu_result *r)
{
    if (!s || !r)
        return;
    if (s->nr_dpus == 0 || r->cycles > s->max_cycles) {
        s->max_cycles = r->cycles;
        s->slowest_dpu = dpu;
    }
    if (r->cycles < s->min_cycles)
        s->min_cycles = r->cycles;
    s->nr_dpus++;
    s->sum_cycles += r->cycles;
    s->instructions += r->instructions;
    s->dma_read_bytes += r->dma_read_bytes;
    s->dma_write_bytes += r->dma_write_bytes;
    s->deadlocks += r->deadlock != 0;
    s->errors += r->error != 0;
}

/* ------------------------------------------------------------------------ */
/* trace JSON                                                                */
/* ------------------------------------------------------------------------ */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

int op_trace_write_json(FILE *f, const struct op_trace_event *ev, size_t n)
{
    if (!f || (!ev && n))
        return -1;
    unsigned ntracks = 0; /* rank tracks: tid = rank + 1; host: tid 0 */
    for (size_t i = 0; i < n; i++)
        if (ev[i].nr_ranks && ev[i].first_rank + ev[i].nr_ranks > ntracks)
            ntracks = ev[i].first_rank + ev[i].nr_ranks;
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
               "\"args\":{\"name\":\"OpenPIM modelled time\"}}");
    fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"host\"}}");
    for (unsigned r = 0; r < ntracks; r++) {
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"args\":{\"name\":\"rank %u\"}}",
                r + 1, r);
        fprintf(f, ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
                   "\"args\":{\"sort_index\":%u}}",
                r + 1, r + 1);
    }
    for (size_t i = 0; i < n; i++) {
        unsigned first = ev[i].nr_ranks ? ev[i].first_rank + 1 : 0;
        unsigned count = ev[i].nr_ranks ? ev[i].nr_ranks : 1;
        double dur = ev[i].dur_us > 0 ? ev[i].dur_us : 0;
        for (unsigned k = 0; k < count; k++) {
            fprintf(f, ",\n{\"name\":");
            json_string(f, ev[i].name);
            fprintf(f, ",\"cat\":");
            json_string(f, op_category_name(ev[i].cat));
            fprintf(f, ",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":%u}", ev[i].start_us, dur,
                    first + k);
        }
    }
    fprintf(f, "\n]}\n");
    return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* report                                                                    */
/* ------------------------------------------------------------------------ */

struct rep_launch {
    struct op_launch_stats s;
    double start_us, overhead_us, kernel_us;
    size_t name_off;
};

struct op_report {
    struct op_machine_desc desc;
    double clock;
    double total[OP_CAT_COUNT];
    uint64_t calls[OP_CAT_COUNT];
    struct op_trace_event *ev; /* names are offsets into names until written */
    size_t nev, capev;
    uint64_t dropped;
    char *names;
    size_t nnames, capnames;
    struct rep_launch *launches;
    size_t nlaunch, caplaunch;
    int oom;
};

struct op_report *op_report_new(const struct op_machine_desc *desc)
{
    struct op_report *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    if (desc)
        r->desc = *desc;
    else
        op_machine_desc_preset("v1A", &r->desc);
    return r;
}

void op_report_free(struct op_report *r)
{
    if (!r)
        return;
    free(r->ev);
    free(r->names);
    free(r->launches);
    free(r);
}

static size_t intern(struct op_report *r, const char *name)
{
    if (!name)
        name = "";
    size_t len = strlen(name) + 1;
    /* reuse the previous names: the SDK repeats a few names many times */
    size_t look = 0;
    for (size_t off = r->nnames; off > 0 && look < 16; look++) {
        size_t start = off - 1;
        while (start > 0 && r->names[start - 1])
            start--;
        if (strcmp(r->names + start, name) == 0)
            return start;
        off = start;
    }
    if (r->nnames + len > r->capnames) {
        size_t nc = r->capnames ? r->capnames * 2 : 4096;
        while (nc < r->nnames + len)
            nc *= 2;
        char *p = realloc(r->names, nc);
        if (!p) {
            r->oom = 1;
            return (size_t)-1;
        }
        r->names = p;
        r->capnames = nc;
    }
    memcpy(r->names + r->nnames, name, len);
    r->nnames += len;
    return r->nnames - len;
}

static void add_event(struct op_report *r, enum op_category cat, const char *name, double start, double dur,
                      unsigned first_rank, unsigned nr_ranks)
{
    if (r->nev >= MAX_EVENTS) {
        r->dropped++;
        return;
    }
    if (r->nev == r->capev) {
        size_t nc = r->capev ? r->capev * 2 : 256;
        struct op_trace_event *p = realloc(r->ev, nc * sizeof *p);
        if (!p) {
            r->oom = 1;
            r->dropped++;
            return;
        }
        r->ev = p;
        r->capev = nc;
    }
    size_t off = intern(r, name);
    if (off == (size_t)-1) {
        r->dropped++;
        return;
    }
    struct op_trace_event *e = &r->ev[r->nev++];
    e->name = (const char *)(uintptr_t)off; /* resolved when written */
    e->cat = cat;
    e->start_us = start;
    e->dur_us = dur;
    e->first_rank = first_rank;
    e->nr_ranks = nr_ranks;
}

double op_report_event(struct op_report *r, enum op_category cat, const char *name, double start_us,
                       double dur_us, unsigned first_rank, unsigned nr_ranks)
{
    if (!r || (unsigned)cat >= OP_CAT_COUNT)
        return 0.0;
    if (dur_us < 0)
        dur_us = 0;
    double start = start_us < 0 ? r->clock : start_us;
    r->total[cat] += dur_us;
    r->calls[cat]++;
    if (start + dur_us > r->clock)
        r->clock = start + dur_us;
    add_event(r, cat, name, start, dur_us, first_rank, nr_ranks);
    return start;
}

double op_report_launch(struct op_report *r, enum op_category cat, const char *name, double start_us,
                        double overhead_us, const struct op_launch_stats *s, unsigned first_rank,
                        unsigned nr_ranks)
{
    if (!r || !s)
        return 0.0;
    double kernel = op_cycles_to_us(&r->desc, s->max_cycles);
    double start = op_report_event(r, cat, name ? name : "dpu_launch", start_us, overhead_us + kernel,
                                   first_rank, nr_ranks);
    if (r->nlaunch == r->caplaunch) {
        size_t nc = r->caplaunch ? r->caplaunch * 2 : 64;
        struct rep_launch *p = realloc(r->launches, nc * sizeof *p);
        if (!p) {
            r->oom = 1;
            return start;
        }
        r->launches = p;
        r->caplaunch = nc;
    }
    struct rep_launch *l = &r->launches[r->nlaunch++];
    l->s = *s;
    l->start_us = start;
    l->overhead_us = overhead_us;
    l->kernel_us = kernel;
    l->name_off = intern(r, name ? name : "dpu_launch");
    return start;
}

double op_report_total_us(const struct op_report *r, enum op_category cat)
{
    if (!r)
        return 0.0;
    if (cat == OP_CAT_COUNT) {
        double t = 0;
        for (int i = 0; i < OP_CAT_COUNT; i++)
            t += r->total[i];
        return t;
    }
    return (unsigned)cat < OP_CAT_COUNT ? r->total[cat] : 0.0;
}

double op_report_clock_us(const struct op_report *r)
{
    return r ? r->clock : 0.0;
}

void op_report_write_text(const struct op_report *r, FILE *f)
{
    if (!r || !f)
        return;
    const struct op_machine_desc *d = &r->desc;
    unsigned dpr = d->chips_per_rank * d->dpus_per_chip;
    fprintf(f, "== OpenPIM modelled time: machine %s, server %s (%.0f MHz, %u ranks x %u DPUs, %u channels) ==\n",
            d->name, d->server[0] ? d->server : "custom", d->freq_mhz, d->nr_ranks, dpr, d->channels);
    double all = op_report_total_us(r, OP_CAT_COUNT);
    fprintf(f, "%-12s %10s %14s %7s\n", "category", "calls", "time (ms)", "share");
    for (int c = 0; c < OP_CAT_COUNT; c++)
        fprintf(f, "%-12s %10llu %14.4f %6.1f%%\n", cat_names[c], (unsigned long long)r->calls[c],
                r->total[c] / 1e3, all > 0 ? 100.0 * r->total[c] / all : 0.0);
    fprintf(f, "%-12s %10s %14.4f\n", "total", "", all / 1e3);
    fprintf(f, "%-12s %10s %14.4f  (end of the last event)\n", "timeline", "", r->clock / 1e3);
    if (r->dropped)
        fprintf(f, "note: %llu events not kept for the trace\n", (unsigned long long)r->dropped);
    if (r->nlaunch == 0)
        return;

    fprintf(f, "\nlaunches: %zu\n", r->nlaunch);
    fprintf(f, "%5s %-16s %6s %11s %11s %13s %7s %12s %12s %15s %5s %10s %10s\n", "#", "name", "dpus",
            "kernel ms", "overhd ms", "max cycles", "(dpu)", "mean cycles", "min cycles", "instructions", "IPC",
            "DMA rd MB", "DMA wr MB");
    struct op_launch_stats tot;
    op_launch_stats_init(&tot);
    double tk = 0, to = 0;
    for (size_t i = 0; i < r->nlaunch; i++) {
        const struct rep_launch *l = &r->launches[i];
        const struct op_launch_stats *s = &l->s;
        tk += l->kernel_us;
        to += l->overhead_us;
        tot.nr_dpus += s->nr_dpus;
        tot.sum_cycles += s->sum_cycles;
        tot.instructions += s->instructions;
        tot.dma_read_bytes += s->dma_read_bytes;
        tot.dma_write_bytes += s->dma_write_bytes;
        tot.deadlocks += s->deadlocks;
        tot.errors += s->errors;
        if (i >= TEXT_LAUNCH_ROWS)
            continue;
        const char *name = l->name_off == (size_t)-1 ? "" : r->names + l->name_off;
        fprintf(f, "%5zu %-16.16s %6u %11.4f %11.4f %13llu %7u %12.0f %12llu %15llu %5.2f %10.3f %10.3f\n", i,
                name, s->nr_dpus, l->kernel_us / 1e3, l->overhead_us / 1e3, (unsigned long long)s->max_cycles,
                s->slowest_dpu, s->nr_dpus ? (double)s->sum_cycles / s->nr_dpus : 0.0,
                (unsigned long long)(s->nr_dpus ? s->min_cycles : 0), (unsigned long long)s->instructions,
                s->sum_cycles ? (double)s->instructions / (double)s->sum_cycles : 0.0, (double)s->dma_read_bytes / 1e6,
                (double)s->dma_write_bytes / 1e6);
    }
    if (r->nlaunch > TEXT_LAUNCH_ROWS)
        fprintf(f, "  ... %zu more launches\n", r->nlaunch - TEXT_LAUNCH_ROWS);
    fprintf(f, "%5s %-16s %6s %11.4f %11.4f %13s %7s %12s %12s %15llu %5.2f %10.3f %10.3f\n", "all", "", "",
            tk / 1e3, to / 1e3, "", "", "", "", (unsigned long long)tot.instructions,
            tot.sum_cycles ? (double)tot.instructions / (double)tot.sum_cycles : 0.0, (double)tot.dma_read_bytes / 1e6,
            (double)tot.dma_write_bytes / 1e6);
    if (tot.deadlocks || tot.errors)
        fprintf(f, "warning: %u DPU runs deadlocked, %u had trace errors\n", tot.deadlocks, tot.errors);
}

int op_report_write_trace(const struct op_report *r, FILE *f)
{
    if (!r || !f)
        return -1;
    struct op_trace_event *ev = NULL;
    if (r->nev) {
        ev = malloc(r->nev * sizeof *ev);
        if (!ev)
            return -1;
        for (size_t i = 0; i < r->nev; i++) {
            ev[i] = r->ev[i];
            ev[i].name = r->names + (size_t)(uintptr_t)r->ev[i].name;
        }
    }
    int rc = op_trace_write_json(f, ev, r->nev);
    free(ev);
    return rc;
}
