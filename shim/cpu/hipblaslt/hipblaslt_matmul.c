/* hipblasLtMatmul on the CPU device: D = epilogue(alpha op(A) op(B) + beta C [+ bias]).
 *
 * Each batch instance's operands are gathered (any order, leading dimension, element type)
 * into packed column-major f32 or f64 buffers, multiplied by OpenBLAS's sgemm/dgemm, and
 * the epilogue (bias, ReLU, GELU, GELU's aux output) is applied while D is scattered back
 * in its own type and order. The gathers are O(mk + kn + mn) against the product's O(mnk).
 * i8 x i8 -> i32 has no OpenBLAS routine and is a plain int64-accumulating loop.
 * f32-compute "fast TF32" rounds A and B to TF32 (10 mantissa bits, nearest even) as they
 * are gathered, then multiplies in f32: the products a GPU's TF32 units form.
 * fp8 A/B (any of the four formats) are decoded exactly to f32 and take the sgemm path with
 * the scaling factors cuBLASLt defines: D = scaleD * epilogue(alpha scaleA scaleB op(A)op(B)
 * + beta scaleC C [+ bias]), amax_D = max |epilogue(...)| before scaleD.
 *
 * Stream order as the CPU rocBLAS: wait for the stream, then compute on this thread. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "hipblaslt_cpu.h"
#include "../rocblas/blas_half.h"
#include "../rocblas/blas_openblas.h"

size_t lt_type_size(int type)
{
    switch (type) {
    case PS_HIP_R_32F: case PS_HIP_R_32I: return 4;
    case PS_HIP_R_64F: return 8;
    case PS_HIP_R_16F: case PS_HIP_R_16BF: return 2;
    case PS_HIP_R_8I: return 1;
    default: return lt_is_fp8(type) ? 1 : 0;
    }
}

static double lt_load(const void *p, int type, int64_t i)
{
    switch (type) {
    case PS_HIP_R_32F: return ((const float *)p)[i];
    case PS_HIP_R_64F: return ((const double *)p)[i];
    case PS_HIP_R_16F: return rb_half_to_float(((const uint16_t *)p)[i]);
    case PS_HIP_R_16BF: return rb_bf16_to_float(((const uint16_t *)p)[i]);
    case PS_HIP_R_8I: return ((const int8_t *)p)[i];
    case PS_HIP_R_32I: return ((const int32_t *)p)[i];
    default: return lt_fp8_decode(((const uint8_t *)p)[i], type);
    }
}

static void lt_store(void *p, int type, int64_t i, double v)
{
    switch (type) {
    case PS_HIP_R_32F: ((float *)p)[i] = (float)v; break;
    case PS_HIP_R_64F: ((double *)p)[i] = v; break;
    case PS_HIP_R_16F: ((uint16_t *)p)[i] = rb_float_to_half((float)v); break;
    case PS_HIP_R_16BF: ((uint16_t *)p)[i] = rb_float_to_bf16((float)v); break;
    case PS_HIP_R_32I: ((int32_t *)p)[i] = (int32_t)v; break;
    default:
        if (lt_is_fp8(type))
            ((uint8_t *)p)[i] = lt_fp8_encode(v, type);
        break;
    }
}

/* element (i, j) of a layout's batch instance, as an element index */
static int64_t lt_at(const struct lt_layout *l, int64_t batch, int64_t i, int64_t j)
{
    int64_t off = l->batch > 1 ? batch * l->stride : 0;
    return off + (l->order == PS_HIPBLASLT_ORDER_COL ? i + j * l->ld : i * l->ld + j);
}

static bool lt_layout_ok(const struct lt_layout *l, int64_t rows, int64_t cols, int32_t batch)
{
    if (!l || l->magic != LT_LAYOUT_MAGIC || l->rows != rows || l->cols != cols)
        return false;
    if (l->order != PS_HIPBLASLT_ORDER_COL && l->order != PS_HIPBLASLT_ORDER_ROW)
        return false;
    int64_t minld = l->order == PS_HIPBLASLT_ORDER_COL ? rows : cols;
    if (l->ld < (minld > 1 ? minld : 1))
        return false;
    return l->batch == batch || l->batch == 1;
}

static bool lt_is_16(int t) { return t == PS_HIP_R_16F || t == PS_HIP_R_16BF; }

