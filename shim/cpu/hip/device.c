/*
 * The devices: their configuration (PYSHIM_CPU_DEVICES, PYSHIM_CPU_WAVE,
 * PYSHIM_CPU_WORKERS), properties, attributes, versions, device selection and peer access.
 * Attributes are read from the same hipDeviceProp_tR0600 that hipGetDevicePropertiesR0600
 * returns, so the two never disagree. Every device is the same host: they differ in their
 * ordinal, name, UUID and PCI bus id, which is what multi-GPU programs tell them apart by.
 */
#include <hip/hip_version.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static cpu_device devices[CPU_MAX_DEVICES];
static int num_devices = 1;
static pthread_once_t device_once = PTHREAD_ONCE_INIT;
static _Thread_local int current_device = 0;
/* peer_enabled[d][p]: device d's context may access device p's memory (hipDeviceEnablePeerAccess) */
static bool peer_enabled[CPU_MAX_DEVICES][CPU_MAX_DEVICES];
static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned device_flags = 0;
static size_t limit_stack = 1024, limit_printf_fifo = 1u << 20, limit_heap = 8u << 20;

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return fallback;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end != '\0' || n <= 0 || n > 4096) {
        cpu_log("ignoring %s=%s (expected a positive integer)", name, v);
        return fallback;
    }
    return (int)n;
}

/* The cores this process may run on (its affinity mask, which containers narrow), not
 * the cores the machine has. */
