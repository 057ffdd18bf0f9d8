/* cuSPARSE's BSR routines on rocSPARSE's: bsrmv (rocSPARSE takes a rocsparse_mat_info for
 * its optional analysis; NULL runs without one), the triangular solves bsrsv2/bsrsm2 (whose
 * bsrsv2Info_t/bsrsm2Info_t are pyshim objects carrying the rocsparse_mat_info that
 * rocSPARSE's analysis, solve and zero-pivot calls share), and a dense matrix's strided
 * batch. cuSPARSE's buffer sizes are ints where rocSPARSE's are size_t; its solve policies
 * (level information or not) are a hint rocSPARSE decides itself (policy auto), and every
 * analysis is redone (policy force), as cuSPARSE analyses the values it is given. */
#include <stdint.h>
#include <cusparse.h>

#include "sparse_internal.h"
#include "cusparse_enums.h"
#include "cusparse_rocm.h"

#define STATUS(st) ((cusparseStatus_t)pyshim_cusparseStatus_t_from_rocsparse_status(st))
#define OPER(t) ((int)pyshim_cusparseOperation_t_to_rocsparse_operation(t))
/* cusparseDirection_t and rocsparse_direction: row 0, column 1 in both */
#define DIR(d) ((int)(d))
enum { ANALYSIS_FORCE = 1, SOLVE_AUTO = 0 };

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* ---- bsrmv ---- */

#define BSRMV(P, VT, ROC)                                                                    \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##bsrmv(                                       \
        cusparseHandle_t handle, cusparseDirection_t dirA, cusparseOperation_t transA,       \
        int mb, int nb, int nnzb, const VT *alpha, const cusparseMatDescr_t descrA,          \
        const VT *bsrSortedValA, const int *bsrSortedRowPtrA, const int *bsrSortedColIndA,   \
        int blockDim, const VT *x, const VT *beta, VT *y)                                    \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        return STATUS(ROC(handle, DIR(dirA), OPER(transA), mb, nb, nnzb, (void *)alpha,      \
                          descrA, (void *)bsrSortedValA, (void *)bsrSortedRowPtrA,           \
                          (void *)bsrSortedColIndA, blockDim, NULL, (void *)x,               \
                          (void *)beta, y));                                                 \
    }
BSRMV(S, float, rocsparse_sbsrmv)
BSRMV(D, double, rocsparse_dbsrmv)
BSRMV(C, cuComplex, rocsparse_cbsrmv)
BSRMV(Z, cuDoubleComplex, rocsparse_zbsrmv)

/* ---- the solve infos: pyshim objects around a rocsparse_mat_info (sparse_info.c) ---- */

enum { BSRSV2_MAGIC = 0x70627376u, BSRSM2_MAGIC = 0x7062736du };

PYSHIM_EXPORT cusparseStatus_t cusparseCreateBsrsv2Info(bsrsv2Info_t *info)
{
    return pyshim_info_create((void **)info, BSRSV2_MAGIC);
}

PYSHIM_EXPORT cusparseStatus_t cusparseDestroyBsrsv2Info(bsrsv2Info_t info)
{
    return pyshim_info_destroy(info, BSRSV2_MAGIC);
}

PYSHIM_EXPORT cusparseStatus_t cusparseCreateBsrsm2Info(bsrsm2Info_t *info)
{
    return pyshim_info_create((void **)info, BSRSM2_MAGIC);
}

PYSHIM_EXPORT cusparseStatus_t cusparseDestroyBsrsm2Info(bsrsm2Info_t info)
{
    return pyshim_info_destroy(info, BSRSM2_MAGIC);
}

PYSHIM_EXPORT cusparseStatus_t cusparseXbsrsv2_zeroPivot(cusparseHandle_t handle,
                                                         bsrsv2Info_t info, int *position)
{
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    void *mi = pyshim_info_mat(info, BSRSV2_MAGIC);
    if (!mi || !position)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return STATUS(rocsparse_bsrsv_zero_pivot(handle, mi, position));
}

PYSHIM_EXPORT cusparseStatus_t cusparseXbsrsm2_zeroPivot(cusparseHandle_t handle,
                                                         bsrsm2Info_t info, int *position)
{
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    void *mi = pyshim_info_mat(info, BSRSM2_MAGIC);
    if (!mi || !position)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return STATUS(rocsparse_bsrsm_zero_pivot(handle, mi, position));
}

