/*
 * Graphs, from stream capture or built node by node: while a stream captures, its commands are recorded instead
 * of run (stream.c); hipGraphInstantiate copies them, and each hipGraphLaunch enqueues
 * fresh copies on the launch stream, in capture order: the order work was issued in, which
 * follows every dependency, so event records and waits between captured streams need no
 * node (event.c; they only let streams join the capture). Stream-ordered allocations and
 * frees become graph memory nodes (graph_mem.c). The
 * node-building calls (kernel, copy, memset, host, empty, memory allocation and free) add
 * the same commands directly.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "graph_internal.h"

static pyshim_handle_set graph_handles = PYSHIM_HANDLE_SET_INIT;
static pyshim_handle_set exec_handles = PYSHIM_HANDLE_SET_INIT;
/* every node of a live graph: the calls that name a node without its graph look it up */
static pyshim_handle_set node_handles = PYSHIM_HANDLE_SET_INIT;

static int node_type(const cpu_cmd *c);

bool cpu_graph_live(const struct ihipGraph *g)
{
    return pyshim_handles_contains(&graph_handles, g);
}

bool cpu_graph_node_live(const void *node)
{
    return pyshim_handles_contains(&node_handles, node);
}

bool cpu_graph_exec_live(const struct hipGraphExec *e)
{
    return pyshim_handles_contains(&exec_handles, e);
}

void cpu_graph_node_forget(const void *node)
{
    pyshim_handles_remove(&node_handles, node);
}

int cpu_graph_node_type(const cpu_cmd *c)
{
    return node_type(c);
}

/* Same kind of node: same type (an empty copy and a full one are both copies), or for
 * commands without a node type, the same command. */
static bool same_kind(const cpu_cmd *a, const cpu_cmd *b)
{
    int ta = node_type(a), tb = node_type(b);
    return ta >= 0 || tb >= 0 ? ta == tb : a->run == b->run;
}

struct ihipGraph *cpu_graph_new(void)
{
    struct ihipGraph *g = calloc(1, sizeof *g);
    if (g != NULL && !pyshim_handles_add(&graph_handles, g)) {
        free(g);
        return NULL;
    }
    if (g != NULL)
        cpu_graph_link(g);
    return g;
}

bool cpu_graph_append(struct ihipGraph *g, cpu_cmd *c)
{
    if (!pyshim_handles_add(&node_handles, c))
        return false;
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 16;
        cpu_cmd **cmds = realloc(g->cmds, cap * sizeof *cmds);
        if (cmds == NULL) {
            pyshim_handles_remove(&node_handles, c);
            return false;
        }
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
    if (graph == NULL || !pyshim_handles_remove(&graph_handles, graph))
        return cpu_ret(hipErrorInvalidValue);
    for (size_t i = 0; i < graph->n; i++)
        pyshim_handles_remove(&node_handles, graph->cmds[i]);
    free_cmds(graph->cmds, graph->n);
    cpu_user_refs_clear(&graph->users);
    cpu_graph_unlink(graph);
    free(graph);
    return hipSuccess;
}

hipError_t hipGraphRetainUserObject(hipGraph_t graph, hipUserObject_t object,
                                    unsigned int count, unsigned int flags)
{
    if (!pyshim_handles_contains(&graph_handles, graph) || (flags & ~(unsigned)hipGraphUserObjectMove))
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(cpu_user_refs_add(&graph->users, object, count,
                                     (flags & hipGraphUserObjectMove) != 0));
}

hipError_t hipGraphReleaseUserObject(hipGraph_t graph, hipUserObject_t object,
                                     unsigned int count)
{
    if (!pyshim_handles_contains(&graph_handles, graph))
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(cpu_user_refs_remove(&graph->users, object, count));
}

/* A node is its command; nodes are kept in insertion order, which is a topological order
 * (a dependency must exist before its dependents), so replay in that order honours every
 * edge. */
hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t *nodes, size_t *numNodes)
{
    if (numNodes == NULL || !pyshim_handles_contains(&graph_handles, graph))
        return cpu_ret(hipErrorInvalidValue);
    if (nodes != NULL)
        for (size_t i = 0; i < *numNodes; i++)
            nodes[i] = i < graph->n ? (hipGraphNode_t)graph->cmds[i] : NULL;
    *numNodes = graph->n;
    return hipSuccess;
}

static bool in_graph(const struct ihipGraph *g, hipGraphNode_t node)
{
    for (size_t i = 0; i < g->n; i++)
        if ((hipGraphNode_t)g->cmds[i] == node)
            return true;
    return false;
}

static hipError_t check_add(hipGraphNode_t *pNode, hipGraph_t graph, const hipGraphNode_t *deps,
                            size_t ndeps)
{
    if (pNode == NULL || !pyshim_handles_contains(&graph_handles, graph))
        return hipErrorInvalidValue;
    if (ndeps > 0 && deps == NULL)
        return hipErrorInvalidValue;
    for (size_t i = 0; i < ndeps; i++) {
        if (!in_graph(graph, deps[i]))
            return hipErrorInvalidValue;
        for (size_t j = 0; j < i; j++)
            if (deps[j] == deps[i]) {
                cpu_log("graph node: dependency %zu repeats dependency %zu", i, j);
                return hipErrorInvalidValue;
            }
    }
    return hipSuccess;
}

/* Adds the node built by the caller (`err` is how building it went). */
static hipError_t add_node(hipGraphNode_t *pNode, hipGraph_t graph, const hipGraphNode_t *deps,
                           size_t ndeps, hipError_t err, cpu_cmd *c)
{
    if (err != hipSuccess)
        return cpu_ret(err);
    if (c == NULL)
        return cpu_ret(hipErrorOutOfMemory);
    pthread_mutex_lock(&cpu_sched_lock);
    bool ok = cpu_graph_append(graph, c);
    for (size_t i = 0; ok && i < ndeps; i++)
        ok = cpu_graph_edge_add(graph, (cpu_cmd *)deps[i], c);
    if (!ok && graph->n > 0 && graph->cmds[graph->n - 1] == c) {
        cpu_graph_edges_drop(graph, c);
        graph->n--;
        pyshim_handles_remove(&node_handles, c);
    }
    pthread_mutex_unlock(&cpu_sched_lock);
    if (!ok) {
        cpu_cmd_free(c);
        return cpu_ret(hipErrorOutOfMemory);
    }
    *pNode = (hipGraphNode_t)c;
    return hipSuccess;
}

/* A kernel node's launch command (validated, arguments copied). */
static hipError_t kernel_cmd(const hipKernelNodeParams *p, cpu_cmd **c)
{
    return cpu_launch_cmd(p->func, (pyshim_dim3){p->gridDim.x, p->gridDim.y, p->gridDim.z},
                          (pyshim_dim3){p->blockDim.x, p->blockDim.y, p->blockDim.z},
                          p->sharedMemBytes, p->kernelParams, p->extra, c);
}

hipError_t hipGraphAddKernelNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                 const hipGraphNode_t *pDependencies, size_t numDependencies,
                                 const hipKernelNodeParams *pNodeParams)
{
    hipError_t err = check_add(pGraphNode, graph, pDependencies, numDependencies);
    if (err == hipSuccess && pNodeParams == NULL)
        err = hipErrorInvalidValue;
    if (err != hipSuccess)
        return cpu_ret(err);
    cpu_cmd *c = NULL;
    err = kernel_cmd(pNodeParams, &c);
    return add_node(pGraphNode, graph, pDependencies, numDependencies, err, c);
}

hipError_t hipGraphAddMemcpyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                 const hipGraphNode_t *pDependencies, size_t numDependencies,
                                 const hipMemcpy3DParms *pCopyParams)
{
    hipError_t err = check_add(pGraphNode, graph, pDependencies, numDependencies);
    if (err != hipSuccess)
        return cpu_ret(err);
    cpu_cmd *c = NULL;
    err = cpu_copy3d_cmd(pCopyParams, &c);
    return add_node(pGraphNode, graph, pDependencies, numDependencies, err, c);
}

hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                   const hipGraphNode_t *pDependencies, size_t numDependencies,
                                   void *dst, const void *src, size_t count, hipMemcpyKind kind)
{
    hipError_t err = check_add(pGraphNode, graph, pDependencies, numDependencies);
    if (err != hipSuccess)
        return cpu_ret(err);
    cpu_cmd *c = NULL;
    err = cpu_copy1d_cmd(dst, src, count, kind, &c);
    return add_node(pGraphNode, graph, pDependencies, numDependencies, err, c);
}

hipError_t hipGraphAddMemsetNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                 const hipGraphNode_t *pDependencies, size_t numDependencies,
                                 const hipMemsetParams *pMemsetParams)
{
    hipError_t err = check_add(pGraphNode, graph, pDependencies, numDependencies);
    if (err != hipSuccess)
        return cpu_ret(err);
    cpu_cmd *c = NULL;
    err = cpu_memset_cmd(pMemsetParams, &c);
    return add_node(pGraphNode, graph, pDependencies, numDependencies, err, c);
}

/* The driver API's forms (cuGraphAddMemcpyNode/cuGraphAddMemsetNode) name a context: the
 * device's own, or none (the current one, which is the same here). */
static hipError_t check_ctx(hipCtx_t ctx)
{
    return ctx == NULL || cpu_ctx_valid(ctx) ? hipSuccess : hipErrorInvalidContext;
}

hipError_t hipDrvGraphAddMemcpyNode(hipGraphNode_t *phGraphNode, hipGraph_t hGraph,
                                    const hipGraphNode_t *dependencies, size_t numDependencies,
                                    const HIP_MEMCPY3D *copyParams, hipCtx_t ctx)
{
    hipError_t err = check_add(phGraphNode, hGraph, dependencies, numDependencies);
    if (err == hipSuccess)
        err = check_ctx(ctx);
    if (err != hipSuccess)
        return cpu_ret(err);
    cpu_cmd *c = NULL;
    err = cpu_drv_copy3d_cmd(copyParams, &c);
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, err, c);
}

hipError_t hipDrvGraphAddMemsetNode(hipGraphNode_t *phGraphNode, hipGraph_t hGraph,
                                    const hipGraphNode_t *dependencies, size_t numDependencies,
                                    const hipMemsetParams *memsetParams, hipCtx_t ctx)
{
    hipError_t err = check_add(phGraphNode, hGraph, dependencies, numDependencies);
    if (err == hipSuccess)
        err = check_ctx(ctx);
    if (err != hipSuccess)
        return cpu_ret(err);
    cpu_cmd *c = NULL;
    err = cpu_memset_cmd(memsetParams, &c);
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, err, c);
}

hipError_t hipGraphAddMemAllocNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                   const hipGraphNode_t *pDependencies, size_t numDependencies,
                                   hipMemAllocNodeParams *pNodeParams)
{
    hipError_t err = check_add(pGraphNode, graph, pDependencies, numDependencies);
    if (err != hipSuccess)
        return cpu_ret(err);
    cpu_cmd *c = NULL;
    err = cpu_graph_alloc_cmd(pNodeParams, &c);
    return add_node(pGraphNode, graph, pDependencies, numDependencies, err, c);
}

hipError_t hipGraphAddMemFreeNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                  const hipGraphNode_t *pDependencies, size_t numDependencies,
                                  void *dev_ptr)
{
    hipError_t err = check_add(pGraphNode, graph, pDependencies, numDependencies);
    if (err != hipSuccess)
        return cpu_ret(err);
    cpu_cmd *c = NULL;
    err = cpu_graph_free_cmd(dev_ptr, &c);
    return add_node(pGraphNode, graph, pDependencies, numDependencies, err, c);
}

/* cuGraphAddMemFreeNode's form: the address as a hipDeviceptr_t */
hipError_t hipDrvGraphAddMemFreeNode(hipGraphNode_t *phGraphNode, hipGraph_t hGraph,
                                     const hipGraphNode_t *dependencies, size_t numDependencies,
                                     hipDeviceptr_t dptr)
{
    return hipGraphAddMemFreeNode(phGraphNode, hGraph, dependencies, numDependencies,
                                  (void *)dptr);
}

