/* cublasLtMatmulAlgoGetHeuristic and cublasLtMatmul on hipBLASLt.
 *
 * pyshim's objects hold cuBLASLt's values; for each call they are translated into hipBLASLt
 * objects (created, used, destroyed: hipBLASLt's are cheap host structures) and the call is
 * hipBLASLt's. What hipBLASLt cannot express (block or vector scale modes, the aux
 * matrix's fp8 scale and amax, column-32 orders, device-vector alpha, TRANSC, a non-full
 * fill mode, epilogues hipBLASLt lacks) is refused with CUBLAS_STATUS_NOT_SUPPORTED and one
 * log line naming the function and the attribute or epilogue; so is a problem hipBLASLt's
 * heuristic has no algorithm for (the heuristic and the matmul refuse alike). The
 * algorithm returned to the program wraps hipBLASLt's (data[1..3]) under a tag, so a
 * cublasLtMatmulAlgo_t that did not come from here is refused. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/unsupported.h"
#include "cublaslt_internal.h"

#define LT_ALGO_MAGIC 0x70797368696d4c54ULL /* "pyshimLT" */

static struct lt_backend backend;
static bool backend_ok;
static pthread_once_t backend_once = PTHREAD_ONCE_INIT;

static void lt_load_backend(void)
{
    void *lib = dlopen(PYSHIM_HIPBLASLT_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        pyshim_common_log("cublasLtCreate: %s not found (%s): cuBLASLt returns "
                          "CUBLAS_STATUS_NOT_INITIALIZED", PYSHIM_HIPBLASLT_SONAME, dlerror());
        return;
    }
#define LT_RESOLVE(name, params)                                                             \
    *(void **)&backend.name = dlsym(lib, #name);                                             \
    if (!backend.name) {                                                                     \
        pyshim_common_log("cublasLtCreate: %s lacks %s", PYSHIM_HIPBLASLT_SONAME, #name);    \
        return;                                                                              \
    }
    PYSHIM_HIPBLASLT_FUNCTIONS(LT_RESOLVE)
#undef LT_RESOLVE
    backend_ok = true;
}

const struct lt_backend *lt_backend(void)
{
    pthread_once(&backend_once, lt_load_backend);
    return backend_ok ? &backend : NULL;
}

cublasStatus_t lt_status(pyshim_hipblasStatus_t st)
{
    switch (st) {
    case PS_HIPBLAS_STATUS_SUCCESS: return CUBLAS_STATUS_SUCCESS;
    case PS_HIPBLAS_STATUS_NOT_INITIALIZED:
    case PS_HIPBLAS_STATUS_HANDLE_IS_NULLPTR: return CUBLAS_STATUS_NOT_INITIALIZED;
    case PS_HIPBLAS_STATUS_ALLOC_FAILED: return CUBLAS_STATUS_ALLOC_FAILED;
    case PS_HIPBLAS_STATUS_INVALID_VALUE:
    case PS_HIPBLAS_STATUS_INVALID_ENUM: return CUBLAS_STATUS_INVALID_VALUE;
    case PS_HIPBLAS_STATUS_MAPPING_ERROR: return CUBLAS_STATUS_MAPPING_ERROR;
    case PS_HIPBLAS_STATUS_EXECUTION_FAILED: return CUBLAS_STATUS_EXECUTION_FAILED;
    case PS_HIPBLAS_STATUS_NOT_SUPPORTED: return CUBLAS_STATUS_NOT_SUPPORTED;
    case PS_HIPBLAS_STATUS_ARCH_MISMATCH: return CUBLAS_STATUS_ARCH_MISMATCH;
    default: return CUBLAS_STATUS_INTERNAL_ERROR;
    }
}

void pyshim_cublaslt_unsupported(const char *name)
{
    if (pyshim_common_unsupported_note(name))
        pyshim_common_log("%s is not supported (returns CUBLAS_STATUS_NOT_SUPPORTED)", name);
}

/* For tests and reports: calls counted for `name`, or for every name when NULL. */
LT_EXPORT unsigned long pyshim_cublaslt_unsupported_count(const char *name);
unsigned long pyshim_cublaslt_unsupported_count(const char *name)
{
    return pyshim_common_unsupported_calls(name);
}

/* pyshim_common_unsupported_note keeps the pointer it is given, so a key made on the stack
 * is copied once and that copy passed (NULL when the table is full: logged, not counted) */
static const char *lt_intern(const char *key)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static const char *keys[256];
    static int n;
    const char *out = NULL;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < n && !out; i++)
        if (strcmp(keys[i], key) == 0)
            out = keys[i];
    if (!out && n < (int)(sizeof keys / sizeof keys[0])) {
        size_t len = strlen(key) + 1;
        char *copy = malloc(len);
        if (copy) {
            memcpy(copy, key, len);
            keys[n++] = out = copy;
        }
    }
    pthread_mutex_unlock(&mu);
    return out;
}

