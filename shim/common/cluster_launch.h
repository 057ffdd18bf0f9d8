/*
 * Thread-block clusters between libcuda/libcudart and the CPU device. ROCm 7's
 * hipLaunchAttributeID has no cluster dimension; the CPU device's hipDrvLaunchKernelEx takes
 * CUDA's number for it (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, which HIP's enum leaves
 * unused), with the dimensions as the value's first three unsigned ints. Only a backend that
 * reports clusterLaunch gets it (ROCm would refuse the unknown attribute).
 */
#ifndef PYSHIM_COMMON_CLUSTER_LAUNCH_H
#define PYSHIM_COMMON_CLUSTER_LAUNCH_H

#define PYSHIM_HIP_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION 4
/* The CPU device's hipFuncGetAttribute also answers CUDA's numbers for a kernel's cluster
 * attributes (CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, REQUIRED_CLUSTER_WIDTH, _HEIGHT,
 * _DEPTH), past HIP_FUNC_ATTRIBUTE_MAX: what .explicitcluster / .reqnctapercluster say. */
#define PYSHIM_HIP_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET 10
#define PYSHIM_HIP_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH 11
#define PYSHIM_HIP_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH 13
/* CUDA's portable cluster size: the most blocks a cluster may have */
#define PYSHIM_MAX_PORTABLE_CLUSTER 8u

#endif
