/* SPDX-License-Identifier: MIT */
/* OpenPIM: the DPU printf log record format, and its encoder.
 *
 * Header-only and libc-free (stdint/stddef/stdarg only), so that the very same
 * code is compiled into the DPU runtime (dpu/runtime/stdio.c) and into the host
 * unit test of the decoder (dpu/test/log_format_test.c); the host decoder
 * (sdk/log_format.c) shares the conversion parser op_log_parse_spec().
 *
 * THE LOG.  A DPU's log is a byte ring of `size` bytes (the MRAM array
 * __stdout_buffer) plus a 64-bit state (the WRAM variable __stdout_buffer_state)
 * holding the total number of bytes ever appended since the launch began.
 * Logical byte o of the log lives at ring[o % size]; only the logical range
 * [max(0, state - size), state) is still present.
 *
 * ONE RECORD per printf/puts/putchar call, appended at logical offset `state`
 * (all integers little-endian, no alignment, a record may wrap around):
 *
 *     u32 len        total record length in bytes, header and trailer included
 *     u32 fmt_len    length of the format string (without its NUL)
 *     fmt_len bytes  the format string
 *     arguments      one item per argument consumed by the format, in order:
 *                      'i' + 8 bytes   signed integer, already narrowed to its C type
 *                                      (%d %i %c, and every `*` width or precision)
 *                      'u' + 8 bytes   unsigned integer, narrowed (%u %o %x %X %b)
 *                      'f' + 8 bytes   IEEE double (%f %F %e %E %g %G %a %A; %L.. is
 *                                      converted to double)
 *                      'p' + 8 bytes   pointer value (%p)
 *                      's' + u32 n + n bytes   string contents (%s); n = 0xffffffff
 *                                      and no bytes for a NULL pointer
 *                    (%n consumes its pointer but stores nothing; %% and
 *                    invalid conversions store nothing)
 *     u32 len        the same length again
 *
 * The trailing copy of len lets a reader walk the ring backwards from `state`
 * to the oldest record that is still whole.  A record longer than the ring is
 * not written at all.
 */
#ifndef OPENPIM_LOG_RECORD_H
#define OPENPIM_LOG_RECORD_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define OP_LOG_HEADER_SIZE 8u
#define OP_LOG_TRAILER_SIZE 4u
#define OP_LOG_MIN_RECORD (OP_LOG_HEADER_SIZE + OP_LOG_TRAILER_SIZE)
#define OP_LOG_NULL_STRING 0xffffffffu

#define OP_LOG_TAG_INT 'i'
#define OP_LOG_TAG_UINT 'u'
#define OP_LOG_TAG_DOUBLE 'f'
#define OP_LOG_TAG_PTR 'p'
#define OP_LOG_TAG_STR 's'

/* Conversion flags (struct op_log_spec.flags). */
#define OP_LOG_F_MINUS 0x01u
#define OP_LOG_F_PLUS 0x02u
#define OP_LOG_F_SPACE 0x04u
#define OP_LOG_F_HASH 0x08u
#define OP_LOG_F_ZERO 0x10u
#define OP_LOG_F_QUOTE 0x20u

/* Width / precision values that are not numbers. */
#define OP_LOG_NONE (-1)
#define OP_LOG_STAR (-2)
/* Larger explicit widths and precisions are clamped to this. */
#define OP_LOG_MAX_FIELD 4096

/* Length modifiers. */
enum op_log_length {
    OP_LOG_LEN_NONE,
    OP_LOG_LEN_HH,
    OP_LOG_LEN_H,
    OP_LOG_LEN_L,
    OP_LOG_LEN_LL,
    OP_LOG_LEN_J,
    OP_LOG_LEN_Z,
    OP_LOG_LEN_T,
    OP_LOG_LEN_BIGL,
};

/* What a conversion consumes and prints. */
enum op_log_class {
    OP_LOG_C_LITERAL, /* not a valid conversion: print its text as is */
    OP_LOG_C_PERCENT, /* %% */
    OP_LOG_C_INT,     /* d i */
    OP_LOG_C_UINT,    /* u o x X b */
    OP_LOG_C_CHAR,    /* c */
    OP_LOG_C_STR,     /* s */
    OP_LOG_C_PTR,     /* p */
    OP_LOG_C_DOUBLE,  /* f F e E g G a A */
    OP_LOG_C_COUNT,   /* n */
};

