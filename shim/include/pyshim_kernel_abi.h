/*
 * The ABI between a module of translated kernels compiled for the CPU device (a native
 * shared object produced by pyshim's `cpu` PTX target) and the CPU device runtime that
 * loads it (hipModuleLoad / hipModuleLoadData on shim/cpu's libamdhip64.so.7).
 *
 * The module exports one symbol, `pyshim_module` (a pyshim_module_desc). The runtime runs
 * a launch by calling a kernel's `run_block` once per block, from its worker threads, in
 * any order and in parallel; a block function runs every thread of its block (loops over
 * threads, split at barriers, or fibers), so the runtime never sees threads.
 *
 * Changing anything here: bump PYSHIM_KABI_VERSION (modules carry it; the runtime refuses
 * a module built for another version, and the kernel cache keys on the translator version).
 */
#ifndef PYSHIM_KERNEL_ABI_H
#define PYSHIM_KERNEL_ABI_H

#include <stddef.h>
#include <stdint.h>

#define PYSHIM_KABI_VERSION 3u

typedef struct pyshim_dim3 {
    uint32_t x, y, z;
} pyshim_dim3;

struct pyshim_launch;
struct pyshim_block;

/* Version 3: the device runtime of dynamic parallelism, the `__cuda_syscall_cnpv2*` calls
 * of libcudadevrt (linked into -rdc programs) that NVIDIA's driver answers. One entry point,
 * `op` one of PYSHIM_DEVRT_*, `args` the syscall's arguments widened to 64 bits (a dim3 as
 * two: x | y << 32, then z), called by thread `thread` (linear index in the block) of
 * `block`. Returns what the syscall returns: a CNPerror code (libcudadevrt translates it
 * to a cudaError_t), a cudaError_t (the last error), or a pointer (NULL on error). */
typedef int64_t (*pyshim_devrt_fn)(const struct pyshim_launch *launch,
                                   const struct pyshim_block *block, uint32_t thread,
                                   uint32_t op, const uint64_t *args);
#define PYSHIM_DEVRT_PARAM_BUFFER 1u  /* func, grid, block, shared -> buffer; sets the error */
#define PYSHIM_DEVRT_LAUNCH 2u        /* buffer, stream -> CNPerror */
#define PYSHIM_DEVRT_GET_LAST_ERROR 3u /* -> the calling thread's cudaError_t */
#define PYSHIM_DEVRT_SET_LAST_ERROR 4u /* cudaError_t -> the same */
#define PYSHIM_DEVRT_GET_DEVICE 5u    /* int * -> CNPerror */
#define PYSHIM_DEVRT_GET_DEVICE_COUNT 6u /* int * -> CNPerror */
#define PYSHIM_DEVRT_STREAM_CREATE 7u /* cudaStream_t *, flags -> CNPerror */
#define PYSHIM_DEVRT_STREAM_DESTROY 8u /* stream -> CNPerror */
#define PYSHIM_DEVRT_EVENT_CREATE 9u  /* cudaEvent_t *, flags -> CNPerror */
#define PYSHIM_DEVRT_EVENT_RECORD 10u /* event, stream -> CNPerror */
#define PYSHIM_DEVRT_EVENT_DESTROY 11u /* event -> CNPerror */
#define PYSHIM_DEVRT_STREAM_WAIT_EVENT 12u /* stream, event, flags -> CNPerror */

/* Device printf: `fmt` is the format string in the module, `args` the packed argument
 * buffer exactly as PTX's vprintf receives it (each argument aligned to its size). */
typedef int (*pyshim_vprintf_fn)(const struct pyshim_launch *launch, const char *fmt,
                                 const void *args);

/* Everything a block needs from the runtime; constant for the whole launch. */
typedef struct pyshim_launch {
    pyshim_dim3 grid;           /* %nctaid */
    pyshim_dim3 block;          /* %ntid */
    uint32_t warp_size;         /* the device's wavefront width: 32 (RDNA-like) or 64 (CDNA-like) */
    uint32_t dyn_shared_bytes;  /* size of the .extern .shared window */
    uint32_t num_sms;           /* %nsmid */
    uint32_t reserved0;
    pyshim_vprintf_fn vprintf;
    void *runtime_ctx;          /* a cooperative launch's grid-sync workspace (%envreg1:%envreg2), else NULL */
    uint64_t globaltimer_base;  /* ns; %globaltimer = this + elapsed */
    /* version 2: a cluster launch's shape (%cluster_nctaid), or zeros: no explicit clusters
     * (every block is then a cluster of one, as CUDA has it). Appended, so that the
     * translated C of kernels that read none of it is what version 1 produced. */
    pyshim_dim3 cluster;
    uint32_t reserved1;
    /* version 3: the device runtime and its state for this grid (its children's queue),
     * NULL where the grid cannot launch kernels (read only by kernels that do) */
    pyshim_devrt_fn devrt;
    void *devrt_ctx;
} pyshim_launch;

/* Per-block arguments. `dyn_shared` is 16-byte aligned scratch owned by the worker; static
 * shared memory is the block function's own business (it knows the size). */
typedef struct pyshim_block {
    pyshim_dim3 ctaid;          /* %ctaid */
    uint32_t smid;              /* %smid: index of the worker running this block */
    void *dyn_shared;
    /* version 2: the block's cluster in a cluster launch, else NULL */
    struct pyshim_cluster *cluster;
} pyshim_block;

