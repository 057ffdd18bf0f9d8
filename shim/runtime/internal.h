/*
 * Shared declarations of libcudart (shim/runtime). CUDA's runtime headers and HIP's cannot
 * share a translation unit (dim3 and friends clash), so this header includes neither: the
 * files that implement CUDA entry points include cuda_runtime_api.h, the one file that
 * talks to HIP (backend.c) includes hip_runtime_api.h, and they meet here with plain C
 * types. Error codes crossing this line are cudaError_t values held in an int.
 */
#ifndef PYSHIM_RUNTIME_INTERNAL_H
#define PYSHIM_RUNTIME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#ifndef PYSHIM_CUDART_MAJOR
#define PYSHIM_CUDART_MAJOR 13
#endif
/* cudaRuntimeGetVersion / cudaDriverGetVersion */
#if PYSHIM_CUDART_MAJOR == 12
#define PYSHIM_RT_VERSION 12090
#else
#define PYSHIM_RT_VERSION 13000
#endif

#define PYSHIM_RT_HIDDEN __attribute__((visibility("hidden")))

/* ---- logging and unsupported calls (log.c; mirrors shim/core/log.c, unsupported.c) ---- */
PYSHIM_RT_HIDDEN void pyshim_rt_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Log `name` once, count it (PYSHIM_REPORT), record cudaErrorNotSupported as last error. */
PYSHIM_RT_HIDDEN int pyshim_rt_note_unsupported(const char *name);
/* The same for a mapped entry point whose HIP target the backend does not define. */
PYSHIM_RT_HIDDEN int pyshim_rt_note_missing(const char *name, const char *hip_name);
PYSHIM_RT_HIDDEN unsigned long pyshim_rt_unsupported_count(const char *name);
/* An enum value HIP has no counterpart for: logged once per (symbol, value), recorded and
 * returned as cudaErrorInvalidValue. */
PYSHIM_RT_HIDDEN int pyshim_rt_note_unmapped(const char *symbol, const char *param, int value);

/* ---- errors (error.c) ---- */
/* Non-zero once a sticky error (illegal address, launch failure ...) happened: every later
 * call returns it until cudaDeviceReset. */
PYSHIM_RT_HIDDEN extern volatile int pyshim_rt_sticky_error;
/* Record a result as the calling thread's last error (when it is one); returns it. */
PYSHIM_RT_HIDDEN int pyshim_rt_record(int cuda_err);
PYSHIM_RT_HIDDEN int pyshim_rt_from_hip(int hip_err);
PYSHIM_RT_HIDDEN void pyshim_rt_clear_errors(void);

/* ---- the driver (driver_init.c) ---- */
/* Non-zero once the first runtime call has initialised libcuda.so.1 (or found none). */
PYSHIM_RT_HIDDEN extern volatile int pyshim_rt_driver_ready;
PYSHIM_RT_HIDDEN void pyshim_rt_driver_init(void);
/* libcuda's context calls (CUresult as int, CUcontext as void *); present is 0 without a
 * driver, and then the runtime works alone. */
struct pyshim_rt_driver {
    int present;
    int (*primary_retain)(void **ctx, int device);
    int (*primary_release)(int device);
    int (*ctx_get_current)(void **ctx);
    int (*ctx_set_current)(void *ctx);
    /* for cudaGetFuncBySymbol's CUfunction: the module loads of libcuda (NULL if absent) */
    int (*module_load_data)(void **module, const void *image);
    int (*module_get_function)(void **function, void *module, const char *name);
    int (*module_unload)(void *module);
    /* the driver's error log (shim/core/logs.c), which cudaLogs* read as NVIDIA's does */
    int (*logs_register)(void *fn, void *data, void **handle);
    int (*logs_unregister)(void *handle);
    int (*logs_current)(unsigned int *it, unsigned int flags);
    int (*logs_to_file)(unsigned int *it, const char *path, unsigned int flags);
    int (*logs_to_memory)(unsigned int *it, char *buffer, size_t *size, unsigned int flags);
};
PYSHIM_RT_HIDDEN extern struct pyshim_rt_driver pyshim_rt_driver;

/* ---- the driver's current context (context.c) ---- */
/* Non-zero once this thread made its first runtime call (which initialised the driver
 * and made a primary context current when the thread had none). */
PYSHIM_RT_HIDDEN extern _Thread_local int pyshim_rt_thread_bound;
PYSHIM_RT_HIDDEN void pyshim_rt_thread_init(void);

