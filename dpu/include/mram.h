/* OpenPIM DPU syslib: <mram.h>, DMA between WRAM and MRAM.
 *
 * mram_read/mram_write behave like the DPU's ldma/sdma instructions:
 *   - the MRAM address and the WRAM address are rounded down to a multiple of 8;
 *   - the size is taken as ((((n >> 3) - 1) & 0xff) + 1) * 8 bytes: a multiple of
 *     8 between 8 and 2048, so n = 0 moves 2048 bytes, n = 12 moves 8 and
 *     n = 2056 moves 8;
 *   - the whole transfer must lie inside the DPU's MRAM and inside WRAM (or a
 *     tasklet stack), else the DPU stops with OP_FAULT_DMA;
 *   - as on the DPU, the MRAM address may omit the 0x08000000 tag: an offset
 *     below the MRAM size reaches the same byte as 0x08000000 + offset.
 * Each call is one DMA for the timing model; the tasklet then waits for the
 * DMA engine and gives way to the tasklet whose modelled clock is earliest.
 */
#ifndef DPUSYSCORE_MRAM_H
#define DPUSYSCORE_MRAM_H

#include <stdint.h>
#include <attributes.h>

/* End of the MRAM variables (8-aligned): the start of the free MRAM "heap". */
extern __mram_ptr uint8_t __sys_used_mram_end[];

/* Name of the heap pseudo-symbol, for dpu_copy_to/dpu_push_xfer on the host. */
#define DPU_MRAM_HEAP_POINTER_NAME "__sys_used_mram_end"
/* First MRAM byte not used by MRAM variables. */
#define DPU_MRAM_HEAP_POINTER ((__mram_ptr void *)(__sys_used_mram_end))

/* Copies nb_of_bytes (DMA-encoded, see above) from MRAM `from` to WRAM `to`. */
void mram_read(const __mram_ptr void *from, void *to, unsigned int nb_of_bytes);
/* Copies nb_of_bytes (DMA-encoded, see above) from WRAM `from` to MRAM `dest`. */
void mram_write(const void *from, __mram_ptr void *dest, unsigned int nb_of_bytes);

#endif