/* ---- bsrsv2: op(A) x = alpha f, A triangular (descrA's fill and diagonal) ---- */

#define BSRSV2(P, VT, R)                                                                     \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##bsrsv2_bufferSizeExt(                        \
        cusparseHandle_t handle, cusparseDirection_t dirA, cusparseOperation_t transA,       \
        int mb, int nnzb, const cusparseMatDescr_t descrA, VT *val, const int *rowPtr,       \
        const int *colInd, int blockSize, bsrsv2Info_t info, size_t *pBufferSize)            \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, BSRSV2_MAGIC);                                      \
        if (!mi || !pBufferSize)                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##bsrsv_buffer_size(handle, DIR(dirA), OPER(transA), mb, nnzb,        \
                                           descrA, val, (void *)rowPtr, (void *)colInd,      \
                                           blockSize, mi, pBufferSize));                     \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##bsrsv2_bufferSize(                           \
        cusparseHandle_t handle, cusparseDirection_t dirA, cusparseOperation_t transA,       \
        int mb, int nnzb, const cusparseMatDescr_t descrA, VT *val, const int *rowPtr,       \
        const int *colInd, int blockDim, bsrsv2Info_t info, int *pBufferSizeInBytes)         \
    {                                                                                        \
        if (!pBufferSizeInBytes)                                                             \
            return handle ? CUSPARSE_STATUS_INVALID_VALUE : CUSPARSE_STATUS_NOT_INITIALIZED; \
        size_t bytes = 0;                                                                    \
        cusparseStatus_t st = cusparse##P##bsrsv2_bufferSizeExt(                             \
            handle, dirA, transA, mb, nnzb, descrA, val, rowPtr, colInd, blockDim, info,     \
            &bytes);                                                                         \
        return st != CUSPARSE_STATUS_SUCCESS ? st                                           \
                                             : pyshim_int_size(bytes, pBufferSizeInBytes);   \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##bsrsv2_analysis(                             \
        cusparseHandle_t handle, cusparseDirection_t dirA, cusparseOperation_t transA,       \
        int mb, int nnzb, const cusparseMatDescr_t descrA, const VT *val, const int *rowPtr, \
        const int *colInd, int blockDim, bsrsv2Info_t info, cusparseSolvePolicy_t policy,    \
        void *pBuffer)                                                                       \
    {                                                                                        \
        (void)policy;                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, BSRSV2_MAGIC);                                      \
        if (!mi)                                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##bsrsv_analysis(handle, DIR(dirA), OPER(transA), mb, nnzb, descrA,   \
                                        (void *)val, (void *)rowPtr, (void *)colInd,         \
                                        blockDim, mi, ANALYSIS_FORCE, SOLVE_AUTO, pBuffer)); \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##bsrsv2_solve(                                \
        cusparseHandle_t handle, cusparseDirection_t dirA, cusparseOperation_t transA,       \
        int mb, int nnzb, const VT *alpha, const cusparseMatDescr_t descrA, const VT *val,   \
        const int *rowPtr, const int *colInd, int blockDim, bsrsv2Info_t info, const VT *f,  \
        VT *x, cusparseSolvePolicy_t policy, void *pBuffer)                                  \
    {                                                                                        \
        (void)policy;                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, BSRSV2_MAGIC);                                      \
        if (!mi)                                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##bsrsv_solve(handle, DIR(dirA), OPER(transA), mb, nnzb,              \
                                     (void *)alpha, descrA, (void *)val, (void *)rowPtr,     \
                                     (void *)colInd, blockDim, mi, (void *)f, x, SOLVE_AUTO, \
                                     pBuffer));                                              \
    }
BSRSV2(S, float, rocsparse_s)
BSRSV2(D, double, rocsparse_d)
BSRSV2(C, cuComplex, rocsparse_c)
BSRSV2(Z, cuDoubleComplex, rocsparse_z)

/* ---- bsrsm2: op(A) op(X) = alpha op(B), transXY applying to both B and X ---- */

