/* The part of hipBLASLt's C ABI that pyshim uses: libcublasLt.so.13 calls it (ROCm's
 * libhipblaslt, or the CPU device's), shim/cpu/hipblaslt implements it.
 *
 * Written in ABI terms so that the CUDA side (which includes cublasLt.h) and the CPU device
 * share one header without HIP's: hipblaslt.h is C++ and pulls in the HIP runtime. Its
 * values are those of the pinned hipblaslt.h/hipblas-common.h (Debian's libhipblaslt-dev
 * 7.2.4, pyshim/tables/sources.py); tests/test_tables_cublaslt.py checks every constant,
 * arity and struct size here against the tables generated from them. hipDataType's values
 * are cudaDataType's (HIP's library_types.h mirrors CUDA's). */
#ifndef PYSHIM_HIPBLASLT_ABI_H
#define PYSHIM_HIPBLASLT_ABI_H

#include <stddef.h>
#include <stdint.h>

#define PYSHIM_HIPBLASLT_SONAME "libhipblaslt.so.1"

typedef int pyshim_hipblasStatus_t;
enum {
    PS_HIPBLAS_STATUS_SUCCESS = 0,
    PS_HIPBLAS_STATUS_NOT_INITIALIZED = 1,
    PS_HIPBLAS_STATUS_ALLOC_FAILED = 2,
    PS_HIPBLAS_STATUS_INVALID_VALUE = 3,
    PS_HIPBLAS_STATUS_MAPPING_ERROR = 4,
    PS_HIPBLAS_STATUS_EXECUTION_FAILED = 5,
    PS_HIPBLAS_STATUS_INTERNAL_ERROR = 6,
    PS_HIPBLAS_STATUS_NOT_SUPPORTED = 7,
    PS_HIPBLAS_STATUS_ARCH_MISMATCH = 8,
    PS_HIPBLAS_STATUS_HANDLE_IS_NULLPTR = 9,
    PS_HIPBLAS_STATUS_INVALID_ENUM = 10,
    PS_HIPBLAS_STATUS_UNKNOWN = 11,
};

/* hipblasOperation_t */
enum { PS_HIPBLAS_OP_N = 111, PS_HIPBLAS_OP_T = 112, PS_HIPBLAS_OP_C = 113 };

/* hipblasComputeType_t */
enum {
    PS_HIPBLAS_COMPUTE_16F = 0,
    PS_HIPBLAS_COMPUTE_32F = 2,
    PS_HIPBLAS_COMPUTE_32F_FAST_TF32 = 6,
    PS_HIPBLAS_COMPUTE_64F = 7,
    PS_HIPBLAS_COMPUTE_32I = 9,
};

/* hipDataType (= cudaDataType_t). The OCP fp8 types (28, 29) are CUDA_R_8F_E4M3/E5M2's
 * numbers; the FNUZ ones (1000, 1001: gfx942's fp8, exponent bias one more, no infinity,
 * 0x80 the only NaN) are HIP's own. */
enum {
    PS_HIP_R_32F = 0, PS_HIP_R_64F = 1, PS_HIP_R_16F = 2, PS_HIP_R_8I = 3,
    PS_HIP_R_32I = 10, PS_HIP_R_16BF = 14,
    PS_HIP_R_8F_E4M3 = 28, PS_HIP_R_8F_E5M2 = 29,
    PS_HIP_R_8F_E4M3_FNUZ = 1000, PS_HIP_R_8F_E5M2_FNUZ = 1001,
};

