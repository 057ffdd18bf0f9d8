/* rocBLAS gemm_ex, gemm_batched_ex and gemm_strided_batched_ex (LP64 and _64) on the CPU
 * device: D = alpha op(A) op(B) + beta C with per-operand data types.
 *
 * Supported (a/b, c/d, compute) combinations, as rocBLAS documents them for these types:
 * f32/f32/f32, f64/f64/f64, c32/c32/c32, c64/c64/c64, f16/f16/{f16,f32}, f16/f32/f32,
 * bf16/bf16/f32, bf16/f32/f32. Same-type f32/f64/complex calls go straight to OpenBLAS;
 * f16 and bf16 operands are widened to f32, multiplied by sgemm and narrowed back (round to
 * nearest even). Anything else returns rocblas_status_not_implemented. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blas_common.h"
#include "blas_half.h"
#include "blas_openblas.h"

struct rb_gemm_ex_args {
    char ta, tb;
    int64_t m, n, k;
    const void *alpha, *a, *b, *beta, *c;
    void *d;
    rocblas_datatype at, bt, ct, dt, comp;
    int64_t lda, ldb, ldc, ldd, sa, sb, sc, sd, batch;
    enum rb_form form;
};

static bool rb_is(rocblas_datatype t, rocblas_datatype want)
{
    return t == want;
}

/* which path: 's','d','c','z' (native) or 'h' (f16/bf16 through f32); 0 unsupported */
static char rb_gemm_ex_path(const struct rb_gemm_ex_args *g)
{
    if (g->at != g->bt || g->ct != g->dt)
        return 0;
    if (g->at == g->ct && g->comp == g->at) {
        switch (g->at) {
        case rocblas_datatype_f32_r: return 's';
        case rocblas_datatype_f64_r: return 'd';
        case rocblas_datatype_f32_c: return 'c';
        case rocblas_datatype_f64_c: return 'z';
        default: break;
        }
    }
    bool half_in = rb_is(g->at, rocblas_datatype_f16_r) || rb_is(g->at, rocblas_datatype_bf16_r);
    bool out_ok = g->ct == g->at || g->ct == rocblas_datatype_f32_r;
    bool comp_ok = g->comp == rocblas_datatype_f32_r ||
                   (g->comp == rocblas_datatype_f16_r && g->at == rocblas_datatype_f16_r &&
                    g->ct == rocblas_datatype_f16_r);
    return half_in && out_ok && comp_ok ? 'h' : 0;
}

