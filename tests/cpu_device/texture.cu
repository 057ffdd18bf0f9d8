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

// copies that leave an array are refused with cudaErrorInvalidValue (the driver's array
// copies check their bounds; NVIDIA's static cudart passes these through cuMemcpy2D/3D)
// and leave the array as it was
static int array_bounds()
{
    const int w = 16, h = 4;
    static float host[1024], back[w * h];
    for (int i = 0; i < 1024; i++)
        host[i] = (float)i;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &fd, w, h));
    static const float zero[w * h] = {};
    CHECK(cudaMemcpy2DToArray(a, 0, 0, zero, w * 4, w * 4, h, cudaMemcpyHostToDevice));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    struct {
        const char *what;
        cudaError_t got;
    } cases[] = {
        {"2DToArray a row too many",
         cudaMemcpy2DToArray(a, 0, 0, host, w * 4, w * 4, h + 1, cudaMemcpyHostToDevice)},
        {"2DToArray past the row's end",
         cudaMemcpy2DToArray(a, 4, 0, host, w * 4 + 4, w * 4, 1, cudaMemcpyHostToDevice)},
        {"2DToArrayAsync past the row's end",
         cudaMemcpy2DToArrayAsync(a, 4, 1, host, w * 4, w * 4, 1, cudaMemcpyHostToDevice, s)},
        {"2DFromArray a row too many",
         cudaMemcpy2DFromArray(host, w * 4, a, 0, 1, w * 4, h, cudaMemcpyDeviceToHost)},
    };
    for (auto &c : cases) {
        if (c.got != cudaErrorInvalidValue) {
            printf("%s: %s, want cudaErrorInvalidValue\n", c.what, cudaGetErrorName(c.got));
            failures++;
        }
    }
    cudaGetLastError();
    // the driver's own descriptors: a 2D copy and a 3D copy leaving the array
    CUDA_MEMCPY2D c2 = {};
    c2.srcMemoryType = CU_MEMORYTYPE_HOST;
    c2.srcHost = host;
    c2.srcPitch = w * 4;
    c2.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c2.dstArray = (CUarray)a;
    c2.dstXInBytes = 8;
    c2.WidthInBytes = w * 4 - 4;
    c2.Height = 1;
    if (cuMemcpy2D(&c2) != CUDA_ERROR_INVALID_VALUE) {
        printf("cuMemcpy2D past the row's end was not refused\n");
        failures++;
    }
    CUDA_MEMCPY3D c3 = {};
    c3.srcMemoryType = CU_MEMORYTYPE_HOST;
    c3.srcHost = host;
    c3.srcPitch = w * 4;
    c3.srcHeight = h;
    c3.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c3.dstArray = (CUarray)a;
    c3.dstZ = 1;
    c3.WidthInBytes = w * 4;
    c3.Height = h;
    c3.Depth = 1;
    if (cuMemcpy3D(&c3) != CUDA_ERROR_INVALID_VALUE) {
        printf("cuMemcpy3D into a second slice of a 2D array was not refused\n");
        failures++;
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy2DFromArray(back, w * 4, a, 0, 0, w * 4, h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < w * h; i++)
        expect_near("array after refused copies", i, back[i], 0.0f);
    // the linear (row-major) forms: cudart copies the rows that fit before the driver
    // refuses the rest, so only the error is checked
    struct {
        const char *what;
        cudaError_t got;
    } linear[] = {
        {"ToArrayAsync past the end",
         cudaMemcpyToArrayAsync(a, 0, 0, host, w * h * 4 + 4, cudaMemcpyHostToDevice, s)},
        {"ToArray past the end",
         cudaMemcpyToArray(a, 0, 0, host, w * h * 4 + 4, cudaMemcpyHostToDevice)},
        {"ToArray at an offset past the end",
         cudaMemcpyToArray(a, 8 * 4, 3, host, 9 * 4, cudaMemcpyHostToDevice)},
    };
    for (auto &c : linear) {
        if (c.got != cudaErrorInvalidValue) {
            printf("%s: %s, want cudaErrorInvalidValue\n", c.what, cudaGetErrorName(c.got));
            failures++;
        }
    }
    cudaGetLastError();
    CHECK(cudaStreamSynchronize(s));
    // in bounds, to the last element
    CHECK(cudaMemcpy2DToArray(a, 4, h - 1, host, w * 4, w * 4 - 4, 1, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2DFromArray(back, w * 4, a, 0, 0, w * 4, h, cudaMemcpyDeviceToHost));
    for (int x = 1; x < w; x++)
        expect_near("last row", x, back[(h - 1) * w + x], host[x - 1]);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeArray(a));
    return failures;
}

