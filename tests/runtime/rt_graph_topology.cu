// A graph's shape through the runtime API: two kernel nodes added without dependencies,
// then an edge that runs the later-added node first (the result shows the order); edges,
// roots, dependencies and dependents read back; bad edges refused; a clone and the clone's
// node of an original one; a DOT dump; a node switched off in an executable graph; the
// exec's flags; a node destroyed. Self-checking; runs unchanged against NVIDIA's libcudart.
// argv[1]: where the DOT file goes.
#include <stdio.h>
#include <string.h>

#include "../include/runtime_check.h"

__global__ void scale(int *p, int a)
{
    p[threadIdx.x] *= a;
}

__global__ void add(int *p, int v)
{
    p[threadIdx.x] += v;
}

static cudaGraphNode_t kernel_node(cudaGraph_t g, const void *fn, int **d, int *v)
{
    void *args[] = {d, v};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)fn;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = args;
    cudaGraphNode_t n = NULL;
    OK("kernel node", cudaGraphAddKernelNode(&n, g, NULL, 0, &kp));
    return n;
}

static int run_and_read(cudaGraphExec_t exec, cudaStream_t s, int *d, int init)
{
    int h[32];
    for (int i = 0; i < 32; i++)
        h[i] = init;
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    OK("launch", cudaGraphLaunch(exec, s));
    OK("sync", cudaStreamSynchronize(s));
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 1; i < 32; i++)
        if (h[i] != h[0])
            return -1;
    return h[0];
}

