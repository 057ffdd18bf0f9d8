/* cuSPARSE's generic API on rocSPARSE's: sparse-matrix (CSR, CSC, COO), dense-vector and
 * dense-matrix descriptors, SpMV and SpMM. The descriptors are rocSPARSE's objects, handed
 * out as cuSPARSE's opaque pointers; what differs is converted on the way:
 * cudaDataType -> rocsparse_datatype (other names and values), index types and bases
 * (equal values), dense orders and operations (other values); SpMV/SpMM's buffer-size,
 * preprocess and compute calls are rocSPARSE's stages of one routine. cuSPARSE's algorithm
 * choices all become rocSPARSE's default for the format. */
#include <stdint.h>
#include <cusparse.h>

#include "sparse_internal.h"
#include "cusparse_enums.h"
#include "cusparse_rocm.h"

#define STATUS(st) ((cusparseStatus_t)pyshim_cusparseStatus_t_from_rocsparse_status(st))
#define OPER(t) ((int)pyshim_cusparseOperation_t_to_rocsparse_operation(t))
#define INDEX(t) ((int)pyshim_cusparseIndexType_t_to_rocsparse_indextype(t))
#define BASE(b) ((int)pyshim_cusparseIndexBase_t_to_rocsparse_index_base(b))
#define ORDER(o) ((int)pyshim_cusparseOrder_t_to_rocsparse_order(o))

/* rocsparse_datatype values (rocsparse-types.h); -1: no rocSPARSE twin */
int pyshim_cusparse_datatype(int t)
{
    switch ((int)t) {
    case CUDA_R_16F: return 150;
    case CUDA_R_32F: return 151;
    case CUDA_R_64F: return 152;
    case CUDA_C_32F: return 154;
    case CUDA_C_64F: return 155;
    case CUDA_R_8I: return 160;
    case CUDA_R_8U: return 161;
    case CUDA_R_32I: return 162;
    case CUDA_R_32U: return 163;
    case CUDA_R_16BF: return 168;
    default: return -1;
    }
}

/* a cuSPARSE type rocSPARSE has no value for: refused here, named in the log */
static cusparseStatus_t no_type(const char *what)
{
    pyshim_cusparse_unsupported(what);
    return CUSPARSE_STATUS_NOT_SUPPORTED;
}

/* rocsparse_spmv_stage / rocsparse_spmm_stage values */
enum { STAGE_BUFFER_SIZE = 1, STAGE_PREPROCESS = 2, STAGE_COMPUTE = 3 };

PYSHIM_EXPORT cusparseStatus_t cusparseCreateCsr(
    cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
    void *csrRowOffsets, void *csrColInd, void *csrValues,
    cusparseIndexType_t csrRowOffsetsType, cusparseIndexType_t csrColIndType,
    cusparseIndexBase_t idxBase, cudaDataType valueType)
{
    int dt = pyshim_cusparse_datatype(valueType);
    if (dt < 0)
        return no_type("cusparseCreateCsr (this value type)");
    return STATUS(rocsparse_create_csr_descr(spMatDescr, rows, cols, nnz, csrRowOffsets,
                                             csrColInd, csrValues, INDEX(csrRowOffsetsType),
                                             INDEX(csrColIndType), BASE(idxBase), dt));
}

PYSHIM_EXPORT cusparseStatus_t cusparseCreateCsc(
    cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
    void *cscColOffsets, void *cscRowInd, void *cscValues,
    cusparseIndexType_t cscColOffsetsType, cusparseIndexType_t cscRowIndType,
    cusparseIndexBase_t idxBase, cudaDataType valueType)
{
    int dt = pyshim_cusparse_datatype(valueType);
    if (dt < 0)
        return no_type("cusparseCreateCsc (this value type)");
    return STATUS(rocsparse_create_csc_descr(spMatDescr, rows, cols, nnz, cscColOffsets,
                                             cscRowInd, cscValues, INDEX(cscColOffsetsType),
                                             INDEX(cscRowIndType), BASE(idxBase), dt));
}

PYSHIM_EXPORT cusparseStatus_t cusparseCreateCoo(cusparseSpMatDescr_t *spMatDescr, int64_t rows,
                                                 int64_t cols, int64_t nnz, void *cooRowInd,
                                                 void *cooColInd, void *cooValues,
                                                 cusparseIndexType_t cooIdxType,
                                                 cusparseIndexBase_t idxBase,
                                                 cudaDataType valueType)
{
    int dt = pyshim_cusparse_datatype(valueType);
    if (dt < 0)
        return no_type("cusparseCreateCoo (this value type)");
    return STATUS(rocsparse_create_coo_descr(spMatDescr, rows, cols, nnz, cooRowInd, cooColInd,
                                             cooValues, INDEX(cooIdxType), BASE(idxBase), dt));
}

