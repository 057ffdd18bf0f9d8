/*
 * Collectives and point-to-point calls, run in stream order.
 *
 * A call checks its arguments, then enqueues a host function on the stream it names
 * (hipLaunchHostFunc): the calling thread never waits. Each rank's host function runs on
 * its own stream's worker; the ranks of one collective meet in a slot of their clique (the
 * collective's call number modulo RC_SLOTS), each then does its share of the work on every
 * rank's buffers (the CPU device's memory is one address space) and leaves when all have
 * finished, so no rank reuses a buffer another still reads. Calls between ncclGroupStart and
 * ncclGroupEnd become one host function per communicator and stream, which first posts its
 * sends, then runs its collectives and receives in call order, then waits for its sends to
 * be taken: a send and the matching receive never wait for each other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rccl_internal.h"
#include "reduce.h"

static const char *const kind_names[] = {
    "ncclAllReduce", "ncclBroadcast", "ncclReduce", "ncclAllGather", "ncclReduceScatter",
    "ncclAllToAll", "ncclGather", "ncclScatter", "ncclSend", "ncclRecv",
};

size_t rc_type_size(ncclDataType_t t)
{
    static const size_t sizes[ncclNumTypes] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
    return (unsigned)t < ncclNumTypes ? sizes[t] : 0;
}

typedef struct {
    ncclComm_t comm;
    rc_task task;
} queued;

static _Thread_local int group_depth = 0;
static _Thread_local queued *group_tasks = NULL;
static _Thread_local size_t group_len = 0, group_cap = 0;
static _Thread_local rc_clique **group_joins = NULL;
static _Thread_local size_t joins_len = 0, joins_cap = 0;
static _Thread_local rc_remote_split **group_rsplits = NULL;
static _Thread_local size_t rsplits_len = 0, rsplits_cap = 0;
typedef struct { rc_clique *q; rc_split *s; } pending_split;
static _Thread_local pending_split *group_splits = NULL;
static _Thread_local size_t splits_len = 0, splits_cap = 0;

typedef struct {
    ncclComm_t comm;
    size_t n;
    rc_task tasks[];
} batch;

bool rc_group_active(void)
{
    return group_depth > 0;
}

void rc_group_defer_join(rc_clique *q)
{
    if (joins_len == joins_cap) {
        size_t cap = joins_cap ? joins_cap * 2 : 8;
        rc_clique **p = realloc(group_joins, cap * sizeof *p);
        if (p == NULL) {
            rc_wait_joined(q);   /* no room to defer: wait now (a one-thread group hangs) */
            return;
        }
        group_joins = p;
        joins_cap = cap;
    }
    group_joins[joins_len++] = q;
}

void rc_group_defer_split(rc_clique *q, rc_split *s)
{
    if (splits_len == splits_cap) {
        size_t cap = splits_cap ? splits_cap * 2 : 8;
        pending_split *p = realloc(group_splits, cap * sizeof *p);
        if (p == NULL) {
            rc_wait_split(q, s);
            return;
        }
        group_splits = p;
        splits_cap = cap;
    }
    group_splits[splits_len++] = (pending_split){q, s};
}

void rc_group_defer_remote_split(rc_remote_split *rs)
{
    if (rsplits_len == rsplits_cap) {
        size_t cap = rsplits_cap ? rsplits_cap * 2 : 8;
        rc_remote_split **p = realloc(group_rsplits, cap * sizeof *p);
        if (p == NULL) {
            rc_remote_split_wait(rs);   /* no room to defer: wait now */
            return;
        }
        group_rsplits = p;
        rsplits_cap = cap;
    }
    group_rsplits[rsplits_len++] = rs;
}

/* ---- execution (on the stream's worker) ---- */

static bool is_reduction(enum rc_kind k)
{
    return k == RC_ALLREDUCE || k == RC_REDUCE || k == RC_REDUCESCATTER;
}

static bool same_call(const rc_task *a, const rc_task *b)
{
    bool premul_a = a->op >= ncclNumOps, premul_b = b->op >= ncclNumOps;
    return a->kind == b->kind && a->count == b->count && a->type == b->type
        && a->root == b->root
        && (!is_reduction(a->kind) || (premul_a ? premul_b : a->op == b->op));
}

static void share(size_t count, int nranks, int rank, size_t *lo, size_t *hi)
{
    *lo = count / (size_t)nranks * (size_t)rank + (count % (size_t)nranks < (size_t)rank
                                                   ? count % (size_t)nranks : (size_t)rank);
    *hi = *lo + count / (size_t)nranks + ((size_t)rank < count % (size_t)nranks);
}