static char lt_path(const struct lt_desc *d, const struct lt_problem *pr)
{
    int at = pr->a->type, bt = pr->b->type, ct = pr->c->type, dt = pr->d->type;
    if (lt_is_fp8(at) || lt_is_fp8(bt)) {
        /* cuBLASLt's fp8 matmuls: both inputs fp8, f32 compute and scale; C 16- or 32-bit;
         * D C's type, or fp8 beside a 16-bit C */
        if (!lt_is_fp8(at) || !lt_is_fp8(bt) || d->compute != PS_HIPBLAS_COMPUTE_32F ||
            d->scale != PS_HIP_R_32F)
            return 0;
        if (ct == PS_HIP_R_32F)
            return dt == ct ? 'f' : 0;
        return lt_is_16(ct) && (dt == ct || lt_is_fp8(dt)) ? 'f' : 0;
    }
    if (at != bt || ct != dt)
        return 0;
    switch (d->compute) {
    case PS_HIPBLAS_COMPUTE_64F:
        return at == PS_HIP_R_64F && ct == at && d->scale == PS_HIP_R_64F ? 'd' : 0;
    case PS_HIPBLAS_COMPUTE_32F:
    case PS_HIPBLAS_COMPUTE_32F_FAST_TF32:
        if (d->scale != PS_HIP_R_32F)
            return 0;
        if (at == PS_HIP_R_32F)
            return ct == PS_HIP_R_32F ? 's' : 0;
        return lt_is_16(at) && (ct == at || ct == PS_HIP_R_32F) ? 's' : 0;
    case PS_HIPBLAS_COMPUTE_16F:
        return at == PS_HIP_R_16F && ct == at && d->scale == PS_HIP_R_16F ? 's' : 0;
    case PS_HIPBLAS_COMPUTE_32I:
        return at == PS_HIP_R_8I && ct == PS_HIP_R_32I && d->scale == PS_HIP_R_32I ? 'i' : 0;
    default:
        return 0;
    }
}

static bool lt_epilogue_known(uint32_t e)
{
    switch (e) {
    case PS_HIPBLASLT_EPILOGUE_DEFAULT: case PS_HIPBLASLT_EPILOGUE_RELU:
    case PS_HIPBLASLT_EPILOGUE_BIAS: case PS_HIPBLASLT_EPILOGUE_RELU_BIAS:
    case PS_HIPBLASLT_EPILOGUE_GELU: case PS_HIPBLASLT_EPILOGUE_GELU_BIAS:
    case PS_HIPBLASLT_EPILOGUE_GELU_AUX: case PS_HIPBLASLT_EPILOGUE_GELU_AUX_BIAS:
    case PS_HIPBLASLT_EPILOGUE_RELU_AUX: case PS_HIPBLASLT_EPILOGUE_RELU_AUX_BIAS:
    case PS_HIPBLASLT_EPILOGUE_DRELU: case PS_HIPBLASLT_EPILOGUE_DRELU_BGRAD:
    case PS_HIPBLASLT_EPILOGUE_DGELU: case PS_HIPBLASLT_EPILOGUE_DGELU_BGRAD:
    case PS_HIPBLASLT_EPILOGUE_BGRADA: case PS_HIPBLASLT_EPILOGUE_BGRADB:
        return true;
    default:
        return false;
    }
}

/* the backward epilogues: a gradient (DRELU/DGELU: aux is an input) or a bias gradient
 * (written to the bias pointer) */
static bool lt_epilogue_backward(uint32_t e)
{
    return e == PS_HIPBLASLT_EPILOGUE_DRELU || e == PS_HIPBLASLT_EPILOGUE_DRELU_BGRAD ||
           e == PS_HIPBLASLT_EPILOGUE_DGELU || e == PS_HIPBLASLT_EPILOGUE_DGELU_BGRAD ||
           e == PS_HIPBLASLT_EPILOGUE_BGRADA || e == PS_HIPBLASLT_EPILOGUE_BGRADB;
}

/* the epilogues whose aux is the ReLU bit mask (bit i + j ld of the buffer: x > 0) */
static bool lt_epilogue_mask(uint32_t e)
{
    return e == PS_HIPBLASLT_EPILOGUE_RELU_AUX || e == PS_HIPBLASLT_EPILOGUE_RELU_AUX_BIAS ||
           e == PS_HIPBLASLT_EPILOGUE_DRELU || e == PS_HIPBLASLT_EPILOGUE_DRELU_BGRAD;
}

