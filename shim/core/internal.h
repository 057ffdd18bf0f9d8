/*
 * Shared declarations of the shim core (libcuda.so.1). Every file includes the real
 * cuda.h (the ABI we export) and the real HIP headers (the ABI we call), so the compiler
 * checks both sides of every conversion.
 */
#ifndef PYSHIM_CORE_INTERNAL_H
#define PYSHIM_CORE_INTERNAL_H

#include <cuda.h>
#include <hip/hip_runtime_api.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>

#include "common/handle_set.h"

/* The driver version we report; cudart 13 refuses anything older. */
#define PYSHIM_DRIVER_VERSION 13000

/* ---- logging (log.c) ---- */
void pyshim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int pyshim_trace_enabled(void);

/* ---- unsupported calls (unsupported.c); also called by the generated stubs ---- */
void pyshim_unsupported(const char *name);
unsigned long pyshim_unsupported_count(const char *name);

/* ---- error mapping (error.c) ---- */
CUresult pyshim_cu_from_hip(hipError_t err);
/* CUresult for a name such as "CUDA_ERROR_NO_BINARY_FOR_GPU"; CUDA_ERROR_UNKNOWN if unknown. */
CUresult pyshim_cu_from_name(const char *name);

/* ---- initialisation (init.c) ---- */
/* CUDA_SUCCESS once cuInit succeeded, else CUDA_ERROR_NOT_INITIALIZED. */
CUresult pyshim_check_init(void);
int pyshim_device_count(void);

/* ---- handle sets (handles.c, common/handle_set.h): what the caller passes is checked here
 * before use ---- */
extern pyshim_handle_set pyshim_live_contexts;   /* created (not primary) contexts */
extern pyshim_handle_set pyshim_known_libraries; /* every library/module struct ever made */
extern pyshim_handle_set pyshim_known_functions; /* every CUfunction/CUkernel struct */
extern pyshim_handle_set pyshim_live_links;       /* CUlinkStates not yet destroyed */

/* ---- contexts (context.c) ---- */
#define PYSHIM_CTX_MAGIC 0x43545831u /* "CTX1" */

struct pyshim_cls_entry;

struct CUctx_st {
    uint32_t magic;
    int device;
    int is_primary;
    int retain_count;      /* primary: cuDevicePrimaryCtxRetain count */
    unsigned int flags;
    unsigned long long id;        /* cuCtxGetId, assigned on first query */
    struct pyshim_cls_entry *cls; /* context-local storage, guarded by the CLS lock */
    struct pyshim_ctx_coredump *coredump; /* cuCoredumpSetAttribute's (coredump.c), or NULL */
};

/* The primary context of a device (exists from cuInit on), NULL if out of range. */
CUcontext pyshim_primary_ctx(int device);
CUcontext pyshim_current_ctx(void);
/* Validate a context handle (NULL = current); makes its device current in HIP. */
CUresult pyshim_ctx_resolve(CUcontext in, CUcontext *out);
/* Ensure some context is current (the API calls that need one); binds its HIP device. */
CUresult pyshim_need_ctx(void);
/* graph_edges.c: CUDA_SUCCESS when every one of the n edges' data (NULL: none) is the
 * default (full completion), the only edges HIP has; else CUDA_ERROR_NOT_SUPPORTED, logged
 * as `call` with non-default edge data, naming the `edge` (e.g. "dependency") by index */
CUresult pyshim_default_edges(const char *call, const char *edge, const CUgraphEdgeData *data,
                              size_t n);

/* graph_kernel_params.c: the handle a kernel node's translated kernel was given by */
void pyshim_graph_kernel_note(hipFunction_t hip, CUfunction given, int is_kernel);
int pyshim_ctx_valid(CUcontext ctx);
void pyshim_cls_destroy_all(CUcontext ctx);

/* ---- context-local storage (cls.c), used by the CONTEXT_LOCAL_STORAGE export table ---- */
CUresult pyshim_cls_insert(CUcontext ctx, void *key, void *value,
                           void (*dtor)(CUcontext, void *, void *));
CUresult pyshim_cls_remove(CUcontext ctx, void *key);
CUresult pyshim_cls_get(void **value, CUcontext ctx, void *key);

/* ---- devices (device.c, device_attr.c) ---- */
/* Cached hipDeviceProp_t of a device; NULL if the device is out of range. */
const hipDeviceProp_t *pyshim_device_prop(int device);
CUresult pyshim_device_attribute(int *value, CUdevice_attribute attrib, int device);

