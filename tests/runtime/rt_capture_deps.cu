// cudaStreamUpdateCaptureDependencies: a capture's next node depends on what the stream's
// dependency set says, read back by cudaStreamGetCaptureInfo, replaced (a new root) or
// added to (an edge from an earlier node). The captured graph's edges and roots show it,
// and running it gives the values. Bad nodes, flags and an uncaptured stream are refused.
// Self-checking.
#include "../include/runtime_check.h"

__global__ void put(int *p, int v) { *p = v; }

int main()
{
    int *d = NULL;
    OK("malloc", cudaMalloc(&d, 4 * sizeof(int)));
    OK("zero", cudaMemset(d, 0, 4 * sizeof(int)));
    cudaStream_t s;
    OK("stream", cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t other;
    cudaGraphNode_t foreign;
    OK("other graph", cudaGraphCreate(&other, 0));
    OK("foreign node", cudaGraphAddEmptyNode(&foreign, other, NULL, 0));

    cudaError_t e = cudaStreamUpdateCaptureDependencies(s, NULL, NULL, 0,
                                                        cudaStreamSetCaptureDependencies);
    printf("not capturing: %s\n", cudaGetErrorName(e));
    CHECK("an uncaptured stream is refused", e == cudaErrorIllegalState);
    cudaGetLastError();

    OK("begin", cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    put<<<1, 1, 0, s>>>(d + 0, 10);   // A
    put<<<1, 1, 0, s>>>(d + 1, 11);   // B after A
    cudaStreamCaptureStatus st;
    cudaGraph_t g = NULL;
    const cudaGraphNode_t *deps = NULL;
    const cudaGraphEdgeData *edata = NULL;
    size_t ndeps = 0;
    OK("info", cudaStreamGetCaptureInfo(s, &st, NULL, &g, &deps, &edata, &ndeps));
    printf("after two launches: %zu dependencies\n", ndeps);
    CHECK("one dependency, the last node", ndeps == 1 && deps != NULL);
    cudaGraphNode_t b = ndeps == 1 ? deps[0] : NULL;
    size_t n = 0;
    OK("nodes so far", cudaGraphGetNodes(g, NULL, &n));
    cudaGraphNode_t sofar[2] = {NULL, NULL};
    CHECK("two nodes so far", n == 2);
    OK("node list", cudaGraphGetNodes(g, sofar, &n));
    cudaGraphNode_t a = sofar[0] == b ? sofar[1] : sofar[0];

    e = cudaStreamUpdateCaptureDependencies(s, &foreign, NULL, 1, cudaStreamAddCaptureDependencies);
    printf("foreign node: %s\n", cudaGetErrorName(e));
    CHECK("a node of another graph is refused", e == cudaErrorInvalidValue);
    e = cudaStreamUpdateCaptureDependencies(s, &a, NULL, 1, 7);
    printf("bad flags: %s\n", cudaGetErrorName(e));
    CHECK("unknown flags are refused", e == cudaErrorInvalidValue);
    cudaGetLastError();

    OK("set empty", cudaStreamUpdateCaptureDependencies(s, NULL, NULL, 0,
                                                        cudaStreamSetCaptureDependencies));
    OK("info empty", cudaStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, &edata, &ndeps));
    CHECK("an empty set reads back empty", ndeps == 0);
    put<<<1, 1, 0, s>>>(d + 2, 12);   // C: a root
    OK("set A", cudaStreamUpdateCaptureDependencies(s, &a, NULL, 1,
                                                    cudaStreamSetCaptureDependencies));
    OK("add B", cudaStreamUpdateCaptureDependencies(s, &b, NULL, 1,
                                                    cudaStreamAddCaptureDependencies));
    OK("info two", cudaStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, &edata, &ndeps));
    printf("after set A, add B: %zu dependencies\n", ndeps);
    CHECK("A and B", ndeps == 2 && ((deps[0] == a && deps[1] == b) ||
                                    (deps[0] == b && deps[1] == a)));
    put<<<1, 1, 0, s>>>(d + 3, 13);   // D after A and B
    cudaGraph_t cap;
    OK("end", cudaStreamEndCapture(s, &cap));

    size_t nodes = 0, edges = 0, roots = 0;
    OK("nodes", cudaGraphGetNodes(cap, NULL, &nodes));
    OK("edges", cudaGraphGetEdges(cap, NULL, NULL, NULL, &edges));
    OK("roots", cudaGraphGetRootNodes(cap, NULL, &roots));
    printf("captured: %zu nodes, %zu edges, %zu roots\n", nodes, edges, roots);
    CHECK("A->B, A->D, B->D; roots A and C", nodes == 4 && edges == 3 && roots == 2);

    cudaGraphExec_t x;
    OK("instantiate", cudaGraphInstantiate(&x, cap, 0));
    OK("launch", cudaGraphLaunch(x, s));
    OK("sync", cudaStreamSynchronize(s));
    int h[4];
    OK("copy", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("values %d %d %d %d\n", h[0], h[1], h[2], h[3]);
    CHECK("every node ran", h[0] == 10 && h[1] == 11 && h[2] == 12 && h[3] == 13);

    // capture into the program's graph, after a node it already has
    cudaGraph_t mine;
    cudaGraphNode_t first;
    OK("my graph", cudaGraphCreate(&mine, 0));
    OK("its first node", cudaGraphAddEmptyNode(&first, mine, NULL, 0));
    e = cudaStreamBeginCaptureToGraph(s, mine, &foreign, NULL, 1, cudaStreamCaptureModeGlobal);
    printf("to graph after a foreign node: %s\n", cudaGetErrorName(e));
    CHECK("a dependency outside the graph is refused", e == cudaErrorInvalidValue);
    cudaGetLastError();
    OK("begin to graph", cudaStreamBeginCaptureToGraph(s, mine, &first, NULL, 1,
                                                       cudaStreamCaptureModeGlobal));
    put<<<1, 1, 0, s>>>(d + 0, 20);
    cudaGraph_t back = NULL;
    OK("end to graph", cudaStreamEndCapture(s, &back));
    OK("nodes of mine", cudaGraphGetNodes(mine, NULL, &nodes));
    OK("edges of mine", cudaGraphGetEdges(mine, NULL, NULL, NULL, &edges));
    printf("into my graph: same %d, %zu nodes, %zu edges\n", back == mine, nodes, edges);
    CHECK("the capture went into my graph, after its node", back == mine && nodes == 2 &&
                                                            edges == 1);
    cudaGraphExec_t x2;
    OK("instantiate mine", cudaGraphInstantiate(&x2, mine, 0));
    OK("launch mine", cudaGraphLaunch(x2, s));
    OK("sync mine", cudaStreamSynchronize(s));
    OK("copy mine", cudaMemcpy(h, d, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK("its captured kernel ran", h[0] == 20);
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
