/* The CPU-device benchmark kernels as plain C loops (the "same kernel written as a plain C
 * loop" of DESIGN.md's budget): the same computations and result layouts as kernels.cu,
 * parallel over blocks with OpenMP on the same number of threads as the CPU device's
 * workers (bench_set_threads). Built with the kernel compiler's own flags plus -fopenmp
 * (benchmarks/build.py), so both sides get the same instructions and rounding
 * (-ffp-contract=off). */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#define BLOCK 256
#define TILE 16
#define BINS 256

void bench_set_threads(int n) { omp_set_num_threads(n); }

void saxpy(int n, float a, const float *x, const float *y, float *z)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        z[i] = a * x[i] + y[i];
}

/* the same pairwise tree as the kernel, so the float sums round identically */
void reduce(int n, const float *in, float *partial)
{
    int blocks = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks; b++) {
        float s[BLOCK];
        for (int t = 0; t < BLOCK; t++) {
            int i = b * BLOCK + t;
            s[t] = i < n ? in[i] : 0.0f;
        }
        for (int stride = BLOCK / 2; stride > 0; stride >>= 1)
            for (int t = 0; t < stride; t++)
                s[t] += s[t + stride];
        partial[b] = s[0];
    }
}

/* accumulation over k in the same order as the tiled kernel */
void sgemm(int n, const float *a, const float *b, float *c)
{
#pragma omp parallel for schedule(static)
    for (int row = 0; row < n; row++) {
        float *crow = c + (size_t)row * n;
        for (int col = 0; col < n; col++)
            crow[col] = 0.0f;
        for (int k = 0; k < n; k++) {
            float av = a[(size_t)row * n + k];
            const float *brow = b + (size_t)k * n;
            for (int col = 0; col < n; col++)
                crow[col] += av * brow[col];
        }
    }
}

void histogram(int n, const unsigned char *in, unsigned int *bins)
{
    memset(bins, 0, BINS * sizeof *bins);
#pragma omp parallel
    {
        unsigned int local[BINS] = {0};
#pragma omp for schedule(static)
        for (int i = 0; i < n; i++)
            local[in[i]]++;
        for (int t = 0; t < BINS; t++)
            if (local[t] != 0) {
#pragma omp atomic
                bins[t] += local[t];
            }
    }
}

/* border rows and columns copied, the interior as a straight loop the compiler vectorises */
void stencil(int w, int h, const float *in, float *out)
{
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; y++) {
        const float *r = in + (size_t)y * w;
        float *o = out + (size_t)y * w;
        if (y == 0 || y == h - 1) {
            memcpy(o, r, (size_t)w * sizeof *o);
            continue;
        }
        o[0] = r[0];
        for (int x = 1; x < w - 1; x++)
            o[x] = 0.2f * (r[x] + r[x - 1] + r[x + 1] + r[x - w] + r[x + w]);
        if (w > 1)
            o[w - 1] = r[w - 1];
    }
}

void scan(int n, const int *in, int *out)
{
    int blocks = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks; b++) {
        int acc = 0;
        int end = (b + 1) * BLOCK < n ? (b + 1) * BLOCK : n;
        for (int i = b * BLOCK; i < end; i++) {
            acc += in[i];
            out[i] = acc;
        }
    }
}
