/*
 * Call and error counts for the run report ($PYSHIM_REPORT, pyshim/report/run.py): at exit the
 * tracer appends `call <name> <count>` for every wrapped function that was called and one
 * `error <name> <status>` line per failed call (the status's name when known; at most
 * MAX_LINES_PER_ERROR lines per (name, status)).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace.h"

#define MAX_ERRORS 256       /* distinct (function, code) pairs kept */
#define MAX_LINES_PER_ERROR 1000

struct error_count {
    const char *symbol;
    long long code;
    const char *name;
    unsigned long count;
};

static struct error_count errors[MAX_ERRORS];
static size_t n_errors;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void pt_tally(unsigned long *calls, const char *symbol, long long status,
              const char *status_name)
{
    __atomic_fetch_add(calls, 1, __ATOMIC_RELAXED);
    if (status == 0)
        return;
    pthread_mutex_lock(&lock);
    size_t i = 0;
    while (i < n_errors && !(errors[i].symbol == symbol && errors[i].code == status))
        i++;
    if (i == n_errors && n_errors < MAX_ERRORS)
        errors[n_errors++] = (struct error_count){symbol, status, status_name, 0};
    if (i < n_errors)
        errors[i].count++;
    pthread_mutex_unlock(&lock);
}

static void write_counts(FILE *f, const struct pt_symbol *map, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned long c = __atomic_load_n(map[i].calls, __ATOMIC_RELAXED);
        if (c != 0)
            fprintf(f, "call %s %lu\n", map[i].symbol, c);
    }
}

__attribute__((destructor)) static void write_report(void)
{
    const char *path = getenv("PYSHIM_REPORT");
    if (path == NULL || path[0] == '\0')
        return;
    FILE *f = fopen(path, "a");
    if (f == NULL)
        return;
    write_counts(f, pt_symbols_driver, pt_symbols_driver_count);
    write_counts(f, pt_symbols_runtime, pt_symbols_runtime_count);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_errors; i++) {
        unsigned long c = errors[i].count;
        for (unsigned long k = 0; k < c && k < MAX_LINES_PER_ERROR; k++) {
            if (errors[i].name != NULL)
                fprintf(f, "error %s %s\n", errors[i].symbol, errors[i].name);
            else
                fprintf(f, "error %s %lld\n", errors[i].symbol, errors[i].code);
        }
    }
    pthread_mutex_unlock(&lock);
    fclose(f);
}