static void copy(void *dst, const void *src, size_t bytes)
{
    if (dst != src && bytes > 0)
        memmove(dst, src, bytes);
}

static void work(const rc_task *args, int nranks, int rank)
{
    const rc_task *me = &args[rank];
    size_t es = rc_type_size(me->type), count = me->count;
    const void *srcs[RC_REDUCE_MAX_SRC], *scal[RC_REDUCE_MAX_SRC];
    void *dsts[RC_REDUCE_MAX_SRC];
    bool premul = me->op >= ncclNumOps;
    for (int k = 0; k < nranks; k++) {
        srcs[k] = args[k].send;
        dsts[k] = args[k].recv;
        scal[k] = args[k].scalar;
    }
    rc_reduce_args ra = {dsts, nranks, srcs, nranks, 0, 0, premul ? scal : NULL, nranks};
    int op = premul ? RC_OP_SUM : me->op;
    switch (me->kind) {
    case RC_ALLREDUCE:
        share(count, nranks, rank, &ra.off, &ra.n);
        ra.n -= ra.off;
        rc_reduce(me->type, op, &ra);
        break;
    case RC_REDUCE:
        share(count, nranks, rank, &ra.off, &ra.n);
        ra.n -= ra.off;
        ra.dsts = &dsts[me->root];
        ra.ndst = 1;
        rc_reduce(me->type, op, &ra);
        break;
    case RC_REDUCESCATTER:
        for (int k = 0; k < nranks; k++)
            srcs[k] = (const char *)args[k].send + (size_t)rank * count * es;
        ra.dsts = &dsts[rank];
        ra.ndst = 1;
        ra.n = count;
        rc_reduce(me->type, op, &ra);
        break;
    case RC_BROADCAST:
        copy(me->recv, args[me->root].send, count * es);
        break;
    case RC_ALLGATHER:
        for (int k = 0; k < nranks; k++)
            copy((char *)me->recv + (size_t)k * count * es, args[k].send, count * es);
        break;
    case RC_ALLTOALL:
        for (int k = 0; k < nranks; k++)
            copy((char *)me->recv + (size_t)k * count * es,
                 (const char *)args[k].send + (size_t)rank * count * es, count * es);
        break;
    case RC_GATHER:
        copy((char *)args[me->root].recv + (size_t)rank * count * es, me->send, count * es);
        break;
    case RC_SCATTER:
        copy(me->recv, (const char *)args[me->root].send + (size_t)rank * count * es,
             count * es);
        break;
    default:
        break;
    }
}

/* with q->lock held; returns with it held */
static void run_collective(rc_clique *q, ncclComm_t c, rc_task *t)
{
    rc_slot *slot = &q->slots[t->seq % RC_SLOTS];
    while (slot->seq != t->seq && !q->aborted)
        pthread_cond_wait(&q->cond, &q->lock);
    if (q->aborted)
        return;
    slot->args[c->rank] = *t;
    if (++slot->arrived == q->nranks) {
        for (int k = 1; k < q->nranks && !slot->bad; k++)
            if (!same_call(&slot->args[0], &slot->args[k])) {
                const rc_task *a = &slot->args[0], *b = &slot->args[k];
                slot->bad = true;
                rc_log(kind_names[a->kind], "collective #%llu disagrees between ranks: rank 0 "
                       "called %s(count %zu, type %d, op %d, root %d), rank %d called "
                       "%s(count %zu, type %d, op %d, root %d); skipped on every rank, the "
                       "communicator's asynchronous error is ncclInvalidUsage",
                       (unsigned long long)t->seq, kind_names[a->kind], a->count, (int)a->type,
                       a->op, a->root, k, kind_names[b->kind], b->count, (int)b->type, b->op,
                       b->root);
                rc_set_async(q, ncclInvalidUsage);
            }
        pthread_cond_broadcast(&q->cond);
    } else {
        while (slot->arrived < q->nranks && !q->aborted)
            pthread_cond_wait(&q->cond, &q->lock);
    }
    if (q->aborted)
        return;
    if (!slot->bad) {
        pthread_mutex_unlock(&q->lock);
        work(slot->args, q->nranks, c->rank);
        pthread_mutex_lock(&q->lock);
    }
    if (++slot->departed == q->nranks) {
        slot->seq += RC_SLOTS;
        slot->arrived = slot->departed = 0;
        slot->bad = false;
        pthread_cond_broadcast(&q->cond);
    } else {
        while (slot->seq == t->seq && !q->aborted)
            pthread_cond_wait(&q->cond, &q->lock);
    }
}

