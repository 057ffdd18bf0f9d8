// cudaInitDevice: the device's flags applied when cudaInitDeviceFlagsAreValid says so (read
// back by cudaGetDeviceFlags), left alone otherwise; a bad ordinal and unknown flags refused;
// the device works afterwards. Self-checking; runs unchanged against NVIDIA's libcudart.
#include "../include/runtime_check.h"

__global__ void twice(int *p)
{
    p[threadIdx.x] *= 2;
}

int main()
{
    OK("init device 0, flags applied",
       cudaInitDevice(0, cudaDeviceScheduleBlockingSync, cudaInitDeviceFlagsAreValid));
    unsigned int f = 0;
    OK("device flags", cudaGetDeviceFlags(&f));
    printf("flags after init: 0x%x\n", f & cudaDeviceScheduleMask);
    CHECK("blocking sync applied", (f & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync);
    OK("init again, flags not marked valid", cudaInitDevice(0, cudaDeviceScheduleSpin, 0));
    OK("device flags again", cudaGetDeviceFlags(&f));
    CHECK("flags not marked valid are ignored",
          (f & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync);

    int n = 0;
    OK("count", cudaGetDeviceCount(&n));
    cudaError_t e = cudaInitDevice(n, 0, 0);
    printf("device %d: %s\n", n, cudaGetErrorName(e));
    CHECK("an ordinal past the last device is refused", e == cudaErrorInvalidDevice);
    e = cudaInitDevice(0, 0x1000, cudaInitDeviceFlagsAreValid);
    printf("unknown device flags: %s\n", cudaGetErrorName(e));
    CHECK("unknown device flags are refused", e == cudaErrorInvalidValue);
    cudaGetLastError();

    int h[4] = {1, 2, 3, 4}, *d = NULL;
    OK("malloc", cudaMalloc(&d, sizeof h));
    OK("to device", cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    twice<<<1, 4>>>(d);
    OK("kernel", cudaDeviceSynchronize());
    OK("back", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK("the initialised device runs kernels", h[0] == 2 && h[3] == 8);
    OK("free", cudaFree(d));
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