#define BSRSM2(P, VT, R)                                                                     \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##bsrsm2_bufferSizeExt(                        \
        cusparseHandle_t handle, cusparseDirection_t dirA, cusparseOperation_t transA,       \
        cusparseOperation_t transB, int mb, int n, int nnzb, const cusparseMatDescr_t descrA, \
        VT *val, const int *rowPtr, const int *colInd, int blockSize, bsrsm2Info_t info,     \
        size_t *pBufferSize)                                                                 \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, BSRSM2_MAGIC);                                      \
        if (!mi || !pBufferSize)                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##bsrsm_buffer_size(handle, DIR(dirA), OPER(transA), OPER(transB),    \
                                           mb, n, nnzb, descrA, val, (void *)rowPtr,         \
                                           (void *)colInd, blockSize, mi, pBufferSize));     \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##bsrsm2_bufferSize(                           \
        cusparseHandle_t handle, cusparseDirection_t dirA, cusparseOperation_t transA,       \
        cusparseOperation_t transXY, int mb, int n, int nnzb,                                \
        const cusparseMatDescr_t descrA, VT *val, const int *rowPtr, const int *colInd,      \
        int blockSize, bsrsm2Info_t info, int *pBufferSizeInBytes)                           \
    {                                                                                        \
        if (!pBufferSizeInBytes)                                                             \
            return handle ? CUSPARSE_STATUS_INVALID_VALUE : CUSPARSE_STATUS_NOT_INITIALIZED; \
        size_t bytes = 0;                                                                    \
        cusparseStatus_t st = cusparse##P##bsrsm2_bufferSizeExt(                             \
            handle, dirA, transA, transXY, mb, n, nnzb, descrA, val, rowPtr, colInd,         \
            blockSize, info, &bytes);                                                        \
        return st != CUSPARSE_STATUS_SUCCESS ? st                                           \
                                             : pyshim_int_size(bytes, pBufferSizeInBytes);   \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##bsrsm2_analysis(                             \
        cusparseHandle_t handle, cusparseDirection_t dirA, cusparseOperation_t transA,       \
        cusparseOperation_t transXY, int mb, int n, int nnzb,                                \
        const cusparseMatDescr_t descrA, const VT *val, const int *rowPtr,                   \
        const int *colInd, int blockSize, bsrsm2Info_t info, cusparseSolvePolicy_t policy,   \
        void *pBuffer)                                                                       \
    {                                                                                        \
        (void)policy;                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, BSRSM2_MAGIC);                                      \
        if (!mi)                                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##bsrsm_analysis(handle, DIR(dirA), OPER(transA), OPER(transXY), mb,  \
                                        n, nnzb, descrA, (void *)val, (void *)rowPtr,        \
                                        (void *)colInd, blockSize, mi, ANALYSIS_FORCE,       \
                                        SOLVE_AUTO, pBuffer));                               \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##bsrsm2_solve(                                \
        cusparseHandle_t handle, cusparseDirection_t dirA, cusparseOperation_t transA,       \
        cusparseOperation_t transXY, int mb, int n, int nnzb, const VT *alpha,               \
        const cusparseMatDescr_t descrA, const VT *val, const int *rowPtr,                   \
        const int *colInd, int blockSize, bsrsm2Info_t info, const VT *B, int ldb, VT *X,    \
        int ldx, cusparseSolvePolicy_t policy, void *pBuffer)                                \
    {                                                                                        \
        (void)policy;                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, BSRSM2_MAGIC);                                      \
        if (!mi)                                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##bsrsm_solve(handle, DIR(dirA), OPER(transA), OPER(transXY), mb, n,  \
                                     nnzb, (void *)alpha, descrA, (void *)val,               \
                                     (void *)rowPtr, (void *)colInd, blockSize, mi,          \
                                     (void *)B, ldb, X, ldx, SOLVE_AUTO, pBuffer));          \
    }
BSRSM2(S, float, rocsparse_s)
BSRSM2(D, double, rocsparse_d)
BSRSM2(C, cuComplex, rocsparse_c)
BSRSM2(Z, cuDoubleComplex, rocsparse_z)

/* ---- a dense matrix's strided batch ---- */

PYSHIM_EXPORT cusparseStatus_t cusparseDnMatSetStridedBatch(cusparseDnMatDescr_t dnMatDescr,
                                                            int batchCount,
                                                            int64_t batchStride)
{
    return STATUS(rocsparse_dnmat_set_strided_batch(dnMatDescr, batchCount, batchStride));
}

PYSHIM_EXPORT cusparseStatus_t cusparseDnMatGetStridedBatch(
    cusparseConstDnMatDescr_t dnMatDescr, int *batchCount, int64_t *batchStride)
{
    return STATUS(rocsparse_dnmat_get_strided_batch((void *)dnMatDescr, batchCount,
                                                    batchStride));
}
