/* SPDX-License-Identifier: MIT */
/* OpenPIM host API: <dpu_description.h>, the characteristics of the emulated
 * machine's ranks, as the UPMEM SDK's header of the same name gives them.
 *
 * dpu_get_profile_description() reads the same profile as dpu_alloc (the
 * argument between UPMEM_PROFILE_BASE and UPMEM_PROFILE): chip, topology,
 * memory sizes and clock come from OpenPIM's machine description.  The DPU
 * clock is fck_frequency_in_mhz / clock_division, as on UPMEM's servers.
 * Fields of the SDK's structure that describe the physical interface (carousel
 * and bit-shuffling settings, backend internals) are not provided: a program
 * that uses them does not build. */
#ifndef DPU_DESCRIPTION_H
#define DPU_DESCRIPTION_H

#include <stdbool.h>
#include <stdint.h>

#include <dpu_error.h>
#include <dpu_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Chip versions (SDK numbering): v1A is vD_asic8, v1B vD_asic8_v1_4. */
typedef enum _dpu_chip_id_e {
    vD_asic8 = 4,
    vD_asic8_v1_4 = 68,
} dpu_chip_id_e;

/* Backend types (SDK numbering); OpenPIM's emulated server reports HW: its
 * ranks have the hardware's topology. */
typedef enum _dpu_type_t {
    FUNCTIONAL_SIMULATOR = 0,
    CYCLE_ACCURATE_SIMULATOR = 1,
    RTL_SIMULATOR = 2,
    HW = 3,
    BACKUP_SPI = 4,
    SCENARIO = 5,
    NB_OF_DPU_TYPES = 6
} dpu_type_t;

typedef uint32_t mram_size_t; /* bytes */
typedef uint32_t wram_size_t; /* 32-bit words */
typedef uint32_t iram_size_t; /* instructions */

struct dpu_hw_description_t {
    struct {
        dpu_chip_id_e chip_id;
    } signature;
    struct {
        uint32_t fck_frequency_in_mhz; /* memory-interface clock */
        uint8_t reset_wait_duration;
        uint8_t std_temperature;
        uint8_t clock_division;        /* DPU clock = fck_frequency_in_mhz / clock_division */
    } timings;
    struct {
        uint8_t nr_of_control_interfaces;         /* chips per rank */
        uint8_t nr_of_dpus_per_control_interface; /* DPUs per chip */
        uint8_t ci_mask;                          /* working chips (all) */
    } topology;
    struct {
        mram_size_t mram_size;
        wram_size_t wram_size;
        iram_size_t iram_size;
        uint8_t ci_pc_lsb_nr_phys_bits;
    } memories;
    struct {
        uint8_t nr_of_threads;
        uint32_t nr_of_atomic_bits;
        uint32_t nr_of_notify_bits;
        uint8_t nr_of_work_registers_per_thread;
    } dpu;
};

typedef struct _dpu_description_t {
    struct dpu_hw_description_t hw;
    dpu_type_t type;
    struct {
        bool mram_access_by_dpu_only;
        bool api_must_switch_mram_mux;
        bool init_mram_mux;
        bool do_iram_repair;
        bool do_wram_repair;
        bool ignore_vpd;
        bool enable_cycle_accurate_behavior;
        bool disable_api_safe_checks;
        bool disable_reset_on_alloc;
        bool ila_control_refresh;
    } configuration;
    uint32_t refcount;
} *dpu_description_t;

/* The description of the machine `profile` (NULL: the default one) would give;
 * DPU_ERR_INVALID_PROFILE (and a message on stderr) for a profile dpu_alloc
 * would refuse.  Free it with dpu_free_description. */
dpu_error_t dpu_get_profile_description(const char *profile, dpu_description_t *description);
/* Takes one more reference on the description. */
void dpu_acquire_description(dpu_description_t description);
/* Drops a reference; the last one frees it.  NULL is ignored. */
void dpu_free_description(dpu_description_t description);

#ifdef __cplusplus
}
#endif

#endif
