/*
 * One-line diagnostics on stderr and the unsupported-call log (logged once per name,
 * counted, written at exit to $PYSHIM_REPORT as "unsupported <name> <count>" lines).
 * Mirrors shim/core/log.c and unsupported.c: libcudart has its own copy because it goes
 * straight to HIP and must not need libcuda.so.1.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_NAMES 1024
#define NOT_SUPPORTED 801 /* cudaErrorNotSupported */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *names[MAX_NAMES];
static unsigned long counts[MAX_NAMES];
static int num_names;
static int report_registered;

void pyshim_rt_log(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char out[1100];
    snprintf(out, sizeof out, "pyshim: %s\n", line); /* one write keeps lines whole */
    fputs(out, stderr);
}

static void write_report(void)
{
    const char *path = getenv("PYSHIM_REPORT");
    if (path == NULL || path[0] == '\0')
        return;
    FILE *f = fopen(path, "a");
    if (f == NULL)
        return;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < num_names; i++)
        fprintf(f, "unsupported %s %lu\n", names[i], counts[i]);
    pthread_mutex_unlock(&lock);
    fclose(f);
}

static int note(const char *name, const char *hip_name)
{
    int first = 0;
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < num_names && strcmp(names[i], name) != 0)
        i++;
    if (i == num_names && num_names < MAX_NAMES) {
        names[num_names++] = name;
        first = 1;
        if (!report_registered) {
            report_registered = 1;
            atexit(write_report);
        }
    }
    if (i < num_names)
        counts[i]++;
    pthread_mutex_unlock(&lock);
    if (first && hip_name != NULL)
        pyshim_rt_log("%s is not supported: the HIP backend has no %s (returns "
                      "cudaErrorNotSupported)", name, hip_name);
    else if (first)
        pyshim_rt_log("%s is not supported (returns cudaErrorNotSupported)", name);
    return pyshim_rt_record(NOT_SUPPORTED);
}

int pyshim_rt_note_unsupported(const char *name)
{
    return note(name, NULL);
}

int pyshim_rt_note_missing(const char *name, const char *hip_name)
{
    return note(name, hip_name);
}

unsigned long pyshim_rt_unsupported_count(const char *name)
{
    unsigned long n = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < num_names; i++)
        if (strcmp(names[i], name) == 0)
            n = counts[i];
    pthread_mutex_unlock(&lock);
    return n;
}

int pyshim_rt_note_unmapped(const char *symbol, const char *param, int value)
{
    static struct {
        const char *symbol;
        int value;
    } seen[256];
    static int num_seen;
    int first = 1;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < num_seen && first; i++)
        first = !(seen[i].symbol == symbol && seen[i].value == value);
    if (first && num_seen < 256) {
        seen[num_seen].symbol = symbol;
        seen[num_seen].value = value;
        num_seen++;
    }
    pthread_mutex_unlock(&lock);
    if (first)
        pyshim_rt_log("%s: %s = %d has no HIP counterpart (returns cudaErrorInvalidValue)",
                      symbol, param, value);
    return pyshim_rt_record(1); /* cudaErrorInvalidValue */
}
