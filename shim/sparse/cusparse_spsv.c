/* cuSPARSE's triangular solves (SpSV, SpSM), SpVV and the sparse-matrix attributes they
 * read, on rocSPARSE's rocsparse_spsv / rocsparse_spsm / rocsparse_spvv.
 *
 * rocSPARSE stages one routine (buffer size, preprocess, compute) and keeps its analysis
 * in the matrix descriptor; cuSPARSE splits the same into bufferSize, analysis and solve,
 * and solve takes no buffer: the SpSV/SpSM descriptor keeps the analysis buffer (cuSPARSE
 * requires it to live until the last solve) and the matrix it analysed.
 *   bufferSize: rocSPARSE's buffer-size stage, plus room for the copy below (at least
 *               one byte, so that the caller's allocation is a real pointer);
 *   analysis:   the preprocess stage with the caller's buffer, kept in the descriptor;
 *   solve:      the compute stage with that buffer;
 *   updateMatrix: the new values replace the analysed matrix's for the solves that
 *               follow, the caller's matrix descriptor unchanged (swapped in around each
 *               compute). The diagonal-only update writes the current values with the new
 *               diagonal into a copy that the buffer holds past rocSPARSE's scratch (room
 *               for nnz values: cuSPARSE's own buffer keeps a copy of the matrix too),
 *               patched on the host: no rocSPARSE call scatters into a values array.
 * The fill mode and diagonal type of the triangle are cusparseSpMatSetAttribute's, set on
 * the rocSPARSE descriptor. rocSPARSE solves with A or A^T only: op(A) = A^H is the
 * transpose of A's conjugate, whose values the same copy holds (conjugated on the host at
 * analysis and at each update); of a real matrix it is the transpose. op(B) = B^H (SpSM)
 * is left to rocSPARSE, which refuses it.
 *
 * SpVV: rocsparse_spvv sizes its buffer when given none; cusparseSpVV_bufferSize is that
 * query, cusparseSpVV computes with the caller's buffer (a dummy where it is NULL and
 * rocSPARSE asks for none). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cusparse.h>

#include "sparse_internal.h"
#include "cusparse_enums.h"
#include "cusparse_rocm.h"

#define STATUS(st) ((cusparseStatus_t)pyshim_cusparseStatus_t_from_rocsparse_status(st))

/* rocsparse_spsv_stage / rocsparse_spsm_stage values */
enum { STAGE_BUFFER_SIZE = 1, STAGE_PREPROCESS = 2, STAGE_COMPUTE = 3 };
/* rocsparse_operation values */
enum { ROC_OP_NONE = 111, ROC_OP_TRANSPOSE = 112, ROC_OP_CONJUGATE = 113 };
/* rocsparse_spmat_attribute values */
enum { ROC_ATTR_FILL_MODE = 0, ROC_ATTR_DIAG_TYPE = 1 };

static int is_real(int rocsparse_type)
{
    return rocsparse_type == 151 || rocsparse_type == 152; /* f32_r, f64_r */
}

/* cuSPARSE's operation as rocSPARSE's; a real matrix's conjugate transpose is its transpose */
static int oper(cusparseOperation_t op, int type)
{
    int r = pyshim_cusparseOperation_t_to_rocsparse_operation((int)op);
    return r == ROC_OP_CONJUGATE && is_real(type) ? ROC_OP_TRANSPOSE : r;
}

/* A^H of a complex A: solved as the transpose of the conjugated values */
static int conj_of(cusparseOperation_t op, int type)
{
    return op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE && !is_real(type);
}

static cusparseStatus_t compute_type(cudaDataType t, const char *what, int *out)
{
    *out = pyshim_cusparse_datatype((int)t);
    if (*out >= 0)
        return CUSPARSE_STATUS_SUCCESS;
    pyshim_cusparse_unsupported(what);
    return CUSPARSE_STATUS_NOT_SUPPORTED;
}

/* ---- sparse-matrix attributes ---- */

