/* cuSPARSE's nnz_compress / csr2csr_compress (drop entries of magnitude <= tol, as
 * eliminate_zeros does) on rocSPARSE's. csr2csr_compress orders its arrays differently:
 * cuSPARSE (values, column indices, row offsets), rocSPARSE (values, row offsets, column
 * indices), for A and for C. The complex variants take the tolerance by value; cuComplex
 * and rocsparse_float_complex are both a struct of two floats (two doubles for the double
 * variants), passed alike, so the ROCm functions are declared here with CUDA's types. */
#include <cusparse.h>

#include "sparse_internal.h"
#include "cusparse_enums.h"

#define STATUS(st) ((cusparseStatus_t)pyshim_cusparseStatus_t_from_rocsparse_status(st))

int rocsparse_scsr2csr_compress(void *, int, int, void *, const void *, const int *,
                                const int *, int, const int *, void *, int *, int *, float);
int rocsparse_dcsr2csr_compress(void *, int, int, void *, const void *, const int *,
                                const int *, int, const int *, void *, int *, int *, double);
int rocsparse_ccsr2csr_compress(void *, int, int, void *, const void *, const int *,
                                const int *, int, const int *, void *, int *, int *, cuComplex);
int rocsparse_zcsr2csr_compress(void *, int, int, void *, const void *, const int *,
                                const int *, int, const int *, void *, int *, int *,
                                cuDoubleComplex);
int rocsparse_cnnz_compress(void *, int, void *, const void *, const int *, int *, int *,
                            cuComplex);
int rocsparse_znnz_compress(void *, int, void *, const void *, const int *, int *, int *,
                            cuDoubleComplex);

#define COMPRESS(P, ROC, VT)                                                                 \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##csr2csr_compress(                            \
        cusparseHandle_t handle, int m, int n, const cusparseMatDescr_t descrA,              \
        const VT *csrSortedValA, const int *csrSortedColIndA, const int *csrSortedRowPtrA,   \
        int nnzA, const int *nnzPerRow, VT *csrSortedValC, int *csrSortedColIndC,            \
        int *csrSortedRowPtrC, VT tol)                                                       \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        return STATUS(ROC(handle, m, n, descrA, csrSortedValA, csrSortedRowPtrA,             \
                          csrSortedColIndA, nnzA, nnzPerRow, csrSortedValC,                  \
                          csrSortedRowPtrC, csrSortedColIndC, tol));                         \
    }
COMPRESS(S, rocsparse_scsr2csr_compress, float)
COMPRESS(D, rocsparse_dcsr2csr_compress, double)
COMPRESS(C, rocsparse_ccsr2csr_compress, cuComplex)
COMPRESS(Z, rocsparse_zcsr2csr_compress, cuDoubleComplex)

#define NNZ(P, ROC, VT)                                                                      \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##nnz_compress(                                \
        cusparseHandle_t handle, int m, const cusparseMatDescr_t descr,                      \
        const VT *csrSortedValA, const int *csrSortedRowPtrA, int *nnzPerRow, int *nnzC,     \
        VT tol)                                                                              \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        return STATUS(ROC(handle, m, descr, csrSortedValA, csrSortedRowPtrA, nnzPerRow,      \
                          nnzC, tol));                                                       \
    }
NNZ(C, rocsparse_cnnz_compress, cuComplex)
NNZ(Z, rocsparse_znnz_compress, cuDoubleComplex)