hipError_t hipGraphAddHostNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                               const hipGraphNode_t *pDependencies, size_t numDependencies,
                               const hipHostNodeParams *pNodeParams)
{
    hipError_t err = check_add(pGraphNode, graph, pDependencies, numDependencies);
    if (err == hipSuccess && (pNodeParams == NULL || pNodeParams->fn == NULL))
        err = hipErrorInvalidValue;
    if (err != hipSuccess)
        return cpu_ret(err);
    return add_node(pGraphNode, graph, pDependencies, numDependencies, hipSuccess,
                    cpu_host_fn_cmd(pNodeParams->fn, pNodeParams->userData));
}

hipError_t hipGraphAddEmptyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                const hipGraphNode_t *pDependencies, size_t numDependencies)
{
    hipError_t err = check_add(pGraphNode, graph, pDependencies, numDependencies);
    if (err != hipSuccess)
        return cpu_ret(err);
    return add_node(pGraphNode, graph, pDependencies, numDependencies, hipSuccess, cpu_cmd_new(NULL, 0));
}

static hipError_t instantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                              unsigned long long flags)
{
    if (pGraphExec == NULL || !pyshim_handles_contains(&graph_handles, graph))
        return hipErrorInvalidValue;
    struct hipGraphExec *e = calloc(1, sizeof *e);
    if (e == NULL)
        return hipErrorOutOfMemory;
    e->cmds = calloc(graph->n ? graph->n : 1, sizeof *e->cmds);
    e->nodes = calloc(graph->n ? graph->n : 1, sizeof *e->nodes);
    e->disabled = calloc(graph->n ? graph->n : 1, sizeof *e->disabled);
    e->flags = flags;
    bool ok = e->cmds != NULL && e->nodes != NULL && e->disabled != NULL;
    for (size_t i = 0; ok && i < graph->n; i++, e->n++) {
        ok = (e->cmds[i] = cpu_cmd_clone(graph->cmds[i])) != NULL;
        e->nodes[i] = (hipGraphNode_t)graph->cmds[i];
    }
    ok = ok && cpu_user_refs_copy(&e->users, &graph->users);
    if (!ok || !pyshim_handles_add(&exec_handles, e)) {
        free_cmds(e->cmds, e->n);
        cpu_user_refs_clear(&e->users);
        free(e->nodes);
        free(e->disabled);
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
    return cpu_ret(instantiate(pGraphExec, graph, 0));
}

hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                                        unsigned long long flags)
{
    /* Auto-free-on-launch concerns memory nodes, which capture never records here. */
    if (flags & ~(unsigned long long)(hipGraphInstantiateFlagAutoFreeOnLaunch |
                                      hipGraphInstantiateFlagUpload))
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(instantiate(pGraphExec, graph, flags));
}

/* CUDA 12's form (cuda.core instantiates this way): the flags as WithFlags takes them, an
 * upload (nothing to do on this device) and the outcome in the parameters. */
hipError_t hipGraphInstantiateWithParams(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                                         hipGraphInstantiateParams *instantiateParams)
{
    if (instantiateParams == NULL)
        return cpu_ret(hipErrorInvalidValue);
    unsigned long long flags = instantiateParams->flags;
    instantiateParams->errNode_out = NULL;
    hipError_t err = hipSuccess;
    if (flags & hipGraphInstantiateFlagUpload) {
        struct ihipStream_t *s;
        err = cpu_stream_resolve(instantiateParams->uploadStream, false, &s);
    }
    if (err == hipSuccess)
        err = hipGraphInstantiateWithFlags(pGraphExec, graph,
                                           flags & ~(unsigned long long)hipGraphInstantiateFlagUpload);
    instantiateParams->result_out =
        err == hipSuccess ? hipGraphInstantiateSuccess : hipGraphInstantiateError;
    return cpu_ret(err);
}

hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec)
{
    if (graphExec == NULL || !pyshim_handles_remove(&exec_handles, graphExec))
        return cpu_ret(hipErrorInvalidValue);
    /* Launches already enqueued hold their own copies of the commands. */
    free_cmds(graphExec->cmds, graphExec->n);
    /* a pending launch holds references of its own (graph_launch) */
    cpu_user_refs_clear(&graphExec->users);
    free(graphExec->nodes);
    free(graphExec->disabled);
    free(graphExec);
    return hipSuccess;
}

/* The exec's command for graph node `node` when `is_kind` accepts it, else -1 (logged
 * naming the call and the `kind` of node it sets, unless the exec or node is NULL or
 * unknown). Every hipGraphExec*NodeSetParams finds its command so. */
static long exec_index(hipGraphExec_t exec, hipGraphNode_t node, bool (*is_kind)(const cpu_cmd *),
                       const char *call, const char *kind)
{
    if (exec == NULL || !pyshim_handles_contains(&exec_handles, exec) || node == NULL)
        return -1;
    for (size_t i = 0; i < exec->n; i++)
        if (exec->nodes[i] == node) {
            if (is_kind(exec->cmds[i]))
                return (long)i;
            break;
        }
    cpu_log("%s: the node is not a %s node of the graph this exec was instantiated from", call,
            kind);
    return -1;
}

/* The exec's command i replaced by `c`, which the caller made with result `made` (the
 * error, if making it failed). */
static hipError_t exec_store(hipGraphExec_t exec, long i, hipError_t made, cpu_cmd *c)
{
    if (made != hipSuccess)
        return cpu_ret(made);
    cpu_cmd_free(exec->cmds[i]);
    exec->cmds[i] = c;
    return hipSuccess;
}

/* A kernel node's parameters in an instantiated graph: later launches of the exec run the
 * new launch (validated and its arguments copied now, as hipGraphAddKernelNode does); the
 * graph itself and launches already enqueued are unchanged. */
hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                           const hipKernelNodeParams *pNodeParams)
{
    long i = pNodeParams == NULL ? -1 : exec_index(hGraphExec, node, cpu_cmd_is_launch,
                                                   "hipGraphExecKernelNodeSetParams", "kernel");
    if (i < 0)
        return cpu_ret(hipErrorInvalidValue);
    cpu_cmd *c = NULL;
    hipError_t err = kernel_cmd(pNodeParams, &c);
    return exec_store(hGraphExec, i, err, c);
}

/* An instantiated graph brought up to date with `hGraph`: allowed when both have the same
 * nodes, node for node of the same kind (a kernel stays a kernel, a copy a copy); the exec
 * then runs copies of hGraph's commands. Otherwise the exec is left as it was. */
