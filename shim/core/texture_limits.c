/*
 * cuDeviceGetTexture1DLinearMaxWidth: the driver names the element by CUarray_format and a
 * channel count, HIP by a channel descriptor; the formats that have a descriptor are
 * translated and HIP answers, the rest (video and block-compressed formats, which a 1D
 * linear texture cannot hold) are refused by name.
 */
#include "internal.h"

static int channel_desc(CUarray_format format, unsigned channels, hipChannelFormatDesc *out)
{
    int bits;
    enum hipChannelFormatKind kind;
    switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8: bits = 8, kind = hipChannelFormatKindUnsigned; break;
    case CU_AD_FORMAT_UNSIGNED_INT16: bits = 16, kind = hipChannelFormatKindUnsigned; break;
    case CU_AD_FORMAT_UNSIGNED_INT32: bits = 32, kind = hipChannelFormatKindUnsigned; break;
    case CU_AD_FORMAT_SIGNED_INT8: bits = 8, kind = hipChannelFormatKindSigned; break;
    case CU_AD_FORMAT_SIGNED_INT16: bits = 16, kind = hipChannelFormatKindSigned; break;
    case CU_AD_FORMAT_SIGNED_INT32: bits = 32, kind = hipChannelFormatKindSigned; break;
    case CU_AD_FORMAT_HALF: bits = 16, kind = hipChannelFormatKindFloat; break;
    case CU_AD_FORMAT_FLOAT: bits = 32, kind = hipChannelFormatKindFloat; break;
    default: return -1;
    }
    if (channels != 1 && channels != 2 && channels != 4)
        return -1;
    *out = (hipChannelFormatDesc){0};
    out->x = bits;
    out->y = channels >= 2 ? bits : 0;
    out->z = channels == 4 ? bits : 0;
    out->w = channels == 4 ? bits : 0;
    out->f = kind;
    return 0;
}

CUresult CUDAAPI cuDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements,
                                                    CUarray_format format, unsigned numChannels,
                                                    CUdevice dev)
{
    if (maxWidthInElements == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (dev < 0 || dev >= pyshim_device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    hipChannelFormatDesc desc;
    if (channel_desc(format, numChannels, &desc) != 0) {
        pyshim_log("cuDeviceGetTexture1DLinearMaxWidth: no 1D linear texture of format 0x%x "
                   "with %u channels", (unsigned)format, numChannels);
        return CUDA_ERROR_INVALID_VALUE;
    }
    return pyshim_cu_from_hip(hipDeviceGetTexture1DLinearMaxWidth(maxWidthInElements, &desc,
                                                                  (int)dev));
}
