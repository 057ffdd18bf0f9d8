// cudaGetTextureObjectTextureDesc and cudaGetTextureObjectResourceViewDesc give back the
// descriptors a texture object was made from (two objects with different sampling state,
// one with a view), the view getter refuses an object made without one, and a texture read
// in a kernel follows the descriptor (wrap addressing, normalized coordinates).
// Self-checking; runs unchanged against NVIDIA's libcudart.
#include <string.h>

#include "../include/runtime_check.h"

__global__ void fetch(cudaTextureObject_t t, float *out)
{
    // 1.25 wraps to 0.25: element 1 of 4 (point sampling)
    out[0] = tex2D<float>(t, 1.25f + 0.125f / 4, 0.25f); // row 0
}

int main(int argc, char **argv)
{
    // "ours": checks of argument errors NVIDIA's runtime leaves to the driver
    const bool ours = argc > 1 && strcmp(argv[1], "ours") == 0;
    const int W = 4, H = 2;
    float host[H][W] = {{10, 11, 12, 13}, {20, 21, 22, 23}};
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t arr = NULL;
    OK("array", cudaMallocArray(&arr, &fd, W, H));
    OK("fill", cudaMemcpy2DToArray(arr, 0, 0, host, W * sizeof(float), W * sizeof(float), H,
                                   cudaMemcpyHostToDevice));
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;

    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = cudaAddressModeWrap;
    td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    td.borderColor[0] = 0.5f;
    td.borderColor[3] = 1.0f;
    td.maxAnisotropy = 4;
    td.mipmapLevelBias = 0.25f;
    td.maxMipmapLevelClamp = 3.0f;
    cudaTextureObject_t t1 = 0, t2 = 0;
    OK("texture 1", cudaCreateTextureObject(&t1, &res, &td, NULL));

    cudaTextureDesc td2;
    memset(&td2, 0, sizeof td2);
    td2.addressMode[0] = td2.addressMode[1] = cudaAddressModeBorder;
    td2.filterMode = cudaFilterModeLinear;
    td2.readMode = cudaReadModeElementType;
    td2.borderColor[1] = 2.0f;
    cudaResourceViewDesc view;
    memset(&view, 0, sizeof view);
    view.format = cudaResViewFormatFloat1;
    view.width = W;
    view.height = H;
    OK("texture 2 with a view", cudaCreateTextureObject(&t2, &res, &td2, &view));

    cudaTextureDesc got;
    memset(&got, 0x5A, sizeof got);
    OK("texture desc 1", cudaGetTextureObjectTextureDesc(&got, t1));
    printf("desc 1: address %d %d filter %d read %d normalized %d aniso %u border %g %g "
           "bias %g maxclamp %g\n", got.addressMode[0], got.addressMode[1], got.filterMode,
           got.readMode, got.normalizedCoords, got.maxAnisotropy, got.borderColor[0],
           got.borderColor[3], got.mipmapLevelBias, got.maxMipmapLevelClamp);
    CHECK("descriptor 1 comes back",
          got.addressMode[0] == cudaAddressModeWrap && got.addressMode[1] == cudaAddressModeClamp &&
              got.filterMode == cudaFilterModePoint && got.readMode == cudaReadModeElementType &&
              got.normalizedCoords == 1 && got.sRGB == 0 && got.maxAnisotropy == 4 &&
              got.borderColor[0] == 0.5f && got.borderColor[3] == 1.0f &&
              got.mipmapLevelBias == 0.25f && got.maxMipmapLevelClamp == 3.0f);
    OK("texture desc 2", cudaGetTextureObjectTextureDesc(&got, t2));
    CHECK("descriptor 2 comes back",
          got.addressMode[0] == cudaAddressModeBorder && got.addressMode[1] == cudaAddressModeBorder &&
              got.filterMode == cudaFilterModeLinear && got.normalizedCoords == 0 &&
              got.borderColor[1] == 2.0f);

    cudaResourceViewDesc gv;
    memset(&gv, 0x5A, sizeof gv);
    OK("view desc", cudaGetTextureObjectResourceViewDesc(&gv, t2));
    printf("view: format %d %zu x %zu levels %u-%u\n", gv.format, gv.width, gv.height,
           gv.firstMipmapLevel, gv.lastMipmapLevel);
    CHECK("the view comes back", gv.format == cudaResViewFormatFloat1 && gv.width == (size_t)W &&
                                     gv.height == (size_t)H && gv.firstMipmapLevel == 0);
    cudaError_t e = cudaGetTextureObjectResourceViewDesc(&gv, t1);
    printf("no view: %s\n", cudaGetErrorName(e));
    CHECK("an object without a view has none to give", e == cudaErrorInvalidValue);
    cudaGetLastError();
    if (ours) {
        e = cudaGetTextureObjectTextureDesc(NULL, t1);
        CHECK("NULL descriptor refused", e == cudaErrorInvalidValue);
    }
    cudaGetLastError();

    float *out = NULL, r = 0;
    OK("out", cudaMalloc(&out, sizeof(float)));
    fetch<<<1, 1>>>(t1, out);
    OK("fetch", cudaDeviceSynchronize());
    OK("read", cudaMemcpy(&r, out, sizeof r, cudaMemcpyDeviceToHost));
    printf("wrapped fetch: %g\n", r);
    CHECK("the texture samples as its descriptor says (wrap, normalized)", r == 11.0f);

    OK("destroy 1", cudaDestroyTextureObject(t1));
    OK("destroy 2", cudaDestroyTextureObject(t2));
    OK("free", cudaFreeArray(arr));
    OK("free out", cudaFree(out));
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
