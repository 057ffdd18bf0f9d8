// WMMA kernels for tests/test_ptx_wmma.py (our own code, compiled with nvcc -ptx at test
// time): one warp loads A, B, C with the given layouts and leading dimensions, D = A B + C,
// stores D; every shape and element type the WMMA C++ API lowers to wmma.* for sm_80.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

template <int M, int N, int K, typename T, typename TA, typename Acc, typename LA, typename LB>
__device__ void gemm(const TA *a, const TA *b, const Acc *c, Acc *d, int lda, int ldb,
                     int ldc, bool c_col, bool d_col) {
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::load_matrix_sync(fc, c, ldc, c_col ? wmma::mem_col_major : wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, ldc, d_col ? wmma::mem_col_major : wmma::mem_row_major);
}

#define K_(name, M, N, K, T, TA, Acc, LA, LB)                                               \
    extern "C" __global__ void name(const TA *a, const TA *b, const Acc *c, Acc *d, int lda, \
                                    int ldb, int ldc, int c_col, int d_col) {                \
        gemm<M, N, K, T, TA, Acc, wmma::LA, wmma::LB>(a, b, c, d, lda, ldb, ldc, c_col, d_col); \
    }
#define SHAPES(pre, T, TA, Acc)                                                  \
    K_(pre##_16x16x16_rc, 16, 16, 16, T, TA, Acc, row_major, col_major)          \
    K_(pre##_16x16x16_cr, 16, 16, 16, T, TA, Acc, col_major, row_major)          \
    K_(pre##_32x8x16_rr, 32, 8, 16, T, TA, Acc, row_major, row_major)            \
    K_(pre##_8x32x16_cc, 8, 32, 16, T, TA, Acc, col_major, col_major)

SHAPES(f16f32, half, half, float)
SHAPES(f16f16, half, half, half)
SHAPES(bf16, __nv_bfloat16, __nv_bfloat16, float)
SHAPES(s8, signed char, signed char, int)
SHAPES(u8, unsigned char, unsigned char, int)
K_(tf32_16x16x8_rc, 16, 16, 8, wmma::precision::tf32, float, float, row_major, col_major)
K_(tf32_16x16x8_cr, 16, 16, 8, wmma::precision::tf32, float, float, col_major, row_major)
K_(f64_8x8x4_rc, 8, 8, 4, double, double, double, row_major, col_major)
K_(f64_8x8x4_cr, 8, 8, 4, double, double, double, col_major, row_major)
