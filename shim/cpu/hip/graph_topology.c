/*
 * A graph's edges and the calls that read or change its shape: dependencies added and
 * removed, edges, roots, a node's dependencies and dependents, node destruction, a clone's
 * node for an original one, per-exec node enabling, node parameter getters and the DOT
 * dump. A launch runs the nodes one after another in the graph's order, so that order is
 * kept topological: an edge that points backwards re-sorts the nodes (stably: unrelated
 * nodes keep their insertion order), and an edge that would close a cycle is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

/* lock order: cpu_sched_lock, then live_lock */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ihipGraph *live_graphs;

void cpu_graph_link(struct ihipGraph *g)
{
    pthread_mutex_lock(&live_lock);
    g->next_live = live_graphs;
    live_graphs = g;
    pthread_mutex_unlock(&live_lock);
}

void cpu_graph_unlink(struct ihipGraph *g)
{
    pthread_mutex_lock(&live_lock);
    for (struct ihipGraph **p = &live_graphs; *p != NULL; p = &(*p)->next_live)
        if (*p == g) {
            *p = g->next_live;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    free(g->edges);
    free(g->origin);
}

static long index_of(const struct ihipGraph *g, const cpu_cmd *c)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->cmds[i] == c)
            return (long)i;
    return -1;
}

/* The graph a live node belongs to (cpu_sched_lock held), or NULL. */
static struct ihipGraph *owner_locked(const void *node)
{
    if (node == NULL || !cpu_graph_node_live(node))
        return NULL;
    struct ihipGraph *found = NULL;
    pthread_mutex_lock(&live_lock);
    for (struct ihipGraph *g = live_graphs; g != NULL && found == NULL; g = g->next_live)
        if (index_of(g, node) >= 0)
            found = g;
    pthread_mutex_unlock(&live_lock);
    return found;
}

static long edge_index(const struct ihipGraph *g, const cpu_cmd *from, const cpu_cmd *to)
{
    for (size_t i = 0; i < g->nedges; i++)
        if (g->edges[i].from == from && g->edges[i].to == to)
            return (long)i;
    return -1;
}

static bool push_edge(struct ihipGraph *g, cpu_cmd *from, cpu_cmd *to)
{
    if (g->nedges == g->edge_cap) {
        size_t cap = g->edge_cap ? g->edge_cap * 2 : 16;
        struct cpu_graph_edge *e = realloc(g->edges, cap * sizeof *e);
        if (e == NULL)
            return false;
        g->edges = e;
        g->edge_cap = cap;
    }
    g->edges[g->nedges++] = (struct cpu_graph_edge){from, to};
    return true;
}

static void remove_edge_at(struct ihipGraph *g, size_t i)
{
    memmove(&g->edges[i], &g->edges[i + 1], (g->nedges - i - 1) * sizeof *g->edges);
    g->nedges--;
}

/* Re-sorts g->cmds topologically, stably. False (order unchanged) when the edges form a
 * cycle or memory runs out. */
static bool topo_sort(struct ihipGraph *g)
{
    size_t n = g->n;
    if (n == 0)
        return true;
    size_t *indeg = calloc(n, sizeof *indeg);
    bool *placed = calloc(n, sizeof *placed);
    cpu_cmd **order = malloc(n * sizeof *order);
    long *from_i = malloc((g->nedges ? g->nedges : 1) * sizeof *from_i);
    long *to_i = malloc((g->nedges ? g->nedges : 1) * sizeof *to_i);
    bool ok = indeg && placed && order && from_i && to_i;
    for (size_t e = 0; ok && e < g->nedges; e++) {
        from_i[e] = index_of(g, g->edges[e].from);
        to_i[e] = index_of(g, g->edges[e].to);
        indeg[to_i[e]]++;
    }
    for (size_t k = 0; ok && k < n; k++) {
        size_t pick = n;
        for (size_t i = 0; i < n && pick == n; i++)
            if (!placed[i] && indeg[i] == 0)
                pick = i;
        if (pick == n) {
            ok = false;   /* a cycle */
            break;
        }
        placed[pick] = true;
        order[k] = g->cmds[pick];
        for (size_t e = 0; e < g->nedges; e++)
            if (from_i[e] == (long)pick)
                indeg[to_i[e]]--;
    }
    if (ok)
        memcpy(g->cmds, order, n * sizeof *order);
    free(indeg);
    free(placed);
    free(order);
    free(from_i);
    free(to_i);
    return ok;
}

