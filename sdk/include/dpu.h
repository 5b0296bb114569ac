/* SPDX-License-Identifier: MIT */
/* OpenPIM's implementation of the UPMEM host API (source-compatible with the
 * UPMEM SDK's dpu.h).  Programs allocate DPUs, load a DPU program, move data
 * to and from DPU memories by symbol name, and launch the DPUs.
 *
 * As with the UPMEM SDK, the functions may be called from several threads at
 * once, each thread on its own DPU sets; a dpu_callback function may call
 * them too.  Offsets and lengths are checked without wrapping: a transfer
 * outside its symbol or memory is refused and changes nothing. */
#ifndef DPU_H
#define DPU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <dpu_error.h>
#include <dpu_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- allocation ---------------------------------------------------------- */

/* Allocates exactly nr_dpus DPUs (whole ranks, the surplus disabled), or every
 * rank with DPU_ALLOCATE_ALL.  profile: "key=value,..." (NULL for none); the
 * environment's UPMEM_PROFILE_BASE and UPMEM_PROFILE are added around it. */
dpu_error_t dpu_alloc(uint32_t nr_dpus, const char *profile, struct dpu_set_t *dpu_set);
dpu_error_t dpu_alloc_ranks(uint32_t nr_ranks, const char *profile, struct dpu_set_t *dpu_set);
dpu_error_t dpu_free(struct dpu_set_t dpu_set);
dpu_error_t dpu_get_nr_ranks(struct dpu_set_t dpu_set, uint32_t *nr_ranks);
dpu_error_t dpu_get_nr_dpus(struct dpu_set_t dpu_set, uint32_t *nr_dpus);

/* ---- programs -------------------------------------------------------------- */

dpu_error_t dpu_load(struct dpu_set_t dpu_set, const char *binary_path, struct dpu_program_t **program);
dpu_error_t dpu_load_from_memory(struct dpu_set_t dpu_set, const void *buffer, size_t buffer_size,
                                 struct dpu_program_t **program);
dpu_error_t dpu_load_from_incbin(struct dpu_set_t dpu_set, struct dpu_incbin_t *incbin,
                                 struct dpu_program_t **program);
dpu_error_t dpu_get_symbol(struct dpu_program_t *program, const char *symbol_name, struct dpu_symbol_t *symbol);

/* Embeds a DPU binary in the host program: struct dpu_incbin_t name. */
#define DPU_INCBIN(name, file)                                                                                 \
    __asm__(".section .rodata\n.balign 8\n" #name "_start:\n.incbin \"" file "\"\n" #name "_end:\n.previous\n"); \
    extern const uint8_t name##_start[] __asm__(#name "_start");                                              \
    extern const uint8_t name##_end[] __asm__(#name "_end");                                                  \
    static struct dpu_incbin_t name = {name##_start, 0, file};                                                 \
    __attribute__((constructor)) static void name##_size_init(void) { name.size = (size_t)(name##_end - name##_start); }

/* ---- execution ------------------------------------------------------------- */

dpu_error_t dpu_launch(struct dpu_set_t dpu_set, dpu_launch_policy_t policy);
/* done: no DPU of the set is running; fault: one of them faulted. */
dpu_error_t dpu_status(struct dpu_set_t dpu_set, bool *done, bool *fault);
dpu_error_t dpu_sync(struct dpu_set_t dpu_set);
/* Calls callback(set_or_rank, rank_index, args) once per rank (or once for the
 * set with DPU_CALLBACK_SINGLE_CALL) after the rank's pending jobs. */
dpu_error_t dpu_callback(struct dpu_set_t dpu_set, dpu_error_t (*callback)(struct dpu_set_t, uint32_t, void *),
                         void *args, dpu_callback_flags_t flags);

/* ---- transfers ------------------------------------------------------------- */

/* To every DPU of the set (a broadcast when the set has several DPUs). */
dpu_error_t dpu_copy_to(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset, const void *src,
                        size_t length);
/* From one DPU. */
dpu_error_t dpu_copy_from(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset, void *dst,
                          size_t length);
dpu_error_t dpu_copy_to_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol, uint32_t symbol_offset,
                               const void *src, size_t length);
dpu_error_t dpu_copy_from_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol, uint32_t symbol_offset,
                                 void *dst, size_t length);
dpu_error_t dpu_broadcast_to(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset,
                             const void *src, size_t length, dpu_xfer_flags_t flags);
dpu_error_t dpu_broadcast_to_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol, uint32_t symbol_offset,
                                    const void *src, size_t length, dpu_xfer_flags_t flags);
/* Records buffer as the host side of the next push for every DPU of the set. */
dpu_error_t dpu_prepare_xfer(struct dpu_set_t dpu_set, void *buffer);
/* Moves length bytes between each prepared buffer and its DPU (DPUs without a
 * prepared buffer are skipped); buffers are forgotten unless DPU_XFER_NO_RESET. */
