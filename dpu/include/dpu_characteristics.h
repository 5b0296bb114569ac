/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <dpu_characteristics.h>, hardware constants of a v1A DPU. */
#ifndef DPU_CHARACTERISTICS_H
#define DPU_CHARACTERISTICS_H

#define DPU_NR_THREADS 24
#define DPU_NR_ATOMIC_BITS 256
#define DPU_NR_WORK_REGS 24

#endif
