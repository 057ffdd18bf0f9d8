// Several devices (PYSHIM_CPU_DEVICES=N): enumeration, per-device kernels and memory, peer
// access and peer copies, through cudart and the driver API. Prints key=value lines that
// tests/test_cpu_device_multi.py checks against values it computes itself.
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../include/multi_common.h"

#define N 4096

__global__ void add_from(int *dst, const int *src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] += src[i];
}

// holds its device until the host sets *go
__global__ void gated(volatile int *go, int *out)
{
    while (*go == 0)
        ;
    *out = 42;
}

// A new thread: no current context before its first runtime call, device 0's primary
// context after it (cudaFree(0) is that call).
static void *fresh_thread(void *out)
{
    CUcontext before = (CUcontext)1, after = NULL, primary = NULL;
    cuCtxGetCurrent(&before);
    cudaFree(0);
    cuCtxGetCurrent(&after);
    cuDevicePrimaryCtxRetain(&primary, 0);
    sprintf((char *)out, "%d,%d", before == NULL, after != NULL && after == primary);
    return NULL;
}

// A thread whose driver context came first keeps it: the runtime works on its device.
static void *driver_first_thread(void *out)
{
    int count = 0;
    cuDeviceGetCount(&count);
    CUcontext mine = NULL, after = NULL;
    cuDevicePrimaryCtxRetain(&mine, count - 1);
    cuCtxSetCurrent(mine);
    int dev = -1;
    cudaGetDevice(&dev);
    cuCtxGetCurrent(&after);
    sprintf((char *)out, "%d,%d", dev, after == mine);
    return NULL;
}