/* One parsed conversion specification. */
struct op_log_spec {
    uint32_t nbytes; /* length of its text, from the '%' to the conversion char */
    uint8_t flags;   /* OP_LOG_F_* */
    uint8_t length;  /* enum op_log_length */
    uint8_t cls;     /* enum op_log_class */
    char conv;       /* conversion character (0 if the format ended first) */
    int32_t width;   /* >= 0, OP_LOG_NONE or OP_LOG_STAR */
    int32_t prec;    /* >= 0, OP_LOG_NONE or OP_LOG_STAR */
};

static inline int32_t op_log__digits(const char *p, uint32_t *i)
{
    int32_t v = 0;
    while (p[*i] >= '0' && p[*i] <= '9') {
        v = v * 10 + (p[*i] - '0');
        if (v > OP_LOG_MAX_FIELD)
            v = OP_LOG_MAX_FIELD;
        (*i)++;
    }
    return v;
}

/* Parses the conversion specification at p (p[0] == '%'); returns its length. */
static inline uint32_t op_log_parse_spec(const char *p, struct op_log_spec *s)
{
    uint32_t i = 1;
    s->flags = 0;
    s->length = OP_LOG_LEN_NONE;
    s->width = OP_LOG_NONE;
    s->prec = OP_LOG_NONE;
    for (;; i++) {
        char c = p[i];
        if (c == '-')
            s->flags |= OP_LOG_F_MINUS;
        else if (c == '+')
            s->flags |= OP_LOG_F_PLUS;
        else if (c == ' ')
            s->flags |= OP_LOG_F_SPACE;
        else if (c == '#')
            s->flags |= OP_LOG_F_HASH;
        else if (c == '0')
            s->flags |= OP_LOG_F_ZERO;
        else if (c == '\'')
            s->flags |= OP_LOG_F_QUOTE;
        else
            break;
    }
    if (p[i] == '*') {
        s->width = OP_LOG_STAR;
        i++;
    } else if (p[i] >= '0' && p[i] <= '9') {
        s->width = op_log__digits(p, &i);
    }
    if (p[i] == '.') {
        i++;
        if (p[i] == '*') {
            s->prec = OP_LOG_STAR;
            i++;
        } else {
            s->prec = op_log__digits(p, &i);
        }
    }
    switch (p[i]) {
    case 'h':
        i++;
        s->length = OP_LOG_LEN_H;
        if (p[i] == 'h') {
            i++;
            s->length = OP_LOG_LEN_HH;
        }
        break;
    case 'l':
        i++;
        s->length = OP_LOG_LEN_L;
        if (p[i] == 'l') {
            i++;
            s->length = OP_LOG_LEN_LL;
        }
        break;
    case 'q':
        i++;
        s->length = OP_LOG_LEN_LL;
        break;
    case 'j':
        i++;
        s->length = OP_LOG_LEN_J;
        break;
    case 'z':
        i++;
        s->length = OP_LOG_LEN_Z;
        break;
    case 't':
        i++;
        s->length = OP_LOG_LEN_T;
        break;
    case 'L':
        i++;
        s->length = OP_LOG_LEN_BIGL;
        break;
    default:
        break;
    }
    s->conv = p[i];
    switch (p[i]) {
    case 'd':
    case 'i':
        s->cls = OP_LOG_C_INT;
        break;
    case 'u':
    case 'o':
    case 'x':
    case 'X':
    case 'b':
        s->cls = OP_LOG_C_UINT;
        break;
    case 'c':
        s->cls = OP_LOG_C_CHAR;
        break;
    case 's':
        s->cls = OP_LOG_C_STR;
        break;
    case 'p':
        s->cls = OP_LOG_C_PTR;
        break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
        s->cls = OP_LOG_C_DOUBLE;
        break;
    case 'n':
        s->cls = OP_LOG_C_COUNT;
        break;
    case '%':
        s->cls = OP_LOG_C_PERCENT;
        break;
    case '\0':
        /* The format ended inside the specification: print what there is. */
        s->cls = OP_LOG_C_LITERAL;
        s->nbytes = i;
        return i;
    default:
        s->cls = OP_LOG_C_LITERAL;
        break;
    }
    s->nbytes = i + 1;
    return i + 1;
}