// ---- arrays: copies in and out, 2D and 3D, runtime and driver ----
// w x h x d floats from the host into a 3D (or layered) array with cudaMemcpy3D
static void copy_3d_in(cudaArray_t a, const float *host, int w, int h, int d)
{
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr((void *)host, w * sizeof(float), w, h);
    p.dstArray = a;
    p.extent = make_cudaExtent(w, h, d);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
}

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
    copy_3d_in(a3, host, w, h, d);
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

// ---- textures: kernels and the host's reference of CUDA's arithmetic ----
__global__ void sample1d(cudaTextureObject_t t, const float *xs, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1D<float>(t, xs[i]);
}

__global__ void sample2d(cudaTextureObject_t t, const float2 *xy, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<float4>(t, xy[i].x, xy[i].y);
}

__global__ void fetch_linear(cudaTextureObject_t t, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1Dfetch<float>(t, i * 3 - 4);
}

__global__ void gather(cudaTextureObject_t t, const float2 *xy, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2Dgather<float4>(t, xy[i].x, xy[i].y, 0);
}

__global__ void surface_scale(cudaSurfaceObject_t s, int w, int h)
{
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h) {
        float v;
        surf2Dread(&v, s, x * 4, y);
        surf2Dwrite(v * 2.0f + (float)x, s, x * 4, y);
    }
}

__global__ void surface_from_level(cudaSurfaceObject_t s, cudaTextureObject_t t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h)
        surf2Dwrite(tex2D<float>(t, 2 * x + 1.0f, 2 * y + 1.0f) + 0.25f, s, x * 4, y);
}

// a mipmapped texture three ways: tex2DLod at q[i].z, tex2DGrad with derivatives of
// length q[i].w along x and y (normalized units), tex2D with no level of detail
__global__ void sample_mip(cudaTextureObject_t t, const float4 *q, float *lod, float *grad,
                           float *plain, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 c = q[i];
        lod[i] = tex2DLod<float>(t, c.x, c.y, c.z);
        grad[i] = tex2DGrad<float>(t, c.x, c.y, make_float2(c.w, 0.0f), make_float2(0.0f, c.w));
        plain[i] = tex2D<float>(t, c.x, c.y);
    }
}

__global__ void sample_layered(cudaTextureObject_t t, const float2 *xy, float *out, int n,
                               int layers)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n * layers)
        out[i] = tex2DLayered<float>(t, xy[i % n].x, xy[i % n].y, i / n);
}

__global__ void absdiff4(const unsigned *a, const unsigned *b, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned r;
        asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r) : "r"(a[i]), "r"(b[i]), "r"((unsigned)i));
        out[i] = r;
    }
}

// CUDA's address modes on an integer texel index
static int address(int i, int n, int mode)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == cudaAddressModeWrap)
        return ((i % n) + n) % n;
    if (mode == cudaAddressModeMirror) {
        int r = ((i % (2 * n)) + 2 * n) % (2 * n);
        return r < n ? r : 2 * n - 1 - r;
    }
    if (mode == cudaAddressModeBorder)
        return -1;
    return i < 0 ? 0 : n - 1;
}

static float fixed9(float frac) { return roundf(frac * 256.0f) / 256.0f; }

// 32-bit integer texels at integer coordinates (stereoDisparity's pitch-linear RGBX reads)
__global__ void sample_u32(cudaTextureObject_t t, const int2 *xy, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<unsigned int>(t, (float)xy[i].x, (float)xy[i].y);
}

__global__ void sample_s32(cudaTextureObject_t t, const int2 *xy, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<int>(t, (float)xy[i].x, (float)xy[i].y);
}

static float *dev_copy(const void *p, size_t n)
{
    void *d;
    CHECK(cudaMalloc(&d, n));
    CHECK(cudaMemcpy(d, p, n, cudaMemcpyHostToDevice));
    return (float *)d;
}

