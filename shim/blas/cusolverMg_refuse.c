/* libcusolverMg.so.12: multi-GPU cuSOLVER. rocSOLVER has no multi-device API and pyshim
 * presents one device, so every entry point (the generated cusolverMg_export_stubs.c) is
 * refused: CUSOLVER_STATUS_NOT_SUPPORTED, logged once by name, counted like the others. */
#include "common/log.h"
#include "common/unsupported.h"

#define PYSHIM_EXPORT __attribute__((visibility("default")))

void pyshim_cusolvermg_unsupported(const char *name);
PYSHIM_EXPORT unsigned long pyshim_cusolvermg_unsupported_count(const char *name);

void pyshim_cusolvermg_unsupported(const char *name)
{
    if (pyshim_common_unsupported_note(name))
        pyshim_common_log("%s is not supported (returns CUSOLVER_STATUS_NOT_SUPPORTED: "
                          "multi-GPU cuSOLVER has no ROCm counterpart)", name);
}

/* For tests and reports: calls counted for `name`, or for every name when NULL. */
unsigned long pyshim_cusolvermg_unsupported_count(const char *name)
{
    return pyshim_common_unsupported_calls(name);
}
