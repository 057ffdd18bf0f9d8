// cudaGraphKernelNodeSetAttribute / GetAttribute: defaults read back as zero, each kept
// attribute (priority, access policy window, cooperative, memory-sync domain) read back as
// set, kept across cudaGraphKernelNodeSetParams, copied by cudaGraphKernelNodeCopyAttributes
// and through instantiation (the cooperative node runs and computes); a cooperative node
// too big to be resident is refused, as are a node that is no kernel node and attributes
// no backend keeps. Self-checking.
#include <string.h>

#include "../include/runtime_check.h"

__global__ void fill(int *p, int v)
{
    p[blockIdx.x * blockDim.x + threadIdx.x] = v + (int)threadIdx.x;
}

int main()
{
    int *d = NULL;
    OK("malloc", cudaMalloc(&d, 256 * sizeof(int)));
    cudaGraph_t g;
    OK("graph", cudaGraphCreate(&g, 0));
    int v = 5;
    void *args[2] = {&d, &v};
    cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)fill;
    kp.gridDim = dim3(2);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    cudaGraphNode_t a, b, empty;
    OK("node a", cudaGraphAddKernelNode(&a, g, NULL, 0, &kp));
    int *d2 = NULL; // node b writes its own buffer: a and b may run in either order
    OK("malloc 2", cudaMalloc(&d2, 256 * sizeof(int)));
    void *args_b[2] = {&d2, &v};
    cudaKernelNodeParams kp_b = kp;
    kp_b.kernelParams = args_b;
    OK("node b", cudaGraphAddKernelNode(&b, g, NULL, 0, &kp_b));
    OK("empty node", cudaGraphAddEmptyNode(&empty, g, NULL, 0));

    cudaLaunchAttributeValue val;
    memset(&val, 0x5A, sizeof val);
    OK("get default priority", cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributePriority, &val));
    CHECK("priority defaults to 0", val.priority == 0);
    OK("get default cooperative", cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributeCooperative, &val));
    CHECK("cooperative defaults to 0", val.cooperative == 0);

    memset(&val, 0, sizeof val);
    val.priority = 3;
    OK("set priority", cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributePriority, &val));
    memset(&val, 0, sizeof val);
    val.accessPolicyWindow.base_ptr = d;
    val.accessPolicyWindow.num_bytes = 1024;
    val.accessPolicyWindow.hitRatio = 0.625f;
    val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    OK("set window", cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributeAccessPolicyWindow, &val));
    memset(&val, 0, sizeof val);
    val.cooperative = 1;
    OK("set cooperative", cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributeCooperative, &val));
    memset(&val, 0, sizeof val);
    val.memSyncDomain = cudaLaunchMemSyncDomainRemote;
    OK("set domain", cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributeMemSyncDomain, &val));

    v = 7; // new parameters: the node keeps its attributes
    OK("set params", cudaGraphKernelNodeSetParams(a, &kp));
    memset(&val, 0x5A, sizeof val);
    OK("get priority", cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributePriority, &val));
    int prio = val.priority;
    OK("get window", cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributeAccessPolicyWindow, &val));
    cudaAccessPolicyWindow w = val.accessPolicyWindow;
    OK("get cooperative", cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributeCooperative, &val));
    int coop = val.cooperative;
    OK("get domain", cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributeMemSyncDomain, &val));
    printf("node a: priority %d, window %zu bytes hit %g props %d/%d, cooperative %d, domain %d\n",
           prio, w.num_bytes, w.hitRatio, (int)w.hitProp, (int)w.missProp, coop,
           (int)val.memSyncDomain);
    CHECK("every attribute reads back as set",
          prio == 3 && w.base_ptr == d && w.num_bytes == 1024 && w.hitRatio == 0.625f &&
              w.hitProp == cudaAccessPropertyPersisting && w.missProp == cudaAccessPropertyStreaming &&
              coop == 1 && val.memSyncDomain == cudaLaunchMemSyncDomainRemote);

    OK("copy attributes", cudaGraphKernelNodeCopyAttributes(a, b));
    OK("b's priority", cudaGraphKernelNodeGetAttribute(b, cudaLaunchAttributePriority, &val));
    printf("node b after copy: priority %d\n", val.priority);
    CHECK("copied to node b", val.priority == 3);

    cudaGraphExec_t ex;
    OK("instantiate", cudaGraphInstantiate(&ex, g, 0));
    OK("launch", cudaGraphLaunch(ex, 0));
    OK("sync", cudaStreamSynchronize(0));
    int h[256];
    OK("read", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("h[0] = %d, h[255] = %d\n", h[0], h[255]);
    CHECK("the cooperative node ran", h[0] == 7 && h[255] == 7 + 127);

    cudaKernelNodeParams big = kp;
    big.gridDim = dim3(1u << 20);
    big.blockDim = dim3(1024);
    cudaGraphNode_t c;
    OK("node c", cudaGraphAddKernelNode(&c, g, NULL, 0, &big));
    memset(&val, 0, sizeof val);
    val.cooperative = 1;
    cudaError_t e = cudaGraphKernelNodeSetAttribute(c, cudaLaunchAttributeCooperative, &val);
    printf("cooperative, 2^20 blocks: %s\n", cudaGetErrorName(e));
    CHECK("a cooperative node too big to be resident is refused",
          e == cudaErrorCooperativeLaunchTooLarge);
    e = cudaGraphKernelNodeGetAttribute(empty, cudaLaunchAttributePriority, &val);
    printf("empty node: %s\n", cudaGetErrorName(e));
    CHECK("an empty node has no launch attributes", e == cudaErrorInvalidValue);
    e = cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributeClusterDimension, &val);
    printf("cluster dimension: %s\n", cudaGetErrorName(e));
    CHECK("an attribute no backend keeps is refused", e == cudaErrorNotSupported);
    e = cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributePriority, NULL);
    CHECK("NULL value refused", e == cudaErrorInvalidValue);
    cudaGetLastError();

    OK("destroy exec", cudaGraphExecDestroy(ex));
    OK("destroy graph", cudaGraphDestroy(g));
    OK("free", cudaFree(d));
    OK("free 2", cudaFree(d2));
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