/* ---- device properties (device.c) ---- */
/* cudaError_t; fills this library's cudaDeviceProp layout (13.0's or 12.9's). */
PYSHIM_RT_HIDDEN int pyshim_rt_device_properties(void *prop, int device);

/* ---- the registry of nvcc's host-side registrations (register.c) ---- */
struct pyshim_rt_fatbin;
struct pyshim_rt_func {
    uint32_t magic;
    const void *stub;         /* the host stub the program launches by */
    char *name;               /* the kernel's (mangled) device name */
    struct pyshim_rt_fatbin *fatbin;
    void *hip;                /* hipFunction_t, resolved on first launch */
    int result;               /* cudaError_t of that resolution, once tried */
    int tried;
    void *cu_function;        /* its CUfunction in libcuda (cudaGetFuncBySymbol), once asked */
    struct pyshim_rt_func *next_in_bucket;  /* by stub */
    struct pyshim_rt_func *next_by_record;  /* by its own address (a cudaKernel_t) */
};
#define PYSHIM_RT_FUNC_MAGIC 0x52464e31u /* "RFN1" */

/* The function a host stub (or a cudaKernel_t) names; NULL if unknown. */
PYSHIM_RT_HIDDEN struct pyshim_rt_func *pyshim_rt_func_by_stub(const void *stub);
PYSHIM_RT_HIDDEN struct pyshim_rt_func *pyshim_rt_func_by_handle(const void *handle);
/* The function whose translated kernel is `hip`; NULL if none (register.c). */
PYSHIM_RT_HIDDEN struct pyshim_rt_func *pyshim_rt_func_by_hip(const void *hip);
/* A kernel node's launch as HIP holds it (backend_graph.c); 0 or a cudaError_t. */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_graph_kernel_get(void *node, void **fn, unsigned grid[3],
                                                    unsigned block[3], unsigned *shmem,
                                                    void ***args, void ***extra);
/* Set (set != 0) or read a kernel node's launch attribute `id`, one HIP knows, from or into
 * CUDA's 64-byte value union (backend_graph.c); 0 or a cudaError_t. */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_kernel_node_attr(void *node, int set, int id, void *value);
/* hipStreamBeginCaptureToGraph without edge data (backend_graph.c); 0 or a cudaError_t. */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_begin_capture_to_graph(void *stream, void *graph,
                                                          void *const *deps, size_t ndeps,
                                                          int mode);
/* Translate and load its module if needed, then the HIP function. */
PYSHIM_RT_HIDDEN int pyshim_rt_func_resolve(struct pyshim_rt_func *f, void **hip);
/* The CUfunction libcuda.so.1 has for the kernel: its fat binary loaded by the driver too
 * (once; the kernel cache makes the translation a lookup); a cudaError_t. */
PYSHIM_RT_HIDDEN int pyshim_rt_func_driver(struct pyshim_rt_func *f, void **cu_function);
/* Parameter `index`'s offset and size in the kernel's packed parameter buffer, from the
 * translator's kernel lines (the module is loaded first); a cudaError_t. */
PYSHIM_RT_HIDDEN int pyshim_rt_func_param_info(struct pyshim_rt_func *f, size_t index,
                                               size_t *offset, size_t *size);
/* What the translator said of its module once loaded: the PTX target (compute_75 -> 75;
 * 0 unknown) and the bytes of its .const variables. */
PYSHIM_RT_HIDDEN void pyshim_rt_func_facts(const struct pyshim_rt_func *f, int *ptx_target,
                                           size_t *const_bytes);
/* A registered variable's device address and size, by its host shadow. */
PYSHIM_RT_HIDDEN int pyshim_rt_symbol(const void *shadow, void **dptr, size_t *size);
/* A symbol copy's device end (`to`: into the symbol): the direction checked, the bytes
 * [offset, offset + count) located; a cudaError_t. */
PYSHIM_RT_HIDDEN int pyshim_rt_symbol_end(int to, const void *symbol, size_t offset,
                                          size_t count, int kind, char **out);
/* ---- libraries (cudaLibrary*, register.c): a private fat binary record each ---- */
/* Copy and load an image (its extent found from its header); cudaError_t. */
PYSHIM_RT_HIDDEN int pyshim_rt_library_load(const void *image, void **library);
PYSHIM_RT_HIDDEN int pyshim_rt_library_unload(void *library);
/* The kernel record of `name` (created on first request, then the same one). */
PYSHIM_RT_HIDDEN int pyshim_rt_library_kernel(void *library, const char *name,
                                              struct pyshim_rt_func **out);
