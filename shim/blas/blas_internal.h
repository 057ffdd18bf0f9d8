/* Shared by libcublas and libcusolver: weak generated definitions, the unsupported-call
 * log, rocBLAS size-query helpers, and per-handle state rocBLAS has no room for. */
#ifndef PYSHIM_BLAS_INTERNAL_H
#define PYSHIM_BLAS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <rocblas/rocblas.h>

#define PYSHIM_WEAK __attribute__((weak, visibility("default")))
#define PYSHIM_EXPORT __attribute__((visibility("default")))

/* Logs `name` once (stderr, "pyshim: <name> is not supported ...") and counts each call;
 * the counts go to $PYSHIM_REPORT at exit as "unsupported <name> <count>" lines. */
void pyshim_blas_unsupported(const char *name);
unsigned long pyshim_blas_unsupported_calls(const char *name);

/* A rocBLAS device-memory size query around one call: begin, make the call, then end
 * with the call's status; *bytes is the workspace the call asked for. */
rocblas_status pyshim_blas_query_begin(rocblas_handle h);
rocblas_status pyshim_blas_query_end(rocblas_handle h, rocblas_status call, size_t *bytes);

/* GemmEx: the compute type rocBLAS wants for data of type c_type (complex data is
 * computed in the complex type of the requested precision). */
rocblas_datatype pyshim_blas_compute_type(rocblas_datatype compute, rocblas_datatype c_type);

/* hipMemcpy(2D)(Async) host<->device; 0 on success (blas_hip.c). */
int pyshim_blas_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                       size_t width, size_t height, int to_device, int async, void *stream);

/* device -> device 2D copy on a stream (width bytes per column, height columns); 0 ok */
int pyshim_blas_copy_device(void *dst, size_t dpitch, const void *src, size_t spitch,
                            size_t width, size_t height, void *stream);

/* Copies whose sides may be device or host memory (hipMemcpyDefault, blas_hip_default.c):
 * into host memory once `stream` is idle; asynchronously on `stream`. 0 on success. */
int pyshim_blas_read_after(void *host, const void *src, size_t bytes, void *stream);
int pyshim_blas_copy_async(void *dst, const void *src, size_t bytes, void *stream);

/* cuSOLVER's devInfo = 0 on the given stream; device scratch (blas_hip.c). */
int pyshim_blas_zero_int(int *dev, void *stream);
int pyshim_blas_device_alloc(void **ptr, size_t bytes);
void pyshim_blas_device_free(void *ptr);
/* device -> host after the device is idle (blas_hip.c); 0 on success */
int pyshim_blas_read_back(void *host, const void *dev, size_t bytes);
/* The Jacobi solvers' info as cuSOLVER defines it: every positive value (rocSOLVER's 1,
 * or the CPU device's LAPACK count, for "did not converge") becomes `not_converged`
 * (n+1 for syevj, min(m,n)+1 for gesvdj), per matrix of `count`; after the device is
 * idle (blas_hip.c). 0 on success. */
int pyshim_blas_fold_info(int *dev, int count, int not_converged);
/* 32-bit <-> 64-bit pivot arrays in device memory (blas_hip.c); 0 on success. */
int pyshim_blas_widen_pivots(int64_t *dst, const int *src, int n);
int pyshim_blas_narrow_pivots(int *dst, const int64_t *src, int n);

/* Values a cuBLAS/cuSOLVER handle records that rocBLAS does not keep (math modes). */
int pyshim_blas_handle_get(const void *handle, int slot, int fallback);
int pyshim_blas_handle_set(const void *handle, int slot, int value);
void pyshim_blas_handle_forget(const void *handle);
enum {
    PYSHIM_SLOT_CUBLAS_MATH = 0,
    PYSHIM_SLOT_CUSOLVER_MATH = 1,
    PYSHIM_SLOT_CUBLAS_SM_COUNT = 2,
    PYSHIM_SLOTS = 3
};

/* Objects handed out by pointer (cusolverDnParams, syevjInfo): live ones are in a set, so
 * validity is decided before reading through what the caller passed. 0 add: no memory. */
int pyshim_blas_object_add(const void *p);
int pyshim_blas_object_live(const void *p);
int pyshim_blas_object_remove(const void *p);

#endif
