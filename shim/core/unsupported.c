/*
 * Entry points with no mapping: logged once per function, counted for the run report
 * (written at exit to $PYSHIM_REPORT when set, as "name count" lines).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_NAMES 1024

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *names[MAX_NAMES];
static unsigned long counts[MAX_NAMES];
static int num_names;
static int report_registered;

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

void pyshim_unsupported(const char *name)
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
    if (first)
        pyshim_log("%s is not supported (returns CUDA_ERROR_NOT_SUPPORTED)", name);
}

unsigned long pyshim_unsupported_count(const char *name)
{
    unsigned long n = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < num_names; i++)
        if (strcmp(names[i], name) == 0)
            n = counts[i];
    pthread_mutex_unlock(&lock);
    return n;
}