int main(void)
{
    int count = 0;
    CK(cudaGetDeviceCount(&count));
    printf("count=%d\n", count);
    int drv_count = 0;
    cuInit(0);
    cuDeviceGetCount(&drv_count);
    printf("drv_count=%d\n", drv_count);
    int *buf[64] = {0};
    int host[N];
    for (int d = 0; d < count && d < 64; d++) {
        cudaDeviceProp prop;
        CK(cudaGetDeviceProperties(&prop, d));
        char bus[32];
        CK(cudaDeviceGetPCIBusId(bus, sizeof bus, d));
        int back = -1;
        CK(cudaDeviceGetByPCIBusId(&back, bus));
        printf("dev%d.name=%s\n", d, prop.name);
        printf("dev%d.uuid=", d);
        for (int k = 0; k < 16; k++)
            printf("%02x", (unsigned char)prop.uuid.bytes[k]);
        printf("\n");
        printf("dev%d.bus=%s\n", d, bus);
        printf("dev%d.bus_back=%d\n", d, back);
        CK(cudaSetDevice(d));
        int cur = -1;
        CK(cudaGetDevice(&cur));
        printf("dev%d.current=%d\n", d, cur);
        CK(cudaMalloc(&buf[d], N * sizeof(int)));
        // every device accounts for its own memory
        void *big;
        size_t big_bytes = (size_t)64 << 20, free_b = 0, total_b = 0;
        CK(cudaMalloc(&big, big_bytes));
        CK(cudaMemGetInfo(&free_b, &total_b));
        printf("dev%d.mem=%zu,%zu,%d\n", d, total_b, (size_t)prop.totalGlobalMem,
               free_b + big_bytes <= total_b);
        CK(cudaFree(big));
        cudaStream_t s;
        CK(cudaStreamCreate(&s));
        fill<<<(N + 255) / 256, 256, 0, s>>>(buf[d], N, (d + 1) * 100000);
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(host, buf[d], sizeof host, cudaMemcpyDeviceToHost));
        printf("dev%d.sum=%lld\n", d, checksum(host, N));
        int sdev = -1, ldev = -1, pdev = -1;
        CK(cudaStreamGetDevice(s, &sdev));
        CK(cudaStreamGetDevice(cudaStreamLegacy, &ldev));
        CK(cudaStreamGetDevice(cudaStreamPerThread, &pdev));
        printf("dev%d.stream_device=%d,%d,%d\n", d, sdev, ldev, pdev);
        CK(cudaStreamDestroy(s));
    }
    // a stream keeps its device when another becomes current
    if (count > 1) {
        cudaStream_t s1;
        CK(cudaSetDevice(1));
        CK(cudaStreamCreate(&s1));
        CK(cudaSetDevice(0));
        int sdev = -1;
        CK(cudaStreamGetDevice(s1, &sdev));
        printf("stream_keeps_device=%d\n", sdev);
        CK(cudaStreamDestroy(s1));
    }
    for (int d = 0; d < count && d < 64; d++) {
        cudaPointerAttributes a;
        CK(cudaPointerGetAttributes(&a, buf[d] + 5));
        int ord = -1;
        cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr)buf[d]);
        printf("ptr%d.device=%d,%d type=%d\n", d, a.device, ord, (int)a.type);
        CUcontext owner = NULL, primary = NULL;
        int ipc = -1;
        cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)buf[d]);
        cuPointerGetAttribute(&ipc, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
                              (CUdeviceptr)buf[d]);
        cuDevicePrimaryCtxRetain(&primary, d);
        printf("ptr%d.ctx_ipc=%d,%d\n", d, owner != NULL && owner == primary, ipc);
    }
    // cudaSetDevice makes the device's primary context the driver's current context:
    // cuCtxGetCurrent names it, cuCtxGetDevice says its device, cuMemAlloc lands there
    for (int d = count - 1; d >= 0 && d < 64; d--) {
        CK(cudaSetDevice(d));
        CUcontext cur = NULL, primary = NULL;
        CUdevice cdev = -1;
        CUresult r_cur = cuCtxGetCurrent(&cur);
        cuDevicePrimaryCtxRetain(&primary, d);
        CUresult r_dev = cuCtxGetDevice(&cdev);
        CUdeviceptr dp = 0;
        CUresult r_alloc = cuMemAlloc(&dp, 4096);
        int ord = -1;
        cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, dp);
        if (dp != 0)
            cuMemFree(dp);
        printf("rt_ctx%d=%d,%d,%d,%d %d,%d,%d\n", d, cur != NULL, cur == primary, (int)cdev, ord,
               (int)r_cur, (int)r_dev, (int)r_alloc);
    }
    char fresh[32] = "", driver_first[32] = "";
    pthread_t t;
    pthread_create(&t, NULL, fresh_thread, fresh);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, driver_first_thread, driver_first);
    pthread_join(t, NULL);
    printf("thread_fresh=%s\n", fresh);
    printf("thread_driver_first=%s\n", driver_first);
    if (count < 2) {
        printf("done=1\n");
        return 0;
    }
    int can01 = -1, can00 = -1, drv_can = -1;
    CK(cudaDeviceCanAccessPeer(&can01, 0, 1));
    CK(cudaDeviceCanAccessPeer(&can00, 0, 0));
    cuDeviceCanAccessPeer(&drv_can, 1, 0);
    printf("can_access=%d,%d,%d\n", can01, can00, drv_can);
    int rank = -1, access = -1, atomics = -1;
    CK(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, 0, 1));
    CK(cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, 0, 1));
    CK(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, 0, 1));
    int drv_access = -1;
    cuDeviceGetP2PAttribute(&drv_access, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 0);
    printf("p2p_attr=%d,%d,%d,%d\n", rank, access, atomics, drv_access);
    printf("p2p_attr_self=%s\n",
           cudaGetErrorName(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrAccessSupported, 0, 0)));
    cudaGetLastError();

    CK(cudaSetDevice(0));
    printf("enable=%s\n", cudaGetErrorName(cudaDeviceEnablePeerAccess(1, 0)));
    printf("enable_again=%s\n", cudaGetErrorName(cudaDeviceEnablePeerAccess(1, 0)));
    printf("enable_self=%s\n", cudaGetErrorName(cudaDeviceEnablePeerAccess(0, 0)));
    printf("enable_bad=%s\n", cudaGetErrorName(cudaDeviceEnablePeerAccess(count, 0)));
    cudaGetLastError();
    // dev0 reads dev1's memory directly in a kernel (peer access enabled)
    add_from<<<(N + 255) / 256, 256>>>(buf[0], buf[1], N);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host, buf[0], sizeof host, cudaMemcpyDeviceToHost));
    printf("peer_kernel.sum=%lld\n", checksum(host, N));
    printf("disable=%s\n", cudaGetErrorName(cudaDeviceDisablePeerAccess(1)));
    printf("disable_again=%s\n", cudaGetErrorName(cudaDeviceDisablePeerAccess(1)));
    cudaGetLastError();

    // the last device's data onto device 0 (sync), then device 0's onto device 1 (async)
    CK(cudaMemcpyPeer(buf[0], 0, buf[count - 1], count - 1, N * sizeof(int)));
    CK(cudaMemcpy(host, buf[0], sizeof host, cudaMemcpyDeviceToHost));
    printf("peer_copy.sum=%lld\n", checksum(host, N));
    cudaStream_t s0;
    CK(cudaStreamCreate(&s0));
    CK(cudaMemcpyPeerAsync(buf[1] + N / 2, 1, buf[0], 0, N / 2 * sizeof(int), s0));
    CK(cudaStreamSynchronize(s0));
    CK(cudaSetDevice(1));
    CK(cudaMemcpy(host, buf[1], sizeof host, cudaMemcpyDeviceToHost));
    printf("peer_async.sum=%lld\n", checksum(host, N));

    // driver API: contexts per device, cuCtxEnablePeerAccess, cuMemcpyPeer
    CUcontext c0, c1;
    cuDevicePrimaryCtxRetain(&c0, 0);
    cuDevicePrimaryCtxRetain(&c1, 1);
    printf("ctx_distinct=%d\n", c0 != c1);
    cuCtxSetCurrent(c1);
    CUresult r1 = cuCtxEnablePeerAccess(c0, 0);
    CUresult r2 = cuCtxEnablePeerAccess(c0, 0);
    printf("ctx_enable=%d,%d\n", (int)r1, (int)r2);
    int cur = -1;
    CK(cudaGetDevice(&cur));
    printf("ctx_current_device=%d\n", cur);
    CUresult r3 = cuMemcpyPeer((CUdeviceptr)buf[1], c1, (CUdeviceptr)buf[0], c0, 16 * sizeof(int));
    CK(cudaMemcpy(host, buf[1], sizeof host, cudaMemcpyDeviceToHost));
    printf("cu_peer=%d sum=%lld\n", (int)r3, checksum(host, N));
    // each device has its own legacy stream and its own synchronisation: device 0's
    // synchronous work completes while device 1's legacy stream is held
    alarm(60);   // were they one, this would hang: fail instead
    int *go;
    CK(cudaHostAlloc(&go, sizeof(int), cudaHostAllocMapped));
    *go = 0;
    CK(cudaSetDevice(1));
    gated<<<1, 1>>>(go, buf[1]);
    CK(cudaGetLastError());
    CK(cudaSetDevice(0));
    CK(cudaMemset(buf[0], 0, sizeof(int)));
    CK(cudaMemcpy(host, buf[0], sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(1));
    printf("independent=%d,%s\n", host[0] == 0, cudaGetErrorName(cudaStreamQuery(0)));
    __atomic_store_n(go, 1, __ATOMIC_RELEASE);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host, buf[1], sizeof(int), cudaMemcpyDeviceToHost));
    printf("gated=%d\n", host[0]);
    CK(cudaFreeHost(go));
    for (int d = 0; d < count; d++) {
        CK(cudaSetDevice(d));
        CK(cudaFree(buf[d]));
    }
    printf("done=1\n");
    return 0;
}