/* the epilogues that write a bias gradient to the bias pointer */
static bool lt_epilogue_bgrad(uint32_t e)
{
    return e == PS_HIPBLASLT_EPILOGUE_DRELU_BGRAD || e == PS_HIPBLASLT_EPILOGUE_DGELU_BGRAD ||
           e == PS_HIPBLASLT_EPILOGUE_BGRADA || e == PS_HIPBLASLT_EPILOGUE_BGRADB;
}

pyshim_hipblasStatus_t lt_problem_check(const void *desc, const void *a, const void *b,
                                        const void *c, const void *d, struct lt_problem *pr)
{
    const struct lt_desc *de = desc;
    const struct lt_layout *ld = d;
    if (!de || de->magic != LT_DESC_MAGIC || !ld || ld->magic != LT_LAYOUT_MAGIC)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    const struct lt_layout *la = a, *lb = b;
    if (!la || la->magic != LT_LAYOUT_MAGIC || !lb || lb->magic != LT_LAYOUT_MAGIC)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    bool ta = de->transa != PS_HIPBLAS_OP_N, tb = de->transb != PS_HIPBLAS_OP_N;
    if ((ta && de->transa != PS_HIPBLAS_OP_T && de->transa != PS_HIPBLAS_OP_C) ||
        (tb && de->transb != PS_HIPBLAS_OP_T && de->transb != PS_HIPBLAS_OP_C))
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    pr->desc = de;
    pr->a = la;
    pr->b = lb;
    pr->c = c ? c : d;
    pr->d = ld;
    pr->m = ld->rows;
    pr->n = ld->cols;
    pr->k = ta ? la->rows : la->cols;
    pr->batch = ld->batch;
    if (pr->batch < 1 || !lt_layout_ok(ld, pr->m, pr->n, pr->batch) ||
        !lt_layout_ok(pr->c, pr->m, pr->n, pr->batch) ||
        !lt_layout_ok(la, ta ? pr->k : pr->m, ta ? pr->m : pr->k, pr->batch) ||
        !lt_layout_ok(lb, tb ? pr->n : pr->k, tb ? pr->k : pr->n, pr->batch))
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    pr->path = lt_path(de, pr);
    if (!pr->path || !lt_epilogue_known(de->epilogue))
        return PS_HIPBLAS_STATUS_NOT_SUPPORTED;
    if (pr->path == 'i' && de->epilogue != PS_HIPBLASLT_EPILOGUE_DEFAULT)
        return PS_HIPBLAS_STATUS_NOT_SUPPORTED;
    /* gradients of f32/f64/16-bit problems, one batch instance (a batch's bias gradient
     * would need the bias batch stride cuBLASLt's side refuses) */
    if (lt_epilogue_backward(de->epilogue) && (pr->path == 'f' || pr->batch != 1))
        return PS_HIPBLAS_STATUS_NOT_SUPPORTED;
    if (de->pointer_mode != PS_HIPBLASLT_POINTER_MODE_HOST &&
        de->pointer_mode != PS_HIPBLASLT_POINTER_MODE_DEVICE)
        return PS_HIPBLAS_STATUS_NOT_SUPPORTED;
    if (pr->m > INT32_MAX || pr->n > INT32_MAX || pr->k > INT32_MAX)
        return PS_HIPBLAS_STATUS_NOT_SUPPORTED; /* OpenBLAS's integers are 32-bit */
    /* the aux matrix's shape is the descriptor's, so the heuristic refuses what the matmul
     * would: ld at least m, and cuBLASLt's ReLU mask ld and stride (bits) multiples of 128 */
    if ((de->epilogue & 128u) && de->aux_ld < pr->m)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    if (lt_epilogue_mask(de->epilogue) && (de->aux_ld % 128 || de->aux_stride % 128))
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    bool scaled = de->scale_a || de->scale_b || de->scale_c || de->scale_d || de->amax_d;
    if (scaled && pr->path != 'f')
        return PS_HIPBLAS_STATUS_INVALID_VALUE; /* as hipBLASLt documents for the scales */
    int bias_type = de->bias_type < 0 ? ld->type : de->bias_type;
    if (((de->epilogue & PS_HIPBLASLT_EPILOGUE_BIAS) || lt_epilogue_bgrad(de->epilogue)) &&
        !(bias_type == PS_HIP_R_32F || lt_is_16(bias_type) ||
          (bias_type == PS_HIP_R_64F && pr->path == 'd')))
        return PS_HIPBLAS_STATUS_NOT_SUPPORTED;
    return PS_HIPBLAS_STATUS_SUCCESS;
}

