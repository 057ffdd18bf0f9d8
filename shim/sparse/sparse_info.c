/* cuSPARSE's legacy info objects (bsrsv2Info_t, csrilu02Info_t, ...): a checked pyshim
 * object around the rocsparse_mat_info that rocSPARSE's analysis, compute and zero-pivot
 * calls share. The magic number names the kind, so an info of one kind passed where
 * another is expected is refused rather than read. */
#include <limits.h>
#include <stdlib.h>
#include <cusparse.h>

#include "sparse_internal.h"
#include "cusparse_enums.h"
#include "cusparse_rocm.h"

#define STATUS(st) ((cusparseStatus_t)pyshim_cusparseStatus_t_from_rocsparse_status(st))

struct solve_info {
    unsigned magic;
    void *mat_info; /* rocsparse_mat_info */
};

cusparseStatus_t pyshim_info_create(void **out, unsigned magic)
{
    if (!out)
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct solve_info *s = calloc(1, sizeof *s);
    if (!s)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    int st = rocsparse_create_mat_info(&s->mat_info);
    if (st != 0) {
        free(s);
        return STATUS(st);
    }
    s->magic = magic;
    *out = s;
    return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t pyshim_info_destroy(void *p, unsigned magic)
{
    struct solve_info *s = p;
    if (!s)
        return CUSPARSE_STATUS_SUCCESS;
    if (s->magic != magic)
        return CUSPARSE_STATUS_INVALID_VALUE;
    int st = rocsparse_destroy_mat_info(s->mat_info);
    s->magic = 0;
    free(s);
    return STATUS(st);
}

void *pyshim_info_mat(const void *p, unsigned magic)
{
    const struct solve_info *s = p;
    return s && s->magic == magic ? s->mat_info : NULL;
}

cusparseStatus_t pyshim_int_size(size_t bytes, int *out)
{
    if (bytes > INT_MAX)
        return CUSPARSE_STATUS_INSUFFICIENT_RESOURCES;
    *out = (int)bytes;
    return CUSPARSE_STATUS_SUCCESS;
}
