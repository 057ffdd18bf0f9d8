// Copy nodes into and out of a __device__ variable named by its host shadow:
// cudaGraphAddMemcpyNodeToSymbol/FromSymbol, the node given new parameters in the graph
// (SetParamsToSymbol) and in an executable graph (Exec...FromSymbol), and the direction
// and bounds errors CUDA reports when a node is made. Self-checking; runs unchanged
// against NVIDIA's libcudart.
#include "../include/runtime_check.h"

__device__ int sym[16];

static int same(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

int main()
{
    int in[16], in2[16], out[16] = {}, out2[16] = {};
    for (int i = 0; i < 16; i++) {
        in[i] = i + 1;
        in2[i] = 100 + i;
    }
    cudaStream_t s;
    OK("stream", cudaStreamCreate(&s));
    cudaGraph_t g;
    OK("create", cudaGraphCreate(&g, 0));
    cudaGraphNode_t to = NULL, from = NULL;
    OK("to symbol node", cudaGraphAddMemcpyNodeToSymbol(&to, g, NULL, 0, sym, in, sizeof in, 0,
                                                        cudaMemcpyHostToDevice));
    OK("from symbol node", cudaGraphAddMemcpyNodeFromSymbol(&from, g, &to, 1, out, sym,
                                                            sizeof out, 0,
                                                            cudaMemcpyDeviceToHost));
    cudaGraphNodeType t;
    OK("type", cudaGraphNodeGetType(to, &t));
    CHECK("a symbol copy is a memcpy node", t == cudaGraphNodeTypeMemcpy);
    cudaGraphExec_t exec;
    OK("instantiate", cudaGraphInstantiate(&exec, g, 0));
    OK("launch", cudaGraphLaunch(exec, s));
    OK("sync", cudaStreamSynchronize(s));
    CHECK("through the variable and back", same(in, out, 16));

    // the graph's node: the second half of in2 into the first half of the variable
    OK("set to symbol", cudaGraphMemcpyNodeSetParamsToSymbol(to, sym, in2 + 8, 8 * sizeof(int),
                                                             0, cudaMemcpyHostToDevice));
    cudaGraphExec_t exec2;
    OK("instantiate again", cudaGraphInstantiate(&exec2, g, 0));
    // the exec's node: read back into out2 instead
    OK("exec set from symbol",
       cudaGraphExecMemcpyNodeSetParamsFromSymbol(exec2, from, out2, sym, sizeof out2, 0,
                                                  cudaMemcpyDeviceToHost));
    OK("launch 2", cudaGraphLaunch(exec2, s));
    OK("sync 2", cudaStreamSynchronize(s));
    int want[16];
    for (int i = 0; i < 16; i++)
        want[i] = i < 8 ? in2[8 + i] : in[i];
    CHECK("the new parameters ran", same(want, out2, 16));
    printf("out2[0] = %d, out2[8] = %d\n", out2[0], out2[8]);
    CHECK("the first exec's node was not changed", out[0] == 1);

    cudaGraphNode_t bad = NULL;
    cudaError_t e = cudaGraphAddMemcpyNodeToSymbol(&bad, g, NULL, 0, sym, in, sizeof in, 0,
                                                   cudaMemcpyDeviceToHost);
    printf("to symbol, device to host: %s\n", cudaGetErrorName(e));
    CHECK("the direction is checked", e == cudaErrorInvalidMemcpyDirection);
    e = cudaGraphAddMemcpyNodeFromSymbol(&bad, g, NULL, 0, out, sym, sizeof out, 4,
                                         cudaMemcpyDeviceToHost);
    printf("past the variable's end: %s\n", cudaGetErrorName(e));
    CHECK("the bounds are checked", e == cudaErrorInvalidValue);
    e = cudaGraphMemcpyNodeSetParamsToSymbol(to, sym, in, sizeof in, sizeof(int),
                                             cudaMemcpyHostToDevice);
    CHECK("new parameters past the end are refused", e == cudaErrorInvalidValue);
    cudaGetLastError();

    OK("exec destroy", cudaGraphExecDestroy(exec));
    OK("exec2 destroy", cudaGraphExecDestroy(exec2));
    OK("graph destroy", cudaGraphDestroy(g));
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