/* hipblasLtMatmulDescAttributes_t */
enum {
    PS_HIPBLASLT_MATMUL_DESC_TRANSA = 0,
    PS_HIPBLASLT_MATMUL_DESC_TRANSB = 1,
    PS_HIPBLASLT_MATMUL_DESC_EPILOGUE = 2,
    PS_HIPBLASLT_MATMUL_DESC_BIAS_POINTER = 3,
    PS_HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 4,
    /* device pointers to one float each (hipBLASLt: "same type as the compute type") */
    PS_HIPBLASLT_MATMUL_DESC_A_SCALE_POINTER = 5,
    PS_HIPBLASLT_MATMUL_DESC_B_SCALE_POINTER = 6,
    PS_HIPBLASLT_MATMUL_DESC_C_SCALE_POINTER = 7,
    PS_HIPBLASLT_MATMUL_DESC_D_SCALE_POINTER = 8,
    PS_HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 10,
    PS_HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 11,
    PS_HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE = 12,
    PS_HIPBLASLT_MATMUL_DESC_POINTER_MODE = 13,
    PS_HIPBLASLT_MATMUL_DESC_AMAX_D_POINTER = 14,
};

/* hipblasLtEpilogue_t: the same numbers as cublasLtEpilogue_t for these */
enum {
    PS_HIPBLASLT_EPILOGUE_DEFAULT = 1,
    PS_HIPBLASLT_EPILOGUE_RELU = 2,
    PS_HIPBLASLT_EPILOGUE_BIAS = 4,
    PS_HIPBLASLT_EPILOGUE_RELU_BIAS = 6,
    PS_HIPBLASLT_EPILOGUE_GELU = 32,
    PS_HIPBLASLT_EPILOGUE_GELU_BIAS = 36,
    PS_HIPBLASLT_EPILOGUE_RELU_AUX = 130,
    PS_HIPBLASLT_EPILOGUE_RELU_AUX_BIAS = 134,
    PS_HIPBLASLT_EPILOGUE_DRELU = 136, /* DRELU*: in hipblaslt.h after ROCm 7.2 */
    PS_HIPBLASLT_EPILOGUE_DRELU_BGRAD = 152,
    PS_HIPBLASLT_EPILOGUE_GELU_AUX = 160,
    PS_HIPBLASLT_EPILOGUE_GELU_AUX_BIAS = 164,
    PS_HIPBLASLT_EPILOGUE_DGELU = 192,
    PS_HIPBLASLT_EPILOGUE_DGELU_BGRAD = 208,
    PS_HIPBLASLT_EPILOGUE_BGRADA = 256,
    PS_HIPBLASLT_EPILOGUE_BGRADB = 512,
};

/* hipblasLtPointerMode_t */
enum { PS_HIPBLASLT_POINTER_MODE_HOST = 0, PS_HIPBLASLT_POINTER_MODE_DEVICE = 1 };

/* hipblasLtMatrixLayoutAttribute_t */
enum {
    PS_HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 0,
    PS_HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 1,
    PS_HIPBLASLT_MATRIX_LAYOUT_TYPE = 2,
    PS_HIPBLASLT_MATRIX_LAYOUT_ORDER = 3,
    PS_HIPBLASLT_MATRIX_LAYOUT_ROWS = 4,
    PS_HIPBLASLT_MATRIX_LAYOUT_COLS = 5,
    PS_HIPBLASLT_MATRIX_LAYOUT_LD = 6,
};

/* hipblasLtOrder_t */
enum { PS_HIPBLASLT_ORDER_COL = 0, PS_HIPBLASLT_ORDER_ROW = 1 };

/* hipblasLtMatmulPreferenceAttributes_t */
enum { PS_HIPBLASLT_MATMUL_PREF_SEARCH_MODE = 0, PS_HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1 };

/* hipblasLtMatrixTransformDescAttributes_t */
enum {
    PS_HIPBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE = 0,
    PS_HIPBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE = 1,
    PS_HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSA = 2,
    PS_HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSB = 3,
};

typedef void *pyshim_hipblasLtHandle_t;
typedef void *pyshim_hipblasLtMatrixTransformDesc_t;
typedef void *pyshim_hipblasLtMatmulDesc_t;
typedef void *pyshim_hipblasLtMatrixLayout_t;
typedef void *pyshim_hipblasLtMatmulPreference_t;

typedef struct {
    uint8_t data[16];
    size_t max_workspace_bytes;
} pyshim_hipblasLtMatmulAlgo_t;

typedef struct {
    pyshim_hipblasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    pyshim_hipblasStatus_t state;
    float wavesCount;
    int reserved[4];
} pyshim_hipblasLtMatmulHeuristicResult_t;

