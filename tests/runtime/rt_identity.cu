// The NVIDIA device identity pyshim presents: cudaGetDeviceProperties,
// cudaDeviceGetAttribute and the driver's cuDeviceGetAttribute must tell the same story
// (a real compute capability, 32-lane warps, that capability's limits), and the driver API
// must be usable right after the runtime's first call, without cuInit (NVIDIA's runtime
// initialises the driver). Prints "identity ..." lines the test compares with the
// identity table; "FAIL" on any disagreement.
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>

static int failures;

#define RT(call)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            printf("FAIL %s: %s\n", #call, cudaGetErrorName(e_));                      \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

static void agree(const char *what, long long prop, cudaDeviceAttr rt_attr,
                  CUdevice_attribute drv_attr)
{
    int rt = -1, drv = -1;
    cudaError_t e = cudaDeviceGetAttribute(&rt, rt_attr, 0);
    CUresult r = cuDeviceGetAttribute(&drv, drv_attr, 0);
    if (e != cudaSuccess || r != CUDA_SUCCESS || rt != prop || drv != prop) {
        printf("FAIL %s: cudaDeviceProp %lld, cudaDeviceGetAttribute %d (%s), "
               "cuDeviceGetAttribute %d (%d)\n",
               what, prop, rt, cudaGetErrorName(e), drv, (int)r);
        failures++;
    }
}

int main(void)
{
    int n = 0;
    RT(cudaGetDeviceCount(&n));
    CUdevice dev = -1;
    CUresult r = cuDeviceGet(&dev, 0);
    const char *name = "?";
    cuGetErrorName(r, &name);
    printf("cuDeviceGet after cudaGetDeviceCount -> %s\n", name);
    if (r != CUDA_SUCCESS) {
        printf("FAIL the runtime did not initialise the driver\n");
        return 1;
    }
    cudaDeviceProp p;
    RT(cudaGetDeviceProperties(&p, 0));
    int major = -1, minor = -1;
    cuDeviceComputeCapability(&major, &minor, dev);
    printf("identity cc %d.%d warp %d\n", p.major, p.minor, p.warpSize);
    printf("identity threads/block %d dims %d %d %d grid %d %d %d\n", p.maxThreadsPerBlock,
           p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2], p.maxGridSize[0],
           p.maxGridSize[1], p.maxGridSize[2]);
    printf("identity threads/sm %d blocks/sm %d regs/block %d regs/sm %d\n",
           p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor, p.regsPerBlock,
           p.regsPerMultiprocessor);
    printf("identity shared/block %zu optin %zu shared/sm %zu const %zu clusters %d\n",
           p.sharedMemPerBlock, p.sharedMemPerBlockOptin, p.sharedMemPerMultiprocessor,
           p.totalConstMem, p.clusterLaunch);
    if (major != p.major || minor != p.minor) {
        printf("FAIL cuDeviceComputeCapability %d.%d\n", major, minor);
        failures++;
    }
    agree("major", p.major, cudaDevAttrComputeCapabilityMajor,
          CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    agree("minor", p.minor, cudaDevAttrComputeCapabilityMinor,
          CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    agree("warpSize", p.warpSize, cudaDevAttrWarpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    agree("maxThreadsPerBlock", p.maxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock,
          CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    agree("maxThreadsDim.z", p.maxThreadsDim[2], cudaDevAttrMaxBlockDimZ,
          CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    agree("maxGridSize.y", p.maxGridSize[1], cudaDevAttrMaxGridDimY,
          CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    agree("sharedMemPerBlock", (long long)p.sharedMemPerBlock, cudaDevAttrMaxSharedMemoryPerBlock,
          CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    agree("sharedMemPerBlockOptin", (long long)p.sharedMemPerBlockOptin,
          cudaDevAttrMaxSharedMemoryPerBlockOptin,
          CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    agree("sharedMemPerMultiprocessor", (long long)p.sharedMemPerMultiprocessor,
          cudaDevAttrMaxSharedMemoryPerMultiprocessor,
          CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    agree("totalConstMem", (long long)p.totalConstMem, cudaDevAttrTotalConstantMemory,
          CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    agree("regsPerBlock", p.regsPerBlock, cudaDevAttrMaxRegistersPerBlock,
          CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    agree("regsPerMultiprocessor", p.regsPerMultiprocessor, cudaDevAttrMaxRegistersPerMultiprocessor,
          CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    agree("maxThreadsPerMultiProcessor", p.maxThreadsPerMultiProcessor,
          cudaDevAttrMaxThreadsPerMultiProcessor,
          CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    agree("maxBlocksPerMultiProcessor", p.maxBlocksPerMultiProcessor,
          cudaDevAttrMaxBlocksPerMultiprocessor, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    agree("multiProcessorCount", p.multiProcessorCount, cudaDevAttrMultiProcessorCount,
          CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    agree("l2CacheSize", p.l2CacheSize, cudaDevAttrL2CacheSize, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    agree("clusterLaunch", p.clusterLaunch, cudaDevAttrClusterLaunch,
          CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
    CUdevprop old;
    if (cuDeviceGetProperties(&old, dev) != CUDA_SUCCESS || old.SIMDWidth != 32 ||
        old.maxThreadsDim[2] != p.maxThreadsDim[2] || old.regsPerBlock != p.regsPerBlock) {
        printf("FAIL cuDeviceGetProperties: SIMDWidth %d\n", old.SIMDWidth);
        failures++;
    }
    if (failures == 0)
        printf("PASS identity agrees\n");
    return failures != 0;
}