dpu_error_t dpu_push_xfer(struct dpu_set_t dpu_set, dpu_xfer_t xfer, const char *symbol_name, uint32_t symbol_offset,
                          size_t length, dpu_xfer_flags_t flags);
dpu_error_t dpu_push_xfer_symbol(struct dpu_set_t dpu_set, dpu_xfer_t xfer, struct dpu_symbol_t symbol,
                                 uint32_t symbol_offset, size_t length, dpu_xfer_flags_t flags);
/* Scatter-gather push (needs the profile key sgXferEnable=true). */
dpu_error_t dpu_push_sg_xfer(struct dpu_set_t dpu_set, dpu_xfer_t xfer, const char *symbol_name,
                             uint32_t symbol_offset, size_t length, get_block_t *get_block_info,
                             dpu_sg_xfer_flags_t flags);
dpu_error_t dpu_push_sg_xfer_symbol(struct dpu_set_t dpu_set, dpu_xfer_t xfer, struct dpu_symbol_t symbol,
                                    uint32_t symbol_offset, size_t length, get_block_t *get_block_info,
                                    dpu_sg_xfer_flags_t flags);

/* ---- logs ------------------------------------------------------------------ */

/* Prints what the DPU's printf() calls wrote during its last launch. */
dpu_error_t dpu_log_read(struct dpu_set_t dpu_set, FILE *stream);
dpu_error_t dpulog_read_for_dpu(struct dpu_t *dpu, FILE *stream);

/* ---- iteration ------------------------------------------------------------- */

struct dpu_set_iterator_t {
    struct dpu_set_t set;
    uint32_t count;          /* DPUs yielded so far */
    uint32_t rank, index;    /* position of the next candidate */
};
struct dpu_set_iterator_t dpu_set_iterator_begin(struct dpu_set_t set);
/* Stores the next enabled DPU in *dpu; false at the end. */
bool dpu_set_iterator_next(struct dpu_set_iterator_t *it, struct dpu_set_t *dpu);

#define _DPU_FOREACH_PICK(_1, _2, _3, NAME, ...) NAME
/* DPU_FOREACH(set, dpu) or DPU_FOREACH(set, dpu, i): every enabled DPU, in rank
 * then index order, the same order every time. */
#define DPU_FOREACH(...) _DPU_FOREACH_PICK(__VA_ARGS__, _DPU_FOREACH_I, _DPU_FOREACH_NO_I, _)(__VA_ARGS__)
#define _DPU_FOREACH_NO_I(set, dpu)                                                     \
    for (struct dpu_set_iterator_t __dpu_it = dpu_set_iterator_begin(set);             \
         dpu_set_iterator_next(&__dpu_it, &(dpu));)
#define _DPU_FOREACH_I(set, dpu, i)                                                     \
    for (struct dpu_set_iterator_t __dpu_it = dpu_set_iterator_begin(set);             \
         (i) = __dpu_it.count, dpu_set_iterator_next(&__dpu_it, &(dpu));)

struct dpu_set_t dpu_set_rank(struct dpu_set_t set, uint32_t rank_index);
/* DPU_RANK_FOREACH(set, rank) or (set, rank, i): each rank as a one-rank set. */
#define DPU_RANK_FOREACH(...) _DPU_FOREACH_PICK(__VA_ARGS__, _DPU_RANK_FOREACH_I, _DPU_RANK_FOREACH_NO_I, _)(__VA_ARGS__)
#define _DPU_RANK_FOREACH_NO_I(set, rank)                                                   \
    for (uint32_t __dpu_rank_i = 0;                                                        \
         __dpu_rank_i < (set).list.nr_ranks && ((rank) = dpu_set_rank((set), __dpu_rank_i), 1); \
         __dpu_rank_i++)
#define _DPU_RANK_FOREACH_I(set, rank, i)                                                    \
    for (uint32_t __dpu_rank_i = 0;                                                         \
         __dpu_rank_i < (set).list.nr_ranks && ((rank) = dpu_set_rank((set), __dpu_rank_i), (i) = __dpu_rank_i, 1); \
         __dpu_rank_i++)

/* ---- a single DPU ---------------------------------------------------------- */

struct dpu_t *dpu_from_set(struct dpu_set_t dpu_set);
struct dpu_set_t dpu_set_from_dpu(struct dpu_t *dpu);
dpu_slice_id_t dpu_get_slice_id(struct dpu_t *dpu);
dpu_member_id_t dpu_get_member_id(struct dpu_t *dpu);

/* ---- error checking ---------------------------------------------------------- */

