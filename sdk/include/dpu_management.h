/* SPDX-License-Identifier: MIT */
/* OpenPIM host API: <dpu_management.h>.  Of the SDK's header, OpenPIM provides
 * the profile description (dpu_description.h); its rank and DPU structure
 * accessors (dpu_get_rank_of_type, dpu_lock_rank, dpu_get, ...) reach into the
 * SDK's internal structures and are not provided: programs using them do not
 * build.  See docs/sdk-audit.md. */
#ifndef DPU_MANAGEMENT_H
#define DPU_MANAGEMENT_H

#include <dpu_description.h>
#include <dpu_error.h>
#include <dpu_types.h>

#endif
