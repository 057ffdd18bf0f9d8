/*
 * Device printf. PTX's vprintf gets the format string and a packed buffer holding each
 * argument after C's default promotions (char/short -> int, float -> double), each at
 * an offset aligned to its own size. We walk the format, pull each argument from the
 * buffer, format it with the C library, and write the whole line through one lock so the
 * output of concurrent blocks never interleaves within a call.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct out_buf {
    char *data;
    size_t len, cap;
    bool failed;
} out_buf;

static void put(out_buf *o, const char *s, size_t n)
{
    if (o->failed)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (cap < o->len + n + 1)
            cap *= 2;
        char *d = realloc(o->data, cap);
        if (d == NULL) {
            o->failed = true;
            return;
        }
        o->data = d;
        o->cap = cap;
    }
    memcpy(o->data + o->len, s, n);
    o->len += n;
}

/* Appends printf(f, ...) of one value, however long the result. */
__attribute__((format(printf, 2, 3))) static void put_formatted(out_buf *o, const char *f, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(tmp, sizeof tmp, f, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        put(o, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (big == NULL) {
        o->failed = true;
        return;
    }
    va_start(ap, f);
    vsnprintf(big, (size_t)n + 1, f, ap);
    va_end(ap);
    put(o, big, (size_t)n);
    free(big);
}

/* The argument buffer: each read aligns the offset to the argument's size. */
typedef struct arg_reader {
    const unsigned char *base;
    size_t off;
} arg_reader;

static void take(arg_reader *r, void *out, size_t size)
{
    r->off = (r->off + size - 1) / size * size;
    memcpy(out, r->base + r->off, size);
    r->off += size;
}

static int take_int(arg_reader *r)
{
    int v;
    take(r, &v, sizeof v);
    return v;
}

/* Formats one conversion: `spec` is "%" + flags/width/precision (stars resolved),
 * `len` the length modifier as written, `conv` the conversion character. The format
 * passed to the C library is rebuilt from parts we checked, never taken as written. */
static void format_one(out_buf *o, arg_reader *r, const char *spec, const char *len, char conv)
{
    char f[64];
    bool wide = strcmp(len, "l") == 0 || strcmp(len, "ll") == 0 || strcmp(len, "z") == 0 ||
                strcmp(len, "j") == 0 || strcmp(len, "t") == 0 || strcmp(len, "q") == 0;
    switch (conv) {
    case 'c': {   /* char and wint_t both arrive as a 4-byte int */
        snprintf(f, sizeof f, "%sc", spec);
        put_formatted(o, f, take_int(r));
        return;
    }
    case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
        if (wide) {
            long long v;
            take(r, &v, sizeof v);
            snprintf(f, sizeof f, "%sll%c", spec, conv);
            put_formatted(o, f, v);
        } else {
            /* hh and h narrow the promoted value when printing, as in C */
            snprintf(f, sizeof f, "%s%s%c", spec, len, conv);
            put_formatted(o, f, take_int(r));
        }
        return;
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        double v;   /* float arrives promoted; PTX has no long double */
        take(r, &v, sizeof v);
        snprintf(f, sizeof f, "%s%c", spec, conv);
        put_formatted(o, f, v);
        return;
    }
    case 's': {
        const char *v;
        take(r, &v, sizeof v);
        snprintf(f, sizeof f, "%ss", spec);
        put_formatted(o, f, v ? v : "(null)");
        return;
    }
    case 'p': {
        void *v;
        take(r, &v, sizeof v);
        snprintf(f, sizeof f, "%sp", spec);
        put_formatted(o, f, v);
        return;
    }
    default: {   /* 'n': consumed, never written, as CUDA's printf ignores it */
        void *v;
        take(r, &v, sizeof v);
        return;
    }
    }
}

static void format_all(out_buf *o, const char *fmt, const void *args)
{
    arg_reader r = {args, 0};
    const char *p = fmt;
    while (*p) {
        const char *pct = strchr(p, '%');
        if (pct == NULL) {
            put(o, p, strlen(p));
            return;
        }
        put(o, p, (size_t)(pct - p));
        const char *q = pct + 1;
        if (*q == '%') {
            put(o, "%", 1);
            p = q + 1;
            continue;
        }
        char spec[48] = "%";
        size_t sl = 1;
        while (*q && strchr("-+ #0'", *q) && sl < 16)
            spec[sl++] = *q++;
        for (int part = 0; part < 2; part++) {   /* width, then .precision */
            if (part == 1) {
                if (*q != '.')
                    break;
                spec[sl++] = *q++;
            }
            if (*q == '*') {
                if (args == NULL)
                    return;
                sl += (size_t)snprintf(spec + sl, sizeof spec - sl, "%d", take_int(&r));
                q++;
            } else {
                while (*q >= '0' && *q <= '9' && sl < sizeof spec - 8)
                    spec[sl++] = *q++;
            }
        }
        spec[sl] = '\0';
        char len[3] = "";
        size_t ll = 0;
        while (*q && strchr("hlLqjzt", *q) && ll < 2)
            len[ll++] = *q++;
        len[ll] = '\0';
        char conv = *q;
        if (conv == '\0' || strchr("diuxXocfFeEgGaAspn", conv) == NULL) {
            put(o, pct, (size_t)(q - pct) + (conv != '\0'));   /* not a conversion: verbatim */
            p = conv ? q + 1 : q;
            continue;
        }
        if (args == NULL) {   /* a conversion but no arguments: print the rest verbatim */
            put(o, pct, strlen(pct));
            return;
        }
        format_one(o, &r, spec, len, conv);
        p = q + 1;
    }
}

int cpu_vprintf(const pyshim_launch *launch, const char *fmt, const void *args)
{
    (void)launch;
    if (fmt == NULL)
        return -1;
    out_buf o = {0};
    format_all(&o, fmt, args);
    if (o.failed) {
        free(o.data);
        return -1;
    }
    pthread_mutex_lock(&out_lock);
    if (o.len)
        fwrite(o.data, 1, o.len, stdout);
    pthread_mutex_unlock(&out_lock);
    free(o.data);
    return (int)o.len;
}

void cpu_printf_flush(void)
{
    pthread_mutex_lock(&out_lock);
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
}
