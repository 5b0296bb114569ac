/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <sysdef.h>, basic system types. */
#ifndef DPUSYSCORE_SYSDEF_H
#define DPUSYSCORE_SYSDEF_H

#include <dpu_characteristics.h>

/* A tasklet number (0 .. NR_TASKLETS-1). */
typedef unsigned int sysname_t;
typedef sysname_t thread_id_t;

#ifndef NR_TASKLETS
#define NR_TASKLETS 1
#endif
#ifndef NR_THREADS
#define NR_THREADS NR_TASKLETS
#endif

#endif
