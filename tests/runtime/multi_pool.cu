// Memory pools of several CPU devices (PYSHIM_CPU_DEVICES=N, N >= 2): each device has its
// own default and current pool, a pool hands out memory of its own device, peers get
// access with cudaMemPoolSetAccess (read back by cudaMemPoolGetAccess), and a kernel on
// one device reads another device's pool memory. Prints key=value lines; the test
// computes what they must be.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x)                                                                     \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

__global__ void scaled(const int *src, int *dst, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[i] * k + i;
}

static cudaMemLocation device_at(int id)
{
    cudaMemLocation l = {};
    l.type = cudaMemLocationTypeDevice;
    l.id = id;
    return l;
}

static size_t used(cudaMemPool_t p)
{
    size_t v = 0;
    cudaMemPoolGetAttribute(p, cudaMemPoolAttrUsedMemCurrent, &v);
    return v;
}

static int device_of(const void *p)
{
    cudaPointerAttributes a;
    return cudaPointerGetAttributes(&a, p) == cudaSuccess ? a.device : -1;
}

int main(void)
{
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    printf("count=%d\n", count);
    cudaMemPool_t def[8];
    for (int d = 0; d < count && d < 8; d++) {
        CHECK(cudaDeviceGetDefaultMemPool(&def[d], d));
        cudaMemPool_t cur;
        CHECK(cudaDeviceGetMemPool(&cur, d));
        printf("dev%d.current_is_default=%d\n", d, cur == def[d]);
    }
    printf("distinct=%d\n", def[0] != def[1]);

    // access: the owner reads and writes; a peer has none until it is given some
    cudaMemLocation l0 = device_at(0), l1 = device_at(1), bad = device_at(count);
    cudaMemAccessFlags f0, f1;
    CHECK(cudaMemPoolGetAccess(&f0, def[0], &l0));
    CHECK(cudaMemPoolGetAccess(&f1, def[0], &l1));
    printf("access.before=%d,%d\n", (int)f0, (int)f1);
    cudaMemAccessDesc desc = {};
    desc.location = l1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(def[0], &desc, 1));
    CHECK(cudaMemPoolGetAccess(&f1, def[0], &l1));
    printf("access.after=%d\n", (int)f1);
    desc.location = l0;
    desc.flags = cudaMemAccessFlagsProtNone;
    cudaError_t own = cudaMemPoolSetAccess(def[0], &desc, 1);
    desc.location = bad;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    cudaError_t beyond = cudaMemPoolSetAccess(def[0], &desc, 1);
    cudaGetLastError();
    printf("access.refused=%s,%s\n", cudaGetErrorName(own), cudaGetErrorName(beyond));

    // a pool is its device's: a stream of device 1 allocates from device 1's pool
    const int n = 1000;
    int host[n], back[n];
    for (int i = 0; i < n; i++)
        host[i] = 7 * i - 300;
    CHECK(cudaSetDevice(0));
    cudaStream_t s0, s1;
    CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    int *x0;
    CHECK(cudaMallocAsync(&x0, n * sizeof(int), s0));
    CHECK(cudaMemcpyAsync(x0, host, n * sizeof(int), cudaMemcpyHostToDevice, s0));
    CHECK(cudaStreamSynchronize(s0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    int *x1, *y0;
    CHECK(cudaMallocAsync(&x1, n * sizeof(int), s1));
    // from device 0's pool while device 1 is current: device 0's memory
    CHECK(cudaMallocFromPoolAsync(&y0, 64, def[0], s1));
    CHECK(cudaStreamSynchronize(s1));
    printf("ptr.device=%d,%d,%d\n", device_of(x0), device_of(x1), device_of(y0));
    printf("used=%zu,%zu\n", used(def[0]), used(def[1]));

    // device 1's kernel reads device 0's pool memory (access granted above)
    scaled<<<(n + 255) / 256, 256, 0, s1>>>(x0, x1, n, 3);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(back, x1, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
    CHECK(cudaStreamSynchronize(s1));
    long long sum = 0;
    for (int i = 0; i < n; i++)
        sum += (long long)back[i] * (i % 5 + 1);
    printf("sum=%lld\n", sum);

    // a device's current pool must be its own; a created pool of device 1 can be
    cudaError_t foreign = cudaDeviceSetMemPool(1, def[0]);
    cudaGetLastError();
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location = l1;
    cudaMemPool_t mine;
    CHECK(cudaMemPoolCreate(&mine, &props));
    CHECK(cudaDeviceSetMemPool(1, mine));
    cudaMemPool_t cur0, cur1;
    CHECK(cudaDeviceGetMemPool(&cur0, 0));
    CHECK(cudaDeviceGetMemPool(&cur1, 1));
    int *z1;
    CHECK(cudaMallocAsync(&z1, 128, s1));
    CHECK(cudaStreamSynchronize(s1));
    printf("set_pool=%s,%d,%d,%zu,%zu,%d\n", cudaGetErrorName(foreign), cur0 == def[0],
           cur1 == mine, used(mine), used(def[1]), device_of(z1));

    CHECK(cudaFreeAsync(z1, s1));
    CHECK(cudaFreeAsync(x1, s1));
    CHECK(cudaFreeAsync(y0, s1));
    CHECK(cudaFreeAsync(x0, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemPoolDestroy(mine));
    CHECK(cudaDeviceGetMemPool(&cur1, 1));
    printf("after=%zu,%zu,%d\n", used(def[0]), used(def[1]), cur1 == def[1]);
    printf("done=1\n");
    return 0;
}
