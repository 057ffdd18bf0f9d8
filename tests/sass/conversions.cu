// Sub-word integers to float and double (I2F.S16 / I2F.U16 / I2F.F64.S16 in SASS): the
// SASS-only build must print what the PTX-only build prints (tests/test_sass_lift.py).
#include <cstdio>
__global__ void k(const short *a, const unsigned short *b, const signed char *c, float *o, double *d) {
    int i = threadIdx.x;
    o[3 * i] = (float)a[i]; o[3 * i + 1] = (float)b[i]; o[3 * i + 2] = (float)c[i];
    d[i] = (double)a[i] + (double)b[i];
}
int main() {
    short a[64]; unsigned short b[64]; signed char c[64]; float o[192]; double d[64];
    for (int i = 0; i < 64; i++) { a[i] = (short)(i * 1031 - 30000); b[i] = (unsigned short)(i * 1031); c[i] = (signed char)(i * 7 - 200); }
    short *da; unsigned short *db; signed char *dc; float *dout; double *dd;
    cudaMalloc(&da, sizeof a); cudaMalloc(&db, sizeof b); cudaMalloc(&dc, sizeof c); cudaMalloc(&dout, sizeof o); cudaMalloc(&dd, sizeof d);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice); cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice); cudaMemcpy(dc, c, sizeof c, cudaMemcpyHostToDevice);
    k<<<1, 64>>>(da, db, dc, dout, dd);
    cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost); cudaMemcpy(d, dd, sizeof d, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 64; i += 9) printf("%g %g %g %g\n", o[3*i], o[3*i+1], o[3*i+2], d[i]);
}
