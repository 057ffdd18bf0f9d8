// CUDA 13's batched managed-memory operations and 3D copies: cudaMemPrefetchBatchAsync
// (three ranges, two locations: the last prefetch location read back per range),
// cudaMemDiscardBatchAsync and cudaMemDiscardAndPrefetchBatchAsync (the range is usable again
// after a write; non-managed memory and bad index arrays refused), cudaMemcpy3DBatchAsync
// (host to a pitched 3D block, block to a CUDA array at an offset, array back to the host:
// every element checked). Self-checking; runs unchanged against NVIDIA's libcudart.
#include <string.h>

#include "../include/runtime_check.h"

static int last_prefetch(const void *p, size_t n)
{
    int loc = -100;
    cudaError_t e = cudaMemRangeGetAttribute(&loc, sizeof loc,
                                             cudaMemRangeAttributeLastPrefetchLocation, p, n);
    return e == cudaSuccess ? loc : -200;
}

__global__ void add_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1;
}

int main()
{
    cudaStream_t s;
    OK("stream", cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const size_t n = 1 << 16; // three 64 KiB ranges
    int *m[3];
    for (int i = 0; i < 3; i++)
        OK("managed", cudaMallocManaged(&m[i], n * sizeof(int)));
    for (size_t j = 0; j < n; j++)
        m[0][j] = m[1][j] = m[2][j] = (int)j;

    void *ptrs[3] = {m[0], m[1], m[2]};
    size_t sizes[3] = {n * sizeof(int), n * sizeof(int), n * sizeof(int)};
    cudaMemLocation locs[2];
    memset(locs, 0, sizeof locs);
    locs[0].type = cudaMemLocationTypeDevice;
    locs[0].id = 0;
    locs[1].type = cudaMemLocationTypeHost;
    locs[1].id = 0;
    size_t idxs[2] = {0, 2}; // ranges 0 and 1 to the device, range 2 to the host
    OK("prefetch batch", cudaMemPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 2, 0, s));
    OK("sync", cudaStreamSynchronize(s));
    int l0 = last_prefetch(m[0], sizes[0]), l1 = last_prefetch(m[1], sizes[1]),
        l2 = last_prefetch(m[2], sizes[2]);
    printf("last prefetch: %d %d %d\n", l0, l1, l2);
    CHECK("ranges 0 and 1 went to device 0, range 2 to the host",
          l0 == 0 && l1 == 0 && l2 == cudaCpuDeviceId);

    add_one<<<(unsigned)(n / 256), 256, 0, s>>>(m[0], (int)n);
    OK("kernel on prefetched memory", cudaStreamSynchronize(s));
    CHECK("the kernel saw the prefetched data", m[0][0] == 1 && m[0][n - 1] == (int)n);

    OK("discard batch", cudaMemDiscardBatchAsync(ptrs, sizes, 2, 0, s));
    OK("sync after discard", cudaStreamSynchronize(s));
    for (size_t j = 0; j < n; j++)
        m[1][j] = 7; // a write undoes the discard
    add_one<<<(unsigned)(n / 256), 256, 0, s>>>(m[1], (int)n);
    OK("kernel after discard + write", cudaStreamSynchronize(s));
    CHECK("written-after-discard range is defined", m[1][0] == 8 && m[1][n - 1] == 8);

    size_t one[1] = {0};
    cudaMemLocation host = locs[1];
    OK("discard and prefetch", cudaMemDiscardAndPrefetchBatchAsync(&ptrs[2], &sizes[2], 1, &host,
                                                                   one, 1, 0, s));
    OK("sync after discard and prefetch", cudaStreamSynchronize(s));
    printf("after discard and prefetch: %d\n", last_prefetch(m[2], sizes[2]));
    CHECK("the discarded range was prefetched to the host",
          last_prefetch(m[2], sizes[2]) == cudaCpuDeviceId);

    int *plain = NULL;
    OK("plain device memory", cudaMalloc(&plain, 4096));
    void *bad[1] = {plain};
    size_t bad_size[1] = {4096};
    cudaError_t e = cudaMemDiscardBatchAsync(bad, bad_size, 1, 0, s);
    printf("discard of cudaMalloc memory: %s\n", cudaGetErrorName(e));
    CHECK("discarding non-managed memory is refused", e == cudaErrorInvalidValue);
    size_t bad_idx[2] = {1, 2};
    e = cudaMemPrefetchBatchAsync(ptrs, sizes, 3, locs, bad_idx, 2, 0, s);
    printf("prefetchLocIdxs not starting at 0: %s\n", cudaGetErrorName(e));
    CHECK("prefetchLocIdxs[0] must be 0", e == cudaErrorInvalidValue);
    e = cudaMemPrefetchBatchAsync(ptrs, sizes, 1, locs, idxs, 2, 0, s);
    CHECK("more locations than ranges are refused", e == cudaErrorInvalidValue);
    e = cudaMemPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 2, 1, s);
    CHECK("non-zero flags are refused", e == cudaErrorInvalidValue);
    e = cudaMemDiscardBatchAsync(ptrs, sizes, 3, 0, cudaStreamLegacy);
    printf("legacy stream: %s\n", cudaGetErrorName(e));
    CHECK("the legacy stream is refused", e == cudaErrorInvalidValue);
    cudaGetLastError();

    // 3D batch: host (tight, 6 x 4 x 3 floats) -> pitched device block (rows of 8 floats,
    // layers of 5 rows) and the same host data -> a 10 x 6 x 4 float array at (2, 1, 1);
    // then the array's region back to a second host buffer.
    const size_t W = 6, H = 4, D = 3;
    static float src[D][H][W], back[D][H][W], blk_back[D][5][8];
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++)
                src[z][y][x] = (float)(100 * z + 10 * y + x);
    float *blk = NULL;
    OK("block", cudaMalloc(&blk, 8 * 5 * D * sizeof(float)));
    OK("clear block", cudaMemset(blk, 0, 8 * 5 * D * sizeof(float)));
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t arr = NULL;
    OK("3D array", cudaMalloc3DArray(&arr, &fd, make_cudaExtent(10, 6, 4)));

    cudaMemcpy3DBatchOp ops[2];
    memset(ops, 0, sizeof ops);
    ops[0].src.type = cudaMemcpyOperandTypePointer;
    ops[0].src.op.ptr.ptr = src;        // rowLength/layerHeight 0: tightly packed
    ops[0].dst.type = cudaMemcpyOperandTypePointer;
    ops[0].dst.op.ptr.ptr = blk;
    ops[0].dst.op.ptr.rowLength = 8 * sizeof(float); // pointer to pointer: elements are bytes
    ops[0].dst.op.ptr.layerHeight = 5;
    ops[0].extent = make_cudaExtent(W * sizeof(float), H, D);
    ops[0].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    ops[1].src.type = cudaMemcpyOperandTypePointer;
    ops[1].src.op.ptr.ptr = src;
    ops[1].dst.type = cudaMemcpyOperandTypeArray;
    ops[1].dst.op.array.array = arr;
    ops[1].dst.op.array.offset.x = 2;
    ops[1].dst.op.array.offset.y = 1;
    ops[1].dst.op.array.offset.z = 1;
    ops[1].extent = make_cudaExtent(W, H, D); // elements of the array
    ops[1].srcAccessOrder = cudaMemcpySrcAccessOrderDuringApiCall;
    OK("3D batch to device", cudaMemcpy3DBatchAsync(2, ops, 0, s));

    cudaMemcpy3DBatchOp rd[2];
    memset(rd, 0, sizeof rd);
    rd[0].src = ops[1].dst;
    rd[0].dst.type = cudaMemcpyOperandTypePointer;
    rd[0].dst.op.ptr.ptr = back;
    rd[0].extent = make_cudaExtent(W, H, D);
    rd[0].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    rd[1].src = ops[0].dst;
    rd[1].dst.type = cudaMemcpyOperandTypePointer;
    rd[1].dst.op.ptr.ptr = blk_back;
    rd[1].extent = make_cudaExtent(8 * sizeof(float), 5, D);
    rd[1].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    OK("3D batch back", cudaMemcpy3DBatchAsync(2, rd, 0, s));
    OK("sync 3D", cudaStreamSynchronize(s));
    int bad_arr = 0, bad_blk = 0;
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < 5; y++)
            for (size_t x = 0; x < 8; x++) {
                float want = (y < H && x < W) ? src[z][y][x] : 0.0f;
                bad_blk += blk_back[z][y][x] != want;
                if (y < H && x < W)
                    bad_arr += back[z][y][x] != src[z][y][x];
            }
    printf("3D batch: %d wrong in the array, %d wrong in the block, back[2][3][5] = %g\n",
           bad_arr, bad_blk, back[2][3][5]);
    CHECK("3D batch round trip through the array", bad_arr == 0);
    CHECK("3D batch into the pitched block", bad_blk == 0);

    ops[0].extent.depth = 0;
    e = cudaMemcpy3DBatchAsync(1, ops, 0, s);
    printf("zero depth: %s\n", cudaGetErrorName(e));
    CHECK("a zero extent is refused", e == cudaErrorInvalidValue);
    cudaGetLastError();

    OK("free array", cudaFreeArray(arr));
    OK("free block", cudaFree(blk));
    OK("free plain", cudaFree(plain));
    for (int i = 0; i < 3; i++)
        OK("free managed", cudaFree(m[i]));
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
