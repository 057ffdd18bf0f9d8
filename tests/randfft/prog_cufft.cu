// cuFFT through pyshim: 1D/2D/3D and many-plans of every type; each result printed for the
// test to compare with numpy.fft on the same inputs.
#include <cstdio>
#include <cstdlib>
#include <cufft.h>
#include <cufftXt.h>

static void ok(const char *what, cufftResult r)
{
    if (r != CUFFT_SUCCESS) {
        printf("%s failed %d\n", what, (int)r);
        exit(1);
    }
}

// x[i] = sin(0.37 i) + 0.25 cos(1.3 i): the same formula the test evaluates
static double input(int i) { return __builtin_sin(0.37 * i) + 0.25 * __builtin_cos(1.3 * i); }

static void print(const char *name, const double *v, int n)
{
    printf("%s", name);
    for (int i = 0; i < n; i++)
        printf(" %.6e", v[i]);
    printf("\n");
}

int main(void)
{
    // C2C 1D, batch 2, n = 12, forward
    {
        const int n = 12, batch = 2;
        cufftComplex h[24];
        for (int i = 0; i < n * batch; i++) {
            h[i].x = (float)input(i);
            h[i].y = (float)input(i + 100);
        }
        cufftComplex *d;
        cudaMalloc(&d, sizeof h);
        cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
        cufftHandle p;
        ok("plan1d", cufftPlan1d(&p, n, CUFFT_C2C, batch));
        ok("exec", cufftExecC2C(p, d, d, CUFFT_FORWARD));
        cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
        double out[48];
        for (int i = 0; i < 24; i++) {
            out[2 * i] = h[i].x;
            out[2 * i + 1] = h[i].y;
        }
        print("c2c", out, 48);
        ok("destroy", cufftDestroy(p));
    }
    // D2Z 2D 6x10 out of place, then Z2D back
    {
        const int nx = 6, ny = 10, nc = ny / 2 + 1;
        double h[60];
        for (int i = 0; i < nx * ny; i++)
            h[i] = input(i);
        double *d;
        cufftDoubleComplex *z;
        cudaMalloc(&d, sizeof h);
        cudaMalloc(&z, sizeof(cufftDoubleComplex) * nx * nc);
        cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
        cufftHandle p, q;
        ok("plan2d", cufftPlan2d(&p, nx, ny, CUFFT_D2Z));
        ok("exec", cufftExecD2Z(p, d, z));
        cufftDoubleComplex hz[36];
        cudaMemcpy(hz, z, sizeof hz[0] * nx * nc, cudaMemcpyDeviceToHost);
        double out[72];
        for (int i = 0; i < nx * nc; i++) {
            out[2 * i] = hz[i].x;
            out[2 * i + 1] = hz[i].y;
        }
        print("d2z", out, 2 * nx * nc);
        ok("plan2d", cufftPlan2d(&q, nx, ny, CUFFT_Z2D));
        ok("exec", cufftExecZ2D(q, z, d));
        cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
        print("z2d", h, 60);
        cufftDestroy(p);
        cufftDestroy(q);
    }
    // R2C 3D 4x3x6 through cufftCreate + cufftMakePlanMany + a work area
    {
        int n[3] = {4, 3, 6};
        const int total = 72, nc = 4 * 3 * 4;
        float h[72];
        for (int i = 0; i < total; i++)
            h[i] = (float)input(i);
        float *d;
        cufftComplex *c;
        cudaMalloc(&d, sizeof h);
        cudaMalloc(&c, sizeof(cufftComplex) * nc);
        cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
        cufftHandle p;
        size_t ws = 1;
        ok("create", cufftCreate(&p));
        ok("autoalloc", cufftSetAutoAllocation(p, 0));
        ok("makemany", cufftMakePlanMany(p, 3, n, NULL, 1, 0, NULL, 1, 0, CUFFT_R2C, 1, &ws));
        void *work;
        cudaMalloc(&work, ws + 16);
        ok("workarea", cufftSetWorkArea(p, work));
        cudaStream_t st;
        cudaStreamCreate(&st);
        ok("stream", cufftSetStream(p, st));
        ok("exec", cufftExecR2C(p, d, c));
        cudaStreamSynchronize(st);
        cufftComplex hc[48];
        cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost);
        double out[96];
        for (int i = 0; i < nc; i++) {
            out[2 * i] = hc[i].x;
            out[2 * i + 1] = hc[i].y;
        }
        print("r2c3d", out, 96);
        cufftDestroy(p);
    }
    // Z2Z through the extended planner, with an advanced layout: 3 transforms of 8, each
    // element 2 apart (stride 2), the transforms 17 apart
    {
        long long n[1] = {8}, emb[1] = {16};
        cufftDoubleComplex h[51];
        for (int i = 0; i < 51; i++) {
            h[i].x = input(i);
            h[i].y = -input(i + 7);
        }
        cufftDoubleComplex *d, *o;
        cudaMalloc(&d, sizeof h);
        cudaMalloc(&o, sizeof h);
        cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
        cudaMemcpy(o, h, sizeof h, cudaMemcpyHostToDevice);
        cufftHandle p;
        size_t ws = 0;
        ok("create", cufftCreate(&p));
        ok("xtmake", cufftXtMakePlanMany(p, 1, n, emb, 2, 17, CUDA_C_64F, emb, 2, 17, CUDA_C_64F,
                                         3, &ws, CUDA_C_64F));
        ok("xtexec", cufftXtExec(p, d, o, CUFFT_INVERSE));
        cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
        double out[102];
        for (int i = 0; i < 51; i++) {
            out[2 * i] = h[i].x;
            out[2 * i + 1] = h[i].y;
        }
        print("xtz2z", out, 102);
        printf("xthalf %d\n", (int)cufftXtMakePlanMany(p, 1, n, NULL, 1, 8, CUDA_C_16F, NULL, 1,
                                                       8, CUDA_C_16F, 1, &ws, CUDA_C_16F));
        cufftDestroy(p);
    }
    // refusals: a bad plan, a callback, and a call with no hipFFT counterpart
    printf("badplan %d\n", (int)cufftExecC2C(12345, NULL, NULL, CUFFT_FORWARD));
    cufftHandle p;
    ok("plan1d", cufftPlan1d(&p, 8, CUFFT_C2C, 1));
    printf("callback %d\n", (int)cufftXtSetCallback(p, NULL, CUFFT_CB_LD_COMPLEX, NULL));
    printf("unmapped %d\n", (int)cufftXtSetWorkAreaPolicy(p, CUFFT_WORKAREA_MINIMAL, NULL));
    int v = 0;
    cufftGetVersion(&v);
    printf("version %d\n", v);
    return 0;
}
