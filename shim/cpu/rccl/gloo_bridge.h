/* C interface of gloo_bridge.cc: one gloo context per rank of a communicator whose ranks
 * live in several processes. Every call returns 0, or -1 with a message in err. */
#ifndef PYSHIM_CPU_RCCL_GLOO_BRIDGE_H
#define PYSHIM_CPU_RCCL_GLOO_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RC_GLOO_ERR 256

typedef struct rc_gloo rc_gloo;
typedef struct rc_gloo_p2p rc_gloo_p2p;

/* gloo's headers were found at build time */
bool rc_gloo_available(void);
/* rendezvous through gloo's file store in store_dir; the TCP device binds the host's name
 * (PYSHIM_NCCL_SOCKET_IFNAME or an exact NCCL_SOCKET_IFNAME: an interface instead,
 * PYSHIM_NCCL_HOSTNAME: a name) */
rc_gloo *rc_gloo_connect(const char *store_dir, int rank, int nranks, int timeout_ms,
                         char *err);
void rc_gloo_free(rc_gloo *g);

/* buf = the reduction of every rank's `in` (NULL or buf: in place): type is an
 * ncclDataType_t, op an RC_OP_* other than AVG */
int rc_gloo_allreduce(rc_gloo *g, const void *in, void *buf, size_t count, int type, int op,
                      uint32_t tag, char *err);
/* buf holds this rank's input and, on root, receives the result (elsewhere scratch) */
int rc_gloo_reduce(rc_gloo *g, void *buf, size_t count, int type, int op, int root,
                   uint32_t tag, char *err);
/* buf: nranks blocks of count elements, reduced in place; this rank's block ends reduced
 * (the other blocks are left partly reduced) */
int rc_gloo_reduce_scatter(rc_gloo *g, void *buf, size_t count, int type, int op,
                           uint32_t tag, char *err);
int rc_gloo_broadcast(rc_gloo *g, void *buf, size_t bytes, int root, uint32_t tag, char *err);
/* out holds nranks blocks of `bytes`; this rank's block is already in place */
int rc_gloo_allgather(rc_gloo *g, void *out, size_t bytes, uint32_t tag, char *err);
int rc_gloo_gather(rc_gloo *g, const void *in, void *out, size_t bytes, int root,
                   uint32_t tag, char *err);
int rc_gloo_scatter(rc_gloo *g, const void *in, void *out, size_t bytes, int root,
                    uint32_t tag, char *err);
int rc_gloo_alltoall(rc_gloo *g, const void *in, void *out, size_t bytes, uint32_t tag,
                     char *err);
int rc_gloo_barrier(rc_gloo *g, uint32_t tag, char *err);

/* point to point: posted now, finished by rc_gloo_p2p_wait (which frees it) */
rc_gloo_p2p *rc_gloo_p2p_post(rc_gloo *g, bool send, void *buf, size_t bytes, int peer,
                              char *err);
int rc_gloo_p2p_wait(rc_gloo_p2p *p, char *err);

#ifdef __cplusplus
}
#endif

#endif
