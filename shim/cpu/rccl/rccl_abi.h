/*
 * RCCL's C ABI (rccl/rccl.h of ROCm 7.2), which the CPU device's librccl.so.1 defines.
 *
 * No pinned registry ships rccl.h, so its facts are taken from hip-python 7.2.2's
 * hip/crccl.pxd (the pinned "hip-python" source of pyshim/tables/sources.py: RCCL's
 * declarations, member order and layout). RCCL keeps NCCL's API; its enums keep NCCL's
 * values (declaration order from 0), its config is NCCL 2.27's ncclConfig_v22700.
 */
#ifndef PYSHIM_CPU_RCCL_ABI_H
#define PYSHIM_CPU_RCCL_ABI_H

#include <stddef.h>
#include <hip/hip_runtime_api.h>

#define RCCL_MAJOR 2
#define RCCL_MINOR 27
#define RCCL_PATCH 7
#define RCCL_VERSION_CODE (RCCL_MAJOR * 10000 + RCCL_MINOR * 100 + RCCL_PATCH)
#define RCCL_UNIQUE_ID_BYTES 128
#define RCCL_API_MAGIC 0xcafebeefu
#define RCCL_CONFIG_UNDEF_INT (-2147483647 - 1)

typedef struct ncclComm *ncclComm_t;
typedef struct { char internal[RCCL_UNIQUE_ID_BYTES]; } ncclUniqueId;

typedef enum {
    ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2, ncclInternalError = 3,
    ncclInvalidArgument = 4, ncclInvalidUsage = 5, ncclRemoteError = 6, ncclInProgress = 7,
    ncclNumResults = 8
} ncclResult_t;

typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4,
               ncclNumOps = 5, ncclMaxRedOp = 0x7fffffff } ncclRedOp_t;

typedef enum {
    ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2, ncclUint32 = 3, ncclInt64 = 4, ncclUint64 = 5,
    ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8, ncclBfloat16 = 9, ncclFloat8e4m3 = 10,
    ncclFloat8e5m2 = 11, ncclNumTypes = 12
} ncclDataType_t;

typedef enum { ncclScalarDevice = 0, ncclScalarHostImmediate = 1 } ncclScalarResidence_t;

typedef struct ncclConfig_v22700 {
    size_t size;
    unsigned int magic;
    unsigned int version;
    int blocking;
    int cgaClusterSize;
    int minCTAs;
    int maxCTAs;
    const char *netName;
    int splitShare;
    int trafficClass;
    const char *commName;
    int collnetEnable;
    int CTAPolicy;
    int shrinkShare;
    int nvlsCTAs;
} ncclConfig_t;

#endif
