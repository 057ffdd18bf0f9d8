/* cuSPARSE's SpGEMM on rocSPARSE's rocsparse_spgemm. The two split the product differently:
 * cuSPARSE estimates work, computes into its own buffer, lets the caller allocate C and
 * then copies; rocSPARSE counts C's nnz into C's row offsets, then computes into C. So:
 *   workEstimation: buffer = rocSPARSE's scratch + room for C's row offsets; the nnz stage
 *                   runs there, which gives C its nnz (cusparseSpMatGetSize after compute);
 *   compute:        sizes and keeps buffer2 (cuSPARSE requires it to live until copy);
 *   copy:           once the caller's arrays are set on C, the nnz stage (their row
 *                   offsets) and the compute stage run with buffer2 as rocSPARSE's scratch.
 * beta * C is rocSPARSE's beta * D with D = C. */
#include <stdint.h>
#include <stdlib.h>
#include <cusparse.h>

#include "sparse_internal.h"
#include "cusparse_enums.h"
#include "cusparse_rocm.h"

#define STATUS(st) ((cusparseStatus_t)pyshim_cusparseStatus_t_from_rocsparse_status(st))
#define OPER(t) ((int)pyshim_cusparseOperation_t_to_rocsparse_operation(t))

/* rocsparse_spgemm_stage values */
enum { STAGE_BUFFER_SIZE = 1, STAGE_NNZ = 2, STAGE_COMPUTE = 3 };
enum { ALIGN = 256 };

struct cusparseSpGEMMDescr {
    void *buffer2; /* the caller's compute buffer: rocSPARSE's scratch at copy */
    int computed;  /* compute ran with a buffer: copy may follow */
};

struct call {
    cusparseHandle_t handle;
    cusparseOperation_t opA, opB;
    const void *alpha, *beta;
    cusparseConstSpMatDescr_t A, B;
    cusparseSpMatDescr_t C;
    int type;
};

static cusparseStatus_t stage(const struct call *c, int st, size_t *size, void *buffer)
{
    return STATUS(rocsparse_spgemm(c->handle, OPER(c->opA), OPER(c->opB), (void *)c->alpha,
                                   (void *)c->A, (void *)c->B, (void *)c->beta, c->C, c->C,
                                   c->type, 0, st, size, buffer));
}

static size_t align_up(size_t n)
{
    return (n + ALIGN - 1) / ALIGN * ALIGN;
}

