/*
 * The cuGetProcAddress map as data. This file does not include cuda.h on purpose: the
 * table names legacy symbols (cuMemAlloc, the pre-_v2 ABI) that cuda.h renames by macro,
 * so every symbol is declared here by name only. PYSHIM_PROC_TABLE is the generated
 * X-macro file (the build passes its name).
 */
#include "proc_table.h"

#ifndef PYSHIM_PROC_TABLE
#define PYSHIM_PROC_TABLE "driver_proc_table.inc"
#endif

/* pass 1: declare every symbol */
#define PYSHIM_PROC(name, version, variant, symbol) void symbol(void);
#include PYSHIM_PROC_TABLE
#undef PYSHIM_PROC

/* pass 2: the table */
#define PYSHIM_PROC(name, version, variant, symbol) {name, version, variant, (void *)symbol},
const struct pyshim_proc_entry pyshim_proc_table[] = {
#include PYSHIM_PROC_TABLE
};
#undef PYSHIM_PROC

const size_t pyshim_proc_table_size = sizeof pyshim_proc_table / sizeof pyshim_proc_table[0];
