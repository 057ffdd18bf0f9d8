/* One-line diagnostics on stderr: libcuda's names for shim/common/log.c. */
#include <stdarg.h>
#include <stdlib.h>

#include "common/log.h"
#include "internal.h"

int pyshim_trace_enabled(void)
{
    static int enabled = -1;
    if (enabled < 0) {
        const char *v = getenv("PYSHIM_TRACE");
        enabled = v != NULL && v[0] != '\0' && v[0] != '0';
    }
    return enabled;
}

void pyshim_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pyshim_common_vlog(fmt, ap);
    va_end(ap);
}