// A w x h array of format fd filled from data (rows of w elements of elem bytes), and a
// texture object reading it as td says: the set-up the 2D sampling modes share
static cudaTextureObject_t array_texture(cudaChannelFormatDesc fd, const void *data, int w,
                                         int h, size_t elem, const cudaTextureDesc *td,
                                         cudaArray_t *a)
{
    CHECK(cudaMallocArray(a, &fd, w, h));
    CHECK(cudaMemcpy2DToArray(*a, 0, 0, data, w * elem, w * elem, h, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = *a;
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &rd, td, NULL));
    return t;
}

// kernel(t, xy, out, n) over n coordinates, a thread each; out copied back
static void sample(void (*kernel)(cudaTextureObject_t, const float2 *, float4 *, int),
                   cudaTextureObject_t t, const float2 *xy, float4 *out, int n)
{
    float2 *dxy = (float2 *)dev_copy(xy, n * sizeof *xy);
    float4 *dout;
    CHECK(cudaMalloc(&dout, n * sizeof *out));
    kernel<<<(n + 31) / 32, 32>>>(t, dxy, dout, n);
    CHECK(cudaMemcpy(out, dout, n * sizeof *out, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dxy));
    CHECK(cudaFree(dout));
}

// 1D linear filtering of floats, clamp and border, unnormalized coordinates
static int tex1d_linear()
{
    const int w = 16, n = 64;
    float data[w], xs[n], out[n];
    for (int i = 0; i < w; i++)
        data[i] = (float)(i * i) * 0.25f - 3.0f;
    for (int i = 0; i < n; i++)
        xs[i] = -2.0f + i * 0.3125f;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &fd, w));
    CHECK(cudaMemcpy2DToArray(a, 0, 0, data, sizeof data, sizeof data, 1, cudaMemcpyHostToDevice));
    float *dx = dev_copy(xs, sizeof xs), *dout;
    CHECK(cudaMalloc(&dout, sizeof out));
    // wrap with unnormalized coordinates: CUDA clamps (it wraps normalized ones only)
    const int modes[3] = {cudaAddressModeClamp, cudaAddressModeBorder, cudaAddressModeWrap};
    const char *names[3] = {"tex1d clamp", "tex1d border", "tex1d unnormalized wrap"};
    for (int m = 0; m < 3; m++) {
        cudaResourceDesc rd = {};
        rd.resType = cudaResourceTypeArray;
        rd.res.array.array = a;
        cudaTextureDesc td = {};
        td.addressMode[0] = (cudaTextureAddressMode)modes[m];
        td.filterMode = cudaFilterModeLinear;
        td.readMode = cudaReadModeElementType;
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &rd, &td, NULL));
        sample1d<<<2, 32>>>(t, dx, dout, n);
        CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
            float b = xs[i] - 0.5f;
            int i0 = (int)floorf(b);
            float al = fixed9(b - floorf(b));
            int mode = modes[m] == cudaAddressModeWrap ? cudaAddressModeClamp : modes[m];
            int j0 = address(i0, w, mode), j1 = address(i0 + 1, w, mode);
            float t0 = j0 < 0 ? 0.0f : data[j0], t1 = j1 < 0 ? 0.0f : data[j1];
            expect_near(names[m], i, out[i], (1.0f - al) * t0 + al * t1);
        }
        CHECK(cudaDestroyTextureObject(t));
    }
    CHECK(cudaFreeArray(a));
    return failures;
}