/* The entry points, as pointer types (the CUDA side resolves them with dlsym). */
#define PYSHIM_HIPBLASLT_FUNCTIONS(X)                                                           \
    X(hipblasLtCreate, (pyshim_hipblasLtHandle_t *handle))                                      \
    X(hipblasLtDestroy, (pyshim_hipblasLtHandle_t handle))                                      \
    X(hipblasLtMatmulDescCreate, (pyshim_hipblasLtMatmulDesc_t *desc, int computeType,         \
                                  int scaleType))                                               \
    X(hipblasLtMatmulDescDestroy, (pyshim_hipblasLtMatmulDesc_t desc))                          \
    X(hipblasLtMatmulDescSetAttribute, (pyshim_hipblasLtMatmulDesc_t desc, int attr,           \
                                        const void *buf, size_t size))                          \
    X(hipblasLtMatrixLayoutCreate, (pyshim_hipblasLtMatrixLayout_t *layout, int type,          \
                                    uint64_t rows, uint64_t cols, int64_t ld))                  \
    X(hipblasLtMatrixLayoutDestroy, (pyshim_hipblasLtMatrixLayout_t layout))                    \
    X(hipblasLtMatrixLayoutSetAttribute, (pyshim_hipblasLtMatrixLayout_t layout, int attr,     \
                                          const void *buf, size_t size))                        \
    X(hipblasLtMatmulPreferenceCreate, (pyshim_hipblasLtMatmulPreference_t *pref))             \
    X(hipblasLtMatmulPreferenceDestroy, (pyshim_hipblasLtMatmulPreference_t pref))             \
    X(hipblasLtMatmulPreferenceSetAttribute, (pyshim_hipblasLtMatmulPreference_t pref,         \
                                              int attr, const void *buf, size_t size))          \
    X(hipblasLtMatmulAlgoGetHeuristic,                                                          \
      (pyshim_hipblasLtHandle_t handle, pyshim_hipblasLtMatmulDesc_t desc,                     \
       pyshim_hipblasLtMatrixLayout_t a, pyshim_hipblasLtMatrixLayout_t b,                     \
       pyshim_hipblasLtMatrixLayout_t c, pyshim_hipblasLtMatrixLayout_t d,                     \
       pyshim_hipblasLtMatmulPreference_t pref, int requested,                                 \
       pyshim_hipblasLtMatmulHeuristicResult_t *results, int *returned))                       \
    X(hipblasLtMatmul,                                                                          \
      (pyshim_hipblasLtHandle_t handle, pyshim_hipblasLtMatmulDesc_t desc, const void *alpha,  \
       const void *A, pyshim_hipblasLtMatrixLayout_t a, const void *B,                         \
       pyshim_hipblasLtMatrixLayout_t b, const void *beta, const void *C,                      \
       pyshim_hipblasLtMatrixLayout_t c, void *D, pyshim_hipblasLtMatrixLayout_t d,            \
       const pyshim_hipblasLtMatmulAlgo_t *algo, void *workspace, size_t workspaceSize,        \
       void *stream))                                                                           \
    X(hipblasLtMatrixTransformDescCreate, (pyshim_hipblasLtMatrixTransformDesc_t *desc,        \
                                           int scaleType))                                      \
    X(hipblasLtMatrixTransformDescDestroy, (pyshim_hipblasLtMatrixTransformDesc_t desc))       \
    X(hipblasLtMatrixTransformDescSetAttribute, (pyshim_hipblasLtMatrixTransformDesc_t desc,   \
                                                 int attr, const void *buf, size_t size))       \
    X(hipblasLtMatrixTransform,                                                                 \
      (pyshim_hipblasLtHandle_t handle, pyshim_hipblasLtMatrixTransformDesc_t desc,            \
       const void *alpha, const void *A, pyshim_hipblasLtMatrixLayout_t a, const void *beta,   \
       const void *B, pyshim_hipblasLtMatrixLayout_t b, void *C,                               \
       pyshim_hipblasLtMatrixLayout_t c, void *stream))

#endif
