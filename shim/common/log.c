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
    int n = snprintf(out, sizeof out, "pyshim: %s\n", line);
    fputs(out, stderr);
    if (n > 0)
        pyshim_common_log_sink(out, (size_t)n < sizeof out ? (size_t)n - 1 : sizeof out - 1);
}

__attribute__((weak)) void pyshim_common_log_sink(const char *line, size_t length)
{
    (void)line;
    (void)length;
}

void pyshim_common_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pyshim_common_vlog(fmt, ap);
    va_end(ap);
}
