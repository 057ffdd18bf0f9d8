/* The unsupported-call log and counts of libcurand/libcufft (shim/common's counters). */
#include <stddef.h>

#include "common/log.h"
#include "common/unsupported.h"
#include "randfft_internal.h"

void pyshim_curand_unsupported(const char *name)
{
    if (pyshim_common_unsupported_note(name))
        pyshim_common_log("%s is not supported (returns CURAND_STATUS_ARCH_MISMATCH)", name);
}

void pyshim_cufft_unsupported(const char *name)
{
    if (pyshim_common_unsupported_note(name))
        pyshim_common_log("%s is not supported (returns CUFFT_NOT_SUPPORTED)", name);
}

/* For tests and reports: calls counted for `name`, or for every name when NULL. */
PYSHIM_EXPORT unsigned long pyshim_curand_unsupported_count(const char *name);
PYSHIM_EXPORT unsigned long pyshim_cufft_unsupported_count(const char *name);

unsigned long pyshim_curand_unsupported_count(const char *name)
{
    return pyshim_common_unsupported_calls(name);
}

unsigned long pyshim_cufft_unsupported_count(const char *name)
{
    return pyshim_common_unsupported_calls(name);
}
