/* SPDX-License-Identifier: MIT */
/* A DPU program whose image is over 64 KB (a 96 KB initialised MRAM table),
 * so that its ELF cannot travel inline: a client that streams must put it
 * through the daemon's window.  Sums the table's bytes into `sum`. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define BIG (96 * 1024)

__mram uint8_t table[BIG] = {[0 ... 32767] = 0x11, [32768 ... 65535] = 0x22, [65536 ... BIG - 1] = 0x33};
__host uint64_t sum;

int main(void)
{
    __dma_aligned uint8_t buf[256];
    uint64_t s = 0;
    for (uint32_t i = 0; i < BIG; i += sizeof buf) {
        mram_read(&table[i], buf, sizeof buf);
        for (uint32_t k = 0; k < sizeof buf; k++)
            s += buf[k];
    }
    sum = s;
    return 0;
}
