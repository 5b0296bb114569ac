/* SPDX-License-Identifier: MIT */
/* The daemon's one way to report an error: the message into the caller's
 * buffer, -1 for the caller to return. */
#ifndef OPENPIM_DAEMON_FAIL_H
#define OPENPIM_DAEMON_FAIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

#endif
