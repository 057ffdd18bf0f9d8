#ifndef PYSHIM_CPU_RCCL_REDUCE_H
#define PYSHIM_CPU_RCCL_REDUCE_H

#include <stdbool.h>
#include <stddef.h>

#define RC_REDUCE_MAX_SRC 256   /* ranks of one clique */

enum { RC_OP_SUM = 0, RC_OP_PROD = 1, RC_OP_MAX = 2, RC_OP_MIN = 3, RC_OP_AVG = 4 };

typedef struct rc_reduce_args {
    void *const *dsts;
    int ndst;
    const void *const *srcs;
    int nsrc;
    size_t off, n;              /* elements */
    const void *const *scalars; /* PreMulSum: each source's scalar, of the element type */
    int navg;                   /* ncclAvg's divisor: the ranks */
} rc_reduce_args;

/* type: ncclDataType_t; op: RC_OP_* (PreMulSum: RC_OP_SUM with scalars) */
void rc_reduce(int type, int op, const rc_reduce_args *a);
/* c = a op b, n elements (c may be a): what rc_reduce gives for sources {a, b}, op one of
 * SUM, PROD, MAX, MIN; gloo's step, called on every segment a ring receives */
void rc_reduce2(int type, int op, void *c, const void *a, const void *b, size_t n);

#endif
