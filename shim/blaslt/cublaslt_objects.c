/* cuBLASLt's objects: handles, matmul descriptors, matrix layouts, preferences, and the
 * library's version and status queries.
 *
 * The objects hold cuBLASLt's own attribute values (sizes as cublasLt.h documents them),
 * so a Get returns exactly what was Set; they are translated to hipBLASLt only when a
 * heuristic or a matmul runs (cublaslt_matmul.c). Every object is in a handle set, so a
 * forged or destroyed one is an error code, never a read through it. */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/unsupported.h"
#include "cublaslt_internal.h"

pyshim_handle_set lt_handles = PYSHIM_HANDLE_SET_INIT, lt_descs = PYSHIM_HANDLE_SET_INIT,
                  lt_layouts = PYSHIM_HANDLE_SET_INIT, lt_prefs = PYSHIM_HANDLE_SET_INIT,
                  lt_transforms = PYSHIM_HANDLE_SET_INIT;

#define PTR ((unsigned char)sizeof(void *))
/* byte size of each attribute; 0: no such attribute */
static const unsigned char DESC_SIZE[LT_DESC_ATTRS] = {
    [CUBLASLT_MATMUL_DESC_COMPUTE_TYPE] = 4, [CUBLASLT_MATMUL_DESC_SCALE_TYPE] = 4,
    [CUBLASLT_MATMUL_DESC_POINTER_MODE] = 4, [CUBLASLT_MATMUL_DESC_TRANSA] = 4,
    [CUBLASLT_MATMUL_DESC_TRANSB] = 4, [CUBLASLT_MATMUL_DESC_TRANSC] = 4,
    [CUBLASLT_MATMUL_DESC_FILL_MODE] = 4, [CUBLASLT_MATMUL_DESC_EPILOGUE] = 4,
    [CUBLASLT_MATMUL_DESC_BIAS_POINTER] = PTR, [CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE] = 8,
    [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER] = PTR,
    [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD] = 8,
    [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE] = 8,
    [CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE] = 8,
    [CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET] = 4,
    [CUBLASLT_MATMUL_DESC_A_SCALE_POINTER] = PTR, [CUBLASLT_MATMUL_DESC_B_SCALE_POINTER] = PTR,
    [CUBLASLT_MATMUL_DESC_C_SCALE_POINTER] = PTR, [CUBLASLT_MATMUL_DESC_D_SCALE_POINTER] = PTR,
    [CUBLASLT_MATMUL_DESC_AMAX_D_POINTER] = PTR,
    [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE] = 4,
    [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER] = PTR,
    [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER] = PTR,
    [CUBLASLT_MATMUL_DESC_FAST_ACCUM] = 1, [CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE] = 4,
    [CUBLASLT_MATMUL_DESC_A_SCALE_MODE] = 4, [CUBLASLT_MATMUL_DESC_B_SCALE_MODE] = 4,
    [CUBLASLT_MATMUL_DESC_C_SCALE_MODE] = 4, [CUBLASLT_MATMUL_DESC_D_SCALE_MODE] = 4,
    [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE] = 4,
    [CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER] = PTR,
    [CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE] = 4,
};
static const unsigned char LAYOUT_SIZE[LT_LAYOUT_ATTRS] = {
    [CUBLASLT_MATRIX_LAYOUT_TYPE] = 4, [CUBLASLT_MATRIX_LAYOUT_ORDER] = 4,
    [CUBLASLT_MATRIX_LAYOUT_ROWS] = 8, [CUBLASLT_MATRIX_LAYOUT_COLS] = 8,
    [CUBLASLT_MATRIX_LAYOUT_LD] = 8, [CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT] = 4,
    [CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET] = 8,
    [CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET] = 8, [CUBLASLT_MATRIX_LAYOUT_BATCH_MODE] = 4,
};
static const unsigned char PREF_SIZE[LT_PREF_ATTRS] = {
    [CUBLASLT_MATMUL_PREF_SEARCH_MODE] = 4, [CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES] = 8,
    [CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK] = 4,
    [CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES] = 4,
    [CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES] = 4,
    [CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES] = 4,
    [CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES] = 4,
    [CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT] = 4, [CUBLASLT_MATMUL_PREF_IMPL_MASK] = 8,
};

