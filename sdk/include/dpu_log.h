/* SPDX-License-Identifier: MIT */
#ifndef DPU_LOG_H
#define DPU_LOG_H
#include <dpu.h>
#endif
