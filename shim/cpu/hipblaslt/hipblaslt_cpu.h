/* The CPU device's hipBLASLt objects (hipblaslt_objects.c) and the matmul problem they
 * describe once checked (hipblaslt_matmul.c). */
#ifndef PYSHIM_CPU_HIPBLASLT_H
#define PYSHIM_CPU_HIPBLASLT_H

#include <stdbool.h>
#include <stdint.h>

#include "pyshim_hipblaslt_abi.h"

#define LT_API __attribute__((visibility("default")))

#define LT_HANDLE_MAGIC 0x4c54484e444cULL /* "LTHNDL" */
#define LT_DESC_MAGIC 0x4c5444455343ULL   /* "LTDESC" */
#define LT_LAYOUT_MAGIC 0x4c544c41594fULL /* "LTLAYO" */
#define LT_PREF_MAGIC 0x4c5450524546ULL   /* "LTPREF" */
/* the one algorithm's id, in hipblasLtMatmulAlgo_t.data */
#define LT_ALGO_TAG "pyshim-cpu-lt"

struct lt_handle { uint64_t magic; };

struct lt_desc {
    uint64_t magic;
    int32_t compute, scale, transa, transb, pointer_mode, bias_type;
    uint32_t epilogue;
    const void *bias;
    void *aux;
    int64_t aux_ld, aux_stride;
    /* fp8 scaling: device pointers to one float each, NULL when unset (scale 1, no amax) */
    const float *scale_a, *scale_b, *scale_c, *scale_d;
    float *amax_d;
};

struct lt_layout {
    uint64_t magic;
    int32_t type, order, batch;
    int64_t rows, cols, ld, stride;
};

struct lt_pref { uint64_t magic; uint64_t max_workspace; };

/* a checked problem: D (m x n) = alpha op(A) (m x k) op(B) (k x n) + beta C */
struct lt_problem {
    const struct lt_desc *desc;
    const struct lt_layout *a, *b, *c, *d;
    int64_t m, n, k;
    int32_t batch;
    char path; /* 's' f32 work, 'd' f64 work, 'i' i8 -> i32, 'f' fp8 A/B on f32 work */
};

size_t lt_type_size(int type);
/* hipblaslt_fp8.c: the 8-bit float types; encode rounds to nearest even and saturates */
bool lt_is_fp8(int type);
double lt_fp8_decode(uint8_t v, int type);
uint8_t lt_fp8_encode(double x, int type);
/* Every object here starts with its uint64_t magic word: a new zeroed one of `size` bytes
 * (NULL when out of memory), and one destroyed, unmarked first so a stale pointer is
 * refused, when it is an object of that magic (else `bad`). */
void *lt_object_new(size_t size, uint64_t magic);
pyshim_hipblasStatus_t lt_object_free(void *obj, uint64_t magic, pyshim_hipblasStatus_t bad);

pyshim_hipblasStatus_t lt_problem_check(const void *desc, const void *a, const void *b,
                                        const void *c, const void *d, struct lt_problem *pr);

#endif
