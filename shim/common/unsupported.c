/* Unsupported-call counts and the $PYSHIM_REPORT lines written at exit (unsupported.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unsupported.h"

/* names beyond this are still answered by the library, just not counted */
#define MAX_NAMES 1024

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *names[MAX_NAMES];
static unsigned long calls[MAX_NAMES];
static int num_names;
static int report_registered;

static void write_report(void)
{
    const char *path = getenv("PYSHIM_REPORT");
    if (path == NULL || path[0] == '\0')
        return;
    /* append: each library of the program (and each child process) adds its own lines */
    FILE *f = fopen(path, "a");
    if (f == NULL)
        return;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < num_names; i++)
        fprintf(f, "unsupported %s %lu\n", names[i], calls[i]);
    pthread_mutex_unlock(&lock);
    fclose(f);
}

int pyshim_common_unsupported_note(const char *name)
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
        calls[i]++;
    pthread_mutex_unlock(&lock);
    return first;
}

unsigned long pyshim_common_unsupported_calls(const char *name)
{
    unsigned long n = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < num_names; i++)
        if (name == NULL || strcmp(names[i], name) == 0)
            n += calls[i];
    pthread_mutex_unlock(&lock);
    return n;
}