void lt_refuse(const char *fn, const char *why)
{
    char key[160];
    snprintf(key, sizeof key, "%s: %s", fn, why);
    const char *kept = lt_intern(key);
    if (!kept || pyshim_common_unsupported_note(kept))
        pyshim_common_log("%s: %s is not supported (returns CUBLAS_STATUS_NOT_SUPPORTED)", fn,
                          why);
}

static int32_t lt_i32(const struct lt_attrs *a, int attr)
{
    int32_t v;
    memcpy(&v, &a->value[attr], 4);
    return v;
}

static void *lt_ptr(const struct lt_attrs *a, int attr)
{
    void *p;
    memcpy(&p, &a->value[attr], sizeof p);
    return p;
}

/* the hipBLASLt objects of one call */
struct lt_call {
    pyshim_hipblasLtMatmulDesc_t desc;
    pyshim_hipblasLtMatrixLayout_t layout[4]; /* A, B, C, D */
    uint32_t epilogue;                        /* cuBLASLt's, for log lines */
};

static int lt_compute(int32_t c)
{
    switch (c) {
    case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC: return PS_HIPBLAS_COMPUTE_16F;
    case CUBLAS_COMPUTE_32F: case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F: case CUBLAS_COMPUTE_32F_FAST_16BF:
        return PS_HIPBLAS_COMPUTE_32F;
    case CUBLAS_COMPUTE_32F_FAST_TF32: return PS_HIPBLAS_COMPUTE_32F_FAST_TF32;
    case CUBLAS_COMPUTE_64F: case CUBLAS_COMPUTE_64F_PEDANTIC: return PS_HIPBLAS_COMPUTE_64F;
    case CUBLAS_COMPUTE_32I: case CUBLAS_COMPUTE_32I_PEDANTIC: return PS_HIPBLAS_COMPUTE_32I;
    default: return -1;
    }
}

static int lt_op(int32_t op)
{
    switch (op) {
    case CUBLAS_OP_N: return PS_HIPBLAS_OP_N;
    case CUBLAS_OP_T: return PS_HIPBLAS_OP_T;
    case CUBLAS_OP_C: return PS_HIPBLAS_OP_C;
    default: return -1;
    }
}

/* cuBLASLt's epilogue names, for log lines; every one of these numbers is hipBLASLt's too */
static const char *lt_epilogue_name(uint32_t e)
{
    switch (e) {
    case CUBLASLT_EPILOGUE_DEFAULT: return "CUBLASLT_EPILOGUE_DEFAULT";
    case CUBLASLT_EPILOGUE_RELU: return "CUBLASLT_EPILOGUE_RELU";
    case CUBLASLT_EPILOGUE_RELU_AUX: return "CUBLASLT_EPILOGUE_RELU_AUX";
    case CUBLASLT_EPILOGUE_BIAS: return "CUBLASLT_EPILOGUE_BIAS";
    case CUBLASLT_EPILOGUE_RELU_BIAS: return "CUBLASLT_EPILOGUE_RELU_BIAS";
    case CUBLASLT_EPILOGUE_RELU_AUX_BIAS: return "CUBLASLT_EPILOGUE_RELU_AUX_BIAS";
    case CUBLASLT_EPILOGUE_DRELU: return "CUBLASLT_EPILOGUE_DRELU";
    case CUBLASLT_EPILOGUE_DRELU_BGRAD: return "CUBLASLT_EPILOGUE_DRELU_BGRAD";
    case CUBLASLT_EPILOGUE_GELU: return "CUBLASLT_EPILOGUE_GELU";
    case CUBLASLT_EPILOGUE_GELU_AUX: return "CUBLASLT_EPILOGUE_GELU_AUX";
    case CUBLASLT_EPILOGUE_GELU_BIAS: return "CUBLASLT_EPILOGUE_GELU_BIAS";
    case CUBLASLT_EPILOGUE_GELU_AUX_BIAS: return "CUBLASLT_EPILOGUE_GELU_AUX_BIAS";
    case CUBLASLT_EPILOGUE_DGELU: return "CUBLASLT_EPILOGUE_DGELU";
    case CUBLASLT_EPILOGUE_DGELU_BGRAD: return "CUBLASLT_EPILOGUE_DGELU_BGRAD";
    case CUBLASLT_EPILOGUE_BGRADA: return "CUBLASLT_EPILOGUE_BGRADA";
    case CUBLASLT_EPILOGUE_BGRADB: return "CUBLASLT_EPILOGUE_BGRADB";
    default: return NULL;
    }
}

