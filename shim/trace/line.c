/*
 * Formatting and writing trace lines. Lines go to $PYSHIM_TRACE_FILE (opened for append,
 * so several processes of one run can share it) or to stderr, each in a single write(2)
 * under a lock, so lines of different threads never interleave.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trace.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int out_fd = 2;
static __thread long cached_tid;

static void open_output(void)
{
    const char *path = getenv("PYSHIM_TRACE_FILE");
    if (path == NULL || path[0] == '\0')
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        /* stderr it is, and say why once */
        dprintf(2, "pyshim trace: cannot open %s; tracing to stderr\n", path);
        return;
    }
    out_fd = fd;
}

/* fork: the child must not inherit a lock another thread held, nor the parent's tid */
static void before_fork(void)
{
    pthread_mutex_lock(&lock);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

static void after_fork_child(void)
{
    pthread_mutex_unlock(&lock);
    cached_tid = 0;
}

__attribute__((constructor)) static void register_fork_handlers(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

static long tid(void)
{
    if (cached_tid == 0)
        cached_tid = syscall(SYS_gettid);
    return cached_tid;
}

uint64_t pt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pt_v_fmt(struct pt_line *L, const char *fmt, ...)
{
    /* keep room for the "...\n" of a truncated line */
    size_t room = sizeof L->text - 8;
    if (L->len >= room)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(L->text + L->len, room - L->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    L->len += (size_t)n < room - L->len ? (size_t)n : room - L->len - 1;
}

/* The common appenders avoid vsnprintf: formatting is most of a line's cost after the
 * write(2) itself. They stop at the same limit as pt_v_fmt. */
#define ROOM(L) (sizeof (L)->text - 8)

void pt_v_text(struct pt_line *L, const char *s)
{
    while (*s != '\0' && L->len < ROOM(L) - 1)
        L->text[L->len++] = *s++;
}

static void put_digits(struct pt_line *L, unsigned long long v, unsigned base)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v != 0);
    while (n > 0 && L->len < ROOM(L) - 1)
        L->text[L->len++] = tmp[--n];
}

void pt_begin(struct pt_line *L, const char *fn)
{
    L->len = 0;
    L->args = 0;
    pt_v_text(L, "[");
    pt_v_int(L, tid());
    pt_v_text(L, "] ");
    pt_v_text(L, fn);
    pt_v_text(L, "(");
}

void pt_name(struct pt_line *L, const char *arg)
{
    if (L->args++)
        pt_v_text(L, ", ");
    pt_v_text(L, arg);
    pt_v_text(L, "=");
}

void pt_close(struct pt_line *L)
{
    pt_v_text(L, ")");
}

void pt_v_int(struct pt_line *L, long long v)
{
    if (v < 0) {
        pt_v_text(L, "-");
        put_digits(L, 0ull - (unsigned long long)v, 10);
    } else {
        put_digits(L, (unsigned long long)v, 10);
    }
}

void pt_v_uint(struct pt_line *L, unsigned long long v)
{
    put_digits(L, v, 10);
}

void pt_v_hex(struct pt_line *L, unsigned long long v)
{
    pt_v_text(L, "0x");
    put_digits(L, v, 16);
}

void pt_v_float(struct pt_line *L, double v)
{
    pt_v_fmt(L, "%g", v);
}

void pt_v_enum(struct pt_line *L, long long v, const char *name)
{
    if (name != NULL) {
        pt_v_text(L, name);
        pt_v_text(L, " (");
        pt_v_int(L, v);
        pt_v_text(L, ")");
    } else {
        pt_v_int(L, v);
    }
}

/* A C string, quoted, at most 200 characters; NULL as NULL. Only arguments the callee
 * takes as strings reach here, so the pointer is the caller's promise of a string. */
void pt_v_cstr(struct pt_line *L, const char *s)
{
    if (s == NULL) {
        pt_v_text(L, "NULL");
        return;
    }
    size_t n = strnlen(s, 200);
    pt_v_text(L, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            pt_v_fmt(L, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            pt_v_fmt(L, "\\x%02x", c);
        else if (L->len < ROOM(L) - 1)
            L->text[L->len++] = (char)c;
    }
    pt_v_text(L, n == 200 ? "\"..." : "\"");
}

static void write_line(struct pt_line *L)
{
    /* every appender stops one short of ROOM: a line that reached it was cut */
    if (L->len >= ROOM(L) - 1) {
        memcpy(L->text + L->len, "...", 3);
        L->len += 3;
    }
    L->text[L->len++] = '\n';
    pthread_once(&once, open_output);
    pthread_mutex_lock(&lock);
    size_t done = 0;
    while (done < L->len) {
        ssize_t n = write(out_fd, L->text + done, L->len - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    pthread_mutex_unlock(&lock);
}

void pt_finish(struct pt_line *L, uint64_t ns)
{
    /* microseconds with one decimal, rounded */
    uint64_t tenths = (ns + 50) / 100;
    pt_v_text(L, " ");
    put_digits(L, tenths / 10, 10);
    pt_v_text(L, ".");
    put_digits(L, tenths % 10, 10);
    pt_v_text(L, "us");
    write_line(L);
}

void pt_note(const char *fmt, ...)
{
    struct pt_line L = {.len = 0};
    pt_v_fmt(&L, "[%ld] # ", tid());
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(L.text + L.len, sizeof L.text - 8 - L.len, fmt, ap);
    va_end(ap);
    if (n > 0)
        L.len += (size_t)n < sizeof L.text - 8 - L.len ? (size_t)n : sizeof L.text - 9 - L.len;
    write_line(&L);
}