static void run_recv(rc_clique *q, ncclComm_t c, const rc_task *t)
{
    int ch = t->root * q->nranks + c->rank;
    while (q->chan_head[ch] == NULL && !q->aborted)
        pthread_cond_wait(&q->cond, &q->lock);
    if (q->aborted)
        return;
    rc_send *s = q->chan_head[ch];
    q->chan_head[ch] = s->next;
    if (q->chan_head[ch] == NULL)
        q->chan_tail[ch] = NULL;
    size_t bytes = t->count * rc_type_size(t->type);
    if (s->bytes != bytes) {
        rc_log("ncclRecv", "rank %d receives %zu bytes from rank %d, which sent %zu; "
               "nothing copied, the communicator's asynchronous error is ncclInvalidUsage",
               c->rank, bytes, t->root, s->bytes);
        rc_set_async(q, ncclInvalidUsage);
    } else {
        pthread_mutex_unlock(&q->lock);
        copy(t->recv, s->buf, bytes);
        pthread_mutex_lock(&q->lock);
    }
    s->done = true;
    pthread_cond_broadcast(&q->cond);
}

static void run_batch(void *arg)
{
    batch *b = arg;
    ncclComm_t c = b->comm;
    rc_clique *q = c->clique;
    if (c->gloo != NULL) {
        rc_gloo_run_batch(c, b->tasks, b->n);
        free(b);
        rc_comm_release(c);
        return;
    }
    rc_send **posted = calloc(b->n, sizeof *posted);
    pthread_mutex_lock(&q->lock);
    for (size_t i = 0; i < b->n; i++) {
        rc_task *t = &b->tasks[i];
        if (t->kind != RC_SEND)
            continue;
        rc_send *s = posted != NULL ? calloc(1, sizeof *s) : NULL;
        if (s == NULL) {
            rc_log("ncclSend", "out of memory; the communicator's asynchronous error is "
                   "ncclSystemError");
            rc_set_async(q, ncclSystemError);
            continue;
        }
        *s = (rc_send){t->send, t->count * rc_type_size(t->type), false, NULL};
        int ch = c->rank * q->nranks + t->root;
        if (q->chan_tail[ch] != NULL)
            q->chan_tail[ch]->next = s;
        else
            q->chan_head[ch] = s;
        q->chan_tail[ch] = s;
        posted[i] = s;
    }
    if (posted != NULL)
        pthread_cond_broadcast(&q->cond);
    for (size_t i = 0; i < b->n; i++) {
        rc_task *t = &b->tasks[i];
        if (t->kind == RC_RECV) {
            run_recv(q, c, t);
        } else if (t->kind != RC_SEND) {
            if (t->scalar_ptr != NULL)   /* ncclScalarDevice: the value when the task runs */
                memcpy(t->scalar, t->scalar_ptr, rc_type_size(t->type));
            run_collective(q, c, t);
        }
    }
    for (size_t i = 0; posted != NULL && i < b->n; i++) {
        rc_send *s = posted[i];
        if (s == NULL)
            continue;
        while (!s->done && !q->aborted)
            pthread_cond_wait(&q->cond, &q->lock);
        if (s->done)
            free(s);   /* an aborted clique frees what is left in its channels */
    }
    pthread_mutex_unlock(&q->lock);
    free(posted);
    free(b);
    rc_comm_release(c);
}

static ncclResult_t enqueue(const char *fn, ncclComm_t comm, const rc_task *tasks, size_t n)
{
    if (comm->clique->remote && comm->gloo == NULL)
        return rc_fail(fn, ncclInvalidUsage, "rank %d's communicator spans processes and its "
                       "connection failed or is not made yet (ncclCommInitRank's result)",
                       comm->rank);
    batch *b = malloc(sizeof *b + n * sizeof *tasks);
    if (b == NULL)
        return rc_fail(fn, ncclSystemError, "out of memory");
    b->comm = comm;
    b->n = n;
    memcpy(b->tasks, tasks, n * sizeof *tasks);
    pthread_mutex_lock(&comm->clique->lock);
    comm->refs++;
    pthread_mutex_unlock(&comm->clique->lock);
    hipError_t e = hipLaunchHostFunc(tasks[0].stream, run_batch, b);
    if (e != hipSuccess) {
        free(b);
        rc_comm_release(comm);
        return rc_fail(fn, ncclUnhandledCudaError, "stream %p: hipLaunchHostFunc failed (%s)",
                       (void *)tasks[0].stream, hipGetErrorName(e));
    }
    return ncclSuccess;
}

