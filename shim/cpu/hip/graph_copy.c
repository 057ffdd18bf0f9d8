/*
 * Runtime-API copy nodes given new parameters (a 1D copy or a hipMemcpy3DParms copy), in
 * the graph or in one executable graph. A graph node keeps its handle, which is its
 * command's address, so the new copy takes the old command's place; an exec's copy is
 * simply replaced (later launches run it, launches already enqueued keep theirs). The
 * driver API's copy nodes (HIP_MEMCPY3D) have their own setters in graph.c.
 */
#include "graph_internal.h"

/* A runtime-API copy node's command: same payload as every copy command made here. */
static bool is_runtime_copy(const cpu_cmd *c)
{
    return cpu_cmd_is_copy(c) && !cpu_cmd_drv_copy_desc(c, NULL);
}

static hipError_t set_node(const char *call, hipGraphNode_t node, hipError_t err, cpu_cmd *c)
{
    if (err != hipSuccess)
        return cpu_ret(err);
    cpu_cmd *n = (cpu_cmd *)node;
    if (c->payload_size != n->payload_size) {
        cpu_log("%s: the new copy does not fit the node's command", call);
        cpu_cmd_free(c);
        return cpu_ret(hipErrorNotSupported);
    }
    cpu_graph_node_replace(n, c);
    return hipSuccess;
}

static bool copy_node(const char *call, hipGraphNode_t node)
{
    if (cpu_graph_node_live(node) && is_runtime_copy((const cpu_cmd *)node))
        return true;
    cpu_log("%s: not a (runtime-API) copy node of a live graph", call);
    return false;
}

hipError_t hipGraphMemcpyNodeSetParams1D(hipGraphNode_t node, void *dst, const void *src,
                                         size_t count, hipMemcpyKind kind)
{
    if (!copy_node("hipGraphMemcpyNodeSetParams1D", node))
        return cpu_ret(hipErrorInvalidValue);
    cpu_cmd *c = NULL;
    hipError_t err = cpu_copy1d_cmd(dst, src, count, kind, &c);
    return set_node("hipGraphMemcpyNodeSetParams1D", node, err, c);
}

hipError_t hipGraphMemcpyNodeSetParams(hipGraphNode_t node, const hipMemcpy3DParms *pNodeParams)
{
    if (pNodeParams == NULL || !copy_node("hipGraphMemcpyNodeSetParams", node))
        return cpu_ret(hipErrorInvalidValue);
    cpu_cmd *c = NULL;
    hipError_t err = cpu_copy3d_cmd(pNodeParams, &c);
    return set_node("hipGraphMemcpyNodeSetParams", node, err, c);
}

static hipError_t set_exec(const char *call, hipGraphExec_t exec, hipGraphNode_t node,
                           hipError_t err, cpu_cmd *c)
{
    if (err != hipSuccess)
        return cpu_ret(err);
    pthread_mutex_lock(&cpu_sched_lock);
    long i = cpu_graph_exec_node(exec, node);
    bool ok = i >= 0 && is_runtime_copy(exec->cmds[i]);
    cpu_cmd *old = ok ? exec->cmds[i] : c;
    if (ok)
        exec->cmds[i] = c;
    pthread_mutex_unlock(&cpu_sched_lock);
    cpu_cmd_free(old);
    if (!ok) {
        cpu_log("%s: not a copy node of the graph the exec was instantiated from", call);
        return cpu_ret(hipErrorInvalidValue);
    }
    return hipSuccess;
}

hipError_t hipGraphExecMemcpyNodeSetParams1D(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                             void *dst, const void *src, size_t count,
                                             hipMemcpyKind kind)
{
    if (hGraphExec == NULL || !cpu_graph_exec_live(hGraphExec))
        return cpu_ret(hipErrorInvalidValue);
    cpu_cmd *c = NULL;
    hipError_t err = cpu_copy1d_cmd(dst, src, count, kind, &c);
    return set_exec("hipGraphExecMemcpyNodeSetParams1D", hGraphExec, node, err, c);
}

hipError_t hipGraphExecMemcpyNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                           hipMemcpy3DParms *pNodeParams)
{
    if (hGraphExec == NULL || !cpu_graph_exec_live(hGraphExec) || pNodeParams == NULL)
        return cpu_ret(hipErrorInvalidValue);
    cpu_cmd *c = NULL;
    hipError_t err = cpu_copy3d_cmd(pNodeParams, &c);
    return set_exec("hipGraphExecMemcpyNodeSetParams", hGraphExec, node, err, c);
}
