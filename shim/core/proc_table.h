/* The cuGetProcAddress map, compiled from the generated driver_proc_table.inc. */
#ifndef PYSHIM_PROC_TABLE_H
#define PYSHIM_PROC_TABLE_H

#include <stddef.h>

#define PYSHIM_PROC_DEFAULT 0
#define PYSHIM_PROC_PTDS 1
#define PYSHIM_PROC_PTSZ 2

struct pyshim_proc_entry {
    const char *name;
    int version;
    int variant;
    void *fn;
};

extern const struct pyshim_proc_entry pyshim_proc_table[];
extern const size_t pyshim_proc_table_size;

#endif