// 2D point sampling of uchar4 read as normalized floats, clamp; then normalized coordinates
// with wrap and mirror
static int tex2d(bool normalized)
{
    const int w = 7, h = 5, n = 96;
    unsigned char data[h][w][4];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++)
                data[y][x][c] = (unsigned char)(x * 31 + y * 17 + c * 60);
    float2 xy[n];
    float4 out[n];
    for (int i = 0; i < n; i++)
        xy[i] = normalized ? make_float2(-1.3f + i * 0.037f, 2.2f - i * 0.051f)
                           : make_float2(-2.5f + (i % 12) * 0.9f, -1.5f + (i / 12) * 0.95f);
    cudaTextureDesc td = {};
    int mx = normalized ? cudaAddressModeWrap : cudaAddressModeClamp;
    int my = normalized ? cudaAddressModeMirror : cudaAddressModeClamp;
    td.addressMode[0] = (cudaTextureAddressMode)mx;
    td.addressMode[1] = (cudaTextureAddressMode)my;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeNormalizedFloat;
    td.normalizedCoords = normalized;
    cudaArray_t a;
    cudaTextureObject_t t = array_texture(cudaCreateChannelDesc<uchar4>(), data, w, h, 4, &td, &a);
    sample(sample2d, t, xy, out, n);
    for (int i = 0; i < n; i++) {
        float u = xy[i].x, v = xy[i].y;
        if (normalized) {  // wrap and mirror act on the normalized coordinate
            u = u - floorf(u);
            float f = v - 2.0f * floorf(v * 0.5f);
            v = f <= 1.0f ? f : 2.0f - f;
            u *= w;
            v *= h;
        }
        int x = address((int)floorf(u), w, mx), y = address((int)floorf(v), h, my);
        const float got[4] = {out[i].x, out[i].y, out[i].z, out[i].w};
        for (int c = 0; c < 4; c++)
            expect_near(normalized ? "tex2d normalized" : "tex2d clamp", i * 4 + c, got[c],
                        data[y][x][c] / 255.0f);
    }
    // the texture's resource descriptor reads back
    cudaResourceDesc back;
    CHECK(cudaGetTextureObjectResourceDesc(&back, t));
    if (back.resType != cudaResourceTypeArray || back.res.array.array != a) {
        printf("cudaGetTextureObjectResourceDesc disagrees\n");
        failures++;
    }
    // gather: the first channel of the four texels bilinear filtering reads
    if (!normalized) {
        td.readMode = cudaReadModeElementType;
        float fdata[h][w];
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                fdata[y][x] = x + 10.0f * y;
        cudaArray_t fa;
        cudaTextureObject_t g = array_texture(cudaCreateChannelDesc<float>(), fdata, w, h,
                                              sizeof(float), &td, &fa);
        sample(gather, g, xy, out, n);
        for (int i = 0; i < n; i++) {
            int i0 = (int)floorf(xy[i].x - 0.5f), j0 = (int)floorf(xy[i].y - 0.5f);
            const int dx[4] = {0, 1, 1, 0}, dy[4] = {1, 1, 0, 0};
            const float got[4] = {out[i].x, out[i].y, out[i].z, out[i].w};
            for (int k = 0; k < 4; k++) {
                int x = address(i0 + dx[k], w, mx), y = address(j0 + dy[k], h, my);
                expect_near("tld4", i * 4 + k, got[k], fdata[y][x]);
            }
        }
        CHECK(cudaDestroyTextureObject(g));
        CHECK(cudaFreeArray(fa));
    }
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));
    return failures;
}

// tex1Dfetch on linear memory: integer coordinates, clamped
static int fetch()
{
    const int w = 40, n = 20;
    float data[w], out[n];
    for (int i = 0; i < w; i++)
        data[i] = 1.5f * i - 2.0f;
    float *d = dev_copy(data, sizeof data), *dout;
    CHECK(cudaMalloc(&dout, sizeof out));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = d;
    rd.res.linear.desc = cudaCreateChannelDesc<float>();
    rd.res.linear.sizeInBytes = sizeof data;
    cudaTextureDesc td = {};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, NULL));
    fetch_linear<<<1, 32>>>(t, dout, n);
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int j = i * 3 - 4;
        if (j >= 0 && j < w)  // out of range is undefined in CUDA
            expect_near("tex1Dfetch", i, out[i], data[j]);
    }
    CHECK(cudaDestroyTextureObject(t));
    return failures;
}

