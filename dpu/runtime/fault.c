/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: faults and their messages. */
#include "rt_internal.h"

#include <stdarg.h>
#include <stdint.h>

static char __op_fault_msg[256] __op_scratch;

struct msg {
    uint32_t at;
};

static void __op_put_char(struct msg *m, char c)
{
    if (m->at + 1 < sizeof(__op_fault_msg))
        __op_fault_msg[m->at++] = c;
}

static void __op_put_num(struct msg *m, uint64_t v, unsigned base, int min_digits)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v != 0 || n < min_digits);
    while (n > 0)
        __op_put_char(m, digits[--n]);
}

_Noreturn void __op_faultf(enum op_fault why, const char *fmt, ...)
{
    struct msg m = { 0 };
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt; *p != '\0'; p++) {
        if (*p != '%' || p[1] == '\0') {
            __op_put_char(&m, *p);
            continue;
        }
        p++;
        if (*p == 's') {
            for (const char *s = va_arg(ap, const char *); *s != '\0'; s++)
                __op_put_char(&m, *s);
        } else if (*p == 'x') {
            __op_put_char(&m, '0');
            __op_put_char(&m, 'x');
            __op_put_num(&m, va_arg(ap, uint64_t), 16, 8);
        } else if (*p == 'u') {
            __op_put_num(&m, va_arg(ap, uint64_t), 10, 1);
        } else {
            __op_put_char(&m, *p);
        }
    }
    va_end(ap);
    __op_fault_msg[m.at] = '\0';
    __OP_SVC->fault(why, __op_fault_msg);
    __builtin_unreachable();
}

/* Split-stack prologues call __morestack when the next x86 frame would go
 * below the tasklet's native stack (abi/dpu_abi.h), which is much larger than
 * its DPU budget: a guard of the emulator's own, which DPU-sized programs do
 * not reach.  The worker reports it as a native stack overflow.  Nothing here
 * may check the stack again. */
__attribute__((no_split_stack, noreturn, used)) void __op_stack_overflow(void)
{
    __OP_SVC->fault(OP_FAULT_STACK, "native");
    __builtin_unreachable();
}

/* Called by a function whose DPU frame (`need` bytes) does not fit what its
 * tasklet's active calls left of its STACK_SIZE_TASKLET_<n> (the toolchain's
 * stack pass inserts the check): on the DPU the frame would overwrite the
 * WRAM beyond the stack.  The worker names the function from `fn`. */
_Noreturn void __op_dstack_overflow(uint32_t fn, uint32_t need)
{
    struct op_dstack *d = __op_dstack();
    d->fn = fn;
    d->need = need;
    __OP_SVC->fault(OP_FAULT_STACK, "dpu");
    __builtin_unreachable();
}
__asm__(".text\n"
        ".globl __morestack\n"
        ".type __morestack, @function\n"
        "__morestack:\n"
        "    jmp __op_stack_overflow\n"
        ".size __morestack, . - __morestack\n");

_Noreturn void __op_fault(enum op_fault why, const char *msg)
{
    __OP_SVC->fault(why, msg);
    __builtin_unreachable();
}

/* A load or store below WRAM's first byte, in its page (code built for a chip
 * whose WRAM does not start on a page boundary, v1B: the accounting pass's
 * check, timing/op_points.h): the fault, and message, of one below a WRAM
 * that does (the worker's memory fault). */
_Noreturn void __op_wram_low(uint32_t address)
{
    uint32_t first = OP_WRAM_START(__op_env->wram_size);
    __op_faultf(OP_FAULT_MEMORY, "WRAM access out of bounds at address %x: %u bytes below WRAM's first byte %x",
        (uint64_t)address, (uint64_t)(first - address), (uint64_t)first);
}

void __op_check_mram(const char *who, uint64_t addr, uint64_t size)
{
    uint64_t lo = OP_MRAM_BASE;
    uint64_t hi = lo + __op_env->mram_size;
    if (addr < lo || addr > hi || size > hi - addr)
        __op_faultf(OP_FAULT_DMA, "%s: MRAM address %x (%u bytes) is outside MRAM [%x, %x)", who, addr, size, lo,
            hi);
}

void __op_check_wram(const char *who, uintptr_t addr, uint64_t size)
{
    uint64_t lo = OP_WRAM_START(__op_env->wram_size), hi = OP_WRAM_END;
    if ((addr >= lo && addr <= hi && size <= hi - addr) || op_nstack_contains(addr, size, __op_env->nr_tasklets))
        return; /* WRAM, or a tasklet's stack (its locals) */
    __op_faultf(OP_FAULT_DMA, "%s: WRAM address %x (%u bytes) is outside WRAM [%x, %x)", who, (uint64_t)addr, size,
        lo, hi);
}
