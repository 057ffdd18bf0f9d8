// CUDA arrays, texture objects and surface objects on the CPU device (issue #21 point 1).
// Each mode prints "PASS <mode>" when every value matches what the host computes from
// CUDA's documented arithmetic (the programming guide's texture-fetching appendix: 9-bit
// fixed-point weights for linear filtering); runnable unchanged on an NVIDIA GPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>

#define CHECK(x)                                                                     \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static int failures = 0;
static void expect_near(const char *what, int i, float got, float want)
{
    if (!(fabsf(got - want) <= 1e-5f * fmaxf(1.f, fabsf(want)))) {
        if (failures++ < 10)
            printf("mismatch %s[%d]: got %.7g want %.7g\n", what, i, got, want);
    }
}

// ---- arrays: copies in and out, 2D and 3D, runtime and driver ----
static int arrays()
{
    const int w = 37, h = 5, d = 3;
    float host[w * h * d], back[w * h * d];
    for (int i = 0; i < w * h * d; i++)
        host[i] = (float)i * 0.5f - 7.f;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a2;
    CHECK(cudaMallocArray(&a2, &fd, w, h));
    CHECK(cudaMemcpy2DToArray(a2, 0, 0, host, w * sizeof(float), w * sizeof(float), h,
                              cudaMemcpyHostToDevice));
    memset(back, 0, sizeof back);
    CHECK(cudaMemcpy2DFromArray(back, w * sizeof(float), a2, 0, 0, w * sizeof(float), h,
                                cudaMemcpyDeviceToHost));
    for (int i = 0; i < w * h; i++)
        expect_near("2d", i, back[i], host[i]);
    // a window at an offset
    float win[4 * 2];
    CHECK(cudaMemcpy2DFromArray(win, 4 * sizeof(float), a2, 3 * sizeof(float), 2,
                                4 * sizeof(float), 2, cudaMemcpyDeviceToHost));
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 4; x++)
            expect_near("window", y * 4 + x, win[y * 4 + x], host[(y + 2) * w + x + 3]);
    cudaChannelFormatDesc got;
    cudaExtent ext;
    unsigned flags;
    CHECK(cudaArrayGetInfo(&got, &ext, &flags, a2));
    if (got.x != 32 || got.y != 0 || got.f != cudaChannelFormatKindFloat || ext.width != (size_t)w ||
        ext.height != (size_t)h || ext.depth != 0) {
        printf("cudaArrayGetInfo: %d %d %d, %zu x %zu x %zu\n", got.x, got.y, (int)got.f,
               ext.width, ext.height, ext.depth);
        failures++;
    }
    // copying past the array's end is an error, not a write
    if (cudaMemcpy2DToArray(a2, 0, 1, host, w * sizeof(float), w * sizeof(float), h,
                            cudaMemcpyHostToDevice) == cudaSuccess) {
        printf("a copy past the array's end succeeded\n");
        failures++;
    }
    cudaGetLastError();
    CHECK(cudaFreeArray(a2));

    cudaArray_t a3;
    CHECK(cudaMalloc3DArray(&a3, &fd, make_cudaExtent(w, h, d)));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(host, w * sizeof(float), w, h);
    p.dstArray = a3;
    p.extent = make_cudaExtent(w, h, d);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    cudaMemcpy3DParms q = {};
    q.srcArray = a3;
    q.dstPtr = make_cudaPitchedPtr(back, w * sizeof(float), w, h);
    q.extent = make_cudaExtent(w, h, d);
    q.kind = cudaMemcpyDeviceToHost;
    memset(back, 0, sizeof back);
    CHECK(cudaMemcpy3D(&q));
    for (int i = 0; i < w * h * d; i++)
        expect_near("3d", i, back[i], host[i]);
    CHECK(cudaFreeArray(a3));

    // the driver API: cuArrayCreate + cuMemcpy2D both ways
    CUarray ca;
    CUDA_ARRAY_DESCRIPTOR ad = {};
    ad.Width = w;
    ad.Height = h;
    ad.Format = CU_AD_FORMAT_UNSIGNED_INT16;
    ad.NumChannels = 2;
    if (cuArrayCreate(&ca, &ad) != CUDA_SUCCESS) {
        printf("cuArrayCreate failed\n");
        return 1;
    }
    CUDA_ARRAY_DESCRIPTOR ad2 = {};
    if (cuArrayGetDescriptor(&ad2, ca) != CUDA_SUCCESS || ad2.Width != (size_t)w ||
        ad2.Height != (size_t)h || ad2.Format != CU_AD_FORMAT_UNSIGNED_INT16 || ad2.NumChannels != 2) {
        printf("cuArrayGetDescriptor disagrees\n");
        failures++;
    }
    unsigned short src16[w * h * 2], dst16[w * h * 2];
    for (int i = 0; i < w * h * 2; i++)
        src16[i] = (unsigned short)(i * 7 + 3);
    CUDA_MEMCPY2D c = {};
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src16;
    c.srcPitch = w * 4;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = ca;
    c.WidthInBytes = w * 4;
    c.Height = h;
    CUresult r1 = cuMemcpy2D(&c);
    CUDA_MEMCPY2D b = {};
    b.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    b.srcArray = ca;
    b.dstMemoryType = CU_MEMORYTYPE_HOST;
    b.dstHost = dst16;
    b.dstPitch = w * 4;
    b.WidthInBytes = w * 4;
    b.Height = h;
    memset(dst16, 0, sizeof dst16);
    CUresult r2 = cuMemcpy2D(&b);
    if (r1 != CUDA_SUCCESS || r2 != CUDA_SUCCESS || memcmp(src16, dst16, sizeof src16) != 0) {
        printf("cuMemcpy2D through an array: %d %d\n", (int)r1, (int)r2);
        failures++;
    }
    if (cuArrayDestroy(ca) != CUDA_SUCCESS || cuArrayDestroy(ca) == CUDA_SUCCESS) {
        printf("cuArrayDestroy: a second destroy must fail\n");
        failures++;
    }
    return failures;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "arrays";
    cudaFree(0);
    int bad;
    if (strcmp(mode, "arrays") == 0)
        bad = arrays();
    else {
        printf("unknown mode %s\n", mode);
        return 2;
    }
    printf("%s %s\n", bad ? "FAIL" : "PASS", mode);
    return bad ? 1 : 0;
}