// a surface written and read by a kernel, then read back by a copy
static int surface()
{
    const int w = 19, h = 6;
    float data[h][w], back[h][w];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            data[y][x] = y * 100.0f + x * 0.5f;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &fd, w, h, cudaArraySurfaceLoadStore));
    CHECK(cudaMemcpy2DToArray(a, 0, 0, data, w * 4, w * 4, h, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaSurfaceObject_t s;
    CHECK(cudaCreateSurfaceObject(&s, &rd));
    surface_scale<<<h, 32>>>(s, w, h);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy2DFromArray(back, w * 4, a, 0, 0, w * 4, h, cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            expect_near("surface", y * w + x, back[y][x], data[y][x] * 2.0f + x);
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(a));
    return failures;
}

// a layered 2D array (cudaArrayLayered), filled by cudaMemcpy3D, linear filtering per layer
static int layered()
{
    const int w = 6, h = 4, layers = 3, n = 40;
    float data[layers][h][w];
    for (int l = 0; l < layers; l++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                data[l][y][x] = l * 100.0f + y * 10.0f + x;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CHECK(cudaMalloc3DArray(&a, &fd, make_cudaExtent(w, h, layers), cudaArrayLayered));
    copy_3d_in(a, &data[0][0][0], w, h, layers);
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, NULL));
    float2 xy[n];
    for (int i = 0; i < n; i++)
        xy[i] = make_float2(-0.7f + i * 0.19f, 4.6f - i * 0.13f);
    float2 *dxy = (float2 *)dev_copy(xy, sizeof xy);
    float out[n * layers], *dout;
    CHECK(cudaMalloc(&dout, sizeof out));
    sample_layered<<<4, 32>>>(t, dxy, dout, n, layers);
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n * layers; i++) {
        int l = i / n;
        float bx = xy[i % n].x - 0.5f, by = xy[i % n].y - 0.5f;
        int x0 = (int)floorf(bx), y0 = (int)floorf(by);
        float al = fixed9(bx - floorf(bx)), be = fixed9(by - floorf(by));
        float want = 0.0f;
        for (int dy = 0; dy <= 1; dy++)
            for (int dx = 0; dx <= 1; dx++) {
                int x = address(x0 + dx, w, cudaAddressModeClamp);
                int y = address(y0 + dy, h, cudaAddressModeClamp);
                want += (dx ? al : 1.0f - al) * (dy ? be : 1.0f - be) * data[l][y][x];
            }
        expect_near("layered", i, out[i], want);
    }
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));
    return failures;
}

// a mipmapped array: each level half the one before (at least 1), copies into a level
static int mipmap()
{
    const int w = 20, h = 9, levels = 4;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float2>();
    cudaMipmappedArray_t m;
    CHECK(cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(w, h, 0), levels));
    for (int l = 0; l < levels; l++) {
        cudaArray_t a;
        CHECK(cudaGetMipmappedArrayLevel(&a, m, l));
        cudaChannelFormatDesc got;
        cudaExtent e;
        unsigned flags;
        CHECK(cudaArrayGetInfo(&got, &e, &flags, a));
        size_t ww = w >> l ? w >> l : 1, hh = h >> l ? h >> l : 1;
        if (e.width != ww || e.height != hh || got.x != 32 || got.y != 32 || got.z != 0) {
            printf("level %d: %zu x %zu, channels %d %d %d\n", l, e.width, e.height, got.x,
                   got.y, got.z);
            failures++;
        }
        float src[20 * 9 * 2], back[20 * 9 * 2];
        for (size_t i = 0; i < ww * hh * 2; i++)
            src[i] = l * 1000.0f + i;
        CHECK(cudaMemcpy2DToArray(a, 0, 0, src, ww * 8, ww * 8, hh, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy2DFromArray(back, ww * 8, a, 0, 0, ww * 8, hh, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < ww * hh * 2; i++)
            expect_near("mipmap level", (int)i, back[i], src[i]);
    }
    cudaArray_t none;
    if (cudaGetMipmappedArrayLevel(&none, m, levels) == cudaSuccess) {
        printf("a level past the last one was given\n");
        failures++;
    }
    cudaGetLastError();
    CHECK(cudaFreeMipmappedArray(m));
    return failures;
}

// a surface over a level of a mipmapped array made without cudaArraySurfaceLoadStore:
// NVIDIA's driver accepts it (mipmap generation writes level l+1 from level l this way)
static int mipmap_surface()
{
    const int w = 22, h = 10;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t m;
    CHECK(cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(w, h, 0), 2));
    cudaArray_t l0, l1;
    CHECK(cudaGetMipmappedArrayLevel(&l0, m, 0));
    CHECK(cudaGetMipmappedArrayLevel(&l1, m, 1));
    float src[h][w], back[h / 2][w / 2];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            src[y][x] = y * 50.0f + x;
    CHECK(cudaMemcpy2DToArray(l0, 0, 0, src, w * 4, w * 4, h, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = l0;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, NULL));
    rd.res.array.array = l1;
    cudaSurfaceObject_t s;
    CHECK(cudaCreateSurfaceObject(&s, &rd));
    surface_from_level<<<dim3(1, h / 2), 32>>>(s, t, w / 2, h / 2);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy2DFromArray(back, w / 2 * 4, l1, 0, 0, w / 2 * 4, h / 2,
                                cudaMemcpyDeviceToHost));
    for (int y = 0; y < h / 2; y++)
        for (int x = 0; x < w / 2; x++)
            expect_near("mipmap_surface", y * (w / 2) + x, back[y][x],
                        src[2 * y + 1][2 * x + 1] + 0.25f);
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeMipmappedArray(m));
    return failures;
}

