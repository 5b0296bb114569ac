/* SPDX-License-Identifier: MIT */
/* A DPU image: the ELF file produced by dpu-upmem-dpurte-clang, parsed into
 * what the host (symbols, initial WRAM/MRAM contents) and the worker (code,
 * entry points) need.  The image keeps its own copy of the file bytes. */
#ifndef OPENPIM_IMAGE_H
#define OPENPIM_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "dpu_abi.h"

enum op_region { OP_REGION_NONE, OP_REGION_WRAM, OP_REGION_MRAM, OP_REGION_IRAM };

struct op_symbol {
    const char *name; /* points into the image's string table */
    uint32_t addr;    /* DPU address (OP_WRAM_BASE/OP_MRAM_BASE/OP_TEXT_BASE based) */
    uint32_t size;
    uint8_t global; /* global or weak binding (preferred by lookups over file-local ones) */
};

struct op_image {
    uint8_t *bytes; /* the whole ELF file (read only) */
    size_t len;
    uint8_t borrowed; /* bytes are the caller's (op_image_parse_in_place) */
    /* WRAM window [OP_WRAM_BASE, OP_WRAM_BASE + wram_init_len): initial contents (bss included,
     * zeroed; the chip's WRAM starts at OP_WRAM_START(wram_size)); wram_lo: its lowest section */
    uint32_t wram_lo;
    uint8_t *wram_init;
    uint32_t wram_init_len;
    /* MRAM variables with initial values (.mram), as one range */
    uint32_t mram_init_addr, mram_init_len;
    const uint8_t *mram_init;
    /* code and runtime scratch: [iram_lo, iram_hi), bytes from the file where PROGBITS */
    uint32_t iram_lo, iram_hi;
    uint32_t text_addr, text_len;
    const uint8_t *text;
    uint32_t opbss_addr, opbss_len;
    /* metadata the driver records with --defsym */
    uint32_t nr_tasklets, wram_size, stack_total, accounting;
    uint32_t racecheck; /* built with race checks (OPENPIM_RACECHECK at build time) */
    uint32_t heap_start;     /* __op_heap_start */
    /* tasklet t's stack: stack_size[t] bytes of WRAM reserved at stack_lo[t]
     * (the budgets, __op_stack_size_<t>, laid out from __op_stacks_start up;
     * its frames run on a native stack, dpu_abi.h) */
    uint32_t stack_lo[OP_MAX_TASKLETS], stack_size[OP_MAX_TASKLETS];
    uint32_t used_mram_end;  /* __sys_used_mram_end */
    /* runtime entry points (dpu_abi.h) */
    uint32_t sym_env, sym_boot, sym_tasklet_main, sym_icount;
    /* __op_costs (op_cost_slots.h), in the runtime scratch (.opbss), and its
     * number of 32-bit slots; 0, 0 in images built before it existed */
    uint32_t sym_costs, nr_costs;
    /* __op_limits, __op_sched_fn, __op_race_fn (timing/op_points.h), in
     * .opbss; 0 in images built before them */
    uint32_t sym_limits, sym_sched_fn, sym_race_fn;
    struct op_symbol *syms;
    size_t nr_syms;
};

/* Parses an image from memory (the bytes are copied).  Returns 0, or -1 with a
 * message in err. */
int op_image_parse(const void *bytes, size_t len, struct op_image *img, char *err, size_t errlen);
/* The same without a copy: the image points into bytes, which must stay
 * mapped and unchanged (a sealed memfd) until op_image_free. */
int op_image_parse_in_place(const void *bytes, size_t len, struct op_image *img, char *err, size_t errlen);
/* Whether bytes start like a DPU image (ELF32 x86-64 executable): 0, or -1
 * with a message; what a receiver checks before it takes the rest. */
int op_image_check_header(const void *bytes, size_t len, char *err, size_t errlen);
void op_image_free(struct op_image *img);

/* Looks a symbol up by name; NULL if absent. */
const struct op_symbol *op_image_symbol(const struct op_image *img, const char *name);

/* Which memory a DPU address belongs to. */
enum op_region op_region_of(uint32_t addr);

#endif