/* ---- Encoder ---------------------------------------------------------------- */

/* The ring being appended to. */
/* Memory the ring lives in: plain on the host, MRAM (through %gs) in the DPU runtime. */
#ifndef OP_LOG_RING_MEM
#define OP_LOG_RING_MEM
#endif

struct op_log_ring {
    OP_LOG_RING_MEM uint8_t *buf; /* `size` bytes */
    uint32_t size; /* ring size in bytes */
    uint64_t pos;  /* total bytes appended so far (the log state) */
};

/* Where the encoder's bytes go: counted only (ring == NULL) or written. */
struct op_log_sink {
    struct op_log_ring *ring;
    uint64_t pos;   /* logical offset of the next byte */
    uint64_t count; /* bytes produced */
};

static inline void op_log__put(struct op_log_sink *s, const void *src, uint64_t n)
{
    if (s->ring != NULL) {
        const uint8_t *from = (const uint8_t *)src;
        uint32_t size = s->ring->size;
        uint64_t left = n;
        uint64_t pos = s->pos;
        while (left > 0) {
            uint32_t at = (uint32_t)(pos % size);
            uint64_t chunk = size - at;
            if (chunk > left)
                chunk = left;
            for (uint64_t k = 0; k < chunk; k++)
                s->ring->buf[at + k] = from[k];
            from += chunk;
            pos += chunk;
            left -= chunk;
        }
    }
    s->pos += n;
    s->count += n;
}

static inline void op_log__put_u32(struct op_log_sink *s, uint32_t v)
{
    uint8_t b[4];
    for (int k = 0; k < 4; k++)
        b[k] = (uint8_t)(v >> (8 * k));
    op_log__put(s, b, 4);
}

static inline void op_log__put_item(struct op_log_sink *s, char tag, uint64_t v)
{
    uint8_t b[9];
    b[0] = (uint8_t)tag;
    for (int k = 0; k < 8; k++)
        b[1 + k] = (uint8_t)(v >> (8 * k));
    op_log__put(s, b, 9);
}

static inline uint64_t op_log__strlen(const char *str)
{
    uint64_t n = 0;
    while (str[n] != '\0')
        n++;
    return n;
}

