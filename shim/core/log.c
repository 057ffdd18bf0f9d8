/* One-line diagnostics on stderr, prefixed so they can be told from the program's output. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* one fputs per line keeps lines whole when several threads log */
    char out[1100];
    snprintf(out, sizeof out, "pyshim: %s\n", line);
    fputs(out, stderr);
}