PYSHIM_EXPORT cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t spMatDescr)
{
    /* cuSPARSE: destroying NULL is a no-op */
    return spMatDescr ? STATUS(rocsparse_destroy_spmat_descr((void *)spMatDescr))
                      : CUSPARSE_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *dnVecDescr, int64_t size,
                                                   void *values, cudaDataType valueType)
{
    int dt = pyshim_cusparse_datatype(valueType);
    if (dt < 0)
        return no_type("cusparseCreateDnVec (this value type)");
    return STATUS(rocsparse_create_dnvec_descr(dnVecDescr, size, values, dt));
}

PYSHIM_EXPORT cusparseStatus_t cusparseDestroyDnVec(cusparseConstDnVecDescr_t dnVecDescr)
{
    return dnVecDescr ? STATUS(rocsparse_destroy_dnvec_descr((void *)dnVecDescr))
                      : CUSPARSE_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *dnMatDescr, int64_t rows,
                                                   int64_t cols, int64_t ld, void *values,
                                                   cudaDataType valueType,
                                                   cusparseOrder_t order)
{
    int dt = pyshim_cusparse_datatype(valueType);
    if (dt < 0)
        return no_type("cusparseCreateDnMat (this value type)");
    return STATUS(rocsparse_create_dnmat_descr(dnMatDescr, rows, cols, ld, values, dt,
                                               ORDER(order)));
}

