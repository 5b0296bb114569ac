/* SPDX-License-Identifier: MIT */
/* mem_alloc can take exactly WRAM - globals - declared stacks, on v1A (64 KB)
 * and v1B (62 KB): `globals` read from the image's sections (the WRAM ones
 * below its stack reservation), the stacks as the build declared them
 * (CMakeLists.txt: 4 tasklets, STACK_SIZE_DEFAULT=256, STACK_SIZE_TASKLET_1=512).
 * One byte more faults with "heap".  Meanwhile every tasklet fills most of its
 * 256 bytes of DPU stack, and the sums it reads are right. */
#include <dpu.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define T 4
#define STACKS (3 * 256 + 512)
#define WRAM_END 0x10010000u /* the WRAM window's end (abi/dpu_abi.h), WRAM being its last bytes */

/* The end of the image's WRAM globals: its WRAM sections other than the stacks'. */
static uint32_t globals_end(const char *path, uint32_t wram_start)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    static uint8_t bytes[1 << 22];
    size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
    if (f)
        fclose(f);
    const Elf32_Ehdr *eh = (const Elf32_Ehdr *)bytes;
    CHECK(n > sizeof *eh && eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf32_Shdr) <= n);
    const Elf32_Shdr *sh = (const Elf32_Shdr *)(bytes + eh->e_shoff);
    const char *names = (const char *)bytes + sh[eh->e_shstrndx].sh_offset;
    uint32_t end = wram_start;
    for (unsigned i = 0; i < eh->e_shnum; i++)
        if ((sh[i].sh_flags & SHF_ALLOC) && sh[i].sh_addr >= wram_start && sh[i].sh_addr < WRAM_END &&
            strcmp(names + sh[i].sh_name, ".stacks") != 0 && sh[i].sh_addr + sh[i].sh_size > end)
            end = sh[i].sh_addr + sh[i].sh_size;
    return end;
}

static void run(const char *profile, const char *binary, uint32_t wram)
{
    uint32_t wram_start = WRAM_END - wram, end = globals_end(binary, wram_start);
    uint32_t globals = ((end + 7) & ~7u) - wram_start;
    uint32_t heap = wram - globals - STACKS;
    printf("%s: %u bytes of WRAM, %u of globals, %u of stacks: %u of heap\n", binary, wram, globals, STACKS, heap);
    CHECK(globals >= 1000 && globals < 2048 && heap > 50000);
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, profile, &set));
    DPU_ASSERT(dpu_load(set, binary, NULL));
    DPU_FOREACH(set, dpu)
        break;
    uint64_t data[T * 24];
    for (unsigned i = 0; i < T * 24; i++)
        data[i] = 1000u * i + 7;
    DPU_ASSERT(dpu_copy_to(dpu, "data", 0, data, sizeof data));
    for (uint32_t extra = 0; extra <= 1; extra++) {
        uint32_t ask = heap + extra;
        DPU_ASSERT(dpu_copy_to(dpu, "ask", 0, &ask, 4));
        dpu_error_t err = dpu_launch(dpu, DPU_SYNCHRONOUS);
        if (extra == 0) {
            CHECK_EQ(err, DPU_OK);
            uint32_t start, sums[T];
            DPU_ASSERT(dpu_copy_from(dpu, "heap_start", 0, &start, 4));
            DPU_ASSERT(dpu_copy_from(dpu, "sums", 0, sums, sizeof sums));
            CHECK_EQ(start, wram_start + globals + STACKS);
            for (unsigned t = 0; t < T; t++) {
                uint32_t want = 0;
                for (unsigned i = 0; i < 24; i++)
                    want += (uint32_t)data[t * 24 + i];
                CHECK_EQ(sums[t], want);
            }
        } else {
            CHECK_EQ(err, DPU_ERR_DPU_FAULT);
            struct openpim_fault f;
            DPU_ASSERT(openpim_get_fault(dpu, &f));
            CHECK(f.faulted && strcmp(f.kind, "heap") == 0);
        }
    }
    DPU_ASSERT(dpu_free(set));
}

int main(void)
{
    run("nrRanks=1", "./dpu_heap", 64u << 10);
    run("nrRanks=1,chip=v1B", "./dpu_heap_v1B", 62u << 10);
    return check_done("test_heap");
}
