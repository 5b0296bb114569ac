/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: declarations shared by the runtime's own files. */
#ifndef OPENPIM_RT_INTERNAL_H
#define OPENPIM_RT_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include <openpim_rt.h>
#include <attributes.h>

/* Per-launch scratch: not in WRAM, never seen by the host, zeroed by __op_boot. */
#define __op_scratch __attribute__((section(".opbss")))

/* Reset hooks called by __op_boot. */
void __op_sync_reset(void);
void __op_misc_reset(void);

/* Checks that MRAM [addr, addr+size) exists; faults (OP_FAULT_DMA) naming `who` otherwise. */
void __op_check_mram(const char *who, uint64_t addr, uint64_t size);
/* Checks that WRAM/stack [addr, addr+size) exists; faults (OP_FAULT_DMA) otherwise. */
void __op_check_wram(const char *who, uintptr_t addr, uint64_t size);
/* Faults a load or store at `address`, below WRAM's first byte in its page
 * (code of a v1B image calls it: the accounting pass's check, timing/op_points.h). */
_Noreturn void __op_wram_low(uint32_t address);
/* The MRAM address a DMA reaches.  The DPU's DMA engine decodes only the offset
 * inside the 64 MiB MRAM: the 0x08000000 the linker gives MRAM symbols is a tag
 * it does not need, so an untagged offset reaches the same byte.  Real programs
 * rely on it (PrIM BFS keeps MRAM addresses relative to 0 in its parameters and
 * passes them to mram_read/mram_write as they are). */
static inline uint64_t __op_mram_dma_addr(uint64_t addr)
{
    return addr < __op_env->mram_size ? addr + OP_MRAM_BASE : addr;
}
/* MRAM address `addr` of the running DPU as a pointer (through %gs, no check). */
static inline __mram_ptr uint8_t *__op_mram_at(uint64_t addr)
{
    return (__mram_ptr uint8_t *)(uintptr_t)addr;
}

/* The running tasklet's DPU-stack account, at the top of its native stack
 * slot (abi/dpu_abi.h), found from the stack pointer. */
static inline struct op_dstack *__op_dstack(void)
{
    uintptr_t sp;
    __asm__("movl %%esp, %0" : "=r"(sp));
    return (struct op_dstack *)((sp & ~(uintptr_t)(OP_NSTACK_SLOT - 1)) + OP_DSTACK_OFFSET);
}

static inline void __op_yield(void)
{
    __OP_SVC->yield();
}

#endif
