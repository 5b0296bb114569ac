/* SPDX-License-Identifier: MIT */
/* OpenPIM host SDK: decoder of the DPU printf log (see log_format.h, and
 * abi/log_record.h for the record format). */
#include "log_format.h"

#include <stdlib.h>
#include <string.h>

#include "../abi/log_record.h"

/* Logical view of the ring: logical byte o is buf[o % size]. */
struct ring_view {
    const uint8_t *buf;
    uint32_t size;
};

static void ring_read(const struct ring_view *r, uint64_t at, void *dst, uint32_t n)
{
    uint8_t *d = dst;
    while (n > 0) {
        uint32_t off = (uint32_t)(at % r->size);
        uint32_t chunk = r->size - off < n ? r->size - off : n;
        memcpy(d, r->buf + off, chunk);
        d += chunk;
        at += chunk;
        n -= chunk;
    }
}

static uint32_t ring_u32(const struct ring_view *r, uint64_t at)
{
    uint8_t b[4];
    ring_read(r, at, b, 4);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* Cursor over one record's argument items. */
struct args {
    const uint8_t *p, *end;
};

/* Takes a fixed-size item with the given tag; 0 if absent or mistyped. */
static int take(struct args *a, char tag, uint64_t *v)
{
    if (a->end - a->p < 9 || a->p[0] != (uint8_t)tag)
        return 0;
    *v = get_u64(a->p + 1);
    a->p += 9;
    return 1;
}

/* Takes a string item: *s points into the record (not NUL-terminated), *n its
 * length; *s is NULL for a NULL pointer. */
static int take_str(struct args *a, const uint8_t **s, uint32_t *n)
{
    if (a->end - a->p < 5 || a->p[0] != OP_LOG_TAG_STR)
        return 0;
    uint32_t len = get_u32(a->p + 1);
    a->p += 5;
    if (len == OP_LOG_NULL_STRING) {
        *s = NULL;
        *n = 0;
        return 1;
    }
    if ((uint64_t)(a->end - a->p) < len)
        return 0;
    *s = a->p;
    *n = len;
    a->p += len;
    return 1;
}

/* Builds a host printf conversion from the spec's flags, the resolved width and
 * precision (negative: none), a length modifier and a conversion char. */
static void build_spec(char *out, uint8_t flags, int width, int prec, const char *length, char conv)
{
    char *o = out;
    *o++ = '%';
    if (flags & OP_LOG_F_MINUS)
        *o++ = '-';
    if (flags & OP_LOG_F_PLUS)
        *o++ = '+';
    if (flags & OP_LOG_F_SPACE)
        *o++ = ' ';
    if (flags & OP_LOG_F_HASH)
        *o++ = '#';
    if (flags & OP_LOG_F_ZERO)
        *o++ = '0';
    if (flags & OP_LOG_F_QUOTE)
        *o++ = '\'';
    if (width >= 0)
        o += sprintf(o, "%d", width);
    if (prec >= 0)
        o += sprintf(o, ".%d", prec);
    strcpy(o, length);
    o += strlen(length);
    *o++ = conv;
    *o = '\0';
}

/* Growable output text of one record. */
struct text {
    char *s;
    size_t len, cap;
    int oom;
};

static void text_add(struct text *t, const char *s, size_t n)
{
    if (t->oom)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *grown = realloc(t->s, cap);
        if (grown == NULL) {
            t->oom = 1;
            return;
        }
        t->s = grown;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

/* Appends snprintf(spec, ...) for one value (the caller picks the type). */
#define TEXT_PRINTF(t, spec, value)                                                                                    \
    do {                                                                                                               \
        int need_ = snprintf(NULL, 0, (spec), (value));                                                                \
        if (need_ > 0) {                                                                                               \
            char *tmp_ = malloc((size_t)need_ + 1);                                                                    \
            if (tmp_ == NULL) {                                                                                        \
                (t)->oom = 1;                                                                                          \
            } else {                                                                                                   \
                snprintf(tmp_, (size_t)need_ + 1, (spec), (value));                                                    \
                text_add((t), tmp_, (size_t)need_);                                                                    \
                free(tmp_);                                                                                            \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

/* %b: binary digits, with the usual precision, '#' (0b prefix), width, '-' and '0'. */
static void format_binary(struct text *t, uint8_t flags, int width, int prec, uint64_t v)
{
    char digits[65];
    int n = 0;
    for (uint64_t x = v; x != 0; x >>= 1)
        digits[n++] = (char)('0' + (x & 1));
    int ndig = n;
    if (prec < 0 && ndig == 0)
        ndig = 1; /* "0" */
    if (prec > ndig)
        ndig = prec;
    const char *prefix = (flags & OP_LOG_F_HASH) && v != 0 ? "0b" : "";
    int body = (int)strlen(prefix) + ndig;
    int pad = width > body ? width - body : 0;
    int zero_pad = (flags & OP_LOG_F_ZERO) && !(flags & OP_LOG_F_MINUS) && prec < 0;
    if (!(flags & OP_LOG_F_MINUS) && !zero_pad)
        for (int i = 0; i < pad; i++)
            text_add(t, " ", 1);
    text_add(t, prefix, strlen(prefix));
    if (zero_pad)
        for (int i = 0; i < pad; i++)
            text_add(t, "0", 1);
    for (int i = ndig; i > n; i--)
        text_add(t, "0", 1);
    for (int i = n; i > 0; i--)
        text_add(t, &digits[i - 1], 1);
    if (flags & OP_LOG_F_MINUS)
        for (int i = 0; i < pad; i++)
            text_add(t, " ", 1);
}

/* Decodes one whole record (rec, len bytes) into t.  Returns 0, or -1 if the
 * record is malformed (t then holds the text decoded so far). */
static int decode_record(const uint8_t *rec, uint32_t len, struct text *t)
{
    uint32_t fmt_len = get_u32(rec + 4);
    if ((uint64_t)fmt_len + OP_LOG_MIN_RECORD > len)
        return -1;
    char *fmt = malloc((size_t)fmt_len + 1);
    if (fmt == NULL) {
        t->oom = 1;
        return 0;
    }
    memcpy(fmt, rec + OP_LOG_HEADER_SIZE, fmt_len);
    fmt[fmt_len] = '\0';
    struct args a = { rec + OP_LOG_HEADER_SIZE + fmt_len, rec + len - OP_LOG_TRAILER_SIZE };
    int rc = 0;
    const char *p = fmt;
    while (*p != '\0' && rc == 0) {
        const char *lit = p;
        while (*p != '\0' && *p != '%')
            p++;
        text_add(t, lit, (size_t)(p - lit));
        if (*p == '\0')
            break;
        struct op_log_spec sp;
        const char *spec_text = p;
        p += op_log_parse_spec(p, &sp);
        if (sp.cls == OP_LOG_C_LITERAL) {
            text_add(t, spec_text, sp.nbytes);
            continue;
        }
        if (sp.cls == OP_LOG_C_PERCENT) {
            text_add(t, "%", 1);
            continue;
        }
        int width = sp.width, prec = sp.prec;
        uint8_t flags = sp.flags;
        uint64_t v;
        if (width == OP_LOG_STAR) {
            if (!take(&a, OP_LOG_TAG_INT, &v)) {
                rc = -1;
                break;
            }
            int64_t w = (int64_t)v;
            if (w < 0) {
                flags |= OP_LOG_F_MINUS;
                w = w < -OP_LOG_MAX_FIELD ? OP_LOG_MAX_FIELD : -w; /* INT64_MIN has no negation */
            }
            width = (int)(w > OP_LOG_MAX_FIELD ? OP_LOG_MAX_FIELD : w);
        }
        if (prec == OP_LOG_STAR) {
            if (!take(&a, OP_LOG_TAG_INT, &v)) {
                rc = -1;
                break;
            }
            int64_t pr = (int64_t)v;
            prec = pr < 0 ? -1 : (int)(pr > OP_LOG_MAX_FIELD ? OP_LOG_MAX_FIELD : pr);
        }
        char spec[48];
        switch (sp.cls) {
        case OP_LOG_C_INT:
            if (!take(&a, OP_LOG_TAG_INT, &v)) {
                rc = -1;
                break;
            }
            build_spec(spec, flags, width, prec, "ll", sp.conv);
            TEXT_PRINTF(t, spec, (long long)v);
            break;
        case OP_LOG_C_UINT:
            if (!take(&a, OP_LOG_TAG_UINT, &v)) {
                rc = -1;
                break;
            }
            if (sp.conv == 'b') {
                format_binary(t, flags, width, prec, v);
            } else {
                build_spec(spec, flags, width, prec, "ll", sp.conv);
                TEXT_PRINTF(t, spec, (unsigned long long)v);
            }
            break;
        case OP_LOG_C_CHAR:
            if (!take(&a, OP_LOG_TAG_INT, &v)) {
                rc = -1;
                break;
            }
            build_spec(spec, flags, width, -1, "", 'c');
            TEXT_PRINTF(t, spec, (int)(unsigned char)v);
            break;
        case OP_LOG_C_PTR:
            if (!take(&a, OP_LOG_TAG_PTR, &v)) {
                rc = -1;
                break;
            }
            build_spec(spec, flags, width, prec, "", 'p');
            TEXT_PRINTF(t, spec, (void *)(uintptr_t)v);
            break;
        case OP_LOG_C_DOUBLE: {
            if (!take(&a, OP_LOG_TAG_DOUBLE, &v)) {
                rc = -1;
                break;
            }
            double d;
            memcpy(&d, &v, sizeof(d));
            build_spec(spec, flags, width, prec, "", sp.conv);
            TEXT_PRINTF(t, spec, d);
            break;
        }
        case OP_LOG_C_STR: {
            const uint8_t *s;
            uint32_t n;
            if (!take_str(&a, &s, &n)) {
                rc = -1;
                break;
            }
            char *copy = malloc((size_t)n + 1);
            if (copy == NULL) {
                t->oom = 1;
                break;
            }
            if (s != NULL)
                memcpy(copy, s, n);
            copy[n] = '\0';
            build_spec(spec, flags, width, prec, "", 's');
            TEXT_PRINTF(t, spec, s != NULL ? (const char *)copy : "(null)");
            free(copy);
            break;
        }
        case OP_LOG_C_COUNT:
        default:
            break;
        }
    }
    if (rc == 0 && a.p != a.end)
        rc = -1; /* items left over: encoder and decoder disagree */
    free(fmt);
    return rc;
}

int op_log_format(const uint8_t *buf, uint32_t buf_size, uint64_t state, FILE *out)
{
    if (state == 0)
        return 0;
    if (buf == NULL || buf_size < OP_LOG_MIN_RECORD || out == NULL)
        return -1;
    struct ring_view r = { buf, buf_size };
    uint64_t lower = state > buf_size ? state - buf_size : 0;

    /* Walk back from the newest record to the oldest one still whole. */
    uint64_t *starts = NULL;
    size_t count = 0, cap = 0;
    int rc = 0;
    uint64_t pos = state;
    while (pos - lower >= OP_LOG_MIN_RECORD) {
        uint32_t len = ring_u32(&r, pos - OP_LOG_TRAILER_SIZE);
        if (len < OP_LOG_MIN_RECORD) {
            rc = -1;
            break;
        }
        if (len > pos - lower)
            break; /* partly overwritten */
        if (ring_u32(&r, pos - len) != len) {
            rc = -1;
            break;
        }
        if (count == cap) {
            cap = cap ? 2 * cap : 64;
            uint64_t *grown = realloc(starts, cap * sizeof(*starts));
            if (grown == NULL) {
                free(starts);
                return -2;
            }
            starts = grown;
        }
        starts[count++] = pos - len;
        pos -= len;
    }
    if (rc == 0 && lower == 0 && pos != 0)
        rc = -1; /* nothing was overwritten, so the walk must reach offset 0 */

    /* Print them oldest first. */
    struct text t = { NULL, 0, 0, 0 };
    uint8_t *rec = NULL;
    for (size_t i = count; i-- > 0 && !t.oom;) {
        uint64_t start = starts[i];
        uint32_t len = ring_u32(&r, start);
        uint8_t *grown = realloc(rec, len);
        if (grown == NULL) {
            t.oom = 1;
            break;
        }
        rec = grown;
        ring_read(&r, start, rec, len);
        t.len = 0;
        if (decode_record(rec, len, &t) != 0)
            rc = -1;
        if (!t.oom && t.len > 0 && fwrite(t.s, 1, t.len, out) != t.len)
            t.oom = 1;
    }
    if (t.oom)
        rc = -2;
    free(rec);
    free(t.s);
    free(starts);
    return rc;
}
