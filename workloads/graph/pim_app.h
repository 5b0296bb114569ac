/* SPDX-License-Identifier: MIT */
/* What the PID-Comm application hosts (workloads/graph, workloads/gnn) share:
 * the modelled-time breakdown by phase (PID-Comm Figure 13's categories), the
 * benchmark CSV rows, argument parsing and error reporting. */
#ifndef OPENPIM_PIM_APP_H
#define OPENPIM_PIM_APP_H

#include <dpu.h>
#include <openpim_comm.h>
#include <stdint.h>

/* Modelled microseconds (openpim_modelled_time_us deltas) per phase. */
enum pim_phase {
    PH_KERNEL,         /* DPU kernels */
    PH_REDUCE_SCATTER, /* DPU-to-DPU collectives */
    PH_ALLREDUCE,
    PH_ALLGATHER,
    PH_SCATTER,        /* host <-> DPU data: inputs (Scatter, Broadcast), results (Gather) */
    PH_GATHER,
    PH_BROADCAST,
    PH_OTHER,          /* control: kernel arguments, the per-iteration stop flag, reloading the
                        * program after a collective that ran comm's kernel */
    PH_COUNT
};
extern const char *const pim_phase_names[PH_COUNT];

struct pim_times {
    double us[PH_COUNT];
};

/* Runs `stmt`, adding its modelled time to phase `ph` of `t`. */
#define PIM_TIMED(t, ph, stmt)                                                                                         \
    do {                                                                                                               \
        double pim_t0_ = openpim_modelled_time_us();                                                                   \
        stmt;                                                                                                          \
        (t)->us[ph] += openpim_modelled_time_us() - pim_t0_;                                                           \
    } while (0)

double pim_total_us(const struct pim_times *t);
double pim_comm_us(const struct pim_times *t); /* the DPU-to-DPU collectives */

/* Prints "<prog>: error: ..." on stderr and exits with status 2. */
__attribute__((format(printf, 1, 2), noreturn)) void pim_die(const char *fmt, ...);
#define PIM_DPU(x)                                                                                                     \
    do {                                                                                                               \
        dpu_error_t e_ = (x);                                                                                          \
        if (e_ != DPU_OK)                                                                                              \
            pim_die("%s: %s", #x, dpu_error_to_string(e_));                                                            \
    } while (0)
#define PIM_COMM(x)                                                                                                    \
    do {                                                                                                               \
        openpim_comm_status s_ = (x);                                                                                  \
        if (s_ != OPENPIM_COMM_OK)                                                                                     \
            pim_die("%s: %s", #x, openpim_comm_last_error());                                                          \
    } while (0)

/* Parses a whole decimal number in [lo, hi] or dies naming the option. */
uint64_t pim_parse_u64(const char *opt, const char *text, uint64_t lo, uint64_t hi);
/* "baseline" or "optimised" (or dies). */
openpim_comm_impl pim_parse_impl(const char *text);
const char *pim_impl_name(openpim_comm_impl impl);

/* CPU microseconds of the calling thread (CLOCK_THREAD_CPUTIME_ID): what the
 * single-threaded CPU reference costs on this host, without the time other
 * processes take from it on a shared machine (wall clock would count that). */
double pim_cpu_us(void);

/* Appends the row `app,variant,pes,dtype,total_us,kernel_us,comm_us,host_us,cpu_us`
 * to csv (header first when the file is new or empty), and one row
 * `app,variant,pes,dtype,phase,us` per phase to breakdown; NULL skips a file. */
void pim_write_csv(const char *csv, const char *breakdown, const char *app, const char *variant, uint32_t pes,
                   const char *dtype, const struct pim_times *t, double cpu_us);
/* The same rows from any breakdown (DLRM's and the MLP's steps are their own):
 * totals as given, one `...,step,us` row per name; NULL or "" skips a file. */
void pim_write_rows(const char *csv, const char *steps, const char *app, const char *variant, uint32_t pes,
                    const char *dtype, double total_us, double kernel_us, double comm_us, double host_us,
                    double cpu_us, int n, const char *const names[], const double us[]);

/* Offsets of an MRAM region list: bump allocation in 8-byte units from `base`. */
struct pim_mram {
    uint64_t next, limit;
};
uint32_t pim_mram_take(struct pim_mram *m, uint64_t bytes, const char *what);

#endif
