/* cuSPARSE's gtsvInterleavedBatch and gpsvInterleavedBatch on rocSPARSE's
 * gtsv/gpsv_interleaved_batch: cuSPARSE's systems are interleaved with a stride of
 * batchCount, which rocSPARSE takes as an argument, and its algorithms are numbered 0
 * (Thomas), 1 (LU with pivoting), 2 (QR) for gtsv and 0 (QR) for gpsv, where rocSPARSE's are
 * thomas 1, lu 2, qr 3 and qr 1 (0 is rocSPARSE's default). The other tridiagonal solves
 * (gtsv2, gtsv2_nopivot, gtsv2StridedBatch) take rocSPARSE's arguments: generated thunks. */
#include <cusparse.h>

#include "sparse_internal.h"
#include "cusparse_enums.h"
#include "cusparse_rocm.h"

#define STATUS(st) ((cusparseStatus_t)pyshim_cusparseStatus_t_from_rocsparse_status(st))

/* cuSPARSE's algo as rocsparse_gtsv_interleaved_alg, -1 for none */
static int interleaved_alg(int algo)
{
    return algo >= 0 && algo <= 2 ? algo + 1 : -1;
}

#define INTERLEAVED(P, VT, R)                                                                \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##gtsvInterleavedBatch_bufferSizeExt(          \
        cusparseHandle_t handle, int algo, int m, const VT *dl, const VT *d, const VT *du,   \
        const VT *x, int batchCount, size_t *pBufferSizeInBytes)                             \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        int alg = interleaved_alg(algo);                                                     \
        if (alg < 0)                                                                         \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##gtsv_interleaved_batch_buffer_size(                                 \
            handle, alg, m, (void *)dl, (void *)d, (void *)du, (void *)x, batchCount,        \
            batchCount, pBufferSizeInBytes));                                                \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##gtsvInterleavedBatch(                        \
        cusparseHandle_t handle, int algo, int m, VT *dl, VT *d, VT *du, VT *x,              \
        int batchCount, void *pBuffer)                                                       \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        int alg = interleaved_alg(algo);                                                     \
        if (alg < 0)                                                                         \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##gtsv_interleaved_batch(handle, alg, m, dl, d, du, x, batchCount,    \
                                                batchCount, pBuffer));                       \
    }
INTERLEAVED(S, float, rocsparse_s)
INTERLEAVED(D, double, rocsparse_d)
INTERLEAVED(C, cuComplex, rocsparse_c)
INTERLEAVED(Z, cuDoubleComplex, rocsparse_z)

enum { GPSV_QR = 1 };

#define GPSV(P, VT, R)                                                                       \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##gpsvInterleavedBatch_bufferSizeExt(          \
        cusparseHandle_t handle, int algo, int m, const VT *ds, const VT *dl, const VT *d,   \
        const VT *du, const VT *dw, const VT *x, int batchCount, size_t *pBufferSizeInBytes) \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        if (algo != 0)                                                                       \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##gpsv_interleaved_batch_buffer_size(                                 \
            handle, GPSV_QR, m, (void *)ds, (void *)dl, (void *)d, (void *)du, (void *)dw,   \
            (void *)x, batchCount, batchCount, pBufferSizeInBytes));                         \
    }                                                                                        \
    PYSHIM_EXPORT cusparseStatus_t cusparse##P##gpsvInterleavedBatch(                        \
        cusparseHandle_t handle, int algo, int m, VT *ds, VT *dl, VT *d, VT *du, VT *dw,     \
        VT *x, int batchCount, void *pBuffer)                                                \
    {                                                                                        \
        if (!handle)                                                                         \
            return CUSPARSE_STATUS_NOT_INITIALIZED;                                          \
        if (algo != 0)                                                                       \
            return CUSPARSE_STATUS_INVALID_VALUE;                                            \
        return STATUS(R##gpsv_interleaved_batch(handle, GPSV_QR, m, ds, dl, d, du, dw, x,    \
                                                batchCount, batchCount, pBuffer));           \
    }
GPSV(S, float, rocsparse_s)
GPSV(D, double, rocsparse_d)
GPSV(C, cuComplex, rocsparse_c)
GPSV(Z, cuDoubleComplex, rocsparse_z)
