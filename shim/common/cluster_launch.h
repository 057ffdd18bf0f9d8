/*
 * Thread-block clusters between libcuda/libcudart and the CPU device. ROCm 7's HIP has no
 * cluster launch attribute and no cluster function attributes; the CPU device takes them
 * under private numbers: PYSHIM_HIP_CUDA_NUMBER(CUDA's number), far above every number HIP's
 * enumerations use (so HIP_FUNC_ATTRIBUTE_MAX and unknown ids stay invalid values). Only a
 * backend that reports clusterLaunch is given them (ROCm would refuse them).
 */
#ifndef PYSHIM_COMMON_CLUSTER_LAUNCH_H
#define PYSHIM_COMMON_CLUSTER_LAUNCH_H

#define PYSHIM_HIP_CUDA_NUMBER(n) (0x50530000 + (n))

/* hipDrvLaunchKernelEx: CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (4), the dimensions as the
 * value's first three unsigned ints */
#define PYSHIM_HIP_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION PYSHIM_HIP_CUDA_NUMBER(4)
/* hipFuncGetAttribute: CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET (10, .explicitcluster),
 * REQUIRED_CLUSTER_WIDTH, _HEIGHT, _DEPTH (11 to 13, .reqnctapercluster) */
#define PYSHIM_HIP_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET PYSHIM_HIP_CUDA_NUMBER(10)
#define PYSHIM_HIP_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH PYSHIM_HIP_CUDA_NUMBER(11)
#define PYSHIM_HIP_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH PYSHIM_HIP_CUDA_NUMBER(13)
/* hipFuncGetAttribute / hipFuncSetAttribute: CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
 * (14): clusters of up to PYSHIM_MAX_NONPORTABLE_CLUSTER blocks for this kernel */
#define PYSHIM_HIP_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED PYSHIM_HIP_CUDA_NUMBER(14)
/* CUDA's portable cluster size: the most blocks a cluster may have; with the non-portable
 * attribute set, the CPU device allows H100's 16 */
#define PYSHIM_MAX_PORTABLE_CLUSTER 8u
#define PYSHIM_MAX_NONPORTABLE_CLUSTER 16u

#endif