ncclResult_t rc_group_flush(void)
{
    ncclResult_t r = ncclSuccess;
    for (size_t i = 0; i < joins_len; i++) {
        ncclResult_t j = rc_wait_joined(group_joins[i]);
        if (r == ncclSuccess)
            r = j;
    }
    joins_len = 0;
    for (size_t i = 0; i < splits_len; i++) {
        ncclResult_t j = rc_wait_split(group_splits[i].q, group_splits[i].s);
        if (r == ncclSuccess)
            r = j;
    }
    splits_len = 0;
    for (size_t i = 0; i < rsplits_len; i++) {
        ncclResult_t j = rc_remote_split_wait(group_rsplits[i]);
        if (r == ncclSuccess)
            r = j;
    }
    rsplits_len = 0;
    rc_task *buf = group_len ? malloc(group_len * sizeof *buf) : NULL;
    bool *taken = group_len ? calloc(group_len, sizeof *taken) : NULL;
    if (group_len && (buf == NULL || taken == NULL)) {
        free(buf);
        free(taken);
        group_len = 0;
        return rc_fail("ncclGroupEnd", ncclSystemError, "out of memory");
    }
    for (size_t i = 0; i < group_len; i++) {
        if (taken[i])
            continue;
        size_t n = 0;
        for (size_t j = i; j < group_len; j++)
            if (!taken[j] && group_tasks[j].comm == group_tasks[i].comm
                && group_tasks[j].task.stream == group_tasks[i].task.stream) {
                taken[j] = true;
                buf[n++] = group_tasks[j].task;
            }
        ncclResult_t e = enqueue("ncclGroupEnd", group_tasks[i].comm, buf, n);
        if (r == ncclSuccess)
            r = e;
    }
    free(buf);
    free(taken);
    group_len = 0;
    return r;
}

RC_API ncclResult_t ncclGroupStart(void)
{
    group_depth++;
    return ncclSuccess;
}

RC_API ncclResult_t ncclGroupEnd(void)
{
    if (group_depth == 0)
        return rc_fail("ncclGroupEnd", ncclInvalidUsage, "no ncclGroupStart to end");
    if (--group_depth > 0)
        return ncclSuccess;
    return rc_group_flush();
}

/* Every collective's and point-to-point call's argument checks, in one place: NCCL's
 * errors for a bad communicator, datatype, op, root/peer or buffer. A PreMulSum op's scalar
 * is copied into the task here. An empty call (count 0) needs no buffers. */
static ncclResult_t check_task(const char *fn, ncclComm_t comm, rc_task *t)
{
    ncclResult_t r = rc_check_comm(fn, comm);
    if (r != ncclSuccess)
        return r;
    if (rc_type_size(t->type) == 0)
        return rc_fail(fn, ncclInvalidArgument, "datatype %d is not an ncclDataType_t",
                       (int)t->type);
    if (is_reduction(t->kind)) {
        int i = t->op - ncclNumOps;
        if (t->op < 0 || (i >= 0 && (i >= RC_MAX_PREMUL || !comm->premul[i].used)))
            return rc_fail(fn, ncclInvalidArgument, "op %d is not an ncclRedOp_t of this "
                           "communicator", t->op);
        if (i >= 0) {
            const rc_premul *p = &comm->premul[i];
            if (p->type != t->type)
                return rc_fail(fn, ncclInvalidArgument, "op %d was made for datatype %d, "
                               "not %d", t->op, (int)p->type, (int)t->type);
            memcpy(t->scalar, p->value, sizeof t->scalar);
            t->scalar_ptr = p->ptr;
        }
    }
    bool rooted = t->kind == RC_BROADCAST || t->kind == RC_REDUCE || t->kind == RC_GATHER
        || t->kind == RC_SCATTER || t->kind == RC_SEND || t->kind == RC_RECV;
    if (rooted && (t->root < 0 || t->root >= comm->nranks))
        return rc_fail(fn, ncclInvalidArgument, "%s %d is not a rank of this communicator "
                       "(%d ranks)", t->kind >= RC_SEND ? "peer" : "root", t->root,
                       comm->nranks);
    if (t->count == 0)
        return ncclSuccess;
    bool needs_send = t->kind != RC_RECV
        && !((t->kind == RC_SCATTER || t->kind == RC_BROADCAST) && t->root != comm->rank);
    bool needs_recv = t->kind != RC_SEND
        && !((t->kind == RC_REDUCE || t->kind == RC_GATHER) && t->root != comm->rank);
    if ((needs_send && t->send == NULL) || (needs_recv && t->recv == NULL))
        return rc_fail(fn, ncclInvalidArgument, "%s is NULL", needs_send && t->send == NULL
                       ? "sendbuff" : "recvbuff");
    if (t->kind == RC_ALLTOALL && t->send == t->recv)
        return rc_fail(fn, ncclInvalidArgument, "in-place all-to-all is not supported");
    return ncclSuccess;
}

