// SASS-only vs PTX-only: packed half atomics (ATOM.E.ADD.F16x2 / BF16x2 with their
// shared-memory fallback behind QSPC.E.S), the CAS loops of scalar half atomics and of a
// shared double (ATOMS.CAST.SPIN.64)
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void hat(__half2 *h2, __nv_bfloat162 *b2, __half *h, __nv_bfloat16 *b, double *dsum, int n) {
    __shared__ double sd[4];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 4) sd[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&sd[i & 3], 0.5 * (i & 7));  // ATOMS.CAST.SPIN.64 loop on sm_80/90
    __syncthreads();
    if (threadIdx.x < 4) atomicAdd(dsum + threadIdx.x, sd[threadIdx.x]);
    if (i >= n) return;
    float v = (float)(i & 3), w = (float)((i >> 2) & 1);
    __half2 old = atomicAdd(h2 + (i & 3), __floats2half2_rn(v, w));
    atomicAdd(b2 + (i & 3), __floats2bfloat162_rn(w, v));
    atomicAdd(h + (i & 7), __float2half(v));
    atomicAdd(b + (i & 7), __float2bfloat16(w));
    (void)old;
}
int main() {
    void *p; cudaMalloc(&p, 4096); cudaMemset(p, 0, 4096);
    char *c = (char *)p;
    hat<<<2, 128>>>((__half2 *)c, (__nv_bfloat162 *)(c + 64), (__half *)(c + 128), (__nv_bfloat16 *)(c + 192), (double *)(c + 256), 256);
    unsigned short o[128];
    if (cudaMemcpy(o, p, 256, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    for (int i = 0; i < 8; i++) printf("%04x %04x %04x %04x\n", o[i], o[32 + i], o[64 + i], o[96 + i]);
    double ds[4];
    cudaMemcpy(ds, c + 256, 32, cudaMemcpyDeviceToHost);
    printf("%g %g %g %g\n", ds[0], ds[1], ds[2], ds[3]);
    printf("hash\n");
    return 0;
}
