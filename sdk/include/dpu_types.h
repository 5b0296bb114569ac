/* SPDX-License-Identifier: MIT */
/* Types of the UPMEM host API.  struct dpu_set_t has the SDK's layout (its
 * .dpu member is used by some programs); dpu_t and dpu_rank_t are opaque. */
#ifndef DPU_TYPES_H
#define DPU_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dpu_t;
struct dpu_rank_t;
struct dpu_program_t;

/* Ask dpu_alloc for every DPU of the machine. */
#define DPU_ALLOCATE_ALL ((uint32_t)-1)

/* Name of the pseudo-symbol at the start of the free MRAM (the MRAM heap). */
#define DPU_MRAM_HEAP_POINTER_NAME "__sys_used_mram_end"

enum dpu_set_kind_t { DPU_SET_RANKS, DPU_SET_DPU };

struct dpu_set_t {
    enum dpu_set_kind_t kind;
    union {
        struct {
            uint32_t nr_ranks;
            struct dpu_rank_t **ranks;
        } list;
        struct dpu_t *dpu;
    };
};

typedef enum _dpu_launch_policy_t { DPU_ASYNCHRONOUS, DPU_SYNCHRONOUS } dpu_launch_policy_t;

typedef enum _dpu_xfer_t { DPU_XFER_TO_DPU, DPU_XFER_FROM_DPU } dpu_xfer_t;

typedef enum _dpu_xfer_flags_t {
    DPU_XFER_DEFAULT = 0,
    DPU_XFER_NO_RESET = 1 << 0, /* keep the prepared buffers after the push */
    DPU_XFER_ASYNC = 1 << 1,    /* queue behind the rank's pending jobs */
    DPU_XFER_PARALLEL = 1 << 2,
} dpu_xfer_flags_t;

typedef enum _dpu_callback_flags_t {
    DPU_CALLBACK_DEFAULT = 0,
    DPU_CALLBACK_ASYNC = 1 << 0,
    DPU_CALLBACK_NONBLOCKING = 1 << 1,
    DPU_CALLBACK_SINGLE_CALL = 1 << 2,
} dpu_callback_flags_t;

typedef enum _dpu_sg_xfer_flags_t {
    DPU_SG_XFER_DEFAULT = 0,
    DPU_SG_XFER_ASYNC = 1 << 1, /* the SDK's values (dpu.h of SDK 2025.1) */
    DPU_SG_XFER_DISABLE_LENGTH_CHECK = 1 << 2,
} dpu_sg_xfer_flags_t;

/* One block of a scatter-gather transfer. */
struct sg_block_info {
    uint8_t *addr;
    uint32_t length;
};
/* Fills *out with block `block_index` of the DPU `dpu_index` (its rank in the
 * set); returns false when the DPU has no more blocks. */
typedef bool (*get_block_func_t)(struct sg_block_info *out, uint32_t dpu_index, uint32_t block_index, void *args);
typedef struct get_block_t {
    get_block_func_t f;
    void *args;
    size_t args_size;
} get_block_t;

struct dpu_symbol_t {
    uint32_t address;
    uint32_t size;
};

/* A program embedded in the host binary with DPU_INCBIN. */
struct dpu_incbin_t {
    const uint8_t *buffer;
    size_t size;
    const char *path;
};

typedef uint32_t dpu_id_t;
typedef uint32_t dpu_slice_id_t;
typedef uint32_t dpu_member_id_t;

#endif
