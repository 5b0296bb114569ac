/* Modelled cost of the collectives' host work (see "Host cost model" in
 * openpim_comm.h): charged on the host timeline as Inter-DPU time. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "internal.h"

double comm_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

#define DEFAULT_PASS_GBPS 12.0      /* ref timing-calibration §5: SIMD copy DRAM->DRAM, one core, 11-24 GB/s */
#define DEFAULT_SCALAR_GBPS 3.0     /* same table: scalar byte loop 2.6-3.3 GB/s */
#define DEFAULT_TRANSPOSE_GBPS 30.0 /* same table: 8x8 transposes in cache, >= 30 GB/s */

static struct openpim_comm_cost_model model = {DEFAULT_PASS_GBPS, DEFAULT_SCALAR_GBPS, DEFAULT_TRANSPOSE_GBPS};

void openpim_comm_set_cost_model(const struct openpim_comm_cost_model *m)
{
    struct openpim_comm_cost_model d = {DEFAULT_PASS_GBPS, DEFAULT_SCALAR_GBPS, DEFAULT_TRANSPOSE_GBPS};
    if (m) {
        /* !(x > 0) also catches NaN */
        d.host_pass_gbps = !(m->host_pass_gbps > 0) ? DEFAULT_PASS_GBPS : m->host_pass_gbps;
        d.host_scalar_gbps = !(m->host_scalar_gbps > 0) ? DEFAULT_SCALAR_GBPS : m->host_scalar_gbps;
        d.host_transpose_gbps = !(m->host_transpose_gbps > 0) ? DEFAULT_TRANSPOSE_GBPS : m->host_transpose_gbps;
    }
    model = d;
}

struct openpim_comm_cost_model openpim_comm_get_cost_model(void)
{
    return model;
}

static void charge(const char *name, double bytes, double gbps)
{
    if (bytes <= 0)
        return;
    /* GB/s = 1e3 bytes per microsecond; failures (no allocation yet) only lose the record */
    (void)openpim_record_host_event(OPENPIM_EVENT_INTER_DPU, name, bytes / (gbps * 1e3));
}

void comm_charge_host_pass(const char *name, double bytes)
{
    charge(name, bytes, model.host_pass_gbps);
}

void comm_charge_scalar(const char *name, double bytes)
{
    charge(name, bytes, model.host_scalar_gbps);
}

void comm_charge_transpose(const char *name, double bytes)
{
    charge(name, bytes, model.host_transpose_gbps);
}
