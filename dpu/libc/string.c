/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU libc: <string.h> and <strings.h>.
 * Built with -fno-builtin (and no loop-idiom rewriting) so that these loops are
 * not turned back into calls to themselves. */
#include <string.h>
#include <strings.h>
#include <stdint.h>

/* Word accesses that may alias anything. */
typedef uint64_t __attribute__((may_alias)) word_t;

void *memcpy(void *restrict dest, const void *restrict src, size_t n)
{
    unsigned char *d = dest;
    const unsigned char *s = src;
    if ((((uintptr_t)d | (uintptr_t)s) & 7) == 0) {
        for (; n >= 8; n -= 8, d += 8, s += 8)
            *(word_t *)(void *)d = *(const word_t *)(const void *)s;
    }
    while (n-- > 0)
        *d++ = *s++;
    return dest;
}

void *memmove(void *dest, const void *src, size_t n)
{
    unsigned char *d = dest;
    const unsigned char *s = src;
    if (d == s || n == 0)
        return dest;
    if (d < s || d >= s + n) {
        while (n-- > 0)
            *d++ = *s++;
    } else {
        d += n;
        s += n;
        while (n-- > 0)
            *--d = *--s;
    }
    return dest;
}

void *memset(void *s, int c, size_t n)
{
    unsigned char *p = s;
    if (((uintptr_t)p & 7) == 0 && n >= 8) {
        uint64_t v = (unsigned char)c; /* shifts, not a multiply: no __muldi3 in IRAM */
        v |= v << 8;
        v |= v << 16;
        v |= v << 32;
        for (; n >= 8; n -= 8, p += 8)
            *(word_t *)(void *)p = v;
    }
    while (n-- > 0)
        *p++ = (unsigned char)c;
    return s;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}

void *memchr(const void *s, int c, size_t n)
{
    const unsigned char *p = s;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == (unsigned char)c)
            return (void *)(p + i);
    }
    return NULL;
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return n;
}

size_t strnlen(const char *s, size_t maxlen)
{
    size_t n = 0;
    while (n < maxlen && s[n] != '\0')
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    while (*x != '\0' && *x == *y) {
        x++;
        y++;
    }
    return (*x > *y) - (*x < *y);
}

int strncmp(const char *a, const char *b, size_t n)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    for (; n > 0; n--, x++, y++) {
        if (*x != *y)
            return *x < *y ? -1 : 1;
        if (*x == '\0')
            return 0;
    }
    return 0;
}

char *strcpy(char *restrict dest, const char *restrict src)
{
    char *d = dest;
    while ((*d++ = *src++) != '\0')
        ;
    return dest;
}

char *stpcpy(char *restrict dest, const char *restrict src)
{
    while ((*dest = *src++) != '\0')
        dest++;
    return dest;
}

char *strncpy(char *restrict dest, const char *restrict src, size_t n)
{
    size_t i = 0;
    for (; i < n && src[i] != '\0'; i++)
        dest[i] = src[i];
    for (; i < n; i++)
        dest[i] = '\0';
    return dest;
}

char *strcat(char *restrict dest, const char *restrict src)
{
    strcpy(dest + strlen(dest), src);
    return dest;
}

char *strncat(char *restrict dest, const char *restrict src, size_t n)
{
    char *d = dest + strlen(dest);
    size_t i = 0;
    for (; i < n && src[i] != '\0'; i++)
        d[i] = src[i];
    d[i] = '\0';
    return dest;
}

char *strchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c)
            return (char *)s;
        if (*s == '\0')
            return NULL;
    }
}

char *strrchr(const char *s, int c)
{
    const char *last = NULL;
    for (;; s++) {
        if (*s == (char)c)
            last = s;
        if (*s == '\0')
            return (char *)last;
    }
}

char *strstr(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    for (; *haystack != '\0' || n == 0; haystack++) {
        if (strncmp(haystack, needle, n) == 0)
            return (char *)haystack;
        if (*haystack == '\0')
            break;
    }
    return NULL;
}

size_t strspn(const char *s, const char *accept)
{
    size_t n = 0;
    while (s[n] != '\0' && strchr(accept, s[n]) != NULL)
        n++;
    return n;
}

size_t strcspn(const char *s, const char *reject)
{
    size_t n = 0;
    while (s[n] != '\0' && strchr(reject, s[n]) == NULL)
        n++;
    return n;
}

char *strpbrk(const char *s, const char *accept)
{
    s += strcspn(s, accept);
    return *s != '\0' ? (char *)s : NULL;
}

char *strtok_r(char *restrict s, const char *restrict delim, char **restrict saveptr)
{
    if (s == NULL)
        s = *saveptr;
    s += strspn(s, delim);
    if (*s == '\0') {
        *saveptr = s;
        return NULL;
    }
    char *end = s + strcspn(s, delim);
    if (*end != '\0')
        *end++ = '\0';
    *saveptr = end;
    return s;
}

char *strerror(int errnum)
{
    switch (errnum) {
    case 0:
        return "Success";
    case 12:
        return "Out of memory";
    case 22:
        return "Invalid argument";
    case 114:
        return "Operation already in progress";
    default:
        return "Unknown error";
    }
}

static int __op_lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

int strcasecmp(const char *a, const char *b)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    while (*x != '\0' && __op_lower(*x) == __op_lower(*y)) {
        x++;
        y++;
    }
    return __op_lower(*x) - __op_lower(*y);
}

int strncasecmp(const char *a, const char *b, size_t n)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    for (; n > 0; n--, x++, y++) {
        if (__op_lower(*x) != __op_lower(*y))
            return __op_lower(*x) - __op_lower(*y);
        if (*x == '\0')
            return 0;
    }
    return 0;
}
