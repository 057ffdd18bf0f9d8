/*
 * A lazily translated kernel's module variables (globals, textures, surfaces ...) bound to
 * the ones of its module's data object: libcuda.so.1's and libcudart's lazy module paths
 * load kernels the same way, and both bind them here. Plain C types, so either library's
 * files can include it.
 */
#ifndef PYSHIM_COMMON_MODULE_BIND_H
#define PYSHIM_COMMON_MODULE_BIND_H

#include "visibility.h"

/* Fills the binding table of `kernel` (a hipModule_t: its "pyshim:bind-slots", one slot
 * per name in "pyshim:bind-names") with the addresses of those variables in `data` (the
 * module's data object, a hipModule_t): all kernels of a module share one copy of each,
 * and no symbol is looked up across objects. 0, also for a kernel with no table; -1 (after
 * a log line naming kernel `name`) for a table that names no variables or one `data` lacks,
 * which each library reports as its invalid-image error. */
PYSHIM_COMMON_HIDDEN int pyshim_bind_globals(void *data, void *kernel, const char *name);

#endif
