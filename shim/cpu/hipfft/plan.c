/*
 * The CPU device's hipFFT (hipfft.h, ROCm 7.2 ABI) on FFTW 3.
 *
 * A hipFFT plan records the transform (rank, sizes, advanced layout, batch, type); its
 * FFTW plan is made at the first execution, on the caller's arrays with FFTW_ESTIMATE
 * (which never writes to them), and reused through FFTW's new-array execute functions
 * while the arrays keep the alignment and in-placeness it was made for. cuFFT's advanced
 * layout (nembed, stride, dist) is FFTW's guru-many layout, and both leave transforms
 * unnormalised with forward = -1.
 */
#include <complex.h>
#include <fftw3.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>
#include <hipfft/hipfft.h>

#define HF_API __attribute__((visibility("default")))
#define MAX_RANK 3

struct hipfftHandle_t {
    int made;               /* a Make/Plan call succeeded */
    int rank;
    int n[MAX_RANK];
    int inembed[MAX_RANK], onembed[MAX_RANK];
    int has_inembed, has_onembed;
    int istride, idist, ostride, odist;
    int batch;
    hipfftType type;
    hipStream_t stream;
    int auto_alloc;
    /* the FFTW plan and what it was made for */
    void *fftw;
    int fftw_sign, fftw_inplace, fftw_align_in, fftw_align_out;
};

/* FFTW's planner is not thread-safe; its execute functions are */
static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;

static int is_double(hipfftType t)
{
    return t == HIPFFT_Z2Z || t == HIPFFT_D2Z || t == HIPFFT_Z2D;
}

static void drop_fftw(hipfftHandle p)
{
    if (!p->fftw)
        return;
    pthread_mutex_lock(&planner_lock);
    if (is_double(p->type))
        fftw_destroy_plan(p->fftw);
    else
        fftwf_destroy_plan(p->fftw);
    pthread_mutex_unlock(&planner_lock);
    p->fftw = NULL;
}

HF_API hipfftResult hipfftCreate(hipfftHandle *plan)
{
    if (!plan)
        return HIPFFT_INVALID_VALUE;
    hipfftHandle p = calloc(1, sizeof *p);
    if (!p)
        return HIPFFT_ALLOC_FAILED;
    p->auto_alloc = 1;
    *plan = p;
    return HIPFFT_SUCCESS;
}

HF_API hipfftResult hipfftDestroy(hipfftHandle plan)
{
    if (!plan)
        return HIPFFT_INVALID_PLAN;
    drop_fftw(plan);
    free(plan);
    return HIPFFT_SUCCESS;
}

static int valid_type(hipfftType t)
{
    return t == HIPFFT_R2C || t == HIPFFT_C2R || t == HIPFFT_C2C || t == HIPFFT_D2Z ||
           t == HIPFFT_Z2D || t == HIPFFT_Z2Z;
}

static hipfftResult make(hipfftHandle p, int rank, const long long *n, const long long *inembed,
                         long long istride, long long idist, const long long *onembed,
                         long long ostride, long long odist, hipfftType type, long long batch,
                         size_t *work)
{
    if (!p)
        return HIPFFT_INVALID_PLAN;
    if (rank < 1 || rank > MAX_RANK || !n || batch < 1 || batch > 0x7fffffff)
        return HIPFFT_INVALID_SIZE;
    if (!valid_type(type))
        return HIPFFT_INVALID_TYPE;
    for (int i = 0; i < rank; i++)
        if (n[i] < 1 || n[i] > 0x7fffffff)
            return HIPFFT_INVALID_SIZE;
    drop_fftw(p);
    p->rank = rank;
    for (int i = 0; i < rank; i++)
        p->n[i] = (int)n[i];
    /* cuFFT: without inembed/onembed the layout is the basic one and the strides and
     * distances are ignored */
    p->has_inembed = inembed != NULL;
    p->has_onembed = onembed != NULL;
    for (int i = 0; i < rank; i++) {
        p->inembed[i] = inembed ? (int)inembed[i] : 0;
        p->onembed[i] = onembed ? (int)onembed[i] : 0;
    }
    p->istride = inembed ? (int)istride : 1;
    p->ostride = onembed ? (int)ostride : 1;
    long long real = 1, cplx = 1;
    for (int i = 0; i < rank; i++) {
        real *= n[i];
        cplx *= i == rank - 1 ? n[i] / 2 + 1 : n[i];
    }
    int r2c = type == HIPFFT_R2C || type == HIPFFT_D2Z;
    int c2r = type == HIPFFT_C2R || type == HIPFFT_Z2D;
    p->idist = inembed ? (int)idist : (int)(c2r ? cplx : real);
    p->odist = onembed ? (int)odist : (int)(r2c ? cplx : real);
    p->batch = (int)batch;
    p->type = type;
    p->made = 1;
    if (work)
        *work = 0; /* FFTW keeps its own scratch */
    return HIPFFT_SUCCESS;
}

