/* SPDX-License-Identifier: MIT */
/* Data-transfer study, DPU side: only a transfer target.  MRAM transfers go
 * to the MRAM heap (DPU_MRAM_HEAP_POINTER_NAME, the whole 64 MB of an
 * otherwise empty program); WRAM broadcasts to wram_buf (32 KB, plan.h). */
#include <attributes.h>
#include <stdint.h>

__host uint32_t wram_buf[32 * 1024 / sizeof(uint32_t)];

int main(void)
{
    return 0;
}
