/* Shared plumbing of the CPU device's rocBLAS (librocblas.so.5) and rocSOLVER
 * (librocsolver.so.0): the handle, argument-check helpers, the batch-form macros that let
 * one family definition produce the plain, _batched and _strided_batched entry points in
 * both LP64 and _64 widths, and the OpenBLAS/LAPACK declarations (scipy-openblas32, whose
 * symbols carry a `scipy_` prefix and whose integers are 32-bit).
 *
 * Execution model: device memory is host memory, so a routine computes on the calling
 * thread. To stay in stream order with kernels and copies already enqueued, every routine
 * first waits for the handle's stream (hipStreamSynchronize). That also makes device-mode
 * scalars (alpha, beta, results) correct: they are read after all earlier work finished.
 * A better way, once the CPU HIP runtime has hipLaunchHostFunc, is to enqueue the work. */
#ifndef PYSHIM_BLAS_COMMON_H
#define PYSHIM_BLAS_COMMON_H

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>
#include <rocblas/rocblas.h>

/* every entry point is exported; everything else stays hidden (-fvisibility=hidden) */
#define RB_API __attribute__((visibility("default")))

#define RB_HANDLE_MAGIC 0x524f43424c41534bULL /* "ROCBLASK" */

struct _rocblas_handle {
    uint64_t magic;
    hipStream_t stream;
    rocblas_pointer_mode pointer_mode;
    rocblas_atomics_mode atomics_mode;
    rocblas_math_mode math_mode;
    rocblas_performance_metric metric;
    rocblas_check_numerics_mode check_numerics;
    /* workspace ("device memory"): rocBLAS-managed unless the user set one */
    void *ws;
    size_t ws_size;
    bool ws_user;
    /* between rocblas_start/stop_device_memory_size_query */
    bool size_query;
    size_t query_size;
    hipEvent_t start_event, stop_event;
    int *fitness;
    /* rocsolver_set_alg_mode, per rocsolver_function (401..405) */
    int solver_alg_mode[8];
};

/* Guard: a null, destroyed or forged handle is rocblas_status_invalid_handle. Decided by
 * membership in librocblas's set of live handles before anything is read through `h`
 * (rocblas_handle.c); librocsolver asks librocblas (rocsolver_aux.c). */
bool rb_bad_handle(rocblas_handle h);

/* Wait for the handle's stream so the routine runs after earlier enqueued work (see the
 * execution model above). A stream being captured into a graph cannot be waited for, and
 * running the routine now would leave it out of the graph: that is refused with
 * rocblas_status_not_implemented and a message (once). */
static inline void rb_refuse_capture(void)
{
    static atomic_int once; /* per translation unit: a few messages at most */
    if (!atomic_exchange(&once, 1))
        fprintf(stderr, "pyshim cpu device: rocBLAS/rocSOLVER calls on a stream under graph "
                        "capture are not supported (rocblas_status_not_implemented)\n");
}
static inline rocblas_status rb_enter(rocblas_handle h)
{
    hipStreamCaptureStatus cap = hipStreamCaptureStatusNone;
    if (hipStreamIsCapturing(h->stream, &cap) == hipSuccess && cap != hipStreamCaptureStatusNone) {
        rb_refuse_capture();
        return rocblas_status_not_implemented;
    }
    return hipStreamSynchronize(h->stream) == hipSuccess ? rocblas_status_success
                                                         : rocblas_status_internal_error;
}

/* During rocblas_start/stop_device_memory_size_query a routine only validates its
 * arguments and reports the workspace it needs (none: OpenBLAS/LAPACK allocate their own). */
#define RB_RETURN_IF_SIZE_QUERY(h)                                                \
    do {                                                                          \
        if ((h)->size_query)                                                      \
            return rocblas_status_size_unchanged;                                 \
    } while (0)

/* ---- enum conversions to BLAS characters; 0 means invalid ---- */
static inline char rb_op(rocblas_operation op)
{
    return op == rocblas_operation_none ? 'N'
         : op == rocblas_operation_transpose ? 'T'
         : op == rocblas_operation_conjugate_transpose ? 'C' : 0;
}
static inline char rb_fill(rocblas_fill f)
{
    return f == rocblas_fill_upper ? 'U' : f == rocblas_fill_lower ? 'L' : 0;
}
static inline char rb_diag(rocblas_diagonal d)
{
    return d == rocblas_diagonal_non_unit ? 'N' : d == rocblas_diagonal_unit ? 'U' : 0;
}
static inline char rb_side(rocblas_side s)
{
    return s == rocblas_side_left ? 'L' : s == rocblas_side_right ? 'R' : 0;
}

/* OpenBLAS here has 32-bit integers: a _64 call whose sizes do not fit is refused. */
static inline bool rb_fits(int64_t v)
{
    return v >= INT_MIN && v <= INT_MAX;
}
#define RB_MAX(a, b) ((a) > (b) ? (a) : (b))

/* ---- batch forms: P plain, B pointer-array batched, S strided batched ----
 * RB_VEC_F(T, x, I): the parameters of one vector operand in form F (ABI order:
 * pointer, increment, stride). RB_MAT_F likewise for a matrix (pointer, ld, stride).
 * RB_AT_F(x, b): operand x of batch instance b. RB_BC_F(I): trailing batch_count. */