static double lt_gelu(double x)
{
    /* the tanh form cuBLASLt and hipBLASLt document */
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

/* d/dx of lt_gelu: what DGELU multiplies the incoming gradient by */
static double lt_dgelu(double x)
{
    double t = tanh(0.7978845608028654 * (x + 0.044715 * x * x * x));
    return 0.5 * (1.0 + t) +
           0.5 * x * (1.0 - t * t) * 0.7978845608028654 * (1.0 + 3.0 * 0.044715 * x * x);
}

/* f32 rounded to TF32's 10 mantissa bits, to nearest even (NaN and infinity kept) */
static float lt_tf32(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) != 0x7f800000u) {
        u += 0xfffu + ((u >> 13) & 1u);
        u &= ~0x1fffu;
    }
    memcpy(&x, &u, 4);
    return x;
}

/* gather op(X) of one batch instance into a packed column-major rows x cols buffer */
static void lt_gather(const struct lt_layout *l, const void *base, int64_t batch, bool trans,
                      int64_t rows, int64_t cols, char path, bool tf32, void *out)
{
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            int64_t at = trans ? lt_at(l, batch, j, i) : lt_at(l, batch, i, j);
            double v = lt_load(base, l->type, at);
            if (path == 'd')
                ((double *)out)[i + j * rows] = v;
            else
                ((float *)out)[i + j * rows] = tf32 ? lt_tf32((float)v) : (float)v;
        }
}

static double lt_scalar(const void *p, int type)
{
    return lt_load(p, type, 0);
}

static void lt_int_product(const struct lt_problem *pr, const void *A, const void *B,
                           int64_t bi, int32_t alpha, int32_t beta, const void *C, void *D)
{
    const struct lt_desc *de = pr->desc;
    bool ta = de->transa != PS_HIPBLAS_OP_N, tb = de->transb != PS_HIPBLAS_OP_N;
    for (int64_t j = 0; j < pr->n; j++)
        for (int64_t i = 0; i < pr->m; i++) {
            int64_t acc = 0;
            for (int64_t p = 0; p < pr->k; p++) {
                int64_t ia = ta ? lt_at(pr->a, bi, p, i) : lt_at(pr->a, bi, i, p);
                int64_t ib = tb ? lt_at(pr->b, bi, j, p) : lt_at(pr->b, bi, p, j);
                acc += (int64_t)((const int8_t *)A)[ia] * ((const int8_t *)B)[ib];
            }
            int64_t v = (int64_t)alpha * acc;
            if (beta)
                v += (int64_t)beta * ((const int32_t *)C)[lt_at(pr->c, bi, i, j)];
            ((int32_t *)D)[lt_at(pr->d, bi, i, j)] = (int32_t)v;
        }
}