static const unsigned char TRANSFORM_SIZE[LT_TRANSFORM_ATTRS] = {
    [CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE] = 4,
    [CUBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE] = 4,
    [CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA] = 4, [CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB] = 4,
};

static void lt_put(struct lt_attrs *a, int attr, int64_t v, unsigned size)
{
    a->value[attr] = 0;
    memcpy(&a->value[attr], &v, size); /* little-endian: the low bytes */
}

static cublasStatus_t lt_set(struct lt_attrs *a, const unsigned char *sizes, int n, int attr,
                             const void *buf, size_t size)
{
    if (attr < 0 || attr >= n || !sizes[attr] || !buf || size != sizes[attr])
        return CUBLAS_STATUS_INVALID_VALUE;
    a->value[attr] = 0;
    memcpy(&a->value[attr], buf, size);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t lt_get(const struct lt_attrs *a, const unsigned char *sizes, int n,
                             int attr, void *buf, size_t size, size_t *written)
{
    if (attr < 0 || attr >= n || !sizes[attr])
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size == 0 && written) { /* the size query */
        *written = sizes[attr];
        return CUBLAS_STATUS_SUCCESS;
    }
    if (!buf || size < sizes[attr])
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, &a->value[attr], sizes[attr]);
    if (written)
        *written = sizes[attr];
    return CUBLAS_STATUS_SUCCESS;
}

static void *lt_new(pyshim_handle_set *set, size_t size)
{
    void *p = calloc(1, size);
    if (p && !pyshim_handles_add(set, p)) {
        free(p);
        return NULL;
    }
    return p;
}

static cublasStatus_t lt_free(pyshim_handle_set *set, void *p)
{
    if (!pyshim_handles_remove(set, p))
        return CUBLAS_STATUS_INVALID_VALUE;
    free(p);
    return CUBLAS_STATUS_SUCCESS;
}

LT_EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    const struct lt_backend *be = lt_backend();
    if (!be)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct lt_handle_obj *h = lt_new(&lt_handles, sizeof *h);
    if (!h)
        return CUBLAS_STATUS_ALLOC_FAILED;
    pyshim_hipblasStatus_t st = be->hipblasLtCreate(&h->hip);
    if (st != PS_HIPBLAS_STATUS_SUCCESS) {
        lt_free(&lt_handles, h);
        return lt_status(st);
    }
    *handle = (cublasLtHandle_t)h;
    return CUBLAS_STATUS_SUCCESS;
}

LT_EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle)
{
    struct lt_handle_obj *h = (struct lt_handle_obj *)handle;
    if (!pyshim_handles_contains(&lt_handles, h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    const struct lt_backend *be = lt_backend();
    pyshim_hipblasStatus_t st = be->hipblasLtDestroy(h->hip);
    lt_free(&lt_handles, h);
    return lt_status(st);
}

LT_EXPORT size_t cublasLtGetVersion(void)
{
    return CUBLAS_VERSION; /* cuBLASLt ships with, and is versioned as, cuBLAS */
}

LT_EXPORT size_t cublasLtGetCudartVersion(void)
{
    return CUDART_VERSION;
}

LT_EXPORT cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    default: return CUBLAS_STATUS_INVALID_VALUE;
    }
}

#define LT_STATUS_NAMES(X)                                                                    \
    X(CUBLAS_STATUS_SUCCESS, "success")                                                       \
    X(CUBLAS_STATUS_NOT_INITIALIZED, "the library was not initialized")                       \
    X(CUBLAS_STATUS_ALLOC_FAILED, "the resource allocation failed")                           \
    X(CUBLAS_STATUS_INVALID_VALUE, "an invalid numeric value was used as an argument")        \
    X(CUBLAS_STATUS_ARCH_MISMATCH, "an absent device architectural feature is required")      \
    X(CUBLAS_STATUS_MAPPING_ERROR, "an access to GPU memory space failed")                    \
    X(CUBLAS_STATUS_EXECUTION_FAILED, "the GPU program failed to execute")                    \
    X(CUBLAS_STATUS_INTERNAL_ERROR, "an internal operation failed")                           \
    X(CUBLAS_STATUS_NOT_SUPPORTED, "the functionality requested is not supported")            \
    X(CUBLAS_STATUS_LICENSE_ERROR, "an error was detected when checking the current licensing")

