/* cuSPARSE's legacy incomplete factorizations on rocSPARSE's: csrilu02 (ILU(0)) and csric02
 * (IC(0)) on a CSR pattern, bsrilu02/bsric02 on a BSR one, whose csrilu02Info_t,
 * csric02Info_t, bsrilu02Info_t and bsric02Info_t are pyshim info objects
 * (sparse_info.c) carrying the rocsparse_mat_info that rocSPARSE's analysis, factorization
 * and zero-pivot calls share. As in cusparse_bsr.c: int buffer sizes from rocSPARSE's
 * size_t, cuSPARSE's solve policy a hint rocSPARSE decides itself (policy auto), every
 * analysis redone (policy force). cuSPARSE's numericBoost takes a double tolerance for every
 * value type; rocSPARSE's mixed-precision boosts (ds, dc) take the same for float values. */
#include <cusparse.h>

#include "sparse_internal.h"
#include "cusparse_enums.h"
#include "cusparse_rocm.h"

#define STATUS(st) ((cusparseStatus_t)pyshim_cusparseStatus_t_from_rocsparse_status(st))
enum { ANALYSIS_FORCE = 1, SOLVE_AUTO = 0 };
enum { CSRILU02_MAGIC = 0x70696c75u, CSRIC02_MAGIC = 0x70696330u };

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* a factorization's info object (pyshim_info_* checked by MAGIC) and its zero pivot: CK and
 * K are cuSPARSE's spellings (cusparseCreateCsrilu02Info, csrilu02Info_t), RK rocSPARSE's */
#define INFO_KIND(CK, K, RK, MAGIC)                                                          \
    PYSHIM_EXPORT cusparseStatus_t cusparseCreate##CK##Info(K##Info_t *info)                 \
    {                                                                                        \
        return pyshim_info_create((void **)info, MAGIC);                                     \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparseDestroy##CK##Info(K##Info_t info)                 \
    {                                                                                        \
        return pyshim_info_destroy(info, MAGIC);                                             \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparseX##K##_zeroPivot(cusparseHandle_t handle,         \
                                                          K##Info_t info, int *position)     \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, MAGIC);                                             \
        if (!mi || !position)                                                                \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(rocsparse_##RK##_zero_pivot(handle, mi, position));                    \
    }
INFO_KIND(Csrilu02, csrilu02, csrilu0, CSRILU02_MAGIC)
INFO_KIND(Csric02, csric02, csric0, CSRIC02_MAGIC)

/* the boost of one value type for format F (csr, bsr): R is rocSPARSE's boost with a double
 * tolerance */
#define BOOST(P, F, VT, R, MAGIC)                                                            \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##F##ilu02_numericBoost(                       \
        cusparseHandle_t handle, F##ilu02Info_t info, int enable_boost, double *tol,         \
        VT *boost_val)                                                                       \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, MAGIC);                                             \
        if (!mi)                                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R(handle, mi, enable_boost, tol, boost_val));                          \
    }
BOOST(S, csr, float, rocsparse_dscsrilu0_numeric_boost, CSRILU02_MAGIC)
BOOST(D, csr, double, rocsparse_dcsrilu0_numeric_boost, CSRILU02_MAGIC)
BOOST(C, csr, cuComplex, rocsparse_dccsrilu0_numeric_boost, CSRILU02_MAGIC)
BOOST(Z, csr, cuDoubleComplex, rocsparse_zcsrilu0_numeric_boost, CSRILU02_MAGIC)