/* Emits the argument items of `fmt`, consuming the arguments from *ap. */
static inline void op_log__args(struct op_log_sink *s, const char *fmt, va_list *ap)
{
    const char *p = fmt;
    while (*p != '\0') {
        if (*p != '%') {
            p++;
            continue;
        }
        struct op_log_spec sp;
        p += op_log_parse_spec(p, &sp);
        if (sp.cls == OP_LOG_C_LITERAL || sp.cls == OP_LOG_C_PERCENT)
            continue;
        if (sp.width == OP_LOG_STAR)
            op_log__put_item(s, OP_LOG_TAG_INT, (uint64_t)(int64_t)va_arg(*ap, int));
        if (sp.prec == OP_LOG_STAR)
            op_log__put_item(s, OP_LOG_TAG_INT, (uint64_t)(int64_t)va_arg(*ap, int));
        switch (sp.cls) {
        case OP_LOG_C_INT: {
            int64_t v;
            switch (sp.length) {
            case OP_LOG_LEN_HH:
                v = (signed char)va_arg(*ap, int);
                break;
            case OP_LOG_LEN_H:
                v = (short)va_arg(*ap, int);
                break;
            case OP_LOG_LEN_L:
                v = va_arg(*ap, long);
                break;
            case OP_LOG_LEN_LL:
            case OP_LOG_LEN_BIGL:
                v = va_arg(*ap, long long);
                break;
            case OP_LOG_LEN_J:
                v = (int64_t)va_arg(*ap, long long);
                break;
            case OP_LOG_LEN_Z:
                v = (int64_t)va_arg(*ap, size_t);
                break;
            case OP_LOG_LEN_T:
                v = (int64_t)va_arg(*ap, ptrdiff_t);
                break;
            default:
                v = va_arg(*ap, int);
                break;
            }
            op_log__put_item(s, OP_LOG_TAG_INT, (uint64_t)v);
            break;
        }
        case OP_LOG_C_UINT: {
            uint64_t v;
            switch (sp.length) {
            case OP_LOG_LEN_HH:
                v = (unsigned char)va_arg(*ap, unsigned int);
                break;
            case OP_LOG_LEN_H:
                v = (unsigned short)va_arg(*ap, unsigned int);
                break;
            case OP_LOG_LEN_L:
                v = va_arg(*ap, unsigned long);
                break;
            case OP_LOG_LEN_LL:
            case OP_LOG_LEN_BIGL:
                v = va_arg(*ap, unsigned long long);
                break;
            case OP_LOG_LEN_J:
                v = (uint64_t)va_arg(*ap, unsigned long long);
                break;
            case OP_LOG_LEN_Z:
                v = (uint64_t)va_arg(*ap, size_t);
                break;
            case OP_LOG_LEN_T:
                v = (uint64_t)va_arg(*ap, ptrdiff_t);
                break;
            default:
                v = va_arg(*ap, unsigned int);
                break;
            }
            op_log__put_item(s, OP_LOG_TAG_UINT, v);
            break;
        }
        case OP_LOG_C_CHAR:
            op_log__put_item(s, OP_LOG_TAG_INT, (uint64_t)(int64_t)va_arg(*ap, int));
            break;
        case OP_LOG_C_PTR:
            op_log__put_item(s, OP_LOG_TAG_PTR, (uint64_t)(uintptr_t)va_arg(*ap, void *));
            break;
        case OP_LOG_C_DOUBLE: {
            union {
                double d;
                uint64_t u;
            } v;
            if (sp.length == OP_LOG_LEN_BIGL)
                v.d = (double)va_arg(*ap, long double);
            else
                v.d = va_arg(*ap, double);
            op_log__put_item(s, OP_LOG_TAG_DOUBLE, v.u);
            break;
        }
        case OP_LOG_C_STR: {
            const char *str = va_arg(*ap, const char *);
            uint8_t tag = OP_LOG_TAG_STR;
            op_log__put(s, &tag, 1);
            if (str == NULL) {
                op_log__put_u32(s, OP_LOG_NULL_STRING);
            } else {
                uint64_t n = op_log__strlen(str);
                if (n >= OP_LOG_NULL_STRING)
                    n = OP_LOG_NULL_STRING - 1;
                op_log__put_u32(s, (uint32_t)n);
                op_log__put(s, str, n);
            }
            break;
        }
        case OP_LOG_C_COUNT:
            (void)va_arg(*ap, void *);
            break;
        default:
            break;
        }
    }
}

/* Appends one record for printf(fmt, ap...) to the ring.  Returns the record's
 * length, or 0 if it is larger than the ring (nothing is written then).
 * `ap` is left untouched (the encoder works on copies). */
static inline uint32_t op_log_encode(struct op_log_ring *ring, const char *fmt, va_list ap)
{
    if (fmt == NULL)
        fmt = "(null)";
    uint64_t fmt_len = op_log__strlen(fmt);

    /* Pass 1: measure. */
    struct op_log_sink m = { NULL, 0, 0 };
    va_list a1;
    va_copy(a1, ap);
    op_log__args(&m, fmt, &a1);
    va_end(a1);
    uint64_t len = OP_LOG_HEADER_SIZE + fmt_len + m.count + OP_LOG_TRAILER_SIZE;
    if (len > ring->size || ring->size < OP_LOG_MIN_RECORD)
        return 0;

    /* Pass 2: write. */
    struct op_log_sink w = { ring, ring->pos, 0 };
    op_log__put_u32(&w, (uint32_t)len);
    op_log__put_u32(&w, (uint32_t)fmt_len);
    op_log__put(&w, fmt, fmt_len);
    va_list a2;
    va_copy(a2, ap);
    op_log__args(&w, fmt, &a2);
    va_end(a2);
    op_log__put_u32(&w, (uint32_t)len);
    ring->pos = w.pos;
    return (uint32_t)len;
}

/* Same as op_log_encode, with the arguments inline. */
static inline uint32_t op_log_encodef(struct op_log_ring *ring, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    uint32_t n = op_log_encode(ring, fmt, ap);
    va_end(ap);
    return n;
}

#endif
