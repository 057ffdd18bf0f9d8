/*
 * The calls of a communicator whose ranks live in several processes, on the stream's
 * worker (one host function per call or group, as coll.c enqueues them): gloo's algorithms
 * over its TCP transport (reduce-scatter: a ring over its point-to-point buffers,
 * gloo_bridge.cc). Reductions first apply what NCCL applies to each input (a
 * PreMulSum scalar, ncclAvg's 1/nranks for floating types) in place of the input's copy,
 * then reduce by sum; integer ncclAvg divides the sum. A group's sends and receives are
 * posted first and waited for last, so a send and its receive never wait for each other.
 */
#include <stdlib.h>
#include <string.h>

#include "rccl_internal.h"
#include "reduce.h"

static const char *const names[] = {
    "ncclAllReduce", "ncclBroadcast", "ncclReduce", "ncclAllGather", "ncclReduceScatter",
    "ncclAllToAll", "ncclGather", "ncclScatter", "ncclSend", "ncclRecv",
};

static bool is_float(ncclDataType_t t)
{
    return t >= ncclFloat16;
}

/* the input is scaled before it enters the sum (PreMulSum, floating ncclAvg) */
static bool scaled(const rc_task *t)
{
    return t->op >= ncclNumOps || (t->op == RC_OP_AVG && is_float(t->type));
}

/* the op gloo reduces with */
static int gloo_op(const rc_task *t)
{
    return t->op >= ncclNumOps || t->op == RC_OP_AVG ? RC_OP_SUM : t->op;
}

/* dst = the input as it enters the sum; returns the op gloo reduces with */
static int prepare(const rc_task *t, int nranks, void *dst, size_t n)
{
    size_t es = rc_type_size(t->type);
    bool premul = t->op >= ncclNumOps;
    if (scaled(t)) {
        void *dsts[1] = {dst};
        const void *srcs[1] = {t->send}, *scal[1] = {t->scalar};
        rc_reduce_args ra = {dsts, 1, srcs, 1, 0, n, premul ? scal : NULL, nranks};
        rc_reduce(t->type, premul ? RC_OP_SUM : RC_OP_AVG, &ra);
    } else if (dst != t->send) {
        memmove(dst, t->send, n * es);
    }
    return gloo_op(t);
}

/* integer ncclAvg: the sum divided by the ranks */
static void finish(const rc_task *t, int nranks, void *buf, size_t n)
{
    if (t->op != RC_OP_AVG || is_float(t->type))
        return;
    void *dsts[1] = {buf};
    const void *srcs[1] = {buf};
    rc_reduce_args ra = {dsts, 1, srcs, 1, 0, n, NULL, nranks};
    rc_reduce(t->type, RC_OP_AVG, &ra);
}

static int collective(ncclComm_t c, const rc_task *t, char *err)
{
    rc_gloo *g = c->gloo;
    int n = c->nranks, rank = c->rank;
    size_t es = rc_type_size(t->type), count = t->count, bytes = count * es;
    uint32_t tag = (uint32_t)t->seq + 1;   /* tag 0 is the first barrier's */
    void *tmp = NULL;
    int r = -1;
    switch (t->kind) {
    case RC_ALLREDUCE: {
        /* unscaled: gloo reads the send buffer itself (no copy into recv first) */
        const void *in = t->send;
        if (scaled(t)) {
            prepare(t, n, t->recv, count);
            in = t->recv;
        }
        r = rc_gloo_allreduce(g, in, t->recv, count, t->type, gloo_op(t), tag, err);
        finish(t, n, t->recv, count);
        break;
    }
    case RC_REDUCE: {
        void *buf = rank == t->root ? t->recv : (tmp = malloc(bytes));
        if (buf == NULL)
            break;
        int op = prepare(t, n, buf, count);
        r = rc_gloo_reduce(g, buf, count, t->type, op, t->root, tag, err);
        if (rank == t->root)
            finish(t, n, buf, count);
        break;
    }
    case RC_REDUCESCATTER:
        /* the ring works in a copy of the input (the send buffer is the caller's) */
        if ((tmp = malloc(bytes * (size_t)n)) == NULL)
            break;
        r = rc_gloo_reduce_scatter(g, tmp, count, t->type, prepare(t, n, tmp,
                                   count * (size_t)n), tag, err);
        memcpy(t->recv, (char *)tmp + (size_t)rank * bytes, bytes);
        finish(t, n, t->recv, count);
        break;
    case RC_BROADCAST:
        if (rank == t->root && t->recv != t->send)
            memmove(t->recv, t->send, bytes);
        r = rc_gloo_broadcast(g, t->recv, bytes, t->root, tag, err);
        break;
    case RC_ALLGATHER: {
        char *mine = (char *)t->recv + (size_t)rank * bytes;
        if (mine != t->send)
            memmove(mine, t->send, bytes);
        r = rc_gloo_allgather(g, t->recv, bytes, tag, err);
        break;
    }
    case RC_ALLTOALL:
        r = rc_gloo_alltoall(g, t->send, t->recv, bytes, tag, err);
        break;
    case RC_GATHER:
        r = rc_gloo_gather(g, t->send, t->recv, bytes, t->root, tag, err);
        break;
    case RC_SCATTER:
        r = rc_gloo_scatter(g, t->send, t->recv, bytes, t->root, tag, err);
        break;
    default:
        r = 0;
        break;
    }
    if (r != 0 && tmp == NULL && err[0] == '\0')
        strcpy(err, "out of memory");
    free(tmp);
    return r;
}

static void failed(ncclComm_t c, const rc_task *t, const char *err)
{
    rc_log(names[t->kind], "rank %d of a cross-process communicator: %s; the communicator's "
           "asynchronous error is ncclRemoteError", c->rank, err);
    pthread_mutex_lock(&c->clique->lock);
    rc_set_async(c->clique, ncclRemoteError);
    pthread_mutex_unlock(&c->clique->lock);
}

void rc_gloo_run_batch(ncclComm_t c, rc_task *tasks, size_t n)
{
    char err[RC_GLOO_ERR];
    rc_gloo_p2p **p2p = calloc(n, sizeof *p2p);
    pthread_mutex_lock(&c->gloo_lock);
    for (size_t i = 0; i < n; i++) {
        rc_task *t = &tasks[i];
        if (t->kind != RC_SEND && t->kind != RC_RECV)
            continue;
        err[0] = '\0';
        bool send = t->kind == RC_SEND;
        size_t bytes = t->count * rc_type_size(t->type);
        if (p2p == NULL)
            failed(c, t, "out of memory");
        else if ((p2p[i] = rc_gloo_p2p_post(c->gloo, send, send ? (void *)t->send : t->recv,
                                            bytes, t->root, err)) == NULL)
            failed(c, t, err);
    }
    for (size_t i = 0; i < n; i++) {
        rc_task *t = &tasks[i];
        if (t->kind == RC_SEND || t->kind == RC_RECV)
            continue;
        if (t->scalar_ptr != NULL)   /* ncclScalarDevice: the value when the task runs */
            memcpy(t->scalar, t->scalar_ptr, rc_type_size(t->type));
        err[0] = '\0';
        if (collective(c, t, err) != 0)
            failed(c, t, err);
    }
    for (size_t i = 0; p2p != NULL && i < n; i++) {
        err[0] = '\0';
        if (p2p[i] != NULL && rc_gloo_p2p_wait(p2p[i], err) != 0)
            failed(c, &tasks[i], err);
    }
    pthread_mutex_unlock(&c->gloo_lock);
    free(p2p);
}
