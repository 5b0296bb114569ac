/* OpenPIM DPU runtime: printf/puts/putchar into the MRAM log (see log_record.h
 * for the record format). */
#include "rt_internal.h"
#define OP_LOG_RING_MEM __mram_ptr
#include "log_record.h"

#include <attributes.h>
#include <stdarg.h>
#include <stdio.h>

#define STDOUT_BUFFER_SIZE (1u << 20)

/* The log: a weak 1 MiB MRAM array and its state (total bytes appended since
 * the launch began; reset by __op_boot).  The host reads both by name. */
__mram_noinit __attribute__((weak)) uint8_t __stdout_buffer[STDOUT_BUFFER_SIZE];
__host uint64_t __stdout_buffer_state;

static int __op_log_append(const char *fmt, va_list ap)
{
    uint32_t base = (uint32_t)(uintptr_t)__stdout_buffer;
    struct op_log_ring ring = { __op_mram_at(base), STDOUT_BUFFER_SIZE, __stdout_buffer_state };
    uint64_t start = ring.pos;
    uint32_t n = op_log_encode(&ring, fmt, ap);
    __stdout_buffer_state = ring.pos;
    if (n != 0) {
        /* One write DMA per contiguous piece, for the timing model. */
        uint32_t at = (uint32_t)(start % STDOUT_BUFFER_SIZE);
        uint32_t first = STDOUT_BUFFER_SIZE - at < n ? STDOUT_BUFFER_SIZE - at : n;
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