static rocblas_status rb_gemm_ex(rocblas_handle handle, struct rb_gemm_ex_args *g)
{
    RB_CHECK_HANDLE;
    if (!g->ta || !g->tb)
        return rocblas_status_invalid_value;
    if (g->m < 0 || g->n < 0 || g->k < 0 || g->batch < 0 ||
        g->lda < (g->ta == 'N' ? g->m : g->k) || g->ldb < (g->tb == 'N' ? g->k : g->n) ||
        g->ldc < g->m || g->ldd < g->m)
        return rocblas_status_invalid_size;
    if (g->c == g->d && g->ldc != g->ldd)
        return rocblas_status_invalid_size;
    if (!g->m || !g->n || !g->batch)
        return rocblas_status_success;
    if (!g->alpha || !g->beta || !g->d || !g->c || (g->k && (!g->a || !g->b)))
        return rocblas_status_invalid_pointer;
    char path = rb_gemm_ex_path(g);
    if (!path)
        return rocblas_status_not_implemented;
    if (!rb_fits(g->m) || !rb_fits(g->n) || !rb_fits(g->k) || !rb_fits(g->lda) ||
        !rb_fits(g->ldb) || !rb_fits(g->ldd))
        return rocblas_status_invalid_size;
    RB_ENTER(handle);
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    size_t ea = rb_dt_size(g->at), ec = rb_dt_size(g->ct);
    if (path != 'h') {
        int la = (int)(g->lda < 1 ? 1 : g->lda), lb = (int)(g->ldb < 1 ? 1 : g->ldb);
        int ld = (int)g->ldd;
        for (int64_t i = 0; i < g->batch; i++) {
            const void *a = rb_inst(g->a, g->form, i, g->sa, ea);
            const void *b = rb_inst(g->b, g->form, i, g->sb, ea);
            const void *c = rb_inst(g->c, g->form, i, g->sc, ec);
            void *d = (void *)rb_inst(g->d, g->form, i, g->sd, ec);
            if (c != d) /* D = beta C + ...: start from C's values in D */
                for (int64_t j = 0; j < g->n; j++)
                    memmove((char *)d + (size_t)(j * g->ldd) * ec,
                            (const char *)c + (size_t)(j * g->ldc) * ec, (size_t)g->m * ec);
            void *al = (void *)g->alpha, *be = (void *)g->beta;
            void *pa = (void *)a, *pb = (void *)b;
            switch (path) {
            case 's': OB(sgemm)(&g->ta, &g->tb, &m, &n, &k, al, pa, &la, pb, &lb, be, d, &ld); break;
            case 'd': OB(dgemm)(&g->ta, &g->tb, &m, &n, &k, al, pa, &la, pb, &lb, be, d, &ld); break;
            case 'c': OB(cgemm)(&g->ta, &g->tb, &m, &n, &k, al, pa, &la, pb, &lb, be, d, &ld); break;
            default: OB(zgemm)(&g->ta, &g->tb, &m, &n, &k, al, pa, &la, pb, &lb, be, d, &ld); break;
            }
        }
        return rocblas_status_success;
    }
    /* 16-bit inputs: widen to f32, sgemm, narrow D */
    float alpha = rb_load_f32(g->alpha, g->comp, 0), beta = rb_load_f32(g->beta, g->comp, 0);
    int64_t ra = g->ta == 'N' ? g->m : g->k, ca = g->ta == 'N' ? g->k : g->m;
    int64_t rbr = g->tb == 'N' ? g->k : g->n, cb = g->tb == 'N' ? g->n : g->k;
    float *wa = malloc(sizeof(float) * (size_t)(ra * ca + rbr * cb + g->m * g->n + 1));
    if (!wa)
        return rocblas_status_memory_error;
    float *wb = wa + ra * ca, *wc = wb + rbr * cb;
    int la = (int)(ra < 1 ? 1 : ra), lb = (int)(rbr < 1 ? 1 : rbr);
    char ta = g->ta == 'C' ? 'T' : g->ta, tb = g->tb == 'C' ? 'T' : g->tb; /* real data */
    for (int64_t i = 0; i < g->batch; i++) {
        const void *a = rb_inst(g->a, g->form, i, g->sa, ea);
        const void *b = rb_inst(g->b, g->form, i, g->sb, ea);
        const void *c = rb_inst(g->c, g->form, i, g->sc, ec);
        void *d = (void *)rb_inst(g->d, g->form, i, g->sd, ec);
        if (k) {
            rb_widen(a, g->at, g->lda, ra, ca, wa);
            rb_widen(b, g->bt, g->ldb, rbr, cb, wb);
        }
        rb_widen(c, g->ct, g->ldc, g->m, g->n, wc);
        OB(sgemm)(&ta, &tb, &m, &n, &k, &alpha, wa, &la, wb, &lb, &beta, wc, &m);
        for (int64_t j = 0; j < g->n; j++)
            for (int64_t r = 0; r < g->m; r++)
                rb_store_f32(d, g->dt, r + j * g->ldd, wc[r + j * g->m]);
    }
    free(wa);
    return rocblas_status_success;
}

/* The six entry points only gather their arguments. The header also defines these names as
 * function-like macros, so the definitions put the name in parentheses. */
#define RB_GEMM_EX_HEAD(W)                                                                     \
    rocblas_handle handle, rocblas_operation transA, rocblas_operation transB, RB_INT_##W m,   \
        RB_INT_##W n, RB_INT_##W k, const void *alpha
#define RB_GEMM_EX_TAIL rocblas_datatype compute_type, rocblas_gemm_algo algo,                 \
    int32_t solution_index, uint32_t flags
#define RB_GEMM_EX_INIT(F)                                                                     \
    (void)algo;                                                                                \
    (void)solution_index;                                                                      \
    (void)flags;                                                                               \
    struct rb_gemm_ex_args g = {rb_op(transA), rb_op(transB), m, n, k, alpha, a, b, beta, c, d, \
                                a_type, b_type, c_type, d_type, compute_type, lda, ldb, ldc,   \
                                ldd, 0, 0, 0, 0, 1, F};

