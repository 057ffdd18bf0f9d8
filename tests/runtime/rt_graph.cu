// CUDA graphs: two kernel launches captured on a stream, and the same two kernels as
// explicit nodes (the second depending on the first); each graph instantiated and
// replayed three times; then the instantiated graph's node given new parameters, and the
// instantiated graph updated from graphs of another and of the same shape. Self-checking;
// runs unchanged against NVIDIA's libcudart.
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void add(int *p, int v)
{
    p[threadIdx.x] += v;
}

#define OK(call)                                                                       \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            printf("FAIL %s: %s\n", #call, cudaGetErrorName(e_));                      \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

int main()
{
    int *d = NULL;
    OK(cudaMalloc(&d, 64 * sizeof(int)));
    OK(cudaMemset(d, 0, 64 * sizeof(int)));
    cudaStream_t s;
    OK(cudaStreamCreate(&s));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    add<<<1, 64, 0, s>>>(d, 1);
    add<<<1, 64, 0, s>>>(d, 2);
    OK(cudaStreamEndCapture(s, &graph));
    size_t nodes = 0;
    OK(cudaGraphGetNodes(graph, NULL, &nodes));
    OK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 3; i++)
        OK(cudaGraphLaunch(exec, s));
    OK(cudaStreamSynchronize(s));
    int h[64];
    OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int ok = nodes == 2;
    for (int i = 0; i < 64; i++)
        ok &= h[i] == 9;
    printf("%zu nodes, element 0 = %d\n", nodes, h[0]);
    OK(cudaGraphExecDestroy(exec));
    OK(cudaGraphDestroy(graph));

    // the same graph built node by node
    OK(cudaMemset(d, 0, 64 * sizeof(int)));
    OK(cudaGraphCreate(&graph, 0));
    int one = 1, two = 2;
    void *args1[] = {&d, &one}, *args2[] = {&d, &two};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)add;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(64);
    kp.kernelParams = args1;
    cudaGraphNode_t first, second;
    OK(cudaGraphAddKernelNode(&first, graph, NULL, 0, &kp));
    kp.kernelParams = args2;
    OK(cudaGraphAddKernelNode(&second, graph, &first, 1, &kp));
    OK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 3; i++)
        OK(cudaGraphLaunch(exec, s));
    OK(cudaStreamSynchronize(s));
    OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; i++)
        ok &= h[i] == 9;
    printf("explicit nodes: element 0 = %d\n", h[0]);

    // new parameters for the instantiated second node: later launches add 5, not 2
    int five = 5;
    void *args5[] = {&d, &five};
    kp.kernelParams = args5;
    OK(cudaGraphExecKernelNodeSetParams(exec, second, &kp));
    OK(cudaMemset(d, 0, 64 * sizeof(int)));
    OK(cudaGraphLaunch(exec, s));
    OK(cudaStreamSynchronize(s));
    OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    ok &= h[0] == 6 && h[63] == 6;
    printf("new node parameters: element 0 = %d\n", h[0]);

    // cudaGraphExecUpdate (CUDA 12's result struct): a graph of another shape is refused and
    // the exec keeps its work; the original graph (1 then 2) is taken
    cudaGraph_t other;
    OK(cudaGraphCreate(&other, 0));
    cudaGraphNode_t lone;
    kp.kernelParams = args1;
    OK(cudaGraphAddKernelNode(&lone, other, NULL, 0, &kp));
    cudaGraphExecUpdateResultInfo info;
    cudaError_t e = cudaGraphExecUpdate(exec, other, &info);
    ok &= e == cudaErrorGraphExecUpdateFailure &&
          info.result == cudaGraphExecUpdateErrorTopologyChanged;
    printf("update from another shape: %s, result %d\n", cudaGetErrorName(e), (int)info.result);
    OK(cudaGraphExecUpdate(exec, graph, &info));
    ok &= info.result == cudaGraphExecUpdateSuccess;
    OK(cudaMemset(d, 0, 64 * sizeof(int)));
    OK(cudaGraphLaunch(exec, s));
    OK(cudaStreamSynchronize(s));
    OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    ok &= h[0] == 3 && h[63] == 3;
    printf("updated from the original: element 0 = %d\n", h[0]);
    OK(cudaGraphDestroy(other));
    OK(cudaGraphExecDestroy(exec));
    OK(cudaGraphDestroy(graph));
    OK(cudaStreamDestroy(s));
    OK(cudaFree(d));
    printf("%s graph\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
