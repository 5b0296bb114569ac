/* SPDX-License-Identifier: MIT */
/* The emulated PIM machine as the SDK layer sees it: DPUs with MRAM and WRAM
 * that the host reads and writes directly, programs loaded onto DPUs, and
 * launches that worker processes execute. */
#ifndef OPENPIM_MACHINE_H
#define OPENPIM_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "../backend/backend.h" /* struct op_machine_config */
#include "../timing/timing.h"
#include "../abi/image.h"
#include "../abi/shared.h"

#define OP_CHIPS_PER_RANK 8
#define OP_DPUS_PER_CHIP 8


struct op_machine;

/* A loaded DPU program; shared by every DPU it is loaded on. */
struct op_program {
    struct op_image img;
    int fd;      /* memfd holding the file bytes, passed to the workers with a launch */
    void *map;   /* op_program_create_fd: the memfd mapped, which img points into */
    size_t map_len;
    uint64_t id;
    unsigned refs;
};

struct op_machine *op_machine_create(const struct op_machine_config *cfg, char *err, size_t errlen);
void op_machine_destroy(struct op_machine *m);
const struct op_machine_config *op_machine_config(const struct op_machine *m);
uint32_t op_machine_nr_dpus(const struct op_machine *m);
uint32_t op_machine_dpus_per_rank(const struct op_machine *m);
uint64_t op_machine_mram_size(const struct op_machine *m);
uint32_t op_machine_wram_size(const struct op_machine *m);
uint32_t op_machine_max_tasklets(const struct op_machine *m);
uint32_t op_machine_frequency_mhz(const struct op_machine *m);

/* Host views of one DPU's memories (byte 0 = DPU address OP_MRAM_BASE /
 * OP_WRAM_BASE).  MRAM may be shared with other DPUs (mram.c): the view is
 * for reading, and for writing only a range op_machine_mram_prepare made the
 * DPU's own (or use op_machine_mram_write). */
uint8_t *op_machine_mram(struct op_machine *m, uint32_t dpu);
uint8_t *op_machine_wram(struct op_machine *m, uint32_t dpu);
/* Makes [off, off + len) of the DPU's MRAM its own, copying what it shared
 * with other DPUs; 0, or -1 (err). */
int op_machine_mram_prepare(struct op_machine *m, uint32_t dpu, uint64_t off, uint64_t len, char *err,
                            size_t errlen);
/* Writes len bytes at off of the MRAM of n DPUs, from src[i] (nsrc == n) or
 * src[0] for all (nsrc == 1: the whole chunks of such a broadcast are stored
 * once and shared until written).  Checks the host memory limit first; 0, or
 * -1 (err) with nothing written when over it. */
int op_machine_mram_write(struct op_machine *m, const uint32_t *dpus, uint32_t n, uint64_t off,
                          const void *const *src, uint32_t nsrc, uint64_t len, char *err, size_t errlen);
/* The same, calling watch(watch_arg, i + 1) once DPU dpus[i] is written (watch NULL: never). */
int op_machine_mram_write_watched(struct op_machine *m, const uint32_t *dpus, uint32_t n, uint64_t off,
                                  const void *const *src, uint32_t nsrc, uint64_t len, op_watch_fn *watch,
                                  void *watch_arg, char *err, size_t errlen);

/* Programs: parsed from bytes; reference counted. */
struct op_program *op_program_create(const void *bytes, size_t len, char *err, size_t errlen);
/* The same from a memfd holding exactly the len bytes of the file and sealed
 * (F_SEAL_WRITE, SHRINK, GROW, SEAL): parsed where it lies, no copy made; the
 * program keeps fd (closed with it, or at once on failure). */
struct op_program *op_program_create_fd(int fd, size_t len, char *err, size_t errlen);
void op_program_get(struct op_program *p);
void op_program_put(struct op_program *p);

/* Loads p onto a DPU: WRAM gets its initial image, MRAM its initialised
 * variables; the DPU keeps a reference.  Returns 0 or -1 (err filled). */
int op_machine_load(struct op_machine *m, uint32_t dpu, struct op_program *p, char *err, size_t errlen);
struct op_program *op_machine_program(struct op_machine *m, uint32_t dpu);
/* Drops the DPU's program (when its rank is freed). */
void op_machine_unload(struct op_machine *m, uint32_t dpu);