// level l of the mipmapped texture in mipmap_lod(): 32 x 16 halved, clamped, point texels
static float mip_texel(int l, float u, float v)
{
    int w = 32 >> l, h = 16 >> l;
    int x = (int)floorf(u * w), y = (int)floorf(v * h);
    x = x < 0 ? 0 : (x >= w ? w - 1 : x);
    y = y < 0 ? 0 : (y >= h ? h - 1 : y);
    return l * 1000.0f + y * 40.0f + x;
}

// CUDA's level of detail: lod + bias clamped to [min, max] (and the levels there are); point
// mipmap filtering the nearest level, linear the two around it (the fractions used here are
// exact in 8 bits, no ties between two levels, so the precision of the hardware's level
// arithmetic does not matter); tex2DGrad's level is log2 of the derivatives' length in
// level-0 texels; tex2D's is 0
static int mipmap_lod()
{
    const int w = 32, h = 16, levels = 5;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t m;
    CHECK(cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(w, h, 0), levels));
    for (int l = 0; l < levels; l++) {
        int ww = w >> l, hh = h >> l;
        float src[16][32];
        for (int y = 0; y < hh; y++)
            for (int x = 0; x < ww; x++)
                src[y][x] = l * 1000.0f + y * 40.0f + x;
        cudaArray_t a;
        CHECK(cudaGetMipmappedArrayLevel(&a, m, l));
        CHECK(cudaMemcpy2DToArray(a, 0, 0, src, sizeof src[0], ww * 4, hh,
                                  cudaMemcpyHostToDevice));
    }
    const float lods[] = {-1.0f, 0.0f,  0.25f, 0.625f, 0.75f, 1.0f,
                          1.375f, 2.25f, 3.0f, 4.0f,   7.0f};
    const int nl = sizeof lods / sizeof lods[0], n = nl * 3;
    float4 q[n], *dq;
    for (int i = 0; i < n; i++) {
        float u = (0.5f + 7 * i % 32) / 32.0f, v = (0.5f + 3 * i % 16) / 16.0f;
        float l = lods[i % nl];
        q[i] = make_float4(u, v, l, exp2f(l) / w);   // a derivative of 2^l level-0 texels
    }
    float *d_lod, *d_grad, *d_plain, got_lod[n], got_grad[n], got_plain[n];
    CHECK(cudaMalloc(&dq, sizeof q));
    CHECK(cudaMalloc(&d_lod, sizeof got_lod));
    CHECK(cudaMalloc(&d_grad, sizeof got_grad));
    CHECK(cudaMalloc(&d_plain, sizeof got_plain));
    CHECK(cudaMemcpy(dq, q, sizeof q, cudaMemcpyHostToDevice));
    struct {
        cudaTextureFilterMode mip;
        float bias, lo, hi;
    } setups[] = {
        {cudaFilterModePoint, 0.0f, 0.0f, levels - 1.0f},
        {cudaFilterModeLinear, 0.0f, 0.0f, levels - 1.0f},
        {cudaFilterModeLinear, 0.5f, 0.75f, 2.5f},
        {cudaFilterModePoint, -1.0f, 1.0f, 10.0f},
    };
    for (auto &st : setups) {
        cudaResourceDesc rd = {};
        rd.resType = cudaResourceTypeMipmappedArray;
        rd.res.mipmap.mipmap = m;
        cudaTextureDesc td = {};
        td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
        td.filterMode = cudaFilterModePoint;
        td.readMode = cudaReadModeElementType;
        td.normalizedCoords = 1;
        td.mipmapFilterMode = st.mip;
        td.mipmapLevelBias = st.bias;
        td.minMipmapLevelClamp = st.lo;
        td.maxMipmapLevelClamp = st.hi;
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &rd, &td, NULL));
        sample_mip<<<1, 64>>>(t, dq, d_lod, d_grad, d_plain, n);
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(got_lod, d_lod, sizeof got_lod, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(got_grad, d_grad, sizeof got_grad, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(got_plain, d_plain, sizeof got_plain, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
            float want[3];
            const float asked[3] = {q[i].z, q[i].z, 0.0f};
            for (int k = 0; k < 3; k++) {
                float l = fmaxf(fminf(asked[k] + st.bias, fminf(st.hi, levels - 1.0f)), st.lo);
                l = fminf(fmaxf(l, 0.0f), levels - 1.0f);
                if (st.mip == cudaFilterModePoint) {
                    want[k] = mip_texel((int)floorf(l + 0.5f), q[i].x, q[i].y);
                } else {
                    int l0 = (int)floorf(l);
                    float f = l - l0;
                    want[k] = f == 0.0f ? mip_texel(l0, q[i].x, q[i].y)
                                        : (1 - f) * mip_texel(l0, q[i].x, q[i].y) +
                                              f * mip_texel(l0 + 1, q[i].x, q[i].y);
                }
            }
            expect_near("tex2DLod", i, got_lod[i], want[0]);
            expect_near("tex2DGrad", i, got_grad[i], want[1]);
            expect_near("tex2D of a mipmapped texture", i, got_plain[i], want[2]);
        }
        CHECK(cudaDestroyTextureObject(t));
    }
    CHECK(cudaFree(dq));
    CHECK(cudaFree(d_lod));
    CHECK(cudaFree(d_grad));
    CHECK(cudaFree(d_plain));
    CHECK(cudaFreeMipmappedArray(m));
    return failures;
}

