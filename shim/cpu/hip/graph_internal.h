/* What graph.c (nodes, instantiation, launch) and graph_topology.c (edges, node queries,
 * DOT output) share about graphs and their instantiations. */
#ifndef PYSHIM_CPU_HIP_GRAPH_INTERNAL_H
#define PYSHIM_CPU_HIP_GRAPH_INTERNAL_H

#include "internal.h"

struct cpu_graph_edge {
    cpu_cmd *from, *to;
};

struct ihipGraph {
    cpu_cmd **cmds;                  /* kept in a topological order (graph_topology.c) */
    size_t n, cap;
    cpu_user_refs users;             /* hipGraphRetainUserObject */
    struct cpu_graph_edge *edges;    /* the dependencies nodes were added with, or added */
    size_t nedges, edge_cap;
    struct cpu_graph_edge *origin;   /* a clone's: (original node, its copy here) pairs
                                      * (hipGraphNodeFindInClone) */
    size_t norigin;
    struct ihipGraph *next_live;     /* every live graph: a node's graph is found by search */
};

struct hipGraphExec {
    cpu_cmd **cmds;
    hipGraphNode_t *nodes;           /* the graph node each command was made from */
    bool *disabled;                  /* hipGraphNodeSetEnabled(.., 0) */
    size_t n;
    unsigned long long flags;        /* as instantiated (hipGraphExecGetFlags) */
    cpu_user_refs users;             /* the graph's, when instantiated */
};

/* graph.c: handle checks */
bool cpu_graph_live(const struct ihipGraph *g);
bool cpu_graph_node_live(const void *node);
bool cpu_graph_exec_live(const struct hipGraphExec *e);
void cpu_graph_node_forget(const void *node);
int cpu_graph_node_type(const cpu_cmd *c);   /* a hipGraphNodeType, or -1 */
/* Gives `node` the command `fresh` (same payload size) in place; takes `fresh`. */
void cpu_graph_node_replace(cpu_cmd *node, cpu_cmd *fresh);

/* graph_topology.c; the edge calls with cpu_sched_lock held */
void cpu_graph_link(struct ihipGraph *g);
void cpu_graph_unlink(struct ihipGraph *g);  /* also frees its edges */
bool cpu_graph_edge_add(struct ihipGraph *g, cpu_cmd *from, cpu_cmd *to);
void cpu_graph_edges_drop(struct ihipGraph *g, const cpu_cmd *node);
bool cpu_graph_clone_edges(struct ihipGraph *clone, const struct ihipGraph *original);
/* The exec's index of graph node `node`, or -1 (cpu_sched_lock held or not) */
long cpu_graph_exec_node(hipGraphExec_t exec, hipGraphNode_t node);

#endif
