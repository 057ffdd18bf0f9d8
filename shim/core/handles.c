/*
 * The driver's sets of handed-out handles (the set itself: common/handle_set.c), and the
 * validity check of a function handle that launch loops call.
 */
#include "internal.h"

pyshim_handle_set pyshim_live_contexts = PYSHIM_HANDLE_SET_INIT;
pyshim_handle_set pyshim_known_libraries = PYSHIM_HANDLE_SET_INIT;
pyshim_handle_set pyshim_known_functions = PYSHIM_HANDLE_SET_INIT;
pyshim_handle_set pyshim_live_links = PYSHIM_HANDLE_SET_INIT;

int pyshim_func_valid(CUfunction f)
{
    /* function structs are never freed (a destroyed one is a tombstone, magic 0), so once
     * a pointer is known to be one it stays one: a launch loop asks the set only once */
    static _Thread_local CUfunction known;
    if (f == NULL)
        return 0;
    if (f != known) {
        if (!pyshim_handles_contains(&pyshim_known_functions, f))
            return 0;
        known = f;
    }
    return f->magic == PYSHIM_FUNC_MAGIC;
}