PYSHIM_EXPORT cusparseStatus_t cusparseSpMatSetAttribute(cusparseSpMatDescr_t spMatDescr,
                                                         cusparseSpMatAttribute_t attribute,
                                                         void *data, size_t dataSize)
{
    if (!spMatDescr || !data)
        return CUSPARSE_STATUS_INVALID_VALUE;
    int v, roc;
    switch (attribute) {
    case CUSPARSE_SPMAT_FILL_MODE:
        if (dataSize != sizeof(cusparseFillMode_t))
            return CUSPARSE_STATUS_INVALID_VALUE;
        /* rocsparse_fill_mode_lower 0, _upper 1 */
        switch (*(const cusparseFillMode_t *)data) {
        case CUSPARSE_FILL_MODE_LOWER: v = 0; break;
        case CUSPARSE_FILL_MODE_UPPER: v = 1; break;
        default: return CUSPARSE_STATUS_INVALID_VALUE;
        }
        roc = ROC_ATTR_FILL_MODE;
        break;
    case CUSPARSE_SPMAT_DIAG_TYPE:
        if (dataSize != sizeof(cusparseDiagType_t))
            return CUSPARSE_STATUS_INVALID_VALUE;
        /* rocsparse_diag_type_non_unit 0, _unit 1 */
        switch (*(const cusparseDiagType_t *)data) {
        case CUSPARSE_DIAG_TYPE_NON_UNIT: v = 0; break;
        case CUSPARSE_DIAG_TYPE_UNIT: v = 1; break;
        default: return CUSPARSE_STATUS_INVALID_VALUE;
        }
        roc = ROC_ATTR_DIAG_TYPE;
        break;
    default:
        /* CUSPARSE_SPMAT_STORAGE / _SYMMETRY_TYPE: no rocSPARSE attribute means the same */
        pyshim_cusparse_unsupported("cusparseSpMatSetAttribute (this attribute)");
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    }
    return STATUS(rocsparse_spmat_set_attribute(spMatDescr, roc, &v, sizeof v));
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpMatGetAttribute(cusparseConstSpMatDescr_t spMatDescr,
                                                         cusparseSpMatAttribute_t attribute,
                                                         void *data, size_t dataSize)
{
    if (!spMatDescr || !data)
        return CUSPARSE_STATUS_INVALID_VALUE;
    int roc;
    switch (attribute) {
    case CUSPARSE_SPMAT_FILL_MODE: roc = ROC_ATTR_FILL_MODE; break;
    case CUSPARSE_SPMAT_DIAG_TYPE: roc = ROC_ATTR_DIAG_TYPE; break;
    default:
        pyshim_cusparse_unsupported("cusparseSpMatGetAttribute (this attribute)");
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    }
    if (dataSize != sizeof(int))
        return CUSPARSE_STATUS_INVALID_VALUE;
    int v = 0;
    cusparseStatus_t st = STATUS(rocsparse_spmat_get_attribute((void *)spMatDescr, roc, &v,
                                                               sizeof v));
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    if (roc == ROC_ATTR_FILL_MODE)
        *(cusparseFillMode_t *)data = v ? CUSPARSE_FILL_MODE_UPPER : CUSPARSE_FILL_MODE_LOWER;
    else
        *(cusparseDiagType_t *)data = v ? CUSPARSE_DIAG_TYPE_UNIT : CUSPARSE_DIAG_TYPE_NON_UNIT;
    return CUSPARSE_STATUS_SUCCESS;
}

/* ---- SpSV and SpSM: one descriptor shape ---- */

struct solve_state {
    cusparseConstSpMatDescr_t mat; /* analysed */
    void *buffer;                  /* analysis's buffer, rocSPARSE's scratch at solve */
    void *copy;                    /* in it, past the scratch: the diagonal update's values */
    void *values;                  /* updateMatrix's (or the copy), NULL: the matrix's own */
    int analysed;
    int conj; /* op(A) = A^H of a complex A: the copy holds conj(values), solved as A^T */
};

enum { ALIGN = 256 };

static size_t align_up(size_t n)
{
    return (n + ALIGN - 1) / ALIGN * ALIGN;
}

static size_t value_bytes(int rocsparse_type)
{
    switch (rocsparse_type) {
    case 151: return 4;  /* f32_r */
    case 152: return 8;  /* f64_r */
    case 154: return 8;  /* f32_c */
    case 155: return 16; /* f64_c */
    default: return 0;
    }
}

struct cusparseSpSVDescr {
    struct solve_state s;
};

struct cusparseSpSMDescr {
    struct solve_state s;
};

/* one call of rocsparse_spsv (vector operands) or rocsparse_spsm */
struct call {
    cusparseHandle_t handle;
    int opA, opB, type;
    const void *alpha;
    cusparseConstSpMatDescr_t A;
    const void *B; /* dense vector x or matrix B */
    void *C;       /* dense vector y or matrix C */
    int matrix;    /* SpSM */
    int conj;      /* opA was A^H of a complex A (opA is then rocSPARSE's transpose) */
};

static cusparseStatus_t stage(const struct call *c, int st, size_t *size, void *buffer)
{
    if (c->matrix)
        return STATUS(rocsparse_spsm(c->handle, c->opA, c->opB, (void *)c->alpha, (void *)c->A,
                                     (void *)c->B, c->C, c->type, 0, st, size, buffer));
    return STATUS(rocsparse_spsv(c->handle, c->opA, (void *)c->alpha, (void *)c->A,
                                 (void *)c->B, c->C, c->type, 0, st, size, buffer));
}

static cusparseStatus_t begin(struct call *c, cusparseHandle_t handle, cusparseOperation_t opA,
                              cusparseOperation_t opB, const void *alpha,
                              cusparseConstSpMatDescr_t A, const void *B, void *C,
                              cudaDataType type, const void *descr, int matrix)
{
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!descr || !A || !B || !C)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *c = (struct call){handle, 0, 0, 0, alpha, A, B, C, matrix, 0};
    cusparseStatus_t st = compute_type(type, matrix ? "cusparseSpSM (this compute type)"
                                                    : "cusparseSpSV (this compute type)",
                                       &c->type);
    c->conj = conj_of(opA, c->type);
    c->opA = c->conj ? ROC_OP_TRANSPOSE : oper(opA, c->type);
    c->opB = oper(opB, c->type);
    return st;
}