/* K: cuSPARSE's name (csrilu02, csric02), RK: rocSPARSE's (csrilu0, csric0) */
#define PRECOND(P, VT, R, K, RK, MAGIC)                                                      \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##K##_bufferSizeExt(                           \
        cusparseHandle_t handle, int m, int nnz, const cusparseMatDescr_t descrA, VT *val,   \
        const int *rowPtr, const int *colInd, K##Info_t info, size_t *pBufferSize)           \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, MAGIC);                                             \
        if (!mi || !pBufferSize)                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##RK##_buffer_size(handle, m, nnz, descrA, val, (void *)rowPtr,       \
                                          (void *)colInd, mi, pBufferSize));                 \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##K##_bufferSize(                              \
        cusparseHandle_t handle, int m, int nnz, const cusparseMatDescr_t descrA, VT *val,   \
        const int *rowPtr, const int *colInd, K##Info_t info, int *pBufferSizeInBytes)       \
    {                                                                                        \
        if (!pBufferSizeInBytes)                                                             \
            return handle ? CUSPARSE_STATUS_INVALID_VALUE : CUSPARSE_STATUS_NOT_INITIALIZED; \
        size_t bytes = 0;                                                                    \
        cusparseStatus_t st = cusparse##P##K##_bufferSizeExt(handle, m, nnz, descrA, val,    \
                                                             rowPtr, colInd, info, &bytes);  \
        return st != CUSPARSE_STATUS_SUCCESS ? st                                           \
                                             : pyshim_int_size(bytes, pBufferSizeInBytes);   \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##K##_analysis(                                \
        cusparseHandle_t handle, int m, int nnz, const cusparseMatDescr_t descrA,            \
        const VT *val, const int *rowPtr, const int *colInd, K##Info_t info,                 \
        cusparseSolvePolicy_t policy, void *pBuffer)                                         \
    {                                                                                        \
        (void)policy;                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, MAGIC);                                             \
        if (!mi)                                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##RK##_analysis(handle, m, nnz, descrA, (void *)val, (void *)rowPtr,  \
                                       (void *)colInd, mi, ANALYSIS_FORCE, SOLVE_AUTO,       \
                                       pBuffer));                                            \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##K(                                           \
        cusparseHandle_t handle, int m, int nnz, const cusparseMatDescr_t descrA, VT *val,   \
        const int *rowPtr, const int *colInd, K##Info_t info, cusparseSolvePolicy_t policy,  \
        void *pBuffer)                                                                       \
    {                                                                                        \
        (void)policy;                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, MAGIC);                                             \
        if (!mi)                                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##RK(handle, m, nnz, descrA, val, (void *)rowPtr, (void *)colInd, mi, \
                            SOLVE_AUTO, pBuffer));                                           \
    }
PRECOND(S, float, rocsparse_s, csrilu02, csrilu0, CSRILU02_MAGIC)
PRECOND(D, double, rocsparse_d, csrilu02, csrilu0, CSRILU02_MAGIC)
PRECOND(C, cuComplex, rocsparse_c, csrilu02, csrilu0, CSRILU02_MAGIC)
PRECOND(Z, cuDoubleComplex, rocsparse_z, csrilu02, csrilu0, CSRILU02_MAGIC)
PRECOND(S, float, rocsparse_s, csric02, csric0, CSRIC02_MAGIC)
PRECOND(D, double, rocsparse_d, csric02, csric0, CSRIC02_MAGIC)
PRECOND(C, cuComplex, rocsparse_c, csric02, csric0, CSRIC02_MAGIC)
PRECOND(Z, cuDoubleComplex, rocsparse_z, csric02, csric0, CSRIC02_MAGIC)

/* ---- bsrilu02/bsric02: the same on a BSR matrix (dirA orders each block's elements) ---- */

enum { BSRILU02_MAGIC = 0x7062696cu, BSRIC02_MAGIC = 0x70626963u };
/* cusparseDirection_t and rocsparse_direction: row 0, column 1 in both */
#define DIR(d) ((int)(d))

INFO_KIND(Bsrilu02, bsrilu02, bsrilu0, BSRILU02_MAGIC)
INFO_KIND(Bsric02, bsric02, bsric0, BSRIC02_MAGIC)
BOOST(S, bsr, float, rocsparse_dsbsrilu0_numeric_boost, BSRILU02_MAGIC)
BOOST(D, bsr, double, rocsparse_dbsrilu0_numeric_boost, BSRILU02_MAGIC)
BOOST(C, bsr, cuComplex, rocsparse_dcbsrilu0_numeric_boost, BSRILU02_MAGIC)
BOOST(Z, bsr, cuDoubleComplex, rocsparse_zbsrilu0_numeric_boost, BSRILU02_MAGIC)

