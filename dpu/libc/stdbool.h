/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU libc: <stdbool.h>. */
#ifndef OPENPIM_DPU_STDBOOL_H
#define OPENPIM_DPU_STDBOOL_H

#ifndef __cplusplus
#define bool _Bool
#define true 1
#define false 0
#endif
#define __bool_true_false_are_defined 1

#endif
