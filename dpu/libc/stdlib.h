/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU libc: <stdlib.h>.
 *
 * abort() stops the whole DPU (OP_FAULT_HALT).  exit() ends only the calling
 * tasklet, exactly as if it had returned from main().  There is no malloc: use
 * mem_alloc() (alloc.h) or buddy_alloc() (buddy_alloc.h).
 */
#ifndef OPENPIM_DPU_STDLIB_H
#define OPENPIM_DPU_STDLIB_H

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 0x7fffffff

typedef struct {
    int quot, rem;
} div_t;
typedef struct {
    long quot, rem;
} ldiv_t;
typedef struct {
    long long quot, rem;
} lldiv_t;

_Noreturn void abort(void);
_Noreturn void exit(int status);

int abs(int x);
long labs(long x);
long long llabs(long long x);
div_t div(int num, int den);
ldiv_t ldiv(long num, long den);
lldiv_t lldiv(long long num, long long den);

int atoi(const char *s);
long atol(const char *s);
long long atoll(const char *s);
long strtol(const char *restrict s, char **restrict end, int base);
unsigned long strtoul(const char *restrict s, char **restrict end, int base);
long long strtoll(const char *restrict s, char **restrict end, int base);
unsigned long long strtoull(const char *restrict s, char **restrict end, int base);

/* One generator per DPU (state in WRAM, so it persists across launches like any global). */
int rand(void);
void srand(unsigned int seed);

void qsort(void *base, size_t nmemb, size_t size, int (*compar)(const void *, const void *));
void *bsearch(const void *key, const void *base, size_t nmemb, size_t size, int (*compar)(const void *, const void *));

#endif
