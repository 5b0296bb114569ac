/* SPDX-License-Identifier: MIT */
/* dpu_description.h: the emulated machine's rank characteristics, from the
 * same profile parsing as dpu_alloc (profile.c). */
#include <stdlib.h>

#include <dpu_description.h>

#include "internal.h"

#define IRAM_INSTRUCTIONS 4096 /* 24 KB of 48-bit instructions, v1A and v1B */
#define ATOMIC_BITS 256
#define NOTIFY_BITS 40
#define WORK_REGISTERS 24
#define CLOCK_DIVISION 2

dpu_error_t dpu_get_profile_description(const char *profile, dpu_description_t *description)
{
    if (!description)
        return DPU_ERR_INTERNAL;
    struct op_profile p;
    char err[256] = "";
    dpu_error_t rc = op_profile_parse(profile, &p, err, sizeof err);
    if (rc != DPU_OK) {
        op_warn("dpu_get_profile_description: %s", err);
        return rc;
    }
    const struct op_machine_desc *d = &p.machine.desc;
    dpu_description_t desc = calloc(1, sizeof *desc);
    if (!desc)
        return DPU_ERR_SYSTEM;
    desc->hw.signature.chip_id = d->wram_bytes < 65536 ? vD_asic8_v1_4 : vD_asic8;
    desc->hw.timings.clock_division = CLOCK_DIVISION;
    desc->hw.timings.fck_frequency_in_mhz = (uint32_t)(d->freq_mhz * CLOCK_DIVISION + 0.5);
    desc->hw.topology.nr_of_control_interfaces = (uint8_t)d->chips_per_rank;
    desc->hw.topology.nr_of_dpus_per_control_interface = (uint8_t)d->dpus_per_chip;
    desc->hw.topology.ci_mask = (uint8_t)((1u << d->chips_per_rank) - 1);
    desc->hw.memories.mram_size = d->mram_bytes;
    desc->hw.memories.wram_size = d->wram_bytes / 4;
    desc->hw.memories.iram_size = IRAM_INSTRUCTIONS;
    desc->hw.dpu.nr_of_threads = (uint8_t)d->nr_tasklets;
    desc->hw.dpu.nr_of_atomic_bits = ATOMIC_BITS;
    desc->hw.dpu.nr_of_notify_bits = NOTIFY_BITS;
    desc->hw.dpu.nr_of_work_registers_per_thread = WORK_REGISTERS;
    desc->type = HW;
    desc->refcount = 1;
    *description = desc;
    return DPU_OK;
}

void dpu_acquire_description(dpu_description_t description)
{
    if (description)
        description->refcount++;
}

void dpu_free_description(dpu_description_t description)
{
    if (description && --description->refcount == 0)
        free(description);
}
