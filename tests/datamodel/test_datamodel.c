/* SPDX-License-Identifier: MIT */
/* DPU code sees the DPU target's C data model (upmem/llvm-project, clang's
 * Basic/Targets/DPU.h): pointers, size_t, uintptr_t, ptrdiff_t 4 bytes; long 8;
 * long double 8; wchar_t 1 (unsigned).  A structure with size_t, uintptr_t,
 * long and pointer members has the DPU's layout, which the host side spells
 * out with fixed-width types; an MRAM index of uintptr_t has 4-byte entries. */
#include <dpu.h>
#include <stddef.h>
#include <string.h>

#include "check.h"

/* struct shared of dpu_types.c as the DPU lays it out */
struct dpu_shared {
    uint32_t a;       /* 0 */
    uint32_t n;       /* 4: size_t */
    uint32_t u;       /* 8: uintptr_t */
    uint32_t pad0;
    int64_t l;        /* 16: long, aligned 8 */
    uint32_t p;       /* 24: void * */
    uint8_t c;        /* 28 */
    uint8_t pad1[3];
    int32_t d;        /* 32: ptrdiff_t */
    uint32_t pad2;    /* the structure is aligned 8 (long) */
};
_Static_assert(sizeof(struct dpu_shared) == 40, "DPU layout");

int main(void)
{
    struct dpu_set_t set;
    DPU_ASSERT(dpu_alloc(1, "nrRanks=1", &set));
    struct dpu_program_t *prog;
    DPU_ASSERT(dpu_load(set, "./dpu_types", &prog));
    struct dpu_shared in = {.a = 41, .n = 0x40000000u, .u = 0x12345678u, .l = -1000000000000ll,
                            .p = 0x10000100u, .c = 0xfe, .d = -77};
    uint32_t chain[16]; /* a permutation of the entries, as MRAM addresses */
    struct dpu_symbol_t sym;
    DPU_ASSERT(dpu_get_symbol(prog, "chain", &sym));
    CHECK_EQ(sym.size, 16 * 4);
    for (uint32_t i = 0; i < 16; i++)
        chain[i] = sym.address + 4 * ((i * 5 + 3) % 16);
    DPU_ASSERT(dpu_copy_to(set, "in", 0, &in, sizeof in));
    DPU_ASSERT(dpu_copy_to(set, "chain", 0, chain, sizeof chain));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    struct dpu_set_t dpu;
    DPU_FOREACH(set, dpu)
        break; /* the only DPU: reads need one */

    uint32_t f[32];
    DPU_ASSERT(dpu_copy_from(dpu, "facts", 0, f, sizeof f));
    static const uint32_t want[] = {
        1, 2, 4, 8, 8,       /* char short int long long-long */
        4, 4, 4, 4, 4,       /* void* size_t ptrdiff_t uintptr_t intptr_t */
        1, 4, 8, 8, 1, 4,    /* wchar_t float double long-double _Bool function pointer */
        8, 8, 8, 4,          /* alignments: long long, double, long double, void* */
        1,                   /* wchar_t is unsigned */
        40, 4, 8, 16, 24, 28, 32, /* struct shared: size and member offsets */
        3,                   /* L"ab" has 3 wchar_t */
        29,                  /* facts written */
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (f[i] != want[i]) {
            fprintf(stderr, "fact %zu: DPU code says %u, the DPU target %u\n", i, f[i], want[i]);
            CHECK(0);
        }
    struct dpu_shared out;
    DPU_ASSERT(dpu_copy_from(dpu, "out", 0, &out, sizeof out));
    CHECK_EQ(out.a, 42);
    CHECK_EQ(out.n, 0x80000000u);
    CHECK_EQ(out.u, 0x1234a987u);
    CHECK_EQ(out.l, -1000000000005ll);
    CHECK_EQ(out.p, 0x10000104u);
    CHECK_EQ(out.c, 0xff);
    CHECK_EQ(out.d, 77);
    uint32_t walk[16];
    DPU_ASSERT(dpu_copy_from(dpu, "walk", 0, walk, sizeof walk));
    uint32_t at = 0;
    for (uint32_t i = 0; i < 16; i++) {
        CHECK_EQ(walk[i], at);
        at = (at * 5 + 3) % 16;
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_datamodel");
}
