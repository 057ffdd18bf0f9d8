// SASS-only vs PTX-only: packed 16-bit min/max (VIMNMX.S16x2/U16x2 on sm_90), three-way
// min/max (VIMNMX3), double fmin/fmax (DSETP.MIN/MAX on sm_80/90), indexed parameters and
// 16-bit atomics
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
struct Table { int v[16]; };
struct DTable { long long v[8]; };
__global__ void misc(const int *a, const double *x, int *o, double *od, Table t, DTable dt,
                     __half *hs, __nv_bfloat16 *bs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int p = a[i], q = a[(i + 7) % n], r = a[(i + 13) % n];
    int *w = o + i * 10;
    w[0] = __vmins2(p, q);
    w[1] = __vmaxu2(p, q);
    w[2] = min(min(p, q), r);
    w[3] = max(max((unsigned)p, (unsigned)q), (unsigned)r);
    w[4] = t.v[(unsigned)p & 15];
    w[5] = (int)dt.v[(unsigned)q & 7];
    w[6] = __vmaxs2(__vminu2(p, r), q);
    w[7] = __vmins2(max(p, r), q) ;
    od[i * 2] = fmin(x[i], x[(i + 3) % n]);
    od[i * 2 + 1] = fmax(x[i], x[(i + 5) % n]);
    atomicAdd(hs + (i & 7), __float2half((float)(p & 3)));
    atomicAdd(bs + (i & 7), __float2bfloat16((float)(q & 3)));
}
int main() {
    const int n = 256;
    static int a[n], o[n * 10]; static double x[n], od[2 * n];
    for (int i = 0; i < n; i++) { a[i] = (i * 7919) % 70001 - 35000 + (i * 131071 << 12); x[i] = (i * 37 % 101) - 50.5; }
    x[5] = 0.0 / 0.0; x[17] = -0.0;
    Table t; for (int i = 0; i < 16; i++) t.v[i] = i * i - 7;
    DTable dt; for (int i = 0; i < 8; i++) dt.v[i] = (long long)i * 1000000007LL;
    int *da, *dout; double *dx, *dod; __half *dh; __nv_bfloat16 *db;
    cudaMalloc(&da, sizeof a); cudaMalloc(&dout, sizeof o); cudaMalloc(&dx, sizeof x); cudaMalloc(&dod, sizeof od);
    cudaMalloc(&dh, 16); cudaMalloc(&db, 16); cudaMemset(dh, 0, 16); cudaMemset(db, 0, 16); cudaMemset(dout, 0, sizeof o);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
    misc<<<2, 128>>>(da, dx, dout, dod, t, dt, dh, db, n);
    if (cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    cudaMemcpy(od, dod, sizeof od, cudaMemcpyDeviceToHost);
    unsigned short hh[8], bb[8];
    cudaMemcpy(hh, dh, 16, cudaMemcpyDeviceToHost); cudaMemcpy(bb, db, 16, cudaMemcpyDeviceToHost);
    long long sum = 0;
    for (int i = 0; i < n * 10; i++) sum = sum * 31 + o[i];
    for (int i = 0; i < n; i += 37) { for (int j = 0; j < 8; j++) printf("%d ", o[i * 10 + j]); printf("%g %g\n", od[2*i], od[2*i+1]); }
    for (int i = 0; i < 2 * n; i++) { unsigned long long b; memcpy(&b, &od[i], 8); sum = sum * 31 + (long long)b; }
    for (int i = 0; i < 8; i++) printf("%04x %04x\n", hh[i], bb[i]);
    printf("hash %lld\n", sum);
    return 0;
}
