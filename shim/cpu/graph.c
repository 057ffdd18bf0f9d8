/*
 * Graphs from stream capture: while a stream captures, its commands are recorded instead
 * of run (stream.c); hipGraphInstantiate copies them, and each hipGraphLaunch enqueues
 * fresh copies on the launch stream, in capture order. Work that cannot be replayed this
 * way (event records and waits, stream-ordered allocation) refuses to be captured with
 * hipErrorStreamCaptureUnsupported; the explicit node-building API is not provided.
 */
#include <stdlib.h>

#include "internal.h"

struct ihipGraph {
    cpu_cmd **cmds;
    size_t n, cap;
};

struct hipGraphExec {
    cpu_cmd **cmds;
    size_t n;
};

static cpu_handle_set graph_handles = CPU_HANDLE_SET_INIT;
static cpu_handle_set exec_handles = CPU_HANDLE_SET_INIT;

struct ihipGraph *cpu_graph_new(void)
{
    struct ihipGraph *g = calloc(1, sizeof *g);
    if (g != NULL && !cpu_handles_add(&graph_handles, g)) {
        free(g);
        return NULL;
    }
    return g;
}

bool cpu_graph_append(struct ihipGraph *g, cpu_cmd *c)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 16;
        cpu_cmd **cmds = realloc(g->cmds, cap * sizeof *cmds);
        if (cmds == NULL)
            return false;
        g->cmds = cmds;
        g->cap = cap;
    }
    g->cmds[g->n++] = c;
    return true;
}

static void free_cmds(cpu_cmd **cmds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cpu_cmd_free(cmds[i]);
    free(cmds);
}

hipError_t hipGraphCreate(hipGraph_t *pGraph, unsigned int flags)
{
    if (pGraph == NULL || flags != 0)
        return cpu_ret(hipErrorInvalidValue);
    *pGraph = cpu_graph_new();
    return *pGraph != NULL ? hipSuccess : cpu_ret(hipErrorOutOfMemory);
}

hipError_t hipGraphDestroy(hipGraph_t graph)
{
    if (graph == NULL || !cpu_handles_remove(&graph_handles, graph))
        return cpu_ret(hipErrorInvalidValue);
    free_cmds(graph->cmds, graph->n);
    free(graph);
    return hipSuccess;
}

hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t *nodes, size_t *numNodes)
{
    if (numNodes == NULL || !cpu_handles_contains(&graph_handles, graph))
        return cpu_ret(hipErrorInvalidValue);
    if (nodes != NULL) {
        /* Captured work has no node objects to hand out. */
        cpu_log("hipGraphGetNodes: node handles are not provided by the CPU device");
        return cpu_ret(hipErrorNotSupported);
    }
    *numNodes = graph->n;
    return hipSuccess;
}

static hipError_t instantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph)
{
    if (pGraphExec == NULL || !cpu_handles_contains(&graph_handles, graph))
        return hipErrorInvalidValue;
    struct hipGraphExec *e = calloc(1, sizeof *e);
    if (e == NULL)
        return hipErrorOutOfMemory;
    e->cmds = calloc(graph->n ? graph->n : 1, sizeof *e->cmds);
    bool ok = e->cmds != NULL;
    for (size_t i = 0; ok && i < graph->n; i++, e->n++)
        ok = (e->cmds[i] = cpu_cmd_clone(graph->cmds[i])) != NULL;
    if (!ok || !cpu_handles_add(&exec_handles, e)) {
        free_cmds(e->cmds, e->n);
        free(e);
        return hipErrorOutOfMemory;
    }
    *pGraphExec = e;
    return hipSuccess;
}

hipError_t hipGraphInstantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                               hipGraphNode_t *pErrorNode, char *pLogBuffer, size_t bufferSize)
{
    if (pErrorNode != NULL)
        *pErrorNode = NULL;
    if (pLogBuffer != NULL && bufferSize > 0)
        pLogBuffer[0] = '\0';
    return cpu_ret(instantiate(pGraphExec, graph));
}

hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                                        unsigned long long flags)
{
    /* Auto-free-on-launch concerns memory nodes, which capture never records here. */
    if (flags & ~(unsigned long long)(hipGraphInstantiateFlagAutoFreeOnLaunch |
                                      hipGraphInstantiateFlagUpload))
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(instantiate(pGraphExec, graph));
}

hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec)
{
    if (graphExec == NULL || !cpu_handles_remove(&exec_handles, graphExec))
        return cpu_ret(hipErrorInvalidValue);
    /* Launches already enqueued hold their own copies of the commands. */
    free_cmds(graphExec->cmds, graphExec->n);
    free(graphExec);
    return hipSuccess;
}

static hipError_t graph_launch(hipGraphExec_t exec, hipStream_t stream, bool spt)
{
    if (exec == NULL || !cpu_handles_contains(&exec_handles, exec))
        return hipErrorInvalidValue;
    struct ihipStream_t *s;
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return err;
    for (size_t i = 0; i < exec->n; i++) {
        cpu_cmd *c = cpu_cmd_clone(exec->cmds[i]);
        if (c == NULL)
            return hipErrorOutOfMemory;
        err = cpu_stream_enqueue(s, c, NULL);
        if (err != hipSuccess)
            return err;
    }
    return hipSuccess;
}

hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream)
{
    return cpu_ret(graph_launch(graphExec, stream, false));
}

hipError_t hipGraphLaunch_spt(hipGraphExec_t graphExec, hipStream_t stream)
{
    return cpu_ret(graph_launch(graphExec, stream, true));
}

hipError_t hipGraphUpload(hipGraphExec_t graphExec, hipStream_t stream)
{
    struct ihipStream_t *s;
    if (graphExec == NULL || !cpu_handles_contains(&exec_handles, graphExec))
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(cpu_stream_resolve(stream, false, &s));   /* nothing to upload */
}
