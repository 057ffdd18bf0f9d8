/* libcusparse's unsupported-call log and counts (shim/common's counters), its error names
 * and its version: cuSPARSE's own, never rocSPARSE's. */
#include <stddef.h>
#include <cusparse.h>

#include "common/log.h"
#include "common/unsupported.h"
#include "sparse_internal.h"

void pyshim_cusparse_unsupported(const char *name)
{
    if (pyshim_common_unsupported_note(name))
        pyshim_common_log("%s is not supported (returns CUSPARSE_STATUS_NOT_SUPPORTED)", name);
}

/* For tests and reports: calls counted for `name`, or for every name when NULL. */
PYSHIM_EXPORT unsigned long pyshim_cusparse_unsupported_count(const char *name);

unsigned long pyshim_cusparse_unsupported_count(const char *name)
{
    return pyshim_common_unsupported_calls(name);
}

static const struct {
    cusparseStatus_t status;
    const char *name, *text;
} STATUSES[] = {
    {CUSPARSE_STATUS_SUCCESS, "CUSPARSE_STATUS_SUCCESS", "success"},
    {CUSPARSE_STATUS_NOT_INITIALIZED, "CUSPARSE_STATUS_NOT_INITIALIZED",
     "initialization error"},
    {CUSPARSE_STATUS_ALLOC_FAILED, "CUSPARSE_STATUS_ALLOC_FAILED", "out of memory"},
    {CUSPARSE_STATUS_INVALID_VALUE, "CUSPARSE_STATUS_INVALID_VALUE", "invalid value"},
    {CUSPARSE_STATUS_ARCH_MISMATCH, "CUSPARSE_STATUS_ARCH_MISMATCH", "architecture mismatch"},
    {CUSPARSE_STATUS_MAPPING_ERROR, "CUSPARSE_STATUS_MAPPING_ERROR", "mapping error"},
    {CUSPARSE_STATUS_EXECUTION_FAILED, "CUSPARSE_STATUS_EXECUTION_FAILED", "execution failed"},
    {CUSPARSE_STATUS_INTERNAL_ERROR, "CUSPARSE_STATUS_INTERNAL_ERROR", "internal error"},
    {CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED, "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
     "matrix type not supported"},
    {CUSPARSE_STATUS_ZERO_PIVOT, "CUSPARSE_STATUS_ZERO_PIVOT", "zero pivot"},
    {CUSPARSE_STATUS_NOT_SUPPORTED, "CUSPARSE_STATUS_NOT_SUPPORTED", "operation not supported"},
    {CUSPARSE_STATUS_INSUFFICIENT_RESOURCES, "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES",
     "insufficient resources"},
};

PYSHIM_EXPORT const char *cusparseGetErrorName(cusparseStatus_t status)
{
    for (size_t i = 0; i < sizeof STATUSES / sizeof *STATUSES; i++)
        if (STATUSES[i].status == status)
            return STATUSES[i].name;
    return "UNKNOWN_ERROR";
}

PYSHIM_EXPORT const char *cusparseGetErrorString(cusparseStatus_t status)
{
    for (size_t i = 0; i < sizeof STATUSES / sizeof *STATUSES; i++)
        if (STATUSES[i].status == status)
            return STATUSES[i].text;
    return "unknown error";
}

PYSHIM_EXPORT cusparseStatus_t cusparseGetVersion(cusparseHandle_t handle, int *version)
{
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!version)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *version = CUSPARSE_VERSION;
    return CUSPARSE_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusparseStatus_t cusparseGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUSPARSE_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUSPARSE_VER_MAJOR; break;
    case MINOR_VERSION: *value = CUSPARSE_VER_MINOR; break;
    case PATCH_LEVEL: *value = CUSPARSE_VER_PATCH; break;
    default: return CUSPARSE_STATUS_INVALID_VALUE;
    }
    return CUSPARSE_STATUS_SUCCESS;
}
