/* cuInit, cuDriverGetVersion: HIP is initialised once and the primary contexts created. */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

void pyshim_contexts_create(int count);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CUresult init_result = CUDA_ERROR_NOT_INITIALIZED;
static int device_count;

static void init_once(void)
{
    hipError_t err = hipInit(0);
    int count = 0;
    if (err == hipSuccess)
        err = hipGetDeviceCount(&count);
    if (err != hipSuccess) {
        init_result = pyshim_cu_from_hip(err);
        pyshim_log("cuInit: the backend (libamdhip64) found no usable device: %s",
                   hipGetErrorName(err));
        return;
    }
    if (count <= 0) {
        init_result = CUDA_ERROR_NO_DEVICE;
        return;
    }
    device_count = count;
    pyshim_contexts_create(count);
    init_result = CUDA_SUCCESS;
}

CUresult CUDAAPI cuInit(unsigned int Flags)
{
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_once(&once, init_once);
    return init_result;
}

CUresult pyshim_check_init(void)
{
    /* cudart always calls cuInit first; the driver API requires it too */
    return device_count > 0 ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

int pyshim_device_count(void)
{
    return device_count;
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    if (driverVersion == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = PYSHIM_DRIVER_VERSION;
    return CUDA_SUCCESS;
}