static cusparseStatus_t begin(struct call *c, cusparseHandle_t handle, cusparseOperation_t opA,
                              cusparseOperation_t opB, const void *alpha,
                              cusparseConstSpMatDescr_t A, cusparseConstSpMatDescr_t B,
                              const void *beta, cusparseSpMatDescr_t C, cudaDataType type,
                              cusparseSpGEMMDescr_t d)
{
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!d || !A || !B || !C)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *c = (struct call){handle, opA, opB, alpha, beta, A, B, C,
                       pyshim_cusparse_datatype((int)type)};
    if (c->type < 0) {
        pyshim_cusparse_unsupported("cusparseSpGEMM (this compute type)");
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    }
    return CUSPARSE_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpGEMM_createDescr(cusparseSpGEMMDescr_t *descr)
{
    if (!descr)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *descr = calloc(1, sizeof **descr);
    return *descr ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_ALLOC_FAILED;
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpGEMM_destroyDescr(cusparseSpGEMMDescr_t descr)
{
    free(descr);
    return CUSPARSE_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpGEMM_workEstimation(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void *beta,
    cusparseSpMatDescr_t matC, cudaDataType computeType, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t spgemmDescr, size_t *bufferSize1, void *externalBuffer1)
{
    (void)alg;
    struct call c;
    cusparseStatus_t st = begin(&c, handle, opA, opB, alpha, matA, matB, beta, matC,
                                computeType, spgemmDescr);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    if (!bufferSize1)
        return CUSPARSE_STATUS_INVALID_VALUE;
    int64_t rows = 0, cols = 0, nnz = 0;
    size_t scratch = 0;
    if ((st = STATUS(rocsparse_spmat_get_size(matC, &rows, &cols, &nnz))) ||
        (st = stage(&c, STAGE_BUFFER_SIZE, &scratch, NULL)))
        return st;
    size_t offsets = align_up(scratch);
    if (!externalBuffer1) {
        /* row offsets of C at their widest */
        *bufferSize1 = offsets + (size_t)(rows + 1) * sizeof(int64_t);
        return CUSPARSE_STATUS_SUCCESS;
    }
    spgemmDescr->computed = 0;
    void *row_offsets = (char *)externalBuffer1 + offsets;
    if ((st = STATUS(rocsparse_csr_set_pointers(matC, row_offsets, NULL, NULL))))
        return st;
    return stage(&c, STAGE_NNZ, NULL, externalBuffer1);
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpGEMM_compute(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void *beta,
    cusparseSpMatDescr_t matC, cudaDataType computeType, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t spgemmDescr, size_t *bufferSize2, void *externalBuffer2)
{
    (void)alg;
    struct call c;
    cusparseStatus_t st = begin(&c, handle, opA, opB, alpha, matA, matB, beta, matC,
                                computeType, spgemmDescr);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    if (!bufferSize2)
        return CUSPARSE_STATUS_INVALID_VALUE;
    size_t scratch = 0;
    if ((st = stage(&c, STAGE_BUFFER_SIZE, &scratch, NULL)))
        return st;
    if (!externalBuffer2) {
        *bufferSize2 = scratch ? scratch : 1;
        return CUSPARSE_STATUS_SUCCESS;
    }
    spgemmDescr->buffer2 = externalBuffer2;
    spgemmDescr->computed = 1;
    return CUSPARSE_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpGEMM_copy(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void *beta,
    cusparseSpMatDescr_t matC, cudaDataType computeType, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t spgemmDescr)
{
    (void)alg;
    struct call c;
    cusparseStatus_t st = begin(&c, handle, opA, opB, alpha, matA, matB, beta, matC,
                                computeType, spgemmDescr);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    if (!spgemmDescr->computed) /* cuSPARSE's order: workEstimation, compute, then copy */
        return CUSPARSE_STATUS_INVALID_VALUE;
    if ((st = stage(&c, STAGE_NNZ, NULL, spgemmDescr->buffer2)))
        return st;
    return stage(&c, STAGE_COMPUTE, NULL, spgemmDescr->buffer2);
}

/* DenseToSparse: rocSPARSE tells its three calls apart by which of buffer and size pointer
 * it gets; a zero-byte buffer from cuSPARSE's _bufferSize may be NULL, so analysis and
 * conversion always pass a non-NULL one. */
static cusparseStatus_t dense_to_sparse(cusparseHandle_t handle, cusparseConstDnMatDescr_t matA,
                                        cusparseSpMatDescr_t matB, size_t *size, void *buffer)
{
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!matA || !matB)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return STATUS(rocsparse_dense_to_sparse(handle, (void *)matA, matB, 0, size, buffer));
}

static char no_buffer;

PYSHIM_EXPORT cusparseStatus_t cusparseDenseToSparse_bufferSize(
    cusparseHandle_t handle, cusparseConstDnMatDescr_t matA, cusparseSpMatDescr_t matB,
    cusparseDenseToSparseAlg_t alg, size_t *bufferSize)
{
    (void)alg;
    if (!bufferSize)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return dense_to_sparse(handle, matA, matB, bufferSize, NULL);
}

PYSHIM_EXPORT cusparseStatus_t cusparseDenseToSparse_analysis(cusparseHandle_t handle,
                                                              cusparseConstDnMatDescr_t matA,
                                                              cusparseSpMatDescr_t matB,
                                                              cusparseDenseToSparseAlg_t alg,
                                                              void *externalBuffer)
{
    (void)alg;
    return dense_to_sparse(handle, matA, matB, NULL,
                           externalBuffer ? externalBuffer : (void *)&no_buffer);
}

PYSHIM_EXPORT cusparseStatus_t cusparseDenseToSparse_convert(cusparseHandle_t handle,
                                                             cusparseConstDnMatDescr_t matA,
                                                             cusparseSpMatDescr_t matB,
                                                             cusparseDenseToSparseAlg_t alg,
                                                             void *externalBuffer)
{
    (void)alg;
    size_t size = 0;
    return dense_to_sparse(handle, matA, matB, &size,
                           externalBuffer ? externalBuffer : (void *)&no_buffer);
}
