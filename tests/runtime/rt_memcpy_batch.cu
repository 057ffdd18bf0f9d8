// cudaMemcpyBatchAsync (CUDA 12.8+): batches of host-to-device and device-to-host copies
// with one and two attribute sets (a stack source read during the call), and the
// argument errors CUDA documents. Self-checking; runs unchanged against NVIDIA's libcudart.
#include <string.h>

#include "../include/runtime_check.h"

int main()
{
    cudaStream_t s;
    OK("stream", cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int *a = NULL, *b = NULL;
    OK("malloc a", cudaMalloc(&a, 256 * sizeof(int)));
    OK("malloc b", cudaMalloc(&b, 256 * sizeof(int)));
    static int ha[256], hb[256], ra[256], rb[256];
    for (int i = 0; i < 256; i++) {
        ha[i] = i;
        hb[i] = 1000 - i;
    }
    cudaMemcpyAttributes at[2];
    memset(at, 0, sizeof at);
    at[0].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    at[1].srcAccessOrder = cudaMemcpySrcAccessOrderDuringApiCall;
    size_t idx[2] = {0, 1};
    void *dsts[2] = {a, b};
    const void *srcs[2] = {ha, hb};
    size_t sizes[2] = {sizeof ha, sizeof hb};
    OK("host to device", cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, at, idx, 1, s));
    void *dsts2[2] = {ra, rb};
    const void *srcs2[2] = {a, b};
    OK("device to host, two attribute sets",
       cudaMemcpyBatchAsync(dsts2, srcs2, sizes, 2, at, idx, 2, s));
    OK("sync", cudaStreamSynchronize(s));
    CHECK("both copies arrived", memcmp(ha, ra, sizeof ha) == 0 && memcmp(hb, rb, sizeof hb) == 0);
    printf("ra[255] = %d, rb[255] = %d\n", ra[255], rb[255]);

    size_t bad_idx[2] = {1, 0};
    cudaError_t e = cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, at, bad_idx, 1, s);
    printf("attrsIdxs not starting at 0: %s\n", cudaGetErrorName(e));
    CHECK("attrsIdxs[0] must be 0", e == cudaErrorInvalidValue);
    cudaMemcpyAttributes none;
    memset(&none, 0, sizeof none);
    e = cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &none, idx, 1, s);
    CHECK("an invalid source access order is refused", e == cudaErrorInvalidValue);
    e = cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, at, idx, 2, s);
    CHECK("more attribute sets than copies are refused", e == cudaErrorInvalidValue);
    e = cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, at, idx, 1, cudaStreamLegacy);
    printf("legacy stream: %s\n", cudaGetErrorName(e));
    CHECK("the legacy stream is refused", e == cudaErrorInvalidValue);
    cudaGetLastError();
    OK("free a", cudaFree(a));
    OK("free b", cudaFree(b));
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