LT_EXPORT const char *cublasLtGetStatusName(cublasStatus_t status)
{
    switch (status) {
#define LT_NAME(s, text) case s: return #s;
        LT_STATUS_NAMES(LT_NAME)
#undef LT_NAME
    default: return "CUBLAS_STATUS_UNKNOWN";
    }
}

LT_EXPORT const char *cublasLtGetStatusString(cublasStatus_t status)
{
    switch (status) {
#define LT_TEXT(s, text) case s: return text;
        LT_STATUS_NAMES(LT_TEXT)
#undef LT_TEXT
    default: return "unknown error";
    }
}

/* ---- matmul descriptors ---- */

LT_EXPORT cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc,
                                                  cublasComputeType_t computeType,
                                                  cudaDataType_t scaleType)
{
    if (!desc)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct lt_desc_obj *d = lt_new(&lt_descs, sizeof *d);
    if (!d)
        return CUBLAS_STATUS_ALLOC_FAILED;
    lt_put(&d->a, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, computeType, 4);
    lt_put(&d->a, CUBLASLT_MATMUL_DESC_SCALE_TYPE, scaleType, 4);
    lt_put(&d->a, CUBLASLT_MATMUL_DESC_POINTER_MODE, CUBLASLT_POINTER_MODE_HOST, 4);
    lt_put(&d->a, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_N, 4);
    lt_put(&d->a, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N, 4);
    lt_put(&d->a, CUBLASLT_MATMUL_DESC_TRANSC, CUBLAS_OP_N, 4);
    lt_put(&d->a, CUBLASLT_MATMUL_DESC_FILL_MODE, CUBLAS_FILL_MODE_FULL, 4);
    lt_put(&d->a, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_DEFAULT, 4);
    lt_put(&d->a, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, -1, 4);
    lt_put(&d->a, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, -1, 4);
    *desc = (cublasLtMatmulDesc_t)d;
    return CUBLAS_STATUS_SUCCESS;
}

LT_EXPORT cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc)
{
    return lt_free(&lt_descs, desc);
}

LT_EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                                        cublasLtMatmulDescAttributes_t attr,
                                                        const void *buf, size_t size)
{
    if (!pyshim_handles_contains(&lt_descs, desc))
        return CUBLAS_STATUS_INVALID_VALUE;
    return lt_set(&((struct lt_desc_obj *)desc)->a, DESC_SIZE, LT_DESC_ATTRS, (int)attr, buf,
                  size);
}

LT_EXPORT cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t desc,
                                                        cublasLtMatmulDescAttributes_t attr,
                                                        void *buf, size_t size,
                                                        size_t *sizeWritten)
{
    if (!pyshim_handles_contains(&lt_descs, desc))
        return CUBLAS_STATUS_INVALID_VALUE;
    return lt_get(&((struct lt_desc_obj *)desc)->a, DESC_SIZE, LT_DESC_ATTRS, (int)attr, buf,
                  size, sizeWritten);
}

/* ---- matrix layouts ---- */

LT_EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout,
                                                    cudaDataType type, uint64_t rows,
                                                    uint64_t cols, int64_t ld)
{
    if (!layout || rows > INT64_MAX || cols > INT64_MAX)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct lt_layout_obj *l = lt_new(&lt_layouts, sizeof *l);
    if (!l)
        return CUBLAS_STATUS_ALLOC_FAILED;
    lt_put(&l->a, CUBLASLT_MATRIX_LAYOUT_TYPE, type, 4);
    lt_put(&l->a, CUBLASLT_MATRIX_LAYOUT_ORDER, CUBLASLT_ORDER_COL, 4);
    lt_put(&l->a, CUBLASLT_MATRIX_LAYOUT_ROWS, (int64_t)rows, 8);
    lt_put(&l->a, CUBLASLT_MATRIX_LAYOUT_COLS, (int64_t)cols, 8);
    lt_put(&l->a, CUBLASLT_MATRIX_LAYOUT_LD, ld, 8);
    lt_put(&l->a, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 1, 4);
    *layout = (cublasLtMatrixLayout_t)l;
    return CUBLAS_STATUS_SUCCESS;
}

LT_EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout)
{
    return lt_free(&lt_layouts, layout);
}

