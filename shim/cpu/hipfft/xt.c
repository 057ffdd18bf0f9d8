/*
 * hipFFT's extended planner (hipfftXt.h) on the CPU device: the float and double
 * transforms it can describe map onto the plain plan types; half precision (FFTW has
 * none) and multi-GPU descriptors are refused with HIPFFT_NOT_SUPPORTED.
 *
 * hipfftXt.h includes <cstddef> and so does not compile as C: the two entry points are
 * declared here as the header declares them.
 */
#include <stddef.h>

#include <hipfft/hipfft.h>

#include "plan_internal.h"

#define HF_API __attribute__((visibility("default")))

HF_API hipfftResult hipfftXtMakePlanMany(hipfftHandle plan, int rank, long long int *n,
                                         long long int *inembed, long long int istride,
                                         long long int idist, hipDataType inputType,
                                         long long int *onembed, long long int ostride,
                                         long long int odist, hipDataType outputType,
                                         long long int batch, size_t *workSize,
                                         hipDataType executionType);
HF_API hipfftResult hipfftXtExec(hipfftHandle plan, void *input, void *output, int direction);

/* the plain transform type of an (input, output, execution) triple, or 0 */
static hipfftType xt_type(hipDataType in, hipDataType out, hipDataType exec)
{
    if (in == HIP_C_32F && out == HIP_C_32F && exec == HIP_C_32F)
        return HIPFFT_C2C;
    if (in == HIP_C_64F && out == HIP_C_64F && exec == HIP_C_64F)
        return HIPFFT_Z2Z;
    if (in == HIP_R_32F && out == HIP_C_32F && exec == HIP_C_32F)
        return HIPFFT_R2C;
    if (in == HIP_R_64F && out == HIP_C_64F && exec == HIP_C_64F)
        return HIPFFT_D2Z;
    if (in == HIP_C_32F && out == HIP_R_32F && exec == HIP_C_32F)
        return HIPFFT_C2R;
    if (in == HIP_C_64F && out == HIP_R_64F && exec == HIP_C_64F)
        return HIPFFT_Z2D;
    return (hipfftType)0;
}

HF_API hipfftResult hipfftXtMakePlanMany(hipfftHandle plan, int rank, long long int *n,
                                         long long int *inembed, long long int istride,
                                         long long int idist, hipDataType inputType,
                                         long long int *onembed, long long int ostride,
                                         long long int odist, hipDataType outputType,
                                         long long int batch, size_t *workSize,
                                         hipDataType executionType)
{
    hipfftType t = xt_type(inputType, outputType, executionType);
    if (!t)
        return HIPFFT_NOT_SUPPORTED;
    return hipfftMakePlanMany64(plan, rank, n, inembed, istride, idist, onembed, ostride, odist,
                                t, batch, workSize);
}

HF_API hipfftResult hipfftXtExec(hipfftHandle plan, void *input, void *output, int direction)
{
    hipfftType t = pyshim_hipfft_plan_type(plan);
    if (!t)
        return HIPFFT_INVALID_PLAN;
    return pyshim_hipfft_exec(plan, t, input, output, direction);
}

HF_API hipfftResult hipfftXtGetSizeMany(hipfftHandle plan, int rank, long long int *n,
                                        long long int *inembed, long long int istride,
                                        long long int idist, hipDataType inputType,
                                        long long int *onembed, long long int ostride,
                                        long long int odist, hipDataType outputType,
                                        long long int batch, size_t *workSize,
                                        hipDataType executionType);

HF_API hipfftResult hipfftXtGetSizeMany(hipfftHandle plan, int rank, long long int *n,
                                        long long int *inembed, long long int istride,
                                        long long int idist, hipDataType inputType,
                                        long long int *onembed, long long int ostride,
                                        long long int odist, hipDataType outputType,
                                        long long int batch, size_t *workSize,
                                        hipDataType executionType)
{
    if (!xt_type(inputType, outputType, executionType))
        return HIPFFT_NOT_SUPPORTED;
    return hipfftGetSizeMany64(plan, rank, n, inembed, istride, idist, onembed, ostride, odist,
                               xt_type(inputType, outputType, executionType), batch, workSize);
}
