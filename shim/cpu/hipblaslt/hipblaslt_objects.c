/* hipBLASLt on the CPU device: handles, matmul descriptors, matrix layouts, preferences
 * and the heuristic (one algorithm: the OpenBLAS path of hipblaslt_matmul.c).
 *
 * Only the objects libcublasLt.so.13 creates are here; the hipBLASLt ABI subset is
 * shim/include/pyshim_hipblaslt_abi.h. Objects carry a magic word so a stale or foreign
 * pointer is refused with INVALID_VALUE rather than read as another object. */
#include <stdlib.h>
#include <string.h>

#include "hipblaslt_cpu.h"

static pyshim_hipblasStatus_t lt_copy_in(void *dst, size_t want, const void *buf, size_t size)
{
    if (!buf || size != want)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    memcpy(dst, buf, want);
    return PS_HIPBLAS_STATUS_SUCCESS;
}

void *lt_object_new(size_t size, uint64_t magic)
{
    uint64_t *o = calloc(1, size);
    if (o)
        *o = magic;
    return o;
}

pyshim_hipblasStatus_t lt_object_free(void *obj, uint64_t magic, pyshim_hipblasStatus_t bad)
{
    uint64_t *o = obj;
    if (!o || *o != magic)
        return bad;
    *o = 0;
    free(o);
    return PS_HIPBLAS_STATUS_SUCCESS;
}

LT_API pyshim_hipblasStatus_t hipblasLtCreate(pyshim_hipblasLtHandle_t *handle)
{
    if (!handle)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    struct lt_handle *h = lt_object_new(sizeof *h, LT_HANDLE_MAGIC);
    if (!h)
        return PS_HIPBLAS_STATUS_ALLOC_FAILED;
    *handle = h;
    return PS_HIPBLAS_STATUS_SUCCESS;
}

LT_API pyshim_hipblasStatus_t hipblasLtDestroy(pyshim_hipblasLtHandle_t handle)
{
    return lt_object_free(handle, LT_HANDLE_MAGIC, PS_HIPBLAS_STATUS_NOT_INITIALIZED);
}

LT_API pyshim_hipblasStatus_t hipblasLtMatmulDescCreate(pyshim_hipblasLtMatmulDesc_t *desc,
                                                        int computeType, int scaleType)
{
    if (!desc)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    struct lt_desc *d = lt_object_new(sizeof *d, LT_DESC_MAGIC);
    if (!d)
        return PS_HIPBLAS_STATUS_ALLOC_FAILED;
    d->compute = computeType;
    d->scale = scaleType;
    d->transa = d->transb = PS_HIPBLAS_OP_N;
    d->epilogue = PS_HIPBLASLT_EPILOGUE_DEFAULT;
    d->bias_type = -1; /* D's type unless set */
    *desc = d;
    return PS_HIPBLAS_STATUS_SUCCESS;
}

LT_API pyshim_hipblasStatus_t hipblasLtMatmulDescDestroy(pyshim_hipblasLtMatmulDesc_t desc)
{
    return lt_object_free(desc, LT_DESC_MAGIC, PS_HIPBLAS_STATUS_INVALID_VALUE);
}

