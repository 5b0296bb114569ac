/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include "pim_app.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const pim_phase_names[PH_COUNT] = {"kernel",  "reduce_scatter", "allreduce", "allgather",
                                               "scatter", "gather",         "broadcast", "other"};

double pim_total_us(const struct pim_times *t)
{
    double s = 0;
    for (int i = 0; i < PH_COUNT; i++)
        s += t->us[i];
    return s;
}

double pim_comm_us(const struct pim_times *t)
{
    return t->us[PH_REDUCE_SCATTER] + t->us[PH_ALLREDUCE] + t->us[PH_ALLGATHER];
}

void pim_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "error: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

uint64_t pim_parse_u64(const char *opt, const char *text, uint64_t lo, uint64_t hi)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = text ? strtoull(text, &end, 10) : 0;
    if (!text || end == text || *end || errno || text[0] == '-' || v < lo || v > hi)
        pim_die("%s: expected a whole number in [%llu, %llu], got '%s'", opt, (unsigned long long)lo,
                (unsigned long long)hi, text ? text : "(nothing)");
    return v;
}

openpim_comm_impl pim_parse_impl(const char *text)
{
    if (text && !strcmp(text, "baseline"))
        return OPENPIM_COMM_BASELINE;
    if (text && !strcmp(text, "optimised"))
        return OPENPIM_COMM_OPTIMISED;
    pim_die("--impl: expected 'baseline' or 'optimised', got '%s'", text ? text : "(nothing)");
}

const char *pim_impl_name(openpim_comm_impl impl)
{
    return impl == OPENPIM_COMM_BASELINE ? "baseline" : "optimised";
}

double pim_cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static FILE *open_csv(const char *path, const char *header)
{
    FILE *f = fopen(path, "a");
    if (!f)
        pim_die("cannot open %s: %s", path, strerror(errno));
    if (ftell(f) == 0)
        fprintf(f, "%s\n", header);
    return f;
}

void pim_write_rows(const char *csv, const char *steps, const char *app, const char *variant, uint32_t pes,
                    const char *dtype, double total_us, double kernel_us, double comm_us, double host_us,
                    double cpu_us, int n, const char *const names[], const double us[])
{
    if (csv && *csv) {
        FILE *f = open_csv(csv, "app,variant,pes,dtype,total_us,kernel_us,comm_us,host_us,cpu_us");
        fprintf(f, "%s,%s,%u,%s,%.3f,%.3f,%.3f,%.3f,%.3f\n", app, variant, pes, dtype, total_us, kernel_us, comm_us,
                host_us, cpu_us);
        fclose(f);
    }
    if (steps && *steps) {
        FILE *f = open_csv(steps, "app,variant,pes,dtype,phase,us");
        for (int i = 0; i < n; i++)
            fprintf(f, "%s,%s,%u,%s,%s,%.3f\n", app, variant, pes, dtype, names[i], us[i]);
        fclose(f);
    }
}

void pim_write_csv(const char *csv, const char *breakdown, const char *app, const char *variant, uint32_t pes,
                   const char *dtype, const struct pim_times *t, double cpu_us)
{
    double comm = pim_comm_us(t), kern = t->us[PH_KERNEL], tot = pim_total_us(t);
    pim_write_rows(csv, breakdown, app, variant, pes, dtype, tot, kern, comm, tot - kern - comm, cpu_us, PH_COUNT,
                   pim_phase_names, t->us);
}

uint32_t pim_mram_take(struct pim_mram *m, uint64_t bytes, const char *what)
{
    uint64_t at = m->next, size = (bytes + 7) & ~7ull;
    if (at + size > m->limit)
        pim_die("%s does not fit in MRAM (%llu bytes needed past offset %llu, %llu available)", what,
                (unsigned long long)size, (unsigned long long)at, (unsigned long long)(m->limit - at));
    m->next = at + size;
    return (uint32_t)at;
}
