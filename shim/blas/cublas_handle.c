/* cuBLAS handle state rocBLAS does not keep the same way: the math mode (recorded per
 * handle, TF32 passed on as rocBLAS's xf32 mode), the SM count target (a hint of how many
 * multiprocessors cuBLAS's kernels may plan for, recorded: rocBLAS sizes its grids
 * itself, so results cannot depend on it), the user workspace, and destruction, which
 * also forgets the recorded state. cublasHandle_t is the rocblas_handle itself. */
#include <cublas_v2.h>

#include "blas_internal.h"
#include "cublas_enums.h"

#define STATUS(st) ((cublasStatus_t)pyshim_cublasStatus_t_from_rocblas_status(st))

PYSHIM_EXPORT cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    rocblas_handle h = (rocblas_handle)handle;
    rocblas_math_mode current;
    rocblas_status st = rocblas_get_math_mode(h, &current);
    if (st != rocblas_status_success)
        return STATUS(st);
    unsigned base = (unsigned)mode & 0xfu, flags = (unsigned)mode & ~0xfu;
    if (base > CUBLAS_FP32_EMULATED_BF16X9_MATH ||
        (flags & ~(unsigned)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION))
        return CUBLAS_STATUS_INVALID_VALUE;
    rocblas_math_mode rmode =
        base == CUBLAS_TF32_TENSOR_OP_MATH ? rocblas_xf32_xdl_math_op : rocblas_default_math;
    st = rocblas_set_math_mode(h, rmode);
    if (st != rocblas_status_success)
        return STATUS(st);
    if (!pyshim_blas_handle_set(handle, PYSHIM_SLOT_CUBLAS_MATH, (int)mode))
        return CUBLAS_STATUS_ALLOC_FAILED;
    return CUBLAS_STATUS_SUCCESS;
}

PYSHIM_EXPORT cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    rocblas_math_mode current;
    rocblas_status st = rocblas_get_math_mode((rocblas_handle)handle, &current);
    if (st != rocblas_status_success)
        return STATUS(st);
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = (cublasMath_t)pyshim_blas_handle_get(handle, PYSHIM_SLOT_CUBLAS_MATH,
                                                 CUBLAS_DEFAULT_MATH);
    return CUBLAS_STATUS_SUCCESS;
}

PYSHIM_EXPORT cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int smCountTarget)
{
    rocblas_math_mode current;  /* rocBLAS's answer says whether the handle is one */
    rocblas_status st = rocblas_get_math_mode((rocblas_handle)handle, &current);
    if (st != rocblas_status_success)
        return STATUS(st);
    if (smCountTarget < 0)  /* 0 restores the default: the device's count */
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!pyshim_blas_handle_set(handle, PYSHIM_SLOT_CUBLAS_SM_COUNT, smCountTarget))
        return CUBLAS_STATUS_ALLOC_FAILED;
    return CUBLAS_STATUS_SUCCESS;
}

PYSHIM_EXPORT cublasStatus_t cublasGetSmCountTarget(cublasHandle_t handle, int *smCountTarget)
{
    rocblas_math_mode current;
    rocblas_status st = rocblas_get_math_mode((rocblas_handle)handle, &current);
    if (st != rocblas_status_success)
        return STATUS(st);
    if (!smCountTarget)
        return CUBLAS_STATUS_INVALID_VALUE;
    *smCountTarget = pyshim_blas_handle_get(handle, PYSHIM_SLOT_CUBLAS_SM_COUNT, 0);
    return CUBLAS_STATUS_SUCCESS;
}

PYSHIM_EXPORT cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace,
                                                   size_t size)
{
    if (size != 0 && workspace == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    return STATUS(rocblas_set_workspace((rocblas_handle)handle, workspace, size));
}

PYSHIM_EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    rocblas_status st = rocblas_destroy_handle((rocblas_handle)handle);
    if (st == rocblas_status_success)
        pyshim_blas_handle_forget(handle);
    return STATUS(st);
}
