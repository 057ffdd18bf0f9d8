/* cuBLAS gemm variants the tables find no rocBLAS twin for, which are rocBLAS gemms with
 * fixed choices: SgemmEx/CgemmEx/Cgemm3mEx (typed data, single-precision compute:
 * rocblas_gemm_ex with D = C) and the Gauss "3m" complex gemms (an algorithm choice:
 * rocBLAS's ordinary complex gemm). */
#include <cublas_v2.h>

#include "blas_internal.h"
#include "cublas_enums.h"

#define STATUS(st) ((cublasStatus_t)pyshim_cublasStatus_t_from_rocblas_status(st))
#define OPER(t) ((rocblas_operation)pyshim_cublasOperation_t_to_rocblas_operation(t))
#define DTYPE(t) ((rocblas_datatype)pyshim_cudaDataType_to_rocblas_datatype(t))

#define GEMM_EX(NAME, SCALAR, COMPUTE, W, I, GEMM_EX_FN)                                     \
    PYSHIM_EXPORT cublasStatus_t NAME##W(                                                    \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, \
        I k, const SCALAR *alpha, const void *A, cudaDataType Atype, I lda, const void *B,   \
        cudaDataType Btype, I ldb, const SCALAR *beta, void *C, cudaDataType Ctype, I ldc)   \
    {                                                                                        \
        return STATUS(GEMM_EX_FN((rocblas_handle)handle, OPER(transa), OPER(transb), m, n,   \
                                 k, alpha, A, DTYPE(Atype), lda, B, DTYPE(Btype), ldb, beta, \
                                 C, DTYPE(Ctype), ldc, C, DTYPE(Ctype), ldc, COMPUTE,        \
                                 rocblas_gemm_algo_standard, 0, 0));                         \
    }

GEMM_EX(cublasSgemmEx, float, rocblas_datatype_f32_r, , int, rocblas_gemm_ex)
GEMM_EX(cublasSgemmEx, float, rocblas_datatype_f32_r, _64, int64_t, rocblas_gemm_ex_64)
GEMM_EX(cublasCgemmEx, cuComplex, rocblas_datatype_f32_c, , int, rocblas_gemm_ex)
GEMM_EX(cublasCgemmEx, cuComplex, rocblas_datatype_f32_c, _64, int64_t, rocblas_gemm_ex_64)
GEMM_EX(cublasCgemm3mEx, cuComplex, rocblas_datatype_f32_c, , int, rocblas_gemm_ex)
GEMM_EX(cublasCgemm3mEx, cuComplex, rocblas_datatype_f32_c, _64, int64_t, rocblas_gemm_ex_64)

#define GEMM_3M(P, T, RT, R, W, I, SW)                                                       \
    PYSHIM_EXPORT cublasStatus_t cublas##P##gemm3m##W(                                       \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, \
        I k, const T *alpha, const T *A, I lda, const T *B, I ldb, const T *beta, T *C,      \
        I ldc)                                                                               \
    {                                                                                        \
        return STATUS(R##gemm##SW((rocblas_handle)handle, OPER(transa), OPER(transb), m, n,  \
                                  k, (const RT *)alpha, (const RT *)A, lda, (const RT *)B,   \
                                  ldb, (const RT *)beta, (RT *)C, ldc));                     \
    }

#define GEMM_3M_BATCHED(P, T, RT, R, W, I, SW)                                               \
    PYSHIM_EXPORT cublasStatus_t cublas##P##gemm3mBatched##W(                                \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, \
        I k, const T *alpha, const T *const Aarray[], I lda, const T *const Barray[], I ldb, \
        const T *beta, T *const Carray[], I ldc, I batchCount)                               \
    {                                                                                        \
        return STATUS(R##gemm_batched##SW(                                                   \
            (rocblas_handle)handle, OPER(transa), OPER(transb), m, n, k, (const RT *)alpha,  \
            (const RT *const *)Aarray, lda, (const RT *const *)Barray, ldb,                  \
            (const RT *)beta, (RT *const *)Carray, ldc, batchCount));                        \
    }                                                                                        \
    PYSHIM_EXPORT cublasStatus_t cublas##P##gemm3mStridedBatched##W(                         \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, \
        I k, const T *alpha, const T *A, I lda, long long int strideA, const T *B, I ldb,    \
        long long int strideB, const T *beta, T *C, I ldc, long long int strideC,           \
        I batchCount)                                                                        \
    {                                                                                        \
        return STATUS(R##gemm_strided_batched##SW(                                           \
            (rocblas_handle)handle, OPER(transa), OPER(transb), m, n, k, (const RT *)alpha,  \
            (const RT *)A, lda, strideA, (const RT *)B, ldb, strideB, (const RT *)beta,      \
            (RT *)C, ldc, strideC, batchCount));                                             \
    }

GEMM_3M(C, cuComplex, rocblas_float_complex, rocblas_c, , int, )
GEMM_3M(C, cuComplex, rocblas_float_complex, rocblas_c, _64, int64_t, _64)
GEMM_3M(Z, cuDoubleComplex, rocblas_double_complex, rocblas_z, , int, )
GEMM_3M(Z, cuDoubleComplex, rocblas_double_complex, rocblas_z, _64, int64_t, _64)
GEMM_3M_BATCHED(C, cuComplex, rocblas_float_complex, rocblas_c, , int, )
GEMM_3M_BATCHED(C, cuComplex, rocblas_float_complex, rocblas_c, _64, int64_t, _64)