#define RB_GEMM_EX_ALL(W)                                                                      \
    RB_API rocblas_status (RB_CAT5(rocblas_gemm_ex, , , , RB_WSFX_##W))(                         \
        RB_GEMM_EX_HEAD(W), const void *a, rocblas_datatype a_type, RB_INT_##W lda,            \
        const void *b, rocblas_datatype b_type, RB_INT_##W ldb, const void *beta,              \
        const void *c, rocblas_datatype c_type, RB_INT_##W ldc, void *d,                       \
        rocblas_datatype d_type, RB_INT_##W ldd, RB_GEMM_EX_TAIL)                              \
    {                                                                                          \
        RB_GEMM_EX_INIT(RB_FORM_P)                                                             \
        return rb_gemm_ex(handle, &g);                                                         \
    }                                                                                          \
    RB_API rocblas_status (RB_CAT5(rocblas_gemm_batched_ex, , , , RB_WSFX_##W))(                 \
        RB_GEMM_EX_HEAD(W), const void *a, rocblas_datatype a_type, RB_INT_##W lda,            \
        const void *b, rocblas_datatype b_type, RB_INT_##W ldb, const void *beta,              \
        const void *c, rocblas_datatype c_type, RB_INT_##W ldc, void *d,                       \
        rocblas_datatype d_type, RB_INT_##W ldd, RB_INT_##W batch_count, RB_GEMM_EX_TAIL)      \
    {                                                                                          \
        RB_GEMM_EX_INIT(RB_FORM_B)                                                             \
        g.batch = batch_count;                                                                 \
        return rb_gemm_ex(handle, &g);                                                         \
    }                                                                                          \
    RB_API rocblas_status (RB_CAT5(rocblas_gemm_strided_batched_ex, , , , RB_WSFX_##W))(         \
        RB_GEMM_EX_HEAD(W), const void *a, rocblas_datatype a_type, RB_INT_##W lda,            \
        rocblas_stride stride_a, const void *b, rocblas_datatype b_type, RB_INT_##W ldb,       \
        rocblas_stride stride_b, const void *beta, const void *c, rocblas_datatype c_type,     \
        RB_INT_##W ldc, rocblas_stride stride_c, void *d, rocblas_datatype d_type,             \
        RB_INT_##W ldd, rocblas_stride stride_d, RB_INT_##W batch_count, RB_GEMM_EX_TAIL)      \
    {                                                                                          \
        RB_GEMM_EX_INIT(RB_FORM_S)                                                             \
        g.sa = stride_a;                                                                       \
        g.sb = stride_b;                                                                       \
        g.sc = stride_c;                                                                       \
        g.sd = stride_d;                                                                       \
        g.batch = batch_count;                                                                 \
        return rb_gemm_ex(handle, &g);                                                         \
    }
RB_GEMM_EX_ALL(L)
RB_GEMM_EX_ALL(W)

/* hgemm: all-f16 gemm through the same path */
#define RB_HGEMM(F, W, pre, T)                                                                 \
    RB_API rocblas_status RB_NAME(pre, gemm, F, W)(                                            \
        rocblas_handle handle, rocblas_operation transA, rocblas_operation transB,             \
        RB_INT_##W m, RB_INT_##W n, RB_INT_##W k, const T *alpha,                              \
        RB_MAT_##F(const T, A, RB_INT_##W), RB_MAT_##F(const T, B, RB_INT_##W), const T *beta, \
        RB_MAT_##F(T, C, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        const rocblas_datatype h_ = rocblas_datatype_f16_r;                                    \
        struct rb_gemm_ex_args g = {rb_op(transA), rb_op(transB), m, n, k, alpha, A, B, beta,  \
                                    C, (void *)C, h_, h_, h_, h_, h_, ldA, ldB, ldC, ldC, 0, 0, 0, 0,  \
                                    RB_NB_##F, RB_FORM_##F};                                   \
        RB_HGEMM_STRIDES_##F                                                                   \
        return rb_gemm_ex(handle, &g);                                                         \
    }
#define RB_HGEMM_STRIDES_P
#define RB_HGEMM_STRIDES_B
#define RB_HGEMM_STRIDES_S                                                                     \
    g.sa = strideA;                                                                            \
    g.sb = strideB;                                                                            \
    g.sc = g.sd = strideC;
RB_EACH_FORM(RB_HGEMM, h, rocblas_half)
