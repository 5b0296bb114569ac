/* SPDX-License-Identifier: MIT */
/* Host time as libdpu measures it, and the optional virtual clock. */
#ifndef OPENPIM_SDK_VCLOCK_H
#define OPENPIM_SDK_VCLOCK_H

/* Real monotonic time in microseconds (never the virtual clock). */
double op_real_now_us(void);

#endif