LT_API pyshim_hipblasStatus_t hipblasLtMatmul(
    pyshim_hipblasLtHandle_t handle, pyshim_hipblasLtMatmulDesc_t desc, const void *alpha,
    const void *A, pyshim_hipblasLtMatrixLayout_t a, const void *B,
    pyshim_hipblasLtMatrixLayout_t b, const void *beta, const void *C,
    pyshim_hipblasLtMatrixLayout_t c, void *D, pyshim_hipblasLtMatrixLayout_t d,
    const pyshim_hipblasLtMatmulAlgo_t *algo, void *workspace, size_t workspaceSize,
    void *stream)
{
    struct lt_handle *h = handle;
    if (!h || h->magic != LT_HANDLE_MAGIC)
        return PS_HIPBLAS_STATUS_NOT_INITIALIZED;
    struct lt_problem pr;
    pyshim_hipblasStatus_t st = lt_problem_check(desc, a, b, c, d, &pr);
    if (st != PS_HIPBLAS_STATUS_SUCCESS)
        return st;
    if (algo && memcmp(algo->data, LT_ALGO_TAG, sizeof LT_ALGO_TAG) != 0)
        return PS_HIPBLAS_STATUS_INVALID_VALUE; /* not an algorithm this library gave */
    if (workspaceSize && !workspace)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    if (!alpha || !beta || !D || !C || (pr.k && (!A || !B)))
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    const struct lt_desc *de = pr.desc;
    if ((de->epilogue & PS_HIPBLASLT_EPILOGUE_BIAS) && !de->bias)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    uint32_t epi = de->epilogue;
    bool aux = (epi & 128u) != 0; /* the *_AUX epilogues and DRELU/DGELU's input */
    bool mask = lt_epilogue_mask(epi), bgrad = lt_epilogue_bgrad(epi);
    if (aux && !de->aux)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    if (bgrad && !de->bias)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    if (hipStreamSynchronize((hipStream_t)stream) != hipSuccess)
        return PS_HIPBLAS_STATUS_EXECUTION_FAILED;
    if (!pr.m || !pr.n)
        return PS_HIPBLAS_STATUS_SUCCESS;
    int scale = de->scale;
    if (pr.path == 'i') {
        int32_t al = *(const int32_t *)alpha, be = *(const int32_t *)beta;
        for (int32_t bi = 0; bi < pr.batch; bi++)
            lt_int_product(&pr, A, B, bi, al, be, C, D);
        return PS_HIPBLAS_STATUS_SUCCESS;
    }
    double al = lt_scalar(alpha, scale), be = lt_scalar(beta, scale);
    /* fp8 scales multiply alpha and beta (single floats: a scalar product, not per element) */
    if (de->scale_a)
        al *= *de->scale_a;
    if (de->scale_b)
        al *= *de->scale_b;
    if (de->scale_c)
        be *= *de->scale_c;
    double scale_d = de->scale_d ? *de->scale_d : 1.0, amax = 0.0;
    /* TF32 rounds the f32 inputs only; 16-bit inputs are exact in TF32 already */
    bool tf32 = de->compute == PS_HIPBLAS_COMPUTE_32F_FAST_TF32 && pr.a->type == PS_HIP_R_32F;
    size_t es = pr.path == 'd' ? 8 : 4;
    int64_t m = pr.m, n = pr.n, k = pr.k;
    void *wa = malloc(es * (size_t)(m * (k ? k : 1)));
    void *wb = malloc(es * (size_t)((k ? k : 1) * n));
    void *wt = malloc(es * (size_t)(m * n));
    void *wg = malloc(sizeof(double) * (size_t)m); /* a bias gradient's row sums */
    if (!wa || !wb || !wt || !wg) {
        free(wa); free(wb); free(wt); free(wg);
        return PS_HIPBLAS_STATUS_ALLOC_FAILED;
    }
    bool ta = de->transa != PS_HIPBLAS_OP_N, tb = de->transb != PS_HIPBLAS_OP_N;
    int bias_type = de->bias_type < 0 ? pr.d->type : de->bias_type;
    int mi = (int)m, ni = (int)n, ki = (int)k;
    for (int32_t bi = 0; bi < pr.batch; bi++) {
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                double v = be != 0.0 ? be * lt_load(C, pr.c->type, lt_at(pr.c, bi, i, j)) : 0.0;
                if (pr.path == 'd')
                    ((double *)wt)[i + j * m] = v;
                else
                    ((float *)wt)[i + j * m] = (float)v;
            }
        if (k) {
            lt_gather(pr.a, A, bi, ta, m, k, pr.path, tf32, wa);
            lt_gather(pr.b, B, bi, tb, k, n, pr.path, tf32, wb);
            char no = 'N';
            if (pr.path == 'd') {
                double one = 1.0;
                OB(dgemm)(&no, &no, &mi, &ni, &ki, &al, wa, &mi, wb, &ki, &one, wt, &mi);
            } else {
                float alf = (float)al, one = 1.0f;
                OB(sgemm)(&no, &no, &mi, &ni, &ki, &alf, wa, &mi, wb, &ki, &one, wt, &mi);
            }
        }
        /* BGRADA/BGRADB: the sums of op(A)'s rows / op(B)'s columns over k, as gathered */
        if (epi == PS_HIPBLASLT_EPILOGUE_BGRADA || epi == PS_HIPBLASLT_EPILOGUE_BGRADB) {
            bool ga = epi == PS_HIPBLASLT_EPILOGUE_BGRADA;
            for (int64_t r = 0; r < (ga ? m : n); r++) {
                double sum = 0.0;
                for (int64_t p = 0; p < k; p++) {
                    int64_t at = ga ? r + p * m : p + r * k;
                    const void *w = ga ? wa : wb;
                    sum += pr.path == 'd' ? ((const double *)w)[at] : ((const float *)w)[at];
                }
                lt_store((void *)de->bias, bias_type, r, sum);
            }
        }
        for (int64_t i = 0; i < m && (epi == PS_HIPBLASLT_EPILOGUE_DRELU_BGRAD ||
                                      epi == PS_HIPBLASLT_EPILOGUE_DGELU_BGRAD); i++)
            ((double *)wg)[i] = 0.0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                double v = pr.path == 'd' ? ((double *)wt)[i + j * m] : ((float *)wt)[i + j * m];
                if (epi & PS_HIPBLASLT_EPILOGUE_BIAS)
                    v += lt_load(de->bias, bias_type, i);
                int64_t ax = bi * de->aux_stride + i + j * de->aux_ld;
                uint8_t *bits = de->aux, bit = (uint8_t)(1u << (ax & 7));
                if (epi == PS_HIPBLASLT_EPILOGUE_DRELU || epi == PS_HIPBLASLT_EPILOGUE_DRELU_BGRAD)
                    v = (bits[ax >> 3] & bit) ? v : 0.0;
                else if (epi == PS_HIPBLASLT_EPILOGUE_DGELU ||
                         epi == PS_HIPBLASLT_EPILOGUE_DGELU_BGRAD)
                    v *= lt_dgelu(lt_load(de->aux, pr.d->type, ax));
                else if (mask)
                    bits[ax >> 3] = (uint8_t)(v > 0.0 ? bits[ax >> 3] | bit : bits[ax >> 3] & ~bit);
                else if (aux)
                    lt_store(de->aux, pr.d->type, ax, v);
                if (epi == PS_HIPBLASLT_EPILOGUE_DRELU_BGRAD ||
                    epi == PS_HIPBLASLT_EPILOGUE_DGELU_BGRAD)
                    ((double *)wg)[i] += v;
                if (epi & PS_HIPBLASLT_EPILOGUE_RELU)
                    v = v > 0.0 ? v : 0.0;
                else if (epi & PS_HIPBLASLT_EPILOGUE_GELU)
                    v = lt_gelu(v);
                if (isnan(v) || fabs(v) > amax)
                    amax = fabs(v); /* a NaN stays: nothing compares greater than it */
                lt_store(D, pr.d->type, lt_at(pr.d, bi, i, j), v * scale_d);
            }
        /* DRELU_BGRAD/DGELU_BGRAD: the bias gradient is the sum of the gradient's rows */
        for (int64_t i = 0; i < m && (epi == PS_HIPBLASLT_EPILOGUE_DRELU_BGRAD ||
                                      epi == PS_HIPBLASLT_EPILOGUE_DGELU_BGRAD); i++)
            lt_store((void *)de->bias, bias_type, i, ((double *)wg)[i]);
    }
    if (de->amax_d)
        *de->amax_d = (float)amax;
    free(wa);
    free(wb);
    free(wt);
    free(wg);
    return PS_HIPBLAS_STATUS_SUCCESS;
}