hipError_t hipGraphExecUpdate(hipGraphExec_t hGraphExec, hipGraph_t hGraph,
                              hipGraphNode_t *hErrorNode_out,
                              hipGraphExecUpdateResult *updateResult_out)
{
    if (hErrorNode_out != NULL)
        *hErrorNode_out = NULL;
    if (hGraphExec == NULL || !pyshim_handles_contains(&exec_handles, hGraphExec) ||
        !pyshim_handles_contains(&graph_handles, hGraph) || updateResult_out == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (hGraph->n != hGraphExec->n) {
        *updateResult_out = hipGraphExecUpdateErrorTopologyChanged;
        return cpu_ret(hipErrorGraphExecUpdateFailure);
    }
    for (size_t i = 0; i < hGraph->n; i++)
        if (!same_kind(hGraph->cmds[i], hGraphExec->cmds[i])) {
            *updateResult_out = hipGraphExecUpdateErrorNodeTypeChanged;
            if (hErrorNode_out != NULL)
                *hErrorNode_out = (hipGraphNode_t)hGraph->cmds[i];
            return cpu_ret(hipErrorGraphExecUpdateFailure);
        }
    cpu_cmd **cmds = calloc(hGraph->n ? hGraph->n : 1, sizeof *cmds);
    size_t made = 0;
    bool ok = cmds != NULL;
    for (; ok && made < hGraph->n; made++)
        ok = (cmds[made] = cpu_cmd_clone(hGraph->cmds[made])) != NULL;
    if (!ok) {
        free_cmds(cmds, made);
        *updateResult_out = hipGraphExecUpdateError;
        return cpu_ret(hipErrorOutOfMemory);
    }
    free_cmds(hGraphExec->cmds, hGraphExec->n);
    hGraphExec->cmds = cmds;
    for (size_t i = 0; i < hGraph->n; i++)
        hGraphExec->nodes[i] = (hipGraphNode_t)hGraph->cmds[i];
    *updateResult_out = hipGraphExecUpdateSuccess;
    return hipSuccess;
}

static hipError_t graph_launch(hipGraphExec_t exec, hipStream_t stream, bool spt)
{
    if (exec == NULL || !pyshim_handles_contains(&exec_handles, exec))
        return hipErrorInvalidValue;
    struct ihipStream_t *s;
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return err;
    for (size_t i = 0; i < exec->n; i++) {
        if (exec->disabled[i])
            continue;   /* hipGraphNodeSetEnabled: an empty node until enabled again */
        cpu_cmd *c = cpu_cmd_clone(exec->cmds[i]);
        if (c == NULL)
            return hipErrorOutOfMemory;
        err = cpu_stream_enqueue(s, c, NULL);
        if (err != hipSuccess)
            return err;
    }
    /* the user objects stay alive until this launch's work has run */
    cpu_cmd *keep = cpu_user_refs_launch_cmd(&exec->users);
    if (keep != NULL)
        err = cpu_stream_enqueue(s, keep, NULL);
    return err;
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
    if (graphExec == NULL || !pyshim_handles_contains(&exec_handles, graphExec))
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(cpu_stream_resolve(stream, false, &s));   /* nothing to upload */
}

/* A copy of the graph: every node cloned, in the same (topological) order. */
hipError_t hipGraphClone(hipGraph_t *pGraphClone, hipGraph_t originalGraph)
{
    if (pGraphClone == NULL || !pyshim_handles_contains(&graph_handles, originalGraph))
        return cpu_ret(hipErrorInvalidValue);
    struct ihipGraph *g = cpu_graph_new();
    if (g == NULL)
        return cpu_ret(hipErrorOutOfMemory);
    bool ok = true;
    pthread_mutex_lock(&cpu_sched_lock);
    for (size_t i = 0; ok && i < originalGraph->n; i++) {
        cpu_cmd *c = cpu_cmd_clone(originalGraph->cmds[i]);
        ok = c != NULL && cpu_graph_append(g, c);
        if (!ok && c != NULL)
            cpu_cmd_free(c);
    }
    ok = ok && cpu_graph_clone_edges(g, originalGraph);
    pthread_mutex_unlock(&cpu_sched_lock);
    ok = ok && cpu_user_refs_copy(&g->users, &originalGraph->users);
    if (!ok) {
        hipGraphDestroy(g);
        return cpu_ret(hipErrorOutOfMemory);
    }
    *pGraphClone = g;
    return hipSuccess;
}

/* ---- copy and memset nodes given new parameters ---- */

/* Gives graph node `node` the command `fresh` (same kind, same payload size): the node
 * keeps its handle, which is its command's address. Takes `fresh`. */
static void replace_in_place(cpu_cmd *node, cpu_cmd *fresh)
{
    pthread_mutex_lock(&cpu_sched_lock);
    node->run = fresh->run;
    node->release = fresh->release;
    node->fixup = fresh->fixup;
    memcpy(node->payload, fresh->payload, node->payload_size);
    pthread_mutex_unlock(&cpu_sched_lock);
    free(fresh);
}

void cpu_graph_node_replace(cpu_cmd *node, cpu_cmd *fresh)
{
    replace_in_place(node, fresh);
}

hipError_t hipDrvGraphMemcpyNodeGetParams(hipGraphNode_t hNode, HIP_MEMCPY3D *nodeParams)
{
    if (nodeParams == NULL || !pyshim_handles_contains(&node_handles, hNode) ||
        !cpu_cmd_drv_copy_desc((const cpu_cmd *)hNode, nodeParams))
        return cpu_ret(hipErrorInvalidValue);
    return hipSuccess;
}

hipError_t hipDrvGraphMemcpyNodeSetParams(hipGraphNode_t hNode, const HIP_MEMCPY3D *nodeParams)
{
    if (nodeParams == NULL || !pyshim_handles_contains(&node_handles, hNode) ||
        !cpu_cmd_drv_copy_desc((const cpu_cmd *)hNode, NULL))
        return cpu_ret(hipErrorInvalidValue);
    cpu_cmd *c = NULL;
    hipError_t err = cpu_drv_copy3d_cmd(nodeParams, &c);
    if (err != hipSuccess)
        return cpu_ret(err);
    replace_in_place((cpu_cmd *)hNode, c);
    return hipSuccess;
}

/* A graph's kernel node given new parameters. The node is its command, so the new launch
 * must fit the old one's payload: the same kernel, or one with as many parameter bytes. */
hipError_t hipGraphKernelNodeSetParams(hipGraphNode_t node, const hipKernelNodeParams *pNodeParams)
{
    if (pNodeParams == NULL || !pyshim_handles_contains(&node_handles, node) ||
        !cpu_cmd_is_launch((const cpu_cmd *)node)) {
        cpu_log("hipGraphKernelNodeSetParams: not a kernel node, or no parameters");
        return cpu_ret(hipErrorInvalidValue);
    }
    cpu_cmd *c = NULL;
    hipError_t err = kernel_cmd(pNodeParams, &c);
    if (err != hipSuccess)
        return cpu_ret(err);
    cpu_cmd *n = (cpu_cmd *)node;
    if (c->payload_size != n->payload_size) {
        cpu_log("hipGraphKernelNodeSetParams: a kernel whose parameters take %zu bytes where "
                "the node's took %zu is not supported here", c->payload_size, n->payload_size);
        cpu_cmd_free(c);
        return cpu_ret(hipErrorNotSupported);
    }
    cpu_cmd_launch_copy_attrs(c, n); /* new parameters, the node's own attributes */
    replace_in_place(n, c);
    /* the payload points into itself (the argument pointers): aim them at the node's copy */
    pthread_mutex_lock(&cpu_sched_lock);
    if (n->fixup != NULL)
        n->fixup(n);
    pthread_mutex_unlock(&cpu_sched_lock);
    return hipSuccess;
}

hipError_t hipGraphMemsetNodeGetParams(hipGraphNode_t node, hipMemsetParams *pNodeParams)
{
    if (pNodeParams == NULL || !pyshim_handles_contains(&node_handles, node) ||
        !cpu_cmd_is_fill((const cpu_cmd *)node)) {
        cpu_log("hipGraphMemsetNodeGetParams: not a memset node, or no output");
        return cpu_ret(hipErrorInvalidValue);
    }
    cpu_memset_params((const cpu_cmd *)node, pNodeParams);
    return hipSuccess;
}

hipError_t hipGraphMemsetNodeSetParams(hipGraphNode_t node, const hipMemsetParams *pNodeParams)
{
    if (pNodeParams == NULL || !pyshim_handles_contains(&node_handles, node) ||
        !cpu_cmd_is_fill((const cpu_cmd *)node))
        return cpu_ret(hipErrorInvalidValue);
    cpu_cmd *c = NULL;
    hipError_t err = cpu_memset_cmd(pNodeParams, &c);
    if (err != hipSuccess)
        return cpu_ret(err);
    replace_in_place((cpu_cmd *)node, c);
    return hipSuccess;
}

/* An instantiated graph's memset node: later launches fill with the new parameters; the
 * graph and launches already enqueued are unchanged (as for kernel nodes). */
hipError_t hipGraphExecMemsetNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                           const hipMemsetParams *pNodeParams)
{
    long i = pNodeParams == NULL ? -1 : exec_index(hGraphExec, node, cpu_cmd_is_fill,
                                                   "hipGraphExecMemsetNodeSetParams", "memset");
    if (i < 0)
        return cpu_ret(hipErrorInvalidValue);
    cpu_cmd *c = NULL;
    hipError_t err = cpu_memset_cmd(pNodeParams, &c);
    return exec_store(hGraphExec, i, err, c);
}

hipError_t hipDrvGraphExecMemsetNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t hNode,
                                              const hipMemsetParams *memsetParams, hipCtx_t ctx)
{
    hipError_t err = check_ctx(ctx);
    if (err != hipSuccess)
        return cpu_ret(err);
    return hipGraphExecMemsetNodeSetParams(hGraphExec, hNode, memsetParams);
}

/* A node's type, from the command it is; -1 for a captured command of another kind. */
static int node_type(const cpu_cmd *c)
{
    int mem = cpu_cmd_graph_mem_kind(c);
    if (cpu_cmd_is_launch(c))
        return hipGraphNodeTypeKernel;
    if (cpu_cmd_is_copy(c))
        return hipGraphNodeTypeMemcpy;
    if (cpu_cmd_is_fill(c))
        return hipGraphNodeTypeMemset;
    if (cpu_cmd_is_host_fn(c))
        return hipGraphNodeTypeHost;
    if (mem != 0)
        return mem == 1 ? hipGraphNodeTypeMemAlloc : hipGraphNodeTypeMemFree;
    if (c->run == NULL)
        return hipGraphNodeTypeEmpty;
    return -1;
}

hipError_t hipGraphNodeGetType(hipGraphNode_t node, hipGraphNodeType *pType)
{
    if (pType == NULL || !pyshim_handles_contains(&node_handles, node))
        return cpu_ret(hipErrorInvalidValue);
    int t = node_type((const cpu_cmd *)node);
    if (t < 0) {
        cpu_log("hipGraphNodeGetType: a captured command of a kind with no node type here");
        return cpu_ret(hipErrorNotSupported);
    }
    *pType = (hipGraphNodeType)t;
    return hipSuccess;
}

