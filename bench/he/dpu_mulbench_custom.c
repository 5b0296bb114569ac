/* SPDX-License-Identifier: MIT */
#define HE_MUL_CUSTOM
#define SUFFIX custom
#include "dpu_mulbench_loops.h"