/* The blocks of one cluster, all running at once (each on a thread of its own), share one
 * of these; the runtime zeroes it before the cluster starts. Blocks are indexed by
 * %cluster_ctarank. The translated kernel (preludes/cluster_cpu.h) updates it with
 * __atomic builtins: it is the cluster's barrier and its distributed shared memory. */
#define PYSHIM_MAX_CLUSTER 16u
typedef struct pyshim_cluster {
    uint64_t arrived;           /* barrier.cluster.arrive's of every thread, every phase */
    uint64_t block_arrived[PYSHIM_MAX_CLUSTER]; /* the same per block */
    uint32_t exited[PYSHIM_MAX_CLUSTER];        /* block r's run_block has returned */
    uint8_t *window[PYSHIM_MAX_CLUSTER];        /* block r's shared window, once it is known */
    uint64_t window_size[PYSHIM_MAX_CLUSTER];
    uint32_t *thread_arrivals;  /* [rank * threads per block + linear]: each thread's arrivals */
} pyshim_cluster;

/* Run every thread of one block. `params` is CUDA's kernelParams: one pointer per
 * parameter. Returns 0, or a nonzero trap code that fails the launch. */
#define PYSHIM_TRAP_TRAP 1u       /* PTX `trap`                    -> hipErrorLaunchFailure */
#define PYSHIM_TRAP_NO_MEMORY 2u  /* a per-thread allocation failed -> hipErrorLaunchFailure */
#define PYSHIM_TRAP_DEADLOCK 3u   /* a barrier that can never complete -> hipErrorLaunchFailure */
#define PYSHIM_TRAP_ASSERT 710u   /* device assert (__assertfail)  -> hipErrorAssert (710) */
typedef int (*pyshim_block_fn)(const pyshim_launch *launch, const pyshim_block *block,
                               void *const *params);

typedef struct pyshim_param_desc {
    uint32_t offset;            /* in the packed `extra` buffer (CU_LAUNCH_PARAM_BUFFER_POINTER) */
    uint32_t size;
    uint32_t align;
    uint32_t reserved0;
} pyshim_param_desc;

typedef struct pyshim_kernel_desc {
    const char *name;           /* the PTX .entry name (mangled) */
    pyshim_block_fn run_block;
    uint32_t num_params;
    uint32_t params_bytes;      /* size of the packed parameter buffer */
    const pyshim_param_desc *params;
    uint32_t static_shared_bytes;
    uint32_t local_bytes;       /* per-thread .local */
    uint32_t max_threads;       /* .maxntid product, or 0 = device limit */
    pyshim_dim3 reqntid;        /* .reqntid, or zeros */
    uint32_t min_ctas_per_sm;   /* .minnctapersm, or 0 */
    uint32_t num_regs;          /* reported by cuFuncGetAttribute(NUM_REGS) */
    /* version 2 (zeros in a kernel without them, so its descriptor's C is unchanged):
     * .reqnctapercluster (__cluster_dims__), and 1 for .explicitcluster */
    pyshim_dim3 reqnctapercluster;
    uint32_t explicit_cluster;
} pyshim_kernel_desc;

/* A module-scope .global or .const variable; the storage lives in the shared object. */
typedef struct pyshim_global_desc {
    const char *name;
    void *addr;
    uint64_t size;
} pyshim_global_desc;

typedef struct pyshim_module_desc {
    uint32_t abi_version;       /* PYSHIM_KABI_VERSION */
    uint32_t num_kernels;
    const pyshim_kernel_desc *kernels;
    uint32_t num_globals;
    const pyshim_global_desc *globals;
    const char *target;         /* "cpu-wave32" | "cpu-wave64" */
} pyshim_module_desc;

/* What a texture or surface object handle points to on the CPU device (texture.c fills it
 * in, the translated kernel's tex/suld/sust read it through the u64 handle): one image of
 * elements, row-major, with its sampling state. Enumerations are CUDA's (= HIP's) values. */
#define PYSHIM_IMAGE_MAGIC 0x31474d49u /* "IMG1" */
typedef struct pyshim_image {
    uint32_t magic;
    uint32_t dims;              /* 1, 2 or 3 */
    char *data;
    uint64_t width, height, depth; /* in elements; 1 for a missing dimension */
    uint64_t pitch, slice;      /* bytes between rows, between slices */
    uint32_t format;            /* CUarray_format: 0x01..0x0a integers, 0x10 half, 0x20 float */
    uint32_t channels;          /* 1, 2 or 4 */
    uint32_t elem_bytes;        /* one element, every channel */
    uint32_t address[3];        /* CUaddress_mode: 0 wrap, 1 clamp, 2 mirror, 3 border */
    uint32_t filter;            /* CUfilter_mode: 0 point, 1 linear */
    uint32_t normalized;        /* coordinates in [0, 1) */
    uint32_t read_float;        /* integer formats read as [0, 1] / [-1, 1] floats */
    uint32_t srgb;
    float border[4];
    /* a mipmapped texture: level[0 .. levels-1] are its levels' images (level[0] this
     * one's own), each with this image's sampling state and no levels of its own; the
     * level of detail sampled is lod + lod_bias clamped to [lod_min, lod_max] and to the
     * levels there are, mip_filter (CUfilter_mode) between two levels. levels 0: one image */
    uint32_t levels;
    uint32_t mip_filter;
    float lod_bias, lod_min, lod_max;
    const struct pyshim_image *level;
} pyshim_image;

#define PYSHIM_MODULE_SYMBOL "pyshim_module"

#endif