LT_API pyshim_hipblasStatus_t hipblasLtMatmulDescSetAttribute(pyshim_hipblasLtMatmulDesc_t desc,
                                                              int attr, const void *buf,
                                                              size_t size)
{
    struct lt_desc *d = desc;
    if (!d || d->magic != LT_DESC_MAGIC)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    switch (attr) {
    case PS_HIPBLASLT_MATMUL_DESC_TRANSA: return lt_copy_in(&d->transa, 4, buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_TRANSB: return lt_copy_in(&d->transb, 4, buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_EPILOGUE: return lt_copy_in(&d->epilogue, 4, buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_BIAS_POINTER: return lt_copy_in(&d->bias, sizeof(void *), buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: return lt_copy_in(&d->bias_type, 4, buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER:
        return lt_copy_in(&d->aux, sizeof(void *), buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD: return lt_copy_in(&d->aux_ld, 8, buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE:
        return lt_copy_in(&d->aux_stride, 8, buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_POINTER_MODE: return lt_copy_in(&d->pointer_mode, 4, buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_A_SCALE_POINTER:
        return lt_copy_in(&d->scale_a, sizeof(void *), buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_B_SCALE_POINTER:
        return lt_copy_in(&d->scale_b, sizeof(void *), buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_C_SCALE_POINTER:
        return lt_copy_in(&d->scale_c, sizeof(void *), buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_D_SCALE_POINTER:
        return lt_copy_in(&d->scale_d, sizeof(void *), buf, size);
    case PS_HIPBLASLT_MATMUL_DESC_AMAX_D_POINTER:
        return lt_copy_in(&d->amax_d, sizeof(void *), buf, size);
    default: return PS_HIPBLAS_STATUS_INVALID_VALUE;
    }
}

LT_API pyshim_hipblasStatus_t hipblasLtMatrixLayoutCreate(pyshim_hipblasLtMatrixLayout_t *layout,
                                                          int type, uint64_t rows, uint64_t cols,
                                                          int64_t ld)
{
    if (!layout)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    if (!lt_type_size(type) || rows > INT64_MAX || cols > INT64_MAX || ld < 0)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    struct lt_layout *l = lt_object_new(sizeof *l, LT_LAYOUT_MAGIC);
    if (!l)
        return PS_HIPBLAS_STATUS_ALLOC_FAILED;
    l->type = type;
    l->rows = (int64_t)rows;
    l->cols = (int64_t)cols;
    l->ld = ld;
    l->order = PS_HIPBLASLT_ORDER_COL;
    l->batch = 1;
    *layout = l;
    return PS_HIPBLAS_STATUS_SUCCESS;
}

LT_API pyshim_hipblasStatus_t hipblasLtMatrixLayoutDestroy(pyshim_hipblasLtMatrixLayout_t layout)
{
    return lt_object_free(layout, LT_LAYOUT_MAGIC, PS_HIPBLAS_STATUS_INVALID_VALUE);
}

LT_API pyshim_hipblasStatus_t hipblasLtMatrixLayoutSetAttribute(
    pyshim_hipblasLtMatrixLayout_t layout, int attr, const void *buf, size_t size)
{
    struct lt_layout *l = layout;
    if (!l || l->magic != LT_LAYOUT_MAGIC)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    switch (attr) {
    case PS_HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT: return lt_copy_in(&l->batch, 4, buf, size);
    case PS_HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
        return lt_copy_in(&l->stride, 8, buf, size);
    case PS_HIPBLASLT_MATRIX_LAYOUT_TYPE: return lt_copy_in(&l->type, 4, buf, size);
    case PS_HIPBLASLT_MATRIX_LAYOUT_ORDER: return lt_copy_in(&l->order, 4, buf, size);
    case PS_HIPBLASLT_MATRIX_LAYOUT_ROWS: return lt_copy_in(&l->rows, 8, buf, size);
    case PS_HIPBLASLT_MATRIX_LAYOUT_COLS: return lt_copy_in(&l->cols, 8, buf, size);
    case PS_HIPBLASLT_MATRIX_LAYOUT_LD: return lt_copy_in(&l->ld, 8, buf, size);
    default: return PS_HIPBLAS_STATUS_INVALID_VALUE;
    }
}

LT_API pyshim_hipblasStatus_t hipblasLtMatmulPreferenceCreate(
    pyshim_hipblasLtMatmulPreference_t *pref)
{
    if (!pref)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    struct lt_pref *p = lt_object_new(sizeof *p, LT_PREF_MAGIC);
    if (!p)
        return PS_HIPBLAS_STATUS_ALLOC_FAILED;
    *pref = p;
    return PS_HIPBLAS_STATUS_SUCCESS;
}

LT_API pyshim_hipblasStatus_t hipblasLtMatmulPreferenceDestroy(
    pyshim_hipblasLtMatmulPreference_t pref)
{
    return lt_object_free(pref, LT_PREF_MAGIC, PS_HIPBLAS_STATUS_INVALID_VALUE);
}

LT_API pyshim_hipblasStatus_t hipblasLtMatmulPreferenceSetAttribute(
    pyshim_hipblasLtMatmulPreference_t pref, int attr, const void *buf, size_t size)
{
    struct lt_pref *p = pref;
    if (!p || p->magic != LT_PREF_MAGIC)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    switch (attr) {
    case PS_HIPBLASLT_MATMUL_PREF_SEARCH_MODE: {
        uint32_t mode;
        return lt_copy_in(&mode, 4, buf, size);
    }
    case PS_HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES:
        return lt_copy_in(&p->max_workspace, 8, buf, size);
    default: return PS_HIPBLAS_STATUS_INVALID_VALUE;
    }
}

LT_API pyshim_hipblasStatus_t hipblasLtMatmulAlgoGetHeuristic(
    pyshim_hipblasLtHandle_t handle, pyshim_hipblasLtMatmulDesc_t desc,
    pyshim_hipblasLtMatrixLayout_t a, pyshim_hipblasLtMatrixLayout_t b,
    pyshim_hipblasLtMatrixLayout_t c, pyshim_hipblasLtMatrixLayout_t d,
    pyshim_hipblasLtMatmulPreference_t pref, int requested,
    pyshim_hipblasLtMatmulHeuristicResult_t *results, int *returned)
{
    struct lt_handle *h = handle;
    struct lt_pref *p = pref;
    if (!h || h->magic != LT_HANDLE_MAGIC)
        return PS_HIPBLAS_STATUS_NOT_INITIALIZED;
    if (!p || p->magic != LT_PREF_MAGIC || requested < 1 || !results || !returned)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    struct lt_problem pr;
    pyshim_hipblasStatus_t st = lt_problem_check(desc, a, b, c, d, &pr);
    *returned = 0;
    if (st != PS_HIPBLAS_STATUS_SUCCESS)
        return st;
    memset(&results[0], 0, sizeof results[0]);
    memcpy(results[0].algo.data, LT_ALGO_TAG, sizeof LT_ALGO_TAG);
    results[0].algo.max_workspace_bytes = p->max_workspace;
    results[0].workspaceSize = 0; /* temporaries are host memory of the CPU device */
    results[0].state = PS_HIPBLAS_STATUS_SUCCESS;
    results[0].wavesCount = 1.0f;
    *returned = 1;
    return PS_HIPBLAS_STATUS_SUCCESS;
}
