/* The CPU device's rocSPARSE: objects behind the opaque handles of rocsparse-types.h.
 * Every routine waits for the handle's stream, then computes on the host (device memory
 * is host memory here), so its results are in stream order as on a GPU. */
#ifndef PYSHIM_CPU_ROCSPARSE_INTERNAL_H
#define PYSHIM_CPU_ROCSPARSE_INTERNAL_H

#include <complex.h>
#include <stdint.h>
#include <hip/hip_runtime_api.h>
#include <rocsparse/rocsparse.h>

#define RS_API __attribute__((visibility("default")))

struct _rocsparse_handle {
    unsigned magic;
    hipStream_t stream;
    rocsparse_pointer_mode pointer_mode;
};

struct _rocsparse_mat_descr {
    unsigned magic;
    rocsparse_matrix_type type;
    rocsparse_fill_mode fill;
    rocsparse_diag_type diag;
    rocsparse_index_base base;
};

struct _rocsparse_spmat_descr {
    unsigned magic;
    rocsparse_format format;
    int64_t rows, cols, nnz;
    void *ptr;   /* CSR row offsets, CSC column offsets, COO row indices */
    void *ind;   /* CSR/COO column indices, CSC row indices */
    void *val;
    rocsparse_indextype ptr_type, ind_type;
    rocsparse_index_base base;
    rocsparse_datatype data_type;
    /* rocsparse_spmat_set_attribute's; zero (lower, non-unit, general, sorted) is
     * rocSPARSE's default */
    rocsparse_fill_mode fill;
    rocsparse_diag_type diag;
    rocsparse_matrix_type matrix_type;
    rocsparse_storage_mode storage;
};

struct _rocsparse_dnvec_descr {
    unsigned magic;
    int64_t size;
    void *values;
    rocsparse_datatype data_type;
};

struct _rocsparse_dnmat_descr {
    unsigned magic;
    int64_t rows, cols, ld;
    void *values;
    rocsparse_datatype data_type;
    rocsparse_order order;
    int32_t batch_count; /* rocsparse_dnmat_set_strided_batch: 1 unless set */
    int64_t batch_stride;
};

struct _rocsparse_spvec_descr {
    unsigned magic;
    int64_t size, nnz;
    void *idx, *val;
    rocsparse_indextype idx_type;
    rocsparse_index_base base;
    rocsparse_datatype data_type;
};

/* what the analysis and compute stages of one matrix leave for its zero-pivot query and
 * later stages (rs_bsr.c creates it; the solves there, the factorizations in rs_precond.c) */
struct _rocsparse_mat_info {
    unsigned magic;
    /* the first zero pivot of each routine family, -1: none; a row in the matrix's index
     * base for csrilu0/csric0, a block row in it for bsrilu0/bsric0, a zero-based block row
     * for bsrsv/bsrsm */
    rocsparse_int sv_pivot, sm_pivot, ilu_pivot, ic_pivot, bsrilu_pivot, bsric_pivot;
    /* rocsparse_X{csr,bsr}ilu0_numeric_boost: the factorization replaces a pivot of modulus
     * <= *boost_tol by *boost_val; both are read when it runs (pointers, as rocSPARSE keeps
     * them) */
    int boost;
    const void *boost_tol, *boost_val;
    rocsparse_datatype tol_type, val_type;
};

enum {
    RS_INFO_MAGIC = 0x7273696eu,
    RS_SPVEC_MAGIC = 0x72737376u,
    RS_HANDLE_MAGIC = 0x72736861u,
    RS_MAT_MAGIC = 0x72736d61u,
    RS_SPMAT_MAGIC = 0x7273736du,
    RS_DNVEC_MAGIC = 0x72736476u,
    RS_DNMAT_MAGIC = 0x7273646du,
};

/* a sparse matrix descriptor whose arrays can be read: offsets present where rows exist */
static inline int rs_spmat_readable(const struct _rocsparse_spmat_descr *d)
{
    int64_t outer = d->format == rocsparse_format_csc ? d->cols : d->rows;
    return d->magic == RS_SPMAT_MAGIC &&
           (d->format == rocsparse_format_coo || d->ptr || outer == 0);
}

static inline int rs_bad_info(const struct _rocsparse_mat_info *i)
{
    return !i || i->magic != RS_INFO_MAGIC;
}

/* the handle's stream drained: 0 on success */
rocsparse_status rs_enter(rocsparse_handle h);
/* bytes of one value of a data type; 0 for types the CPU device does not compute in */
size_t rs_value_size(rocsparse_datatype t);
/* index i of an index array of the given type */
static inline int64_t rs_index(const void *a, rocsparse_indextype t, int64_t i)
{
    return t == rocsparse_indextype_i64 ? ((const int64_t *)a)[i] : ((const int32_t *)a)[i];
}

/* index and value access by the descriptor's types; values as double complex, which
 * holds every type the CPU device computes in */
static inline void store_index(void *a, rocsparse_indextype t, int64_t i, int64_t v)
{
    if (t == rocsparse_indextype_i64)
        ((int64_t *)a)[i] = v;
    else
        ((int32_t *)a)[i] = (int32_t)v;
}

static inline double complex load_value(const void *a, rocsparse_datatype t, int64_t i)
{
    switch (t) {
    case rocsparse_datatype_f32_r: return ((const float *)a)[i];
    case rocsparse_datatype_f64_r: return ((const double *)a)[i];
    case rocsparse_datatype_f32_c: return ((const float complex *)a)[i];
    default: return ((const double complex *)a)[i];
    }
}

static inline void store_value(void *a, rocsparse_datatype t, int64_t i, double complex v)
{
    switch (t) {
    case rocsparse_datatype_f32_r: ((float *)a)[i] = (float)creal(v); break;
    case rocsparse_datatype_f64_r: ((double *)a)[i] = creal(v); break;
    case rocsparse_datatype_f32_c: ((float complex *)a)[i] = (float complex)v; break;
    default: ((double complex *)a)[i] = v; break;
    }
}

#endif