/* ---- streams (stream.c) ---- */
/* CUDA stream handle -> HIP stream; `per_thread` for the _ptsz/_ptds entry points. */
hipStream_t pyshim_hip_stream(CUstream stream, int per_thread);

/* ---- integrity check (integrity.c) ---- */
void pyshim_md2(const uint8_t *data, size_t len, uint8_t out[16]);
void pyshim_integrity_key(uint8_t key[16]);
void pyshim_integrity_hmac(const uint8_t *msg, size_t len, uint8_t out[16]);

/* ---- export tables (export_tables.c) ---- */
const void *pyshim_export_table_cudart_interface(void);
const void *pyshim_export_table_integrity(void);

/* ---- modules (module.c), launches (launch.c) ---- */
#define PYSHIM_FUNC_MAGIC 0x464e4331u /* "FNC1" */
#define PYSHIM_MAX_DEVICES 16 /* modules are loaded per device, up to this many */
struct pyshim_library;
/* CUfunction and CUkernel both point at this; cudart passes a CUkernel as a CUfunction. */
struct CUfunc_st {
    uint32_t magic;
    struct pyshim_library *lib;
    char *name;
    hipFunction_t hip[PYSHIM_MAX_DEVICES]; /* per device, resolved on first use there */
    /* per device: the translator could not translate this kernel (pyshim_function_refused) */
    unsigned char refused[PYSHIM_MAX_DEVICES];
    /* the pre-4.0 launch state (legacy_launch.c), made on first use */
    struct pyshim_legacy_launch *legacy;
};
/* A live function handle: one we made (checked before it is read) and not destroyed. */
int pyshim_func_valid(CUfunction f);
/* Make sure the function's module is translated and loaded; returns its HIP function. */
CUresult pyshim_function_resolve(CUfunction f, hipFunction_t *out);
/* After a resolve: CUDA_ERROR_NOT_SUPPORTED if the kernel is one the translator could not
 * translate (its module's other kernels run; the reason was logged), else CUDA_SUCCESS. */
CUresult pyshim_function_refused(CUfunction f);
/* The most blocks a cluster of `f` may have: 8, or 16 with the non-portable attribute set
 * (shim/core/launch.c). */
unsigned pyshim_cluster_limit(CUfunction f);
/* What the translator and the load said about a function's module: the PTX target it was
 * written for (compute_75 -> 75; 0 unknown), the bytes of its .const variables, and the
 * CU_JIT_MAX_REGISTERS it was loaded with (0: none). 0 if `f` is no function. */
struct pyshim_function_facts {
    int ptx_target;
    unsigned long long const_bytes;
    unsigned int max_registers;
};
int pyshim_function_facts(CUfunction f, struct pyshim_function_facts *out);
/* Parameter `index`'s offset and size in the packed parameter buffer. */
CUresult pyshim_function_param_info(CUfunction f, size_t index, size_t *offset, size_t *size);

/* ---- 3D copy descriptors (memcpy3d.c), also used by graph memcpy nodes ---- */
CUresult pyshim_memcpy3d_to_hip(const CUDA_MEMCPY3D *c, HIP_MEMCPY3D *h);
/* Unload every module on a device before its reset; they load again on next use. */
void pyshim_modules_unload_device(int device);

/* ---- the embedded Python (python_bridge.c) ---- */
/* Translate a module image; on success writes the loaded module's path and sets
 * *kernels to a malloc'ed list of its kernel names, one per line. */
CUresult pyshim_py_translate(const void *image, size_t size, const char *target,
                             char *path, size_t path_len, char **kernels);
/* The calling thread's last translation error message ("" if the last one succeeded). */
const char *pyshim_last_translate_error(void);
void pyshim_clear_translate_error(void);

/* ---- fat binaries (fatbin.c) ---- */
/* Size in bytes of the image `data` points at (fatbin wrapper, container, ELF, PTX text),
 * and the pointer to pass on (the container for a wrapper). 0 if it is not recognised. */
size_t pyshim_image_extent(const void *data, const void **start);
/* A malloc'ed copy of what to translate: for a v2 (-rdc) wrapper, its relocatable
 * containers; else the bytes pyshim_image_extent finds. */
CUresult pyshim_image_copy(const void *data, uint8_t **out, size_t *size);

#endif