/* ---- hipblasLtMatrixTransform: C = alpha op(A) + beta op(B), any order and type ---- */

struct lt_transform {
    uint64_t magic;
    int32_t scale, pointer_mode, transa, transb;
};
#define LT_TRANSFORM_MAGIC 0x4c545452414eULL /* "LTTRAN" */

LT_API pyshim_hipblasStatus_t hipblasLtMatrixTransformDescCreate(
    pyshim_hipblasLtMatrixTransformDesc_t *desc, int scaleType)
{
    if (!desc || (scaleType != PS_HIP_R_32F && scaleType != PS_HIP_R_64F))
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    struct lt_transform *t = lt_object_new(sizeof *t, LT_TRANSFORM_MAGIC);
    if (!t)
        return PS_HIPBLAS_STATUS_ALLOC_FAILED;
    t->scale = scaleType;
    t->transa = t->transb = PS_HIPBLAS_OP_N;
    *desc = t;
    return PS_HIPBLAS_STATUS_SUCCESS;
}

LT_API pyshim_hipblasStatus_t hipblasLtMatrixTransformDescDestroy(
    pyshim_hipblasLtMatrixTransformDesc_t desc)
{
    return lt_object_free(desc, LT_TRANSFORM_MAGIC, PS_HIPBLAS_STATUS_INVALID_VALUE);
}

