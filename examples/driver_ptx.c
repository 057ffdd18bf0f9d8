/*
 * A driver-API program: cuInit, a context, cuModuleLoadData of PTX text, cuLaunchKernel
 * with kernelParams and again with the `extra` packed-buffer form, results checked.
 * Linked with -lcuda (the toolkit's link stub); at run time the shim's libcuda.so.1.
 * Prints "PASS driver_ptx" or a FAIL line.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* y[i] = a * x[i] + y[i] */
static const char *ptx =
    ".version 7.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry saxpy(\n"
    "    .param .u64 p_x,\n"
    "    .param .u64 p_y,\n"
    "    .param .f32 p_a,\n"
    "    .param .u32 p_n\n"
    ")\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<6>;\n"
    "    .reg .f32 %f<5>;\n"
    "    .reg .b64 %rd<8>;\n"
    "\n"
    "    ld.param.u64 %rd1, [p_x];\n"
    "    ld.param.u64 %rd2, [p_y];\n"
    "    ld.param.f32 %f1, [p_a];\n"
    "    ld.param.u32 %r1, [p_n];\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.u32 %p1, %r5, %r1;\n"
    "    @%p1 bra DONE;\n"
    "    cvta.to.global.u64 %rd3, %rd1;\n"
    "    cvta.to.global.u64 %rd4, %rd2;\n"
    "    mul.wide.u32 %rd5, %r5, 4;\n"
    "    add.s64 %rd6, %rd3, %rd5;\n"
    "    add.s64 %rd7, %rd4, %rd5;\n"
    "    ld.global.f32 %f2, [%rd6];\n"
    "    ld.global.f32 %f3, [%rd7];\n"
    "    fma.rn.f32 %f4, %f1, %f2, %f3;\n"
    "    st.global.f32 [%rd7], %f4;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

#define CHECK(call)                                                                      \
    do {                                                                                 \
        CUresult rc_ = (call);                                                           \
        if (rc_ != CUDA_SUCCESS) {                                                       \
            const char *name_ = "?";                                                     \
            cuGetErrorName(rc_, &name_);                                                 \
            printf("FAIL driver_ptx: %s: %s\n", #call, name_);                           \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

#define N 10000

int main(void)
{
    static float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = (float)(N - i);
    }
    CHECK(cuInit(0));
    int version = 0;
    CHECK(cuDriverGetVersion(&version));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    char name[256];
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    printf("driver %d, device: %s\n", version, name);
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));

    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, ptx));
    CUfunction saxpy;
    CHECK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
    CUfunction missing;
    if (cuModuleGetFunction(&missing, mod, "no_such_kernel") != CUDA_ERROR_NOT_FOUND) {
        printf("FAIL driver_ptx: a missing kernel was found\n");
        return 1;
    }

    CUdeviceptr dx, dy;
    CHECK(cuMemAlloc(&dx, sizeof x));
    CHECK(cuMemAlloc(&dy, sizeof y));
    CHECK(cuMemcpyHtoD(dx, x, sizeof x));
    CHECK(cuMemcpyHtoD(dy, y, sizeof y));

    /* launch 1: kernelParams */
    float a = 2.0f;
    unsigned int n = N;
    void *params[] = {&dx, &dy, &a, &n};
    CHECK(cuLaunchKernel(saxpy, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));

    /* launch 2: the packed `extra` buffer, laid out as the PTX parameters are */
    struct {
        CUdeviceptr x, y;
        float a;
        unsigned int n;
    } packed = {dx, dy, 0.5f, N};
    size_t packed_size = sizeof packed;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &packed_size, CU_LAUNCH_PARAM_END};
    CHECK(cuLaunchKernel(saxpy, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, NULL, extra));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(out, dy, sizeof out));

    for (int i = 0; i < N; i++) {
        float expect = 0.5f * x[i] + (2.0f * x[i] + y[i]);
        if (out[i] != expect) {
            printf("FAIL driver_ptx: y[%d] = %g, expected %g\n", i, out[i], expect);
            return 1;
        }
    }
    CHECK(cuMemFree(dx));
    CHECK(cuMemFree(dy));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("PASS driver_ptx\n");
    return 0;
}
