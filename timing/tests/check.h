/* SPDX-License-Identifier: MIT */
/* Minimal test helpers shared by the timing tests. */
#ifndef OPENPIM_TIMING_CHECK_H
#define OPENPIM_TIMING_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            check_failures++;                                                       \
        }                                                                           \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                                          \
    do {                                                                                            \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);              \
        if (a_ != b_) {                                                                             \
            fprintf(stderr, "%s:%d: %s = %llu, expected %s = %llu\n", __FILE__, __LINE__, #a, a_, #b, b_); \
            check_failures++;                                                                       \
        }                                                                                           \
    } while (0)

static int check_done(const char *name)
{
    if (check_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}
#endif