int main(int argc, char **argv)
{
    const char *dot = argc > 1 ? argv[1] : "graph.dot";
    int *d = NULL;
    OK("malloc", cudaMalloc(&d, 32 * sizeof(int)));
    cudaStream_t s;
    OK("stream", cudaStreamCreate(&s));
    int two = 2, three = 3;

    cudaGraph_t g;
    OK("create", cudaGraphCreate(&g, 0));
    cudaGraphNode_t mul = kernel_node(g, (const void *)scale, &d, &two);
    cudaGraphNode_t plus = kernel_node(g, (const void *)add, &d, &three);
    // plus was added after mul; the edge makes it run first: (5 + 3) * 2
    OK("add dependency", cudaGraphAddDependencies(g, &plus, &mul, NULL, 1));

    size_t n = 0;
    OK("edge count", cudaGraphGetEdges(g, NULL, NULL, NULL, &n));
    CHECK("one edge", n == 1);
    cudaGraphNode_t from[2] = {}, to[2] = {};
    n = 2;
    OK("edges", cudaGraphGetEdges(g, from, to, NULL, &n));
    CHECK("the edge, the rest NULL",
          n == 1 && from[0] == plus && to[0] == mul && from[1] == NULL && to[1] == NULL);
    cudaGraphNode_t nodes[2] = {};
    n = 2;
    OK("roots", cudaGraphGetRootNodes(g, nodes, &n));
    CHECK("the root is the node without dependencies", n == 1 && nodes[0] == plus);
    n = 2;
    OK("dependencies", cudaGraphNodeGetDependencies(mul, nodes, NULL, &n));
    CHECK("mul depends on plus", n == 1 && nodes[0] == plus);
    n = 2;
    OK("dependents", cudaGraphNodeGetDependentNodes(plus, nodes, NULL, &n));
    CHECK("plus has mul as dependent", n == 1 && nodes[0] == mul);
    n = 0;
    OK("no dependencies", cudaGraphNodeGetDependencies(plus, NULL, NULL, &n));
    CHECK("plus depends on nothing", n == 0);

    cudaError_t e = cudaGraphAddDependencies(g, &plus, &mul, NULL, 1);
    printf("duplicate edge: %s\n", cudaGetErrorName(e));
    CHECK("a duplicate edge is refused", e == cudaErrorInvalidValue);
    e = cudaGraphRemoveDependencies(g, &mul, &plus, NULL, 1);
    printf("removing a missing edge: %s\n", cudaGetErrorName(e));
    CHECK("removing a missing edge is refused", e == cudaErrorInvalidValue);
    e = cudaGraphGetEdges(g, from, NULL, NULL, &n);
    CHECK("edges into one array only are refused", e == cudaErrorInvalidValue);
    cudaGetLastError();

    cudaGraphExec_t exec;
    OK("instantiate", cudaGraphInstantiate(&exec, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    int r = run_and_read(exec, s, d, 5);
    printf("(5 + 3) * 2 = %d\n", r);
    CHECK("the edge orders the nodes", r == 16);
    unsigned long long flags = 0;
    OK("exec flags", cudaGraphExecGetFlags(exec, &flags));
    CHECK("the exec keeps its flags", flags == cudaGraphInstantiateFlagAutoFreeOnLaunch);

    OK("disable", cudaGraphNodeSetEnabled(exec, plus, 0));
    unsigned enabled = 1;
    OK("enabled?", cudaGraphNodeGetEnabled(exec, plus, &enabled));
    CHECK("switched off", enabled == 0);
    r = run_and_read(exec, s, d, 5);
    CHECK("a switched-off node does not run", r == 10);
    OK("enable", cudaGraphNodeSetEnabled(exec, plus, 1));
    r = run_and_read(exec, s, d, 5);
    CHECK("switched on again", r == 16);

    cudaGraph_t clone;
    OK("clone", cudaGraphClone(&clone, g));
    cudaGraphNode_t cmul = NULL;
    OK("find in clone", cudaGraphNodeFindInClone(&cmul, mul, clone));
    CHECK("the clone's node is another node", cmul != NULL && cmul != mul);
    n = 2;
    OK("clone's edges", cudaGraphGetEdges(clone, from, to, NULL, &n));
    CHECK("the clone has the edge between its own nodes", n == 1 && to[0] == cmul);
    cudaGraphNode_t none = NULL;
    e = cudaGraphNodeFindInClone(&none, cmul, clone);
    CHECK("a node of the clone is not an original", e == cudaErrorInvalidValue);
    cudaGetLastError();

    OK("dot", cudaGraphDebugDotPrint(g, dot, cudaGraphDebugDotFlagsVerbose));
    FILE *f = fopen(dot, "r");
    char text[8192] = {};
    size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    CHECK("the DOT file is a digraph with the edge",
          got > 0 && strstr(text, "digraph") != NULL && strstr(text, "->") != NULL);

    OK("destroy node", cudaGraphDestroyNode(plus));
    n = 0;
    OK("nodes", cudaGraphGetNodes(g, NULL, &n));
    size_t edges = 1;
    OK("edges after", cudaGraphGetEdges(g, NULL, NULL, NULL, &edges));
    CHECK("the node and its edge are gone", n == 1 && edges == 0);

    // captured work has the edges of stream order: A; fork B (on s2) and C after A; join
    // D after both
    cudaStream_t s2;
    OK("stream 2", cudaStreamCreate(&s2));
    cudaEvent_t fork, join;
    OK("fork event", cudaEventCreate(&fork));
    OK("join event", cudaEventCreate(&join));
    cudaGraph_t cap;
    OK("begin capture", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    add<<<1, 32, 0, s>>>(d, 1);                 // A
    OK("record fork", cudaEventRecord(fork, s));
    OK("wait fork", cudaStreamWaitEvent(s2, fork, 0));
    add<<<1, 32, 0, s2>>>(d, 2);                // B
    add<<<1, 32, 0, s>>>(d, 3);                 // C
    OK("record join", cudaEventRecord(join, s2));
    OK("wait join", cudaStreamWaitEvent(s, join, 0));
    add<<<1, 32, 0, s>>>(d, 4);                 // D
    OK("end capture", cudaStreamEndCapture(s, &cap));
    n = 0;
    OK("captured nodes", cudaGraphGetNodes(cap, NULL, &n));
    size_t ncap = 0, nroots = 0;
    OK("captured edges", cudaGraphGetEdges(cap, NULL, NULL, NULL, &ncap));
    OK("captured roots", cudaGraphGetRootNodes(cap, NULL, &nroots));
    printf("captured: %zu nodes, %zu edges, %zu roots\n", n, ncap, nroots);
    CHECK("captured work has stream order's edges", n == 4 && ncap == 4 && nroots == 1);
    OK("captured destroy", cudaGraphDestroy(cap));

    OK("exec destroy", cudaGraphExecDestroy(exec));
    OK("clone destroy", cudaGraphDestroy(clone));
    OK("graph destroy", cudaGraphDestroy(g));
    OK("free", cudaFree(d));
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
