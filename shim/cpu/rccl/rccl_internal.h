/* The CPU device's RCCL: communicators of one process, whose ranks meet in host functions
 * enqueued on their streams (see README.md). */
#ifndef PYSHIM_CPU_RCCL_INTERNAL_H
#define PYSHIM_CPU_RCCL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "gloo_bridge.h"
#include "rccl_abi.h"

#define RC_API __attribute__((visibility("default")))
#define RC_COMM_MAGIC 0x52434f4du   /* "RCOM" */
#define RC_SLOTS 4                 /* collectives in flight per clique (see coll.c) */
#define RC_MAX_PREMUL 64           /* user reduction ops per communicator */
#define RC_STORE_MAX 96            /* a unique id's rendezvous path, NUL included */

enum rc_kind { RC_ALLREDUCE, RC_BROADCAST, RC_REDUCE, RC_ALLGATHER, RC_REDUCESCATTER,
               RC_ALLTOALL, RC_GATHER, RC_SCATTER, RC_SEND, RC_RECV };

/* One rank's part of one operation, as its call gave it */
typedef struct rc_task {
    enum rc_kind kind;
    const void *send;
    void *recv;
    size_t count;
    ncclDataType_t type;
    int op;                 /* ncclRedOp_t or a ncclRedOpCreatePreMulSum op */
    int root;               /* root, or the peer of a send/recv */
    uint64_t seq;           /* collectives: the communicator's call number */
    unsigned char scalar[8];    /* PreMulSum: this rank's scalar, read when the task runs */
    const void *scalar_ptr;     /* PreMulSum with ncclScalarDevice: where to read it */
    hipStream_t stream;
} rc_task;

typedef struct rc_slot {
    uint64_t seq;
    int arrived, departed;
    rc_task *args;          /* [nranks] */
    bool bad;               /* the ranks' calls disagree: skipped on every rank */
} rc_slot;

typedef struct rc_send {
    const void *buf;
    size_t bytes;
    bool done;
    struct rc_send *next;
} rc_send;

/* One ncclCommSplit of a clique: every rank's color and key, and where its new
 * communicator goes; the last rank to arrive makes them all */
typedef struct rc_split {
    uint64_t seq;
    int arrived, waiters;
    bool done;
    int *color, *key, *device;
    struct ncclComm ***out;
    struct rc_split *next;
} rc_split;

typedef struct rc_clique {
    unsigned char id[RCCL_UNIQUE_ID_BYTES];
    int nranks, joined, refs;
    bool complete, aborted;
    ncclResult_t error;     /* the first asynchronous error, for every rank */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct ncclComm **comms;
    rc_slot slots[RC_SLOTS];
    rc_send **chan_head, **chan_tail;  /* [src * nranks + dst]: posted sends, in order */
    struct rc_clique *next_pending;
    bool in_pending;        /* still in comm.c's list of cliques that wait for ranks */
    rc_split *splits;
    /* ranks in other processes: each local rank joins a gloo context (see comm.c) */
    char store[RC_STORE_MAX];   /* the id's rendezvous directory */
    bool remote;
    int connecting;         /* local ranks whose gloo context is being made */
    ncclResult_t connect_error;
} rc_clique;

typedef struct rc_premul {
    bool used;
    ncclScalarResidence_t residence;
    ncclDataType_t type;
    unsigned char value[8];
    const void *ptr;
} rc_premul;

/* a buffer ncclCommRegister was given: the CPU device's transport needs no registration
 * (every rank reads the others' memory directly), so it is only remembered */
typedef struct rc_reg {
    void *buff;
    size_t size;
    struct rc_reg *next;
} rc_reg;

struct ncclComm {
    uint32_t magic;
    rc_clique *clique;
    int rank, nranks, device;
    int refs;               /* the user's, plus one per task batch not yet run */
    bool destroyed;
    uint64_t next_seq;
    uint64_t next_split;
    rc_premul premul[RC_MAX_PREMUL];
    rc_reg *regs;           /* under the clique's lock */
    rc_gloo *gloo;          /* a rank of a cross-process communicator: its gloo context */
    bool connect_started;
    pthread_mutex_t gloo_lock;  /* one operation on the gloo context at a time */
};

/* comm.c */
void rc_log(const char *fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
ncclResult_t rc_fail(const char *fn, ncclResult_t r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
ncclResult_t rc_check_comm(const char *fn, ncclComm_t comm);
void rc_comm_release(struct ncclComm *c);
void rc_set_async(rc_clique *q, ncclResult_t r);

/* coll.c */
size_t rc_type_size(ncclDataType_t t);
ncclResult_t rc_submit(const char *fn, ncclComm_t comm, rc_task t);
bool rc_group_active(void);
ncclResult_t rc_group_flush(void);
void rc_group_defer_join(rc_clique *q);
void rc_group_defer_split(rc_clique *q, rc_split *s);
ncclResult_t rc_wait_split(rc_clique *q, rc_split *s);   /* comm.c */
ncclResult_t rc_wait_joined(rc_clique *q);   /* comm.c */
typedef struct rc_remote_split rc_remote_split;
ncclResult_t rc_remote_split_wait(rc_remote_split *rs);   /* comm.c: joins and frees */
void rc_group_defer_remote_split(rc_remote_split *rs);
void rc_gloo_run_batch(ncclComm_t c, rc_task *tasks, size_t n);   /* coll_gloo.c */

#endif
