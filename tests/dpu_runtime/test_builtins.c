/* SPDX-License-Identifier: MIT */
/* built_ins.h (dpu_builtins.c): every macro on edge values against a host
 * model written bit by bit from the instructions' definitions:
 *   clz/clo: leading zeros/ones (32 for an all-zero/all-one word);
 *   cls: leading bits equal to bit 31, that bit included (32 for 0 and ~0);
 *   cao: ones;
 *   lsl/lsr/asr/rol/ror: shift or rotate by b's low 5 bits (asr fills with bit 31);
 *   mul_X_Y: the product of one byte of a (X) and one of b (Y), signed (s) or
 *   unsigned (u), low byte 0 (l) or byte 1 (h), as a 32-bit result;
 *   cmpb4: 1 in each byte where a's and b's bytes are equal, 0 elsewhere. */
#include <dpu.h>
#include <stdint.h>

#include "check.h"

#define NV 14
#define NR_OPS 26
#define TASKLETS 4

static const uint32_t values[NV] = {0,          1,          2,          31,         32,         33,         0x7f,
                                    0x80,       0xff,       0x8001,     0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff};

static uint32_t bit(uint32_t x, int i)
{
    return (x >> i) & 1u;
}

static uint32_t leading(uint32_t x, uint32_t v) /* bits equal to v from bit 31 down */
{
    uint32_t n = 0;
    for (int i = 31; i >= 0 && bit(x, i) == v; i--)
        n++;
    return n;
}

static uint32_t ones(uint32_t x)
{
    uint32_t n = 0;
    for (int i = 0; i < 32; i++)
        n += bit(x, i);
    return n;
}

/* Shifts one bit at a time, s times (s = b mod 32). */
static uint32_t shift(uint32_t a, uint32_t b, char kind)
{
    for (uint32_t s = b % 32; s > 0; s--) {
        uint32_t top = bit(a, 31), low = bit(a, 0);
        switch (kind) {
        case 'l': a = a * 2u; break;                    /* lsl (mod 2^32) */
        case 'r': a = a / 2u; break;                    /* lsr */
        case 'a': a = a / 2u + top * 0x80000000u; break; /* asr */
        case 'L': a = a * 2u + top; break;              /* rol */
        case 'R': a = a / 2u + low * 0x80000000u; break; /* ror */
        }
    }
    return a;
}

/* Byte `hi` of x as signed or unsigned. */
static int32_t byte_of(uint32_t x, int hi, int is_signed)
{
    int32_t v = (int32_t)((hi ? x / 256u : x) % 256u);
    return is_signed && v >= 128 ? v - 256 : v;
}

int main(void)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_builtins", NULL));
    DPU_ASSERT(dpu_copy_to(set, "values", 0, values, sizeof values));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    static uint32_t got[NV * NV][NR_OPS];
    uint32_t tids[TASKLETS];
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_copy_from(dpu, "results", 0, got, sizeof got));
        DPU_ASSERT(dpu_copy_from(dpu, "tids", 0, tids, sizeof tids));
    }
    for (uint32_t t = 0; t < TASKLETS; t++)
        CHECK_EQ(tids[t], t);
    static const char *const names[NR_OPS] = {"clz", "clo", "cls", "cao", "lsl", "lsr", "asr", "rol", "ror",
                                              "mul_sl_sl", "mul_sl_sh", "mul_sl_ul", "mul_sl_uh", "mul_sh_sl",
                                              "mul_sh_sh", "mul_sh_ul", "mul_sh_uh", "mul_ul_sl", "mul_ul_sh",
                                              "mul_ul_ul", "mul_ul_uh", "mul_uh_sl", "mul_uh_sh", "mul_uh_ul",
                                              "mul_uh_uh", "cmpb4"};
    int bad = 0;
    for (int p = 0; p < NV * NV; p++) {
        uint32_t a = values[p / NV], b = values[p % NV], want[NR_OPS];
        want[0] = leading(a, 0);
        want[1] = leading(a, 1);
        want[2] = leading(a, bit(a, 31));
        want[3] = ones(a);
        want[4] = shift(a, b, 'l');
        want[5] = shift(a, b, 'r');
        want[6] = shift(a, b, 'a');
        want[7] = shift(a, b, 'L');
        want[8] = shift(a, b, 'R');
        /* mul: X in s/u (signed first), l/h; the order of the DPU program */
        for (int k = 0; k < 16; k++) {
            int xs = k < 8, xh = (k / 4) % 2, ys = (k % 4) < 2, yh = k % 2;
            want[9 + k] = (uint32_t)(byte_of(a, xh, xs) * byte_of(b, yh, ys));
        }
        want[25] = 0;
        for (int k = 0; k < 4; k++)
            if ((a >> (8 * k)) % 256u == (b >> (8 * k)) % 256u)
                want[25] += 1u << (8 * k);
        for (int op = 0; op < NR_OPS; op++) {
            CHECK_EQ(got[p][op], want[op]);
            if (got[p][op] != want[op] && bad++ < 10)
                fprintf(stderr, "  %s(0x%x, 0x%x) = 0x%x, expected 0x%x\n", names[op], a, b, got[p][op], want[op]);
        }
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_builtins");
}
