/*
 * Entry points with no mapping: logged once per function, counted for the run report
 * (shim/common/unsupported.c writes the counts to $PYSHIM_REPORT at exit).
 */
#include "common/unsupported.h"
#include "internal.h"

void pyshim_unsupported(const char *name)
{
    if (pyshim_common_unsupported_note(name))
        pyshim_log("%s is not supported (returns CUDA_ERROR_NOT_SUPPORTED)", name);
}

unsigned long pyshim_unsupported_count(const char *name)
{
    return pyshim_common_unsupported_calls(name);
}
