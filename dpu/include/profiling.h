/* OpenPIM DPU syslib: <profiling.h> is not supported.  Its section counters
 * are read by UPMEM's dpu-profiling tool, which OpenPIM does not have; use
 * perfcounter.h, or OpenPIM's modelled DPU statistics (openpim_get_dpu_stats). */
#error "OpenPIM does not support <profiling.h> (dpu-profiling sections); use <perfcounter.h>, see docs/sdk-audit.md"
