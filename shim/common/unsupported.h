/*
 * The unsupported-call counts of one library: each entry point with no mapping is counted
 * by name, and the counts are appended at exit to $PYSHIM_REPORT (when set) as
 * "unsupported <name> <count>" lines (pyshim/report/run.py reads them). What to log and which
 * error code to return is the calling library's business.
 */
#ifndef PYSHIM_COMMON_UNSUPPORTED_H
#define PYSHIM_COMMON_UNSUPPORTED_H

#include "visibility.h"

/* Count one call of `name` (a string that lives as long as the program, such as a
 * literal); 1 the first time the name is seen (the time to log it), else 0. */
PYSHIM_COMMON_HIDDEN int pyshim_common_unsupported_note(const char *name);
/* Calls counted for `name`, or for all names when `name` is NULL. */
PYSHIM_COMMON_HIDDEN unsigned long pyshim_common_unsupported_calls(const char *name);

#endif
