// The widest 1D linear texture by element format: the runtime's channel descriptor form
// and the driver's CUarray_format + channel count form must agree for the same element,
// and formats a 1D linear texture cannot hold are refused. Prints the widths. Self-checking.
#include <cuda.h>

#include "../include/runtime_check.h"

int main()
{
    int dev = 0;
    OK("device", cudaGetDevice(&dev));
    size_t rt_float4 = 0, rt_uchar1 = 0, drv_float4 = 0, drv_uchar1 = 0, drv_half2 = 0;
    cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float4>();
    cudaChannelFormatDesc u1 = cudaCreateChannelDesc<unsigned char>();
    OK("runtime float4", cudaDeviceGetTexture1DLinearMaxWidth(&rt_float4, &f4, dev));
    OK("runtime uchar", cudaDeviceGetTexture1DLinearMaxWidth(&rt_uchar1, &u1, dev));
    CUdevice cd = 0;
    OK("cuDeviceGet", (cudaError_t)cuDeviceGet(&cd, dev));
    OK("driver float4", (cudaError_t)cuDeviceGetTexture1DLinearMaxWidth(
                            &drv_float4, CU_AD_FORMAT_FLOAT, 4, cd));
    OK("driver uchar", (cudaError_t)cuDeviceGetTexture1DLinearMaxWidth(
                           &drv_uchar1, CU_AD_FORMAT_UNSIGNED_INT8, 1, cd));
    OK("driver half2", (cudaError_t)cuDeviceGetTexture1DLinearMaxWidth(
                           &drv_half2, CU_AD_FORMAT_HALF, 2, cd));
    printf("widths float4 %zu %zu uchar %zu %zu half2 %zu\n", rt_float4, drv_float4, rt_uchar1,
           drv_uchar1, drv_half2);
    CHECK("a width at all", rt_float4 > 0 && rt_uchar1 > 0 && drv_half2 > 0);
    CHECK("both APIs agree on float4", rt_float4 == drv_float4);
    CHECK("both APIs agree on uchar", rt_uchar1 == drv_uchar1);

    size_t w = 0;
    CUresult r = cuDeviceGetTexture1DLinearMaxWidth(&w, CU_AD_FORMAT_FLOAT, 3, cd);
    printf("three channels: %d\n", (int)r);
    CHECK("three channels are refused", r == CUDA_ERROR_INVALID_VALUE);
    r = cuDeviceGetTexture1DLinearMaxWidth(&w, CU_AD_FORMAT_NV12, 1, cd);
    printf("NV12: %d\n", (int)r);
    CHECK("a video format is refused", r == CUDA_ERROR_INVALID_VALUE);
    r = cuDeviceGetTexture1DLinearMaxWidth(&w, CU_AD_FORMAT_FLOAT, 1, 9999);
    printf("bad device: %d\n", (int)r);
    CHECK("a bad device is refused", r == CUDA_ERROR_INVALID_DEVICE);
    CHECK("a NULL result is refused",
          cuDeviceGetTexture1DLinearMaxWidth(NULL, CU_AD_FORMAT_FLOAT, 1, cd) ==
              CUDA_ERROR_INVALID_VALUE);
    cudaChannelFormatDesc bad = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaError_t e = cudaDeviceGetTexture1DLinearMaxWidth(&w, &bad, dev);
    printf("8-bit float: %s\n", cudaGetErrorName(e));
    CHECK("an 8-bit float is refused", e == cudaErrorInvalidChannelDescriptor);
    cudaGetLastError();
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
