/*
 * pyshim's libcusparse.so.12: what the generated thunks (pyshim.codegen.sparse) and the
 * hand-written entry points share.
 */
#ifndef PYSHIM_SPARSE_INTERNAL_H
#define PYSHIM_SPARSE_INTERNAL_H

#include <stddef.h>
#include <cusparse.h>

#define PYSHIM_WEAK __attribute__((weak, visibility("default")))
#undef PYSHIM_EXPORT
#define PYSHIM_EXPORT __attribute__((visibility("default")))

/* Count one call of an entry point pyshim does not map; log its name the first time. */
void pyshim_cusparse_unsupported(const char *name);

/* cudaDataType -> rocsparse_datatype's value; -1 where rocSPARSE has none */
int pyshim_cusparse_datatype(int cuda_data_type);

/* HIP's copy, in ABI terms (hipMemcpyKind as its int value, which is CUDA's): the library
 * links libamdhip64 by SONAME and compiles against CUDA's headers, not HIP's. Default: the
 * direction from the pointers, as a CUDA program's arrays may be any memory UVA maps. */
int hipMemcpy(void *dst, const void *src, size_t bytes, int kind);
enum { PYSHIM_HIP_MEMCPY_DEFAULT = 4 };

/* the legacy info objects (sparse_info.c): a pyshim object of kind `magic` around a
 * rocsparse_mat_info. Destroying NULL succeeds; the wrong kind is
 * CUSPARSE_STATUS_INVALID_VALUE. */
cusparseStatus_t pyshim_info_create(void **out, unsigned magic);
cusparseStatus_t pyshim_info_destroy(void *info, unsigned magic);
/* the rocsparse_mat_info inside, NULL for anything that is not a live info of this kind */
void *pyshim_info_mat(const void *info, unsigned magic);
/* rocSPARSE's size_t buffer size as cuSPARSE's int */
cusparseStatus_t pyshim_int_size(size_t bytes, int *out);

#endif