bool cpu_graph_edge_add(struct ihipGraph *g, cpu_cmd *from, cpu_cmd *to)
{
    if (edge_index(g, from, to) >= 0)
        return true;   /* one edge per pair (a capture may name a dependency twice) */
    if (!push_edge(g, from, to))
        return false;
    if (index_of(g, from) > index_of(g, to) && !topo_sort(g)) {
        g->nedges--;
        return false;
    }
    return true;
}

void cpu_graph_edges_drop(struct ihipGraph *g, const cpu_cmd *node)
{
    size_t k = 0;
    for (size_t i = 0; i < g->nedges; i++)
        if (g->edges[i].from != node && g->edges[i].to != node)
            g->edges[k++] = g->edges[i];
    g->nedges = k;
}

bool cpu_graph_clone_edges(struct ihipGraph *clone, const struct ihipGraph *original)
{
    clone->origin = malloc((original->n ? original->n : 1) * sizeof *clone->origin);
    if (clone->origin == NULL)
        return false;
    for (size_t i = 0; i < original->n; i++)
        clone->origin[i] = (struct cpu_graph_edge){original->cmds[i], clone->cmds[i]};
    clone->norigin = original->n;
    for (size_t e = 0; e < original->nedges; e++) {
        long f = index_of(original, original->edges[e].from);
        long t = index_of(original, original->edges[e].to);
        if (!push_edge(clone, clone->cmds[f], clone->cmds[t]))
            return false;
    }
    return true;
}

/* ---- dependencies ---- */

static hipError_t check_pairs(const char *call, hipGraph_t graph, const hipGraphNode_t *from,
                              const hipGraphNode_t *to, size_t n)
{
    if (graph == NULL || !cpu_graph_live(graph) || (n > 0 && (from == NULL || to == NULL))) {
        cpu_log("%s: no such graph, or NULL node arrays", call);
        return hipErrorInvalidValue;
    }
    for (size_t i = 0; i < n; i++)
        if (index_of(graph, (const cpu_cmd *)from[i]) < 0 ||
            index_of(graph, (const cpu_cmd *)to[i]) < 0 || from[i] == to[i]) {
            cpu_log("%s: pair %zu names a node of another graph, or a node twice", call, i);
            return hipErrorInvalidValue;
        }
    return hipSuccess;
}

hipError_t hipGraphAddDependencies(hipGraph_t graph, const hipGraphNode_t *from,
                                   const hipGraphNode_t *to, size_t numDependencies)
{
    pthread_mutex_lock(&cpu_sched_lock);
    hipError_t err = check_pairs("hipGraphAddDependencies", graph, from, to, numDependencies);
    for (size_t i = 0; err == hipSuccess && i < numDependencies; i++) {
        bool dup = edge_index(graph, (cpu_cmd *)from[i], (cpu_cmd *)to[i]) >= 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = from[j] == from[i] && to[j] == to[i];
        if (dup) {
            cpu_log("hipGraphAddDependencies: pair %zu is already an edge", i);
            err = hipErrorInvalidValue;
        }
    }
    if (err == hipSuccess) {
        size_t before = graph->nedges;
        for (size_t i = 0; err == hipSuccess && i < numDependencies; i++)
            if (!push_edge(graph, (cpu_cmd *)from[i], (cpu_cmd *)to[i]))
                err = hipErrorOutOfMemory;
        if (err == hipSuccess && !topo_sort(graph)) {
            cpu_log("hipGraphAddDependencies: the edges would close a cycle");
            err = hipErrorInvalidValue;
        }
        if (err != hipSuccess)
            graph->nedges = before;   /* none of this call's edges stay */
    }
    pthread_mutex_unlock(&cpu_sched_lock);
    return cpu_ret(err);
}