static hipfftResult make32(hipfftHandle p, int rank, const int *n, const int *inembed,
                           int istride, int idist, const int *onembed, int ostride, int odist,
                           hipfftType type, int batch, size_t *work)
{
    long long n64[MAX_RANK], in64[MAX_RANK], on64[MAX_RANK];
    if (rank < 1 || rank > MAX_RANK || !n)
        return HIPFFT_INVALID_SIZE;
    for (int i = 0; i < rank; i++) {
        n64[i] = n[i];
        in64[i] = inembed ? inembed[i] : 0;
        on64[i] = onembed ? onembed[i] : 0;
    }
    return make(p, rank, n64, inembed ? in64 : NULL, istride, idist, onembed ? on64 : NULL,
                ostride, odist, type, batch, work);
}

HF_API hipfftResult hipfftMakePlanMany(hipfftHandle plan, int rank, int *n, int *inembed,
                                       int istride, int idist, int *onembed, int ostride,
                                       int odist, hipfftType type, int batch, size_t *workSize)
{
    return make32(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                  workSize);
}

HF_API hipfftResult hipfftMakePlanMany64(hipfftHandle plan, int rank, long long int *n,
                                         long long int *inembed, long long int istride,
                                         long long int idist, long long int *onembed,
                                         long long int ostride, long long int odist,
                                         hipfftType type, long long int batch,
                                         size_t *workSize)
{
    return make(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                workSize);
}

HF_API hipfftResult hipfftMakePlan1d(hipfftHandle plan, int nx, hipfftType type, int batch,
                                     size_t *workSize)
{
    int n[1] = {nx};
    return make32(plan, 1, n, NULL, 1, 0, NULL, 1, 0, type, batch, workSize);
}

HF_API hipfftResult hipfftMakePlan2d(hipfftHandle plan, int nx, int ny, hipfftType type,
                                     size_t *workSize)
{
    int n[2] = {nx, ny};
    return make32(plan, 2, n, NULL, 1, 0, NULL, 1, 0, type, 1, workSize);
}

HF_API hipfftResult hipfftMakePlan3d(hipfftHandle plan, int nx, int ny, int nz,
                                     hipfftType type, size_t *workSize)
{
    int n[3] = {nx, ny, nz};
    return make32(plan, 3, n, NULL, 1, 0, NULL, 1, 0, type, 1, workSize);
}

static hipfftResult create_and(hipfftHandle *plan, hipfftResult (*mk)(hipfftHandle))
{
    hipfftResult st = hipfftCreate(plan);
    if (st != HIPFFT_SUCCESS)
        return st;
    st = mk(*plan);
    if (st != HIPFFT_SUCCESS) {
        hipfftDestroy(*plan);
        *plan = NULL;
    }
    return st;
}

/* the one-call planners: create, then make (arguments through a small closure) */
static __thread struct {
    int rank, n[MAX_RANK], *inembed, istride, idist, *onembed, ostride, odist, batch;
    hipfftType type;
} pending;

static hipfftResult make_pending(hipfftHandle p)
{
    return make32(p, pending.rank, pending.n, pending.inembed, pending.istride, pending.idist,
                  pending.onembed, pending.ostride, pending.odist, pending.type, pending.batch,
                  NULL);
}