LT_EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                                          cublasLtMatrixLayoutAttribute_t attr,
                                                          const void *buf, size_t size)
{
    if (!pyshim_handles_contains(&lt_layouts, layout))
        return CUBLAS_STATUS_INVALID_VALUE;
    return lt_set(&((struct lt_layout_obj *)layout)->a, LAYOUT_SIZE, LT_LAYOUT_ATTRS,
                  (int)attr, buf, size);
}

LT_EXPORT cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t layout,
                                                          cublasLtMatrixLayoutAttribute_t attr,
                                                          void *buf, size_t size,
                                                          size_t *sizeWritten)
{
    if (!pyshim_handles_contains(&lt_layouts, layout))
        return CUBLAS_STATUS_INVALID_VALUE;
    return lt_get(&((struct lt_layout_obj *)layout)->a, LAYOUT_SIZE, LT_LAYOUT_ATTRS,
                  (int)attr, buf, size, sizeWritten);
}

/* ---- preferences ---- */

LT_EXPORT cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
    if (!pref)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct lt_pref_obj *p = lt_new(&lt_prefs, sizeof *p);
    if (!p)
        return CUBLAS_STATUS_ALLOC_FAILED;
    *pref = (cublasLtMatmulPreference_t)p;
    return CUBLAS_STATUS_SUCCESS;
}

LT_EXPORT cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
    return lt_free(&lt_prefs, pref);
}

LT_EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, const void *buf,
    size_t size)
{
    if (!pyshim_handles_contains(&lt_prefs, pref))
        return CUBLAS_STATUS_INVALID_VALUE;
    return lt_set(&((struct lt_pref_obj *)pref)->a, PREF_SIZE, LT_PREF_ATTRS, (int)attr, buf,
                  size);
}

LT_EXPORT cublasStatus_t cublasLtMatmulPreferenceGetAttribute(
    cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, void *buf,
    size_t size, size_t *sizeWritten)
{
    if (!pyshim_handles_contains(&lt_prefs, pref))
        return CUBLAS_STATUS_INVALID_VALUE;
    return lt_get(&((struct lt_pref_obj *)pref)->a, PREF_SIZE, LT_PREF_ATTRS, (int)attr, buf,
                  size, sizeWritten);
}

/* ---- matrix transform descriptors ---- */

LT_EXPORT cublasStatus_t cublasLtMatrixTransformDescCreate(cublasLtMatrixTransformDesc_t *desc,
                                                           cudaDataType scaleType)
{
    if (!desc)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct lt_transform_obj *t = lt_new(&lt_transforms, sizeof *t);
    if (!t)
        return CUBLAS_STATUS_ALLOC_FAILED;
    lt_put(&t->a, CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE, scaleType, 4);
    lt_put(&t->a, CUBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE, CUBLASLT_POINTER_MODE_HOST, 4);
    lt_put(&t->a, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, CUBLAS_OP_N, 4);
    lt_put(&t->a, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB, CUBLAS_OP_N, 4);
    *desc = (cublasLtMatrixTransformDesc_t)t;
    return CUBLAS_STATUS_SUCCESS;
}

LT_EXPORT cublasStatus_t cublasLtMatrixTransformDescDestroy(cublasLtMatrixTransformDesc_t desc)
{
    return lt_free(&lt_transforms, desc);
}

LT_EXPORT cublasStatus_t cublasLtMatrixTransformDescSetAttribute(
    cublasLtMatrixTransformDesc_t desc, cublasLtMatrixTransformDescAttributes_t attr,
    const void *buf, size_t size)
{
    if (!pyshim_handles_contains(&lt_transforms, desc))
        return CUBLAS_STATUS_INVALID_VALUE;
    return lt_set(&((struct lt_transform_obj *)desc)->a, TRANSFORM_SIZE, LT_TRANSFORM_ATTRS,
                  (int)attr, buf, size);
}

LT_EXPORT cublasStatus_t cublasLtMatrixTransformDescGetAttribute(
    cublasLtMatrixTransformDesc_t desc, cublasLtMatrixTransformDescAttributes_t attr,
    void *buf, size_t size, size_t *sizeWritten)
{
    if (!pyshim_handles_contains(&lt_transforms, desc))
        return CUBLAS_STATUS_INVALID_VALUE;
    return lt_get(&((struct lt_transform_obj *)desc)->a, TRANSFORM_SIZE, LT_TRANSFORM_ATTRS,
                  (int)attr, buf, size, sizeWritten);
}
