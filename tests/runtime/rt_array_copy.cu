// The deprecated 1D copies with CUDA arrays: cudaMemcpyToArrayAsync and
// cudaMemcpyFromArrayAsync run on into the next rows (a copy starting inside a row, spanning
// whole rows and ending inside another), cudaMemcpyArrayToArray between arrays of different
// widths; every byte of both arrays is checked against the same copy done on host images of
// their rows. Self-checking; runs unchanged against NVIDIA's libcudart.
#include <string.h>

#include "../include/runtime_check.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

int main(int argc, char **argv)
{
    // "ours": checks of argument errors NVIDIA's runtime leaves to the driver
    const bool ours = argc > 1 && strcmp(argv[1], "ours") == 0;
    cudaStream_t s;
    OK("stream", cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    // A: 16 x 8 ushort2 (64-byte rows), B: 10 x 12 uchar4 (40-byte rows)
    const size_t ra = 16 * 4, ha = 8, rb = 10 * 4, hb = 12;
    cudaChannelFormatDesc fa = cudaCreateChannelDesc<ushort2>();
    cudaChannelFormatDesc fb = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a = NULL, b = NULL;
    OK("array A", cudaMallocArray(&a, &fa, 16, ha));
    OK("array B", cudaMallocArray(&b, &fb, 10, hb));

    static unsigned char img_a[8 * 64], img_b[12 * 40], got_a[8 * 64], got_b[12 * 40];
    static unsigned char src[8 * 64];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    memset(img_a, 0, sizeof img_a);
    memset(img_b, 0xEE, sizeof img_b);
    OK("clear A", cudaMemcpyToArray(a, 0, 0, img_a, sizeof img_a, cudaMemcpyHostToDevice));
    OK("fill B", cudaMemcpyToArray(b, 0, 0, img_b, sizeof img_b, cudaMemcpyHostToDevice));

    // 200 bytes from (12 bytes, row 2) of A: 52 bytes of row 2, rows 3 and 4, 20 of row 5
    OK("to array, async", cudaMemcpyToArrayAsync(a, 12, 2, src, 200, cudaMemcpyHostToDevice, s));
    memcpy(img_a + 2 * ra + 12, src, 200);
    // a whole-row-aligned copy: rows 6 and 7
    OK("to array, whole rows",
       cudaMemcpyToArrayAsync(a, 0, 6, src + 200, 2 * ra, cudaMemcpyHostToDevice, s));
    memcpy(img_a + 6 * ra, src + 200, 2 * ra);
    // 150 bytes of A from (30, 2) into B at (36, 1): pieces end at either array's row ends
    OK("sync", cudaStreamSynchronize(s));
    OK("array to array", cudaMemcpyArrayToArray(b, 36, 1, a, 30, 2, 150, cudaMemcpyDeviceToDevice));
    memcpy(img_b + 1 * rb + 36, img_a + 2 * ra + 30, 150);

    memset(got_a, 0x55, sizeof got_a);
    memset(got_b, 0x55, sizeof got_b);
    OK("from array A, async",
       cudaMemcpyFromArrayAsync(got_a, a, 0, 0, sizeof got_a, cudaMemcpyDeviceToHost, s));
    // B read back in two pieces, the second starting inside a row
    OK("from array B, head", cudaMemcpyFromArrayAsync(got_b, b, 0, 0, 97, cudaMemcpyDeviceToHost, s));
    OK("from array B, rest", cudaMemcpyFromArrayAsync(got_b + 97, b, 97 - 2 * rb, 2,
                                                      sizeof got_b - 97, cudaMemcpyDeviceToHost, s));
    OK("sync reads", cudaStreamSynchronize(s));
    int wrong_a = 0, wrong_b = 0;
    for (size_t i = 0; i < sizeof got_a; i++)
        wrong_a += got_a[i] != img_a[i];
    for (size_t i = 0; i < sizeof got_b; i++)
        wrong_b += got_b[i] != img_b[i];
    printf("wrong bytes: A %d, B %d; B[1][36] = %d\n", wrong_a, wrong_b, got_b[rb + 36]);
    CHECK("array A holds the row-spanning copies", wrong_a == 0);
    CHECK("array B holds the array-to-array copy", wrong_b == 0);

    cudaError_t e = cudaMemcpyToArrayAsync(a, 12, 7, src, 100, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) // an asynchronous copy may report it when it runs
        e = cudaStreamSynchronize(s);
    printf("past the last row: %s\n", cudaGetErrorName(e));
    if (ours)
        CHECK("a copy past the array's end is refused", e == cudaErrorInvalidValue);
    e = cudaMemcpyArrayToArray(b, 0, 0, a, 0, 0, 64, cudaMemcpyHostToDevice);
    printf("array to array, host to device: %s\n", cudaGetErrorName(e));
    CHECK("array to array takes device-to-device only", e == cudaErrorInvalidMemcpyDirection);
    cudaGetLastError();

    OK("free A", cudaFreeArray(a));
    OK("free B", cudaFreeArray(b));
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
