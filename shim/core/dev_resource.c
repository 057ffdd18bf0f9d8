/*
 * Device resources for green contexts (CUDA 12.4): the SM resource of a device or
 * context, and its split into equal groups. The SM count is the one the device presents
 * (CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), the minimum partition and co-scheduling
 * alignment are NVIDIA's for the presented compute capability (2 SMs below 9.0, 8 from
 * 9.0). Green contexts themselves are not implemented: these resources describe, they
 * reserve nothing.
 */
#include <stdbool.h>
#include <string.h>

#include "internal.h"

/* our mark in the struct's internal bytes: a resource this library made, and from what */
static const char MARK[8] = "pyshimSM";
enum { FROM_DEVICE = 1, FROM_SPLIT = 2 };

struct mark {
    char magic[8];
    int device;
    int origin;
};

_Static_assert(sizeof(struct mark) <= sizeof(((CUdevResource *)0)->_internal_padding),
               "our mark fits CUdevResource's internal bytes");

static void set_mark(CUdevResource *r, int device, int origin)
{
    struct mark m;
    memcpy(m.magic, MARK, sizeof m.magic);
    m.device = device;
    m.origin = origin;
    memcpy(r->_internal_padding, &m, sizeof m);
}

static bool get_mark(const CUdevResource *r, struct mark *m)
{
    memcpy(m, r->_internal_padding, sizeof *m);
    return memcmp(m->magic, MARK, sizeof m->magic) == 0;
}

static void sm_resource(CUdevResource *r, int device, int origin, unsigned sms,
                        unsigned min_size, unsigned align)
{
    memset(r, 0, sizeof *r);
    r->type = CU_DEV_RESOURCE_TYPE_SM;
    r->sm.smCount = sms;
    r->sm.minSmPartitionSize = min_size;
    r->sm.smCoscheduledAlignment = align;
    set_mark(r, device, origin);
}

static CUresult device_resource(int device, CUdevResource *resource, CUdevResourceType type)
{
    if (resource == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_DEV_RESOURCE_TYPE_SM)
        return CUDA_ERROR_INVALID_RESOURCE_TYPE;
    int sms = 0, major = 0;
    CUresult rc = pyshim_device_attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                          device);
    if (rc == CUDA_SUCCESS)
        rc = pyshim_device_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                     device);
    if (rc != CUDA_SUCCESS)
        return rc;
    unsigned granule = major >= 9 ? 8 : 2;
    sm_resource(resource, device, FROM_DEVICE, (unsigned)sms, granule, granule);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetDevResource(CUdevice device, CUdevResource *resource,
                                        CUdevResourceType type)
{
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (device < 0 || device >= pyshim_device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    return device_resource(device, resource, type);
}

CUresult CUDAAPI cuCtxGetDevResource(CUcontext hCtx, CUdevResource *resource,
                                     CUdevResourceType type)
{
    CUcontext ctx = NULL;
    CUresult rc = pyshim_ctx_resolve(hCtx, &ctx);
    if (rc != CUDA_SUCCESS)
        return rc;
    /* hCtx's device, which need not be the current context's */
    return device_resource(ctx->device, resource, type);
}

CUresult CUDAAPI cuDevSmResourceSplitByCount(CUdevResource *result, unsigned int *nbGroups,
                                             const CUdevResource *input,
                                             CUdevResource *remaining, unsigned int useFlags,
                                             unsigned int minCount)
{
    struct mark m;
    if (nbGroups == NULL || input == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (input->type != CU_DEV_RESOURCE_TYPE_SM || !get_mark(input, &m))
        return CUDA_ERROR_INVALID_RESOURCE_TYPE;
    /* "the output results cannot be split again without first creating a descriptor and a
     * green context with that descriptor" */
    if (m.origin != FROM_DEVICE)
        return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
    unsigned sms = input->sm.smCount;
    if (minCount > sms)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned min_size = input->sm.minSmPartitionSize, align = input->sm.smCoscheduledAlignment;
    if (useFlags & CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING) {
        min_size = 1;
        align = 1;
    }
    if (useFlags & ~(unsigned)(CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING |
                               CU_DEV_SM_RESOURCE_SPLIT_MAX_POTENTIAL_CLUSTER_SIZE))
        return CUDA_ERROR_INVALID_VALUE;
    unsigned group = minCount > min_size ? minCount : min_size;
    group = (group + align - 1) / align * align;
    unsigned possible = group > 0 && group <= sms ? sms / group : 0;
    unsigned made = possible;
    if (result != NULL) {
        made = *nbGroups < possible ? *nbGroups : possible;
        for (unsigned i = 0; i < made; i++)
            sm_resource(&result[i], m.device, FROM_SPLIT, group, min_size, align);
    }
    if (remaining != NULL)
        sm_resource(remaining, m.device, FROM_SPLIT, sms - made * group, min_size, align);
    *nbGroups = made;
    return CUDA_SUCCESS;
}