static bool is_drv_copy(const cpu_cmd *c)
{
    return cpu_cmd_drv_copy_desc(c, NULL);
}

hipError_t hipDrvGraphExecMemcpyNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t hNode,
                                              const HIP_MEMCPY3D *copyParams, hipCtx_t ctx)
{
    hipError_t err = check_ctx(ctx);
    if (err != hipSuccess || copyParams == NULL)
        return cpu_ret(err != hipSuccess ? err : hipErrorInvalidValue);
    long i = exec_index(hGraphExec, hNode, is_drv_copy, "hipDrvGraphExecMemcpyNodeSetParams",
                        "copy");
    if (i < 0)
        return cpu_ret(hipErrorInvalidValue);
    cpu_cmd *c = NULL;
    err = cpu_drv_copy3d_cmd(copyParams, &c);
    return exec_store(hGraphExec, i, err, c);
}

hipError_t hipGraphHostNodeSetParams(hipGraphNode_t node, const hipHostNodeParams *pNodeParams)
{
    if (pNodeParams == NULL || pNodeParams->fn == NULL ||
        !pyshim_handles_contains(&node_handles, node) || !cpu_cmd_is_host_fn((const cpu_cmd *)node))
        return cpu_ret(hipErrorInvalidValue);
    cpu_cmd *c = cpu_host_fn_cmd(pNodeParams->fn, pNodeParams->userData);
    if (c == NULL)
        return cpu_ret(hipErrorOutOfMemory);
    replace_in_place((cpu_cmd *)node, c);
    return hipSuccess;
}

hipError_t hipGraphExecHostNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                         const hipHostNodeParams *pNodeParams)
{
    if (pNodeParams == NULL || pNodeParams->fn == NULL)
        return cpu_ret(hipErrorInvalidValue);
    long i = exec_index(hGraphExec, node, cpu_cmd_is_host_fn, "hipGraphExecHostNodeSetParams",
                        "host");
    if (i < 0)
        return cpu_ret(hipErrorInvalidValue);
    cpu_cmd *c = cpu_host_fn_cmd(pNodeParams->fn, pNodeParams->userData);
    return exec_store(hGraphExec, i, c == NULL ? hipErrorOutOfMemory : hipSuccess, c);
}
