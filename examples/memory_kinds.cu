// Memory kinds through the shim: device, pinned, managed, pitched allocations, memsets and
// 1D/2D copies between them. No kernels, so it runs without the PTX translator.
// Self-checking: prints "PASS memory_kinds" and exits 0, or names the first failure.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            std::printf("FAIL memory_kinds: %s: %s (%s) at line %d\n", #call,            \
                        cudaGetErrorName(err_), cudaGetErrorString(err_), __LINE__);     \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

#define EXPECT(cond)                                                                     \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            std::printf("FAIL memory_kinds: %s at line %d\n", #cond, __LINE__);          \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

int main()
{
    const int n = 1 << 16;
    const size_t bytes = n * sizeof(int);

    // device memory: H -> D -> D -> H
    int *host = static_cast<int *>(std::malloc(bytes));
    for (int i = 0; i < n; i++)
        host[i] = i * 7 - 3;
    int *d1 = nullptr, *d2 = nullptr;
    CHECK(cudaMalloc(&d1, bytes));
    CHECK(cudaMalloc(&d2, bytes));
    CHECK(cudaMemcpy(d1, host, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d2, d1, bytes, cudaMemcpyDeviceToDevice));
    int *back = static_cast<int *>(std::calloc(n, sizeof(int)));
    CHECK(cudaMemcpy(back, d2, bytes, cudaMemcpyDeviceToHost));
    EXPECT(std::memcmp(back, host, bytes) == 0);

    // memset, then the default (unified addressing) copy kind
    CHECK(cudaMemset(d1, 0x5a, bytes));
    CHECK(cudaMemcpy(back, d1, bytes, cudaMemcpyDefault));
    for (int i = 0; i < n; i++)
        EXPECT(back[i] == 0x5a5a5a5a);

    // pinned host memory and its attributes
    int *pinned = nullptr;
    CHECK(cudaMallocHost(&pinned, bytes));
    CHECK(cudaMemcpy(pinned, d2, bytes, cudaMemcpyDeviceToHost));
    EXPECT(std::memcmp(pinned, host, bytes) == 0);
    cudaPointerAttributes attr;
    CHECK(cudaPointerGetAttributes(&attr, pinned));
    EXPECT(attr.type == cudaMemoryTypeHost);
    CHECK(cudaPointerGetAttributes(&attr, d1));
    EXPECT(attr.type == cudaMemoryTypeDevice);
    CHECK(cudaFreeHost(pinned));

    // managed memory is usable from the host directly
    int *managed = nullptr;
    CHECK(cudaMallocManaged(&managed, bytes));
    CHECK(cudaMemcpy(managed, d2, bytes, cudaMemcpyDefault));
    cudaMemLocation on_device = {cudaMemLocationTypeDevice, 0};
    cudaMemLocation on_host = {cudaMemLocationTypeHost, 0};
    CHECK(cudaMemPrefetchAsync(managed, bytes, on_device, 0, 0));
    CHECK(cudaMemPrefetchAsync(managed, bytes, on_host, 0, 0));
    CHECK(cudaDeviceSynchronize());
    EXPECT(std::memcmp(managed, host, bytes) == 0);
    CHECK(cudaMemAdvise(managed, bytes, cudaMemAdviseSetReadMostly, on_device));
    CHECK(cudaFree(managed));

    // peer copy within the device, and stream-ordered allocation
    int *peer = nullptr;
    CHECK(cudaMallocAsync(&peer, bytes, 0));
    CHECK(cudaMemcpyPeer(peer, 0, d2, 0, bytes));
    CHECK(cudaMemcpy(back, peer, bytes, cudaMemcpyDeviceToHost));
    EXPECT(std::memcmp(back, host, bytes) == 0);
    CHECK(cudaFreeAsync(peer, 0));
    CHECK(cudaStreamSynchronize(0));

    // pitched 2D memory: copy a width x height block in and out with 2D copies
    const size_t width = 100, height = 37;
    float *pitched = nullptr;
    size_t pitch = 0;
    CHECK(cudaMallocPitch(reinterpret_cast<void **>(&pitched), &pitch, width * sizeof(float), height));
    EXPECT(pitch >= width * sizeof(float));
    float *grid = static_cast<float *>(std::malloc(width * height * sizeof(float)));
    for (size_t i = 0; i < width * height; i++)
        grid[i] = 0.5f * static_cast<float>(i);
    CHECK(cudaMemset2D(pitched, pitch, 0, width * sizeof(float), height));
    CHECK(cudaMemcpy2D(pitched, pitch, grid, width * sizeof(float), width * sizeof(float), height,
                       cudaMemcpyHostToDevice));
    float *grid_back = static_cast<float *>(std::calloc(width * height, sizeof(float)));
    CHECK(cudaMemcpy2D(grid_back, width * sizeof(float), pitched, pitch, width * sizeof(float),
                       height, cudaMemcpyDeviceToHost));
    EXPECT(std::memcmp(grid, grid_back, width * height * sizeof(float)) == 0);

    // a 3D pitched allocation, filled from the host and read back with 3D copies
    cudaExtent extent = make_cudaExtent(24 * sizeof(short), 10, 6);
    cudaPitchedPtr vol;
    CHECK(cudaMalloc3D(&vol, extent));
    const size_t cells = 24 * 10 * 6;
    short *box = static_cast<short *>(std::malloc(cells * sizeof(short)));
    short *box_back = static_cast<short *>(std::calloc(cells, sizeof(short)));
    for (size_t i = 0; i < cells; i++)
        box[i] = static_cast<short>(i * 3 - 500);
    cudaMemcpy3DParms up = {};
    up.srcPtr = make_cudaPitchedPtr(box, 24 * sizeof(short), 24, 10);
    up.dstPtr = vol;
    up.extent = extent;
    up.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&up));
    cudaMemcpy3DParms down = {};
    down.srcPtr = vol;
    down.dstPtr = make_cudaPitchedPtr(box_back, 24 * sizeof(short), 24, 10);
    down.extent = extent;
    down.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3DAsync(&down, 0));
    CHECK(cudaDeviceSynchronize());
    EXPECT(std::memcmp(box, box_back, cells * sizeof(short)) == 0);
    CHECK(cudaFree(vol.ptr));
    std::free(box);
    std::free(box_back);

    size_t free_bytes = 0, total_bytes = 0;
    CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    EXPECT(total_bytes > 0 && free_bytes <= total_bytes);

    CHECK(cudaFree(pitched));
    CHECK(cudaFree(d1));
    CHECK(cudaFree(d2));
    std::free(host);
    std::free(back);
    std::free(grid);
    std::free(grid_back);
    std::printf("PASS memory_kinds\n");
    return 0;
}
