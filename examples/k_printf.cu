// Device printf: thread 0 of block 0 prints a few deterministic lines (integers, hex,
// 64-bit, float, a string argument) while every thread does some work. The program captures
// its own stdout around the launch (printf output must be there once cudaDeviceSynchronize
// returns), compares it with the expected text, then prints it.
// Self-checking: exits 0 and prints "PASS k_printf".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#define CHECK(call)                                                                \
    do {                                                                           \
        cudaError_t err_ = (call);                                                 \
        if (err_ != cudaSuccess) {                                                 \
            fprintf(stderr, "FAIL k_printf: %s at %s:%d: %s\n", #call, __FILE__,   \
                    __LINE__, cudaGetErrorString(err_));                           \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

__global__ void report(int *sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sums[i] = i * 3;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        printf("k_printf: grid %d x %d threads\n", gridDim.x, blockDim.x);
        printf("k_printf: int %d, negative %d, hex %x, unsigned %u\n", 42, -7, 0xbeef, 4000000000u);
        printf("k_printf: long long %lld, float %.3f, double %.3f\n", 1234567890123ll, 2.5f, -0.375);
        printf("k_printf: string %s, char %c\n", "from the device", 'Z');
    }
}

static const char *expected =
    "k_printf: grid 4 x 64 threads\n"
    "k_printf: int 42, negative -7, hex beef, unsigned 4000000000\n"
    "k_printf: long long 1234567890123, float 2.500, double -0.375\n"
    "k_printf: string from the device, char Z\n";

int main() {
    const int n = 256;
    int *d_sums;
    CHECK(cudaMalloc(&d_sums, n * sizeof(int)));
    CHECK(cudaFree(0));  // create the context before redirecting, so only printf is captured

    FILE *capture = tmpfile();
    if (!capture) { perror("FAIL k_printf: tmpfile"); return 1; }
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fileno(capture), STDOUT_FILENO);
    report<<<4, 64>>>(d_sums, n);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    CHECK(launch);
    CHECK(sync);

    std::string got;
    char buf[512];
    rewind(capture);
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, capture)) > 0) got.append(buf, k);
    fclose(capture);

    int sums[n];
    CHECK(cudaMemcpy(sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_sums));
    int failures = 0;
    for (int i = 0; i < n; ++i)
        if (sums[i] != i * 3) ++failures;
    if (got != expected) {
        fprintf(stderr, "FAIL k_printf: device printf wrote:\n%s--- expected:\n%s---\n",
                got.c_str(), expected);
        return 1;
    }
    if (failures) {
        fprintf(stderr, "FAIL k_printf: %d wrong sums\n", failures);
        return 1;
    }
    fputs(got.c_str(), stdout);
    printf("PASS k_printf\n");
    return 0;
}
