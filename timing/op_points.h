/* SPDX-License-Identifier: MIT */
/* The emulation-only calls the instruction-accounting pass puts into DPU code
 * besides the count: switch points, race checks and checks of WRAM's low
 * end.  None is a DPU instruction and none is counted.
 *
 * One header, three users:
 *  - the pass (timing/llvm/OpenPIMCount.cpp) emits the calls;
 *  - the DPU runtime (dpu/runtime/crt.c) defines the globals below in its
 *    scratch section (.opbss);
 *  - the worker fills them before each tasklet runs and serves the calls
 *    (worker/tasklets.c: switch points; worker/racecheck.c: race checks).
 *
 * Switch points (every image built with the pass):
 *   uint64_t __op_limits[2];
 *     [0] near: the running tasklet gives way at an access to memory other
 *         tasklets may use once its count (instructions executed before the
 *         access) reaches it;
 *     [1] far: ... at a loop's back edge once its count reaches it.
 *   void (*__op_sched_fn)(uint64_t count, uint32_t back, uint64_t *limits);
 *     called when a limit is reached: count is the counter's value in the
 *     caller (the whole segment charged), count - back the instructions
 *     executed before the access; limits is &__op_limits[0] (unused by the
 *     worker, it tells the compiler what the call may change).
 *
 * Race checks (images built with OPENPIM_RACECHECK set, the pass's
 * -openpim-racecheck):
 *   void (*__op_race_fn)(uint64_t address, uint64_t bytes, uint32_t flags,
 *                        const struct op_site *site);
 *     before an access of `bytes` bytes at `address` (a WRAM address, or an
 *     MRAM one with OP_RACE_MRAM); site: see struct op_site.
 *
 * WRAM's low end (images of a chip whose WRAM does not start on a page
 * boundary, v1B's: the pass's -openpim-wram-start):
 *   void __op_wram_low(uint32_t address);
 *     before a load or store at `address`, which lies below WRAM's first byte
 *     in its page; faults the DPU, does not return.
 */
#ifndef OPENPIM_OP_POINTS_H
#define OPENPIM_OP_POINTS_H

#define OP_LIMITS_SYMBOL "__op_limits"
#define OP_SCHED_FN_SYMBOL "__op_sched_fn"
#define OP_RACE_FN_SYMBOL "__op_race_fn"
#define OP_WRAM_LOW_FN_SYMBOL "__op_wram_low"

/* flags of a race check */
#define OP_RACE_WRITE 1u    /* a store (else a load) */
#define OP_RACE_VOLATILE 2u /* volatile or atomic: the program's own synchronisation */
#define OP_RACE_MRAM 4u     /* address is an MRAM address (a __mram_ptr access) */
#define OP_RACE_CALL 8u     /* not an access: a call of the DPU runtime that moves memory (mram_read, ...)
                               starts at `site` (its DMAs are this tasklet's accesses there), or ends
                               (site 0) */

/* A site record, in the image's code section: line and column (0 when the
 * program was built without -g), then the file and the function as two
 * NUL-terminated strings. */
#define OP_SITE_HEADER 8u /* bytes before the strings: uint32_t line, column */

#endif
