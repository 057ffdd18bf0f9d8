// Runtime API misuse, as a new user's bugs look: every call must return the code NVIDIA's
// documentation gives (cudaErrorInvalidValue for pointers the device does not know, ranges
// past an allocation's end and freed memory), never crash, never succeed silently. Each
// case prints PASS/FAIL; a crash stops the output at the case that crashed.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define EXPECT(name, got, want)                                                           \
    do {                                                                                  \
        printf("case %s\n", name);                                                        \
        fflush(stdout);                                                                   \
        cudaError_t g_ = (got);                                                           \
        printf("%s %s: %s\n", g_ == (want) ? "PASS" : "FAIL", name, cudaGetErrorName(g_)); \
        fflush(stdout);                                                                   \
        failures += g_ != (want);                                                         \
        cudaGetLastError();                                                               \
    } while (0)

#define BOGUS ((void *)0x1234)
#define BOGUS_HIGH ((void *)0x7f0000001000ull)

__global__ void touch(int *p) { p[threadIdx.x] += 1; }

int main()
{
    int *d = NULL, *d2 = NULL, *freed = NULL;
    char host[8192];
    memset(host, 7, sizeof host);
    EXPECT("malloc 64", cudaMalloc(&d, 64), cudaSuccess);
    EXPECT("malloc 4096", cudaMalloc(&d2, 4096), cudaSuccess);
    EXPECT("malloc then free", cudaMalloc(&freed, 4096), cudaSuccess);
    EXPECT("free", cudaFree(freed), cudaSuccess);

    // bogus device pointers
    EXPECT("memcpy H2D to bogus", cudaMemcpy(BOGUS, host, 16, cudaMemcpyHostToDevice),
           cudaErrorInvalidValue);
    EXPECT("memcpy D2H from bogus", cudaMemcpy(host, BOGUS, 16, cudaMemcpyDeviceToHost),
           cudaErrorInvalidValue);
    EXPECT("memcpy D2D bogus dst", cudaMemcpy(BOGUS, d, 16, cudaMemcpyDeviceToDevice),
           cudaErrorInvalidValue);
    EXPECT("memcpy D2D bogus src", cudaMemcpy(d, BOGUS_HIGH, 16, cudaMemcpyDeviceToDevice),
           cudaErrorInvalidValue);
    EXPECT("memcpy Default bogus both", cudaMemcpy(BOGUS, BOGUS_HIGH, 16, cudaMemcpyDefault),
           cudaErrorInvalidValue);
    EXPECT("memcpyAsync H2D to bogus",
           cudaMemcpyAsync(BOGUS, host, 16, cudaMemcpyHostToDevice, 0), cudaErrorInvalidValue);
    EXPECT("memset bogus", cudaMemset(BOGUS, 0, 16), cudaErrorInvalidValue);
    EXPECT("memset high bogus", cudaMemset(BOGUS_HIGH, 0, 16), cudaErrorInvalidValue);
    EXPECT("memsetAsync bogus", cudaMemsetAsync(BOGUS, 0, 16, 0), cudaErrorInvalidValue);
    EXPECT("memset pageable host", cudaMemset(host, 0, 16), cudaErrorInvalidValue);

    // ranges past the end of an allocation
    EXPECT("memcpy H2D oversize", cudaMemcpy(d, host, 4096, cudaMemcpyHostToDevice),
           cudaErrorInvalidValue);
    EXPECT("memcpy D2H oversize", cudaMemcpy(host, d, 4096, cudaMemcpyDeviceToHost),
           cudaErrorInvalidValue);
    EXPECT("memcpy D2D oversize", cudaMemcpy(d2, d, 4096, cudaMemcpyDeviceToDevice),
           cudaErrorInvalidValue);
    EXPECT("memcpy D2D offset past end", cudaMemcpy((char *)d + 32, d2, 64,
           cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
    EXPECT("memcpy Default oversize", cudaMemcpy(host, d, 65, cudaMemcpyDefault),
           cudaErrorInvalidValue);
    EXPECT("memset oversize", cudaMemset(d, 0, 1 << 20), cudaErrorInvalidValue);
    EXPECT("memset 2D past end", cudaMemset2D(d, 64, 0, 64, 2), cudaErrorInvalidValue);
    EXPECT("memcpy2D past end", cudaMemcpy2D(d, 64, host, 64, 64, 2, cudaMemcpyHostToDevice),
           cudaErrorInvalidValue);
    EXPECT("memcpy exactly fits", cudaMemcpy(d, host, 64, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT("memcpy interior fits", cudaMemcpy((char *)d2 + 4000, host, 96,
           cudaMemcpyHostToDevice), cudaSuccess);

    // freed memory
    EXPECT("memcpy D2H from freed", cudaMemcpy(host, freed, 16, cudaMemcpyDeviceToHost),
           cudaErrorInvalidValue);
    EXPECT("memcpy Default from freed", cudaMemcpy(host, freed, 16, cudaMemcpyDefault),
           cudaErrorInvalidValue);
    EXPECT("memcpy H2D to freed", cudaMemcpy(freed, host, 16, cudaMemcpyHostToDevice),
           cudaErrorInvalidValue);
    EXPECT("memset freed", cudaMemset(freed, 0, 16), cudaErrorInvalidValue);
    EXPECT("double free", cudaFree(freed), cudaErrorInvalidValue);
    EXPECT("free bogus", cudaFree(BOGUS), cudaErrorInvalidValue);
    EXPECT("free interior", cudaFree((char *)d2 + 8), cudaErrorInvalidValue);
    EXPECT("free host pointer", cudaFree(host), cudaErrorInvalidValue);
    EXPECT("freeHost device pointer", cudaFreeHost(d), cudaErrorInvalidValue);

    // pageable host memory takes the pageable path (documented: cudaMemcpyDefault infers it)
    char back[64];
    EXPECT("memcpy Default pageable H2D", cudaMemcpy(d, host, 64, cudaMemcpyDefault),
           cudaSuccess);
    EXPECT("memcpy Default pageable D2H", cudaMemcpy(back, d, 64, cudaMemcpyDefault),
           cudaSuccess);
    EXPECT("memcpy H2H", cudaMemcpy(back, host, 64, cudaMemcpyHostToHost), cudaSuccess);
    // a host side the process cannot read: the copy fails instead of the process
    EXPECT("memcpy H2D from bogus host", cudaMemcpy(d, BOGUS, 16, cudaMemcpyHostToDevice),
           cudaErrorInvalidValue);
    EXPECT("memcpy D2H to bogus host", cudaMemcpy(BOGUS, d, 16, cudaMemcpyDeviceToHost),
           cudaErrorInvalidValue);
    EXPECT("memcpyAsync D2H to bogus host",
           cudaMemcpyAsync(BOGUS, d, 16, cudaMemcpyDeviceToHost, 0), cudaErrorInvalidValue);

    // pointer attributes: unknown memory is "unregistered" (CUDA 11+), not an error
    cudaPointerAttributes attr;
    EXPECT("pointer attributes bogus", cudaPointerGetAttributes(&attr, BOGUS), cudaSuccess);
    printf("%s bogus is unregistered\n", attr.type == cudaMemoryTypeUnregistered ? "PASS" : "FAIL");
    failures += attr.type != cudaMemoryTypeUnregistered;
    EXPECT("pointer attributes device", cudaPointerGetAttributes(&attr, d), cudaSuccess);
    printf("%s device is device\n", attr.type == cudaMemoryTypeDevice ? "PASS" : "FAIL");
    failures += attr.type != cudaMemoryTypeDevice;

    // handles that are not live ones
    EXPECT("stream sync forged", cudaStreamSynchronize((cudaStream_t)BOGUS),
           cudaErrorInvalidResourceHandle);
    EXPECT("stream query forged", cudaStreamQuery((cudaStream_t)BOGUS),
           cudaErrorInvalidResourceHandle);
    EXPECT("stream destroy forged", cudaStreamDestroy((cudaStream_t)BOGUS),
           cudaErrorInvalidResourceHandle);
    cudaStream_t s;
    EXPECT("stream create", cudaStreamCreate(&s), cudaSuccess);
    EXPECT("stream destroy", cudaStreamDestroy(s), cudaSuccess);
    EXPECT("stream sync stale", cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
    EXPECT("event record forged", cudaEventRecord((cudaEvent_t)BOGUS, 0),
           cudaErrorInvalidResourceHandle);
    EXPECT("event sync forged", cudaEventSynchronize((cudaEvent_t)BOGUS),
           cudaErrorInvalidResourceHandle);
    cudaEvent_t e;
    EXPECT("event create", cudaEventCreate(&e), cudaSuccess);
    EXPECT("event destroy", cudaEventDestroy(e), cudaSuccess);
    EXPECT("event query stale", cudaEventQuery(e), cudaErrorInvalidResourceHandle);
    cudaGraph_t g;
    EXPECT("graph destroy forged", cudaGraphDestroy((cudaGraph_t)BOGUS), cudaErrorInvalidValue);
    EXPECT("graph create", cudaGraphCreate(&g, 0), cudaSuccess);
    EXPECT("graph destroy", cudaGraphDestroy(g), cudaSuccess);

    // the device still works after all of it
    touch<<<1, 16>>>(d);
    EXPECT("launch after misuse", cudaGetLastError(), cudaSuccess);
    EXPECT("sync after misuse", cudaDeviceSynchronize(), cudaSuccess);
    int h[16];
    EXPECT("copy back", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    int ok = h[0] == 0x07070707 + 1 && h[15] == 0x07070707 + 1;
    printf("%s data intact\n", ok ? "PASS" : "FAIL");
    failures += !ok;
    EXPECT("free d", cudaFree(d), cudaSuccess);
    EXPECT("free d2", cudaFree(d2), cudaSuccess);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "ALL PASSED", failures);
    return failures != 0;
}