#define RB_FSFX_P
#define RB_FSFX_B _batched
#define RB_FSFX_S _strided_batched
#define RB_WSFX_L
#define RB_WSFX_W _64
#define RB_INT_L rocblas_int
#define RB_INT_W int64_t

#define RB_CAT5_(a, b, c, d, e) a##b##c##d##e
#define RB_CAT5(a, b, c, d, e) RB_CAT5_(a, b, c, d, e)
/* rocblas_<pre><op><form suffix><width suffix> */
#define RB_NAME(pre, op, F, W) RB_CAT5(rocblas_, pre, op, RB_FSFX_##F, RB_WSFX_##W)

#define RB_VEC_P(T, x, I) T *x, I inc##x
#define RB_VEC_B(T, x, I) T *const x[], I inc##x
#define RB_VEC_S(T, x, I) T *x, I inc##x, rocblas_stride stride##x
#define RB_MAT_P(T, A, I) T *A, I ld##A
#define RB_MAT_B(T, A, I) T *const A[], I ld##A
#define RB_MAT_S(T, A, I) T *A, I ld##A, rocblas_stride stride##A
/* a packed matrix or a bare pointer operand (no increment) */
#define RB_PTR_P(T, A) T *A
#define RB_PTR_B(T, A) T *const A[]
#define RB_PTR_S(T, A) T *A, rocblas_stride stride##A
#define RB_AT_P(x, b) (x)
#define RB_AT_B(x, b) ((x)[b])
#define RB_AT_S(x, b) ((x) + (b) * stride##x)
#define RB_BC_P(I)
#define RB_BC_B(I) , I batch_count
#define RB_BC_S(I) , I batch_count
#define RB_NB_P ((int64_t)1)
#define RB_NB_B ((int64_t)batch_count)
#define RB_NB_S ((int64_t)batch_count)

/* Apply M(F, W) to the six variants of a family. */
#define RB_EACH_FORM(M, ...)                                                      \
    M(P, L, __VA_ARGS__) M(B, L, __VA_ARGS__) M(S, L, __VA_ARGS__)                \
    M(P, W, __VA_ARGS__) M(B, W, __VA_ARGS__) M(S, W, __VA_ARGS__)

/* The same for families rocBLAS declares in LP64 only. */
#define RB_EACH_FORM_LP64(M, ...) M(P, L, __VA_ARGS__) M(B, L, __VA_ARGS__) M(S, L, __VA_ARGS__)

/* Types per precision letter. */
#define RB_T_s float
#define RB_T_d double
#define RB_T_c rocblas_float_complex
#define RB_T_z rocblas_double_complex
#define RB_R_s float
#define RB_R_d double
#define RB_R_c float
#define RB_R_z double

/* Scalar tests for rocBLAS's quick returns (alpha == 0, beta == 1), by precision letter. */
static inline bool rb_zero_s(const void *p) { return *(const float *)p == 0.0f; }
static inline bool rb_zero_d(const void *p) { return *(const double *)p == 0.0; }
static inline bool rb_zero_c(const void *p)
{
    return ((const float *)p)[0] == 0.0f && ((const float *)p)[1] == 0.0f;
}
static inline bool rb_zero_z(const void *p)
{
    return ((const double *)p)[0] == 0.0 && ((const double *)p)[1] == 0.0;
}
static inline bool rb_one_s(const void *p) { return *(const float *)p == 1.0f; }
static inline bool rb_one_d(const void *p) { return *(const double *)p == 1.0; }
static inline bool rb_one_c(const void *p)
{
    return ((const float *)p)[0] == 1.0f && ((const float *)p)[1] == 0.0f;
}
static inline bool rb_one_z(const void *p)
{
    return ((const double *)p)[0] == 1.0 && ((const double *)p)[1] == 0.0;
}
/* host pointer mode only: in device mode rocBLAS cannot look at the scalar before running */
#define RB_HOST_ZERO(h, pre, p) ((h)->pointer_mode == rocblas_pointer_mode_host && rb_zero_##pre(p))
#define RB_HOST_ONE(h, pre, p) ((h)->pointer_mode == rocblas_pointer_mode_host && rb_one_##pre(p))

/* Common entry-point plumbing used by every level. */
#define RB_ENTER(h)                                                               \
    do {                                                                          \
        RB_RETURN_IF_SIZE_QUERY(h);                                               \
        rocblas_status enter_ = rb_enter(h);                                      \
        if (enter_ != rocblas_status_success)                                     \
            return enter_;                                                        \
    } while (0)
/* rocBLAS checks the handle, then returns at once during a device-memory size query (these
 * routines need no workspace), before validating any other argument. */
#define RB_CHECK_HANDLE                                                           \
    do {                                                                          \
        if (rb_bad_handle(handle))                                                \
            return rocblas_status_invalid_handle;                                 \
        RB_RETURN_IF_SIZE_QUERY(handle);                                          \
    } while (0)
/* a _64 call whose sizes do not fit OpenBLAS's 32-bit integers */
#define RB_NEED_FIT(v)                                                            \
    if (!rb_fits(v))                                                              \
    return rocblas_status_invalid_size

#endif
