/* cuSPARSE's csrgeam2 (C := alpha A + beta B, sorted CSR) on rocSPARSE's csrgeam: the same
 * calls less cuSPARSE's workspace, which rocSPARSE does not take (its buffer-size query
 * answers a token size so that callers' buffers stay non-NULL). */
#include <stddef.h>
#include <cusparse.h>

#include "sparse_internal.h"
#include "cusparse_enums.h"
#include "cusparse_rocm.h"

#define STATUS(st) ((cusparseStatus_t)pyshim_cusparseStatus_t_from_rocsparse_status(st))

PYSHIM_EXPORT cusparseStatus_t cusparseXcsrgeam2Nnz(
    cusparseHandle_t handle, int m, int n, const cusparseMatDescr_t descrA, int nnzA,
    const int *csrSortedRowPtrA, const int *csrSortedColIndA, const cusparseMatDescr_t descrB,
    int nnzB, const int *csrSortedRowPtrB, const int *csrSortedColIndB,
    const cusparseMatDescr_t descrC, int *csrSortedRowPtrC, int *nnzTotalDevHostPtr,
    void *workspace)
{
    (void)workspace;
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    return STATUS(rocsparse_csrgeam_nnz(handle, m, n, descrA, nnzA, (void *)csrSortedRowPtrA,
                                        (void *)csrSortedColIndA, descrB, nnzB,
                                        (void *)csrSortedRowPtrB, (void *)csrSortedColIndB,
                                        descrC, csrSortedRowPtrC, nnzTotalDevHostPtr));
}

#define GEAM2(P, VT, ROC)                                                                    \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##csrgeam2_bufferSizeExt(                      \
        cusparseHandle_t handle, int m, int n, const VT *alpha,                              \
        const cusparseMatDescr_t descrA, int nnzA, const VT *valA, const int *rowPtrA,       \
        const int *colIndA, const VT *beta, const cusparseMatDescr_t descrB, int nnzB,       \
        const VT *valB, const int *rowPtrB, const int *colIndB,                              \
        const cusparseMatDescr_t descrC, const VT *valC, const int *rowPtrC,                 \
        const int *colIndC, size_t *pBufferSizeInBytes)                                      \
    {                                                                                        \
        (void)m, (void)n, (void)alpha, (void)descrA, (void)nnzA, (void)valA, (void)rowPtrA;  \
        (void)colIndA, (void)beta, (void)descrB, (void)nnzB, (void)valB, (void)rowPtrB;      \
        (void)colIndB, (void)descrC, (void)valC, (void)rowPtrC, (void)colIndC;               \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        if (!pBufferSizeInBytes)                                                             \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        *pBufferSizeInBytes = 4;                                                             \
        return CUSPARSE_STATUS_SUCCESS;                                                      \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##csrgeam2(                                    \
        cusparseHandle_t handle, int m, int n, const VT *alpha,                              \
        const cusparseMatDescr_t descrA, int nnzA, const VT *valA, const int *rowPtrA,       \
        const int *colIndA, const VT *beta, const cusparseMatDescr_t descrB, int nnzB,       \
        const VT *valB, const int *rowPtrB, const int *colIndB,                              \
        const cusparseMatDescr_t descrC, VT *valC, int *rowPtrC, int *colIndC, void *pBuffer) \
    {                                                                                        \
        (void)pBuffer;                                                                       \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        return STATUS(ROC(handle, m, n, (void *)alpha, descrA, nnzA, (void *)valA,           \
                          (void *)rowPtrA, (void *)colIndA, (void *)beta, descrB, nnzB,      \
                          (void *)valB, (void *)rowPtrB, (void *)colIndB, descrC, valC,      \
                          rowPtrC, colIndC));                                                \
    }
GEAM2(S, float, rocsparse_scsrgeam)
GEAM2(D, double, rocsparse_dcsrgeam)
GEAM2(C, cuComplex, rocsparse_ccsrgeam)
GEAM2(Z, cuDoubleComplex, rocsparse_zcsrgeam)
