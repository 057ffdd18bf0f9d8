/* One-line diagnostics on stderr, prefixed "pyshim: " so they can be told from the
 * program's output. Each library's own log function (pyshim_log, pyshim_rt_log) forwards
 * here. */
#ifndef PYSHIM_COMMON_LOG_H
#define PYSHIM_COMMON_LOG_H

#include <stdarg.h>
#include <stddef.h>

#include "visibility.h"

PYSHIM_COMMON_HIDDEN void pyshim_common_vlog(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));
PYSHIM_COMMON_HIDDEN void pyshim_common_log(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* Every line logged, as written to stderr without its newline. A weak no-op here; a
 * library that keeps its log lines defines it (libcuda: shim/core/logs.c, the cuLogs* API). */
PYSHIM_COMMON_HIDDEN void pyshim_common_log_sink(const char *line, size_t length);

#endif