static int usable_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void fill_props(cpu_device *d, int ordinal)
{
    hipDeviceProp_tR0600 *p = &d->props;
    memset(p, 0, sizeof *p);
    bool wave64 = d->wave == 64;
    /* With several devices each name carries its ordinal: tools that list devices by name
     * (and people reading their logs) can tell them apart. */
    char suffix[16] = "";
    if (num_devices > 1)
        snprintf(suffix, sizeof suffix, " #%d", ordinal);
    snprintf(p->name, sizeof p->name, "pyshim CPU device (%s wave%d)%s",
             wave64 ? "gfx942-like" : "gfx1100-like", d->wave, suffix);
    snprintf(p->gcnArchName, sizeof p->gcnArchName, "%s",
             wave64 ? "gfx942:sramecc+:xnack-" : "gfx1100");
    /* A fixed UUID per ordinal: tools compare it across processes (IPC, NCCL). */
    static const char digits[] = "0123456789abcdefghijklmnopqrstuv";
    char uuid[17];
    snprintf(uuid, sizeof uuid, "pyshim-cpu-w%d-%c", d->wave, digits[ordinal]);
    memcpy(p->uuid.bytes, uuid, 16);
    p->totalGlobalMem = d->total_mem;
    p->sharedMemPerBlock = CPU_MAX_SHARED;
    p->regsPerBlock = 65536;
    p->warpSize = d->wave;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = CPU_MAX_THREADS;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsDim[2] = CPU_MAX_THREADS;
    p->maxThreadsDim[2] = CPU_MAX_THREADS;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = 65536;
    p->maxGridSize[2] = 65536;
    /* The rate kernels' %clock64 really counts at, so cycle-counting waits last as long
     * as the program computed from this rate. */
    p->clockRate = cpu_counter_khz(wave64 ? 2100000 : 2500000);   /* kHz */
    p->totalConstMem = 2147483647;
    p->major = wave64 ? 9 : 11;
    p->minor = wave64 ? 4 : 0;
    p->textureAlignment = CPU_ALIGN;
    p->texturePitchAlignment = CPU_ALIGN;
    p->deviceOverlap = 1;
    p->multiProcessorCount = d->workers;
    p->kernelExecTimeoutEnabled = 0;
    p->integrated = 1;                /* device memory is host memory */
    p->canMapHostMemory = 1;
    p->computeMode = 0;               /* hipComputeModeDefault */
    p->maxTexture1D = 16384;
    p->maxTexture1DMipmap = 16384;
    p->maxTexture1DLinear = 134217728;
    p->maxTexture2D[0] = p->maxTexture2D[1] = 16384;
    p->maxTexture2DMipmap[0] = p->maxTexture2DMipmap[1] = 16384;
    p->maxTexture2DLinear[0] = p->maxTexture2DLinear[1] = 16384;
    p->maxTexture2DLinear[2] = 1048576;
    p->maxTexture2DGather[0] = p->maxTexture2DGather[1] = 16384;
    p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
    p->maxTexture3DAlt[0] = p->maxTexture3DAlt[1] = p->maxTexture3DAlt[2] = 16384;
    p->maxTextureCubemap = 16384;
    p->maxTexture1DLayered[0] = 16384;
    p->maxTexture1DLayered[1] = 2048;
    p->maxTexture2DLayered[0] = p->maxTexture2DLayered[1] = 16384;
    p->maxTexture2DLayered[2] = 2048;
    p->maxTextureCubemapLayered[0] = 16384;
    p->maxTextureCubemapLayered[1] = 2046;
    p->maxSurface1D = 16384;
    p->maxSurface2D[0] = p->maxSurface2D[1] = 16384;
    p->maxSurface3D[0] = p->maxSurface3D[1] = p->maxSurface3D[2] = 16384;
    p->maxSurface1DLayered[0] = 16384;
    p->maxSurface1DLayered[1] = 2048;
    p->maxSurface2DLayered[0] = p->maxSurface2DLayered[1] = 16384;
    p->maxSurface2DLayered[2] = 2048;
    p->maxSurfaceCubemap = 16384;
    p->maxSurfaceCubemapLayered[0] = 16384;
    p->maxSurfaceCubemapLayered[1] = 2046;
    p->surfaceAlignment = CPU_ALIGN;
    p->concurrentKernels = 1;
    p->ECCEnabled = 0;
    p->pciBusID = 0xc1 + ordinal;
    p->pciDeviceID = 0;
    p->pciDomainID = 0;
    p->tccDriver = 0;
    p->asyncEngineCount = 1;
    p->unifiedAddressing = 1;
    p->memoryClockRate = 1300000;     /* kHz */
    p->memoryBusWidth = wave64 ? 8192 : 384;
    p->l2CacheSize = wave64 ? 4 << 20 : 6 << 20;
    p->persistingL2CacheMaxSize = 0;
    p->maxThreadsPerMultiProcessor = 2048;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = CPU_MAX_SHARED;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->isMultiGpuBoard = num_devices > 1;
    p->multiGpuBoardGroupID = 0;
    p->hostNativeAtomicSupported = 1;
    p->singleToDoublePrecisionPerfRatio = wave64 ? 1 : 32;
    p->pageableMemoryAccess = 1;      /* the device reads any host pointer */
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 0;
    p->canUseHostPointerForRegisteredMem = 1;
    p->cooperativeLaunch = 1;   /* every block a thread of its own (grid.c) */
    p->cooperativeMultiDeviceLaunch = 0;
    p->sharedMemPerBlockOptin = CPU_MAX_SHARED;
    p->pageableMemoryAccessUsesHostPageTables = 1;
    p->directManagedMemAccessFromHost = 1;
    p->maxBlocksPerMultiProcessor = 32;
    p->accessPolicyMaxWindowSize = 0;
    p->reservedSharedMemPerBlock = 0;
    p->hostRegisterSupported = 1;
    p->sparseHipArraySupported = 0;
    p->hostRegisterReadOnlySupported = 1;
    p->timelineSemaphoreInteropSupported = 0;
    p->memoryPoolsSupported = 1;   /* mempool.c */
    p->gpuDirectRDMASupported = 0;
    p->ipcEventSupported = 1;   /* ipc.c */
    p->clusterLaunch = 1;   /* grid.c runs a cluster's blocks together (run_clusters) */
    p->unifiedFunctionPointers = 0;
    p->maxSharedMemoryPerMultiProcessor = CPU_MAX_SHARED;
    p->clockInstructionRate = p->clockRate;   /* kHz: what clock64() counts at */
    p->arch.hasGlobalInt32Atomics = 1;
    p->arch.hasGlobalFloatAtomicExch = 1;
    p->arch.hasSharedInt32Atomics = 1;
    p->arch.hasSharedFloatAtomicExch = 1;
    p->arch.hasFloatAtomicAdd = 1;
    p->arch.hasGlobalInt64Atomics = 1;
    p->arch.hasSharedInt64Atomics = 1;
    p->arch.hasDoubles = 1;
    p->arch.hasWarpVote = 1;
    p->arch.hasWarpBallot = 1;
    p->arch.hasWarpShuffle = 1;
    p->arch.hasFunnelShift = 1;
    p->arch.hasThreadFenceSystem = 1;
    p->arch.hasSyncThreadsExt = 1;
    p->arch.has3dGrid = 1;
    p->isLargeBar = 1;
    p->asicRevision = 0;
}

