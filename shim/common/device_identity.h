/*
 * The NVIDIA device CUDA programs see, whatever the backend (an MI300, an RDNA card, the
 * CPU device): a real compute capability (PYSHIM_DEVICE_CC, else the default of
 * device_identity.inc), 32-lane warps (wave64 emulates them) and the architectural limits
 * of that capability. libcuda's cuDeviceGetAttribute and libcudart's
 * cudaGetDeviceProperties / cudaDeviceGetAttribute pass every backend number through
 * pyshim_identity_value, so HIP's own numbers (gfx942's "9.4", warpSize 64) never reach a
 * program unconverted. Physical quantities (SM count, clocks, memory, L2) stay the
 * backend's: they describe the hardware that really runs the kernels.
 */
#ifndef PYSHIM_COMMON_DEVICE_IDENTITY_H
#define PYSHIM_COMMON_DEVICE_IDENTITY_H

#include "visibility.h"

/* CUDA's attribute numbers: CUdevice_attribute and cudaDeviceAttr share them (each
 * library checks the ones it uses against its header). */
enum pyshim_identity_attr {
    PYSHIM_ATTR_MAX_THREADS_PER_BLOCK = 1,
    PYSHIM_ATTR_MAX_BLOCK_DIM_X = 2,
    PYSHIM_ATTR_MAX_BLOCK_DIM_Y = 3,
    PYSHIM_ATTR_MAX_BLOCK_DIM_Z = 4,
    PYSHIM_ATTR_MAX_GRID_DIM_X = 5,
    PYSHIM_ATTR_MAX_GRID_DIM_Y = 6,
    PYSHIM_ATTR_MAX_GRID_DIM_Z = 7,
    PYSHIM_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    PYSHIM_ATTR_TOTAL_CONSTANT_MEMORY = 9,
    PYSHIM_ATTR_WARP_SIZE = 10,
    PYSHIM_ATTR_MAX_REGISTERS_PER_BLOCK = 12,
    PYSHIM_ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    PYSHIM_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
    PYSHIM_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
    PYSHIM_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
    PYSHIM_ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
    PYSHIM_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    PYSHIM_ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
    PYSHIM_ATTR_CLUSTER_LAUNCH = 120,
};

/* What CUDA reports for `attr` given the backend's value of the same attribute: the
 * identity's own value (compute capability, warp size), or the identity's limit capped by
 * what the backend can really do (shared memory, threads, grid); any other attribute is
 * returned unchanged. */
PYSHIM_COMMON_HIDDEN long long pyshim_identity_value(int attr, long long backend);
/* The compute capability presented, e.g. 86 for 8.6. */
PYSHIM_COMMON_HIDDEN int pyshim_identity_cc(void);

#endif