PYSHIM_EXPORT cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t dnMatDescr)
{
    return dnMatDescr ? STATUS(rocsparse_destroy_dnmat_descr((void *)dnMatDescr))
                      : CUSPARSE_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusparseStatus_t cusparseDnVecGetValues(cusparseDnVecDescr_t dnVecDescr,
                                                      void **values)
{
    return STATUS(rocsparse_dnvec_get_values(dnVecDescr, values));
}

PYSHIM_EXPORT cusparseStatus_t cusparseDnVecSetValues(cusparseDnVecDescr_t dnVecDescr,
                                                      void *values)
{
    return STATUS(rocsparse_dnvec_set_values(dnVecDescr, values));
}

PYSHIM_EXPORT cusparseStatus_t cusparseDnMatGetValues(cusparseDnMatDescr_t dnMatDescr,
                                                      void **values)
{
    return STATUS(rocsparse_dnmat_get_values(dnMatDescr, values));
}

PYSHIM_EXPORT cusparseStatus_t cusparseDnMatSetValues(cusparseDnMatDescr_t dnMatDescr,
                                                      void *values)
{
    return STATUS(rocsparse_dnmat_set_values(dnMatDescr, values));
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpMatGetSize(cusparseConstSpMatDescr_t spMatDescr,
                                                    int64_t *rows, int64_t *cols, int64_t *nnz)
{
    return STATUS(rocsparse_spmat_get_size((void *)spMatDescr, rows, cols, nnz));
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpMatGetFormat(cusparseConstSpMatDescr_t spMatDescr,
                                                      cusparseFormat_t *format)
{
    if (!format)
        return CUSPARSE_STATUS_INVALID_VALUE;
    int f = -1;
    cusparseStatus_t st = STATUS(rocsparse_spmat_get_format((void *)spMatDescr, &f));
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    /* rocsparse_format: coo 0, coo_aos 1, csr 2, csc 3, ell 4, bell 5, bsr 6, sell 7 */
    switch (f) {
    case 0: *format = CUSPARSE_FORMAT_COO; break;
    case 2: *format = CUSPARSE_FORMAT_CSR; break;
    case 3: *format = CUSPARSE_FORMAT_CSC; break;
    case 5: *format = CUSPARSE_FORMAT_BLOCKED_ELL; break;
    case 6: *format = CUSPARSE_FORMAT_BSR; break;
    case 7: *format = CUSPARSE_FORMAT_SLICED_ELLPACK; break;
    default: return CUSPARSE_STATUS_INTERNAL_ERROR;
    }
    return CUSPARSE_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpMatGetValues(cusparseSpMatDescr_t spMatDescr,
                                                      void **values)
{
    return STATUS(rocsparse_spmat_get_values(spMatDescr, values));
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpMatSetValues(cusparseSpMatDescr_t spMatDescr,
                                                      void *values)
{
    return STATUS(rocsparse_spmat_set_values(spMatDescr, values));
}

static cusparseStatus_t spmv(cusparseHandle_t handle, cusparseOperation_t opA,
                             const void *alpha, cusparseConstSpMatDescr_t matA,
                             cusparseConstDnVecDescr_t vecX, const void *beta,
                             cusparseDnVecDescr_t vecY, cudaDataType computeType, int stage,
                             size_t *bufferSize, void *buffer)
{
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    int dt = pyshim_cusparse_datatype(computeType);
    if (dt < 0)
        return no_type("cusparseSpMV (this compute type)");
    size_t size = 0;
    cusparseStatus_t st = STATUS(rocsparse_spmv(handle, OPER(opA), (void *)alpha, (void *)matA,
                                                (void *)vecX, (void *)beta, vecY, dt, 0, stage,
                                                stage == STAGE_BUFFER_SIZE ? &size : NULL,
                                                buffer));
    if (st == CUSPARSE_STATUS_SUCCESS && stage == STAGE_BUFFER_SIZE)
        *bufferSize = size;
    return st;
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpMV_bufferSize(
    cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX, const void *beta,
    cusparseDnVecDescr_t vecY, cudaDataType computeType, cusparseSpMVAlg_t alg,
    size_t *bufferSize)
{
    (void)alg;
    if (!bufferSize)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return spmv(handle, opA, alpha, matA, vecX, beta, vecY, computeType, STAGE_BUFFER_SIZE,
                bufferSize, NULL);
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpMV(cusparseHandle_t handle, cusparseOperation_t opA,
                                            const void *alpha, cusparseConstSpMatDescr_t matA,
                                            cusparseConstDnVecDescr_t vecX, const void *beta,
                                            cusparseDnVecDescr_t vecY,
                                            cudaDataType computeType, cusparseSpMVAlg_t alg,
                                            void *externalBuffer)
{
    (void)alg;
    /* rocSPARSE analyses in a preprocess stage that cuSPARSE's SpMV implies */
    cusparseStatus_t st = spmv(handle, opA, alpha, matA, vecX, beta, vecY, computeType,
                               STAGE_PREPROCESS, NULL, externalBuffer);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    return spmv(handle, opA, alpha, matA, vecX, beta, vecY, computeType, STAGE_COMPUTE, NULL,
                externalBuffer);
}

static cusparseStatus_t spmm(cusparseHandle_t handle, cusparseOperation_t opA,
                             cusparseOperation_t opB, const void *alpha,
                             cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                             const void *beta, cusparseDnMatDescr_t matC,
                             cudaDataType computeType, int stage, size_t *bufferSize,
                             void *buffer)
{
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    int dt = pyshim_cusparse_datatype(computeType);
    if (dt < 0)
        return no_type("cusparseSpMM (this compute type)");
    size_t size = 0;
    cusparseStatus_t st = STATUS(rocsparse_spmm(handle, OPER(opA), OPER(opB), (void *)alpha,
                                                (void *)matA, (void *)matB, (void *)beta, matC, dt, 0,
                                                stage, stage == STAGE_BUFFER_SIZE ? &size : NULL,
                                                buffer));
    if (st == CUSPARSE_STATUS_SUCCESS && stage == STAGE_BUFFER_SIZE)
        *bufferSize = size;
    return st;
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpMM_bufferSize(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB, const void *beta,
    cusparseDnMatDescr_t matC, cudaDataType computeType, cusparseSpMMAlg_t alg,
    size_t *bufferSize)
{
    (void)alg;
    if (!bufferSize)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return spmm(handle, opA, opB, alpha, matA, matB, beta, matC, computeType,
                STAGE_BUFFER_SIZE, bufferSize, NULL);
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpMM_preprocess(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB, const void *beta,
    cusparseDnMatDescr_t matC, cudaDataType computeType, cusparseSpMMAlg_t alg,
    void *externalBuffer)
{
    (void)alg;
    return spmm(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, STAGE_PREPROCESS,
                NULL, externalBuffer);
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpMM(cusparseHandle_t handle, cusparseOperation_t opA,
                                            cusparseOperation_t opB, const void *alpha,
                                            cusparseConstSpMatDescr_t matA,
                                            cusparseConstDnMatDescr_t matB, const void *beta,
                                            cusparseDnMatDescr_t matC, cudaDataType computeType,
                                            cusparseSpMMAlg_t alg, void *externalBuffer)
{
    (void)alg;
    cusparseStatus_t st = spmm(handle, opA, opB, alpha, matA, matB, beta, matC, computeType,
                               STAGE_PREPROCESS, NULL, externalBuffer);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    return spmm(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, STAGE_COMPUTE,
                NULL, externalBuffer);
}

/* rocSPARSE's sparse_to_dense sizes its buffer when given none: cuSPARSE's _bufferSize.
 * A zero-byte answer still leaves the caller a buffer pointer to pass (possibly NULL): the
 * conversion itself always passes a non-NULL one so that rocSPARSE converts. */
PYSHIM_EXPORT cusparseStatus_t cusparseSparseToDense_bufferSize(cusparseHandle_t handle,
                                                                cusparseConstSpMatDescr_t matA,
                                                                cusparseDnMatDescr_t matB,
                                                                cusparseSparseToDenseAlg_t alg,
                                                                size_t *bufferSize)
{
    (void)alg;
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!bufferSize)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return STATUS(rocsparse_sparse_to_dense(handle, (void *)matA, matB, 0, bufferSize, NULL));
}

PYSHIM_EXPORT cusparseStatus_t cusparseSparseToDense(cusparseHandle_t handle,
                                                     cusparseConstSpMatDescr_t matA,
                                                     cusparseDnMatDescr_t matB,
                                                     cusparseSparseToDenseAlg_t alg,
                                                     void *externalBuffer)
{
    (void)alg;
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    static char none; /* rocSPARSE reads a NULL buffer as a size query */
    size_t size = 0;
    return STATUS(rocsparse_sparse_to_dense(handle, (void *)matA, matB, 0, &size,
                                            externalBuffer ? externalBuffer : (void *)&none));
}