// vabsdiff4 (stereoDisparity's SAD): the byte lanes' absolute differences summed, plus c
static int vabsdiff()
{
    const int n = 64;
    unsigned a[n], b[n], out[n];
    for (int i = 0; i < n; i++) {
        a[i] = 0x9e3779b9u * (i + 1);
        b[i] = 0x7f4a7c15u * (i + 3);
    }
    unsigned *da = (unsigned *)dev_copy(a, sizeof a), *db = (unsigned *)dev_copy(b, sizeof b), *dout;
    CHECK(cudaMalloc(&dout, sizeof out));
    absdiff4<<<2, 32>>>(da, db, dout, n);
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        unsigned want = i;
        for (int k = 0; k < 4; k++)
            want += abs((int)((a[i] >> (8 * k)) & 255) - (int)((b[i] >> (8 * k)) & 255));
        if (out[i] != want && failures++ < 10)
            printf("vabsdiff4[%d]: got %u want %u\n", i, out[i], want);
    }
    return failures;
}

// 32-bit integer formats are never promoted to floats (CUDA promotes 8- and 16-bit ones
// only), whether or not the runtime sets the read-as-integer flag: exact bits, clamped
static int pitch2d_32bit(void)
{
    const int w = 9, h = 6, n = 80;
    unsigned data[h][w];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            data[y][x] = 0x9e3779b9u * (unsigned)(y * w + x + 1);
    int2 xy[n];
    for (int i = 0; i < n; i++)
        xy[i] = make_int2(-3 + (i * 7) % 15, -2 + (i * 5) % 10);
    void *dimg;
    size_t pitch;
    CHECK(cudaMallocPitch(&dimg, &pitch, w * sizeof(unsigned), h));
    CHECK(cudaMemcpy2D(dimg, pitch, data, w * sizeof(unsigned), w * sizeof(unsigned), h,
                       cudaMemcpyHostToDevice));
    int2 *dxy = (int2 *)dev_copy(xy, sizeof xy);
    unsigned out[n], *dout;
    CHECK(cudaMalloc(&dout, sizeof out));
    for (int sgn = 0; sgn < 2; sgn++) {
        cudaResourceDesc rd = {};
        rd.resType = cudaResourceTypePitch2D;
        rd.res.pitch2D.devPtr = dimg;
        rd.res.pitch2D.desc = sgn ? cudaCreateChannelDesc<int>() : cudaCreateChannelDesc<unsigned>();
        rd.res.pitch2D.width = w;
        rd.res.pitch2D.height = h;
        rd.res.pitch2D.pitchInBytes = pitch;
        cudaTextureDesc td = {};
        td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
        td.filterMode = cudaFilterModePoint;
        td.readMode = cudaReadModeElementType;
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &rd, &td, NULL));
        if (sgn)
            sample_s32<<<3, 32>>>(t, dxy, (int *)dout, n);
        else
            sample_u32<<<3, 32>>>(t, dxy, dout, n);
        CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
            int x = address(xy[i].x, w, cudaAddressModeClamp);
            int y = address(xy[i].y, h, cudaAddressModeClamp);
            if (out[i] != data[y][x]) {
                printf("pitch2d %s32[%d] (%d,%d): got %08x want %08x\n", sgn ? "s" : "u", i,
                       xy[i].x, xy[i].y, out[i], data[y][x]);
                failures++;
            }
        }
        CHECK(cudaDestroyTextureObject(t));
    }
    CHECK(cudaFree(dimg));
    return failures;
}

