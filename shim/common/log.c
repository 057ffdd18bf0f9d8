/* One-line diagnostics on stderr (log.h). */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

void pyshim_common_vlog(const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    /* one fputs per line keeps lines whole when several threads log */
    char out[1100];
    snprintf(out, sizeof out, "pyshim: %s\n", line);
    fputs(out, stderr);
}

void pyshim_common_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pyshim_common_vlog(fmt, ap);
    va_end(ap);
}