#define DPU_CHECK(s, t)                                                                          \
    do {                                                                                         \
        dpu_error_t __error = (s);                                                               \
        if (__error != DPU_OK) {                                                                 \
            char *__error_string = dpu_error_to_string(__error);                                 \
            fprintf(stderr, "%s:%d(%s): DPU Error (%s)\n", __FILE__, __LINE__, __func__, __error_string); \
            free(__error_string);                                                                \
            t;                                                                                   \
        }                                                                                        \
    } while (0)
#define DPU_ASSERT(s) DPU_CHECK(s, exit(EXIT_FAILURE))

/* ---- OpenPIM extensions -------------------------------------------------------- */

/* Why the DPU `dpu` (a one-DPU set) stopped in its last launch. */
struct openpim_fault {
    bool faulted;
    uint32_t tasklet;
    const char *kind;  /* "halt", "assert", "memory", "dma", "heap", "stack", ... */
    char message[192];
    /* where in the program: the address of the faulting instruction (for a
     * fault found by a runtime service, an address inside the call) in the
     * image's code, 0 if the fault came from outside it (a timeout while the
     * worker ran its own code); from the image's DWARF line table when the
     * program was built with -g, its source file and line (else "" and 0);
     * and the function containing pc from the symbol table ("" if none) */
    uint32_t pc;
    uint32_t line;
    char file[256];
    char function[128];
};
dpu_error_t openpim_get_fault(struct dpu_set_t dpu, struct openpim_fault *info);

/* The rank's physical view.  On a UPMEM DIMM the host sees a rank's MRAM
 * byte-interleaved: the 8 DPUs with the same DPU index `group` within their
 * chip (DPUs chip*8 + group of the rank, chip = 0..7) form an entangled
 * group, and each 64-byte line of the view holds one 8-byte MRAM word of
 * each of them:
 *     line i, byte (8*j + k) == byte j of the word at MRAM byte offset
 *                               `offset + 8*i` of the DPU on chip k.
 * `rank` is a one-rank set (from DPU_RANK_FOREACH, or an allocation of one
 * rank) of 64 DPUs, disabled ones included; `offset` is a multiple of 8;
 * `size` (bytes of view) a multiple of 64, covering size/8 bytes of each of
 * the 8 MRAMs, within MRAM.  Errors: DPU_ERR_INVALID_DPU_SET (not a one-rank
 * set, rank not of 64 DPUs, group > 7), DPU_ERR_INVALID_MRAM_ACCESS (offset,
 * size), DPU_ERR_INVALID_MEMORY_TRANSFER (NULL buffer). */
dpu_error_t openpim_rank_view_write(struct dpu_set_t rank, uint32_t group, uint64_t offset, const void *lines,
                                    size_t size);
dpu_error_t openpim_rank_view_read(struct dpu_set_t rank, uint32_t group, uint64_t offset, void *lines, size_t size);
/* The physical view of every rank of a set in one call: lines[8 * r + g]
 * holds `size` bytes of view of group g of the set's r-th rank
 * (DPU_RANK_FOREACH order), or is NULL to leave that group out; same rules
 * as above for each group, all checked before a byte moves.  Modelled as one
 * transfer over all the set's ranks in parallel through the direct interface
 * (description keys h2d_direct_call_us / d2h_direct_call_us per call), as the
 * rank-view calls above are. */
dpu_error_t openpim_rank_view_push(struct dpu_set_t set, dpu_xfer_t direction, uint64_t offset, void *const *lines,
                                   size_t size);

/* The memories of the DPUs of a set (any non-empty set from dpu_alloc). */
dpu_error_t openpim_get_memory_sizes(struct dpu_set_t set, uint64_t *mram_bytes, uint32_t *wram_bytes);

/* Host memory backing the emulated MRAM and WRAM, and the limit beyond which
 * transfers fail with DPU_ERR_SYSTEM and DPUs with a host-memory fault
 * (profile key hostMemoryLimitMB; default 85% of the RAM available at the
 * first allocation). */
dpu_error_t openpim_memory_usage(uint64_t *used_bytes, uint64_t *limit_bytes);

/* What the timing model says about the last launch of one DPU. */
struct openpim_dpu_stats {
    uint64_t cycles;        /* modelled DPU cycles of the launch */
    uint64_t instructions;  /* DPU instructions of all tasklets */
    uint64_t tasklet_instructions[24];
    uint64_t dma_read_bytes, dma_write_bytes;
    double time_us;         /* cycles at the DPU's clock */
    uint64_t spin_instructions; /* mutex_lock retries while the mutex was taken (acquire re-issued; not in
                                 * .instructions): issue slots that did no work */
};
dpu_error_t openpim_get_dpu_stats(struct dpu_set_t dpu, struct openpim_dpu_stats *stats);

/* Modelled time of all SDK work (transfers and launches) so far, in
 * microseconds: what the run would have spent in the SDK on real hardware. */
double openpim_modelled_time_us(void);

#ifdef __cplusplus
}
#endif

#endif