PYSHIM_RT_HIDDEN int pyshim_rt_library_global(void *library, const char *name, void **dptr,
                                              size_t *size);
/* Its kernels: *count, and the first `n` records into `out` (when not NULL). */
PYSHIM_RT_HIDDEN int pyshim_rt_library_kernels(void *library, unsigned *count,
                                               struct pyshim_rt_func **out, unsigned n);

/* Forget every loaded module (cudaDeviceReset); registrations stay. */
PYSHIM_RT_HIDDEN void pyshim_rt_unload_all(void);

/* ---- HIP (backend.c) ---- */
/* Translate an image (fatbin container, PTX ...) for the current device and load it. */
/* `kernels` (optional): the translator's kernel lines, malloc'ed ("name\tlayout\n"...). */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_load(const void *image, size_t size, void **module,
                                        char **kernels);
PYSHIM_RT_HIDDEN void pyshim_rt_hip_unload(void *module);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_function(void *module, const char *name, void **fn);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_global(void *module, const char *name, void **dptr,
                                          size_t *size);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_launch(void *fn, const unsigned grid[3],
                                          const unsigned block[3], size_t shmem, void *stream,
                                          void **args);
/* The same as a cooperative launch (every block resident at once: grid-wide sync). */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_launch_cooperative(void *fn, const unsigned grid[3],
                                                      const unsigned block[3], size_t shmem,
                                                      void *stream, void **args);
/* A launch in clusters of cluster[0..2] blocks, each cluster's blocks together
 * (common/cluster_launch.h); for a backend that reports cluster launch. */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_launch_cluster(void *fn, const unsigned grid[3],
                                                  const unsigned block[3], size_t shmem,
                                                  void *stream, void **args,
                                                  const unsigned cluster[3], int cooperative);
/* The most blocks a cluster of `fn` may have: 8, 16 with the non-portable attribute set. */
PYSHIM_RT_HIDDEN unsigned pyshim_rt_hip_cluster_limit(void *fn);
/* Sets cudaFuncAttributeNonPortableClusterSizeAllowed where the backend keeps it. */
PYSHIM_RT_HIDDEN void pyshim_rt_hip_set_non_portable(void *fn, int value);
/* The kernel's compile-time cluster shape (__cluster_dims__), zeros when it has none;
 * returns 1 when it must be launched in clusters (.explicitcluster), else 0. */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_cluster_dims(void *fn, int dims[3]);
/* hipGetDevicePropertiesR0600 into a buffer of PYSHIM_RT_HIPPROP_SIZE bytes. */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_props(int device, void *buf, size_t len);
/* The attributes cudaFuncGetAttributes reports, from the HIP function. */
struct pyshim_rt_func_attrs {
    size_t shared, constant, local;
    int max_threads, regs, ptx_version, binary_version, max_dynamic_shared;
};
PYSHIM_RT_HIDDEN int pyshim_rt_hip_func_attrs(void *fn, struct pyshim_rt_func_attrs *out);
/* The kernel's launch bound (threads per block), 0 if the backend does not say. */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_max_threads(void *fn);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_device_count(int *count);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_get_device(int *device);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_set_device(int device);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_attribute(int *value, int hip_attr, int device);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_occupancy(int *blocks, void *fn, int block_size,
                                             size_t dynamic_shared, unsigned flags);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_device_reset(void);
/* hipGraphAddKernelNode for a translated kernel */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_graph_kernel_node(void **node, void *graph, void *const *deps,
                                                     size_t ndeps, void *fn,
                                                     const unsigned grid[3],
                                                     const unsigned block[3], unsigned shmem,
                                                     void **args, void **extra);
/* hipGraphExecKernelNodeSetParams for a translated kernel, and hipGraphExecUpdate */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_graph_exec_kernel_params(void *exec, void *node, void *fn,
                                                            const unsigned grid[3],
                                                            const unsigned block[3],
                                                            unsigned shmem, void **args,
                                                            void **extra);
/* hipGraphKernelNodeSetParams for a translated kernel */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_graph_kernel_params(void *node, void *fn,
                                                       const unsigned grid[3],
                                                       const unsigned block[3], unsigned shmem,
                                                       void **args, void **extra);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_graph_exec_update(void *exec, void *graph,
                                                     void **error_node, int *result);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_host_malloc(void **ptr, size_t size);