hipError_t hipGraphRemoveDependencies(hipGraph_t graph, const hipGraphNode_t *from,
                                      const hipGraphNode_t *to, size_t numDependencies)
{
    pthread_mutex_lock(&cpu_sched_lock);
    hipError_t err = check_pairs("hipGraphRemoveDependencies", graph, from, to,
                                 numDependencies);
    for (size_t i = 0; err == hipSuccess && i < numDependencies; i++)
        if (edge_index(graph, (cpu_cmd *)from[i], (cpu_cmd *)to[i]) < 0) {
            cpu_log("hipGraphRemoveDependencies: pair %zu is not an edge", i);
            err = hipErrorInvalidValue;
        }
    for (size_t i = 0; err == hipSuccess && i < numDependencies; i++) {
        long e = edge_index(graph, (cpu_cmd *)from[i], (cpu_cmd *)to[i]);
        if (e >= 0)
            remove_edge_at(graph, (size_t)e);
    }
    pthread_mutex_unlock(&cpu_sched_lock);
    return cpu_ret(err);
}

/* CUDA's query convention: NULL arrays ask for the count; otherwise up to *n entries are
 * written, the rest of the caller's *n set to NULL, and *n becomes the number written. */
hipError_t hipGraphGetEdges(hipGraph_t graph, hipGraphNode_t *from, hipGraphNode_t *to,
                            size_t *numEdges)
{
    if (numEdges == NULL || graph == NULL || !cpu_graph_live(graph) ||
        (from == NULL) != (to == NULL))
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&cpu_sched_lock);
    size_t total = graph->nedges;
    if (from != NULL) {
        size_t want = *numEdges;
        for (size_t i = 0; i < want; i++) {
            from[i] = i < total ? (hipGraphNode_t)graph->edges[i].from : NULL;
            to[i] = i < total ? (hipGraphNode_t)graph->edges[i].to : NULL;
        }
        total = total < want ? total : want;
    }
    pthread_mutex_unlock(&cpu_sched_lock);
    *numEdges = total;
    return hipSuccess;
}

/* Writes the nodes `pick` selects as a query answer (the convention above). */
static void answer(hipGraphNode_t *out, size_t *num, cpu_cmd *const *found, size_t nfound)
{
    if (out != NULL) {
        size_t want = *num;
        for (size_t i = 0; i < want; i++)
            out[i] = i < nfound ? (hipGraphNode_t)found[i] : NULL;
        nfound = nfound < want ? nfound : want;
    }
    *num = nfound;
}

hipError_t hipGraphGetRootNodes(hipGraph_t graph, hipGraphNode_t *pRootNodes,
                                size_t *pNumRootNodes)
{
    if (pNumRootNodes == NULL || graph == NULL || !cpu_graph_live(graph))
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&cpu_sched_lock);
    cpu_cmd **roots = malloc((graph->n ? graph->n : 1) * sizeof *roots);
    size_t k = 0;
    for (size_t i = 0; roots != NULL && i < graph->n; i++) {
        bool has_dep = false;
        for (size_t e = 0; e < graph->nedges && !has_dep; e++)
            has_dep = graph->edges[e].to == graph->cmds[i];
        if (!has_dep)
            roots[k++] = graph->cmds[i];
    }
    if (roots != NULL)
        answer(pRootNodes, pNumRootNodes, roots, k);
    pthread_mutex_unlock(&cpu_sched_lock);
    free(roots);
    return roots != NULL ? hipSuccess : cpu_ret(hipErrorOutOfMemory);
}

static hipError_t neighbours(const char *call, hipGraphNode_t node, hipGraphNode_t *out,
                             size_t *num, bool dependents)
{
    if (num == NULL)
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&cpu_sched_lock);
    struct ihipGraph *g = owner_locked(node);
    cpu_cmd **found = g != NULL ? malloc((g->nedges ? g->nedges : 1) * sizeof *found) : NULL;
    size_t k = 0;
    for (size_t e = 0; found != NULL && e < g->nedges; e++) {
        const struct cpu_graph_edge *ed = &g->edges[e];
        if ((dependents ? ed->from : ed->to) == (cpu_cmd *)node)
            found[k++] = dependents ? ed->to : ed->from;
    }
    if (found != NULL)
        answer(out, num, found, k);
    pthread_mutex_unlock(&cpu_sched_lock);
    free(found);
    if (g == NULL) {
        cpu_log("%s: not a node of a live graph", call);
        return cpu_ret(hipErrorInvalidValue);
    }
    return found != NULL ? hipSuccess : cpu_ret(hipErrorOutOfMemory);
}

