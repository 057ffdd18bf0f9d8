// SASS-only vs PTX-only: a __grid_constant__ struct parameter indexed by a loop register
// (LDC / LDC.64 c[0x0][Rn+imm], ptxas biasing the register below the parameters)
#include <cstdio>
struct Info { int sizes[8]; int strides[8]; long long wide[4]; int dims; };
__global__ void offs(const __grid_constant__ Info info, int *o, long long *o2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int lin = i, off = 0;
    #pragma unroll 1
    for (int d = info.dims - 1; d >= 0; d--) {
        off += (lin % info.sizes[d]) * info.strides[d];
        lin /= info.sizes[d];
    }
    o[i] = off;
    o2[i] = info.wide[i & 3] + info.wide[(i >> 2) & 3];
}
int main() {
    Info in; int sz[8] = {3, 5, 2, 7, 1, 1, 1, 1};
    for (int d = 0; d < 8; d++) { in.sizes[d] = sz[d]; in.strides[d] = (d * 37) % 11 + 1; }
    for (int d = 0; d < 4; d++) in.wide[d] = 1000000007LL * (d + 1);
    in.dims = 4;
    const int n = 210; static int o[n]; static long long o2[n];
    int *d; long long *d2; cudaMalloc(&d, sizeof o); cudaMalloc(&d2, sizeof o2);
    offs<<<2, 128>>>(in, d, d2, n);
    if (cudaMemcpy(o, d, sizeof o, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    cudaMemcpy(o2, d2, sizeof o2, cudaMemcpyDeviceToHost);
    long long h = 0; for (int i = 0; i < n; i++) h = h * 31 + o[i] + o2[i];
    printf("%d %d %d %lld\nhash %lld\n", o[1], o[100], o[209], o2[7], h);
    return 0;
}
