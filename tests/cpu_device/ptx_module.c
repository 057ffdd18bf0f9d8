/* Runs kernels that came from real nvcc PTX through pyshim's translator: `ptx_module <so>`. */
#include <string.h>
#include <time.h>

#include "check.h"

static void *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        exit(4);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc((size_t)n);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        exit(4);
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 5;
    hipModule_t mod, mem;
    hipFunction_t vadd, block_sum, hello;
    CHECK(hipModuleLoad(&mod, argv[1]));
    void *image = read_file(argv[1]);
    CHECK(hipModuleLoadData(&mem, image));
    free(image);
    CHECK(hipModuleGetFunction(&vadd, mod, "vadd"));
    CHECK(hipModuleGetFunction(&block_sum, mem, "block_sum"));
    CHECK(hipModuleGetFunction(&hello, mod, "hello"));

    enum { N = 1000 };
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }
    float *da, *db, *dc;
    CHECK(hipMalloc((void **)&da, sizeof a));
    CHECK(hipMalloc((void **)&db, sizeof b));
    CHECK(hipMalloc((void **)&dc, sizeof c));
    CHECK(hipMemcpy(da, a, sizeof a, hipMemcpyHostToDevice));
    CHECK(hipMemcpy(db, b, sizeof b, hipMemcpyHostToDevice));
    int n = N;
    void *vp[] = {&da, &db, &dc, &n};
    CHECK(hipModuleLaunchKernel(vadd, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, vp, NULL));
    CHECK(hipMemcpy(c, dc, sizeof c, hipMemcpyDeviceToHost));
    int ok = 1;
    for (int i = 0; i < N; i++)
        ok &= c[i] == 1.5f * (float)i;
    printf("vadd=%d\n", ok);

    /* the same kernel through the packed `extra` buffer */
    struct {
        float *a, *b, *c;
        int n;
    } args = {da, da, dc, N};
    size_t size = sizeof args;
    void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     HIP_LAUNCH_PARAM_END};
    CHECK(hipModuleLaunchKernel(vadd, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, NULL, extra));
    CHECK(hipMemcpy(c, dc, sizeof c, hipMemcpyDeviceToHost));
    printf("vadd_extra=%g,%g\n", c[1], c[999]);

    enum { B = 256, G = 4 };
    int in[B * G], out[G];
    for (int i = 0; i < B * G; i++)
        in[i] = i;
    int *din, *dout;
    CHECK(hipMalloc((void **)&din, sizeof in));
    CHECK(hipMalloc((void **)&dout, sizeof out));
    CHECK(hipMemcpy(din, in, sizeof in, hipMemcpyHostToDevice));
    void *sp[] = {&din, &dout};
    CHECK(hipModuleLaunchKernel(block_sum, G, 1, 1, B, 1, 1, B * sizeof(int), NULL, sp, NULL));
    CHECK(hipMemcpy(out, dout, sizeof out, hipMemcpyDeviceToHost));
    printf("block_sum=%d,%d,%d,%d\n", out[0], out[1], out[2], out[3]);

    int tag = 9;
    void *hp[] = {&tag};
    fflush(stdout);
    CHECK(hipModuleLaunchKernel(hello, 3, 1, 1, 64, 1, 1, 0, NULL, hp, NULL));
    CHECK(hipDeviceSynchronize());
    void *counter;
    size_t bytes;
    CHECK(hipModuleGetGlobal(&counter, &bytes, mod, "counter"));
    int count = 0;
    CHECK(hipMemcpy(&count, counter, sizeof count, hipMemcpyDeviceToHost));
    printf("counter=%d,%zu\n", count, bytes);

    /* a wait of 30 ms computed from the advertised clock rate, as CUDA programs do */
    hipFunction_t spin;
    CHECK(hipModuleGetFunction(&spin, mod, "spin_clock"));
    int khz;
    CHECK(hipDeviceGetAttribute(&khz, hipDeviceAttributeClockRate, 0));
    unsigned long long *dspin, spun[2];
    CHECK(hipMalloc((void **)&dspin, sizeof spun));
    long long cycles = 30LL * khz;
    void *cp[] = {&dspin, &cycles};
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    CHECK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, cp, NULL));
    CHECK(hipMemcpy(spun, dspin, sizeof spun, hipMemcpyDeviceToHost));
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double wall_ms = (double)(w1.tv_sec - w0.tv_sec) * 1e3 + (double)(w1.tv_nsec - w0.tv_nsec) / 1e6;
    /* the counter's rate over the kernel's own %globaltimer interval, per mille of the
     * advertised rate */
    double measured_khz = (double)spun[0] / (double)spun[1] * 1e6;
    printf("clock_rate_permille=%.0f\n", measured_khz / khz * 1000.0);
    printf("clock_wait_ms=%.1f\n", wall_ms);
    CHECK(hipModuleUnload(mem));
    CHECK(hipModuleUnload(mod));
    return 0;
}