/* rocSPARSE's scratch, then room for a copy of A's values */
static cusparseStatus_t layout(const struct call *c, size_t *scratch, size_t *total)
{
    size_t size = 0;
    int64_t rows = 0, cols = 0, nnz = 0;
    cusparseStatus_t st = stage(c, STAGE_BUFFER_SIZE, &size, NULL);
    if (st || (st = STATUS(rocsparse_spmat_get_size((void *)c->A, &rows, &cols, &nnz))))
        return st;
    *scratch = align_up(size);
    *total = *scratch + (size_t)nnz * value_bytes(c->type);
    return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t buffer_size(const struct call *c, size_t *bufferSize)
{
    if (!bufferSize)
        return CUSPARSE_STATUS_INVALID_VALUE;
    size_t scratch, total;
    cusparseStatus_t st = layout(c, &scratch, &total);
    if (st == CUSPARSE_STATUS_SUCCESS)
        *bufferSize = total ? total : 1;
    return st;
}

/* the analysed matrix's arrays (rocsparse_format: coo 0, csr 2) */
struct arrays {
    int64_t rows, nnz;
    void *ptr, *ind, *val; /* CSR offsets or COO row indices; column indices; values */
    int index_type[2], base, type, coo;
};

static cusparseStatus_t arrays_of(cusparseConstSpMatDescr_t m, struct arrays *a)
{
    int format = -1;
    int64_t cols = 0;
    cusparseStatus_t st = STATUS(rocsparse_spmat_get_format((void *)m, &format));
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    a->coo = format == 0;
    if (a->coo) {
        st = STATUS(rocsparse_coo_get((void *)m, &a->rows, &cols, &a->nnz, &a->ptr, &a->ind,
                                      &a->val, &a->index_type[0], &a->base, &a->type));
        a->index_type[1] = a->index_type[0];
        return st;
    }
    if (format != 2)
        return CUSPARSE_STATUS_NOT_SUPPORTED; /* rocSPARSE's solves take CSR or COO only */
    return STATUS(rocsparse_csr_get((void *)m, &a->rows, &cols, &a->nnz, &a->ptr, &a->ind,
                                    &a->val, &a->index_type[0], &a->index_type[1], &a->base,
                                    &a->type));
}

/* rocsparse_indextype: i32 2, i64 3 */
static int64_t index_at(const void *a, int type, int64_t i)
{
    return type == 3 ? ((const int64_t *)a)[i] : ((const int32_t *)a)[i];
}

static size_t index_bytes(int type)
{
    return type == 3 ? 8 : 4;
}

static int fetch(void *host, const void *device, size_t bytes)
{
    return bytes && hipMemcpy(host, device, bytes, PYSHIM_HIP_MEMCPY_DEFAULT);
}

/* complex values in place: the imaginary parts negated */
static void conjugate(char *val, int64_t nnz, int type)
{
    for (int64_t k = 0; k < nnz; k++)
        if (type == 154)
            ((float *)val)[2 * k + 1] = -((float *)val)[2 * k + 1];
        else if (type == 155)
            ((double *)val)[2 * k + 1] = -((double *)val)[2 * k + 1];
}

/* host copy of values `src` (NULL: the solves' current ones) as the caller wrote them:
 * the copy in the buffer is unconjugated where it holds conj(values) */
static cusparseStatus_t load_values(const struct solve_state *s, const struct arrays *a,
                                    const void *src, char **out)
{
    size_t bytes = (size_t)a->nnz * value_bytes(a->type);
    if (!src)
        src = s->values ? s->values : a->val;
    *out = malloc(bytes + 1);
    if (!*out)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    if (fetch(*out, src, bytes)) {
        free(*out);
        return CUSPARSE_STATUS_EXECUTION_FAILED;
    }
    if (src == s->copy && s->conj)
        conjugate(*out, a->nnz, a->type);
    return CUSPARSE_STATUS_SUCCESS;
}

/* the solves' values := host values `val` (conjugated for A^H), in the buffer's copy */
static cusparseStatus_t store_values(struct solve_state *s, const struct arrays *a, char *val)
{
    if (!s->copy)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (s->conj)
        conjugate(val, a->nnz, a->type);
    size_t bytes = (size_t)a->nnz * value_bytes(a->type);
    if (bytes && hipMemcpy(s->copy, val, bytes, PYSHIM_HIP_MEMCPY_DEFAULT))
        return CUSPARSE_STATUS_EXECUTION_FAILED;
    s->values = s->copy;
    return CUSPARSE_STATUS_SUCCESS;
}

/* the solves' values := `src` (NULL: the current ones) through the host, for A^H */
static cusparseStatus_t copy_values(struct solve_state *s, const void *src)
{
    struct arrays a;
    char *val = NULL;
    cusparseStatus_t st = arrays_of(s->mat, &a);
    if (st || (st = load_values(s, &a, src, &val)))
        return st;
    st = store_values(s, &a, val);
    free(val);
    return st;
}

static cusparseStatus_t analysis(const struct call *c, struct solve_state *s, void *buffer)
{
    s->analysed = 0;
    size_t scratch, total;
    cusparseStatus_t st = layout(c, &scratch, &total);
    if (st || (st = stage(c, STAGE_PREPROCESS, NULL, buffer)))
        return st;
    *s = (struct solve_state){c->A, buffer, buffer ? (char *)buffer + scratch : NULL, NULL, 0,
                              c->conj};
    if (c->conj && (st = copy_values(s, NULL)))
        return st;
    s->analysed = 1;
    return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t solve(const struct call *c, const struct solve_state *s)
{
    /* cuSPARSE's order: bufferSize, analysis, then solve, with the analysis's operation */
    if (!s->analysed || c->conj != s->conj)
        return CUSPARSE_STATUS_INVALID_VALUE;
    void *own = NULL;
    int swap = s->values && c->A == s->mat;
    cusparseStatus_t st;
    if (swap) {
        void *m = (void *)c->A;
        if ((st = STATUS(rocsparse_spmat_get_values(m, &own))) ||
            (st = STATUS(rocsparse_spmat_set_values(m, s->values))))
            return st;
    }
    st = stage(c, STAGE_COMPUTE, NULL, s->buffer);
    if (swap) {
        cusparseStatus_t back = STATUS(rocsparse_spmat_set_values((void *)c->A, own));
        if (st == CUSPARSE_STATUS_SUCCESS)
            st = back;
    }
    return st;
}

/* the current values with entry (r, r) set to diag[r] (a duplicate of it to 0); every row
 * must store its diagonal entry */
static cusparseStatus_t update_diagonal(struct solve_state *s, const void *diag)
{
    struct arrays a;
    cusparseStatus_t st = arrays_of(s->mat, &a);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    size_t vs = value_bytes(a.type), outer = a.coo ? (size_t)a.nnz : (size_t)a.rows + 1;
    if (!vs || !s->copy)
        return CUSPARSE_STATUS_INVALID_VALUE;
    char *val = NULL;
    if ((st = load_values(s, &a, NULL, &val)))
        return st;
    char *ptr = malloc(outer * index_bytes(a.index_type[0]) + 1);
    char *ind = malloc((size_t)a.nnz * index_bytes(a.index_type[1]) + 1);
    char *dg = malloc((size_t)a.rows * vs + 1), *seen = calloc((size_t)a.rows + 1, 1);
    st = CUSPARSE_STATUS_ALLOC_FAILED;
    if (!ptr || !ind || !dg || !seen)
        goto out;
    st = CUSPARSE_STATUS_EXECUTION_FAILED;
    if (fetch(ptr, a.ptr, outer * index_bytes(a.index_type[0])) ||
        fetch(ind, a.ind, (size_t)a.nnz * index_bytes(a.index_type[1])) ||
        fetch(dg, diag, (size_t)a.rows * vs))
        goto out;
    for (int64_t o = 0; o < (a.coo ? 1 : a.rows); o++) {
        int64_t lo = a.coo ? 0 : index_at(ptr, a.index_type[0], o) - a.base;
        int64_t hi = a.coo ? a.nnz : index_at(ptr, a.index_type[0], o + 1) - a.base;
        for (int64_t k = lo; k < hi && k < a.nnz; k++) {
            int64_t r = a.coo ? index_at(ptr, a.index_type[0], k) - a.base : o;
            int64_t c = index_at(ind, a.index_type[1], k) - a.base;
            if (r != c || r < 0 || r >= a.rows)
                continue;
            if (seen[r])
                memset(val + (size_t)k * vs, 0, vs);
            else
                memcpy(val + (size_t)k * vs, dg + (size_t)r * vs, vs);
            seen[r] = 1;
        }
    }
    st = CUSPARSE_STATUS_NOT_SUPPORTED;
    for (int64_t r = 0; r < a.rows; r++)
        if (!seen[r]) {
            pyshim_cusparse_unsupported(
                "cusparseSpSV/SpSM_updateMatrix (a diagonal entry the matrix lacks)");
            goto out;
        }
    st = store_values(s, &a, val);
out:
    free(ptr);
    free(ind);
    free(val);
    free(dg);
    free(seen);
    return st;
}

static cusparseStatus_t update(cusparseHandle_t handle, struct solve_state *s, void *values,
                               int general)
{
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!s || !values)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (!s->analysed)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (!general)
        return update_diagonal(s, values);
    if (s->conj)
        return copy_values(s, values);
    s->values = values;
    return CUSPARSE_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpSV_createDescr(cusparseSpSVDescr_t *descr)
{
    if (!descr)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *descr = calloc(1, sizeof **descr);
    return *descr ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_ALLOC_FAILED;
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpSV_destroyDescr(cusparseSpSVDescr_t descr)
{
    free(descr);
    return CUSPARSE_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpSV_bufferSize(
    cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX, cusparseDnVecDescr_t vecY,
    cudaDataType computeType, cusparseSpSVAlg_t alg, cusparseSpSVDescr_t spsvDescr,
    size_t *bufferSize)
{
    (void)alg; /* every cuSPARSE algorithm is rocSPARSE's default */
    struct call c;
    cusparseStatus_t st = begin(&c, handle, opA, opA, alpha, matA, vecX, vecY, computeType,
                                spsvDescr, 0);
    return st ? st : buffer_size(&c, bufferSize);
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpSV_analysis(
    cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX, cusparseDnVecDescr_t vecY,
    cudaDataType computeType, cusparseSpSVAlg_t alg, cusparseSpSVDescr_t spsvDescr,
    void *externalBuffer)
{
    (void)alg;
    struct call c;
    cusparseStatus_t st = begin(&c, handle, opA, opA, alpha, matA, vecX, vecY, computeType,
                                spsvDescr, 0);
    return st ? st : analysis(&c, &spsvDescr->s, externalBuffer);
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpSV_solve(
    cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX, cusparseDnVecDescr_t vecY,
    cudaDataType computeType, cusparseSpSVAlg_t alg, cusparseSpSVDescr_t spsvDescr)
{
    (void)alg;
    struct call c;
    cusparseStatus_t st = begin(&c, handle, opA, opA, alpha, matA, vecX, vecY, computeType,
                                spsvDescr, 0);
    return st ? st : solve(&c, &spsvDescr->s);
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpSV_updateMatrix(cusparseHandle_t handle,
                                                         cusparseSpSVDescr_t spsvDescr,
                                                         void *newValues,
                                                         cusparseSpSVUpdate_t updatePart)
{
    if (updatePart != CUSPARSE_SPSV_UPDATE_GENERAL && updatePart != CUSPARSE_SPSV_UPDATE_DIAGONAL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return update(handle, spsvDescr ? &spsvDescr->s : NULL, newValues,
                  updatePart == CUSPARSE_SPSV_UPDATE_GENERAL);
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpSM_createDescr(cusparseSpSMDescr_t *descr)
{
    if (!descr)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *descr = calloc(1, sizeof **descr);
    return *descr ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_ALLOC_FAILED;
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpSM_destroyDescr(cusparseSpSMDescr_t descr)
{
    free(descr);
    return CUSPARSE_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpSM_bufferSize(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB, cusparseDnMatDescr_t matC,
    cudaDataType computeType, cusparseSpSMAlg_t alg, cusparseSpSMDescr_t spsmDescr,
    size_t *bufferSize)
{
    (void)alg;
    struct call c;
    cusparseStatus_t st = begin(&c, handle, opA, opB, alpha, matA, matB, matC, computeType,
                                spsmDescr, 1);
    return st ? st : buffer_size(&c, bufferSize);
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpSM_analysis(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB, cusparseDnMatDescr_t matC,
    cudaDataType computeType, cusparseSpSMAlg_t alg, cusparseSpSMDescr_t spsmDescr,
    void *externalBuffer)
{
    (void)alg;
    struct call c;
    cusparseStatus_t st = begin(&c, handle, opA, opB, alpha, matA, matB, matC, computeType,
                                spsmDescr, 1);
    return st ? st : analysis(&c, &spsmDescr->s, externalBuffer);
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpSM_solve(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB, cusparseDnMatDescr_t matC,
    cudaDataType computeType, cusparseSpSMAlg_t alg, cusparseSpSMDescr_t spsmDescr)
{
    (void)alg;
    struct call c;
    cusparseStatus_t st = begin(&c, handle, opA, opB, alpha, matA, matB, matC, computeType,
                                spsmDescr, 1);
    return st ? st : solve(&c, &spsmDescr->s);
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpSM_updateMatrix(cusparseHandle_t handle,
                                                         cusparseSpSMDescr_t spsmDescr,
                                                         void *newValues,
                                                         cusparseSpSMUpdate_t updatePart)
{
    if (updatePart != CUSPARSE_SPSM_UPDATE_GENERAL && updatePart != CUSPARSE_SPSM_UPDATE_DIAGONAL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return update(handle, spsmDescr ? &spsmDescr->s : NULL, newValues,
                  updatePart == CUSPARSE_SPSM_UPDATE_GENERAL);
}

/* ---- SpVV ---- */

static cusparseStatus_t spvv(cusparseHandle_t handle, cusparseOperation_t opX,
                             cusparseConstSpVecDescr_t vecX, cusparseConstDnVecDescr_t vecY,
                             const void *result, cudaDataType computeType, size_t *size,
                             void *buffer)
{
    if (!handle)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    int t;
    cusparseStatus_t st = compute_type(computeType, "cusparseSpVV (this compute type)", &t);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    return STATUS(rocsparse_spvv(handle, pyshim_cusparseOperation_t_to_rocsparse_operation(opX),
                                 (void *)vecX, (void *)vecY, (void *)result, t, size, buffer));
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpVV_bufferSize(cusparseHandle_t handle,
                                                       cusparseOperation_t opX,
                                                       cusparseConstSpVecDescr_t vecX,
                                                       cusparseConstDnVecDescr_t vecY,
                                                       const void *result,
                                                       cudaDataType computeType,
                                                       size_t *bufferSize)
{
    if (!bufferSize)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return spvv(handle, opX, vecX, vecY, result, computeType, bufferSize, NULL);
}

PYSHIM_EXPORT cusparseStatus_t cusparseSpVV(cusparseHandle_t handle, cusparseOperation_t opX,
                                            cusparseConstSpVecDescr_t vecX,
                                            cusparseConstDnVecDescr_t vecY, void *result,
                                            cudaDataType computeType, void *externalBuffer)
{
    /* rocSPARSE reads a NULL buffer as the size query: a NULL one is the caller's answer
     * to a zero-byte size, so it stands for a dummy only when rocSPARSE needs none */
    static char none;
    size_t size = 0;
    if (!externalBuffer) {
        cusparseStatus_t st = spvv(handle, opX, vecX, vecY, result, computeType, &size, NULL);
        if (st != CUSPARSE_STATUS_SUCCESS)
            return st;
        if (size)
            return CUSPARSE_STATUS_INVALID_VALUE;
    }
    return spvv(handle, opX, vecX, vecY, result, computeType, &size,
                externalBuffer ? externalBuffer : (void *)&none);
}
