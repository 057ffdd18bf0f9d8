/* libcublasLt.so.13: pyshim's objects (kept in cuBLASLt's terms, so every Get returns what
 * the program Set) and the hipBLASLt backend they are translated onto at matmul time. */
#ifndef PYSHIM_CUBLASLT_INTERNAL_H
#define PYSHIM_CUBLASLT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <cublasLt.h>

#include "common/handle_set.h"
#include "pyshim_hipblaslt_abi.h"

#define LT_EXPORT __attribute__((visibility("default")))

/* the hipBLASLt entry points, resolved from the backend directory's libhipblaslt */
struct lt_backend {
#define LT_FN(name, params) pyshim_hipblasStatus_t(*name) params;
    PYSHIM_HIPBLASLT_FUNCTIONS(LT_FN)
#undef LT_FN
};

struct lt_handle_obj { pyshim_hipblasLtHandle_t hip; };

/* every attribute is stored as its bytes (at most 8), with the size cuBLASLt gives it */
#define LT_DESC_ATTRS 40
#define LT_LAYOUT_ATTRS 9
#define LT_PREF_ATTRS 13
struct lt_attrs { uint64_t value[LT_DESC_ATTRS]; };

struct lt_desc_obj { struct lt_attrs a; };
struct lt_layout_obj { struct lt_attrs a; };
struct lt_pref_obj { struct lt_attrs a; };
#define LT_TRANSFORM_ATTRS 4
struct lt_transform_obj { struct lt_attrs a; };

extern pyshim_handle_set lt_handles, lt_descs, lt_layouts, lt_prefs, lt_transforms;

/* NULL when libhipblaslt could not be loaded (logged once) */
const struct lt_backend *lt_backend(void);
cublasStatus_t lt_status(pyshim_hipblasStatus_t st);
void pyshim_cublaslt_unsupported(const char *name);
/* log once per (function, reason) why a call is refused */
void lt_refuse(const char *fn, const char *why);

static inline int64_t lt_i64(const struct lt_attrs *a, int attr)
{
    return (int64_t)a->value[attr];
}

#endif
