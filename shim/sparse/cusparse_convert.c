/* cuSPARSE's value-type-generic conversions on rocSPARSE's typed ones: csr2cscEx2 picks
 * rocsparse_{s,d,c,z}csr2csc by its cudaDataType (cuSPARSE's single algorithm choice has
 * no rocSPARSE counterpart to pick), and sparse vectors (cusparseGather's x) convert their
 * value type. */
#include <stdint.h>
#include <cusparse.h>

#include "sparse_internal.h"
#include "cusparse_enums.h"
#include "cusparse_rocm.h"

#define STATUS(st) ((cusparseStatus_t)pyshim_cusparseStatus_t_from_rocsparse_status(st))
#define INDEX(t) ((int)pyshim_cusparseIndexType_t_to_rocsparse_indextype(t))
#define BASE(b) ((int)pyshim_cusparseIndexBase_t_to_rocsparse_index_base(b))

/* rocsparse_action: symbolic 0, numeric 1 (cusparseAction_t's values) */
static int action(cusparseAction_t a)
{
    return a == CUSPARSE_ACTION_NUMERIC ? 1 : a == CUSPARSE_ACTION_SYMBOLIC ? 0 : -1;
}

/* the typed siblings of the generated rocsparse_dcsr2csc: the same ABI (values by pointer) */
typedef __typeof__(rocsparse_dcsr2csc) csr2csc_fn;
csr2csc_fn rocsparse_scsr2csc, rocsparse_ccsr2csc, rocsparse_zcsr2csc;

PYSHIM_EXPORT cusparseStatus_t cusparseCsr2cscEx2_bufferSize(
    cusparseHandle_t handle, int m, int n, int nnz, const void *csrVal, const int *csrRowPtr,
    const int *csrColInd, void *cscVal, int *cscColPtr, int *cscRowInd, cudaDataType valType,
    cusparseAction_t copyValues, cusparseIndexBase_t idxBase, cusparseCsr2CscAlg_t alg,
    size_t *bufferSize)
{
    (void)csrVal, (void)cscVal, (void)cscColPtr, (void)cscRowInd, (void)valType, (void)idxBase;
    (void)alg;
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!bufferSize || action(copyValues) < 0)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return STATUS(rocsparse_csr2csc_buffer_size(handle, m, n, nnz, (void *)csrRowPtr,
                                                (void *)csrColInd,
                                                action(copyValues), bufferSize));
}

PYSHIM_EXPORT cusparseStatus_t cusparseCsr2cscEx2(
    cusparseHandle_t handle, int m, int n, int nnz, const void *csrVal, const int *csrRowPtr,
    const int *csrColInd, void *cscVal, int *cscColPtr, int *cscRowInd, cudaDataType valType,
    cusparseAction_t copyValues, cusparseIndexBase_t idxBase, cusparseCsr2CscAlg_t alg,
    void *buffer)
{
    (void)alg;
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (action(copyValues) < 0)
        return CUSPARSE_STATUS_INVALID_VALUE;
    csr2csc_fn *fn;
    switch ((int)valType) {
    case CUDA_R_32F: fn = rocsparse_scsr2csc; break;
    case CUDA_R_64F: fn = rocsparse_dcsr2csc; break;
    case CUDA_C_32F: fn = rocsparse_ccsr2csc; break;
    case CUDA_C_64F: fn = rocsparse_zcsr2csc; break;
    default:
        pyshim_cusparse_unsupported("cusparseCsr2cscEx2 (this value type)");
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    }
    /* rocSPARSE's argument order: row indices before column offsets */
    return STATUS(fn(handle, m, n, nnz, (void *)csrVal, (void *)csrRowPtr, (void *)csrColInd, cscVal,
                     cscRowInd,
                     cscColPtr, action(copyValues), BASE(idxBase), buffer));
}

PYSHIM_EXPORT cusparseStatus_t cusparseCreateSpVec(cusparseSpVecDescr_t *spVecDescr, int64_t size,
                                                   int64_t nnz, void *indices, void *values,
                                                   cusparseIndexType_t idxType,
                                                   cusparseIndexBase_t idxBase,
                                                   cudaDataType valueType)
{
    int dt = pyshim_cusparse_datatype((int)valueType);
    if (dt < 0) {
        pyshim_cusparse_unsupported("cusparseCreateSpVec (this value type)");
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    }
    return STATUS(rocsparse_create_spvec_descr((void *)spVecDescr, size, nnz, indices, values,
                                               INDEX(idxType), BASE(idxBase), dt));
}

PYSHIM_EXPORT cusparseStatus_t cusparseDestroySpVec(cusparseConstSpVecDescr_t spVecDescr)
{
    return spVecDescr ? STATUS(rocsparse_destroy_spvec_descr((void *)spVecDescr))
                      : CUSPARSE_STATUS_SUCCESS;
}