static void init_device(void)
{
    cpu_device device;
    memset(&device, 0, sizeof device);
    const char *wave = getenv("PYSHIM_CPU_WAVE");
    device.wave = 64;
    if (wave != NULL && *wave != '\0') {
        if (strcmp(wave, "32") == 0)
            device.wave = 32;
        else if (strcmp(wave, "64") != 0)
            cpu_log("ignoring PYSHIM_CPU_WAVE=%s (expected 64 or 32)", wave);
    }
    device.workers = env_int("PYSHIM_CPU_WORKERS", usable_cores());
    num_devices = env_int("PYSHIM_CPU_DEVICES", 1);
    if (num_devices > CPU_MAX_DEVICES) {
        cpu_log("PYSHIM_CPU_DEVICES=%d is more than %d: presenting %d", num_devices,
                CPU_MAX_DEVICES, CPU_MAX_DEVICES);
        num_devices = CPU_MAX_DEVICES;
    }
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    device.total_mem = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : (size_t)8 << 30;
    /* each device owns a share of the host's memory: programs that fill every device's
     * memory (caching allocators sized from totalGlobalMem) then fit together */
    device.total_mem = device.total_mem / (size_t)num_devices / CPU_ALIGN * CPU_ALIGN;
    for (int i = 0; i < num_devices; i++) {
        devices[i] = device;
        fill_props(&devices[i], i);
    }
}

const cpu_device *cpu_dev(void)
{
    return cpu_dev_at(current_device);
}

const cpu_device *cpu_dev_at(int ordinal)
{
    pthread_once(&device_once, init_device);
    return &devices[ordinal >= 0 && ordinal < num_devices ? ordinal : 0];
}

int cpu_device_count(void)
{
    pthread_once(&device_once, init_device);
    return num_devices;
}

int cpu_current_device(void)
{
    return current_device;
}

int cpu_check_device(int dev)
{
    return dev < 0 || dev >= cpu_device_count();
}

bool cpu_peer_enabled(int dev, int peer)
{
    if (dev == peer)
        return true;
    pthread_mutex_lock(&peer_lock);
    bool on = peer_enabled[dev][peer];
    pthread_mutex_unlock(&peer_lock);
    return on;
}

hipError_t hipInit(unsigned int flags)
{
    if (flags != 0)
        return cpu_ret(hipErrorInvalidValue);
    cpu_dev();
    return hipSuccess;
}

