// SASS-only vs PTX-only: HSET2 (.BF: 1.0 per half; plain: a 0xffff mask per half)
#include <cstdio>
#include <cuda_fp16.h>
__global__ void hs(const __half2 *a, const __half2 *b, __half2 *o, unsigned *m, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[i] = __hle2(a[i], b[i]);
    m[i] = __hle2_mask(a[i], b[(i + 1) % n]) ^ __hgt2_mask(a[(i + 2) % n], b[i]);
}
int main() {
    const int n = 64; static __half2 a[n], b[n], o[n]; static unsigned m[n];
    for (int i = 0; i < n; i++) { a[i] = __floats2half2_rn((i % 7) - 3, (i % 5) - 2); b[i] = __floats2half2_rn((i % 3) - 1, (i % 4) - 2); }
    a[3] = __floats2half2_rn(0.0f / 0.0f, 1.0f);
    __half2 *da, *db, *dout; unsigned *dm;
    cudaMalloc(&da, sizeof a); cudaMalloc(&db, sizeof b); cudaMalloc(&dout, sizeof o); cudaMalloc(&dm, sizeof m);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice); cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    hs<<<1, 64>>>(da, db, dout, dm, n);
    if (cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    cudaMemcpy(m, dm, sizeof m, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) { unsigned x; memcpy(&x, &o[i], 4); printf("%08x %08x\n", x, m[i]); }
    printf("hash\n");
    return 0;
}
