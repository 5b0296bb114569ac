/* SPDX-License-Identifier: MIT */
/* Broadcast targets for test_bcast_cache: a __host WRAM array (4 KB) and the
 * MRAM heap. */
#include <attributes.h>
#include <stdint.h>

__host uint64_t wbuf[512];

int main(void)
{
    return 0;
}