hipError_t hipDriverGetVersion(int *driverVersion)
{
    if (driverVersion == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *driverVersion = HIP_VERSION;
    return hipSuccess;
}

hipError_t hipRuntimeGetVersion(int *runtimeVersion)
{
    if (runtimeVersion == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *runtimeVersion = HIP_VERSION;
    return hipSuccess;
}

hipError_t hipGetDeviceCount(int *count)
{
    if (count == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *count = cpu_device_count();
    return hipSuccess;
}

hipError_t hipSetDevice(int deviceId)
{
    if (cpu_check_device(deviceId))
        return cpu_ret(hipErrorInvalidDevice);
    current_device = deviceId;
    return hipSuccess;
}

hipError_t hipGetDevice(int *deviceId)
{
    if (deviceId == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *deviceId = current_device;
    return hipSuccess;
}

hipError_t hipDeviceGet(hipDevice_t *dev, int ordinal)
{
    if (dev == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(ordinal))
        return cpu_ret(hipErrorInvalidDevice);
    *dev = ordinal;
    return hipSuccess;
}

hipError_t hipSetDeviceFlags(unsigned flags)
{
    if (flags & ~(unsigned)(hipDeviceScheduleMask | hipDeviceMapHost | hipDeviceLmemResizeToMax))
        return cpu_ret(hipErrorInvalidValue);
    device_flags = flags;
    return hipSuccess;
}

hipError_t hipGetDeviceFlags(unsigned int *flags)
{
    if (flags == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *flags = device_flags;
    return hipSuccess;
}

hipError_t hipDeviceGetName(char *name, int len, hipDevice_t dev)
{
    if (name == NULL || len <= 0)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    snprintf(name, (size_t)len, "%s", cpu_dev_at(dev)->props.name);
    return hipSuccess;
}

hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t dev)
{
    if (bytes == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    *bytes = cpu_dev_at(dev)->total_mem;
    return hipSuccess;
}

hipError_t hipDeviceComputeCapability(int *major, int *minor, hipDevice_t dev)
{
    if (major == NULL || minor == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    *major = cpu_dev_at(dev)->props.major;
    *minor = cpu_dev_at(dev)->props.minor;
    return hipSuccess;
}

hipError_t hipDeviceGetUuid(hipUUID *uuid, hipDevice_t dev)
{
    if (uuid == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    *uuid = cpu_dev_at(dev)->props.uuid;
    return hipSuccess;
}

hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int dev)
{
    if (pciBusId == NULL || len <= 0)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    const hipDeviceProp_tR0600 *p = &cpu_dev_at(dev)->props;
    snprintf(pciBusId, (size_t)len, "%04x:%02x:%02x.0", (unsigned)p->pciDomainID,
             (unsigned)p->pciBusID, (unsigned)p->pciDeviceID);
    return hipSuccess;
}

hipError_t hipDeviceGetByPCIBusId(int *dev, const char *pciBusId)
{
    if (dev == NULL || pciBusId == NULL)
        return cpu_ret(hipErrorInvalidValue);
    for (int i = 0; i < cpu_device_count(); i++) {
        char ours[32];
        hipDeviceGetPCIBusId(ours, sizeof ours, i);
        /* The domain is optional in a bus id ("c1:00.0"). */
        if (strcasecmp(pciBusId, ours) == 0 || strcasecmp(pciBusId, ours + 5) == 0) {
            *dev = i;
            return hipSuccess;
        }
    }
    return cpu_ret(hipErrorInvalidDevice);
}

hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600 *prop, int deviceId)
{
    if (prop == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(deviceId))
        return cpu_ret(hipErrorInvalidDevice);
    *prop = cpu_dev_at(deviceId)->props;
    return hipSuccess;
}

hipError_t hipChooseDeviceR0600(int *dev, const hipDeviceProp_tR0600 *prop)
{
    if (dev == NULL || prop == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *dev = current_device;   /* every device has the same properties */
    return hipSuccess;
}

hipError_t hipDeviceCanAccessPeer(int *canAccessPeer, int deviceId, int peerDeviceId)
{
    if (canAccessPeer == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(deviceId) || cpu_check_device(peerDeviceId))
        return cpu_ret(hipErrorInvalidDevice);
    /* one host memory: every device reaches every other; a device is not its own peer */
    *canAccessPeer = deviceId != peerDeviceId;
    return hipSuccess;
}

hipError_t hipDeviceGetLimit(size_t *pValue, enum hipLimit_t limit)
{
    if (pValue == NULL)
        return cpu_ret(hipErrorInvalidValue);
    switch (limit) {
    case hipLimitStackSize: *pValue = limit_stack; return hipSuccess;
    case hipLimitPrintfFifoSize: *pValue = limit_printf_fifo; return hipSuccess;
    case hipLimitMallocHeapSize: *pValue = limit_heap; return hipSuccess;
    default: return cpu_ret(hipErrorUnsupportedLimit);
    }
}

hipError_t hipDeviceSetLimit(enum hipLimit_t limit, size_t value)
{
    switch (limit) {
    case hipLimitStackSize: limit_stack = value; return hipSuccess;
    case hipLimitPrintfFifoSize: limit_printf_fifo = value; return hipSuccess;
    case hipLimitMallocHeapSize: limit_heap = value; return hipSuccess;
    default: return cpu_ret(hipErrorUnsupportedLimit);
    }
}

hipError_t hipDeviceSetCacheConfig(hipFuncCache_t cacheConfig)
{
    (void)cacheConfig;
    return hipSuccess;
}

hipError_t hipDeviceGetCacheConfig(hipFuncCache_t *cacheConfig)
{
    if (cacheConfig == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *cacheConfig = hipFuncCachePreferNone;
    return hipSuccess;
}

hipError_t hipDeviceSynchronize(void)
{
    return cpu_ret(cpu_current_device_wait_idle());
}

hipError_t hipDeviceReset(void)
{
    if (cpu_device_wait_idle() == hipErrorNotSupported)
        return cpu_ret(hipErrorNotSupported);
    cpu_graph_mem_reset();
    cpu_vmm_reset();
    cpu_mem_reset();
    cpu_pool_reset();
    cpu_clear_sticky_error();
    pthread_mutex_lock(&peer_lock);
    for (int p = 0; p < CPU_MAX_DEVICES; p++)
        peer_enabled[current_device][p] = false;
    pthread_mutex_unlock(&peer_lock);
    return hipSuccess;
}

/* Peer access is bookkeeping (every device's memory is the same host memory), kept so
 * programs see CUDA's answers: enabling twice, disabling what is not enabled, the device
 * itself. */
hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags)
{
    int dev = current_device;
    if (cpu_check_device(peerDeviceId) || peerDeviceId == dev)
        return cpu_ret(hipErrorInvalidDevice);
    if (flags != 0)
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&peer_lock);
    bool was = peer_enabled[dev][peerDeviceId];
    peer_enabled[dev][peerDeviceId] = true;
    pthread_mutex_unlock(&peer_lock);
    return was ? cpu_ret(hipErrorPeerAccessAlreadyEnabled) : hipSuccess;
}

hipError_t hipDeviceDisablePeerAccess(int peerDeviceId)
{
    int dev = current_device;
    if (cpu_check_device(peerDeviceId))
        return cpu_ret(hipErrorInvalidDevice);
    pthread_mutex_lock(&peer_lock);
    bool was = peerDeviceId != dev && peer_enabled[dev][peerDeviceId];
    if (was)
        peer_enabled[dev][peerDeviceId] = false;
    pthread_mutex_unlock(&peer_lock);
    return was ? hipSuccess : cpu_ret(hipErrorPeerAccessNotEnabled);
}

hipError_t hipDeviceGetP2PAttribute(int *value, hipDeviceP2PAttr attr, int srcDevice,
                                    int dstDevice)
{
    if (value == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(srcDevice) || cpu_check_device(dstDevice) || srcDevice == dstDevice)
        return cpu_ret(hipErrorInvalidDevice);
    switch (attr) {
    case hipDevP2PAttrPerformanceRank: *value = 0; return hipSuccess;   /* all links alike */
    case hipDevP2PAttrAccessSupported: *value = 1; return hipSuccess;
    case hipDevP2PAttrNativeAtomicSupported: *value = 1; return hipSuccess;  /* host atomics */
    case hipDevP2PAttrHipArrayAccessSupported: *value = 0; return hipSuccess;  /* no arrays */
    default: return cpu_ret(hipErrorInvalidValue);
    }
}

hipError_t hipDeviceGetSharedMemConfig(hipSharedMemConfig *pConfig)
{
    if (pConfig == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *pConfig = hipSharedMemBankSizeFourByte;
    return hipSuccess;
}

hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig config)
{
    if (config < hipSharedMemBankSizeDefault || config > hipSharedMemBankSizeEightByte)
        return cpu_ret(hipErrorInvalidValue);
    return hipSuccess;
}

hipError_t hipProfilerStart(void)
{
    return hipSuccess;
}

hipError_t hipProfilerStop(void)
{
    return hipSuccess;
}

/* The CPU device's 1D linear texture limit counts elements whatever their size (texture
 * fetches index a host buffer), so every valid format gets maxTexture1DLinear. A descriptor
 * no texture can have is refused as NVIDIA's runtime refuses it (invalid channel
 * descriptor). */
hipError_t hipDeviceGetTexture1DLinearMaxWidth(size_t *max_width, const hipChannelFormatDesc *desc,
                                               int device)
{
    if (max_width == NULL || desc == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(device))
        return cpu_ret(hipErrorInvalidDevice);
    const int bits[4] = {desc->x, desc->y, desc->z, desc->w};
    int channels = 0;
    for (int i = 0; i < 4; i++) {
        if (bits[i] == 0)
            break;
        if (bits[i] != 8 && bits[i] != 16 && bits[i] != 32)
            return cpu_ret(hipErrorInvalidChannelDescriptor);
        if (bits[i] != bits[0])
            return cpu_ret(hipErrorInvalidChannelDescriptor);   /* channels share one width */
        channels++;
    }
    for (int i = channels; i < 4; i++)
        if (bits[i] != 0)
            return cpu_ret(hipErrorInvalidChannelDescriptor);
    if (channels == 0 || channels == 3)
        return cpu_ret(hipErrorInvalidChannelDescriptor);
    if (desc->f == hipChannelFormatKindFloat ? bits[0] == 8
        : desc->f != hipChannelFormatKindSigned && desc->f != hipChannelFormatKindUnsigned)
        return cpu_ret(hipErrorInvalidChannelDescriptor);
    *max_width = (size_t)cpu_dev_at(device)->props.maxTexture1DLinear;
    return hipSuccess;
}