static bool lt_is_fp8(int32_t t)
{
    return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2;
}

static void lt_call_free(const struct lt_backend *be, struct lt_call *c)
{
    for (int i = 0; i < 4; i++)
        if (c->layout[i])
            be->hipblasLtMatrixLayoutDestroy(c->layout[i]);
    if (c->desc)
        be->hipblasLtMatmulDescDestroy(c->desc);
}

static cublasStatus_t lt_layout(const char *fn, const struct lt_backend *be,
                                const struct lt_layout_obj *l, pyshim_hipblasLtMatrixLayout_t *out)
{
    const struct lt_attrs *a = &l->a;
    int32_t order = lt_i32(a, CUBLASLT_MATRIX_LAYOUT_ORDER);
    if (order != CUBLASLT_ORDER_COL && order != CUBLASLT_ORDER_ROW) {
        lt_refuse(fn, "a matrix order other than CUBLASLT_ORDER_COL/ROW");
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (lt_i64(a, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET) != 0) {
        lt_refuse(fn, "CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET");
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    int32_t type = lt_i32(a, CUBLASLT_MATRIX_LAYOUT_TYPE);
    pyshim_hipblasStatus_t st = be->hipblasLtMatrixLayoutCreate(
        out, type, (uint64_t)lt_i64(a, CUBLASLT_MATRIX_LAYOUT_ROWS),
        (uint64_t)lt_i64(a, CUBLASLT_MATRIX_LAYOUT_COLS), lt_i64(a, CUBLASLT_MATRIX_LAYOUT_LD));
    if (st != PS_HIPBLAS_STATUS_SUCCESS)
        return lt_status(st);
    int32_t batch = lt_i32(a, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
    int64_t stride = lt_i64(a, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
    int32_t hip_order = order == CUBLASLT_ORDER_COL ? PS_HIPBLASLT_ORDER_COL : PS_HIPBLASLT_ORDER_ROW;
    if ((st = be->hipblasLtMatrixLayoutSetAttribute(*out, PS_HIPBLASLT_MATRIX_LAYOUT_ORDER,
                                                    &hip_order, 4)) ||
        (st = be->hipblasLtMatrixLayoutSetAttribute(*out, PS_HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                    &batch, 4)) ||
        (st = be->hipblasLtMatrixLayoutSetAttribute(
             *out, PS_HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, 8)))
        return lt_status(st);
    return CUBLAS_STATUS_SUCCESS;
}

/* Check the objects and build the hipBLASLt ones; c->* are NULL or to be freed. */
static cublasStatus_t lt_translate(const char *fn, const struct lt_backend *be,
                                   cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t lay[4],
                                   struct lt_call *c)
{
    memset(c, 0, sizeof *c);
    if (!pyshim_handles_contains(&lt_descs, desc))
        return CUBLAS_STATUS_INVALID_VALUE;
    for (int i = 0; i < 4; i++)
        if (!pyshim_handles_contains(&lt_layouts, lay[i]))
            return CUBLAS_STATUS_INVALID_VALUE;
    const struct lt_attrs *a = &((struct lt_desc_obj *)desc)->a;
    int compute = lt_compute(lt_i32(a, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE));
    if (compute < 0) {
        lt_refuse(fn, "this CUBLASLT_MATMUL_DESC_COMPUTE_TYPE");
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    int ta = lt_op(lt_i32(a, CUBLASLT_MATMUL_DESC_TRANSA));
    int tb = lt_op(lt_i32(a, CUBLASLT_MATMUL_DESC_TRANSB));
    if (ta < 0 || tb < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    static const struct { int attr; const char *name; } refused_ptrs[] = {
        /* scale modes other than 0 (one f32 per matrix) are block or vector scalings */
        {CUBLASLT_MATMUL_DESC_A_SCALE_MODE, "CUBLASLT_MATMUL_DESC_A_SCALE_MODE"},
        {CUBLASLT_MATMUL_DESC_B_SCALE_MODE, "CUBLASLT_MATMUL_DESC_B_SCALE_MODE"},
        {CUBLASLT_MATMUL_DESC_C_SCALE_MODE, "CUBLASLT_MATMUL_DESC_C_SCALE_MODE"},
        {CUBLASLT_MATMUL_DESC_D_SCALE_MODE, "CUBLASLT_MATMUL_DESC_D_SCALE_MODE"},
        {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE,
         "CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE"},
        {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER,
         "CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER"},
        {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER,
         "CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER"},
        {CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER, "CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER"},
        {CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, "CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE"},
        {CUBLASLT_MATMUL_DESC_TRANSC, "CUBLASLT_MATMUL_DESC_TRANSC"},
    };
    for (size_t i = 0; i < sizeof refused_ptrs / sizeof refused_ptrs[0]; i++)
        if (a->value[refused_ptrs[i].attr]) {
            lt_refuse(fn, refused_ptrs[i].name);
            return CUBLAS_STATUS_NOT_SUPPORTED;
        }
    if (lt_i32(a, CUBLASLT_MATMUL_DESC_FILL_MODE) != CUBLAS_FILL_MODE_FULL) {
        lt_refuse(fn, "CUBLASLT_MATMUL_DESC_FILL_MODE other than FULL");
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    uint32_t epilogue = (uint32_t)lt_i32(a, CUBLASLT_MATMUL_DESC_EPILOGUE);
    if (!lt_epilogue_name(epilogue)) {
        lt_refuse(fn, "this CUBLASLT_MATMUL_DESC_EPILOGUE");
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    c->epilogue = epilogue;
    int32_t pmode = lt_i32(a, CUBLASLT_MATMUL_DESC_POINTER_MODE);
    if (pmode != CUBLASLT_POINTER_MODE_HOST && pmode != CUBLASLT_POINTER_MODE_DEVICE) {
        lt_refuse(fn, "a vector CUBLASLT_MATMUL_DESC_POINTER_MODE");
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    int32_t aux_type = lt_i32(a, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE);
    if (aux_type != -1 && aux_type != lt_i32(&((struct lt_layout_obj *)lay[3])->a,
                                             CUBLASLT_MATRIX_LAYOUT_TYPE)) {
        lt_refuse(fn, "an CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE other than D's");
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    pyshim_hipblasStatus_t st = be->hipblasLtMatmulDescCreate(
        &c->desc, compute, lt_i32(a, CUBLASLT_MATMUL_DESC_SCALE_TYPE));
    if (st != PS_HIPBLAS_STATUS_SUCCESS)
        return lt_status(st);
    void *bias = lt_ptr(a, CUBLASLT_MATMUL_DESC_BIAS_POINTER);
    void *aux = lt_ptr(a, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER);
    int64_t aux_ld = lt_i64(a, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD);
    int64_t aux_stride = lt_i64(a, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE);
    int32_t bias_type = lt_i32(a, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
    const struct lt_attrs *ld = &((struct lt_layout_obj *)lay[3])->a;
    const struct lt_attrs *lc = &((struct lt_layout_obj *)lay[2])->a;
    if (bias_type == -1 && lt_is_fp8(lt_i32(&((struct lt_layout_obj *)lay[0])->a,
                                            CUBLASLT_MATRIX_LAYOUT_TYPE))) {
        /* cuBLASLt's fp8 default (its cublasLtMatmul table): a bf16 bias beside an f32 D,
         * C's 16-bit type beside an fp8 D, else D's; said to hipBLASLt explicitly */
        int32_t dt = lt_i32(ld, CUBLASLT_MATRIX_LAYOUT_TYPE);
        bias_type = dt == CUDA_R_32F ? CUDA_R_16BF
                  : lt_is_fp8(dt) ? lt_i32(lc, CUBLASLT_MATRIX_LAYOUT_TYPE) : dt;
    }
    const void *scale_ptr[5];
    static const int scale_attr[5][2] = {
        {CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, PS_HIPBLASLT_MATMUL_DESC_A_SCALE_POINTER},
        {CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, PS_HIPBLASLT_MATMUL_DESC_B_SCALE_POINTER},
        {CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, PS_HIPBLASLT_MATMUL_DESC_C_SCALE_POINTER},
        {CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, PS_HIPBLASLT_MATMUL_DESC_D_SCALE_POINTER},
        {CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, PS_HIPBLASLT_MATMUL_DESC_AMAX_D_POINTER},
    };
    for (int i = 0; i < 5; i++) {
        scale_ptr[i] = lt_ptr(a, scale_attr[i][0]);
        /* unset ones are not set on hipBLASLt: its objects' defaults are NULL too */
        if (scale_ptr[i] && (st = be->hipblasLtMatmulDescSetAttribute(
                                 c->desc, scale_attr[i][1], &scale_ptr[i], sizeof(void *))))
            return lt_status(st);
    }
    int32_t hip_pmode = pmode == CUBLASLT_POINTER_MODE_HOST ? PS_HIPBLASLT_POINTER_MODE_HOST
                                                            : PS_HIPBLASLT_POINTER_MODE_DEVICE;
    struct { int attr; const void *v; size_t size; } set[] = {
        {PS_HIPBLASLT_MATMUL_DESC_TRANSA, &ta, 4},
        {PS_HIPBLASLT_MATMUL_DESC_TRANSB, &tb, 4},
        {PS_HIPBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, 4},
        {PS_HIPBLASLT_MATMUL_DESC_POINTER_MODE, &hip_pmode, 4},
        {PS_HIPBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias},
        {PS_HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux},
        {PS_HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld, 8},
        {PS_HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, &aux_stride, 8},
        {PS_HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, 4},
    };
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        if (set[i].attr == PS_HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE && bias_type == -1)
            continue; /* hipBLASLt's default is D's type, as cuBLASLt's */
        st = be->hipblasLtMatmulDescSetAttribute(c->desc, set[i].attr, set[i].v, set[i].size);
        if (st != PS_HIPBLAS_STATUS_SUCCESS)
            return lt_status(st);
    }
    for (int i = 0; i < 4; i++) {
        cublasStatus_t cs = lt_layout(fn, be, (struct lt_layout_obj *)lay[i], &c->layout[i]);
        if (cs != CUBLAS_STATUS_SUCCESS)
            return cs;
    }
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t lt_heuristic(const char *fn, const struct lt_backend *be,
                                   struct lt_handle_obj *h, struct lt_call *c, uint64_t max_ws,
                                   pyshim_hipblasLtMatmulHeuristicResult_t *out)
{
    pyshim_hipblasLtMatmulPreference_t pref = NULL;
    pyshim_hipblasStatus_t st = be->hipblasLtMatmulPreferenceCreate(&pref);
    if (st != PS_HIPBLAS_STATUS_SUCCESS)
        return lt_status(st);
    st = be->hipblasLtMatmulPreferenceSetAttribute(pref,
                                                    PS_HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &max_ws, 8);
    int got = 0;
    if (st == PS_HIPBLAS_STATUS_SUCCESS)
        st = be->hipblasLtMatmulAlgoGetHeuristic(h->hip, c->desc, c->layout[0], c->layout[1],
                                                 c->layout[2], c->layout[3], pref, 1, out, &got);
    be->hipblasLtMatmulPreferenceDestroy(pref);
    if (st == PS_HIPBLAS_STATUS_SUCCESS && got < 1)
        st = PS_HIPBLAS_STATUS_NOT_SUPPORTED;
    if (st == PS_HIPBLAS_STATUS_NOT_SUPPORTED) {
        /* named by its epilogue, the likeliest reason a backend has no algorithm */
        char why[128];
        snprintf(why, sizeof why, "a problem hipBLASLt has no algorithm for (epilogue %s)",
                 lt_epilogue_name(c->epilogue));
        lt_refuse(fn, why);
    }
    if (st != PS_HIPBLAS_STATUS_SUCCESS)
        return lt_status(st);
    return CUBLAS_STATUS_SUCCESS;
}

LT_EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
    cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc,
    cublasLtMatrixLayout_t Ddesc, cublasLtMatmulPreference_t preference, int requestedAlgoCount,
    cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int *returnAlgoCount)
{
    static const char fn[] = "cublasLtMatmulAlgoGetHeuristic";
    struct lt_handle_obj *h = (struct lt_handle_obj *)lightHandle;
    if (!pyshim_handles_contains(&lt_handles, h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!pyshim_handles_contains(&lt_prefs, preference) || requestedAlgoCount < 1 ||
        !heuristicResultsArray || !returnAlgoCount)
        return CUBLAS_STATUS_INVALID_VALUE;
    *returnAlgoCount = 0;
    const struct lt_backend *be = lt_backend();
    cublasLtMatrixLayout_t lay[4] = {Adesc, Bdesc, Cdesc, Ddesc};
    struct lt_call c;
    cublasStatus_t cs = lt_translate(fn, be, operationDesc, lay, &c);
    pyshim_hipblasLtMatmulHeuristicResult_t r;
    memset(&r, 0, sizeof r);
    if (cs == CUBLAS_STATUS_SUCCESS) {
        uint64_t max_ws = (uint64_t)lt_i64(&((struct lt_pref_obj *)preference)->a,
                                           CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
        cs = lt_heuristic(fn, be, h, &c, max_ws, &r);
    }
    lt_call_free(be, &c);
    if (cs != CUBLAS_STATUS_SUCCESS)
        return cs;
    cublasLtMatmulHeuristicResult_t *out = &heuristicResultsArray[0];
    memset(out, 0, sizeof *out);
    out->algo.data[0] = LT_ALGO_MAGIC;
    memcpy(&out->algo.data[1], &r.algo, sizeof r.algo);
    out->workspaceSize = r.workspaceSize;
    out->state = CUBLAS_STATUS_SUCCESS;
    out->wavesCount = r.wavesCount;
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

LT_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle,
                                        cublasLtMatmulDesc_t computeDesc, const void *alpha,
                                        const void *A, cublasLtMatrixLayout_t Adesc,
                                        const void *B, cublasLtMatrixLayout_t Bdesc,
                                        const void *beta, const void *C,
                                        cublasLtMatrixLayout_t Cdesc, void *D,
                                        cublasLtMatrixLayout_t Ddesc,
                                        const cublasLtMatmulAlgo_t *algo, void *workspace,
                                        size_t workspaceSizeInBytes, cudaStream_t stream)
{
    static const char fn[] = "cublasLtMatmul";
    struct lt_handle_obj *h = (struct lt_handle_obj *)lightHandle;
    if (!pyshim_handles_contains(&lt_handles, h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (algo && algo->data[0] != LT_ALGO_MAGIC)
        return CUBLAS_STATUS_INVALID_VALUE; /* not from cublasLtMatmulAlgoGetHeuristic */
    if (workspaceSizeInBytes && !workspace)
        return CUBLAS_STATUS_INVALID_VALUE;
    const struct lt_backend *be = lt_backend();
    /* cuBLASLt: Cdesc may be NULL when C is D (in-place) */
    cublasLtMatrixLayout_t lay[4] = {Adesc, Bdesc, Cdesc ? Cdesc : Ddesc, Ddesc};
    struct lt_call c;
    cublasStatus_t cs = lt_translate(fn, be, computeDesc, lay, &c);
    pyshim_hipblasLtMatmulHeuristicResult_t r;
    memset(&r, 0, sizeof r);
    if (cs == CUBLAS_STATUS_SUCCESS) {
        if (algo)
            memcpy(&r.algo, &algo->data[1], sizeof r.algo);
        else
            cs = lt_heuristic(fn, be, h, &c, workspaceSizeInBytes, &r);
    }
    if (cs == CUBLAS_STATUS_SUCCESS && r.workspaceSize > workspaceSizeInBytes)
        cs = CUBLAS_STATUS_INVALID_VALUE; /* the algorithm needs more than was given */
    if (cs == CUBLAS_STATUS_SUCCESS)
        cs = lt_status(be->hipblasLtMatmul(h->hip, c.desc, alpha, A, c.layout[0], B,
                                           c.layout[1], beta, C, c.layout[2], D, c.layout[3],
                                           &r.algo, workspace, workspaceSizeInBytes,
                                           (void *)stream));
    lt_call_free(be, &c);
    return cs;
}

/* C = alpha op(A) + beta op(B) (order or type changes, scaling, adding): on hipBLASLt's. */
LT_EXPORT cublasStatus_t cublasLtMatrixTransform(cublasLtHandle_t lightHandle,
                                                 cublasLtMatrixTransformDesc_t transformDesc,
                                                 const void *alpha, const void *A,
                                                 cublasLtMatrixLayout_t Adesc, const void *beta,
                                                 const void *B, cublasLtMatrixLayout_t Bdesc,
                                                 void *C, cublasLtMatrixLayout_t Cdesc,
                                                 cudaStream_t stream)
{
    static const char fn[] = "cublasLtMatrixTransform";
    struct lt_handle_obj *h = (struct lt_handle_obj *)lightHandle;
    if (!pyshim_handles_contains(&lt_handles, h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!pyshim_handles_contains(&lt_transforms, transformDesc) ||
        !pyshim_handles_contains(&lt_layouts, Cdesc) ||
        (A && !pyshim_handles_contains(&lt_layouts, Adesc)) ||
        (B && !pyshim_handles_contains(&lt_layouts, Bdesc)))
        return CUBLAS_STATUS_INVALID_VALUE;
    const struct lt_attrs *a = &((struct lt_transform_obj *)transformDesc)->a;
    int ta = lt_op(lt_i32(a, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA));
    int tb = lt_op(lt_i32(a, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB));
    int32_t pmode = lt_i32(a, CUBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE);
    if (ta < 0 || tb < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (pmode != CUBLASLT_POINTER_MODE_HOST && pmode != CUBLASLT_POINTER_MODE_DEVICE) {
        lt_refuse(fn, "a vector CUBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE");
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    const struct lt_backend *be = lt_backend();
    pyshim_hipblasLtMatrixTransformDesc_t td = NULL;
    pyshim_hipblasLtMatrixLayout_t lay[3] = {NULL, NULL, NULL};
    cublasLtMatrixLayout_t in[3] = {A ? Adesc : NULL, B ? Bdesc : NULL, Cdesc};
    cublasStatus_t cs = lt_status(be->hipblasLtMatrixTransformDescCreate(
        &td, lt_i32(a, CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE)));
    int32_t hip_pmode = pmode == CUBLASLT_POINTER_MODE_HOST ? PS_HIPBLASLT_POINTER_MODE_HOST
                                                            : PS_HIPBLASLT_POINTER_MODE_DEVICE;
    struct { int attr; int32_t v; } set[] = {
        {PS_HIPBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE, hip_pmode},
        {PS_HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, ta},
        {PS_HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSB, tb},
    };
    for (size_t i = 0; cs == CUBLAS_STATUS_SUCCESS && i < sizeof set / sizeof set[0]; i++)
        cs = lt_status(be->hipblasLtMatrixTransformDescSetAttribute(td, set[i].attr, &set[i].v,
                                                                    4));
    for (int i = 0; cs == CUBLAS_STATUS_SUCCESS && i < 3; i++)
        if (in[i])
            cs = lt_layout(fn, be, (struct lt_layout_obj *)in[i], &lay[i]);
    if (cs == CUBLAS_STATUS_SUCCESS)
        cs = lt_status(be->hipblasLtMatrixTransform(h->hip, td, alpha, A, lay[0], beta, B,
                                                    lay[1], C, lay[2], (void *)stream));
    for (int i = 0; i < 3; i++)
        if (lay[i])
            be->hipblasLtMatrixLayoutDestroy(lay[i]);
    if (td)
        be->hipblasLtMatrixTransformDescDestroy(td);
    return cs;
}