HF_API hipfftResult hipfftPlan1d(hipfftHandle *plan, int nx, hipfftType type, int batch)
{
    pending.rank = 1;
    pending.n[0] = nx;
    pending.inembed = pending.onembed = NULL;
    pending.type = type;
    pending.batch = batch;
    return create_and(plan, make_pending);
}

HF_API hipfftResult hipfftPlan2d(hipfftHandle *plan, int nx, int ny, hipfftType type)
{
    pending.rank = 2;
    pending.n[0] = nx;
    pending.n[1] = ny;
    pending.inembed = pending.onembed = NULL;
    pending.type = type;
    pending.batch = 1;
    return create_and(plan, make_pending);
}

HF_API hipfftResult hipfftPlan3d(hipfftHandle *plan, int nx, int ny, int nz, hipfftType type)
{
    pending.rank = 3;
    pending.n[0] = nx;
    pending.n[1] = ny;
    pending.n[2] = nz;
    pending.inembed = pending.onembed = NULL;
    pending.type = type;
    pending.batch = 1;
    return create_and(plan, make_pending);
}

HF_API hipfftResult hipfftPlanMany(hipfftHandle *plan, int rank, int *n, int *inembed,
                                   int istride, int idist, int *onembed, int ostride, int odist,
                                   hipfftType type, int batch)
{
    if (rank < 1 || rank > MAX_RANK || !n)
        return HIPFFT_INVALID_SIZE;
    pending.rank = rank;
    for (int i = 0; i < rank; i++)
        pending.n[i] = n[i];
    pending.inembed = inembed;
    pending.istride = istride;
    pending.idist = idist;
    pending.onembed = onembed;
    pending.ostride = ostride;
    pending.odist = odist;
    pending.type = type;
    pending.batch = batch;
    return create_and(plan, make_pending);
}

/* ---- sizes: FFTW needs no work area from the caller ------------------------------------ */

static hipfftResult zero(size_t *work)
{
    if (work)
        *work = 0;
    return HIPFFT_SUCCESS;
}

HF_API hipfftResult hipfftEstimate1d(int nx, hipfftType type, int batch, size_t *workSize)
{
    (void)nx, (void)type, (void)batch;
    return zero(workSize);
}

HF_API hipfftResult hipfftEstimate2d(int nx, int ny, hipfftType type, size_t *workSize)
{
    (void)nx, (void)ny, (void)type;
    return zero(workSize);
}

HF_API hipfftResult hipfftEstimate3d(int nx, int ny, int nz, hipfftType type, size_t *workSize)
{
    (void)nx, (void)ny, (void)nz, (void)type;
    return zero(workSize);
}

HF_API hipfftResult hipfftEstimateMany(int rank, int *n, int *inembed, int istride, int idist,
                                       int *onembed, int ostride, int odist, hipfftType type,
                                       int batch, size_t *workSize)
{
    (void)rank, (void)n, (void)inembed, (void)istride, (void)idist, (void)onembed;
    (void)ostride, (void)odist, (void)type, (void)batch;
    return zero(workSize);
}

HF_API hipfftResult hipfftGetSize1d(hipfftHandle plan, int nx, hipfftType type, int batch,
                                    size_t *workSize)
{
    (void)nx, (void)type, (void)batch;
    return plan ? zero(workSize) : HIPFFT_INVALID_PLAN;
}

HF_API hipfftResult hipfftGetSize2d(hipfftHandle plan, int nx, int ny, hipfftType type,
                                    size_t *workSize)
{
    (void)nx, (void)ny, (void)type;
    return plan ? zero(workSize) : HIPFFT_INVALID_PLAN;
}

HF_API hipfftResult hipfftGetSize3d(hipfftHandle plan, int nx, int ny, int nz, hipfftType type,
                                    size_t *workSize)
{
    (void)nx, (void)ny, (void)nz, (void)type;
    return plan ? zero(workSize) : HIPFFT_INVALID_PLAN;
}

