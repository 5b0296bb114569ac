/* SPDX-License-Identifier: MIT */
/* A hostile tenant's DPU program (with dpu_snoop.S): it looks for another
 * tenant's secret by every route DPU code has into its worker process.
 *   mode 0  nothing (a tenant's warm-up launch, or one that only holds data)
 *   mode 1  copies the environment pages (op_env, the services' trampolines)
 *           to env_copy: the host looks for worker addresses in them
 *   mode 2  reports its GS base (gsbase): the host finds its worker from it
 *   mode 3  scans the MRAM window `window_step` windows away from its own
 *           (rdgsbase + step x 4 GB): another DPU's MRAM, if mapped there
 *   mode 4  scans every range of regions[] (the worker's readable mappings,
 *           which the host reads for it from /proc: what a scan of the
 *           address space would find)
 *   mode 9  spins for ever (an endless kernel)
 * A secret is the pair of words (s0k ^ key, s1k ^ key); found: where it was
 * seen, 0 if nowhere. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define MAX_REGIONS 512
#define MB (1ull << 20)

__host uint32_t mode;
__host uint64_t key, s0k, s1k;
__host int64_t window_step;
__host uint64_t window_off, window_len; /* mode 3: what of the window to scan */
__host uint32_t nr_regions;
__host uint64_t found, gsbase, scanned;
__host uint8_t wram_area[4096]; /* where a tenant keeps its WRAM secret */
__mram_noinit uint64_t regions[2 * MAX_REGIONS];
__mram_noinit uint8_t env_copy[8192];

uint64_t snoop_rdgsbase(void);
uint64_t snoop_scan(uint64_t addr, uint64_t len, uint64_t s0k, uint64_t s1k, uint64_t key);

static volatile uint32_t forever = 1;
static __dma_aligned uint8_t buf[2048];

int main(void)
{
    found = 0;
    switch (mode) {
    case 1:
        for (uint32_t at = 0; at < sizeof env_copy; at += sizeof buf) {
            const volatile uint8_t *env = (const volatile uint8_t *)(uintptr_t)(0x30000000u + at);
            for (uint32_t k = 0; k < sizeof buf; k++)
                buf[k] = env[k];
            mram_write(buf, &env_copy[at], sizeof buf);
        }
        break;
    case 2:
        gsbase = snoop_rdgsbase();
        break;
    case 3: {
        uint64_t base = snoop_rdgsbase() + (uint64_t)window_step * (4ull << 30) + 0x08000000u + window_off;
        found = snoop_scan(base, window_len, s0k, s1k, key);
        scanned = window_len;
        break;
    }
    case 4: {
        uint64_t range[2];
        scanned = 0;
        for (uint32_t i = 0; i < nr_regions && i < MAX_REGIONS && !found; i++) {
            mram_read(&regions[2 * i], range, sizeof range);
            found = snoop_scan(range[0], range[1] - range[0], s0k, s1k, key);
            scanned += range[1] - range[0];
        }
        break;
    }
    case 9:
        while (forever)
            ;
        break;
    default:
        break;
    }
    return 0;
}
