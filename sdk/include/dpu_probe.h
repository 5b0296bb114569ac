/* SPDX-License-Identifier: MIT */
/* Energy and time probes of the UPMEM SDK.  The emulator has no energy
 * counters: every call compiles and answers DPU_ERR_UNSUPPORTED. */
#ifndef DPU_PROBE_H
#define DPU_PROBE_H

#include <dpu.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum _dpu_probe_option_t { DPU_ENERGY, DPU_TIME } dpu_probe_option_t;
typedef enum _dpu_probe_scale_t { DPU_AVERAGE, DPU_ACCUMULATE, DPU_MINIMUM, DPU_MAXIMUM } dpu_probe_scale_t;

struct dpu_probe_t {
    struct dpu_set_t set;
    void *internal;
};

dpu_error_t dpu_probe_init(const char *device_name, struct dpu_probe_t *probe);
dpu_error_t dpu_probe_deinit(struct dpu_probe_t *probe);
dpu_error_t dpu_probe_start(struct dpu_probe_t *probe);
dpu_error_t dpu_probe_stop(struct dpu_probe_t *probe);
dpu_error_t dpu_probe_get(struct dpu_probe_t *probe, dpu_probe_option_t option, dpu_probe_scale_t scale,
                          double *value);

#ifdef __cplusplus
}
#endif

#endif