HF_API hipfftResult hipfftGetSizeMany(hipfftHandle plan, int rank, int *n, int *inembed,
                                      int istride, int idist, int *onembed, int ostride,
                                      int odist, hipfftType type, int batch, size_t *workArea)
{
    (void)rank, (void)n, (void)inembed, (void)istride, (void)idist, (void)onembed;
    (void)ostride, (void)odist, (void)type, (void)batch;
    return plan ? zero(workArea) : HIPFFT_INVALID_PLAN;
}

HF_API hipfftResult hipfftGetSizeMany64(hipfftHandle plan, int rank, long long int *n,
                                        long long int *inembed, long long int istride,
                                        long long int idist, long long int *onembed,
                                        long long int ostride, long long int odist,
                                        hipfftType type, long long int batch, size_t *workSize)
{
    (void)rank, (void)n, (void)inembed, (void)istride, (void)idist, (void)onembed;
    (void)ostride, (void)odist, (void)type, (void)batch;
    return plan ? zero(workSize) : HIPFFT_INVALID_PLAN;
}

HF_API hipfftResult hipfftGetSize(hipfftHandle plan, size_t *workSize)
{
    return plan ? zero(workSize) : HIPFFT_INVALID_PLAN;
}

HF_API hipfftResult hipfftSetAutoAllocation(hipfftHandle plan, int autoAllocate)
{
    if (!plan)
        return HIPFFT_INVALID_PLAN;
    plan->auto_alloc = autoAllocate;
    return HIPFFT_SUCCESS;
}

HF_API hipfftResult hipfftSetWorkArea(hipfftHandle plan, void *workArea)
{
    (void)workArea;
    return plan ? HIPFFT_SUCCESS : HIPFFT_INVALID_PLAN;
}

HF_API hipfftResult hipfftSetStream(hipfftHandle plan, hipStream_t stream)
{
    if (!plan)
        return HIPFFT_INVALID_PLAN;
    plan->stream = stream;
    return HIPFFT_SUCCESS;
}

HF_API hipfftResult hipfftGetVersion(int *version)
{
    if (!version)
        return HIPFFT_INVALID_VALUE;
    *version = hipfftVersionMajor * 10000 + hipfftVersionMinor * 100 + hipfftVersionPatch;
    return HIPFFT_SUCCESS;
}

HF_API hipfftResult hipfftGetProperty(hipfftLibraryPropertyType type, int *value)
{
    if (!value)
        return HIPFFT_INVALID_VALUE;
    switch (type) {
    case HIPFFT_MAJOR_VERSION: *value = hipfftVersionMajor; break;
    case HIPFFT_MINOR_VERSION: *value = hipfftVersionMinor; break;
    case HIPFFT_PATCH_LEVEL: *value = hipfftVersionPatch; break;
    default: return HIPFFT_INVALID_TYPE;
    }
    return HIPFFT_SUCCESS;
}

/* ---- execution ---------------------------------------------------------------------- */

static void *plan_for(hipfftHandle p, void *in, void *out, int sign)
{
    int inplace = in == out;
    int dbl = is_double(p->type);
    int ai = dbl ? fftw_alignment_of(in) : fftwf_alignment_of(in);
    int ao = dbl ? fftw_alignment_of(out) : fftwf_alignment_of(out);
    if (p->fftw && p->fftw_inplace == inplace && p->fftw_align_in == ai &&
        p->fftw_align_out == ao && p->fftw_sign == sign)
        return p->fftw;
    drop_fftw(p);
    const int *inem = p->has_inembed ? p->inembed : NULL;
    const int *onem = p->has_onembed ? p->onembed : NULL;
    unsigned flags = FFTW_ESTIMATE;
    void *f = NULL;
    pthread_mutex_lock(&planner_lock);
    switch (p->type) {
    case HIPFFT_C2C:
        f = fftwf_plan_many_dft(p->rank, p->n, p->batch, in, inem, p->istride, p->idist, out,
                                onem, p->ostride, p->odist, sign, flags);
        break;
    case HIPFFT_Z2Z:
        f = fftw_plan_many_dft(p->rank, p->n, p->batch, in, inem, p->istride, p->idist, out,
                               onem, p->ostride, p->odist, sign, flags);
        break;
    case HIPFFT_R2C:
        f = fftwf_plan_many_dft_r2c(p->rank, p->n, p->batch, in, inem, p->istride, p->idist,
                                    out, onem, p->ostride, p->odist, flags);
        break;
    case HIPFFT_D2Z:
        f = fftw_plan_many_dft_r2c(p->rank, p->n, p->batch, in, inem, p->istride, p->idist, out,
                                   onem, p->ostride, p->odist, flags);
        break;
    case HIPFFT_C2R:
        f = fftwf_plan_many_dft_c2r(p->rank, p->n, p->batch, in, inem, p->istride, p->idist,
                                    out, onem, p->ostride, p->odist, flags);
        break;
    case HIPFFT_Z2D:
        f = fftw_plan_many_dft_c2r(p->rank, p->n, p->batch, in, inem, p->istride, p->idist, out,
                                   onem, p->ostride, p->odist, flags);
        break;
    }
    pthread_mutex_unlock(&planner_lock);
    if (f) {
        p->fftw = f;
        p->fftw_inplace = inplace;
        p->fftw_align_in = ai;
        p->fftw_align_out = ao;
        p->fftw_sign = sign;
    }
    return f;
}