/* Host memory backing the emulated MRAM and WRAM, and the limit on it. */
uint64_t op_machine_memory_used(const struct op_machine *m);
uint64_t op_machine_memory_limit(const struct op_machine *m);
/* Checks that writing `len` bytes at `off` of the MRAM of each of the n DPUs
 * fits in the limit; 0, or -1 with a message naming the limit in err. */
int op_machine_check_mram_write(struct op_machine *m, const uint32_t *dpus, uint32_t n, uint64_t off, uint64_t len,
                                char *err, size_t errlen);
/* Reads MRAM without backing pages that were never written (they read as 0). */
void op_machine_mram_read(struct op_machine *m, uint32_t dpu, uint64_t off, void *dst, uint64_t len);

/* Zeroes a DPU's MRAM (releasing its host memory) and WRAM. */
void op_machine_reset(struct op_machine *m, uint32_t dpu);
/* The same for every DPU of a rank at once. */
void op_machine_reset_rank(struct op_machine *m, uint32_t rank);

/* Runs the given DPUs to completion on the workers.  Per-DPU outcomes are in
 * op_machine_result().  Returns 0, or -1 if the workers could not run or the
 * list is invalid (a DPU out of range or listed twice; err).
 * Thread-safe: launches from several threads on disjoint DPU sets run at the
 * same time, each on its own free workers (at least one: a launch that finds
 * none free waits for one); a launch sharing a DPU with a running launch waits
 * until that one has finished (launches waiting for the same DPU start in no
 * promised order: callers order them).  Other machine calls may run meanwhile on DPUs
 * that are not in a running launch.  Results and modelled cycles do not
 * depend on what runs beside a launch. */
int op_machine_launch(struct op_machine *m, const uint32_t *dpus, uint32_t n, char *err, size_t errlen);
/* The same, calling watch(watch_arg, done) on the calling thread about every
 * OP_WATCH_PERIOD_MS while it runs (watch NULL: never), done being the
 * number of its DPUs that finished so far (those a dying worker was running are
 * not counted). */
int op_machine_launch_watched(struct op_machine *m, const uint32_t *dpus, uint32_t n, op_watch_fn *watch,
                              void *watch_arg, char *err, size_t errlen);
const struct op_dpu_status *op_machine_result(const struct op_machine *m, uint32_t dpu);

/* Worker processes of a pool, at most (its launches together). */
unsigned op_machine_workers(const struct op_machine *m);

/* ---- pools ---------------------------------------------------------------------
 * A pool is the unit of isolation between the tenants of a machine: the DPU
 * code of its ranks runs in worker processes of its own, which map the
 * memories of its ranks and of no others and hold no descriptor of another
 * rank's memory (abi/shared.h).  A new machine has one pool, the default one,
 * holding every rank; openpimd gives each session a pool of its own and binds
 * the ranks it claims to it.  Launches run on the pool of their DPUs (all in
 * one pool).  Thread-safe. */
struct op_pool;
struct op_pool *op_machine_pool_create(struct op_machine *m, char *err, size_t errlen);
struct op_pool *op_machine_default_pool(struct op_machine *m);
/* The pool a rank is bound to (NULL: none). */
struct op_pool *op_machine_rank_pool(struct op_machine *m, uint32_t rank);
/* Moves a rank to pool `to` (NULL: none; its DPUs cannot be launched then).
 * Waits until neither pool runs a launch, ends the workers of both (the pool
 * the rank leaves keeps nothing of it; the next launches start new workers),
 * and keeps the rank's memories and programs (shared MRAM becomes its own).
 * 0, or -1 (no such rank). */
int op_machine_bind_rank(struct op_machine *m, uint32_t rank, struct op_pool *to, char *err, size_t errlen);
/* Ends the pool's launches now (their workers are killed; the DPUs they were
 * running report `why`) and makes its later launches fail with `why`. */
void op_machine_pool_cancel(struct op_pool *p, const char *why);
/* Frees a pool that holds no rank any more (waits for its launches). */
void op_machine_pool_destroy(struct op_pool *p);
/* Host memory backing the ranks bound to p and p's shared chunks (a part of
 * op_machine_memory_used). */
uint64_t op_machine_pool_memory_used(const struct op_machine *m, const struct op_pool *p);

#endif