hipError_t hipGraphNodeGetDependencies(hipGraphNode_t node, hipGraphNode_t *pDependencies,
                                       size_t *pNumDependencies)
{
    return neighbours("hipGraphNodeGetDependencies", node, pDependencies, pNumDependencies,
                      false);
}

hipError_t hipGraphNodeGetDependentNodes(hipGraphNode_t node, hipGraphNode_t *pDependentNodes,
                                         size_t *pNumDependentNodes)
{
    return neighbours("hipGraphNodeGetDependentNodes", node, pDependentNodes,
                      pNumDependentNodes, true);
}

/* The node and its edges leave the graph; executable graphs made from it keep their own
 * copies of its command. */
hipError_t hipGraphDestroyNode(hipGraphNode_t node)
{
    pthread_mutex_lock(&cpu_sched_lock);
    struct ihipGraph *g = owner_locked(node);
    if (g != NULL) {
        long i = index_of(g, (cpu_cmd *)node);
        memmove(&g->cmds[i], &g->cmds[i + 1], (g->n - (size_t)i - 1) * sizeof *g->cmds);
        g->n--;
        cpu_graph_edges_drop(g, (cpu_cmd *)node);
        cpu_graph_node_forget(node);
    }
    pthread_mutex_unlock(&cpu_sched_lock);
    if (g == NULL) {
        cpu_log("hipGraphDestroyNode: not a node of a live graph");
        return cpu_ret(hipErrorInvalidValue);
    }
    cpu_cmd_free((cpu_cmd *)node);
    return hipSuccess;
}

hipError_t hipGraphNodeFindInClone(hipGraphNode_t *pNode, hipGraphNode_t originalNode,
                                   hipGraph_t clonedGraph)
{
    if (pNode == NULL || originalNode == NULL || clonedGraph == NULL ||
        !cpu_graph_live(clonedGraph))
        return cpu_ret(hipErrorInvalidValue);
    hipGraphNode_t found = NULL;
    pthread_mutex_lock(&cpu_sched_lock);
    for (size_t k = 0; k < clonedGraph->norigin && found == NULL; k++)
        if (clonedGraph->origin[k].from == (cpu_cmd *)originalNode &&
            index_of(clonedGraph, clonedGraph->origin[k].to) >= 0)   /* not destroyed since */
            found = (hipGraphNode_t)clonedGraph->origin[k].to;
    pthread_mutex_unlock(&cpu_sched_lock);
    if (found == NULL) {
        cpu_log("hipGraphNodeFindInClone: the node has no counterpart in that graph");
        return cpu_ret(hipErrorInvalidValue);
    }
    *pNode = found;
    return hipSuccess;
}

/* ---- executable graphs ---- */

hipError_t hipGraphExecGetFlags(hipGraphExec_t graphExec, unsigned long long *flags)
{
    if (flags == NULL || graphExec == NULL || !cpu_graph_exec_live(graphExec))
        return cpu_ret(hipErrorInvalidValue);
    *flags = graphExec->flags;
    return hipSuccess;
}

long cpu_graph_exec_node(hipGraphExec_t exec, hipGraphNode_t node)
{
    if (exec == NULL || !cpu_graph_exec_live(exec) || node == NULL)
        return -1;
    for (size_t i = 0; i < exec->n; i++)
        if (exec->nodes[i] == node)
            return (long)i;
    return -1;
}

/* CUDA lets kernel, copy and memset nodes be switched off in an executable graph. */
static bool can_disable(const cpu_cmd *c)
{
    return cpu_cmd_is_launch(c) || cpu_cmd_is_copy(c) || cpu_cmd_is_fill(c);
}

hipError_t hipGraphNodeSetEnabled(hipGraphExec_t hGraphExec, hipGraphNode_t hNode,
                                  unsigned int isEnabled)
{
    pthread_mutex_lock(&cpu_sched_lock);
    long i = cpu_graph_exec_node(hGraphExec, hNode);
    bool ok = i >= 0 && can_disable(hGraphExec->cmds[i]);
    if (ok)
        hGraphExec->disabled[i] = isEnabled == 0;
    pthread_mutex_unlock(&cpu_sched_lock);
    if (!ok) {
        cpu_log("hipGraphNodeSetEnabled: not a kernel, copy or memset node of the graph the "
                "exec was instantiated from");
        return cpu_ret(hipErrorInvalidValue);
    }
    return hipSuccess;
}

