/* SPDX-License-Identifier: MIT */
/* The race detector of DPU programs (OPENPIM_RACECHECK).
 *
 * Two accesses to the same WRAM or MRAM bytes by different tasklets, at least
 * one a write, race when nothing orders them: happens-before is tracked with
 * a vector clock per tasklet, joined through mutexes (unlock -> later lock),
 * virtual mutexes, semaphores (give -> take), barriers (every arrival of a
 * round -> every leave) and handshakes (notify <-> wait_for).  Accesses come
 * from race-checked images (the pass's -openpim-racecheck, which the compiler
 * driver adds when OPENPIM_RACECHECK is set at build time) and from the DMAs
 * of the DPU runtime's mram_read/mram_write calls (and their unaligned and
 * seqread forms), which such images announce with their call site.  Volatile
 * (and atomic) accesses are the program's own signalling: a pair of them is
 * reported only when both write (two tasklets updating a volatile counter lose
 * updates); they order nothing, so data written before a volatile flag is set
 * and read after it is seen still race (the compiler may move non-volatile
 * accesses across volatile ones; a handshake or barrier orders them).
 *
 * Each pair of source sites is reported once per machine (workers share the
 * table in the control block); OPENPIM_RACECHECK=1 or warn prints it on
 * stderr and lets the launch go on, =fault stops the DPU at its first race
 * with the report as its fault message.  Shadow memory: per 8-byte granule,
 * the last CELLS accesses (tasklet, epoch, bytes, write or read, site). */
#ifndef OPENPIM_RACECHECK_H
#define OPENPIM_RACECHECK_H

#include <stddef.h>
#include <stdint.h>

#include "../abi/image.h"
#include "../abi/shared.h"

enum op_race_mode { OP_RACE_OFF = 0, OP_RACE_WARN, OP_RACE_FAULT };

/* Reads OPENPIM_RACECHECK (unset or 0: off; 1 or warn; fault).  0, or -1 with
 * a message for an unknown value. */
int op_race_init(struct op_ctrl *ctrl, char *err, size_t errlen);
enum op_race_mode op_race_mode(void);

/* A DPU run starts: its image (site records, symbols), machine index and MRAM size. */
void op_race_begin(const struct op_image *img, uint64_t program, uint32_t dpu, unsigned nr_tasklets,
                   uint64_t mram_size);

/* Events of the running tasklet.  Each returns 0, or 1 when a race was found
 * in fault mode: then msg holds the fault message. */
int op_race_access(unsigned tid, uint64_t address, uint64_t bytes, uint32_t flags, uint32_t site, char *msg,
                   size_t len);
int op_race_dma(unsigned tid, uint32_t mram, uint32_t wram, uint32_t size, uint32_t dma_flags, char *msg,
                size_t len);
/* A DPU runtime synchronisation (svc->rt_event: OP_RTE_*, obj, arg). */
void op_race_sync(unsigned tid, uint32_t ev, uint32_t obj, uint32_t arg);

#endif
