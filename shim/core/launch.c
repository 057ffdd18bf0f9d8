/*
 * Kernel launches. `f` may be a CUfunction or a CUkernel (cudart passes the CUkernel it
 * got from cuLibraryGetKernel). The `extra` array's markers differ between the APIs
 * (CU_LAUNCH_PARAM_END is 0, HIP_LAUNCH_PARAM_END is 3), so it is rewritten.
 */
#include <string.h>

#include "common/cluster_launch.h"
#include "internal.h"

#define MAX_EXTRA 16

static CUresult convert_extra(void **extra, void **out)
{
    int i = 0;
    for (; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (i + 2 >= MAX_EXTRA)
            return CUDA_ERROR_INVALID_VALUE;
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            out[i] = HIP_LAUNCH_PARAM_BUFFER_POINTER;
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
            out[i] = HIP_LAUNCH_PARAM_BUFFER_SIZE;
        else
            return CUDA_ERROR_INVALID_VALUE;
        out[i + 1] = extra[i + 1];
    }
    out[i] = HIP_LAUNCH_PARAM_END;
    return CUDA_SUCCESS;
}

static CUresult check_dims(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                           unsigned bz)
{
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext ctx = pyshim_current_ctx();
    int dev = pyshim_ctx_valid(ctx) ? ctx->device : 0;
    /* the limits the program was told (cuDeviceGetAttribute's, the device identity's) */
    static const CUdevice_attribute limits[7] = {
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z,
    };
    int lim[7];
    for (int i = 0; i < 7; i++)
        if (pyshim_device_attribute(&lim[i], limits[i], dev) != CUDA_SUCCESS)
            return CUDA_SUCCESS;
    if (bx > (unsigned)lim[0] || by > (unsigned)lim[1] || bz > (unsigned)lim[2] ||
        (unsigned long long)bx * by * bz > (unsigned long long)lim[3])
        return CUDA_ERROR_INVALID_VALUE;
    if (gx > (unsigned)lim[4] || gy > (unsigned)lim[5] || gz > (unsigned)lim[6])
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* Whether the backend's refusal of a launch of `hf` (an invalid value) is about the kernel's
 * compile-time clusters (__cluster_dims__, .explicitcluster; common/cluster_launch.h): a grid
 * that is not whole clusters, other cluster dimensions given, none given where they must be.
 * CUDA names that CUDA_ERROR_INVALID_CLUSTER_SIZE. */
static int cluster_misfit(hipFunction_t hf, unsigned gx, unsigned gy, unsigned gz,
                          const unsigned *cluster)
{
    int d[3], must = 0;
    const int width = PYSHIM_HIP_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
              must_set = PYSHIM_HIP_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET;
    for (int i = 0; i < 3; i++)
        if (hipFuncGetAttribute(&d[i],
                                (hipFunction_attribute)(width + i),
                                hf) != hipSuccess)
            return 0;
    if (hipFuncGetAttribute(&must,
                            (hipFunction_attribute)must_set,
                            hf) != hipSuccess)
        must = 0;
    if (d[0] > 0) {
        if (cluster != NULL && (cluster[0] != (unsigned)d[0] || cluster[1] != (unsigned)d[1] ||
                                cluster[2] != (unsigned)d[2]))
            return 1;
        return gx % (unsigned)d[0] || gy % (unsigned)d[1] || gz % (unsigned)d[2];
    }
    return must && cluster == NULL;
}

/* The most blocks a cluster of `f` may have: CUDA's portable 8, or 16 once the program set
 * CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED (kept by the CPU device). */
unsigned pyshim_cluster_limit(CUfunction f)
{
    hipFunction_t hf;
    int allowed = 0;
    if (pyshim_func_valid(f) && pyshim_function_resolve(f, &hf) == CUDA_SUCCESS &&
        hipFuncGetAttribute(&allowed,
                            (hipFunction_attribute)
                                PYSHIM_HIP_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                            hf) == hipSuccess &&
        allowed)
        return PYSHIM_MAX_NONPORTABLE_CLUSTER;
    return PYSHIM_MAX_PORTABLE_CLUSTER;
}

static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned shmem, CUstream stream,
                       void **params, void **extra, int per_thread, int cooperative,
                       const unsigned *cluster)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pyshim_func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    rc = check_dims(gx, gy, gz, bx, by, bz);
    if (rc != CUDA_SUCCESS)
        return rc;
    hipFunction_t hf;
    rc = pyshim_function_resolve(f, &hf);
    if (rc == CUDA_SUCCESS)
        rc = pyshim_function_refused(f); /* a kernel the translator could not translate */
    if (rc != CUDA_SUCCESS)
        return rc;
    /* past the kernel's own bounds (.maxntid, __launch_bounds__): CUDA refuses the launch
     * as an invalid value; ROCm (and so the CPU device) would fail it as a launch failure,
     * which is sticky */
    int bound = 0;
    if (hipFuncGetAttribute(&bound, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, hf) == hipSuccess &&
        bound > 0 && (unsigned long long)bx * by * bz > (unsigned long long)bound) {
        pyshim_log("launch of %s with %u threads per block refused: its launch bounds allow %d",
                   f->name, bx * by * bz, bound);
        return CUDA_ERROR_INVALID_VALUE;
    }
    void *hip_extra[MAX_EXTRA];
    void **extra_arg = NULL;
    if (extra != NULL) {
        rc = convert_extra(extra, hip_extra);
        if (rc != CUDA_SUCCESS)
            return rc;
        extra_arg = hip_extra;
    }
    if (params == NULL && extra == NULL) {
        /* a kernel without parameters: HIP wants a non-NULL kernelParams */
        static void *none[1];
        params = none;
    }
    if (cooperative) {
        /* every block resident at once: at most what the occupancy calculator tells a
         * program (cuOccupancyMaxActiveBlocksPerMultiprocessor), times the multiprocessors */
        int per_sm = 0, sms = 0;
        unsigned long long blocks = (unsigned long long)gx * gy * gz;
        if (cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, (int)(bx * by * bz), shmem) ==
                CUDA_SUCCESS &&
            pyshim_device_attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                    pyshim_current_ctx()->device) == CUDA_SUCCESS &&
            blocks > (unsigned long long)per_sm * (unsigned long long)sms) {
            pyshim_log("cooperative launch of %s with %llu blocks refused: at most %d blocks of "
                       "%u threads are resident at once (%d per multiprocessor, %d "
                       "multiprocessors)", f->name, blocks, per_sm * sms, bx * by * bz, per_sm,
                       sms);
            return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
        }
    }
    hipError_t err;
    int clusters = 0;
    if (cluster != NULL &&
        pyshim_device_attribute(&clusters, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,
                                pyshim_current_ctx()->device) == CUDA_SUCCESS &&
        clusters) {
        /* the backend runs a cluster's blocks together (common/cluster_launch.h); one that
         * does not (or a device presented without clusters) runs the blocks as before: a
         * kernel without cluster instructions cannot tell */
        hipLaunchAttribute attrs[2];
        memset(attrs, 0, sizeof attrs);
        attrs[0].id = (hipLaunchAttributeID)PYSHIM_HIP_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        memcpy(attrs[0].val.pad, cluster, 3 * sizeof *cluster);
        attrs[1].id = hipLaunchAttributeCooperative;
        attrs[1].val.cooperative = cooperative;
        HIP_LAUNCH_CONFIG cfg = {
            .gridDimX = gx, .gridDimY = gy, .gridDimZ = gz,
            .blockDimX = bx, .blockDimY = by, .blockDimZ = bz,
            .sharedMemBytes = shmem, .hStream = pyshim_hip_stream(stream, per_thread),
            .attrs = attrs, .numAttrs = 2,
        };
        err = hipDrvLaunchKernelEx(&cfg, hf, extra != NULL ? NULL : params, extra_arg);
    } else if (cooperative)
        err = extra != NULL ? hipErrorInvalidValue
                            : hipModuleLaunchCooperativeKernel(
                                  hf, gx, gy, gz, bx, by, bz, shmem,
                                  pyshim_hip_stream(stream, per_thread), params);
    else
        err = hipModuleLaunchKernel(hf, gx, gy, gz, bx, by, bz, shmem,
                                    pyshim_hip_stream(stream, per_thread),
                                    extra != NULL ? NULL : params, extra_arg);
    if (err != hipSuccess && pyshim_trace_enabled())
        pyshim_log("launch of %s failed: %s", f->name, hipGetErrorName(err));
    if (err == hipErrorInvalidValue && cluster_misfit(hf, gx, gy, gz, cluster))
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    return pyshim_cu_from_hip(err);
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX,
                                unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream,
                                void **kernelParams, void **extra)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                  sharedMemBytes, hStream, kernelParams, extra, 0, 0, NULL);
}

CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                     unsigned int gridDimZ, unsigned int blockDimX,
                                     unsigned int blockDimY, unsigned int blockDimZ,
                                     unsigned int sharedMemBytes, CUstream hStream,
                                     void **kernelParams, void **extra)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                  sharedMemBytes, hStream, kernelParams, extra, 1, 0, NULL);
}

CUresult CUDAAPI cuEventRecord_ptsz(CUevent e, CUstream s); /* cuda.h names it by macro only */

/* cuLaunchKernelEx's attributes, each with its meaning on a backend that runs a stream's
 * kernels one after another: scheduling hints (priority, access-policy window, memory
 * sync domains, carveout, preferred clusters) change nothing that a program can observe;
 * programmatic stream serialization only allows an overlap, so stream order is correct;
 * the programmatic and launch-completion events are recorded after the kernel, which is
 * later than NVIDIA may fire them and so satisfies every wait; cooperative launches run
 * as such; cluster dimensions are checked (whole clusters of at most CUDA's portable size)
 * and a backend that reports cluster launch runs each cluster's blocks together (the CPU
 * device); on one that does not (ROCm, whose translator refuses cluster instructions) the
 * blocks run as in a plain launch. */
static CUresult launch_ex(const CUlaunchConfig *c, CUfunction f, void **params, void **extra,
                          int per_thread)
{
    if (c == NULL || (c->numAttrs > 0 && c->attrs == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    int cooperative = 0;
    unsigned cluster[3] = {0, 0, 0};
    CUevent after[2];
    int n_after = 0;
    for (unsigned i = 0; i < c->numAttrs; i++) {
        const CUlaunchAttribute *a = &c->attrs[i];
        switch (a->id) {
        case CU_LAUNCH_ATTRIBUTE_IGNORE:
        case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
        case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
        case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
        case CU_LAUNCH_ATTRIBUTE_PRIORITY:
        case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
        case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
        case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
        case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
        case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
            break;
        case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
            cooperative = a->value.cooperative != 0;
            break;
        case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: {
            unsigned x = a->value.clusterDim.x, y = a->value.clusterDim.y,
                     z = a->value.clusterDim.z;
            /* a grid of whole clusters, at most 8 blocks each (CUDA's portable size), 16
             * for a kernel allowed non-portable sizes */
            unsigned most = pyshim_cluster_limit(f);
            if (x == 0 || y == 0 || z == 0 || c->gridDimX % x || c->gridDimY % y ||
                c->gridDimZ % z || (unsigned long long)x * y * z > most) {
                pyshim_log("cuLaunchKernelEx: grid (%u,%u,%u) in clusters of (%u,%u,%u) "
                           "refused: the grid must be whole clusters of at most %u blocks "
                           "(CUDA_ERROR_INVALID_CLUSTER_SIZE)", c->gridDimX, c->gridDimY,
                           c->gridDimZ, x, y, z, most);
                return CUDA_ERROR_INVALID_CLUSTER_SIZE;
            }
            cluster[0] = x, cluster[1] = y, cluster[2] = z;
            break;
        }
        case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
            if (a->value.programmaticEvent.event != NULL && n_after < 2)
                after[n_after++] = a->value.programmaticEvent.event;
            break;
        case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT:
            if (a->value.launchCompletionEvent.event != NULL && n_after < 2)
                after[n_after++] = a->value.launchCompletionEvent.event;
            break;
        default:
            pyshim_log("cuLaunchKernelEx: launch attribute %d is not one CUDA 13 defines",
                       (int)a->id);
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    CUresult rc = launch(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY,
                         c->blockDimZ, c->sharedMemBytes, c->hStream, params, extra, per_thread,
                         cooperative, cluster[0] != 0 ? cluster : NULL);
    for (int i = 0; i < n_after && rc == CUDA_SUCCESS; i++) {
        if (per_thread)
            rc = cuEventRecord_ptsz(after[i], c->hStream);
        else
            rc = cuEventRecord(after[i], c->hStream);
    }
    return rc;
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                                  void **kernelParams, void **extra)
{
    return launch_ex(config, f, kernelParams, extra, 0);
}

CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f,
                                       void **kernelParams, void **extra)
{
    return launch_ex(config, f, kernelParams, extra, 1);
}

CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                           unsigned int gridDimY, unsigned int gridDimZ,
                                           unsigned int blockDimX, unsigned int blockDimY,
                                           unsigned int blockDimZ, unsigned int sharedMemBytes,
                                           CUstream hStream, void **kernelParams)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                  sharedMemBytes, hStream, kernelParams, NULL, 0, 1, NULL);
}

CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX,
                                                unsigned int gridDimY, unsigned int gridDimZ,
                                                unsigned int blockDimX, unsigned int blockDimY,
                                                unsigned int blockDimZ,
                                                unsigned int sharedMemBytes, CUstream hStream,
                                                void **kernelParams)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                  sharedMemBytes, hStream, kernelParams, NULL, 1, 1, NULL);
}