hipError_t hipGraphNodeGetEnabled(hipGraphExec_t hGraphExec, hipGraphNode_t hNode,
                                  unsigned int *isEnabled)
{
    if (isEnabled == NULL)
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&cpu_sched_lock);
    long i = cpu_graph_exec_node(hGraphExec, hNode);
    bool ok = i >= 0 && can_disable(hGraphExec->cmds[i]);
    if (ok)
        *isEnabled = !hGraphExec->disabled[i];
    pthread_mutex_unlock(&cpu_sched_lock);
    return ok ? hipSuccess : cpu_ret(hipErrorInvalidValue);
}

/* ---- node parameters ---- */

hipError_t hipGraphKernelNodeGetParams(hipGraphNode_t node, hipKernelNodeParams *pNodeParams)
{
    if (pNodeParams == NULL || !cpu_graph_node_live(node) ||
        !cpu_cmd_launch_params((const cpu_cmd *)node, pNodeParams, NULL)) {
        cpu_log("hipGraphKernelNodeGetParams: not a kernel node, or no output");
        return cpu_ret(hipErrorInvalidValue);
    }
    return hipSuccess;
}

hipError_t hipGraphHostNodeGetParams(hipGraphNode_t node, hipHostNodeParams *pNodeParams)
{
    if (pNodeParams == NULL || !cpu_graph_node_live(node) ||
        !cpu_cmd_host_fn_params((const cpu_cmd *)node, pNodeParams)) {
        cpu_log("hipGraphHostNodeGetParams: not a host node, or no output");
        return cpu_ret(hipErrorInvalidValue);
    }
    return hipSuccess;
}

/* ---- DOT ---- */

static const char *type_name(int t)
{
    switch (t) {
    case hipGraphNodeTypeKernel: return "KERNEL";
    case hipGraphNodeTypeMemcpy: return "MEMCPY";
    case hipGraphNodeTypeMemset: return "MEMSET";
    case hipGraphNodeTypeHost: return "HOST";
    case hipGraphNodeTypeEmpty: return "EMPTY";
    case hipGraphNodeTypeMemAlloc: return "MEM_ALLOC";
    case hipGraphNodeTypeMemFree: return "MEM_FREE";
    default: return "CAPTURED";
    }
}

/* One DOT vertex per node (its type; a kernel's name and launch shape; with
 * hipGraphDebugDotFlagsHandles its handle) and one arrow per edge. */
hipError_t hipGraphDebugDotPrint(hipGraph_t graph, const char *path, unsigned int flags)
{
    if (path == NULL || graph == NULL || !cpu_graph_live(graph))
        return cpu_ret(hipErrorInvalidValue);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        cpu_log("hipGraphDebugDotPrint: cannot write %s", path);
        return cpu_ret(hipErrorOperatingSystem);
    }
    bool handles = flags & (hipGraphDebugDotFlagsHandles | hipGraphDebugDotFlagsVerbose);
    pthread_mutex_lock(&cpu_sched_lock);
    fprintf(f, "digraph pyshim_graph {\n  node [shape=box];\n");
    for (size_t i = 0; i < graph->n; i++) {
        const cpu_cmd *c = graph->cmds[i];
        fprintf(f, "  n%zu [label=\"%s", i, type_name(cpu_graph_node_type(c)));
        hipKernelNodeParams k;
        const char *name = NULL;
        if (cpu_cmd_launch_params(c, &k, &name))
            fprintf(f, "\\n%s\\ngrid (%u,%u,%u) block (%u,%u,%u) shared %u", name,
                    k.gridDim.x, k.gridDim.y, k.gridDim.z, k.blockDim.x, k.blockDim.y,
                    k.blockDim.z, k.sharedMemBytes);
        if (handles)
            fprintf(f, "\\nnode %p", (const void *)c);
        fprintf(f, "\"];\n");
    }
    for (size_t e = 0; e < graph->nedges; e++)
        fprintf(f, "  n%ld -> n%ld;\n", index_of(graph, graph->edges[e].from),
                index_of(graph, graph->edges[e].to));
    pthread_mutex_unlock(&cpu_sched_lock);
    fprintf(f, "}\n");
    bool ok = fclose(f) == 0;
    return ok ? hipSuccess : cpu_ret(hipErrorOperatingSystem);
}