/* cudaPointerAttributes' fields; type is a cudaMemoryType value */
struct pyshim_rt_pointer_attrs {
    int type, device;
    void *device_pointer, *host_pointer;
};
PYSHIM_RT_HIDDEN int pyshim_rt_hip_pointer_attrs(const void *ptr,
                                                 struct pyshim_rt_pointer_attrs *out);
/* texture and surface objects from CUDA's descriptors (layouts: backend.c) */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_create_texture(void **out, const void *res, const void *tex,
                                                  const void *view);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_create_surface(void **out, const void *res);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_texture_resource(void *res, void *tex);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_texture_desc(void *desc, void *tex);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_texture_view(void *view, void *tex);
/* Unified memory hints; device -1 is the host (hipCpuDeviceId, CUDA's cudaCpuDeviceId) */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_prefetch(const void *ptr, size_t count, int device,
                                            void *stream);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_advise(const void *ptr, size_t count, int advice,
                                          int device);
/* hipStreamAddCallback calling fn(ctx, cudaError_t of the stream) */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_stream_callback(void *stream,
                                                   void (*fn)(void *ctx, int cuda_status),
                                                   void *ctx, unsigned flags);

/* ---- HIP, for the entry points whose structs are laid out differently (backend_adapt.c):
 * CUDA's layouts in plain C, converted field by field on the HIP side ---- */
struct pyshim_rt_memset {  /* cudaMemsetParams */
    void *dst;
    size_t pitch;
    unsigned value, element_size;
    size_t width, height;
};
PYSHIM_RT_HIDDEN int pyshim_rt_hip_graph_memset_node(void **node, void *graph,
                                                     void *const *deps, size_t ndeps,
                                                     const struct pyshim_rt_memset *m);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_graph_memset_get(void *node, struct pyshim_rt_memset *m);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_graph_memset_set(void *node, const struct pyshim_rt_memset *m);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_graph_exec_memset_set(void *exec, void *node,
                                                         const struct pyshim_rt_memset *m);
/* hipGraphNodeType of a node (the values CUDA's enum shares: 0..11) */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_graph_node_type(void *node, int *type);
/* hipGraphInstantiateWithParams; result: a cudaGraphInstantiateResult value */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_graph_instantiate(void **exec, void *graph,
                                                     unsigned long long flags, void *stream,
                                                     void **err_node, int *result);
union pyshim_rt_attr_value {  /* cudaLaunchAttributeValue, the members a stream has */
    char pad[64];
    struct {
        void *base_ptr;
        size_t num_bytes;
        float hit_ratio;
        int hit_prop, miss_prop;
    } window;
    int sync_policy;
    int priority;
    struct {
        unsigned char default_, remote;
    } domain_map;
    int domain;
};
/* attr: a cudaLaunchAttributeID (HIP numbers its stream attributes the same) */
PYSHIM_RT_HIDDEN int pyshim_rt_hip_stream_get_attr(void *stream, int attr,
                                                   union pyshim_rt_attr_value *v);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_stream_set_attr(void *stream, int attr,
                                                   const union pyshim_rt_attr_value *v);
struct pyshim_rt_pool_props {  /* cudaMemPoolProps less `usage` (the caller refuses it) */
    int alloc_type, handle_types, location_type, location_id;
    void *win32;
    size_t max_size;
};
PYSHIM_RT_HIDDEN int pyshim_rt_hip_pool_create(void **pool, const struct pyshim_rt_pool_props *p);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_device_pool(void **pool, int device, int is_default);
PYSHIM_RT_HIDDEN int pyshim_rt_hip_set_device_pool(int device, void *pool);

/* ---- the embedded Python translator (python_bridge.c) ---- */
/* cudaError_t; on success `path` holds the file to hipModuleLoad. */
PYSHIM_RT_HIDDEN int pyshim_rt_py_translate(const void *image, size_t size, const char *target,
                                            char *path, size_t path_len, char **kernels);

/* ---- fat binaries (fatbin.c, over shim/common/fatbin_extent.c) ---- */
/* Bytes of the image `data` points at and where it starts (the container for a wrapper);
 * 0 if not recognised. */
PYSHIM_RT_HIDDEN size_t pyshim_rt_image_extent(const void *data, const void **start);
/* -rdc=true: the relocatable containers of a v2 wrapper in one malloc'ed buffer, or NULL. */
PYSHIM_RT_HIDDEN void *pyshim_rt_relocatable_copy(const void *data, size_t *size);

#endif
