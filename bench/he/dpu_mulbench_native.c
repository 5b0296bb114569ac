/* SPDX-License-Identifier: MIT */
#undef HE_MUL_METHOD /* whatif.sh's, for the custom routines */
#define HE_MUL_NATIVE
#define SUFFIX native
#include "dpu_mulbench_loops.h"
