/*
 * One-line diagnostics on stderr and the unsupported-call log (logged once per name,
 * counted, written at exit to $PYSHIM_REPORT as "unsupported <name> <count>" lines).
 * The line writing and the counts are shim/common/log.c and unsupported.c, compiled into
 * libcudart as into libcuda.so.1 (libcudart goes straight to HIP and must not need
 * libcuda.so.1); the messages and error codes are the runtime's.
 */
#include <pthread.h>
#include <stdarg.h>

#include "common/log.h"
#include "common/unsupported.h"
#include "internal.h"
#include "runtime_error_codes.h"


/* guards the table of unmapped values */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void pyshim_rt_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pyshim_common_vlog(fmt, ap);
    va_end(ap);
}

static int note(const char *name, const char *hip_name)
{
    int first = pyshim_common_unsupported_note(name);
    if (first && hip_name != NULL)
        pyshim_rt_log("%s is not supported: the HIP backend has no %s (returns "
                      "cudaErrorNotSupported)", name, hip_name);
    else if (first)
        pyshim_rt_log("%s is not supported (returns cudaErrorNotSupported)", name);
    return pyshim_rt_record(PYSHIM_RT_cudaErrorNotSupported);
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
    return pyshim_common_unsupported_calls(name);
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
