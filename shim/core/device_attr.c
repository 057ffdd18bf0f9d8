/*
 * cuDeviceGetAttribute: every CU_DEVICE_ATTRIBUTE_* answered from the backend's
 * hipDeviceProp_t (one query per device, cached), then passed through the NVIDIA device
 * identity (common/device_identity.h: compute capability, warp size, per-capability
 * limits). cudart asks for 111 of them at start-up and fails to initialise if any returns
 * an error, so attributes HIP has no field for get a documented constant (0 = "not
 * supported" is an accepted answer) rather than an error. Which field or constant answers
 * which attribute: tables/device_attributes.toml (generated into driver_device_attr.inc);
 * the few that need more than a field are here.
 */
#include <limits.h>

#include "common/device_identity.h"
#include "internal.h"

#define SAME_NUMBER(name)                                                                  \
    _Static_assert((int)CU_DEVICE_ATTRIBUTE_##name == (int)PYSHIM_ATTR_##name, #name)
SAME_NUMBER(MAX_THREADS_PER_BLOCK);
SAME_NUMBER(MAX_BLOCK_DIM_X);
SAME_NUMBER(MAX_BLOCK_DIM_Y);
SAME_NUMBER(MAX_BLOCK_DIM_Z);
SAME_NUMBER(MAX_GRID_DIM_X);
SAME_NUMBER(MAX_GRID_DIM_Y);
SAME_NUMBER(MAX_GRID_DIM_Z);
SAME_NUMBER(MAX_SHARED_MEMORY_PER_BLOCK);
SAME_NUMBER(TOTAL_CONSTANT_MEMORY);
SAME_NUMBER(WARP_SIZE);
SAME_NUMBER(MAX_REGISTERS_PER_BLOCK);
SAME_NUMBER(MAX_THREADS_PER_MULTIPROCESSOR);
SAME_NUMBER(COMPUTE_CAPABILITY_MAJOR);
SAME_NUMBER(COMPUTE_CAPABILITY_MINOR);
SAME_NUMBER(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
SAME_NUMBER(MAX_REGISTERS_PER_MULTIPROCESSOR);
SAME_NUMBER(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
SAME_NUMBER(MAX_BLOCKS_PER_MULTIPROCESSOR);
SAME_NUMBER(CLUSTER_LAUNCH);

static int clamp(size_t v)
{
    return v > INT_MAX ? INT_MAX : (int)v;
}

CUresult pyshim_device_attribute(int *value, CUdevice_attribute attrib, int device)
{
    const hipDeviceProp_t *p = pyshim_device_prop(device);
    if (p == NULL)
        return CUDA_ERROR_INVALID_DEVICE;
    int v;
    switch (attrib) {
    /* a hipDeviceProp_t field or a constant: tables/device_attributes.toml */
#define PYSHIM_ATTR_INT(a, field) case a: v = p->field; break;
#define PYSHIM_ATTR_UINT(a, field) case a: v = (int)p->field; break;
#define PYSHIM_ATTR_SIZE(a, field) case a: v = clamp(p->field); break;
#define PYSHIM_ATTR_CONST(a, value) case a: v = (value); break;
#include "driver_device_attr.inc"
#undef PYSHIM_ATTR_INT
#undef PYSHIM_ATTR_UINT
#undef PYSHIM_ATTR_SIZE
#undef PYSHIM_ATTR_CONST
    case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER: v = p->maxTexture2DGather[0] > 0; break;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    /* ROCm's (and the CPU device's) VMM exports POSIX file descriptors on Linux */
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: {
        int h = 0;
        v = hipDeviceGetAttribute(&h, hipDeviceAttributeVirtualMemoryManagementSupported,
                                  device) == hipSuccess ? h : 0;
        break;
    }
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: {
        int h = -1;
        v = hipDeviceGetAttribute(&h, hipDeviceAttributeHostNumaId, device) == hipSuccess ? h : -1;
        break;
    }
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    long long cuda = pyshim_identity_value((int)attrib, v);
    *value = cuda > INT_MAX ? INT_MAX : (int)cuda;
    return CUDA_SUCCESS;
}