ncclResult_t rc_submit(const char *fn, ncclComm_t comm, rc_task t)
{
    ncclResult_t r = check_task(fn, comm, &t);
    if (r != ncclSuccess || t.count == 0)
        return r;   /* NCCL runs nothing for an empty call */
    if (t.kind < RC_SEND)
        t.seq = __atomic_fetch_add(&comm->next_seq, 1, __ATOMIC_RELAXED);
    if (group_depth > 0) {
        if (group_len == group_cap) {
            size_t cap = group_cap ? group_cap * 2 : 16;
            queued *p = realloc(group_tasks, cap * sizeof *p);
            if (p == NULL)
                return rc_fail(fn, ncclSystemError, "out of memory");
            group_tasks = p;
            group_cap = cap;
        }
        group_tasks[group_len++] = (queued){comm, t};
        return ncclSuccess;
    }
    return enqueue(fn, comm, &t, 1);
}

#define TASK(KIND, S, R, N, T, OP, ROOT, ST) \
    ((rc_task){KIND, S, R, N, T, (int)(OP), ROOT, 0, {0}, NULL, (hipStream_t)(ST)})

RC_API ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                                  ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                  hipStream_t stream)
{
    return rc_submit("ncclAllReduce", comm,
                     TASK(RC_ALLREDUCE, sendbuff, recvbuff, count, datatype, op, 0, stream));
}

RC_API ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                                  ncclDataType_t datatype, int root, ncclComm_t comm,
                                  hipStream_t stream)
{
    return rc_submit("ncclBroadcast", comm,
                     TASK(RC_BROADCAST, sendbuff, recvbuff, count, datatype, 0, root, stream));
}

RC_API ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root,
                              ncclComm_t comm, hipStream_t stream)
{
    return rc_submit("ncclBcast", comm,
                     TASK(RC_BROADCAST, buff, buff, count, datatype, 0, root, stream));
}

RC_API ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                               ncclDataType_t datatype, ncclRedOp_t op, int root,
                               ncclComm_t comm, hipStream_t stream)
{
    return rc_submit("ncclReduce", comm,
                     TASK(RC_REDUCE, sendbuff, recvbuff, count, datatype, op, root, stream));
}

RC_API ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                                  ncclDataType_t datatype, ncclComm_t comm, hipStream_t stream)
{
    return rc_submit("ncclAllGather", comm,
                     TASK(RC_ALLGATHER, sendbuff, recvbuff, sendcount, datatype, 0, 0, stream));
}

RC_API ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                      ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                      hipStream_t stream)
{
    return rc_submit("ncclReduceScatter", comm,
                     TASK(RC_REDUCESCATTER, sendbuff, recvbuff, recvcount, datatype, op, 0,
                          stream));
}

RC_API ncclResult_t ncclAllToAll(const void *sendbuff, void *recvbuff, size_t count,
                                 ncclDataType_t datatype, ncclComm_t comm, hipStream_t stream)
{
    return rc_submit("ncclAllToAll", comm,
                     TASK(RC_ALLTOALL, sendbuff, recvbuff, count, datatype, 0, 0, stream));
}

RC_API ncclResult_t ncclGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                               ncclDataType_t datatype, int root, ncclComm_t comm,
                               hipStream_t stream)
{
    return rc_submit("ncclGather", comm,
                     TASK(RC_GATHER, sendbuff, recvbuff, sendcount, datatype, 0, root, stream));
}

RC_API ncclResult_t ncclScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                ncclDataType_t datatype, int root, ncclComm_t comm,
                                hipStream_t stream)
{
    return rc_submit("ncclScatter", comm,
                     TASK(RC_SCATTER, sendbuff, recvbuff, recvcount, datatype, 0, root, stream));
}

RC_API ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype,
                             int peer, ncclComm_t comm, hipStream_t stream)
{
    return rc_submit("ncclSend", comm,
                     TASK(RC_SEND, sendbuff, NULL, count, datatype, 0, peer, stream));
}

RC_API ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
                             ncclComm_t comm, hipStream_t stream)
{
    return rc_submit("ncclRecv", comm,
                     TASK(RC_RECV, NULL, recvbuff, count, datatype, 0, peer, stream));
}
