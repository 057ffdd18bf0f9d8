/* Devices: CUdevice is the HIP device ordinal. */
#include <pthread.h>
#include <string.h>

#include "internal.h"

#define MAX_DEVICES 64

static hipDeviceProp_t props[MAX_DEVICES];
static int props_loaded[MAX_DEVICES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

const hipDeviceProp_t *pyshim_device_prop(int device)
{
    if (device < 0 || device >= pyshim_device_count() || device >= MAX_DEVICES)
        return NULL;
    if (__atomic_load_n(&props_loaded[device], __ATOMIC_ACQUIRE))
        return &props[device]; /* the hot path: no lock once loaded */
    pthread_mutex_lock(&lock);
    if (!props_loaded[device]) {
        if (hipGetDeviceProperties(&props[device], device) == hipSuccess)
            __atomic_store_n(&props_loaded[device], 1, __ATOMIC_RELEASE);
    }
    int ok = props_loaded[device];
    pthread_mutex_unlock(&lock);
    return ok ? &props[device] : NULL;
}

static CUresult check_device(CUdevice dev)
{
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    return dev >= 0 && dev < pyshim_device_count() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = check_device(ordinal);
    if (rc != CUDA_SUCCESS)
        return rc;
    *device = ordinal;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    if (count == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    *count = pyshim_device_count();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
    if (name == NULL || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDeviceGetName(name, len, dev));
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    if (bytes == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDeviceTotalMem(bytes, dev));
}

CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    if (uuid == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    hipUUID u;
    hipError_t err = hipDeviceGetUuid(&u, dev);
    if (err != hipSuccess)
        return pyshim_cu_from_hip(err);
    memcpy(uuid->bytes, u.bytes, sizeof uuid->bytes);
    return CUDA_SUCCESS;
}

/* the pre-11.4 ABI; cuda.h renames cuDeviceGetUuid to _v2 */
#undef cuDeviceGetUuid
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return cuDeviceGetUuid_v2(uuid, dev);
}

CUresult CUDAAPI cuDeviceGetLuid(char *luid, unsigned int *deviceNodeMask, CUdevice dev)
{
    if (luid == NULL || deviceNodeMask == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    /* LUIDs exist only on Windows */
    return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    if (pi == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_device_attribute(pi, attrib, dev);
}

CUresult CUDAAPI cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    if (major == NULL || minor == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    rc = pyshim_device_attribute(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    if (rc == CUDA_SUCCESS)
        rc = pyshim_device_attribute(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    return rc;
}

CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    if (pciBusId == NULL || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDeviceGetPCIBusId(pciBusId, len, dev));
}

CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    if (canAccessPeer == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = check_device(dev);
    if (rc == CUDA_SUCCESS)
        rc = check_device(peerDev);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDeviceCanAccessPeer(canAccessPeer, dev, peerDev));
}

CUresult CUDAAPI cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    if (free_bytes == NULL || total == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipMemGetInfo(free_bytes, total));
}

/* The pre-4.0 properties struct, from the same attributes (so the same NVIDIA identity) */
CUresult CUDAAPI cuDeviceGetProperties(CUdevprop *prop, CUdevice dev)
{
    if (prop == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    static const CUdevice_attribute ids[] = {
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, CU_DEVICE_ATTRIBUTE_WARP_SIZE,
        CU_DEVICE_ATTRIBUTE_MAX_PITCH, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_CLOCK_RATE, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT,
    };
    int v[sizeof ids / sizeof ids[0]];
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        rc = pyshim_device_attribute(&v[i], ids[i], dev);
        if (rc != CUDA_SUCCESS)
            return rc;
    }
    prop->maxThreadsPerBlock = v[0];
    prop->maxThreadsDim[0] = v[1];
    prop->maxThreadsDim[1] = v[2];
    prop->maxThreadsDim[2] = v[3];
    prop->maxGridSize[0] = v[4];
    prop->maxGridSize[1] = v[5];
    prop->maxGridSize[2] = v[6];
    prop->sharedMemPerBlock = v[7];
    prop->totalConstantMemory = v[8];
    prop->SIMDWidth = v[9];
    prop->memPitch = v[10];
    prop->regsPerBlock = v[11];
    prop->clockRate = v[12];
    prop->textureAlign = v[13];
    return CUDA_SUCCESS;
}
