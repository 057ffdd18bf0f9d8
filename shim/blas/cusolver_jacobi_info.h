/* What cuSOLVER's two Jacobi info objects hold (syevjInfo for syevj/heevj, gesvdjInfo for
 * gesvdj): the tolerance, sweep limit and sorting in, the residual and executed sweeps out.
 * Both are this struct, made, checked and set here; each solver's file keeps its exported
 * names, its magic (so one kind is refused where the other is expected) and its Get
 * functions (they differ on a NULL handle). A cuSOLVER handle type (syevjInfo_t ...) points
 * at one of these: JACOBI(i) is the way back. */
#ifndef PYSHIM_CUSOLVER_JACOBI_INFO_H
#define PYSHIM_CUSOLVER_JACOBI_INFO_H

#include <cusolverDn.h>

struct pyshim_jacobi_info {
    unsigned magic;
    double tolerance; /* <= 0: rocSOLVER's default (machine precision) */
    int max_sweeps;
    int sort;
    double residual;
    int sweeps;
};

#define JACOBI(i) ((struct pyshim_jacobi_info *)(void *)(i))

/* cuSOLVER's defaults, also what a call with no info object runs with */
#define PYSHIM_JACOBI_DEFAULTS(m)                                                            \
    ((struct pyshim_jacobi_info){.magic = (m), .max_sweeps = 100, .sort = 1})

/* *out: a new object of kind `magic`, counted among the library's live objects */
cusolverStatus_t pyshim_jacobi_create(void **out, unsigned magic);
/* nonzero unless `info` is a live object of kind `magic` */
int pyshim_jacobi_bad(const void *info, unsigned magic);
cusolverStatus_t pyshim_jacobi_destroy(void *info, unsigned magic);
cusolverStatus_t pyshim_jacobi_set_tolerance(void *info, unsigned magic, double tolerance);
cusolverStatus_t pyshim_jacobi_set_max_sweeps(void *info, unsigned magic, int max_sweeps);
cusolverStatus_t pyshim_jacobi_set_sort(void *info, unsigned magic, int sort);

#endif
