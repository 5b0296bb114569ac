/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU runtime: printf/puts/putchar into the MRAM log (see log_record.h
 * for the record format). */
#include "rt_internal.h"
#define OP_LOG_RING_MEM __mram_ptr
#include "log_record.h"

#include <attributes.h>
#include <stdarg.h>
#include <stdio.h>

#define STDOUT_BUFFER_DEFAULT_SIZE (1u << 20)

/* The log: a weak 1 MiB MRAM array and its state (total bytes appended since
 * the launch began; reset by __op_boot).  STDOUT_BUFFER_INIT (<stdio.h>)
 * defines the array and its size in the program, replacing the array; the
 * size is a weak reference, so that a program without it reads the default
 * (a weak definition here would be folded into the code).  The host reads the
 * array (its symbol size) and the state by name. */
__mram_noinit __attribute__((weak)) uint8_t __stdout_buffer[STDOUT_BUFFER_DEFAULT_SIZE];
extern const unsigned int __stdout_buffer_size __attribute__((weak));
__host uint64_t __stdout_buffer_state;

static int __op_log_append(const char *fmt, va_list ap)
{
    uint32_t base = (uint32_t)(uintptr_t)__stdout_buffer;
    uint32_t size = &__stdout_buffer_size != NULL ? __stdout_buffer_size : STDOUT_BUFFER_DEFAULT_SIZE;
    struct op_log_ring ring = { __op_mram_at(base), size, __stdout_buffer_state };
    uint64_t start = ring.pos;
    uint32_t n = op_log_encode(&ring, fmt, ap);
    __stdout_buffer_state = ring.pos;
    if (n != 0) {
        /* One write DMA per contiguous piece, for the timing model. */
        uint32_t at = (uint32_t)(start % size);
        uint32_t first = size - at < n ? size - at : n;
        __OP_SVC->dma(base + at, 0, first, OP_DMA_WRITE);
        if (first < n)
            __OP_SVC->dma(base, 0, n - first, OP_DMA_WRITE);
    }
    __op_yield();
    return 0;
}

static int __op_log_appendf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = __op_log_append(fmt, ap);
    va_end(ap);
    return r;
}

/* printf, puts and putchar cost a tasklet's stack what UPMEM's do (the
 * toolchain's stack pass charges that, toolchain/llvm/DpuFrame.cpp), not what
 * this implementation uses. */
int printf(const char *restrict format, ...)
{
    va_list ap;
    va_start(ap, format);
    int r = __op_log_append(format, ap);
    va_end(ap);
    return r;
}

int puts(const char *s)
{
    return __op_log_appendf("%s\n", s);
}

int putchar(int c)
{
    __op_log_appendf("%c", c);
    return (unsigned char)c;
}