static hipfftResult exec(hipfftHandle p, hipfftType want, void *in, void *out, int sign)
{
    if (!p || !p->made)
        return HIPFFT_INVALID_PLAN;
    if (p->type != want)
        return HIPFFT_INVALID_TYPE;
    if (!in || !out)
        return HIPFFT_INVALID_VALUE;
    if (sign != HIPFFT_FORWARD && sign != HIPFFT_BACKWARD)
        return HIPFFT_INVALID_VALUE;
    /* the CPU device runs library calls on the calling thread, after the stream's work */
    if (hipStreamSynchronize(p->stream) != hipSuccess)
        return HIPFFT_EXEC_FAILED;
    void *f = plan_for(p, in, out, sign);
    if (!f)
        return HIPFFT_EXEC_FAILED;
    switch (want) {
    case HIPFFT_C2C: fftwf_execute_dft(f, in, out); break;
    case HIPFFT_Z2Z: fftw_execute_dft(f, in, out); break;
    case HIPFFT_R2C: fftwf_execute_dft_r2c(f, in, out); break;
    case HIPFFT_D2Z: fftw_execute_dft_r2c(f, in, out); break;
    case HIPFFT_C2R: fftwf_execute_dft_c2r(f, in, out); break;
    case HIPFFT_Z2D: fftw_execute_dft_c2r(f, in, out); break;
    }
    return HIPFFT_SUCCESS;
}

HF_API hipfftResult hipfftExecC2C(hipfftHandle plan, hipfftComplex *idata, hipfftComplex *odata,
                                  int direction)
{
    return exec(plan, HIPFFT_C2C, idata, odata, direction);
}

HF_API hipfftResult hipfftExecZ2Z(hipfftHandle plan, hipfftDoubleComplex *idata,
                                  hipfftDoubleComplex *odata, int direction)
{
    return exec(plan, HIPFFT_Z2Z, idata, odata, direction);
}

HF_API hipfftResult hipfftExecR2C(hipfftHandle plan, hipfftReal *idata, hipfftComplex *odata)
{
    return exec(plan, HIPFFT_R2C, idata, odata, HIPFFT_FORWARD);
}

HF_API hipfftResult hipfftExecD2Z(hipfftHandle plan, hipfftDoubleReal *idata,
                                  hipfftDoubleComplex *odata)
{
    return exec(plan, HIPFFT_D2Z, idata, odata, HIPFFT_FORWARD);
}

HF_API hipfftResult hipfftExecC2R(hipfftHandle plan, hipfftComplex *idata, hipfftReal *odata)
{
    return exec(plan, HIPFFT_C2R, idata, odata, HIPFFT_BACKWARD);
}

HF_API hipfftResult hipfftExecZ2D(hipfftHandle plan, hipfftDoubleComplex *idata,
                                  hipfftDoubleReal *odata)
{
    return exec(plan, HIPFFT_Z2D, idata, odata, HIPFFT_BACKWARD);
}
