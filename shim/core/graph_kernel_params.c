/*
 * cuGraphKernelNodeGetParams: the node's launch as HIP holds it, its translated kernel
 * named again by the handle the program gave (a CUfunction, or a CUkernel in `kern`).
 * graph.c notes each (translated kernel, handle) pair when it builds a node's parameters;
 * a kernel only ever launched by stream capture has no such note, and reading such a
 * node's kernel back is refused by name.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct note {
    hipFunction_t hip;
    CUfunction given;
    int is_kernel;   /* given as a CUkernel (`kern`) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct note *notes;
static size_t nnotes, cap;

void pyshim_graph_kernel_note(hipFunction_t hip, CUfunction given, int is_kernel)
{
    pthread_mutex_lock(&lock);
    size_t i = 0;
    while (i < nnotes && notes[i].hip != hip)
        i++;
    if (i == nnotes && nnotes == cap) {
        size_t c = cap ? cap * 2 : 32;
        struct note *n = realloc(notes, c * sizeof *n);
        if (n != NULL) {
            notes = n;
            cap = c;
        }
    }
    if (i < cap) {
        notes[i] = (struct note){hip, given, is_kernel};
        if (i == nnotes)
            nnotes++;
    }
    pthread_mutex_unlock(&lock);
}

static int lookup(hipFunction_t hip, struct note *out)
{
    pthread_mutex_lock(&lock);
    int found = 0;
    for (size_t i = 0; i < nnotes && !found; i++)
        if (notes[i].hip == hip) {
            *out = notes[i];
            found = 1;
        }
    pthread_mutex_unlock(&lock);
    return found;
}

static CUresult get_params(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v2 *out)
{
    if (hNode == NULL || out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    hipKernelNodeParams h;
    hipError_t err = hipGraphKernelNodeGetParams((hipGraphNode_t)hNode, &h);
    if (err != hipSuccess)
        return pyshim_cu_from_hip(err);
    struct note n;
    if (!lookup((hipFunction_t)h.func, &n)) {
        pyshim_unsupported("cuGraphKernelNodeGetParams of a kernel only launched by stream "
                           "capture (its CUfunction is not known)");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    memset(out, 0, sizeof *out);
    if (n.is_kernel)
        out->kern = (CUkernel)(void *)n.given;
    else
        out->func = n.given;
    out->gridDimX = h.gridDim.x, out->gridDimY = h.gridDim.y, out->gridDimZ = h.gridDim.z;
    out->blockDimX = h.blockDim.x, out->blockDimY = h.blockDim.y, out->blockDimZ = h.blockDim.z;
    out->sharedMemBytes = h.sharedMemBytes;
    out->kernelParams = h.kernelParams;
    out->extra = h.extra;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphKernelNodeGetParams_v2(CUgraphNode hNode,
                                               CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    return get_params(hNode, nodeParams);
}

/* CUDA 11's form: no `kern`; a CUkernel is usable as a CUfunction here */
#undef cuGraphKernelNodeGetParams
CUresult CUDAAPI cuGraphKernelNodeGetParams(CUgraphNode hNode,
                                            CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams);
CUresult CUDAAPI cuGraphKernelNodeGetParams(CUgraphNode hNode,
                                            CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    if (nodeParams == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_KERNEL_NODE_PARAMS_v2 p;
    CUresult rc = get_params(hNode, &p);
    if (rc != CUDA_SUCCESS)
        return rc;
    nodeParams->func = p.func != NULL ? p.func : (CUfunction)(void *)p.kern;
    nodeParams->gridDimX = p.gridDimX, nodeParams->gridDimY = p.gridDimY;
    nodeParams->gridDimZ = p.gridDimZ;
    nodeParams->blockDimX = p.blockDimX, nodeParams->blockDimY = p.blockDimY;
    nodeParams->blockDimZ = p.blockDimZ;
    nodeParams->sharedMemBytes = p.sharedMemBytes;
    nodeParams->kernelParams = p.kernelParams;
    nodeParams->extra = p.extra;
    return CUDA_SUCCESS;
}
