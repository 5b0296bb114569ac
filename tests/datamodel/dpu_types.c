/* SPDX-License-Identifier: MIT */
/* Reports the C data model DPU code is compiled with, and uses a structure
 * shared with the host whose layout depends on it. */
#include <defs.h>
#include <mram.h>
#include <stddef.h>
#include <stdint.h>

struct shared {
    uint32_t a;
    size_t n;
    uintptr_t u;
    long l;
    void *p;
    uint8_t c;
    ptrdiff_t d;
};

__host uint32_t facts[32];
uint32_t count_facts(); /* declared without a prototype, as public programs do (PrIM TRNS) */
__host struct shared in, out;
__host uint32_t walk[16];
/* an index of MRAM addresses, as public programs keep them (uintptr_t entries) */
__mram_noinit uintptr_t chain[16];

int main(void)
{
    uint32_t k = 0;
    facts[k++] = sizeof(char);
    facts[k++] = sizeof(short);
    facts[k++] = sizeof(int);
    facts[k++] = sizeof(long);
    facts[k++] = sizeof(long long);
    facts[k++] = sizeof(void *);
    facts[k++] = sizeof(size_t);
    facts[k++] = sizeof(ptrdiff_t);
    facts[k++] = sizeof(uintptr_t);
    facts[k++] = sizeof(intptr_t);
    facts[k++] = sizeof(wchar_t);
    facts[k++] = sizeof(float);
    facts[k++] = sizeof(double);
    facts[k++] = sizeof(long double);
    facts[k++] = sizeof(_Bool);
    facts[k++] = sizeof(int (*)(void));
    facts[k++] = _Alignof(long long);
    facts[k++] = _Alignof(double);
    facts[k++] = _Alignof(long double);
    facts[k++] = _Alignof(void *);
    facts[k++] = (wchar_t)-1 > 0; /* unsigned */
    facts[k++] = sizeof(struct shared);
    facts[k++] = offsetof(struct shared, n);
    facts[k++] = offsetof(struct shared, u);
    facts[k++] = offsetof(struct shared, l);
    facts[k++] = offsetof(struct shared, p);
    facts[k++] = offsetof(struct shared, c);
    facts[k++] = offsetof(struct shared, d);
    facts[k++] = sizeof(L"ab") / sizeof(wchar_t);
    facts[k] = count_facts(k);

    out.a = in.a + 1;
    out.n = in.n * 2;
    out.u = in.u ^ 0xffffu;
    out.l = in.l - 5;
    out.p = (char *)in.p + 4;
    out.c = (uint8_t)(in.c + 1);
    out.d = -in.d;

    /* follow the chain the host wrote: entry i holds the MRAM address of the next entry */
    __mram_ptr uintptr_t *at = chain;
    for (uint32_t i = 0; i < 16; i++) {
        walk[i] = (uint32_t)((uintptr_t)at - (uintptr_t)chain) / sizeof(uintptr_t);
        at = (__mram_ptr uintptr_t *)*at;
    }
    return 0;
}

uint32_t count_facts(uint32_t k)
{
    return k;
}