// sRGB: colour channels of a uchar4 normalized read go through sRGB -> linear before the
// bilinear filter, alpha does not
static float srgb_linear(float c)
{
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

static int srgb(void)
{
    const int w = 6, h = 4, n = 64;
    unsigned char data[h][w][4];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++)
                data[y][x][c] = (unsigned char)(x * 43 + y * 29 + c * 71 + 5);
    float2 xy[n];
    float4 out[n];
    for (int i = 0; i < n; i++)
        xy[i] = make_float2(-0.8f + (i % 8) * 0.93f, -0.6f + (i / 8) * 0.67f);
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeNormalizedFloat;
    td.sRGB = 1;
    cudaArray_t a;
    cudaTextureObject_t t = array_texture(cudaCreateChannelDesc<uchar4>(), data, w, h, 4, &td, &a);
    sample(sample2d, t, xy, out, n);
    for (int i = 0; i < n; i++) {
        float bx = xy[i].x - 0.5f, by = xy[i].y - 0.5f;
        int x0 = (int)floorf(bx), y0 = (int)floorf(by);
        float al = fixed9(bx - floorf(bx)), be = fixed9(by - floorf(by));
        float want[4] = {0, 0, 0, 0};
        for (int dy = 0; dy <= 1; dy++)
            for (int dx = 0; dx <= 1; dx++) {
                int x = address(x0 + dx, w, cudaAddressModeClamp);
                int y = address(y0 + dy, h, cudaAddressModeClamp);
                float wt = (dx ? al : 1.0f - al) * (dy ? be : 1.0f - be);
                for (int c = 0; c < 4; c++) {
                    float v = data[y][x][c] / 255.0f;
                    want[c] += wt * (c < 3 ? srgb_linear(v) : v);
                }
            }
        expect_near("srgb r", i, out[i].x, want[0]);
        expect_near("srgb g", i, out[i].y, want[1]);
        expect_near("srgb b", i, out[i].z, want[2]);
        expect_near("srgb a", i, out[i].w, want[3]);
    }
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));
    return failures;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "arrays";
    cudaFree(0);
    int bad;
    if (strcmp(mode, "arrays") == 0)
        bad = arrays();
    else if (strcmp(mode, "array_bounds") == 0)
        bad = array_bounds();
    else if (strcmp(mode, "tex1d_linear") == 0)
        bad = tex1d_linear();
    else if (strcmp(mode, "tex2d_clamp") == 0)
        bad = tex2d(false);
    else if (strcmp(mode, "tex2d_normalized") == 0)
        bad = tex2d(true);
    else if (strcmp(mode, "fetch") == 0)
        bad = fetch();
    else if (strcmp(mode, "pitch2d_32bit") == 0)
        bad = pitch2d_32bit();
    else if (strcmp(mode, "srgb") == 0)
        bad = srgb();
    else if (strcmp(mode, "vabsdiff") == 0)
        bad = vabsdiff();
    else if (strcmp(mode, "mipmap") == 0)
        bad = mipmap();
    else if (strcmp(mode, "layered") == 0)
        bad = layered();
    else if (strcmp(mode, "surface") == 0)
        bad = surface();
    else if (strcmp(mode, "mipmap_lod") == 0)
        bad = mipmap_lod();
    else if (strcmp(mode, "mipmap_surface") == 0)
        bad = mipmap_surface();
    else {
        printf("unknown mode %s\n", mode);
        return 2;
    }
    printf("%s %s\n", bad ? "FAIL" : "PASS", mode);
    return bad ? 1 : 0;
}
