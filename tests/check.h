/* SPDX-License-Identifier: MIT */
/* Minimal checking for host test programs: each failed CHECK prints where and
 * what, and the program exits non-zero at the end. */
#ifndef OPENPIM_TEST_CHECK_H
#define OPENPIM_TEST_CHECK_H

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* atomic: tests check from several threads */
static _Atomic int check_failures, check_count;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        check_count++;                                                                     \
        if (!(cond)) {                                                                     \
            check_failures++;                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);       \
        }                                                                                  \
    } while (0)

#define CHECK_EQ(a, b)                                                                     \
    do {                                                                                   \
        long long _a = (long long)(a), _b = (long long)(b);                                \
        check_count++;                                                                     \
        if (_a != _b) {                                                                    \
            check_failures++;                                                              \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, \
                    #a, _a, #b, _b);                                                       \
        }                                                                                  \
    } while (0)

static inline int check_done(const char *name)
{
    int count = check_count, failures = check_failures;
    printf("%s: %d checks, %d failed\n", name, count, failures);
    return failures ? 1 : 0;
}

#endif