LT_API pyshim_hipblasStatus_t hipblasLtMatrixTransformDescSetAttribute(
    pyshim_hipblasLtMatrixTransformDesc_t desc, int attr, const void *buf, size_t size)
{
    struct lt_transform *t = desc;
    if (!t || t->magic != LT_TRANSFORM_MAGIC || !buf || size != 4)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    int32_t *field = attr == PS_HIPBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE ? &t->scale
                   : attr == PS_HIPBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE ? &t->pointer_mode
                   : attr == PS_HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSA ? &t->transa
                   : attr == PS_HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSB ? &t->transb : NULL;
    if (!field)
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    memcpy(field, buf, 4);
    return PS_HIPBLAS_STATUS_SUCCESS;
}

/* op(X) must be C's shape; X may be absent (its term is then zero) */
static bool lt_transform_operand(const struct lt_layout *x, const void *p, int32_t trans,
                                 const struct lt_layout *c)
{
    if (!p)
        return true;
    if (trans != PS_HIPBLAS_OP_N && trans != PS_HIPBLAS_OP_T)
        return false;
    bool t = trans == PS_HIPBLAS_OP_T;
    return lt_layout_ok(x, t ? c->cols : c->rows, t ? c->rows : c->cols, c->batch);
}

LT_API pyshim_hipblasStatus_t hipblasLtMatrixTransform(
    pyshim_hipblasLtHandle_t handle, pyshim_hipblasLtMatrixTransformDesc_t desc,
    const void *alpha, const void *A, pyshim_hipblasLtMatrixLayout_t a, const void *beta,
    const void *B, pyshim_hipblasLtMatrixLayout_t b, void *C, pyshim_hipblasLtMatrixLayout_t c,
    void *stream)
{
    struct lt_handle *h = handle;
    const struct lt_transform *t = desc;
    const struct lt_layout *la = a, *lb = b, *lc = c;
    if (!h || h->magic != LT_HANDLE_MAGIC)
        return PS_HIPBLAS_STATUS_NOT_INITIALIZED;
    if (!t || t->magic != LT_TRANSFORM_MAGIC || !lc || lc->magic != LT_LAYOUT_MAGIC || !C ||
        !alpha || !beta || lc->batch < 1 || !lt_layout_ok(lc, lc->rows, lc->cols, lc->batch))
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    if (lc->type == PS_HIP_R_8I)
        return PS_HIPBLAS_STATUS_NOT_SUPPORTED; /* no rounding rule is documented */
    if (!lt_transform_operand(la, A, t->transa, lc) || !lt_transform_operand(lb, B, t->transb, lc))
        return PS_HIPBLAS_STATUS_INVALID_VALUE;
    if ((A && la->type != lc->type) || (B && lb->type != lc->type))
        return PS_HIPBLAS_STATUS_NOT_SUPPORTED;
    if (hipStreamSynchronize((hipStream_t)stream) != hipSuccess)
        return PS_HIPBLAS_STATUS_EXECUTION_FAILED;
    double al = lt_scalar(alpha, t->scale), be = lt_scalar(beta, t->scale);
    bool ta = t->transa == PS_HIPBLAS_OP_T, tb = t->transb == PS_HIPBLAS_OP_T;
    /* C may be A or B (in place, same layout): each element is read before it is written */
    for (int32_t bi = 0; bi < lc->batch; bi++)
        for (int64_t j = 0; j < lc->cols; j++)
            for (int64_t i = 0; i < lc->rows; i++) {
                double v = 0.0;
                if (A)
                    v += al * lt_load(A, la->type, ta ? lt_at(la, bi, j, i) : lt_at(la, bi, i, j));
                if (B)
                    v += be * lt_load(B, lb->type, tb ? lt_at(lb, bi, j, i) : lt_at(lb, bi, i, j));
                lt_store(C, lc->type, lt_at(lc, bi, i, j), v);
            }
    return PS_HIPBLAS_STATUS_SUCCESS;
}
