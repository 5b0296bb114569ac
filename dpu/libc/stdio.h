/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU libc: <stdio.h>.
 *
 * On a DPU, printf() does not write anywhere the program can see: each call
 * appends one record (format string + raw argument values) to the DPU's MRAM
 * log buffer `__stdout_buffer` (1 MiB, circular; the oldest records are lost
 * when it wraps).  The host turns the records into text with dpu_log_read().
 * The log is emptied at the start of every launch.
 *
 * Supported conversions: d i u x X o c s p f F e E g G a A b(binary) n %%,
 * flags "-+ #0'", width and precision (also `*`), length modifiers hh h l ll
 * j z t L.  %s copies the string into the record.  Every call is one DMA for the
 * timing model, and gives way to other tasklets like any DMA.
 *
 * As the SDK's, this header brings <attributes.h> (a program that includes
 * only <stdio.h> may declare __host and __mram variables), and
 * STDOUT_BUFFER_INIT(size) replaces the 1 MiB log by one of `size` bytes.
 */
#ifndef OPENPIM_DPU_STDIO_H
#define OPENPIM_DPU_STDIO_H

#include <attributes.h>
#include <stddef.h>

#ifndef EOF
#define EOF (-1)
#endif

/* Declares the log buffer with `size` bytes (a multiple of 8, at least 8), at
 * file scope, instead of the default 1 MiB; the ring and dpu_log_read() use
 * that size.  Ends with its own ';', as the SDK's, so it works with or without
 * one. */
#define STDOUT_BUFFER_INIT(size)                                                                   \
    _Static_assert((size) >= 8 && ((size) & 7) == 0,                                               \
                   "STDOUT_BUFFER_INIT: the stdout buffer size must be a multiple of 8 and > 0");  \
    unsigned char __dma_aligned __mram_noinit __stdout_buffer[(size)];                             \
    const unsigned int __stdout_buffer_size = (size);

/* Returns 0 (the text is only produced on the host). */
int printf(const char *restrict format, ...) __attribute__((format(printf, 1, 2)));
/* Logs s followed by a newline; returns 0. */
int puts(const char *s);
/* Logs one character; returns c as an unsigned char. */
int putchar(int c);

#endif