/* AQ: the analysis' value qualifier (bsrilu02's values are not const there, bsric02's are) */
#define BSR_PRECOND(P, VT, R, K, RK, MAGIC, AQ)                                              \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##K##_bufferSizeExt(                           \
        cusparseHandle_t handle, cusparseDirection_t dirA, int mb, int nnzb,                 \
        const cusparseMatDescr_t descrA, VT *val, const int *rowPtr, const int *colInd,      \
        int blockSize, K##Info_t info, size_t *pBufferSize)                                  \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, MAGIC);                                             \
        if (!mi || !pBufferSize)                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##RK##_buffer_size(handle, DIR(dirA), mb, nnzb, descrA, val,          \
                                          (void *)rowPtr, (void *)colInd, blockSize, mi,     \
                                          pBufferSize));                                     \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##K##_bufferSize(                              \
        cusparseHandle_t handle, cusparseDirection_t dirA, int mb, int nnzb,                 \
        const cusparseMatDescr_t descrA, VT *val, const int *rowPtr, const int *colInd,      \
        int blockDim, K##Info_t info, int *pBufferSizeInBytes)                               \
    {                                                                                        \
        if (!pBufferSizeInBytes)                                                             \
            return handle ? CUSPARSE_STATUS_INVALID_VALUE : CUSPARSE_STATUS_NOT_INITIALIZED; \
        size_t bytes = 0;                                                                    \
        cusparseStatus_t st = cusparse##P##K##_bufferSizeExt(                                \
            handle, dirA, mb, nnzb, descrA, val, rowPtr, colInd, blockDim, info, &bytes);    \
        return st != CUSPARSE_STATUS_SUCCESS ? st                                           \
                                             : pyshim_int_size(bytes, pBufferSizeInBytes);   \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##K##_analysis(                                \
        cusparseHandle_t handle, cusparseDirection_t dirA, int mb, int nnzb,                 \
        const cusparseMatDescr_t descrA, AQ VT *val, const int *rowPtr, const int *colInd,   \
        int blockDim, K##Info_t info, cusparseSolvePolicy_t policy, void *pBuffer)           \
    {                                                                                        \
        (void)policy;                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, MAGIC);                                             \
        if (!mi)                                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##RK##_analysis(handle, DIR(dirA), mb, nnzb, descrA, (void *)val,     \
                                       (void *)rowPtr, (void *)colInd, blockDim, mi,         \
                                       ANALYSIS_FORCE, SOLVE_AUTO, pBuffer));                \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##K(                                           \
        cusparseHandle_t handle, cusparseDirection_t dirA, int mb, int nnzb,                 \
        const cusparseMatDescr_t descrA, VT *val, const int *rowPtr, const int *colInd,      \
        int blockDim, K##Info_t info, cusparseSolvePolicy_t policy, void *pBuffer)           \
    {                                                                                        \
        (void)policy;                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        void *mi = pyshim_info_mat(info, MAGIC);                                             \
        if (!mi)                                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##RK(handle, DIR(dirA), mb, nnzb, descrA, val, (void *)rowPtr,        \
                            (void *)colInd, blockDim, mi, SOLVE_AUTO, pBuffer));             \
    }
BSR_PRECOND(S, float, rocsparse_s, bsrilu02, bsrilu0, BSRILU02_MAGIC, )
BSR_PRECOND(D, double, rocsparse_d, bsrilu02, bsrilu0, BSRILU02_MAGIC, )
BSR_PRECOND(C, cuComplex, rocsparse_c, bsrilu02, bsrilu0, BSRILU02_MAGIC, )
BSR_PRECOND(Z, cuDoubleComplex, rocsparse_z, bsrilu02, bsrilu0, BSRILU02_MAGIC, )
BSR_PRECOND(S, float, rocsparse_s, bsric02, bsric0, BSRIC02_MAGIC, const)
BSR_PRECOND(D, double, rocsparse_d, bsric02, bsric0, BSRIC02_MAGIC, const)
BSR_PRECOND(C, cuComplex, rocsparse_c, bsric02, bsric0, BSRIC02_MAGIC, const)
BSR_PRECOND(Z, cuDoubleComplex, rocsparse_z, bsric02, bsric0, BSRIC02_MAGIC, const)
